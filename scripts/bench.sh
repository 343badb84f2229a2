#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [--quick] [--no-pair] [--icount|--icount-pair] [--out DIR]:
# `make bench`. Boots one
# guest (scripts/vm-run.sh), measures rdma_rxe and then sroce on the same
# netdev in that boot (selftests/bench/bench_guest.sh); then boots two
# guests on one link (scripts/vm-pair.sh) and measures both drivers across
# it, the same driver on both sides (selftests/bench/bench_pair.sh, the
# "2 guests" rows). Prints the table with the ratio sroce/rdma_rxe for
# every figure and writes the numbers to results/bench-<UTC timestamp>.json
# and results/bench-latest.json.
#
# --quick (make bench QUICK=1): one round with few iterations, a smoke run
# that shows every row works (its figures mean little).
# --no-pair (or SROCE_BENCH_PAIR=0): the single guest only, no "2 guests"
# rows. The two guests' link is a UDP one (vm-pair.sh --link udp; or
# SROCE_BENCH_LINK=tcp): over QEMU's TCP link a frame can wait for a
# delayed ACK of the host's TCP, tens of milliseconds, which then is all
# that a latency row measures. The guests' vCPU threads run at nice 10
# on this host (vm-pair.sh --vcpu-nice; SROCE_BENCH_VCPU_NICE=0 for
# none), so that QEMU's main threads, which carry the frames, are not
# kept waiting by two busy-polling guests: the "2 guests" latency rows
# are then lower and their spreads smaller.
# The guests boot $SROCE_KERNEL (make bench KERNEL=6.12; 6.1 by default)
# and its own rdma_rxe.
# --icount (make bench MODE=icount): the instruction-exact table instead.
# One guest under QEMU -icount shift=0,sleep=off with one vCPU, whose
# clock advances 1 ns per executed guest instruction: its CPU times are
# instruction counts, which repeat within ~1% and do not depend on the
# host's load. rdma_rxe and sroce in the same boot, busy CPU per message
# and per GiB (whole guest, client, server) for SEND, WRITE and READ at
# 64 B, 4 KiB, 64 KiB and 1 MiB and a 2 B ib_send_lat
# (selftests/bench/bench_icount.sh, bench_icount_report.py); results in
# results/bench-icount-<UTC timestamp>.json and bench-icount-latest.json.
# With --quick, a tenth of the iterations. 14-19 minutes on this host.
# --icount-pair (make bench MODE=icount-pair): the same rows across two
# guests (scripts/vm-pair.sh, the unix link), one vCPU each under -icount
# shift=0,sleep=on, so that the time a guest waits for the other passes
# in real time and only its own work is counted: each guest's busy time
# (B runs the perftest clients, A the servers), per message and per GiB;
# results/bench-icount-pair-<timestamp>.json and
# bench-icount-pair-latest.json.
# --out DIR keeps the guests' results dirs (raw lines, dmesg, perf data):
# the single guest's in DIR, the two guests' in DIR/two-guests/{a,b}.
#
# Environment: SROCE_BENCH_* are passed to the guest (see bench_guest.sh),
# e.g. SROCE_BENCH_ROUNDS=5 or SROCE_BENCH_PROFILE='write_bw/65536/q1';
# the two guests get them too (see bench_pair.sh). If the two-guest run
# fails, the single-guest table is still printed, the "2 guests" rows that
# have no figure showing as missing. Speed never fails the run: the exit
# status is non-zero only when a guest run failed or a figure is missing.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
OUT='' QUICK=0 PAIR=${SROCE_BENCH_PAIR:-1} ICOUNT=''

while [[ $# -gt 0 ]]; do
	case $1 in
	--quick)   QUICK=1; shift ;;
	--no-pair) PAIR=0; shift ;;
	--icount)  ICOUNT=one; shift ;;
	--icount-pair) ICOUNT=pair; shift ;;
	--out)     OUT=${2:?}; shift 2 ;;
	*)         echo "usage: bench.sh [--quick] [--no-pair] [--icount|--icount-pair] [--out DIR]" >&2; exit 2 ;;
	esac
done

