# SPDX-License-Identifier: GPL-2.0
#
# integrity.mk: builds selftests/sroce_integrity (the RC data-integrity test)
# from sroce_integrity.c with libibverbs and the kernel's kselftest_harness.h,
# which scripts/setup.sh extracts to .cache/kselftest/.
#
# Include it from selftests/Makefile:
#
#	include integrity.mk
#	all: $(SROCE_INTEGRITY_PROG)
#	clean: ; rm -f $(SROCE_INTEGRITY_PROG)
#
# It works from any directory (paths are relative to this file), so
# `make -C selftests sroce_integrity` (once included) and
# `make -f selftests/integrity.mk` both do.

SROCE_INTEGRITY_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
SROCE_KSELFTEST_DIR ?= $(SROCE_INTEGRITY_DIR)/../.cache/kselftest
SROCE_INTEGRITY_PROG := $(SROCE_INTEGRITY_DIR)/sroce_integrity

$(SROCE_INTEGRITY_PROG): CFLAGS += -O2 -Wall -Wextra -I$(SROCE_KSELFTEST_DIR)
$(SROCE_INTEGRITY_PROG): LDLIBS += -libverbs
$(SROCE_INTEGRITY_PROG): $(SROCE_INTEGRITY_DIR)/sroce_integrity.c \
			 $(SROCE_KSELFTEST_DIR)/kselftest_harness.h \
			 $(SROCE_KSELFTEST_DIR)/kselftest.h
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

# The kselftest headers' "missing" rule is in objects.mk, included first.
