#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# KERNEL is one of the kernel series sroce supports (`guest-kernel.sh
# list`), named as `make test KERNEL=...` names them; 6.1 when left out:
#	6.1       Debian 12's own kernel         linux-headers-amd64
#	6.12      Debian 12's 6.12 series        linux-headers-6.12-amd64
#	6.12-rt   its PREEMPT_RT flavour         linux-headers-6.12-rt-amd64
#
# guest-kernel.sh list
#	Print the supported KERNEL names, one per line.
# guest-kernel.sh headers-package KERNEL
#	Print the name of KERNEL's headers metapackage.
# guest-kernel.sh abi [KERNEL]
#	Print the kernel ABI (uname -r of the guest, e.g. 6.1.0-57-amd64) that
#	the installed headers metapackage of KERNEL points at.  Modules are
#	built against those headers, so the guest must boot exactly that ABI.
# guest-kernel.sh fetch CACHEDIR [KERNEL]
#	Make sure CACHEDIR/guest/ABI holds the unpacked Debian kernel image
#	(boot/vmlinuz-ABI, lib/modules/ABI with depmod output) and vmlinux,
#	the uncompressed kernel; print the ABI.  The .deb is unpacked with
#	dpkg -x, never installed: this machine's own kernel stays untouched.
#	A damaged tree (see verify) is unpacked again from the kept .deb.
#	lib/modules/ABI/build points at /usr/src/linux-headers-ABI, as
#	Debian's headers package makes it on a real host.
# guest-kernel.sh verify KTREE ABI
#	Exit 0 iff the unpacked tree is complete.  Adds the build link to a
#	tree unpacked before fetch made it.
#
# Why vmlinux: qemu boots an ELF kernel through its PVH entry point, which
# skips the BIOS boot path and the in-guest XZ decompression; under TCG that
# brings the first kernel message from ~5 s to ~1 s after qemu starts.
set -euo pipefail

die() { echo "guest-kernel: $*" >&2; exit 1; }

# apt-get download writes into the current directory; running it as root in
# a directory _apt cannot read only costs a warning, so say root is fine.
APT_OPTS=(-q -o APT::Sandbox::User=root -o DPkg::Lock::Timeout=600)

KERNELS=(6.1 6.12 6.12-rt)

headers_package() {
	case $1 in
	6.1)		echo linux-headers-amd64 ;;
	6.12|6.12-rt)	echo "linux-headers-$1-amd64" ;;
	*)		die "unknown kernel '$1': sroce supports ${KERNELS[*]}" ;;
	esac
}

resolve_abi() {
	local pkg dep
	pkg=$(headers_package "${1:-6.1}")
	dep=$(dpkg-query -W -f='${Depends}' "$pkg" 2>/dev/null) ||
		die "$pkg is not installed (run scripts/setup.sh)"
	# "linux-headers-6.1.0-57-amd64 (= 6.1.192-3)" -> 6.1.0-57-amd64,
	# "linux-headers-6.12.118+deb12-rt-amd64 (= ...)" -> 6.12.118+deb12-rt-amd64
	[[ $dep =~ linux-headers-([0-9][^ ,]*-amd64) ]] ||
		die "cannot parse $pkg Depends: '$dep'"
	echo "${BASH_REMATCH[1]}"
}

# Download the image .deb matching the installed headers' version when apt
# still offers it, else any version of the same ABI (Debian keeps the module
# ABI stable within one ABI name).
download_image() {
	local abi=$1 pkg="linux-image-$1-unsigned" ver
	ver=$(dpkg-query -W -f='${Version}' "linux-headers-$abi" 2>/dev/null || true)
	if [[ -n $ver ]] && apt-get "${APT_OPTS[@]}" download "$pkg=$ver" 2>/dev/null; then
		return
	fi
	apt-get "${APT_OPTS[@]}" download "$pkg" 2>/dev/null && return
	echo "guest-kernel: $pkg not in the apt lists, running apt-get update" >&2
	apt-get "${APT_OPTS[@]}" update >/dev/null
	if [[ -n $ver ]] && apt-get "${APT_OPTS[@]}" download "$pkg=$ver"; then
		return
	fi
	apt-get "${APT_OPTS[@]}" download "$pkg" || die "cannot download $pkg"
}

