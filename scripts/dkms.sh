#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dkms.sh: sroce under DKMS straight from this source tree (make
# dkms-install / dkms-uninstall), and the pieces make deb shares with it.
#
# dkms.sh version
#	Print sroce's version: the upstream part of debian/changelog's, the
#	one place it is kept.  Fails when drivers/sroce/sroce.h's
#	SROCE_VERSION (what modinfo and ibv_devinfo's fw_ver show) differs.
# dkms.sh files
#	Print what the module build needs, one path per line, relative to
#	the repo: ./Kbuild, the Kbuild files and C sources under drivers/
#	and include/.  dkms.conf comes on top.
# dkms.sh copy DEST
#	Lay out the DKMS source tree in DEST (empty or missing): those files
#	and dkms.conf with the version filled in.
# dkms.sh install [KERNELRELEASE]
#	Put the tree at /usr/src/sroce-VERSION, `dkms add` it, then build
#	and install for KERNELRELEASE (default: the running kernel).
#	AUTOINSTALL in dkms.conf makes DKMS rebuild it for kernels
#	installed later.
# dkms.sh uninstall
#	`dkms remove` this version for every kernel, delete its source tree.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

die() { echo "dkms.sh: $*" >&2; exit 1; }

version() {
	local deb mod
	deb=$(dpkg-parsechangelog -l "$REPO/debian/changelog" -S Version) ||
		die "cannot read debian/changelog (dpkg-parsechangelog is in dpkg-dev)"
	deb=${deb%-*}	# a Debian revision is not part of sroce's version
	mod=$(sed -n 's/^#define SROCE_VERSION "\(.*\)"$/\1/p' "$REPO/drivers/sroce/sroce.h")
	[[ $mod == "$deb" ]] ||
		die "debian/changelog says version $deb but drivers/sroce/sroce.h says '$mod': make them agree"
	echo "$deb"
}

# What every copy of the module's sources takes (scripts/kbuild.sh).
files() {
	"$REPO/scripts/kbuild.sh" --sources
}

copy() {
	local dest=$1 ver f
	ver=$(version)
	[[ ! -e $dest ]] || [[ -z $(ls -A "$dest") ]] || die "$dest is not empty"
	mkdir -p "$dest"
	while IFS= read -r f; do
		install -D -m 0644 "$REPO/$f" "$dest/$f"
	done < <(files)
	sed "s/#MODULE_VERSION#/$ver/" "$REPO/dkms.conf" >"$dest/dkms.conf"
}

need_root() {
	[[ $(id -u) -eq 0 ]] || die "run as root"
	command -v dkms >/dev/null || die "dkms is not installed: apt-get install dkms"
}

install_dkms() {
	local kver=${1:-$(uname -r)} ver src
	need_root
	ver=$(version)
	src=/usr/src/sroce-$ver
	# A tree of the same version from an earlier run is replaced: it may
	# hold older sources under the same name.
	if dkms status -m sroce -v "$ver" | grep -q .; then
		dkms remove -m sroce -v "$ver" --all
	fi
	rm -rf "$src"
	copy "$src"
	dkms add -m sroce -v "$ver"
	dkms install -m sroce -v "$ver" -k "$kver"
}

uninstall_dkms() {
	local ver
	need_root
	ver=$(version)
	if dkms status -m sroce -v "$ver" | grep -q .; then
		dkms remove -m sroce -v "$ver" --all
	fi
	rm -rf "/usr/src/sroce-$ver"
}

case ${1:-} in
version)	[[ $# -eq 1 ]] || die "usage: dkms.sh version"; version ;;
files)		[[ $# -eq 1 ]] || die "usage: dkms.sh files"; files ;;
copy)		[[ $# -eq 2 ]] || die "usage: dkms.sh copy DEST"; copy "$2" ;;
install)	[[ $# -le 2 ]] || die "usage: dkms.sh install [KERNELRELEASE]"
		install_dkms "${2:-}" ;;
uninstall)	[[ $# -eq 1 ]] || die "usage: dkms.sh uninstall"; uninstall_dkms ;;
*)		die "usage: dkms.sh version | files | copy DEST | install [KERNELRELEASE] | uninstall" ;;
esac
