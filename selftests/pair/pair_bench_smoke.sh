#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke run of `make bench`'s two-guest part (selftests/bench/bench_pair.sh,
# quick mode) on both guests of the pair: one round of rdma_rxe and then
# sroce on both sides, with few iterations. It checks that the benchmark
# works, never how fast anything is:
#   - bench_pair.sh's own result: both drivers came up on both guests and
#     every run exited 0 on this side (it prints the KTAP line, which this
#     test reports as its own)
#   - on guest B, which records the figures: one result per row of the
#     quick two-guest matrix, ok when both drivers produced a number for
#     it (bench_report.py --check --pair-only --quick)
#   - neither driver is left loaded
# About a minute of guest time.
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./lib/pair_lib.sh

raw=$(mktemp)
log=$(mktemp)
# The quick matrix, whatever SROCE_BENCH_* the caller set for other runs.
SROCE_BENCH_QUICK=1 SROCE_BENCH_ROUNDS=1 SROCE_BENCH_ONLY='' SROCE_BENCH_PROFILE='' \
	SROCE_BENCH_SCALE=0.05 SROCE_BENCH_DRIVERS="rxe sroce" \
	bench/bench_pair.sh "$raw" >"$log" 2>&1
rc=$?
grep '^#' "$log"
bench_line=$(grep -E '^(not )?ok 1 ' "$log")

if [ "$PAIR_ROLE" = b ]; then
	check=$(bench/bench_report.py "$raw" --check --pair-only --quick)
	n=$(sed -n 's/^1\.\.//p' <<<"$check")
else
	check='' n=0
fi
if [ "$PAIR_ROLE" = b ] && [ -z "$n" ]; then
	ktap_plan 3
	ktap_fail "bench_report.py --check ran" "$check"
else
	ktap_plan $((n + 2))
	if ((n)); then
		sed '/^TAP version/d;/^1\.\./d' <<<"$check"
		KTAP_NUM=$n
		KTAP_FAILED=$(grep -c '^not ok' <<<"$check")
	fi
fi
if [ $rc = 0 ] && [[ $bench_line == "ok 1 "* ]]; then
	ktap_ok "guest $PAIR_ROLE: bench_pair.sh finished, every run worked"
else
	ktap_fail "guest $PAIR_ROLE: bench_pair.sh finished, every run worked" \
		"exit $rc, its result: ${bench_line:-none}"
fi
ktap_check "guest $PAIR_ROLE: no RDMA driver left loaded" \
	bash -c '! lsmod | grep -E "^(sroce|rdma_rxe) "'
rm -f "$raw" "$log"
ktap_finish
