#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sroce under this host's DKMS, natively (root; dkms and the supported
# kernels' headers from scripts/setup.sh), for what the guests' package
# test (sroce_dkms.sh) cannot reach in its one kernel:
#   1. the kernel hook: /etc/kernel/postinst.d/dkms KVER, which every
#      Debian kernel package's postinst runs, builds and installs sroce
#      for 6.12 (dkms status says installed, the module's vermagic is
#      KVER's, and, since 6.12's headers ship vmlinux, it carries its
#      .BTF);
#   2. a kernel older than 6.1, and one without
#      CONFIG_INFINIBAND_USER_ACCESS: dkms build refuses (exit 77,
#      BUILD_EXCLUSIVE) and dkms.conf's one sentence names the reason;
#   3. dkms remove --all leaves nothing of it.
# sroce is added under a version of its own (VERSION+hosttest), so a
# sroce-dkms someone installed on this host is left alone; with sroce
# already installed for one of the kernels the test fails rather than
# install a second copy beside it.  Prints TAP.
set -u
REPO=$(cd "$(dirname "$0")/../.." && pwd -P)
VER=$("$REPO/scripts/dkms.sh" version)+hosttest
SRC=/usr/src/sroce-$VER
FAKE=$(mktemp -d)
N=0
FAILED=0

ok() {
	N=$((N + 1))
	echo "ok $N - $1"
}

not_ok() {
	N=$((N + 1))
	FAILED=$((FAILED + 1))
	echo "not ok $N - $1"
	[[ -z ${2:-} ]] || sed 's/^/# /' <<<"$2"
}

# This version out of DKMS and its source tree gone.
remove_tree() {
	dkms remove -m sroce -v "$VER" --all >/dev/null 2>&1
	rm -rf "$SRC"
}

cleanup() {
	remove_tree
	rm -rf "$FAKE"
}
trap cleanup EXIT

# The kernel a Debian 12 user installs beside 6.1 (the hook is the same
# for any; the guests' package tests build for 6.1 and 6.12 too).
kernels() {
	"$REPO/scripts/guest-kernel.sh" abi 6.12
}

add_tree() {
	[[ $(id -u) -eq 0 ]] || { echo "needs root"; return 1; }
	command -v dkms >/dev/null || { echo "no dkms: run scripts/setup.sh"; return 1; }
	if dkms status -m sroce 2>/dev/null | grep -v "$VER" | grep -q installed; then
		echo "sroce is installed under DKMS here already:"
		dkms status -m sroce
		return 1
	fi
	remove_tree
	"$REPO/scripts/dkms.sh" copy "$SRC" || return 1
	sed -i "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$VER\"/" "$SRC/dkms.conf"
	dkms add -m sroce -v "$VER"
}

# The kernel hook for KVER, then what it left.
hook_builds_for() {
	local kver=$1 out ko
	out=$(/etc/kernel/postinst.d/dkms "$kver" 2>&1) ||
		{ echo "$out" | tail -n 20; return 1; }
	dkms status -m sroce -v "$VER" -k "$kver" | grep -q ": installed" ||
		{ echo "$out" | tail -n 20; dkms status -m sroce; return 1; }
	ko=$(find "/lib/modules/$kver/updates/dkms" -name 'sroce.ko*' | head -n 1)
	[[ -n $ko ]] || { echo "no sroce.ko in /lib/modules/$kver/updates/dkms"; return 1; }
	[[ $(modinfo -F vermagic "$ko") == "$kver "* ]] ||
		{ echo "$ko: vermagic $(modinfo -F vermagic "$ko")"; return 1; }
	if [[ -e /lib/modules/$kver/build/vmlinux ]]; then
		xz -dcf <"$ko" >"$FAKE/sroce.ko" || return 1
		readelf -S "$FAKE/sroce.ko" | grep -q '\.BTF ' ||
			{ echo "$ko has no .BTF section"; return 1; }
	fi
	echo "$ko"
}

# dkms build for a made-up kernel: refused with exit 77 and SENTENCE.
refused() {
	local kver=$1 config=$2 sentence=$3 out rc
	mkdir -p "$FAKE/$kver"
	echo "$config" >"$FAKE/$kver/.config"
	out=$(dkms build -m sroce -v "$VER" -k "$kver" --kernelsourcedir "$FAKE/$kver" 2>&1)
	rc=$?
	[[ $rc -eq 77 ]] && grep -qF "$sentence" <<<"$out" && return 0
	echo "exit $rc"
	echo "$out" | tail -n 10
	return 1
}

nothing_left() {
	local left
	remove_tree
	left=$(dkms status -m sroce -v "$VER" 2>/dev/null)
	[[ -z $left && ! -e /var/lib/dkms/sroce/$VER ]] || { echo "left: $left"; return 1; }
	left=$(find /lib/modules/*/updates/dkms -name 'sroce.ko*' 2>/dev/null |
	       while read -r ko; do
		       [[ $(modinfo -F version "$ko") == "$VER" ]] && echo "$ko"
	       done)
	[[ -z $left ]] || { echo "left: $left"; return 1; }
}

check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$desc"
	else
		not_ok "$desc" "$out"
	fi
}

mapfile -t KVERS < <(kernels)
echo "1..$((${#KVERS[@]} + 4))"
if ! out=$(add_tree 2>&1); then
	not_ok "dkms add sroce $VER" "$out"
	for k in "${KVERS[@]}"; do not_ok "kernel hook builds sroce for $k: not run"; done
	not_ok "older than 6.1: not run"
	not_ok "no RDMA user verbs: not run"
	not_ok "nothing left: not run"
	exit 1
fi
ok "dkms add sroce $VER"
for k in "${KVERS[@]}"; do
	check "kernel hook (/etc/kernel/postinst.d/dkms $k) builds and installs sroce for it" \
		hook_builds_for "$k"
done
check "dkms build for 5.10.0-99-amd64: refused, 'older than 6.1'" \
	refused 5.10.0-99-amd64 "CONFIG_INFINIBAND_USER_ACCESS=m" \
	"is older than 6.1, the oldest kernel sroce supports"
check "dkms build for a 6.12 kernel without RDMA user verbs: refused, says which option" \
	refused 6.12.0-99-amd64 "# CONFIG_INFINIBAND_USER_ACCESS is not set" \
	"is built without CONFIG_INFINIBAND_USER_ACCESS"
check "dkms remove --all: nothing of sroce $VER left" nothing_left
((FAILED == 0))
