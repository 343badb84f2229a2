// SPDX-License-Identifier: GPL-2.0
/*
 * The per-QP engine runs as one work item on an unbound workqueue: the
 * completer first (acknowledgements free send-queue room), then the
 * responder, then the requester, until nothing moves or the round budget
 * is spent, in which case it queues itself again so that other QPs get
 * their turn. A work item never runs concurrently with itself, which is
 * what lets the engine's state go without locks.
 *
 * The workqueue has WQ_MEM_RECLAIM because kernel storage consumers
 * (NVMe over Fabrics) may need it to make progress under memory pressure.
 *
 * Loopback without wake-ups: a packet that net.c loops back while a
 * process-context engine run (a doorbell or the work item) transmits
 * reaches sroce_task_rx() on that same thread, with bottom halves
 * disabled. Waking a worker for the destination QP would cost a context
 * switch per hop of every exchange (request, ACK, response). Instead the
 * QP is noted in the runner's struct sroce_inline and its engine runs on
 * the same thread once the runner's own engine is done. The runner
 * publishes its context in a per-CPU pointer and pins itself to the CPU
 * (migrate_disable()); only the thread that owns the context adds to it,
 * so it needs no lock. A QP whose engine is busy elsewhere is left to
 * that runner, which looks again before it lets go (engine_kick); the
 * rest (real receive in softirq, a second runner on the CPU, a full
 * context) goes to the work item.
 */
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/workqueue.h>

#include "sroce.h"
#include "comp.h"
#include "pkt.h"
#include "qp.h"
#include "req.h"
#include "resp.h"
#include "task.h"

#define SROCE_WORK_ROUNDS	16
#define SROCE_INLINE_QPS	4	/* QPs one runner notes at most */
#define SROCE_INLINE_RUNS	32	/* engine runs inline per runner */

static struct workqueue_struct *sroce_wq;

/* A runner's list of QPs that received looped-back packets. */
struct sroce_inline {
	struct task_struct *owner;	/* NULL: not published */
	unsigned int n;
	struct sroce_qp *qp[SROCE_INLINE_QPS];	/* each holds a reference */
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

static bool sroce_engine_round(struct sroce_qp *qp)
{
	bool progress;

	progress = sroce_comp_run(qp);
	progress |= sroce_resp_run(qp);
	if (sroce_qp_state(qp) == IB_QPS_ERR)
		progress |= sroce_comp_flush(qp);
	else
		progress |= sroce_req_run(qp);
	return progress;
}

/* Run the engine until idle or out of rounds. Caller holds engine_lock. */
static bool sroce_engine_run(struct sroce_qp *qp)
{
	int rounds = SROCE_WORK_ROUNDS;

	lockdep_assert_held(&qp->engine_lock);
	while (sroce_engine_round(qp)) {
		if (!--rounds)
			return false;
		/*
		 * Rounds can move megabytes on a slow (emulated) CPU; without
		 * this a non-preemptible kernel sees an RCU stall.
		 */
		cond_resched();
	}
	return true;
}

/*
 * Run the engine, release it, and run it again if work came while it was
 * held: a doorbell or a looped-back packet that found engine_lock taken
 * set engine_kick and left the work to the holder instead of waking a
 * worker (under emulation a wake-up on the other CPU costs more than the
 * message: ib_write_lat's server posts its answer while the client's
 * thread still runs the server QP's responder).
 * Called with engine_lock held; returns with it released.
 * Return: true when the engine went idle, false when it needs the worker.
 */
static bool sroce_engine_run_unlock(struct sroce_qp *qp)
{
	bool idle;

	for (;;) {
		WRITE_ONCE(qp->engine_kick, false);
		smp_mb();	/* the clear before the run looks at the queues */
		idle = sroce_engine_run(qp);
		mutex_unlock(&qp->engine_lock);
		if (!idle)
			return false;
		smp_mb();	/* pairs with sroce_engine_kick() */
		if (!READ_ONCE(qp->engine_kick) || !mutex_trylock(&qp->engine_lock))
			return true;
		if (READ_ONCE(qp->dead)) {
			mutex_unlock(&qp->engine_lock);
			return true;
		}
	}
}

/*
 * Work for @qp is queued: take its engine, or leave the work to whoever
 * holds it (sroce_engine_run_unlock() looks at engine_kick after it lets
 * go; one of the two sees the other). A dying QP's engine is held by
 * sroce_task_qp_stop() and runs no more.
 * Return: true when the caller now holds engine_lock.
 */
static bool sroce_engine_kick(struct sroce_qp *qp)
{
	WRITE_ONCE(qp->engine_kick, true);
	smp_mb();	/* pairs with sroce_engine_run_unlock() */
	if (!mutex_trylock(&qp->engine_lock))
		return false;
	/* See sroce_task_qp_stop(): a dying QP's engine no longer runs. */
	if (READ_ONCE(qp->dead)) {
		mutex_unlock(&qp->engine_lock);
		return false;
	}
	return true;
}

/* Publish @ctx as this CPU's runner context, unless another runner has. */
static void sroce_inline_begin(struct sroce_inline *ctx)
{
	ctx->n = 0;
	ctx->owner = current;
	migrate_disable();
	if (this_cpu_cmpxchg(sroce_inline_ctx, NULL, ctx))
		ctx->owner = NULL;
}

/*
 * Called from sroce_task_rx() with bottom halves disabled: note @qp in the
 * context of the runner this thread is, if it is one.
 * Return: true when the runner will run the engine of @qp.
 */
static bool sroce_inline_note(struct sroce_qp *qp)
{
	struct sroce_inline *ctx = this_cpu_read(sroce_inline_ctx);
	unsigned int i;

	if (!ctx || ctx->owner != current || !in_task())
		return false;
	for (i = 0; i < ctx->n; i++)
		if (ctx->qp[i] == qp)
			return true;
	if (ctx->n == SROCE_INLINE_QPS)
		return false;
	kref_get(&qp->elem.ref);	/* the packet's reference keeps it > 0 */
	ctx->qp[ctx->n++] = qp;
	return true;
}

/* Run the engine of @qp here, or leave the work to whoever runs it. */
static void sroce_inline_engine(struct sroce_qp *qp)
{
	if (sroce_engine_kick(qp) && !sroce_engine_run_unlock(qp))
		sroce_task_sched(qp);
}

/*
 * Take the oldest noted QP out of @ctx (it may be noted again). Only this
 * thread, outside softirq, adds to @ctx: no lock.
 */
static struct sroce_qp *sroce_inline_pop(struct sroce_inline *ctx)
{
	struct sroce_qp *qp = ctx->qp[0];
	unsigned int i;

