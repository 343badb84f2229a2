#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make soak DURATION=SECONDS: the pyverbs suite in a loop for that long
# (selftests/sroce_soak.sh, the whole suite each loop), then 50 rounds of
# each teardown under traffic (selftests/sroce_teardown.sh), in one guest.
# The last line is "N passed, N failed, N skipped".
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
duration=${DURATION:-3600}
export SROCE_SOAK_DURATION=$duration SROCE_SOAK_TESTS=all
export SROCE_TEARDOWN_ROUNDS=${SROCE_TEARDOWN_ROUNDS:-50}
# the soak's own limit: its duration plus one last loop
export SROCE_TEST_TIMEOUT=$((duration + 900))
make -s -C selftests all
exec selftests/run.sh selftests/sroce_soak.sh selftests/sroce_teardown.sh
