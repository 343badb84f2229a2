#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile rings: selftests/sroce_hostile_rings forks SROCE_RINGS_ROUNDS (20)
# children that scribble over their own SQ/RQ/SRQ/CQ rings (indices,
# headers, slots, fields flipped while the kernel reads them) while posting
# and polling, each for SROCE_RINGS_SECONDS (3).  Every child must be able
# to set up and must end on time; afterwards the object counts are back,
# the device still moves data and the kernel log is clean (the harness).
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

ROUNDS=${SROCE_RINGS_ROUNDS:-20}
SECS=${SROCE_RINGS_SECONDS:-3}
SEED=${SROCE_RINGS_SEED:-$(printf '%#x' $((RANDOM << 15 | RANDOM)))}

declare idx
sroce_eth0_up idx
baseline=$(sroce_res_counts sroce0)
echo "# seed $SEED (SROCE_RINGS_SEED=$SEED repeats it)"

ktap_plan 4
out=$(mktemp)
./sroce_hostile_rings sroce0 "$idx" "$ROUNDS" "$SECS" "$SEED" >"$out" 2>&1
rc=$?
sed 's/^/# /' "$out"
ktap_check "$ROUNDS rounds of ring scribbling: every child set up and ended on time" \
	test "$rc" = 0
counts_back() { [ "$(sroce_res_counts sroce0)" = "$baseline" ]; }
ktap_check "object counts back to '$baseline'" wait_for "objects" 20 counts_back
ktap_check "the device still moves data afterwards (ibv_rc_pingpong -c)" \
	sroce_pingpong_ok sroce0 "$idx"
rdma statistic show link sroce0/1 | sed 's/^/# /'
rdma link delete sroce0
ktap_check "module unloads" rmmod sroce
rm -f "$out"
ktap_finish
