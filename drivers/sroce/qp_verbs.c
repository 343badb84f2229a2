// SPDX-License-Identifier: GPL-2.0
/*
 * The QP verbs: creation with their rings, the IB state machine, query,
 * destruction and posting.
 *
 * ib_core's ib_modify_qp_is_ok() decides which transitions are legal and
 * which attributes each one requires or allows; sroce then checks the
 * values and applies them atomically under qp->lock.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/uverbs_ioctl.h>
#include <sroce/params.h>

#include "sroce.h"
#include "av.h"
#include "cq.h"
#include "fault.h"
#include "mcast.h"
#include "net.h"
#include "qp.h"
#include "qp_verbs.h"
#include "resp.h"
#include "srq.h"
#include "task.h"
#include "txflow.h"
#include "wqe.h"

#define SROCE_MAX_INLINE	(SROCE_MAX_SGE * sizeof(struct rxe_sge))

#define SROCE_QP_ACCESS		(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC)
/*
 * MR-only access bits that consumers pass to QPs too (pyverbs' ODP tests
 * use one set of flags for both): meaningless for a QP, so accepted and
 * ignored, as hardware drivers do. Any other bit is refused.
 */
#define SROCE_QP_ACCESS_IGNORED	(IB_ACCESS_MW_BIND | IB_ZERO_BASED | \
				 IB_ACCESS_ON_DEMAND | IB_ACCESS_HUGETLB | \
				 IB_ACCESS_OPTIONAL)

static int sroce_qp_check_init(const struct ib_qp_init_attr *init,
			       struct ib_udata *udata)
{
	const struct ib_qp_cap *cap = &init->cap;

	switch (init->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_GSI:
		if (udata)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	/* The rxe provider sends no driver data with create_qp. */
	if (udata && udata->inlen)
		return -EINVAL;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	if (cap->max_send_wr > SROCE_MAX_QP_WR ||
	    cap->max_send_sge > SROCE_MAX_SGE ||
	    cap->max_inline_data > SROCE_MAX_INLINE)
		return -EINVAL;
	if (!init->srq && (cap->max_recv_wr > SROCE_MAX_QP_WR ||
			   cap->max_recv_sge > SROCE_MAX_SGE))
		return -EINVAL;
	return 0;
}

/*
 * Rings sized as the rxe provider expects: a send slot holds the WQE plus
 * the larger of the SGE list and the inline data; the provider learns the
 * room it got from the capabilities written back.
 */
static int sroce_qp_init_rings(struct sroce_qp *qp, struct ib_qp_init_attr *init,
			       struct ib_ucontext *uctx)
{
	struct ib_qp_cap *cap = &init->cap;
	u32 room = max_t(u32, cap->max_send_sge * sizeof(struct rxe_sge),
			 cap->max_inline_data);
	int err;

	err = sroce_queue_init(&qp->sq, uctx, max_t(u32, cap->max_send_wr, 1),
			       sizeof(struct rxe_send_wqe) + room, false);
	if (err)
		return err;
	qp->sq_max_sge = room / sizeof(struct rxe_sge);
	qp->sq_max_inline = room;

