#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# smoke.sh: the guest harness itself works: right kernel, eth0 configured
# (IPv4 and a usable IPv6 link-local address), RDMA core modules load from
# the unpacked Debian tree, and rdma-core's tools run.
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh

if [[ ${SROCE_GUEST:-} != 1 ]]; then
	echo "smoke.sh: run inside the test guest: scripts/vm-run.sh selftests/smoke.sh" >&2
	exit 1
fi

ktap_plan 6

# make test-debug boots its own kernel (SROCE_GUEST_ABI), make test the
# Debian kernel that SROCE_KERNEL's headers metapackage names.
abi=${SROCE_GUEST_ABI:-$(../scripts/guest-kernel.sh abi "${SROCE_KERNEL:-6.1}")}
ktap_check "guest runs the kernel the harness asked for ($abi)" test "$(uname -r)" = "$abi"
ktap_check "eth0 has 192.0.2.1/24" \
	bash -c 'ip -4 -o addr show dev eth0 | grep -q "inet 192.0.2.1/24"'
ktap_check "eth0 has a link-local IPv6 address past DAD" \
	bash -c '[ -z "$(ip -6 addr show dev eth0 tentative)" ] &&
		 ip -6 -o addr show dev eth0 scope link | grep -q "inet6 fe80:"'
ktap_check "modprobe ib_uverbs" modprobe ib_uverbs
ktap_check "/sys/class/infiniband_verbs exists" test -d /sys/class/infiniband_verbs
ktap_check "ibv_devices runs" ibv_devices

ktap_finish
