#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Interop matrix between two guests (scripts/vm-pair.sh runs this on both,
# SROCE_PAIR_ROLE says which side it is).  Driver combinations are switched
# within the one boot: rdma_rxe on A with sroce on B, sroce on both, rdma_rxe
# on both.  For each: netdev MTU 1500 and 9000 (path MTU 1024 and 4096),
# IPv4 and IPv6 RoCEv2 GIDs, and the tools
#   rc_pingpong uc_pingpong ud_pingpong (-c: data checked), rping (-v -V,
#   every ping line compared with rping's data pattern), ib_send_bw,
#   ib_write_bw, ib_read_bw, ib_atomic_bw, ib_send_lat -a, ib_send_lat -R
# with sroce as server and as client against rdma_rxe (one direction for
# the symmetric pairs).  Guest A prints one TAP result per combination,
# named "CLIENT-client_SERVER-server TOOL ipvF mtuM": it passes when both
# sides exited 0 and each side's output shows the work was done (perftest:
# the expected result rows; pingpong: "iters in", no "invalid data").
# Both guests print, per driver combination, whether the device came up,
# whether its error counters stayed at zero (pair_lib.sh's list), whether
# the kernel log showed rdma_rxe's "bad ICRC"/sroce complaints, and whether
# their device accepted every packet the peer's device sent.
#
# Environment:
#   SROCE_PAIR_ONLY     regex over the combination names: run only these
#   SROCE_PAIR_TOOLS    the tools to run (default: all of the above, by
#                       the names the results use, send_lat_all for -a)
#   SROCE_PAIR_SKIP_TOOLS  tools left out of those (names as above)
#   SROCE_PAIR_DRIVERS  driver combinations (default "rxe-sroce sroce-sroce
#                       rxe-rxe"; A's driver first)
#   SROCE_PAIR_LIMIT    limit for one tool run, s (90)
#   SROCE_PAIR_CAPTURE  non-empty: tcpdump the RoCE packets (first 3000,
#                       400 bytes each) of each driver pair into
#                       /results/DRIVERS.pcap
#   SROCE_PAIR_FULL     non-empty: the whole matrix, 152 combinations
#                       (about an hour of guest time under TCG on a busy
#                       host).  By default (CI) it is cut to 90:
#                       - rxe<->sroce (and any pair of guests on two
#                         kernels), both directions: every tool at
#                         IPv4 and IPv6, MTU 1500 and 9000, but the
#                         ib_send_lat -a sweep only at IPv4/1500 and
#                         IPv6/9000 (72; perftest 4.5 cannot run -R
#                         over IPv6: see in_ci);
#                       - the symmetric reference pairs (sroce-sroce,
#                         rxe-rxe) only at IPv4/MTU 1500, without the
#                         ib_send_lat -a sweep (18).
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./lib/pair_lib.sh

ONLY=${SROCE_PAIR_ONLY:-}
DRIVERS=${SROCE_PAIR_DRIVERS:-rxe-sroce sroce-sroce rxe-rxe}
PP_ITERS=20
PING_COUNT=5
PING_SIZE=10000
BW="-s 65536 -n 10"
ATOMIC="-n 50"
LAT_ALL="-a -n 5"
LAT_CM="-s 4096 -n 10"
TOOLS=${SROCE_PAIR_TOOLS:-rc_pingpong uc_pingpong ud_pingpong rping send_bw write_bw read_bw atomic_bw send_lat_all send_lat_rdmacm}
for skip in ${SROCE_PAIR_SKIP_TOOLS:-}; do
	TOOLS=$(tr ' ' '\n' <<<"$TOOLS" | grep -vx -- "$skip" | paste -sd ' ' -)
done

# Is the driver pair DA-DB the same code on both sides: the same driver,
# and both guests on the same kernel (vm-pair.sh --kernel-b boots B on
# another one)?
symmetric() {
	local ka kb
	read -r ka kb <<<"${SROCE_PAIR_KERNELS:-x x}"
	[ "$1" = "$2" ] && [ "$ka" = "$kb" ]
}

# The combinations of one driver pair (A's and B's driver) at one MTU and
# family: "server_role tool name".
combos() {
	local da=$1 db=$2 mtu=$3 fam=$4 t dirs srv ka kb
	if symmetric "$da" "$db"; then dirs="b"; else dirs="b a"; fi
	# Guests on two kernels: each driver named with its kernel, sroce@6.12.
	read -r ka kb <<<"${SROCE_PAIR_KERNELS:-x x}"
	if [ "$ka" != "$kb" ]; then da=$da@$ka db=$db@$kb; fi
	for t in $TOOLS; do
		in_ci "${da%@*}" "${db%@*}" "$mtu" "$fam" "$t" || continue
		for srv in $dirs; do
			local sdrv cdrv
			if [ $srv = a ]; then sdrv=$da cdrv=$db; else sdrv=$db cdrv=$da; fi
			echo "$srv $t $cdrv-client_$sdrv-server $t ipv$fam mtu$mtu"
		done
	done
}

