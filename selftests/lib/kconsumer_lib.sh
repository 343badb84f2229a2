# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the tests of kernel RDMA consumers on sroce0 (NVMe-oF,
# NFS/RDMA). Source selftests/lib/lib.sh and sroce_lib.sh first. Sets WORK (a
# scratch directory) and T_START. KC_DEV and KC_MOD name the RDMA device
# and its module (sroce0 and sroce unless a two-guest test runs rdma_rxe).

WORK=$(mktemp -d)
T_START=$EPOCHREALTIME
KC_DEV=${KC_DEV:-sroce0}
KC_MOD=${KC_MOD:-sroce}

# Milliseconds since $1 (an $EPOCHREALTIME value).
ms_since() {
	echo $((($(_ktap_usec "$EPOCHREALTIME") - $(_ktap_usec "$1")) / 1000))
}

# Everything the test created is gone: the counts of the non-CQ objects
# match those before the first connect, and so do the CQs in use (ib_mad's).
# A CQ with no user left may only be one of ib_core's shared CQ pool, which
# stays until the device goes.
busy_cqs() {
	rdma resource show cq dev "$KC_DEV" | grep -v ' users 0 ' |
		sed 's/cqn [0-9]* //; s/cqe [0-9]* //'
}

step_res_back() {
	local now cq ok=0
	now=$(sroce_res_counts "$KC_DEV")
	echo "before: $RES_BEFORE"
	echo "after:  $now"
	rdma resource show cq dev "$KC_DEV"
	[ "$(sed 's/cq [0-9]* //' <<<"$now")" = "$(sed 's/cq [0-9]* //' <<<"$RES_BEFORE")" ] || ok=1
	[ "$(busy_cqs)" = "$BUSY_CQS_BEFORE" ] || { echo "CQs in use differ"; ok=1; }
	while read -r cq; do
		[[ -z $cq || $cq == *"comm [ib_core]"* ]] && continue
		echo "idle CQ not from ib_core's pool: $cq"
		ok=1
	done <<<"$(rdma resource show cq dev "$KC_DEV" | grep ' users 0 ')"
	return $ok
}

step_link_delete_clean() {
	kmsg_mark
	timeout -k 5 60 rdma link delete "$KC_DEV" || return 1
	if kmsg_since_mark | grep 'live objects'; then
		return 1
	fi
	sroce_dev_gone "$KC_DEV"
}

step_kmsg_clean() {
	dmesg | sed -n "/$RUN_MARK/,\$p" >"$WORK/kmsg.txt"
	../scripts/check-kmsg.sh "$WORK/kmsg.txt" -
}

# timed DESC CMD...: ktap_check with the step's duration as a comment.
timed() {
	local t0=$EPOCHREALTIME
	ktap_check "$@"
	echo "# ($(ms_since "$t0") ms)"
}

# Fresh sroce0 on eth0; remember what it holds before any consumer runs.
# A hung task report (after 45 s instead of 120 s) fails the kernel log check.
kconsumer_begin() {
	sroce_eth0_up
	kconsumer_baseline
}

# What $KC_DEV holds now, to compare with at the end; start of the log.
kconsumer_baseline() {
	echo 45 >/proc/sys/kernel/hung_task_timeout_secs 2>/dev/null
	kmsg_mark
	RUN_MARK=$SROCE_KMSG_MARK
	RES_BEFORE=$(sroce_res_counts "$KC_DEV")
	BUSY_CQS_BEFORE=$(busy_cqs)
}

# The last KCONSUMER_END_RESULTS results of every such test, after the
# consumer is gone: everything else goes away cleanly too.
KCONSUMER_END_RESULTS=4
kconsumer_end() {
	timed "$KC_DEV holds only what it held before the test" step_res_back
	timed "rdma link delete: no live $KC_MOD objects left" step_link_delete_clean
	timed "$KC_MOD unloads" rmmod "$KC_MOD"
	timed "kernel log clean during the test" step_kmsg_clean
	echo "# total $(($(ms_since "$T_START") / 1000)) s"
	rm -rf "$WORK"
}
