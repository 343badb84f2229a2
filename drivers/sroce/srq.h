/* SPDX-License-Identifier: GPL-2.0 */
/* Shared receive queues. */
#ifndef SROCE_SRQ_H
#define SROCE_SRQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "pool.h"
#include "queue.h"

struct sroce_srq {
	struct ib_srq ibsrq;
	struct sroce_pool_elem elem;	/* srq_num in sdev->srq_pool */
	/*
	 * lock protects the kernel's side of @queue, @limit and resizing.
	 * Any context: irqsave.
	 */
	spinlock_t lock;
	struct sroce_queue queue;
	u32 max_sge;
	u32 limit;			/* 0: limit event not armed */
	bool is_user;
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

void sroce_srq_check_limit(struct sroce_srq *srq);

extern const struct ib_device_ops sroce_srq_ops;

#endif /* SROCE_SRQ_H */
