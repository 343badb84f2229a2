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

/*
 * READ/ATOMIC requests an RC responder keeps to answer duplicates: as many
 * as max_dest_rd_atomic at its first transition to RTR (a peer has at most
 * that many outstanding), within these bounds.
 */
#define SROCE_RD_RES_MIN	8
#define SROCE_RD_RES_MAX	128

bool sroce_resp_run(struct sroce_qp *qp);
bool sroce_resp_flush(struct sroce_qp *qp);

#endif /* SROCE_RESP_H */
