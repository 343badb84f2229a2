#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh: the ICRC's CRC-32 implementations, A/B in guest instructions.
#
# QEMU's TCG misprices PCLMULQDQ in time (one instruction, emulated in
# many host instructions), so an A/B of sroce's icrc=crc32_le against
# icrc=crypto (crc32-pclmul) timed in a normal guest measures the
# emulator. With -icount shift=0,sleep=off the guest's clock advances
# 1 ns per guest instruction, whatever the instruction costs the host:
# the guest's CPU time of a fixed workload is then its instruction
# count, as on hardware where PCLMULQDQ is one instruction too (not its
# latency: icount prices every instruction alike). icount needs one vCPU
# and single-threaded TCG (scripts/vm-lib.sh). ab_guest.sh runs the
# workload; rdma_rxe, which uses the crypto API's "crc32", runs in the
# same boot for reference.
#
# Usage, from the repository (after scripts/kbuild.sh 6.1 modules):
#   selftests/bench/icrc_ab/run.sh [OUTDIR]
# SROCE_ICRC_AB_* (ab_guest.sh) reach the guest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
out=${1:-$top/results/icrc_ab}
mkdir -p "$out"
# With sleep=off the guest's clock jumps ahead whenever the guest waits
# (on the host's 9p file service, say), so limits timed in the guest mean
# nothing; the host's --timeout bounds the run.
export SROCE_TEST_TIMEOUT=${SROCE_TEST_TIMEOUT:-10000000}
"$top/scripts/vm-run.sh" --timeout "${SROCE_ICRC_AB_TIMEOUT:-2400}" \
	--smp 1 --qemu-arg -icount --qemu-arg shift=0,sleep=off \
	--out "$out" "$here/ab_guest.sh" || true
grep -E '^(R|#) ' "$out/ab_guest.sh.out"
