// SPDX-License-Identifier: GPL-2.0
/*
 * The responder.
 *
 * RC: a request with the expected PSN is executed; an older one is a
 * duplicate (resp_res.c: SEND and WRITE are acknowledged again, a READ is
 * replayed, an ATOMIC is answered from the saved result and never executed
 * twice); a newer one means packets were lost and gets one PSN sequence
 * NAK.
 * UC: a gap drops the rest of the message. UD: no sequence at all.
 *
 * This file is the responder's main path: receive WQEs, SEND, RDMA
 * WRITE, UD, the sequence checks, acknowledgements and the flush; READ
 * and ATOMIC, whose answers are kept for duplicates, are in resp_res.c.
 *
 * Every remote address is checked (key, PD, access, range without
 * wrap-around) before a byte is placed, and every receive WQE is copied
 * out of the ring and validated before its SGEs are used.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>
#include <sroce/params.h>

#include "sroce.h"
#include "counters.h"
#include "cq.h"
#include "mr.h"
#include "mw.h"
#include "net.h"
#include "payload.h"
#include "pkt.h"
#include "psn.h"
#include "qp.h"
#include "resp.h"
#include "resp_res.h"
#include "srq.h"
#include "task.h"
#include "txflow.h"
#include "wire.h"

#define SROCE_GRH_BYTES		40
/* Requests per run: the round ends, and the runner can give way. */
#define SROCE_RESP_BUDGET	64
/* Receive WQEs flushed per round: a deep RQ in error goes over rounds. */
#define SROCE_RESP_FLUSH_BUDGET	256

static struct sroce_dev *qp_sdev(struct sroce_qp *qp)
{
	return to_sdev(qp->ibqp.device);
}

/*
 * A packet toward the requester: the headers of @opcode with the BTH filled
 * in, then room for @paylen bytes of payload, then the pad (zeroed).
 */
struct sk_buff *sroce_resp_skb(struct sroce_qp *qp, u8 opcode, u32 psn,
			       u32 paylen)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);
	u8 pad = sroce_pad_count(paylen);
	struct sk_buff *skb;

	skb = sroce_net_alloc(qp_sdev(qp), &qp->av, info->hdr_len + paylen + pad);
	if (!skb)
		return NULL;
	sroce_bth_init(sroce_pkt_bth_raw(skb), opcode, false, pad,
		       IB_DEFAULT_PKEY_FULL, qp->attr.dest_qp_num, false, psn);
	memset(skb->data + info->hdr_len + paylen, 0, pad);
	return skb;
}

void sroce_resp_xmit(struct sroce_qp *qp, struct sk_buff *skb)
{
	sroce_net_xmit(qp_sdev(qp), &qp->av, qp->src_port, skb,
		       sroce_txflow_route(qp));
}

void sroce_send_ack(struct sroce_qp *qp, u8 syn, u32 psn)
{
	struct sk_buff *skb = sroce_resp_skb(qp, SROCE_OP_RC_ACKNOWLEDGE, psn, 0);
	const struct sroce_opcode_info *info = sroce_opcode_info(SROCE_OP_RC_ACKNOWLEDGE);

	if (!skb)
		return;
	sroce_aeth_set(sroce_opcode_eth(info, skb->data, SROCE_ETH_AETH), syn,
		       qp->resp.msn);
	if (!sroce_aeth_syn_is_ack(syn))
		sroce_counter_inc(qp_sdev(qp), SROCE_CNT_NAK_SENT);
	sroce_resp_xmit(qp, skb);
}

/* Receive WQEs */

static struct sroce_queue *sroce_resp_rq(struct sroce_qp *qp, u32 *max_sge,
					 spinlock_t **lock)
{
	if (qp->srq) {
		*max_sge = qp->srq->max_sge;
		*lock = &qp->srq->lock;
		return &qp->srq->queue;
	}
	*max_sge = qp->rq_max_sge;
	*lock = &qp->rq_lock;
	return &qp->rq;
}

