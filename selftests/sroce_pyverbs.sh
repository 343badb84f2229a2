#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rdma-core pyverbs suite (Debian's python3-pyverbs ships it, gzipped,
# in /usr/share/doc/rdma-core/tests) on an sroce device, one TAP result per
# unittest test. Failures and errors fail; skips are reported with their
# reason. Then the same suite on the booted kernel's own rdma_rxe, on the
# same netdev in the same boot: its counts are printed beside sroce's, and
# every test rdma_rxe passes must pass on sroce too (one result).
# SROCE_PYVERBS_TESTS selects unittest names to run (default: the whole
# suite); SROCE_PYVERBS_LIMIT is each run's limit in seconds (default:
# half the harness's limit for this test less 30 s, to report what ran);
# SROCE_PYVERBS_RXE=0 leaves the rdma_rxe run out.
# sroce-timeout: 800
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

selectors=${SROCE_PYVERBS_TESTS:-}
with_rxe=${SROCE_PYVERBS_RXE:-1}
# The whole suite must pass at least this many tests. rdma_rxe on 6.1
# passes 86 and skips the 10 rdmacm tests that sroce passes; sroce
# also passes test_qp_ex_rc_atomic_write, which rdma_rxe fails, and the 10
# ODP tests that need no ibv_advise_mr (the rxe provider of rdma-core 44 has
# none): 107. Every other test skips on both for a provider or device
# feature (mlx5, EFA, XRC, device memory, parent domains, prefetch, rereg in
# the rxe provider).
min_pass=${SROCE_PYVERBS_MIN_PASS:-$([ -z "$selectors" ] && echo 107 || echo 0)}
GID4=0000:0000:0000:0000:0000:ffff:c000:0201

