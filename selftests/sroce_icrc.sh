#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ICRC's CRC-32 implementation, chosen at load (drivers/sroce/crc.c):
#   - icrc=bogus is refused: the load fails, nothing stays loaded, the
#     kernel log names the parameter;
#   - with each of icrc=crypto, icrc=crc32_le and icrc=auto the module
#     loads, /sys/module/sroce/parameters/icrc names the implementation in
#     use (the forced one; for auto one of the two), the kernel log says
#     the same, and sroce holds a reference on the crypto "crc32" driver's
#     module (given back at unload) exactly when it uses it;
#   - under each, the ICRCs are right: packets with ICRCs computed by
#     icrc_inject.py (Python's zlib, none of sroce's code), with payloads
#     of 16 B to a full frame, sent from a peer namespace over veth to an
#     unknown QPN are all dropped as such and none for its ICRC, and the
#     same packets with one ICRC bit flipped are all dropped for their
#     ICRC; and RC pingpongs of 4 KiB and 60 B messages between two
#     addresses of the device (routed, so every packet carries an ICRC
#     the receiving side checks) move data ibv_rc_pingpong -c checks,
#     with no packet dropped for its ICRC.
# sroce-timeout: 600
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

PARAM=/sys/module/sroce/parameters/icrc
# crypto first: its load brings in the crypto crc32 drivers whose module
# references the later cases watch
IMPLS="crypto crc32_le auto"
ITERS=${SROCE_ICRC_ITERS:-40}
N=${SROCE_ICRC_INJECT:-20}
SIZES="16 64 200 1024 1432"	# 1432: 1500-byte IPv6 frames
LIMIT=$((120 * ${SROCE_TIMEOUT_SCALE:-1}))
NS=sroce_icrc_peer
ADDR=2001:db8:7::1 ADDR2=2001:db8:7::3 PEER=2001:db8:7::2
GID1=2001:0db8:0007:0000:0000:0000:0000:0001
GID2=2001:0db8:0007:0000:0000:0000:0000:0003
TMP=/tmp/sroce_icrc

ktap_plan $((3 + 11 * $(wc -w <<<"$IMPLS")))

sroce_reset
modprobe ib_uverbs && modprobe rdma_ucm
ip netns add $NS
ip link add sroce_v1 type veth peer name sroce_v0 netns $NS
ip -6 addr add $ADDR/64 dev sroce_v1 nodad
ip -6 addr add $ADDR2/64 dev sroce_v1 nodad
ip link set sroce_v1 up
ip -n $NS -6 addr add $PEER/64 dev sroce_v0 nodad
ip -n $NS link set sroce_v0 up

bad_value_logged() {
	kmsg_since_mark | grep -q "bogus' invalid for parameter .icrc'"
}

kmsg_mark
ktap_check_fails "modprobe sroce icrc=bogus is refused" modprobe sroce icrc=bogus
ktap_check "sroce is not left loaded" bash -c '! lsmod | grep -q "^sroce "'
ktap_check "the kernel log names the bad icrc value" bad_value_logged

# The module of the highest-priority crypto "crc32" driver, if modular:
# the one crypto_alloc_shash("crc32") takes a reference on.
crypto_module() {
	awk '$1 == "name" { n = $3 } $1 == "module" { m = $3 }
	     $1 == "priority" { p = $3 }
	     /^$/ { if (n == "crc32" && p > best) { best = p; mod = m }; n = "" }
	     END { if (mod != "kernel") print mod }' /proc/crypto
}

both_gids() {
	sroce_has_rocev2_gid sroce0 $GID1 && sroce_has_rocev2_gid sroce0 $GID2
}

# pingpong SIZE PORT: RC pingpong -c from GID2 to GID1 (routed).
pingpong() {
	local spid crc src
	timeout "$LIMIT" ibv_rc_pingpong -d sroce0 -g "$IDX1" -p "$2" -s "$1" \
		-n "$ITERS" -c >$TMP.s 2>&1 &
	spid=$!
	sroce_wait_listen "$2"
	timeout "$LIMIT" ibv_rc_pingpong -d sroce0 -g "$IDX2" -p "$2" -s "$1" \
		-n "$ITERS" -c 127.0.0.1 >$TMP.c 2>&1
	crc=$?
	wait $spid
	src=$?
	sed 's/^/# client: /' $TMP.c | tail -n 1
	[ $crc = 0 ] && [ $src = 0 ]
}

