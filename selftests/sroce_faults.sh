#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault injection (debug kernel only: make test-debug): every object of
# selftests/sroce_objects is created and destroyed with allocations failing
# at random (failslab, only in the test's own processes), then with each of
# sroce's setup functions that carry ALLOW_ERROR_INJECTION failing half the
# time (fail_function).  The program's own results do not matter - many of
# its calls fail by design; what must hold: no kernel report (the harness
# checks the log, kmemleak included), the object counts go back to where
# they were, the device still moves data and the module unloads.
# sroce-timeout: 1200
set -u
cd "$(dirname "$0")" && . ./lib.sh && . ./sroce_lib.sh

ROUNDS=${SROCE_FAULTS_ROUNDS:-5}
DBG=/sys/kernel/debug
GID4=0000:0000:0000:0000:0000:ffff:c000:0201
FUNCS="sroce_queue_init sroce_queue_resize sroce_pool_reserve sroce_pool_reserve_index"

ktap_plan $((3 + ROUNDS + $(wc -w <<<"$FUNCS")))
if [ ! -d $DBG/failslab ] || [ ! -d $DBG/fail_function ]; then
	ktap_fail "fault injection available" \
		"no failslab/fail_function in debugfs: run under make test-debug"
	ktap_finish
	exit 1
fi

sroce_reset
sroce_load
rdma link add sroce0 type sroce netdev eth0
wait_for "IPv4 GID" 10 sroce_has_rocev2_gid sroce0 $GID4 >/dev/null
idx=$(sroce_gid_index sroce0 $GID4)
baseline=$(sroce_res_counts sroce0)

# Run sroce_objects with fault injection on for its test processes only,
# from the moment each has opened the device (SROCE_FAULTS): a failed
# allocation in a 9p path walk of this guest's root has left every later
# exec failing.
objects_under_faults() {
	SROCE_FAULTS=1 SROCE_DEV=sroce0 SROCE_GID=$idx timeout -k 5 300 ./sroce_objects >/dev/null 2>&1
	return 0
}

counts_back() { [ "$(sroce_res_counts sroce0)" = "$baseline" ]; }

# Only allocations with sroce on the stack fail, where the kernel has the
# stack filter (debug.config): a failed allocation in 9p or overlayfs
# broke this guest's root file system (every exec EINVAL) even with the
# process filter above.
sroce_range() {
	local name size refs deps state addr rest
	echo 0 >/proc/sys/kernel/kptr_restrict
	while read -r name size refs deps state addr rest; do
		[ "$name" = sroce ] && printf '%u %u\n' $((addr)) $((addr + size))
	done </proc/modules
}
if [ -e $DBG/failslab/require-start ]; then
	read -r lo hi <<<"$(sroce_range)"
	if [ -z "${lo:-}" ] || [ "$lo" = 0 ]; then
		echo "# no address of sroce in /proc/modules (kptr_restrict?): no stack filter"
	else
		echo "$lo" >$DBG/failslab/require-start
		echo "$hi" >$DBG/failslab/require-end
		echo 32 >$DBG/failslab/stacktrace-depth
		echo "# failslab only with sroce's module ($lo-$hi) on the stack"
	fi
fi
echo Y >$DBG/failslab/task-filter
echo N >$DBG/failslab/ignore-gfp-wait
echo 0 >$DBG/failslab/verbose
echo -1 >$DBG/failslab/times
echo 1 >$DBG/failslab/interval
for r in $(seq 1 "$ROUNDS"); do
	p=$((r * 5))
	echo $p >$DBG/failslab/probability
	objects_under_faults
	echo 0 >$DBG/failslab/probability
	ktap_check "failslab ${p}%: objects back to '$baseline'" wait_for objects 20 counts_back
done

echo Y >$DBG/fail_function/task-filter
echo 0 >$DBG/fail_function/verbose
echo -1 >$DBG/fail_function/times
echo 1 >$DBG/fail_function/interval
for f in $FUNCS; do
	echo >$DBG/fail_function/inject
	if ! echo "$f" >$DBG/fail_function/inject 2>/dev/null; then
		ktap_fail "fail_function $f" "not injectable (ALLOW_ERROR_INJECTION missing?)"
		continue
	fi
	echo 50 >$DBG/fail_function/probability
	objects_under_faults
	echo 0 >$DBG/fail_function/probability
	ktap_check "fail_function $f 50%: objects back to '$baseline'" \
		wait_for objects 20 counts_back
done
echo >$DBG/fail_function/inject

ktap_check "the device still moves data afterwards (ibv_rc_pingpong -c)" \
	sroce_pingpong_ok sroce0 "$idx"
ktap_check "object counts back to '$baseline'" counts_back
rdma link delete sroce0
ktap_check "module unloads" rmmod sroce
ktap_finish
