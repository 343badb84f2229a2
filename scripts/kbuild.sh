#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh KERNEL [MAKE_ARG...]
#	Run Kbuild on sroce for one supported kernel (scripts/guest-kernel.sh
#	list), against the headers its Debian metapackage points at:
#	`kbuild.sh 6.12 modules`.
# kbuild.sh --ko KERNEL
#	Print the path of the sroce.ko that `kbuild.sh KERNEL modules` makes.
# kbuild.sh --sources
#	Print what the module build needs, one path per line relative to the
#	repo: the top Kbuild, the Kbuild files and C sources under drivers/
#	and include/, never a build product (*.mod.c is one).  The copies
#	below, DKMS's source tree and the debug kernel's module build take
#	exactly these.
#
# Kbuild builds an external module in its source tree, so two kernels'
# objects cannot share one: 6.1, the default kernel, builds in the tree
# itself (drivers/sroce/sroce.ko, as a plain `make` does), every other
# kernel in a copy of the sources under .cache/build/ABI/ that is brought
# up to date first (unchanged files keep their times, so rebuilds stay
# incremental).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
DEFAULT_KERNEL=6.1

die() { echo "kbuild: $*" >&2; exit 2; }

# The directory Kbuild builds in (M=) for KERNEL.
build_dir() {
	local kernel=$1 abi
	if [[ $kernel == "$DEFAULT_KERNEL" ]]; then
		echo "$REPO"
		return
	fi
	abi=$("$REPO/scripts/guest-kernel.sh" abi "$kernel")
	echo "$REPO/.cache/build/$abi"
}

sources() {
	cd "$REPO"
	find Kbuild drivers include -type f \( -name Kbuild -o -name '*.[ch]' \) \
		! -name '*.mod.c' | LC_ALL=C sort
}

# Copy the module's sources into DIR where they differ.
sync_sources() {
	local dir=$1 f
	mkdir -p "$dir"
	while IFS= read -r f; do
		cmp -s "$REPO/$f" "$dir/$f" && continue
		mkdir -p "$dir/$(dirname "$f")"
		cp -p "$REPO/$f" "$dir/$f"
	done < <(sources)
}

if [[ ${1:-} == --sources ]]; then
	sources
	exit 0
fi
if [[ ${1:-} == --ko ]]; then
	[[ $# -eq 2 ]] || die "usage: kbuild.sh --ko KERNEL"
	echo "$(build_dir "$2")/drivers/sroce/sroce.ko"
	exit 0
fi
[[ $# -ge 1 ]] || die "usage: kbuild.sh KERNEL [MAKE_ARG...] | --ko KERNEL | --sources"
kernel=$1
shift
abi=$("$REPO/scripts/guest-kernel.sh" abi "$kernel")
kdir=/usr/src/linux-headers-$abi
[[ -d $kdir ]] || die "no $kdir: run scripts/setup.sh"
dir=$(build_dir "$kernel")
[[ $dir == "$REPO" ]] || sync_sources "$dir"
exec make -C "$kdir" M="$dir" "$@"
