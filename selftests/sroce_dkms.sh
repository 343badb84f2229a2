#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The sroce-dkms package, used the way a user does: installed (by the
# README's `make install-deb`, or by `apt-get install` of the .deb that
# `make deb` left on the host, below), DKMS builds sroce for the running
# kernel, the module it installed is the one that loads, a device on eth0
# moves data that is checked (ibv_rc_pingpong -c, rping -V), and `apt-get
# remove --purge` takes everything away again.
#
# The harness's own sroce.ko (updates/sroce.ko in the guest's module tree)
# is set aside first, so that only DKMS's can load, and put back with the
# harness's depmod output at the end, whatever happened: later tests in
# the same boot find the guest as it was.  All of it happens in the guest's
# tmpfs overlay; nothing reaches the host.
#
# Two things the guest lacks and every real host has, given to it for the
# test: /dev/fd, which udev creates on a host (DKMS reads its own output
# through <(...) and fails without it), and a /boot of its own: the
# guest's is this machine's, listing the kernels installed here rather
# than the one the guest runs, and DKMS's package hook would also build
# for the newest of those.  An empty /boot makes the guest a machine with
# one kernel, the running one.
#
# Two ways in, both a user's:
#   SROCE_DKMS_INSTALL=make  (default) the README's one command: `make
#                            install-deb` in a writable copy of this tree's
#                            tracked files (the guest sees the tree read
#                            only): it apt-gets what it needs (all of it
#                            already on the guest's root), builds the
#                            package with lintian and apt-get installs it
#   SROCE_DKMS_INSTALL=deb   `apt-get install` of the .deb that `make deb`
#                            left in SROCE_DKMS_DEB_DIR (.cache/deb)
# sroce-timeout: 2700
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

REPO=$(cd .. && pwd)
INSTALL_WAY=${SROCE_DKMS_INSTALL:-make}
DEB_DIR=${SROCE_DKMS_DEB_DIR:-$REPO/.cache/deb}
KVER=$(uname -r)
MODDIR=/lib/modules/$KVER
SAVE=$(mktemp -d)
TREE=$SAVE/tree
ADDR4=192.0.2.1
GID4=0000:0000:0000:0000:0000:ffff:c000:0201
RPING_PORT=7301
RPING_COUNT=20
RPING_SIZE=4000
export DEBIAN_FRONTEND=noninteractive
case $INSTALL_WAY in
make|deb) ;;
*)	echo "sroce_dkms.sh: SROCE_DKMS_INSTALL is make or deb, not '$INSTALL_WAY'" >&2
	exit 2 ;;
esac

DEB=
VERSION=
BOOT_HIDDEN=
HARNESS_SAVED=
DEVFD_MADE=
SAVE_KO_WAS=

