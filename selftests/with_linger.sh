#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# with_linger.sh SECS PROGRAM [ARGS...]: run PROGRAM with qp_linger.so
# preloaded (see qp_linger.c), keeping whatever LD_PRELOAD it already had
# (stdbuf's line buffering, for one).
secs=$1
shift
SROCE_LINGER_SECS=$secs LD_PRELOAD="$(dirname "$0")/qp_linger.so${LD_PRELOAD:+ $LD_PRELOAD}" exec "$@"
