#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_pair.sh [RAWFILE]: the two-guest part of `make bench`, run by both
# guests of scripts/vm-pair.sh (scripts/bench.sh starts it). Measures
# rdma_rxe against sroce across the link between the guests: the same
# driver on both sides, perftest's server on guest A and its client on
# guest B, over the IPv4 RoCE v2 GID. Guest B writes the raw results, in
# bench_guest.sh's format, to RAWFILE (default /results/bench_pair.raw,
# which the host finds in vm-pair.sh's out dir as b/bench_pair.raw):
#
#	R DRIVER ROUND pair/ROW VALUE
#
# ROW as in bench_guest.sh (write_bw/65536/q1 in MB/s, send_lat/2/typ and
# send_lat/2/p99 in us); "nan" when a run failed. Comments start with "#";
# guest A's file holds only comments (its servers' failures, which guest
# B's file repeats).
#
# Each round measures the matrix block by block (the BW rows of one test,
# the latency rows): rdma_rxe up on both guests (pair_use), the block,
# then sroce on both and the same block again, then the next block; the
# driver order flips every round. The matrix:
# ib_write_bw, ib_send_bw and ib_read_bw at 64 KiB and 1 MiB with -q 1 and
# -q 4 (-q 4 splits the iterations over the QPs, as bench_guest.sh does),
# then ib_write_lat, ib_send_lat and ib_read_lat at 2 B and 4 KiB (typical
# and 99th percentile). A run that fails gives "nan" and the matrix goes
# on. Prints KTAP: one result per guest, ok when every run of the matrix
# worked on this side and both drivers came up on both guests.
#
# Run on its own (the raw lines then in DIR/b/bench_pair.raw), as
# scripts/bench.sh does:
#   SROCE_TEST_TIMEOUT=5280 scripts/vm-pair.sh --out DIR --timeout 5400 \
#	--a selftests/bench/bench_pair.sh --b selftests/bench/bench_pair.sh
#
# Environment (passed through scripts/vm-pair.sh):
#   SROCE_BENCH_QUICK=1     smoke mode: one round, few iterations, -q 1 BW
#                           at 64 KiB and ib_write_lat at 2 B only
#   SROCE_BENCH_ROUNDS      rounds (5; 1 when quick)
#   SROCE_BENCH_SCALE       multiplies every iteration count (1; 0.05 when
#                           quick)
#   SROCE_BENCH_DRIVERS     "rxe sroce" (the order in odd rounds,
#                           reversed in even ones); a variant
#                           "sroce:NAME=VALUE,..." sets sroce's module
#                           parameters on both guests (bench_lib.sh)
#   SROCE_BENCH_ONLY        a regex over the full row names (pair/...):
#                           measure only the matching rows
#   SROCE_BENCH_PROFILE     a regex over the full row names: both guests
#                           run `perf record -a -g` through each matching
#                           run, for every driver, and leave the data and
#                           a flat report of it (symbols, self time) in
#                           their results (perf-ROW-DRIVER-rSEQ.data,
#                           .txt, and .graph.txt: the callers of the
#                           symbols above 3%)
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./bench/bench_lib.sh && . ./lib/pair_lib.sh

RAW=${1:-/results/bench_pair.raw}
QUICK=${SROCE_BENCH_QUICK:-0}
# The matrix (BW_SIZES, BW_QPS, LAT_TESTS, LAT_SIZES) is read by
# block_rows in bench_lib.sh.
# shellcheck disable=SC2034
if [ "$QUICK" = 1 ]; then
	ROUNDS=${SROCE_BENCH_ROUNDS:-1} SCALE=${SROCE_BENCH_SCALE:-0.05}
	BW_SIZES=65536 BW_QPS=1 LAT_TESTS=write LAT_SIZES=2
else
	ROUNDS=${SROCE_BENCH_ROUNDS:-5} SCALE=${SROCE_BENCH_SCALE:-1}
	BW_SIZES="65536 1048576" BW_QPS="1 4" LAT_TESTS="write send read"
	LAT_SIZES="2 4096"
fi
DRIVERS=${SROCE_BENCH_DRIVERS:-rxe sroce}
ONLY=${SROCE_BENCH_ONLY:-}
PROFILE=${SROCE_BENCH_PROFILE:-}
PERF_PID=
RUN_LIMIT=120		# hang guard for one perftest side, seconds
PORT=22000		# perftest's TCP port, a fresh one per run
SEQ=0			# run number, for unique rendezvous keys
FAILED_RUNS=0 RUNS=0 DOWN=0

# Iterations as in bench_guest.sh (-q 4 splits them over the QPs); the
# latency tests take 0.3-1 ms per iteration across the link, so 3,000
# and 1,500 samples are 2-3 s per run.
declare -A BW_ITERS=([65536]=300 [1048576]=24)
declare -A LAT_ITERS=([2]=3000 [4096]=1500)


# Guest B records the figures; guest A only its notes.
raw() {
	[ "$PAIR_ROLE" = b ] || return 0
	echo "R $DRV $ROUND pair/$1 $2" >>"$RAW"
	echo "# R $DRV $ROUND pair/$1 $2"
}

