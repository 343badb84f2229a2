/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The responder's READ and ATOMIC requests, and its duplicates: each READ
 * or ATOMIC executed is kept in one of the QP's responder resources, from
 * which a duplicate is answered again without being executed again.
 */
#ifndef SROCE_RESP_RES_H
#define SROCE_RESP_RES_H

#include <linux/types.h>

#include "resp.h"

struct sk_buff;
struct sroce_qp;

enum sroce_resp_ret sroce_resp_read(struct sroce_qp *qp, struct sk_buff *skb);
bool sroce_resp_read_some(struct sroce_qp *qp);
void sroce_resp_read_retries(struct sroce_qp *qp);
enum sroce_resp_ret sroce_resp_atomic(struct sroce_qp *qp,
				      struct sk_buff *skb);
enum sroce_resp_ret sroce_resp_atomic_write(struct sroce_qp *qp,
					    struct sk_buff *skb);
void sroce_resp_duplicate(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_resp_res_reset(struct sroce_qp *qp);

#endif /* SROCE_RESP_RES_H */
