// SPDX-License-Identifier: GPL-2.0
/*
 * Rings shared with user space, and their mapping into the process.
 *
 * A user ring is a vmalloc buffer announced to user space through an
 * rdma_user_mmap_entry: the entry's offset and size go back in a struct
 * mminfo, the rxe provider mmap()s exactly that, and sroce_mmap() inserts
 * the buffer's pages into the process with remap_vmalloc_range().
 *
 * Every inserted page holds a page reference for the mapping. The buffer
 * is vfree()d when the ring is destroyed and the entry released, and any
 * page a process still maps then survives, orphaned, until it unmaps it:
 * no process ever maps freed memory, and no sroce code runs at munmap, so
 * a process may outlive the device (disassociation) or the module.
 */
#include <linux/error-injection.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "fault.h"
#include "queue.h"

struct sroce_mmap {
	struct rdma_user_mmap_entry rdma;
	void *vaddr;
	size_t size;
};

static struct sroce_mmap *to_smmap(struct rdma_user_mmap_entry *entry)
{
	return container_of(entry, struct sroce_mmap, rdma);
}

/* Slots and slot size as the provider expects them; 0 on overflow. */
static size_t sroce_queue_bytes(u32 num_elem, size_t elem_size,
				u32 *slots, u32 *log2_elem)
{
	size_t bytes;

	if (!num_elem || num_elem >= (1u << 30) || elem_size > (1u << 20))
		return 0;
	*slots = roundup_pow_of_two(num_elem + 1);
	*log2_elem = ilog2(roundup_pow_of_two(max_t(size_t, elem_size, 64)));
	if (check_mul_overflow((size_t)*slots, (size_t)1 << *log2_elem, &bytes))
		return 0;
	if (check_add_overflow(bytes, sizeof(struct rxe_queue_buf), &bytes))
		return 0;
	return PAGE_ALIGN(bytes);
}

static int sroce_mmap_create(struct sroce_queue *q, struct ib_ucontext *uctx)
{
	struct sroce_mmap *m;
	int err;

	m = sroce_kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	m->vaddr = q->buf;
	m->size = q->buf_size;
	err = sroce_fault() ? -ENOMEM :
	      rdma_user_mmap_entry_insert(uctx, &m->rdma, m->size);
	if (err) {
		kfree(m);
		return err;
	}
	q->mmap = m;
	return 0;
}

/**
 * sroce_queue_init - allocate an empty ring
 * @q: the queue
 * @uctx: the owning user context, or NULL for a kernel queue
 * @num_elem: the capacity asked for; the ring may hold more
 * @elem_size: bytes per element before rounding
 * @kernel_produces: true for completion rings (the kernel fills them),
 *	false for work rings (user space fills them)
 *
 * Context: process context.
 * Return: 0, -EINVAL for impossible sizes, -ENOMEM.
 */
int sroce_queue_init(struct sroce_queue *q, struct ib_ucontext *uctx,
		     u32 num_elem, size_t elem_size, bool kernel_produces)
{
	u32 slots, log2_elem;
	size_t bytes;
	int err;

	memset(q, 0, sizeof(*q));
	bytes = sroce_queue_bytes(num_elem, elem_size, &slots, &log2_elem);
	if (!bytes)
		return -EINVAL;

	q->buf = sroce_vmalloc_user(bytes);
	if (!q->buf)
		return -ENOMEM;
	q->buf_size = bytes;
	q->log2_elem_size = log2_elem;
	q->index_mask = slots - 1;
	q->buf->log2_elem_size = log2_elem;
	q->buf->index_mask = q->index_mask;
	q->kernel_produces = !uctx || kernel_produces;
	q->kernel_consumes = !uctx || !kernel_produces;

	if (uctx) {
		err = sroce_mmap_create(q, uctx);
		if (err) {
			vfree(q->buf);
			q->buf = NULL;
			return err;
		}
	}
	return 0;
}
ALLOW_ERROR_INJECTION(sroce_queue_init, ERRNO);

