// SPDX-License-Identifier: GPL-2.0
/*
 * The responder's READ and ATOMIC requests, and its duplicates (RC).
 *
 * Each READ or ATOMIC executed takes the oldest of the QP's responder
 * resources (allocated at the first RTR, resp.h) and keeps there what a
 * duplicate needs: a READ its PSNs and the range checked when it first
 * came, which is all a retry is ever sent again; an ATOMIC its PSN and the
 * value it returned, so it is answered again without being executed
 * twice. A duplicate SEND or WRITE is acknowledged again.
 *
 * A READ is answered over as many runs as its size takes (the budget
 * below); a retried READ that arrives meanwhile replaces the answer.
 */
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "counters.h"
#include "mr.h"
#include "mw.h"
#include "payload.h"
#include "pkt.h"
#include "psn.h"
#include "qp.h"
#include "resp.h"
#include "resp_res.h"
#include "task.h"
#include "txflow.h"
#include "wire.h"

/*
 * READ response bytes per engine run: bounded by bytes, not packets, so a
 * round costs about the same at every path MTU and other QPs get their turn.
 */
#define SROCE_READ_BUDGET	SZ_64K

static DEFINE_SPINLOCK(sroce_atomic_lock);	/* serialises all atomics */

/* The oldest resource, reused for a new READ or ATOMIC. */
static struct sroce_rd_res *sroce_res_new(struct sroce_qp *qp)
{
	struct sroce_rd_res *res = &qp->resp.res[qp->resp.res_head];

	qp->resp.res_head = (qp->resp.res_head + 1) % qp->resp.res_count;
	if (qp->resp.cur_read == res)
		qp->resp.cur_read = NULL;
	memset(res, 0, sizeof(*res));
	res->valid = true;
	return res;
}

/* The READ (@read) or ATOMIC resource whose PSNs hold @psn, or NULL. */
static struct sroce_rd_res *sroce_res_find(struct sroce_qp *qp, u32 psn,
					   bool read)
{
	int i;

	for (i = 0; i < qp->resp.res_count; i++) {
		struct sroce_rd_res *res = &qp->resp.res[i];
		bool is_read = res->opcode == SROCE_OP_RC_READ_REQUEST;

		if (!res->valid || is_read != read)
			continue;
		if (sroce_psn_in_range(psn, res->first_psn, res->last_psn))
			return res;
	}
	return NULL;
}

/*
 * A READ response packet with @len bytes at @va of @mr (NULL when @len is
 * 0): the payload by reference when it can go so (payload.h), else copied.
 * NULL when out of memory, or with *@err set when an ODP page is not
 * there.
 */
static struct sk_buff *sroce_resp_read_skb(struct sroce_qp *qp, u8 op,
					   struct sroce_mr *mr, u64 va,
					   u32 len, int *err)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(op);
	u32 psn = qp->resp.cur_read_psn;
	struct sk_buff *skb;

	*err = 0;
	if (mr && qp->ibqp.uobject && sroce_payload_by_ref(&qp->av, op, len)) {
		skb = sroce_resp_skb(qp, op, psn, 0);
		if (skb && !sroce_mr_attach(mr, va, skb, len)) {
			sroce_counter_inc(to_sdev(qp->ibqp.device),
					  SROCE_CNT_PAYLOAD_BY_REF);
			return skb;
		}
		kfree_skb(skb);		/* not a user MR: copy */
	}
	skb = sroce_resp_skb(qp, op, psn, len);
	if (!skb || !mr)
		return skb;
	*err = sroce_mr_copy(mr, va, skb->data + info->hdr_len, len,
			     SROCE_FROM_MR);
	if (*err) {
		kfree_skb(skb);
		return NULL;
	}
	return skb;
}

/* What sending the next response of a READ came to. */
enum sroce_read_step {
	SROCE_READ_MORE,	/* a response went, more are to come */
	SROCE_READ_OVER,	/* the last response went, or the READ failed */
	SROCE_READ_RETRY,	/* no packet buffer: try again on the next run */
};

