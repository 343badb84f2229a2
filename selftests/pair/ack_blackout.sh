#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The requester after its ACKs were lost: sroce on A sends, and guest B
# drops every RC ACKNOWLEDGE it sends (a tc u32 filter on eth0 egress,
# BTH opcode 0x11) until 8 were dropped (or 2 s passed since the first),
# then lets them through again.
# Without ACKs A's first window (128 PSNs, ACK requests at 31, 63, 95 and
# 127) goes unanswered (so does the tail probe, PSN 127 again, a quarter
# of a timeout later), its transport timer fires, the adaptive window is
# cut to 64, and A resends PSNs 0-63 only (its resend ACK requests, or
# sroce's ACK of every duplicate, make the 8).  B, which has 0-127,
# answers the duplicates with an ACK for 127: past A's resend position.
# A must take it (the highest PSN sent is 127) and carry on; a completer
# that checked responses against the resend position dropped it as a
# response to a PSN never sent, resent 0-63 at every timeout and failed
# with IB_WC_RETRY_EXC_ERR (5% random loss against rdma_rxe showed it,
# now this shows it every time).  The same with the fixed window
# (adaptive_window=0), which resends the whole window.
#
# Phases (A's driver, B's driver): sroce against rdma_rxe, sroce against
# sroce, fixed-window sroce against rdma_rxe.  In each, one run of
# ibv_rc_pingpong -c with 1 MiB SENDs (every received buffer checked), A
# the client.  Guest A prints the run's TAP result and asserts its own
# counters: the transport timer fired (completer_retry_err), no QP ran
# out of retries (retry_exceeded_err), and with the adaptive window that
# it was cut (window_cut); guest B asserts that its filter dropped the 8
# ACKs.
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./lib/pair_lib.sh

PAIR_LIMIT=${SROCE_PAIR_LIMIT:-120}
PAIR_PORT=22900
BLACKOUT_ACKS=8
PHASES=("sroce rxe" "sroce sroce" "sroce:adaptive_window=0 rxe")

tool_cmd() {
	READY=tcp
	pair_pingpong_cmd "$2" "$5" 3 1048576
}

check_output() {
	pair_pingpong_check "$2" "$3"
}

# B: drop the RC ACKs (BTH opcode 0x11) this guest sends.
blackout_on() {
	pair_bth_filter egress 0x11 drop
}

# B, in the background: lift the blackout once BLACKOUT_ACKS were dropped,
# but no later than 2 s after it saw the first (A gives up 4 s after its
# first timeout; under TCG one look at the filter, a run of tc, takes long
# enough for several of A's timeouts, each of which has dozens of ACKs
# dropped); leaves the count and the ms from the first drop seen in $1.
# Gives up waiting for a first drop after 60 s.
blackout_watch() {
	local out=$1 n t0 now=0 first=
	t0=$(_ktap_usec "$EPOCHREALTIME")
	while :; do
		n=$(pair_bth_filter_drops egress)
		now=$(_ktap_usec "$EPOCHREALTIME")
		[ "${n:-0}" -ge 1 ] && [ -z "$first" ] && first=$now
		[ "${n:-0}" -ge $BLACKOUT_ACKS ] && break
		[ -n "$first" ] && ((now - first > 2000000)) && break
		[ -z "$first" ] && ((now - t0 > 60000000)) && break
		sleep 0.02
	done
	echo "${n:-0} $(( (now - ${first:-$now}) / 1000 ))" >"$out"
	pair_bth_filter_off
}

nphases=${#PHASES[@]}
if [ "$PAIR_ROLE" = a ]; then
	# driver up, the run, timer fired, no retries exhausted; window cut
	# in the adaptive phases
	plan=$((nphases * 4 + $(printf '%s\n' "${PHASES[@]}" | grep -vc adaptive_window=0)))
else
	plan=$((nphases * 3))	# driver up, filter in place, ACKs dropped
fi
ktap_plan $plan
modprobe -q cls_u32 act_gact sch_ingress 2>/dev/null
pair_barrier start 300
for p in "${PHASES[@]}"; do
	pair_phase "$p" blackout
	phase=$PHASE
	if [ "$PAIR_ROLE" = b ]; then
		watch_out=$(mktemp)
		ktap_check "blackout $phase: guest b drops its RC ACKs" blackout_on
		blackout_watch "$watch_out" &
		watch_pid=$!
	fi
	pair_barrier "$phase.up" 300
	[ "$PAIR_ROLE" = a ] && pair_counters_mark && phase_before=$COUNTERS_BEFORE
	pair_combination "blackout $phase: $PHASE_A-client_$PHASE_B-server rc_pingpong 1MiB" \
		b rc_pingpong 4 1500
	if [ "$PAIR_ROLE" = b ]; then
		wait "$watch_pid"
		read -r dropped ms <"$watch_out"
		rm -f "$watch_out"
		if [ "$dropped" -ge $BLACKOUT_ACKS ]; then
			ktap_ok "blackout $phase: guest b dropped $dropped RC ACKs"
		else
			ktap_fail "blackout $phase: guest b dropped $BLACKOUT_ACKS RC ACKs" \
				"dropped $dropped, lifted $ms ms after the first seen"
		fi
	else
		COUNTERS_BEFORE=$phase_before
		echo "# blackout $phase: guest a $PAIR_DEV counters: $(counters_delta)"
		pair_counter_check "blackout $phase: A's transport timer fired" \
			completer_retry_err 1
		pair_counter_check "blackout $phase: no QP on A ran out of retries" \
			retry_exceeded_err 0 0
		[ "${PHASE_A#*adaptive_window=0}" = "$PHASE_A" ] &&
			pair_counter_check "blackout $phase: A's send window was cut" \
				window_cut 1
	fi
	pair_barrier "$phase.done" 300
done
pair_barrier finished 300
pair_unload
ktap_finish
