#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The loopback path keeps an exchange on the poster's thread (task.c): a
# packet looped back to a QP of the same host runs that QP's engine on
# the same thread afterwards, instead of waking the QP's worker for each
# hop. The counter worker_runs counts the worker's runs; each check
# below is an exchange whose worker runs stay few (the QPs' set-up and
# teardown) where a broken inline path would wake the worker once or
# more per message.
#
#   - ibv_rc_pingpong -c: request, ACK and completion of every message;
#   - ib_read_bw 1 MiB: 1024 responses per READ, which the responder
#     hands to the requester a few rounds at a time (before that, it
#     ran out of rounds and woke its worker once or twice per READ).
set -u
cd "$(dirname "$0")" && . ./lib/lib.sh && . ./lib/sroce_lib.sh

ITERS=${SROCE_INLINE_ITERS:-200}
READS=${SROCE_INLINE_READS:-24}

# ib_read_bw over the loopback path; 0 iff both exit 0 and the client
# printed its result row for 1 MiB.
read_bw() {
	local clog
	clog=$(mktemp)
	timeout 120 ib_read_bw -d sroce0 -x "$GIDX" -F -p 18600 -s 1048576 -n "$READS" >/dev/null 2>&1 &
	local spid=$!
	sroce_wait_listen 18600
	timeout 120 ib_read_bw -d sroce0 -x "$GIDX" -F -p 18600 -s 1048576 -n "$READS" 127.0.0.1 >"$clog" 2>&1
	local crc=$?
	wait $spid
	local src=$?
	sed 's/^/# client: /' "$clog"
	grep -Eq '^ *1048576 +[0-9]+ ' "$clog"
	local row=$?
	rm -f "$clog"
	((crc == 0 && src == 0 && row == 0))
}

# check_workers DESC BEFORE LIMIT: worker runs since BEFORE below LIMIT.
check_workers() {
	local runs=$(( $(sroce_counter worker_runs) - $2 ))
	ktap_check "$1: worker_runs +$runs (< $3)" test "$runs" -lt "$3"
}

ktap_plan 5
sroce_eth0_up GIDX

before=$(sroce_counter worker_runs)
ktap_check "ibv_rc_pingpong -c, $ITERS iterations" sroce_pingpong_ok sroce0 "$GIDX" "$ITERS"
check_workers "RC pingpong, $((2 * ITERS)) messages" "$before" $((ITERS / 4))

before=$(sroce_counter worker_runs)
ktap_check "ib_read_bw 1 MiB x $READS" read_bw
check_workers "READ 1 MiB x $READS" "$before" $((READS / 2))

rdma statistic show link sroce0/1 | sed 's/^/# /'
rdma link delete sroce0
ktap_check "module unloads after traffic" rmmod sroce
ktap_finish
