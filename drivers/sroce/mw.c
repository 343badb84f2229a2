// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows. ib_core owns the memory; the key lives in the same pool
 * as MR keys, so the two can never collide.
 */
#include <sroce/params.h>

#include "sroce.h"
#include "mw.h"
#include "qp.h"

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

/**
 * sroce_rkey_resolve - check a remote access and find the memory behind it
 * @sdev: the device
 * @qp: the QP the request arrived on
 * @rkey: untrusted R_Key of an MR or MW
 * @va: untrusted first byte
 * @length: untrusted length
 * @access: IB_ACCESS_REMOTE_* the operation needs
 *
 * Context: any.
 * Return: the MR to copy through, referenced, or NULL when the key is
 * unknown, of another PD or QP, lacks @access or does not cover the range.
 */
struct sroce_mr *sroce_rkey_resolve(struct sroce_dev *sdev,
				    struct sroce_qp *qp, u32 rkey, u64 va,
				    u64 length, int access)
{
	struct sroce_keyed *k = sroce_key_get(sdev, rkey);
	struct sroce_mr *mr = NULL;
	struct sroce_mw *mw;
	unsigned long flags;

	if (!k)
		return NULL;
	if (k->kind == SROCE_KEY_MR) {
		mr = container_of(k, struct sroce_mr, key);
		if (!sroce_mr_check(mr, qp->ibqp.pd, va, length, access))
			return mr;
		sroce_mr_put(mr);
		return NULL;
	}
	mw = container_of(k, struct sroce_mw, key);
	spin_lock_irqsave(&mw->lock, flags);
	if (mw->state == SROCE_MW_VALID && mw->ibmw.pd == qp->ibqp.pd &&
	    (mw->ibmw.type == IB_MW_TYPE_1 || mw->qp == qp) &&
	    (mw->access & access) == access && va >= mw->addr &&
	    va - mw->addr <= mw->length && length <= mw->length - (va - mw->addr)) {
		mr = mw->mr;
		sroce_pool_elem_get(&mr->key.elem);
	}
	spin_unlock_irqrestore(&mw->lock, flags);
	sroce_key_put(k);
	if (mr && sroce_mr_check(mr, mr->ibmr.pd, va, length, 0)) {
		sroce_mr_put(mr);
		mr = NULL;
	}
	return mr;
}

static int sroce_mw_check_bind(struct sroce_qp *qp, struct sroce_mw *mw,
			       struct sroce_mr *mr, const struct sroce_mw_bind_wr *w)
{
	if (mw->ibmw.pd != qp->ibqp.pd || mr->ibmr.pd != qp->ibqp.pd)
		return -EINVAL;
	if ((w->new_rkey >> 8) != (mw->key.key >> 8))
		return -EINVAL;
	if (mw->ibmw.type == IB_MW_TYPE_2 && mw->state == SROCE_MW_VALID)
		return -EINVAL;
	if (!(mr->access & IB_ACCESS_MW_BIND) || mr->state != SROCE_MR_VALID)
		return -EACCES;
	/* Remote writes through the window need a locally writable MR. */
	if ((w->access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & IB_ACCESS_LOCAL_WRITE))
		return -EACCES;
	return sroce_mr_check(mr, mr->ibmr.pd, w->addr, w->length, 0);
}

/**
 * sroce_mw_bind - execute a BIND_MW work request
 * @sdev: the device
 * @qp: the QP that posted it
 * @w: the request, from the validated copy of the WQE
 *
 * Context: the QP's engine.
 * Return: 0 or a negative errno (the WQE then completes with an error).
 */
int sroce_mw_bind(struct sroce_dev *sdev, struct sroce_qp *qp,
		  const struct sroce_mw_bind_wr *w)
{
	struct sroce_keyed *k = sroce_key_get(sdev, w->mw_rkey);
	struct sroce_mr *mr = NULL, *old;
	struct sroce_mw *mw;
	unsigned long flags;
	int err = -EINVAL;

	if (!k)
		return -EINVAL;
	if (k->kind != SROCE_KEY_MW)
		goto out;
	mw = container_of(k, struct sroce_mw, key);
	if (w->length) {
		mr = sroce_mr_get(sdev, w->mr_lkey);
		if (!mr)
			goto out;
		err = sroce_mw_check_bind(qp, mw, mr, w);
		if (err)
			goto out;
		atomic_inc(&mr->num_mw);
	}
	spin_lock_irqsave(&mw->lock, flags);
	old = mw->mr;
	mw->mr = mr;
	mw->qp = mw->ibmw.type == IB_MW_TYPE_2 ? qp : NULL;
	mw->addr = w->addr;
	mw->length = w->length;
	mw->access = w->access;
	mw->state = mr ? SROCE_MW_VALID : SROCE_MW_FREE;
	WRITE_ONCE(mw->key.key, w->new_rkey);
	mw->ibmw.rkey = w->new_rkey;
	spin_unlock_irqrestore(&mw->lock, flags);
	mr = NULL;	/* the window owns the reference now */
	if (old) {
		atomic_dec(&old->num_mw);
		sroce_mr_put(old);
	}
	err = 0;
out:
	if (mr)
		sroce_mr_put(mr);
	sroce_key_put(k);
	return err;
}

/**
 * sroce_key_invalidate - LOCAL_INV, or SEND_WITH_INV from the peer
 * @sdev: the device
 * @qp: the QP the request came from or arrived on
 * @key: the key to invalidate
 * @remote: true for SEND_WITH_INV
 *
 * Fast-registration MRs and type 2 windows can be invalidated; anything
 * else is an error.
 *
 * Context: the QP's engine.
 * Return: 0 or a negative errno.
 */
int sroce_key_invalidate(struct sroce_dev *sdev, struct sroce_qp *qp,
			 u32 key, bool remote)
{
	struct sroce_keyed *k = sroce_key_get(sdev, key);
	int err = -EINVAL;

	if (!k)
		return -EINVAL;
	if (k->kind == SROCE_KEY_MR) {
		struct sroce_mr *mr = container_of(k, struct sroce_mr, key);

		if (mr->type == SROCE_MR_FAST_REG && mr->ibmr.pd == qp->ibqp.pd &&
		    !atomic_read(&mr->num_mw)) {
			WRITE_ONCE(mr->state, SROCE_MR_INVALID);
			err = 0;
		}
	} else {
		struct sroce_mw *mw = container_of(k, struct sroce_mw, key);

		if (mw->ibmw.type == IB_MW_TYPE_2 && mw->ibmw.pd == qp->ibqp.pd &&
		    (!remote || mw->qp == qp) && mw->state == SROCE_MW_VALID) {
			sroce_mw_unbind(mw);
			err = 0;
		}
	}
	sroce_key_put(k);
	return err;
}
