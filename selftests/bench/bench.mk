# SPDX-License-Identifier: GPL-2.0
#
# bench.mk: builds selftests/bench/bench_mem (kernel memory per QP and MR,
# for `make bench`) from bench_mem.c with libibverbs. Included from
# selftests/Makefile; paths are relative to this file.

SROCE_BENCH_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
SROCE_BENCH_MEM_PROG := $(SROCE_BENCH_DIR)/bench_mem

$(SROCE_BENCH_MEM_PROG): $(SROCE_BENCH_DIR)/bench_mem.c
	$(CC) $(CPPFLAGS) -O2 -Wall -Wextra $(CFLAGS) $(LDFLAGS) -o $@ $< -libverbs
