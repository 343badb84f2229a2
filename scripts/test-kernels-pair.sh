#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-kernels-pair.sh: sroce across kernels on the wire, two pair boots
# of the interop matrix (selftests/pair/interop_matrix.sh), each way round
# (every tool with either guest as the server):
#   1. guest A on 6.1, guest B on 6.12: sroce against sroce
#   2. both guests on 6.12: sroce against 6.12's own rdma_rxe
# Each guest runs sroce built for its own kernel (scripts/kbuild.sh).  Run
# by scripts/test.sh through selftests/run.sh's SROCE_RUN_AFTER; prints
# both runs' results, each ending with "N passed, N failed, N skipped".
# Each tool runs once each way round in each pair: across kernels at IPv6
# with MTU 9000, against 6.12's rdma_rxe at IPv4 with MTU 1500 (the 6.1
# pair suite covers every family at every MTU); SROCE_PAIR_ONLY (a regex
# over the combination names, as interop_matrix.sh reads it) replaces
# both cuts, SROCE_PAIR_ONLY=. runs everything.  The ib_send_lat -a sweep
# (2 B to 8 MiB, over a minute of guest time each way round) is left to
# the 6.1 pair suite, which runs it between rdma_rxe and sroce once per
# family and MTU (IPv4/1500, IPv6/9000); ib_send_bw, ib_write_bw and ib_read_bw at 64 KiB carry
# multi-packet messages here; SROCE_PAIR_SKIP_TOOLS= (empty) puts it back.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# The outer run's hooks are not these runs'.
unset SROCE_RUN_AFTER SROCE_RUN_EXTRA_RESULTS SROCE_RUN_OUT SROCE_KERNEL
export SROCE_PAIR_SKIP_TOOLS=${SROCE_PAIR_SKIP_TOOLS-send_lat_all}


rc=0
for k in 6.1 6.12; do
	if ! log=$(scripts/kbuild.sh "$k" modules 2>&1); then
		echo "$log" | sed 's/^/# /'
		echo "not ok - sroce.ko builds for $k"
		rc=1
	fi
done
((rc == 0)) || exit 1

echo "# pair: A on 6.1, B on 6.12, sroce against sroce"
SROCE_PAIR_DRIVERS=sroce-sroce SROCE_PAIR_ONLY=${SROCE_PAIR_ONLY:-ipv6 mtu9000} \
	selftests/pair/run.sh --kernel-b 6.12 pair_smoke.sh interop_matrix.sh || rc=1
echo "# pair: both on 6.12, sroce against rdma_rxe"
SROCE_KERNEL=6.12 SROCE_PAIR_DRIVERS=rxe-sroce SROCE_PAIR_ONLY=${SROCE_PAIR_ONLY:-ipv4 mtu1500} \
	selftests/pair/run.sh pair_smoke.sh interop_matrix.sh || rc=1
exit $rc
