// SPDX-License-Identifier: GPL-2.0
/*
 * Each QP's engine has two sides: the send side (completer, then
 * requester: ACKs free send-queue room) and the receive side (responder).
 * One work item per QP, on an unbound workqueue, runs both; a doorbell
 * runs the send side in the poster's context; a looped-back packet runs
 * the side it is for (below). Each side has one runner at a time (its
 * busy bit), which is what lets its state go without locks; the two sides
 * share no transport state, so they run in parallel: a server can send
 * its answer while a client's thread still runs the server's responder.
 * A side runs until nothing moves or the round budget is spent, in which
 * case the work item queues itself again so that other QPs get their
 * turn.
 *
 * The workqueue has WQ_MEM_RECLAIM because kernel storage consumers
 * (NVMe over Fabrics) may need it to make progress under memory pressure.
 *
 * Loopback without wake-ups: a packet that net.c loops back while a
 * process-context run (a doorbell or the work item) transmits reaches
 * sroce_task_rx() on that same thread, with bottom halves disabled.
 * Waking a worker for the destination QP would cost a context switch per
 * hop of every exchange (request, ACK, response). Instead the QP and side
 * are noted in the runner's struct sroce_inline and run on the same thread
 * once the runner's own side is done. The runner publishes its context in
 * a per-CPU pointer and pins itself to the CPU (migrate_disable()) while
 * it is published, except when it gives way to another task between
 * rounds (sroce_task_yield()); only the thread that owns the context adds
 * to it, so it needs no lock. A side that is busy elsewhere is left to
 * that runner, which looks again before it lets go (the side's kick); the
 * rest (a second runner on the CPU, a full context) goes to the work item.
 *
 * Receive in softirq: a packet from the wire runs its side right where it
 * arrives, in the NET_RX softirq, when the side is free. Waking the
 * worker instead costs a context switch per packet and, worse, leaves the
 * next packet's receive to ksoftirqd: a wake-up from softirq sets
 * need_resched, and the kernel then defers the pending NET_RX work until
 * the worker has run and gone idle, which adds a scheduling round trip to
 * every hop of an exchange. Such a run is a few rounds with no sleeping:
 * nothing in a side's round sleeps but the access to an on-demand-paging
 * MR, so a device that has one runs no side in softirq
 * (sroce_odp_begin()), and a run that does not finish in those rounds
 * leaves the rest to the worker. Runs do not nest: a packet a softirq run
 * loops back goes to the worker.
 *
 * Hence the side "lock" is a bit: every runner only ever tries it, in any
 * context, and leaves the work to the holder through the kick; only
 * destroy and RESET wait for it, in process context, holding nothing a
 * runner takes.
 */
#include <linux/moduleparam.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "sroce.h"
#include "comp.h"
#include "counters.h"
#include "fault.h"
#include "pkt.h"
#include "qp.h"
#include "req.h"
#include "resp.h"
#include "resp_res.h"
#include "srq.h"
#include "task.h"
#include "txflow.h"
#include "wqe.h"

#define SROCE_WORK_ROUNDS	16	/* the rest goes to the workqueue: others run */
#define SROCE_SOFTIRQ_ROUNDS	2	/* the packet's round, one to see it idle */
#define SROCE_INLINE_QPS	4	/* QPs one runner notes at most */
#define SROCE_INLINE_RUNS	32	/* engine runs inline per runner */
#define SROCE_INLINE_ROUNDS	2	/* rounds per noted side's turn */

static struct workqueue_struct *sroce_wq;

static bool rx_in_softirq = true;
module_param(rx_in_softirq, bool, 0644);
MODULE_PARM_DESC(rx_in_softirq,
		 "Run a QP's engine in the receive softirq when it is free (default Y)");

/* A softirq run is in progress on this CPU: do not nest another. */
static DEFINE_PER_CPU(bool, sroce_in_softirq_run);

/* A side of a QP that received looped-back packets. */
struct sroce_inline_entry {
	struct sroce_qp *qp;		/* holds a reference */
	enum sroce_side side;
};

/* A runner's list of them. */
struct sroce_inline {
	struct task_struct *owner;	/* NULL: not published */
	unsigned int n;
	struct sroce_inline_entry e[SROCE_INLINE_QPS];
};

/* The context of the runner on this CPU, if any; see the top comment. */
static DEFINE_PER_CPU(struct sroce_inline *, sroce_inline_ctx);

