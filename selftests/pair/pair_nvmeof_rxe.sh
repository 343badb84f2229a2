#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pair_nvmeof.sh with Debian's rdma_rxe as the NVMe-oF target on guest A
# and sroce as the host on guest B (its own rendezvous namespace, so that
# it can follow pair_nvmeof.sh in the same boot).
export SROCE_NVMEOF_PAIR_TARGET=rxe PAIR_NS=${0##*/}
exec "$(dirname "$0")/pair_nvmeof.sh" "$@"
