# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# prog_lib.sh: driver selection and bounded set-up steps for the guest
# scripts that run one C verbs program against a fresh device and pass its
# KTAP through unchanged (sroce_objects.sh, sroce_integrity.sh).  Set PROG
# (the program, ./$PROG, run by $PROG.sh) and source this from selftests/;
# the script defines cleanup (setup_failed calls it).  From the
# environment:
#
#   SROCE_TEST_DRIVER=sroce  (default) sroce0, module sroce
#   SROCE_TEST_DRIVER=rxe    the same with Linux's rdma_rxe (rxe0): only to
#                            validate the test itself, not part of the suite
#   SROCE_NETDEV             netdev to attach to (default eth0)
#
# Sets BIN, DRIVER, NETDEV, MOD (the driver's module), OTHER (the other
# driver's: the two claim the same provider ABI and UDP port, never load
# both), DEV, TYPE (its rdma link type) and LOG (set-up notes, printed
# after the program's KTAP, so that nothing comes before its header).
# shellcheck disable=SC2034	# BIN, NETDEV and TYPE are the script's

BIN=./$PROG
DRIVER=${SROCE_TEST_DRIVER:-sroce}
NETDEV=${SROCE_NETDEV:-eth0}
LOG=()

case $DRIVER in
sroce)	MOD=sroce; OTHER=rdma_rxe; DEV=sroce0 ;;
rxe)	MOD=rdma_rxe; OTHER=sroce; DEV=rxe0 ;;
*)	echo "$PROG.sh: SROCE_TEST_DRIVER must be sroce or rxe, not '$DRIVER'" >&2
	exit 2 ;;
esac
TYPE=${MOD#rdma_}

note() { LOG+=("$*"); }

print_notes() {
	((${#LOG[@]} == 0)) || printf '# %s\n' "${LOG[@]}"
}

# Run "$2 ..." for at most $1 seconds.  A driver stuck in the kernel (say, a
# link delete that never returns) must not eat the whole per-test time: give
# up on it, leave it behind, and report.
bounded() {
	local secs=$1 pid end
	shift
	"$@" &
	pid=$!
	end=$((SECONDS + secs))
	while kill -0 "$pid" 2>/dev/null && ((SECONDS < end)); do
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		disown "$pid"	# no wait for it: it may never die
		kill -KILL "$pid" 2>/dev/null
		echo "still running after ${secs}s: $*" >&2
		return 124
	fi
	wait "$pid"
}

# A set-up step: bounded, and what it prints kept as notes, so that nothing
# comes before the KTAP header.
step() {
	local out line rc
	out=$(mktemp)
	bounded 60 "$@" >"$out" 2>&1
	rc=$?
	while IFS= read -r line; do
		note "$*: $line"
	done <"$out"
	rm -f "$out"
	return $rc
}

# Set-up failed before the program could print anything: report it as the
# one test of this run.
setup_failed() {
	echo "TAP version 13"
	echo "1..1"
	print_notes
	echo "# $*"
	echo "not ok 1 $PROG.setup # $DEV on $NETDEV with $MOD"
	echo "# Totals: pass:0 fail:1 xfail:0 xpass:0 skip:0 error:0"
	cleanup >/dev/null 2>&1
	exit 1
}

# prog_unload_other [CMD...]: unload OTHER if it is loaded, with CMD
# (rmmod OTHER by default).
prog_unload_other() {
	lsmod | grep -q "^$OTHER " || return 0
	note "unloading $OTHER first"
	if (($# == 0)); then
		set -- rmmod "$OTHER"
	fi
	step "$@" || setup_failed "cannot unload $OTHER"
}

# prog_modprobe: delete a leftover DEV, load MOD and the user-space verbs
# modules.
prog_modprobe() {
	if [[ -e /sys/class/infiniband/$DEV ]]; then
		note "removing a leftover $DEV"
		step rdma link delete "$DEV" || setup_failed "cannot delete leftover $DEV"
	fi
	step modprobe -a ib_uverbs rdma_ucm "$MOD" ||
		setup_failed "modprobe ib_uverbs rdma_ucm $MOD failed"
}

prog_link_add() {
	step rdma link add "$DEV" type "$TYPE" netdev "$NETDEV" ||
		setup_failed "rdma link add $DEV type $TYPE netdev $NETDEV failed"
}

# prog_cleanup_or_bail WHAT: clean up after the program ran; when that
# fails, print why and "Bail out!" (WHAT: what clean-up does), so that no
# TAP reader counts the run a pass, and exit 1.  Into a file, not $(...):
# a command stuck in the kernel would keep a pipe open and hang the
# capture.
prog_cleanup_or_bail() {
	local errs
	errs=$(mktemp)
	if ! cleanup >"$errs" 2>&1; then
		sed 's/^/# /' "$errs"
		rm -f "$errs"
		echo "Bail out! $PROG.sh: clean-up failed: $*"
		exit 1
	fi
	rm -f "$errs"
}
