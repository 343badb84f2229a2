# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers both benchmark guests use (bench_guest.sh, bench_pair.sh).
# The caller sets SCALE (iteration multiplier) and CLOG (the perftest
# client's output file).

# iters BASE: BASE scaled, at least 5 (perftest's minimum).
iters() {
	local n
	n=$(awk -v n="$1" -v s="$SCALE" 'BEGIN { printf "%d", n * s }')
	echo $((n < 5 ? 5 : n))
}

# Is TCP port $1 listening? Read /proc/net/tcp with builtins: under TCG
# every fork costs a noticeable fraction of a second.
listening() {
	local hex w
	printf -v hex ':%04X' "$1"
	while read -r -a w; do
		[[ ${w[1]} == *"$hex" && ${w[3]} == 0A ]] && return 0
	done </proc/net/tcp
	return 1
}

# The result row of perftest's text output: "bytes iters ..." (numbers).
result_row() {
	awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ && NF >= 5 { r = $0 } END { print r }' "$CLOG"
}

# A driver of SROCE_BENCH_DRIVERS is "rxe", "sroce", or a variant of sroce
# for an A/B of its module parameters in the same boot,
# "sroce:NAME=VALUE[,NAME=VALUE...]" (sroce:adaptive_window=0).
# bench_driver LABEL: the module's name.
bench_driver() {
	echo "${1%%:*}"
}

# bench_set_params LABEL: set a variant's parameters on the loaded module
# (writable ones only; a parameter that does not exist is an error).
bench_set_params() {
	[[ $1 == *:* ]] || return 0
	module_set_params "$(bench_driver "$1")" "${1#*:}"
}
