#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test, after set-up and build: the host-side checks (make check, the
# user-space unit tests of the pure wire code), then every guest test in one
# guest boot, then the hostile-input tests again with the kernel's slab
# checks on (scripts/test-checked.sh), then the two-guest interop suite
# (selftests/pair/run.sh: rdma_rxe <-> sroce across two guests), then bulk
# traffic across two guests joined by a lossy link (pair/lossy_link.sh).
# selftests/run.sh folds the host and the pair results into its totals and
# prints the closing "N passed, N failed, N skipped" line.
# SROCE_SKIP_PAIR=1 leaves the pair suites out (for a quick local run; CI
# never sets it).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
host_results=$(mktemp)
trap 'rm -f "$host_results"' EXIT

# One TAP line per host-side check.
host_check() {
	local desc=$1 log
	shift
	log=$(mktemp)
	if "$@" >"$log" 2>&1; then
		echo "ok - $desc" >>"$host_results"
	else
		sed 's/^/# /' "$log"
		echo "not ok - $desc" >>"$host_results"
	fi
	rm -f "$log"
}

echo "# host: make check (sparse C=2, W=1)"
host_check "make check: sparse and W=1 clean" make -s check

if [ -x selftests/unit/run.sh ]; then
	echo "# host: unit tests of the pure wire code"
	unit_log=$(mktemp)
	if ! selftests/unit/run.sh >"$unit_log" 2>&1; then
		echo "not ok - unit tests: run.sh exit status" >>"$host_results"
	fi
	cat "$unit_log"
	grep -E '^(not )?ok ' "$unit_log" | sed 's/^\(\(not \)\{0,1\}ok\) [0-9]*/\1 - unit:/' >>"$host_results"
	rm -f "$unit_log"
fi

echo "# host: the kernel log verdict (scripts/check-kmsg.sh) on known logs"
kmsg_log=$(mktemp)
if ! selftests/unit/check_kmsg_test.sh >"$kmsg_log" 2>&1; then
	grep -qE '^not ok ' "$kmsg_log" ||
		echo "not ok - check-kmsg tests: exit status" >>"$host_results"
fi
cat "$kmsg_log"
grep -E '^(not )?ok ' "$kmsg_log" | sed -E 's/^((not )?ok) [0-9]+ /\1 /' >>"$host_results"
rm -f "$kmsg_log"

host_check "selftest programs build" make -s -C selftests all

# make check rebuilt the module with W=1: rebuild it plainly for the guest.
make -s module >/dev/null

# The two-guest suite, then the same pair booted over a lossy link.
pair="selftests/pair/run.sh;selftests/pair/run.sh --link udp lossy_link.sh"
[ -z "${SROCE_SKIP_PAIR:-}" ] || pair=
SROCE_RUN_EXTRA_RESULTS=$host_results SROCE_RUN_AFTER="scripts/test-checked.sh;$pair" \
	selftests/run.sh
