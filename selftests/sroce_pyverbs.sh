#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rdma-core pyverbs suite (Debian's python3-pyverbs ships it, gzipped,
# in /usr/share/doc/rdma-core/tests) on an sroce device, one TAP result per
# unittest test. Failures and errors fail; skips are reported with their
# reason. SROCE_PYVERBS_TESTS selects unittest names to run (default: the
# whole suite); SROCE_PYVERBS_LIMIT is the run's limit in seconds (default:
# the harness's limit for this test less 30 s, to report what ran).
# sroce-timeout: 400
set -u
cd "$(dirname "$0")" && . ./lib.sh && . ./sroce_lib.sh

selectors=${SROCE_PYVERBS_TESTS:-}
# The whole suite must pass at least this many tests. rdma_rxe on the same
# kernel passes 86 and skips the 10 rdmacm tests that sroce passes; sroce
# also passes test_qp_ex_rc_atomic_write, which rdma_rxe fails, and the 10
# ODP tests that need no ibv_advise_mr (the rxe provider of rdma-core 44 has
# none): 107. Every other test skips on both for a provider or device
# feature (mlx5, EFA, XRC, device memory, parent domains, prefetch, rereg in
# the rxe provider).
min_pass=${SROCE_PYVERBS_MIN_PASS:-$([ -z "$selectors" ] && echo 107 || echo 0)}

sroce_reset
sroce_load
rdma link add sroce0 type sroce netdev eth0
wait_for "IPv4 GID" 10 sroce_has_rocev2_gid sroce0 0000:0000:0000:0000:0000:ffff:c000:0201 >/dev/null
gid_index=$(sroce_gid_index sroce0 0000:0000:0000:0000:0000:ffff:c000:0201)

baseline=$(sroce_res_counts sroce0)
echo "# objects before the suite: $baseline"

# Some tests need 2 MiB huge pages.
echo 64 >/proc/sys/vm/nr_hugepages

# Python imports modules, not .py.gz: unpack a private copy.
work=$(mktemp -d)
cp -r /usr/share/doc/rdma-core/tests "$work/tests"
gunzip -f "$work"/tests/*.gz
log="$work/pyverbs.log"

limit=${SROCE_PYVERBS_LIMIT:-$((${SROCE_TEST_TIMEOUT:-400} - 30))}
# Killed by the harness's time limit: say which test was running.
on_term() {
	echo "# killed; the last lines pyverbs printed:"
	tail -n 15 "$log" | sed 's/^/#   /'
	exit 124
}
trap on_term TERM
# shellcheck disable=SC2086
(cd "$work/tests" && exec timeout "$limit" python3 run_tests.py --dev sroce0 --gid "${gid_index:-1}" -v $selectors) >"$log" 2>&1 &
wait $!
rc=$?
trap - TERM

# "test_x (tests.test_pd.PDTest...) ... ok|FAIL|ERROR|skipped 'why'"; a
# docstring may push the verdict onto the next line.
results=$(awk '
	function verdict(v) { return v ~ /^(ok|FAIL|ERROR|skipped|expected failure|unexpected success)/ }
	/^test_[A-Za-z0-9_]+ \(/ { name = $1 " " $2 }
	name != "" && / \.\.\. / {
		v = $0; sub(/.* \.\.\. /, "", v)
		if (verdict(v)) { print name "\t" v; name = "" }
		next
	}
	name != "" && verdict($0) { print name "\t" $0; name = "" }
' "$log")
count=$(grep -c . <<<"$results")
ktap_plan $((count + 2))

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
rm -rf "$work"
rmmod sroce
ktap_finish
