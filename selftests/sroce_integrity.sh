#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the RC data-integrity test: load the driver, add a link on
# the netdev, wait for its IPv4 RoCEv2 GID (192.0.2.1), run
# selftests/sroce_integrity against it with that GID's index (its KTAP goes
# through unchanged), print the port counters, then delete the link and
# unload the driver.
#
#   SROCE_TEST_DRIVER=sroce  (default) sroce_reset; sroce_load;
#                            rdma link add sroce0 type sroce netdev eth0
#   SROCE_TEST_DRIVER=rxe    the same with Linux's rdma_rxe (rxe0): only to
#                            validate the test itself, not part of the suite
#   SROCE_NETDEV             netdev to attach to (default eth0)
#   SROCE_INTEGRITY_NETDEV_MTU  set the netdev's MTU first (e.g. 9000 for a
#                            4096-byte RoCE MTU), restored afterwards
#   SROCE_SEED, SROCE_INTEGRITY_*   passed to the program (see its header)
#
# Exit status: that of sroce_integrity, or 1 when set-up or clean-up fails.
# A set-up failure prints a one-test KTAP report; a clean-up failure after
# the program ran prints "Bail out!" so that no TAP reader counts it a pass.
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh || exit 1

BIN=./sroce_integrity
DRIVER=${SROCE_TEST_DRIVER:-sroce}
NETDEV=${SROCE_NETDEV:-eth0}
GID4=0000:0000:0000:0000:0000:ffff:c000:0201	# ::ffff:192.0.2.1
NETDEV_MTU=${SROCE_INTEGRITY_NETDEV_MTU:-}
OLD_MTU=
LOG=()			# set-up notes, printed after the program's KTAP

case $DRIVER in
sroce)	MOD=sroce; OTHER=rdma_rxe; DEV=sroce0 ;;
rxe)	MOD=rdma_rxe; OTHER=sroce; DEV=rxe0 ;;
*)	echo "sroce_integrity.sh: SROCE_TEST_DRIVER must be sroce or rxe, not '$DRIVER'" >&2
	exit 2 ;;
esac
TYPE=${MOD#rdma_}

note() { LOG+=("$*"); }

print_notes() {
	((${#LOG[@]} == 0)) || printf '# %s\n' "${LOG[@]}"
}

# Run "$2 ..." for at most $1 seconds; a command stuck in the kernel is left
# behind rather than waited for.
bounded() {
	local secs=$1 pid end
	shift
	"$@" &
	pid=$!
	end=$((SECONDS + secs))
	while kill -0 "$pid" 2>/dev/null && ((SECONDS < end)); do
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		disown "$pid"
		kill -KILL "$pid" 2>/dev/null
		echo "still running after ${secs}s: $*" >&2
		return 124
	fi
	wait "$pid"
}

# A set-up step: bounded, its output kept as notes so that nothing comes
# before the KTAP header.
step() {
	local out line rc
	out=$(mktemp)
	bounded 60 "$@" >"$out" 2>&1
	rc=$?
	while IFS= read -r line; do
		note "$*: $line"
	done <"$out"
	rm -f "$out"
	return $rc
}

setup_failed() {
	echo "TAP version 13"
	echo "1..1"
	print_notes
	echo "# $*"
	echo "not ok 1 sroce_integrity.setup # $DEV on $NETDEV with $MOD"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	cleanup >/dev/null 2>&1
	exit 1
}

# Index of the RoCEv2 GID $2 of device $1, or nothing.
gid_index() {
	local g i
	for g in "$SROCE_SYSFS/$1"/ports/1/gids/*; do
		i=${g##*/}
		[[ $(cat "$g" 2>/dev/null) == "$2" ]] || continue
		[[ $(cat "$SROCE_SYSFS/$1/ports/1/gid_attrs/types/$i" 2>/dev/null) == "RoCE v2" ]] || continue
		echo "$i"
		return 0
	done
	return 1
}

# shellcheck disable=SC2317	# runs through wait_for
ready() {
	[[ $(sroce_port_state "$DEV") == ACTIVE ]] && gid_index "$DEV" "$GID4" >/dev/null
}

cleanup() {
	local rc=0
	if [[ -e $SROCE_SYSFS/$DEV ]]; then
		bounded 60 rdma link delete "$DEV" || rc=1
	fi
	if [[ $MOD == sroce ]]; then
		bounded 60 sroce_reset || rc=1
	elif lsmod | grep -q "^$MOD "; then
		bounded 60 rmmod "$MOD" || rc=1
	fi
	if [[ -n $OLD_MTU ]]; then
		ip link set "$NETDEV" mtu "$OLD_MTU" || rc=1
	fi
	return $rc
}

setup() {
	[[ -x $BIN ]] || setup_failed "$BIN is not built (make -f selftests/integrity.mk)"
	# The two drivers claim the same provider ABI and UDP port: never both.
	if lsmod | grep -q "^$OTHER "; then
		note "unloading $OTHER first"
		if [[ $OTHER == sroce ]]; then
			step sroce_reset || setup_failed "cannot unload sroce"
		else
			step rmmod "$OTHER" || setup_failed "cannot unload $OTHER"
		fi
	fi
	if [[ $MOD == sroce ]]; then
		step sroce_reset || setup_failed "sroce_reset failed"
		step sroce_load || setup_failed "sroce_load (modprobe ib_uverbs rdma_ucm sroce) failed"
	else
		if [[ -e $SROCE_SYSFS/$DEV ]]; then
			step rdma link delete "$DEV" || setup_failed "cannot delete leftover $DEV"
		fi
		step modprobe -a ib_uverbs rdma_ucm "$MOD" ||
			setup_failed "modprobe ib_uverbs rdma_ucm $MOD failed"
	fi
	if [[ -n $NETDEV_MTU ]]; then
		OLD_MTU=$(cat "/sys/class/net/$NETDEV/mtu")
		step ip link set "$NETDEV" mtu "$NETDEV_MTU" ||
			setup_failed "ip link set $NETDEV mtu $NETDEV_MTU failed"
	fi
	step rdma link add "$DEV" type "$TYPE" netdev "$NETDEV" ||
		setup_failed "rdma link add $DEV type $TYPE netdev $NETDEV failed"
	wait_for "$DEV IPv4 GID" 10 ready >/dev/null ||
		setup_failed "$DEV: port not ACTIVE with the RoCEv2 GID $GID4 after 10 s"
	GID=$(gid_index "$DEV" "$GID4")
	note "$DEV ($MOD) on $NETDEV: GID[$GID] $GID4, active MTU $(sroce_active_mtu "$DEV")"
}

setup
kmsg_mark
start=$SECONDS
SROCE_DEV=$DEV SROCE_GID=$GID "$BIN"
rc=$?
note "sroce_integrity on $DEV: exit $rc after $((SECONDS - start)) s"
print_notes
echo "# rdma statistic show link $DEV/1:"
rdma statistic show link "$DEV/1" 2>&1 | fold -w 150 | sed 's/^/#   /'
if ((rc != 0)); then
	echo "# kernel log since the test started:"
	kmsg_since_mark | tail -n 60 | sed 's/^/#   /'
fi
# Into a file, not $(...): a command stuck in the kernel would keep a pipe
# open and hang the capture.
errs=$(mktemp)
if ! cleanup >"$errs" 2>&1; then
	sed 's/^/# /' "$errs"
	rm -f "$errs"
	echo "Bail out! sroce_integrity.sh: clean-up failed: rdma link delete $DEV / unload $MOD"
	exit 1
fi
rm -f "$errs"
exit $rc
