// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit flow control.
 *
 * Without it a QP hands the stack a whole message at once: 1 MiB is 1024
 * packets at a 1024-byte path MTU, and the qdisc (fq_codel's per-flow
 * limits) silently drops most of it when the link is slower than the
 * CPU; the requester then retransmits all of it, again and again. So
 * every data packet (requests and READ responses) carries a destructor
 * that the stack runs when it lets go of the packet (sent by the driver,
 * or dropped), and a QP stops sending while SROCE_SKB_OUT_HIGH of its
 * packets are out, until they drain to SROCE_SKB_OUT_LOW.
 *
 * The packets carry no socket, so the QP rides in the skb's
 * destructor_arg, which only zerocopy skbs (SKBFL_ZEROCOPY_ENABLE, never
 * set on ours) use; each packet holds a reference on its QP.
 */
#include <linux/skbuff.h>

#include "qp.h"
#include "task.h"
#include "txflow.h"

static void sroce_txflow_destructor(struct sk_buff *skb)
{
	struct sroce_qp *qp = skb_shinfo(skb)->destructor_arg;

	/* atomic_dec_return() orders the count before reading the flag */
	if (atomic_dec_return(&qp->skb_out) <= SROCE_SKB_OUT_LOW &&
	    READ_ONCE(qp->tx_throttled)) {
		WRITE_ONCE(qp->tx_throttled, false);
		sroce_task_sched(qp);
	}
	sroce_qp_put(qp);
}

/**
 * sroce_txflow_track - count @skb as out until the stack frees it
 * @qp: the sending QP
 * @skb: a packet about to be sent (no destructor yet)
 *
 * Context: the QP's engine.
 */
void sroce_txflow_track(struct sroce_qp *qp, struct sk_buff *skb)
{
	sroce_pool_elem_get(&qp->elem);
	atomic_inc(&qp->skb_out);
	skb_shinfo(skb)->destructor_arg = qp;
	skb->destructor = sroce_txflow_destructor;
}

/**
 * sroce_txflow_full - may @qp send another data packet now?
 * @qp: the QP
 *
 * Return: true when it must wait; the last packet to drain below the low
 * mark schedules its engine then.
 *
 * Context: the QP's engine.
 */
bool sroce_txflow_full(struct sroce_qp *qp)
{
	if (atomic_read(&qp->skb_out) < SROCE_SKB_OUT_HIGH)
		return false;
	WRITE_ONCE(qp->tx_throttled, true);
	/*
	 * Pairs with atomic_dec_return() in the destructor: either it sees
	 * the flag, or this sees its decrement.
	 */
	smp_mb();
	if (atomic_read(&qp->skb_out) > SROCE_SKB_OUT_LOW)
		return true;
	WRITE_ONCE(qp->tx_throttled, false);
	return false;
}
