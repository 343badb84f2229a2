#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [TEST...]: run the guest selftests and count their TAP results.
#
# With no arguments the list comes from `make -C selftests print-tests`
# (TEST_PROGS in selftests/Makefile).  A TEST is a path (selftests/smoke.sh)
# or a name in selftests/ (smoke.sh).  All tests run in ONE guest boot
# (scripts/vm-run.sh).  Then every test's output is printed and counted:
#   - each top-level "ok"/"not ok" line is one result ("# SKIP" -> skipped)
#   - a planned result that never printed is one failure; results beyond
#     the plan are one failure
#   - a test that exited non-zero (or never finished) without reporting a
#     failure adds one failure "<test>: exit status N"
#   - the kernel log check (scripts/check-kmsg.sh) is one more result
#   - a VM that did not boot or timed out is one more failure
# The summary ends with the time each stage took and a "# failed:" line
# per failed result (nested ones of SROCE_RUN_AFTER commands included),
# so that the tail of a long log says what failed.  The last line is
# exactly "N passed, N failed, N skipped"; exit 0 iff nothing failed.
#
# Environment:
#   SROCE_TEST_TIMEOUT       per-test limit in the guest, seconds (300); a
#                            test may ask for more with a line
#                            "# sroce-timeout: SECONDS" near its top
#   SROCE_RUN_TIMEOUT        whole-VM limit (default: scaled from the above)
#   SROCE_RUN_OUT            results dir to use and keep (default: temporary,
#                            kept only when something failed)
#   SROCE_RUN_LIST           the selftests/Makefile target that lists the
#                            tests (print-tests; make test-debug uses
#                            print-tests-debug)
#   SROCE_RUN_EXTRA_RESULTS  file of host-side TAP lines (ok/not ok ...) to
#                            count as well, e.g. from `make check`
#   SROCE_RUN_AFTER          commands (separated by ";") run after the
#                            guest suite, each one's top-level TAP lines
#                            counted too, e.g. the two-guest suite
#                            selftests/pair/run.sh (its exit status counts
#                            like a test's)
#   SROCE_RUN_TIME_BEFORE    "what: N s" of work done before this run, put
#                            first in the summary's time lines
#   SROCE_GUEST_APPEND       more kernel command line for the guest
#   SROCE_GUEST_CPU          QEMU -cpu model (default max)
#   SROCE_TIMEOUT_SCALE      multiplies each test's own "# sroce-timeout:" (1)
#   SROCE_*                  all passed on to the tests in the guest
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
BOOT_ALLOWANCE=180	# seconds for boot, setup and power-off under TCG

PASSED=0 FAILED=0 SKIPPED=0
SUMMARY=()		# rows of the summary table
TIMES=()		# "what: N s", one per boot and per SROCE_RUN_AFTER command
FAILURES=()		# "where: not ok ...", every failed result, nested ones too
[[ -z ${SROCE_RUN_TIME_BEFORE:-} ]] || TIMES+=("$SROCE_RUN_TIME_BEFORE")
OUT='' OUT_IS_TEMP=''

die() { echo "run.sh: $*" >&2; exit 2; }

list_tests() {
	make -s --no-print-directory -C "$REPO/selftests" "${SROCE_RUN_LIST:-print-tests}" |
		sed -n 's|^[[:space:]]*\([^[:space:]]\+\).*|selftests/\1|p'
}

# Accept "selftests/x.sh", "x.sh" or any path; print a path vm-run accepts.
resolve_test() {
	if [[ -f $1 ]]; then
		echo "$1"
	elif [[ -f $REPO/selftests/$1 ]]; then
		echo "$REPO/selftests/$1"
	elif [[ -f $REPO/$1 ]]; then
		echo "$REPO/$1"
	else
		die "no such test: $1"
	fi
}

# test_limit TEST DEFAULT: the test's own "# sroce-timeout: S" line if it
# asks for more than DEFAULT (scripts/guest-init.sh applies the same rule).
test_limit() {
	local t
	t=$(head -c 4096 "$1" | sed -n 's/^# sroce-timeout: *\([0-9]\+\) *$/\1/p' | head -n1)
	t=$((${t:-0} * ${SROCE_TIMEOUT_SCALE:-1}))
	echo $((${t:-0} > $2 ? t : $2))
}

