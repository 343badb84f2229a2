#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke run of `make bench` (selftests/bench/bench_guest.sh, quick mode):
# one round over rdma_rxe and then sroce with few iterations. It checks that
# the benchmark works, never how fast anything is:
#   - one result per row of the table: ok when both drivers produced a
#     number for it (bench_report.py --check)
#   - the benchmark script exits 0
#   - neither driver is left loaded
# Takes about 2-3 minutes of guest time.
set -u
cd "$(dirname "$0")" && . ./lib.sh && . ./sroce_lib.sh

raw=$(mktemp)
log=$(mktemp)
# The quick matrix, whatever SROCE_BENCH_* the caller set for other runs.
SROCE_BENCH_QUICK=1 SROCE_BENCH_ROUNDS=1 SROCE_BENCH_ONLY= SROCE_BENCH_PROFILE= \
	SROCE_BENCH_SCALE=0.05 bench/bench_guest.sh "$raw" >"$log" 2>&1
rc=$?
# The row results, with the plan raised by the two results below.
check=$(bench/bench_report.py "$raw" --check --quick)
n=$(sed -n 's/^1\.\.//p' <<<"$check")
if [ -z "$n" ]; then
	ktap_plan 3
	ktap_fail "bench_report.py --check ran" "$check"
else
	ktap_plan $((n + 2))
	grep '^#' "$raw"
	sed '/^TAP version/d;/^1\.\./d' <<<"$check"
	KTAP_NUM=$n
	KTAP_FAILED=$(grep -c '^not ok' <<<"$check")
fi
if [ $rc = 0 ]; then
	ktap_ok "bench_guest.sh exits 0"
else
	ktap_fail "bench_guest.sh exits 0" "exit $rc; its output:
$(tail -n 40 "$log")"
fi
ktap_check "no RDMA driver left loaded" \
	bash -c '! lsmod | grep -E "^(sroce|rdma_rxe) "'
rm -f "$raw" "$log"
ktap_finish
