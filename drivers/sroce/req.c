// SPDX-License-Identifier: GPL-2.0
/*
 * The requester: turns send WQEs into packets.
 *
 * Indices into the send ring, oldest first:
 *   sq.cons    oldest WQE not yet completed (the completer moves it)
 *   req.index  WQE being sent
 *   req.snap   next WQE to copy out of the ring
 *   producer   where the poster writes next
 * WQEs in [sq.cons, req.snap) have a validated copy (struct sroce_swqe);
 * the ring slots of those WQEs are never read again.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <sroce/params.h>

#include "sroce.h"
#include "compat.h"
#include "av.h"
#include "comp.h"
#include "counters.h"
#include "fault.h"
#include "mr.h"
#include "mw.h"
#include "net.h"
#include "opcode.h"
#include "payload.h"
#include "pkt.h"
#include "psn.h"
#include "qp.h"
#include "req.h"
#include "task.h"
#include "txflow.h"
#include "window.h"
#include "wire.h"

/* Packets one run of the requester sends before yielding. */
#define SROCE_REQ_BUDGET	64

/*
 * WQE copies kept in flight by the requester: at most this many, and at
 * first only a few. The requester doubles the array when a QP keeps more
 * WQEs in flight (sroce_req_fill()), so an idle or lightly used QP does
 * not pay for 128 copies.
 */
#define SROCE_MAX_INFLIGHT_WQES	128
#define SROCE_FIRST_INFLIGHT_WQES	2

static size_t sroce_swqe_size(u32 max_sge, u32 max_inline)
{
	return sizeof(struct sroce_swqe) +
	       max_t(size_t, max_sge * sizeof(struct rxe_sge), max_inline);
}

/**
 * sroce_swqes_init - the first array of WQE copies of a QP being created
 * @qp: the QP, its send queue set up
 *
 * Context: process context.
 * Return: 0 or -ENOMEM (sroce_swqes_free() then undoes it).
 */
int sroce_swqes_init(struct sroce_qp *qp)
{
	u32 n = min_t(u32, qp->sq.index_mask + 1, SROCE_MAX_INFLIGHT_WQES);
	size_t elem = roundup_pow_of_two(sroce_swqe_size(qp->sq_max_sge,
							  qp->sq_max_inline));

	qp->swqe_max = n;
	n = min_t(u32, n, SROCE_FIRST_INFLIGHT_WQES);
	qp->swqe_mask = n - 1;
	qp->swqe_shift = ilog2(elem);
	if (((size_t)n << qp->swqe_shift) <= sizeof(qp->swqe_first))
		qp->swqes = qp->swqe_first;
	else
		qp->swqes = sroce_kvzalloc((size_t)n << qp->swqe_shift,
					   GFP_KERNEL);
	return qp->swqes ? 0 : -ENOMEM;
}

struct sroce_swqe *sroce_swqe_at(struct sroce_qp *qp, u32 index)
{
	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	return (struct sroce_swqe *)(qp->swqes +
		((size_t)(index & qp->swqe_mask) << qp->swqe_shift));
}

/* Free the array of WQE copies unless it is the one inside the QP. */
void sroce_swqes_free(struct sroce_qp *qp)
{
	if (qp->swqes != qp->swqe_first)
		kvfree(qp->swqes);
}

static u32 sroce_qp_mtu(struct sroce_qp *qp)
{
	if (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) {
		struct sroce_dev *sdev = to_sdev(qp->ibqp.device);

		return ib_mtu_enum_to_int(READ_ONCE(sdev->active_mtu));
	}
	return ib_mtu_enum_to_int(qp->attr.path_mtu);
}

static enum sroce_qpt sroce_req_qpt(struct sroce_qp *qp)
{
	if (qp->ibqp.qp_type == IB_QPT_RC)
		return SROCE_QPT_RC;
	if (qp->ibqp.qp_type == IB_QPT_UC)
		return SROCE_QPT_UC;
	return SROCE_QPT_UD;
}

