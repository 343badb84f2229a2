#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke run of `make bench` (selftests/bench/bench_guest.sh, quick mode):
# one round over rdma_rxe and then sroce with few iterations; then one
# row of the instruction-exact table (`make bench MODE=icount`,
# selftests/bench/bench_icount.sh: ib_send_bw -e 64 KiB, its full and
# its short run, with a hundredth of the iterations; each perftest run
# costs CI seconds), here in this guest's normal clock: the guest script
# and its report are the same whatever QEMU's clock, and a boot of its
# own under -icount would cost CI minutes. It checks that the benchmarks
# work, never how fast anything is:
#   - one result per row of each table: ok when both drivers produced
#     every figure for it (bench_report.py --check, bench_icount_report.py
#     --check)
#   - both benchmark scripts exit 0
#   - neither driver is left loaded
# Takes about 2-3 minutes of guest time; the limit is for a loaded host.
# sroce-timeout: 600
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh

raw=$(mktemp)
log=$(mktemp)
icraw=$(mktemp)
iclog=$(mktemp)
ICROWS='^send_bw/65536$'
# The quick matrix, whatever SROCE_BENCH_* the caller set for other runs.
SROCE_BENCH_QUICK=1 SROCE_BENCH_ROUNDS=1 SROCE_BENCH_ONLY='' SROCE_BENCH_PROFILE='' \
	SROCE_BENCH_SCALE=0.05 bench/bench_guest.sh "$raw" >"$log" 2>&1
rc=$?
# In a normal guest a guest-side hang guard works (not under sleep=off).
SROCE_BENCH_ROUNDS=1 SROCE_BENCH_ONLY=$ICROWS SROCE_BENCH_SCALE=0.01 \
	SROCE_BENCH_DRIVERS='' SROCE_BENCH_IC_PATH='' SROCE_BENCH_PAIR_LIMIT=120 SROCE_PAIR_ROLE='' \
	bench/bench_icount.sh "$icraw" >"$iclog" 2>&1
icrc=$?
# The row results, with the plan raised by the results below.
check=$(bench/bench_report.py "$raw" --check --quick)
iccheck=$(bench/bench_icount_report.py "$icraw" --check --only "$ICROWS")
n=$(sed -n 's/^1\.\.//p' <<<"$check")
icn=$(sed -n 's/^1\.\.//p' <<<"$iccheck")
if [ -z "$n" ] || [ -z "$icn" ]; then
	ktap_plan 4
	ktap_fail "bench_report.py --check and bench_icount_report.py --check ran" \
		"$check
$iccheck"
else
	ktap_plan $((n + icn + 3))
	grep '^#' "$raw"
	sed '/^TAP version/d;/^1\.\./d' <<<"$check"
	grep '^#' "$icraw"
	# renumbered after the first table's results
	sed '/^TAP version/d;/^1\.\./d' <<<"$iccheck" |
		awk -v n="$n" '$1 == "ok" { $2 += n } $1 == "not" { $3 += n } 1'
	# shellcheck disable=SC2034 # both read by ktap_finish (lib.sh)
	KTAP_NUM=$((n + icn))
	# shellcheck disable=SC2034
	KTAP_FAILED=$(( $(grep -c '^not ok' <<<"$check") + $(grep -c '^not ok' <<<"$iccheck") ))
fi
if [ $rc = 0 ]; then
	ktap_ok "bench_guest.sh exits 0"
else
	ktap_fail "bench_guest.sh exits 0" "exit $rc; its output:
$(tail -n 40 "$log")"
fi
if [ $icrc = 0 ]; then
	ktap_ok "bench_icount.sh exits 0"
else
	ktap_fail "bench_icount.sh exits 0" "exit $icrc; its output:
$(tail -n 40 "$iclog")"
fi
ktap_check "no RDMA driver left loaded" \
	bash -c '! lsmod | grep -E "^(sroce|rdma_rxe) "'
rm -f "$raw" "$log" "$icraw" "$iclog"
ktap_finish
