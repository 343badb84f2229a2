/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection into sroce's own setup paths.
 *
 * On a kernel with CONFIG_FAULT_INJECTION_DEBUG_FS, the standard fault
 * attribute /sys/kernel/debug/fail_sroce/ (probability, interval, times,
 * task-filter, ...; Documentation/fault-injection/) and /proc/<pid>/fail-nth
 * fail the driver's allocations and the kernel calls its object setup
 * depends on (sockets, pinned user memory, mmap entries).  Unlike failslab,
 * nothing outside sroce fails: a failed allocation in 9p or overlayfs
 * breaks a test guest's root file system.  Elsewhere it compiles away.
 */
#ifndef SROCE_FAULT_H
#define SROCE_FAULT_H

#include <linux/slab.h>
#include <linux/vmalloc.h>

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
bool sroce_fault(void);
void sroce_fault_init(void);
void sroce_fault_exit(void);
#else
static inline bool sroce_fault(void)
{
	return false;
}

static inline void sroce_fault_init(void)
{
}

static inline void sroce_fault_exit(void)
{
}
#endif

/* The driver's allocations, each a site fail_sroce can fail. */
static inline void *sroce_kzalloc(size_t size, gfp_t gfp)
{
	return sroce_fault() ? NULL : kzalloc(size, gfp);
}

static inline void *sroce_kcalloc(size_t n, size_t size, gfp_t gfp)
{
	return sroce_fault() ? NULL : kcalloc(n, size, gfp);
}

static inline void *sroce_kvzalloc(size_t size, gfp_t gfp)
{
	return sroce_fault() ? NULL : kvzalloc(size, gfp);
}

static inline void *sroce_kvmalloc_array(size_t n, size_t size, gfp_t gfp)
{
	return sroce_fault() ? NULL : kvmalloc_array(n, size, gfp);
}

static inline void *sroce_vmalloc_user(unsigned long size)
{
	return sroce_fault() ? NULL : vmalloc_user(size);
}

#endif /* SROCE_FAULT_H */