int sroce_task_init(void)
{
	sroce_wq = alloc_workqueue("sroce", WQ_UNBOUND | WQ_MEM_RECLAIM |
				   WQ_HIGHPRI, 0);
	return sroce_wq ? 0 : -ENOMEM;
}

void sroce_task_exit(void)
{
	destroy_workqueue(sroce_wq);
}

/* One round of one side of the engine: true when anything moved. */
static bool sroce_side_round(struct sroce_qp *qp, enum sroce_side side)
{
	bool in_error = sroce_qp_state(qp) == IB_QPS_ERR;
	bool progress;

	if (side == SROCE_SIDE_RECV) {
		progress = sroce_resp_run(qp);
		if (in_error)
			progress |= sroce_resp_flush(qp);
		return progress;
	}
	progress = sroce_comp_run(qp);
	if (in_error)
		progress |= sroce_comp_flush(qp);
	else
		progress |= sroce_req_run(qp);
	return progress;
}

/*
 * Note the holder of a side for sroce_side_assert_held(). A side is
 * released by the context that took it; a softirq run takes a side in
 * the context of the task it interrupted, which cannot hold that side
 * itself (its trylock would have failed).
 */
static void sroce_side_set_owner(struct sroce_engine_side *es,
				 struct task_struct *owner)
{
#ifdef CONFIG_LOCKDEP
	WRITE_ONCE(es->owner, owner);
#endif
}

static bool sroce_side_trylock(struct sroce_engine_side *es)
{
	if (test_and_set_bit_lock(0, &es->busy))
		return false;
	sroce_side_set_owner(es, current);
	return true;
}

static void sroce_side_unlock(struct sroce_engine_side *es)
{
	sroce_side_set_owner(es, NULL);
	clear_bit_unlock(0, &es->busy);
	smp_mb__after_atomic();	/* the clear before looking for waiters */
	wake_up_bit(&es->busy, 0);
}

/* Destroy and RESET only: wait until the side is free and take it. */
static void sroce_side_lock_wait(struct sroce_engine_side *es)
{
	might_sleep();
	wait_on_bit_lock(&es->busy, 0, TASK_UNINTERRUPTIBLE);
	sroce_side_set_owner(es, current);
}

static void sroce_task_yield(void);

/* Run @side until idle or out of @rounds. Caller holds the side. */
static bool sroce_side_run(struct sroce_qp *qp, enum sroce_side side,
			   int rounds)
{
	WARN_ON_ONCE(!test_bit(0, &qp->side[side].busy));
	while (sroce_side_round(qp, side)) {
		if (!--rounds)
			return false;
		/*
		 * Rounds can move megabytes on a slow (emulated) CPU; without
		 * this a non-preemptible kernel sees an RCU stall. A softirq
		 * run has few rounds and cannot give way.
		 */
		if (in_task())
			sroce_task_yield();
	}
	return true;
}

/*
 * Run @side, release it, and run it again if work came while it was
 * held: a doorbell or a looped-back packet that found the side taken set
 * its kick and left the work to the holder instead of waking a worker
 * (under emulation a wake-up on the other CPU costs more than the
 * message).
 * Called holding the side; returns with it released.
 * Return: true when the side went idle, false when it needs the worker.
 */
static bool sroce_side_run_unlock(struct sroce_qp *qp, enum sroce_side side,
				  int rounds)
{
	struct sroce_engine_side *es = &qp->side[side];
	bool idle;

	for (;;) {
		WRITE_ONCE(es->kick, false);
		smp_mb();	/* the clear before the run looks at the queues */
		idle = sroce_side_run(qp, side, rounds);
		sroce_side_unlock(es);
		if (!idle)
			return false;
		smp_mb();	/* pairs with sroce_side_kick() */
		if (!READ_ONCE(es->kick))
			return true;
		/* In softirq, what came meanwhile goes to the worker. */
		if (!in_task())
			return false;
		if (!sroce_side_trylock(es))
			return true;
		if (READ_ONCE(qp->dead)) {
			sroce_side_unlock(es);
			return true;
		}
	}
}

/*
 * Work for @side of @qp is queued: take the side, or leave the work to
 * whoever holds it (sroce_side_run_unlock() looks at the kick after it
 * lets go; one of the two sees the other). A dying QP's sides are held by
 * sroce_task_qp_stop() and run no more.
 * Return: true when the caller now holds the side.
 */
