// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit flow control.
 *
 * Without it a QP hands the stack a whole message at once: 1 MiB is 1024
 * packets at a 1024-byte path MTU, and the qdisc (fq_codel's per-flow
 * limits) silently drops most of it when the link is slower than the
 * CPU; the requester then retransmits all of it, again and again. So a
 * QP stops sending data packets (requests and READ responses) while the
 * stack holds SROCE_TXFLOW_PKTS of them, and goes on once half drained.
 *
 * The accounting is the socket layer's own: each QP has an unbound kernel
 * UDP socket, and its data packets are charged to it (skb_set_owner_w()),
 * so the stack's sock_wfree() uncharges them wherever it frees them
 * (driver ring, qdisc, drop, or our loopback's skb_orphan()). Nothing the
 * stack calls on a packet is sroce code: a packet may sit in a stalled
 * device's ring for as long as it likes, and neither destroying the QP
 * nor unloading the module waits for it or leaves a pointer into freed
 * memory behind. The socket itself lives on, in the socket layer's care,
 * until its last packet is freed.
 *
 * The only sroce code the socket layer runs is the wake-up: a throttled
 * QP puts its wait-queue entry on the socket's wait queue, where
 * sock_def_write_space() finds it once less than half the send buffer is
 * charged. The entry is taken off under the wait queue's lock before the
 * QP goes away, so no wake-up can run after that.
 */
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/wait.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "fault.h"
#include "qp.h"
#include "task.h"
#include "txflow.h"

/* Data packets a QP may leave with the stack before it waits. */
#define SROCE_TXFLOW_PKTS	64

/* Called by the socket layer, wait-queue lock held, any context. */
static int sroce_txflow_wake(struct wait_queue_entry *wait, unsigned int mode,
			     int sync, void *key)
{
	struct sroce_qp *qp = container_of(wait, struct sroce_qp, tx_wait);

	list_del_init(&wait->entry);
	WRITE_ONCE(qp->tx_throttled, false);
	sroce_task_sched(qp);
	return 1;
}

/*
 * Take @qp's entry off its socket's wait queue if it is on it. list_del_init,
 * not __remove_wait_queue(): "not queued" is an empty entry, and the next
 * sroce_txflow_full() tests that before it queues the entry again.
 */
static void sroce_txflow_unqueue(struct sroce_qp *qp, struct socket *sock)
{
	unsigned long flags;

	spin_lock_irqsave(&sock->wq.wait.lock, flags);
	list_del_init(&qp->tx_wait.entry);
	spin_unlock_irqrestore(&sock->wq.wait.lock, flags);
}

/**
 * sroce_txflow_init - give @qp the socket its packets are charged to
 * @qp: a QP being created
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int sroce_txflow_init(struct sroce_qp *qp)
{
	int err;

	err = sroce_fault() ? -ENOMEM :
	      sock_create_kern(&init_net, AF_INET, SOCK_DGRAM, IPPROTO_UDP,
			       &qp->tx_sock);
	if (err)
		return err;
	/* Raised to the real packet size by the first packets charged. */
	qp->tx_sock->sk->sk_sndbuf = SROCE_TXFLOW_PKTS * SKB_TRUESIZE(256);
	init_waitqueue_func_entry(&qp->tx_wait, sroce_txflow_wake);
	INIT_LIST_HEAD(&qp->tx_wait.entry);	/* "not queued" */
	qp->tx_throttled = false;
	return 0;
}

/**
 * sroce_txflow_destroy - let go of @qp's socket
 * @qp: a QP whose engine no longer runs (or that never got a socket)
 *
 * Packets still in the stack keep the socket (not the QP) alive.
 *
 * Context: process context.
 */
void sroce_txflow_destroy(struct sroce_qp *qp)
{
	struct socket *sock = qp->tx_sock;

	if (!sock)
		return;
	/* After this no wake-up can reach the QP. */
	sroce_txflow_unqueue(qp, sock);
	qp->tx_sock = NULL;
	sock_release(sock);
}

/**
 * sroce_txflow_track - charge @skb to @qp until the stack frees it
 * @qp: the sending QP
 * @skb: a packet about to be sent (no owner yet)
 *
 * Context: the QP's engine.
 */
void sroce_txflow_track(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sock *sk = qp->tx_sock->sk;
	int want = SROCE_TXFLOW_PKTS * skb->truesize;

	/* The send buffer holds SROCE_TXFLOW_PKTS of the largest packets. */
	if (want > READ_ONCE(sk->sk_sndbuf))
		WRITE_ONCE(sk->sk_sndbuf, want);
	skb_set_owner_w(skb, sk);
}

/**
 * sroce_txflow_full - must @qp wait before it sends another data packet?
 * @qp: the QP
 *
 * Return: true when the stack holds a full send buffer of its packets;
 * the QP's engine is scheduled once half of it has drained.
 *
 * Context: either side of the QP's engine.
 */
bool sroce_txflow_full(struct sroce_qp *qp)
{
	struct socket *sock = qp->tx_sock;
	struct sock *sk = sock->sk;
	unsigned long flags;
	bool was_queued;

	if (sk_wmem_alloc_get(sk) < READ_ONCE(sk->sk_sndbuf))
		return false;
	WRITE_ONCE(qp->tx_throttled, true);
	spin_lock_irqsave(&sock->wq.wait.lock, flags);
	was_queued = !list_empty(&qp->tx_wait.entry);
	if (!was_queued)
		__add_wait_queue(&sock->wq.wait, &qp->tx_wait);
	spin_unlock_irqrestore(&sock->wq.wait.lock, flags);
	/*
	 * Pairs with the barrier in skwq_has_sleeper(): either the socket
	 * layer sees our entry, or we see what it freed.
	 */
	smp_mb();
	if (!sock_writeable(sk))
		return true;
	sroce_txflow_unqueue(qp, sock);
	WRITE_ONCE(qp->tx_throttled, false);
	/*
	 * The entry may have been the other side's of the engine (both send
	 * data packets: requests, READ responses), which stopped for the
	 * wake-up just taken away from it.
	 */
	if (was_queued)
		sroce_task_sched(qp);
	return false;
}

/**
 * sroce_txflow_throttled - is @qp waiting for the stack to drain?
 * @qp: the QP
 */
bool sroce_txflow_throttled(struct sroce_qp *qp)
{
	return READ_ONCE(qp->tx_throttled);
}
