#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Build and run the user-space unit tests of the L0 wire code. Prints their
# TAP on stdout (build output goes to stderr) and exits non-zero if the
# build or any test failed. A failed build is reported as a failed test,
# never as a skip.
#
# Usage: selftests/unit/run.sh     (OUTPUT=dir to build elsewhere)

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=${OUTPUT:-$top/build/unit}

if ! make -s -C "$here" OUTPUT="$out" >&2; then
	echo "TAP version 13"
	echo "1..1"
	echo "not ok 1 - build selftests/unit/wire_test"
	echo "# 0 passed, 1 failed, 0 skipped"
	exit 1
fi
exec "$out/wire_test"
