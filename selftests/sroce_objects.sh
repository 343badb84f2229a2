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
cd "$(dirname "$0")" && PROG=sroce_objects && . ./lib/prog_lib.sh || exit 1

GID=${SROCE_GID:-1}
SYSFS=/sys/class/infiniband
ZERO_GID=0000:0000:0000:0000:0000:0000:0000:0000

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
	prog_unload_other
	prog_modprobe
	prog_link_add
	wait_for 10 gids_ready ||
		setup_failed "$DEV: port not ACTIVE with GIDs 0 and $GID after 10 s"
	note "$DEV ($MOD) on $NETDEV: GID[0] $(cat "$SYSFS/$DEV/ports/1/gids/0")," \
	     "GID[$GID] $(cat "$SYSFS/$DEV/ports/1/gids/$GID")"
}

setup
SROCE_DEV=$DEV SROCE_GID=$GID "$BIN"
rc=$?
print_notes
prog_cleanup_or_bail "rdma link delete $DEV / rmmod $MOD"
exit $rc
