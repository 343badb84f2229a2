/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transmit flow control: how much of a destination's traffic the network
 * stack still holds (qdisc, driver ring). The requester and the READ
 * responder stop at a high mark and are woken when the stack has freed
 * enough.
 */
#ifndef SROCE_TXFLOW_H
#define SROCE_TXFLOW_H

#include <linux/types.h>

struct rxe_av;
struct sroce_dev;
struct sroce_qp;
struct sroce_txflow;
struct sroce_txflow_table;
struct sk_buff;
struct sock;

void sroce_txflow_table_init(struct sroce_txflow_table *table);

int sroce_txflow_qp_init(struct sroce_qp *qp);
void sroce_txflow_unbind(struct sroce_qp *qp);
void sroce_txflow_qp_reset(struct sroce_qp *qp);

struct sroce_txflow *sroce_txflow_get(struct sroce_dev *sdev, const u8 *sgid,
				      const u8 *dgid);
bool sroce_txflow_bind(struct sroce_qp *qp, struct sroce_txflow *flow);
void sroce_txflow_put(struct sroce_dev *sdev, struct sroce_txflow *flow);
bool sroce_txflow_per_dest(const struct sroce_qp *qp);

void sroce_txflow_track(struct sroce_qp *qp, struct sk_buff *skb);
bool sroce_txflow_full(struct sroce_qp *qp);
bool sroce_txflow_throttled(struct sroce_qp *qp);
struct sock *sroce_txflow_route(struct sroce_qp *qp);
void sroce_txflow_av_sgid(const struct rxe_av *av, u8 *sgid);
void sroce_txflow_path_set(struct sroce_qp *qp);

#endif /* SROCE_TXFLOW_H */
