#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-pair.sh [options] --a 'TEST...' --b 'TEST...'
#
# Boot two guests of Debian's kernel (as scripts/vm-run.sh does) joined by
# one virtual Ethernet link, and run a list of tests in each.  The tests of
# the two sides run concurrently and coordinate through a shared directory
# (helpers in selftests/lib/pair_lib.sh).  Exit 0 only if every test in both
# guests exited 0 and both kernel logs are clean.
#
# Options:
#   --a 'TEST...'  tests for guest A, whitespace-separated paths (required)
#   --b 'TEST...'  tests for guest B (required); the same script may be
#                  given to both, it reads SROCE_PAIR_ROLE
#   --timeout S    wall-clock limit for the whole run (default 900); both
#                  guests are killed when it expires, a failure
#   --mem MB       memory per guest (default 1536)
#   --smp N        CPUs per guest (default 1: two guests share this host)
#   --out DIR      results directory (default: a temporary one, removed
#                  after a passing run and kept, with its path printed,
#                  otherwise)
#   --ko PATH      module for the guests (default: the one scripts/kbuild.sh
#                  builds for the guests' kernel)
#   --kernel-b K   boot guest B on supported kernel K (scripts/guest-kernel.sh
#                  list), each guest with sroce built for its own kernel;
#                  A boots $SROCE_KERNEL (6.1 by default), as does B
#                  without this option
#   --append STR   extra kernel command line for both guests
#   --link unix|tcp|udp  how QEMU carries the link (default unix, or
#                  $SROCE_PAIR_LINK), see below
#   --vcpu-nice N  run both guests' vCPU threads at nice N on this host
#                  (default 0, or $SROCE_PAIR_VCPU_NICE), see below
#   --qemu-arg A   extra qemu argument for both guests (repeatable), as
#                  vm-run.sh's, e.g. -icount shift=0,sleep=on
#   --quiet        do not print the test outputs, only the verdict
#
# The link: with unix (the default), the two NICs are the two ends of one
# connected pair of Unix datagram sockets made before the guests start,
# one datagram per frame: no frame is ever lost (a QEMU whose peer has not
# read enough waits until the socket is writable again), there is no byte
# stream to get out of step and no host TCP in the way.  With tcp, guest
# A's NIC is a QEMU socket netdev listening on 127.0.0.1 at a free port
# chosen per run, B's connects to it: lossless too, but QEMU leaves
# Nagle's algorithm on, so a frame sent while an earlier one is not yet
# acknowledged by the host's TCP waits for a delayed ACK (tens of
# milliseconds), and in some boots one guest's frames stopped reaching the
# other for the rest of the run (QEMU 7.2; seen three times, never with
# unix; most likely the lost virtio kick that vm-lib.sh's maxcpus=2 now
# prevents, which stopped the UDP link the same way).  With udp, each NIC
# is a QEMU socket netdev bound to its own port
# on 127.0.0.1 and sending to the other's, one datagram per frame: a frame
# is dropped when the other QEMU does not read fast enough, as on a real
# link.  Nothing else is on
# the link, nothing leaves it, and no user-mode networking is used.  In
# each guest the NIC is eth0:
#   A: 192.0.2.1/24, 2001:db8:2::1/64, MAC 52:54:00:50:00:0a, host pair-a
#   B: 192.0.2.2/24, 2001:db8:2::2/64, MAC 52:54:00:50:00:0b, host pair-b
#
# The vCPU's priority: each guest's vCPU thread runs its guest, QEMU's
# main thread moves its NIC's frames between the guest and the link.
# When both guests busy-poll (perftest polls its CQ) the two vCPU
# threads fill this host's two cores, and a frame waits until the host
# scheduler gives its QEMU's main thread a turn. --vcpu-nice 10 lets
# the main threads preempt the vCPUs at once (scripts/bench.sh uses it:
# across the link the 2 B ib_write_lat of rdma_rxe went from 393 us,
# spread 80% over 8 rounds, to 271 us, spread 5%).
#
# Environment in the guests: as vm-run.sh (every SROCE_* variable of the
# caller, SROCE_TEST_TIMEOUT per test, SROCE_GUEST=1, SROCE_REPO), plus
#   SROCE_PAIR_ROLE   a or b
#   SROCE_SELF_IP, SROCE_PEER_IP      192.0.2.1 / 192.0.2.2 (or swapped)
#   SROCE_SELF_IP6, SROCE_PEER_IP6    2001:db8:2::1 / 2001:db8:2::2
#   SROCE_PAIR_DIR    /pair, the shared directory (both guests read and
#                     write it; it starts empty)
#   SROCE_KERNEL      the guest's own kernel (6.1, 6.12, ...)
#   SROCE_PAIR_KERNELS  "A's B's": both guests' kernels
#
# Results in the out dir:
#   a/, b/        each guest's results, exactly as vm-run.sh's out dir
#                 (NAME.out, NAME.rc, dmesg.txt, kmsg.out, status, ...);
#                 the guest sees its own at /results
#   pair/         the shared directory, /pair in both guests.  When a
#                 guest's qemu exits, the host writes pair/ROLE.exited, so
#                 the peer's waits (pair_lib.sh) fail at once instead of
#                 running into their timeouts
#   status        "PASS", or one "FAIL: a|b: reason" line per reason
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

