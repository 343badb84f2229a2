# SPDX-License-Identifier: GPL-2.0
#
# sroce: software RoCEv2 RDMA device (out-of-tree kernel module).
#
#   make            build drivers/sroce/sroce.ko against KDIR
#   make check      the layers' includes (scripts/check-layers.sh), then
#                   sparse (C=2) and a W=1 build against every supported
#                   kernel's headers; fails on any warning of ours
#   make test       set-up, build, check, then the whole guest test suite on
#                   6.1 and the core set on 6.12 and 6.12-rt (what CI runs)
#   make test KERNEL=K  the whole suite on one kernel: 6.1, 6.12 or 6.12-rt
#   make test-debug the guest suite on a debug kernel (KASAN, lockdep,
#                   kmemleak, ...) built from linux-source-6.1 (cached);
#                   KERNEL=6.12 or 6.12-rt: from linux-source-6.12
#   make soak       pyverbs in a loop for DURATION seconds (default 3600),
#                   then 50 rounds of each teardown under traffic
#   make demo       set-up, build, boot a guest and show sroce0 at work
#   make bench      sroce against rdma_rxe in one guest boot: table + JSON
#                   in results/ (QUICK=1: a short smoke run; MODE=icount:
#                   the instruction-exact table, CPU per message and GiB;
#                   MODE=icount-pair: the same across two guests)
#   make install    install the module for the running kernel (real hosts)
#   make clean

DURATION ?= 3600
TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CACHE := $(TOP)/.cache
# KERNEL names a supported kernel series (scripts/guest-kernel.sh list).
# Chosen by hand, it is the one kernel every target below builds for and
# boots; left alone, make test runs its CI composition of all of them.
ifneq ($(filter command line environment,$(origin KERNEL)),)
export SROCE_KERNEL := $(KERNEL)
endif
KERNEL ?= 6.1
# The Debian kernel ABI the guest runs: resolved from KERNEL's headers
# metapackage (linux-headers-amd64 for 6.1), never hard-coded.
ABI ?= $(shell $(TOP)/scripts/guest-kernel.sh abi $(KERNEL) 2>/dev/null)
KDIR ?= /usr/src/linux-headers-$(ABI)
# make install targets the kernel this host runs.
HOST_KDIR ?= /lib/modules/$(shell uname -r)/build


.PHONY: all module check test test-debug soak demo bench install clean setup selftests-build

all: module

# 6.1 builds in the tree, other kernels in .cache/build/ABI (kbuild.sh).
module:
	$(TOP)/scripts/kbuild.sh $(KERNEL) modules

setup:
	$(TOP)/scripts/setup.sh

check:
	$(TOP)/scripts/check.sh

test: setup
	$(MAKE) -C $(TOP) module
	$(TOP)/scripts/test.sh

test-debug: setup
	$(TOP)/scripts/test-debug.sh

soak: setup
	$(MAKE) -C $(TOP) module
	DURATION=$(DURATION) $(TOP)/scripts/soak.sh

demo: setup
	$(MAKE) -C $(TOP) module
	$(TOP)/scripts/vm-run.sh --timeout 600 scripts/demo-guest.sh

bench: setup
	$(MAKE) -C $(TOP) module
	$(TOP)/scripts/bench.sh $(if $(filter 1,$(QUICK)),--quick) $(if $(filter icount,$(MODE)),--icount)$(if $(filter icount-pair,$(MODE)),--icount-pair)

# Installing on a host (README, "Installing on a Debian 12 host"):
#   make install-deb    apt-get what is needed, make deb, apt-get install it
#   make install        build against the running kernel's headers and
#                       install the module (/lib/modules/K/extra on 6.1,
#                       updates on 6.12), then depmod
#   make uninstall      remove what make install put there, then depmod
#       Both take KERNELRELEASE=K for another kernel whose headers are
#       installed (/lib/modules/K/build).
#   make deb            the sroce-dkms package: .cache/deb/sroce-dkms_*.deb,
#                       built in a temporary copy and checked with lintian
#   make dkms-install   DKMS from this tree: /usr/src/sroce-VERSION, built
#                       and installed for the running kernel (or
#                       KERNELRELEASE) and for every kernel installed later
#   make dkms-uninstall dkms remove it for every kernel, delete the tree
INSTALL_KVER = $(or $(KERNELRELEASE),$(shell uname -r))
INSTALL_KDIR = $(if $(KERNELRELEASE),/lib/modules/$(KERNELRELEASE)/build,$(HOST_KDIR))
# Where Kbuild's modules_install puts the module: INSTALL_MOD_DIR (extra/
# up to 6.1, updates/ later), then its path in the tree, compressed when the
# kernel compresses its own.  updates/dkms/ is DKMS's and stays untouched.
INSTALLED_DIRS = $(foreach d,extra updates,/lib/modules/$(INSTALL_KVER)/$(d))
INSTALLED_KO = $(foreach d,$(INSTALLED_DIRS),$(foreach z,.ko .ko.xz .ko.zst .ko.gz, \
	$(d)/drivers/sroce/sroce$(z)))

.PHONY: uninstall deb install-deb dkms-install dkms-uninstall

# CONFIG_MODULE_SIG_ALL=: Debian's headers hold no signing key (Debian signs
# its kernels' modules when it builds them), so the kernel's signing step
# could only fail with SSL errors.  DKMS signs with its own key instead.
install:
	$(MAKE) -C $(INSTALL_KDIR) M=$(TOP) modules
	$(MAKE) -C $(INSTALL_KDIR) M=$(TOP) CONFIG_MODULE_SIG_ALL= modules_install
	depmod -a $(INSTALL_KVER)

# The directories go too when nothing else is left in them.
uninstall:
	rm -f $(INSTALLED_KO)
	for d in $(INSTALLED_DIRS); do \
		rmdir "$$d/drivers/sroce" "$$d/drivers" "$$d" 2>/dev/null || true; \
	done
	depmod -a $(INSTALL_KVER)

deb:
	$(TOP)/scripts/mkdeb.sh $(CACHE)/deb

# One command on a Debian 12 host: what building the package and running
# sroce need (the running kernel's headers, rdma-core), the package, and
# the package installed, so DKMS builds sroce for the running kernel.
install-deb:
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
		linux-headers-$(shell uname -r) dkms debhelper dh-dkms fakeroot \
		rdma-core ibverbs-utils ibverbs-providers iproute2
	$(TOP)/scripts/mkdeb.sh --no-lintian $(CACHE)/deb
	apt-get install -y $(CACHE)/deb/sroce-dkms_*_all.deb

dkms-install:
	$(TOP)/scripts/dkms.sh install $(KERNELRELEASE)

dkms-uninstall:
	$(TOP)/scripts/dkms.sh uninstall

# Kbuild's clean would also delete the guest kernel's modules under .cache/.
clean:
	$(MAKE) -C $(KDIR) M=$(TOP)/drivers/sroce clean
	rm -rf $(CACHE)/build
	$(MAKE) -C $(TOP)/selftests clean
