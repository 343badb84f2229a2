#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_guest.sh [RAWFILE]: the guest side of `make bench`. Measures
# rdma_rxe and sroce on the same netdev (eth0, 192.0.2.1) in this one boot
# and writes raw results, one figure per line, to RAWFILE (default
# /results/bench.raw) and stdout:
#
#	R DRIVER ROUND ROW VALUE
#
# DRIVER is rxe or sroce, ROUND 1..SROCE_BENCH_ROUNDS, ROW a name such as
# write_bw/65536/q1 (MB/s), send_lat/2/typ (us), atomic_bw/8/q1 (Mmsg/s),
# cpu/write_bw/65536 (guest CPU s per GiB) or mem/qp_total (bytes per QP).
# A figure that could not be measured is "nan" (the report marks it).
# Comments start with "#".
#
# Each round measures the matrix block by block (the BW rows of one
# test, the latency rows, the atomic and memory rows): a block on
# rdma_rxe, unload, load sroce, the same block again, then the next
# block; the driver order flips every round. Alternating the drivers
# this closely spreads the host's load (other guests, its slow phases)
# over both. perftest server and client run here against the device's
# own RoCE v2 GID, so sroce takes its loopback path and rdma_rxe loops
# through the IP stack.
# Busy polling (perftest's default) on both drivers: ib_write_* have no
# event mode.
#
# Environment:
#   SROCE_BENCH_QUICK=1     smoke mode: one round, few iterations, BW at
#                           64 KiB only, latency at 2 B only, 100
#                           QPs/MRs: shows that every kind of row works
#   SROCE_BENCH_ROUNDS      rounds (5; 1 when quick)
#   SROCE_BENCH_SCALE       multiplies every iteration count (1)
#   SROCE_BENCH_DRIVERS     "rxe sroce" (the order in odd rounds,
#                           reversed in even ones); a variant
#                           "sroce:NAME=VALUE,..." sets sroce's module
#                           parameters (bench_lib.sh)
#   SROCE_BENCH_ONLY        a row regex: measure only the matching rows
#                           (for A/B runs of one change; the report then
#                           lacks the others)
#   SROCE_BENCH_PROFILE     a row regex: sample the whole guest
#                           (`perf record -a -g`) through each matching
#                           client run, for every driver, into
#                           /results/perf-ROW-DRIVER-rROUND.data, with
#                           reports made in the guest (.txt: symbols by
#                           self time; .graph.txt: callers of those above
#                           3%)
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./bench/bench_lib.sh

RAW=${1:-/results/bench.raw}
QUICK=${SROCE_BENCH_QUICK:-0}
# The matrix (BW_SIZES, BW_QPS, LAT_TESTS, LAT_SIZES) is read by
# block_rows in bench_lib.sh.
# shellcheck disable=SC2034
if [ "$QUICK" = 1 ]; then
	ROUNDS=${SROCE_BENCH_ROUNDS:-1} SCALE=${SROCE_BENCH_SCALE:-0.05}
	NQP=100 NMR=100 BW_SIZES=65536 LAT_SIZES=2
else
	ROUNDS=${SROCE_BENCH_ROUNDS:-5} SCALE=${SROCE_BENCH_SCALE:-1}
	NQP=1000 NMR=1000 BW_SIZES="64 4096 65536 1048576" LAT_SIZES="2 4096"
fi
# shellcheck disable=SC2034
BW_QPS="1 4" LAT_TESTS="write send read"
DRIVERS=${SROCE_BENCH_DRIVERS:-rxe sroce}
PROFILE=${SROCE_BENCH_PROFILE:-}
ONLY=${SROCE_BENCH_ONLY:-}
MEMPROG=$PWD/bench/bench_mem
PAIR_LIMIT=120		# hang guard for one perftest pair, seconds
GID4=0000:0000:0000:0000:0000:ffff:c000:0201
PORT=21000

