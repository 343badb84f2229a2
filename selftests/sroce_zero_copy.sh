#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Payloads by reference (drivers/sroce/payload.c): a packet a device sends
# to itself carries a user payload of 256 bytes or more as page fragments
# of the sender's MR, and the receiver copies from those pages into the
# target. The device's payload_by_ref counter counts such packets.
#   - to itself (one GID): every packet of 64 KiB ibv_rc_pingpong -c
#     messages goes by reference, and the data checks out;
#   - the integrity program's RC SEND, WRITE, READ (the responses go by
#     reference too), mixed, edge-size, MR-IOVA and reset-in-flight tests
#     pass byte for byte, by reference;
#   - between two addresses of the host (routed, through the IP stack and
#     the ICRC) nothing goes by reference;
#   - zero_copy=0 (module parameter): nothing by reference, data intact.
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

PARAM=/sys/module/sroce/parameters/zero_copy
MSG=65536 ITERS=100
# A 64 KiB message is 64 packets at the path MTU of eth0's 1500 (1024);
# both sides send ITERS messages.
PKTS=$((2 * ITERS * MSG / 1024))

ktap_plan 11

sroce_reset
sroce_load
sroce_two_addresses_up
ktap_check "zero_copy is on by default" test "$(cat $PARAM)" = Y

# pingpong SERVER_GID CLIENT_GID PORT: ibv_rc_pingpong -c with 64 KiB
# messages (each side checks every buffer it receives).
pingpong() {
	local spid crc src
	timeout 120 ibv_rc_pingpong -d sroce0 -g "$1" -p "$3" -s $MSG -n $ITERS -c \
		>/tmp/zc.s 2>&1 &
	spid=$!
	sroce_wait_listen "$3"
	timeout 120 ibv_rc_pingpong -d sroce0 -g "$2" -p "$3" -s $MSG -n $ITERS -c \
		127.0.0.1 >/tmp/zc.c 2>&1
	crc=$?
	wait $spid
	src=$?
	sed 's/^/# client: /' /tmp/zc.c | tail -n 2
	sed 's/^/# server: /' /tmp/zc.s | tail -n 2
	[ $crc = 0 ] && [ $src = 0 ]
}

# integrity: the data-integrity program's RC data tests on this device.
integrity() {
	SROCE_DEV=sroce0 SROCE_GID=$IDX1 SROCE_INTEGRITY_ITERS=60 \
	SROCE_INTEGRITY_ONLY=send,send_srq,write,read,mixed,edge_sizes,mr_iova,reset_in_flight \
		./sroce_integrity >/tmp/zc.i 2>&1
	local rc=$?
	grep -E '^(not ok|# Totals)' /tmp/zc.i | sed 's/^/# integrity: /'
	return $rc
}

# 1. To itself, by reference.
counters_mark
ktap_check "to itself: 64 KiB pingpong, data checked" pingpong "$IDX1" "$IDX1" 18601
n=$(counter_delta payload_by_ref) sent=$(counter_delta sent_pkts)
ktap_diag "sent_pkts +$sent, payload_by_ref +$n"
ktap_check "to itself: every data packet by reference ($n >= $PKTS)" test "$n" -ge $PKTS

counters_mark
ktap_check "to itself: integrity SEND/WRITE/READ tests pass" integrity
n=$(counter_delta payload_by_ref)
ktap_diag "integrity: payload_by_ref +$n"
ktap_check "to itself: integrity traffic went by reference (+$n)" test "$n" -gt 0

# 2. Between two addresses: routed, never by reference.
counters_mark
ktap_check "two addresses: 64 KiB pingpong, data checked" pingpong "$IDX1" "$IDX2" 18602
n=$(counter_delta payload_by_ref) sent=$(counter_delta sent_pkts)
ktap_diag "sent_pkts +$sent, payload_by_ref +$n"
ktap_check "two addresses: nothing by reference (+$n of $sent sent)" \
	bash -c "[ $sent -ge $PKTS ] && [ $n = 0 ]"

# 3. Off: copies only.
echo 0 >$PARAM
counters_mark
ktap_check "zero_copy=0: 64 KiB pingpong to itself, data checked" pingpong "$IDX1" "$IDX1" 18603
n=$(counter_delta payload_by_ref) sent=$(counter_delta sent_pkts)
ktap_diag "sent_pkts +$sent, payload_by_ref +$n"
ktap_check "zero_copy=0: nothing by reference (+$n of $sent sent)" \
	bash -c "[ $sent -ge $PKTS ] && [ $n = 0 ]"
echo 1 >$PARAM

rm -f /tmp/zc.s /tmp/zc.c /tmp/zc.i
sroce_two_addresses_down
ktap_check "module unloads after traffic" rmmod sroce
ktap_finish
