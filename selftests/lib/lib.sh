# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# lib.sh: a small TAP library for the shell selftests.  Source it:
#
#	cd "$(dirname "$0")" && . ./lib/lib.sh
#	ktap_plan 3
#	ktap_check "module loads" modprobe sroce
#	ktap_check_fails "bad link type is refused" rdma link add x type nope netdev eth0
#	ktap_skip "pyverbs" "python3-pyverbs missing"
#	ktap_finish
#
# Output is TAP 13 as the kernel's kselftest.h prints it:
#	TAP version 13 / 1..N / ok N - desc / not ok N - desc /
#	ok N - desc # SKIP why / "# ..." comment lines.
# selftests/run.sh counts these lines; a result that is planned but never
# printed counts as a failure there and in ktap_finish.

KTAP_PLAN=
KTAP_NUM=0
KTAP_FAILED=0
KTAP_SKIPPED=0
KTAP_OUTPUT_MAX=${KTAP_OUTPUT_MAX:-200}	# lines of a failing command's output to show

# Print text as TAP comment lines ("# ..."), at most KTAP_OUTPUT_MAX of them.
ktap_diag() {
	local line n=0
	while IFS= read -r line || [[ -n $line ]]; do
		if ((++n > KTAP_OUTPUT_MAX)); then
			echo "# [output cut after $KTAP_OUTPUT_MAX lines]"
			break
		fi
		echo "# $line"
	done <<<"$*"
}

ktap_plan() {
	KTAP_PLAN=$1
	echo "TAP version 13"
	echo "1..$1"
}

ktap_ok() {
	echo "ok $((++KTAP_NUM)) - $1"
}

ktap_fail() {
	echo "not ok $((++KTAP_NUM)) - $1"
	((++KTAP_FAILED))
	[[ -z ${2:-} ]] || ktap_diag "$2"
}

ktap_skip() {
	echo "ok $((++KTAP_NUM)) - $1 # SKIP ${2:-}"
	((++KTAP_SKIPPED))
}

# Run "$@" in the current shell (so shell functions work and a background
# process it starts cannot hang us on a pipe) with its output in a file.
# Sets KTAP_RC and KTAP_OUT.  One scratch file per shell, reused, and read
# with builtins: under emulation every exec costs ~0.1 s.
_ktap_run() {
	local f=${TMPDIR:-/tmp}/ktap.$$.$BASHPID
	KTAP_RC=0
	"$@" >"$f" 2>&1 </dev/null || KTAP_RC=$?
	KTAP_OUT=
	IFS= read -r -d '' KTAP_OUT <"$f" || true
	KTAP_OUT=${KTAP_OUT%$'\n'}
}

# ok iff CMD exits 0; on failure its output follows as comment lines.
ktap_check() {
	local desc=$1
	shift
	_ktap_run "$@"
	if ((KTAP_RC == 0)); then
		ktap_ok "$desc"
	else
		ktap_fail "$desc" "$(printf '%s\n' "\$ $* (exit $KTAP_RC)" "$KTAP_OUT")"
	fi
}

# ok iff CMD fails (exits non-zero).
ktap_check_fails() {
	local desc=$1
	shift
	_ktap_run "$@"
	if ((KTAP_RC != 0)); then
		ktap_ok "$desc"
	else
		ktap_fail "$desc" "$(printf '%s\n' "\$ $* (exit 0, expected failure)" "$KTAP_OUT")"
	fi
}

# Exit 0 iff nothing failed and exactly the planned number of results was
# printed.  Call once, last.
ktap_finish() {
	local rc=0
	if [[ -z $KTAP_PLAN ]]; then
		echo "# ktap_finish: no plan was printed"
		rc=1
	elif ((KTAP_NUM != KTAP_PLAN)); then
		echo "# planned $KTAP_PLAN results, reported $KTAP_NUM"
		rc=1
	fi
	((KTAP_FAILED == 0)) || rc=1
	rm -f "${TMPDIR:-/tmp}/ktap.$$.$BASHPID"
	# Same line as kselftest.h's ksft_print_cnts(), minus what we never count.
	echo "# Totals: pass:$((KTAP_NUM - KTAP_FAILED - KTAP_SKIPPED)) fail:$KTAP_FAILED skip:$KTAP_SKIPPED"
	exit $rc
}

# "1.5" -> 1500000 (microseconds), pure bash.
_ktap_usec() {
	local s=${1%%.*} f=
	[[ $1 == *.* ]] && f=${1#*.}
	f=${f}000000
	echo $((10#${s:-0} * 1000000 + 10#${f:0:6}))
}

# wait_for DESC TIMEOUT CMD...: poll CMD every 0.2 s until it succeeds (0)
# or TIMEOUT seconds (decimals allowed) pass (1, with a comment line).
# Prints no TAP result itself, so it works under ktap_check too.
wait_for() {
	local desc=$1 timeout=$2 deadline
	shift 2
	deadline=$(($(_ktap_usec "$EPOCHREALTIME") + $(_ktap_usec "$timeout")))
	until "$@" >/dev/null 2>&1; do
		if (($(_ktap_usec "$EPOCHREALTIME") >= deadline)); then
			echo "# wait_for $desc: still failing after ${timeout}s: $*"
			return 1
		fi
		sleep 0.2
	done
}
