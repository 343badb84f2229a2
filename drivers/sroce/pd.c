// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains. ib_core owns the memory and refuses to destroy a PD
 * that objects still use (usecnt), so all sroce has to do is count them.
 */
#include <sroce/params.h>

#include "sroce.h"
#include "pd.h"

static int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);

	if (!sroce_charge(&sdev->num_pd, SROCE_MAX_PD))
		return -ENOMEM;
	return 0;
}

static int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	atomic_dec(&to_sdev(ibpd->device)->num_pd);
	return 0;
}

const struct ib_device_ops sroce_pd_ops = {
	.alloc_pd = sroce_alloc_pd,
	.dealloc_pd = sroce_dealloc_pd,
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
};
