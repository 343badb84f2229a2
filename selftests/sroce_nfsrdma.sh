#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA on an sroce device, server and client in the same guest:
# the second kernel consumer besides NVMe-oF. nfsd exports a tmpfs
# directory and listens for RPC-over-RDMA on port 20049 (svcrdma); the
# client mounts it with -o rdma (xprtrdma), NFSv3 and NFSv4.2. Both sides
# use rdma_cm inside the kernel, the kernel CQ API, fast-registration MRs
# (client) and RDMA READ/WRITE chunks (server).
#
# The guest runs no services: rpcbind, rpc.mountd and rpc.nfsd are started
# here by hand (nfs-kernel-server, nfs-common, rpcbind).
#
# Checked outcomes (one TAP line each):
#  - the server listens on rdma 20049 (/proc/fs/nfsd/portlist)
#  - for each NFS version: the mount uses the RDMA transport (mountstats
#    "xprt: rdma"); files of assorted sizes (1 B to 20 MiB, odd sizes)
#    copied in have the same sha256 on the server's directory; after a
#    remount (empty client cache) they read back over RDMA with the same
#    sha256; the unmount finishes
#  - afterwards sroce0 holds what it held before, is removed with no live
#    sroce objects, the module unloads, and the kernel log is clean
# Every step has a time limit, so a hang becomes a "not ok" line.
# Under a loaded TCG host this takes 2-4 minutes: a longer limit than the
# default 300 s, as a hang guard only.
# sroce-timeout: 600
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./lib/kconsumer_lib.sh

ADDR=192.0.2.1
NFS_PORT=20049
EXPORT=/run/sroce-nfs/export
MNT=/run/sroce-nfs/mnt
SRC=/run/sroce-nfs/src
VERSIONS="3 4.2"
# Sizes of the files copied: tiny, around page and RPC inline limits, odd
# sizes across read/write chunk boundaries, and a large one.
SIZES="1 511 4095 4097 8193 65537 1048573 4194305 20971529"

rdma_listening() {
	grep -qx "rdma $NFS_PORT" /proc/fs/nfsd/portlist
}

# rpcbind, the export, mountd (nfsd asks it about exports), nfsd with a
# short NFSv4 grace period, then the RDMA listener.
step_server_start() {
	modprobe -a nfsd rpcrdma nfs nfsv3 nfsv4 || return 1
	mkdir -p "$EXPORT" /run/rpcbind /var/lib/nfs/v4recovery &&
		mount -t tmpfs -o size=256m sroce-nfs "$EXPORT" || return 1
	mountpoint -q /proc/fs/nfsd || mount -t nfsd nfsd /proc/fs/nfsd || return 1
	echo 10 >/proc/fs/nfsd/nfsv4leasetime
	echo 10 >/proc/fs/nfsd/nfsv4gracetime
	timeout -k 5 20 rpcbind -w || return 1
	timeout -k 5 20 exportfs -o rw,no_root_squash,insecure,fsid=0,no_subtree_check \
		"$ADDR/24:$EXPORT" || return 1
	timeout -k 5 20 rpc.mountd || return 1
	timeout -k 5 30 rpc.nfsd 2 || return 1
	echo "rdma $NFS_PORT" >/proc/fs/nfsd/portlist || return 1
	cat /proc/fs/nfsd/portlist
	rdma_listening
}

# mount_nfs VERSION: NFSv4 paths are relative to the fsid=0 pseudo root.
mount_nfs() {
	local path=$EXPORT opts="rdma,port=$NFS_PORT,vers=$1"
	[[ $1 == 4* ]] && path=/
	[[ $1 == 3 ]] && opts+=",nolock"
	mkdir -p "$MNT" &&
		timeout -k 5 60 mount -t nfs -o "$opts" "$ADDR:$path" "$MNT"
}

umount_nfs() {
	timeout -k 5 60 umount "$MNT"
}

# The client's transport for the mount, from /proc/self/mountstats.
mount_is_rdma() {
	awk -v m="$MNT" '$1 == "device" && $5 == m { on = 1; next }
			 $1 == "device" { on = 0 }
			 on && $1 == "xprt:" { print; if ($2 == "rdma") found = 1 }
			 END { exit !found }' /proc/self/mountstats
}

make_sources() {
	local s
	mkdir -p "$SRC" || return 1
	for s in $SIZES; do
		head -c "$s" /dev/urandom >"$SRC/f$s" || return 1
	done
	(cd "$SRC" && sha256sum f*) >"$WORK/want.sha256"
}

# sums_match DIR: the files in DIR have the sha256 sums of the sources.
sums_match() {
	(cd "$1" && timeout -k 5 120 sha256sum f*) >"$WORK/got.sha256" 2>&1
	if ! cmp -s "$WORK/want.sha256" "$WORK/got.sha256"; then
		echo "sha256 in $1 differ:"
		diff "$WORK/want.sha256" "$WORK/got.sha256"
		return 1
	fi
}

step_mount() {
	mount_nfs "$1" || return 1
	grep " $MNT " /proc/mounts
	mount_is_rdma
}

step_copy() {
	local t0=$EPOCHREALTIME
	# Not on a failed mount's bare directory, where the export still holds
	# the files of the previous version's run (sums_match would pass).
	mountpoint -q "$MNT" && mount_is_rdma >/dev/null ||
		{ echo "$MNT is not mounted over RDMA"; return 1; }
	rm -f "$MNT"/f* || return 1
	timeout -k 5 120 cp "$SRC"/f* "$MNT"/ || return 1
	timeout -k 5 60 sync -f "$MNT" || return 1
	echo "copied $(du -sk "$SRC" | cut -f1) KiB in $(ms_since "$t0") ms"
	sums_match "$EXPORT"
}

step_read_back() {
	local t0=$EPOCHREALTIME
	umount_nfs && mount_nfs "$1" && mount_is_rdma >/dev/null || return 1
	sums_match "$MNT" || return 1
	echo "read back in $(ms_since "$t0") ms"
}

step_umount() {
	umount_nfs && ! mountpoint -q "$MNT"
}

# nfsd stops its listeners (and its RDMA QPs) with zero threads.
step_server_stop() {
	timeout -k 5 60 rpc.nfsd 0 || return 1
	timeout -k 5 20 exportfs -ua
	pkill -x rpc.mountd
	pkill -x rpcbind
	umount /proc/fs/nfsd
	umount "$EXPORT"
	timeout -k 5 60 modprobe -r nfsv4 nfsv3 nfs nfsd rpcrdma
}

kconsumer_begin
make_sources

n_versions=$(wc -w <<<"$VERSIONS")
ktap_plan $((1 + n_versions * 4 + 1 + KCONSUMER_END_RESULTS))
timed "nfsd exports a tmpfs directory and listens on rdma $NFS_PORT" step_server_start
for v in $VERSIONS; do
	timed "NFSv$v: mount -o rdma,port=$NFS_PORT uses the RDMA transport" step_mount "$v"
	timed "NFSv$v: files of $(wc -w <<<"$SIZES") sizes copied in, sha256 equal on the server" step_copy
	timed "NFSv$v: after a remount they read back over RDMA with equal sha256" step_read_back "$v"
	timed "NFSv$v: umount" step_umount
done
rdma statistic show link sroce0/1 | sed 's/^/# /'
timed "nfsd and rpcrdma stop, modules unload" step_server_stop
rm -rf "$SRC"
kconsumer_end
ktap_finish