static bool sroce_opcode_allowed(struct sroce_qp *qp, u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return true;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_LOCAL_INV:
	case IB_WR_BIND_MW:
		return qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC;
	case IB_WR_REG_MR:
		return !qp->is_user && (qp->ibqp.qp_type == IB_QPT_RC ||
					qp->ibqp.qp_type == IB_QPT_UC);
	case IB_WR_SEND_WITH_INV:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_UVERBS_WR_ATOMIC_WRITE:
		return qp->ibqp.qp_type == IB_QPT_RC;
	default:
		return false;
	}
}

static bool sroce_is_local_op(u32 opcode)
{
	return opcode == IB_WR_LOCAL_INV || opcode == IB_WR_REG_MR ||
	       opcode == IB_WR_BIND_MW;
}

/* The opcode-specific part of a WQE, from the kernel's copy of the slot. */
static void sroce_swqe_copy_wr(struct sroce_swqe *w, const struct rxe_send_wqe *s)
{
	w->wr_id = s->wr.wr_id;
	w->opcode = s->wr.opcode;
	w->send_flags = s->wr.send_flags;
	w->ex.imm_data = s->wr.ex.imm_data;
	switch (w->opcode) {
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		w->remote_addr = s->wr.wr.atomic.remote_addr;
		w->compare_add = s->wr.wr.atomic.compare_add;
		w->swap = s->wr.wr.atomic.swap;
		w->rkey = s->wr.wr.atomic.rkey;
		break;
	case IB_WR_BIND_MW:
		w->bind.addr = s->wr.wr.mw.addr;
		w->bind.length = s->wr.wr.mw.length;
		w->bind.mr_lkey = s->wr.wr.mw.mr_lkey;
		w->bind.mw_rkey = s->wr.wr.mw.mw_rkey;
		w->bind.new_rkey = s->wr.wr.mw.rkey;
		w->bind.access = s->wr.wr.mw.access;
		break;
	case IB_WR_REG_MR:
		w->reg_mr = s->wr.wr.reg.mr;
		w->reg_key = s->wr.wr.reg.key;
		w->reg_access = s->wr.wr.reg.access;
		break;
	default:
		w->remote_addr = s->wr.wr.rdma.remote_addr;
		w->rkey = s->wr.wr.rdma.rkey;
		w->remote_qpn = s->wr.wr.ud.remote_qpn & SROCE_MAX_QPN;
		w->remote_qkey = s->wr.wr.ud.remote_qkey;
		break;
	}
}

/* UD: the address vector, from the user's AH number or the kernel's copy. */
static int sroce_swqe_ud_av(struct sroce_qp *qp, struct sroce_swqe *w,
			    const struct rxe_send_wqe *s)
{
	struct sroce_ah *ah;

	if (!qp->is_user) {
		w->av = s->wr.wr.ud.av;
		return 0;
	}
	ah = sroce_ah_get(to_sdev(qp->ibqp.device), s->wr.wr.ud.ah_num);
	if (!ah)
		return -EINVAL;
	if (ah->ibah.pd != qp->ibqp.pd) {
		sroce_ah_put(ah);
		return -EINVAL;
	}
	w->av = ah->av;
	sroce_ah_put(ah);
	return 0;
}

/* Gather list or inline data, sized by the kernel's copy of num_sge. */
static int sroce_swqe_copy_data(struct sroce_qp *qp, struct sroce_swqe *w,
				const struct rxe_send_wqe *slot, u32 dma_length,
				u32 num_sge)
{
	u64 total = 0;
	u32 i;

	/* rdma-core puts ATOMIC_WRITE's 8 bytes where inline data goes. */
	if (w->opcode == IB_UVERBS_WR_ATOMIC_WRITE) {
		w->is_inline = true;
		memcpy(w->data, slot->dma.inline_data, 8);
		w->length = 8;
		return 0;
	}
	if (w->send_flags & IB_SEND_INLINE) {
		if (dma_length > qp->sq_max_inline)
			return -EINVAL;
		w->is_inline = true;
		memcpy(w->data, slot->dma.inline_data, dma_length);
		w->length = dma_length;
		return 0;
	}
	if (num_sge > qp->sq_max_sge)
		return -EINVAL;
	memcpy(w->data, slot->dma.sge, num_sge * sizeof(struct rxe_sge));
	w->num_sge = num_sge;
	/* The length is what the SGEs add up to, whatever the slot says. */
	for (i = 0; i < num_sge; i++)
		total += sroce_swqe_sge(w)[i].length;
	if (total > SROCE_MAX_MSG_SIZE)
		return -EINVAL;
	w->length = total;
	return 0;
}

