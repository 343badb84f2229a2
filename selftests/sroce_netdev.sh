#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The port follows its netdev: carrier and admin state, MTU changes and
# port events; removing the netdev removes the device; bad "rdma link add"
# requests fail cleanly and change nothing.
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

ktap_plan 28

sroce_reset
sroce_load
ip link add sroce_d0 type dummy
ip link set sroce_d0 up

ktap_check "device on a dummy netdev" rdma link add sroce_t0 type sroce netdev sroce_d0
ktap_check "port ACTIVE with carrier up" wait_for "active" 5 test "$(sroce_port_state sroce_t0)" = ACTIVE

events=$(mktemp)
stdbuf -oL ibv_asyncwatch -d sroce_t0 >"$events" 2>&1 &
watcher=$!
wait_for "asyncwatch ready" 10 grep -q "async event FD" "$events"

port_is() {
	[ "$(sroce_port_state sroce_t0)" = "$1" ]
}

ip link set sroce_d0 carrier off
ktap_check "carrier off: port DOWN" wait_for "down" 5 port_is DOWN
ktap_check "carrier off: IBV_EVENT_PORT_ERR delivered" \
	wait_for "port err" 5 grep -q "IBV_EVENT_PORT_ERR" "$events"
ktap_check "rdma link shows the port down" \
	bash -c 'rdma link show sroce_t0/1 | grep -q "state DOWN"'
ip link set sroce_d0 carrier on
ktap_check "carrier on: port ACTIVE" wait_for "active" 5 port_is ACTIVE
ktap_check "carrier on: IBV_EVENT_PORT_ACTIVE delivered" \
	wait_for "port active" 5 grep -q "IBV_EVENT_PORT_ACTIVE" "$events"

ip link set sroce_d0 down
ktap_check "admin down: port DOWN" wait_for "down" 5 port_is DOWN
ip link set sroce_d0 up
ktap_check "admin up: port ACTIVE" wait_for "active" 5 port_is ACTIVE
ktap_check "two PORT_ERR and two PORT_ACTIVE events in all" \
	wait_for "event count" 5 bash -c "[ \$(grep -c PORT_ERR $events) = 2 ] && [ \$(grep -c PORT_ACTIVE $events) = 2 ]"
kill "$watcher" 2>/dev/null
wait "$watcher" 2>/dev/null
sed 's/^/# /' "$events"
rm -f "$events"

mtu_is() {
	[ "$(sroce_active_mtu sroce_t0)" = "$1" ]
}

for pair in 9000:4096 4176:4096 4175:2048 2200:2048 1500:1024 1104:1024 600:512 1500:1024; do
	ip link set sroce_d0 mtu "${pair%:*}"
	ktap_check "netdev MTU ${pair%:*}: active MTU ${pair#*:}" \
		wait_for "mtu" 5 mtu_is "${pair#*:}"
done

# Removing the netdev removes the device.
ktap_check "ip link del removes the device" \
	bash -c 'ip link del sroce_d0'
ktap_check "sroce_t0 is gone" wait_for "gone" 10 sroce_dev_gone sroce_t0

# Bad requests: each fails and leaves the device list as it was.
rdma link add sroce_t1 type sroce netdev eth0
before=$(rdma_links)
unchanged() {
	[ "$(rdma_links)" = "$before" ]
}
refused() {
	local desc=$1
	shift
	if "$@" 2>/dev/null; then
		ktap_fail "$desc" "request succeeded"
	elif ! unchanged; then
		ktap_fail "$desc" "device list changed"
	else
		ktap_ok "$desc"
	fi
}

refused "unknown netdev is refused" rdma link add sroce_bad type sroce netdev nosuchdev0
refused "second device on the same netdev is refused" rdma link add sroce_bad type sroce netdev eth0
ip link add sroce_d1 type dummy
refused "device name already in use is refused" rdma link add sroce_t1 type sroce netdev sroce_d1
ip link del sroce_d1
refused "loopback (non-Ethernet) netdev is refused" rdma link add sroce_bad type sroce netdev lo
ip tuntap add sroce_tun0 mode tun
refused "tun (non-Ethernet) netdev is refused" rdma link add sroce_bad type sroce netdev sroce_tun0
ip link del sroce_tun0
ip link add link eth0 name sroce_vl5 type vlan id 5
refused "VLAN netdev is refused (attach to its lower device)" rdma link add sroce_bad type sroce netdev sroce_vl5
ip link del sroce_vl5

ktap_check "the existing device still works" \
	bash -c 'ibv_devinfo -d sroce_t1 | grep -q PORT_ACTIVE'
ktap_check "cleanup: delete and unload" \
	bash -c 'rdma link delete sroce_t1 && rmmod sroce'

ktap_finish
