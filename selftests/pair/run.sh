#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [--link unix|tcp|udp] [--kernel-b K] [TEST...]: the two-guest
# suite.  Boots one pair of guests (scripts/vm-pair.sh, joined by its
# --link; guest B on kernel K with --kernel-b) and runs each TEST
# (default: the list below) on both, A and B in step.  Prints the guests'
# outputs as "# " comment lines, then one top-level TAP line per result,
# named "pair GUEST TEST: ...", counted the way selftests/run.sh counts
# a guest test:
#   - every "ok"/"not ok" line of a test (top level) is one result
#   - a planned result never printed, a test that exited non-zero without
#     a failure, or one that reported nothing, is one failure
#   - each guest's kernel log check is one result
#   - a guest that did not boot or finish is one failure
# and ends with "N passed, N failed, N skipped".  Exit 0 iff nothing failed.
# selftests/run.sh runs this after the single-guest suite when
# SROCE_RUN_AFTER names it (scripts/test.sh does) and counts the lines.
#
# Environment: SROCE_* go to the guests (see the tests);
#   SROCE_PAIR_RUN_OUT   results dir to use and keep (default: temporary,
#                        kept only when something failed)
#   SROCE_PAIR_TIMEOUT   whole-run limit, s (3000)
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)
DEFAULT_TESTS=(pair_smoke.sh interop_matrix.sh interop_faults.sh ack_blackout.sh
	       tail_loss.sh pair_nvmeof.sh pair_nvmeof_rxe.sh pair_bench_smoke.sh)
PASSED=0 FAILED=0 SKIPPED=0
RESULTS=()

result() {
	RESULTS+=("$1")
	case $1 in
	"not ok"*) ((++FAILED)) ;;
	*"# SKIP"*) ((++SKIPPED)) ;;
	*) ((++PASSED)) ;;
	esac
}

# tally GUEST NAME OUT RC: the results of one test in one guest.
tally() {
	local g=$1 name=$2 out=$3 rc=$4 line plan='' n=0 fail=0 desc
	if [[ ! -f $out ]]; then
		result "not ok - pair $g $name: did not run"
		return
	fi
	while IFS= read -r line || [[ -n $line ]]; do
		if [[ $line =~ ^1\.\.([0-9]+) ]]; then
			plan=${BASH_REMATCH[1]}
		elif [[ $line =~ ^(not\ )?ok\ [0-9]*\ *-?\ *(.*)$ ]]; then
			desc=${BASH_REMATCH[2]}
			((++n))
			[[ -n ${BASH_REMATCH[1]} ]] && ((++fail))
			result "${BASH_REMATCH[1]}ok - pair $g $name: $desc"
		fi
	done <"$out"
	if [[ -n $plan ]] && ((n < plan)); then
		for ((i = n + 1; i <= plan; i++)); do
			result "not ok - pair $g $name: result $i of $plan missing"
			((++fail))
		done
	elif [[ -n $plan ]] && ((n > plan)); then
		result "not ok - pair $g $name: $n results reported, plan was $plan"
		((++fail))
	fi
	if [[ $rc != 0 ]] && ((fail == 0)); then
		result "not ok - pair $g $name: exit status $rc"
	elif ((n == 0)); then
		result "not ok - pair $g $name: reported no results"
	fi
}

main() {
	local tests=() t out g rc vm_rc=0 list link=()
	while [[ ${1:-} == --link || ${1:-} == --kernel-b ]]; do
		link+=("$1" "${2:?$1 takes an argument}")
		shift 2
	done
	if [[ $# -gt 0 ]]; then tests=("$@"); else tests=("${DEFAULT_TESTS[@]}"); fi
	for t in "${!tests[@]}"; do
		[[ -f ${tests[$t]} ]] || tests[$t]=$REPO/selftests/pair/${tests[$t]}
	done
	if [[ -n ${SROCE_PAIR_RUN_OUT:-} ]]; then
		out=$SROCE_PAIR_RUN_OUT
	else
		out=$(mktemp -d /tmp/sroce-pair.XXXXXX)
	fi
	list="${tests[*]}"
	: "${SROCE_TEST_TIMEOUT:=1500}"
	export SROCE_TEST_TIMEOUT
	echo "# pair run: ${#tests[@]} test(s) on both guests"
	(cd "$REPO" && scripts/vm-pair.sh --timeout "${SROCE_PAIR_TIMEOUT:-3000}" \
		"${link[@]}" --out "$out" --a "$list" --b "$list") 2>&1 | sed 's/^/# /'
	vm_rc=${PIPESTATUS[0]}
	for g in a b; do
		for t in "${tests[@]}"; do
			rc=$(cat "$out/$g/${t##*/}.rc" 2>/dev/null || echo missing)
			tally "$g" "${t##*/}" "$out/$g/${t##*/}.out" "$rc"
		done
		if [[ $(cat "$out/$g/kmsg.rc" 2>/dev/null) == 0 ]]; then
			result "ok - pair $g: kernel log clean"
		else
			result "not ok - pair $g: kernel log clean"
		fi
		[[ -f $out/$g/harness.done ]] ||
			result "not ok - pair $g: guest did not boot or finish"
	done
	((vm_rc == 0 || FAILED > 0)) || result "not ok - pair: vm-pair.sh exited $vm_rc"
	echo "# ---- pair results ----"
	printf '%s\n' "${RESULTS[@]}"
	if ((FAILED > 0)) || [[ -n ${SROCE_PAIR_RUN_OUT:-} ]]; then
		echo "# pair results in $out"
	else
		rm -rf "$out"
	fi
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	((FAILED == 0))
}

main "$@"