	if (!init->srq) {
		qp->rq_max_sge = cap->max_recv_sge;
		err = sroce_queue_init(&qp->rq, uctx,
				       max_t(u32, cap->max_recv_wr, 1),
				       sroce_recv_wqe_size(qp->rq_max_sge), false);
		if (err) {
			sroce_queue_cleanup(&qp->sq);
			return err;
		}
	}
	return 0;
}

static void sroce_qp_cleanup_rings(struct sroce_qp *qp)
{
	if (qp->rq.buf)
		sroce_queue_cleanup(&qp->rq);
	sroce_queue_cleanup(&qp->sq);
}

/*
 * The READ/ATOMIC resources of an RC QP, allocated (outside qp->lock) for
 * the modify that first gives max_dest_rd_atomic, which INIT -> RTR must.
 * The array is never replaced: the responder may hold a pointer into it.
 */
static struct sroce_rd_res *sroce_qp_alloc_res(struct sroce_qp *qp,
					       const struct ib_qp_attr *attr,
					       int mask, u32 *count)
{
	if (qp->ibqp.qp_type != IB_QPT_RC ||
	    !(mask & IB_QP_MAX_DEST_RD_ATOMIC) || READ_ONCE(qp->resp.res))
		return NULL;
	*count = clamp_t(u32,
			 roundup_pow_of_two(max_t(u32, 1,
						  attr->max_dest_rd_atomic)),
			 SROCE_RD_RES_MIN, SROCE_RD_RES_MAX);
	return sroce_kcalloc(*count, sizeof(struct sroce_rd_res), GFP_KERNEL);
}

static void sroce_qp_get_cap(struct sroce_qp *qp, struct ib_qp_cap *cap)
{
	cap->max_send_wr = sroce_queue_capacity(&qp->sq);
	cap->max_send_sge = qp->sq_max_sge;
	cap->max_inline_data = qp->sq_max_inline;
	cap->max_recv_wr = qp->srq ? 0 : sroce_queue_capacity(&qp->rq);
	cap->max_recv_sge = qp->srq ? 0 : qp->rq_max_sge;
}

static int sroce_qp_reply(struct sroce_qp *qp, struct ib_udata *udata)
{
	struct rxe_create_qp_resp resp = {};
	int err;

	if (udata->outlen < sizeof(resp))
		return -EINVAL;
	if (!qp->srq) {
		err = sroce_queue_mminfo(&qp->rq, &resp.rq_mi);
		if (err)
			return err;
	}
	err = sroce_queue_mminfo(&qp->sq, &resp.sq_mi);
	if (err)
		return err;
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

static int sroce_qp_reserve_qpn(struct sroce_dev *sdev, struct sroce_qp *qp,
				enum ib_qp_type type)
{
	if (type == IB_QPT_GSI)
		return sroce_pool_reserve_index(&sdev->qp_pool, &qp->elem,
						SROCE_GSI_QPN, GFP_KERNEL);
	return sroce_pool_reserve(&sdev->qp_pool, &qp->elem, GFP_KERNEL);
}

static void sroce_qp_init_fields(struct sroce_qp *qp,
				 struct ib_qp_init_attr *init,
				 struct ib_udata *udata)
{
	spin_lock_init(&qp->lock);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	INIT_LIST_HEAD(&qp->mcast_list);
	qp->is_user = !!udata;
	qp->state = IB_QPS_RESET;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.port_num = 1;
	qp->attr.path_mtu = IB_MTU_1024;
	qp->scq = to_scq(init->send_cq);
	qp->rcq = to_scq(init->recv_cq);
	qp->srq = init->srq ? to_ssrq(init->srq) : NULL;
	qp->sq_sig_type = init->sq_sig_type;
}

static int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	int err;

	err = sroce_qp_check_init(init, udata);
	if (err)
		return err;
	sroce_qp_init_fields(qp, init, udata);

	err = sroce_qp_reserve_qpn(sdev, qp, init->qp_type);
	if (err)
		return err == -EBUSY ? -EINVAL : err;
	ibqp->qp_num = qp->elem.index;
	/* RoCEv2 source-port entropy until a path gives a better one. */
	qp->src_port = 0xc000 | hash_32(ibqp->qp_num, 14);

	err = sroce_qp_init_rings(qp, init, sroce_uctx(udata));
	if (err)
		goto err_unreserve;
	err = sroce_task_qp_init(qp);
	if (err)
		goto err_engine;
	if (udata) {
		err = sroce_qp_reply(qp, udata);
		if (err)
			goto err_engine;
	}
	sroce_qp_get_cap(qp, &init->cap);
	sroce_pool_publish(&sdev->qp_pool, &qp->elem);
	return 0;

err_engine:
	sroce_task_qp_free(qp);
	sroce_qp_cleanup_rings(qp);
err_unreserve:
	sroce_pool_unpublish(&sdev->qp_pool, &qp->elem);
	return err;
}

static int sroce_qp_check_path(const struct ib_qp_attr *attr, int mask)
{
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) &&
	    attr->pkey_index >= SROCE_PORT_PKEY_TBL_LEN)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_ALT_PATH) &&
	    (attr->alt_port_num != 1 ||
	     attr->alt_pkey_index >= SROCE_PORT_PKEY_TBL_LEN ||
	     attr->alt_timeout > 31))
		return -EINVAL;
	return 0;
}

/* Values a transition allowed: IBTA field widths and device limits. */
static int sroce_qp_check_values(const struct ib_qp_attr *attr, int mask)
{
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > SROCE_MAX_QP_INIT_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > SROCE_MAX_QP_RD_ATOM)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_ACCESS_FLAGS) &&
	    (attr->qp_access_flags & ~(SROCE_QP_ACCESS | SROCE_QP_ACCESS_IGNORED)))
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > SROCE_MAX_QPN)
		return -EINVAL;
	return sroce_qp_check_path(attr, mask);
}