/*
 * Take the next receive WQE out of the RQ or SRQ into resp.rwqe, validated.
 * Return 0, -ENOENT when the queue is empty, -EINVAL for a malformed WQE
 * (which is consumed and completed with an error by the caller).
 */
static int sroce_resp_take_rwqe(struct sroce_qp *qp)
{
	struct rxe_recv_wqe *dst = qp->resp.rwqe;
	const struct rxe_recv_wqe *slot;
	struct sroce_queue *q;
	spinlock_t *lock;		/* the RQ's or the SRQ's */
	unsigned long flags;
	u32 max_sge, num_sge, i;
	u64 total = 0;
	int err = 0;

	q = sroce_resp_rq(qp, &max_sge, &lock);
	spin_lock_irqsave(lock, flags);
	if (sroce_queue_empty(q)) {
		spin_unlock_irqrestore(lock, flags);
		return -ENOENT;
	}
	slot = sroce_queue_consumer_slot(q);
	dst->wr_id = READ_ONCE(slot->wr_id);
	num_sge = READ_ONCE(slot->dma.num_sge);
	if (num_sge > max_sge) {
		num_sge = 0;
		err = -EINVAL;
	}
	memcpy(dst->dma.sge, slot->dma.sge, num_sge * sizeof(struct rxe_sge));
	sroce_queue_advance_consumer(q);
	spin_unlock_irqrestore(lock, flags);

	for (i = 0; i < num_sge; i++)
		total += dst->dma.sge[i].length;
	dst->dma.num_sge = num_sge;
	dst->dma.length = min_t(u64, total, U32_MAX);
	qp->resp.have_rwqe = true;
	qp->resp.rwqe_offset = 0;
	if (qp->srq)
		sroce_srq_check_limit(qp->srq);
	return err;
}

static void sroce_resp_complete(struct sroce_qp *qp, struct ib_wc *wc,
				bool solicited)
{
	wc->wr_id = qp->resp.rwqe->wr_id;
	wc->qp = &qp->ibqp;
	wc->port_num = 1;
	qp->resp.have_rwqe = false;
	if (sroce_cq_post(qp->rcq, wc, solicited))
		sroce_task_qp_error(qp);
	sroce_counter_inc(qp_sdev(qp), SROCE_CNT_RDMA_RECVS);
}

static void sroce_resp_complete_err(struct sroce_qp *qp,
				    enum ib_wc_status status)
{
	struct ib_wc wc = {
		.status = status,
		.opcode = IB_WC_RECV,
	};

	sroce_resp_complete(qp, &wc, false);
	sroce_task_qp_error(qp);
}

/*
 * Place @len bytes at the current offset of the receive WQE: @data, or,
 * when @data is NULL, the payload of @skb (which may be by reference).
 */
static int sroce_resp_place(struct sroce_qp *qp, const void *data, u32 len,
			    struct sk_buff *skb)
{
	struct rxe_recv_wqe *w = qp->resp.rwqe;
	u32 off = qp->resp.rwqe_offset;
	int err;

	if (len > w->dma.length - off)
		return -EMSGSIZE;
	if (data)
		err = sroce_sge_copy(qp_sdev(qp), qp->ibqp.pd, w->dma.sge,
				     w->dma.num_sge, off, (void *)data, len,
				     SROCE_TO_MR);
	else
		err = sroce_payload_to_sge(skb, qp_sdev(qp), qp->ibqp.pd,
					   w->dma.sge, w->dma.num_sge, off);
	if (!err)
		qp->resp.rwqe_offset += len;
	return err;
}

/* SEND */

static int sroce_resp_get_rwqe(struct sroce_qp *qp)
{
	int err;

	if (qp->resp.have_rwqe)
		return 0;
	err = sroce_resp_take_rwqe(qp);
	if (err == -EINVAL)
		sroce_resp_complete_err(qp, IB_WC_LOC_QP_OP_ERR);
	return err;
}

