// SPDX-License-Identifier: GPL-2.0
/*
 * The QP object as the layers above it see it: its state, and finding it
 * by number. The verbs that create, change and destroy QPs are in
 * qp_verbs.c; the engine that moves their packets in task.c.
 */
#include "sroce.h"
#include "qp.h"

enum ib_qp_state sroce_qp_state(struct sroce_qp *qp)
{
	return READ_ONCE(qp->state);
}

/*
 * Whether the engine acts on a dequeued packet: one queued before the QP
 * went to ERR, or RESET and on, belongs to a connection that is gone.
 */
bool sroce_qp_takes_packets(struct sroce_qp *qp)
{
	enum ib_qp_state state = sroce_qp_state(qp);

	return state >= IB_QPS_RTR && state <= IB_QPS_SQE;
}

/**
 * sroce_qp_set_error - move a QP to the error state after a fatal error
 * @qp: the QP
 *
 * Tells the consumer (IB_EVENT_QP_FATAL) when the state changed; the
 * engine's flush is the caller's to start (sroce_task_qp_error()).
 *
 * Context: any.
 * Return: true when the QP entered the error state now.
 */
bool sroce_qp_set_error(struct sroce_qp *qp)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = IB_EVENT_QP_FATAL,
	};
	unsigned long flags;
	bool changed;

	spin_lock_irqsave(&qp->lock, flags);
	changed = qp->state != IB_QPS_ERR && qp->state != IB_QPS_RESET;
	if (changed) {
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		qp->attr.qp_state = IB_QPS_ERR;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	if (changed && qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	return changed;
}

/**
 * sroce_qp_get - find a QP by number and take a reference
 * @sdev: the device
 * @qpn: untrusted QP number
 *
 * Context: any.
 * Return: the QP or NULL.
 */
struct sroce_qp *sroce_qp_get(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_pool_elem *elem = sroce_pool_get(&sdev->qp_pool, qpn);

	return elem ? container_of(elem, struct sroce_qp, elem) : NULL;
}

void sroce_qp_put(struct sroce_qp *qp)
{
	sroce_pool_put(&qp->elem);
}
