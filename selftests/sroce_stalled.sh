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
# Before transmit flow control charged packets to a socket (txflow.c), a QP
# waited for every packet the stack still held, for ever on a stalled NIC.
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

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
# The fake server listens on TCP port $1 in the peer namespace (python's
# start-up takes seconds on a debug kernel: a fixed sleep raced it).
peer_listening() {
	ip netns exec $NS ss -Hltn "sport = :$1" | grep -q .
}

# The peer's half of the pingpong handshake: read the client's
# "LID:QPN:PSN:GID", answer with a QP that nobody will ever run.
fake_server() {
	ip netns exec $NS python3 - "$PEER" "$1" "$PEER_WIRE_GID" <<-'EOF'
		import socket, sys
		addr, port, gid = sys.argv[1], int(sys.argv[2]), sys.argv[3]
		s = socket.socket()
		s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
		s.bind((addr, port)); s.listen(1)
		s.settimeout(120)	# never outlive a client that did not come
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
declare idx
sroce_wait_gid idx sroce0 $GID4
baseline=$(sroce_res_counts sroce0)

ktap_plan 9

# ibv_rc_pingpong asks for retry_cnt 7 and timeout 14: with sroce's
# 4 s retry floor its QP would give up after about 32 s, which the checks
# below can outlast on a debug kernel; a 60 s floor keeps it waiting.
echo 60000 >/sys/module/sroce/parameters/retry_floor_ms
fake_server 18515 &
fpid=$!
wait_for "fake server" 60 peer_listening 18515
ibv_rc_pingpong -d sroce0 -g "$idx" -s 4096 -n 100000 $PEER >"$work/rc.out" 2>&1 &
rcpid=$!
ktap_check "RC packets parked in the stalled qdisc" wait_for "parked" 30 some_parked
some_parked || sed 's/^/# rc client: /' "$work/rc.out"
# The engine's state as "rdma -dd resource show qp" prints it
# (restrack.c): the RC QP's send is outstanding (its WQE is not complete)
# and its transport timer runs. Not req_psn != comp_psn: every timeout
# goes back to comp_psn, and a QP whose transmit budget the parked packets
# hold cannot send again, so the two can be equal while it waits.
engine_state() {
	rdma -dd resource show qp link sroce0/1 2>/dev/null | tr '\n' ' ' |
		sed 's/link /\nlink /g' | grep 'type RC' |
		grep -Eo '(sq_cons|sq_prod|req_psn|comp_psn|retry_timer|tx_throttled) [0-9]+' |
		tr '\n' ' '
}
engine_field() {
	sed -n "s/.*$1 \([0-9]*\).*/\1/p" <<<"$2"
}
rc_unacked() {
	local st cons prod
	st=$(engine_state)
	cons=$(engine_field sq_cons "$st")
	prod=$(engine_field sq_prod "$st")
	[ -n "$cons" ] && [ -n "$prod" ] && [ "$cons" != "$prod" ] &&
		[ "$(engine_field retry_timer "$st")" = 1 ]
}
ktap_check "rdma -dd resource show qp: the RC QP's send is outstanding, its transport timer armed" \
	wait_for "engine state" 10 rc_unacked
echo "# engine state: $(engine_state)"
# Killed while its packets are parked and its QP still waits for them.
kill -9 $rcpid
ktap_check "the killed RC client went away (QP destroyed)" wait_for "rc exit" 20 gone $rcpid
wait $rcpid 2>/dev/null
wait $fpid 2>/dev/null

fake_server 18516 &
fpid=$!
wait_for "fake server" 60 peer_listening 18516
before=$(parked)
ibv_ud_pingpong -d sroce0 -g "$idx" -p 18516 -s 1024 -n 100000 $PEER >"$work/ud.out" 2>&1 &
udpid=$!
more_parked() { [ "$(parked)" -gt "$before" ]; }
ktap_check "UD packets parked as well" wait_for "ud parked" 30 more_parked
more_parked || sed 's/^/# ud client: /' "$work/ud.out"
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