# inject good|bad COUNTER: icrc_inject.py's packets all land in COUNTER
# and nowhere else among the drop counters that matter here.
inject() {
	local want=$((N * $(wc -w <<<"$SIZES"))) other=drop_icrc got stray
	[ "$2" = drop_icrc ] && other=drop_unknown_qpn
	counters_mark
	ip netns exec $NS python3 ./icrc_inject.py $PEER $ADDR "$1" $N $SIZES
	landed() { [ "$(counter_delta "$2")" = "$want" ]; }
	wait_for "$2 +$want" 10 landed "$1" "$2" >/dev/null
	got=$(counter_delta "$2") stray=$(counter_delta $other)
	ktap_diag "$1: $2 +$got of $want, $other +$stray"
	[ "$got" = "$want" ] && [ "$stray" = 0 ]
}

port=18700
for impl in $IMPLS; do
	kmsg_mark
	ktap_check "icrc=$impl: modprobe sroce icrc=$impl" modprobe sroce icrc=$impl
	used=$(cat $PARAM 2>/dev/null)
	if [ $impl = auto ]; then
		ktap_check "icrc=auto: the parameter names one candidate ($used)" \
			bash -c "[ '$used' = crc32_le ] || [ '$used' = crypto ]"
	else
		ktap_check "icrc=$impl: the parameter reads $impl" test "$used" = $impl
	fi
	kmsg_since_mark | grep 'sroce: icrc' | sed 's/^/# /'
	ktap_check "icrc=$impl: the kernel log names $used" \
		bash -c "dmesg | sed -n '/$SROCE_KMSG_MARK/,\$p' | grep -q 'sroce: icrc: $used ('"
	cmod=$(crypto_module)
	refs=$([ -n "$cmod" ] && cat /sys/module/$cmod/refcnt)

	rdma link add sroce0 type sroce netdev sroce_v1
	ktap_check "icrc=$impl: sroce0 on veth with both GIDs" \
		wait_for "GIDs" 10 both_gids
	IDX1=$(sroce_gid_index sroce0 $GID1) IDX2=$(sroce_gid_index sroce0 $GID2)

	ktap_check "icrc=$impl: zlib-ICRC packets of $SIZES B pass the ICRC check" \
		inject good drop_unknown_qpn
	ktap_check "icrc=$impl: the same with a bad ICRC are dropped for it" \
		inject bad drop_icrc

	counters_mark
	port=$((port + 1))
	ktap_check "icrc=$impl: routed 4 KiB RC pingpong, data checked" \
		pingpong 4096 $port
	port=$((port + 1))
	ktap_check "icrc=$impl: routed 60 B RC pingpong, data checked" \
		pingpong 60 $port
	rcvd=$(counter_delta rcvd_pkts) dropped=$(counter_delta drop_icrc)
	ktap_check "icrc=$impl: $rcvd packets received with an ICRC, $dropped dropped for it" \
		bash -c "[ $rcvd -ge $((4 * ITERS)) ] && [ $dropped = 0 ]"
	rdma link delete sroce0

	ktap_check "icrc=$impl: rmmod sroce" rmmod sroce
	if [ -n "$cmod" ]; then
		held=$((refs - $(cat /sys/module/$cmod/refcnt)))
		ktap_diag "$cmod references given back at unload: $held"
		ktap_check "icrc=$impl: sroce held a reference on $cmod iff it used crypto" \
			test $held = "$([ "$used" = crypto ] && echo 1 || echo 0)"
	else
		ktap_skip "icrc=$impl: no modular crypto crc32 driver to watch"
	fi
done
ip link del sroce_v1
ip netns del $NS
rm -f $TMP.*
ktap_finish