static int sroce_swqe_check(struct sroce_qp *qp, struct sroce_swqe *w)
{
	if (!sroce_opcode_allowed(qp, w->opcode))
		return -EINVAL;
	if ((w->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	     w->opcode == IB_WR_ATOMIC_FETCH_AND_ADD) && w->length < 8)
		return -EINVAL;
	if (w->opcode == IB_UVERBS_WR_ATOMIC_WRITE && w->length != 8)
		return -EINVAL;
	if ((qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI) &&
	    w->length > sroce_qp_mtu(qp))
		return -EMSGSIZE;
	return 0;
}

/*
 * Copy the WQE at @index out of the ring into its swqe and validate the
 * copy. A WQE that fails is completed with an error, as the verbs say.
 */
static void sroce_req_copy_wqe(struct sroce_qp *qp, u32 index)
{
	const struct rxe_send_wqe *slot = sroce_queue_slot(&qp->sq, index);
	struct sroce_swqe *w = sroce_swqe_at(qp, index);
	struct rxe_send_wqe hdr;
	int err;

	memcpy(&hdr, slot, sizeof(hdr));
	memset(w, 0, sizeof(*w));
	sroce_swqe_copy_wr(w, &hdr);
	w->state = SROCE_SWQE_POSTED;
	w->status = IB_WC_SUCCESS;

	err = sroce_swqe_copy_data(qp, w, slot, hdr.dma.length, hdr.dma.num_sge);
	if (!err && (qp->ibqp.qp_type == IB_QPT_UD || qp->ibqp.qp_type == IB_QPT_GSI))
		err = sroce_swqe_ud_av(qp, w, &hdr);
	if (!err)
		err = sroce_swqe_check(qp, w);
	if (err) {
		w->status = err == -EMSGSIZE ? IB_WC_LOC_LEN_ERR :
					       IB_WC_LOC_QP_OP_ERR;
		w->state = SROCE_SWQE_DONE;
	}
}

static int sroce_local_inv(struct sroce_qp *qp, struct sroce_swqe *w)
{
	return sroce_key_invalidate(to_sdev(qp->ibqp.device), qp,
				    w->ex.invalidate_rkey, false);
}

/* IB_WR_REG_MR: make a fast-registration MR valid with its new key. */
static int sroce_reg_mr(struct sroce_qp *qp, struct sroce_swqe *w)
{
	struct sroce_mr *mr = to_smr(w->reg_mr);

	if (mr->type != SROCE_MR_FAST_REG || mr->ibmr.pd != qp->ibqp.pd ||
	    (w->reg_key >> 8) != (mr->key.key >> 8))
		return -EINVAL;
	mr->access = w->reg_access;
	mr->ibmr.lkey = w->reg_key;
	mr->ibmr.rkey = w->reg_key;
	WRITE_ONCE(mr->key.key, w->reg_key);
	WRITE_ONCE(mr->state, SROCE_MR_VALID);
	return 0;
}

static void sroce_req_local_op(struct sroce_qp *qp, struct sroce_swqe *w)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	int err;

	switch (w->opcode) {
	case IB_WR_LOCAL_INV:
		err = sroce_local_inv(qp, w);
		break;
	case IB_WR_REG_MR:
		err = sroce_reg_mr(qp, w);
		break;
	default:
		err = sroce_mw_bind(sdev, qp, &w->bind);
		break;
	}
	if (err)
		w->status = w->opcode == IB_WR_BIND_MW ? IB_WC_MW_BIND_ERR :
							 IB_WC_LOC_PROT_ERR;
	w->state = SROCE_SWQE_DONE;
}

