#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Teardown under traffic.  Each round starts a load on sroce0, lets it run
# for a random moment, then tears something down under it:
#   kill     kill -9 of the traffic programs
#   link     rdma link delete of the device
#   netdev   ip link del of the netdev the device sits on (a veth)
#   rmmod    rmmod sroce (user contexts are disassociated)
# Loads:
#   perftest ib_write_bw (server and client on the device's own GID, for a
#            minute) and an ibv_rc_pingpong pair: SROCE_TEARDOWN_ROUNDS
#            rounds of each kind (50)
#   pyverbs  the rdma-core pyverbs suite's traffic tests (QP, QP-ex and
#            rdma_cm traffic), torn down once it holds QPs
#   nvme     NVMe over Fabrics: nvmet-rdma target and nvme-rdma host on
#            sroce0, fio random I/O on the namespace, torn down once I/O
#            completes; the host disconnects after the round
# The last two cost 5-9 s a round to start, so each one named in
# SROCE_TEARDOWN_HEAVY (default: pyverbs nvme) gets SROCE_TEARDOWN_HEAVY_ROUNDS
# rounds of each kind (5), spread over the perftest rounds.
# The teardown command must return within 30 s, every traffic process must
# be gone within 10 s of kill -9 (none stuck in the kernel), the object
# counts must go back to nothing, and a new device must carry verified
# traffic at once. A perftest round costs 3-4 s under TCG on an idle
# 2-core host.
# sroce-timeout: 3000
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./lib/kconsumer_lib.sh &&
	. ./lib/nvmeof_lib.sh

ROUNDS=${SROCE_TEARDOWN_ROUNDS:-50}
KINDS=${SROCE_TEARDOWN_KINDS:-kill link netdev rmmod}
read -r -a HEAVY <<<"${SROCE_TEARDOWN_HEAVY-pyverbs nvme}"
HEAVY_ROUNDS=${SROCE_TEARDOWN_HEAVY_ROUNDS:-5}
ADDR6=2001:db8:8::1
GID6=2001:0db8:0008:0000:0000:0000:0000:0001
ADDR=198.51.100.1	# the NVMe-oF port (nvmeof_lib.sh)
PIDS=()
PYV=$(mktemp -d)
# pyverbs tests that move data; each round tears them down at a random point
PYV_TESTS="tests.test_qpex tests.test_rdmacm tests.test_qp"

# A fresh veth with sroce0 on it; sets IDX.
bring_up() {
	lsmod | grep -q '^sroce ' || sroce_load || { echo "modprobe failed"; return 1; }
	if ! ip link show sroce_t1 >/dev/null 2>&1; then
		ip link add sroce_t1 type veth peer name sroce_t0 || return 1
		ip -6 addr add $ADDR6/64 dev sroce_t1 nodad
		ip addr add $ADDR/24 dev sroce_t1
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

start_perftest() {
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

# The number in "qp N" of sroce0's object counts.
qp_count() {
	sroce_res_counts sroce0 | sed -n 's/.*\bqp \([0-9]*\).*/\1/p'
}
more_qps_than() { [ "$(qp_count)" -gt "$1" ]; }

# Python imports for seconds under TCG: tear down only once it holds QPs.
start_pyverbs() {
	local qps
	qps=$(qp_count)
	# shellcheck disable=SC2086
	(cd "$PYV/tests" && exec python3 run_tests.py --dev sroce0 --gid "$IDX" $PYV_TESTS) >/dev/null 2>&1 &
	PIDS+=($!)
	wait_for "pyverbs QPs" 120 more_qps_than "$qps" >/dev/null
}

# A lost controller is given up after 2 s: the round disconnects it anyway.
# The limits are generous (a debug kernel takes a minute to connect); a
# start that fails says which step did.
start_nvme() {
	local bdev
	target_port_add || { echo "nvmet port not added"; return 1; }
	wait_for "nvmet listening" 60 target_listening || return 1
	timeout -k 5 120 nvme connect -t rdma -a "$ADDR" -s "$PORT" -n "$NQN" \
		--hostnqn="$HOSTNQN" --hostid="$HOSTID" --reconnect-delay=1 \
		--ctrl-loss-tmo=2 >/dev/null || { echo "nvme connect failed"; return 1; }
	wait_for "namespace block device" 60 host_bdev_present || return 1
	bdev=$(host_bdev)
	fio --name=teardown --filename="$bdev" --direct=1 --ioengine=libaio \
		--rw=randrw --bs=4k --iodepth=16 --time_based --runtime=60 \
		--size=64m >/dev/null 2>&1 &
	PIDS+=($!)
	wait_io_progress 64 120
}

# After the round: no NVMe controller or target port left for the next one.
stop_nvme() {
	if host_subsys >/dev/null; then
		timeout -k 5 30 nvme disconnect -n "$NQN" >/dev/null 2>&1
		wait_for "subsystem gone" 30 host_subsys_absent >/dev/null ||
			{ echo "nvme controller still there 30 s after disconnect"; return 1; }
	fi
	[ ! -d "$NVPORT" ] || target_port_remove
}

start_load() {
	PIDS=()
	case $1 in
	perftest) start_perftest ;;
	pyverbs) start_pyverbs ;;
	nvme) start_nvme ;;
	esac
}

