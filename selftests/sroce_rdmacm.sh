#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# librdmacm's example programs over an sroce device, server and client in
# the same guest (the loopback path), over IPv4 (192.0.2.1) and IPv6
# (2001:db8:5::1): rping (RC; SEND, RDMA READ and RDMA WRITE, its data
# checked), ucmatose (RC connections, SEND/RECV) and udaddy (UD, SIDR).
# rdma_cm resolves addresses and routes and exchanges its connection MADs
# through the device's GSI QP (QP1), so this also tests sroce's QP1.
#
# Each combination is one TAP result. It passes when both sides exit 0 and
# the output shows the work was done: for rping, the client printed exactly
# the COUNT ping lines rping's data pattern predicts (and -V found no
# mismatch), and the server printed the same data; for ucmatose and udaddy,
# both sides printed "test complete" and "return status 0".
# rping exits 0 whenever the connection ends in DISCONNECTED, even after a
# failed ping (a bad completion ends the loop early), so the ping lines are
# what show that the data went through.
#
# Environment:
#   SROCE_RDMACM_PAIR_TIMEOUT  limit for one server/client pair, s (60)
#   SROCE_RDMACM_ONLY          a regex: run only the combinations it matches
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

PAIR_TIMEOUT=${SROCE_RDMACM_PAIR_TIMEOUT:-60}
ONLY=${SROCE_RDMACM_ONLY:-}
ADDR4=192.0.2.1
ADDR6=2001:db8:5::1
COUNT=20

# name                    program   family  port   options
COMBOS=$(cat <<EOF
rping_ipv4_64             rping     4       7201   64
rping_ipv4_4000           rping     4       7202   4000
rping_ipv4_65535          rping     4       7203   65535
rping_ipv6_64             rping     6       7204   64
rping_ipv6_4000           rping     6       7205   4000
rping_ipv6_65535          rping     6       7206   65535
ucmatose_ipv4             ucmatose  4       7211   -
ucmatose_ipv4_c4_4k       ucmatose  4       7212   -c 4 -C 20 -S 4096
ucmatose_ipv6             ucmatose  6       7213   -
udaddy_ipv4               udaddy    4       -      -
udaddy_ipv4_c4            udaddy    4       -      -c 4 -C 20
udaddy_ipv6               udaddy    6       -      -
EOF
)

gid6=2001:0db8:0005:0000:0000:0000:0000:0001

# Is an rdma_cm ID listening on port $1?
cm_listening() {
	rdma resource show cm_id 2>/dev/null | grep -E "state LISTEN .*:$1( |$)" | grep -q .
}

