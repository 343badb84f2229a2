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
CACHE=$REPO/.cache

TIMEOUT=600 MEM=2048 SMP=2 OUT='' KO='' KO_SET='' QUIET='' APPEND=''
QEMU_EXTRA=()
TESTS=()		# host paths
OUT_IS_TEMP=''
QEMU_PID=''

die() { echo "vm-run: $*" >&2; exit 2; }

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

load_cache() {
	ABI=$(cat "$CACHE/abi" 2>/dev/null) || die "no .cache/abi: run scripts/setup.sh"
	# Modules are built against the installed headers: boot that ABI only.
	[[ $("$REPO/scripts/guest-kernel.sh" abi) == "$ABI" ]] ||
		die "linux-headers-amd64 no longer points at $ABI: run scripts/setup.sh"
	KTREE=$CACHE/guest/$ABI
	INITRD=$KTREE/initramfs.cpio.gz
	MODDIR=$KTREE/lib/modules/$ABI
	# `make clean` of an M=<repo> build deletes the *.ko under .cache/ too;
	# restore the tree (from the kept .deb) rather than boot without modules.
	if ! "$REPO/scripts/guest-kernel.sh" verify "$KTREE" "$ABI"; then
		echo "vm-run: guest module tree in $KTREE is damaged, restoring" >&2
		"$REPO/scripts/guest-kernel.sh" fetch "$CACHE" >/dev/null
	fi
	# vmlinux (extracted by setup) boots via PVH, ~4 s faster than the
	# bzImage under TCG; the bzImage still works.
	KERNEL=$KTREE/vmlinux
	[[ -f $KERNEL ]] || KERNEL=$KTREE/boot/vmlinuz-$ABI
	[[ -f $KERNEL && -d $MODDIR ]] || die "no guest kernel in $KTREE: run scripts/setup.sh"
	if [[ ! -f $INITRD || $REPO/scripts/mkinitramfs.sh -nt $INITRD ]]; then
		"$REPO/scripts/mkinitramfs.sh" "$KTREE" "$ABI" "$INITRD"
	fi
}

# Put the module where the guest's modprobe finds it.  The lock keeps two
# concurrent runs from interleaving copy and depmod.  With no module, a stale
# copy from an earlier run is removed so the guest never loads old code.
install_ko() {
	local dst=$MODDIR/updates/sroce.ko
	if [[ -z $KO_SET && -f $REPO/drivers/sroce/sroce.ko ]]; then
		KO=$REPO/drivers/sroce/sroce.ko
	fi
	[[ -z $KO || -f $KO ]] || die "--ko $KO: no such file"
	exec 9>"$KTREE/.lock"
	flock -w 120 9 || die "cannot lock $KTREE/.lock"
	# depmod takes ~1 s: skip it when the same module is already in place.
	if [[ -n $KO ]] && ! { cmp -s "$KO" "$dst" && [[ $MODDIR/.depmod -nt $dst ]]; }; then
		mkdir -p "$MODDIR/updates"
		cp "$KO" "$dst.tmp" && mv -f "$dst.tmp" "$dst"
		depmod -b "$KTREE" "$ABI"
		touch "$MODDIR/.depmod"
	elif [[ -z $KO && -e $dst ]]; then
		rm -f "$dst"
		depmod -b "$KTREE" "$ABI"
	fi
	exec 9>&-
}

make_out_dir() {
	if [[ -z $OUT ]]; then
		OUT=$(mktemp -d /tmp/vm-run.XXXXXX)
		OUT_IS_TEMP=1
	fi
	mkdir -p "$OUT"
	OUT=$(cd "$OUT" && pwd -P)
	[[ $OUT != *[[:space:]]* ]] || die "out dir '$OUT' contains whitespace"
	rm -rf "$OUT/.tests"
	rm -f "$OUT"/{dmesg.txt,tainted,console.log,qemu.log,kmsg.out,kmsg.rc,status} \
	      "$OUT"/harness.{env,tests,done}
}