# Python imports modules, not .py.gz: unpack a private copy.
work=$(mktemp -d)
cp -r /usr/share/doc/rdma-core/tests "$work/tests"
gunzip -f "$work"/tests/*.gz
limit=${SROCE_PYVERBS_LIMIT:-$(((${SROCE_TEST_TIMEOUT:-800} - 60) / (with_rxe ? 2 : 1)))}

# run_suite DEV GID_INDEX LOG: the suite on DEV, its output in LOG; the
# exit status is the suite's (124: it ran out of time).
run_suite() {
	local pid rc
	# Killed by the harness's time limit: say which test was running.
	trap 'echo "# killed; the last lines pyverbs printed:"; tail -n 15 "$3" | sed "s/^/#   /"; kill $pid 2>/dev/null; exit 124' TERM
	# shellcheck disable=SC2086
	(cd "$work/tests" && exec timeout "$limit" python3 run_tests.py --dev "$1" --gid "$2" -v $selectors) >"$3" 2>&1 &
	pid=$!
	wait $pid
	rc=$?
	trap - TERM
	return $rc
}

# "test_x (tests.test_pd.PDTest...) ... ok|FAIL|ERROR|skipped 'why'"; a
# docstring may push the verdict onto the next line. One "name<TAB>verdict"
# line per test.
verdicts() {
	awk '
	function verdict(v) { return v ~ /^(ok|FAIL|ERROR|skipped|expected failure|unexpected success)/ }
	/^test_[A-Za-z0-9_]+ \(/ { name = $1 " " $2 }
	name != "" && / \.\.\. / {
		v = $0; sub(/.* \.\.\. /, "", v)
		if (verdict(v)) { print name "\t" v; name = "" }
		next
	}
	name != "" && verdict($0) { print name "\t" $0; name = "" }
	' "$1"
}

# "N passed, N failed, N skipped" of a verdicts list.
tally() {
	local p f k
	p=$(grep -c $'\tok$' <<<"$1")
	k=$(grep -c $'\tskipped' <<<"$1")
	f=$(($(grep -c . <<<"$1") - p - k))
	echo "$p passed, $f failed or errored, $k skipped"
}

sroce_eth0_up gid_index

baseline=$(sroce_res_counts sroce0)
echo "# objects before the suite: $baseline"

# Some tests need 2 MiB huge pages.
echo 64 >/proc/sys/vm/nr_hugepages

log="$work/pyverbs.log"
run_suite sroce0 "${gid_index:-1}" "$log"
rc=$?
results=$(verdicts "$log")
count=$(grep -c . <<<"$results")
ktap_plan $((count + 2 + with_rxe))

while IFS=$'\t' read -r name verdict; do
	[ -n "$name" ] || continue
	case $verdict in
	ok) ktap_ok "$name" ;;
	skipped*) ktap_skip "$name" "${verdict#skipped }" ;;
	*) ktap_fail "$name" "$verdict" ;;
	esac
done <<<"$results"

summary=$(grep -E '^(Ran |OK|FAILED)' "$log" | tr '\n' ' ')
passed=$(grep -c $'\tok$' <<<"$results")
echo "# pyverbs: $summary; $passed passed (at least $min_pass required)"
if [ "$rc" -eq 0 ] && grep -q '^OK' "$log" &&
   [ "$passed" -ge "$min_pass" ]; then
	ktap_ok "pyverbs run: $summary"
else
	grep -E -A25 '^(ERROR|FAIL):' "$log" | sed 's/^/# /' | head -200
	ktap_fail "pyverbs run: $summary" "exit status $rc"
fi

counts_back() {
	[ "$(sroce_res_counts sroce0)" = "$baseline" ]
}
ktap_check "object counts back to '$baseline' after the suite" \
	wait_for "objects released" 10 counts_back
rdma link delete sroce0
rmmod sroce

# The same suite on this kernel's rdma_rxe, on the same netdev; prints
# both drivers' counts. Fails when rdma_rxe could not run the suite or
# passed a test that sroce did not.
rxe_vs_sroce() {
	local rxe_log=$work/rxe.log rxe_results gidx rxe_rc missing
	if ! { modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 &&
	       wait_for "rxe0 IPv4 GID" 10 sroce_has_rocev2_gid rxe0 $GID4 >/dev/null; }; then
		echo "# rdma_rxe did not come up on eth0"
		return 1
	fi
	gidx=$(sroce_gid_index rxe0 $GID4)
	run_suite rxe0 "${gidx:-1}" "$rxe_log"
	rxe_rc=$?
	rdma link delete rxe0
	rmmod rdma_rxe
	rxe_results=$(verdicts "$rxe_log")
	echo "# pyverbs on $(uname -r): sroce $(tally "$results");" \
	     "rdma_rxe $(tally "$rxe_results") (exit $rxe_rc)"
	# Which tests rdma_rxe failed: the baseline's own weak spots, by name.
	grep -vE $'\t(ok|skipped.*)$' <<<"$rxe_results" | grep . |
		sed 's/^/#   rdma_rxe: /' || true
	grep -q . <<<"$rxe_results" || { echo "# rdma_rxe ran no test"; return 1; }
	# Files, not <(...): the guest has no /dev/fd.
	grep $'\tok$' <<<"$rxe_results" | cut -f1 | sort >"$work/rxe.passed"
	grep $'\tok$' <<<"$results" | cut -f1 | sort >"$work/sroce.passed"
	missing=$(comm -23 "$work/rxe.passed" "$work/sroce.passed") || return 1
	[ -z "$missing" ] && return 0
	echo "# passed on rdma_rxe, not on sroce:"
	sed 's/^/#   /' <<<"$missing"
	return 1
}
if [ "$with_rxe" = 1 ]; then
	if rxe_vs_sroce; then
		ktap_ok "every test rdma_rxe passes on this kernel passes on sroce"
	else
		ktap_fail "every test rdma_rxe passes on this kernel passes on sroce"
	fi
fi
rm -rf "$work"
ktap_finish
