// SPDX-License-Identifier: GPL-2.0
/*
 * The completer.
 *
 * Send WQEs finish in PSN order. An acknowledgment for PSN p finishes
 * every SEND and WRITE whose last PSN is at most p; a READ or ATOMIC
 * finishes only with its response, so an acknowledgment past one whose
 * response is missing means that response was lost, and the requester
 * goes back to it. A WQE that finished is completed (a CQE if it was
 * signalled or failed) once every older WQE has been.
 */
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <sroce/params.h>

#include "sroce.h"
#include "compat.h"
#include "comp.h"
#include "counters.h"
#include "cq.h"
#include "mr.h"
#include "payload.h"
#include "pkt.h"
#include "psn.h"
#include "qp.h"
#include "req.h"
#include "resp.h"
#include "task.h"
#include "wire.h"

/* Responses per run: the round ends, and the requester and other QPs run. */
#define SROCE_COMP_BUDGET	64
/* Send WQEs flushed per round: a deep SQ in error is flushed over rounds. */
#define SROCE_COMP_FLUSH_BUDGET	256

/*
 * On by default: on a lossy link a full window resent after every loss
 * is what keeps an overloaded receiver dropping (window.h). A QP that
 * loses nothing keeps the full window, so a lossless link never sees it;
 * off restores the fixed window at run time, to compare the two in one
 * boot.
 */
static bool adaptive_window = true;
module_param(adaptive_window, bool, 0644);
MODULE_PARM_DESC(adaptive_window,
		 "Halve an RC QP's send window on loss, grow it back on ACKs (default Y)");

/* IBTA RNR NAK timer field -> microseconds. */
static const u32 sroce_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* libibverbs' completion opcode for ATOMIC_WRITE (6.1 has no kernel one). */
#define SROCE_WC_ATOMIC_WRITE	9

static enum ib_wc_opcode sroce_wc_opcode(u32 wr_opcode)
{
	switch (wr_opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	case IB_UVERBS_WR_ATOMIC_WRITE:
		return SROCE_WC_ATOMIC_WRITE;
	default:
		return IB_WC_SEND;
	}
}

/* Post the completion of a send WQE; false if the CQ overflowed. */
static bool sroce_comp_cqe(struct sroce_qp *qp, u64 wr_id, u32 wr_opcode,
			   enum ib_wc_status status, u32 byte_len, bool signaled)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = status,
		.opcode = sroce_wc_opcode(wr_opcode),
		.byte_len = byte_len,
		.qp = &qp->ibqp,
		.port_num = 1,
	};

	if (status == IB_WC_SUCCESS && !signaled)
		return true;
	return !sroce_cq_post(qp->scq, &wc, false);
}

static bool sroce_signaled(struct sroce_qp *qp, struct sroce_swqe *w)
{
	return qp->sq_sig_type == IB_SIGNAL_ALL_WR ||
	       (w->send_flags & IB_SEND_SIGNALED);
}

/**
 * sroce_comp_retire - complete the finished WQEs at the head of the SQ
 * @qp: the QP, from its work item
 *
 * A failed WQE moves the QP to the error state after its completion.
 */
void sroce_comp_retire(struct sroce_qp *qp)
{
	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	while (qp->sq.cons != qp->req.snap) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->sq.cons);
		bool ok;

		if (w->state != SROCE_SWQE_DONE)
			break;
		if (qp->req.index == qp->sq.cons)
			qp->req.index = (qp->req.index + 1) & qp->sq.index_mask;
		/*
		 * Free the slot before the completion is visible: a program
		 * that posts again as soon as it sees the CQE must find room.
		 */
		sroce_queue_advance_consumer(&qp->sq);
		ok = sroce_comp_cqe(qp, w->wr_id, w->opcode, w->status,
				    w->length, sroce_signaled(qp, w));
		if (w->status != IB_WC_SUCCESS || !ok) {
			sroce_task_qp_error(qp);
			break;
		}
	}
}

static unsigned long sroce_timeout_jiffies(struct sroce_qp *qp)
{
	u64 usecs = 4096ULL << qp->attr.timeout;	/* 4.096 us * 2^t, in ns */

	usecs = div_u64(usecs, 1000);
	/* Emulated hosts stall for milliseconds: never time out faster. */
	return max(usecs_to_jiffies(usecs), msecs_to_jiffies(20));
}