TIMEOUT=900 MEM=1536 SMP=1 OUT='' KO='' KO_SET='' QUIET='' APPEND=''
VCPU_NICE=${SROCE_PAIR_VCPU_NICE:-0}
LINK=${SROCE_PAIR_LINK:-unix}
TESTS_A='' TESTS_B=''
QEMU_EXTRA=()
KERNEL_A=${SROCE_KERNEL:-6.1} KERNEL_B=''
OUT_IS_TEMP='' PORT='' PORT_B=''
declare -A PID=()	# role -> pid of timeout(1) running its qemu
declare -A QRC=()	# role -> exit status of that

die() { echo "vm-pair: $*" >&2; exit 2; }

# shellcheck source=scripts/vm-lib.sh
. "$REPO/scripts/vm-lib.sh"

usage() {
	sed -n '4,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
	exit 2
}

parse_args() {
	while [[ $# -gt 0 ]]; do
		case $1 in
		--a)        TESTS_A=${2?}; shift 2 ;;
		--b)        TESTS_B=${2?}; shift 2 ;;
		--timeout)  TIMEOUT=${2:?}; shift 2 ;;
		--mem)      MEM=${2:?}; shift 2 ;;
		--smp)      SMP=${2:?}; shift 2 ;;
		--out)      OUT=${2:?}; shift 2 ;;
		--ko)       KO=${2:?}; KO_SET=1; shift 2 ;;
		--kernel-b) KERNEL_B=${2:?}; shift 2 ;;
		--append)   APPEND=${2?}; shift 2 ;;
		--link)     LINK=${2:?}; shift 2 ;;
		--vcpu-nice) VCPU_NICE=${2:?}; shift 2 ;;
		--qemu-arg) QEMU_EXTRA+=("${2:?}"); shift 2 ;;
		--quiet)    QUIET=1; shift ;;
		-h|--help)  usage ;;
		*)          die "unknown argument $1" ;;
		esac
	done
	[[ -n ${TESTS_A// } && -n ${TESTS_B// } ]] || usage
	[[ $TIMEOUT =~ ^[0-9]+$ && $MEM =~ ^[0-9]+$ && $SMP =~ ^[0-9]+$ ]] ||
		die "--timeout, --mem and --smp take numbers"
	[[ $VCPU_NICE =~ ^-?[0-9]+$ ]] || die "--vcpu-nice takes a number"
	[[ $LINK == unix || $LINK == tcp || $LINK == udp ]] ||
		die "--link takes unix, tcp or udp, not '$LINK'"
	[[ $REPO != *[[:space:]]* ]] || die "repo path '$REPO' contains whitespace"
	KERNEL_B=${KERNEL_B:-$KERNEL_A}
	[[ -z $KO_SET || $KERNEL_A == "$KERNEL_B" ]] ||
		die "--ko names one module, but the guests boot $KERNEL_A and $KERNEL_B"
}

# load_guest_kernel ROLE KERNEL: vm-lib.sh's view of the kernel one guest
# boots (KTREE, ABI, INITRD, MODDIR, KERNEL, and sroce installed into its
# module tree), kept per role for write_guest and start_guest.
declare -A G_KTREE=() G_ABI=() G_INITRD=() G_MODDIR=() G_KERNEL=() G_NAME=()
load_guest_kernel() {
	local role=$1
	SROCE_KERNEL=$2 vm_load_cache
	SROCE_KERNEL=$2 vm_install_ko
	G_KTREE[$role]=$KTREE G_ABI[$role]=$ABI G_INITRD[$role]=$INITRD
	G_MODDIR[$role]=$MODDIR G_KERNEL[$role]=$KERNEL G_NAME[$role]=$2
}

use_guest_kernel() {
	local role=$1
	KTREE=${G_KTREE[$role]} ABI=${G_ABI[$role]} INITRD=${G_INITRD[$role]}
	MODDIR=${G_MODDIR[$role]} KERNEL=${G_KERNEL[$role]}
}

make_out_dirs() {
	if [[ -z $OUT ]]; then
		OUT=$(mktemp -d /tmp/vm-pair.XXXXXX)
		OUT_IS_TEMP=1
	fi
	mkdir -p "$OUT"
	OUT=$(cd "$OUT" && pwd -P)
	[[ $OUT != *[[:space:]]* ]] || die "out dir '$OUT' contains whitespace"
	rm -rf "$OUT/pair"
	rm -f "$OUT/status"
	mkdir -p "$OUT/a" "$OUT/b" "$OUT/pair"
	vm_clean_out "$OUT/a"
	vm_clean_out "$OUT/b"
}

# write_guest ROLE N PEER_N TESTS: harness files of one guest.
write_guest() {
	local role=$1 n=$2 peer=$3 tests=()
	read -r -a tests <<<"$4"
	use_guest_kernel "$role"
	vm_write_tests "$OUT/$role" "${tests[@]}"
	vm_write_env "$OUT/$role" \
		"SROCE_KERNEL=${G_NAME[$role]}" \
		"SROCE_PAIR_KERNELS='${G_NAME[a]} ${G_NAME[b]}'" \
		"HARNESS_IP4=192.0.2.$n/24" "HARNESS_IP6=2001:db8:2::$n/64" \
		"HARNESS_HOSTNAME=pair-$role" "HARNESS_PAIR_DIR=/pair" \
		"SROCE_PAIR_ROLE=$role" "SROCE_PAIR_DIR=/pair" \
		"SROCE_SELF_IP=192.0.2.$n" "SROCE_PEER_IP=192.0.2.$peer" \
		"SROCE_SELF_IP6=2001:db8:2::$n" "SROCE_PEER_IP6=2001:db8:2::$peer"
}

# start_guest ROLE MAC NETDEV [FD]: boot one guest in the background; FD,
# the other guest's end of the unix link, is closed in its qemu.
start_guest() {
	local role=$1 mac=$2 netdev=$3 dir=$OUT/$1 peer_fd=${4:-}
	use_guest_kernel "$role"
	vm_qemu_cmd "$dir" "$SMP" "$MEM" "$APPEND" \
		-virtfs "local,path=$OUT/pair,mount_tag=pair,security_model=none,multidevs=remap" \
		-netdev "$netdev" \
		-device "virtio-net-pci,netdev=n0,mac=$mac,romfile=" \
		"${QEMU_EXTRA[@]}"
	(
		[[ -z $peer_fd ]] || exec {peer_fd}>&-
		exec timeout -k 10 "$TIMEOUT" "${VM_QEMU[@]}" </dev/null >"$dir/qemu.log" 2>&1
	) &
	PID[$role]=$!
}

# The unix link's socket pair, on LINK_FD_A and LINK_FD_B.  Bash cannot
# make one, so the script runs itself again under python, which makes the
# pair, leaves both ends open across exec and says where in
# SROCE_PAIR_LINK_FDS.  The send buffers are raised (forced as root) so
# that a burst of full-size frames does not have to wait for the peer
# QEMU after a few of them.
LINK_FD_A='' LINK_FD_B=''
with_link_fds() {
	if [[ -n ${SROCE_PAIR_LINK_FDS:-} ]]; then
		read -r LINK_FD_A LINK_FD_B <<<"$SROCE_PAIR_LINK_FDS"
		[[ -e /proc/self/fd/$LINK_FD_A && -e /proc/self/fd/$LINK_FD_B ]] ||
			die "link sockets $SROCE_PAIR_LINK_FDS are not open"
		unset SROCE_PAIR_LINK_FDS	# not for the guests' environment
		return 0
	fi
	command -v python3 >/dev/null || die "the unix link needs python3"
	export SROCE_PAIR_LINK_FDS="7 8"
	exec python3 -c '
import os, socket, sys
ends = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
for s in ends:
    try:
        s.setsockopt(socket.SOL_SOCKET, 32, 4 << 20)  # SO_SNDBUFFORCE
    except OSError:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
os.dup2(ends[0].fileno(), 7)
os.dup2(ends[1].fileno(), 8)
os.execv("/bin/bash", ["bash"] + sys.argv[1:])
' "${BASH_SOURCE[0]}" "$@"
}

port_taken() {
	ss -lntuH "sport = :$1" 2>/dev/null | grep -q .
}

# A random port that nothing listens on or is bound to now.  Another run
# may still take it before qemu binds; boot_a then retries with another.
pick_port() {
	local p
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		p=$((20000 + RANDOM % 30000))
		port_taken "$p" || { echo "$p"; return 0; }
	done
	die "no free port found"
}

# Start A on a free port and wait until its qemu has bound it (it does
# before it starts the guest); with udp, pick B's port first, as A sends
# to it.  Sets PORT (A's) and PORT_B (udp).
boot_a() {
	local port try t netdev
	if [[ $LINK == unix ]]; then
		start_guest a 52:54:00:50:00:0a \
			"dgram,id=n0,local.type=fd,local.str=$LINK_FD_A" "$LINK_FD_B"
		return 0
	fi
	for try in 1 2 3 4 5; do
		port=$(pick_port)
		if [[ $LINK == udp ]]; then
			PORT_B=$(pick_port)
			[[ $PORT_B != "$port" ]] || continue
			netdev="socket,id=n0,udp=127.0.0.1:$PORT_B,localaddr=127.0.0.1:$port"
		else
			netdev="socket,id=n0,listen=127.0.0.1:$port"
		fi
		start_guest a 52:54:00:50:00:0a "$netdev"
		for ((t = 0; t < 100; t++)); do
			if ! kill -0 "${PID[a]}" 2>/dev/null; then
				break		# did not bind (taken meanwhile?)
			fi
			if port_taken "$port"; then
				PORT=$port
				return 0
			fi
			sleep 0.1
		done
		kill "${PID[a]}" 2>/dev/null || true
		wait "${PID[a]}" 2>/dev/null || true
		echo "vm-pair: guest A did not bind port $port (try $try):" \
			"$(tail -n 2 "$OUT/a/qemu.log" | tr '\n' ' ')" >&2
	done
	return 1
}

# B connects to A (tcp) or binds the port A sends to (udp).
boot_b() {
	local netdev="socket,id=n0,connect=127.0.0.1:$PORT"

	case $LINK in
	unix)
		start_guest b 52:54:00:50:00:0b \
			"dgram,id=n0,local.type=fd,local.str=$LINK_FD_B" "$LINK_FD_A"
		return 0 ;;
	udp)
		netdev="socket,id=n0,udp=127.0.0.1:$PORT,localaddr=127.0.0.1:$PORT_B" ;;
	esac
	start_guest b 52:54:00:50:00:0b "$netdev"
}

