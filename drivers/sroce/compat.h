/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels sroce builds for, in one place.
 *
 * Nothing here tests a kernel version: each SROCE_HAVE_<NAME> is defined
 * by drivers/sroce/Kbuild when drivers/sroce/probes/<name>.c compiles
 * against the target kernel's headers, so a distribution kernel that
 * backports an API change gets the right side too.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/mm.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/* rdma-core 44 posts IBV_WR_ATOMIC_WRITE (15) whatever the kernel's uAPI. */
#ifndef SROCE_HAVE_WR_ATOMIC_WRITE
#define IB_UVERBS_WR_ATOMIC_WRITE	15
#endif

/*
 * The last argument of ib_device_ops.create_cq: the driver's udata, or
 * (SROCE_HAVE_CREATE_CQ_ATTRS) the whole uverbs attribute bundle that
 * holds it, NULL for a CQ the kernel creates.
 */
#ifdef SROCE_HAVE_CREATE_CQ_ATTRS
#define sroce_create_cq_args uverbs_attr_bundle

static inline struct ib_udata *
sroce_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define sroce_create_cq_args ib_udata

static inline struct ib_udata *sroce_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

/* get_user_pages_remote() without the vmas array nobody here wants. */
static inline long sroce_get_user_pages_remote(struct mm_struct *mm,
					       unsigned long start,
					       unsigned long nr_pages,
					       unsigned int gup_flags,
					       struct page **pages)
{
#ifdef SROCE_HAVE_GUP_REMOTE_NO_VMAS
	return get_user_pages_remote(mm, start, nr_pages, gup_flags, pages,
				     NULL);
#else
	return get_user_pages_remote(mm, start, nr_pages, gup_flags, pages,
				     NULL, NULL);
#endif
}

/*
 * fault_create_debugfs_attr() keeps a reference to the directory's dentry
 * in the attribute for its reports (SROCE_HAVE_FAULT_ATTR_DENTRY), which
 * its owner drops; later kernels keep a copy of the name instead.
 */
#ifdef SROCE_HAVE_FAULT_ATTR_DENTRY
#include <linux/dcache.h>
#include <linux/fault-inject.h>
#else
struct fault_attr;
#endif

static inline void sroce_fault_attr_put_dname(struct fault_attr *attr)
{
#ifdef SROCE_HAVE_FAULT_ATTR_DENTRY
	dput(attr->dname);
	attr->dname = NULL;
#endif
}

#endif /* SROCE_COMPAT_H */
