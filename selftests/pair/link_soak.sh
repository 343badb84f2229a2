#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# link_soak.sh: keep the link between the guests busy with large RDMA
# transfers for a while and check after every run that both NICs still
# transmit.  Not in the default pair suite (it runs for minutes): it is
# the tool that found the transmit stall of the pair guests (a virtio
# kick lost under QEMU 7.2's TCG, see vm-lib.sh's maxcpus=2), and the
# check that it stays gone.
#
#   SROCE_PAIR_RUN_OUT=/tmp/soak selftests/pair/run.sh --link udp link_soak.sh
#
# Each run is one perftest bandwidth run (-D seconds) between the guests,
# the sender alternating between B and A.  After it each guest sends three
# pings to the other and looks at its own eth0 transmit counter: a NIC
# whose counter did not move for them has stopped transmitting, and the
# guest then writes what it knows of its NIC (tx queue state, counters,
# qdisc, interrupts, sroce's counters) to /results/stall.txt, which the
# host finds in the guest's out dir (a QEMU monitor there, when the
# harness made one, can then be asked for the virtio queues' state).
# Each guest prints its own TAP results: driver up, and after each run
# "my NIC transmits" (with the peer's word on its own).
#
# Environment (passed through the harness):
#   SROCE_SOAK_DRIVER   the driver on both sides (sroce; rxe, or a variant
#                       sroce:NAME=VALUE as pair_use takes)
#   SROCE_SOAK_RUNS     runs (20)
#   SROCE_SOAK_TEST     perftest program (ib_send_bw)
#   SROCE_SOAK_ARGS     its size and mode ("-s 1048576 -D 20")
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./lib/pair_lib.sh

DRIVER=${SROCE_SOAK_DRIVER:-sroce}
RUNS=${SROCE_SOAK_RUNS:-20}
PROG=${SROCE_SOAK_TEST:-ib_send_bw}
read -r -a ARGS <<<"${SROCE_SOAK_ARGS:--s 1048576 -D 20}"
PORT=23000
LIMIT=120

tx_packets() {
	cat /sys/class/net/eth0/statistics/tx_packets
}

# Does our NIC still transmit?  Three pings to the peer must move our
# transmit counter (their replies need not arrive: the peer may be the
# one that stopped).
nic_transmits() {
	local before
	before=$(tx_packets)
	ping -c 3 -i 0.3 -W 1 "$SROCE_PEER_IP" >/dev/null 2>&1
	(($(tx_packets) > before))
}

# What a stalled NIC looks like from inside, into /results/stall.txt.
stall_report() {
	local q=/sys/class/net/eth0/queues/tx-0 f
	{
		echo "== run $1, uptime $(cut -d' ' -f1 /proc/uptime) s"
		for f in "$q"/tx_timeout "$q"/byte_queue_limits/*; do
			[ -f "$f" ] && echo "$f: $(cat "$f")"
		done
		ip -s link show dev eth0
		tc -s qdisc show dev eth0
		grep -i virtio /proc/interrupts
		rdma statistic show link "$PAIR_DEV/1"
		dmesg | grep -i -e watchdog -e virtio -e eth0 | tail -n 20
	} >>/results/stall.txt 2>&1
}

# One perftest run: A the server, B the client when B sends; swapped
# when A sends.  Prints nothing; the exit status is the tool's.
soak_run() {
	local n=$1 srv rc log=/tmp/soak.$$.log
	PORT=$((PORT + 1))
	if ((n % 2)); then srv=b; else srv=a; fi
	if [ "$PAIR_ROLE" = "$srv" ]; then
		timeout -k 5 $LIMIT "$PROG" -d "$PAIR_DEV" -x "$GIDX" -F -p $PORT \
			"${ARGS[@]}" >"$log" 2>&1 &
		local pid=$!
		wait_for "port $PORT" 30 sroce_port_listening $PORT >/dev/null
		pair_put "r$n.ready" 1
		wait $pid
		rc=$?
	else
		pair_get "r$n.ready" 60 >/dev/null
		timeout -k 5 $LIMIT "$PROG" -d "$PAIR_DEV" -x "$GIDX" -F -p $PORT \
			"${ARGS[@]}" "$SROCE_PEER_IP" >"$log" 2>&1
		rc=$?
	fi
	sed "s/^/# run $n $PAIR_ROLE: /" "$log" | grep -E 'bytes|^# run [0-9]+ [ab]: +[0-9]' | tail -n 2
	rm -f "$log"
	return $rc
}

ktap_plan $((RUNS + 1))
pair_barrier start 300
if pair_use "$DRIVER" && GIDX=$(pair_gid_index 4); then up=ok; else up=fail; fi
pair_put up $up
peer_up=$(pair_get up 120) || peer_up="no word"
if [ $up = ok ]; then
	ktap_ok "$DRIVER up (peer: $peer_up)"
else
	ktap_fail "$DRIVER up" "peer: $peer_up"
fi
[ $up = ok ] && [ "$peer_up" = ok ] || exit 1

for ((n = 1; n <= RUNS; n++)); do
	pair_barrier "go$n" 300 || exit 1
	soak_run $n
	rc=$?
	pair_barrier "ran$n" $((LIMIT + 60)) || exit 1
	if nic_transmits; then mine=ok; else mine=stalled; stall_report $n; fi
	pair_put "nic$n" "$mine rc=$rc"
	theirs=$(pair_get "nic$n" 60) || theirs="no word"
	if [ "$mine" = ok ]; then
		ktap_ok "run $n: eth0 transmits (tool rc=$rc; peer: $theirs)"
	else
		ktap_fail "run $n: eth0 transmits" "tool rc=$rc; peer: $theirs"
	fi
	# A stalled NIC stays stalled: stop here and keep the guests for a look.
	if [ "$mine" != ok ] || [ "${theirs%% *}" != ok ]; then
		echo "# stalled after run $n; sleeping ${SROCE_SOAK_HOLD:-0} s"
		sleep "${SROCE_SOAK_HOLD:-0}"
		exit 1
	fi
done
pair_unload
ktap_finish
