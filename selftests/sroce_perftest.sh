#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perftest 4.5 over an sroce device, server and client in the same guest
# (the loopback path): ib_{send,write,read,atomic}_{bw,lat}, all sizes (-a),
# over out-of-band TCP and over rdma_cm (-R), with 4 QPs for the BW tests,
# over the IPv4 RoCEv2 GID, and one size over the IPv6 GID.
#
# Each combination is one TAP result. It passes when both sides exit 0 and
# the client printed one result row per message size, the last being the
# largest size (8 MiB for -a, 64 KiB for single-size runs, 8 B for the
# atomic tests).
#
# perftest refuses -a for the atomic tests ("Message size cannot be changed
# for Atomic tests"), so those run their one size (8 B) with each atomic
# type instead.
#
# Environment:
#   SROCE_PERFTEST_ITERS         -n for the sweeps (5, perftest's minimum)
#   SROCE_PERFTEST_ATOMIC_ITERS  -n for the atomic tests (100)
#   SROCE_PERFTEST_QUICK         1: -R and -q 4 at 1 MiB only, not -a
#   SROCE_PERFTEST_PAIR_TIMEOUT  limit for one server/client pair, s (180
#                                times SROCE_TIMEOUT_SCALE)
#   SROCE_TEST_TIMEOUT           the harness' limit for the test (300): pairs
#                                that would start too close to it fail as
#                                "not run"
#   SROCE_PERFTEST_ONLY          a regex: run only the combinations it matches
# sroce-timeout: 1800
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

N=${SROCE_PERFTEST_ITERS:-5}
NA=${SROCE_PERFTEST_ATOMIC_ITERS:-100}
ONLY=${SROCE_PERFTEST_ONLY:-}
PAIR_TIMEOUT=${SROCE_PERFTEST_PAIR_TIMEOUT:-$((180 * ${SROCE_TIMEOUT_SCALE:-1}))}	# one pair, s
ALL=8388608		# the last size of an -a sweep (perftest's MAX_SIZE)

# Sweeps (-a) over out-of-band TCP, over rdma_cm (-R) and with 4 QPs; a
# sweep takes 10-60 s under emulation (the whole test 5-10 min).
# SROCE_PERFTEST_QUICK=1 runs the -R and -q 4 ones at 1 MiB only.
SWEEP="-a -n $N"
if [ "${SROCE_PERFTEST_QUICK:-0}" = 1 ]; then
	XSWEEP="-s 1048576 -n $N"
else
	XSWEEP=$SWEEP
fi
ONE="-s 65536 -n 20"

# name                program        gid  options
COMBOS=$(cat <<EOF
send_bw_all           ib_send_bw     4    $SWEEP
send_bw_rdmacm        ib_send_bw     4    $XSWEEP -R
send_bw_q4            ib_send_bw     4    $XSWEEP -q 4
send_bw_q4_rdmacm     ib_send_bw     4    $ONE -q 4 -R
send_bw_ipv6          ib_send_bw     6    $ONE
send_lat_all          ib_send_lat    4    $SWEEP
send_lat_rdmacm       ib_send_lat    4    $XSWEEP -R
send_lat_ipv6         ib_send_lat    6    $ONE
write_bw_all          ib_write_bw    4    $SWEEP
write_bw_rdmacm       ib_write_bw    4    $XSWEEP -R
write_bw_q4           ib_write_bw    4    $XSWEEP -q 4
write_bw_ipv6         ib_write_bw    6    $ONE
write_lat_all         ib_write_lat   4    $SWEEP
write_lat_rdmacm      ib_write_lat   4    $XSWEEP -R
read_bw_all           ib_read_bw     4    $SWEEP
read_bw_rdmacm        ib_read_bw     4    $XSWEEP -R
read_bw_q4            ib_read_bw     4    $XSWEEP -q 4
read_bw_ipv6          ib_read_bw     6    $ONE
read_lat_all          ib_read_lat    4    $SWEEP
read_lat_rdmacm       ib_read_lat    4    $XSWEEP -R
atomic_bw_fadd        ib_atomic_bw   4    -A FETCH_AND_ADD -n $NA
atomic_bw_cas         ib_atomic_bw   4    -A CMP_AND_SWAP -n $NA
atomic_bw_rdmacm      ib_atomic_bw   4    -n $NA -R
atomic_bw_q4          ib_atomic_bw   4    -n $NA -q 4
atomic_bw_ipv6        ib_atomic_bw   6    -n $NA
atomic_lat_fadd       ib_atomic_lat  4    -A FETCH_AND_ADD -n $NA
atomic_lat_cas        ib_atomic_lat  4    -A CMP_AND_SWAP -n $NA
atomic_lat_rdmacm     ib_atomic_lat  4    -n $NA -R
EOF
)

