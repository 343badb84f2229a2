// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues.
 *
 * User space (or a kernel consumer through post_srq_recv) produces receive
 * WQEs; the responder consumes them. The limit event fires once when the
 * number of posted WQEs drops below the armed limit, then disarms, as the
 * verbs specification says.
 */
#include <linux/uaccess.h>
#include <rdma/uverbs_ioctl.h>
#include <sroce/params.h>

#include "sroce.h"
#include "srq.h"
#include "wqe.h"

static int sroce_srq_check_attr(const struct ib_srq_attr *attr,
				enum ib_srq_attr_mask mask, u32 cur_max_wr)
{
	if (mask & IB_SRQ_MAX_WR) {
		if (!attr->max_wr || attr->max_wr > SROCE_MAX_SRQ_WR)
			return -EINVAL;
		cur_max_wr = attr->max_wr;
	}
	if ((mask & IB_SRQ_LIMIT) && attr->srq_limit > cur_max_wr)
		return -EINVAL;
	return 0;
}

static int sroce_srq_reply(struct sroce_srq *srq, struct ib_udata *udata)
{
	struct rxe_create_srq_resp resp = {};
	int err;

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	err = sroce_queue_mminfo(&srq->queue, &resp.mi);
	if (err)
		return err;
	resp.srq_num = srq->elem.index;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

static int sroce_create_srq(struct ib_srq *ibsrq,
			    struct ib_srq_init_attr *init,
			    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_sge || attr->max_sge > SROCE_MAX_SRQ_SGE)
		return -EINVAL;
	err = sroce_srq_check_attr(attr, IB_SRQ_MAX_WR | IB_SRQ_LIMIT, 0);
	if (err)
		return err;

	spin_lock_init(&srq->lock);
	srq->max_sge = attr->max_sge;
	srq->limit = attr->srq_limit;
	srq->is_user = !!udata;
	err = sroce_pool_reserve(&sdev->srq_pool, &srq->elem, GFP_KERNEL);
	if (err)
		return err;
	err = sroce_queue_init(&srq->queue, sroce_uctx(udata), attr->max_wr,
			       sroce_recv_wqe_size(srq->max_sge), false);
	if (err)
		goto err_unreserve;
	if (udata) {
		err = sroce_srq_reply(srq, udata);
		if (err)
			goto err_queue;
	}
	attr->max_wr = sroce_queue_capacity(&srq->queue);
	sroce_pool_publish(&sdev->srq_pool, &srq->elem);
	return 0;

err_queue:
	sroce_queue_cleanup(&srq->queue);
err_unreserve:
	sroce_pool_unpublish(&sdev->srq_pool, &srq->elem);
	return err;
}

/* The rxe provider passes where the new ring's mminfo is to be written. */
static int sroce_srq_resize(struct sroce_srq *srq, u32 max_wr,
			    struct ib_udata *udata)
{
	struct rxe_modify_srq_cmd cmd = {};
	struct mminfo mi;
	int err;

	if (udata) {
		if (udata->inlen < sizeof(cmd))
			return -EINVAL;
		err = ib_copy_from_udata(&cmd, udata, sizeof(cmd));
		if (err)
			return err;
	}
	err = sroce_queue_resize(&srq->queue, sroce_uctx(udata), max_wr,
				 &srq->lock);
	if (err || !udata)
		return err;
	err = sroce_queue_mminfo(&srq->queue, &mi);
	if (err)
		return err;
	if (copy_to_user(u64_to_user_ptr(cmd.mmap_info_addr), &mi, sizeof(mi)))
		return -EFAULT;
	return 0;
}

static int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			    enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	err = sroce_srq_check_attr(attr, mask,
				   sroce_queue_capacity(&srq->queue));
	if (err)
		return err;
	/* Shrinking below the armed limit would make the limit meaningless. */
	if ((mask & IB_SRQ_MAX_WR) && !(mask & IB_SRQ_LIMIT) &&
	    attr->max_wr < READ_ONCE(srq->limit))
		return -EINVAL;
	if (mask & IB_SRQ_MAX_WR) {
		err = sroce_srq_resize(srq, attr->max_wr, udata);
		if (err)
			return err;
	}
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_irqsave(&srq->lock, flags);
		srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	return 0;
}

static int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	attr->max_wr = sroce_queue_capacity(&srq->queue);
	attr->max_sge = srq->max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

/**
 * sroce_srq_check_limit - fire the limit event if it is armed and reached
 * @srq: the SRQ, after WQEs were consumed or the limit changed
 *
 * Context: any.
 */
void sroce_srq_check_limit(struct sroce_srq *srq)
{
	struct ib_event ev = {
		.device = srq->ibsrq.device,
		.element.srq = &srq->ibsrq,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};
	unsigned long flags;
	bool fire;

	spin_lock_irqsave(&srq->lock, flags);
	fire = srq->limit && sroce_queue_count(&srq->queue) < srq->limit;
	if (fire)
		srq->limit = 0;
	spin_unlock_irqrestore(&srq->lock, flags);

	if (fire && srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

static int sroce_post_srq_recv(struct ib_srq *ibsrq,
			       const struct ib_recv_wr *wr,
			       const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	if (srq->is_user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	return sroce_post_recv_ring(&srq->queue, &srq->lock, wr, srq->max_sge,
				    bad_wr);
}

static int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);

	sroce_pool_unpublish(&to_sdev(ibsrq->device)->srq_pool, &srq->elem);
	sroce_pool_drop_and_wait(&srq->elem);
	sroce_queue_cleanup(&srq->queue);
	return 0;
}

const struct ib_device_ops sroce_srq_ops = {
	.create_srq = sroce_create_srq,
	.destroy_srq = sroce_destroy_srq,
	.modify_srq = sroce_modify_srq,
	.post_srq_recv = sroce_post_srq_recv,
	.query_srq = sroce_query_srq,
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
};