# bench_icount one|pair: the --icount or --icount-pair run, start to end
# (see the header).
bench_icount() {
	local rc=0 raw stamp json check=(--check) name=bench-icount t0=$SECONDS
	# Hang guard only: the full one-guest table takes 15-20 minutes
	# here.
	local limit=${SROCE_BENCH_ICOUNT_TIMEOUT:-5400}
	((QUICK)) && export SROCE_BENCH_SCALE=${SROCE_BENCH_SCALE:-0.1}
	if [[ $1 == one ]]; then
		# With sleep=off the guest clock jumps ahead whenever the
		# guest idles, so guest-side time limits fire early: the
		# host's limit bounds the run.
		SROCE_TEST_TIMEOUT=10000000 scripts/vm-run.sh --quiet --timeout "$limit" \
			--smp 1 --qemu-arg -icount --qemu-arg shift=0,sleep=off \
			--out "$OUT" selftests/bench/bench_icount.sh || rc=$?
		raw=$OUT/bench_icount.raw
	else
		# Each guest writes its side; the report joins them.
		name=bench-icount-pair
		rm -f "$OUT"/{a,b}/bench_icount.raw
		SROCE_TEST_TIMEOUT=$((limit - 120)) scripts/vm-pair.sh --quiet \
			--timeout "$limit" --out "$OUT" --smp 1 \
			--qemu-arg -icount --qemu-arg shift=0,sleep=on \
			--a selftests/bench/bench_icount.sh --b selftests/bench/bench_icount.sh || rc=$?
		raw=$OUT/bench_icount_pair.raw
		cat "$OUT"/b/bench_icount.raw "$OUT"/a/bench_icount.raw >"$raw" 2>/dev/null
	fi
	if [[ ! -s $raw ]]; then
		echo "bench: no results (guest run in $OUT: $(cat "$OUT/status" 2>/dev/null))" >&2
		return 1
	fi
	((rc == 0)) || echo "bench: the guest run did not pass: $(cat "$OUT/status" 2>/dev/null); results in $OUT" >&2
	echo "# bench: icount: host wall time $((SECONDS - t0)) s, boot included" >>"$raw"
	stamp=$(date -u +%Y%m%dT%H%M%SZ)
	json=results/$name-$stamp.json
	selftests/bench/bench_icount_report.py "$raw" --json "$json"
	cp "$json" "results/$name-latest.json"
	cp "$raw" "results/$name-$stamp.raw"
	echo "bench: $json (and results/$name-latest.json), raw lines results/$name-$stamp.raw"
	[[ -n ${SROCE_BENCH_ONLY:-} ]] && check+=(--only "$SROCE_BENCH_ONLY")
	if ! selftests/bench/bench_icount_report.py "$raw" "${check[@]}" >"$OUT/check.tap"; then
		grep -A1 '^not ok' "$OUT/check.tap" >&2
		echo "bench: some figures are missing" >&2
		return 1
	fi
	return "$rc"
}

cd "$REPO"
make -s -C selftests bench
[[ -n $OUT ]] || OUT=$(mktemp -d /tmp/sroce-bench.XXXXXX)
mkdir -p "$OUT" results

export SROCE_BENCH_QUICK=$QUICK
[[ -n $ICOUNT ]] && { bench_icount "$ICOUNT"; exit; }
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

# The two-guest rows: guest A runs the perftest servers, guest B the
# clients and writes the raw lines to its /results, which is
# $pout/b/bench_pair.raw here; they join the single guest's lines.
if [[ $PAIR != 0 ]]; then
	pout=$OUT/two-guests
	# Hang guards only, as above; two guests share the 2 cores.
	if ((QUICK)); then plimit=1200; else plimit=5400; fi
	prc=0 vcpu_nice=${SROCE_BENCH_VCPU_NICE:-10}
	rm -f "$pout"/{a,b}/bench_pair.raw	# an earlier run's, with --out
	SROCE_TEST_TIMEOUT=$((plimit - 120)) scripts/vm-pair.sh --quiet \
		--timeout "$plimit" --out "$pout" --link "${SROCE_BENCH_LINK:-udp}" \
		--vcpu-nice "$vcpu_nice" \
		--a selftests/bench/bench_pair.sh --b selftests/bench/bench_pair.sh || prc=$?
	praw=$pout/b/bench_pair.raw
	if [[ -s $praw ]]; then
		echo "# bench: pair: host: vCPU threads at nice $vcpu_nice" >>"$raw"
		cat "$praw" >>"$raw"
		# Guest A's notes of its runs: the report's frames on the link.
		grep -h ' run [0-9]* on guest a: ' "$pout/a/bench_pair.raw" >>"$raw" || true
	else
		# The report then lists the "2 guests" rows as missing.
		echo "# bench: pair: no results from the two guests (run in $pout: $(tr '\n' ' ' 2>/dev/null <"$pout/status"))" |
			tee -a "$raw" >&2
	fi
	((prc == 0)) || {
		echo "bench: the two-guest run did not pass: $(cat "$pout/status" 2>/dev/null); results in $pout" >&2
		rc=$prc
	}
fi

# The guest module tree is shared: say so if a guest measured another build.
ko=$(scripts/kbuild.sh --ko "${SROCE_KERNEL:-6.1}")
want=$(modinfo -F srcversion "$ko" 2>/dev/null || true)
got=$(sed -n 's/^# bench: sroce srcversion //p' "$raw")
[[ -z $want || $want == "$got" ]] ||
	echo "bench: WARNING: the guest loaded sroce srcversion $got, not $want ($ko)" >&2
got=$(sed -n 's/^# bench: pair: sroce srcversion //p' "$raw")
[[ -z $want || -z $got || $want == "$got" ]] ||
	echo "bench: WARNING: the two guests loaded sroce srcversion $got, not $want ($ko)" >&2

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