/* Copy the attributes named by @mask into the QP. Caller holds qp->lock. */
static void sroce_qp_store_attr(struct sroce_qp *qp,
				const struct ib_qp_attr *attr, int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	lockdep_assert_held(&qp->lock);
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn & SROCE_MAX_QPN;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn & SROCE_MAX_QPN;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_PATH_MIG_STATE)
		a->path_mig_state = attr->path_mig_state;
	if (mask & IB_QP_EN_SQD_ASYNC_NOTIFY)
		a->en_sqd_async_notify = attr->en_sqd_async_notify;
	if (mask & IB_QP_ALT_PATH) {
		a->alt_port_num = attr->alt_port_num;
		a->alt_pkey_index = attr->alt_pkey_index;
		a->alt_timeout = attr->alt_timeout;
	}
}

static void sroce_qp_apply(struct sroce_qp *qp, const struct ib_qp_attr *attr,
			   int mask, const struct rxe_av *av)
{
	lockdep_assert_held(&qp->lock);
	sroce_qp_store_attr(qp, attr, mask);
	if (mask & IB_QP_AV)
		qp->av = *av;
	if ((mask & (IB_QP_AV | IB_QP_DEST_QPN)) && qp->ibqp.qp_type != IB_QPT_UD)
		qp->src_port = rdma_get_udp_sport(qp->av.grh.flow_label,
						  sroce_qpn(qp),
						  qp->attr.dest_qp_num);
	if (mask & IB_QP_SQ_PSN) {
		qp->req.psn = qp->attr.sq_psn;
		qp->req.psn_hi = qp->attr.sq_psn;
		qp->comp.psn = qp->attr.sq_psn;
		sroce_window_reset(&qp->req.window);
	}
	if (mask & IB_QP_RQ_PSN)
		qp->resp.psn = qp->attr.rq_psn;
	if (mask & IB_QP_RETRY_CNT)
		qp->req.retry_cnt = qp->attr.retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->req.rnr_retry = qp->attr.rnr_retry;
	if (mask & IB_QP_STATE) {
		WRITE_ONCE(qp->state, attr->qp_state);
		qp->attr.qp_state = attr->qp_state;
		if (attr->qp_state == IB_QPS_RESET)
			sroce_task_reset_state(qp);
	}
}

/*
 * A QP may not become ready (RTR, RTS) once the netdev is going away;
 * checked under qp->lock, which sroce_qp_fail_all() takes after setting
 * netdev_gone, so a QP either sees the flag here or is failed there.
 */
static bool sroce_qp_dev_gone(struct sroce_qp *qp, enum ib_qp_state cur,
			      enum ib_qp_state next)
{
	return next != cur && (next == IB_QPS_RTR || next == IB_QPS_RTS) &&
	       READ_ONCE(to_sdev(qp->ibqp.device)->netdev_gone);
}

/*
 * The transmit flow to the destination of the path an RC/UC QP without
 * one is being given (taken outside qp->lock: it may create a socket),
 * NULL when it needs none, or an ERR_PTR.
 */
static struct sroce_txflow *sroce_qp_get_flow(struct sroce_qp *qp, int mask,
					      const struct rxe_av *av)
{
	u8 sgid[16];

	if (!(mask & IB_QP_AV) || !sroce_txflow_per_dest(qp) ||
	    READ_ONCE(qp->txflow))
		return NULL;
	sroce_txflow_av_sgid(av, sgid);
	return sroce_txflow_get(to_sdev(qp->ibqp.device), sgid,
				av->grh.dgid.raw);
}

/*
 * What a modify prepares before it takes qp->lock: the address vector of
 * the new path, and what it allocates (the lock is a spinlock). The
 * commit takes what it uses; the rest is given back after the lock.
 */
struct sroce_qp_modify {
	struct rxe_av av;
	struct sroce_rd_res *res;
	u32 res_count;
	struct sroce_txflow *flow;
};

/*
 * Check phase, first half: every attribute on its own, with no state
 * change; the transition is checked against the state under qp->lock.
 */
