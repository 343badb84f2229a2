// SPDX-License-Identifier: GPL-2.0
/*
 * Receive: check a RoCEv2 datagram from the wire before anything trusts
 * it, find its QP and queue it to that QP's engine.
 *
 * Order of checks, cheapest and most fundamental first: device, length
 * against the BTH, opcode known, length against the opcode's headers, pad
 * and ICRC, transport version, ICRC, destination QP (exists, type allows
 * the opcode, state accepts packets), P_Key. A packet failing any check is
 * dropped and counted under its reason; nothing of it has been used yet.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <net/udp.h>
#include <rdma/ib_verbs.h>

#include "sroce.h"
#include "counters.h"
#include "icrc.h"
#include "mcast.h"
#include "payload.h"
#include "pkt.h"
#include "qp.h"
#include "recv.h"
#include "task.h"

static void sroce_drop(struct sroce_dev *sdev, struct sk_buff *skb,
		       enum sroce_counter why)
{
	sroce_counter_inc(sdev, why);
	kfree_skb(skb);
}

static enum sroce_qpt sroce_qpt_of(struct sroce_qp *qp)
{
	switch (qp->ibqp.qp_type) {
	case IB_QPT_RC:
		return SROCE_QPT_RC;
	case IB_QPT_UC:
		return SROCE_QPT_UC;
	default:
		return SROCE_QPT_UD;
	}
}

/* Does the QP take this packet in its current state? */
static bool sroce_qp_accepts(struct sroce_qp *qp, const struct sroce_pkt *pkt)
{
	enum ib_qp_state state = sroce_qp_state(qp);

	if (!sroce_opcode_valid_for(pkt->opcode, sroce_qpt_of(qp)))
		return false;
	if (pkt->info->flags & SROCE_OPF_REQ)
		return state == IB_QPS_RTR || state == IB_QPS_RTS ||
		       state == IB_QPS_SQD || state == IB_QPS_SQE;
	return state == IB_QPS_RTS || state == IB_QPS_SQD ||
	       state == IB_QPS_SQE;
}

/* A check failed: the packet is dropped under @reason. */
static bool sroce_reject(enum sroce_counter *why, enum sroce_counter reason)
{
	*why = reason;
	return false;
}

/*
 * Are the lengths and the ICRC of @skb right? A packet from the wire is
 * made linear first; one the device sent itself has no ICRC, and keeps its
 * payload in page fragments when the transport places that payload piece
 * by piece (payload.h). When it is right, skb->data is the BTH, the
 * headers are linear, @pkt is filled in and the ICRC is trimmed off, so
 * the packet ends with its pad; when not, *@why is the drop's counter.
 */
static bool sroce_packet_ok(struct sk_buff *skb, struct sroce_pkt *pkt,
			    bool self, enum sroce_counter *why)
{
	unsigned int icrc_len = self ? 0 : SROCE_ICRC_LEN;
	struct sroce_bth *bth;
	unsigned int len;
	u8 pad;

	if (!self && skb_linearize(skb))
		return sroce_reject(why, SROCE_CNT_DROP_NOMEM);
	if (!pskb_may_pull(skb, sizeof(struct udphdr) + sizeof(*bth)))
		return sroce_reject(why, SROCE_CNT_DROP_LENGTH);
	__skb_pull(skb, sizeof(struct udphdr));
	len = skb->len;
	if (len < sizeof(*bth) + icrc_len)
		return sroce_reject(why, SROCE_CNT_DROP_LENGTH);
	bth = sroce_pkt_bth(skb);
	pkt->opcode = sroce_bth_opcode(bth);
	pkt->info = sroce_opcode_info(pkt->opcode);
	if (!sroce_opcode_known(pkt->opcode))
		return sroce_reject(why, SROCE_CNT_DROP_OPCODE);
	pad = sroce_bth_pad(bth);
	if (len < pkt->info->hdr_len + pad + icrc_len)
		return sroce_reject(why, SROCE_CNT_DROP_LENGTH);
	if (skb_is_nonlinear(skb) &&
	    (!sroce_payload_walkable(pkt->opcode) ||
	     !pskb_may_pull(skb, pkt->info->hdr_len)) &&
	    skb_linearize(skb))
		return sroce_reject(why, SROCE_CNT_DROP_NOMEM);
	bth = sroce_pkt_bth(skb);	/* the pulls may have moved it */
	if (sroce_bth_tver(bth))
		return sroce_reject(why, SROCE_CNT_DROP_HEADER);
	if (!self && sroce_icrc_check(skb_network_header(skb),
				      skb_tail_pointer(skb) - skb_network_header(skb)))
		return sroce_reject(why, SROCE_CNT_DROP_ICRC);

	pkt->hdr_len = pkt->info->hdr_len;
	pkt->paylen = len - pkt->hdr_len - pad - icrc_len;
	pkt->psn = sroce_bth_psn(bth);
	pkt->net_type = ip_hdr(skb)->version == 4 ? RDMA_NETWORK_IPV4 :
						    RDMA_NETWORK_IPV6;
	if (icrc_len)
		skb_trim(skb, len - icrc_len);
	return true;
}