static enum sroce_wr_op sroce_wr_op(u32 opcode)
{
	switch (opcode) {
	case IB_WR_SEND_WITH_IMM:
		return SROCE_WR_SEND_WITH_IMM;
	case IB_WR_SEND_WITH_INV:
		return SROCE_WR_SEND_WITH_INV;
	case IB_WR_RDMA_WRITE:
		return SROCE_WR_RDMA_WRITE;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return SROCE_WR_RDMA_WRITE_WITH_IMM;
	case IB_WR_RDMA_READ:
		return SROCE_WR_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return SROCE_WR_ATOMIC_CMP_AND_SWP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return SROCE_WR_ATOMIC_FETCH_AND_ADD;
	case IB_UVERBS_WR_ATOMIC_WRITE:
		return SROCE_WR_ATOMIC_WRITE;
	default:
		return SROCE_WR_SEND;
	}
}

/* PSNs a WQE uses: one per packet, a READ one per response packet. */
static u32 sroce_wqe_npsn(struct sroce_swqe *w, u32 mtu)
{
	if (w->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    w->opcode == IB_WR_ATOMIC_FETCH_AND_ADD ||
	    w->opcode == IB_UVERBS_WR_ATOMIC_WRITE)
		return 1;
	return max_t(u32, 1, DIV_ROUND_UP(w->length, mtu));
}

static void sroce_fill_eths(struct sroce_qp *qp, struct sroce_swqe *w,
			    struct sk_buff *skb, const struct sroce_opcode_info *info,
			    u32 offset)
{
	void *bth = skb->data;
	void *eth;

	eth = sroce_opcode_eth(info, bth, SROCE_ETH_RETH);
	if (eth)
		sroce_reth_set(eth, w->remote_addr + offset, w->rkey,
			       w->length - offset);
	eth = sroce_opcode_eth(info, bth, SROCE_ETH_ATMETH);
	if (eth)
		sroce_atmeth_set(eth, w->remote_addr, w->rkey, w->swap,
				 w->compare_add);
	/* For a compare-and-swap the swap value and the compare value. */
	if (eth && w->opcode == IB_WR_ATOMIC_FETCH_AND_ADD)
		sroce_atmeth_set(eth, w->remote_addr, w->rkey, w->compare_add, 0);
	eth = sroce_opcode_eth(info, bth, SROCE_ETH_IMMDT);
	if (eth)
		memcpy(eth, &w->ex.imm_data, sizeof(w->ex.imm_data));
	eth = sroce_opcode_eth(info, bth, SROCE_ETH_IETH);
	if (eth)
		sroce_ieth_set(eth, w->ex.invalidate_rkey);
	eth = sroce_opcode_eth(info, bth, SROCE_ETH_DETH);
	if (eth)
		sroce_deth_set(eth, (w->remote_qkey & 0x80000000) ?
			       qp->attr.qkey : w->remote_qkey, sroce_qpn(qp));
}

static int sroce_fill_payload(struct sroce_qp *qp, struct sroce_swqe *w,
			      void *dst, u32 offset, u32 len)
{
	if (!len)
		return 0;
	if (w->is_inline) {
		memcpy(dst, w->data + offset, len);
		return 0;
	}
	return sroce_sge_copy(to_sdev(qp->ibqp.device), qp->ibqp.pd,
			      sroce_swqe_sge(w), w->num_sge, offset, dst, len,
			      SROCE_FROM_MR);
}

/*
 * A packet of @w with its payload by reference (payload.h), or NULL to
 * build it with a copy: the memory is not all a user MR's, or a bad key
 * that the copy will report.
 */
