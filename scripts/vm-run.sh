#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-run.sh [options] TEST...
#
# Boot Debian's kernel (unpacked by scripts/setup.sh) under QEMU and run the
# given test programs one after another inside it.  Exit 0 only if every test
# exited 0 and the guest kernel log is clean (scripts/check-kmsg.sh).
#
# Options:
#   --timeout S   wall-clock limit for the whole VM run (default 600); qemu is
#                 killed when it expires, which counts as a failure
#   --mem MB      guest memory (default 2048)
#   --smp N       guest CPUs (default 2)
#   --out DIR     results directory (default: a temporary one, removed after
#                 a passing run and kept, with its path printed, otherwise)
#   --ko PATH     module to install as updates/sroce.ko in the guest module
#                 tree (default drivers/sroce/sroce.ko when it exists)
#   --append STR  extra kernel command line
#   --qemu-arg A  extra qemu argument (repeatable), e.g. for -icount
#   --quiet       do not print the test outputs, only the verdict
#
# Environment: every SROCE_* variable is passed to the tests in the guest;
# SROCE_TEST_TIMEOUT (default 300) is the per-test limit in seconds.  The
# guest also sets SROCE_GUEST=1 and SROCE_REPO (repo path).
#
# Results in the out dir, per test NAME (basename of its path):
#   NAME.out  stdout+stderr   NAME.rc  exit status (absent: never finished)
#   dmesg.txt, tainted        guest kernel log and taint mask at the end
#   console.log               serial console;  qemu.log  qemu's own output
#   kmsg.out, kmsg.rc         verdict of scripts/check-kmsg.sh
#   status                    "PASS", or one "FAIL: reason" line per reason
# The guest sees the out dir at /results.
#
# Guest layout: / is this machine's root over virtio-9p (read-only) under a
# tmpfs overlay; the repo is shared the same way at its own path (so it is
# visible even when it lives under /tmp); one virtio-net NIC, eth0, on an
# isolated QEMU hub, 192.0.2.1/24.  No network reaches outside.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)

TIMEOUT=600 MEM=2048 SMP=2 OUT='' KO='' KO_SET='' QUIET='' APPEND=''
QEMU_EXTRA=()
TESTS=()		# host paths
OUT_IS_TEMP=''
QEMU_PID=''

die() { echo "vm-run: $*" >&2; exit 2; }

# shellcheck source=scripts/vm-lib.sh
. "$REPO/scripts/vm-lib.sh"

usage() {
	sed -n '4,/^set -/{/^set -/d;s/^# \{0,1\}//;p}' "${BASH_SOURCE[0]}" >&2
	exit 2
}

parse_args() {
	while [[ $# -gt 0 ]]; do
		case $1 in
		--timeout)  TIMEOUT=${2:?}; shift 2 ;;
		--mem)      MEM=${2:?}; shift 2 ;;
		--smp)      SMP=${2:?}; shift 2 ;;
		--out)      OUT=${2:?}; shift 2 ;;
		--ko)       KO=${2:?}; KO_SET=1; shift 2 ;;
		--append)   APPEND=${2?}; shift 2 ;;
		--qemu-arg) QEMU_EXTRA+=("${2:?}"); shift 2 ;;
		--quiet)    QUIET=1; shift ;;
		-h|--help)  usage ;;
		--)         shift; TESTS+=("$@"); break ;;
		-*)         die "unknown option $1" ;;
		*)          TESTS+=("$1"); shift ;;
		esac
	done
	[[ ${#TESTS[@]} -gt 0 ]] || usage
	[[ $TIMEOUT =~ ^[0-9]+$ && $MEM =~ ^[0-9]+$ && $SMP =~ ^[0-9]+$ ]] ||
		die "--timeout, --mem and --smp take numbers"
}

# The repo path goes on the kernel command line and into 9p mount points.
check_repo_path() {
	[[ $REPO != *[[:space:]]* ]] || die "repo path '$REPO' contains whitespace"
}

make_out_dir() {
	if [[ -z $OUT ]]; then
		OUT=$(mktemp -d /tmp/vm-run.XXXXXX)
		OUT_IS_TEMP=1
	fi
	mkdir -p "$OUT"
	OUT=$(cd "$OUT" && pwd -P)
	[[ $OUT != *[[:space:]]* ]] || die "out dir '$OUT' contains whitespace"
	vm_clean_out "$OUT"
}

# QEMU_PID is timeout(1), which passes the signal on to qemu.
kill_qemu() {
	if [[ -n $QEMU_PID ]]; then
		kill "$QEMU_PID" 2>/dev/null || true
	fi
	QEMU_PID=''
}

cleanup() {
	kill_qemu
	if [[ -n $OUT_IS_TEMP && -n ${KEEP_OUT:-} ]]; then
		echo "vm-run: results kept in $OUT" >&2
	elif [[ -n $OUT_IS_TEMP ]]; then
		rm -rf "$OUT"
	fi
}

# The only NIC has no backend at all, so nothing leaves the VM: QEMU
# drops every frame it sends and completes it at once.  (A QEMU hub with
# no other port would hold the frames instead, for ever: the NIC's
# transmit queue then stops, which 6.12's byte queue limits turn into a
# "NETDEV WATCHDOG" within seconds of boot.)
run_qemu() {
	local rc=0
	vm_qemu_cmd "$OUT" "$SMP" "$MEM" "$APPEND" \
		-device virtio-net-pci,romfile= \
		"${QEMU_EXTRA[@]}"
	timeout -k 10 "$TIMEOUT" "${VM_QEMU[@]}" </dev/null >"$OUT/qemu.log" 2>&1 &
	QEMU_PID=$!
	wait "$QEMU_PID" || rc=$?
	QEMU_PID=
	return $rc
}

main() {
	local start qemu_rc=0 boot
	parse_args "$@"
	check_repo_path
	vm_load_cache
	vm_install_ko
	trap cleanup EXIT
	trap 'kill_qemu; echo "vm-run: interrupted" >&2; exit 130' INT TERM
	make_out_dir
	vm_write_tests "$OUT" "${TESTS[@]}"
	vm_write_env "$OUT"
	start=$SECONDS
	run_qemu || qemu_rc=$?
	[[ -n $QUIET ]] || vm_print_outputs "$OUT"
	# guest-init logs "[ UPTIME] guest-init: ready ..." once tests can start.
	boot=$(vm_boot_time "$OUT")
	echo "vm-run: VM ran $((SECONDS - start))s${boot:+, guest ready at uptime ${boot}s}${KO:+, module $KO}"
	if vm_verdict "$OUT" "$qemu_rc" "$TIMEOUT"; then
		echo "vm-run: PASS"
		return 0
	fi
	KEEP_OUT=1
	return 1
}

main "$@"
