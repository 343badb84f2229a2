#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A link that stops moving packets must not hold up teardown. RoCE packets
# to a peer namespace are parked in a qdisc that lets almost nothing
# through (tbf at 8 bit/s, for UDP port 4791 only; the pingpong tools'
# TCP handshake passes), while the peer answers the handshake with a fake
# QP. Then, with the packets still parked:
#   - an RC and a UD client, killed with SIGKILL, go away (destroying
#     their QPs does not wait for the parked packets);
#   - rdma link delete and rmmod sroce return;
#   - the parked packets are freed only afterwards, by deleting the qdisc,
#     with sroce unloaded (the harness checks the kernel log);
#   - sroce loads again and moves data.
# Before transmit flow control charged packets to a per-QP socket, a QP
# waited for every packet the stack still held, for ever on a stalled NIC.
set -u
cd "$(dirname "$0")" && . ./lib.sh && . ./sroce_lib.sh

NS=sroce_stall
ADDR=10.91.0.1
PEER=10.91.0.2
GID4=0000:0000:0000:0000:0000:ffff:0a5b:0001
PEER_WIRE_GID=00000000000000000000ffff0a5b0002
work=$(mktemp -d)

# Parked RoCE packets (the tbf class's backlog).
parked() {
	tc -s qdisc show dev sroce_s1 parent 1:1 |
		awk '/backlog/ { sub(/p$/, "", $3); print $3 + 0; exit }'
}
some_parked() { [ "$(parked)" -gt 0 ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }

# The peer's half of the pingpong handshake: read the client's
# "LID:QPN:PSN:GID", answer with a QP that nobody will ever run.
fake_server() {
	ip netns exec $NS python3 - "$PEER" "$1" "$PEER_WIRE_GID" <<-'EOF'
		import socket, sys
		addr, port, gid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
		s = socket.socket()
		s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
		s.bind((addr, port)); s.listen(1)
		c, _ = s.accept()
		c.recv(52)
		c.sendall(("0000:000123:000000:%s" % gid).encode() + b"\0")
		c.recv(16)
		c.close()
	EOF
}

sroce_reset
sroce_load
ip netns add $NS
ip link add sroce_s1 type veth peer name sroce_s0 netns $NS
ip addr add $ADDR/24 dev sroce_s1
ip link set sroce_s1 up
ip -n $NS addr add $PEER/24 dev sroce_s0
ip -n $NS link set sroce_s0 up
ip -n $NS link set lo up
ip neigh replace $PEER lladdr "$(ip -n $NS -br link show sroce_s0 | awk '{print $3}')" \
	dev sroce_s1 nud permanent
# Everything in band 2, except RoCE (UDP 4791) in band 1: 8 bit/s.
tc qdisc add dev sroce_s1 root handle 1: prio bands 2 priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
tc qdisc add dev sroce_s1 parent 1:1 handle 10: tbf rate 8bit burst 1600 limit 4000000
tc filter add dev sroce_s1 parent 1: protocol ip u32 match ip protocol 17 0xff \
	match ip dport 4791 0xffff flowid 1:1
rdma link add sroce0 type sroce netdev sroce_s1
wait_for "IPv4 GID" 10 sroce_has_rocev2_gid sroce0 $GID4 >/dev/null
idx=$(sroce_gid_index sroce0 $GID4)
baseline=$(sroce_res_counts sroce0)

ktap_plan 9

fake_server 18515 &
fpid=$!
sleep 1
ibv_rc_pingpong -d sroce0 -g "$idx" -s 4096 -n 100000 $PEER >"$work/rc.out" 2>&1 &
rcpid=$!
ktap_check "RC packets parked in the stalled qdisc" wait_for "parked" 30 some_parked
# The engine's state as "rdma -dd resource show qp" prints it
# (restrack.c): the RC QP has sent packets nobody acknowledged.
engine_state() {
	rdma -dd resource show qp link sroce0/1 2>/dev/null | tr '\n' ' ' |
		grep -Eo '(req_psn|comp_psn|retry_timer|tx_throttled) [0-9]+' | tr '\n' ' '
}
rc_unacked() {
	local st req comp
	st=$(engine_state)
	req=$(sed -n 's/.*req_psn \([0-9]*\).*/\1/p' <<<"$st")
	comp=$(sed -n 's/.*comp_psn \([0-9]*\).*/\1/p' <<<"$st")
	[ -n "$req" ] && [ -n "$comp" ] && [ "$req" != "$comp" ]
}
ktap_check "rdma -dd resource show qp: the RC QP's packets are unacknowledged (req_psn != comp_psn)" \
	wait_for "engine state" 10 rc_unacked
echo "# engine state: $(engine_state)"
# ibv_rc_pingpong asks for retry_cnt 7 and timeout 14: it would give up
# by itself after seven retries and sroce's retry_floor_ms (4 s); killed
# before that, with packets parked.
kill -9 $rcpid
ktap_check "the killed RC client went away (QP destroyed)" wait_for "rc exit" 20 gone $rcpid
wait $rcpid 2>/dev/null
wait $fpid 2>/dev/null

fake_server 18516 &
fpid=$!
sleep 1
before=$(parked)
ibv_ud_pingpong -d sroce0 -g "$idx" -p 18516 -s 1024 -n 100000 $PEER >"$work/ud.out" 2>&1 &
udpid=$!
more_parked() { [ "$(parked)" -gt "$before" ]; }
ktap_check "UD packets parked as well" wait_for "ud parked" 30 more_parked
kill -9 $udpid
ktap_check "the killed UD client went away (QP destroyed)" wait_for "ud exit" 20 gone $udpid
wait $udpid 2>/dev/null
wait $fpid 2>/dev/null
echo "# packets parked: $(parked)"

counts_back() { [ "$(sroce_res_counts sroce0)" = "$baseline" ]; }
ktap_check "object counts back to '$baseline'" wait_for "objects" 10 counts_back
unload_while_parked() {
	timeout 30 rdma link delete sroce0 && timeout 30 rmmod sroce && some_parked
}
ktap_check "rdma link delete and rmmod return with packets parked" \
	unload_while_parked
# Free the parked packets now, with sroce gone.
tc qdisc del dev sroce_s1 root
ktap_check "the parked packets are freed after sroce is gone" \
	bash -c "[ -z \"\$(tc -s qdisc show dev sroce_s1 parent 1:1)\" ]"
sroce_load
rdma link add sroce0 type sroce netdev eth0
wait_for "IPv4 GID" 10 sroce_has_rocev2_gid sroce0 0000:0000:0000:0000:0000:ffff:c000:0201 >/dev/null
ktap_check "sroce loads again and moves data (ibv_rc_pingpong -c)" \
	sroce_pingpong_ok sroce0 "$(sroce_gid_index sroce0 0000:0000:0000:0000:0000:ffff:c000:0201)"
rdma link delete sroce0
ip link del sroce_s1
ip netns del $NS
rmmod sroce
rm -rf "$work"
ktap_finish