/* Send the next response of the READ @res answers: @len bytes of it. */
static enum sroce_read_step sroce_resp_read_next(struct sroce_qp *qp,
						 struct sroce_rd_res *res,
						 u32 len, u32 mtu)
{
	bool first = qp->resp.cur_read_psn == res->first_psn;
	bool last = res->resid <= mtu;
	int op = sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_READ_RESP, first,
				     last);
	const struct sroce_opcode_info *info = sroce_opcode_info(op);
	struct sroce_mr *mr = NULL;
	struct sk_buff *skb;
	void *aeth;
	int err;

	if (len) {
		mr = sroce_rkey_resolve(to_sdev(qp->ibqp.device), qp, res->rkey,
					res->va, len, IB_ACCESS_REMOTE_READ);
		if (!mr)	/* invalidated meanwhile */
			return SROCE_READ_OVER;
	}
	skb = sroce_resp_read_skb(qp, op, mr, res->va, len, &err);
	if (mr)
		sroce_mr_put(mr);
	if (err) {	/* an ODP page is not there */
		sroce_send_ack(qp, SROCE_AETH_NAK_REM_ACCESS_ERR,
			       qp->resp.cur_read_psn);
		sroce_task_qp_error(qp);
		return SROCE_READ_OVER;
	}
	if (!skb)
		return SROCE_READ_RETRY;
	aeth = sroce_opcode_eth(info, skb->data, SROCE_ETH_AETH);
	if (aeth)
		sroce_aeth_set(aeth, sroce_ack_syn(), qp->resp.msn);
	sroce_txflow_track(qp, skb);
	sroce_resp_xmit(qp, skb);
	res->va += len;
	res->resid -= len;
	qp->resp.cur_read_psn = sroce_psn_next(qp->resp.cur_read_psn);
	return last ? SROCE_READ_OVER : SROCE_READ_MORE;
}

/**
 * sroce_resp_read_some - send the READ being answered, within a budget
 * @qp: the QP, from its receive side
 *
 * Return: true when the READ is finished (or there is none), false when
 * responses are left for a later run.
 */
bool sroce_resp_read_some(struct sroce_qp *qp)
{
	struct sroce_rd_res *res = qp->resp.cur_read;
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	u32 budget = SROCE_READ_BUDGET;
	enum sroce_read_step step;
	u32 len;

	sroce_side_assert_held(qp, SROCE_SIDE_RECV);
	while (res && budget) {
		if (sroce_txflow_full(qp))
			return false;	/* the last packet out wakes us */
		len = min(res->resid, mtu);
		step = sroce_resp_read_next(qp, res, len, mtu);
		if (step == SROCE_READ_RETRY)
			return false;
		if (step == SROCE_READ_OVER) {
			qp->resp.cur_read = NULL;
			return true;
		}
		budget -= min(budget, max(len, 1U));
	}
	return !res;
}

/*
 * Start answering a READ from @psn, for @len bytes at @va: either a new
 * request or a retransmitted one replayed from its saved resource.
 */
static void sroce_resp_start_read(struct sroce_qp *qp, struct sroce_rd_res *res,
				  u32 psn, u64 va, u32 len)
{
	res->va = va;
	res->resid = len;
	qp->resp.cur_read = res;
	qp->resp.cur_read_psn = psn;
	sroce_resp_read_some(qp);
}

/**
 * sroce_resp_read - execute a new READ request: check it, keep it, answer it
 * @qp: the QP, from its receive side
 * @skb: the request, with the expected PSN
 *
 * Return: SROCE_RESP_DONE, or the NAK it gets.
 */
enum sroce_resp_ret sroce_resp_read(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_reth *reth = sroce_pkt_eth(skb, SROCE_ETH_RETH);
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	u64 va = sroce_reth_va(reth);
	u32 len = sroce_reth_len(reth), rkey = sroce_reth_rkey(reth);
	struct sroce_rd_res *res;
	struct sroce_mr *mr;

	sroce_side_assert_held(qp, SROCE_SIDE_RECV);
	if (!sroce_qp_allows(qp, IB_ACCESS_REMOTE_READ) || !qp->resp.res)
		return SROCE_RESP_NAK_ACCESS;
	if (len) {
		mr = sroce_resp_mr(qp, rkey, va, len, IB_ACCESS_REMOTE_READ);
		if (!mr)
			return SROCE_RESP_NAK_ACCESS;
		sroce_mr_put(mr);
	}
	res = sroce_res_new(qp);
	res->opcode = SROCE_OP_RC_READ_REQUEST;
	res->first_psn = sroce_pkt(skb)->psn;
	res->last_psn = sroce_psn_add(res->first_psn,
				      max_t(u32, 1, DIV_ROUND_UP(len, mtu)) - 1);
	res->rkey = rkey;
	res->orig_va = va;
	res->orig_len = len;
	/* The READ counts as a message now (C9-148). */
	qp->resp.msn = sroce_psn_next(qp->resp.msn);
	qp->resp.psn = sroce_psn_next(res->last_psn);
	sroce_resp_start_read(qp, res, res->first_psn, va, len);
	return SROCE_RESP_DONE;
}