static void sroce_resp_send_done(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.byte_len = qp->resp.rwqe_offset,
	};
	void *eth;

	eth = sroce_pkt_eth(skb, SROCE_ETH_IMMDT);
	if (eth) {
		memcpy(&wc.ex.imm_data, eth, sizeof(wc.ex.imm_data));
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	eth = sroce_pkt_eth(skb, SROCE_ETH_IETH);
	if (eth) {
		wc.ex.invalidate_rkey = sroce_ieth_rkey(eth);
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
		if (sroce_key_invalidate(qp_sdev(qp), qp, wc.ex.invalidate_rkey,
					 true))
			wc.status = IB_WC_REM_INV_REQ_ERR;
	}
	sroce_resp_complete(qp, &wc, sroce_bth_se(sroce_pkt_bth(skb)) ||
			    pkt->info->flags & SROCE_OPF_LAST);
}

static enum sroce_resp_ret sroce_resp_send(struct sroce_qp *qp,
					   struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	int err;

	err = sroce_resp_get_rwqe(qp);
	if (err)
		return err == -ENOENT ? SROCE_RESP_RNR : SROCE_RESP_NAK_OP;
	err = sroce_resp_place(qp, NULL, pkt->paylen, skb);
	if (err) {
		sroce_resp_complete_err(qp, err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
					IB_WC_LOC_PROT_ERR);
		return err == -EMSGSIZE ? SROCE_RESP_NAK_INV : SROCE_RESP_NAK_OP;
	}
	if (pkt->info->flags & SROCE_OPF_LAST)
		sroce_resp_send_done(qp, skb);
	return SROCE_RESP_OK;
}

/* UD and GSI: GRH first, then the datagram, in one receive WQE. */
static void sroce_resp_grh(struct sk_buff *skb, u8 *grh)
{
	memset(grh, 0, SROCE_GRH_BYTES);
	if (ip_hdr(skb)->version == 4)
		memcpy(grh + SROCE_GRH_BYTES - sizeof(struct iphdr), ip_hdr(skb),
		       sizeof(struct iphdr));
	else
		memcpy(grh, ipv6_hdr(skb), sizeof(struct ipv6hdr));
}

static void sroce_resp_ud(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_deth *deth = sroce_pkt_eth(skb, SROCE_ETH_DETH);
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.wc_flags = IB_WC_GRH,
	};
	u8 grh[SROCE_GRH_BYTES];
	void *imm;

	if (sroce_resp_get_rwqe(qp)) {
		sroce_counter_inc(qp_sdev(qp), SROCE_CNT_SND_RNR_ERR);
		return;
	}
	sroce_resp_grh(skb, grh);
	if (sroce_resp_place(qp, grh, sizeof(grh), NULL) ||
	    sroce_resp_place(qp, NULL, pkt->paylen, skb)) {
		qp->resp.rwqe_offset = 0;
		wc.status = IB_WC_LOC_LEN_ERR;
	}
	wc.byte_len = qp->resp.rwqe_offset;
	wc.src_qp = sroce_deth_sqp(deth);
	imm = sroce_pkt_eth(skb, SROCE_ETH_IMMDT);
	if (imm) {
		memcpy(&wc.ex.imm_data, imm, sizeof(wc.ex.imm_data));
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	wc.network_hdr_type = pkt->net_type;
	wc.wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
	sroce_resp_complete(qp, &wc, sroce_bth_se(sroce_pkt_bth(skb)));
}

/* RDMA WRITE */

/**
 * sroce_resp_mr - the MR a request's rkey lets it reach
 * @qp: the QP, from its receive side
 * @rkey: the request's rkey
 * @va: the first byte the request touches
 * @len: how many bytes from @va it touches
 * @access: the IB_ACCESS_REMOTE_* right it needs
 *
 * One place for every request that names an rkey (WRITE, READ, ATOMIC,
 * ATOMIC WRITE), so that each refusal is counted as rkey_violation alike.
 *
 * Return: a reference on the MR (sroce_mr_put() it), or NULL, counted:
 * the request gets a remote access error NAK.
 */
