/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The responder: request packets are checked against the QP's expected
 * PSN and message state, executed (receive WQE, RDMA WRITE, READ, ATOMIC)
 * and acknowledged.
 */
#ifndef SROCE_RESP_H
#define SROCE_RESP_H

#include <linux/types.h>

#include "qp.h"
#include "wire.h"

struct sk_buff;

/*
 * READ/ATOMIC requests an RC responder keeps to answer duplicates: as many
 * as max_dest_rd_atomic at its first transition to RTR (a peer has at most
 * that many outstanding), within these bounds.
 */
#define SROCE_RD_RES_MIN	8
#define SROCE_RD_RES_MAX	128

bool sroce_resp_run(struct sroce_qp *qp);
bool sroce_resp_flush(struct sroce_qp *qp);

/* Within the responder (resp.c, resp_res.c): */

/* Outcome of executing one request packet. */
enum sroce_resp_ret {
	SROCE_RESP_OK,
	SROCE_RESP_DONE,	/* answered already (READ, ATOMIC) */
	SROCE_RESP_DROP,	/* silently dropped */
	SROCE_RESP_RNR,		/* no receive WQE: RNR NAK */
	SROCE_RESP_NAK_INV,
	SROCE_RESP_NAK_ACCESS,
	SROCE_RESP_NAK_OP,
};

/*
 * An ACK's syndrome: no end-to-end credits, as a request that finds no
 * receive WQE gets an RNR NAK instead.
 */
static inline u8 sroce_ack_syn(void)
{
	return sroce_aeth_syn_ack(SROCE_AETH_CREDIT_UNLIMITED);
}

/* Does the QP let remote requests have all of @access? */
static inline bool sroce_qp_allows(struct sroce_qp *qp, int access)
{
	return (qp->attr.qp_access_flags & access) == access;
}

struct sroce_mr *sroce_resp_mr(struct sroce_qp *qp, u32 rkey, u64 va, u64 len,
			       int access);
struct sk_buff *sroce_resp_skb(struct sroce_qp *qp, u8 opcode, u32 psn,
			       u32 paylen);
void sroce_resp_xmit(struct sroce_qp *qp, struct sk_buff *skb);
void sroce_send_ack(struct sroce_qp *qp, u8 syn, u32 psn);

#endif /* SROCE_RESP_H */