gid4=0000:0000:0000:0000:0000:ffff:c000:0201
gid6=2001:0db8:0005:0000:0000:0000:0000:0001


# Is an rdma_cm ID listening on port $1 (perftest -R, rping, ucmatose)?
cm_listening() {
	rdma resource show cm_id 2>/dev/null | grep -E "state LISTEN .*:$1( |$)" | grep -q .
}

# server_ready PID PORT RDMACM: the server listens (or is gone: stop waiting).
server_ready() {
	kill -0 "$1" 2>/dev/null || return 0
	if [ -n "$3" ]; then cm_listening "$2"; else sroce_port_listening "$2"; fi
}

# The sizes of the result rows of a perftest output, one per line.
result_sizes() {
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 5 { print $1 }' "$1"
}

# The sizes the result rows should show, given the options: 2 .. 8 MiB
# for -a, the -s size, or 8 for the atomic tests.
expected_sizes() {
	local s=8
	while [ $# -gt 0 ]; do
		case $1 in
		-a) for ((s = 2; s <= ALL; s *= 2)); do echo $s; done; return ;;
		-s) s=$2; shift ;;
		esac
		shift
	done
	echo "$s"
}

# Wait up to $2 seconds for process $1 to end; kill it if it does not.
# Sets REAP_RC to its exit status (or "killed").
reap() {
	local pid=$1 t=$(($2 * 5))
	while kill -0 "$pid" 2>/dev/null && ((t-- > 0)); do sleep 0.2; done
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		REAP_RC=killed
		return
	fi
	wait "$pid"
	REAP_RC=$?
}