static int sroce_qp_check_attr(const struct ib_qp_attr *attr, int mask,
			       struct rxe_av *av)
{
	int err;

	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	err = sroce_qp_check_values(attr, mask);
	if (err)
		return err;
	if (mask & IB_QP_AV)
		return sroce_av_from_attr(av, &attr->ah_attr);
	return 0;
}

/* Allocate what the commit may need, outside qp->lock. */
static int sroce_qp_modify_prepare(struct sroce_qp *qp,
				   const struct ib_qp_attr *attr, int mask,
				   struct sroce_qp_modify *m)
{
	m->res = sroce_qp_alloc_res(qp, attr, mask, &m->res_count);
	if (m->res_count && !m->res)
		return -ENOMEM;
	m->flow = sroce_qp_get_flow(qp, mask, &m->av);
	if (IS_ERR(m->flow)) {
		kfree(m->res);
		return PTR_ERR(m->flow);
	}
	return 0;
}

/* Give back what the commit did not take (either may be NULL). */
static void sroce_qp_modify_release(struct sroce_qp *qp,
				    struct sroce_qp_modify *m)
{
	kfree(m->res);		/* unused, or a concurrent modify's came first */
	sroce_txflow_put(to_sdev(qp->ibqp.device), m->flow);
}

/* Check phase, second half: may the QP go from its state to the next? */
static int sroce_qp_check_transition(struct sroce_qp *qp,
				     const struct ib_qp_attr *attr, int mask)
{
	enum ib_qp_state cur = qp->state;
	enum ib_qp_state next = cur;

	lockdep_assert_held(&qp->lock);
	if (mask & IB_QP_STATE)
		next = attr->qp_state;
	if (!ib_modify_qp_is_ok(cur, next, qp->ibqp.qp_type, mask))
		return -EINVAL;
	if (sroce_qp_dev_gone(qp, cur, next))
		return -ENODEV;
	return 0;
}

/* Commit phase: apply a checked modify. Caller holds qp->lock. */
static void sroce_qp_modify_commit(struct sroce_qp *qp,
				   const struct ib_qp_attr *attr, int mask,
				   struct sroce_qp_modify *m)
{
	lockdep_assert_held(&qp->lock);
	if (m->res && !qp->resp.res) {	/* before the state lets it be used */
		qp->resp.res_count = m->res_count;
		qp->resp.res_head = 0;
		qp->resp.res = m->res;
		m->res = NULL;
	}
	if (m->flow && sroce_txflow_bind(qp, m->flow))
		m->flow = NULL;
	sroce_qp_apply(qp, attr, mask, &m->av);
	if ((mask & IB_QP_AV) && sroce_txflow_per_dest(qp))
		sroce_txflow_path_set(qp);
}

static int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			   int mask, struct ib_udata *udata)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_qp_modify m = {};
	unsigned long flags;
	bool to_reset;
	int err;

	err = sroce_qp_check_attr(attr, mask, &m.av);
	if (err)
		return err;
	err = sroce_qp_modify_prepare(qp, attr, mask, &m);
	if (err)
		return err;

	to_reset = (mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RESET;
	if (to_reset)
		sroce_task_reset_begin(qp);
	spin_lock_irqsave(&qp->lock, flags);
	err = sroce_qp_check_transition(qp, attr, mask);
	if (!err)
		sroce_qp_modify_commit(qp, attr, mask, &m);
	spin_unlock_irqrestore(&qp->lock, flags);
	/* Entering RTS may start posted work; entering ERR flushes it. */
	if (!err && (mask & IB_QP_STATE) && !to_reset)
		sroce_task_sched(qp);
	if (to_reset)
		sroce_task_reset_end(qp, !err);
	sroce_qp_modify_release(qp, &m);
	return err;
}

/*
 * A connected QP whose peer is on this very device (its destination
 * address is its source address) needs no netdev: net.c loops its
 * packets back without a route.
 */
