# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the sroce guest tests. Source selftests/lib/lib.sh first.
# These run inside the guest, as root, on the harness' eth0 (192.0.2.1/24).

SROCE_SYSFS=/sys/class/infiniband

# Load what udev would load on a real host, then sroce.
sroce_load() {
	modprobe ib_uverbs && modprobe rdma_ucm && modprobe sroce
}

# module_set_params MODULE NAME=VALUE[,NAME=VALUE...]: set writable
# parameters of a loaded module (one that does not exist is an error).
module_set_params() {
	local kv params
	IFS=, read -r -a params <<<"$2"
	for kv in "${params[@]}"; do
		echo "${kv#*=}" >"/sys/module/$1/parameters/${kv%%=*}" || return 1
	done
}

# Delete every sroce link, then unload the module if it is loaded.
sroce_reset() {
	local dev
	for dev in $(sroce_devices); do
		rdma link delete "$dev" 2>/dev/null || true
	done
	if lsmod | grep -q '^sroce '; then
		rmmod sroce
	fi
}

# Names of the RDMA devices whose link type is ours (driver "sroce" is not
# visible in sysfs; the node description we set is).
sroce_devices() {
	local d
	for d in "$SROCE_SYSFS"/*; do
		[ -e "$d/node_desc" ] || continue
		[ "$(cat "$d/node_desc")" = sroce ] && basename "$d"
	done
	return 0
}

sroce_dev_exists() {
	[ -d "$SROCE_SYSFS/$1" ]
}

sroce_dev_gone() {
	! sroce_dev_exists "$1"
}

# "4: ACTIVE" -> ACTIVE
sroce_port_state() {
	local s
	s=$(cat "$SROCE_SYSFS/$1/ports/1/state" 2>/dev/null) || return 1
	echo "${s#*: }"
}

# Active MTU in bytes, as ibv_devinfo (through the rxe provider) reports it.
sroce_active_mtu() {
	ibv_devinfo -d "$1" | awk '/active_mtu:/ { print $2; exit }'
}

# Index of every GID table entry equal to $2 (sysfs notation). One grep
# over the 1024 entries: a shell loop forking cat for each takes minutes
# under emulation.
sroce_gid_indices() {
	local f
	for f in $(grep -lx "$2" "$SROCE_SYSFS/$1"/ports/1/gids/* 2>/dev/null); do
		echo "${f##*/}"
	done
}

# Does the port's GID table hold GID $2 as a RoCE v2 GID?
sroce_has_rocev2_gid() {
	sroce_gid_index "$1" "$2" >/dev/null
}

# The index of RoCE v2 GID $2, for -g / -x / --gid options.
sroce_gid_index() {
	local i
	for i in $(sroce_gid_indices "$1" "$2"); do
		if [ "$(cat "$SROCE_SYSFS/$1/ports/1/gid_attrs/types/$i" 2>/dev/null)" = "RoCE v2" ]; then
			echo "$i"
			return 0
		fi
	done
	return 1
}

# sroce_wait_gid VAR DEV GID [SECS]: wait up to SECS (10) seconds for RoCE
# v2 GID GID on DEV, then set VAR (unless "") to its index, empty when
# there is none. Returns the wait's status.
sroce_wait_gid() {
	local _sroce_rc=0
	wait_for "$2 RoCE v2 GID $3" "${4:-10}" sroce_has_rocev2_gid "$2" "$3" >/dev/null ||
		_sroce_rc=$?
	[ -z "$1" ] || printf -v "$1" '%s' "$(sroce_gid_index "$2" "$3")"
	return $_sroce_rc
}

# The IPv4 RoCE v2 GID of the harness' eth0 address, 192.0.2.1.
SROCE_GID4=0000:0000:0000:0000:0000:ffff:c000:0201