	for (i = 1; i < ctx->n; i++)
		ctx->qp[i - 1] = ctx->qp[i];
	ctx->n--;
	return qp;
}

/*
 * The runner's own engine is done and its lock released: run the QPs it
 * looped packets to (which may loop packets back), then unpublish the
 * context and hand what is left to the workers.
 */
static void sroce_inline_end(struct sroce_inline *ctx)
{
	int runs = SROCE_INLINE_RUNS;
	struct sroce_qp *qp;

	while (ctx->n && runs--) {
		qp = sroce_inline_pop(ctx);
		sroce_inline_engine(qp);
		sroce_qp_put(qp);
	}
	if (ctx->owner) {
		local_bh_disable();
		this_cpu_write(sroce_inline_ctx, NULL);
		local_bh_enable();
	}
	migrate_enable();
	/* Nothing can be noted any more. */
	while (ctx->n) {
		qp = ctx->qp[--ctx->n];
		sroce_task_sched(qp);
		sroce_qp_put(qp);
	}
}

static void sroce_qp_work(struct work_struct *work)
{
	struct sroce_qp *qp = container_of(work, struct sroce_qp, work);
	struct sroce_inline ctx;

	mutex_lock(&qp->engine_lock);
	sroce_inline_begin(&ctx);
	if (!sroce_engine_run_unlock(qp))
		sroce_task_sched(qp);
	sroce_inline_end(&ctx);
}

/**
 * sroce_task_doorbell - a user process rang the send doorbell
 * @qp: the QP
 *
 * The engine runs right here, in the caller's context, unless it is
 * already running elsewhere (whose runner then runs it once more, see
 * sroce_engine_run_unlock()): what was posted goes out before the system
 * call returns, which saves a wake-up per message, and completions that
 * need no answer (UD, local operations) are there when it returns.
 *
 * Context: process context (the post_send system call).
 */
void sroce_task_doorbell(struct sroce_qp *qp)
{
	struct sroce_inline ctx;

	if (!sroce_engine_kick(qp))
		return;
	sroce_inline_begin(&ctx);
	if (!sroce_engine_run_unlock(qp))
		sroce_task_sched(qp);
	sroce_inline_end(&ctx);
}

void sroce_task_qp_init(struct sroce_qp *qp)
{
	INIT_WORK(&qp->work, sroce_qp_work);
	mutex_init(&qp->engine_lock);
	skb_queue_head_init(&qp->req_pkts);
	skb_queue_head_init(&qp->resp_pkts);
	timer_setup(&qp->retry_timer, sroce_retry_timer_fn, 0);
	timer_setup(&qp->rnr_timer, sroce_rnr_timer_fn, 0);
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

/**
 * sroce_task_rx - queue a checked packet for the engine of its QP
 * @qp: the QP; the packet holds a reference on it
 * @skb: the packet, sroce_pkt(skb)->qp == @qp
 *
 * Context: softirq or BH disabled.
 */
void sroce_task_rx(struct sroce_qp *qp, struct sk_buff *skb)
{
	struct sk_buff_head *list = sroce_pkt(skb)->info->flags & SROCE_OPF_REQ ?
				    &qp->req_pkts : &qp->resp_pkts;
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
	if (!sroce_inline_note(qp))
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
	/* Wait out an inline runner (sroce_inline_engine()) already inside. */
	mutex_lock(&qp->engine_lock);
	mutex_unlock(&qp->engine_lock);
	del_timer_sync(&qp->retry_timer);
	del_timer_sync(&qp->rnr_timer);
	cancel_work_sync(&qp->work);
	sroce_purge(&qp->req_pkts);
	sroce_purge(&qp->resp_pkts);
}