/*
 * A tail-loss probe: when nothing came back for a quarter of the transport
 * timeout (but at least two jiffies) since the last progress, the last
 * packet sent goes out again asking for an ACK, once; the timeout proper
 * follows at its usual time. A loss at the end of a burst leaves nothing
 * after it to make the responder NAK, and between two emulated hosts,
 * where the end of a burst is what a full receive ring drops, the QP
 * would otherwise sit idle for the whole timeout each time. The probe
 * costs one packet when nothing was lost (the responder answers the
 * duplicate with an ACK, which also recovers lost ACKs) and is no retry:
 * it counts in tail_probe, not completer_retry_err.
 */
static bool tail_probe = true;
module_param(tail_probe, bool, 0644);
MODULE_PARM_DESC(tail_probe,
		 "Resend an RC QP's last packet a quarter of a transport timeout after the last progress, before the timeout (default Y)");

static unsigned long sroce_probe_jiffies(struct sroce_qp *qp)
{
	return max(sroce_timeout_jiffies(qp) / 4, 2UL);
}

/* Fire the transport timer @t jiffies from now, unless the QP is going. */
static void sroce_comp_timer_in(struct sroce_qp *qp, unsigned long t)
{
	if (!READ_ONCE(qp->dead))
		mod_timer(&qp->retry_timer, jiffies + t);
}

/*
 * (Re)start the transport timer while packets wait for acknowledgment:
 * it fires first for the tail probe, unless that was sent already.
 */
void sroce_comp_arm_timer(struct sroce_qp *qp)
{
	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	if (!qp->attr.timeout)
		return;
	sroce_comp_timer_in(qp, qp->comp.probed || !READ_ONCE(tail_probe) ?
			    sroce_timeout_jiffies(qp) : sroce_probe_jiffies(qp));
}

static bool sroce_comp_pending(struct sroce_qp *qp)
{
	u32 i;

	for (i = qp->sq.cons; i != qp->req.snap; i = (i + 1) & qp->sq.index_mask)
		if (sroce_swqe_at(qp, i)->state == SROCE_SWQE_PENDING)
			return true;
	return false;
}

/* Progress was made: the retry budgets (and the tail probe) start again. */
static void sroce_comp_progress(struct sroce_qp *qp)
{
	qp->req.retry_cnt = qp->attr.retry_cnt;
	qp->req.retry_since = 0;
	qp->req.rnr_retry = qp->attr.rnr_retry;
	qp->comp.probed = false;
	if (sroce_comp_pending(qp))
		sroce_comp_arm_timer(qp);
	else
		del_timer(&qp->retry_timer);
}

static void sroce_wqe_finish(struct sroce_qp *qp, struct sroce_swqe *w,
			     enum ib_wc_status status)
{
	if (w->state == SROCE_SWQE_DONE)
		return;
	if (sroce_is_rd_atomic(w->opcode) && qp->req.rd_atomic)
		qp->req.rd_atomic--;
	w->status = status;
	w->state = SROCE_SWQE_DONE;
}

/* The responder has everything before @psn, a PSN after comp.psn. */
static void sroce_comp_advance(struct sroce_qp *qp, u32 psn)
{
	sroce_window_acked(&qp->req.window, sroce_psn_diff(psn, qp->comp.psn));
	qp->comp.psn = psn;
}

/*
 * Everything up to @psn (inclusive if @incl) was received by the
 * responder. Returns the first READ/ATOMIC that should have been answered
 * by then but was not (its response was lost), or NULL.
 */
