/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Work queue entries: kernel work requests written into ring slots, in the
 * rxe provider's layout so that one engine serves user and kernel QPs.
 */
#ifndef SROCE_WQE_H
#define SROCE_WQE_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

static inline size_t sroce_recv_wqe_size(u32 max_sge)
{
	return sizeof(struct rxe_recv_wqe) + max_sge * sizeof(struct rxe_sge);
}

struct sroce_queue;

int sroce_recv_wqe_from_wr(struct rxe_recv_wqe *wqe,
			   const struct ib_recv_wr *wr, u32 max_sge);
int sroce_post_recv_ring(struct sroce_queue *q, spinlock_t *lock,
			 const struct ib_recv_wr *wr, u32 max_sge,
			 const struct ib_recv_wr **bad_wr);

int sroce_send_wqe_from_wr(struct rxe_send_wqe *wqe, const struct ib_send_wr *wr,
			   bool ud, u32 max_sge, u32 max_inline);

#endif /* SROCE_WQE_H */
