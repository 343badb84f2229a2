#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's ibv_*_pingpong over an sroce device, server and client in the
# same guest (the loopback path), over an IPv4 and an IPv6 RoCEv2 GID.
# Each pingpong checks its own data when run with -c.
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

ITERS=${SROCE_PINGPONG_ITERS:-200}
# one pingpong's limit, s: the debug kernels (SROCE_TIMEOUT_SCALE=3) need
# more; the first on the PREEMPT_RT one took over 60 s
LIMIT=$((60 * ${SROCE_TIMEOUT_SCALE:-1}))
PROGS="ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong"

gid4=0000:0000:0000:0000:0000:ffff:c000:0201
gid6=2001:0db8:0005:0000:0000:0000:0000:0001
sroce_eth0_up "" 2001:db8:5::1/64
wait_for "IPv6 GID" 10 sroce_has_rocev2_gid sroce0 $gid6 >/dev/null

gid_index() {
	sroce_gid_index sroce0 "$1"
}

# pingpong PROG GIDX PORT: server in the background, client in front.
pingpong() {
	local prog=$1 gidx=$2 port=$3 extra=() slog clog spid
	[ "$prog" = ibv_ud_pingpong ] && extra=(-s 1024)
	slog=$(mktemp) clog=$(mktemp)
	timeout "$LIMIT" "$prog" -d sroce0 -g "$gidx" -p "$port" -n "$ITERS" -c "${extra[@]}" >"$slog" 2>&1 &
	spid=$!
	sroce_wait_listen "$port"
	timeout "$LIMIT" "$prog" -d sroce0 -g "$gidx" -p "$port" -n "$ITERS" -c "${extra[@]}" 127.0.0.1 >"$clog" 2>&1
	local crc=$?
	wait "$spid"
	local src=$?
	sed 's/^/# client: /' "$clog"
	sed 's/^/# server: /' "$slog"
	rm -f "$slog" "$clog"
	[ "$crc" = 0 ] && [ "$src" = 0 ]
}

count=$(( $(wc -w <<<"$PROGS") * 2 ))
ktap_plan $((count + 1))
port=18515
for gid in $gid4 $gid6; do
	idx=$(gid_index $gid)
	for prog in $PROGS; do
		port=$((port + 1))
		ktap_check "$prog over GID $idx ($gid)" pingpong "$prog" "$idx" "$port"
	done
done
rdma statistic show link sroce0/1 | sed 's/^/# /'
rdma link delete sroce0
ip -6 addr del 2001:db8:5::1/64 dev eth0
ktap_check "module unloads after traffic" rmmod sroce
ktap_finish