# renice_vcpus ROLE: that guest's vCPU threads (vm-lib.sh names them
# "CPU n/TCG") to nice $VCPU_NICE. QEMU makes them before the guest
# starts; waits up to 10 s for them, and says so if none appeared.
renice_vcpus() {
	local role=$1 qpid t comm n=0 try
	((VCPU_NICE != 0)) || return 0
	for ((try = 0; try < 100 && n == 0; try++)); do
		# PID[] is timeout(1)'s; qemu is its child
		qpid=$(pgrep -P "${PID[$role]}" 2>/dev/null | head -n 1) || qpid=''
		for t in ${qpid:+/proc/$qpid/task/*}; do
			comm=$(cat "$t/comm" 2>/dev/null) || continue
			[[ $comm == CPU\ */TCG ]] || continue
			renice -n "$VCPU_NICE" -p "${t##*/}" >/dev/null && n=$((n + 1))
		done
		((n)) || sleep 0.1
	done
	((n)) || echo "vm-pair: guest $role: no vCPU thread found to renice" >&2
}

kill_guests() {
	local r
	for r in "${!PID[@]}"; do
		kill "${PID[$r]}" 2>/dev/null || true
	done
}

cleanup() {
	kill_guests
	if [[ -n $OUT_IS_TEMP && -n ${KEEP_OUT:-} ]]; then
		echo "vm-pair: results kept in $OUT" >&2
	elif [[ -n $OUT_IS_TEMP ]]; then
		rm -rf "$OUT"
	fi
}

