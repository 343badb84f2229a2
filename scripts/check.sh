#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: build the module with sparse on every file (C=2) and the
# kernel's W=1 extra warnings, and fail on any diagnostic that points into
# our sources. Diagnostics from the kernel's own headers are not ours to fix
# and are ignored.
#
# Usage: scripts/check.sh KDIR
set -euo pipefail

kdir=${1:?usage: check.sh KDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

command -v sparse >/dev/null || { echo "check: sparse is not installed (scripts/setup.sh installs it)"; exit 1; }

# Force a full rebuild so every file is compiled and checked. (Not kbuild's
# clean over the repo: that would delete the guest modules under .cache/.)
find "$top/drivers/sroce" \( -name '*.o' -o -name '.*.cmd' \) -delete
if ! make -C "$kdir" M="$top" C=2 W=1 modules >"$log" 2>&1; then
	cat "$log"
	echo "check: build failed"
	exit 1
fi

ours=$(grep -E "^($top/)?(drivers/sroce|include/sroce)/[^:]+:[0-9]+(:[0-9]+)?: (warning|error)" "$log" || true)
if [ -n "$ours" ]; then
	echo "$ours"
	echo "check: $(echo "$ours" | wc -l) diagnostic(s) in sroce sources"
	exit 1
fi
echo "check: sparse (C=2) and W=1 clean"