# The CI cut (see SROCE_PAIR_FULL above).  perftest 4.5 cannot use rdma_cm
# over IPv6 at all (-R --ipv6 fails in getaddrinfo: "Address family for
# hostname not supported", rxe to rxe as well): ib_send_lat -R runs over
# IPv4 only.
in_ci() {
	local da=$1 db=$2 mtu=$3 fam=$4 t=$5
	[ "$t/$fam" != send_lat_rdmacm/6 ] || return 1
	[ -z "${SROCE_PAIR_FULL:-}" ] || return 0
	# The ib_send_lat -a sweep (2 B to 8 MiB, half a minute of guest
	# time a run) once per family and once per MTU: IPv4 at 1500, IPv6
	# at 9000.
	[ "$t" != send_lat_all ] || [ "$fam/$mtu" = 4/1500 ] ||
		[ "$fam/$mtu" = 6/9000 ] || return 1
	# rdma_rxe against sroce, or one kernel against another: all of it.
	symmetric "$da" "$db" || return 0
	# The symmetric reference pairs: IPv4/MTU 1500, no -a sweep.
	[ "$fam/$mtu" = 4/1500 ] && [ "$t" != send_lat_all ]
}

# pair_combination's retry hook. perftest 4.5 with -R makes two rdma_cm
# connections on the same port: its control channel, then the test's QP.
# The server destroys its listener once the first is accepted and listens
# anew only after setting up the second QP, while the client connects
# straight away: when the client is the quicker, the server's CM has no
# listener for the service ID and rejects the REQ with reason 8 (the
# client prints "Event: RDMA_CM_EVENT_REJECTED; error: 8." and then
# crashes in librdmacm). Later perftest releases retry rdma_connect
# for that reason. A reject is an answer from the peer's CM, so the two
# drivers delivered the REQ and the REJ: that run may go again.
retry_reason() {
	[ "$1" = send_lat_rdmacm ] || return 1
	# 8: IB_CM_REJ_INVALID_SERVICE_ID, "nobody listens there"; perftest
	# prints it one of two ways.
	grep -Eq 'RDMA_CM_EVENT_REJECTED; error: 8\.|Unexpected CM event bl blka 8' <<<"$2" ||
		return 1
	echo "perftest's -R reconnect race (the server was not listening again yet)"
}

# perftest result-row sizes (first column) of a client log, one a line.
result_sizes() {
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 5 { print $1 }' "$1"
}

expected_sizes() {
	local s=8
	while [ $# -gt 0 ]; do
		case $1 in
		-a) for ((s = 2; s <= 8388608; s *= 2)); do echo $s; done; return ;;
		-s) s=$2; shift ;;
		esac
		shift
	done
	echo "$s"
}

# pair_combination's callbacks: tool_cmd sets CMD and READY for our side,
# check_output says what the output must show.
# The command of one side for TOOL; sets CMD (array) and READY (tcp|cm).
tool_cmd() {
	local tool=$1 side=$2 fam=$3 mtu=$4 port=$5 gidx peer ibmtu
	gidx=$(pair_gid_index "$fam")
	ibmtu=$([ "$mtu" = 9000 ] && echo 4096 || echo 1024)
	if [ "$fam" = 6 ]; then peer=$SROCE_PEER_IP6; self=$SROCE_SELF_IP6
	else peer=$SROCE_PEER_IP; self=$SROCE_SELF_IP; fi
	READY=tcp
	case $tool in
	rc_pingpong|uc_pingpong)
		CMD=(ibv_$tool -d "$PAIR_DEV" -g "$gidx" -p "$port" -n $PP_ITERS -c -m $ibmtu) ;;
	ud_pingpong)
		CMD=(ibv_$tool -d "$PAIR_DEV" -g "$gidx" -p "$port" -n $PP_ITERS -c -s $ibmtu) ;;
	rping)
		READY=cm
		if [ "$side" = server ]; then
			CMD=(rping -s -a "$self" -p "$port" -v -V -S $PING_SIZE)
		else
			CMD=(rping -c -a "$peer" -p "$port" -C $PING_COUNT -v -V -S $PING_SIZE)
		fi
		return ;;
	send_bw|write_bw|read_bw)
		# shellcheck disable=SC2206
		CMD=(ib_$tool -d "$PAIR_DEV" -x "$gidx" -F -p "$port" $BW) ;;
	atomic_bw)
		# shellcheck disable=SC2206
		CMD=(ib_atomic_bw -d "$PAIR_DEV" -x "$gidx" -F -p "$port" $ATOMIC) ;;
	send_lat_all)
		# 80 to 150 s under TCG, mostly the sizes from 256 KiB up
		CMD_LIMIT=$((PAIR_LIMIT * 3))
		# shellcheck disable=SC2206
		CMD=(ib_send_lat -d "$PAIR_DEV" -x "$gidx" -F -p "$port" $LAT_ALL) ;;
	send_lat_rdmacm)
		READY=cm
		# shellcheck disable=SC2206
		CMD=(ib_send_lat -d "$PAIR_DEV" -F -p "$port" $LAT_CM -R)
		[ "$fam" = 6 ] && CMD+=(--ipv6)
		[ "$side" = client ] && CMD+=("$peer")
		return ;;
	esac
	# The out-of-band TCP exchange goes over IPv4; the GID picks the family.
	[ "$side" = client ] && CMD+=("$SROCE_PEER_IP")
}