# perftest_pair NAME PROG GIDX PORT OPTIONS...: server in the
# background, client in front; both must exit 0, the client must print the
# expected result rows. On failure prints both logs, counters and dmesg.
perftest_pair() {
	local name=$1 prog=$2 gidx=$3 port=$4
	shift 4
	local opts=("$@") slog clog spid crc src host=127.0.0.1 why=() rdmacm=
	[[ " ${opts[*]} " == *" -R "* ]] && rdmacm=1
	# rdma_cm cannot resolve 127.0.0.1 to an RDMA device: use eth0's address.
	[ -n "$rdmacm" ] && host=192.0.2.1
	slog=$(mktemp) clog=$(mktemp)
	kmsg_mark
	counters_mark
	local start=$EPOCHREALTIME
	# line-buffered, so that a run killed by timeout still shows its rows
	timeout "$PAIR_LIMIT" stdbuf -oL "$prog" -d sroce0 -x "$gidx" -F -p "$port" "${opts[@]}" >"$slog" 2>&1 &
	spid=$!
	wait_for "$name server listening" 30 server_ready "$spid" "$port" "$rdmacm" ||
		why+=("server never listened on port $port")
	kill -0 "$spid" 2>/dev/null || why+=("server ended before the client started")
	if [ ${#why[@]} = 0 ]; then
		timeout "$PAIR_LIMIT" stdbuf -oL "$prog" -d sroce0 -x "$gidx" -F -p "$port" "${opts[@]}" "$host" >"$clog" 2>&1
		crc=$?
		reap "$spid" 30
		src=$REAP_RC
	else
		reap "$spid" 0
		src=$REAP_RC crc="not run"
	fi
	local secs=$(( ($(_ktap_usec "$EPOCHREALTIME") - $(_ktap_usec "$start")) / 1000 ))
	[ "$crc" = 124 ] && why+=("client killed after ${PAIR_LIMIT}s")
	[ "$crc" = 0 ] || why+=("client exit $crc")
	[ "$src" = 0 ] || why+=("server exit $src")
	local want got
	want=$(expected_sizes "${opts[@]}")
	got=$(result_sizes "$clog")
	if [ "$got" != "$want" ]; then
		why+=("client result rows: sizes [${got//$'\n'/ }], expected [${want//$'\n'/ }]")
	fi
	echo "$name: ${secs} ms"
	if [ ${#why[@]} = 0 ]; then
		rm -f "$slog" "$clog"
		return 0
	fi
	echo "FAILED: $(printf '%s; ' "${why[@]}")"
	echo "\$ $prog -d sroce0 -x $gidx -F -p $port ${opts[*]} [$host]"
	sed 's/^/client: /' "$clog"
	sed 's/^/server: /' "$slog"
	echo "counters changed during the pair: $(counters_delta)"
	kmsg_since_mark | sed 's/^/dmesg: /'
	rm -f "$slog" "$clog"
	return 1
}

run_start=$EPOCHREALTIME
declare idx4 idx6
sroce_eth0_up idx4 2001:db8:5::1/64
wait_for "IPv6 GID" 10 sroce_has_rocev2_gid sroce0 $gid6 >/dev/null
[ -n "$idx4" ] || echo "# no IPv4 RoCE v2 GID $gid4"
idx6=$(sroce_gid_index sroce0 $gid6) || echo "# no IPv6 RoCE v2 GID $gid6"
echo "# GID index: IPv4 $idx4, IPv6 $idx6; -n $N (sweeps), $NA (atomics)"

selected=()
while read -r name prog gid opts; do
	[ -n "$name" ] || continue
	[ -z "$ONLY" ] || [[ $name =~ $ONLY ]] || continue
	selected+=("$name $prog $gid $opts")
done <<<"$COMBOS"

# Stop starting pairs before the harness' limit for the whole test, and
# say so, rather than be killed in the middle with results missing.
deadline=$(($(_ktap_usec "$run_start") / 1000000 + ${SROCE_TEST_TIMEOUT:-300} - 20))

ktap_plan $((${#selected[@]} + 1))
port=19000
for row in "${selected[@]}"; do
	read -r name prog gid opts <<<"$row"
	port=$((port + 1))
	[ "$gid" = 6 ] && idx=$idx6 || idx=$idx4
	left=$((deadline - $(_ktap_usec "$EPOCHREALTIME") / 1000000))
	if ((left < 10)); then
		ktap_fail "$name: $prog $opts (GID $idx)" \
			  "not run: the test's ${SROCE_TEST_TIMEOUT:-300} s are used up"
		continue
	fi
	PAIR_LIMIT=$((left < PAIR_TIMEOUT ? left : PAIR_TIMEOUT))
	# word splitting of $opts is intended: it is a list of options
	# shellcheck disable=SC2086
	_ktap_run perftest_pair "$name" "$prog" "$idx" "$port" $opts
	echo "# $(head -n1 <<<"$KTAP_OUT")"
	if ((KTAP_RC == 0)); then
		ktap_ok "$name: $prog $opts (GID $idx)"
	else
		ktap_fail "$name: $prog $opts (GID $idx)" "$(tail -n +2 <<<"$KTAP_OUT")"
	fi
done
rdma statistic show link sroce0/1 | sed 's/^/# /'
rdma link delete sroce0
ip -6 addr del 2001:db8:5::1/64 dev eth0
ktap_check "module unloads after traffic" rmmod sroce
echo "# total $(( ($(_ktap_usec "$EPOCHREALTIME") - $(_ktap_usec "$run_start")) / 1000000 )) s"
ktap_finish
