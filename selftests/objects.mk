# SPDX-License-Identifier: GPL-2.0
#
# objects.mk: builds selftests/sroce_objects (the verbs-objects test) from
# sroce_objects.c with libibverbs and the kernel's kselftest_harness.h, which
# scripts/setup.sh extracts to .cache/kselftest/.
#
# Include it from selftests/Makefile:
#
#	include objects.mk
#	all: $(SROCE_OBJECTS_PROG)
#	clean: ; rm -f $(SROCE_OBJECTS_PROG)
#
# It works from any directory (paths are relative to this file), so
# `make -C selftests sroce_objects` and `make -f selftests/objects.mk` both do.

SROCE_OBJECTS_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
SROCE_KSELFTEST_DIR ?= $(SROCE_OBJECTS_DIR)/../.cache/kselftest
SROCE_OBJECTS_PROG := $(SROCE_OBJECTS_DIR)/sroce_objects

$(SROCE_OBJECTS_PROG): CFLAGS += -O2 -Wall -Wextra -I$(SROCE_KSELFTEST_DIR)
$(SROCE_OBJECTS_PROG): LDLIBS += -libverbs -lpthread
$(SROCE_OBJECTS_PROG): $(SROCE_OBJECTS_DIR)/sroce_objects.c \
		       $(SROCE_KSELFTEST_DIR)/kselftest_harness.h \
		       $(SROCE_KSELFTEST_DIR)/kselftest.h
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LDLIBS)

$(SROCE_KSELFTEST_DIR)/kselftest_harness.h $(SROCE_KSELFTEST_DIR)/kselftest.h:
	@echo "objects.mk: $@ is missing: run scripts/setup.sh" >&2
	@false
