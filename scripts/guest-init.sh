#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# guest-init.sh: PID 1 of the test guest, exec'ed by the initramfs /init
# (scripts/mkinitramfs.sh) after switch_root into the overlay root.  Never run
# this on a host: it mounts over /proc, /dev and /tmp and powers off.
#
# Contract with scripts/vm-run.sh, through the writable 9p share "results"
# (mounted at /results):
#   /results/harness.env    sourced: HARNESS_REPO, HARNESS_ABI,
#                           HARNESS_MODDIR, SROCE_TEST_TIMEOUT, SROCE_* vars;
#                           optional (scripts/vm-pair.sh): HARNESS_IP4 and
#                           HARNESS_IP6 (eth0 addresses, default
#                           192.0.2.1/24 and none), HARNESS_HOSTNAME,
#                           HARNESS_PAIR_DIR (mount the 9p share "pair",
#                           common to both guests, there)
#   /results/harness.tests  one test path per line (absolute, guest view)
# and back:
#   /results/NAME.out, NAME.rc   per test (NAME = basename of the test path)
#   /results/dmesg.txt, tainted  whole kernel log (immune to dmesg -C) and
#                                taint mask after all tests
#   /results/harness.done        written last; its absence means the guest
#                                died before finishing
#
# No `set -e`: PID 1 exiting panics the kernel, so every step handles its own
# failure and the EXIT trap always powers the machine off.
set -uo pipefail

export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
R=/results

# Through the kernel log, so console.log gets it with a timestamp and
# dmesg.txt shows which test was running when the kernel complained.
log() {
	echo "guest-init: $*" >/dev/kmsg 2>/dev/null ||
		echo "guest-init: $*" >/dev/console
}

# Power off at once: nothing here is worth an orderly shutdown, and sysrq
# works even if user space is wedged.  -no-reboot on the qemu side turns a
# panic into an exit as well.
power_off() {
	sync
	echo o >/proc/sysrq-trigger
	sleep 10
	poweroff -f
}

# Under TCG every exec of a dynamically linked binary over 9p costs ~0.1 s
# (util-linux mount ~0.2 s), busybox-static about a third of that; so the
# boot path uses busybox, batches commands and polls with shell builtins.
BB=/bin/busybox

mount_fs() {
	local type=$1 src=$2 dir=$3 opts=${4:-}
	$BB mount -t "$type" ${opts:+-o "$opts"} "$src" "$dir" ||
		log "mount $type on $dir failed"
}

mount_all() {
	$BB mount -t proc proc /proc
	$BB mkdir -p /sys /dev /run /tmp /var/tmp "$R"
	mount_fs sysfs sysfs /sys
	mount_fs devtmpfs devtmpfs /dev mode=0755
	$BB mkdir -p /dev/pts /dev/shm
	mount_fs devpts devpts /dev/pts gid=5,mode=620,ptmxmode=666
	mount_fs tmpfs tmpfs /dev/shm mode=1777
	mount_fs tmpfs tmpfs /run mode=0755
	mount_fs tmpfs tmpfs /tmp mode=1777
	mount_fs tmpfs tmpfs /var/tmp mode=1777
	mount_fs debugfs debugfs /sys/kernel/debug
	# Writes must reach the host before the sysrq power-off: no caching.
	mount_fs 9p results "$R" trans=virtio,version=9p2000.L,msize=262144
}

# The repo comes as its own 9p share (tag "repo") so it is visible at its
# host path even when that path is under /tmp, which the guest covers with a
# tmpfs.  A tmpfs overlay keeps it writable; writes never reach the host.
mount_repo() {
	local top=/run/harness
	$BB mkdir -p $top/lower $top/rw "$HARNESS_REPO"
	$BB mount -t 9p -o trans=virtio,version=9p2000.L,ro,cache=loose,msize=262144 \
		repo $top/lower || { log "mount of the repo share failed"; return 1; }
	$BB mount -t tmpfs -o mode=0755 tmpfs $top/rw
	$BB mkdir -p $top/rw/upper $top/rw/work
	$BB mount -t overlay -o lowerdir=$top/lower,upperdir=$top/rw/upper,workdir=$top/rw/work \
		overlay "$HARNESS_REPO" || { log "overlay on $HARNESS_REPO failed"; return 1; }
}

# The unpacked Debian modules (plus updates/sroce.ko and the depmod output
# vm-run.sh made) live in the project cache on the host; show them where
# modprobe looks.
bind_modules() {
	local dst=/lib/modules/$HARNESS_ABI
	$BB mkdir -p "$dst"
	$BB mount -o bind "$HARNESS_MODDIR" "$dst" ||
		log "bind mount of $HARNESS_MODDIR failed"
}

# Wait up to $1 seconds (~0.1 s steps) for "$2..." to succeed.
wait_until() {
	local tries=$(($1 * 10))
	shift
	while ! "$@"; do
		((tries-- > 0)) || return 1
		$BB sleep 0.1
	done
}

