#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module lifecycle: load and unload, autoload from "rdma link add", mutual
# exclusion with the in-tree rdma_rxe, and unload with devices present.
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

ktap_plan 17

sroce_reset
modprobe ib_uverbs

kmsg_mark
ktap_check "modprobe sroce loads the module" modprobe sroce
ktap_check "kernel log says it loaded" bash -c 'dmesg | grep -q "sroce: loaded"'
ktap_check "module registers link type sroce (rdma-link-sroce alias)" \
	bash -c 'modinfo sroce | grep -q "alias:.*rdma-link-sroce"'
ktap_check "rmmod sroce without devices" rmmod sroce

# ib_core asks modprobe for "rdma-link-sroce" when the type is unknown.
ktap_check "rdma link add autoloads sroce" \
	rdma link add sroce0 type sroce netdev eth0
ktap_check "autoloaded module is present" bash -c 'lsmod | grep -q "^sroce "'
ktap_check "autoloaded device exists" sroce_dev_exists sroce0

# rmmod with devices present removes them.
ip link add sroce_d0 type dummy && ip link set sroce_d0 up
ktap_check "second device on a dummy netdev" \
	rdma link add sroce1 type sroce netdev sroce_d0
ktap_check "rmmod sroce with two devices" rmmod sroce
ktap_check "both devices are gone after rmmod" \
	bash -c '! [ -e /sys/class/infiniband/sroce0 ] && ! [ -e /sys/class/infiniband/sroce1 ]'
ktap_check "rdma link lists no device after rmmod" \
	bash -c '! rdma link show | grep -q sroce'
ip link del sroce_d0

# rdma_rxe and sroce exclude each other, whichever loads first.
ktap_check "modprobe rdma_rxe (baseline)" modprobe rdma_rxe
kmsg_mark
ktap_check_fails "modprobe sroce is refused while rdma_rxe is loaded" modprobe sroce
ktap_check "refusal is explained in the kernel log" \
	bash -c "dmesg | sed -n '/$SROCE_KMSG_MARK/,\$p' | grep -q 'is rdma_rxe loaded'"
ktap_check "sroce is not left loaded" bash -c '! lsmod | grep -q "^sroce "'
rmmod rdma_rxe

modprobe sroce
ktap_check_fails "modprobe rdma_rxe is refused while sroce is loaded" modprobe rdma_rxe
ktap_check "sroce still loaded and unloads cleanly" rmmod sroce

ktap_finish