static bool sroce_side_kick(struct sroce_qp *qp, enum sroce_side side)
{
	struct sroce_engine_side *es = &qp->side[side];

	WRITE_ONCE(es->kick, true);
	smp_mb();	/* pairs with sroce_side_run_unlock() */
	if (!sroce_side_trylock(es))
		return false;
	/* See sroce_task_qp_stop(): a dying QP's engine no longer runs. */
	if (READ_ONCE(qp->dead)) {
		sroce_side_unlock(es);
		return false;
	}
	return true;
}

/* Run @side of @qp here, or leave it to whoever runs it. */
static bool sroce_side_try(struct sroce_qp *qp, enum sroce_side side)
{
	return !sroce_side_kick(qp, side) ||
	       sroce_side_run_unlock(qp, side, SROCE_WORK_ROUNDS);
}

/*
 * Publish @ctx as this CPU's runner context, unless another runner has,
 * and pin the runner to the CPU while it is published.
 */
static void sroce_inline_publish(struct sroce_inline *ctx)
{
	ctx->owner = current;
	migrate_disable();
	if (this_cpu_cmpxchg(sroce_inline_ctx, NULL, ctx)) {
		ctx->owner = NULL;
		migrate_enable();
	}
}

/* Take a published @ctx back; the runner may move again. */
static void sroce_inline_unpublish(struct sroce_inline *ctx)
{
	if (!ctx->owner)
		return;
	local_bh_disable();
	this_cpu_write(sroce_inline_ctx, NULL);
	local_bh_enable();
	ctx->owner = NULL;
	migrate_enable();
}

static void sroce_inline_begin(struct sroce_inline *ctx)
{
	ctx->n = 0;
	sroce_inline_publish(ctx);
}

/*
 * Give way between rounds if the scheduler asks, unpinned: a runner
 * preempted while pinned waits for its own CPU even when the other one
 * is idle, behind whatever preempted it (a process polling on that CPU,
 * say), for as long as that keeps running. What it noted stays in its
 * context; it publishes the context again on whichever CPU it resumes.
 */
static void sroce_task_yield(void)
{
	struct sroce_inline *ctx;

	if (!need_resched())
		return;
	/*
	 * Another runner's context on this CPU belongs to a pinned runner,
	 * which cannot run (and let go of it) while preemption is off.
	 */
	preempt_disable();
	ctx = this_cpu_read(sroce_inline_ctx);
	if (ctx && ctx->owner != current)
		ctx = NULL;
	preempt_enable();
	if (!ctx) {
		cond_resched();
		return;
	}
	sroce_inline_unpublish(ctx);
	cond_resched();
	sroce_inline_publish(ctx);
}

/*
 * Add @side of @qp to the runner's own @ctx, once. The caller holds a
 * reference to @qp (a packet's, or an entry's), so it is above zero.
 * Return: true when the runner will run it.
 */
static bool sroce_inline_add(struct sroce_inline *ctx, struct sroce_qp *qp,
			     enum sroce_side side)
{
	unsigned int i;

	for (i = 0; i < ctx->n; i++)
		if (ctx->e[i].qp == qp && ctx->e[i].side == side)
			return true;
	if (ctx->n == SROCE_INLINE_QPS)
		return false;
	kref_get(&qp->elem.ref);
	ctx->e[ctx->n].qp = qp;
	ctx->e[ctx->n++].side = side;
	return true;
}

/*
 * Called from sroce_task_rx() with bottom halves disabled: note @side of
 * @qp in the context of the runner this thread is, if it is one.
 * Return: true when the runner will run it.
 */
static bool sroce_inline_note(struct sroce_qp *qp, enum sroce_side side)
{
	struct sroce_inline *ctx = this_cpu_read(sroce_inline_ctx);

	if (!ctx || ctx->owner != current || !in_task())
		return false;
	return sroce_inline_add(ctx, qp, side);
}

/*
 * Take the oldest noted entry out of @ctx (it may be noted again). Only
 * this thread, outside softirq, adds to @ctx: no lock.
 */
static struct sroce_inline_entry sroce_inline_pop(struct sroce_inline *ctx)
{
	struct sroce_inline_entry e = ctx->e[0];
	unsigned int i;

	for (i = 1; i < ctx->n; i++)
		ctx->e[i - 1] = ctx->e[i];
	ctx->n--;
	return e;
}

