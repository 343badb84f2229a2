/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work and completion rings, laid out byte for byte like the rings of the
 * rdma-core rxe provider (struct rxe_queue_buf of rdma_user_rxe.h): a
 * 384-byte header with the two indices on their own cache lines, then
 * 2^n slots of 2^m bytes. Capacity is slots - 1: empty when producer ==
 * consumer, full when producer + 1 == consumer (mod slots).
 *
 * Trust model. A user queue is mapped read-write into the process, which
 * may change any byte of it at any time:
 *  - the kernel keeps a private copy of every index it owns and never
 *    reads its own index back from the shared header;
 *  - an index owned by user space is read once with acquire ordering and
 *    masked before use, so it always names a slot of this ring;
 *  - a slot written by user space is copied into kernel memory once, by
 *    the caller, before any field of it is validated or used.
 * Kernel queues (of kernel verbs consumers) use the same layout in kernel
 * memory; both indices are then kernel-owned.
 */
#ifndef SROCE_QUEUE_H
#define SROCE_QUEUE_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

struct sroce_mmap;

struct sroce_queue {
	struct rxe_queue_buf *buf;
	size_t buf_size;		/* bytes, page aligned */
	u32 log2_elem_size;
	u32 index_mask;			/* slots - 1 */
	/* Private copies of the kernel-owned indices (see trust model). */
	u32 prod;
	u32 cons;
	bool kernel_produces;
	bool kernel_consumes;
	struct sroce_mmap *mmap;	/* NULL for kernel queues */
};

int sroce_queue_init(struct sroce_queue *q, struct ib_ucontext *uctx,
		     u32 num_elem, size_t elem_size, bool kernel_produces);
void sroce_queue_cleanup(struct sroce_queue *q);
int sroce_queue_mminfo(const struct sroce_queue *q, struct mminfo *mi);
u32 sroce_queue_count(const struct sroce_queue *q);

static inline u32 sroce_queue_capacity(const struct sroce_queue *q)
{
	return q->index_mask;
}

static inline size_t sroce_queue_elem_size(const struct sroce_queue *q)
{
	return (size_t)1 << q->log2_elem_size;
}

static inline void *sroce_queue_slot(const struct sroce_queue *q, u32 index)
{
	return q->buf->data + ((size_t)(index & q->index_mask) << q->log2_elem_size);
}

/* The producer index, whoever owns it; masked. */
static inline u32 sroce_queue_prod(const struct sroce_queue *q)
{
	if (q->kernel_produces)
		return q->prod;
	/* Pairs with the user producer's release: slot written, then index. */
	return smp_load_acquire(&q->buf->producer_index) & q->index_mask;
}

/* The consumer index, whoever owns it; masked. */
static inline u32 sroce_queue_cons(const struct sroce_queue *q)
{
	if (q->kernel_consumes)
		return q->cons;
	/* Pairs with the user consumer's release: it read the slots it frees. */
	return smp_load_acquire(&q->buf->consumer_index) & q->index_mask;
}

static inline bool sroce_queue_empty(const struct sroce_queue *q)
{
	return sroce_queue_prod(q) == sroce_queue_cons(q);
}

static inline bool sroce_queue_full(const struct sroce_queue *q)
{
	return ((sroce_queue_prod(q) + 1) & q->index_mask) ==
	       sroce_queue_cons(q);
}

/* Slot the kernel producer fills next. Caller checked !full. */
static inline void *sroce_queue_producer_slot(const struct sroce_queue *q)
{
	return sroce_queue_slot(q, q->prod);
}

/* Publish the filled slot. */
static inline void sroce_queue_advance_producer(struct sroce_queue *q)
{
	q->prod = (q->prod + 1) & q->index_mask;
	/* Pairs with a user consumer's acquire: slot written, then index. */
	smp_store_release(&q->buf->producer_index, q->prod);
}

/* Slot the kernel consumer reads next. Caller checked !empty. */
static inline void *sroce_queue_consumer_slot(const struct sroce_queue *q)
{
	return sroce_queue_slot(q, q->cons);
}

static inline void sroce_queue_advance_consumer(struct sroce_queue *q)
{
	q->cons = (q->cons + 1) & q->index_mask;
	/* Pairs with a user producer's acquire: slot read before it is reused. */
	smp_store_release(&q->buf->consumer_index, q->cons);
}

/* Consume everything posted so far, in one step (never loops on user input). */
static inline void sroce_queue_discard(struct sroce_queue *q)
{
	q->cons = sroce_queue_prod(q);
	/* Pairs with a user producer's acquire, as above. */
	smp_store_release(&q->buf->consumer_index, q->cons);
}

int sroce_queue_resize(struct sroce_queue *q, struct ib_ucontext *uctx,
		       u32 num_elem, spinlock_t *lock);

/* ib_device_ops.mmap and .mmap_free */
int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* SROCE_QUEUE_H */
