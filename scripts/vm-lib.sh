# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vm-lib.sh: the pieces of the guest harness shared by scripts/vm-run.sh
# (one guest) and scripts/vm-pair.sh (two guests on one link).  Sourced, not
# run.  The caller sets REPO (the repo root) and defines die(); these
# functions set and use the globals CACHE, ABI, KTREE, INITRD, MODDIR,
# KERNEL, KO and KO_SET (KO_SET non-empty: KO was given on the command line).
#
# A results directory ("out dir") is what one guest sees at /results: the
# contract with scripts/guest-init.sh (harness.env, harness.tests in; per
# test NAME.out/NAME.rc, dmesg.txt, tainted, harness.done out).

CACHE=$REPO/.cache

# SROCE_GUEST_TREE and SROCE_GUEST_ABI boot another kernel tree laid out
# like .cache/guest/ABI (scripts/debug-kernel.sh builds one);
# SROCE_GUEST_KO is then the module built for it.
vm_load_other_tree() {
	KTREE=$SROCE_GUEST_TREE
	ABI=${SROCE_GUEST_ABI:?SROCE_GUEST_TREE needs SROCE_GUEST_ABI}
	INITRD=$KTREE/initramfs.cpio.gz
	MODDIR=$KTREE/lib/modules/$ABI
	KERNEL=$KTREE/vmlinux
	[[ -f $KERNEL ]] || KERNEL=$KTREE/boot/vmlinuz-$ABI
	[[ -f $KERNEL && -d $MODDIR ]] || die "no kernel in $KTREE"
	if [[ ! -f $INITRD || $REPO/scripts/mkinitramfs.sh -nt $INITRD ]]; then
		"$REPO/scripts/mkinitramfs.sh" "$KTREE" "$ABI" "$INITRD"
	fi
}

