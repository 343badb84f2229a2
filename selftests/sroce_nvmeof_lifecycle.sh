#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over Fabrics over sroce0 (target and host in the same guest, set up
# by nvmeof_lib.sh) through its lifecycle while I/O runs:
#  - a data set is written and verified (fio verify=crc32c) first
#  - disconnect while fio runs: the disconnect and fio end, no hang; the
#    host connects again
#  - the target port is removed and re-added while a rate-limited verified
#    fio runs: the host notices, reconnects by itself when the port is back,
#    and the same fio run ends with all its data verified
#  - `rdma link delete` while fio runs (host and target on that device):
#    the controller is deleted, fio ends, no hang; after `rdma link add` and
#    re-adding the target port the host connects again and the data set
#    written first still verifies
#  - then the same clean-teardown checks as sroce_nvmeof.sh: objects back
#    to what the device held before, no live sroce objects at removal, the
#    module unloads, the kernel log is clean
# Under a loaded TCG host this takes 2-4 minutes: a longer limit than the
# default 300 s, as a hang guard only.
# sroce-timeout: 600
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh &&
	. ./lib/kconsumer_lib.sh && . ./lib/nvmeof_lib.sh

# The data set kept across the lifecycle steps (MATRIX rows).
KEPT='^(rand_4k_qd64|seq_4k-1m_qd8|rand_128k_qd16)$'
KEPT_JOBS=3


step_disconnect_under_io() {
	busy_fio_start || return 1
	host_disconnect || { kill "$BUSY_PID"; return 1; }
	# fio sees its I/O fail; it must end, not hang.
	fio_reap 60 "$BUSY_PID" || return 1
	echo "fio ended with exit $FIO_RC after the disconnect (errors expected)"
	host_connect
}

step_port_readd_under_io() {
	local t0
	verified_bg_start port_io || return 1
	t0=$EPOCHREALTIME
	target_port_remove || return 1
	wait_for "host notices" 30 host_ctrl_not_live || return 1
	echo "host controller $(host_ctrl_state) $(ms_since "$t0") ms after the port went"
	sleep 2
	target_port_add || return 1
	t0=$EPOCHREALTIME
	wait_for "controller live again" 60 host_ctrl_is live || return 1
	echo "controller live again $(ms_since "$t0") ms after the port came back"
	fio_reap 200 "$BG_PID" || return 1
	if ((FIO_RC != 0)); then
		echo "fio exit $FIO_RC"; cat "$WORK/port_io.log"; return 1
	fi
	fio_json_check "$WORK/port_io.json"
}

step_link_delete_under_io() {
	local t0
	busy_fio_start || return 1
	t0=$EPOCHREALTIME
	timeout -k 5 120 rdma link delete sroce0 || { echo "rdma link delete failed or hung"; return 1; }
	echo "rdma link delete took $(ms_since "$t0") ms"
	wait_for "controller deleted" 60 host_subsys_absent || return 1
	fio_reap 60 "$BUSY_PID" || return 1
	echo "fio ended with exit $FIO_RC (errors expected)"
	sroce_dev_gone sroce0
}

# After rdma link add the target port is enabled again through configfs:
# on DEVICE_REMOVAL nvmet-rdma (6.1) drops its listener for good (its
# repair work only runs on ADDR_CHANGE), so an administrator re-adds the
# port. Then the host connects again.
step_link_readd() {
	rdma link add sroce0 type sroce netdev eth0 &&
		wait_for "IPv4 GID" 10 sroce_has_rocev2_gid sroce0 $SROCE_GID4 || return 1
	target_listening && { echo "listening before the port was re-added?"; return 1; }
	target_port_remove && target_port_add &&
		wait_for "target listening again" 30 target_listening &&
		host_connect
}

kconsumer_begin
ktap_plan $((KEPT_JOBS * 2 + 6 + NVMEOF_END_RESULTS))

timed "target: null_blk namespace, nvmet-rdma port on $ADDR:$PORT listening" step_setup
timed "host: nvme connect -t rdma, namespace block device appears" host_connect

fio_matrix_jobs "$(host_bdev)" "$KEPT" >"$WORK/kept.fio"
run_fio kept 120 "$WORK/kept.fio" >"$WORK/kept.check" 2>&1
fio_matrix_report kept "written and verified" "$KEPT"

timed "disconnect while I/O runs, reconnect" step_disconnect_under_io
timed "target port removed and re-added under verified I/O: host reconnects, I/O verified" step_port_readd_under_io
timed "rdma link delete while I/O runs: controller deleted, no hang" step_link_delete_under_io
timed "rdma link add, target port re-added: host connects again" step_link_readd

fio_matrix_jobs "$(host_bdev)" "$KEPT" >"$WORK/kept.fio"
run_fio kept2 120 "$WORK/kept.fio" --verify_only >"$WORK/kept2.check" 2>&1
fio_matrix_report kept2 "data still verified after link delete/add" "$KEPT"

rdma statistic show link sroce0/1 | sed 's/^/# /'
nvmeof_end
ktap_finish
