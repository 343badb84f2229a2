# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the two-guest tests that scripts/vm-pair.sh runs.  Source
# selftests/lib.sh and selftests/sroce_lib.sh first.  The harness sets
# SROCE_PAIR_ROLE (a|b), SROCE_SELF_IP/SROCE_PEER_IP (IPv4),
# SROCE_SELF_IP6/SROCE_PEER_IP6 and SROCE_PAIR_DIR, a directory both guests
# share (9p, uncached, so a file one side writes is seen by the other).
#
#	pair_put KEY VALUE      publish a value for the peer
#	pair_get KEY [SECS]     wait for the peer's value of KEY, print it
#	pair_barrier NAME [SECS] both sides reach NAME before either goes on
#	pair_use DRIVER         rxe|sroce: unload the other, load this one,
#	                        create its device on eth0; prints nothing,
#	                        sets PAIR_DEV (rxe0 or sroce0)
#	pair_gid FAMILY [IP]    4|6: sysfs-notation GID of an IP (default ours)
#	pair_gid_index FAMILY   GID table index of our RoCEv2 GID of FAMILY
#
# Keys and barrier names must be unique within a boot (add a counter when
# looping).  A wait fails at once when the peer's qemu has exited
# (SROCE_PAIR_DIR/ROLE.exited, written by the host), and otherwise after
# SECS (default 120) as a guard against a hung peer.

PAIR_DIR=${SROCE_PAIR_DIR:-/pair}
PAIR_ROLE=${SROCE_PAIR_ROLE:-}
PAIR_DEV=

pair_peer_role() {
	[ "$PAIR_ROLE" = a ] && echo b || echo a
}
PAIR_PEER=$(pair_peer_role)

# Write via a temporary name and rename, so the peer never reads half.
pair_put() {
	printf '%s\n' "$2" >"$PAIR_DIR/.$PAIR_ROLE.$1.tmp" &&
		mv -f "$PAIR_DIR/.$PAIR_ROLE.$1.tmp" "$PAIR_DIR/$PAIR_ROLE.$1"
}

pair_get() {
	local key=$1 secs=${2:-120} f=$PAIR_DIR/$PAIR_PEER.$1 n v
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

# Both GIDs of ours present (they appear asynchronously after link add).
pair_gids_ready() {
	sroce_has_rocev2_gid "$PAIR_DEV" "$(pair_gid 4)" &&
		sroce_has_rocev2_gid "$PAIR_DEV" "$(pair_gid 6)"
}

pair_use() {
	local drv=$1
	pair_unload || return 1
	modprobe ib_uverbs && modprobe rdma_ucm || return 1
	case $drv in
	rxe)   modprobe rdma_rxe && rdma link add rxe0 type rxe netdev eth0 &&
		PAIR_DEV=rxe0 ;;
	sroce) modprobe sroce && rdma link add sroce0 type sroce netdev eth0 &&
		PAIR_DEV=sroce0 ;;
	*)     echo "# pair_use: unknown driver $drv" >&2; return 1 ;;
	esac || return 1
	wait_for "$PAIR_DEV GIDs" 20 pair_gids_ready
}
