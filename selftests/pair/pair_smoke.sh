#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The two-guest harness works: run on both guests of scripts/vm-pair.sh.
# The link carries IPv4 and IPv6 between them; then ibv_rc_pingpong -c
# between rdma_rxe on guest A and sroce on guest B, with sroce first as
# server, then as client.
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./lib/pair_lib.sh

ITERS=${SROCE_PAIR_ITERS:-100}

# rc_pingpong ROLE_OF_SERVER PORT: both sides call it; the server side
# listens, the client side waits for its "ready" and connects.
rc_pingpong() {
	local server=$1 port=$2 gidx out
	gidx=$(pair_gid_index 4) || { echo "no IPv4 GID on $PAIR_DEV"; return 1; }
	out=$(mktemp)
	if [ "$PAIR_ROLE" = "$server" ]; then
		timeout 60 ibv_rc_pingpong -d "$PAIR_DEV" -g "$gidx" -p "$port" \
			-n "$ITERS" -c >"$out" 2>&1 &
		local pid=$! rc
		sroce_wait_listen "$port" && pair_put "rcpp.$port" ready
		wait "$pid"
		rc=$?
	else
		pair_get "rcpp.$port" 60 >/dev/null &&
			timeout 60 ibv_rc_pingpong -d "$PAIR_DEV" -g "$gidx" -p "$port" \
				-n "$ITERS" -c "$SROCE_PEER_IP" >"$out" 2>&1
		rc=$?
	fi
	cat "$out"
	rm -f "$out"
	return $rc
}

ktap_plan 5
ktap_check "guest $PAIR_ROLE: link up to the peer" pair_barrier link-up
ktap_check "guest $PAIR_ROLE: IPv4 ping $SROCE_PEER_IP" ping -c 3 -W 5 "$SROCE_PEER_IP"
ktap_check "guest $PAIR_ROLE: IPv6 ping $SROCE_PEER_IP6" ping -6 -c 3 -W 5 "$SROCE_PEER_IP6"
if [ "$PAIR_ROLE" = a ]; then drv=rxe; else drv=sroce; fi
pair_use "$drv" || echo "# could not set up $drv"
pair_barrier drivers-up
ktap_check "guest $PAIR_ROLE ($drv): ibv_rc_pingpong, sroce server" rc_pingpong b 18600
pair_barrier pp1-done
ktap_check "guest $PAIR_ROLE ($drv): ibv_rc_pingpong, sroce client" rc_pingpong a 18601
rdma statistic show link "$PAIR_DEV/1" | sed 's/^/# /'
pair_barrier done
pair_unload
ktap_finish