static bool sroce_qp_talks_to_self(struct sroce_qp *qp)
{
	unsigned long flags;
	bool self = false;

	if (qp->ibqp.qp_type != IB_QPT_RC && qp->ibqp.qp_type != IB_QPT_UC)
		return false;
	spin_lock_irqsave(&qp->lock, flags);
	switch (qp->state) {
	case IB_QPS_RTR:
	case IB_QPS_RTS:
	case IB_QPS_SQD:
	case IB_QPS_SQE:
		self = sroce_net_av_self(&qp->av);
		break;
	default:
		break;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	return self;
}

/**
 * sroce_qp_fail_all - the netdev is going away: fail the QPs that need it
 * @sdev: the device
 *
 * Nothing will leave or arrive on the netdev again, and ib_core is about
 * to remove the device. On the way its clients (nvme-rdma, nvmet-rdma,
 * rpcrdma) shut their connections down; with the QPs alive their last
 * messages would wait for the consumers' own timeouts (a minute and more
 * for NVMe), and the netdev's unregistration with them. In the error
 * state the QPs flush their work at once, as a NIC that lost its link for
 * good does. Two kinds stay: the GSI QP (ib_mad owns it and it goes with
 * the device), and connected QPs whose peer is on this device: they still
 * work, so a consumer with both ends here (NVMe-oF host and target, say)
 * finishes its I/O and shuts down cleanly instead of waiting for I/O
 * timeouts. No QP becomes ready again after this (sroce_qp_dev_gone()).
 *
 * Context: process context (the netdev notifier, under RTNL).
 */
void sroce_qp_fail_all(struct sroce_dev *sdev)
{
	struct sroce_pool_elem *elem;
	struct sroce_qp *qp;
	u32 i;

	WRITE_ONCE(sdev->netdev_gone, true);
	for (i = SROCE_MIN_QPN; (elem = sroce_pool_get_next(&sdev->qp_pool, &i)); i++) {
		qp = container_of(elem, struct sroce_qp, elem);
		if (!sroce_qp_talks_to_self(qp))
			sroce_task_qp_error(qp);
		sroce_pool_put(elem);
	}
}

static int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_qp_init_attr *init)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	if (qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC)
		sroce_av_to_attr(&qp->av, &attr->ah_attr);
	spin_unlock_irqrestore(&qp->lock, flags);

	sroce_qp_get_cap(qp, &attr->cap);
	memset(init, 0, sizeof(*init));
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = attr->cap;
	init->sq_sig_type = qp->sq_sig_type;
	init->qp_type = ibqp->qp_type;
	init->port_num = 1;
	return 0;
}

static int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);

	sroce_mcast_detach_all(sdev, qp);
	sroce_pool_unpublish(&sdev->qp_pool, &qp->elem);
	sroce_task_qp_stop(qp);
	sroce_pool_drop_and_wait(&qp->elem);
	sroce_task_qp_free(qp);
	sroce_qp_cleanup_rings(qp);
	return 0;
}

static int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			   const struct ib_recv_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	int err;

	/* User QPs post receives in user space; SRQ QPs post to the SRQ. */
	if (qp->is_user || qp->srq || sroce_qp_state(qp) == IB_QPS_RESET) {
		*bad_wr = wr;
		return -EINVAL;
	}
	err = sroce_post_recv_ring(&qp->rq, &qp->rq_lock, wr, qp->rq_max_sge,
				   bad_wr);
	if (sroce_qp_state(qp) == IB_QPS_ERR)
		sroce_task_sched(qp);	/* flush what was just posted */
	return err;
}

static int sroce_post_send_kernel(struct sroce_qp *qp,
				  const struct ib_send_wr *wr,
				  const struct ib_send_wr **bad_wr)
{
	bool ud = qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI;
	unsigned long flags;
	int err = 0;

	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		if (sroce_queue_full(&qp->sq)) {
			err = -ENOMEM;
			break;
		}
		err = sroce_send_wqe_from_wr(sroce_queue_producer_slot(&qp->sq),
					     wr, ud, qp->sq_max_sge,
					     qp->sq_max_inline);
		if (err)
			break;
		sroce_queue_advance_producer(&qp->sq);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/*
 * Kernel consumers post here; for a user QP this is the doorbell the rxe
 * provider rings after writing its send ring (wr == NULL).
 */
static int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad_wr)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	enum ib_qp_state state = sroce_qp_state(qp);
	int err = 0;

	if (state == IB_QPS_RESET || state == IB_QPS_INIT || state == IB_QPS_RTR) {
		*bad_wr = wr;
		return -EINVAL;
	}
	if (qp->is_user) {
		sroce_task_doorbell(qp);
		return 0;
	}
	err = sroce_post_send_kernel(qp, wr, bad_wr);
	sroce_task_sched(qp);
	return err;
}

const struct ib_device_ops sroce_qp_ops = {
	.create_qp = sroce_create_qp,
	.destroy_qp = sroce_destroy_qp,
	.modify_qp = sroce_modify_qp,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.query_qp = sroce_query_qp,
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
};