# Iterations per size for the BW tests (-q 1; -q 4 splits them over the
# QPs so both move the same bytes), about 1-3 s each under TCG.
declare -A BW_ITERS=([64]=3000 [4096]=1500 [65536]=300 [1048576]=24)
# The latency tests' iterations: their p99 is the 1%-worst sample, which
# with 1,000 samples is the tenth worst and moved 2x between rounds; 5,000
# take 0.1-0.5 s more per run.
declare -A LAT_ITERS=([2]=5000 [4096]=2000)
ATOMIC_ITERS=3000


raw() {
	echo "R $DRV $ROUND $1 $2" | tee -a "$RAW"
}

note() {
	echo "# $*" | tee -a "$RAW"
}

# CPU jiffies busy (not idle, not iowait) over all CPUs, from /proc/stat.
cpu_busy() {
	local cpu user nice sys idle iow irq sirq steal rest
	read -r cpu user nice sys idle iow irq sirq steal rest </proc/stat
	echo $((user + nice + sys + irq + sirq + steal))
}


# Is row $1 selected by SROCE_BENCH_ONLY?
wanted() {
	[ -z "$ONLY" ] || [[ $1 =~ $ONLY ]]
}

# run_pair PROG ARGS...: server in the background, client against the
# device's own GID; client output in $CLOG. 0 iff both exit 0.
run_pair() {
	local prog=$1 slog=/tmp/bench.s.$$ src crc spid t=150 t0=$SECONDS
	shift
	CLOG=/tmp/bench.c.$$
	PORT=$((PORT + 1))
	timeout $PAIR_LIMIT "$prog" -d "$DEV" -x "$GIDX" -F -p $PORT "$@" >"$slog" 2>&1 &
	spid=$!
	while ! listening $PORT && kill -0 $spid 2>/dev/null && ((t-- > 0)); do
		sleep 0.2
	done
	[ -n "$PERF_OUT" ] && perf_start
	timeout $PAIR_LIMIT "$prog" -d "$DEV" -x "$GIDX" -F -p $PORT "$@" 127.0.0.1 >"$CLOG" 2>&1
	crc=$?
	[ -n "$PERF_OUT" ] && perf_stop
	wait $spid
	src=$?
	if [ $crc != 0 ] || [ $src != 0 ]; then
		note "$DRV $prog $*: client exit $crc, server exit $src"
		sed 's/^/#   client: /' "$CLOG" | tail -n 5 | tee -a "$RAW"
		sed 's/^/#   server: /' "$slog" | tail -n 5 | tee -a "$RAW"
		rm -f "$slog"
		return 1
	fi
	rm -f "$slog"
	echo "# $DRV $prog $*: $((SECONDS - t0)) s"
}