# Write the list of guest paths.  Tests outside the repo (e.g. a scratch
# script in /tmp, which the guest covers with its own tmpfs) are copied into
# the results share.
write_tests() {
	local t abs name guest
	local -A seen=()
	: >"$OUT/harness.tests"
	for t in "${TESTS[@]}"; do
		[[ -f $t ]] || die "test $t: no such file"
		abs=$(realpath -s "$t")	# -s: NAME is what the caller named
		name=$(basename "$abs")
		[[ -z ${seen[$name]:-} ]] || die "two tests named $name"
		seen[$name]=1
		rm -f "$OUT/$name.out" "$OUT/$name.rc"
		if [[ $abs == "$REPO"/* ]]; then
			guest=$abs
		else
			mkdir -p "$OUT/.tests"
			cp -p "$abs" "$OUT/.tests/$name"
			guest=/results/.tests/$name
		fi
		echo "$guest" >>"$OUT/harness.tests"
	done
}

write_env() {
	local v
	{
		printf 'HARNESS_REPO=%q\n' "$REPO"
		printf 'HARNESS_ABI=%q\n' "$ABI"
		printf 'HARNESS_MODDIR=%q\n' "$MODDIR"
		for v in $(compgen -e | grep '^SROCE_' || true); do
			printf '%s=%q\n' "$v" "${!v}"
		done
	} >"$OUT/harness.env"
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

# Plain TCG: under KVM these guests hang during kernel decompression on this
# host.  -nodefaults: no VGA, no default NIC (and so no slirp).  The only NIC
# sits on QEMU hub 0 with nothing else attached, so nothing leaves the VM.
# romfile=: no PXE ROM is needed, and Debian splits those out of qemu.
run_qemu() {
	local cmdline rc=0
	# tsc=reliable: TCG's TSC is one host-derived clock for all vCPUs, but
	# the kernel's sync check rejects it and falls back to HPET, which
	# halves clock_gettime() speed.  log_buf_len: keep a long run's log.
	cmdline="console=ttyS0 panic=-1 net.ifnames=0 log_buf_len=8M tsc=reliable"
	cmdline+=" vmharness.init=$REPO/scripts/guest-init.sh $APPEND"
	local share=security_model=none,multidevs=remap
	timeout -k 10 "$TIMEOUT" qemu-system-x86_64 \
		-nodefaults -no-user-config -display none -no-reboot \
		-machine q35 -accel tcg -cpu max -smp "$SMP" -m "$MEM" \
		-kernel "$KERNEL" -initrd "$INITRD" -append "$cmdline" \
		-serial "file:$OUT/console.log" \
		-virtfs "local,path=/,mount_tag=hostroot,readonly=on,$share" \
		-virtfs "local,path=$REPO,mount_tag=repo,readonly=on,$share" \
		-virtfs "local,path=$OUT,mount_tag=results,$share" \
		-netdev hubport,id=n0,hubid=0 \
		-device virtio-net-pci,netdev=n0,romfile= \
		"${QEMU_EXTRA[@]}" \
		</dev/null >"$OUT/qemu.log" 2>&1 &
	QEMU_PID=$!
	wait "$QEMU_PID" || rc=$?
	QEMU_PID=
	return $rc
}

# The test that was running when the guest stopped, from guest-init's
# console lines ("running X" without a matching "X exited").
last_running() {
	sed -n 's/^\[ *[0-9.]*\] guest-init: running \(.*\)/\1/p;
		s/^\[ *[0-9.]*\] guest-init: \(.*\) exited .*/\1 (finished)/p' \
		"$OUT/console.log" 2>/dev/null | tail -n 1 | grep -v '(finished)$' || true
}

# Kernel log verdict into kmsg.out/kmsg.rc.  A guest that died left no
# dmesg.txt: scan the serial console instead (it has the oops or panic) and
# fail regardless, since the end of the log is unknown.
check_kmsg() {
	local rc=0 chk=$REPO/scripts/check-kmsg.sh
	if [[ -f $OUT/dmesg.txt ]]; then
		"$chk" "$OUT/dmesg.txt" "$OUT/tainted" >"$OUT/kmsg.out" 2>&1 || rc=$?
	else
		{
			echo "check-kmsg: no dmesg.txt (guest died); scanning console.log"
			"$chk" "$OUT/console.log" - 2>&1 || true
		} >"$OUT/kmsg.out"
		rc=1
	fi
	echo "$rc" >"$OUT/kmsg.rc"
	return $rc
}

# Decide the verdict from the files the guest left.  Prints the reasons and
# records them in $OUT/status.
verdict() {
	local qemu_rc=$1 t name rc running
	local -a why=()
	if ((qemu_rc == 124 || qemu_rc == 137)); then
		why+=("VM killed after --timeout ${TIMEOUT}s")
	elif ((qemu_rc != 0)); then
		why+=("qemu exited $qemu_rc: $(tail -n 3 "$OUT/qemu.log" | tr '\n' ' ')")
	fi
	if [[ ! -f $OUT/harness.done ]]; then
		running=$(last_running)
		why+=("guest did not finish${running:+ (while running $running)}")
		echo "vm-run: console.log ends with:"
		tail -n 15 "$OUT/console.log" 2>/dev/null | sed 's/^/  | /'
	fi
	while read -r t; do
		name=${t##*/}
		rc=$(cat "$OUT/$name.rc" 2>/dev/null || echo missing)
		[[ $rc == 0 ]] || why+=("$name exit status $rc")
	done <"$OUT/harness.tests"
	if ! check_kmsg; then
		cat "$OUT/kmsg.out"
		why+=("kernel log check")
	fi
	if ((${#why[@]} == 0)); then
		echo PASS >"$OUT/status"
		return 0
	fi
	printf 'FAIL: %s\n' "${why[@]}" | tee "$OUT/status" | sed 's/^/vm-run: /'
	return 1
}

print_outputs() {
	local t name
	while read -r t; do
		name=$(basename "$t")
		echo "# ---- $name (exit $(cat "$OUT/$name.rc" 2>/dev/null || echo missing)) ----"
		cat "$OUT/$name.out" 2>/dev/null || true
	done <"$OUT/harness.tests"
}

main() {
	local start qemu_rc=0 boot
	parse_args "$@"
	check_repo_path
	load_cache
	install_ko
	trap cleanup EXIT
	trap 'kill_qemu; echo "vm-run: interrupted" >&2; exit 130' INT TERM
	make_out_dir
	write_tests
	write_env
	start=$SECONDS
	run_qemu || qemu_rc=$?
	[[ -n $QUIET ]] || print_outputs
	# guest-init logs "[ UPTIME] guest-init: ready ..." once tests can start.
	boot=$(sed -n 's/^\[ *\([0-9.]*\)\] guest-init: ready.*/\1/p' "$OUT/console.log" 2>/dev/null | head -n 1 || true)
	echo "vm-run: VM ran $((SECONDS - start))s${boot:+, guest ready at uptime ${boot}s}${KO:+, module $KO}"
	if verdict "$qemu_rc"; then
		echo "vm-run: PASS"
		return 0
	fi
	KEEP_OUT=1
	return 1
}

main "$@"
