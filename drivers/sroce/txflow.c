// SPDX-License-Identifier: GPL-2.0
/*
 * Transmit flow control.
 *
 * Without it a QP hands the stack a whole message at once: 1 MiB is 1024
 * packets at a 1024-byte path MTU, and the qdisc (fq_codel's per-flow
 * limits) silently drops most of it when the link is slower than the
 * CPU; the requester then retransmits all of it, again and again. So a
 * QP stops sending data packets (requests and READ responses) while the
 * stack holds SROCE_TXFLOW_PKTS of its flow's packets, and goes on once
 * half drained.
 *
 * A flow is what shares one such budget: all RC and UC QPs of a device
 * that send from the same source GID to the same destination GID (they
 * take the same route, the same neighbour entry and the same queues, and
 * a destination that stops taking packets stalls all of them anyway), or
 * a single UD QP, whose destinations change with every work request. A
 * shared flow's socket also caches that route (net.c). Sharing also keeps
 * a QP small: the flow's socket (below) costs about 2 KB of slab, more
 * than a third of what an RC QP costs otherwise, and the thousands of
 * QPs of a storage or MPI job mostly go to a few peers.
 *
 * The accounting is the socket layer's own: each flow has an unbound
 * kernel UDP socket, and its data packets are charged to it
 * (skb_set_owner_w()), so the stack's sock_wfree() uncharges them
 * wherever it frees them (driver ring, qdisc, drop, or our loopback's
 * skb_orphan()). Nothing the stack calls on a packet is sroce code: a
 * packet may sit in a stalled device's ring for as long as it likes, and
 * neither destroying the QP nor unloading the module waits for it or
 * leaves a pointer into freed memory behind. The socket itself lives on,
 * in the socket layer's care, until its last packet is freed.
 *
 * The only sroce code the socket layer runs is the wake-up: a throttled
 * QP puts its wait-queue entry on its flow socket's wait queue, where
 * sock_def_write_space() finds it (and those of the flow's other
 * throttled QPs) once less than half the send buffer is charged. The
 * entry is taken off under the wait queue's lock before the QP lets go
 * of the flow, so no wake-up can run after that.
 *
 * An RC/UC QP joins the flow of its destination when it is first given
 * a path (INIT to RTR), keeps it until RESET or destroy, and joins
 * again with the path it is given after a RESET. Until then (it sends
 * nothing before RTR) it has no flow, and nothing is charged.
 */
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/net.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "fault.h"
#include "qp.h"
#include "sroce.h"
#include "task.h"
#include "txflow.h"

/* Data packets a flow may leave with the stack before its QPs wait. */
#define SROCE_TXFLOW_PKTS	64

struct sroce_txflow {
	struct hlist_node node;	/* in the device's table, if @shared */
	u8 sgid[16];		/* the source GID, if @shared */
	u8 dgid[16];		/* the destination GID, if @shared */
	bool shared;
	unsigned int users;	/* QPs bound; under the table's lock */
	u32 id;			/* names it in "rdma res show qp -dd" */
	struct socket *sock;
};

void sroce_txflow_table_init(struct sroce_txflow_table *table)
{
	int i;

	mutex_init(&table->lock);
	atomic_set(&table->next_id, 0);
	for (i = 0; i < SROCE_TXFLOW_BUCKETS; i++)
		INIT_HLIST_HEAD(&table->buckets[i]);
}

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
 * Take @qp's entry off @sock's wait queue if it is on it. list_del_init,
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

/* A new flow with its socket, one user; process context. */
static struct sroce_txflow *sroce_txflow_new(struct sroce_txflow_table *table,
					     const u8 *sgid, const u8 *dgid)
{
	struct sroce_txflow *flow;
	int err;

	flow = sroce_kzalloc(sizeof(*flow), GFP_KERNEL);
	if (!flow)
		return ERR_PTR(-ENOMEM);
	err = sroce_fault() ? -ENOMEM :
	      sock_create_kern(&init_net, AF_INET, SOCK_DGRAM, IPPROTO_UDP,
			       &flow->sock);
	if (err) {
		kfree(flow);
		return ERR_PTR(err);
	}
	/* Raised to the real packet size by the first packets charged. */
	flow->sock->sk->sk_sndbuf = SROCE_TXFLOW_PKTS * SKB_TRUESIZE(256);
	INIT_HLIST_NODE(&flow->node);
	if (dgid) {
		memcpy(flow->sgid, sgid, sizeof(flow->sgid));
		memcpy(flow->dgid, dgid, sizeof(flow->dgid));
		flow->shared = true;
	}
	flow->users = 1;
	/* Never 0, which "rdma res" shows for a QP without a flow. */
	do {
		flow->id = atomic_inc_return(&table->next_id);
	} while (!flow->id);
	return flow;
}

