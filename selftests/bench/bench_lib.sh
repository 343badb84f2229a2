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

# bench_link_up LABEL KO: load the driver of LABEL (sroce from the module
# file KO), add its device on eth0, set the variant's parameters; DEV
# names the device.
# shellcheck disable=SC2034	# DEV is the caller's
bench_link_up() {
	case $(bench_driver "$1") in
	rxe)	modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0
		DEV=rxe0 ;;
	sroce)	modprobe -a ib_uverbs rdma_ucm udp_tunnel ip6_udp_tunnel &&
		insmod "$2" && rdma link add sroce0 type sroce netdev eth0
		DEV=sroce0 ;;
	*)	return 1 ;;
	esac || return 1
	bench_set_params "$1"
}

# bench_round_order ROUND DRIVER...: the drivers in the order round ROUND
# measures them: as given in odd rounds, reversed in even ones, so that a
# host that slows down or speeds up through a round does not always hit
# the same driver.
bench_round_order() {
	local round=$1 d out=()
	shift
	if ((round % 2)); then
		echo "$*"
		return
	fi
	for d; do
		out=("$d" "${out[@]}")
	done
	echo "${out[*]}"
}

# block_rows BLOCK: the names of BLOCK's rows, one per line. The caller
# sets BW_SIZES, BW_QPS, LAT_TESTS and LAT_SIZES (the matrix); the block
# atomic_mem is bench_guest.sh's only.
block_rows() {
	local t s q
	case $1 in
	*_bw)
		for s in $BW_SIZES; do
			for q in $BW_QPS; do
				echo "$1/$s/q$q"
			done
		done ;;
	lat)
		for t in $LAT_TESTS; do
			for s in $LAT_SIZES; do
				echo "${t}_lat/$s"
			done
		done ;;
	atomic_mem)
		echo atomic_bw/8/q1
		echo mem/ ;;
	esac
}

# bench_block_wanted BLOCK: does SROCE_BENCH_ONLY select any row of
# BLOCK? The caller defines wanted ROW.
bench_block_wanted() {
	local row
	for row in $(block_rows "$1"); do
		wanted "$row" && return 0
	done
	return 1
}

# run_block BLOCK: measure BLOCK's rows on the driver that is up, each by
# the caller's function for its kind: bw TEST SIZE QPS, lat TEST SIZE,
# atomic, mem.
run_block() {
	local row t s q
	for row in $(block_rows "$1"); do
		IFS=/ read -r t s q <<<"$row"
		case $t in
		atomic_bw)	atomic ;;
		mem)		mem ;;
		*_bw)		bw "${t%_bw}" "$s" "${q#q}" ;;
		*_lat)		lat "${t%_lat}" "$s" ;;
		esac
	done
}

# perf_start / perf_stop: sample the whole guest (perf record -a -g) into
# $PERF_OUT.data, and leave a flat report of it (symbols by self time) in
# $PERF_OUT.txt and the callers of the symbols above 3% in
# $PERF_OUT.graph.txt, made here, where /proc/kallsyms matches the
# samples.
perf_start() {
	# Under TCG perf takes seconds to start: record from the moment it
	# acknowledges "enable" on its control FIFO, not from its start.
	rm -f /tmp/perf.ctl /tmp/perf.ack
	mkfifo /tmp/perf.ctl /tmp/perf.ack
	# Written to the guest's tmpfs: over 9p perf's own writes were the
	# biggest item of the profile.
	perf record -q -a -g -D -1 --control=fifo:/tmp/perf.ctl,/tmp/perf.ack \
		-o /tmp/perf.data >/dev/null 2>&1 &
	PERF_PID=$!
	exec {PERF_CTL}<>/tmp/perf.ctl {PERF_ACK}<>/tmp/perf.ack
	echo enable >&$PERF_CTL
	timeout 60 head -n 1 <&$PERF_ACK >/dev/null ||
		note "  profile: perf did not acknowledge enable"
}

perf_stop() {
	kill -INT "$PERF_PID" 2>/dev/null
	wait "$PERF_PID"
	exec {PERF_CTL}>&- {PERF_ACK}<&-
	mv /tmp/perf.data "$PERF_OUT.data"
	perf report -i "$PERF_OUT.data" --stdio --no-children --sort sym \
		-g none --percent-limit 0.5 >"$PERF_OUT.txt" 2>&1
	# who called the symbols above 3% (irq-off time shows up at the
	# unlock that ends it)
	perf report -i "$PERF_OUT.data" --stdio --no-children --sort sym \
		-g caller,1,callee --percent-limit 3 >"$PERF_OUT.graph.txt" 2>&1
}
