#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Teardown under traffic.  Each round starts ib_write_bw (server and client
# on the device's own GID, running for a minute) and an ibv_rc_pingpong
# pair, lets them run for a random moment, then tears something down under
# them:
#   kill     kill -9 of the perftest client and server
#   link     rdma link delete of the device
#   netdev   ip link del of the netdev the device sits on (a veth)
#   rmmod    rmmod sroce (user contexts are disassociated)
# The teardown command must return within 30 s, every traffic process must
# be gone within 10 s of kill -9 (none stuck in the kernel), the object
# counts must go back to nothing, and a new device must carry verified
# traffic at once.  SROCE_TEARDOWN_ROUNDS rounds of each kind (50; a round
# costs 3-4 s under TCG on an idle 2-core host, 15-20 s on a loaded one,
# most of it perftest starting up).
# sroce-timeout: 2400
set -u
cd "$(dirname "$0")" && . ./lib.sh && . ./sroce_lib.sh

ROUNDS=${SROCE_TEARDOWN_ROUNDS:-50}
KINDS=${SROCE_TEARDOWN_KINDS:-kill link netdev rmmod}
ADDR=2001:db8:8::1
GID6=2001:0db8:0008:0000:0000:0000:0000:0001
PIDS=()

# A fresh veth with sroce0 on it; sets IDX.
bring_up() {
	lsmod | grep -q '^sroce ' || sroce_load || { echo "modprobe failed"; return 1; }
	if ! ip link show sroce_t1 >/dev/null 2>&1; then
		ip link add sroce_t1 type veth peer name sroce_t0 || return 1
		ip -6 addr add $ADDR/64 dev sroce_t1 nodad
		ip link set sroce_t0 up
		ip link set sroce_t1 up
	fi
	if [ ! -e $SROCE_SYSFS/sroce0 ]; then
		rdma link add sroce0 type sroce netdev sroce_t1 || { echo "rdma link add failed"; return 1; }
	fi
	wait_for "IPv6 GID" 10 sroce_has_rocev2_gid sroce0 $GID6 >/dev/null || { echo "no GID"; return 1; }
	IDX=$(sroce_gid_index sroce0 $GID6)
}

fresh_device_works() {
	bring_up && sroce_pingpong_ok sroce0 "$IDX"
}

start_traffic() {
	PIDS=()
	ib_write_bw -d sroce0 -x "$IDX" -F -D 60 -s 65536 -p 19900 >/dev/null 2>&1 &
	PIDS+=($!)
	wait_for "perftest listening" 20 sroce_port_listening 19900 >/dev/null
	ib_write_bw -d sroce0 -x "$IDX" -F -D 60 -s 65536 -p 19900 127.0.0.1 >/dev/null 2>&1 &
	PIDS+=($!)
	ibv_rc_pingpong -d sroce0 -g "$IDX" -n 1000000 -p 19901 >/dev/null 2>&1 &
	PIDS+=($!)
	wait_for "pingpong listening" 20 sroce_port_listening 19901 >/dev/null
	ibv_rc_pingpong -d sroce0 -g "$IDX" -n 1000000 -p 19901 127.0.0.1 >/dev/null 2>&1 &
	PIDS+=($!)
}

# Kill what is left of the traffic; false if a process will not die.
reap_traffic() {
	local p t
	kill -9 "${PIDS[@]}" 2>/dev/null
	for p in "${PIDS[@]}"; do
		for ((t = 0; t < 100; t++)); do
			kill -0 "$p" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$p" 2>/dev/null; then
			echo "pid $p still there 10 s after kill -9: $(cat /proc/$p/wchan 2>/dev/null)"
			cat /proc/$p/stack 2>/dev/null | sed 's/^/  /'
			return 1
		fi
		wait "$p" 2>/dev/null
	done
	return 0
}

teardown() {
	case $1 in
	kill)	return 0 ;;	# reap_traffic does it
	link)	timeout 30 rdma link delete sroce0 ;;
	netdev)	timeout 30 ip link del sroce_t1 ;;
	rmmod)	timeout 30 rmmod sroce ;;
	esac
}

no_objects() {
	[ ! -e $SROCE_SYSFS/sroce0 ] && return 0
	[ "$(sroce_res_counts sroce0)" = "$BASE" ]
}

one_round() {
	local kind=$1 t0=$SECONDS
	bring_up || { echo "set-up failed"; return 1; }
	BASE=$(sroce_res_counts sroce0)
	start_traffic
	sleep "0.$((RANDOM % 9 + 1))"
	local t1=$SECONDS
	teardown "$kind" || { echo "$kind: teardown command failed or took over 30 s"; reap_traffic; return 1; }
	local t2=$SECONDS
	reap_traffic || return 1
	[ -n "${SROCE_TEARDOWN_VERBOSE:-}" ] &&
		echo "set-up+traffic $((t1 - t0)) s, teardown $((t2 - t1)) s, reap $((SECONDS - t2)) s" >&2
	wait_for "objects released" 10 no_objects >/dev/null ||
		{ echo "objects left: $(sroce_res_counts sroce0) (before: $BASE)"; return 1; }
	return 0
}

sroce_reset
ktap_plan $(($(wc -w <<<"$KINDS") * 2))
for kind in $KINDS; do
	failed=0 start=$SECONDS
	for ((r = 1; r <= ROUNDS; r++)); do
		if ! out=$(one_round "$kind" 2>&1); then
			failed=$((failed + 1))
			[ $failed -le 3 ] && echo "# $kind round $r: ${out//$'\n'/; }"
		elif [ -n "${SROCE_TEARDOWN_VERBOSE:-}" ]; then
			echo "# $kind round $r: ${out//$'\n'/; }"
		fi
	done
	echo "# $kind: $ROUNDS rounds in $((SECONDS - start)) s, $failed failed"
	ktap_check "$kind under traffic: $ROUNDS rounds, no hang, no leftover" test "$failed" = 0
	ktap_check "after $kind rounds: a new device carries verified traffic" \
		fresh_device_works
done
sroce_reset
ip link del sroce_t1 2>/dev/null
ktap_finish
