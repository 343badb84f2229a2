#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of selftests/bench/bench_report.py on a made-up raw file of a
# two-guest run: the medians and ratio of a row, the rounds column, and
# the link table, which joins guest B's notes and figures with guest A's
# notes by run number (a run noted by one guest only, or without a
# figure, is left out); then the rank test of the rounds on made-up
# rounds with known p-values; then bench_icount_report.py on a made-up
# raw file of the instruction-exact mode.  Prints TAP.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
report=$here/../bench/bench_report.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 failed=0

ok() {
	((++n))
	if [ "$1" = 0 ]; then
		echo "ok $n - bench_report: $2"
	else
		echo "not ok $n - bench_report: $2"
		((++failed))
	fi
}

# Guest B's lines: a note per run, then its figures; guest A's notes are
# appended after them, as scripts/bench.sh does. Run 5 failed (no
# figure), run 6 has no note from guest A.
cat >"$work/raw" <<'EOF'
# bench: pair: guest b, 6.1.0-57-amd64, 1 CPUs, rounds 2, scale 1, quick 0
#   rxe run 1 on guest b: eth0 tx +25000 rx +400 tx_dropped +0 rx_dropped +0; sent_pkts=+24990
R rxe 1 pair/write_bw/65536/q4 10.0
#   rxe run 2 on guest b: eth0 tx +6000 rx +6000 tx_dropped +0 rx_dropped +0;
R rxe 1 pair/write_lat/2/typ 300
R rxe 1 pair/write_lat/2/p99 3000
#   sroce run 3 on guest b: eth0 tx +20000 rx +600 tx_dropped +0 rx_dropped +0;
R sroce 1 pair/write_bw/65536/q4 12.0
#   sroce run 4 on guest b: eth0 tx +6002 rx +6001 tx_dropped +0 rx_dropped +0;
R sroce 1 pair/write_lat/2/typ 250
R sroce 1 pair/write_lat/2/p99 2500
#   rxe run 5 on guest b: eth0 tx +99 rx +99 tx_dropped +0 rx_dropped +0;
#   rxe run 6 on guest b: eth0 tx +26000 rx +418 tx_dropped +0 rx_dropped +0;
R rxe 2 pair/write_bw/65536/q4 9.0
#   rxe run 7 on guest b: eth0 tx +26000 rx +418 tx_dropped +0 rx_dropped +0;
R rxe 2 pair/write_bw/65536/q4 8.0
#   sroce run 8 on guest b: eth0 tx +20100 rx +650 tx_dropped +0 rx_dropped +0;
R sroce 2 pair/write_bw/65536/q4 7.5
#   rxe run 1 on guest a: eth0 tx +400 rx +24000 tx_dropped +0 rx_dropped +0;
#   rxe run 2 on guest a: eth0 tx +6000 rx +5999 tx_dropped +0 rx_dropped +0;
#   sroce run 3 on guest a: eth0 tx +600 rx +19900 tx_dropped +0 rx_dropped +0;
#   sroce run 4 on guest a: eth0 tx +6001 rx +6002 tx_dropped +0 rx_dropped +0;
#   rxe run 5 on guest a: eth0 tx +99 rx +99 tx_dropped +0 rx_dropped +0;
#   rxe run 7 on guest a: eth0 tx +420 rx +24500 tx_dropped +0 rx_dropped +0;
#   sroce run 8 on guest a: eth0 tx +650 rx +19900 tx_dropped +0 rx_dropped +0;
EOF

if python3 "$report" "$work/raw" --json "$work/json" >"$work/out" 2>&1; then
	ok 0 "report of a two-guest raw file"
else
	ok 1 "report of a two-guest raw file"
	sed 's/^/# /' "$work/out"
fi

# check PYTHON_EXPR DESC: an assertion on the JSON (d) that must hold.
check() {
	python3 -c "import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" \
		"$work/json" 2>/dev/null
	ok $? "$2"
}

# Round 2 of rxe has two figures for the row; the later one counts.
check 'd["rows"]["pair/write_bw/65536/q4"]["rxe"]["median"] == 9.0' \
	"rdma_rxe's median of the row over its rounds"
check 'abs(d["rows"]["pair/write_bw/65536/q4"]["ratio"] - 9.75 / 9.0) < 1e-9' \
	"ratio sroce/rdma_rxe of the medians"
check 'd["rows"]["pair/write_bw/65536/q4"]["rounds_ahead"] == 1' \
	"rounds in which sroce was ahead (1 of 2)"
check 'd["rows"]["pair/write_lat/2/p99"]["sroce_better_or_equal"] is True' \
	"lower latency counts as better"
