#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debug-kernel.sh [build|tree|abi|ko]
#
# Build the debug guest kernel of one kernel series, SROCE_KERNEL (as
# `make ... KERNEL=K` sets it; scripts/guest-kernel.sh list):
#
#   6.1      Debian's linux-source-6.1 (the same 6.1 stable release as the
#            guest kernel), in .cache/debug/
#   6.12     Debian's linux-source-6.12, in .cache/debug-6.12/
#   6.12-rt  the same with selftests/debug-rt.config on top
#            (CONFIG_PREEMPT_RT), in .cache/debug-6.12-rt/
#
# Each is x86_64_defconfig plus selftests/debug.config (KASAN, lockdep,
# atomic-sleep checks, kmemleak, debug objects, failslab/fail_function,
# UBSAN, and what the harness and the suite need), and sroce.ko against
# it.  A missing linux-source-6.12 is installed with apt-get (setup.sh
# does not: it is 150 MB, and only this script needs it).  Everything
# lands in the series' directory and is reused while the source package
# and the fragments are unchanged (a stamp records them); a fresh build
# takes about 15-30 minutes on 2 cores (28 on 5 Dec, unpacking included),
# 6.12-rt 58 minutes at nice 19 beside a busy test VM (7 Dec).
#
#   build   build if needed; print the guest tree (as .cache/guest/ABI is)
#   tree    print the guest tree, fail if it is not built
#   abi     print its kernel release
#   ko      print the path of the sroce.ko built for it
#
# scripts/vm-run.sh boots it when SROCE_GUEST_TREE and SROCE_GUEST_ABI
# name it (make test-debug does that).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
KSERIES=${SROCE_KERNEL:-6.1}
FRAGMENTS=("$REPO/selftests/debug.config")
case $KSERIES in
6.1)	D=$REPO/.cache/debug
	SRC_PKG=linux-source-6.1
	LOCALVERSION=-sroce-debug ;;
6.12)	D=$REPO/.cache/debug-6.12
	SRC_PKG=linux-source-6.12
	LOCALVERSION=-sroce-debug ;;
6.12-rt) D=$REPO/.cache/debug-6.12-rt
	SRC_PKG=linux-source-6.12
	FRAGMENTS+=("$REPO/selftests/debug-rt.config")
	LOCALVERSION=-sroce-debug-rt ;;
*)	echo "debug-kernel: unknown kernel '$KSERIES' (6.1, 6.12, 6.12-rt)" >&2
	exit 1 ;;
esac
SRC_TAR=/usr/src/$SRC_PKG.tar.xz

die() { echo "debug-kernel: $*" >&2; exit 1; }
log() { echo "debug-kernel: $*" >&2; }

stamp() {
	{
		dpkg-query -W -f='${Version}\n' "$SRC_PKG"
		sha256sum "${FRAGMENTS[@]}" | cut -d' ' -f1
	} 2>/dev/null
}

unpack() {
	if [[ ! -f $SRC_TAR && $SRC_PKG != linux-source-6.1 ]]; then
		log "installing $SRC_PKG"
		DEBIAN_FRONTEND=noninteractive apt-get -q -y \
			-o DPkg::Lock::Timeout=600 install "$SRC_PKG" >&2 ||
			die "cannot install $SRC_PKG"
	fi
	[[ -f $SRC_TAR ]] || die "$SRC_TAR missing: apt-get install $SRC_PKG"
	rm -rf "$D/src"
	mkdir -p "$D/src"
	log "unpacking $SRC_TAR"
	tar -C "$D/src" -xf "$SRC_TAR" --strip-components=1
}

