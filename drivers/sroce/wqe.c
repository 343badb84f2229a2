// SPDX-License-Identifier: GPL-2.0
/*
 * Work queue entries.
 */
#include "wqe.h"

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
	u64 total = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > max_sge)
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->dma.sge[i].addr = wr->sg_list[i].addr;
		wqe->dma.sge[i].length = wr->sg_list[i].length;
		wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		total += wr->sg_list[i].length;
	}
	if (total > U32_MAX)
		return -EINVAL;
	wqe->wr_id = wr->wr_id;
	wqe->dma.length = total;
	wqe->dma.resid = total;
	wqe->dma.num_sge = wr->num_sge;
	wqe->dma.cur_sge = 0;
	wqe->dma.sge_offset = 0;
	return 0;
}