static struct sroce_swqe *sroce_comp_ack_upto(struct sroce_qp *qp, u32 psn,
					      bool incl)
{
	u32 next = incl ? sroce_psn_next(psn) : psn;
	u32 i;

	if (sroce_psn_after(next, qp->req.psn))
		sroce_req_skip_acked(qp, next);
	for (i = qp->sq.cons; i != qp->req.snap; i = (i + 1) & qp->sq.index_mask) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);

		if (w->state == SROCE_SWQE_DONE)
			continue;
		if (w->state != SROCE_SWQE_PENDING)
			break;
		if (incl ? sroce_psn_after(w->last_psn, psn) :
			   !sroce_psn_before(w->last_psn, psn))
			break;
		if (sroce_is_rd_atomic(w->opcode))
			return w;
		/* A SEND or WRITE not fully sent yet is not acknowledged. */
		if (i == qp->req.index)
			break;
		sroce_wqe_finish(qp, w, IB_WC_SUCCESS);
	}
	if (sroce_psn_after(next, qp->comp.psn))
		sroce_comp_advance(qp, next);
	return NULL;
}

/* The oldest WQE still waiting for the responder. */
static struct sroce_swqe *sroce_comp_oldest(struct sroce_qp *qp)
{
	u32 i;

	for (i = qp->sq.cons; i != qp->req.snap; i = (i + 1) & qp->sq.index_mask) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);

		if (w->state == SROCE_SWQE_PENDING)
			return w;
		if (w->state == SROCE_SWQE_POSTED)
			return NULL;
	}
	return NULL;
}

static u32 sroce_read_next_psn(struct sroce_qp *qp, struct sroce_swqe *w)
{
	u32 mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);

	return sroce_psn_add(w->first_psn, w->read_done / mtu);
}

/* @psn was lost: shrink the window (once per loss event), resend from it. */
static void sroce_comp_resend(struct sroce_qp *qp, u32 psn)
{
	if (READ_ONCE(adaptive_window) &&
	    sroce_window_loss(&qp->req.window, psn, qp->req.psn_hi))
		sroce_counter_inc(to_sdev(qp->ibqp.device), SROCE_CNT_WINDOW_CUT);
	sroce_req_rewind(qp, psn);
}

/* Send again from @psn: a NAK asked for it, or a response was lost. */
static void sroce_comp_go_back(struct sroce_qp *qp, u32 psn)
{
	qp->comp.went_back = true;
	qp->comp.back_psn = psn;
	sroce_counter_inc(to_sdev(qp->ibqp.device), SROCE_CNT_RCV_SEQ_ERR);
	sroce_comp_resend(qp, psn);
}

/*
 * A READ response lost from a burst shows in every response after it, so
 * go back once per lost PSN, not once per packet that shows the loss:
 * each go-back resends every outstanding READ request, and a responder
 * that answers each of them in full (rdma_rxe does) floods the link that
 * just dropped a packet with responses to requests it has answered
 * already. Should the answer to the repeated request be lost too, the
 * transport timer goes back once the burst has ended
 * (sroce_comp_timeout()). A NAK is the responder asking, once per gap,
 * and is always followed.
 */
static void sroce_comp_lost_response(struct sroce_qp *qp, struct sroce_swqe *w)
{
	u32 psn = w->opcode == IB_WR_RDMA_READ ? sroce_read_next_psn(qp, w) :
						  w->first_psn;

	if (qp->comp.went_back && qp->comp.back_psn == psn)
		return;
	sroce_comp_go_back(qp, psn);
}

static void sroce_comp_read_resp(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_swqe *w, *lost;
	int err;

	/* Responses to a READ acknowledge everything before it. */
	lost = sroce_comp_ack_upto(qp, pkt->psn, false);
	w = sroce_comp_oldest(qp);
	if (lost && lost != w)
		return sroce_comp_lost_response(qp, lost);
	if (!w || w->opcode != IB_WR_RDMA_READ ||
	    !sroce_psn_in_range(pkt->psn, w->first_psn, w->last_psn))
		return;
	if (pkt->psn != sroce_read_next_psn(qp, w)) {
		if (sroce_psn_after(pkt->psn, sroce_read_next_psn(qp, w)))
			sroce_comp_lost_response(qp, w);
		return;		/* an older response again: a duplicate */
	}
	if (pkt->paylen > w->length - w->read_done)
		return sroce_wqe_finish(qp, w, IB_WC_LOC_LEN_ERR);
	err = sroce_payload_to_sge(skb, to_sdev(qp->ibqp.device), qp->ibqp.pd,
				   sroce_swqe_sge(w), w->num_sge, w->read_done);
	if (err)
		return sroce_wqe_finish(qp, w, IB_WC_LOC_PROT_ERR);
	w->read_done += pkt->paylen;
	if (pkt->info->flags & SROCE_OPF_LAST) {
		sroce_wqe_finish(qp, w, w->read_done == w->length ?
				 IB_WC_SUCCESS : IB_WC_LOC_LEN_ERR);
		sroce_comp_advance(qp, sroce_psn_next(w->last_psn));
	}
	sroce_comp_progress(qp);
}