# The one package make deb made; sets DEB and VERSION.
find_deb() {
	local debs=("$DEB_DIR"/sroce-dkms_*_all.deb)
	if [[ ! -f ${debs[0]} ]]; then
		echo "no sroce-dkms_*_all.deb in $DEB_DIR: run make deb on the host first"
		return 1
	fi
	if ((${#debs[@]} != 1)); then
		echo "more than one package in $DEB_DIR: ${debs[*]##*/}"
		return 1
	fi
	DEB=${debs[0]}
	VERSION=$(dpkg-deb -f "$DEB" Version) || return 1
	echo "$DEB (version $VERSION)"
}

# Take the harness's sroce.ko out of the module tree, keeping it and the
# depmod output that lists it (DKMS's depmod rewrites modules.dep); give
# the guest /dev/fd and a /boot of its own (above).
prepare_guest() {
	cp -a "$MODDIR"/modules.* "$SAVE/" || return 1
	if [[ -e $MODDIR/updates/sroce.ko ]]; then
		SAVE_KO_WAS=$MODDIR/updates/sroce.ko
		mv "$MODDIR/updates/sroce.ko" "$SAVE/sroce.ko" || return 1
	fi
	HARNESS_SAVED=1
	mount -t tmpfs -o mode=0755 tmpfs /boot || return 1
	BOOT_HIDDEN=1
	if [[ ! -e /dev/fd ]]; then
		ln -s /proc/self/fd /dev/fd || return 1
		DEVFD_MADE=1
	fi
	[[ -e <(:) ]] || { echo "no process substitution even with /dev/fd"; return 1; }
}

# Put back what prepare_guest changed.  Copies, not a depmod: the
# harness's files exactly, in a fraction of a depmod's time under TCG.
# (dkms remove deletes updates/ once it is empty.)
restore_harness() {
	if [[ -n $HARNESS_SAVED ]]; then
		if [[ -e $SAVE/sroce.ko ]]; then
			mkdir -p "$MODDIR/updates" &&
				mv "$SAVE/sroce.ko" "$MODDIR/updates/sroce.ko" || return 1
		fi
		rm -f "$MODDIR"/modules.*
		cp -a "$SAVE"/modules.* "$MODDIR/" || return 1
		HARNESS_SAVED=
	fi
	if [[ -n $BOOT_HIDDEN ]]; then
		umount /boot
		BOOT_HIDDEN=
	fi
	if [[ -n $DEVFD_MADE ]]; then
		rm -f /dev/fd
		DEVFD_MADE=
	fi
}

# The last step: the guest is as the harness left it.
guest_restored() {
	restore_harness || return 1
	local want=${SAVE_KO_WAS:-}
	[[ -z $want ]] || [[ $(modinfo -n sroce 2>&1) == "$want" ]] ||
		{ echo "modinfo -n sroce: $(modinfo -n sroce 2>&1), expected $want"; return 1; }
	mountpoint -q /boot && { echo "/boot still covered"; return 1; }
	return 0
}

# dpkg's state of the package: installed, half-configured, ...; empty or
# not-installed when dpkg holds nothing of it.
pkg_state() {
	dpkg-query -W -f='${db:Status-Status}' sroce-dkms 2>/dev/null
}

pkg_absent() {
	local st
	st=$(pkg_state)
	[[ -z $st || $st == not-installed ]]
}

# On any way out: no device, no module, no package, the harness restored.
cleanup() {
	sroce_reset 2>/dev/null
	if ! pkg_absent; then
		echo "# cleanup: purging sroce-dkms"
		apt-get remove --purge -y -q sroce-dkms >/dev/null 2>&1 ||
			dpkg --purge --force-all sroce-dkms >/dev/null 2>&1
	fi
	restore_harness
	rm -rf "$SAVE"
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# seconds since $1 ($EPOCHREALTIME), for the log
since() {
	echo $((($(_ktap_usec "$EPOCHREALTIME") - $(_ktap_usec "$1")) / 1000000))
}

# Run a command that installs the package, then show what DKMS logged if
# its build failed.  The build takes minutes under TCG: the command's lines
# go to the test's output as they come (fd 3), timed, besides
# ktap_check's copy.
run_install() {
	local rc t0=$EPOCHREALTIME line log
	"$@" 2>&1 | while IFS= read -r line; do
		echo "$line"
		echo "# [$(since "$t0") s] $line" >&3
	done
	rc=${PIPESTATUS[0]}
	if ((rc != 0)); then
		for log in /var/lib/dkms/sroce/*/build/make.log; do
			[[ -f $log ]] || continue
			echo "--- $log (end) ---"
			tail -n 40 "$log"
		done
	fi
	return "$rc"
}

install_deb() {
	run_install apt-get install -y "$DEB"
}

# The tree's tracked files as they are in the working tree (a developer's
# uncommitted edits included), copied where make may write.
copy_tree() {
	local f
	mkdir -p "$TREE" || return 1
	git -C "$REPO" ls-files -z | while IFS= read -r -d '' f; do
		[[ ! -e $REPO/$f ]] || printf '%s\0' "$f"
	done | (cd "$REPO" && xargs -0 cp --parents -t "$TREE") || return 1
	echo "$(find "$TREE" -type f | wc -l) files in $TREE"
}

# The README's one command, in that copy; the package it made is then
# DEB_DIR's.
make_install_deb() {
	copy_tree || return 1
	run_install make -C "$TREE" install-deb || return 1
	DEB_DIR=$TREE/.cache/deb
}

dkms_installed_here() {
	local st
	st=$(dkms status -m sroce 2>/dev/null)
	echo "dkms status: $st"
	[[ $st == "sroce/$VERSION, $KVER, "*": installed"* ]]
}

# modprobe finds DKMS's build, the version packaged, signed by DKMS.
dkms_module_is_modprobes() {
	local path signer ver
	path=$(modinfo -n sroce) || return 1
	ver=$(modinfo -F version sroce)
	signer=$(modinfo -F signer sroce)
	echo "modinfo: $path, version $ver, signer '$signer'"
	[[ $path == "$MODDIR/updates/dkms/sroce.ko"* && -f $path ]] &&
		[[ $ver == "$VERSION" ]] && [[ $signer == "DKMS module signing key" ]]
}

# "rdma-link-rxe" (what the kernel asks modprobe for on "rdma link add
# NAME type rxe") resolves to nothing; rdma_rxe by name still does.
# modprobe -n: resolve, load nothing.
rxe_alias_blacklisted() {
	local alias byname
	alias=$(modprobe -n -v rdma-link-rxe 2>&1)
	byname=$(modprobe -n -v rdma_rxe 2>&1)
	echo "modprobe -n -v rdma_rxe: $(tr '\n' ' ' <<<"$byname")"
	echo "modprobe -n -v rdma-link-rxe: '${alias}'"
	[[ -f /lib/modprobe.d/sroce.conf ]] && [[ $alias != *rdma_rxe* ]] &&
		[[ $byname == *rdma_rxe* || -e /sys/module/rdma_rxe ]]
}

# "rdma link add" loads sroce by its alias, as after a reboot.
link_add_loads_dkms_module() {
	modprobe ib_uverbs && modprobe rdma_ucm || return 1
	rdma link add sroce0 type sroce netdev eth0 || return 1
	[[ -e /sys/module/sroce ]] || { echo "sroce is not loaded"; return 1; }
	echo "loaded sroce: version $(cat /sys/module/sroce/version)," \
	     "srcversion $(cat /sys/module/sroce/srcversion)"
	[[ $(cat /sys/module/sroce/version) == "$VERSION" ]] &&
		[[ $(cat /sys/module/sroce/srcversion) == "$(modinfo -F srcversion sroce)" ]]
}

# ibv_rc_pingpong -c: both sides check every buffer they receive.
pingpong() {
	local idx slog clog spid crc src
	idx=$(sroce_gid_index sroce0 $GID4) || { echo "no RoCE v2 GID for $ADDR4"; return 1; }
	slog=$(mktemp) clog=$(mktemp)
	timeout 60 ibv_rc_pingpong -d sroce0 -g "$idx" -n 500 -c >"$slog" 2>&1 &
	spid=$!
	sroce_wait_listen 18515
	timeout 60 ibv_rc_pingpong -d sroce0 -g "$idx" -n 500 -c 127.0.0.1 >"$clog" 2>&1
	crc=$?
	wait "$spid"
	src=$?
	sed 's/^/client: /' "$clog"
	sed 's/^/server: /' "$slog"
	rm -f "$slog" "$clog"
	[[ $crc == 0 && $src == 0 ]]
}

cm_listening() {
	rdma resource show cm_id 2>/dev/null | grep -E "state LISTEN .*:$1( |$)" | grep -q .
}

# One rping pair; sets RC_C, RC_S and the logs' names.
rping_once() {
	local spid t=100
	SLOG=$(mktemp) CLOG=$(mktemp)
	timeout 60 rping -s -a $ADDR4 -p $RPING_PORT -v -V -S $RPING_SIZE >"$SLOG" 2>"$SLOG.err" &
	spid=$!
	wait_for "rping server listening" 20 cm_listening $RPING_PORT
	timeout 60 rping -c -a $ADDR4 -p $RPING_PORT -C $RPING_COUNT -v -V -S $RPING_SIZE \
		>"$CLOG" 2>"$CLOG.err"
	RC_C=$?
	while kill -0 "$spid" 2>/dev/null && ((t-- > 0)); do sleep 0.2; done
	kill "$spid" 2>/dev/null
	wait "$spid"
	RC_S=$?
}

# rping -V: the client checks each ping's data; its output and the
# server's must be exactly rping's pattern (rping_check, sroce_lib.sh).
# Once more if rdma-core 44's rping hit its own exit race.
rping_verified() {
	local attempt ok=0 out
	for attempt in 1 2; do
		rping_once
		if [[ $attempt == 1 ]] && { ((RC_C != 0)) || ((RC_S != 0)); } &&
		   rping_exit_race "exit $RC_C exit $RC_S $(cat "$CLOG" "$CLOG.err" "$SLOG" "$SLOG.err")"; then
			echo "rping's exit race, running it again"
			rm -f "$SLOG" "$SLOG.err" "$CLOG" "$CLOG.err"
			continue
		fi
		break
	done
	echo "client exit $RC_C, server exit $RC_S"
	if ((RC_C == 0 && RC_S == 0)) && ! grep -q 'data mismatch' "$CLOG.err" &&
	   out=$(rping_check "$CLOG" "ping data: " $RPING_SIZE $RPING_COUNT) &&
	   out=$(rping_check "$SLOG" "server ping data: " $RPING_SIZE $RPING_COUNT); then
		ok=1
		echo "$RPING_COUNT pings of $RPING_SIZE bytes, data as rping's pattern on both sides"
	else
		echo "${out:-}"
		sed 's/^/client: /' "$CLOG" | cut -c1-160 | tail -n 5
		sed 's/^/client stderr: /' "$CLOG.err"
		sed 's/^/server stderr: /' "$SLOG.err"
	fi
	rm -f "$SLOG" "$SLOG.err" "$CLOG" "$CLOG.err"
	((ok))
}

link_delete_unload() {
	rdma link delete sroce0 && sroce_dev_gone sroce0 && rmmod sroce
}

purge_deb() {
	apt-get remove --purge -y sroce-dkms
}

# Nothing of the package is left, and no sroce module for modprobe.
all_gone() {
	local left=()
	pkg_absent || left+=("package: dpkg says $(pkg_state)")
	[[ -z $(dkms status -m sroce 2>/dev/null) ]] || left+=("dkms status: $(dkms status -m sroce)")
	[[ ! -e /var/lib/dkms/sroce ]] || left+=("/var/lib/dkms/sroce")
	compgen -G "/usr/src/sroce-*" >/dev/null && left+=(/usr/src/sroce-*)
	compgen -G "$MODDIR/updates/dkms/sroce.ko*" >/dev/null && left+=("$MODDIR"/updates/dkms/sroce.ko*)
	[[ ! -e /lib/modprobe.d/sroce.conf ]] || left+=(/lib/modprobe.d/sroce.conf)
	modinfo -n sroce >/dev/null 2>&1 && left+=("modinfo finds $(modinfo -n sroce)")
	((${#left[@]} == 0)) && return 0
	printf 'left behind: %s\n' "${left[@]}"
	return 1
}

PREPARE="harness sroce.ko set aside; /boot of its own, /dev/fd as on a host|prepare_guest"
if [[ $INSTALL_WAY == make ]]; then
	STEPS=(
	"$PREPARE"
	"make install-deb in a copy of the tree (DKMS builds sroce for $KVER)|make_install_deb"
	"the sroce-dkms package it built and installed|find_deb"
	)
else
	STEPS=(
	"the sroce-dkms package make deb built is in $DEB_DIR|find_deb"
	"$PREPARE"
	"apt-get install the package (DKMS builds sroce for $KVER)|install_deb"
	)
fi
STEPS+=(
	"dkms status: sroce installed for $KVER|dkms_installed_here"
	"modinfo sroce: DKMS's updates/dkms build, packaged version, DKMS-signed|dkms_module_is_modprobes"
	"/lib/modprobe.d/sroce.conf: the rdma-link-rxe alias loads nothing|rxe_alias_blacklisted"
	"rdma link add sroce0 type sroce netdev eth0 loads the DKMS module|link_add_loads_dkms_module"
	"ibv_rc_pingpong -c over sroce0|pingpong"
	"rping -V over sroce0 to $ADDR4|rping_verified"
	"rdma link delete sroce0, rmmod sroce|link_delete_unload"
	"apt-get remove --purge sroce-dkms|purge_deb"
	"nothing left: package, dkms status, /usr/src, module, modprobe.d file|all_gone"
	"the harness's sroce.ko, depmod output and /boot back|guest_restored"
)

exec 3>&1
ktap_plan ${#STEPS[@]}
sroce_reset
start=$EPOCHREALTIME
broken=
for step in "${STEPS[@]}"; do
	desc=${step%|*} fn=${step##*|}
	# Every step needs the ones before it: after a failure the rest are
	# failures too, not skips; putting the guest back runs regardless.
	if [[ -n $broken && $fn != guest_restored ]]; then
		ktap_fail "$desc" "not run: '$broken' failed"
		continue
	fi
	t0=$EPOCHREALTIME
	# the device's IPv4 GID shows up shortly after its registration
	[[ $fn != pingpong ]] || wait_for "IPv4 GID" 10 sroce_has_rocev2_gid sroce0 $GID4
	ktap_check "$desc" "$fn"
	((KTAP_RC == 0)) || broken=$desc
	# what a passing step found is worth keeping too (paths, versions)
	((KTAP_RC != 0)) || [[ -z $KTAP_OUT ]] || ktap_diag "$(tail -n 3 <<<"$KTAP_OUT")"
	echo "# $fn: $(since "$t0") s"
done
echo "# total $(since "$start") s"
ktap_finish
