#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The route cache of RC flows (net.c, txflow.c): an RC QP's IPv4 packets
# take the route its flow cached instead of a FIB lookup each, and look
# it up again once the routing tables change. Server and client QPs are
# on one device but on two IPv4 addresses of eth0 (192.0.2.1 and
# 192.0.2.77), so their packets are routed (to lo, this host's own
# address) rather than looped back unrouted as a QP talking to its own
# address is. The device's route_lookups counter shows each FIB lookup.
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

ITERS=2000

ktap_plan 10

sroce_reset
sroce_load
sroce_two_addresses_up

# one pingpong's limit, s, scaled for the debug kernels as elsewhere
LIMIT=$((120 * ${SROCE_TIMEOUT_SCALE:-1}))

# pingpong ITERS [PORT]: an ibv_rc_pingpong -c exchange, server on the
# first address, client on the second; the client's pid in CPID while it
# runs (PINGPONG_BG=1 leaves it running, pingpong_wait reaps both).
pingpong() {
	local port=${2:-18515}
	timeout "$LIMIT" ibv_rc_pingpong -d sroce0 -g "$IDX1" -p "$port" -n "$1" -c \
		>/tmp/route.s 2>&1 &
	SPID=$!
	sroce_wait_listen "$port"
	timeout "$LIMIT" ibv_rc_pingpong -d sroce0 -g "$IDX2" -p "$port" -n "$1" -c \
		127.0.0.1 >/tmp/route.c 2>&1 &
	CPID=$!
	[ "${PINGPONG_BG:-0}" = 1 ] || pingpong_wait
}

pingpong_wait() {
	local crc src
	wait "$CPID"
	crc=$?
	wait "$SPID"
	src=$?
	sed 's/^/# client: /' /tmp/route.c | tail -n 3
	sed 's/^/# server: /' /tmp/route.s | tail -n 3
	[ "$crc" = 0 ] && [ "$src" = 0 ]
}

# 1. Cached: one lookup per flow (server to client, client to server).
counters_mark
ktap_check "RC pingpong between the two addresses" pingpong $ITERS 18516
sent=$(counter_delta sent_pkts) lookups=$(counter_delta route_lookups)
ktap_diag "sent_pkts +$sent, route_lookups +$lookups"
ktap_check "packets sent: at least one per message ($sent >= $((2 * ITERS)))" \
	test "$sent" -ge $((2 * ITERS))
ktap_check "route cached: 2-4 lookups for $sent packets (got $lookups)" \
	bash -c "[ $lookups -ge 2 ] && [ $lookups -le 4 ]"

# 2. Routing tables changing under a running exchange: each change makes
# the cached route obsolete, the next packet looks it up again, and the
# exchange goes on. 30,000 round trips outlast the ten changes (about 5 s)
# many times over and stay inside pingpong's LIMIT on a loaded host.
counters_mark
PINGPONG_BG=1 pingpong 30000 18517
changes=0
while kill -0 "$CPID" 2>/dev/null && ((changes < 10)); do
	sleep 0.3
	ip route add 203.0.113.0/24 dev eth0 && ip route del 203.0.113.0/24 dev eth0 &&
		changes=$((changes + 1))
done
ktap_check "pingpong across $changes route changes" pingpong_wait
sent=$(counter_delta sent_pkts) lookups=$(counter_delta route_lookups)
ktap_diag "route changes: $changes, sent_pkts +$sent, route_lookups +$lookups"
ktap_check "the exchange outlasted the changes (10 made: $changes)" test "$changes" = 10
ktap_check "looked up again after changes ($lookups > 2) but not per packet ($lookups <= $((2 + 4 * changes)))" \
	bash -c "[ $lookups -gt 2 ] && [ $lookups -le $((2 + 4 * changes)) ]"

# 3. Cache off (module parameter): every packet is looked up.
echo 0 >/sys/module/sroce/parameters/route_cache
counters_mark
ktap_check "RC pingpong with route_cache=0" pingpong $ITERS 18518
sent=$(counter_delta sent_pkts) lookups=$(counter_delta route_lookups)
ktap_diag "route_cache=0: sent_pkts +$sent, route_lookups +$lookups"
ktap_check "route_cache=0: one lookup per packet ($lookups = $sent)" \
	bash -c "[ $sent -ge $((2 * ITERS)) ] && [ $lookups = $sent ]"
echo 1 >/sys/module/sroce/parameters/route_cache

rm -f /tmp/route.s /tmp/route.c
sroce_two_addresses_down
ktap_check "module unloads after traffic" rmmod sroce
ktap_finish
