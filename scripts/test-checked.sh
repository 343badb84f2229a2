#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make test's second boot: the hostile-input tests (selftests/Makefile's
# TEST_PROGS_CHECKED: verbs objects, data integrity, hostile packets, the
# packet fuzzer, hostile rings, a stalled link) again, on the same Debian
# kernel booted with its slab allocator's own checks on:
#   slub_debug=FZPU  red zones around every slab object, checked on free
#                    (an out-of-bounds write), poison in freed objects,
#                    checked on the next allocation (a write after free),
#                    consistency checks of every free (double free), and
#                    the owner of every object (for the report)
#   page_poison=1    the same poison for freed pages
# Debian's kernel already has DEBUG_LIST, BUG_ON_DATA_CORRUPTION and the
# hung-task and lockup detectors on. These checks cost no kernel build;
# the KASAN/lockdep/kmemleak kernel of make test-debug does not fit in CI's
# time (see Documentation/testing.rst).  Run by scripts/test.sh through
# selftests/run.sh's SROCE_RUN_AFTER; prints the results as run.sh does.
set -euo pipefail
cd "$(dirname "$0")/.."
# The outer run's hooks are not this run's.
unset SROCE_RUN_AFTER SROCE_RUN_EXTRA_RESULTS SROCE_RUN_OUT
export SROCE_GUEST_APPEND="slub_debug=FZPU page_poison=1"
export SROCE_RUN_LIST=print-tests-checked
echo "# checked boot: $SROCE_GUEST_APPEND"
exec selftests/run.sh