# server_ready PID PORT: the server listens (or is gone: stop waiting).
server_ready() {
	kill -0 "$1" 2>/dev/null || return 0
	cm_listening "$2"
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

# run_pair NAME PORT -- SERVER... -- CLIENT...: server in the background,
# wait until it listens, client in front. Sets CRC, SRC, SLOG, CLOG, WHY.
run_pair() {
	local name=$1 port=$2 srv=() cli=() spid
	shift 3
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	SLOG=$(mktemp) CLOG=$(mktemp) WHY=()
	: >"$SLOG.err"; : >"$CLOG.err"
	echo "\$ ${srv[*]} & ${cli[*]}" >"$CLOG.cmd"
	# stdout and stderr apart: rping's stdout is block-buffered, and an
	# unbuffered stderr message would land in the middle of a ping line
	timeout "$PAIR_TIMEOUT" "${srv[@]}" >"$SLOG" 2>"$SLOG.err" &
	spid=$!
	wait_for "$name server listening" 20 server_ready "$spid" "$port" >>"$CLOG.cmd" ||
		WHY+=("server never listened on port $port")
	kill -0 "$spid" 2>/dev/null || WHY+=("server ended before the client started")
	if [ ${#WHY[@]} != 0 ]; then
		reap "$spid" 0
		SRC=$REAP_RC CRC="not run"
		[ "$SRC" = killed ] || WHY+=("server exit $SRC")
		return
	fi
	timeout "$PAIR_TIMEOUT" "${cli[@]}" >"$CLOG" 2>"$CLOG.err"
	CRC=$?
	reap "$spid" 20
	SRC=$REAP_RC
	[ "$CRC" = 0 ] || WHY+=("client exit $CRC")
	[ "$SRC" = 0 ] || WHY+=("server exit $SRC")
}

# Print the verdict and the evidence of a failure; clean up.
finish_pair() {
	local rc=0
	if [ ${#WHY[@]} != 0 ]; then
		rc=1
		echo "FAILED: $(printf '%s; ' "${WHY[@]}")"
		cat "$CLOG.cmd"
		sed 's/^/client: /' "$CLOG" | cut -c1-200
		sed 's/^/client stderr: /' "$CLOG.err"
		sed 's/^/server: /' "$SLOG" | cut -c1-200
		sed 's/^/server stderr: /' "$SLOG.err"
		echo "counters changed during the pair: $(counters_delta)"
		kmsg_since_mark | sed 's/^/dmesg: /'
	fi
	drop_logs
	return $rc
}

drop_logs() {
	rm -f "$SLOG" "$SLOG.err" "$CLOG" "$CLOG.err" "$CLOG.cmd"
}

# One run again when rping hit its own exit race (sroce_lib.sh), on
# either side, and nothing else went wrong.
rping_pair() {
	local name=$1 addr=$2 port=$3 size=$4 out attempt
	kmsg_mark
	counters_mark
	for attempt in 1 2; do
		run_pair "$name" "$port" -- \
			rping -s -a "$addr" -p "$port" -v -V -S "$size" -- \
			rping -c -a "$addr" -p "$port" -C "$COUNT" -v -V -S "$size"
		if [ $attempt != 1 ] || [ ${#WHY[@]} != 1 ] ||
		   ! rping_exit_race "${WHY[*]}$(cat "$CLOG" "$CLOG.err" "$SLOG" "$SLOG.err")"; then
			break
		fi
		RETRIED="ran again after rping's exit race (${WHY[*]})"
		drop_logs
	done
	if [ "$CRC" != "not run" ]; then
		grep -q 'data mismatch' "$CLOG.err" && WHY+=("client: rping -V data mismatch")
		out=$(rping_check "$CLOG" "ping data: " "$size" "$COUNT") || WHY+=("client: $out")
		out=$(rping_check "$SLOG" "server ping data: " "$size" "$COUNT") || WHY+=("server: $out")
	fi
	finish_pair
}

# ucmatose / udaddy: both sides print "test complete" and "return status 0".
cmatose_pair() {
	local name=$1 prog=$2 addr=$3 port=$4 side log
	shift 4
	local opts=("$@") portopt=()
	# udaddy has no port option: it listens on the port rping uses, 7174.
	if [ "$prog" = ucmatose ]; then portopt=(-p "$port"); else port=7174; fi
	kmsg_mark
	counters_mark
	run_pair "$name" "$port" -- \
		"$prog" -b "$addr" "${portopt[@]}" "${opts[@]}" -- \
		"$prog" -s "$addr" "${portopt[@]}" "${opts[@]}"
	if [ "$CRC" != "not run" ]; then
		for side in client server; do
			[ $side = client ] && log=$CLOG || log=$SLOG
			grep -q '^test complete' "$log" || WHY+=("$side: no 'test complete'")
			grep -q '^return status 0' "$log" || WHY+=("$side: no 'return status 0'")
		done
	fi
	finish_pair
}

run_start=$EPOCHREALTIME
sroce_eth0_up "" $ADDR6/64
wait_for "IPv6 GID" 10 sroce_has_rocev2_gid sroce0 $gid6 >/dev/null

selected=()
while read -r name prog fam port opts; do
	[ -n "$name" ] || continue
	[ -z "$ONLY" ] || [[ $name =~ $ONLY ]] || continue
	selected+=("$name $prog $fam $port $opts")
done <<<"$COMBOS"

ktap_plan $((${#selected[@]} + 1))
for row in "${selected[@]}"; do
	read -r name prog fam port opts <<<"$row"
	[ "$fam" = 6 ] && addr=$ADDR6 || addr=$ADDR4
	[ "$opts" = - ] && opts=
	t0=$EPOCHREALTIME RETRIED=
	if [ "$prog" = rping ]; then
		desc="$name: rping -C $COUNT -v -V -S $opts to $addr"
		ktap_check "$desc" rping_pair "$name" "$addr" "$port" "$opts"
	elif ! command -v "$prog" >/dev/null; then
		ktap_fail "$name: $prog is not installed (rdmacm-utils)"
		continue
	else
		desc="$name: $prog ${opts:+$opts }to $addr"
		# shellcheck disable=SC2086	# $opts is a list of options
		ktap_check "$desc" cmatose_pair "$name" "$prog" "$addr" "$port" $opts
	fi
	echo "# $name: $(( ($(_ktap_usec "$EPOCHREALTIME") - $(_ktap_usec "$t0")) / 1000 )) ms${RETRIED:+; $RETRIED}"
done
rdma statistic show link sroce0/1 | sed 's/^/# /'
rdma link delete sroce0
ip -6 addr del $ADDR6/64 dev eth0
ktap_check "module unloads after traffic" rmmod sroce
echo "# total $(( ($(_ktap_usec "$EPOCHREALTIME") - $(_ktap_usec "$run_start")) / 1000000 )) s"
ktap_finish
