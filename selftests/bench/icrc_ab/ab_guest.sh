#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ab_guest.sh: the guest side of run.sh (there: why and how). For each
# round and each driver of SROCE_ICRC_AB_DRIVERS ("sroce:crc32_le
# sroce:crypto rxe"; the order turns by one each round), loads the
# driver, puts a second address on eth0 and runs ib_send_bw -e between
# the two (routed through lo, so every packet's ICRC is computed by the
# sender and checked by the receiver), SROCE_ICRC_AB_ITERS (2000)
# messages of SROCE_ICRC_AB_SIZE (65536) bytes. Prints per run:
#
#	R DRIVER ROUND busy_jiffies=N bw_MBps=X
#
# busy_jiffies: all CPUs' non-idle time (/proc/stat) over the client's run.
set -u
cd "$(dirname "$0")/../.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh

SIZE=${SROCE_ICRC_AB_SIZE:-65536}
ITERS=${SROCE_ICRC_AB_ITERS:-2000}
ROUNDS=${SROCE_ICRC_AB_ROUNDS:-3}
read -r -a DRIVERS <<<"${SROCE_ICRC_AB_DRIVERS:-sroce:crc32_le sroce:crypto rxe}"
ADDR2=192.0.2.77
GID1=0000:0000:0000:0000:0000:ffff:c000:0201
GID2=0000:0000:0000:0000:0000:ffff:c000:024d
PORT=18515

busy() {
	local user nice sys irq sirq steal
	read -r _ user nice sys _ _ irq sirq steal _ </proc/stat
	echo $((user + nice + sys + irq + sirq + steal))
}

# up DRIVER: load it, make device $DEV with both addresses' GIDs
up() {
	case $1 in
	sroce:*)
		modprobe sroce icrc="${1#sroce:}" || return 1
		dmesg | grep 'sroce: icrc:' | tail -n 1 | sed 's/^/# /'
		echo "# icrc in use: $(cat /sys/module/sroce/parameters/icrc)"
		DEV=sroce0
		rdma link add $DEV type sroce netdev eth0 ;;
	rxe)
		modprobe rdma_rxe || return 1
		DEV=rxe0
		rdma link add $DEV type rxe netdev eth0 ;;
	esac
	wait_for "GIDs" 20 bash -c ". ./lib/sroce_lib.sh; sroce_has_rocev2_gid $DEV $GID1 && sroce_has_rocev2_gid $DEV $GID2" >/dev/null
}

down() {
	rdma link delete "$DEV"
	case $1 in
	sroce:*) rmmod sroce ;;
	rxe) rmmod rdma_rxe ;;
	esac
}

# run DRIVER ROUND
run() {
	local idx1 idx2 spid b0 b1 bw
	idx1=$(sroce_gid_index "$DEV" $GID1) idx2=$(sroce_gid_index "$DEV" $GID2)
	ib_send_bw -d "$DEV" -x "$idx1" -e -F -s "$SIZE" -n "$ITERS" -p $PORT \
		>/tmp/ab.s 2>&1 &
	spid=$!
	sroce_wait_listen $PORT
	b0=$(busy)
	ib_send_bw -d "$DEV" -x "$idx2" -e -F -s "$SIZE" -n "$ITERS" -p $PORT \
		127.0.0.1 >/tmp/ab.c 2>&1
	b1=$(busy)
	wait "$spid"
	bw=$(awk -v s="$SIZE" '$1 == s && NF >= 5 { print $4 }' /tmp/ab.c)
	echo "R $1 $2 busy_jiffies=$((b1 - b0)) bw_MBps=${bw:-nan}"
}

modprobe ib_uverbs && modprobe rdma_ucm
ip addr add $ADDR2/24 dev eth0
echo "# HZ-based jiffies; $ITERS x $SIZE B ib_send_bw -e, routed via lo"
for ((r = 1; r <= ROUNDS; r++)); do
	n=${#DRIVERS[@]}
	for ((i = 0; i < n; i++)); do
		d=${DRIVERS[$(((i + r - 1) % n))]}
		if up "$d"; then
			run "$d" "$r"
		else
			echo "R $d $r busy_jiffies=nan bw_MBps=nan"
		fi
		down "$d"
	done
done
ip addr del $ADDR2/24 dev eth0