configure() {
	mkdir -p "$D/build"
	make -s -C "$D/src" O="$D/build" x86_64_defconfig >/dev/null
	(cd "$D/build" && "$D/src/scripts/kconfig/merge_config.sh" -m .config "${FRAGMENTS[@]}" >/dev/null)
	make -s -C "$D/src" O="$D/build" LOCALVERSION="$LOCALVERSION" olddefconfig >/dev/null
	local missing
	# Every =y/=m line of the fragments must have survived olddefconfig.
	missing=$(grep -h -E '^CONFIG_[A-Z0-9_]+=[ym]$' "${FRAGMENTS[@]}" | while read -r l; do
		grep -qx "$l" "$D/build/.config" || echo "$l"
	done)
	[[ -z $missing ]] || die "options the kernel dropped: $(echo $missing)"
}

build_kernel() {
	local jobs kver tree
	jobs=$(nproc)
	log "building (-j$jobs); see $D/build.log"
	make -C "$D/src" O="$D/build" LOCALVERSION="$LOCALVERSION" -j"$jobs" \
		vmlinux bzImage modules >"$D/build.log" 2>&1 ||
		{ tail -30 "$D/build.log" >&2; die "kernel build failed"; }
	kver=$(make -s -C "$D/src" O="$D/build" LOCALVERSION="$LOCALVERSION" kernelrelease)
	tree=$D/guest/$kver
	rm -rf "$tree"
	mkdir -p "$tree/boot"
	# No vmlinux in the tree, so the harness boots the bzImage: this
	# KASAN kernel dies before its first console line when QEMU enters
	# it through PVH (the stock kernel's vmlinux boots that way).
	cp "$D/build/arch/x86/boot/bzImage" "$tree/boot/vmlinuz-$kver"
	make -s -C "$D/src" O="$D/build" LOCALVERSION="$LOCALVERSION" \
		INSTALL_MOD_PATH="$tree" INSTALL_MOD_STRIP=1 DEPMOD=/bin/true \
		modules_install >>"$D/build.log" 2>&1 || die "modules_install failed"
	rm -f "$tree/lib/modules/$kver/build" "$tree/lib/modules/$kver/source"
	depmod -b "$tree" "$kver"
	touch "$tree/.unpacked"
	echo "$kver" >"$D/abi"
}

# sroce.ko for the debug kernel, built from a copy of the module sources so
# that the normal build's objects are left alone.
build_module() {
	local kver tree f
	kver=$(cat "$D/abi")
	tree=$D/guest/$kver
	rm -rf "$D/mod"
	while IFS= read -r f; do
		install -D -m 0644 "$REPO/$f" "$D/mod/$f"
	done < <("$REPO/scripts/kbuild.sh" --sources)
	make -s -C "$D/build" M="$D/mod" modules >>"$D/build.log" 2>&1 ||
		{ tail -30 "$D/build.log" >&2; die "sroce.ko build failed"; }
	cp "$D/mod/drivers/sroce/sroce.ko" "$D/sroce.ko"
}

# Is the guest tree whole?  A tree whose modules were cleaned away (the
# stamp survives that) boots, but without the RDMA core every test fails.
tree_whole() {
	[[ -f $D/abi ]] &&
		compgen -G "$D/guest/$(cat "$D/abi")/lib/modules/*/kernel/drivers/infiniband/core/ib_uverbs.ko*" >/dev/null
}

case ${1:-build} in
build)
	mkdir -p "$D"
	if [[ ! -f $D/stamp || $(stamp) != "$(cat "$D/stamp")" ]] || ! tree_whole; then
		rm -f "$D/stamp"
		[[ -f $D/src/Makefile ]] || unpack
		configure
		build_kernel
		stamp >"$D/stamp"
	fi
	rm -f "$D/guest/$(cat "$D/abi")/vmlinux"	# trees built before: see above
	build_module
	echo "$D/guest/$(cat "$D/abi")"
	;;
tree)	[[ -f $D/stamp && -f $D/abi ]] || die "not built: scripts/debug-kernel.sh build"
	echo "$D/guest/$(cat "$D/abi")" ;;
abi)	cat "$D/abi" ;;
ko)	echo "$D/sroce.ko" ;;
*)	die "usage: debug-kernel.sh [build|tree|abi|ko]" ;;
esac
