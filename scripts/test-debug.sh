#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test-debug: the guest suite on the debug kernel
# (scripts/debug-kernel.sh: KASAN, lockdep, atomic-sleep checks, kmemleak,
# debug objects, UBSAN) of the kernel series SROCE_KERNEL (6.1 by default;
# make test-debug KERNEL=6.12-rt sets it).  The harness fails a run on any
# report of theirs (scripts/check-kmsg.sh; kmemleak is scanned after the
# tests).  Everything is slower under these checkers, so each test gets
# three times its limit.
#
#   scripts/test-debug.sh [TEST...]   (default: the whole suite)
#
# The last line is "N passed, N failed, N skipped", as for make test.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
tree=$(scripts/debug-kernel.sh build)
make -s -C selftests all
export SROCE_GUEST_TREE=$tree
SROCE_GUEST_ABI=$(scripts/debug-kernel.sh abi)
export SROCE_GUEST_ABI
SROCE_GUEST_KO=$(scripts/debug-kernel.sh ko)
export SROCE_GUEST_KO
# three times the default limit and a test's own "# sroce-timeout:", and
# the limits inside the tests that follow from them (perftest's per-pair
# limit, the pyverbs run's)
export SROCE_TIMEOUT_SCALE=3
export SROCE_TEST_TIMEOUT=$((SROCE_TIMEOUT_SCALE * ${SROCE_TEST_TIMEOUT:-300}))
# Without 5-level paging: with it (TCG's "max" CPU has la57), an interrupt
# that arrives while the boot CPU is identified (interrupts are on by then)
# makes KASAN report a wild access in rcu_is_watching(), in about one boot
# in four, before any module loads; the report switches lockdep off for
# the rest of that boot.
export SROCE_GUEST_CPU=${SROCE_GUEST_CPU:-max,la57=off}
# The checkers make kernel work 30-35 times slower under TCG: the loops
# that repeat one thing many times run fewer rounds here (each can be
# set as for make test).  The fuzzer keeps its 100,000 packets.
: "${SROCE_TEARDOWN_ROUNDS:=5}" "${SROCE_TEARDOWN_HEAVY_ROUNDS:=1}"
: "${SROCE_RINGS_ROUNDS:=5}" "${SROCE_SOAK_LOOPS:=1}"
: "${SROCE_PERFTEST_QUICK:=1}" "${SROCE_PINGPONG_ITERS:=50}"
export SROCE_TEARDOWN_ROUNDS SROCE_TEARDOWN_HEAVY_ROUNDS SROCE_RINGS_ROUNDS
export SROCE_SOAK_LOOPS SROCE_PERFTEST_QUICK SROCE_PINGPONG_ITERS
# the whole suite plus the tests that need fault injection
export SROCE_RUN_LIST=print-tests-debug
echo "# debug kernel ${SROCE_KERNEL:-6.1}: $SROCE_GUEST_ABI ($tree)"
exec selftests/run.sh "$@"
