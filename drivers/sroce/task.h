/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scheduling of the per-QP engine on sroce's workqueue, and the queues of
 * received packets it consumes.
 */
#ifndef SROCE_TASK_H
#define SROCE_TASK_H

struct sk_buff;
struct sroce_dev;
struct sroce_qp;

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
