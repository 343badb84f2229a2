#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: time the ICRC's CRC-32 natively on this host (crc_native.c says
# what and how). Installs libisal-dev if it is missing and this is root,
# builds, checks every implementation against slice-by-8 and prints one
# line per buffer size and implementation. Arguments go to crc_native.
#
# Usage: selftests/bench/crc_native/run.sh [-r ROUNDS] [-b BYTES] ...
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ ! -e /usr/include/isa-l/crc.h ]; then
	[ "$(id -u)" = 0 ] || { echo "crc_native: needs libisal-dev" >&2; exit 1; }
	apt-get install -y -q libisal-dev >&2
fi
make -s -C "$here" >&2
top=$(cd "$here/../../.." && pwd)
grep -m1 'model name' /proc/cpuinfo | sed 's/^/# /'
exec "$top/build/crc_native/crc_native" "$@"