static void sroce_send_atomic_ack(struct sroce_qp *qp, u32 psn, u64 orig)
{
	struct sk_buff *skb = sroce_resp_skb(qp, SROCE_OP_RC_ATOMIC_ACKNOWLEDGE, psn, 0);
	const struct sroce_opcode_info *info =
		sroce_opcode_info(SROCE_OP_RC_ATOMIC_ACKNOWLEDGE);

	if (!skb)
		return;
	sroce_aeth_set(sroce_opcode_eth(info, skb->data, SROCE_ETH_AETH),
		       sroce_ack_syn(), qp->resp.msn);
	sroce_atmack_set(sroce_opcode_eth(info, skb->data, SROCE_ETH_ATMACK),
			 orig);
	sroce_resp_xmit(qp, skb);
}

/*
 * Compare-and-swap or fetch-and-add on 8 aligned bytes of an MR; the
 * original value goes to @orig. -EFAULT when an ODP page is not there.
 */
static int sroce_do_atomic(struct sroce_mr *mr, u64 va, u8 opcode,
			   u64 swap_add, u64 compare, u64 *orig)
{
	struct page *page;
	unsigned long flags;
	u64 *word, val;

	word = sroce_mr_map_word(mr, va, &page);
	if (!word)
		return -EFAULT;
	spin_lock_irqsave(&sroce_atomic_lock, flags);
	*orig = READ_ONCE(*word);
	if (opcode == SROCE_OP_RC_COMPARE_SWAP)
		val = *orig == compare ? swap_add : *orig;
	else
		val = *orig + swap_add;
	WRITE_ONCE(*word, val);
	spin_unlock_irqrestore(&sroce_atomic_lock, flags);
	sroce_mr_unmap_word(mr, word, page);
	return 0;
}

/**
 * sroce_resp_atomic - execute a new ATOMIC request once, keep its result
 * @qp: the QP, from its receive side
 * @skb: the request, with the expected PSN
 *
 * Return: SROCE_RESP_DONE, or the NAK it gets.
 */
enum sroce_resp_ret sroce_resp_atomic(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_atmeth *a = sroce_pkt_eth(skb, SROCE_ETH_ATMETH);
	u64 va = sroce_atmeth_va(a);
	struct sroce_rd_res *res;
	struct sroce_mr *mr;
	u64 orig;
	int err;

	sroce_side_assert_held(qp, SROCE_SIDE_RECV);
	if (!sroce_qp_allows(qp, IB_ACCESS_REMOTE_ATOMIC) || !qp->resp.res)
		return SROCE_RESP_NAK_ACCESS;
	if (va & 7)
		return SROCE_RESP_NAK_INV;
	mr = sroce_resp_mr(qp, sroce_atmeth_rkey(a), va, 8,
			   IB_ACCESS_REMOTE_ATOMIC);
	if (!mr)
		return SROCE_RESP_NAK_ACCESS;
	err = sroce_do_atomic(mr, va, sroce_pkt(skb)->opcode,
			      sroce_atmeth_swap_add(a), sroce_atmeth_compare(a),
			      &orig);
	sroce_mr_put(mr);
	if (err)
		return SROCE_RESP_NAK_ACCESS;
	res = sroce_res_new(qp);
	res->opcode = sroce_pkt(skb)->opcode;
	res->first_psn = sroce_pkt(skb)->psn;
	res->last_psn = res->first_psn;
	res->atomic_orig = orig;
	qp->resp.msn = sroce_psn_next(qp->resp.msn);
	qp->resp.psn = sroce_psn_next(res->first_psn);
	sroce_send_atomic_ack(qp, res->first_psn, res->atomic_orig);
	return SROCE_RESP_DONE;
}

/**
 * sroce_resp_atomic_write - execute an ATOMIC WRITE
 * @qp: the QP, from its receive side
 * @skb: the request, with the expected PSN
 *
 * 8 bytes placed in one store, under the lock of the other atomics, and
 * answered by a plain ACK: nothing is kept, a duplicate is acknowledged
 * like a WRITE.
 *
 * Return: SROCE_RESP_OK, or the NAK it gets.
 */
enum sroce_resp_ret sroce_resp_atomic_write(struct sroce_qp *qp,
					    struct sk_buff *skb)
{
	struct sroce_reth *reth = sroce_pkt_eth(skb, SROCE_ETH_RETH);
	u64 va = sroce_reth_va(reth);
	struct sroce_mr *mr;
	unsigned long flags;
	struct page *page;
	u64 *word;

