#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo, guest side: load sroce, attach it to the guest's NIC and show
# what the stock rdma-core tools see.
set -eu

# The tools exchange QP numbers over TCP: wait for the server to listen.
wait_listen() {
	for _ in $(seq 300); do
		ss -ltnH "sport = :$1" | grep -q . && return 0
		sleep 0.1
	done
	return 1
}

step() {
	printf '\n==== %s\n' "$*"
}

step "modprobe ib_uverbs rdma_ucm sroce"
modprobe ib_uverbs
modprobe rdma_ucm
modprobe sroce
dmesg | grep 'sroce:' | tail -n 3

step "rdma link add sroce0 type sroce netdev eth0"
rdma link add sroce0 type sroce netdev eth0
# ib_core fills the GID table from the netdev's addresses asynchronously.
for _ in $(seq 50); do
	[ -e /sys/class/infiniband/sroce0/ports/1/gids/1 ] &&
		[ "$(cat /sys/class/infiniband/sroce0/ports/1/gids/1)" != \
		  0000:0000:0000:0000:0000:0000:0000:0000 ] && break
	sleep 0.1
done

step "rdma link"
rdma link show

step "ibv_devices (bound by rdma-core's stock rxe provider)"
ibv_devices

step "ibv_devinfo -v -d sroce0"
ibv_devinfo -v -d sroce0

# The IPv4 RoCEv2 GID; one grep, not a process per table entry.
gidx=$(grep -lx 0000:0000:0000:0000:0000:ffff:c000:0201 \
	/sys/class/infiniband/sroce0/ports/1/gids/* | head -n 1)
gidx=${gidx##*/}

step "ibv_rc_pingpong -d sroce0 -g $gidx -c (server and client in this guest)"
ibv_rc_pingpong -d sroce0 -g "$gidx" -n 200 -c >/tmp/pp-server.log 2>&1 &
wait_listen 18515
ibv_rc_pingpong -d sroce0 -g "$gidx" -n 200 -c 127.0.0.1
wait
sed 's/^/server: /' /tmp/pp-server.log

step "ib_write_bw -d sroce0 -x $gidx -s 65536 -n 500 --report_gbits"
ib_write_bw -d sroce0 -x "$gidx" -F -s 65536 -n 500 --report_gbits >/tmp/bw-server.log 2>&1 &
wait_listen 18515
ib_write_bw -d sroce0 -x "$gidx" -F -s 65536 -n 500 --report_gbits 127.0.0.1
wait

step "rdma statistic show link sroce0/1"
rdma statistic show link sroce0/1

step "rdma resource show"
rdma resource show

step "rdma link delete sroce0; rmmod sroce"
rdma link delete sroce0
rmmod sroce
echo "demo finished"
