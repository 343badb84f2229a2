#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Packet fuzzing of a live device: selftests/roce_fuzz.py sends
# SROCE_FUZZ_COUNT (100000) hostile RoCEv2 packets from a peer namespace
# over veth at the QPs (RC in every state, RC and UC and UD with and
# without SRQ) and MRs (writable, remote-read-only, deregistered) that
# selftests/sroce_fuzz_target keeps alive, bringing QPs that fall into the
# error state back to RTS as it goes.  Then:
#   - every packet sent is accounted for: rcvd_pkts plus the drop_*
#     counters grew by exactly the number sent;
#   - no byte outside the writable MRs changed (canary pages around every
#     buffer, the whole read-only MR, the deregistered MR's buffer);
#   - the object counts are back where they were; the device still moves
#     data; the kernel log is clean (the harness checks it).
# SROCE_FUZZ_SEED picks the packets (default: a new seed each run, printed,
# so that a failure can be replayed).
# sroce-timeout: 900
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

COUNT=${SROCE_FUZZ_COUNT:-100000}
SEED=${SROCE_FUZZ_SEED:-$(printf '%#x' $((RANDOM << 15 | RANDOM)))}
ADDR=2001:db8:7::1
PEER=2001:db8:7::2
NS=sroce_fuzz
GID6=2001:0db8:0007:0000:0000:0000:0000:0001
work=$(mktemp -d)
MAP=$work/map DONE=$work/done

# Sum of a list of counters of sroce0/1 ("rcvd_pkts" or "drop_").
counter_sum() {
	rdma statistic show link sroce0/1 | tr ' ' '\n' |
		awk -v pat="$1" 'want { s += $1; want = 0 } $1 ~ pat { want = 1 } END { print s + 0 }'
}
accounted() { echo $(( $(counter_sum '^rcvd_pkts$') + $(counter_sum '^drop_') )); }

sroce_reset
sroce_load
ip netns add $NS
ip link add sroce_f1 type veth peer name sroce_f0 netns $NS
ip -6 addr add $ADDR/64 dev sroce_f1 nodad
ip link set sroce_f1 up
ip -n $NS -6 addr add $PEER/64 dev sroce_f0 nodad
ip -n $NS link set sroce_f0 up
# Permanent neighbour entries both ways: ib_core resolves the peer's MAC
# when the target moves its QPs to RTR and gives up after one second, which
# a busy emulated guest can miss if it has to wait for neighbour discovery.
ip -6 neigh replace $PEER lladdr "$(ip -n $NS -br link show sroce_f0 | awk '{print $3}')" \
	dev sroce_f1 nud permanent
ip -n $NS -6 neigh replace $ADDR lladdr "$(ip -br link show sroce_f1 | awk '{print $3}')" \
	dev sroce_f0 nud permanent
rdma link add sroce0 type sroce netdev sroce_f1
declare idx
sroce_wait_gid idx sroce0 $GID6
baseline=$(sroce_res_counts sroce0)
echo "# seed $SEED (SROCE_FUZZ_SEED=$SEED repeats it), $COUNT packets"

ktap_plan 6
./sroce_fuzz_target sroce0 "$idx" $PEER "$MAP" "$DONE" >"$work/target.out" 2>&1 &
tpid=$!
have_map() { [ -s "$MAP" ]; }
ktap_check "fuzz target set up its QPs and MRs" wait_for "map" 30 have_map
sed 's/^/# target: /' "$MAP"

before=$(accounted)
start=$SECONDS
ip netns exec $NS python3 ./roce_fuzz.py $PEER $ADDR "$MAP" "$COUNT" "$SEED" >"$work/fuzz.out" 2>&1
frc=$?
sed 's/^/# /' "$work/fuzz.out"
echo "# fuzzer ran $((SECONDS - start)) s"
ktap_check "fuzzer sent $COUNT packets" \
	bash -c "[ $frc = 0 ] && grep -q '^sent $COUNT packets' $work/fuzz.out"

all_counted() { [ $(( $(accounted) - before )) = "$COUNT" ]; }
if wait_for "counters" 30 all_counted >/dev/null; then
	ktap_ok "every packet counted: rcvd_pkts + drop_* grew by $COUNT"
else
	ktap_fail "every packet counted: rcvd_pkts + drop_* grew by $COUNT" \
		"grew by $(( $(accounted) - before ))"
fi
rdma statistic show link sroce0/1 | tr ' ' '\n' |
	awk 'want { if ($1 != 0) printf "# %s %s\n", name, $1; want = 0 }
	     /^(rcvd_pkts|drop_|nak_sent|duplicate_request|out_of_seq_request|rkey_violation|send_rnr_err)/ { name = $1; want = 1 }'

touch "$DONE"
wait $tpid
trc=$?
sed 's/^/# target: /' "$work/target.out"
ktap_check "no byte outside the writable MRs changed (canaries, read-only and deregistered MRs)" \
	test "$trc" = 0
counts_back() { [ "$(sroce_res_counts sroce0)" = "$baseline" ]; }
ktap_check "object counts back to '$baseline'" wait_for "objects" 10 counts_back
ktap_check "the device still moves data afterwards (ibv_rc_pingpong -c)" \
	sroce_pingpong_ok sroce0 "$idx"
rdma link delete sroce0
ip link del sroce_f1
ip netns del $NS
rmmod sroce
rm -rf "$work"
ktap_finish
