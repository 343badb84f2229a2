#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# with_linger.sh SECS PROGRAM [ARGS...]: run PROGRAM with qp_linger.so
# preloaded (see qp_linger.c), keeping whatever LD_PRELOAD it already had
# (stdbuf's line buffering, for one).  A missing qp_linger.so is an error:
# ld.so would only warn and run PROGRAM without it, and a run whose last
# ACK is lost then fails in a way that looks like a driver bug.
secs=$1
shift
so="$(dirname "$0")/qp_linger.so"
if [ ! -r "$so" ]; then
	echo "with_linger.sh: $so is missing (make -C selftests)" >&2
	exit 127
fi
SROCE_LINGER_SECS=$secs LD_PRELOAD="$so${LD_PRELOAD:+ $LD_PRELOAD}" exec "$@"
