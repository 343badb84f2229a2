#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-kernel.sh KERNEL core|full: one boot of the guest suite on another
# supported kernel (scripts/guest-kernel.sh list), with sroce built for it.
#   core   selftests/Makefile's TEST_PROGS_CORE, teardown under traffic cut
#          to a few rounds of each kind, and on 6.12 the package path
#          (sroce_dkms.sh): what make test runs on 6.12 and 6.12-rt beside
#          the whole suite on 6.1
#   full   the whole list (TEST_PROGS)
# Run by scripts/test.sh through selftests/run.sh's SROCE_RUN_AFTER; prints
# the results as run.sh does, ending with "N passed, N failed, N skipped".
set -euo pipefail
cd "$(dirname "$0")/.."

kernel=${1:?usage: test-kernel.sh KERNEL core|full}
set=${2:?usage: test-kernel.sh KERNEL core|full}
# The outer run's hooks are not this run's.
unset SROCE_RUN_AFTER SROCE_RUN_EXTRA_RESULTS SROCE_RUN_OUT
export SROCE_KERNEL=$kernel
case $set in
core)
	export SROCE_RUN_LIST=print-tests-core
	# Every kind of teardown still runs under every load; the rounds
	# that make test's 6.1 boot spends on chance are not repeated.
	export SROCE_TEARDOWN_ROUNDS=4 SROCE_TEARDOWN_HEAVY_ROUNDS=1
	# perftest: every tool over rdma_cm, with 4 QPs and over IPv6, at
	# one size; the -a sweeps over out-of-band TCP run on 6.1.  On rt
	# the runs that bring concurrency (4 QPs) or the CM: the IPv6 and
	# atomic-type runs move the same packets as on 6.12.
	export SROCE_PERFTEST_QUICK=1
	if [[ $kernel == *-rt ]]; then
		export SROCE_PERFTEST_ONLY=${SROCE_PERFTEST_ONLY:-'_(rdmacm|q4)$'}
	else
		export SROCE_PERFTEST_ONLY=${SROCE_PERFTEST_ONLY:-'_(rdmacm|q4|ipv6|fadd|cas)$'}
	fi
	# 6.12-rt's rdma_rxe is 6.12's: its pyverbs counts come from the
	# 6.12 core set (make test KERNEL=6.12-rt compares on rt as well).
	[[ $kernel != *-rt ]] || export SROCE_PYVERBS_RXE=0 ;;
full)	export SROCE_RUN_LIST=print-tests ;;
*)	echo "test-kernel: core or full, not '$set'" >&2; exit 2 ;;
esac
abi=$(scripts/guest-kernel.sh abi "$kernel")
echo "# kernel $kernel ($abi): the $set set"
if ! log=$(scripts/kbuild.sh "$kernel" modules 2>&1); then
	echo "$log" | sed 's/^/# /'
	echo "not ok - sroce.ko builds for $kernel ($abi)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
tests=()
if [[ $set == core && $kernel == *-rt ]]; then
	# The ICRC's crypto path runs in kernel_fpu sections, which PREEMPT_RT
	# makes non-preemptible rather than bottom-half-free: checked on rt
	# (the crypto code is 6.12's either way) and on 6.1's whole list.
	# The random-packet fuzzer drives the same parsing code on every
	# kernel: 6.1 (twice) and 6.12 run it, rt does not.
	mapfile -t tests < <(make -s --no-print-directory -C selftests print-tests-core |
			     grep -vx sroce_fuzz.sh)
	tests+=(sroce_icrc.sh)
elif [[ $set == core ]]; then
	# The package path: on 6.12 apt-get install of the .deb that make
	# deb built on the host (6.1's boot runs the README's make
	# install-deb instead); rt runs what 6.12 built.
	export SROCE_DKMS_INSTALL=deb
	mapfile -t tests < <(make -s --no-print-directory -C selftests print-tests-core)
	tests+=(sroce_dkms.sh)
fi
exec selftests/run.sh "${tests[@]}"
