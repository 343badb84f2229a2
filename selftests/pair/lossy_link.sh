#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bulk RC traffic over a link that loses frames the way a congested
# Ethernet does: scripts/vm-pair.sh --link udp carries each frame in one
# datagram, and the receiving QEMU drops what it cannot take when a burst
# overruns its guest (selftests/pair/run.sh --link udp boots the pair so).
# The lossless link of the rest of the pair suite, with netem's few percent
# of random loss, never showed what this does: go-back-N bursts into a
# receiver that is simply slower than the sender.  With 512 PSNs in flight
# per QP sroce's 1 MiB -q 4 transfers ran for minutes without finishing
# (no counter moved); each run here must finish within its limit.
#
# Phases (drivers switched within the boot): sroce on both guests, then
# rdma_rxe on A against sroce on B, sroce as server and as client (these
# with sroce's loss-adaptive send window, the default; a window cut below
# the ACK-request interval once left every -q 4 WRITE and SEND waiting
# for the transport timer until the retries ran out), then sroce on both
# with the fixed window (adaptive_window=0, a variant as pair_use takes
# it).
# Tools:
#   ib_send_bw and ib_write_bw, 1 MiB, -q 4; ib_read_bw, 64 KiB, -q 4
#   (every WQE must complete successfully, the result row must be there);
#   ibv_rc_pingpong -c, 1 MiB SENDs, every received buffer checked.
# Guest A prints one TAP result per run, "lossy CLIENT-client_SERVER-server
# TOOL"; both guests check per phase that their device's error counters
# (pair_lib.sh's list: retries exhausted, send errors, malformed packets)
# stayed at zero, and print what the loss cost (the counters that moved:
# packets sent, sequence errors, NAKs, retries) as a figure.
#
# Environment: SROCE_PAIR_LIMIT  limit for one run, s (120)
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./lib/pair_lib.sh

PAIR_LIMIT=${SROCE_PAIR_LIMIT:-120}
PAIR_PORT=21900
TOOLS="send_bw write_bw read_bw rc_pingpong"
PHASES=("sroce sroce" "rxe sroce"
	"sroce:adaptive_window=0 sroce:adaptive_window=0")

tool_cmd() {
	local tool=$1 side=$2 port=$5 gidx
	gidx=$(pair_gid_index 4)
	READY=tcp
	case $tool in
	send_bw|write_bw)
		CMD=(ib_$tool -d "$PAIR_DEV" -x "$gidx" -F -p "$port" -s 1048576 -q 4 -n 10) ;;
	read_bw)
		CMD=(ib_read_bw -d "$PAIR_DEV" -x "$gidx" -F -p "$port" -s 65536 -q 4 -n 50) ;;
	rc_pingpong)
		# qp_linger.so: the QP answers a retransmission for 3 s after
		# the tool is done, as the last ACK may be lost.
		CMD=("$PWD/with_linger.sh" 3
		     ibv_rc_pingpong -d "$PAIR_DEV" -g "$gidx" -p "$port" -n 10 -c -s 1048576 -m 1024) ;;
	esac
	[ "$side" = client ] && CMD+=("$SROCE_PEER_IP")
}

check_output() {
	local tool=$1 side=$2 log=$3 size
	case $tool in
	rc_pingpong)
		grep -q 'iters in' "$log" || { echo "$side: no 'iters in' line"; return 1; }
		! grep -q 'invalid data' "$log" || { echo "$side: invalid data"; return 1; } ;;
	*)
		[ "$side" = client ] || return 0
		size=$([ "$tool" = read_bw ] && echo 65536 || echo 1048576)
		awk -v s=$size '$1 == s && $2 ~ /^[0-9]+$/ && NF >= 5 { f = 1 } END { exit !f }' "$log" ||
			{ echo "client: no result row for $size bytes"; return 1; } ;;
	esac
}

# phase_dirs A B: whose server each tool runs on (one direction when
# both guests run the same driver, both directions otherwise).
phase_dirs() {
	if [ "$1" = "$2" ]; then echo b; else echo b a; fi
}

ntools=$(wc -w <<<"$TOOLS")
plan=0
for p in "${PHASES[@]}"; do
	plan=$((plan + 2))	# driver up, error counters
	# A's results: each tool in each direction
	[ "$PAIR_ROLE" = a ] && plan=$((plan + ntools * $(phase_dirs $p | wc -w)))
done
ktap_plan $plan
pair_barrier start 300
for p in "${PHASES[@]}"; do
	pair_phase "$p" lossy
	phase=$PHASE da=$PHASE_A db=$PHASE_B
	pair_counters_mark
	phase_before=$COUNTERS_BEFORE	# each run marks its own
	pair_barrier "$phase.up" 300
	dirs=$(phase_dirs "$da" "$db")
	for tool in $TOOLS; do
		for srv in $dirs; do
			if [ $srv = a ]; then names=$db-client_$da-server
			else names=$da-client_$db-server; fi
			pair_combination "lossy $names $tool" "$srv" "$tool" 4 1500
		done
	done
	pair_barrier "$phase.done" 300
	bad=$(pair_err_counters | awk '$2 != 0')
	if [ -z "$bad" ]; then
		ktap_ok "lossy $phase: guest $PAIR_ROLE $PAIR_DEV error counters stay zero"
	else
		ktap_fail "lossy $phase: guest $PAIR_ROLE $PAIR_DEV error counters stay zero" "$bad"
	fi
	COUNTERS_BEFORE=$phase_before
	echo "# lossy $phase: guest $PAIR_ROLE $PAIR_DEV counters: $(counters_delta)"
done
pair_barrier finished 300
pair_unload
ktap_finish