# check_output TOOL SIDE LOG: what the output must show beyond exit 0.
check_output() {
	local tool=$1 side=$2 log=$3 want got
	case $tool in
	*_pingpong)
		grep -q 'iters in' "$log" || { echo "$side: no 'iters in' line"; return 1; }
		! grep -q 'invalid data' "$log" || { echo "$side: invalid data"; return 1; } ;;
	rping)
		! grep -q 'data mismatch' "$log" || { echo "$side: rping -V data mismatch"; return 1; }
		if [ "$side" = client ]; then
			rping_check "$log" "ping data: " $PING_SIZE $PING_COUNT || return 1
		else
			rping_check "$log" "server ping data: " $PING_SIZE $PING_COUNT || return 1
		fi ;;
	*)
		[ "$side" = client ] || return 0
		want=$(expected_sizes "${CMD[@]}")
		got=$(result_sizes "$log")
		[ "$got" = "$want" ] || {
			echo "client result rows: sizes [${got//$'\n'/ }], expected [${want//$'\n'/ }]"
			return 1; } ;;
	esac
}

# Error counters of our device and the kernel log since the phase began.
phase_checks() {
	local phase=$1 bad
	bad=$(pair_err_counters | awk '$2 != 0')
	if [ -z "$bad" ]; then
		ktap_ok "$phase: guest $PAIR_ROLE $PAIR_DEV error counters stay zero"
	else
		ktap_fail "$phase: guest $PAIR_ROLE $PAIR_DEV error counters stay zero" "$bad"
	fi
	bad=$(kmsg_since_mark | grep -E 'bad ICRC|rdma_rxe: .*(bad|err|invalid)|sroce.*(drop|bad|invalid)')
	if [ -z "$bad" ]; then
		ktap_ok "$phase: guest $PAIR_ROLE kernel log has no complaint about the peer's packets"
	else
		ktap_fail "$phase: guest $PAIR_ROLE kernel log has no complaint about the peer's packets" "$bad"
	fi
	accepted_check "$phase"
	rdma statistic show link "$PAIR_DEV/1" | sed 's/^/# /'
}

# Value of counter $1 of our device.
dev_counter() {
	rdma statistic show link "$PAIR_DEV/1" 2>/dev/null |
		awk -v c="$1" '{ for (i = 3; i < NF; i += 2) if ($i == c) print $(i + 1) }'
}

# Packets the root qdisc of eth0 dropped so far.
qdisc_drops() {
	tc -s qdisc show dev eth0 | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1
}

