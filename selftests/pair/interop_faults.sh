#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC traffic between rdma_rxe (guest A) and sroce (guest B) while netem
# damages the link (scripts/vm-pair.sh runs this on both guests).  Each
# guest puts netem on its own eth0 egress, so both directions suffer:
#   loss 1%, loss 5%, duplicate 5%, reorder (25% sent 2 ms early),
#   corrupt 2% (one bit flipped per hit packet).
# Under each, with sroce as client and as server:
#   - rping -v -V: SEND, RDMA READ and RDMA WRITE of COUNT pings; -V
#     validates every ping read back, and every ping line of both sides
#     must be exactly rping's data pattern (rping_check);
#   - ibv_rc_pingpong -c: SENDs of 16 KiB, every received buffer checked;
#     both sides keep their QP 3 s after they are done (qp_linger.so), so
#     that a lost last ACK is answered when the peer retransmits.
# Guest A prints one TAP result per run, "fault CASE: CLIENT-client_SERVER-
# server TOOL ipv4 mtu1500".  After the corruption runs, guest B asserts
# that sroce dropped corrupted packets and counted them (drop_icrc, or
# drop_header for a hit header) and A reports rdma_rxe's "bad ICRC" log
# lines.  Every transfer completing with the right data is what shows that
# no corrupted packet was placed.  Both sides pin their ARP entry for the
# peer first (pair_neigh_pin): a corrupted ARP frame would otherwise make
# rdma_cm drop rping's connection as unreachable, a failure of the test's
# network, not of either driver.
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./lib/pair_lib.sh

PING_COUNT=10
PING_SIZE=8192
PP_ITERS=50
PP_SIZE=16384
CASES=(
	"loss1 loss 1%"
	"loss5 loss 5%"
	"dup duplicate 5%"
	"reorder delay 2ms reorder 75% 50%"
	"corrupt corrupt 2%"
)
TOOLS="rping rc_pingpong"
PAIR_PORT=19900
# A lost last packet costs a retransmission timeout: rdma_cm QPs (rping)
# wait about 2 s for each.
PAIR_LIMIT=${SROCE_PAIR_LIMIT:-240}

tool_cmd() {
	local tool=$1 side=$2
	READY=tcp
	case $tool in
	rping)
		READY=cm
		# qp_linger.so: the QP and the cm_id live until the disconnect
		# is complete, 30 s at most, so that the CM retransmits a lost
		# DREQ (every ~4.6 s) instead of leaving the peer waiting.
		CMD=("$PWD/with_linger.sh" 30 rping)
		if [ "$side" = server ]; then
			CMD+=(-s -a "$SROCE_SELF_IP" -p "$5" -v -V -S $PING_SIZE)
		else
			CMD+=(-c -a "$SROCE_PEER_IP" -p "$5" -C $PING_COUNT -v -V -S $PING_SIZE)
		fi ;;
	rc_pingpong)
		pair_pingpong_cmd "$side" "$5" $PP_ITERS $PP_SIZE ;;
	esac
}

check_output() {
	local tool=$1 side=$2 log=$3
	case $tool in
	rping)
		! grep -q 'data mismatch' "$log" || { echo "$side: rping -V data mismatch"; return 1; }
		if [ "$side" = client ]; then
			rping_check "$log" "ping data: " $PING_SIZE $PING_COUNT
		else
			rping_check "$log" "server ping data: " $PING_SIZE $PING_COUNT
		fi ;;
	rc_pingpong)
		pair_pingpong_check "$side" "$log" ;;
	esac
}

# Sum of sroce's drop counters that a corrupted packet may land in.
corrupt_drops() {
	rdma statistic show link "$PAIR_DEV/1" |
		awk '{ for (i = 3; i < NF; i += 2)
			if ($i == "drop_icrc" || $i == "drop_header") n += $(i + 1) }
		     END { print n + 0 }'
}

if [ "$PAIR_ROLE" = a ]; then drv=rxe; else drv=sroce; fi
ntools=$(wc -w <<<"$TOOLS")
plan=$((2 + ${#CASES[@]}))	# ARP pinned, driver up, netem per case
[ "$PAIR_ROLE" = a ] && plan=$((plan + ${#CASES[@]} * ntools * 2))
[ "$PAIR_ROLE" = b ] && plan=$((plan + 1))	# corrupted packets counted
ktap_plan $plan
run_start=$EPOCHREALTIME
modprobe sch_netem
pair_barrier start 300
ktap_check "guest $PAIR_ROLE pins its ARP entry for $SROCE_PEER_IP" pair_neigh_pin
ktap_check "guest $PAIR_ROLE runs $drv" pair_use "$drv"
kmsg_mark
for c in "${CASES[@]}"; do
	read -r cname spec <<<"$c"
	pair_barrier "$cname.setup" 300
	# shellcheck disable=SC2086	# $spec is a list of netem words
	ktap_check "fault $cname: guest $PAIR_ROLE netem $spec on eth0" \
		tc qdisc replace dev eth0 root netem $spec
	drops0=$(corrupt_drops)
	pair_barrier "$cname.on" 300
	for tool in $TOOLS; do
		for srv in b a; do
			if [ $srv = b ]; then pairname=rxe-client_sroce-server
			else pairname=sroce-client_rxe-server; fi
			pair_combination "fault $cname: $pairname $tool ipv4 mtu1500" \
				"$srv" "$tool" 4 1500
		done
	done
	pair_barrier "$cname.end" 300
	tc qdisc del dev eth0 root 2>/dev/null
	echo "# fault $cname done at $(( ($(_ktap_usec "$EPOCHREALTIME") - $(_ktap_usec "$run_start")) / 1000000 )) s"
	echo "# $(rdma statistic show link "$PAIR_DEV/1")"
	if [ "$cname" = corrupt ] && [ "$PAIR_ROLE" = b ]; then
		drops=$(( $(corrupt_drops) - drops0 ))
		if ((drops > 0)); then
			ktap_ok "fault corrupt: sroce dropped and counted $drops corrupted packets (drop_icrc + drop_header)"
		else
			ktap_fail "fault corrupt: sroce dropped and counted corrupted packets (drop_icrc + drop_header)" \
				"$(rdma statistic show link "$PAIR_DEV/1")"
		fi
	fi
	if [ "$cname" = corrupt ] && [ "$PAIR_ROLE" = a ]; then
		echo "# rdma_rxe logged $(kmsg_since_mark | grep -c 'bad ICRC') 'bad ICRC' lines"
	fi
done
pair_barrier finished 300
pair_unload
pair_neigh_unpin
ktap_finish
