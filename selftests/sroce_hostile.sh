#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile packets from the wire: each kind of malformed RoCEv2 packet is
# dropped and counted under its reason (the counter grows by exactly the
# number sent), nothing else happens, and the device still moves data.
#
# The packets come from a second network namespace over a veth pair, so
# that they arrive on the device's netdev as packets from the wire do.
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

N=${SROCE_HOSTILE_COUNT:-200}
ADDR=2001:db8:6::1
PEER=2001:db8:6::2
NS=sroce_peer
# kind -> counter that must account for it
CASES="runt:drop_length bad_pad:drop_length bad_opcode:drop_opcode
bad_icrc:drop_icrc bad_tver:drop_header unknown_qpn:drop_unknown_qpn
gsi_wrong_type:drop_qp_state"

sroce_reset
sroce_load
ip netns add $NS
ip link add sroce_v1 type veth peer name sroce_v0 netns $NS
ip -6 addr add $ADDR/64 dev sroce_v1 nodad
ip link set sroce_v1 up
ip -n $NS -6 addr add $PEER/64 dev sroce_v0 nodad
ip -n $NS link set sroce_v0 up
rdma link add sroce0 type sroce netdev sroce_v1
GID6=2001:0db8:0006:0000:0000:0000:0000:0001
wait_for "IPv6 GID" 10 sroce_has_rocev2_gid sroce0 $GID6 >/dev/null

ktap_plan $(( $(wc -w <<<"$CASES") + 2 ))
for c in $CASES; do
	kind=${c%%:*} cnt=${c#*:}
	before=$(sroce_counter "$cnt")
	ip netns exec $NS python3 ./roce_inject.py $PEER $ADDR "$kind" "$N"
	# Received packets are counted in softirq: give them a moment.
	expect=$((before + N))
	counted() { [ "$(sroce_counter "$cnt")" = "$expect" ]; }
	ktap_check "$N $kind packets dropped and counted as $cnt" \
		wait_for "$cnt" 5 counted
done
ktap_check "no packet reached a QP: rcvd_pkts is 0" test "$(sroce_counter rcvd_pkts)" = 0

ktap_check "the device still moves data afterwards (ibv_rc_pingpong -c)" \
	sroce_pingpong_ok sroce0 "$(sroce_gid_index sroce0 $GID6)"
rdma statistic show link sroce0/1 | sed 's/^/# /'
rdma link delete sroce0
ip link del sroce_v1
ip netns del $NS
rmmod sroce
ktap_finish