# Find the compressed payload in a bzImage by its magic and decompress it;
# what the kernel's scripts/extract-vmlinux does.  Trailing data after the
# stream makes the decompressors complain, hence the checks on the result.
extract_vmlinux() {
	local bz=$1 out=$2 magic tool off
	for magic in "xz:\xfd7zXZ" "zstd:\x28\xb5\x2f\xfd" "gzip:\x1f\x8b\x08"; do
		tool=${magic%%:*}
		while read -r off; do
			tail -c +$((off + 1)) "$bz" | "$tool" -dc >"$out.tmp" 2>/dev/null || true
			if [[ -s $out.tmp ]] && [[ $(head -c 4 "$out.tmp" | od -An -tx1 | tr -d ' ') == 7f454c46 ]]; then
				mv -f "$out.tmp" "$out"
				return 0
			fi
		done < <(LC_ALL=C grep -abo "$(printf '%b' "${magic#*:}")" "$bz" 2>/dev/null |
			 cut -d: -f1 | head -n 3)
	done
	rm -f "$out.tmp"
	return 1
}

# vmlinux next to the unpacked tree; optional (vm-run falls back to vmlinuz).
ensure_vmlinux() {
	local dir=$1 abi=$2
	[[ -f $dir/vmlinux || -f $dir/.no-vmlinux ]] && return
	if ! extract_vmlinux "$dir/boot/vmlinuz-$abi" "$dir/vmlinux"; then
		echo "guest-kernel: cannot extract vmlinux; guests boot the bzImage (slower)" >&2
		touch "$dir/.no-vmlinux"
	fi
}

# The guest sees lib/modules/ABI of the unpacked tree at /lib/modules/ABI
# (scripts/guest-init.sh), over the directory where Debian's headers
# package puts the link /lib/modules/ABI/build -> /usr/src/linux-headers-ABI
# on a real host; DKMS and any other build for the running kernel look
# there.  The guest's root is this machine's, so the headers are there.
# depmod never descends into "build", and nothing deletes through a link.
# Never fails: a tree without the link is still a complete tree.
ensure_build_link() {
	local mod=$1/lib/modules/$2
	[[ -L $mod/build || ! -d $mod ]] && return 0
	ln -s "/usr/src/linux-headers-$2" "$mod/build" 2>/dev/null || true
}

# Is the unpacked tree complete?  Kbuild's `make clean` with M= pointing at
# the repo deletes every *.ko and modules.order below it, .cache/ included,
# so this checks every module named in modules.order, not just a stamp.
# A complete tree also gets the build link, which trees unpacked before
# fetch made it lack: every guest boot checks its tree here first.
verify() {
	local dir=$1 abi=$2 mod m
	mod=$dir/lib/modules/$abi
	[[ -f $dir/.unpacked && -f $dir/boot/vmlinuz-$abi && -f $mod/modules.order &&
	   -f $mod/modules.dep ]] || return 1
	# modules.order names NAME.ko; 6.12's packages ship NAME.ko.xz.
	while read -r m; do
		[[ -f $mod/$m || -f $mod/$m.xz || -f $mod/$m.zst ]] || return 1
	done <"$mod/modules.order"
	ensure_build_link "$dir" "$abi"
}

# The .deb is kept (~70 MB) so a damaged tree is restored without a download.
get_deb() {
	local cache=$1 abi=$2 debs=$1/guest/debs deb
	mkdir -p "$debs"
	deb=$(ls "$debs/linux-image-$abi-unsigned_"*.deb 2>/dev/null | tail -n 1)
	if [[ -z $deb ]]; then
		(cd "$debs" && download_image "$abi") >&2
		deb=$(ls "$debs/linux-image-$abi-unsigned_"*.deb 2>/dev/null | tail -n 1)
	fi
	[[ -n $deb ]] || die "no linux-image-$abi-unsigned .deb after download"
	echo "$deb"
}

fetch() {
	local cache=$1 abi dir tmp deb
	abi=$(resolve_abi "${2:-}")
	dir=$cache/guest/$abi
	if verify "$dir" "$abi"; then
		ensure_vmlinux "$dir" "$abi"
		echo "$abi"
		return
	fi
	[[ ! -e $dir ]] || echo "guest-kernel: $dir incomplete, unpacking again" >&2
	deb=$(get_deb "$cache" "$abi")
	tmp=$(mktemp -d "$cache/guest/.fetch.XXXXXX")
	# shellcheck disable=SC2064	# expand $tmp now: it is local
	trap "rm -rf '$tmp'" EXIT
	dpkg -x "$deb" "$tmp/root"
	[[ -f $tmp/root/boot/vmlinuz-$abi ]] || die "no boot/vmlinuz-$abi in $deb"
	depmod -b "$tmp/root" "$abi"
	ensure_build_link "$tmp/root" "$abi"
	rm -rf "$dir"
	mv "$tmp/root" "$dir"
	touch "$dir/.unpacked"
	ensure_vmlinux "$dir" "$abi"
	echo "$abi"
}

case ${1:-} in
list)	printf '%s\n' "${KERNELS[@]}" ;;
headers-package)
	[[ $# -eq 2 ]] || die "usage: guest-kernel.sh headers-package KERNEL"
	headers_package "$2" ;;
abi)	[[ $# -le 2 ]] || die "usage: guest-kernel.sh abi [KERNEL]"
	resolve_abi "${2:-}" ;;
fetch)	[[ $# -eq 2 || $# -eq 3 ]] || die "usage: guest-kernel.sh fetch CACHEDIR [KERNEL]"
	fetch "$2" "${3:-}" ;;
verify)	[[ $# -eq 3 ]] || die "usage: guest-kernel.sh verify KTREE ABI"
	verify "$2" "$3" ;;
*)	die "usage: guest-kernel.sh list | headers-package KERNEL | abi [KERNEL] | fetch CACHEDIR [KERNEL] | verify KTREE ABI" ;;
esac
