# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the two-guest tests that scripts/vm-pair.sh runs (and the
# pair benchmarks of selftests/bench/).  Source selftests/lib/lib.sh and
# selftests/lib/sroce_lib.sh first.  The harness sets SROCE_PAIR_ROLE
# (a|b), SROCE_SELF_IP/SROCE_PEER_IP (IPv4), SROCE_SELF_IP6/SROCE_PEER_IP6
# and SROCE_PAIR_DIR, a directory both guests share (9p, uncached, so a
# file one side writes is seen by the other).
#
#	pair_put KEY VALUE      publish a value for the peer
#	pair_get KEY [SECS]     wait for the peer's value of KEY, print it
#	pair_barrier NAME [SECS] both sides reach NAME before either goes on
#	pair_use DRIVER         rxe|sroce: unload the other, load this one,
#	                        create its device on eth0; prints nothing,
#	                        sets PAIR_DEV (rxe0 or sroce0); a variant
#	                        sroce:NAME=VALUE[,...] sets module parameters
#	                        first (sroce:adaptive_window=0)
#	pair_gid FAMILY [IP]    4|6: sysfs-notation GID of an IP (default ours)
#	pair_gid_index FAMILY   GID table index of our RoCEv2 GID of FAMILY
#	pair_combination ...    one client/server tool run across the guests
#	                        (see there), reported as one TAP line by A
#	pair_counter_check ...  a TAP result on how much one of our device's
#	                        counters grew since pair_counters_mark
#	pair_phase "DA DB" LABEL  this guest's driver of a phase that runs DA
#	                        on A and DB on B, as a TAP result
#	pair_bth_filter ...     a tc filter on eth0 for one BTH opcode
#	pair_neigh_pin          our ARP entry for the peer made permanent
#	                        (its MAC from the peer); pair_neigh_unpin
#	                        removes it
#	pair_pingpong_cmd ...   CMD for one side of ibv_rc_pingpong -c, and
#	pair_pingpong_check     its output's check (for tool_cmd and
#	                        check_output)
#
# Keys and barrier names must be unique within a test (add a counter when
# looping); they live in a namespace per test, PAIR_NS (default: the
# test's file name, so both sides of a pair test must share it), since
# the shared directory lives as long as the boot.  A wait fails at once when the peer's qemu has exited
# (SROCE_PAIR_DIR/ROLE.exited, written by the host), and otherwise after
# SECS (default 120) as a guard against a hung peer.

