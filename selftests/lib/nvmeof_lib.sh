# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by the NVMe over Fabrics tests (sroce_nvmeof.sh,
# sroce_nvmeof_lifecycle.sh). Source selftests/lib/lib.sh, sroce_lib.sh and
# kconsumer_lib.sh first.
#
# Target: nvmet + nvmet-rdma through configfs, a memory-backed null_blk disk
# (so written data is kept) as namespace 1 of subsystem $NQN, port 1 of type
# rdma on $ADDR:$PORT. Host: `nvme connect -t rdma` (nvme-cli) with one poll
# queue besides the interrupt-driven ones. Every step has a time limit, so a
# hang becomes a "not ok" line.
#
# Environment:
#   SROCE_NVMEOF_SCALE  multiply the fio sizes (default 1)
#   SROCE_NVMEOF_DUMP   a directory: fio runs there with verify_dump=1, so
#                       a failed verification leaves the blocks it compared

ADDR=192.0.2.1
PORT=4420
NQN=nqn.2026-12.io.sroce:nvmeof-test
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:5f1c3a3e-9d1b-4c57-8a57-5ef0c0de0001
HOSTID=5f1c3a3e-9d1b-4c57-8a57-5ef0c0de0001
CFS=/sys/kernel/config
SUBSYS=$CFS/nvmet/subsystems/$NQN
NVPORT=$CFS/nvmet/ports/1
NULLB=$CFS/nullb/sroce_nvmeof
SCALE=${SROCE_NVMEOF_SCALE:-1}
DISK_MB=$((128 * SCALE))

# ------------------------------------------------------------------------
# Target (nvmet) through configfs

nullb_create() {
	mkdir "$NULLB" &&
		echo "$DISK_MB" >"$NULLB/size" &&
		echo 4096 >"$NULLB/blocksize" &&
		echo 1 >"$NULLB/memory_backed" &&
		echo 1 >"$NULLB/power" &&
		wait_for "null_blk disk" 10 nullb_dev
}