check '[(x["b_tx"], x["a_rx"]) for x in d["link"]["pair/write_bw/65536/q4 rxe"]] == [(25000, 24000), (26000, 24500)]' \
	"link: rdma_rxe's runs joined by number, the failed and the one-sided run left out"
check 'd["link"]["pair/write_bw/65536/q4 sroce"][1] == {"b_tx": 20100, "a_rx": 19900, "a_tx": 650, "b_rx": 650}' \
	"link: both directions of a run"
check 'sorted(d["link"]) == ["pair/write_bw/65536/q4 rxe", "pair/write_bw/65536/q4 sroce", "pair/write_lat/2/typ rxe", "pair/write_lat/2/typ sroce"]' \
	"link: one entry per row and driver, a latency run once"

# The table: medians of sent and lost (rdma_rxe lost 1000 and 1500).
grep -qE '^2 guests: ib_write_bw 64KiB -q 4 +rxe +25500 +1250 +410 +1 +2$' "$work/out"
ok $? "link table: rdma_rxe's medians of frames sent and lost"
grep -qE '^2 guests: ib_write_lat 2B +sroce +6002 +0 +6001 +0 +1$' "$work/out"
ok $? "link table: a latency row named by its test"

# Without guest A's notes there is no link table.
grep -v 'on guest a:' "$work/raw" >"$work/raw.b"
python3 "$report" "$work/raw.b" >"$work/out.b" 2>&1 &&
	! grep -q 'Frames per run' "$work/out.b"
ok $? "no link table without guest A's notes"

# The rank test of the rounds (the p column): made-up rounds of one
# guest, rdma_rxe at 100 in each, sroce at the given ratios.
percent() { awk -v x="$1" 'BEGIN { print x * 100 }'; }
{
	r=0
	for x in 0.9 0.8 0.7 0.6 0.5; do	# behind in all five
		((++r))
		echo "R rxe $r write_bw/64/q1 100"
		echo "R sroce $r write_bw/64/q1 $(percent "$x")"
		echo "R rxe $r write_lat/2/typ 100"		# lower is better
		echo "R sroce $r write_lat/2/typ $(percent "$x")"
		echo "R rxe $r mem/mr_vmalloc 0"
		echo "R sroce $r mem/mr_vmalloc 0"
	done
	r=0
	for x in 0.9 1.05 0.8 0.7 0.6; do	# ahead in one, the smallest
		((++r))
		echo "R rxe $r send_bw/64/q1 100"
		echo "R sroce $r send_bw/64/q1 $(percent "$x")"
	done
	echo "R rxe 1 read_bw/64/q1 100"		# equal magnitudes
	echo "R sroce 1 read_bw/64/q1 50"
	echo "R rxe 2 read_bw/64/q1 100"
	echo "R sroce 2 read_bw/64/q1 200"
} >"$work/rank.raw"
if python3 "$report" "$work/rank.raw" --json "$work/json" >"$work/out" 2>&1; then
	ok 0 "report of made-up rounds for the rank test"
else
	ok 1 "report of made-up rounds for the rank test"
	sed 's/^/# /' "$work/out"
fi
check 'd["rows"]["write_bw/64/q1"]["p_behind"] == 1 / 32' \
	"rank test: behind in all of 5 rounds is p = 1/32"
check 'd["rows"]["write_lat/2/typ"]["p_behind"] == 1.0' \
	"rank test: lower latency in every round is not behind (p = 1)"
check 'd["rows"]["send_bw/64/q1"]["p_behind"] == 2 / 32' \
	"rank test: ahead in 1 of 5 rounds, by the least, is p = 2/32"
check 'd["rows"]["read_bw/64/q1"]["p_behind"] == 0.75' \
	"rank test: tied magnitudes share their rank (p = 3/4)"
check 'd["rows"]["mem/mr_vmalloc"]["p_behind"] == 1.0' \
	"rank test: equal figures in every round are not behind"
check '[b["row"] for b in d["behind"]] == ["write_bw/64/q1"]' \
	"rank test: only the row below 0.05 is listed as behind"
grep -q '^Rows where sroce is behind beyond the noise (p < 0.05): ib_write_bw 64B -q 1 (p 0.031)$' "$work/out"
ok $? "rank test: the report names the row behind"
grep -q '^Rows where sroce is behind beyond the noise (p < 0.05): none$' "$work/out.b"
ok $? "rank test: none behind in the two-guest file"