struct sroce_mr *sroce_resp_mr(struct sroce_qp *qp, u32 rkey, u64 va, u64 len,
			       int access)
{
	struct sroce_mr *mr;

	sroce_side_assert_held(qp, SROCE_SIDE_RECV);
	mr = sroce_rkey_resolve(qp_sdev(qp), qp, rkey, va, len, access);
	if (!mr)
		sroce_counter_inc(qp_sdev(qp), SROCE_CNT_RKEY_VIOLATION);
	return mr;
}

static enum sroce_resp_ret sroce_resp_write(struct sroce_qp *qp,
					    struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_reth *reth = sroce_pkt_eth(skb, SROCE_ETH_RETH);
	struct sroce_rkey_ref *wr = &qp->resp.write;
	struct sroce_mr *mr;
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	int err;

	if (reth) {
		if (!sroce_qp_allows(qp, IB_ACCESS_REMOTE_WRITE))
			return SROCE_RESP_NAK_ACCESS;
		wr->va = sroce_reth_va(reth);
		wr->rkey = sroce_reth_rkey(reth);
		wr->resid = sroce_reth_len(reth);
		wr->len = wr->resid;
		/* The whole message must fit before its first byte lands. */
		if (wr->len) {
			mr = sroce_resp_mr(qp, wr->rkey, wr->va, wr->len,
					   IB_ACCESS_REMOTE_WRITE);
			if (!mr)
				return SROCE_RESP_NAK_ACCESS;
			sroce_mr_put(mr);
		}
	}
	if (pkt->paylen > wr->resid ||
	    (!(pkt->info->flags & SROCE_OPF_LAST) && pkt->paylen != mtu) ||
	    ((pkt->info->flags & SROCE_OPF_LAST) && pkt->paylen != wr->resid))
		return SROCE_RESP_NAK_INV;
	if (!pkt->paylen)
		return SROCE_RESP_OK;
	mr = sroce_resp_mr(qp, wr->rkey, wr->va, pkt->paylen,
			   IB_ACCESS_REMOTE_WRITE);
	if (!mr)
		return SROCE_RESP_NAK_ACCESS;
	err = sroce_payload_to_mr(skb, mr, wr->va);
	sroce_mr_put(mr);
	if (err)	/* an ODP page is not there */
		return SROCE_RESP_NAK_ACCESS;
	wr->va += pkt->paylen;
	wr->resid -= pkt->paylen;
	return SROCE_RESP_OK;
}

/* RDMA WRITE with immediate completes a receive WQE with no data in it. */
static enum sroce_resp_ret sroce_resp_write_imm(struct sroce_qp *qp,
						struct sk_buff *skb)
{
	struct ib_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV_RDMA_WITH_IMM,
		.wc_flags = IB_WC_WITH_IMM,
	};

	memcpy(&wc.ex.imm_data, sroce_pkt_eth(skb, SROCE_ETH_IMMDT),
	       sizeof(wc.ex.imm_data));
	/* byte_len: the whole WRITE, which the RETH of its first packet gave. */
	wc.byte_len = qp->resp.write.len;
	sroce_resp_complete(qp, &wc, true);
	return SROCE_RESP_OK;
}

/* Dispatch */

/* Is @pkt a legal next packet given the message in progress? */
static bool sroce_resp_seq_ok(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	u32 kind = pkt->info->flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE);

	if (pkt->info->flags & SROCE_OPF_FIRST)
		return !qp->resp.in_msg;
	return qp->resp.in_msg && qp->resp.in_msg == kind;
}

static enum sroce_resp_ret sroce_resp_execute(struct sroce_qp *qp,
					      struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	u32 f = pkt->info->flags;
	enum sroce_resp_ret ret;

	if (f & SROCE_OPF_SEND)
		return sroce_resp_send(qp, skb);
	if (f & SROCE_OPF_READ)
		return sroce_resp_read(qp, skb);
	if (f & SROCE_OPF_ATOMIC)
		return sroce_resp_atomic(qp, skb);
	if (f & SROCE_OPF_ATOMIC_WRITE)
		return sroce_resp_atomic_write(qp, skb);
	/* RDMA WRITE; with immediate, make sure of a receive WQE first. */
	if ((f & SROCE_OPF_IMMDT) && sroce_resp_get_rwqe(qp))
		return qp->resp.have_rwqe ? SROCE_RESP_NAK_OP : SROCE_RESP_RNR;
	ret = sroce_resp_write(qp, skb);
	if (ret == SROCE_RESP_OK && (f & SROCE_OPF_IMMDT))
		ret = sroce_resp_write_imm(qp, skb);
	return ret;
}