static struct sk_buff *sroce_req_by_ref(struct sroce_qp *qp,
					struct sroce_swqe *w,
					const struct rxe_av *av, u8 opcode,
					u32 offset, u32 paylen)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	struct sk_buff *skb;

	/* A kernel QP's memory may be slab, never to be referenced. */
	if (w->is_inline || !qp->ibqp.uobject ||
	    !sroce_payload_by_ref(av, opcode, paylen))
		return NULL;
	skb = sroce_net_alloc(sdev, av, info->hdr_len);
	if (!skb)
		return NULL;
	if (sroce_sge_attach(sdev, qp->ibqp.pd, sroce_swqe_sge(w), w->num_sge,
			     offset, skb, paylen)) {
		kfree_skb(skb);
		return NULL;
	}
	sroce_counter_inc(sdev, SROCE_CNT_PAYLOAD_BY_REF);
	return skb;
}

/*
 * Build and send one packet of @w at @offset. Return 0, or -EAGAIN when
 * out of memory (try again later), or -EACCES for a bad local key.
 */
static int sroce_req_packet(struct sroce_qp *qp, struct sroce_swqe *w,
			    u8 opcode, u32 offset, u32 paylen, bool ackreq)
{
	const struct sroce_opcode_info *info = sroce_opcode_info(opcode);
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	bool connected = qp->ibqp.qp_type == IB_QPT_RC ||
			 qp->ibqp.qp_type == IB_QPT_UC;
	/* Connected QPs use their path; datagrams carry their own address. */
	const struct rxe_av *av = connected ? &qp->av : &w->av;
	u32 dqpn = connected ? qp->attr.dest_qp_num : w->remote_qpn;
	u8 pad = sroce_pad_count(paylen);
	bool se = (info->flags & SROCE_OPF_LAST) &&
		  (w->send_flags & IB_SEND_SOLICITED);
	struct sk_buff *skb;
	int err;

	skb = sroce_req_by_ref(qp, w, av, opcode, offset, paylen);
	if (!skb) {
		skb = sroce_net_alloc(sdev, av, info->hdr_len + paylen + pad);
		if (!skb)
			return -EAGAIN;
		err = sroce_fill_payload(qp, w, skb->data + info->hdr_len,
					 offset, paylen);
		if (err) {
			kfree_skb(skb);
			return -EACCES;
		}
		memset(skb->data + info->hdr_len + paylen, 0, pad);
	}
	sroce_bth_init(sroce_pkt_bth_raw(skb), opcode, se, pad,
		       IB_DEFAULT_PKEY_FULL, dqpn, ackreq, qp->req.psn);
	sroce_fill_eths(qp, w, skb, info, offset);
	sroce_txflow_track(qp, skb);
	sroce_net_xmit(sdev, av, qp->src_port, skb, sroce_txflow_route(qp));
	return 0;
}

/* Begin a WQE: PSN range and, for RC, the retry bookkeeping. */
static void sroce_req_start(struct sroce_qp *qp, struct sroce_swqe *w, u32 mtu)
{
	w->first_psn = qp->req.psn;
	w->last_psn = sroce_psn_add(qp->req.psn, sroce_wqe_npsn(w, mtu) - 1);
	qp->req.offset = 0;
	if (sroce_is_rd_atomic(w->opcode))
		qp->req.rd_atomic++;
}

/* The first packet of @w could not be sent: as if it had not begun. */
static void sroce_req_unstart(struct sroce_qp *qp, struct sroce_swqe *w)
{
	if (sroce_is_rd_atomic(w->opcode))
		qp->req.rd_atomic--;
}

/*
 * No memory for a packet (GFP_ATOMIC): pause the requester for a jiffy,
 * as after an RNR NAK. Returning with nothing to wake the QP would stall
 * it (UD and UC have no retry timer, RC none before its first packet);
 * rescheduling at once would spin on an allocator with nothing to give.
 */
static void sroce_req_back_off(struct sroce_qp *qp)
{
	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	WRITE_ONCE(qp->rnr_wait, true);
	mod_timer(&qp->rnr_timer, jiffies + 1);
}

/* The next PSN to send is @psn; a resend never lowers the highest sent. */
static void sroce_req_set_psn(struct sroce_qp *qp, u32 psn)
{
	qp->req.psn = psn;
	if (sroce_psn_after(psn, qp->req.psn_hi))
		qp->req.psn_hi = psn;
}