/* Packets still in the stack keep the socket (not the flow) alive. */
static void sroce_txflow_free(struct sroce_txflow *flow)
{
	sock_release(flow->sock);
	kfree(flow);
}

/* Is @flow the shared flow from @sgid to @dgid? */
static bool sroce_txflow_is(const struct sroce_txflow *flow, const u8 *sgid,
			    const u8 *dgid)
{
	return flow->shared && !memcmp(flow->sgid, sgid, sizeof(flow->sgid)) &&
	       !memcmp(flow->dgid, dgid, sizeof(flow->dgid));
}

static struct hlist_head *sroce_txflow_bucket(struct sroce_txflow_table *table,
					      const u8 *sgid, const u8 *dgid)
{
	u32 h = jhash(dgid, 16, jhash(sgid, 16, 0));

	return &table->buckets[hash_32(h, ilog2(SROCE_TXFLOW_BUCKETS))];
}

/**
 * sroce_txflow_av_sgid - the source GID of @av, as 16 bytes
 * @av: a validated address vector
 * @sgid: where to put it (an IPv4 address becomes its mapped GID)
 */
void sroce_txflow_av_sgid(const struct rxe_av *av, u8 *sgid)
{
	struct in6_addr a;

	if (av->network_type == RXE_NETWORK_TYPE_IPV4)
		ipv6_addr_set_v4mapped(av->sgid_addr._sockaddr_in.sin_addr.s_addr,
				       &a);
	else
		a = av->sgid_addr._sockaddr_in6.sin6_addr;
	memcpy(sgid, &a, sizeof(a));
}

/**
 * sroce_txflow_get - the flow from @sgid to @dgid, with one more user
 * @sdev: the device
 * @sgid: the source GID (16 bytes) of an RC or UC QP's path
 * @dgid: its destination GID
 *
 * Context: process context.
 * Return: the flow, or an ERR_PTR.
 */
struct sroce_txflow *sroce_txflow_get(struct sroce_dev *sdev, const u8 *sgid,
				      const u8 *dgid)
{
	struct sroce_txflow_table *table = &sdev->txflows;
	struct hlist_head *head = sroce_txflow_bucket(table, sgid, dgid);
	struct sroce_txflow *flow;

	mutex_lock(&table->lock);
	hlist_for_each_entry(flow, head, node) {
		if (sroce_txflow_is(flow, sgid, dgid)) {
			flow->users++;
			goto out;
		}
	}
	flow = sroce_txflow_new(table, sgid, dgid);
	if (!IS_ERR(flow))
		hlist_add_head(&flow->node, head);
out:
	mutex_unlock(&table->lock);
	return flow;
}

/**
 * sroce_txflow_put - drop one user of @flow
 * @sdev: the device
 * @flow: a flow from sroce_txflow_get() or a QP's own, or NULL
 *
 * Context: process context.
 */
void sroce_txflow_put(struct sroce_dev *sdev, struct sroce_txflow *flow)
{
	struct sroce_txflow_table *table = &sdev->txflows;
	bool last;

	if (!flow)
		return;
	if (!flow->shared) {
		sroce_txflow_free(flow);
		return;
	}
	mutex_lock(&table->lock);
	last = !--flow->users;
	if (last)
		hlist_del(&flow->node);
	mutex_unlock(&table->lock);
	if (last)
		sroce_txflow_free(flow);
}

/* Do @qp's packets go to one destination, so that it shares a flow? */
bool sroce_txflow_per_dest(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_type == IB_QPT_RC || qp->ibqp.qp_type == IB_QPT_UC;
}

/**
 * sroce_txflow_bind - make @flow @qp's if it has none yet
 * @qp: an RC or UC QP given a path
 * @flow: the flow to the path's destination
 *
 * Context: qp->lock held.
 * Return: true if @qp took @flow (and its reference); false if it kept
 * the one it has, and the caller puts @flow.
 */
bool sroce_txflow_bind(struct sroce_qp *qp, struct sroce_txflow *flow)
{
	lockdep_assert_held(&qp->lock);
	if (qp->txflow)
		return false;
	/* The engine reads it locklessly; the flow is complete by now. */
	WRITE_ONCE(qp->txflow, flow);
	WRITE_ONCE(qp->txflow_id, flow->id);
	return true;
}

/**
 * sroce_txflow_unbind - let go of @qp's flow
 * @qp: a QP neither side of whose engine is running (destroy, RESET)
 *
 * Context: process context.
 */