note() {
	echo "# $*" | tee -a "$RAW"
}


# Is row pair/$1 selected by SROCE_BENCH_ONLY?
wanted() {
	[ -z "$ONLY" ] || [[ pair/$1 =~ $ONLY ]]
}

# server_side KEY PROG ARGS...: guest A's half of one run. Starts the
# server, publishes KEY.ready once its port listens (or "fail"), waits for
# it (killed 10 s after the client's KEY.cdone if it hangs on), then
# publishes its exit status as KEY.srv and, on failure, its output's tail
# as KEY.slog. 0 iff the server and the client exited 0.
server_side() {
	local key=$1 prog=$2 slog=/tmp/bench_pair.s.$$ spid t=150 src crc
	shift 2
	timeout -k 5 $RUN_LIMIT "$prog" -d "$PAIR_DEV" -x "$GIDX" -F -p $PORT "$@" >"$slog" 2>&1 &
	spid=$!
	while ! listening $PORT && kill -0 $spid 2>/dev/null && ((t-- > 0)); do
		sleep 0.2
	done
	if listening $PORT; then
		pair_put "$key.ready" ok
	else
		pair_put "$key.ready" fail
	fi
	pair_reap $spid 10 "$key.cdone"
	src=$PAIR_REAP_RC
	crc=$(pair_get "$key.cdone" 30) || crc="no word from the client"
	if [ "$src" != 0 ]; then
		tail -n 5 "$slog" >"$(pair_file "$PAIR_ROLE" "$key.slog")"
		note "$DRV $prog $*: server exit $src"
		sed 's/^/#   server: /' "$slog" | tail -n 5 | tee -a "$RAW"
	fi
	pair_put "$key.srv" "$src"
	rm -f "$slog"
	[ "$src" = 0 ] && [ "$crc" = 0 ]
}

# client_side KEY PROG ARGS...: guest B's half. Waits for the server's
# KEY.ready, runs the client against guest A (output in $CLOG), publishes
# its exit status as KEY.cdone and waits for the server's KEY.srv. 0 iff
# both exited 0.
client_side() {
	local key=$1 prog=$2 ready src crc t0=$SECONDS
	shift 2
	CLOG=/tmp/bench_pair.c.$$
	: >"$CLOG"
	ready=$(pair_get "$key.ready" $((RUN_LIMIT + 60))) || ready="no word"
	if [ "$ready" = ok ]; then
		timeout -k 5 $RUN_LIMIT "$prog" -d "$PAIR_DEV" -x "$GIDX" -F -p $PORT "$@" \
			"$SROCE_PEER_IP" >"$CLOG" 2>&1
		crc=$?
	else
		crc="not run (server: $ready)"
	fi
	pair_put "$key.cdone" "$crc"
	src=$(pair_get "$key.srv" 60) || src="no word from the server"
	if [ "$crc" != 0 ] || [ "$src" != 0 ]; then
		note "$DRV $prog $*: client exit $crc, server exit $src"
		note "  client's error counters: $(pair_err_counters | tr '\n' ' ')"
		sed 's/^/#   client: /' "$CLOG" | tail -n 5 | tee -a "$RAW"
		sed 's/^/#   server: /' "$(pair_file "$PAIR_PEER" "$key.slog")" 2>/dev/null |
			tee -a "$RAW"
		return 1
	fi
	echo "# $DRV $prog $*: $((SECONDS - t0)) s"
}

# run_pair PROG ARGS...: one perftest run across the guests; both guests
# call it in the same order. 0 iff both sides exited 0 (B: client output
# in $CLOG).
run_pair() {
	local key rc
	SEQ=$((SEQ + 1)) PORT=$((PORT + 1)) RUNS=$((RUNS + 1))
	key=r$SEQ
	if ((DOWN)); then
		FAILED_RUNS=$((FAILED_RUNS + 1))
		return 1
	fi
	pair_counters_mark
	profile_start
	if [ "$PAIR_ROLE" = a ]; then
		server_side "$key" "$@"
	else
		client_side "$key" "$@"
	fi
	rc=$?
	profile_stop
	run_counters
	((rc == 0)) || { FAILED_RUNS=$((FAILED_RUNS + 1)); return 1; }
}

