/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Queue pairs: the object, its rings and the IB state machine. The
 * transport (requester, responder, completer) builds on this.
 */
#ifndef SROCE_QP_H
#define SROCE_QP_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "pool.h"
#include "queue.h"

struct sroce_cq;
struct sroce_srq;

#define SROCE_GSI_QPN		1
#define SROCE_MIN_QPN		16
#define SROCE_MAX_QPN		0xffffff

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
	spinlock_t rq_lock;
	struct sroce_queue sq;
	struct sroce_queue rq;		/* unused with an SRQ */
	u32 sq_max_sge;
	u32 sq_max_inline;
	u32 rq_max_sge;
	enum ib_sig_type sq_sig_type;

	struct list_head mcast_list;	/* groups attached, under mcast lock */
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

extern const struct ib_device_ops sroce_qp_ops;

#endif /* SROCE_QP_H */