# The disk is named after the configfs directory on newer kernels, nullbN
# (N = its index) on older ones.
nullb_dev() {
	local d=/dev/${NULLB##*/}
	[ -b "$d" ] || d=/dev/nullb$(cat "$NULLB/index" 2>/dev/null)
	[ -b "$d" ] && echo "$d"
}

target_subsys_create() {
	mkdir "$SUBSYS" &&
		echo 1 >"$SUBSYS/attr_allow_any_host" &&
		mkdir "$SUBSYS/namespaces/1" &&
		nullb_dev >"$SUBSYS/namespaces/1/device_path" &&
		echo 1 >"$SUBSYS/namespaces/1/enable"
}

# The port starts listening (rdma_bind_addr + rdma_listen) when the first
# subsystem is linked to it.
target_port_add() {
	mkdir "$NVPORT" &&
		echo rdma >"$NVPORT/addr_trtype" &&
		echo ipv4 >"$NVPORT/addr_adrfam" &&
		echo "$ADDR" >"$NVPORT/addr_traddr" &&
		echo "$PORT" >"$NVPORT/addr_trsvcid" &&
		ln -s "$SUBSYS" "$NVPORT/subsystems/$NQN"
}

target_port_remove() {
	rm -f "$NVPORT/subsystems/$NQN" && rmdir "$NVPORT"
}

target_teardown() {
	[ -L "$NVPORT/subsystems/$NQN" ] && rm -f "$NVPORT/subsystems/$NQN"
	[ -d "$NVPORT" ] && rmdir "$NVPORT"
	if [ -d "$SUBSYS" ]; then
		echo 0 >"$SUBSYS/namespaces/1/enable"
		rmdir "$SUBSYS/namespaces/1" && rmdir "$SUBSYS"
	fi
	[ -d "$NULLB" ] && rmdir "$NULLB"
	return 0
}

# The RDMA listener of the target port, as rdma_cm shows it.
target_listening() {
	rdma resource show cm_id 2>/dev/null | grep -E "state LISTEN .*$ADDR:$PORT( |$)" | grep -q .
}

# ------------------------------------------------------------------------
# Host (nvme-rdma)

# connect [extra nvme connect options]: reconnect every second, give up a
# lost controller after 60 s; one poll queue (IB_POLL_DIRECT CQ).
host_connect() {
	timeout -k 5 60 nvme connect -t rdma -a "$ADDR" -s "$PORT" -n "$NQN" \
		--hostnqn="$HOSTNQN" --hostid="$HOSTID" --nr-poll-queues=1 \
		--reconnect-delay=1 --ctrl-loss-tmo=60 "$@" &&
		wait_for "namespace block device" 30 host_bdev_present
}

host_disconnect() {
	timeout -k 5 60 nvme disconnect -n "$NQN" &&
		wait_for "subsystem gone" 30 host_subsys_absent
}

# The nvme-subsystem sysfs directory whose subsysnqn is ours.
host_subsys() {
	local s
	for s in /sys/class/nvme-subsystem/nvme-subsys*; do
		[ "$(cat "$s/subsysnqn" 2>/dev/null)" = "$NQN" ] && { echo "$s"; return 0; }
	done
	return 1
}

host_subsys_absent() {
	! host_subsys >/dev/null
}

# /dev/nvmeXnY: the namespace block device of our subsystem: under the
# subsystem with CONFIG_NVME_MULTIPATH (Debian's kernel), under its
# controller without (a kernel built without it, such as the debug one).
host_bdev() {
	local s n
	s=$(host_subsys) || return 1
	for n in "$s"/nvme*n* "$s"/nvme[0-9]*/nvme*n*; do
		n=${n##*/}
		[[ $n =~ ^nvme[0-9]+n[0-9]+$ ]] && [ -b "/dev/$n" ] && { echo "/dev/$n"; return 0; }
	done
	return 1
}

host_bdev_present() {
	host_bdev >/dev/null
}

# State of our controller: live, resetting, connecting, deleting ...
host_ctrl_state() {
	local s c
	s=$(host_subsys) || return 1
	for c in "$s"/nvme[0-9]*; do
		[[ ${c##*/} =~ ^nvme[0-9]+$ ]] && cat "$c/state" && return 0
	done
	return 1
}

host_ctrl_is() {
	[ "$(host_ctrl_state)" = "$1" ]
}

host_ctrl_not_live() {
	! host_ctrl_is live
}

# Completed reads + writes of all NVMe block devices. On 6.1 the multipath
# head (nvmeXnY) counts nothing; its path devices (nvmeXcYnZ) do.
nvme_ios() {
	local f st n=0
	for f in /sys/block/nvme*/stat; do
		read -r -a st <"$f" 2>/dev/null || continue
		n=$((n + st[0] + st[4]))
	done
	echo "$n"
}

# Wait until the NVMe devices completed $1 more I/Os than now (for at
# most $2 s, default 60).
wait_io_progress() {
	local start
	start=$(nvme_ios)
	wait_for "NVMe I/O progress" "${2:-60}" io_progressed $((start + $1))
}

io_progressed() {
	(($(nvme_ios) >= $1))
}

# ------------------------------------------------------------------------
# fio

# The verified job matrix: each job writes its own region (MiB offsets)
# and reads it back through verify=crc32c. name rw bs iodepth offset size
# numjobs [engine]. The regions below 80 MiB are kept by later steps and
# re-verified with --verify_only after reconnects.
MATRIX=$(cat <<EOF
seq_4k_qd1        write      4k       1  0   1  1
rand_4k_qd64      randwrite  4k      64  2   4  1
rand_4k_qd8_x4    randwrite  4k       8  8   2  4
seq_4k-1m_qd8     write      4k-1m    8  16  8  1
rand_128k_qd16    randwrite  128k    16  32  6  1
seq_1m_qd32       write      1m      32  40 12  1
rand_64k_qd4_poll randwrite  64k      4  64  3  1 io_uring
EOF
)

# Write a fio job file for the MATRIX rows matching regex $2 on device $1.
fio_matrix_jobs() {
	local dev=$1 only=$2 name rw bs qd off size n eng
	cat <<EOF
[global]
filename=$dev
direct=1
ioengine=libaio
verify=crc32c
verify_fatal=1
do_verify=1
EOF
	[ -z "${SROCE_NVMEOF_DUMP:-}" ] || echo "verify_dump=1"
	while read -r name rw bs qd off size n eng; do
		[[ $name =~ $only ]] || continue
		echo "[$name]"
		echo "rw=$rw"
		[[ $bs == *-* ]] && echo "bsrange=$bs" || echo "bs=$bs"
		echo "iodepth=$qd"
		echo "offset=$((off * SCALE))m"
		# KiB: a region shared by n jobs need not split into whole MiB
		echo "size=$((size * 1024 * SCALE / n))k"
		if ((n > 1)); then
			echo "numjobs=$n"
			echo "offset_increment=$((size * 1024 * SCALE / n))k"
		fi
		if [ -n "$eng" ]; then
			echo "ioengine=$eng"
			echo "hipri=1"
		fi
	done <<<"$MATRIX"
}

# fio_json_check FILE: every job in fio's JSON report ended with error 0
# and read back and verified as many bytes as it wrote (--verify_only
# counts the writes it skips as done).
fio_json_check() {
	python3 - "$1" <<'EOF'
import json, sys
path = sys.argv[1]
text = open(path).read()
# fio may print notes before the JSON object
rep = json.loads(text[text.index('{'):])
bad = []
for j in rep['jobs']:
    name, err = j['jobname'], j['error']
    w, r = j['write']['io_bytes'], j['read']['io_bytes']
    size = j['job options'].get('size') or rep['global options'].get('size')
    line = f"{name}: error {err}, wrote {w} B, read back and verified {r} B"
    print(line)
    if err != 0:
        bad.append(line)
    elif r == 0 or r != w:
        bad.append(line)
for b in bad:
    print('BAD:', b)
sys.exit(1 if bad else 0)
EOF
}

# run_fio TAG TIMEOUT JOBFILE [fio options]: run, keep the JSON in
# $WORK/TAG.json and check it.
run_fio() {
	local tag=$1 tmo=$2 jobs=$3 rc=0
	shift 3
	counters_mark
	[ -z "${SROCE_NVMEOF_DUMP:-}" ] || { mkdir -p "$SROCE_NVMEOF_DUMP/$tag"; cd "$SROCE_NVMEOF_DUMP/$tag" || return 1; }
	timeout -k 5 "$tmo" fio --output-format=json --output="$WORK/$tag.json" \
		"$@" "$jobs" >"$WORK/$tag.log" 2>&1 || rc=$?
	cd "$SROCE_REPO/selftests" || return 1
	if ((rc != 0)); then
		echo "fio exit $rc"
		head -n 30 "$WORK/$tag.log"
		grep -E '"(error|jobname)"' "$WORK/$tag.json" 2>/dev/null | paste - - | head -20
		echo "counters changed during fio: $(counters_delta)"
		return 1
	fi
	fio_json_check "$WORK/$tag.json"
}

# fio_matrix_report TAG WHAT [REGEX]: one TAP line per MATRIX row (those
# matching REGEX) of the run TAG.
fio_matrix_report() {
	local tag=$1 what=$2 only=${3:-.} name rest
	local -A seen=()
	while read -r name rest; do
		[[ -n $name && -z ${seen[$name]:-} && $name =~ $only ]] || continue
		seen[$name]=1
		if grep -q "^BAD: $name: " "$WORK/$tag.check"; then
			ktap_fail "fio $name: $what" "$(cat "$WORK/$tag.check")"
		elif grep -q "^$name: error 0" "$WORK/$tag.check"; then
			ktap_ok "fio $name: $what ($(grep -c "^$name: " "$WORK/$tag.check") job(s))"
		else
			ktap_fail "fio $name: $what (no result)" "$(cat "$WORK/$tag.check")"
		fi
	done <<<"$MATRIX"
}

MATRIX_JOBS=$(grep -c . <<<"$MATRIX")

# Background fio that keeps the device busy (time based, no verification),
# on the scratch region above the kept ones.
busy_fio_start() {
	local dev
	dev=$(host_bdev) || return 1
	fio --name=busy --filename="$dev" --direct=1 --ioengine=libaio \
		--rw=randrw --bs=16k --iodepth=16 --offset=$((96 * SCALE))m \
		--size=$((16 * SCALE))m --time_based --runtime=90 \
		>"$WORK/busy.log" 2>&1 &
	BUSY_PID=$!
	wait_io_progress 50
}

# Wait up to $1 s for background fio $2 to end; kill it if it does not.
fio_reap() {
	local t=$(($1 * 5)) pid=$2
	while kill -0 "$pid" 2>/dev/null && ((t-- > 0)); do sleep 0.2; done
	if kill -0 "$pid" 2>/dev/null; then
		echo "fio (pid $pid) still running after $1 s"
		kill -9 "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 1
	fi
	wait "$pid"
	FIO_RC=$?
	return 0
}

# Verified fio in the background, rate-limited so that it spans the outage.
verified_bg_start() {
	local dev tag=$1
	dev=$(host_bdev) || return 1
	printf '[%s]\nfilename=%s\ndirect=1\nioengine=libaio\nverify=crc32c\nverify_fatal=1\nrw=randwrite\nbs=32k\niodepth=8\noffset=%dm\nsize=%dm\nrate=2m\n' \
		"$tag" "$dev" $((112 * SCALE)) $((12 * SCALE)) >"$WORK/$tag.fio"
	timeout -k 5 240 fio --output-format=json --output="$WORK/$tag.json" \
		"$WORK/$tag.fio" >"$WORK/$tag.log" 2>&1 &
	BG_PID=$!
	wait_io_progress 50
}

# ------------------------------------------------------------------------
# Steps both tests use, each one TAP line (run under ktap_check)

step_setup() {
	modprobe null_blk nr_devices=0 &&
		modprobe -a nvmet nvmet-rdma nvme-rdma || return 1
	nullb_create && target_subsys_create && target_port_add &&
		wait_for "target listening" 20 target_listening
}

step_teardown() {
	host_disconnect || return 1
	target_teardown || return 1
	timeout -k 5 60 modprobe -r nvme-rdma nvmet-rdma nvmet
}

# The last NVMEOF_END_RESULTS results of both tests.
NVMEOF_END_RESULTS=$((1 + KCONSUMER_END_RESULTS))
nvmeof_end() {
	timed "host disconnects, target torn down, modules unload" step_teardown
	kconsumer_end
}
