#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-layers.sh: the layers of Documentation/design.rst ("Layers"),
# checked on the #include "..." lines of drivers/sroce/. A file may include
# the headers of its own layer and of the layers below it, never of a
# layer above; a function is called through its header, so this keeps the
# calls pointing down too. Every file has exactly one layer, written once
# in the table below: a file missing from it is a violation as well.
#
# Prints one line per violation, as FILE:LINE: what, and exits 1 if there
# is any; prints one summary line and exits 0 otherwise.
#
# Usage: scripts/check-layers.sh [DIR]   (default: drivers/sroce)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/drivers/sroce}

# Layer, then the files of that layer by name without .c/.h (foo.c and
# foo.h share their layer).
layers='
0 l0_compat wire psn window opcode icrc crc
1 compat fault counters pool queue sroce pd av mr odp mw cq srq qp mcast wqe net
2 pkt payload recv task txflow req resp resp_res comp restrack
3 qp_verbs verbs device main
'
names=([0]="L0 (wire)" [1]="L1 (objects)" [2]="L2 (transport)" [3]="L3 (verbs, device)")

declare -A layer_of
while read -r n files; do
	[[ -n $n ]] || continue
	for f in $files; do
		layer_of[$f]=$n
	done
done <<<"$layers"

violations=0
violation() {
	echo "$1"
	violations=$((violations + 1))
}

# check_file PATH: the includes of one source file.
check_file() {
	local path=$1 file stem mine line inc theirs
	file=${path#"$top"/}
	stem=$(basename "${path%.[ch]}")
	mine=${layer_of[$stem]:-}
	if [[ -z $mine ]]; then
		violation "$file: has no layer: add '$stem' to the table in scripts/check-layers.sh"
		return
	fi
	while IFS=: read -r line inc; do
		inc=${inc#*\"}
		inc=${inc%%\"*}
		theirs=${layer_of[${inc%.h}]:-}
		if [[ -z $theirs ]]; then
			violation "$file:$line: includes $inc, which has no layer (scripts/check-layers.sh)"
		elif ((theirs > mine)); then
			violation "$file:$line: ${names[$mine]} includes $inc of ${names[$theirs]}"
		fi
	done < <(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$path" || true)
}

shopt -s nullglob
files=0
for path in "$dir"/*.[ch]; do
	[[ $path == *.mod.c ]] && continue
	check_file "$path"
	files=$((files + 1))
done

if ((violations)); then
	echo "check-layers: $violations violation(s) of the layers in Documentation/design.rst"
	exit 1
fi
echo "check-layers: $files files, every #include points to its own layer or below"
