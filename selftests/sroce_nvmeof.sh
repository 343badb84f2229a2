#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over Fabrics over an sroce device, target and host in the same guest
# (both ends of every queue pair on sroce0, through its loopback path); the
# set-up is in nvmeof_lib.sh. This drives what kernel RDMA consumers use and
# user programs do not: fast-registration MRs (IB_WR_REG_MR) and LOCAL_INV
# on the host, SEND_WITH_INV from the target, the local DMA lkey, the kernel
# CQ API in softirq (host), workqueue (target) and direct (poll queue)
# modes, ib_drain_qp on teardown, and rdma_cm inside the kernel.
#
# Checked outcomes (one TAP line each):
#  - fio jobs with verify=crc32c run in parallel: sequential and random
#    writes read back and verified, 4 KiB to 1 MiB blocks, queue depths 1 to
#    64, libaio and polled io_uring; each job (fio's JSON) ended with error
#    0 and read back and verified all it wrote
#  - a block corrupted behind the host's back on the target's disk is found
#    by the same verification (so reads do cross the fabric)
#  - disconnect and reconnect: all the data written before still verifies
#  - with nvmet-rdma's use_srq=1 the target receives on an SRQ: verified I/O
#  - after teardown sroce0 holds only what it held before (restrack), it is
#    removed with no live sroce objects, the module unloads, and the kernel
#    log of the whole run is clean
# The lifecycle cases under I/O are in sroce_nvmeof_lifecycle.sh.
# Under a loaded TCG host this takes 2-4 minutes: a longer limit than the
# default 300 s, as a hang guard only.
# sroce-timeout: 600
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh &&
	. ./lib/kconsumer_lib.sh && . ./lib/nvmeof_lib.sh

step_poll_ctx() {
	local cqs
	cqs=$(rdma resource show cq dev sroce0 2>&1)
	echo "$cqs"
	grep -q 'poll-ctx SOFTIRQ' <<<"$cqs" && grep -q 'poll-ctx WORKQUEUE' <<<"$cqs" &&
		grep -q 'poll-ctx DIRECT' <<<"$cqs"
}

# Overwrite 4 KiB in the middle of the canary region on the target's disk,
# behind the host's back: verification through the host must catch it.
step_corruption_caught() {
	local dev rc=0
	dev=$(host_bdev) || return 1
	printf '[canary]\nfilename=%s\ndirect=1\nioengine=libaio\nverify=crc32c\nrw=write\nbs=64k\niodepth=4\noffset=%dm\nsize=1m\n' \
		"$dev" $((80 * SCALE)) >"$WORK/canary.fio"
	run_fio canary_w 60 "$WORK/canary.fio" || return 1
	dd if=/dev/urandom of="$(nullb_dev)" bs=4k count=1 oflag=direct \
		seek=$((80 * SCALE * 256 + 100)) 2>&1 || return 1
	timeout -k 5 60 fio --verify_only "$WORK/canary.fio" >"$WORK/canary_v.log" 2>&1 || rc=$?
	grep -E 'verify|crc|bad' "$WORK/canary_v.log" | head -5
	if ((rc == 0)); then
		echo "fio --verify_only passed over a corrupted block"
		return 1
	fi
	grep -q 'crc32c' "$WORK/canary_v.log"
}

step_disconnect_reconnect() {
	host_disconnect || return 1
	host_bdev_present && { echo "block device still there"; return 1; }
	host_connect
}

# Reload nvmet-rdma with use_srq=1; the target's queues then receive on a
# shared receive queue.
step_srq() {
	local srqs
	host_disconnect && target_port_remove || return 1
	modprobe -r nvmet-rdma && modprobe nvmet-rdma use_srq=1 || return 1
	target_port_add && wait_for "target listening" 20 target_listening &&
		host_connect || return 1
	srqs=$(rdma resource show srq dev sroce0 2>&1)
	echo "$srqs"
	grep -q . <<<"$srqs" || { echo "no SRQ on sroce0"; return 1; }
	fio_matrix_jobs "$(host_bdev)" '^(rand_4k_qd64|rand_128k_qd16)$' >"$WORK/srq.fio"
	run_fio srq 120 "$WORK/srq.fio"
}


kconsumer_begin
ktap_plan $((MATRIX_JOBS * 2 + 6 + NVMEOF_END_RESULTS))

timed "target: null_blk namespace, nvmet-rdma port on $ADDR:$PORT listening" step_setup
timed "host: nvme connect -t rdma, namespace block device appears" host_connect
timed "kernel CQs in softirq, workqueue and direct poll modes" step_poll_ctx

t0=$EPOCHREALTIME
fio_matrix_jobs "$(host_bdev)" . >"$WORK/matrix.fio"
run_fio matrix 150 "$WORK/matrix.fio" >"$WORK/matrix.check" 2>&1
echo "# fio matrix: $(ms_since "$t0") ms"
sed 's/^/# /' "$WORK/matrix.check"
fio_matrix_report matrix "written and verified"

timed "corrupted block on the target's disk is caught by verification" step_corruption_caught
timed "disconnect and reconnect" step_disconnect_reconnect

t0=$EPOCHREALTIME
fio_matrix_jobs "$(host_bdev)" . >"$WORK/matrix.fio"
run_fio verify1 120 "$WORK/matrix.fio" --verify_only >"$WORK/verify1.check" 2>&1
echo "# fio verify_only: $(ms_since "$t0") ms"
fio_matrix_report verify1 "data still verified after reconnect"

timed "nvmet-rdma use_srq=1: target receives on an SRQ, verified I/O" step_srq
rdma statistic show link sroce0/1 | sed 's/^/# /'
nvmeof_end
ktap_finish
