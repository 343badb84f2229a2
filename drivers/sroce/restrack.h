/* SPDX-License-Identifier: GPL-2.0 */
#ifndef SROCE_RESTRACK_H
#define SROCE_RESTRACK_H

struct ib_qp;
struct sk_buff;

int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

#endif