/*
 * Release the ring. A user ring's memory lives on until the process has
 * unmapped it (or the device was disassociated and the mapping zapped).
 */
void sroce_queue_cleanup(struct sroce_queue *q)
{
	if (q->mmap)
		rdma_user_mmap_entry_remove(&q->mmap->rdma);
	else
		vfree(q->buf);
	q->mmap = NULL;
	q->buf = NULL;
}

/* Where user space finds the ring: the rxe provider mmap()s exactly this. */
int sroce_queue_mminfo(const struct sroce_queue *q, struct mminfo *mi)
{
	if (!q->mmap)
		return -EINVAL;
	mi->offset = rdma_user_mmap_get_offset(&q->mmap->rdma);
	mi->size = q->mmap->size;
	mi->pad = 0;
	return 0;
}

/* Elements between consumer and producer. */
u32 sroce_queue_count(const struct sroce_queue *q)
{
	return (sroce_queue_prod(q) - sroce_queue_cons(q)) & q->index_mask;
}

/* Move the pending elements of @old into the empty @new. */
static void sroce_queue_move(struct sroce_queue *new, struct sroce_queue *old,
			     u32 count)
{
	size_t len = min(sroce_queue_elem_size(old), sroce_queue_elem_size(new));
	u32 cons = sroce_queue_cons(old);
	u32 i;

	for (i = 0; i < count; i++)
		memcpy(sroce_queue_slot(new, i), sroce_queue_slot(old, cons + i),
		       len);
	new->prod = count;
	new->cons = 0;
	new->buf->producer_index = count;
	new->buf->consumer_index = 0;
}

/**
 * sroce_queue_resize - replace a ring by a larger or smaller one
 * @q: the queue
 * @uctx: the owning user context, or NULL
 * @num_elem: the new capacity asked for
 * @lock: the lock that serialises the kernel's use of @q (held inside)
 *
 * Pending elements move to the new ring, in order. For a user ring the
 * caller then reports the new ring's mminfo; the old mapping stays valid
 * until the process unmaps it.
 *
 * Context: process context.
 * Return: 0, -EINVAL when the pending elements do not fit, -ENOMEM.
 */
int sroce_queue_resize(struct sroce_queue *q, struct ib_ucontext *uctx,
		       u32 num_elem, spinlock_t *lock)
{
	struct sroce_queue new, old;
	unsigned long flags;
	u32 count;
	int err;

	err = sroce_queue_init(&new, uctx, num_elem,
			       sroce_queue_elem_size(q), q->kernel_produces);
	if (err)
		return err;

	spin_lock_irqsave(lock, flags);
	count = sroce_queue_count(q);
	if (count > sroce_queue_capacity(&new)) {
		spin_unlock_irqrestore(lock, flags);
		sroce_queue_cleanup(&new);
		return -EINVAL;
	}
	sroce_queue_move(&new, q, count);
	old = *q;
	*q = new;
	spin_unlock_irqrestore(lock, flags);

	sroce_queue_cleanup(&old);
	return 0;
}
ALLOW_ERROR_INJECTION(sroce_queue_resize, ERRNO);

/**
 * sroce_mmap - ib_device_ops.mmap: map a ring announced by an mminfo
 * @uctx: the caller's context
 * @vma: the mapping; must be shared and exactly the ring's size
 *
 * Context: process context, mmap_lock held.
 */
int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	int err;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	/* Checks offset and that the length is exactly the entry's. */
	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry)
		return -EINVAL;
	err = remap_vmalloc_range(vma, to_smmap(entry)->vaddr, 0);
	rdma_user_mmap_entry_put(entry);
	return err;
}

/* The last reference to a ring's entry is gone: nothing maps it. */
void sroce_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct sroce_mmap *m = to_smmap(entry);

	vfree(m->vaddr);
	kfree(m);
}