static u8 sroce_nak_syn(struct sroce_qp *qp, enum sroce_resp_ret ret)
{
	switch (ret) {
	case SROCE_RESP_RNR:
		return sroce_aeth_syn_rnr(qp->attr.min_rnr_timer);
	case SROCE_RESP_NAK_INV:
		return SROCE_AETH_NAK_INVALID_REQ;
	case SROCE_RESP_NAK_ACCESS:
		return SROCE_AETH_NAK_REM_ACCESS_ERR;
	default:
		return SROCE_AETH_NAK_REM_OP_ERR;
	}
}

/* After executing a packet: advance, acknowledge or NAK. */
static void sroce_resp_finish(struct sroce_qp *qp, struct sk_buff *skb,
			      enum sroce_resp_ret ret)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	u32 f = pkt->info->flags;

	if (ret == SROCE_RESP_DONE)
		return;
	if (ret != SROCE_RESP_OK) {
		if (ret == SROCE_RESP_RNR)
			sroce_counter_inc(qp_sdev(qp), SROCE_CNT_SND_RNR_ERR);
		if (rc)
			sroce_send_ack(qp, sroce_nak_syn(qp, ret), pkt->psn);
		if (ret != SROCE_RESP_RNR) {
			qp->resp.in_msg = 0;
			if (rc)
				sroce_task_qp_error(qp);
		}
		if (!rc)	/* UC: the rest of this message is lost */
			qp->resp.drop_msg = !(f & SROCE_OPF_LAST);
		return;
	}
	qp->resp.psn = sroce_psn_next(pkt->psn);
	qp->resp.in_msg = (f & SROCE_OPF_LAST) ? 0 :
			  f & (SROCE_OPF_SEND | SROCE_OPF_WRITE);
	if (f & SROCE_OPF_LAST)
		qp->resp.msn = sroce_psn_next(qp->resp.msn);
	if (rc && (sroce_bth_ackreq(sroce_pkt_bth(skb)) ||
		   (f & SROCE_OPF_ATOMIC_WRITE)))
		sroce_send_ack(qp, sroce_ack_syn(), pkt->psn);
}

/* RC: where does @pkt fall relative to the expected PSN? */
static bool sroce_resp_rc_sequence(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	s32 diff = sroce_psn_diff(pkt->psn, qp->resp.psn);

	if (diff < 0) {
		sroce_resp_duplicate(qp, skb);
		return false;
	}
	if (diff > 0) {
		sroce_counter_inc(qp_sdev(qp), SROCE_CNT_OUT_OF_SEQ_REQ);
		if (!qp->resp.nak_sent) {
			qp->resp.nak_sent = true;
			sroce_send_ack(qp, SROCE_AETH_NAK_PSN_SEQ_ERR,
				       qp->resp.psn);
		}
		return false;
	}
	qp->resp.nak_sent = false;
	return true;
}

/* UC: a gap loses the message; a FIRST or ONLY starts afresh. */
static bool sroce_resp_uc_sequence(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	bool first = pkt->info->flags & SROCE_OPF_FIRST;

	if (pkt->psn != qp->resp.psn || qp->resp.drop_msg) {
		if (!first) {
			qp->resp.drop_msg = true;
			qp->resp.psn = sroce_psn_next(pkt->psn);
			return false;
		}
		qp->resp.drop_msg = false;
		qp->resp.in_msg = 0;
		qp->resp.rwqe_offset = 0;
		qp->resp.psn = pkt->psn;
	}
	if (first && qp->resp.in_msg) {	/* the previous message lost its end */
		qp->resp.in_msg = 0;
		qp->resp.rwqe_offset = 0;
	}
	return true;
}