void sroce_txflow_unbind(struct sroce_qp *qp)
{
	struct sroce_txflow *flow = qp->txflow;

	if (!flow)
		return;
	/* After this no wake-up can reach the QP. */
	sroce_txflow_unqueue(qp, flow->sock);
	WRITE_ONCE(qp->tx_route, NULL);
	WRITE_ONCE(qp->txflow, NULL);
	WRITE_ONCE(qp->txflow_id, 0);
	WRITE_ONCE(qp->tx_throttled, false);
	sroce_txflow_put(to_sdev(qp->ibqp.device), flow);
}

/**
 * sroce_txflow_qp_init - set up @qp's flow control
 * @qp: a QP being created
 *
 * A UD QP gets a flow of its own now; an RC or UC QP joins its
 * destination's when it is given a path.
 *
 * Context: process context.
 * Return: 0 or a negative errno.
 */
int sroce_txflow_qp_init(struct sroce_qp *qp)
{
	struct sroce_txflow *flow;

	init_waitqueue_func_entry(&qp->tx_wait, sroce_txflow_wake);
	INIT_LIST_HEAD(&qp->tx_wait.entry);	/* "not queued" */
	qp->tx_throttled = false;
	qp->txflow = NULL;
	qp->txflow_id = 0;
	qp->tx_route = NULL;
	if (sroce_txflow_per_dest(qp))
		return 0;
	flow = sroce_txflow_new(&to_sdev(qp->ibqp.device)->txflows, NULL, NULL);
	if (IS_ERR(flow))
		return PTR_ERR(flow);
	qp->txflow = flow;
	qp->txflow_id = flow->id;
	return 0;
}

/**
 * sroce_txflow_qp_reset - an RC or UC QP in RESET leaves its destination's flow
 * @qp: a QP just moved to RESET, both sides of its engine held
 *
 * Its next path may lead elsewhere. A UD QP keeps its own flow.
 *
 * Context: process context.
 */
void sroce_txflow_qp_reset(struct sroce_qp *qp)
{
	if (sroce_txflow_per_dest(qp))
		sroce_txflow_unbind(qp);
}

/**
 * sroce_txflow_track - charge @skb to @qp's flow until the stack frees it
 * @qp: the sending QP
 * @skb: a packet about to be sent (no owner yet)
 *
 * Context: the QP's engine.
 */
void sroce_txflow_track(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sroce_txflow *flow = READ_ONCE(qp->txflow);
	int want = SROCE_TXFLOW_PKTS * skb->truesize;
	struct sock *sk;

	if (!flow)		/* an RC/UC QP sends nothing before its path */
		return;
	sk = flow->sock->sk;
	/*
	 * The send buffer holds SROCE_TXFLOW_PKTS of the largest packets.
	 * The flow's QPs race here only to raise it; one raising it less
	 * than another just did is undone by its next large packet.
	 */
	if (want > READ_ONCE(sk->sk_sndbuf))
		WRITE_ONCE(sk->sk_sndbuf, want);
	skb_set_owner_w(skb, sk);
}

/**
 * sroce_txflow_full - must @qp wait before it sends another data packet?
 * @qp: the QP
 *
 * Return: true when the stack holds a full send buffer of its flow's
 * packets; the QP's engine is scheduled once half of it has drained.
 *
 * Context: either side of the QP's engine.
 */
bool sroce_txflow_full(struct sroce_qp *qp)
{
	struct sroce_txflow *flow = READ_ONCE(qp->txflow);
	struct socket *sock;
	unsigned long flags;
	struct sock *sk;
	bool was_queued;

	if (!flow)
		return false;
	sock = flow->sock;
	sk = sock->sk;
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

/**
 * sroce_txflow_route - where @qp's route is cached
 * @qp: the sending QP
 *
 * Context: the QP's engine.
 * Return: the socket of its shared flow (one source, one destination),
 * or NULL for a QP whose packets go to different destinations (UD) or
 * that has no flow.
 */
struct sock *sroce_txflow_route(struct sroce_qp *qp)
{
	return READ_ONCE(qp->tx_route);
}

/**
 * sroce_txflow_path_set - @qp's path (qp->av) was given or changed
 * @qp: an RC or UC QP
 *
 * Its packets use the route its flow caches only while the flow's GIDs
 * are the path's: a QP given another path without going through RESET
 * keeps its flow (for the accounting) but looks its route up per packet.
 *
 * Context: qp->lock held.
 */
void sroce_txflow_path_set(struct sroce_qp *qp)
{
	struct sroce_txflow *flow = qp->txflow;
	u8 sgid[16];

	lockdep_assert_held(&qp->lock);
	sroce_txflow_av_sgid(&qp->av, sgid);
	WRITE_ONCE(qp->tx_route,
		   flow && sroce_txflow_is(flow, sgid, qp->av.grh.dgid.raw) ?
		   flow->sock->sk : NULL);
}