	sroce_side_assert_held(qp, SROCE_SIDE_RECV);
	if (!sroce_qp_allows(qp, IB_ACCESS_REMOTE_WRITE))
		return SROCE_RESP_NAK_ACCESS;
	if ((va & 7) || sroce_pkt(skb)->paylen != 8)
		return SROCE_RESP_NAK_INV;
	mr = sroce_resp_mr(qp, sroce_reth_rkey(reth), va, 8,
			   IB_ACCESS_REMOTE_WRITE);
	if (!mr)
		return SROCE_RESP_NAK_ACCESS;
	word = sroce_mr_map_word(mr, va, &page);
	if (word) {
		spin_lock_irqsave(&sroce_atomic_lock, flags);
		memcpy(word, sroce_pkt_payload(skb), 8);
		spin_unlock_irqrestore(&sroce_atomic_lock, flags);
		sroce_mr_unmap_word(mr, word, page);
	}
	sroce_mr_put(mr);
	return word ? SROCE_RESP_OK : SROCE_RESP_NAK_ACCESS;
}

/**
 * sroce_resp_duplicate - answer a duplicate request again, never execute it
 * @qp: the RC QP, from its receive side
 * @skb: the request, older than the expected PSN
 */
void sroce_resp_duplicate(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_rd_res *res;

	sroce_side_assert_held(qp, SROCE_SIDE_RECV);
	sroce_counter_inc(to_sdev(qp->ibqp.device), SROCE_CNT_DUP_REQ);
	if (pkt->info->flags & SROCE_OPF_READ) {
		struct sroce_reth *reth = sroce_pkt_eth(skb, SROCE_ETH_RETH);
		u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
		u64 off;

		res = sroce_res_find(qp, pkt->psn, true);
		if (!res || sroce_reth_rkey(reth) != res->rkey)
			return;
		/*
		 * The retry asks for the tail of the original range that starts
		 * at its PSN; only that range, checked when it first came, is
		 * ever sent again, whatever this packet's RETH says.
		 */
		off = (u64)sroce_psn_diff(pkt->psn, res->first_psn) * mtu;
		if (off > res->orig_len)
			return;
		sroce_resp_start_read(qp, res, pkt->psn, res->orig_va + off,
				      res->orig_len - off);
		return;
	}
	if (pkt->info->flags & SROCE_OPF_ATOMIC) {
		res = sroce_res_find(qp, pkt->psn, false);
		if (res && res->first_psn == pkt->psn)
			sroce_send_atomic_ack(qp, pkt->psn, res->atomic_orig);
		return;
	}
	/* SEND or WRITE: acknowledge up to the last PSN executed (C9-105). */
	sroce_send_ack(qp, sroce_ack_syn(), sroce_psn_sub(qp->resp.psn, 1));
}

/* Take @skb off the head of the request queue if it is a retried READ. */
static struct sk_buff *sroce_resp_next_read_retry(struct sroce_qp *qp)
{
	struct sk_buff_head *q = &qp->req_pkts;
	struct sk_buff *skb;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	skb = skb_peek(q);
	if (skb && (sroce_pkt(skb)->info->flags & SROCE_OPF_READ) &&
	    sroce_psn_diff(sroce_pkt(skb)->psn, qp->resp.psn) < 0)
		__skb_unlink(skb, q);
	else
		skb = NULL;
	spin_unlock_irqrestore(&q->lock, flags);
	return skb;
}

/*
 * A retried READ that arrives while an answer is still being sent replaces
 * that answer: the requester went back to the retried PSN and drops every
 * response past it, so finishing the old answer first would only send the
 * whole range twice (and, on a slow link, make the next retry come sooner).
 */
void sroce_resp_read_retries(struct sroce_qp *qp)
{
	struct sk_buff *skb;

	sroce_side_assert_held(qp, SROCE_SIDE_RECV);
	if (qp->ibqp.qp_type != IB_QPT_RC || sroce_qp_state(qp) == IB_QPS_ERR)
		return;
	while ((skb = sroce_resp_next_read_retry(qp))) {
		sroce_resp_duplicate(qp, skb);
		sroce_task_consume(skb);
	}
}

/**
 * sroce_resp_res_reset - forget every READ and ATOMIC kept for duplicates
 * @qp: the QP entering RESET, its receive side held
 *
 * The resources stay allocated (their number is fixed at the first RTR);
 * a READ response in progress is abandoned with them.
 */
void sroce_resp_res_reset(struct sroce_qp *qp)
{
	sroce_side_assert_held(qp, SROCE_SIDE_RECV);
	qp->resp.cur_read = NULL;
	if (qp->resp.res)
		memset(qp->resp.res, 0,
		       qp->resp.res_count * sizeof(*qp->resp.res));
}
