// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues.
 *
 * The kernel is the only producer. A user CQ's consumer index belongs to
 * the process and is only ever read, masked, to tell whether the ring is
 * full. ib_core refuses to destroy a CQ that a QP or SRQ still uses.
 */
#include <rdma/uverbs_ioctl.h>
#include <sroce/params.h>

#include "sroce.h"
#include "compat.h"
#include "cq.h"

/*
 * Kernel wc_flags to the libibverbs values of struct ibv_wc, which are not
 * the same bits: WITH_INVALIDATE and IP_CSUM_OK trade places.
 */
static u32 sroce_uverbs_wc_flags(int flags)
{
	u32 out = 0;

	if (flags & IB_WC_GRH)
		out |= 1 << 0;		/* IBV_WC_GRH */
	if (flags & IB_WC_WITH_IMM)
		out |= 1 << 1;		/* IBV_WC_WITH_IMM */
	if (flags & IB_WC_IP_CSUM_OK)
		out |= 1 << 2;		/* IBV_WC_IP_CSUM_OK */
	if (flags & IB_WC_WITH_INVALIDATE)
		out |= 1 << 3;		/* IBV_WC_WITH_INV */
	return out;
}

static void sroce_wc_to_uverbs(struct ib_uverbs_wc *uwc, const struct ib_wc *wc)
{
	memset(uwc, 0, sizeof(*uwc));
	uwc->wr_id = wc->wr_id;
	uwc->status = wc->status;
	uwc->opcode = wc->opcode;
	uwc->vendor_err = wc->vendor_err;
	uwc->byte_len = wc->byte_len;
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE)
		uwc->ex.invalidate_rkey = wc->ex.invalidate_rkey;
	else
		uwc->ex.imm_data = wc->ex.imm_data;
	uwc->qp_num = wc->qp->qp_num;
	uwc->src_qp = wc->src_qp;
	uwc->wc_flags = sroce_uverbs_wc_flags(wc->wc_flags);
	uwc->pkey_index = wc->pkey_index;
	uwc->slid = wc->slid;
	uwc->sl = wc->sl;
	uwc->dlid_path_bits = wc->dlid_path_bits;
	uwc->port_num = wc->port_num;
}

static void sroce_cq_event(struct sroce_cq *cq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = type,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/**
 * sroce_cq_post - add a completion and wake the consumer if it asked
 * @cq: the CQ
 * @wc: the completion, in kernel form; converted for user CQs
 * @solicited: the completion is for a solicited message
 *
 * Context: any.
 * Return: 0, or -EOVERFLOW when the ring is full: the completion is lost,
 * the CQ reports IB_EVENT_CQ_ERR and the caller moves its QP to error.
 */
int sroce_cq_post(struct sroce_cq *cq, const struct ib_wc *wc, bool solicited)
{
	union sroce_cqe *cqe;
	unsigned long flags;
	bool wake;

	spin_lock_irqsave(&cq->lock, flags);
	if (unlikely(sroce_queue_full(&cq->queue) || cq->overflowed)) {
		cq->overflowed = true;
		spin_unlock_irqrestore(&cq->lock, flags);
		sroce_cq_event(cq, IB_EVENT_CQ_ERR);
		return -EOVERFLOW;
	}
	cqe = sroce_queue_producer_slot(&cq->queue);
	if (cq->is_user)
		sroce_wc_to_uverbs(&cqe->uwc, wc);
	else
		cqe->ibwc = *wc;
	sroce_queue_advance_producer(&cq->queue);

	wake = cq->notify == IB_CQ_NEXT_COMP ||
	       (cq->notify == IB_CQ_SOLICITED &&
		(solicited || wc->status != IB_WC_SUCCESS));
	if (wake)
		cq->notify = 0;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (wake && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return 0;
}

static int sroce_cq_check_size(struct ib_device *ibdev, int cqe)
{
	if (cqe <= 0 || cqe > SROCE_MAX_CQE)
		return -EINVAL;
	return 0;
}

static int sroce_cq_reply(struct sroce_cq *cq, struct ib_udata *udata)
{
	struct rxe_create_cq_resp resp = {};
	int err;

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	err = sroce_queue_mminfo(&cq->queue, &resp.mi);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

static int sroce_create_cq(struct ib_cq *ibcq,
			   const struct ib_cq_init_attr *attr,
			   struct sroce_create_cq_args *args)
{
	struct ib_udata *udata = sroce_create_cq_udata(args);
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	err = sroce_cq_check_size(ibcq->device, attr->cqe);
	if (err)
		return err;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	if (!sroce_charge(&sdev->num_cq, SROCE_MAX_CQ))
		return -ENOMEM;

	spin_lock_init(&cq->lock);
	cq->is_user = !!udata;
	err = sroce_queue_init(&cq->queue, sroce_uctx(udata),
			       attr->cqe, sizeof(union sroce_cqe), true);
	if (err)
		goto err_uncharge;
	if (udata) {
		err = sroce_cq_reply(cq, udata);
		if (err)
			goto err_queue;
	}
	ibcq->cqe = sroce_queue_capacity(&cq->queue);
	return 0;

err_queue:
	sroce_queue_cleanup(&cq->queue);
err_uncharge:
	atomic_dec(&sdev->num_cq);
	return err;
}

static int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	struct rxe_resize_cq_resp resp = {};
	int err;

	err = sroce_cq_check_size(ibcq->device, cqe);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(resp))
		return -EINVAL;
	err = sroce_queue_resize(&cq->queue, sroce_uctx(udata), cqe, &cq->lock);
	if (err)
		return err;
	ibcq->cqe = sroce_queue_capacity(&cq->queue);
	if (!udata)
		return 0;
	err = sroce_queue_mminfo(&cq->queue, &resp.mi);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

static int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long flags;
	int n = 0;

	/* User CQs are polled in user space; their slots are not ib_wc. */
	if (cq->is_user)
		return -EINVAL;
	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && !sroce_queue_empty(&cq->queue)) {
		union sroce_cqe *cqe = sroce_queue_consumer_slot(&cq->queue);

		wc[n++] = cqe->ibwc;
		sroce_queue_advance_consumer(&cq->queue);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

static int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	/* A request for every completion wins over one for solicited ones. */
	if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = flags & IB_CQ_SOLICITED_MASK;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && !sroce_queue_empty(&cq->queue))
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

static int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);

	sroce_queue_cleanup(&cq->queue);
	atomic_dec(&to_sdev(ibcq->device)->num_cq);
	return 0;
}

const struct ib_device_ops sroce_cq_ops = {
	.create_cq = sroce_create_cq,
	.destroy_cq = sroce_destroy_cq,
	.poll_cq = sroce_poll_cq,
	.req_notify_cq = sroce_req_notify_cq,
	.resize_cq = sroce_resize_cq,
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
};
