#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test, after set-up: the host-side checks (make check against every
# supported kernel, the user-space unit tests of the pure wire code), then
# the guest suites.
#
# With no kernel chosen (SROCE_KERNEL unset: plain `make test`, what CI
# runs), one composition over the supported kernels:
#   6.1      the whole guest suite in one boot, the package path
#            (sroce_dkms.sh) included; the hostile-input tests
#            again with the kernel's slab checks on (scripts/test-checked.sh);
#            the two-guest interop suite (selftests/pair/run.sh: rdma_rxe
#            <-> sroce across two guests); bulk traffic across two guests
#            joined by a lossy link (pair/lossy_link.sh)
#   6.12     the core set and the package path (scripts/test-kernel.sh),
#            then sroce on 6.1
#            against sroce on 6.12 across two guests, and sroce against
#            6.12's own rdma_rxe (scripts/test-kernels-pair.sh)
#   6.12-rt  the core set
# With SROCE_KERNEL=K (make test KERNEL=K): all of the 6.1 part, on K.
# selftests/run.sh folds the host results and every later run into its
# totals and prints the closing "N passed, N failed, N skipped" line.
# SROCE_SKIP_PAIR=1 leaves the two-guest suites out and SROCE_SKIP_KERNELS=1
# the other kernels (for a quick local run; CI sets neither).
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

# The package the guests' sroce_dkms.sh installs, as a user would.
host_check "make deb: sroce-dkms builds and passes lintian" make -s deb

echo "# host: DKMS here: the kernel hook for 6.12, kernels it must refuse"
host_tap "dkms: " selftests/unit/dkms_host_test.sh

# Teardown under traffic: make soak runs 50 rounds of each kind (and the
# test's own default); make test KERNEL=K ten, plain make test four, as on
# the other kernels (scripts/test-kernel.sh): every kind under every load.
if [ -n "${SROCE_KERNEL:-}" ]; then
	: "${SROCE_TEARDOWN_ROUNDS:=10}" "${SROCE_TEARDOWN_HEAVY_ROUNDS:=2}"
else
	: "${SROCE_TEARDOWN_ROUNDS:=4}" "${SROCE_TEARDOWN_HEAVY_ROUNDS:=1}"
fi
export SROCE_TEARDOWN_ROUNDS SROCE_TEARDOWN_HEAVY_ROUNDS

# make check rebuilt the module with W=1: rebuild it plainly for the guest.
kernel=${SROCE_KERNEL:-6.1}
scripts/kbuild.sh "$kernel" modules >/dev/null

# The two-guest suite, then the same pair booted over a lossy link.
after="scripts/test-checked.sh"
[ -n "${SROCE_SKIP_PAIR:-}" ] ||
	after+=";selftests/pair/run.sh;selftests/pair/run.sh --link udp lossy_link.sh"
if [ -z "${SROCE_KERNEL:-}" ]; then
	# perftest's -a sweeps over rdma_cm and 4 QPs (several minutes)
	# run with make test KERNEL=...; CI runs the quick set everywhere.
	export SROCE_PERFTEST_QUICK=${SROCE_PERFTEST_QUICK:-1}
	# The soak's smoke: one loop of pyverbs' data-moving modules, which
	# still repeats them right after the whole pyverbs suite.
	export SROCE_SOAK_LOOPS=${SROCE_SOAK_LOOPS:-1}
fi
if [ -z "${SROCE_KERNEL:-}" ] && [ -z "${SROCE_SKIP_KERNELS:-}" ]; then
	after+=";scripts/test-kernel.sh 6.12 core"
	[ -n "${SROCE_SKIP_PAIR:-}" ] || after+=";scripts/test-kernels-pair.sh"
	after+=";scripts/test-kernel.sh 6.12-rt core"
fi
export SROCE_RUN_TIME_BEFORE="host checks: $SECONDS s"
echo "# guest suites: kernel $kernel ($(scripts/guest-kernel.sh abi "$kernel")), then: $after"
SROCE_RUN_EXTRA_RESULTS=$host_results SROCE_RUN_AFTER=$after selftests/run.sh
