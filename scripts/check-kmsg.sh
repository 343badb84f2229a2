#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-kmsg.sh DMESG_FILE TAINT_FILE
#
# Fail (exit 1, printing the offending lines) when the guest kernel log shows
# a kernel bug report of any kind, or when the kernel got tainted by anything
# other than loading sroce.ko.  Exit 0 when clean, printing nothing but a
# note for each known foreign report it let through (FOREIGN_REPORTS).
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
	'(^|[^A-Za-z0-9_])lockdep([^A-Za-z0-9_]|$)'	# "lockdep is turned off" etc. (not MAX_LOCKDEP_*; no \b: awk uses these too)
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
	'NETDEV WATCHDOG'		# a transmit queue stopped for good: 6.12 prints it without WARNING:
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

# Whole reports of bugs in the guest kernel itself, outside sroce and the
# RDMA stack, that the tests are known to provoke.  Never matched by line:
# a report is let through only when it is complete (from its first line to
# the end of its stack dump, "</TASK>"), holds every one of the entry's
# fixed strings, holds no second report, and names no RDMA code
# (RDMA_FRAMES).  Each entry: "name|string|string|..." with a comment
# saying what the bug is and why it is not ours.
FOREIGN_REPORTS=(
	# nvme_core's multipath code in Debian's 6.1 (a stable backport moved
	# the head's partition scan to a work item): the last close of a
	# multipath head's block device, after its namespace went away, frees
	# the head and flushes that work while blkdev_put() holds the disk's
	# open_mutex, which the work itself takes.  Lockdep (the debug
	# kernel) reports it when an NVMe-oF namespace is removed while a
	# program (fio, the nvme CLI) still has it open.  Neither chain has
	# an RDMA frame; the stock kernel has no lockdep and says nothing.
	'nvme-multipath-partition-scan|possible circular locking dependency detected|(&disk->open_mutex)|(&head->partition_scan_work)|nvme_partition_scan_work+|nvme_mpath_remove_disk+|nvme_put_ns_head+|blkdev_put+'
)
# A frame of these modules or functions makes a report ours, whatever else
# it matches.
RDMA_FRAMES='\[(sroce|ib_[a-z_]+|iw_cm|rdma_[a-z_]+|nvme_rdma|nvmet_rdma|rpcrdma|svcrdma)\]|[ ?](sroce|ib|rdma|rxe|siw|nvme_rdma|nvmet_rdma|svc_rdma|xprt_rdma|rpcrdma)_[A-Za-z0-9_.]*\+0x'

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

# The BAD_PATTERNS that start a report, as one ERE: all but the lines
# of a backtrace, which every report (the known foreign ones too) has.
report_starts() {
	local p out=
	for p in "${BAD_PATTERNS[@]}"; do
		case $p in 'Call Trace:' | 'RIP: '*) continue ;; esac
		out+=${out:+|}$p
	done
	echo "$out"
}

# foreign_blocks LOG: "name first last" for each complete report in LOG
# that matches a FOREIGN_REPORTS entry (lines first..last, 1-based).
foreign_blocks() {
	local log=$1
	((${#FOREIGN_REPORTS[@]})) || return 0
	# through the environment: awk -v would eat the backslashes
	KMSG_ENTRIES=$(printf '%s\n' "${FOREIGN_REPORTS[@]}") \
	KMSG_STARTS=$(report_starts) \
	KMSG_OURS=$RDMA_FRAMES awk '
	# Any line of BAD_PATTERNS but the backtrace lines every report
	# has starts a report; a second one inside a block makes the block
	# more than the known report.
	function starts(line) {
		return line ~ ENVIRON["KMSG_STARTS"]
	}
	function judge(   e, f, n, i, ok) {
		for (e = 1; e <= ne; e++) {
			n = split(entry[e], f, "|")
			ok = 1
			for (i = 2; i <= n && ok; i++)
				if (index(text, f[i]) == 0)
					ok = 0
			if (ok) {
				print f[1], first, NR
				return
			}
		}
	}
	BEGIN {
		ne = split(ENVIRON["KMSG_ENTRIES"], entry, "\n")
		ours = ENVIRON["KMSG_OURS"]
	}
	{
		if (inblock && starts($0)) {
			inblock = 0		# a second report: not the known one
		}
		if (!inblock && starts($0)) {
			inblock = 1; first = NR; text = ""; tainted = 0
		}
		if (!inblock)
			next
		text = text "\n" $0
		if ($0 ~ ours)
			tainted = 1
		if (index($0, "</TASK>")) {
			if (!tainted)
				judge()
			inblock = 0
		} else if (NR - first > 400) {
			inblock = 0		# never ended: not a whole report
		}
	}' "$log"
}

# drop_lines RANGES: the "N:line" hits on stdin whose N is in none of the
# "name first last" RANGES.
drop_lines() {
	awk -v ranges="$1" '
	BEGIN {
		n = split(ranges, r, "\n")
		for (i = 1; i <= n; i++)
			if (split(r[i], f, " ") == 3) { lo[++m] = f[2]; hi[m] = f[3] }
	}
	{
		ln = $0; sub(/:.*/, "", ln); ln += 0
		for (i = 1; i <= m; i++)
			if (ln >= lo[i] && ln <= hi[i])
				next
		print
	}'
}

# Say which foreign reports were let through, and what that costs.
note_foreign() {
	local log=$1 name first last head
	while read -r name first last; do
		[[ -n $name ]] || continue
		head=$(sed -n "${first}p" "$log")
		echo "check-kmsg: note: known foreign report '$name' (lines $first-$last of $log) let through:"
		attribute "$log" <<<"$first:$head"
		if [[ $head == *locking* ]]; then
			echo "check-kmsg: note: lockdep checks nothing more in that boot after a report"
		fi
	done <<<"$2"
}

check_log() {
	local log=$1 bad allow hits foreign
	bad=$(join_by '|' "${BAD_PATTERNS[@]}")
	allow=$(join_by '|' "${ALLOW_PATTERNS[@]}")
	hits=$(grep -a -E -n -- "$bad" "$log" || true)
	if [[ -n $allow && -n $hits ]]; then
		hits=$(grep -E -v -- "$allow" <<<"$hits" || true)
	fi
	if [[ -n $hits ]]; then
		foreign=$(foreign_blocks "$log")
		if [[ -n $foreign ]]; then
			hits=$(drop_lines "$foreign" <<<"$hits")
			note_foreign "$log" "$foreign"
		fi
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