static void sroce_resp_packet(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);

	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI)
		return sroce_resp_ud(qp, skb);
	if (qp->ibqp.qp_type == IB_QPT_RC ? !sroce_resp_rc_sequence(qp, skb) :
					    !sroce_resp_uc_sequence(qp, skb))
		return;
	if (!sroce_resp_seq_ok(qp, pkt)) {
		if (qp->ibqp.qp_type == IB_QPT_RC)
			sroce_resp_finish(qp, skb, SROCE_RESP_NAK_INV);
		else
			qp->resp.drop_msg = true;
		return;
	}
	sroce_resp_finish(qp, skb, sroce_resp_execute(qp, skb));
}

/**
 * sroce_resp_run - execute the queued requests, within a budget
 * @qp: the QP, from its work item
 *
 * Return: true when it did anything.
 */
bool sroce_resp_run(struct sroce_qp *qp)
{
	struct sk_buff *skb;
	bool progress = false;
	int budget = SROCE_RESP_BUDGET;

	sroce_side_assert_held(qp, SROCE_SIDE_RECV);
	/*
	 * A READ being answered finishes before later requests run, unless
	 * the requester retried a READ meanwhile.
	 */
	if (qp->resp.cur_read) {
		sroce_resp_read_retries(qp);
		if (!sroce_resp_read_some(qp))
			return !sroce_txflow_throttled(qp);
		progress = true;
	}
	while (budget-- > 0 && !qp->resp.cur_read &&
	       (skb = skb_dequeue(&qp->req_pkts))) {
		if (sroce_qp_takes_packets(qp))
			sroce_resp_packet(qp, skb);
		sroce_task_consume(skb);
		progress = true;
	}
	return progress;
}

/* Flush one receive WQE of the RQ with IB_WC_WR_FLUSH_ERR. */
static bool sroce_flush_rq_one(struct sroce_qp *qp)
{
	const struct rxe_recv_wqe *slot;
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
		.port_num = 1,
	};

	if (sroce_queue_empty(&qp->rq))
		return false;
	slot = sroce_queue_consumer_slot(&qp->rq);
	wc.wr_id = READ_ONCE(slot->wr_id);
	sroce_queue_advance_consumer(&qp->rq);
	sroce_cq_post(qp->rcq, &wc, false);
	return true;
}

/* The receive WQE being filled completes as flushed. */
static bool sroce_resp_flush_rwqe(struct sroce_qp *qp)
{
	struct ib_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
	};

	qp->resp.cur_read = NULL;
	if (!qp->resp.have_rwqe)
		return false;
	wc.wr_id = qp->resp.rwqe->wr_id;
	wc.qp = &qp->ibqp;
	wc.port_num = 1;
	qp->resp.have_rwqe = false;
	sroce_cq_post(qp->rcq, &wc, false);
	return true;
}

/*
 * IBA 10.3.1 and 11.6.3: a QP on an SRQ that enters the error state
 * reports the affiliated Last WQE Reached event once it will take no more
 * WQEs from the SRQ. Its consumer waits for it before destroying the QP:
 * 6.12's ib_drain_qp() waits up to a minute, so without it every NVMe-oF
 * target queue on an SRQ takes that minute to go.  Called after the flush
 * of the one WQE this QP held; no packet is taken in ERR.
 */
static void sroce_resp_last_wqe_reached(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_QP_LAST_WQE_REACHED,
	};

	if (!qp->srq || qp->resp.last_wqe_reported)
		return;
	qp->resp.last_wqe_reported = true;
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * sroce_resp_flush - complete the receive work of a QP in error
 * @qp: the QP, from its receive side
 *
 * Return: true when anything was flushed.
 */
bool sroce_resp_flush(struct sroce_qp *qp)
{
	int budget = SROCE_RESP_FLUSH_BUDGET;
	bool any;

	sroce_side_assert_held(qp, SROCE_SIDE_RECV);
	any = sroce_resp_flush_rwqe(qp);
	while (!qp->srq && budget-- > 0 && sroce_flush_rq_one(qp))
		any = true;
	sroce_resp_last_wqe_reached(qp);
	return any;
}
