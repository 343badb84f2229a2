#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# setup.sh: prepare this machine (Debian 12, as root) to build sroce and run
# its tests.  Idempotent: a second run does no apt work and finishes in well
# under two seconds.
#
#   1. install the Debian packages the build and the guest tests use
#   2. for every supported kernel (scripts/guest-kernel.sh list: Debian 12's
#      6.1, 6.12 and 6.12 PREEMPT_RT), unpack the guest kernel matching its
#      headers metapackage into .cache/guest/ABI/ (plus vmlinux for a fast
#      PVH boot; the .deb stays in .cache/guest/debs/)
#   3. build .cache/guest/ABI/initramfs.cpio.gz for each
#   4. take kselftest.h and kselftest_harness.h from linux-source-6.1 into
#      .cache/kselftest/
#
# Everything generated lives under .cache/ in the repo, which git ignores.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CACHE=$REPO/.cache

# The guest root is this machine's root filesystem, so packages the tests run
# in the guest (rdma-core, perftest, pyverbs, nvme-cli, fio, tcpdump, ping) are
# installed here too.  The NFS over RDMA test starts rpcbind, rpc.nfsd and
# rpc.mountd by hand from nfs-kernel-server, nfs-common and rpcbind.
# dkms, debhelper, dh-dkms and lintian build and check the sroce-dkms
# package (make deb) and install it in the guest tests.
PACKAGES=(
	linux-headers-amd64 linux-headers-6.12-amd64 linux-headers-6.12-rt-amd64
	dkms debhelper dh-dkms lintian fakeroot
	gcc make bc bison flex libelf-dev libssl-dev sparse
	qemu-system-x86 busybox-static cpio kmod xz-utils zstd
	iproute2 procps rdma-core ibverbs-utils ibverbs-providers rdmacm-utils
	perftest python3-pyverbs libibverbs-dev librdmacm-dev
	nvme-cli fio tcpdump iputils-ping nfs-kernel-server nfs-common rpcbind
	linux-source-6.1
)
# The kselftest headers come from this tarball (shipped by linux-source-6.1).
KSRC_TARBALL=/usr/src/linux-source-6.1.tar.xz
KSELFTEST_HEADERS=(kselftest.h kselftest_harness.h)

die() { echo "setup: $*" >&2; exit 1; }

missing_packages() {
	local -A ok=()
	local status pkg
	while read -r status pkg; do
		[[ $status == ii ]] && ok[$pkg]=1
	done < <(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' \
		 "${PACKAGES[@]}" 2>/dev/null || true)
	for pkg in "${PACKAGES[@]}"; do
		[[ -n ${ok[$pkg]:-} ]] || echo "$pkg"
	done
}

# Another apt/dpkg (unattended-upgrades, a parallel setup) may hold the
# locks; DPkg::Lock::Timeout covers dpkg's lock and this loop the lists lock.
apt_retry() {
	local err
	for _ in $(seq 60); do
		if err=$(apt-get -q -o DPkg::Lock::Timeout=600 "$@" 2>&1 >/dev/null); then
			return 0
		fi
		grep -q 'Could not get lock' <<<"$err" || { echo "$err" >&2; return 1; }
		sleep 5
	done
	echo "$err" >&2
	return 1
}

install_packages() {
	local missing
	mapfile -t missing < <(missing_packages)
	[[ ${#missing[@]} -eq 0 ]] && return
	[[ $(id -u) -eq 0 ]] || die "need root to install: ${missing[*]}"
	echo "setup: installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt_retry update
	apt_retry install -y --no-install-recommends "${missing[@]}"
}

# Rebuild the initramfs when it is missing or older than its generator or
# the module tree it was built from.
build_initramfs() {
	local abi=$1 ktree=$CACHE/guest/$1 img=$CACHE/guest/$1/initramfs.cpio.gz
	if [[ -f $img && $img -nt $REPO/scripts/mkinitramfs.sh &&
	      $img -nt $ktree/.unpacked ]]; then
		return
	fi
	"$REPO/scripts/mkinitramfs.sh" "$ktree" "$abi" "$img"
}

# Extract only the named members: xz has to stream the whole tarball
# (~15 s), so this is stamped and done once.
extract_kselftest() {
	local dir=$CACHE/kselftest tmp h members=()
	[[ -f $dir/.stamp ]] && return
	[[ -f $KSRC_TARBALL ]] || die "$KSRC_TARBALL missing (install linux-source-6.1)"
	for h in "${KSELFTEST_HEADERS[@]}"; do
		members+=("*/tools/testing/selftests/$h")
	done
	mkdir -p "$CACHE"
	tmp=$(mktemp -d "$CACHE/.kselftest.XXXXXX")
	# shellcheck disable=SC2064	# expand $tmp now: it is local
	trap "rm -rf '$tmp'" EXIT
	tar -xJf "$KSRC_TARBALL" -C "$tmp" --wildcards "${members[@]}"
	mkdir -p "$dir"
	for h in "${KSELFTEST_HEADERS[@]}"; do
		cp "$tmp"/*/tools/testing/selftests/"$h" "$dir/$h"
	done
	rm -rf "$tmp"
	trap - EXIT
	touch "$dir/.stamp"
}

main() {
	local start=$SECONDS abi abis=() kernel
	install_packages
	for kernel in $("$REPO/scripts/guest-kernel.sh" list); do
		abi=$("$REPO/scripts/guest-kernel.sh" fetch "$CACHE" "$kernel")
		build_initramfs "$abi"
		abis+=("$abi")
	done
	extract_kselftest
	echo "setup: ok: guest kernels ${abis[*]} in .cache/guest/," \
	     "initramfs and kselftest headers ready ($((SECONDS - start))s)"
}

main "$@"