# Every packet the peer's device sent was accepted by ours: both devices
# were created for this driver pair, so their counters cover exactly its
# traffic.  rcvd_pkts counts a packet only once it passed the length,
# header and ICRC checks (rdma_rxe and sroce alike), so for rdma_rxe this is
# the "no malformed packet from sroce" check its counters cannot give
# directly.  A mismatch shows the peer's qdisc drops (a sender that
# overruns its own qdisc loses packets before they reach the link) and
# both kernels' drop counters between device and wire, since boot.
accepted_check() {
	local phase=$1 sent drops rcvd desc mine theirs
	mine=$(pair_drop_counters)
	echo "# $phase: guest $PAIR_ROLE kernel drop counters since boot: $mine"
	pair_put "$phase.sent" "$(dev_counter sent_pkts) $(($(qdisc_drops) - QDISC_DROPS0))"
	pair_put "$phase.drops" "$mine"
	read -r sent drops <<<"$(pair_get "$phase.sent" 120)"
	theirs=$(pair_get "$phase.drops" 120)
	rcvd=$(dev_counter rcvd_pkts)
	desc="$phase: guest $PAIR_ROLE $PAIR_DEV accepted every packet the peer sent"
	if [ -n "$sent" ] && [ "$rcvd" = "$sent" ]; then
		ktap_ok "$desc ($sent)"
	else
		ktap_fail "$desc" "peer sent_pkts ${sent:-?}, our rcvd_pkts $rcvd; the peer's qdisc dropped ${drops:-?} packets in this phase
our kernel's drop counters: $mine
the peer's: $theirs"
	fi
}

set_mtu() {
	ip link set eth0 mtu "$1" || return 1
	wait_for "$PAIR_DEV active MTU" 10 mtu_is "$([ "$1" = 9000 ] && echo 4096 || echo 1024)"
}

mtu_is() {
	[ "$(sroce_active_mtu "$PAIR_DEV")" = "$1" ]
}

# Everything to run, in order: "drivers mtu fam server_role tool name".
selected=()
for dp in $DRIVERS; do
	for mtu in 1500 9000; do
		for fam in 4 6; do
			while read -r srv tool name; do
				[ -n "$name" ] || continue
				[ -z "$ONLY" ] || [[ $name =~ $ONLY ]] || continue
				selected+=("$dp $mtu $fam $srv $tool $name")
			done <<<"$(combos "${dp%-*}" "${dp#*-}" $mtu $fam)"
		done
	done
done
count_for() {
	local n=0 r
	for r in "${selected[@]}"; do [[ $r == "$1 "* ]] && n=$((n + 1)); done
	echo $n
}

# Plan: per driver pair that has combinations, 4 results on each guest
# (device up, error counters, kernel log, packets accepted), plus A's one
# per combination.
plan=0 phases=()
for dp in $DRIVERS; do
	n=$(count_for "$dp")
	((n > 0)) || continue
	phases+=("$dp")
	plan=$((plan + 4))
	[ "$PAIR_ROLE" = a ] && plan=$((plan + n))
done
ktap_plan $plan
echo "# guest $PAIR_ROLE: ${#selected[@]} combinations in ${#phases[@]} driver pairs"
run_start=$EPOCHREALTIME
STEP_LOST=
# The peer's MAC as a permanent neighbour, IPv4 and IPv6: an ARP or ND
# exchange that times out on a loaded host would drop the packets queued
# behind it, counted as sent by one device and never seen by the other.
pair_neigh_pin || echo "# guest $PAIR_ROLE could not pin its neighbour entries"
for dp in "${phases[@]}"; do
	da=${dp%-*} db=${dp#*-}
	[ "$PAIR_ROLE" = a ] && drv=$da || drv=$db
	pair_barrier "$dp.unload" 300
	kmsg_mark
	QDISC_DROPS0=$(qdisc_drops)
	ktap_check "$dp: guest $PAIR_ROLE runs $drv" pair_use "$drv"
	cap=
	if [ -n "${SROCE_PAIR_CAPTURE:-}" ]; then
		tcpdump -i eth0 -s 400 -c 3000 -w "/results/$dp.pcap" udp port 4791 2>/dev/null &
		cap=$!
	fi
	cur_mtu=
	for row in "${selected[@]}"; do
		read -r rdp mtu fam srv tool name <<<"$row"
		[ "$rdp" = "$dp" ] || continue
		if [ "$mtu" != "$cur_mtu" ]; then
			set_mtu "$mtu" || echo "# could not set MTU $mtu"
			pair_barrier "$dp.mtu$mtu" 300
			cur_mtu=$mtu
		fi
		pair_combination "$name" "$srv" "$tool" "$fam" "$mtu"
	done
	pair_barrier "$dp.done" 300
	[ -z "$cap" ] || { kill "$cap" 2>/dev/null; wait "$cap"; }
	phase_checks "$dp"
	set_mtu 1500 >/dev/null 2>&1
	echo "# $dp done at $(( ($(_ktap_usec "$EPOCHREALTIME") - $(_ktap_usec "$run_start")) / 1000000 )) s"
done
pair_unload
pair_neigh_unpin
ip link set eth0 mtu 1500
[ -z "$STEP_LOST" ] || echo "# guest $PAIR_ROLE lost step with its peer"
ktap_finish