static void sroce_comp_atomic_ack(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	struct sroce_swqe *w, *lost;
	u64 orig;
	int err;

	lost = sroce_comp_ack_upto(qp, pkt->psn, false);
	w = sroce_comp_oldest(qp);
	if (lost && lost != w)
		return sroce_comp_lost_response(qp, lost);
	if (!w || w->first_psn != pkt->psn ||
	    (w->opcode != IB_WR_ATOMIC_CMP_AND_SWP &&
	     w->opcode != IB_WR_ATOMIC_FETCH_AND_ADD))
		return;
	orig = sroce_atmack_orig(sroce_pkt_eth(skb, SROCE_ETH_ATMACK));
	err = sroce_sge_copy(to_sdev(qp->ibqp.device), qp->ibqp.pd,
			     sroce_swqe_sge(w), w->num_sge, 0, &orig,
			     sizeof(orig), SROCE_TO_MR);
	sroce_wqe_finish(qp, w, err ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS);
	sroce_comp_advance(qp, sroce_psn_next(pkt->psn));
	sroce_comp_progress(qp);
}

/* The WQE that holds @psn, among those sent. */
static struct sroce_swqe *sroce_comp_wqe_of(struct sroce_qp *qp, u32 psn)
{
	u32 i;

	for (i = qp->sq.cons; i != qp->req.snap; i = (i + 1) & qp->sq.index_mask) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);

		if (w->state == SROCE_SWQE_PENDING &&
		    sroce_psn_in_range(psn, w->first_psn, w->last_psn))
			return w;
	}
	return NULL;
}

static void sroce_comp_rnr(struct sroce_qp *qp, u32 psn, u8 timer)
{
	struct sroce_swqe *w = sroce_comp_wqe_of(qp, psn);

	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	sroce_counter_inc(to_sdev(qp->ibqp.device), SROCE_CNT_RCV_RNR_ERR);
	if (!w)
		return;
	if (!qp->req.rnr_retry) {
		sroce_counter_inc(to_sdev(qp->ibqp.device),
				  SROCE_CNT_RNR_RETRY_EXCEEDED);
		return sroce_wqe_finish(qp, w, IB_WC_RNR_RETRY_EXC_ERR);
	}
	if (qp->req.rnr_retry != 7)	/* 7 means retry forever */
		qp->req.rnr_retry--;
	sroce_req_rewind(qp, psn);
	WRITE_ONCE(qp->rnr_wait, true);
	del_timer(&qp->retry_timer);
	mod_timer(&qp->rnr_timer,
		  jiffies + usecs_to_jiffies(sroce_rnr_usecs[timer & 31]));
}

static void sroce_comp_nak(struct sroce_qp *qp, u32 psn, u8 code)
{
	struct sroce_swqe *w = sroce_comp_wqe_of(qp, psn);
	enum ib_wc_status status;

	if (code == SROCE_AETH_NAK_PSN_SEQ_ERR)
		return sroce_comp_go_back(qp, psn);
	if (!w)
		return;
	switch (code) {
	case SROCE_AETH_NAK_INVALID_REQ:
		status = IB_WC_REM_INV_REQ_ERR;
		break;
	case SROCE_AETH_NAK_REM_ACCESS_ERR:
		status = IB_WC_REM_ACCESS_ERR;
		break;
	default:
		status = IB_WC_REM_OP_ERR;
		break;
	}
	sroce_wqe_finish(qp, w, status);
}

