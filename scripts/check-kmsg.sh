#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-kmsg.sh DMESG_FILE TAINT_FILE
#
# Fail (exit 1, printing the offending lines) when the guest kernel log shows
# a kernel bug report of any kind, or when the kernel got tainted by anything
# other than loading sroce.ko.  Exit 0 and print nothing when clean.
# TAINT_FILE "-" skips the taint check (e.g. to scan a serial console log
# after the guest died).
#
# This is the one list of "the kernel complained" patterns: a debug-kernel
# run (KASAN, lockdep, kmemleak, debugobjects) feeds its log through the same
# script; the patterns avoid those tools' harmless boot banners.  A test that
# injects faults on purpose must silence their reports (failslab verbose=0),
# since a stack trace is a failure here whoever asked for it.
#   check-kmsg.sh --patterns   prints the regexes, one per line.
set -euo pipefail

# Extended regexes, matched case-sensitively against each log line.
BAD_PATTERNS=(
	'WARNING:'			# WARN_ON(); lockdep/RCU reports start so too
	'(^|[^A-Za-z_])BUG:'		# BUG: KASAN/unable to handle/scheduling while atomic, not ODEBUG:
	'kernel BUG at'
	'Oops'
	'Call Trace:'			# any backtrace at all
	'RIP: [0-9a-f]{4}:'		# register dump of an oops/warning
	'general protection fault'
	'invalid opcode:'
	'Kernel panic'
	'possible circular locking'
	'possible recursive locking'
	'inconsistent lock state'
	'INFO: possible'		# INFO: possible irq lock inversion ...
	'INFO: trying to register non-static key'
	'suspicious RCU usage'
	'\blockdep\b'			# "lockdep is turned off" etc. (not MAX_LOCKDEP_*)
	'DEBUG_LOCKS_WARN_ON'
	'refcount_t:'
	'soft lockup'
	'hard LOCKUP'
	'hung_task'
	'blocked for more than'
	'rcu: INFO: rcu_[a-z]+ (self-)?detected stall'
	'KASAN'
	'UBSAN'
	'kmemleak: [0-9]+ new suspected memory leak'
	'unreferenced object 0x'	# kmemleak report body
	'sleeping function called from invalid context'
	'ODEBUG: (.*object type: |object .* on stack|Out of memory)'	# not "ODEBUG: selftest passed"
	'list_add corruption'
	'BUG [^ ]+ \((Not tainted|Tainted: [^)]*)\): '	# SLUB (slub_debug): "BUG kmalloc-64 (Not tainted): Redzone overwritten"
	'pagealloc: (single bit error|memory corruption)'	# page_poison
	'list_del corruption'
	'stack-protector'
	'unregister_netdevice: waiting for'	# netdev refcount leak
)

# Lines that match a bad pattern but are known to be harmless on the guest
# kernels we boot.  Each entry needs a comment saying why.
ALLOW_PATTERNS=(
	'\] guest-init: '	# the harness' own progress lines (test names)
	# A user-space program's crash ("traps: prog[pid] general protection
	# fault ip:... in libfoo.so"): the kernel only reports it; the test
	# that ran the program fails on its exit status.
	'traps: .*\[[0-9]+\] general protection fault ip:[0-9a-f]+ sp:[0-9a-f]+ error:[0-9a-f]+'
	# The debug kernel's boot banner (PROVE_RCU), not a report.
	'rcu: .*RCU lockdep checking is enabled\.'
)

# Taint bits that are expected: O (4096, out-of-tree module) and
# E (8192, unsigned module) from loading sroce.ko into Debian's kernel.
# A plain boot of Debian's 6.1 under this harness shows tainted=0.
ALLOWED_TAINT=$((4096 | 8192))
TAINT_LETTERS=PFSRMBUDAWCIOELKXTN	# bit 0 .. 18, as in Documentation/admin-guide/tainted-kernels.rst

join_by() { local IFS=$1; shift; echo "$*"; }

# Print the set bits of a taint mask as "bit N (L)".
decode_taint() {
	local mask=$1 bit
	for ((bit = 0; bit < 32; bit++)); do
		((mask & (1 << bit))) || continue
		echo "  bit $bit (${TAINT_LETTERS:bit:1}), value $((1 << bit))"
	done
}

# Print "N:line" hits prefixed with the test guest-init said was running.
attribute() {
	local log=$1 hit n test='boot' i=0
	local -a mark_ln=() mark_test=()
	# A here-string, not process substitution: the guest has no /dev/fd.
	while IFS=: read -r n hit; do
		[[ -n $n ]] || continue
		mark_ln+=("$n")
		mark_test+=("${hit##*guest-init: running }")
	done <<<"$(grep -n 'guest-init: running ' "$log" || true)"
	while IFS= read -r hit; do
		n=${hit%%:*}
		while ((i < ${#mark_ln[@]} && mark_ln[i] < n)); do
			test=${mark_test[i]}
			((++i))
		done
		echo "  [$test] $hit"
	done
}

check_log() {
	local log=$1 bad allow hits
	bad=$(join_by '|' "${BAD_PATTERNS[@]}")
	allow=$(join_by '|' "${ALLOW_PATTERNS[@]}")
	hits=$(grep -a -E -n -- "$bad" "$log" || true)
	if [[ -n $allow && -n $hits ]]; then
		hits=$(grep -E -v -- "$allow" <<<"$hits" || true)
	fi
	[[ -z $hits ]] && return 0
	echo "check-kmsg: kernel log $log has $(wc -l <<<"$hits") bad line(s):"
	attribute "$log" <<<"$hits" | head -n 200
	return 1
}

check_taint() {
	local file=$1 taint
	taint=$(tr -d '[:space:]' <"$file")
	if ! [[ $taint =~ ^[0-9]+$ ]]; then
		echo "check-kmsg: taint file $file does not hold a number: '$taint'"
		return 1
	fi
	((taint & ~ALLOWED_TAINT)) || return 0
	echo "check-kmsg: kernel tainted=$taint, unexpected bits:"
	decode_taint $((taint & ~ALLOWED_TAINT))
	return 1
}

main() {
	local rc=0 f
	if [[ ${1:-} == --patterns ]]; then
		printf '%s\n' "${BAD_PATTERNS[@]}"
		return 0
	fi
	if [[ $# -ne 2 ]]; then
		echo "usage: check-kmsg.sh DMESG_FILE TAINT_FILE | --patterns" >&2
		return 2
	fi
	for f in "$1" "$2"; do
		if [[ $f != - && ! -r $f ]]; then
			echo "check-kmsg: $f missing (guest died before the end?)"
			rc=1
		fi
	done
	((rc == 0)) || return 1
	check_log "$1" || rc=1
	if [[ $2 != - ]]; then
		check_taint "$2" || rc=1
	fi
	return $rc
}

main "$@"
