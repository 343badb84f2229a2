#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over Fabrics between two guests (scripts/vm-pair.sh): guest A is the
# target (nvmet-rdma on 192.0.2.1:4420, null_blk namespace, set up as in
# nvmeof_lib.sh) on $SROCE_NVMEOF_PAIR_TARGET (sroce, the default, or rxe:
# Debian's rdma_rxe); guest B is the host, always on sroce. Run the same
# script on both guests.
#
# Checked outcomes (one TAP line each), on the host (B):
#  - connect; fio verify=crc32c jobs (4 KiB random at depth 64, 4 KiB-1 MiB
#    sequential, 128 KiB random) written and verified
#  - disconnect and reconnect
#  - `rdma link delete` on the host while fio runs: the controller is
#    deleted, fio ends, no hang; `rdma link add`, connect again
#  - `rdma link delete` on the target while a verified fio runs: the host
#    loses the controller, then (link and port re-added on A) reconnects by
#    itself, and that fio run ends with its data verified
#  - the data written first still verifies
# on the target (A): set-up, its link delete and re-add (port listening
# again), teardown; on both: the restrack counts back to what the device
# held before, no live objects at link delete, module unload, clean log.
# sroce-timeout: 900
set -u
cd "$(dirname "$0")/.." && . ./lib/lib.sh && . ./lib/sroce_lib.sh && . ./lib/pair_lib.sh &&
	. ./lib/kconsumer_lib.sh && . ./lib/nvmeof_lib.sh

TDRV=${SROCE_NVMEOF_PAIR_TARGET:-sroce}
KEPT='^(rand_4k_qd64|seq_4k-1m_qd8|rand_128k_qd16)$'
KEPT_JOBS=3

# Guest A --------------------------------------------------------------------

# The target's device went away under the host's I/O; bring it back and
# re-add the port (nvmet-rdma drops its listener on DEVICE_REMOVAL).
target_link_cycle() {
	pair_get io-running 180 >/dev/null || return 1
	timeout -k 5 120 rdma link delete "$KC_DEV" || { echo "link delete failed or hung"; return 1; }
	sleep 3
	rdma link add "$KC_DEV" type "$TDRV" netdev eth0 &&
		wait_for "$KC_DEV GIDs" 20 pair_gids_ready || return 1
	target_port_remove && target_port_add &&
		wait_for "target listening again" 30 target_listening || return 1
	pair_put target-back 1
}

target_side() {
	ktap_plan $((3 + KCONSUMER_END_RESULTS))
	timed "guest A ($TDRV): nvmet-rdma target on $ADDR:$PORT listening" step_setup
	pair_put target-up 1
	timed "guest A ($TDRV): rdma link delete under the host's I/O, link and port re-added" \
		target_link_cycle
	pair_get host-done 400 >/dev/null
	timed "guest A ($TDRV): target torn down, modules unload" step_target_teardown
	pair_put target-done 1
	kconsumer_end
}

step_target_teardown() {
	target_teardown && timeout -k 5 60 modprobe -r nvmet-rdma nvmet
}

# Guest B --------------------------------------------------------------------

step_host_link_cycle() {
	busy_fio_start || return 1
	timeout -k 5 120 rdma link delete "$KC_DEV" || { echo "link delete failed or hung"; return 1; }
	wait_for "controller deleted" 60 host_subsys_absent || return 1
	fio_reap 60 "$BUSY_PID" || return 1
	echo "fio ended with exit $FIO_RC (errors expected)"
	rdma link add "$KC_DEV" type sroce netdev eth0 &&
		wait_for "$KC_DEV GIDs" 20 pair_gids_ready && host_connect
}

step_target_link_cycle() {
	local t0
	verified_bg_start target_io || return 1
	pair_put io-running 1
	wait_for "host notices" 60 host_ctrl_not_live || return 1
	echo "host controller $(host_ctrl_state)"
	pair_get target-back 120 >/dev/null || return 1
	t0=$EPOCHREALTIME
	wait_for "controller live again" 90 host_ctrl_is live || return 1
	echo "controller live again $(ms_since "$t0") ms after the target came back"
	fio_reap 200 "$BG_PID" || return 1
	if ((FIO_RC != 0)); then
		echo "fio exit $FIO_RC"; cat "$WORK/target_io.log"; return 1
	fi
	fio_json_check "$WORK/target_io.json"
}

step_host_teardown() {
	host_disconnect && timeout -k 5 60 modprobe -r nvme-rdma
}

host_side() {
	ktap_plan $((KEPT_JOBS * 2 + 5 + KCONSUMER_END_RESULTS))
	pair_get target-up 180 >/dev/null
	timed "guest B: nvme connect -t rdma to the $TDRV target" host_connect
	fio_matrix_jobs "$(host_bdev)" "$KEPT" >"$WORK/kept.fio"
	run_fio kept 150 "$WORK/kept.fio" >"$WORK/kept.check" 2>&1
	sed 's/^/# /' "$WORK/kept.check"
	fio_matrix_report kept "written and verified" "$KEPT"
	timed "guest B: disconnect and reconnect" step_disconnect_reconnect
	timed "guest B: rdma link delete on the host under I/O, re-add, connect" step_host_link_cycle
	timed "guest B: rdma link delete on the target under verified I/O: reconnect, verified" \
		step_target_link_cycle
	fio_matrix_jobs "$(host_bdev)" "$KEPT" >"$WORK/kept.fio"
	run_fio kept2 150 "$WORK/kept.fio" --verify_only >"$WORK/kept2.check" 2>&1
	fio_matrix_report kept2 "data still verified at the end" "$KEPT"
	rdma statistic show link "$KC_DEV/1" | sed 's/^/# /'
	timed "guest B: host disconnects, nvme-rdma unloads" step_host_teardown
	pair_put host-done 1
	pair_get target-done 120 >/dev/null
	kconsumer_end
}

step_disconnect_reconnect() {
	host_disconnect || return 1
	host_bdev_present && { echo "block device still there"; return 1; }
	host_connect
}

if [ "$PAIR_ROLE" = a ]; then
	drv=$TDRV
else
	drv=sroce
	modprobe nvme-rdma
fi
pair_use "$drv" || echo "# could not set up $drv"
KC_DEV=$PAIR_DEV
KC_MOD=$([ "$drv" = rxe ] && echo rdma_rxe || echo sroce)
kconsumer_baseline
pair_barrier drivers-up
if [ "$PAIR_ROLE" = a ]; then target_side; else host_side; fi
ktap_finish
