// SPDX-License-Identifier: GPL-2.0
/*
 * Work queue entries.
 */
#include "av.h"
#include "queue.h"
#include "wqe.h"

/*
 * Copy a kernel SGE list into a ring slot's list. Return its total length,
 * or -EINVAL when it has more than @max_sge entries or does not fit in
 * 32 bits.
 */
static s64 sroce_sges_from_wr(struct rxe_sge *dst, const struct ib_sge *src,
			      int num_sge, u32 max_sge)
{
	u64 total = 0;
	int i;

	if (num_sge < 0 || num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < num_sge; i++) {
		dst[i].addr = src[i].addr;
		dst[i].length = src[i].length;
		dst[i].lkey = src[i].lkey;
		total += src[i].length;
	}
	return total > U32_MAX ? -EINVAL : total;
}

/**
 * sroce_recv_wqe_from_wr - write a kernel receive request into a slot
 * @wqe: the ring slot, sized for @max_sge
 * @wr: the request
 * @max_sge: the queue's scatter/gather limit
 *
 * Context: any.
 * Return: 0, or -EINVAL when the request has too many SGEs or its length
 * does not fit in 32 bits.
 */
int sroce_recv_wqe_from_wr(struct rxe_recv_wqe *wqe,
			   const struct ib_recv_wr *wr, u32 max_sge)
{
	s64 total = sroce_sges_from_wr(wqe->dma.sge, wr->sg_list, wr->num_sge,
				       max_sge);

	if (total < 0)
		return total;
	wqe->wr_id = wr->wr_id;
	wqe->dma.length = total;
	wqe->dma.resid = total;
	wqe->dma.num_sge = wr->num_sge;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	return 0;
}

/**
 * sroce_post_recv_ring - post a chain of kernel receive requests
 * @q: a kernel RQ or SRQ ring
 * @lock: the lock serialising its producers
 * @wr: the chain
 * @max_sge: the ring's scatter/gather limit
 * @bad_wr: set to the first request not posted
 *
 * Context: any.
 * Return: 0, -ENOMEM when the ring is full, -EINVAL for a bad request.
 */
int sroce_post_recv_ring(struct sroce_queue *q, spinlock_t *lock,
			 const struct ib_recv_wr *wr, u32 max_sge,
			 const struct ib_recv_wr **bad_wr)
{
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(lock, flags);
	for (; wr; wr = wr->next) {
		if (sroce_queue_full(q)) {
			err = -ENOMEM;
			break;
		}
		err = sroce_recv_wqe_from_wr(sroce_queue_producer_slot(q), wr,
					     max_sge);
		if (err)
			break;
		sroce_queue_advance_producer(q);
	}
	spin_unlock_irqrestore(lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

static int sroce_send_wqe_inline(struct rxe_send_wqe *wqe,
				 const struct ib_send_wr *wr, u32 max_inline)
{
	u32 total = 0;
	int i;

	for (i = 0; i < wr->num_sge; i++) {
		u32 len = wr->sg_list[i].length;

		if (len > max_inline - total)
			return -EINVAL;
		/* Kernel consumers' addresses are kernel virtual addresses. */
		memcpy(wqe->dma.inline_data + total,
		       (void *)(uintptr_t)wr->sg_list[i].addr, len);
		total += len;
	}
	wqe->dma.length = total;
	return 0;
}

static int sroce_send_wqe_sges(struct rxe_send_wqe *wqe,
			       const struct ib_send_wr *wr, u32 max_sge)
{
	s64 total = sroce_sges_from_wr(wqe->dma.sge, wr->sg_list, wr->num_sge,
				       max_sge);

	if (total < 0)
		return total;
	wqe->dma.num_sge = wr->num_sge;
	wqe->dma.length = total;
	return 0;
}

static void sroce_send_wqe_opcode_fields(struct rxe_send_wqe *wqe,
					 const struct ib_send_wr *wr)
{
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wqe->wr.wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		wqe->wr.wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		wqe->wr.wr.atomic.swap = atomic_wr(wr)->swap;
		wqe->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	case IB_WR_REG_MR:
		wqe->wr.wr.reg.mr = reg_wr(wr)->mr;
		wqe->wr.wr.reg.key = reg_wr(wr)->key;
		wqe->wr.wr.reg.access = reg_wr(wr)->access;
		break;
	default:
		break;
	}
}

/**
 * sroce_send_wqe_from_wr - write a kernel send request into a ring slot
 * @wqe: the slot
 * @wr: the request
 * @ud: the QP is UD or GSI (the request carries an address handle)
 * @max_sge: the QP's send SGE limit
 * @max_inline: the QP's inline limit
 *
 * Context: any.
 * Return: 0 or -EINVAL.
 */
int sroce_send_wqe_from_wr(struct rxe_send_wqe *wqe, const struct ib_send_wr *wr,
			   bool ud, u32 max_sge, u32 max_inline)
{
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_LOCAL_INV || wr->opcode == IB_WR_SEND_WITH_INV)
		wqe->wr.ex.invalidate_rkey = wr->ex.invalidate_rkey;
	else
		wqe->wr.ex.imm_data = wr->ex.imm_data;
	if (ud) {
		if (!ud_wr(wr)->ah)
			return -EINVAL;
		wqe->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		wqe->wr.wr.ud.av = to_sah(ud_wr(wr)->ah)->av;
	} else {
		sroce_send_wqe_opcode_fields(wqe, wr);
	}
	if (wr->send_flags & IB_SEND_INLINE)
		return sroce_send_wqe_inline(wqe, wr, max_inline);
	return sroce_send_wqe_sges(wqe, wr, max_sge);
}