/* UD and GSI: the DETH's Q_Key must be the QP's. */
static bool sroce_qkey_ok(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_deth *deth;

	if (qp->ibqp.qp_type != IB_QPT_UD && qp->ibqp.qp_type != IB_QPT_GSI)
		return true;
	deth = sroce_pkt_eth(skb, SROCE_ETH_DETH);
	return deth && sroce_deth_qkey(deth) == READ_ONCE(qp->attr.qkey);
}

/* Hand a checked packet to one QP. Consumes @skb and the QP reference. */
static void sroce_deliver(struct sroce_dev *sdev, struct sroce_qp *qp,
			  struct sk_buff *skb)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	u16 pkey = sroce_bth_pkey(sroce_pkt_bth(skb));

	if (!sroce_qp_accepts(qp, pkt)) {
		sroce_qp_put(qp);
		sroce_drop(sdev, skb, SROCE_CNT_DROP_QP_STATE);
		return;
	}
	/*
	 * One partition, the default: full or limited member key. A datagram
	 * QP also wants its Q_Key. Both are checked here, before the packet
	 * counts as received, so that each packet lands in exactly one of
	 * rcvd_pkts and the drop_* counters.
	 */
	if ((pkey & 0x7fff) != 0x7fff || !sroce_qkey_ok(qp, skb)) {
		sroce_qp_put(qp);
		sroce_drop(sdev, skb, SROCE_CNT_DROP_PKEY_QKEY);
		return;
	}
	pkt->qp = qp;
	sroce_counter_inc(sdev, SROCE_CNT_RCVD_PKTS);
	sroce_counter_add(sdev, SROCE_CNT_RCVD_BYTES, skb->len);
	sroce_task_rx(qp, skb);
}

static void sroce_deliver_mcast(struct sroce_dev *sdev, struct sk_buff *skb)
{
	union ib_gid mgid;

	if (ip_hdr(skb)->version == 4)
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)mgid.raw);
	else
		memcpy(mgid.raw, &ipv6_hdr(skb)->daddr, sizeof(mgid.raw));
	/* No QP attached to the group: no QP for it, as for a unicast QPN. */
	if (!sroce_mcast_deliver(sdev, &mgid, skb, sroce_deliver))
		sroce_drop(sdev, skb, SROCE_CNT_DROP_QPN);
}

static void sroce_rcv_dev(struct sroce_dev *sdev, struct sk_buff *skb,
			  bool self)
{
	struct sroce_pkt *pkt = sroce_pkt(skb);
	enum sroce_counter why;
	struct sroce_qp *qp;
	u32 qpn;

	memset(pkt, 0, sizeof(*pkt));
	if (!sroce_packet_ok(skb, pkt, self, &why)) {
		sroce_drop(sdev, skb, why);
		return;
	}
	qpn = sroce_bth_qpn(sroce_pkt_bth(skb));
	if (qpn == IB_MULTICAST_QPN) {
		if (pkt->opcode != SROCE_OP_UD_SEND_ONLY &&
		    pkt->opcode != SROCE_OP_UD_SEND_ONLY_IMM) {
			sroce_drop(sdev, skb, SROCE_CNT_DROP_HEADER);
			return;
		}
		sroce_deliver_mcast(sdev, skb);
		return;
	}
	qp = sroce_qp_get(sdev, qpn);
	if (!qp) {
		sroce_drop(sdev, skb, SROCE_CNT_DROP_QPN);
		return;
	}
	sroce_deliver(sdev, qp, skb);
}

/**
 * sroce_rcv - receive a packet from the wire
 * @sdev: the device of the netdev it arrived on, referenced by the caller
 * @skb: a UDP datagram to port 4791, data at the UDP header
 *
 * Context: softirq (or BH-disabled, for looped-back packets).
 */
void sroce_rcv(struct sroce_dev *sdev, struct sk_buff *skb)
{
	sroce_rcv_dev(sdev, skb, false);
}

/**
 * sroce_rcv_self - receive handler for packets a device sent to itself
 * @sdev: the device, which sent it and holds a reference for the call
 * @skb: built by net.c, data at the UDP header, no ICRC
 *
 * Context: BH disabled.
 */
void sroce_rcv_self(struct sroce_dev *sdev, struct sk_buff *skb)
{
	sroce_rcv_dev(sdev, skb, true);
}