# profile_start / profile_stop: when the current row ($ROW) matches
# SROCE_BENCH_PROFILE, sample the whole guest through the run
# (bench_lib.sh).
profile_start() {
	PERF_OUT=
	[ -n "$PROFILE" ] && [[ pair/$ROW =~ $PROFILE ]] || return 0
	PERF_OUT=/results/perf-${ROW//\//_}-$DRV-r$SEQ
	perf_start
}

profile_stop() {
	[ -n "$PERF_OUT" ] || return 0
	perf_stop
	note "  profile of $DRV run $SEQ on guest $PAIR_ROLE: $PERF_OUT.txt"
}

# What this guest's side of the run cost on the wire: eth0's frames and
# the device's counters that moved (resends show as the sender's
# completer_retry_err and sent_pkts, losses on the link as frames one
# guest sent and the other never received, and as the receiver's
# out_of_seq_request and nak_sent).
run_counters() {
	note "  $DRV run $SEQ on guest $PAIR_ROLE: eth0 $(pair_frames_delta); $(counters_delta)"
}


# bw TEST SIZE QPS: BW average (MB/s).
bw() {
	local test=$1 size=$2 q=$3 n row cols
	n=$(iters "${BW_ITERS[$size]}")
	((q > 1)) && n=$(( n / q < 5 ? 5 : n / q ))
	row=${test}_bw/$size/q$q
	wanted "$row" || return 0
	ROW=$row
	if run_pair "ib_${test}_bw" -s "$size" -n "$n" -q "$q"; then
		[ "$PAIR_ROLE" = b ] && read -r -a cols <<<"$(result_row)"
		raw "$row" "${cols[3]:-nan}"
	else
		raw "$row" nan
	fi
}

# lat TEST SIZE: typical and 99th percentile latency (us).
lat() {
	local test=$1 size=$2 n row cols
	n=$(iters "${LAT_ITERS[$size]}")
	row=${test}_lat/$size
	wanted "$row" || return 0
	ROW=$row
	if run_pair "ib_${test}_lat" -s "$size" -n "$n"; then
		[ "$PAIR_ROLE" = b ] && read -r -a cols <<<"$(result_row)"
		raw "$row/typ" "${cols[4]:-nan}"
		raw "$row/p99" "${cols[7]:-nan}"
	else
		raw "$row/typ" nan
		raw "$row/p99" nan
	fi
}

# The matrix in blocks of rows, each measured on every driver before the
# next (see bench_guest.sh: the host's slow phases then fall on both).
BLOCKS="write_bw send_bw read_bw lat"

# driver_up: $DRV on this guest, then both guests' verdicts exchanged.
# Sets DOWN=1 (the matrix then records "nan" without running) unless
# both came up; ROUND_WHY says why not.
driver_up() {
	local mine=ok theirs
	DOWN=0 ROUND_WHY=
	if pair_use "$DRV" &&
	   GIDX=$(pair_gid_index 4); then
		if [ "$(bench_driver "$DRV")" = sroce ] && [ -z "$SRCVERSION" ]; then
			SRCVERSION=$(cat /sys/module/sroce/srcversion 2>/dev/null ||
				     modinfo -F srcversion sroce 2>/dev/null)
			SRCVERSION=${SRCVERSION:-unknown}
			note "bench: pair: sroce srcversion $SRCVERSION"
		fi
	else
		mine=fail
		ROUND_WHY="$DRV did not come up on guest $PAIR_ROLE"
	fi
	pair_put "up.$ROUND.$BLOCK.$DRV" $mine
	theirs=$(pair_get "up.$ROUND.$BLOCK.$DRV" 300) || theirs="no word"
	if [ "$theirs" != ok ]; then
		ROUND_WHY+="${ROUND_WHY:+; }$DRV on guest $PAIR_PEER: $theirs"
	fi
	[ -z "$ROUND_WHY" ] || { DOWN=1; note "round $ROUND, $BLOCK: $ROUND_WHY"; }
}

ktap_plan 1
: >"$RAW"
SRCVERSION=
UP_FAILED=
note "bench: pair: guest $PAIR_ROLE, $(uname -r), $(nproc) CPUs, rounds $ROUNDS, scale $SCALE, quick $QUICK"
note "bench: pair: eth0 mtu $(cat /sys/class/net/eth0/mtu), perftest $(dpkg-query -W -f='${Version}' perftest 2>/dev/null), peer $SROCE_PEER_IP"
pair_barrier start 300 || note "bench: pair: guest $PAIR_PEER did not start"
start=$SECONDS
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
	for BLOCK in $BLOCKS; do
		bench_block_wanted "$BLOCK" || continue
		# shellcheck disable=SC2086 # DRIVERS is a list
		for DRV in $(bench_round_order "$ROUND" $DRIVERS); do
			driver_up
			[ -z "$ROUND_WHY" ] || UP_FAILED+="round $ROUND, $BLOCK: $ROUND_WHY; "
			((DOWN)) ||
				note "round $ROUND, $BLOCK: $DRV on $PAIR_DEV, GID index $GIDX ($((SECONDS - start)) s)"
			run_block "$BLOCK"
		done
	done
done
note "bench: pair: done in $((SECONDS - start)) s, $FAILED_RUNS of $RUNS runs failed"
rm -f "/tmp/bench_pair.c.$$"
pair_barrier finish 300 >/dev/null
pair_unload || UP_FAILED+="cannot unload the drivers"
desc="guest $PAIR_ROLE: bench_pair finished"
if [ -z "$UP_FAILED" ] && ((FAILED_RUNS == 0)); then
	ktap_ok "$desc"
else
	ktap_fail "$desc" "${UP_FAILED}$FAILED_RUNS of $RUNS runs failed (see the notes above)"
fi
ktap_finish
