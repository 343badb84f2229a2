#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host test of scripts/check-kmsg.sh, the verdict every guest run ends on:
# it must fail on a kernel report, and let through a known foreign report
# (FOREIGN_REPORTS) only when the whole report is exactly that one.  The
# fixture is a real lockdep report from a debug-kernel boot (nvme_core's
# multipath partition scan); the other cases are edits of it.  Prints TAP.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
chk=$here/../../scripts/check-kmsg.sh
fixture=$here/kmsg/nvme-multipath-lockdep.log
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 failed=0

# expect DESC WANT_RC FILE [OUTPUT_REGEX]: run the checker on FILE.
expect() {
	local desc=$1 want=$2 file=$3 re=${4:-} out rc
	out=$("$chk" "$file" - 2>&1)
	rc=$?
	((++n))
	if ((rc == want)) && { [[ -z $re ]] ||
		{ [[ $re == EMPTY ]] && [[ -z $out ]]; } ||
		grep -qE -- "$re" <<<"$out"; }; then
		echo "ok $n - check-kmsg: $desc"
	else
		echo "not ok $n - check-kmsg: $desc (exit $rc, wanted $want)"
		printf '# %s\n' "${out//$'\n'/$'\n'# }"
		((++failed))
	fi
}

# variant NAME SED_SCRIPT: the fixture edited by sed.
variant() {
	sed -e "$2" "$fixture" >"$work/$1.log"
	echo "$work/$1.log"
}

grep -v -E 'WARNING|Call Trace|RIP:' "$fixture" >"$work/clean.log"
expect "a log with no report passes silently" 0 "$work/clean.log" EMPTY
expect "the known nvme_core multipath lockdep report is let through, with a note" \
	0 "$fixture" "note: known foreign report 'nvme-multipath-partition-scan'"
expect "the same report with an sroce frame in a chain fails" 1 \
	"$(variant ours '0,/blkdev_close+0x31\/0x40/s//sroce_qp_destroy+0x58\/0x1b0 [sroce]/')" \
	'circular locking'
expect "the same report with an ib_core frame fails" 1 \
	"$(variant ibcore '/__flush_work+0xf3\/0x760/a [  613.002665]        ib_dealloc_pd_user+0x10/0x20 [ib_core]')"
expect "a report missing one of the known chain's functions fails" 1 \
	"$(variant other 's/nvme_mpath_remove_disk/nvme_other_function/g')"
expect "a report cut before the end of its stack dump fails" 1 \
	"$(variant cut '/<\/TASK>/d')"
expect "a second report inside the known one fails" 1 \
	"$(variant second '/lock_acquire+0x14d\/0x390/a [  613.014919] BUG: KASAN: use-after-free in sroce_rx+0x1/0x2 [sroce]')" \
	'KASAN'
# Reports that do not start with BUG:/WARNING: are reports too.
expect "a UBSAN report inside the known one fails" 1 \
	"$(variant ubsan '/lock_acquire+0x14d\/0x390/a [  613.014919] UBSAN: shift-out-of-bounds in drivers/infiniband/core/cma.c:1:2')" \
	'UBSAN'
expect "a kmemleak report inside the known one fails" 1 \
	"$(variant leak '/lock_acquire+0x14d\/0x390/a [  613.014919] unreferenced object 0xffff888012345678 (size 64):')" \
	'unreferenced object'
cat "$fixture" "$work/clean.log" >"$work/twice.log"
echo "[  700.000000] WARNING: CPU: 0 PID: 1 at drivers/sroce/qp.c:1 x+0x1/0x2 [sroce]" >>"$work/twice.log"
expect "a report after the known one still fails" 1 "$work/twice.log" 'qp\.c'

echo "1..$n"
echo "# $((n - failed)) passed, $failed failed, 0 skipped"
((failed == 0))
