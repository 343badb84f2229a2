/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scheduling of the per-QP engine on sroce's workqueue, and the queues of
 * received packets it consumes.
 */
#ifndef SROCE_TASK_H
#define SROCE_TASK_H

#include <linux/bitops.h>
#include <linux/lockdep.h>
#include <linux/sched.h>

#include "qp.h"

struct sk_buff;
struct sroce_dev;

/*
 * The engine's rule: each side of a QP has one runner at a time, the
 * holder of the side's busy bit (task.c), so what the side owns is touched
 * without a lock. Asserted on entry to every function that relies on it:
 * on kernels with lockdep, the caller must be the side's holder.
 */
static inline void sroce_side_assert_held(struct sroce_qp *qp,
					  enum sroce_side side)
{
#ifdef CONFIG_LOCKDEP
	const struct sroce_engine_side *es = &qp->side[side];

	lockdep_assert_once(test_bit(0, &es->busy) &&
			    READ_ONCE(es->owner) == current);
#endif
}

int sroce_task_init(void);
void sroce_task_exit(void);

/* A QP's engine: set up, RESET, tear down. */
int sroce_task_qp_init(struct sroce_qp *qp);
void sroce_task_reset_begin(struct sroce_qp *qp);
void sroce_task_reset_state(struct sroce_qp *qp);
void sroce_task_reset_end(struct sroce_qp *qp, bool entered);
void sroce_task_qp_stop(struct sroce_qp *qp);
void sroce_task_qp_free(struct sroce_qp *qp);
void sroce_task_qp_error(struct sroce_qp *qp);

void sroce_task_sched(struct sroce_qp *qp);
void sroce_task_doorbell(struct sroce_qp *qp);
void sroce_task_rx(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_task_consume(struct sk_buff *skb);

#endif /* SROCE_TASK_H */