# Count one TAP result line into the totals; print "pass|fail|skip".
classify() {
	local line=$1
	if [[ $line =~ ^ok\ .*#[[:space:]]*[Ss][Kk][Ii][Pp] ]]; then
		echo skip
	elif [[ $line =~ ^ok([[:space:]]|$) ]]; then
		echo pass
	else
		echo fail
	fi
}

# A failure the tally itself found: print it and list it in the summary.
fail_result() {
	echo "$1"
	FAILURES+=("$1")
}

# Tally the TAP in file $2 for test $1; add to the totals and the table.
# rc is the test's exit status or "missing".
tally_test() {
	local name=$1 out=$2 rc=$3 line kind n plan='' pass=0 fail=0 skip=0
	if [[ -f $out ]]; then
		while IFS= read -r line || [[ -n $line ]]; do
			if [[ $line =~ ^1\.\.([0-9]+) ]]; then
				plan=${BASH_REMATCH[1]}
				continue
			fi
			[[ $line =~ ^(not\ )?ok([[:space:]]|$) ]] || continue
			kind=$(classify "$line")
			case $kind in
			pass) ((++pass)) ;;
			fail) ((++fail)); FAILURES+=("$name: $line") ;;
			skip) ((++skip)) ;;
			esac
		done <"$out"
	fi
	local reported=$((pass + fail + skip))
	if [[ ! -f $out ]]; then
		fail_result "not ok - $name: did not run"
		((++fail))
	elif [[ -n $plan ]] && ((reported < plan)); then
		for ((n = reported + 1; n <= plan; n++)); do
			fail_result "not ok - $name: result $n of $plan missing"
		done
		((fail += plan - reported))
	elif [[ -n $plan ]] && ((reported > plan)); then
		fail_result "not ok - $name: $reported results reported, plan was $plan"
		((++fail))
	fi
	if [[ $rc != 0 ]] && ((fail == 0)); then
		fail_result "not ok - $name: exit status $rc"
		((++fail))
	elif [[ $rc == 0 ]] && ((reported == 0)); then
		fail_result "not ok - $name: reported no results"
		((++fail))
	fi
	PASSED=$((PASSED + pass)) FAILED=$((FAILED + fail)) SKIPPED=$((SKIPPED + skip))
	SUMMARY+=("$(printf '%-32s %5d %5d %5d  %s' "$name" "$pass" "$fail" "$skip" "$rc")")
}

# The kernel-log check is one result of its own.
tally_kmsg() {
	local rc
	rc=$(cat "$OUT/kmsg.rc" 2>/dev/null || echo missing)
	echo "# ---- kernel log ----"
	if [[ $rc == 0 ]]; then
		echo "ok - kernel log clean"
		((++PASSED))
		SUMMARY+=("$(printf '%-32s %5d %5d %5d  %s' "kernel log clean" 1 0 0 -)")
	else
		fail_result "not ok - kernel log clean"
		sed 's/^/# /' "$OUT/kmsg.out" 2>/dev/null || true
		((++FAILED))
		SUMMARY+=("$(printf '%-32s %5d %5d %5d  %s' "kernel log clean" 0 1 0 -)")
	fi
}

# Host-side results (SROCE_RUN_EXTRA_RESULTS) fold into the totals.
tally_extra() {
	local file=$1
	echo "# ---- host results: $file ----"
	if [[ ! -r $file ]]; then
		fail_result "not ok - host results file $file missing"
		((++FAILED))
		return
	fi
	local tmp
	tmp=$(mktemp)
	grep -E '^(not )?ok([[:space:]]|$)' "$file" >"$tmp" || true
	cat "$tmp"
	tally_test "host checks" "$tmp" 0
	rm -f "$tmp"
}

# SROCE_RUN_AFTER: run it, show its output, count its top-level results.
tally_after() {
	local cmd=$1 log tmp line rc=0 start=$SECONDS
	echo "# ---- after: $cmd ----"
	log=$(mktemp) tmp=$(mktemp)
	(cd "$REPO" && bash -c "$cmd") >"$log" 2>&1 || rc=$?
	TIMES+=("$cmd: $((SECONDS - start)) s")
	cat "$log"
	# Its nested results ("# not ok ..." of the tests it ran) name what
	# failed; the top-level lines only name the test script.
	while IFS= read -r line; do
		FAILURES+=("$cmd: $line")
	done < <(sed -n 's/^\(# \)\+\(not ok .*\)/\2/p' "$log")
	grep -E '^(not )?ok([[:space:]]|$)' "$log" >"$tmp" || true
	tally_test "$cmd" "$tmp" "$rc"
	rm -f "$log" "$tmp"
}

cleanup() {
	[[ -n $OUT_IS_TEMP && -n $OUT ]] && rm -rf "$OUT"
	return 0
}

