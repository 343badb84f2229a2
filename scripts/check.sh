#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the layers of Documentation/design.rst
# (scripts/check-layers.sh), then build the module with sparse on every
# file (C=2) and the kernel's W=1 extra warnings, against every supported
# kernel's headers (scripts/guest-kernel.sh list), and fail on any
# diagnostic that points into our sources. Diagnostics from the kernel's
# own headers are not ours to fix and are ignored.
#
# Usage: scripts/check.sh [KERNEL...]   (default: every supported kernel)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
log=$(mktemp)
trap 'rm -f "$log"' EXIT

command -v sparse >/dev/null || { echo "check: sparse is not installed (scripts/setup.sh installs it)"; exit 1; }

# check_kernel KERNEL: 0 when clean.
check_kernel() {
	local kernel=$1 dir ours
	dir=$(dirname "$("$top/scripts/kbuild.sh" --ko "$kernel")")
	# Force a full rebuild so every file is compiled and checked. (Not
	# kbuild's clean over the repo: that would delete the guest modules
	# under .cache/.)
	[[ ! -d $dir ]] || find "$dir" \( -name '*.o' -o -name '.*.cmd' \) -delete
	if ! "$top/scripts/kbuild.sh" "$kernel" -j"$(nproc)" C=2 W=1 modules >"$log" 2>&1; then
		cat "$log"
		echo "check: $kernel: build failed"
		return 1
	fi
	ours=$(grep -E "^([^:]*/)?(drivers/sroce|include/sroce)/[^:]+:[0-9]+(:[0-9]+)?: (warning|error)" "$log" || true)
	if [ -n "$ours" ]; then
		echo "$ours"
		echo "check: $kernel: $(echo "$ours" | wc -l) diagnostic(s) in sroce sources"
		return 1
	fi
	echo "check: $kernel ($("$top/scripts/guest-kernel.sh" abi "$kernel")): sparse (C=2) and W=1 clean"
}

kernels=("$@")
[[ ${#kernels[@]} -gt 0 ]] || mapfile -t kernels < <("$top/scripts/guest-kernel.sh" list)
rc=0
"$top/scripts/check-layers.sh" || rc=1
for k in "${kernels[@]}"; do
	check_kernel "$k" || rc=1
done
exit $rc