/*
 * Send the next packet of @w. Returns 1 when the WQE is fully sent, 0 when
 * more packets follow, negative on error.
 */
static int sroce_req_step(struct sroce_qp *qp, struct sroce_swqe *w, u32 mtu)
{
	enum sroce_qpt qpt = sroce_req_qpt(qp);
	bool rc = qpt == SROCE_QPT_RC;
	bool single = w->opcode == IB_WR_RDMA_READ ||
		      w->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
		      w->opcode == IB_WR_ATOMIC_FETCH_AND_ADD ||
		      w->opcode == IB_UVERBS_WR_ATOMIC_WRITE;
	u32 left = w->length - qp->req.offset;
	/* READ and ATOMIC requests carry no payload; ATOMIC WRITE its 8 bytes. */
	u32 paylen = w->opcode == IB_UVERBS_WR_ATOMIC_WRITE ? 8 :
		     single ? 0 : min(left, mtu);
	bool first = qp->req.offset == 0;
	bool last = single || left <= mtu;
	bool ackreq;
	int opcode, err;

	/* A resumed READ asks again for what is still missing. */
	if (w->opcode == IB_WR_RDMA_READ)
		first = last = true;
	opcode = sroce_opcode_select(qpt, sroce_wr_op(w->opcode), first, last);
	if (opcode < 0)
		return -EINVAL;
	ackreq = rc && (last || ++qp->req.noack_pkts >=
				   sroce_window_ack_every(&qp->req.window));
	if (ackreq)
		qp->req.noack_pkts = 0;
	err = sroce_req_packet(qp, w, opcode, qp->req.offset, paylen, ackreq);
	if (err)
		return err;

	if (w->opcode == IB_WR_RDMA_READ) {
		sroce_req_set_psn(qp, sroce_psn_add(w->last_psn, 1));
		return 1;
	}
	sroce_req_set_psn(qp, sroce_psn_next(qp->req.psn));
	qp->req.offset += paylen;
	return last ? 1 : 0;
}

/* May the requester start or continue @w now? */
static bool sroce_req_may_send(struct sroce_qp *qp, struct sroce_swqe *w)
{
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return true;
	if (!sroce_window_open(&qp->req.window, qp->req.psn, qp->comp.psn))
		return false;
	if (qp->req.offset || w->state != SROCE_SWQE_POSTED)
		return true;
	if ((w->send_flags & IB_SEND_FENCE) && qp->req.rd_atomic)
		return false;
	if (sroce_is_rd_atomic(w->opcode) &&
	    qp->req.rd_atomic >= max_t(u32, 1, qp->attr.max_rd_atomic))
		return false;
	return true;
}

/*
 * Double the array of WQE copies, keeping each copy at its index. Called
 * only between WQEs, when the engine holds no pointer into the array. The
 * engine may run where reclaim must not recurse into storage that waits
 * for this QP (NVMe over Fabrics), so the allocation does not sleep; when
 * it fails, the QP carries on with fewer WQEs in flight.
 */
static bool sroce_req_grow_swqes(struct sroce_qp *qp)
{
	u32 n = qp->swqe_mask + 1, i;
	u8 *bigger;

	if (n >= qp->swqe_max)
		return false;
	bigger = sroce_kzalloc((size_t)n << (qp->swqe_shift + 1),
			       GFP_NOWAIT | __GFP_NOWARN);
	if (!bigger)
		return false;
	for (i = qp->sq.cons; i != qp->req.snap; i = (i + 1) & qp->sq.index_mask)
		memcpy(bigger + ((size_t)(i & (2 * n - 1)) << qp->swqe_shift),
		       sroce_swqe_at(qp, i), (size_t)1 << qp->swqe_shift);
	sroce_swqes_free(qp);
	qp->swqes = bigger;
	qp->swqe_mask = 2 * n - 1;
	return true;
}