main() {
	local tests=() t name rc per timeout vm_rc=0 vm_log reason
	if [[ $# -gt 0 ]]; then
		for t in "$@"; do tests+=("$(resolve_test "$t")"); done
	else
		mapfile -t tests < <(list_tests)
		[[ ${#tests[@]} -gt 0 ]] || die "selftests/Makefile lists no tests"
	fi

	per=${SROCE_TEST_TIMEOUT:-300}
	timeout=$BOOT_ALLOWANCE
	for t in "${tests[@]}"; do
		timeout=$((timeout + $(test_limit "$t" "$per") + 10))
	done
	timeout=${SROCE_RUN_TIMEOUT:-$timeout}
	if [[ -n ${SROCE_RUN_OUT:-} ]]; then
		OUT=$SROCE_RUN_OUT
		mkdir -p "$OUT"
	else
		OUT=$(mktemp -d /tmp/sroce-run.XXXXXX)
		OUT_IS_TEMP=1
		trap cleanup EXIT
	fi

	# A reused SROCE_RUN_OUT must not feed last run's results to this one,
	# whatever point vm-run.sh fails at.
	for t in "${tests[@]}"; do rm -f "$OUT/${t##*/}.out" "$OUT/${t##*/}.rc"; done
	rm -f "$OUT"/{harness.done,status,kmsg.out,kmsg.rc,dmesg.txt,tainted}

	echo "# run.sh: ${#tests[@]} test(s) in one guest, ${per}s each unless a test asks for more, VM limit ${timeout}s"
	local start=$SECONDS
	vm_log=$(cd "$REPO" && scripts/vm-run.sh --quiet --timeout "$timeout" \
		--append "${SROCE_GUEST_APPEND:-}" --out "$OUT" "${tests[@]}" 2>&1) || vm_rc=$?
	TIMES+=("this boot's ${#tests[@]} test(s): $((SECONDS - start)) s")

	for t in "${tests[@]}"; do
		name=${t##*/}
		rc=$(cat "$OUT/$name.rc" 2>/dev/null || echo missing)
		echo "# ---- $name (exit $rc) ----"
		cat "$OUT/$name.out" 2>/dev/null || true
		tally_test "$name" "$OUT/$name.out" "$rc"
	done
	tally_kmsg
	echo "# ---- vm ----"
	sed 's/^/# /' <<<"$vm_log"
	if ! [[ -f $OUT/harness.done ]]; then
		reason=$(sed -n 's/^FAIL: \(guest did not finish.*\|VM killed.*\|qemu exited.*\)/\1/p' \
			 "$OUT/status" 2>/dev/null | paste -sd ';' -)
		fail_result "not ok - vm: ${reason:-guest did not boot or finish}"
		((++FAILED))
		SUMMARY+=("$(printf '%-32s %5d %5d %5d  %s' "vm boot/finish" 0 1 0 -)")
	fi
	# Belt and braces: vm-run.sh failing must never end as a clean run.
	if ((vm_rc != 0 && FAILED == 0)); then
		fail_result "not ok - vm: vm-run.sh exited $vm_rc"
		((++FAILED))
		SUMMARY+=("$(printf '%-32s %5d %5d %5d  %s' "vm-run.sh" 0 1 0 "$vm_rc")")
	fi
	[[ -z ${SROCE_RUN_EXTRA_RESULTS:-} ]] || tally_extra "$SROCE_RUN_EXTRA_RESULTS"
	local after afters=()
	IFS=';' read -r -a afters <<<"${SROCE_RUN_AFTER:-}"
	for after in "${afters[@]}"; do
		[[ -z $after ]] || tally_after "$after"
	done

	echo "# ---- summary ----"
	printf '# %-32s %5s %5s %5s  %s\n' test pass fail skip exit
	printf '# %s\n' "${SUMMARY[@]}"
	# Where the run's time went: what CI's time budget is spent on.
	printf '# time: %s\n' "${TIMES[@]}"
	# Last, so that a log cut to its tail still names every failure.
	((${#FAILURES[@]} == 0)) || printf '# failed: %.300s\n' "${FAILURES[@]}"
	if ((FAILED > 0)) && [[ -n $OUT_IS_TEMP ]]; then
		OUT_IS_TEMP=''	# keep the evidence
		echo "# results kept in $OUT (console.log, dmesg.txt, *.out)"
	elif [[ -z $OUT_IS_TEMP ]]; then
		echo "# results in $OUT"
	fi
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	((FAILED == 0))
}

main "$@"
