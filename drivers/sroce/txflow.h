/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transmit flow control: how many of a QP's packets the network stack
 * still holds (qdisc, driver ring). The requester and the READ responder
 * stop at a high mark and are woken when the stack has freed enough.
 */
#ifndef SROCE_TXFLOW_H
#define SROCE_TXFLOW_H

#include <linux/types.h>

struct sroce_qp;
struct sk_buff;

#define SROCE_SKB_OUT_HIGH	64	/* stop sending at this many */
#define SROCE_SKB_OUT_LOW	16	/* wake the engine at this many */

void sroce_txflow_track(struct sroce_qp *qp, struct sk_buff *skb);
bool sroce_txflow_full(struct sroce_qp *qp);

#endif /* SROCE_TXFLOW_H */
