#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench_icount.sh [RAWFILE]: the guest side of `make bench MODE=icount`
# (scripts/bench.sh --icount): the instruction-exact one-guest table.
# The guest runs under QEMU -icount shift=0,sleep=off with one vCPU, so
# its clock advances 1 ns per executed guest instruction whatever the
# instruction costs the host: CPU time measured in the guest is an
# instruction count, which repeats within about 1% run to run and does
# not depend on the host's load (wall-clock figures under TCG move by
# +-30%). Measures rdma_rxe and sroce on eth0 (192.0.2.1) in this one
# boot, perftest server and client here, and writes raw results to
# RAWFILE (default /results/bench_icount.raw) and stdout:
#
#	R DRIVER ROUND ic/TEST/SIZE/FIGURE VALUE
#
# TEST is send_bw, write_bw, read_bw or send_lat; FIGURE is
#   iters   messages (bw) or round trips (lat) of the run
#   busy    whole-guest busy time over the run, ms, from /proc/stat:
#           its busy ticks in one guest, the clock's advance less its
#           idle and iowait time across two (mark() says why); softirq
#           and kernel threads included, which is where much of both
#           drivers' work runs
#   ticks, clock  the busy time both ways, for comparison
#   client  the perftest client's CPU time (user + system), ms, from the
#           rusage of its waited-for process tree (bash's `times`):
#           scheduler-exact, but without the softirq and kernel-thread
#           work done for it outside its own context
#   server  the same for the perftest server
#   wall    guest-clock time of the run, ms: busy time plus the idle
#           time the clock skipped, which with sleep=off includes every
#           wait for the host (the 9p root file system): not a measure,
#           kept for a look
#   perf    perftest's own figure: BW average (MB/s) or typical latency
#           (us), both in guest time, i.e. per instruction count
# and each of them again with a 0 appended (iters0, busy0, ...) for the
# same run with BASE_ITERS (5, perftest's least) iterations: perftest's
# fixed cost (process start, device open, QP set-up, the TCP exchanges,
# teardown; 0.25-0.45 s of guest CPU, as much as thousands of messages),
# which the report subtracts: per message = (busy - busy0) / (iters -
# iters0).
# bench_icount_report.py turns them into CPU per message and per GiB,
# sroce against rdma_rxe. "nan" marks a figure that could not be measured.
#
# The traffic stays inside the guest: with icount QEMU runs one TCG
# thread, in which QEMU 7.2 loses virtio kicks (scripts/vm-lib.sh), so
# nothing goes out on eth0. By default the client addresses the device's
# own RoCE v2 GID, as bench_guest.sh does: sroce takes its loopback path,
# rdma_rxe loops through the IP stack. SROCE_BENCH_IC_PATH=routed puts a
# second address on eth0 and the client uses its GID, so both drivers
# build, checksum and parse every packet (routed through lo).
#
# perftest in event mode (-e) where it has one (ib_send_*, ib_read_bw), so
# that client and server sleep on their CQs instead of spinning against
# each other on the one CPU; ib_write_bw has no event mode: its client
# polls, and its busy time includes that polling.
#
# Two guests (`make bench MODE=icount-pair`, scripts/vm-pair.sh with
# -icount shift=0,sleep=on, one vCPU each; SROCE_PAIR_ROLE set): the same
# driver on both guests, perftest's server on guest A, its client on
# guest B, across the link; with sleep=on the time a guest waits for the
# other passes in real time, and only its own work is instruction-counted.
# Each guest writes its side's figures to its own RAWFILE: B iters,
# cbusy (B's whole-guest busy time over the run), client, perf; A sbusy,
# server (and the short run's, with 0 appended, as above). The host
# joins both files (scripts/bench.sh).
#
# Environment:
#   SROCE_BENCH_ROUNDS      rounds (2: icount figures repeat within
#                           about 1%, which the second round shows; the
#                           driver order flips every round)
#   SROCE_BENCH_SCALE       multiplies every iteration count (1)
#   SROCE_BENCH_ONLY        a row regex (send_bw/65536): only these rows
#   SROCE_BENCH_DRIVERS     "rxe sroce"; "sroce:NAME=VALUE,..." variants
#                           as in bench_guest.sh
#   SROCE_BENCH_IC_PATH     self (default) or routed, see above
#   SROCE_BENCH_PAIR_LIMIT  per-run hang guard across two guests, in guest
#                           seconds (0: none, the default; the host's
#                           vm-pair.sh limit bounds the run)
#   SROCE_BENCH_STALL_LIMIT per-run hang guard in one guest, in guest
#                           seconds (600; 0: none): a perftest side that
#                           has not exited by then is killed, its row
#                           recorded as nan with "stalled", and the
#                           bench goes on (stall_guard says how)
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./bench/bench_lib.sh
PAIR_ROLE=${SROCE_PAIR_ROLE:-}
[ -n "$PAIR_ROLE" ] && . ./lib/pair_lib.sh

