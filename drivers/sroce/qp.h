/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue pairs: the object, with the state of its rings and of its engine.
 * The transport (requester, responder, completer) builds on this; the
 * verbs (qp_verbs.c) on both.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/mutex.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "pool.h"
#include "queue.h"
#include "window.h"

struct sroce_cq;
struct sroce_dev;
struct sroce_mr;
struct sroce_srq;
struct sroce_swqe;
struct sroce_txflow;
struct sock;

#define SROCE_GSI_QPN		1
#define SROCE_MIN_QPN		16
#define SROCE_MAX_QPN		0xffffff

enum sroce_side {
	SROCE_SIDE_SEND,	/* completer and requester */
	SROCE_SIDE_RECV,	/* responder */
	SROCE_SIDES
};

/* One side of a QP's engine: its runner's lock, and work left for it. */
struct sroce_engine_side {
	unsigned long busy;	/* bit 0: a runner holds the side (task.c) */
	bool kick;		/* work came while the side was held */
#ifdef CONFIG_LOCKDEP
	/* the task of the runner holding @busy, for sroce_side_assert_held() */
	struct task_struct *owner;
#endif
};

struct sroce_qp {
	struct ib_qp ibqp;
	struct sroce_pool_elem elem;	/* QPN in sdev->qp_pool */
	bool is_user;

	/*
	 * lock protects @state, @attr and @av: written by modify_qp (process
	 * context), read by the transport (any context). irqsave.
	 */
	spinlock_t lock;
	enum ib_qp_state state;
	struct ib_qp_attr attr;		/* as last modified, for query_qp */
	struct rxe_av av;		/* primary path, valid after RTR */
	u16 src_port;			/* UDP source port of our packets */

	struct sroce_cq *scq;
	struct sroce_cq *rcq;
	struct sroce_srq *srq;

	/*
	 * sq_lock serialises kernel producers of @sq (post_send of kernel
	 * QPs); rq_lock the same for @rq. The transport consumes under its
	 * own serialisation. irqsave: kernel consumers post from any context.
	 */
	spinlock_t sq_lock;
	spinlock_t rq_lock;		/* see sq_lock */
	struct sroce_queue sq;
	struct sroce_queue rq;		/* unused with an SRQ */
	u32 sq_max_sge;
	u32 sq_max_inline;
	u32 rq_max_sge;
	enum ib_sig_type sq_sig_type;

	struct list_head mcast_list;	/* groups attached, under mcast lock */

	/*
	 * The engine, in two sides (task.c): the send side runs the
	 * completer and requester (req.*, comp.*, the SQ, the timers), the
	 * receive side the responder (resp.*, the RQ). Each side has one
	 * runner at a time - the work item, a doorbell or an inline runner -
	 * so what it owns is touched only from it (and from create/destroy,
	 * when it cannot run), except where noted. The sides share only the
	 * transmit flow control below, which is safe between them.
	 */
	struct work_struct work;
	struct sroce_engine_side side[SROCE_SIDES];
	bool dead;			/* destroy started: no more scheduling */
	struct sk_buff_head req_pkts;	/* requests for the responder */
	struct sk_buff_head resp_pkts;	/* responses and ACKs for the completer */
	struct timer_list retry_timer;	/* transport timeout */
	struct timer_list rnr_timer;	/* RNR NAK back-off */
	bool retry_timer_fired;		/* set by the timer, cleared by the work */
	/*
	 * Requester paused by an RNR NAK or an allocation back-off: set by
	 * the send side, cleared by rnr_timer and by RESET, read by the
	 * requester; hence READ_ONCE/WRITE_ONCE.  A clear racing a set only
	 * resumes the requester one back-off early.
	 */
	bool rnr_wait;
	/* transmit flow control (txflow.c): what its packets are charged to */
	struct sroce_txflow *txflow;
	u32 txflow_id;			/* its id, for "rdma res"; 0: none */
	/* the flow's socket when it caches the route of @av, else NULL */
	struct sock *tx_route;
	struct wait_queue_entry tx_wait;	/* on its wait queue while throttled */
	bool tx_throttled;

	/*
	 * Kernel copies of the send WQEs between sq.cons and req.snap, in a
	 * power-of-two array that grows up to @swqe_max entries.
	 */
	u8 *swqes;
	u32 swqe_mask;
	u32 swqe_shift;
	u32 swqe_max;
	/*
	 * The first, small array lives here: ib_core allocates the QP with
	 * kzalloc, whose 2 KiB object has this much room to spare anyway.
	 */
	u8 swqe_first[512] __aligned(8);

	struct sroce_req_state {
		u32 index;		/* SQ index being sent */
		u32 snap;		/* SQ index of the next WQE to copy */
		u32 psn;		/* next PSN to send */
		u32 psn_hi;		/* one past the highest PSN sent */
		u32 offset;		/* bytes of the current WQE sent */
		u32 noack_pkts;		/* packets since the last AckReq */
		u32 rd_atomic;		/* READ/ATOMIC requests outstanding */
		u32 retry_cnt;		/* transport retries left */
		u32 rnr_retry;		/* RNR retries left */
		unsigned long retry_since; /* jiffies of the first timeout, 0: none */
		struct sroce_window window; /* RC: unacknowledged PSNs allowed */
	} req;

	struct sroce_comp_state {
		u32 psn;		/* oldest PSN not yet acknowledged */
		/* went back to back_psn for a lost response (comp.c) */
		bool went_back;
		u32 back_psn;
		/* the tail was probed since the last progress (comp.c) */
		bool probed;
	} comp;

	struct sroce_resp_state {
		u32 psn;		/* next PSN expected */
		u32 msn;		/* messages completed */
		bool nak_sent;		/* a PSN sequence NAK is outstanding */
		bool drop_msg;		/* UC: skip to the next FIRST/ONLY */
		u32 in_msg;		/* SROCE_OPF_SEND/WRITE of a message in progress */
		/* the receive WQE being filled, copied from the ring */
		bool have_rwqe;
		/* SRQ: Last WQE Reached reported for this entry into ERR */
		bool last_wqe_reported;
		u32 rwqe_offset;
		struct rxe_recv_wqe *rwqe;
		/* the RDMA WRITE in progress */
		struct sroce_rkey_ref {
			u64 va;
			u32 resid;
			u32 rkey;
			u32 len;
		} write;
		/* READ and ATOMIC requests kept for duplicates (RC) */
		struct sroce_rd_res *res;	/* set once, at the first RTR */
		u32 res_count;
		u32 res_head;
		struct sroce_rd_res *cur_read;	/* responses still to send */
		u32 cur_read_psn;		/* PSN the next response carries */
	} resp;
};

/* A READ or ATOMIC a responder executed, kept to answer duplicates. */
struct sroce_rd_res {
	u8 opcode;
	bool valid;
	u32 first_psn;
	u32 last_psn;
	u64 va;			/* READ: where the next response reads */
	u32 resid;		/* READ: bytes still to send */
	u64 orig_va;		/* READ: the range the request asked for */
	u32 orig_len;
	u32 rkey;
	u64 atomic_orig;	/* ATOMIC: the value returned */
};

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

static inline u32 sroce_qpn(const struct sroce_qp *qp)
{
	return qp->ibqp.qp_num;
}

enum ib_qp_state sroce_qp_state(struct sroce_qp *qp);
bool sroce_qp_takes_packets(struct sroce_qp *qp);
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn);
void sroce_qp_put(struct sroce_qp *qp);
bool sroce_qp_set_error(struct sroce_qp *qp);

#endif /* SROCE_QP_H */