# --check --pair-only --quick, as the two-guest smoke test runs it on
# guest B's raw file: the quick two-guest rows only, both drivers each.
for d in rxe sroce; do
	for row in write_bw/65536/q1 send_bw/65536/q1 read_bw/65536/q1 \
		   write_lat/2/typ write_lat/2/p99; do
		echo "R $d 1 pair/$row 10"
	done
done >"$work/pair.raw"
python3 "$report" "$work/pair.raw" --check --pair-only --quick >"$work/out" 2>&1 &&
	grep -q '^1\.\.5$' "$work/out" && [ "$(grep -c '^ok ' "$work/out")" = 5 ]
ok $? "check --pair-only: the 5 quick two-guest rows, all measured"
grep -v 'R sroce 1 pair/read_bw' "$work/pair.raw" >"$work/pair1.raw"
! python3 "$report" "$work/pair1.raw" --check --pair-only --quick >"$work/out" 2>&1 &&
	grep -q '^not ok 3 - pair/read_bw/65536/q1: both drivers measured$' "$work/out" &&
	grep -q '^# no sroce figure$' "$work/out" && [ "$(grep -c '^ok ' "$work/out")" = 4 ]
ok $? "check --pair-only: a row sroce did not measure fails, the rest pass"

# bench_icount_report.py (make bench MODE=icount): CPU per message is the
# difference of the full run and the short one over the difference of
# their iterations; per GiB follows from the size; the ratio is
# sroce/rdma_rxe; --check wants every figure of both drivers.
icount=$here/../bench/bench_icount_report.py
{
	for r in 1 2; do
		for f in "iters0 5" "busy0 200" "client0 100" "server0 100" \
			 "iters 1005" "client 300" "server 400"; do
			echo "R rxe $r ic/send_bw/65536/$f"
			echo "R sroce $r ic/send_bw/65536/$f"
		done
		echo "R sroce $r ic/send_bw/65536/busy 700"
		for f in "iters0 5" "busy0 50" "client0 10" "server0 10" \
			 "iters 105" "busy 150" "client 60" "server 60"; do
			echo "R rxe $r ic/send_lat/2/$f"
			echo "R sroce $r ic/send_lat/2/$f"
		done
	done
	echo "R rxe 1 ic/send_bw/65536/busy 1200"
	echo "R rxe 2 ic/send_bw/65536/busy 1210"
} >"$work/ic.raw"
if python3 "$icount" "$work/ic.raw" --json "$work/json" >"$work/out" 2>&1; then
	ok 0 "icount: report of a made-up raw file"
else
	ok 1 "icount: report of a made-up raw file"
	sed 's/^/# /' "$work/out"
fi
check 'abs(d["rows"]["send_bw/65536"]["sides"]["busy"]["rxe"]["us_per_msg"] - 1005) < 1e-9' \
	"icount: per message, the short run subtracted, median of the rounds"
check 'abs(d["rows"]["send_bw/65536"]["sides"]["busy"]["sroce"]["s_per_gib"] - 8.192) < 1e-9' \
	"icount: per GiB from per message and the size"
check 'abs(d["rows"]["send_bw/65536"]["sides"]["busy"]["ratio"] - 500 / 1005) < 1e-9' \
	"icount: ratio sroce/rdma_rxe"
check 'd["rows"]["send_bw/65536"]["sides"]["server"]["rxe"]["us_per_msg"] == 300 and d["rows"]["send_bw/65536"]["sides"]["client"]["ratio"] == 1' \
	"icount: client and server sides"
check 'd["rows"]["send_lat/2"]["sides"]["busy"]["rxe"]["s_per_gib"] is None' \
	"icount: no per-GiB figure for the ping-pong"
python3 "$icount" "$work/ic.raw" --check --only 'send_bw/65536|send_lat' >"$work/out" 2>&1 &&
	grep -q '^1\.\.2$' "$work/out" && [ "$(grep -c '^ok ' "$work/out")" = 2 ]
ok $? "icount: check --only: the two rows, both measured"
grep -v 'R sroce 2 ic/send_lat/2/client ' "$work/ic.raw" >"$work/ic1.raw"
! python3 "$icount" "$work/ic1.raw" --check --only 'send_bw/65536|send_lat' >"$work/out" 2>&1 &&
	grep -q '^not ok 2 - icount send_lat/2: both drivers measured$' "$work/out"
ok $? "icount: check: a figure missing in one round fails the row"
! python3 "$icount" "$work/ic.raw" --check >/dev/null 2>&1
ok $? "icount: check without --only wants the whole matrix"

echo "# $((n - failed)) passed, $failed failed, 0 skipped"
((failed == 0))