RAW=${1:-/results/bench_icount.raw}
ROUNDS=${SROCE_BENCH_ROUNDS:-2} SCALE=${SROCE_BENCH_SCALE:-1}
DRIVERS=${SROCE_BENCH_DRIVERS:-rxe sroce}
ONLY=${SROCE_BENCH_ONLY:-}
ICPATH=${SROCE_BENCH_IC_PATH:-self}
PAIR_LIMIT=${SROCE_BENCH_PAIR_LIMIT:-0}
STALL_LIMIT=${SROCE_BENCH_STALL_LIMIT:-600}
GID1=0000:0000:0000:0000:0000:ffff:c000:0201
ADDR2=192.0.2.77
GID2=0000:0000:0000:0000:0000:ffff:c000:024d
PORT=22000

# The matrix and its iterations: about 0.5-2 s of guest CPU per run
# beyond perftest's fixed cost (0.5-2 billion instructions), so that
# USER_HZ's 10 ms ticks are about 1% of a figure or less.
TESTS="send write read"
SIZES="64 4096 65536 1048576"
declare -A ITERS=([64]=50000 [4096]=40000 [65536]=2000 [1048576]=64)
LAT_ITERS=10000		# ib_send_lat -s 2 round trips
BASE_ITERS=5

note() {
	echo "# $*" | tee -a "$RAW"
}

raw() {
	echo "R $DRV $ROUND $1 $2" | tee -a "$RAW"
}

wanted() {
	[ -z "$ONLY" ] || [[ $1 =~ $ONLY ]]
}

