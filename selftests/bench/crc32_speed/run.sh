#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: time the ICRC's CRC-32 two ways in a guest (crc32_speed.c says
# why). On the host, from the repository:
#   selftests/bench/crc32_speed/run.sh
# builds the module into build/crc32_speed and boots a guest that runs
# this script again (SROCE_GUEST=1), which loads it and prints its lines.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=$top/build/crc32_speed
if [ "${SROCE_GUEST:-}" = 1 ]; then
	modprobe crc32_pclmul 2>/dev/null || true
	insmod "$out/crc32_speed.ko" 2>/dev/null || true	# fails on purpose
	dmesg | grep 'crc32_speed: '
	! dmesg | grep -q 'crc32_speed: .*DIFFERENT'
	exit
fi
kdir=/usr/src/linux-headers-$("$top/scripts/guest-kernel.sh" abi)
mkdir -p "$out"
cp "$here/crc32_speed.c" "$here/Kbuild" "$out/"
make -s -C "$kdir" M="$out" modules
"$top/scripts/vm-run.sh" --timeout 300 "$here/run.sh"
