#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma link add/show/delete and what the stock rdma-core tools see of an
# sroce device: bound by the rxe provider, port ACTIVE on Ethernet, node GUID
# from the MAC, RoCEv2 GIDs for the netdev's addresses, MTU from the netdev.
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

ktap_plan 22

sroce_reset
sroce_load || { echo "# cannot load sroce"; }

mac=$(cat /sys/class/net/eth0/address)
guid=$(mac_to_guid "$mac")
ip -6 addr add 2001:db8:5::1/64 dev eth0 nodad

ktap_check "rdma link add sroce0 type sroce netdev eth0" \
	rdma link add sroce0 type sroce netdev eth0
ktap_check "rdma link shows sroce0 ACTIVE on eth0" \
	bash -c 'rdma link show sroce0/1 | grep -q "state ACTIVE physical_state LINK_UP netdev eth0"'
ktap_check "ibv_devices lists sroce0 (stock rxe provider bound it)" \
	bash -c 'ibv_devices | grep -qw sroce0'
ktap_check "uverbs ABI version is 2" \
	bash -c 'for d in /sys/class/infiniband_verbs/uverbs*; do
		[ "$(cat $d/ibdev)" = sroce0 ] && [ "$(cat $d/abi_version)" = 2 ] && exit 0; done; exit 1'

info=$(ibv_devinfo -v -d sroce0 2>&1)
echo "$info" | sed 's/^/# /' | head -60
info_has() {
	grep -q "$1" <<<"$info"
}
ktap_check "ibv_devinfo opens sroce0 through the provider" \
	bash -c "ibv_devinfo -d sroce0 >/dev/null"
ktap_check "port is PORT_ACTIVE" info_has "state:.*PORT_ACTIVE (4)"
ktap_check "link layer is Ethernet" info_has "link_layer:.*Ethernet"
ktap_check "node GUID $guid derived from MAC $mac" info_has "node_guid:.*$guid"
ktap_check "active MTU 1024 for netdev MTU 1500" \
	test "$(sroce_active_mtu sroce0)" = 1024
ktap_check "max MTU 4096" info_has "max_mtu:.*4096 (5)"
limits_ok() {
	info_has 'vendor_id:.*0xffffff' && info_has 'max_qp:.*1048576' &&
		info_has 'max_sge:.*32' && info_has 'max_cqe:.*1048575' &&
		info_has 'fw_ver:.*0\.1\.0'
}
ktap_check "vendor id and limits reported" limits_ok

ll_gid=$(mac_to_ll_gid "$mac")
ktap_check "link-local RoCEv2 GID $ll_gid" \
	wait_for "link-local gid" 10 sroce_has_rocev2_gid sroce0 "$ll_gid"
ktap_check "IPv4 192.0.2.1 RoCEv2 GID" \
	wait_for "ipv4 gid" 10 sroce_has_rocev2_gid sroce0 0000:0000:0000:0000:0000:ffff:c000:0201
ktap_check "IPv6 2001:db8:5::1 RoCEv2 GID" \
	wait_for "ipv6 gid" 10 sroce_has_rocev2_gid sroce0 2001:0db8:0005:0000:0000:0000:0000:0001
ktap_check "ibv_devinfo -v shows RoCE v2 GIDs" \
	bash -c 'ibv_devinfo -v -d sroce0 | grep -q "GID\[.*RoCE v2"'

# An address added later shows up, one removed goes away.
ip addr add 198.51.100.7/24 dev eth0
ktap_check "IPv4 address added later gets a GID" \
	wait_for "new gid" 10 sroce_has_rocev2_gid sroce0 0000:0000:0000:0000:0000:ffff:c633:6407
ip addr del 198.51.100.7/24 dev eth0
ktap_check "its GID goes away with the address" \
	wait_for "gid removed" 10 sroce_lacks_gid sroce0 0000:0000:0000:0000:0000:ffff:c633:6407

ktap_check "rdma link delete sroce0" rdma link delete sroce0
ktap_check "sroce0 is gone from sysfs" wait_for "sroce0 gone" 10 sroce_dev_gone sroce0
ktap_check "ibv_devices no longer lists sroce0" bash -c '! ibv_devices | grep -qw sroce0'
ktap_check "the same netdev can be attached again" \
	rdma link add sroce0 type sroce netdev eth0
ktap_check "and deleted again, then the module unloads" \
	bash -c 'rdma link delete sroce0 && rmmod sroce'

ip -6 addr del 2001:db8:5::1/64 dev eth0
ktap_finish
