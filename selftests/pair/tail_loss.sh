#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A message's last packet lost, with nothing after it: guest B drops every
# fourth RC SEND LAST it receives (a tc u32 filter on eth0 ingress, BTH
# opcode 0x02, gact's deterministic "every 4th"), while sroce on A plays
# ibv_rc_pingpong with 64 KiB SENDs.  The pingpong sends one message and
# waits for the peer's, so no later packet makes the responder see the
# gap and NAK: only the requester's own timer can recover.  With the tail
# probe (tail_probe=1, the default) sroce resends the last packet a
# quarter of the transport timeout after the last ACK, the responder takes
# it (the filter passes the next three), and the transport timeout never
# fires; without it (tail_probe=0) each drop costs one timeout.
#
# Phases (A's driver, B's driver): sroce against rdma_rxe, sroce against
# sroce, sroce without the probe against rdma_rxe.  In each, one run of
# ibv_rc_pingpong -c (every received buffer checked), A the client.
# Guest B asserts that its filter dropped packets and tells A how many;
# guest A asserts its counters against that number: with the probe,
# tail_probe grew by at least as many and completer_retry_err by fewer
# (every drop recovered without a timeout, but for an emulated guest
# stalling past one now and then); without it, completer_retry_err grew
# by at least as many and tail_probe not at all.  No QP ran out of
# retries.
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./lib/pair_lib.sh

PAIR_LIMIT=${SROCE_PAIR_LIMIT:-120}
PAIR_PORT=23900
DROP_EVERY=4
PHASES=("sroce rxe" "sroce sroce" "sroce:tail_probe=0 rxe")

tool_cmd() {
	READY=tcp
	pair_pingpong_cmd "$2" "$5" 40 65536
}

check_output() {
	pair_pingpong_check "$2" "$3"
}

# B: drop every DROP_EVERY-th RC SEND LAST (BTH opcode 0x02) that
# reaches this guest.
tail_drop_on() {
	pair_bth_filter ingress 0x02 pass random determ drop $DROP_EVERY
}

nphases=${#PHASES[@]}
if [ "$PAIR_ROLE" = a ]; then
	plan=$((nphases * 5))	# driver up, the run, three counters
else
	plan=$((nphases * 3))	# driver up, filter in place, packets dropped
fi
ktap_plan $plan
modprobe -q cls_u32 act_gact sch_ingress 2>/dev/null
pair_barrier start 300
for p in "${PHASES[@]}"; do
	pair_phase "$p" tail
	phase=$PHASE
	[ "$PAIR_ROLE" = b ] &&
		ktap_check "tail $phase: guest b drops every ${DROP_EVERY}th SEND LAST" \
			tail_drop_on
	pair_barrier "$phase.up" 300
	[ "$PAIR_ROLE" = a ] && pair_counters_mark && phase_before=$COUNTERS_BEFORE
	pair_combination "tail $phase: $PHASE_A-client_$PHASE_B-server rc_pingpong 64KiB" \
		b rc_pingpong 4 1500
	if [ "$PAIR_ROLE" = b ]; then
		dropped=$(pair_bth_filter_drops ingress)
		pair_bth_filter_off
		pair_put "$phase.dropped" "${dropped:-0}"
		if [ "${dropped:-0}" -ge 1 ]; then
			ktap_ok "tail $phase: guest b dropped $dropped SEND LAST packets"
		else
			ktap_fail "tail $phase: guest b dropped SEND LAST packets" \
				"dropped ${dropped:-none}"
		fi
	else
		dropped=$(pair_get "$phase.dropped" 120) || dropped=0
		COUNTERS_BEFORE=$phase_before
		echo "# tail $phase: B dropped $dropped; A $PAIR_DEV counters: $(counters_delta)"
		if [ "${PHASE_A#*tail_probe=0}" = "$PHASE_A" ]; then
			pair_counter_check "tail $phase: A probed each tail lost" \
				tail_probe "$dropped"
			pair_counter_check "tail $phase: fewer timeouts than tails lost" \
				completer_retry_err 0 $((dropped - 1))
		else
			pair_counter_check "tail $phase: A's timer fired for each tail lost" \
				completer_retry_err "$dropped"
			pair_counter_check "tail $phase: no probe when off" \
				tail_probe 0 0
		fi
		pair_counter_check "tail $phase: no QP on A ran out of retries" \
			retry_exceeded_err 0 0
	fi
	pair_barrier "$phase.done" 300
done
pair_barrier finished 300
pair_unload
ktap_finish
