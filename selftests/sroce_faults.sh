#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fault injection (debug kernel only: make test-debug): every object of
# selftests/sroce_objects is created and destroyed with sroce's allocations
# and setup calls failing at random (the driver's fail_sroce attribute, only
# in the test's own processes). Each round must have injected failures
# (counted through "times"). Not fail_function: on x86 its kprobe handler
# runs from the int3 trap, an NMI, where a task filter never matches and
# its random draw trips lockdep (inconsistent IN-NMI usage of the batched
# entropy lock); fail_sroce covers the same setup functions.  The program's own results do not matter - many of
# its calls fail by design; what must hold: no kernel report (the harness
# checks the log, kmemleak included), the object counts go back to where
# they were, the device still moves data and the module unloads.
# sroce-timeout: 2700
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

ROUNDS=${SROCE_FAULTS_ROUNDS:-4}
DBG=/sys/kernel/debug

ktap_plan $((3 + ROUNDS))

declare idx
sroce_eth0_up idx
if [ ! -d $DBG/fail_sroce ]; then
	ktap_fail "fail_sroce available" "sroce built without CONFIG_FAULT_INJECTION_DEBUG_FS?"
	ktap_finish
	exit 1
fi
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

# under_faults DIR PERCENT: sroce_objects with DIR's probability at
# PERCENT; prints how many failures DIR injected, fails if none.
TIMES=1000000
under_faults() {
	local n
	echo $TIMES >"$1/times"
	echo "$2" >"$1/probability"
	objects_under_faults
	echo 0 >"$1/probability"
	n=$((TIMES - $(cat "$1/times")))
	echo "# $(basename "$1") $2%: $n failures injected"
	[ "$n" -gt 0 ]
}

# fail_sroce (drivers/sroce/fault.h) fails only sroce's own allocations
# and the socket, umem and mmap-entry calls of its setup paths: failslab
# failed 9p's and overlayfs' allocations in the test process too, which
# broke this guest's root file system (every exec EINVAL).
FS=$DBG/fail_sroce
echo Y >$FS/task-filter
echo 0 >$FS/verbose
echo 1 >$FS/interval
for r in $(seq 1 "$ROUNDS"); do
	p=$((r * 5))
	if ! under_faults $FS $p; then
		ktap_fail "fail_sroce ${p}%" "no failure injected"
		continue
	fi
	ktap_check "fail_sroce ${p}%: objects back to '$baseline'" wait_for objects 20 counts_back
done

ktap_check "the device still moves data afterwards (ibv_rc_pingpong -c)" \
	sroce_pingpong_ok sroce0 "$idx"
ktap_check "object counts back to '$baseline'" counts_back
rdma link delete sroce0
ktap_check "module unloads" rmmod sroce
ktap_finish