/*
 * The runner's own side is done and its lock released: run the sides it
 * looped packets to (which may loop packets back), then unpublish the
 * context and hand what is left to the workers.
 *
 * The noted sides take turns of a few rounds, and a side with more to do
 * goes to the back of the list rather than to its worker: a 1 MiB READ
 * is 1024 responses, which the responder would otherwise queue all at
 * once to the requester's completer (a megabyte of packets waiting in
 * memory) before it ran out of rounds and woke its worker. Taking turns
 * keeps a round's worth in flight and the whole exchange on this thread,
 * so that a large READ seldom needs a worker.
 */
static void sroce_inline_end(struct sroce_inline *ctx)
{
	int runs = SROCE_INLINE_RUNS;
	struct sroce_inline_entry e;

	while (ctx->n && runs--) {
		e = sroce_inline_pop(ctx);
		if (sroce_side_kick(e.qp, e.side) &&
		    !sroce_side_run_unlock(e.qp, e.side, SROCE_INLINE_ROUNDS) &&
		    !sroce_inline_add(ctx, e.qp, e.side))
			sroce_task_sched(e.qp);
		sroce_qp_put(e.qp);
	}
	sroce_inline_unpublish(ctx);
	/* Nothing can be noted any more. */
	while (ctx->n) {
		e = ctx->e[--ctx->n];
		sroce_task_sched(e.qp);
		sroce_qp_put(e.qp);
	}
}

static void sroce_qp_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, work);
	struct sroce_inline ctx;
	bool idle;

	/* Each one is a wake-up (a context switch) that an inline run saves. */
	sroce_counter_inc(to_sdev(qp->ibqp.device), SROCE_CNT_WORKER_RUNS);
	sroce_inline_begin(&ctx);
	idle = sroce_side_try(qp, SROCE_SIDE_SEND);
	idle &= sroce_side_try(qp, SROCE_SIDE_RECV);
	if (!idle)
		sroce_task_sched(qp);
	sroce_inline_end(&ctx);
}

/**
 * sroce_task_doorbell - a user process rang the send doorbell
 * @qp: the QP
 *
 * The send side runs right here, in the caller's context, unless it is
 * already running elsewhere (whose runner then runs it once more, see
 * sroce_side_run_unlock()): what was posted goes out before the system
 * call returns, which saves a wake-up per message, and completions that
 * need no answer (UD, local operations) are there when it returns. The
 * receive side may meanwhile run on another thread: in ib_write_lat the
 * server answers while the client's thread still runs the server QP's
 * responder, and the two go on in parallel.
 *
 * Context: process context (the post_send system call).
 */
void sroce_task_doorbell(struct sroce_qp *qp)
{
	struct sroce_inline ctx;

	if (!sroce_side_kick(qp, SROCE_SIDE_SEND))
		return;
	sroce_inline_begin(&ctx);
	if (!sroce_side_run_unlock(qp, SROCE_SIDE_SEND, SROCE_WORK_ROUNDS))
		sroce_task_sched(qp);
	sroce_inline_end(&ctx);
}

/**
 * sroce_task_qp_init - set up the engine of a QP being created
 * @qp: the QP, its rings set up
 *
 * The scheduling, the timers, the transmit flow control and the engine's
 * memory: the WQE copies and the receive WQE copy. The READ/ATOMIC
 * resources come with the modify that first needs them.
 *
 * Context: process context.
 * Return: 0 or a negative errno; either way sroce_task_qp_free() undoes it.
 */
int sroce_task_qp_init(struct sroce_qp *qp)
{
	u32 rq_sge = qp->srq ? qp->srq->max_sge : qp->rq_max_sge;
	int s, err;

	INIT_WORK(&qp->work, sroce_qp_work);
	for (s = 0; s < SROCE_SIDES; s++) {
		qp->side[s].busy = 0;
		sroce_side_set_owner(&qp->side[s], NULL);
	}
	skb_queue_head_init(&qp->req_pkts);
	skb_queue_head_init(&qp->resp_pkts);
	timer_setup(&qp->retry_timer, sroce_retry_timer_fn, 0);
	timer_setup(&qp->rnr_timer, sroce_rnr_timer_fn, 0);
	sroce_window_reset(&qp->req.window);
	err = sroce_txflow_qp_init(qp);
	if (err)
		return err;
	err = sroce_swqes_init(qp);
	if (err)
		return err;
	qp->resp.rwqe = sroce_kzalloc(sroce_recv_wqe_size(rq_sge), GFP_KERNEL);
	return qp->resp.rwqe ? 0 : -ENOMEM;
}

