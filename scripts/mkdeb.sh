#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkdeb.sh [--no-lintian] [OUTDIR]: build the sroce-dkms package (make
# deb) and check it with lintian (make install-deb, which only installs
# what it builds, leaves the check to make deb and does without lintian).  The result is OUTDIR/sroce-dkms_VERSION_all.deb (default
# OUTDIR: .cache/deb, which git ignores); older sroce-dkms .debs there are
# removed, so OUTDIR holds exactly one.
#
# dpkg-buildpackage runs in a temporary copy that holds only what the
# package ships (debian/, the module sources of `scripts/dkms.sh files`,
# dkms.conf, README, Documentation/*.rst): no build product of the tree
# can slip into the package, and none lands in the tree.  Needs debhelper,
# dh-dkms, fakeroot and lintian (scripts/setup.sh installs them); installs
# nothing.
#
# Exit status: 0 when the package was built and lintian reported no error;
# lintian's warnings are printed, not fatal (README lists the expected
# ones).
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
LINTIAN=1
if [[ ${1:-} == --no-lintian ]]; then
	LINTIAN=
	shift
fi
OUTDIR=${1:-$REPO/.cache/deb}

die() { echo "mkdeb: $*" >&2; exit 1; }

check_tools() {
	local t
	for t in dpkg-buildpackage dh dh_dkms fakeroot ${LINTIAN:+lintian}; do
		command -v "$t" >/dev/null ||
			die "$t is missing: run scripts/setup.sh (debhelper, dh-dkms, fakeroot, lintian)"
	done
}

# stage DIR: the source package's tree, as dpkg-buildpackage wants it.
stage() {
	local dir=$1 f
	mkdir -p "$dir"
	cd "$REPO"
	{
		"$REPO/scripts/dkms.sh" files
		# debian/ less what an in-tree dpkg-buildpackage leaves there
		find debian -type f ! -path 'debian/sroce-dkms/*' \
			! -path 'debian/.debhelper/*' ! -name files \
			! -name '*.substvars' ! -name '*.debhelper*' \
			! -name debhelper-build-stamp
		echo dkms.conf
		echo README
		ls Documentation/*.rst
	} | while IFS= read -r f; do
		install -D -m 0644 "$f" "$dir/$f"
	done
	chmod 0755 "$dir/debian/rules"
	cd - >/dev/null
}

main() {
	local ver tmp src deb rc=0
	check_tools
	ver=$("$REPO/scripts/dkms.sh" version)
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/sroce-deb.XXXXXX")
	# shellcheck disable=SC2064	# expand $tmp now: it is local
	trap "rm -rf '$tmp'" EXIT
	src=$tmp/sroce-$ver
	stage "$src"
	# -b: binary packages only (the source package is this repo);
	# --no-sign: a local build, nobody's key to sign with.
	(cd "$src" && dpkg-buildpackage -b --no-sign) >"$tmp/build.log" 2>&1 || {
		cat "$tmp/build.log" >&2
		die "dpkg-buildpackage failed"
	}
	deb=$tmp/sroce-dkms_${ver}_all.deb
	[[ -f $deb ]] || die "dpkg-buildpackage made no $(basename "$deb")"
	# Replaced by a rename, never missing for a moment: a guest test may
	# be reading OUTDIR while another make deb runs.
	mkdir -p "$OUTDIR"
	cp "$deb" "$OUTDIR/.$(basename "$deb").tmp"
	mv -f "$OUTDIR/.$(basename "$deb").tmp" "$OUTDIR/$(basename "$deb")"
	deb=$OUTDIR/$(basename "$deb")
	for f in "$OUTDIR"/sroce-dkms_*.deb; do
		[[ $f == "$deb" ]] || rm -f "$f"
	done
	echo "mkdeb: $deb"
	# The files it ships, the DKMS source tree summed up in one line.
	dpkg-deb --contents "$deb" | awk '
		$NF ~ /\/$/ { next }
		$NF ~ /^\.\/usr\/src\// { n++; src = $NF; next }
		{ sub(/^\./, "", $NF); print "mkdeb:   " $NF }
		END { sub(/^\.\/usr\/src\//, "", src); sub(/\/.*/, "", src)
		      printf "mkdeb:   /usr/src/%s/ (%d files)\n", src, n }'
	[[ -n $LINTIAN ]] || return 0
	# lintian prints one line per tag, "E: ..." for errors.
	lintian --display-info "$deb" >"$tmp/lintian.log" 2>&1 || rc=$?
	sed 's/^/mkdeb: lintian: /' "$tmp/lintian.log"
	if grep -q '^E: ' "$tmp/lintian.log" || ((rc != 0)); then
		die "lintian reports errors (exit $rc)"
	fi
	echo "mkdeb: lintian: $(grep -c '^W: ' "$tmp/lintian.log" || true) warning(s), no errors"
}

main "$@"