# Wait for both qemus; as each exits, tell the other guest through
# pair/ROLE.exited.
wait_guests() {
	local done_pid rc r left
	while ((${#QRC[@]} < 2)); do
		left=()
		for r in a b; do
			[[ -n ${QRC[$r]:-} ]] || left+=("${PID[$r]}")
		done
		rc=0
		wait -n -p done_pid "${left[@]}" || rc=$?
		for r in a b; do
			if [[ ${PID[$r]} == "$done_pid" ]]; then
				QRC[$r]=$rc
				echo "$rc" >"$OUT/pair/$r.exited"
			fi
		done
	done
}

main() {
	local start ok=1 r boot
	parse_args "$@"
	[[ $LINK != unix ]] || with_link_fds "$@"
	load_guest_kernel a "$KERNEL_A"
	KO_A=$KO
	if [[ $KERNEL_B == "$KERNEL_A" ]]; then
		# One kernel tree, set up once, booted twice.
		G_KTREE[b]=${G_KTREE[a]} G_ABI[b]=${G_ABI[a]} G_INITRD[b]=${G_INITRD[a]}
		G_MODDIR[b]=${G_MODDIR[a]} G_KERNEL[b]=${G_KERNEL[a]} G_NAME[b]=${G_NAME[a]}
	else
		[[ -n $KO_SET ]] || KO=
		load_guest_kernel b "$KERNEL_B"
	fi
	trap cleanup EXIT
	trap 'kill_guests; echo "vm-pair: interrupted" >&2; exit 130' INT TERM
	make_out_dirs
	write_guest a 1 2 "$TESTS_A"
	write_guest b 2 1 "$TESTS_B"
	start=$SECONDS
	if ! boot_a; then
		QRC[a]=1
		echo 1 >"$OUT/pair/a.exited"
		die "could not start guest A"
	fi
	boot_b
	renice_vcpus a
	renice_vcpus b
	wait_guests
	for r in a b; do
		if [[ -z $QUIET ]]; then
			echo "# ==== guest $r ===="
			vm_print_outputs "$OUT/$r"
		fi
	done
	for r in a b; do
		boot=$(vm_boot_time "$OUT/$r")
		echo "vm-pair: guest $r: qemu exit ${QRC[$r]}${boot:+, ready at uptime ${boot}s}"
		vm_verdict "$OUT/$r" "${QRC[$r]}" "$TIMEOUT" "vm-pair $r: " || ok=''
	done
	echo "vm-pair: VMs ran $((SECONDS - start))s on a $LINK link${PORT:+ (port $PORT${PORT_B:+/$PORT_B})}," \
	     "A on ${G_ABI[a]}${KO_A:+ ($KO_A)}, B on ${G_ABI[b]}${KO:+ ($KO)}"
	if [[ -n $ok ]]; then
		echo PASS >"$OUT/status"
		echo "vm-pair: PASS"
		return 0
	fi
	for r in a b; do
		sed -n "s/^FAIL: /FAIL: $r: /p" "$OUT/$r/status"
	done >"$OUT/status"
	KEEP_OUT=1
	return 1
}

main "$@"