/**
 * sroce_task_sched - make sure the engine of @qp runs soon
 * @qp: the QP
 *
 * Context: any.
 */
void sroce_task_sched(struct sroce_qp *qp)
{
	if (!READ_ONCE(qp->dead))
		queue_work(sroce_wq, &qp->work);
}

/*
 * A packet from the wire was queued for @side of @qp: run the side here,
 * in the receive softirq, for a few rounds (see the top comment).
 * Return: true when the packet needs no worker (run here, or left to the
 * side's holder), false when the worker must run the side.
 */
static bool sroce_softirq_run(struct sroce_qp *qp, enum sroce_side side)
{
	struct sroce_dev *sdev = to_sdev(qp->ibqp.device);
	bool idle;

	if (!READ_ONCE(rx_in_softirq) || !in_serving_softirq() ||
	    atomic_read(&sdev->odp_mrs) || __this_cpu_read(sroce_in_softirq_run))
		return false;
	if (!sroce_side_kick(qp, side))
		return true;
	__this_cpu_write(sroce_in_softirq_run, true);
	idle = sroce_side_run_unlock(qp, side, SROCE_SOFTIRQ_ROUNDS);
	__this_cpu_write(sroce_in_softirq_run, false);
	return idle;
}

/**
 * sroce_task_rx - queue a checked packet for the engine of its QP
 * @qp: the QP; the packet holds a reference on it
 * @skb: the packet, sroce_pkt(skb)->qp == @qp
 *
 * Context: softirq or BH disabled.
 */
void sroce_task_rx(struct sroce_qp *qp, struct sk_buff *skb)
{
	bool req = sroce_pkt(skb)->info->flags & SROCE_OPF_REQ;
	struct sk_buff_head *list = req ? &qp->req_pkts : &qp->resp_pkts;
	enum sroce_side side;
	unsigned long flags;

	/* Checked under the queue lock: see sroce_task_qp_stop(). */
	spin_lock_irqsave(&list->lock, flags);
	if (unlikely(qp->dead)) {
		spin_unlock_irqrestore(&list->lock, flags);
		sroce_task_consume(skb);
		return;
	}
	__skb_queue_tail(list, skb);
	spin_unlock_irqrestore(&list->lock, flags);
	side = req ? SROCE_SIDE_RECV : SROCE_SIDE_SEND;
	if (!sroce_inline_note(qp, side) && !sroce_softirq_run(qp, side))
		sroce_task_sched(qp);
}

/* Done with a received packet: free it and its QP reference. */
void sroce_task_consume(struct sk_buff *skb)
{
	struct sroce_qp *qp = sroce_pkt(skb)->qp;

	kfree_skb(skb);
	if (qp)
		sroce_qp_put(qp);
}

static void sroce_purge(struct sk_buff_head *list)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(list)))
		sroce_task_consume(skb);
}

/**
 * sroce_task_reset_begin - keep both sides of the engine of @qp still
 * @qp: the QP, about to enter RESET
 *
 * RESET rewrites the state of both sides; a runner in either must not
 * see it change halfway. The timers go too: a timeout that fired for the
 * old connection must not start a retry on the next one.
 *
 * Context: process context, outside any run of this QP's engine.
 */
void sroce_task_reset_begin(struct sroce_qp *qp)
{
	sroce_side_lock_wait(&qp->side[SROCE_SIDE_SEND]);
	sroce_side_lock_wait(&qp->side[SROCE_SIDE_RECV]);
	del_timer_sync(&qp->retry_timer);
	del_timer_sync(&qp->rnr_timer);
	WRITE_ONCE(qp->retry_timer_fired, false);
}

/* Drop every WQE not yet consumed: RESET forgets all outstanding work. */
static void sroce_discard_work(struct sroce_qp *qp)
{
	sroce_queue_discard(&qp->sq);
	if (!qp->srq)
		sroce_queue_discard(&qp->rq);
}

/**
 * sroce_task_reset_state - forget all outstanding work and transport state
 * @qp: the QP entering RESET, both sides held by sroce_task_reset_begin()
 *
 * Context: under qp->lock, with the state change.
 */
