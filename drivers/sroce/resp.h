/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The responder: request packets are checked against the QP's expected
 * PSN and message state, executed (receive WQE, RDMA WRITE, READ, ATOMIC)
 * and acknowledged.
 */
#ifndef SROCE_RESP_H
#define SROCE_RESP_H

#include <linux/types.h>

struct sroce_qp;

#define SROCE_RD_RES		32	/* READ/ATOMIC kept for duplicates */

bool sroce_resp_run(struct sroce_qp *qp);
bool sroce_resp_flush(struct sroce_qp *qp);

#endif /* SROCE_RESP_H */
