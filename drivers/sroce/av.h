/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address vectors and address handles.
 *
 * An address vector is everything needed to put a packet on the wire to
 * one peer. It is kept as a struct rxe_av, the layout the rxe provider
 * also embeds in UD work requests, so one format serves every path.
 */
#ifndef SROCE_AV_H
#define SROCE_AV_H

#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "pool.h"

struct sroce_dev;

struct sroce_ah {
	struct ib_ah ibah;
	struct sroce_pool_elem elem;	/* ah_num in sdev->ah_pool */
	struct rxe_av av;
	bool numbered;			/* user AH: published in ah_pool */
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

int sroce_av_from_attr(struct rxe_av *av, const struct rdma_ah_attr *attr);
void sroce_av_to_attr(const struct rxe_av *av, struct rdma_ah_attr *attr);

struct sroce_ah *sroce_ah_get(struct sroce_dev *sdev, u32 ah_num);
void sroce_ah_put(struct sroce_ah *ah);

extern const struct ib_device_ops sroce_ah_ops;

#endif /* SROCE_AV_H */
