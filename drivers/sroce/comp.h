/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The completer: ACKs, NAKs, READ responses and ATOMIC acknowledgments
 * from the responder retire send WQEs; timeouts and NAKs make the
 * requester go back; completions are posted in send-queue order.
 */
#ifndef SROCE_COMP_H
#define SROCE_COMP_H

#include <linux/types.h>

struct sroce_qp;

bool sroce_comp_run(struct sroce_qp *qp);
void sroce_comp_retire(struct sroce_qp *qp);
void sroce_comp_arm_timer(struct sroce_qp *qp);
bool sroce_comp_flush(struct sroce_qp *qp);
void sroce_retry_timer_fn(struct timer_list *t);
void sroce_rnr_timer_fn(struct timer_list *t);

#endif /* SROCE_COMP_H */