void sroce_task_reset_state(struct sroce_qp *qp)
{
	lockdep_assert_held(&qp->lock);
	sroce_side_assert_held(qp, SROCE_SIDE_SEND);
	sroce_side_assert_held(qp, SROCE_SIDE_RECV);
	sroce_discard_work(qp);
	qp->req.index = qp->sq.cons;
	qp->req.snap = qp->sq.cons;
	qp->req.offset = 0;
	qp->req.rd_atomic = 0;
	qp->req.noack_pkts = 0;
	qp->req.retry_since = 0;
	qp->req.psn_hi = qp->req.psn;
	sroce_window_reset(&qp->req.window);
	qp->comp.went_back = false;
	qp->comp.probed = false;
	WRITE_ONCE(qp->rnr_wait, false);
	qp->resp.have_rwqe = false;
	qp->resp.last_wqe_reported = false;
	qp->resp.in_msg = 0;
	qp->resp.drop_msg = false;
	qp->resp.nak_sent = false;
	qp->resp.msn = 0;
	sroce_resp_res_reset(qp);
}

/**
 * sroce_task_reset_end - let the engine of a QP run again after a modify
 * @qp: the QP
 * @entered: the modify moved it to RESET (it may have failed instead)
 *
 * Packets queued before the RESET belong to the old connection: they go
 * now rather than meet the next one, and so does the flow of an RC or UC
 * QP. One that was accepted just before
 * the state changed and is queued after this finds the QP in RESET and
 * is dropped by the side that dequeues it.
 *
 * Context: process context, after sroce_task_reset_begin().
 */
void sroce_task_reset_end(struct sroce_qp *qp, bool entered)
{
	/* The next path, after RESET, may lead to another destination. */
	if (entered)
		sroce_txflow_qp_reset(qp);
	sroce_purge(&qp->req_pkts);
	sroce_purge(&qp->resp_pkts);
	sroce_side_unlock(&qp->side[SROCE_SIDE_RECV]);
	sroce_side_unlock(&qp->side[SROCE_SIDE_SEND]);
}

/**
 * sroce_task_qp_stop - stop the engine of a QP being destroyed
 * @qp: the QP, already unpublished so no new packet can reach it
 *
 * Order: no more scheduling, no more inline runs, then the timers (which
 * schedule), then the work itself, then the packets still queued (each
 * holds a reference the destroy path is about to wait for).
 *
 * Context: process context.
 */
void sroce_task_qp_stop(struct sroce_qp *qp)
{
	unsigned long flags;
	int s;

	/*
	 * A packet looked up just before the QP was unpublished may still be
	 * on its way to a queue: setting @dead under both queue locks means
	 * it is either queued before the purge below or dropped on arrival.
	 */
	spin_lock_irqsave(&qp->req_pkts.lock, flags);
	WRITE_ONCE(qp->dead, true);
	spin_unlock_irqrestore(&qp->req_pkts.lock, flags);
	spin_lock_irqsave(&qp->resp_pkts.lock, flags);
	spin_unlock_irqrestore(&qp->resp_pkts.lock, flags);
	/* Wait out a runner already inside either side. */
	for (s = 0; s < SROCE_SIDES; s++) {
		sroce_side_lock_wait(&qp->side[s]);
		sroce_side_unlock(&qp->side[s]);
	}
	del_timer_sync(&qp->retry_timer);
	del_timer_sync(&qp->rnr_timer);
	cancel_work_sync(&qp->work);
	sroce_purge(&qp->req_pkts);
	sroce_purge(&qp->resp_pkts);
}

/**
 * sroce_task_qp_free - free the engine's memory of a QP
 * @qp: the QP, its engine stopped (sroce_task_qp_stop()) or never started
 *
 * Context: process context.
 */
void sroce_task_qp_free(struct sroce_qp *qp)
{
	sroce_txflow_unbind(qp);
	kfree(qp->resp.res);
	kfree(qp->resp.rwqe);
	sroce_swqes_free(qp);
}

/**
 * sroce_task_qp_error - move a QP to the error state after a fatal error
 * @qp: the QP
 *
 * The engine then flushes its work.
 *
 * Context: any.
 */
void sroce_task_qp_error(struct sroce_qp *qp)
{
	if (sroce_qp_set_error(qp))
		sroce_task_sched(qp);
}