perf_for() {
	PERF_OUT=
	if [ -n "$PROFILE" ] && [[ $1 =~ $PROFILE ]]; then
		PERF_OUT=/results/perf-${1//\//_}-$DRV-r$ROUND
	fi
}

# bw TEST SIZE QPS: BW average (MB/s); for 64 KiB -q 1 also CPU s/GiB.
bw() {
	local test=$1 size=$2 q=$3 n row c0 c1 cols
	n=$(iters "${BW_ITERS[$size]}")
	((q > 1)) && n=$(( n / q < 5 ? 5 : n / q ))
	row=${test}_bw/$size/q$q
	wanted "$row" || return 0
	perf_for "$row"
	c0=$(cpu_busy)
	if run_pair ib_${test}_bw -s "$size" -n "$n" -q "$q"; then
		c1=$(cpu_busy)
		read -r -a cols <<<"$(result_row)"
		raw "$row" "${cols[3]:-nan}"
		if ((q == 1)) && ((size >= 65536)); then
			# bytes moved = size * iterations (both sides' CPU counted)
			raw "cpu/${test}_bw/$size" "$(awk -v j=$((c1 - c0)) \
				-v hz="$(getconf CLK_TCK)" -v b="$((size * n))" \
				'BEGIN { printf "%.3f", j / hz / (b / 1073741824) }')"
		fi
	else
		raw "$row" nan
		((q == 1)) && ((size >= 65536)) && raw "cpu/${test}_bw/$size" nan
	fi
}

# lat TEST SIZE: typical and 99th percentile latency (us).
lat() {
	local test=$1 size=$2 n row cols
	n=$(iters "${LAT_ITERS[$size]}")
	row=${test}_lat/$size
	wanted "$row" || return 0
	perf_for "$row"
	if run_pair ib_${test}_lat -s "$size" -n "$n"; then
		read -r -a cols <<<"$(result_row)"
		raw "$row/typ" "${cols[4]:-nan}"
		raw "$row/p99" "${cols[7]:-nan}"
	else
		raw "$row/typ" nan
		raw "$row/p99" nan
	fi
}

# Atomic message rate (Mmsg/s), fetch-and-add, 8 B.
atomic() {
	local cols
	wanted atomic_bw/8/q1 || return 0
	perf_for atomic_bw
	if run_pair ib_atomic_bw -A FETCH_AND_ADD -n "$(iters $ATOMIC_ITERS)"; then
		read -r -a cols <<<"$(result_row)"
		raw atomic_bw/8/q1 "${cols[4]:-nan}"
	else
		raw atomic_bw/8/q1 nan
	fi
}

# Kernel memory per RC QP (depth 128) and per MR (64 KiB), bytes.
mem() {
	local out k v
	wanted mem/ || return 0
	out=$("$MEMPROG" "$DEV" $NQP 128 $NMR 65536 2>&1)
	sed -n 's/^# /# mem: /p' <<<"$out" | tee -a "$RAW"
	for k in qp_slab qp_vmalloc qp_total mr_slab mr_vmalloc mr_total; do
		v=$(sed -n "s/^$k=//p" <<<"$out")
		raw "mem/$k" "${v:-nan}"
	done
}

# The matrix in blocks of rows (BLOCKS). Every block is measured on each
# driver before the next block starts, so both drivers measure a row
# within a minute or two of each other: the host runs in fast and slow
# phases minutes long (Documentation/benchmarks.rst), and a whole round
# per driver (~60 s) let one phase fall on one driver only.
BLOCKS="write_bw send_bw read_bw lat atomic_mem"

driver_up() {
	bench_link_up "$1" "$KO" || return 1
	sroce_wait_gid GIDX "$DEV" $GID4 20
}

driver_down() {
	rdma link delete "$DEV"
	case $(bench_driver "$1") in
	rxe)	rmmod rdma_rxe ;;
	sroce)	rmmod sroce ;;
	esac
}

: >"$RAW"
sroce_reset
# The harness' module tree is shared with other runs on the host, which may
# replace updates/sroce.ko while this one runs: every round loads this copy.
KO=/tmp/bench-sroce.ko
cp "$(modinfo -n sroce)" "$KO" || { note "no sroce module"; exit 1; }
lsmod | grep -q '^rdma_rxe ' && rmmod rdma_rxe
modprobe ib_uverbs && modprobe rdma_ucm
ip link set eth0 mtu 1500
note "bench: $(uname -r), $(nproc) CPUs, rounds $ROUNDS, scale $SCALE, quick $QUICK"
note "bench: sroce srcversion $(modinfo -F srcversion "$KO")"
note "bench: eth0 mtu $(cat /sys/class/net/eth0/mtu), perftest $(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
start=$SECONDS
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
	for BLOCK in $BLOCKS; do
		bench_block_wanted "$BLOCK" || continue
		# shellcheck disable=SC2086 # DRIVERS is a list
		for DRV in $(bench_round_order "$ROUND" $DRIVERS); do
			if ! driver_up "$DRV"; then
				note "$DRV: cannot bring the device up"
				exit 1
			fi
			note "round $ROUND, $BLOCK: $DRV on $DEV, GID index $GIDX ($((SECONDS - start)) s)"
			run_block "$BLOCK"
			driver_down "$DRV" || { note "$DRV: cannot unload"; exit 1; }
		done
	done
done
note "bench: done in $((SECONDS - start)) s"