# SROCE_KERNEL (default 6.1) names the Debian kernel series to boot
# (scripts/guest-kernel.sh list); its ABI is the one its headers
# metapackage points at, unpacked by scripts/setup.sh in .cache/guest/ABI.
vm_load_cache() {
	local kernel=${SROCE_KERNEL:-6.1}
	if [[ -n ${SROCE_GUEST_TREE:-} ]]; then
		vm_load_other_tree
		return
	fi
	# Modules are built against the installed headers: boot that ABI only.
	ABI=$("$REPO/scripts/guest-kernel.sh" abi "$kernel") ||
		die "no headers for kernel $kernel: run scripts/setup.sh"
	KTREE=$CACHE/guest/$ABI
	INITRD=$KTREE/initramfs.cpio.gz
	MODDIR=$KTREE/lib/modules/$ABI
	# `make clean` of an M=<repo> build deletes the *.ko under .cache/ too;
	# restore the tree (from the kept .deb) rather than boot without modules.
	if ! "$REPO/scripts/guest-kernel.sh" verify "$KTREE" "$ABI"; then
		echo "vm: guest module tree in $KTREE is missing or damaged, unpacking it" >&2
		"$REPO/scripts/guest-kernel.sh" fetch "$CACHE" "$kernel" >/dev/null
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
vm_install_ko() {
	local dst=$MODDIR/updates/sroce.ko
	if [[ -z $KO_SET && -n ${SROCE_GUEST_KO:-} ]]; then
		KO=$SROCE_GUEST_KO
	elif [[ -z $KO_SET ]]; then
		KO=$("$REPO/scripts/kbuild.sh" --ko "${SROCE_KERNEL:-6.1}")
		[[ -f $KO ]] || KO=
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

# vm_clean_out DIR: forget an earlier run's harness files in a results dir.
vm_clean_out() {
	rm -rf "$1/.tests"
	rm -f "$1"/{dmesg.txt,tainted,console.log,qemu.log,kmsg.out,kmsg.rc,status} \
	      "$1"/harness.{env,tests,done}
}

# vm_write_tests DIR TEST...: write DIR/harness.tests, the list of guest
# paths.  Tests outside the repo (e.g. a scratch script in /tmp, which the
# guest covers with its own tmpfs) are copied into the results share.
vm_write_tests() {
	local dir=$1 t abs name guest
	local -A seen=()
	shift
	: >"$dir/harness.tests"
	for t in "$@"; do
		[[ -f $t ]] || die "test $t: no such file"
		abs=$(realpath -s "$t")	# -s: NAME is what the caller named
		name=$(basename "$abs")
		[[ -z ${seen[$name]:-} ]] || die "two tests named $name"
		seen[$name]=1
		rm -f "$dir/$name.out" "$dir/$name.rc"
		if [[ $abs == "$REPO"/* ]]; then
			guest=$abs
		else
			mkdir -p "$dir/.tests"
			cp -p "$abs" "$dir/.tests/$name"
			guest=/results/.tests/$name
		fi
		echo "$guest" >>"$dir/harness.tests"
	done
}

# vm_write_env DIR [LINE...]: DIR/harness.env with the harness variables,
# every SROCE_* variable of this environment, then the given lines
# (NAME=value, already quoted), which may override them.
vm_write_env() {
	local dir=$1 v
	shift
	{
		printf 'HARNESS_REPO=%q\n' "$REPO"
		printf 'HARNESS_ABI=%q\n' "$ABI"
		printf 'HARNESS_MODDIR=%q\n' "$MODDIR"
		for v in $(compgen -e | grep '^SROCE_' || true); do
			printf '%s=%q\n' "$v" "${!v}"
		done
		[[ $# -eq 0 ]] || printf '%s\n' "$@"
	} >"$dir/harness.env"
}

# vm_qemu_cmd DIR SMP MEM APPEND NETARG...: print nothing, fill the array
# VM_QEMU with the qemu command line for a guest whose results dir is DIR.
# Plain TCG: under KVM these guests hang during kernel decompression on this
# host.  -nodefaults: no VGA, no default NIC (and so no slirp); the caller
# gives the one NIC's -netdev/-device arguments.  romfile=: no PXE ROM is
# needed, and Debian splits those out of qemu.
vm_qemu_cmd() {
	local dir=$1 smp=$2 mem=$3 append=$4 cmdline
	shift 4
	# tsc=reliable: TCG's TSC is one host-derived clock for all vCPUs, but
	# the kernel's sync check rejects it and falls back to HPET, which
	# halves clock_gettime() speed.  log_buf_len: keep a long run's log.
	cmdline="console=ttyS0 panic=-1 net.ifnames=0 log_buf_len=8M tsc=reliable"
	cmdline+=" vmharness.init=$REPO/scripts/guest-init.sh $append"
	local share=security_model=none,multidevs=remap mon=()
	# A human monitor on DIR/monitor.sock, for a look at a live guest's
	# devices (scripts/qemu-monitor.py DIR/monitor.sock "info virtio");
	# left out when the path is too long for a socket address.
	((${#dir} < 90)) && mon=(-monitor "unix:$dir/monitor.sock,server=on,wait=off")
	# maxcpus=2 for a one-CPU guest: QEMU 7.2's TCG drops the guest's
	# memory barriers when the machine can have only one vCPU, but
	# virtio's device side runs on QEMU's main thread, in parallel: the
	# guest's store of a ring index and its load of the device's event
	# index then pass each other, a kick is lost and that queue stops
	# for good (the pair guests' eth0 transmit stall: 238 frames in the
	# ring, QEMU idle, resumed by a monitor "stop"/"cont").  Fixed
	# upstream in QEMU 8.1 ("tcg: Do not elide memory barriers for
	# !CF_PARALLEL in system mode"); a second possible vCPU makes 7.2
	# translate the barriers, thread=multi keeps MTTCG, which that
	# needs, whatever the default.
	local maxcpus=$((smp < 2 ? 2 : smp)) thread=multi
	# -icount (an instruction-exact clock) refuses MTTCG, and so loses
	# the barriers above: for runs that keep their traffic off eth0
	[[ " $* " == *" -icount "* ]] && thread=single
	# SROCE_GUEST_CPU: the CPU model (scripts/test-debug.sh changes it).
	# debug-threads: QEMU names its threads ("CPU 0/TCG" runs the guest),
	# which vm-pair.sh --vcpu-nice needs and top(1) shows.
	VM_QEMU=(qemu-system-x86_64
		-nodefaults -no-user-config -display none -no-reboot
		-name sroce,debug-threads=on
		-machine q35 -accel "tcg,thread=$thread" -cpu "${SROCE_GUEST_CPU:-max}"
		-smp "$smp,maxcpus=$maxcpus" -m "$mem"
		-kernel "$KERNEL" -initrd "$INITRD" -append "$cmdline"
		-serial "file:$dir/console.log"
		-virtfs "local,path=/,mount_tag=hostroot,readonly=on,$share"
		-virtfs "local,path=$REPO,mount_tag=repo,readonly=on,$share"
		-virtfs "local,path=$dir,mount_tag=results,$share"
		"${mon[@]}" "$@")
}

# vm_last_running DIR: the test that was running when the guest stopped,
# from guest-init's console lines ("running X" without "X exited").
vm_last_running() {
	sed -n 's/^\[ *[0-9.]*\] guest-init: running \(.*\)/\1/p;
		s/^\[ *[0-9.]*\] guest-init: \(.*\) exited .*/\1 (finished)/p' \
		"$1/console.log" 2>/dev/null | tail -n 1 | grep -v '(finished)$' || true
}

# vm_check_kmsg DIR: kernel log verdict into DIR/kmsg.out and kmsg.rc.  A
# guest that died left no dmesg.txt: scan the serial console instead (it
# has the oops or panic) and fail regardless, since the end of the log is
# unknown.
vm_check_kmsg() {
	local dir=$1 rc=0 chk=$REPO/scripts/check-kmsg.sh
	if [[ -f $dir/dmesg.txt ]]; then
		"$chk" "$dir/dmesg.txt" "$dir/tainted" >"$dir/kmsg.out" 2>&1 || rc=$?
	else
		{
			echo "check-kmsg: no dmesg.txt (guest died); scanning console.log"
			"$chk" "$dir/console.log" - 2>&1 || true
		} >"$dir/kmsg.out"
		rc=1
	fi
	echo "$rc" >"$dir/kmsg.rc"
	return $rc
}

# vm_verdict DIR QEMU_RC TIMEOUT [PREFIX]: decide one guest's verdict from
# the files it left.  Prints the reasons (each line starting with PREFIX,
# default "vm-run: ") and records them in DIR/status.
vm_verdict() {
	local dir=$1 qemu_rc=$2 timeout=$3 pfx=${4:-vm-run: } t name rc running
	local -a why=()
	if ((qemu_rc == 124 || qemu_rc == 137)); then
		why+=("VM killed after --timeout ${timeout}s")
	elif ((qemu_rc != 0)); then
		why+=("qemu exited $qemu_rc: $(tail -n 3 "$dir/qemu.log" | tr '\n' ' ')")
	fi
	if [[ ! -f $dir/harness.done ]]; then
		running=$(vm_last_running "$dir")
		why+=("guest did not finish${running:+ (while running $running)}")
		echo "${pfx}console.log ends with:"
		tail -n 15 "$dir/console.log" 2>/dev/null | sed 's/^/  | /'
	fi
	while read -r t; do
		name=${t##*/}
		rc=$(cat "$dir/$name.rc" 2>/dev/null || echo missing)
		[[ $rc == 0 ]] || why+=("$name exit status $rc")
	done <"$dir/harness.tests"
	if ! vm_check_kmsg "$dir"; then
		cat "$dir/kmsg.out"
		why+=("kernel log check")
	fi
	if ((${#why[@]} == 0)); then
		echo PASS >"$dir/status"
		return 0
	fi
	printf 'FAIL: %s\n' "${why[@]}" | tee "$dir/status" | sed "s/^/$pfx/"
	return 1
}

# vm_print_outputs DIR: every test's output, with a header line.
vm_print_outputs() {
	local t name
	while read -r t; do
		name=$(basename "$t")
		echo "# ---- $name (exit $(cat "$1/$name.rc" 2>/dev/null || echo missing)) ----"
		cat "$1/$name.out" 2>/dev/null || true
	done <"$1/harness.tests"
}

# vm_boot_time DIR: guest uptime at which guest-init said "ready".
vm_boot_time() {
	sed -n 's/^\[ *\([0-9.]*\)\] guest-init: ready.*/\1/p' "$1/console.log" 2>/dev/null |
		head -n 1 || true
}
