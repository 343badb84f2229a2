/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Completion queues. The ring holds struct ib_uverbs_wc for user CQs (the
 * rxe provider polls it without entering the kernel) and struct ib_wc for
 * kernel CQs.
 */
#ifndef SROCE_CQ_H
#define SROCE_CQ_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "queue.h"

union sroce_cqe {
	struct ib_wc ibwc;
	struct ib_uverbs_wc uwc;
};

struct sroce_cq {
	struct ib_cq ibcq;
	/*
	 * lock protects the kernel's side of @queue (producing, and polling
	 * for kernel CQs), @notify and @overflowed, and serialises resize.
	 * Taken from any context, so always irqsave.
	 */
	spinlock_t lock;
	struct sroce_queue queue;
	u8 notify;		/* IB_CQ_SOLICITED or IB_CQ_NEXT_COMP if armed */
	bool overflowed;
	bool is_user;
};

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc,
		  bool solicited);

extern const struct ib_device_ops sroce_cq_ops;

#endif /* SROCE_CQ_H */