# Kill what is left of the load; false if a process will not die.
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

# CMD... for at most 30 s; still running after 20 s, the blocked tasks go
# to the kernel log (sysrq w), so a slow round shows what it waits for.
within_30s() {
	timeout 30 "$@" &
	local pid=$! n=0
	while kill -0 $pid 2>/dev/null; do
		((++n == 200)) && echo w >/proc/sysrq-trigger
		sleep 0.1
	done
	wait $pid
}

teardown() {
	case $1 in
	kill)	return 0 ;;	# reap_traffic does it
	link)	within_30s rdma link delete sroce0 ;;
	netdev)	within_30s ip link del sroce_t1 ;;
	rmmod)	within_30s rmmod sroce ;;
	esac
}

# Back to the round's start, or the device is gone. nvmet-rdma takes its
# CQs from ib_core's shared pool, which keeps them until the device goes:
# those are compared by the CQs in use (kconsumer_lib.sh's step_res_back).
no_objects() {
	[ ! -e $SROCE_SYSFS/sroce0 ] && return 0
	step_res_back >/dev/null
}

one_round() {
	local kind=$1 load=$2 t0=$SECONDS
	bring_up || { echo "set-up failed"; return 1; }
	RES_BEFORE=$(sroce_res_counts sroce0)
	BUSY_CQS_BEFORE=$(busy_cqs)
	start_load "$load" || { echo "$load did not start"; reap_traffic; stop_nvme; return 1; }
	sleep "0.$((RANDOM % 9 + 1))"
	local t1=$SECONDS
	teardown "$kind" || { echo "$kind: teardown command failed or took over 30 s"; reap_traffic; stop_nvme; return 1; }
	local t2=$SECONDS
	reap_traffic || { stop_nvme; return 1; }
	if [ "$load" = nvme ]; then
		stop_nvme || return 1
	fi
	[ -n "${SROCE_TEARDOWN_VERBOSE:-}" ] &&
		echo "$load: set-up+traffic $((t1 - t0)) s, teardown $((t2 - t1)) s, reap $((SECONDS - t2)) s" >&2
	wait_for "objects released" 10 no_objects >/dev/null ||
		{ echo "objects left: $(sroce_res_counts sroce0) (before: $RES_BEFORE)"; return 1; }
	return 0
}

sroce_reset
# Python imports modules, not .py.gz: a private copy of the pyverbs tests.
cp -r /usr/share/doc/rdma-core/tests "$PYV/tests" && gunzip -f "$PYV"/tests/*.gz
modprobe -a null_blk nvmet nvmet-rdma nvme-rdma
nullb_create && target_subsys_create || echo "# NVMe-oF target set-up failed"
# run_round KIND LOAD R: one round, its failure counted and shown.
run_round() {
	local out
	per_load[$2]=$((${per_load[$2]:-0} + 1))
	if ! out=$(one_round "$1" "$2" 2>&1); then
		failed=$((failed + 1))
		[ $failed -le 3 ] && echo "# $1 round $3 ($2): ${out//$'\n'/; }"
	elif [ -n "${SROCE_TEARDOWN_VERBOSE:-}" ]; then
		echo "# $1 round $3 ($2): ${out//$'\n'/; }"
	fi
}

ktap_plan $(($(wc -w <<<"$KINDS") * 2))
for kind in $KINDS; do
	failed=0 start=$SECONDS n=0
	declare -A per_load=()
	for ((r = 1; r <= ROUNDS; r++)); do
		run_round "$kind" perftest $((++n))
		# the heavy loads spread evenly over the perftest rounds
		if ((HEAVY_ROUNDS > 0 && r % (ROUNDS / HEAVY_ROUNDS > 0 ? ROUNDS / HEAVY_ROUNDS : 1) == 0 &&
		     ${per_load[${HEAVY[0]:-none}]:-0} < HEAVY_ROUNDS)); then
			for load in "${HEAVY[@]}"; do
				run_round "$kind" "$load" $((++n))
			done
		fi
	done
	loads=$(for l in "${!per_load[@]}"; do echo -n "$l ${per_load[$l]}, "; done)
	echo "# $kind: $n rounds (${loads%, }) in $((SECONDS - start)) s, $failed failed"
	unset per_load
	ktap_check "$kind under traffic: $n rounds, no hang, no leftover" test "$failed" = 0
	ktap_check "after $kind rounds: a new device carries verified traffic" \
		fresh_device_works
done
target_teardown
sroce_reset
ip link del sroce_t1 2>/dev/null
rm -rf "$PYV" "$WORK"
ktap_finish
