/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transmit flow control: how much of a QP's traffic the network stack
 * still holds (qdisc, driver ring). The requester and the READ responder
 * stop at a high mark and are woken when the stack has freed enough.
 */
#ifndef SROCE_TXFLOW_H
#define SROCE_TXFLOW_H

#include <linux/types.h>

struct sroce_qp;
struct sk_buff;

int sroce_txflow_init(struct sroce_qp *qp);
void sroce_txflow_destroy(struct sroce_qp *qp);
void sroce_txflow_track(struct sroce_qp *qp, struct sk_buff *skb);
bool sroce_txflow_full(struct sroce_qp *qp);
bool sroce_txflow_throttled(struct sroce_qp *qp);

#endif /* SROCE_TXFLOW_H */