# sroce_eth0_up [VAR [ADDR6/PLEN]]: the start of most tests: a fresh
# sroce0 on eth0 (sroce_reset, sroce_load, rdma link add), then its IPv4
# RoCE v2 GID waited for (10 s) and its index in VAR unless VAR is ""
# (sroce_wait_gid). ADDR6/PLEN, when given, goes on eth0 (nodad) just
# before the link is added; waiting for its GID is the caller's.
sroce_eth0_up() {
	sroce_reset
	sroce_load
	[ -z "${2:-}" ] || ip -6 addr add "$2" dev eth0 nodad
	rdma link add sroce0 type sroce netdev eth0
	sroce_wait_gid "${1:-}" sroce0 $SROCE_GID4
}

# Two IPv4 addresses on one device, so that its QPs can talk to each other
# routed (through the IP stack, as to another host) rather than looped
# back: adds 192.0.2.77 to eth0 beside its 192.0.2.1, creates sroce0 on
# eth0 (the module must be loaded), checks (one ktap test) that both
# addresses' RoCE v2 GIDs appear, and sets GID1/GID2 (sysfs notation) and
# IDX1/IDX2 (their indices). sroce_two_addresses_down undoes it.
SROCE_ADDR2=192.0.2.77
sroce_two_addresses_up() {
	GID1=0000:0000:0000:0000:0000:ffff:c000:0201
	GID2=0000:0000:0000:0000:0000:ffff:c000:024d
	ip addr add $SROCE_ADDR2/24 dev eth0
	rdma link add sroce0 type sroce netdev eth0
	ktap_check "GIDs of both addresses" wait_for "GIDs" 10 \
		bash -c ". ./lib/sroce_lib.sh; sroce_has_rocev2_gid sroce0 $GID1 && sroce_has_rocev2_gid sroce0 $GID2"
	IDX1=$(sroce_gid_index sroce0 $GID1)
	IDX2=$(sroce_gid_index sroce0 $GID2)
}

sroce_two_addresses_down() {
	rdma link delete sroce0
	ip addr del $SROCE_ADDR2/24 dev eth0
}

sroce_lacks_gid() {
	! sroce_has_rocev2_gid "$@"
}

# EUI-64 from a MAC, in the xxxx:xxxx:xxxx:xxxx form of sysfs and ibv_devinfo.
mac_to_guid() {
	local IFS=: b
	read -r -a b <<<"$1"
	printf '%02x%s:%sff:fe%s:%s%s\n' $((0x${b[0]} ^ 2)) "${b[1]}" "${b[2]}" "${b[3]}" "${b[4]}" "${b[5]}"
}

# The sysfs notation of the IPv6 link-local GID derived from a MAC.
mac_to_ll_gid() {
	echo "fe80:0000:0000:0000:$(mac_to_guid "$1")"
}

# Put a marker in the kernel log and print lines logged after it later.
kmsg_mark() {
	SROCE_KMSG_MARK="sroce-selftest-mark-$RANDOM$RANDOM"
	echo "$SROCE_KMSG_MARK" >/dev/kmsg
}

kmsg_since_mark() {
	dmesg | sed -n "/$SROCE_KMSG_MARK/,\$p"
}

# rdma link output, for before/after comparisons of refused requests.
rdma_links() {
	rdma link show 2>&1 | sort
}

# Object counts of a device as ib_core's restrack sees them, e.g.
# "pd 1 cq 1 qp 1 cm_id 0 mr 0 ctx 0 srq 0". Kernel consumers (ib_mad's
# QP1) own some, so tests compare before and after.
sroce_res_counts() {
	rdma resource show "$1" 2>/dev/null | sed -n "s/^[0-9]*: $1: //p"
}

# Wait until a TCP port listens here (the out-of-band exchange of the
# pingpong and perftest tools), instead of guessing with sleep.
sroce_port_listening() {
	ss -ltnH "sport = :$1" 2>/dev/null | grep -q .
}

sroce_wait_listen() {
	wait_for "TCP port $1 listening" 30 sroce_port_listening "$1" >/dev/null
}

# sroce_counter NAME: the value of one counter of sroce0/1.
sroce_counter() {
	rdma statistic show link sroce0/1 | tr ' ' '\n' | grep -A1 -x "$1" | tail -n 1
}

