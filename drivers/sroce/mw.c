// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows. ib_core owns the memory; the key lives in the same pool
 * as MR keys, so the two can never collide.
 */
#include <sroce/params.h>

#include "sroce.h"
#include "mw.h"

static int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);
	int err;

	if (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)
		return -EINVAL;
	if (!sroce_charge(&sdev->num_mw, SROCE_MAX_MW))
		return -ENOMEM;
	err = sroce_pool_reserve(&sdev->key_pool, &mw->key.elem, GFP_KERNEL);
	if (err) {
		atomic_dec(&sdev->num_mw);
		return err;
	}
	spin_lock_init(&mw->lock);
	mw->state = SROCE_MW_FREE;
	mw->key.kind = SROCE_KEY_MW;
	mw->key.key = sroce_next_key(sdev, mw->key.elem.index);
	ibmw->rkey = mw->key.key;
	sroce_pool_publish(&sdev->key_pool, &mw->key.elem);
	return 0;
}

/* Drop the binding, if any, and the reference it held on its MR. */
void sroce_mw_unbind(struct sroce_mw *mw)
{
	struct sroce_mr *mr;
	unsigned long flags;

	spin_lock_irqsave(&mw->lock, flags);
	mr = mw->mr;
	mw->mr = NULL;
	mw->qp = NULL;
	if (mw->state == SROCE_MW_VALID)
		mw->state = SROCE_MW_INVALID;
	spin_unlock_irqrestore(&mw->lock, flags);

	if (mr) {
		atomic_dec(&mr->num_mw);
		sroce_mr_put(mr);
	}
}

static int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_mw *mw = to_smw(ibmw);

	sroce_pool_unpublish(&sdev->key_pool, &mw->key.elem);
	sroce_pool_drop_and_wait(&mw->key.elem);
	sroce_mw_unbind(mw);
	atomic_dec(&sdev->num_mw);
	return 0;
}

const struct ib_device_ops sroce_mw_ops = {
	.alloc_mw = sroce_alloc_mw,
	.dealloc_mw = sroce_dealloc_mw,
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
};