static void sroce_comp_ack(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	u8 syn = sroce_aeth_syn(sroce_pkt_eth(skb, SROCE_ETH_AETH));
	struct sroce_swqe *lost;

	if (sroce_aeth_syn_is_ack(syn)) {
		lost = sroce_comp_ack_upto(qp, pkt->psn, true);
		if (lost)
			sroce_comp_lost_response(qp, lost);
		sroce_comp_progress(qp);
		return;
	}
	/* A NAK acknowledges everything before the PSN it names. */
	lost = sroce_comp_ack_upto(qp, pkt->psn, false);
	if (lost)
		return sroce_comp_lost_response(qp, lost);
	if (sroce_aeth_syn_is_rnr(syn))
		sroce_comp_rnr(qp, pkt->psn, sroce_aeth_syn_value(syn));
	else
		sroce_comp_nak(qp, pkt->psn, syn);
}

static void sroce_comp_packet(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);

	if (qp->ibqp.qp_type != IB_QPT_RC)
		return;
	/*
	 * Responses to PSNs never sent are bogus. Sent means up to the
	 * highest PSN sent, not the resend position: after a go-back the
	 * responder acknowledges what it had received before, and a window
	 * cut by the timeout keeps the resend short of it. Dropping that ACK
	 * would leave the QP resending the same few PSNs until its retries
	 * ran out; sroce_comp_ack_upto() moves the requester past what such
	 * an ACK covers.
	 */
	if (!sroce_psn_before(pkt->psn, qp->req.psn_hi))
		return;
	if (pkt->info->flags & SROCE_OPF_ATMACK)
		sroce_comp_atomic_ack(qp, skb);
	else if (pkt->opcode == SROCE_OP_RC_ACKNOWLEDGE)
		sroce_comp_ack(qp, skb);
	else
		sroce_comp_read_resp(qp, skb);
}

/*
 * retry_cnt counts retransmissions as the IBA has it: 7 is seven, not "for
 * ever" (only rnr_retry has that meaning), so a QP whose peer is gone
 * completes its oldest WQE with IB_WC_RETRY_EXC_ERR instead of holding its
 * user (NVMe-oF's teardown, say) until a timeout of its own.  But an
 * emulated peer can stall for longer than eight timeouts at the 20 ms
 * floor of sroce_timeout_jiffies(): the give-up also waits until this long
 * after the first timeout.  The IBA's timeout is a minimum, so a later
 * give-up is within it.
 */
static unsigned int retry_floor_ms = 4000;
module_param(retry_floor_ms, uint, 0644);
MODULE_PARM_DESC(retry_floor_ms,
		 "Give up retransmitting (IB_WC_RETRY_EXC_ERR) no sooner than this many ms after the first transport timeout (default 4000)");

static bool sroce_comp_retries_left(struct sroce_qp *qp)
{
	unsigned long now = jiffies | 1;	/* 0 means "no timeout yet" */

	if (!qp->req.retry_since)
		qp->req.retry_since = now;
	if (qp->req.retry_cnt) {
		qp->req.retry_cnt--;
		return true;
	}
	return time_before(now, qp->req.retry_since +
			   msecs_to_jiffies(READ_ONCE(retry_floor_ms)));
}

/*
 * The timer fired early, for the tail probe: send it when the requester
 * is not resending already and no READ or atomic is outstanding (its
 * request is no packet to repeat lightly: the responder executes a
 * duplicate READ again). Either way the timeout proper is next.
 */
static bool sroce_comp_probe(struct sroce_qp *qp)
{
	if (qp->comp.probed || !READ_ONCE(tail_probe))
		return false;
	qp->comp.probed = true;
	if (qp->req.psn == qp->req.psn_hi && qp->req.psn_hi != qp->comp.psn &&
	    !qp->req.rd_atomic) {
		sroce_counter_inc(to_sdev(qp->ibqp.device), SROCE_CNT_TAIL_PROBE);
		sroce_req_probe(qp);
	}
	sroce_comp_timer_in(qp, sroce_timeout_jiffies(qp) -
			    sroce_probe_jiffies(qp));
	return true;
}