PAIR_DIR=${SROCE_PAIR_DIR:-/pair}
PAIR_NS=${PAIR_NS:-${0##*/}}
PAIR_LIMIT=${SROCE_PAIR_LIMIT:-90}	# one tool run, s
PAIR_SEQ=0		# combination number, for unique rendezvous keys
PAIR_PORT=19000		# TCP or rdma_cm port, one per combination
STEP_LOST=
PAIR_ROLE=${SROCE_PAIR_ROLE:-}
PAIR_DEV=

pair_peer_role() {
	[ "$PAIR_ROLE" = a ] && echo b || echo a
}
PAIR_PEER=$(pair_peer_role)

# pair_file ROLE KEY: where ROLE's value of KEY lives.
pair_file() {
	echo "$PAIR_DIR/$1.$PAIR_NS.$2"
}

# Write via a temporary name and rename, so the peer never reads half.
pair_put() {
	local f
	f=$(pair_file "$PAIR_ROLE" "$1")
	printf '%s\n' "$2" >"$f.tmp" && mv -f "$f.tmp" "$f"
}

pair_get() {
	local key=$1 secs=${2:-120} f n v
	f=$(pair_file "$PAIR_PEER" "$1")
	for ((n = secs * 10; n > 0; n--)); do
		if [ -e "$f" ]; then
			IFS= read -r v <"$f"
			printf '%s\n' "$v"
			return 0
		fi
		if [ -e "$PAIR_DIR/$PAIR_PEER.exited" ]; then
			echo "# pair_get $key: guest $PAIR_PEER has exited" >&2
			return 1
		fi
		sleep 0.1
	done
	echo "# pair_get $key: nothing from guest $PAIR_PEER after ${secs}s" >&2
	return 1
}

pair_barrier() {
	pair_put "barrier.$1" 1 && pair_get "barrier.$1" "${2:-120}" >/dev/null
}

# GIDs in the notation of sysfs' gids/N files.
pair_gid() {
	local fam=$1 ip=${2:-} a b c d
	if [ "$fam" = 4 ]; then
		IFS=. read -r a b c d <<<"${ip:-$SROCE_SELF_IP}"
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$a" "$b" "$c" "$d"
	else
		python3 -c 'import ipaddress, sys
h = ipaddress.IPv6Address(sys.argv[1]).exploded
print(h)' "${ip:-$SROCE_SELF_IP6}"
	fi
}

pair_gid_index() {
	sroce_gid_index "$PAIR_DEV" "$(pair_gid "$1")"
}

# Every RDMA link on eth0 gone, both drivers unloaded.
pair_unload() {
	local l
	for l in $(rdma link show 2>/dev/null | awk '{ sub("/.*", "", $2); print $2 }'); do
		rdma link delete "$l" 2>/dev/null || true
	done
	if lsmod | grep -q '^sroce '; then rmmod sroce || return 1; fi
	if lsmod | grep -q '^rdma_rxe '; then rmmod rdma_rxe || return 1; fi
	return 0
}

# rdma_cm (this kernel's cma_netevent_callback) gives every connection to
# an address RDMA_CM_EVENT_UNREACHABLE, status -ETIMEDOUT, as soon as the
# kernel's neighbour entry for it changes to another MAC.  ARP carries no
# checksum, so under netem corrupt one damaged ARP frame from the peer
# can rewrite that MAC and fail a healthy connection, whatever the RDMA
# driver.  A permanent entry ignores ARP; the peer's MAC comes from the
# peer (both sides call this at the same step).
pair_neigh_pin() {
	local mac
	pair_put neigh_mac "$(cat /sys/class/net/eth0/address)"
	mac=$(pair_get neigh_mac) || return 1
	ip neigh replace "$SROCE_PEER_IP" lladdr "$mac" dev eth0 nud permanent &&
		ip -6 neigh replace "$SROCE_PEER_IP6" lladdr "$mac" dev eth0 nud permanent
}

pair_neigh_unpin() {
	ip neigh del "$SROCE_PEER_IP" dev eth0
	ip -6 neigh del "$SROCE_PEER_IP6" dev eth0
}

# Packets the neighbour table /proc/net/stat/$1 dropped while resolving
# an address (its unresolved_discards, one hex column per CPU).
pair_neigh_discards() {
	local header row i col=-1 n=0 f
	{
		read -r -a header
		for i in "${!header[@]}"; do
			[ "${header[$i]}" = unresolved_discards ] && col=$i
		done
		while read -r -a row; do
			((col >= 0)) && f=${row[$col]} && n=$((n + 16#$f))
		done
	} <"/proc/net/stat/$1"
	echo "$n"
}

# The counters of packets this guest's kernel dropped between the RDMA
# device and the wire, either way (IP, UDP, neighbour resolution, eth0),
# as "name value" pairs on one line: where a packet one device sent and
# the other never counted may have gone.
pair_drop_counters() {
	nstat -asz IpInDiscards IpInHdrErrors IpInAddrErrors IpOutDiscards \
		IpOutNoRoutes UdpInErrors UdpRcvbufErrors UdpSndbufErrors UdpNoPorts \
		Ip6InDiscards Ip6OutDiscards Udp6InErrors Udp6NoPorts |
		awk '!/^#/ { printf "%s %s ", $1, $2 }'
	printf 'arp_unresolved_discards %d nd_unresolved_discards %d ' \
		"$(pair_neigh_discards arp_cache)" "$(pair_neigh_discards ndisc_cache)"
	echo "eth0_rx_dropped $(cat /sys/class/net/eth0/statistics/rx_dropped) eth0_tx_dropped $(cat /sys/class/net/eth0/statistics/tx_dropped)"
}

# Both GIDs of ours present (they appear asynchronously after link add).
pair_gids_ready() {
	sroce_has_rocev2_gid "$PAIR_DEV" "$(pair_gid 4)" &&
		sroce_has_rocev2_gid "$PAIR_DEV" "$(pair_gid 6)"
}

pair_use() {
	local drv=${1%%:*} params=
	[[ $1 == *:* ]] && params=${1#*:}
	pair_unload || return 1
	modprobe ib_uverbs && modprobe rdma_ucm || return 1
	case $drv in
	rxe)   modprobe rdma_rxe && module_set_params rdma_rxe "$params" &&
		rdma link add rxe0 type rxe netdev eth0 && PAIR_DEV=rxe0 ;;
	sroce) modprobe sroce && module_set_params sroce "$params" &&
		rdma link add sroce0 type sroce netdev eth0 && PAIR_DEV=sroce0 ;;
	*)     echo "# pair_use: unknown driver $drv" >&2; return 1 ;;
	esac || return 1
	wait_for "$PAIR_DEV GIDs" 20 pair_gids_ready
}

# Is an rdma_cm ID listening on port $1 (rping, perftest -R)?
pair_cm_listening() {
	rdma resource show cm_id 2>/dev/null | grep -E "state LISTEN .*:$1( |$)" | grep -q .
}

# pair_reap PID SECS: wait for PID; after the peer's "done" for KEY (or its
# exit) give it SECS more, then kill it.  Sets PAIR_REAP_RC (or "killed").
pair_reap() {
	local pid=$1 secs=$2 key=$3 grace=-1
	while kill -0 "$pid" 2>/dev/null; do
		if ((grace < 0)) && { [ -e "$(pair_file "$PAIR_PEER" "$key")" ] ||
				       [ -e "$PAIR_DIR/$PAIR_PEER.exited" ]; }; then
			grace=$((secs * 5))
		fi
		if ((grace == 0)); then
			kill "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			PAIR_REAP_RC=killed
			return
		fi
		((grace > 0)) && ((grace--))
		sleep 0.2
	done
	wait "$pid"
	PAIR_REAP_RC=$?
}

# Counters that must stay at zero whatever the timing: sroce's drops of
# malformed packets (bad length, opcode, ICRC, header, P_Key/Q_Key) and, on
# both drivers, retries exhausted and send errors.  rdma_rxe has no counter
# for a malformed packet (it drops it, logging "bad ICRC" at most): the
# tests check its kernel log instead.  Sequence errors, NAKs, duplicates
# and retries are left out: under emulation the receiving guest drops
# packets when a burst overruns it (an 8 MiB message is 8192 packets), and
# those counters then move for good reasons.
PAIR_ERR_COUNTERS='retry_exceeded_err|retry_rnr_exceeded_err|send_err|link_downed|drop_length|drop_opcode|drop_icrc|drop_header|drop_pkey_qkey'

# "name value" pairs of our device's error counters.
pair_err_counters() {
	rdma statistic show link "$PAIR_DEV/1" 2>/dev/null |
		awk -v re="^($PAIR_ERR_COUNTERS)\$" '{
			for (i = 3; i < NF; i += 2) if ($i ~ re) print $i, $(i + 1) }'
}

# pair_run_side KEY TOOL SERVER_ROLE FAM MTU PORT: our half of one combination.
# Leaves our verdict in pair_file ROLE KEY.log and publishes KEY.rc.
pair_run_side() {
	local key=$1 tool=$2 srv=$3 fam=$4 mtu=$5 port=$6 side log rc=0 why=() pid out
	local t0=$EPOCHREALTIME
	[ "$PAIR_ROLE" = "$srv" ] && side=server || side=client
	log=$(mktemp)
	CMD_LIMIT=
	tool_cmd "$tool" "$side" "$fam" "$mtu" "$port"
	local limit=${CMD_LIMIT:-$PAIR_LIMIT}
	pair_counters_mark
	echo "\$ ${CMD[*]}" >"$log.cmd"
	if [ $side = server ]; then
		# stdbuf: a server killed by timeout still shows its lines
		timeout -k 5 "$limit" stdbuf -oL "${CMD[@]}" >"$log" 2>&1 &
		pid=$!
		if wait_for "$key server" 30 pair_server_ready "$pid" "$port" "$READY" &&
		   kill -0 "$pid" 2>/dev/null; then
			pair_put "$key.ready" ok
		else
			pair_put "$key.ready" fail
			why+=("server did not start listening")
		fi
		pair_reap "$pid" 20 "$key.cdone"
		rc=$PAIR_REAP_RC
	else
		if [ "$(pair_get "$key.ready" $((limit + 40)))" = ok ]; then
			timeout -k 5 "$limit" stdbuf -oL "${CMD[@]}" >"$log" 2>&1
			rc=$?
		else
			rc="not run (server not ready)"
		fi
		pair_put "$key.cdone" 1
	fi
	[ "$rc" = 0 ] || why+=("$side exit $rc")
	if [ "$rc" = 0 ]; then
		out=$(check_output "$tool" "$side" "$log") || why+=("$out")
	fi
	{
		echo "$PAIR_ROLE ($PAIR_DEV, $side): $(( ($(_ktap_usec "$EPOCHREALTIME") - $(_ktap_usec "$t0")) / 1000 )) ms"
		if [ ${#why[@]} != 0 ]; then
			echo "$PAIR_ROLE FAILED: $(printf '%s; ' "${why[@]}")"
			cat "$log.cmd"
			sed "s/^/$PAIR_ROLE $side: /" "$log" | cut -c1-200 | tail -n 40
			echo "$PAIR_ROLE counters changed: $(counters_delta)"
			echo "$PAIR_ROLE eth0 frames meanwhile: $(pair_frames_delta)"
		fi
	} >"$(pair_file "$PAIR_ROLE" "$key.log")"
	rm -f "$log" "$log.cmd"
	pair_put "$key.rc" ${#why[@]}
}

pair_server_ready() {
	kill -0 "$1" 2>/dev/null || return 0
	if [ "$3" = cm ]; then pair_cm_listening "$2"; else sroce_port_listening "$2"; fi
}

# counters_mark of sroce_lib.sh for our device (rxe0 or sroce0; its
# counters_delta and counter_delta then report that device's growth), and
# the NIC's frame counts: a failed run whose frames left one guest but
# never arrived at the other points at the link, not a driver.
pair_counters_mark() {
	counters_mark "$PAIR_DEV"
	FRAMES_BEFORE=$(pair_frames)
}

pair_frames() {
	local d=/sys/class/net/eth0/statistics
	echo "$(cat $d/tx_packets) $(cat $d/rx_packets) $(cat $d/tx_dropped) $(cat $d/rx_dropped)"
}

pair_frames_delta() {
	local b now
	read -r -a b <<<"$FRAMES_BEFORE"
	read -r -a now <<<"$(pair_frames)"
	echo "tx +$((now[0] - b[0])) rx +$((now[1] - b[1]))" \
		"tx_dropped +$((now[2] - b[2])) rx_dropped +$((now[3] - b[3]))"
}

# pair_counter_check LABEL NAME MIN [MAX]: a TAP result LABEL, ok when
# counter NAME grew by at least MIN (and at most MAX) since
# pair_counters_mark.
pair_counter_check() {
	local n
	n=$(counter_delta "$2")
	if ((n >= $3)) && { [ $# -lt 4 ] || ((n <= $4)); }; then
		ktap_ok "$1 ($2 +$n)"
	else
		ktap_fail "$1" "$2 +$n"
	fi
}

# pair_phase "DA DB" LABEL: bring up this guest's driver of a phase in
# which guest A runs DA and guest B runs DB (drivers as pair_use takes
# them), reported as the TAP result "LABEL DA-DB: guest R runs D".  Sets
# PHASE (DA-DB), PHASE_A and PHASE_B.
pair_phase() {
	local drv
	read -r PHASE_A PHASE_B <<<"$1"
	PHASE=$PHASE_A-$PHASE_B
	if [ "$PAIR_ROLE" = a ]; then drv=$PHASE_A; else drv=$PHASE_B; fi
	ktap_check "$2 $PHASE: guest $PAIR_ROLE runs $drv" pair_use "$drv"
}

# pair_bth_filter ingress|egress OPCODE ACTION...: a tc u32 filter on eth0
# (in a clsact qdisc) for the RoCE v2 packets of BTH opcode OPCODE (IPv4
# without options: the opcode is the byte after the UDP header, at 28),
# with the tc action ACTION ("drop", or gact's "pass random determ drop
# 4": every fourth).  pair_bth_filter_drops DIR prints how many it
# dropped; pair_bth_filter_off removes it.
pair_bth_filter() {
	local dir=$1 op=$2
	shift 2
	tc qdisc replace dev eth0 clsact &&
	tc filter add dev eth0 "$dir" protocol ip pref 1 u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff \
		match u8 "$op" 0xff at 28 action "$@"
}

pair_bth_filter_drops() {
	tc -s filter show dev eth0 "$1" 2>/dev/null |
		sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | head -n 1
}

pair_bth_filter_off() {
	tc qdisc del dev eth0 clsact 2>/dev/null
}

# pair_pingpong_cmd SIDE PORT ITERS SIZE: set CMD to one side of
# ibv_rc_pingpong -c (every received buffer checked) over our IPv4 GID,
# ITERS messages of SIZE bytes, with qp_linger.so: the QP answers a
# retransmission for 3 s after the tool is done, as its last ACK may be
# lost (with_linger.sh).
pair_pingpong_cmd() {
	CMD=("$PWD/with_linger.sh" 3
	     ibv_rc_pingpong -d "$PAIR_DEV" -g "$(pair_gid_index 4)" -p "$2"
	     -n "$3" -c -s "$4" -m 1024)
	[ "$1" = client ] && CMD+=("$SROCE_PEER_IP")
}

# pair_pingpong_check SIDE LOG: did that run finish with its data intact?
pair_pingpong_check() {
	grep -q 'iters in' "$2" || { echo "$1: no 'iters in' line"; return 1; }
	! grep -q 'invalid data' "$2" || { echo "$1: invalid data"; return 1; }
}

# pair_combination NAME SERVER_ROLE TOOL FAM MTU: one client/server run
# between the guests, called by both in the same order; guest A prints its
# TAP result NAME, failing with both sides' evidence when either side
# failed.  The test defines tool_cmd TOOL SIDE FAM MTU PORT (sets the array
# CMD, READY=tcp|cm: how to see the server listen on PORT, and CMD_LIMIT
# when the run may take longer than PAIR_LIMIT seconds) and
# check_output TOOL SIDE LOG (non-zero, with a reason, when the output of
# a run that exited 0 does not show the work done).  It may define
# retry_reason TOOL EVIDENCE: print why a failed run may run again (a known
# race of the tool itself, never of the drivers) and return 0; both guests
# decide from the same evidence, so they agree.  Each side's timing and
# evidence go to pair_file ROLE cN.log.  STEP_LOST is set when the peer
# never reached the combination.
# Six runs at most: perftest's -R race (interop_matrix.sh) lost about one
# run in six in CI, every driver pair alike, and one combination of CI
# run 25 lost it three times running; six losses in a row are about one
# in 47,000.  Only a failure that matches a retry reason runs again.
PAIR_ATTEMPTS=6

# Why a failed run may go again: rping's own exit race (sroce_lib.sh),
# whichever test ran it, or the test's retry_reason.
pair_retry_reason() {
	if [ "$1" = rping ] && rping_exit_race "$2"; then
		echo "rping's exit race (rdma_get_cm_event on its closed channel)"
		return 0
	fi
	declare -F retry_reason >/dev/null && retry_reason "$1" "$2"
}

pair_combination() {
	local name=$1 srv=$2 tool=$3 fam=$4 mtu=$5 key peer_rc mine theirs
	local attempt=0 why retried=()
	while :; do
		attempt=$((attempt + 1))
		PAIR_SEQ=$((PAIR_SEQ + 1)) PAIR_PORT=$((PAIR_PORT + 1))
		key=c$PAIR_SEQ
		if ! pair_barrier "$key.go" 300; then
			# shellcheck disable=SC2034 # the tests that source this read it
			STEP_LOST=1
			[ "$PAIR_ROLE" = a ] && ktap_fail "$name" "peer did not reach it"
			return
		fi
		pair_run_side "$key" "$tool" "$srv" "$fam" "$mtu" "$PAIR_PORT"
		peer_rc=$(pair_get "$key.rc" $((${CMD_LIMIT:-$PAIR_LIMIT} + 60))) || peer_rc="no result"
		mine=$(cat "$(pair_file "$PAIR_ROLE" "$key.log")")
		theirs=$(cat "$(pair_file "$PAIR_PEER" "$key.log")" 2>/dev/null)
		[ "$PAIR_ROLE" = a ] || { local t=$mine; mine=$theirs; theirs=$t; }
		# From here "mine" is guest A's evidence on both guests.
		if ! grep -q FAILED <<<"$mine$theirs" || [ $attempt -ge $PAIR_ATTEMPTS ] ||
		   ! why=$(pair_retry_reason "$tool" "$mine$theirs"); then
			break
		fi
		retried+=("attempt $attempt: $why")
	done
	[ "$PAIR_ROLE" = a ] || return 0
	for why in "${retried[@]}"; do
		echo "# $name: ran again after $why"
	done
	if grep -q FAILED <<<"$mine" || [ "$peer_rc" != 0 ]; then
		ktap_fail "$name" "$(printf '%s\n%s\n' "$mine" "$theirs")"
	else
		ktap_ok "$name"
		echo "# $name: $(head -n 1 <<<"$mine"); $(head -n 1 <<<"$theirs")"
	fi
}
