// SPDX-License-Identifier: GPL-2.0
/*
 * What "rdma resource show qp -dd" prints for a QP beyond the core's
 * fields: the transport engine's state, so that a QP that stopped moving
 * can be read without a debugger (which side waits for what). Values are
 * read without the engine's serialisation: a snapshot, possibly torn.
 */
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "qp.h"
#include "restrack.h"
#include "txflow.h"

static int sroce_res_put_send(struct sk_buff *msg, struct sroce_qp *qp)
{
	if (rdma_nl_put_driver_u32(msg, "sq_cons", READ_ONCE(qp->sq.cons)) ||
	    rdma_nl_put_driver_u32(msg, "sq_prod", sroce_queue_prod(&qp->sq)) ||
	    rdma_nl_put_driver_u32(msg, "req_index", READ_ONCE(qp->req.index)) ||
	    rdma_nl_put_driver_u32(msg, "req_snap", READ_ONCE(qp->req.snap)) ||
	    rdma_nl_put_driver_u32(msg, "req_psn", READ_ONCE(qp->req.psn)) ||
	    rdma_nl_put_driver_u32(msg, "req_offset", READ_ONCE(qp->req.offset)) ||
	    rdma_nl_put_driver_u32(msg, "comp_psn", READ_ONCE(qp->comp.psn)) ||
	    rdma_nl_put_driver_u32(msg, "rd_atomic", READ_ONCE(qp->req.rd_atomic)) ||
	    rdma_nl_put_driver_u32(msg, "retry_left", READ_ONCE(qp->req.retry_cnt)) ||
	    rdma_nl_put_driver_u32(msg, "rnr_wait", READ_ONCE(qp->rnr_wait)) ||
	    rdma_nl_put_driver_u32(msg, "tx_throttled",
				   sroce_txflow_throttled(qp)) ||
	    rdma_nl_put_driver_u32(msg, "txflow", READ_ONCE(qp->txflow_id)) ||
	    rdma_nl_put_driver_u32(msg, "retry_timer",
				   timer_pending(&qp->retry_timer)) ||
	    rdma_nl_put_driver_u32(msg, "rnr_timer",
				   timer_pending(&qp->rnr_timer)))
		return -EMSGSIZE;
	return 0;
}

static int sroce_res_put_engine(struct sk_buff *msg, struct sroce_qp *qp)
{
	if (rdma_nl_put_driver_u32(msg, "resp_psn", READ_ONCE(qp->resp.psn)) ||
	    rdma_nl_put_driver_u32(msg, "nak_sent", READ_ONCE(qp->resp.nak_sent)) ||
	    rdma_nl_put_driver_u32(msg, "req_pkts_queued",
				   skb_queue_len_lockless(&qp->req_pkts)) ||
	    rdma_nl_put_driver_u32(msg, "resp_pkts_queued",
				   skb_queue_len_lockless(&qp->resp_pkts)) ||
	    rdma_nl_put_driver_u32(msg, "send_side_busy",
				   test_bit(0, &qp->side[SROCE_SIDE_SEND].busy)) ||
	    rdma_nl_put_driver_u32(msg, "recv_side_busy",
				   test_bit(0, &qp->side[SROCE_SIDE_RECV].busy)) ||
	    rdma_nl_put_driver_u32(msg, "work_pending",
				   work_pending(&qp->work)))
		return -EMSGSIZE;
	return 0;
}

/**
 * sroce_fill_res_qp_entry - the engine's state for "rdma res show qp -dd"
 * @msg: the netlink message
 * @ibqp: the QP
 *
 * Return: 0 or -EMSGSIZE.
 */
int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp *qp = to_sqp(ibqp);
	struct nlattr *table;

	if (ibqp->qp_type == IB_QPT_GSI)
		return 0;
	/* The tool reads a driver's attributes from this table only. */
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (sroce_res_put_send(msg, qp) || sroce_res_put_engine(msg, qp)) {
		nla_nest_cancel(msg, table);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, table);
	return 0;
}