# True once eth0 has an IPv6 link-local address that is neither tentative
# (0x40) nor failed DAD (0x08).  Same as `ip -6 addr show dev eth0 tentative`
# being empty, without an exec per poll.
eth0_ll_ready() {
	local scope flags dev
	while read -r _ _ _ scope flags dev; do
		[[ $dev == eth0 && $scope == 20 ]] || continue
		((16#$flags & 0x48)) || return 0
	done </proc/net/if_inet6
	return 1
}

eth0_exists() { [[ -e /sys/class/net/eth0 ]]; }

setup_net() {
	# No udev in the guest, so nothing autoloads the NIC driver; configfs
	# (a module in Debian's kernel) comes along to save a modprobe.
	modprobe -a virtio_net configfs || log "modprobe virtio_net configfs failed"
	wait_until 5 eth0_exists || { log "eth0 did not appear"; return; }
	ip -batch - <<-EOF || log "network setup failed"
		link set lo up
		addr add ${HARNESS_IP4:-192.0.2.1/24} dev eth0
		${HARNESS_IP6:+addr add $HARNESS_IP6 dev eth0 nodad}
		link set eth0 up
	EOF
	# Tests use the IPv6 link-local GID; it exists only after DAD.
	wait_until 5 eth0_ll_ready || log "eth0 IPv6 link-local not ready after 5 s"
}

# The whole kernel log since boot, in dmesg's format.  Read from /dev/kmsg,
# not with dmesg(1): after a test's `dmesg -C`, dmesg shows only what came
# later, and a WARNING before it would slip through.  O_NONBLOCK ends the
# read at the last record; each read(2) returns one "PRI,SEQ,USEC,FLAGS;text"
# record, continuation lines (" KEY=value") are dropped.
dump_kmsg() {
	dd if=/dev/kmsg iflag=nonblock bs=65536 status=none 2>/dev/null |
		awk '/^ / { next }
		     { i = index($0, ";"); split(substr($0, 1, i - 1), h, ",")
		       printf "[%5d.%06d] %s\n", int(h[3] / 1000000), h[3] % 1000000, substr($0, i + 1) }'
}

# A test that needs longer than SROCE_TEST_TIMEOUT says so with a line
# "# sroce-timeout: SECONDS" near its top; the larger of the two applies.
# selftests/run.sh reads the same line to size the whole VM's limit.
# SROCE_TIMEOUT_SCALE multiplies the test's own figure (the debug kernel).
test_limit() {
	local t
	t=$(head -c 4096 "$1" | sed -n 's/^# sroce-timeout: *\([0-9]\+\) *$/\1/p' | head -n1)
	t=$((${t:-0} * ${SROCE_TIMEOUT_SCALE:-1}))
	echo $((${t:-0} > SROCE_TEST_TIMEOUT ? t : SROCE_TEST_TIMEOUT))
}

# On a kernel with kmemleak (the debug kernel): scan after the tests and
# put what it found into the kernel log, where scripts/check-kmsg.sh sees
# it.  Two scans: an object counts as leaked only after it went unseen
# for a whole scan period.
kmemleak_scan() {
	local f=/sys/kernel/debug/kmemleak
	[[ -w $f ]] || return 0
	echo scan >"$f"
	sleep 6
	echo scan >"$f"
	local n
	n=$(grep -c '^unreferenced object' "$f" 2>/dev/null)
	log "kmemleak: ${n:-0} suspected leaks after the tests"
	if ((${n:-0} > 0)); then
		echo "kmemleak: $n new suspected memory leaks (see below)" >/dev/kmsg
		head -n 200 "$f" | while IFS= read -r line; do
			echo "kmemleak report: $line" >/dev/kmsg
		done
	fi
}

run_one() {
	local test=$1 name start rc limit
	name=${test##*/}
	limit=$(test_limit "$test")
	log "running $name (limit ${limit}s)"
	start=$SECONDS
	# -k: a test that ignores SIGTERM still ends.  timeout puts the test
	# in its own process group and signals the whole group.
	if [[ -x $test ]]; then
		SROCE_TEST_TIMEOUT=$limit timeout -k 5 "$limit" "$test" </dev/null >"$R/$name.out" 2>&1
	else
		SROCE_TEST_TIMEOUT=$limit timeout -k 5 "$limit" bash "$test" </dev/null >"$R/$name.out" 2>&1
	fi
	rc=$?
	((rc == 124 || rc == 137)) &&
		echo "# harness: $name killed after ${limit}s timeout" >>"$R/$name.out"
	echo "$rc" >"$R/$name.rc"
	log "$name exited $rc after $((SECONDS - start))s"
}

main() {
	local test
	trap power_off EXIT
	mount_all
	log "started"
	if [[ ! -r $R/harness.env ]]; then
		log "no $R/harness.env: results share missing?"
		exit 1
	fi
	set -a			# SROCE_* from the host reach the tests
	# shellcheck source=/dev/null
	. "$R/harness.env"
	set +a
	: "${SROCE_TEST_TIMEOUT:=300}"
	export SROCE_TEST_TIMEOUT SROCE_GUEST=1 SROCE_REPO=$HARNESS_REPO
	mount_repo || exit 1
	bind_modules
	if [[ -n ${HARNESS_PAIR_DIR:-} ]]; then
		$BB mkdir -p "$HARNESS_PAIR_DIR"
		mount_fs 9p pair "$HARNESS_PAIR_DIR" trans=virtio,version=9p2000.L,msize=262144
	fi
	log "mounts done"
	echo "${HARNESS_HOSTNAME:-sroce-guest}" >/proc/sys/kernel/hostname
	setup_net
	mount_fs configfs configfs /sys/kernel/config
	log "network up"
	cd "$HARNESS_REPO" || exit 1
	log "ready after ${SECONDS}s in guest-init"
	while read -r test; do
		[[ -n $test ]] && run_one "$test"
	done <"$R/harness.tests"
	kmemleak_scan
	dump_kmsg >"$R/dmesg.txt"
	[[ -s $R/dmesg.txt ]] || dmesg >"$R/dmesg.txt" 2>&1
	cat /proc/sys/kernel/tainted >"$R/tainted"
	echo ok >"$R/harness.done"
}

main "$@"
