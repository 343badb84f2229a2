#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo, guest side: load sroce, attach it to the guest's NIC and show
# what the stock rdma-core tools see.
set -eu

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

step "rdma resource show"
rdma resource show

step "rdma link delete sroce0; rmmod sroce"
rdma link delete sroce0
rmmod sroce
echo "demo finished"