/* Copy WQEs out of the ring while there is room for their copies. */
static bool sroce_req_fill(struct sroce_qp *qp)
{
	u32 prod = sroce_queue_prod(&qp->sq);

	if (qp->req.snap == prod)
		return qp->req.index != qp->req.snap;
	if (((qp->req.snap - qp->sq.cons) & qp->sq.index_mask) > qp->swqe_mask &&
	    !sroce_req_grow_swqes(qp))
		return qp->req.index != qp->req.snap;
	sroce_req_copy_wqe(qp, qp->req.snap);
	qp->req.snap = (qp->req.snap + 1) & qp->sq.index_mask;
	return true;
}

static void sroce_req_next_wqe(struct sroce_qp *qp)
{
	qp->req.index = (qp->req.index + 1) & qp->sq.index_mask;
	qp->req.offset = 0;
}

/* Work on the WQE at req.index. Returns false when nothing could be done. */
static bool sroce_req_one(struct sroce_qp *qp, u32 mtu)
{
	struct sroce_swqe *w = sroce_swqe_at(qp, qp->req.index);
	bool begin;
	int ret;

	if (w->state == SROCE_SWQE_DONE) {	/* failed validation, or retried past */
		sroce_req_next_wqe(qp);
		return true;
	}
	if (sroce_is_local_op(w->opcode)) {
		if ((w->send_flags & IB_SEND_FENCE) && qp->req.rd_atomic)
			return false;
		sroce_req_local_op(qp, w);
		sroce_req_next_wqe(qp);
		return true;
	}
	if (!sroce_req_may_send(qp, w) || sroce_txflow_full(qp))
		return false;
	begin = w->state == SROCE_SWQE_POSTED && !qp->req.offset;
	if (begin)
		sroce_req_start(qp, w, mtu);
	ret = sroce_req_step(qp, w, mtu);
	if (ret == -EAGAIN) {
		if (begin)
			sroce_req_unstart(qp, w);
		sroce_req_back_off(qp);
		return false;
	}
	if (begin)
		sroce_counter_inc(to_sdev(qp->ibqp.device), SROCE_CNT_RDMA_SENDS);
	if (ret < 0) {
		w->status = ret == -EACCES ? IB_WC_LOC_PROT_ERR : IB_WC_LOC_QP_OP_ERR;
		w->state = SROCE_SWQE_DONE;
		sroce_req_next_wqe(qp);
		return true;
	}
	if (ret == 1) {
		w->state = qp->ibqp.qp_type == IB_QPT_RC ? SROCE_SWQE_PENDING :
							   SROCE_SWQE_DONE;
		if (w->state == SROCE_SWQE_PENDING)
			sroce_comp_arm_timer(qp);
		sroce_req_next_wqe(qp);
	} else {
		w->state = SROCE_SWQE_PENDING;
		/*
		 * The transport timer runs while anything sent is not
		 * acknowledged, from the first packet of a message on. An ACK
		 * that leaves nothing pending stops it; if only a message's
		 * last packet armed it and nothing came back for its first
		 * window (ACKs lost, or the one NAK after which the responder
		 * drops the rest silently), the QP would wait for ever with
		 * its window closed.
		 */
		if (!timer_pending(&qp->retry_timer))
			sroce_comp_arm_timer(qp);
	}
	return true;
}

/**
 * sroce_req_run - send what the send queue holds, within a budget
 * @qp: the QP, from its work item
 *
 * Return: true when it made progress (the caller runs it again).
 */
bool sroce_req_run(struct sroce_qp *qp)
{
	u32 mtu = sroce_qp_mtu(qp);
	bool progress = false;
	int budget = SROCE_REQ_BUDGET;

	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	if (sroce_qp_state(qp) != IB_QPS_RTS || READ_ONCE(qp->rnr_wait))
		return false;
	while (budget-- > 0 && sroce_req_fill(qp)) {
		if (!sroce_req_one(qp, mtu))
			break;
		progress = true;
	}
	if (progress)
		sroce_comp_retire(qp);
	return progress;
}

/*
 * Send from @psn on, in @w (SQ index @i): from its packet that carries
 * @psn (its first, if @psn is before it), or for a READ from the first
 * byte not yet returned.
 */
