#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--quick] [--out DIR]: `make bench`. Boots one guest
# (scripts/vm-run.sh), measures rdma_rxe and then sroce on the same netdev
# in that boot (selftests/bench/bench_guest.sh), prints the table with the
# ratio sroce/rdma_rxe for every figure and writes the numbers to
# results/bench-<UTC timestamp>.json and results/bench-latest.json.
#
# --quick (make bench QUICK=1): one round with few iterations, a smoke run
# that shows every row works (its figures mean little).
# --out DIR keeps the guest's results dir (raw lines, dmesg, perf data).
#
# Environment: SROCE_BENCH_* are passed to the guest (see bench_guest.sh),
# e.g. SROCE_BENCH_ROUNDS=5 or SROCE_BENCH_PROFILE='write_bw/65536/q1'.
# Speed never fails the run: the exit status is non-zero only when the
# guest run failed or a figure is missing.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
OUT='' QUICK=0

while [[ $# -gt 0 ]]; do
	case $1 in
	--quick) QUICK=1; shift ;;
	--out)   OUT=${2:?}; shift 2 ;;
	*)       echo "usage: bench.sh [--quick] [--out DIR]" >&2; exit 2 ;;
	esac
done

cd "$REPO"
make -s -C selftests bench
[[ -n $OUT ]] || OUT=$(mktemp -d /tmp/sroce-bench.XXXXXX)
mkdir -p "$OUT" results

export SROCE_BENCH_QUICK=$QUICK
# Hang guards only: the full run takes 30-50 minutes under TCG on a
# loaded 2-core host.
if ((QUICK)); then limit=900; else limit=5400; fi
export SROCE_TEST_TIMEOUT=$((limit - 60))
rc=0
scripts/vm-run.sh --quiet --timeout "$limit" --out "$OUT" \
	selftests/bench/bench_guest.sh || rc=$?
raw=$OUT/bench.raw
if [[ ! -s $raw ]]; then
	echo "bench: no results (guest run in $OUT: $(cat "$OUT/status" 2>/dev/null))" >&2
	exit 1
fi
((rc == 0)) || echo "bench: the guest run did not pass: $(cat "$OUT/status" 2>/dev/null); results in $OUT" >&2

# The guest module tree is shared: say so if the guest measured another build.
want=$(modinfo -F srcversion drivers/sroce/sroce.ko 2>/dev/null || true)
got=$(sed -n 's/^# bench: sroce srcversion //p' "$raw")
[[ -z $want || $want == "$got" ]] ||
	echo "bench: WARNING: the guest loaded sroce srcversion $got, not $want (drivers/sroce/sroce.ko)" >&2

stamp=$(date -u +%Y%m%dT%H%M%SZ)
json=results/bench-$stamp.json
selftests/bench/bench_report.py "$raw" --json "$json"
cp "$json" results/bench-latest.json
cp "$raw" "results/bench-$stamp.raw"
echo "bench: $json (and results/bench-latest.json), raw lines results/bench-$stamp.raw"
check=(--check)
((QUICK)) && check+=(--quick)
if ! selftests/bench/bench_report.py "$raw" "${check[@]}" >"$OUT/check.tap"; then
	grep -A1 '^not ok' "$OUT/check.tap" >&2
	echo "bench: some figures are missing" >&2
	exit 1
fi
exit "$rc"
