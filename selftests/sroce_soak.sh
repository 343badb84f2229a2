#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Soak: the pyverbs suite (selftests/sroce_pyverbs.sh, which also checks
# that the object counts go back after each run) over and over.
#   SROCE_SOAK_DURATION  seconds to keep going (make soak DURATION=...);
#                        0 (default): SROCE_SOAK_LOOPS loops
#   SROCE_SOAK_LOOPS     loops when no duration is given (2, the suite's
#                        short soak)
#   SROCE_SOAK_TESTS     pyverbs modules per loop (default: the ones that
#                        move data: QP, extended QP, ODP, atomics, rdma_cm;
#                        "all" for the whole suite)
# One result: every loop passed.  Each loop's outcome is printed.
# sroce-timeout: 1200
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

DURATION=${SROCE_SOAK_DURATION:-0}
LOOPS=${SROCE_SOAK_LOOPS:-2}
TESTS=${SROCE_SOAK_TESTS:-tests.test_qp tests.test_qpex tests.test_odp tests.test_atomic tests.test_rdmacm}
[ "$TESTS" = all ] && TESTS=
# One loop that hangs is a failed loop, not the end of the soak.
export SROCE_PYVERBS_LIMIT=${SROCE_PYVERBS_LIMIT:-$((600 * ${SROCE_TIMEOUT_SCALE:-1}))}
# sroce only: sroce_pyverbs.sh compares with rdma_rxe once per suite run.
export SROCE_PYVERBS_RXE=0

ktap_plan 1
loops=0 failed=0 start=$SECONDS
while :; do
	if [ "$DURATION" -gt 0 ]; then
		[ $((SECONDS - start)) -lt "$DURATION" ] || break
	else
		[ $loops -lt "$LOOPS" ] || break
	fi
	loops=$((loops + 1))
	out=$(SROCE_PYVERBS_TESTS=$TESTS ./sroce_pyverbs.sh 2>&1)
	rc=$?
	summary=$(grep -m1 '# pyverbs: Ran' <<<"$out")
	echo "# loop $loops (exit $rc): ${summary#\# }"
	if [ $rc != 0 ]; then
		failed=$((failed + 1))
		grep '^not ok' <<<"$out" | head -5 | sed 's/^/#   /'
	fi
done
ktap_check "soak: $loops loops of pyverbs in $((SECONDS - start)) s, $failed failed" \
	test "$failed" = 0 -a "$loops" -gt 0
ktap_finish