/* The transport timer fired: go back, or give up when out of retries. */
static void sroce_comp_timeout(struct sroce_qp *qp)
{
	struct sroce_swqe *w = sroce_comp_oldest(qp);
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);

	if (!w || sroce_comp_probe(qp))
		return;
	if (!sroce_comp_retries_left(qp)) {
		sroce_counter_inc(sdev, SROCE_CNT_RETRY_EXCEEDED);
		sroce_wqe_finish(qp, w, IB_WC_RETRY_EXC_ERR);
		return;
	}
	sroce_counter_inc(sdev, SROCE_CNT_COMP_RETRY);
	qp->comp.went_back = false;
	/*
	 * From the first PSN not acknowledged, as the IBA has it, not from
	 * the WQE's start: a 1 MiB message is 1,024 packets, and resending
	 * the part the responder has acknowledged ahead of the packet it
	 * lacks makes that packet the likeliest to be dropped again by a
	 * receiver that is already overloaded.
	 */
	sroce_comp_resend(qp, w->opcode == IB_WR_RDMA_READ ?
			  sroce_read_next_psn(qp, w) : qp->comp.psn);
	sroce_comp_arm_timer(qp);
}

/**
 * sroce_comp_run - handle what the responder sent back, and timeouts
 * @qp: the QP, from its work item
 *
 * Return: true when it did anything.
 */
bool sroce_comp_run(struct sroce_qp *qp)
{
	struct sk_buff *skb;
	bool progress = false;
	int budget = SROCE_COMP_BUDGET;

	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	while (budget-- > 0 && (skb = skb_dequeue(&qp->resp_pkts))) {
		if (sroce_qp_takes_packets(qp))
			sroce_comp_packet(qp, skb);
		sroce_task_consume(skb);
		progress = true;
	}
	if (READ_ONCE(qp->retry_timer_fired)) {
		WRITE_ONCE(qp->retry_timer_fired, false);
		/*
		 * Responses were waiting when the timer fired: the peer is
		 * answering, so this is no timeout; wait a full period again.
		 */
		if (progress)
			sroce_comp_arm_timer(qp);
		else if (sroce_qp_state(qp) == IB_QPS_RTS)
			sroce_comp_timeout(qp);
		progress = true;
	}
	if (progress)
		sroce_comp_retire(qp);
	return progress;
}

/* Flush one send WQE, copied or still in the ring. */
static bool sroce_flush_sq_one(struct sroce_qp *qp)
{
	const struct rxe_send_wqe *slot;
	u64 wr_id;
	u32 opcode;

	if (qp->sq.cons != qp->req.snap) {
		struct sroce_swqe *w = sroce_swqe_at(qp, qp->sq.cons);

		wr_id = w->wr_id;
		opcode = w->opcode;
		qp->req.index = qp->req.snap;
	} else if (!sroce_queue_empty(&qp->sq)) {
		slot = sroce_queue_consumer_slot(&qp->sq);
		wr_id = READ_ONCE(slot->wr.wr_id);
		opcode = READ_ONCE(slot->wr.opcode);
		qp->req.snap = (qp->req.snap + 1) & qp->sq.index_mask;
		qp->req.index = qp->req.snap;
	} else {
		return false;
	}
	sroce_queue_advance_consumer(&qp->sq);
	sroce_comp_cqe(qp, wr_id, opcode, IB_WC_WR_FLUSH_ERR, 0, true);
	return true;
}

/**
 * sroce_comp_flush - complete the send work of a QP in error
 * @qp: the QP, from its send side
 *
 * Return: true when anything was flushed.
 */
bool sroce_comp_flush(struct sroce_qp *qp)
{
	bool any = false;
	int budget = SROCE_COMP_FLUSH_BUDGET;

	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	del_timer(&qp->retry_timer);
	qp->req.rd_atomic = 0;
	while (budget-- > 0 && sroce_flush_sq_one(qp))
		any = true;
	return any;
}

void sroce_retry_timer_fn(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, retry_timer);

	WRITE_ONCE(qp->retry_timer_fired, true);
	sroce_task_sched(qp);
}

void sroce_rnr_timer_fn(struct timer_list *t)
{
	struct sroce_qp *qp = from_timer(qp, t, rnr_timer);

	WRITE_ONCE(qp->rnr_wait, false);
	sroce_task_sched(qp);
}
