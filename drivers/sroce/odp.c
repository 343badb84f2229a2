// SPDX-License-Identifier: GPL-2.0
/*
 * On-demand paging (IB_ACCESS_ON_DEMAND) for user MRs.
 *
 * A hardware device with ODP keeps its own page tables in step with the
 * process through MMU notifiers. sroce is software and touches memory only
 * when it copies, so it needs no mirror at all: every copy looks the pages
 * up in the registering process' address space at that moment, faulting
 * them in as the process itself would. Nothing is pinned between copies,
 * so the process may munmap, mremap or let the pages be swapped or
 * migrated at will; an access to a hole fails that one operation with an
 * access error, exactly like a hardware ODP fault on an unmapped address.
 *
 * An implicit ODP MR (start 0, length U64_MAX) covers the whole address
 * space the same way.
 *
 * The MR holds the mm_struct (mmgrab), not the address space: a copy
 * after the process is gone finds mm_users at zero and fails cleanly.
 *
 * Copies may sleep (page faults), so ODP MRs are only ever used from the
 * per-QP engine, which runs in process context.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>

#include "sroce.h"
#include "compat.h"
#include "mr.h"
#include "odp.h"

/* Pages looked up per mmap_lock hold: bounds the lock hold time. */
#define SROCE_ODP_BATCH		16

/**
 * sroce_odp_init - set up an ODP MR for the calling process
 * @mr: the MR being registered
 * @start: user address of the first byte
 *
 * Context: process context of the registering process (reg_user_mr).
 */
void sroce_odp_init(struct sroce_mr *mr, u64 start)
{
	mr->odp_start = start;
	mr->mm = current->mm;
	mmgrab(mr->mm);
}

void sroce_odp_release(struct sroce_mr *mr)
{
	if (mr->mm)
		mmdrop(mr->mm);
	mr->mm = NULL;
}

/* The user address that @iova of @mr stands for. */
static unsigned long sroce_odp_uaddr(struct sroce_mr *mr, u64 iova)
{
	return mr->odp_start + (iova - mr->ibmr.iova);
}

/* Copy within the pages [@uaddr, @uaddr + @len) of @pages. */
static void sroce_odp_copy_pages(struct page **pages, unsigned long uaddr,
				 void *buf, u32 len, enum sroce_copy_dir dir)
{
	unsigned int i = 0;

	while (len) {
		u32 off = offset_in_page(uaddr);
		u32 n = min_t(u32, len, PAGE_SIZE - off);
		void *va = kmap_local_page(pages[i]);

		if (dir == SROCE_TO_MR)
			memcpy(va + off, buf, n);
		else
			memcpy(buf, va + off, n);
		kunmap_local(va);
		if (dir == SROCE_TO_MR)
			set_page_dirty_lock(pages[i]);
		uaddr += n;
		buf += n;
		len -= n;
		i++;
	}
}

/* Fault in and reference up to @nr pages from @uaddr; mmap_lock held. */
static long sroce_odp_get_pages(struct mm_struct *mm, unsigned long uaddr,
				unsigned long nr, enum sroce_copy_dir dir,
				struct page **pages)
{
	unsigned int gup_flags = dir == SROCE_TO_MR ? FOLL_WRITE : 0;

	return sroce_get_user_pages_remote(mm, uaddr & PAGE_MASK, nr,
					   gup_flags, pages);
}

/**
 * sroce_odp_copy - copy between a kernel buffer and an ODP MR
 * @mr: a referenced ODP MR on which sroce_mr_check() passed for the range
 * @iova: first byte
 * @buf: kernel buffer
 * @len: bytes
 * @dir: SROCE_TO_MR or SROCE_FROM_MR
 *
 * Context: process context, may sleep.
 * Return: 0, or -EFAULT when the process is gone or part of the range is
 * not mapped with the needed permission (nothing beyond the first hole
 * is copied).
 */
int sroce_odp_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 len,
		   enum sroce_copy_dir dir)
{
	struct page *pages[SROCE_ODP_BATCH];
	unsigned long uaddr = sroce_odp_uaddr(mr, iova);
	struct mm_struct *mm = mr->mm;
	int err = 0;

	might_sleep();
	if (!mmget_not_zero(mm))
		return -EFAULT;
	while (len && !err) {
		unsigned long nr = min_t(unsigned long, SROCE_ODP_BATCH,
			DIV_ROUND_UP(offset_in_page(uaddr) + len, PAGE_SIZE));
		u32 n = min_t(u64, len, nr * PAGE_SIZE - offset_in_page(uaddr));
		long got, i;

		mmap_read_lock(mm);
		got = sroce_odp_get_pages(mm, uaddr, nr, dir, pages);
		mmap_read_unlock(mm);
		if (got != nr)
			err = -EFAULT;
		else
			sroce_odp_copy_pages(pages, uaddr, buf, n, dir);
		for (i = 0; i < got; i++)
			put_page(pages[i]);
		uaddr += n;
		buf += n;
		len -= n;
	}
	mmput_async(mm);
	return err;
}

/**
 * sroce_odp_map_word - reference the page of an aligned 8-byte word
 * @mr: a referenced ODP MR on which sroce_mr_check() passed for the word
 * @iova: the word, 8-byte aligned
 * @page: the referenced page, for sroce_mr_unmap_word()
 *
 * Atomics run under a spinlock, where no page may be faulted in: the page
 * is faulted in and referenced first.
 *
 * Context: process context, may sleep.
 * Return: the word's kernel address, mapped with kmap_local_page(), or
 * NULL when it cannot be mapped writable.
 */
void *sroce_odp_map_word(struct sroce_mr *mr, u64 iova, struct page **page)
{
	unsigned long uaddr = sroce_odp_uaddr(mr, iova);
	struct mm_struct *mm = mr->mm;
	long got;

	might_sleep();
	if (!mmget_not_zero(mm))
		return NULL;
	mmap_read_lock(mm);
	got = sroce_odp_get_pages(mm, uaddr, 1, SROCE_TO_MR, page);
	mmap_read_unlock(mm);
	mmput_async(mm);
	if (got != 1)
		return NULL;
	return kmap_local_page(*page) + offset_in_page(uaddr);
}

/**
 * sroce_odp_begin - a device is about to get an on-demand-paging MR
 * @sdev: the device
 *
 * No side of a QP's engine runs in softirq while the device has one (an
 * ODP MR's pages are faulted in, which sleeps; task.c reads the count):
 * the count stops new runs, and synchronize_rcu() waits for the softirq
 * runs already under way, so none can see the MR's key.
 *
 * Context: process context, before the MR's key is published.
 */
void sroce_odp_begin(struct sroce_dev *sdev)
{
	atomic_inc(&sdev->odp_mrs);
	synchronize_rcu();
}

/**
 * sroce_odp_end - an ODP MR of @sdev is gone (its key unpublished)
 * @sdev: the device
 */
void sroce_odp_end(struct sroce_dev *sdev)
{
	atomic_dec(&sdev->odp_mrs);
}