static void sroce_req_resume_at(struct sroce_qp *qp, u32 i,
				struct sroce_swqe *w, u32 psn)
{
	if (sroce_psn_before(psn, w->first_psn))
		psn = w->first_psn;
	qp->req.index = i;
	qp->req.psn = psn;
	if (w->opcode == IB_WR_RDMA_READ) {
		qp->req.offset = w->read_done;
	} else {
		qp->req.offset = sroce_psn_diff(psn, w->first_psn) *
				 sroce_qp_mtu(qp);
		if (qp->req.offset > w->length)
			qp->req.offset = 0;
	}
}

/**
 * sroce_req_rewind - go back N: resend from @psn
 * @qp: an RC QP
 * @psn: the first PSN the responder has not acknowledged
 *
 * Every WQE from the one holding @psn on is sent again; for the one
 * holding it, sending resumes at the packet (or, for a READ, at the
 * response) that carries @psn.
 */
void sroce_req_rewind(struct sroce_qp *qp, u32 psn)
{
	u32 i;

	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	for (i = qp->sq.cons; i != qp->req.snap; i = (i + 1) & qp->sq.index_mask) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);

		if (w->state == SROCE_SWQE_DONE || sroce_is_local_op(w->opcode))
			continue;
		if (w->state == SROCE_SWQE_POSTED && i != qp->req.index)
			break;
		if (sroce_psn_before(w->last_psn, psn))
			continue;
		sroce_req_resume_at(qp, i, w, psn);
		return;
	}
}

/**
 * sroce_req_skip_acked - resume past what the responder acknowledged
 * @qp: an RC QP
 * @psn: the first PSN not acknowledged, after the resend position and at
 *	 most one past the highest PSN sent
 *
 * After a go-back the responder may acknowledge PSNs it had received
 * before, past the resend position: the window cut by the timeout keeps
 * the resend short of them. Resending them would only cost packets, but
 * a WQE the requester is still resending is not completed by an ACK that
 * covers it (sroce_comp_ack_upto() leaves the one at req.index alone), and
 * had that ACK been the last to come, the WQE would wait for the transport
 * timer, which resends from the acknowledged PSN, i.e. nothing, until the
 * retries ran out. So the requester moves on to @psn. It stops at a READ
 * or atomic not yet answered: only its response finishes it (the resend
 * then goes on to it, a few acknowledged packets first).
 */
void sroce_req_skip_acked(struct sroce_qp *qp, u32 psn)
{
	u32 i;

	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	for (i = qp->req.index; i != qp->req.snap; i = (i + 1) & qp->sq.index_mask) {
		struct sroce_swqe *w = sroce_swqe_at(qp, i);

		if (w->state == SROCE_SWQE_POSTED)
			break;		/* everything sent is acknowledged */
		if (w->state == SROCE_SWQE_DONE || sroce_is_local_op(w->opcode))
			continue;
		if (sroce_is_rd_atomic(w->opcode))
			return;
		if (!sroce_psn_before(w->last_psn, psn)) {
			sroce_req_resume_at(qp, i, w, psn);
			return;
		}
	}
	qp->req.index = i;
	qp->req.psn = psn;
	qp->req.offset = 0;
}

/**
 * sroce_req_probe - send the last packet sent again, asking for an ACK
 * @qp: an RC QP that is not resending and has PSNs unacknowledged, none
 *	of them a READ or atomic
 *
 * A tail-loss probe (comp.c). The responder answers it either way: with
 * an ACK when it had it (a duplicate) or when it was the only one
 * missing, with a sequence NAK for the first PSN missing when an earlier
 * one is missing too. Sending goes on from there as before.
 */
void sroce_req_probe(struct sroce_qp *qp)
{
	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	sroce_req_rewind(qp, sroce_psn_sub(qp->req.psn_hi, 1));
	/* Ask for an ACK whatever the packet's place in its message. */
	qp->req.noack_pkts = SROCE_WINDOW_MAX;
}