# Counter deltas: counters_mark [DEV] saves "rdma statistic" of DEV/1
# (default sroce0; the pair tests pass rxe0 or sroce0), counters_delta
# prints the counters of that device that changed since, as name=+N.
counters_mark() {
	COUNTERS_DEV=${1:-sroce0}
	COUNTERS_BEFORE=$(rdma statistic show link "$COUNTERS_DEV/1" 2>/dev/null)
}

counters_delta() {
	rdma statistic show link "${COUNTERS_DEV:-sroce0}/1" 2>/dev/null |
		awk -v before="$COUNTERS_BEFORE" 'BEGIN {
			n = split(before, b, " ")
			for (i = 3; i < n; i += 2) old[b[i]] = b[i + 1]
		}
		{
			for (i = 3; i < NF; i += 2)
				if ($(i + 1) != old[$i])
					out = out sprintf("%s=+%d ", $i, $(i + 1) - old[$i])
			print out == "" ? "(no change)" : out
		}'
}

# counter_delta NAME: how much counter NAME of the device grew since
# counters_mark (0 when it did not).
counter_delta() {
	counters_delta | tr ' ' '\n' | sed -n "s/^$1=+//p" | grep . || echo 0
}

# ibv_rc_pingpong -c between two QPs of device $1 over GID index $2, $3
# messages: the device still moves data (and checks it).
sroce_pingpong_ok() {
	timeout 60 ibv_rc_pingpong -d "$1" -g "$2" -n "${3:-50}" -c >/dev/null 2>&1 &
	local spid=$!
	sroce_wait_listen 18515
	timeout 60 ibv_rc_pingpong -d "$1" -g "$2" -n "${3:-50}" -c 127.0.0.1 >/dev/null 2>&1 || return 1
	wait $spid
}

# The lines `rping -v` prints for COUNT pings of SIZE bytes, each prefixed
# with $3: rping's client fills its buffer with "rdma-ping-N: " and then
# the letters 'A'..'z' (65..122) round and round, starting one letter
# further on each ping, and ends it with a NUL at SIZE-1.
rping_expected() {
	awk -v n="$1" -v size="$2" -v lead="$3" 'BEGIN {
		for (c = 65; c <= 122; c++)
			cyc = cyc sprintf("%c", c)
		rep = cyc
		while (length(rep) < size + 58)
			rep = rep rep
		start = 65
		for (p = 0; p < n; p++) {
			s = sprintf("rdma-ping-%d: ", p)
			if (length(s) >= size - 1)
				s = substr(s, 1, size - 1)
			else
				s = s substr(rep, start - 65 + 1, size - 1 - length(s))
			print lead s
			if (++start > 122)
				start = 65
		}
	}'
}

# rping_exit_race TEXT: TEXT (a run's output and exit status) shows
# rdma-core 44's rping exit race: its CM event thread reads the event
# channel again after the last event while the main thread, done with the
# test, closes that channel; rdma_get_cm_event() then fails with EBADF and
# the thread exits 255 after a run that did all its work. A tool bug, not a
# driver's (fixed upstream in rdma-core's "rping: Fix spurious failure
# return codes", 2025): a run that shows it may go again.
rping_exit_race() {
	grep -q 'exit 255' <<<"$1" &&
		grep -q 'DISCONNECT EVENT' <<<"$1" &&
		grep -q 'rdma_get_cm_event: Bad file descriptor' <<<"$1"
}

# rping_check FILE LEAD SIZE COUNT: the ping lines of FILE that start
# with LEAD are exactly what rping's pattern predicts.
rping_check() {
	local file=$1 lead=$2 size=$3 count=$4 got
	got=$(grep -c "^$lead" "$file")
	if [ "$got" != "$count" ]; then
		echo "$got lines start with '$lead', expected $count"
		return 1
	fi
	# (no process substitution: the guest has no /dev/fd)
	rping_expected "$count" "$size" "$lead" >"$file.want"
	grep "^$lead" "$file" >"$file.got"
	if ! cmp -s "$file.got" "$file.want"; then
		echo "'$lead' lines differ from rping's pattern:" \
		     "$(cmp "$file.got" "$file.want" 2>&1 | sed 's/^[^ ]* [^ ]* //')"
		rm -f "$file.got" "$file.want"
		return 1
	fi
	rm -f "$file.got" "$file.want"
}
