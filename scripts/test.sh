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

# Run a program that prints TAP ("ok N - what"), show its output and fold
# each of its results into the host results, named PREFIX plus its own
# description.  A program that fails without a "not ok" line of its own
# (it died, or never ran) counts as one more failure.
host_tap() {
	local prefix=$1 log rc
	shift
	log=$(mktemp)
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	grep -E '^(not )?ok [0-9]+' "$log" |
		sed -E "s/^((not )?ok) [0-9]+( -)? ?/\1 - $prefix/" >>"$host_results"
	if [ "$rc" -ne 0 ] && ! grep -qE '^not ok ' "$log"; then
		echo "not ok - ${prefix}$1: exit status $rc" >>"$host_results"
	fi
	rm -f "$log"
}

echo "# host: make check (sparse C=2, W=1)"
host_check "make check: sparse and W=1 clean" make -s check

echo "# host: unit tests of the pure wire code"
host_tap "unit: " selftests/unit/run.sh

echo "# host: the kernel log verdict (scripts/check-kmsg.sh) on known logs"
host_tap "" selftests/unit/check_kmsg_test.sh

echo "# host: the benchmark's report (bench_report.py) on a made-up run"
host_tap "" selftests/unit/bench_report_test.sh

host_check "selftest programs build" make -s -C selftests all

# make check rebuilt the module with W=1: rebuild it plainly for the guest.
make -s module >/dev/null

# The two-guest suite, then the same pair booted over a lossy link.
pair="selftests/pair/run.sh;selftests/pair/run.sh --link udp lossy_link.sh"
[ -z "${SROCE_SKIP_PAIR:-}" ] || pair=
SROCE_RUN_EXTRA_RESULTS=$host_results SROCE_RUN_AFTER="scripts/test-checked.sh;$pair" \
	selftests/run.sh
