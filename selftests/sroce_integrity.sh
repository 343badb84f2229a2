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
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh &&
	PROG=sroce_integrity && . ./lib/prog_lib.sh || exit 1

GID4=0000:0000:0000:0000:0000:ffff:c000:0201	# ::ffff:192.0.2.1
NETDEV_MTU=${SROCE_INTEGRITY_NETDEV_MTU:-}
OLD_MTU=

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
	if [[ $OTHER == sroce ]]; then
		prog_unload_other sroce_reset
	else
		prog_unload_other
	fi
	if [[ $MOD == sroce ]]; then
		step sroce_reset || setup_failed "sroce_reset failed"
		step sroce_load || setup_failed "sroce_load (modprobe ib_uverbs rdma_ucm sroce) failed"
	else
		prog_modprobe
	fi
	if [[ -n $NETDEV_MTU ]]; then
		OLD_MTU=$(cat "/sys/class/net/$NETDEV/mtu")
		step ip link set "$NETDEV" mtu "$NETDEV_MTU" ||
			setup_failed "ip link set $NETDEV mtu $NETDEV_MTU failed"
	fi
	prog_link_add
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
prog_cleanup_or_bail "rdma link delete $DEV / unload $MOD"
exit $rc
