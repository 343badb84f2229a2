#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the verbs-objects test: load the driver, add a link on the
# netdev, wait for its GIDs, run selftests/sroce_objects against it (its KTAP
# goes through unchanged), then delete the link and unload the driver.
#
#   SROCE_TEST_DRIVER=sroce  (default) modprobe ib_uverbs rdma_ucm sroce,
#                            rdma link add sroce0 type sroce netdev eth0
#   SROCE_TEST_DRIVER=rxe    the same with Linux's rdma_rxe (rxe0): only to
#                            validate the test itself, not part of the suite
#   SROCE_NETDEV             netdev to attach to (default eth0)
#   SROCE_GID                GID index of the IPv4 GID (default 1)
#
# Exit status: that of sroce_objects, or 1 when set-up or clean-up fails.
# A set-up failure prints a one-test KTAP report; a clean-up failure after
# the program ran prints "Bail out!" so that no TAP reader counts it a pass.
set -u
cd "$(dirname "$0")" || exit 1

BIN=./sroce_objects
DRIVER=${SROCE_TEST_DRIVER:-sroce}
NETDEV=${SROCE_NETDEV:-eth0}
GID=${SROCE_GID:-1}
SYSFS=/sys/class/infiniband
ZERO_GID=0000:0000:0000:0000:0000:0000:0000:0000
LOG=()			# set-up notes, printed after the program's KTAP

case $DRIVER in
sroce)	MOD=sroce; OTHER=rdma_rxe; DEV=sroce0 ;;
rxe)	MOD=rdma_rxe; OTHER=sroce; DEV=rxe0 ;;
*)	echo "sroce_objects.sh: SROCE_TEST_DRIVER must be sroce or rxe, not '$DRIVER'" >&2
	exit 2 ;;
esac
TYPE=${MOD#rdma_}

note() { LOG+=("$*"); }

print_notes() {
	((${#LOG[@]} == 0)) || printf '# %s\n' "${LOG[@]}"
}

# Run "$2 ..." for at most $1 seconds.  A driver stuck in the kernel (say, a
# link delete that never returns) must not eat the whole per-test time: give
# up on it, leave it behind, and report.
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
		disown "$pid"	# no wait for it: it may never die
		kill -KILL "$pid" 2>/dev/null
		echo "still running after ${secs}s: $*" >&2
		return 124
	fi
	wait "$pid"
}

# A set-up step: bounded, and what it prints kept as notes, so that nothing
# comes before the KTAP header.
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

# Set-up failed before the program could print anything: report it as the
# one test of this run.
setup_failed() {
	echo "TAP version 13"
	echo "1..1"
	print_notes
	echo "# $*"
	echo "not ok 1 sroce_objects.setup # $DEV on $NETDEV with $MOD"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	cleanup >/dev/null 2>&1
	exit 1
}

# Wait up to $1 seconds for "$2 ..." to succeed.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		((SECONDS < end)) || return 1
		sleep 0.1
	done
}

# shellcheck disable=SC2317	# these run through wait_for
port_active() {
	local s
	s=$(cat "$SYSFS/$DEV/ports/1/state" 2>/dev/null) || return 1
	[[ $s == *ACTIVE* ]]
}

# shellcheck disable=SC2317
gid_set() {
	local g
	g=$(cat "$SYSFS/$DEV/ports/1/gids/$1" 2>/dev/null) || return 1
	[[ -n $g && $g != "$ZERO_GID" ]]
}

# shellcheck disable=SC2317
gids_ready() { port_active && gid_set 0 && gid_set "$GID"; }

cleanup() {
	local rc=0
	if [[ -e $SYSFS/$DEV ]]; then
		bounded 60 rdma link delete "$DEV" || rc=1
	fi
	if lsmod | grep -q "^$MOD "; then
		bounded 60 rmmod "$MOD" || rc=1
	fi
	return $rc
}

setup() {
	[[ -x $BIN ]] || setup_failed "$BIN is not built (make -C selftests sroce_objects)"
	# The two drivers claim the same provider ABI and UDP port: never both.
	if lsmod | grep -q "^$OTHER "; then
		note "unloading $OTHER first"
		step rmmod "$OTHER" || setup_failed "cannot unload $OTHER"
	fi
	if [[ -e $SYSFS/$DEV ]]; then
		note "removing a leftover $DEV"
		step rdma link delete "$DEV" || setup_failed "cannot delete leftover $DEV"
	fi
	step modprobe -a ib_uverbs rdma_ucm "$MOD" ||
		setup_failed "modprobe ib_uverbs rdma_ucm $MOD failed"
	step rdma link add "$DEV" type "$TYPE" netdev "$NETDEV" ||
		setup_failed "rdma link add $DEV type $TYPE netdev $NETDEV failed"
	wait_for 10 gids_ready ||
		setup_failed "$DEV: port not ACTIVE with GIDs 0 and $GID after 10 s"
	note "$DEV ($MOD) on $NETDEV: GID[0] $(cat "$SYSFS/$DEV/ports/1/gids/0")," \
	     "GID[$GID] $(cat "$SYSFS/$DEV/ports/1/gids/$GID")"
}

setup
SROCE_DEV=$DEV SROCE_GID=$GID "$BIN"
rc=$?
print_notes
# Into a file, not $(...): a command stuck in the kernel would keep a pipe
# open and hang the capture.
errs=$(mktemp)
if ! cleanup >"$errs" 2>&1; then
	sed 's/^/# /' "$errs"
	rm -f "$errs"
	echo "Bail out! sroce_objects.sh: clean-up failed: rdma link delete $DEV / rmmod $MOD"
	exit 1
fi
rm -f "$errs"
exit $rc