# mark: the guest clock (M_US, us), the CPU's (one here) idle and iowait
# time (M_IDLE) and busy time (M_TICKS) in USER_HZ ticks from /proc/stat;
# no fork. Busy time can be had two ways, each wrong somewhere:
#  - ticks: /proc/stat's busy fields count the timer ticks that found the
#    CPU busy. A guest that wakes for a burst shorter than a tick and
#    sleeps again, as each of two guests exchanging packets does
#    (sleep=on), is seldom found busy: the ticks miss most of its work.
#    One guest with client and server on its one CPU is seldom idle, and
#    there the ticks agree with the perftest processes' exact CPU times.
#  - clock: the clock's advance less idle and iowait, which NOHZ keeps
#    exactly (it notes the clock at every idle entry and exit). Under
#    sleep=off the clock leaps ahead at every idle wait for the host (a
#    9p read of the root file system, by hundreds of seconds when no
#    timer is near), and a leap once left 115 ms unaccounted; under
#    sleep=on idle time passes in real time, without leaps.
# So the busy figure is the ticks in one guest and the clock across two;
# both are recorded (ticks, clock).
mark() {
	local user nice sys idle iow irq sirq steal t
	read -r _ user nice sys idle iow irq sirq steal _ </proc/stat
	t=${EPOCHREALTIME/[.,]/}
	M_US=$((10#$t)) M_IDLE=$((idle + iow))
	M_TICKS=$((user + nice + sys + irq + sirq + steal))
}

# busy_figures ROW SUFFIX NAME: record, from the mark in b0 i0 w0 to the
# one in b1 i1 w1, the busy time (ms) as ic/ROW/NAMESUFFIX, by the ticks
# in one guest and by the clock across two (mark() says why), and both
# as ic/ROW/ticksSUFFIX and ic/ROW/clockSUFFIX.
busy_figures() {
	local ticks=$(((b1 - b0) * 1000 / HZ))
	local clock=$(((w1 - w0) / 1000 - (i1 - i0) * 1000 / HZ))
	if [ -n "$PAIR_ROLE" ]; then
		raw "ic/$1/$3$2" $clock
	else
		raw "ic/$1/$3$2" $ticks
	fi
	raw "ic/$1/ticks$2" $ticks
	raw "ic/$1/clock$2" $clock
}

# The guest clock in microseconds, without a fork ($EPOCHREALTIME).
now_us() {
	local t=${EPOCHREALTIME/[.,]/}
	echo $((10#$t))
}

# stall_guard PID FILE: kill PID when it has run STALL_LIMIT guest seconds,
# and say so in FILE.stalled.  With sleep=off an idle guest's clock leaps
# to its next timer, so timeout(1)'s one timer would fire as soon as the
# guest idled (waiting for the host's 9p root, say) once: the guard sleeps
# one guest second at a time instead, which caps each leap at a second.
# It waits in read's timeout on a FIFO nobody writes, without a fork:
# microseconds of CPU per second against the 0.5-2 s of a measured run.
stall_guard() {
	local pid=$1 file=$2 n=0 fd fifo=/tmp/ic.guard.$BASHPID
	mkfifo "$fifo" && exec {fd}<>"$fifo" && rm -f "$fifo" || return
	while kill -0 "$pid" 2>/dev/null; do
		read -r -t 1 -u "$fd"
		if ((++n >= STALL_LIMIT)); then
			echo "stalled: still running after $STALL_LIMIT guest s, killed" >"$file.stalled"
			kill -KILL "$pid" 2>/dev/null
			return
		fi
	done
}

# side FILE PROG ARGS...: run PROG ARGS (output to FILE), then append its
# process tree's CPU time, "cpu_ms N", to FILE; exit with PROG's status.
# bash's `times` reports the children it waited for, with ms precision.
side() {
	local file=$1
	shift
	rm -f "$file.stalled"
	(
		if ((PAIR_LIMIT > 0)); then
			timeout "$PAIR_LIMIT" "$@" >"$file" 2>&1
		elif [ -z "$PAIR_ROLE" ] && ((STALL_LIMIT > 0)); then
			"$@" >"$file" 2>&1 &
			local pid=$! guard
			stall_guard $pid "$file" &
			guard=$!
			wait $pid
			set -- $?
			kill "$guard" 2>/dev/null
			wait "$guard"
			(exit "$1")
		else
			"$@" >"$file" 2>&1
		fi
		set -- $?	# PROG's status, kept past `times`
		# into a file: in a pipeline `times` would run in a child of
		# its own, which has no children
		times >"$file.times"
		awk 'NR == 2 {
			split($1, u, /[ms]/); split($2, s, /[ms]/)
			printf "cpu_ms %.0f\n", (u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000
		}' "$file.times" >>"$file"
		rm -f "$file.times"
		exit "$1"
	)
}

cpu_ms() {
	sed -n 's/^cpu_ms //p' "$1" | tail -n 1
}

# run ROW SUFFIX N PROG ARGS...: server in the background, client
# against the GID of $CIDX; records ROW's figures, each name followed by
# SUFFIX (nan when either side failed).
run() {
	local row=$1 x=$2 n=$3 prog=$4 slog=/tmp/ic.s.$$ spid crc src b0 b1 i0 i1 w0 w1 t=300 cols
	shift 4
	CLOG=/tmp/ic.c.$$
	PORT=$((PORT + 1)) SEQ=$((SEQ + 1))
	if [ -n "$PAIR_ROLE" ]; then
		run_across "$@"
		return
	fi
	side "$slog" "$prog" -d "$DEV" -x "$GIDX" -F -p $PORT "$@" &
	spid=$!
	while ! listening $PORT && kill -0 $spid 2>/dev/null && ((t-- > 0)); do
		sleep 0.2
	done
	mark
	b0=$M_TICKS i0=$M_IDLE w0=$M_US
	side "$CLOG" "$prog" -d "$DEV" -x "$CIDX" -F -p $PORT "$@" 127.0.0.1
	crc=$?
	wait $spid
	src=$?
	mark
	b1=$M_TICKS i1=$M_IDLE w1=$M_US
	raw "ic/$row/iters$x" "$n"
	if [ $crc != 0 ] || [ $src != 0 ]; then
		note "$DRV $prog $*: client exit $crc, server exit $src"
		cat "$CLOG.stalled" "$slog.stalled" 2>/dev/null | sed "s|^|# $DRV $row: |" | tee -a "$RAW"
		rm -f "$CLOG.stalled" "$slog.stalled"
		grep -v '^cpu_ms' "$CLOG" | tail -n 5 | sed 's/^/#   client: /' | tee -a "$RAW"
		grep -v '^cpu_ms' "$slog" | tail -n 5 | sed 's/^/#   server: /' | tee -a "$RAW"
		for f in busy client server wall perf; do
			raw "ic/$row/$f$x" nan
		done
		FAILED=1
		return 1
	fi
	read -r -a cols <<<"$(result_row)"
	busy_figures "$row" "$x" busy
	raw "ic/$row/client$x" "$(cpu_ms "$CLOG")"
	raw "ic/$row/server$x" "$(cpu_ms "$slog")"
	raw "ic/$row/wall$x" $(((w1 - w0) / 1000))
	if [[ $row == *_lat/* ]]; then
		raw "ic/$row/perf$x" "${cols[4]:-nan}"
	else
		raw "ic/$row/perf$x" "${cols[3]:-nan}"
	fi
	rm -f "$slog" "$CLOG"
}

# run_across ARGS...: run's two-guest half, with run's locals: this
# guest's side of one perftest run (A the server, B the client), its
# busy time from just before the client may start until its side ends.
run_across() {
	local key=r$SEQ peer rc
	if [ "$PAIR_ROLE" = a ]; then
		side "$slog" "$prog" -d "$DEV" -x "$GIDX" -F -p $PORT "$@" &
		spid=$!
		while ! listening $PORT && kill -0 $spid 2>/dev/null && ((t-- > 0)); do
			sleep 0.2
		done
		mark
		b0=$M_TICKS i0=$M_IDLE w0=$M_US
		if listening $PORT; then
			pair_put "$key.ready" ok
		else
			pair_put "$key.ready" fail
		fi
		pair_reap $spid 10 "$key.cdone"
		mark
		b1=$M_TICKS i1=$M_IDLE w1=$M_US
		rc=$PAIR_REAP_RC
		pair_put "$key.srv" "$rc"
		peer=$(pair_get "$key.cdone" 600) || peer="no word"
		if [ "$rc" != 0 ] || [ "$peer" != 0 ]; then
			note "$DRV $prog $*: server exit $rc, client exit $peer"
			grep -v '^cpu_ms' "$slog" | tail -n 5 | sed 's/^/#   server: /' | tee -a "$RAW"
			raw "ic/$row/sbusy$x" nan
			raw "ic/$row/server$x" nan
			FAILED=1
			return 1
		fi
		busy_figures "$row" "$x" sbusy
		raw "ic/$row/server$x" "$(cpu_ms "$slog")"
		rm -f "$slog"
		return 0
	fi
	peer=$(pair_get "$key.ready" 600) || peer="no word"
	mark
	b0=$M_TICKS i0=$M_IDLE w0=$M_US
	if [ "$peer" = ok ]; then
		side "$CLOG" "$prog" -d "$DEV" -x "$GIDX" -F -p $PORT "$@" "$SROCE_PEER_IP"
		rc=$?
	else
		rc="not run (server: $peer)"
	fi
	mark
	b1=$M_TICKS i1=$M_IDLE w1=$M_US
	pair_put "$key.cdone" "$rc"
	peer=$(pair_get "$key.srv" 600) || peer="no word"
	raw "ic/$row/iters$x" "$n"
	if [ "$rc" != 0 ] || [ "$peer" != 0 ]; then
		note "$DRV $prog $*: client exit $rc, server exit $peer"
		grep -v '^cpu_ms' "$CLOG" 2>/dev/null | tail -n 5 | sed 's/^/#   client: /' | tee -a "$RAW"
		for f in cbusy client perf; do
			raw "ic/$row/$f$x" nan
		done
		FAILED=1
		return 1
	fi
	read -r -a cols <<<"$(result_row)"
	busy_figures "$row" "$x" cbusy
	raw "ic/$row/client$x" "$(cpu_ms "$CLOG")"
	if [[ $row == *_lat/* ]]; then
		raw "ic/$row/perf$x" "${cols[4]:-nan}"
	else
		raw "ic/$row/perf$x" "${cols[3]:-nan}"
	fi
	rm -f "$CLOG"
}

# The rows for this driver that is up.
measure() {
	local t s n ev
	for t in $TESTS; do
		ev=-e
		[ "$t" = write ] && ev=
		for s in $SIZES; do
			wanted "${t}_bw/$s" || continue
			n=$(iters "${ITERS[$s]}")
			# shellcheck disable=SC2086 # $ev: one option or none
			run "${t}_bw/$s" 0 $BASE_ITERS "ib_${t}_bw" $ev -s "$s" -n $BASE_ITERS
			# shellcheck disable=SC2086
			run "${t}_bw/$s" "" "$n" "ib_${t}_bw" $ev -s "$s" -n "$n"
		done
	done
	if wanted send_lat/2; then
		n=$(iters $LAT_ITERS)
		run send_lat/2 0 $BASE_ITERS ib_send_lat -e -s 2 -n $BASE_ITERS
		run send_lat/2 "" "$n" ib_send_lat -e -s 2 -n "$n"
	fi
}

driver_up() {
	if [ -n "$PAIR_ROLE" ]; then
		pair_use "$1" && DEV=$PAIR_DEV && GIDX=$(pair_gid_index 4) || return 1
		CIDX=$GIDX
		return 0
	fi
	bench_link_up "$1" "$KO" || return 1
	wait_for "$DEV RoCE v2 GIDs" 20 bash -c ". ./lib/sroce_lib.sh; sroce_has_rocev2_gid $DEV $GID1 &&
		{ [ $ICPATH = self ] || sroce_has_rocev2_gid $DEV $GID2; }" >/dev/null || return 1
	GIDX=$(sroce_gid_index "$DEV" $GID1)
	CIDX=$GIDX
	[ "$ICPATH" = routed ] && CIDX=$(sroce_gid_index "$DEV" $GID2)
	return 0
}

driver_down() {
	if [ -n "$PAIR_ROLE" ]; then
		# neither guest unloads while the other still runs
		pair_barrier "down.$ROUND.$1" 600 && pair_unload
		return
	fi
	rdma link delete "$DEV"
	case $(bench_driver "$1") in
	rxe)	rmmod rdma_rxe ;;
	sroce)	rmmod sroce ;;
	esac
}

: >"$RAW"
sroce_reset
# The module tree is shared with other runs on the host, which may replace
# updates/sroce.ko while this one runs: load this copy every time.
KO=/tmp/bench-icount-sroce.ko
cp "$(modinfo -n sroce)" "$KO" || { note "no sroce module"; exit 1; }
lsmod | grep -q '^rdma_rxe ' && rmmod rdma_rxe
modprobe ib_uverbs && modprobe rdma_ucm
ip link set eth0 mtu 1500
[ "$ICPATH" = routed ] && ip addr add $ADDR2/24 dev eth0
note "bench: icount: ${PAIR_ROLE:+guest $PAIR_ROLE of two, }$(uname -r), $(nproc) CPUs, rounds $ROUNDS, scale $SCALE, path $ICPATH, USER_HZ $(getconf CLK_TCK)"
HZ=$(getconf CLK_TCK)
note "bench: icount: sroce srcversion $(modinfo -F srcversion "$KO")"
note "bench: icount: eth0 mtu $(cat /sys/class/net/eth0/mtu), perftest $(dpkg-query -W -f='${Version}' perftest 2>/dev/null)"
note "bench: icount: kernel command line: $(cat /proc/cmdline)"
start=$(now_us)
FAILED=0 SEQ=0
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
	# shellcheck disable=SC2086 # DRIVERS is a list
	for DRV in $(bench_round_order "$ROUND" $DRIVERS); do
		if ! driver_up "$DRV"; then
			note "$DRV: cannot bring the device up"
			exit 1
		fi
		note "round $ROUND: $DRV on $DEV, GID index $GIDX, client's $CIDX ($((($(now_us) - start) / 1000000)) guest s)"
		measure
		driver_down "$DRV" || { note "$DRV: cannot unload"; exit 1; }
	done
done
[ "$ICPATH" = routed ] && ip addr del $ADDR2/24 dev eth0
note "bench: icount: done in $((($(now_us) - start) / 1000000)) guest s"
exit $FAILED
