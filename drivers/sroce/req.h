/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The requester: send WQEs become packets.
 *
 * Each WQE is copied out of the send ring once, into a struct sroce_swqe
 * in kernel memory, and validated there; nothing reads the ring slot
 * again. The swqe lives until the completer retires the WQE.
 */
#ifndef SROCE_REQ_H
#define SROCE_REQ_H

#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "mw.h"

struct sroce_qp;

enum sroce_swqe_state {
	SROCE_SWQE_POSTED,	/* copied, nothing sent yet */
	SROCE_SWQE_PENDING,	/* all sent, waiting for ACK or response */
	SROCE_SWQE_DONE,	/* finished: completes when it is the oldest */
};

struct sroce_swqe {
	u64 wr_id;
	u32 opcode;			/* IB_WR_* */
	u32 send_flags;
	union {
		__be32 imm_data;
		u32 invalidate_rkey;
	} ex;
	u64 remote_addr;
	u32 rkey;
	u64 compare_add;
	u64 swap;
	/* UD */
	u32 remote_qpn;
	u32 remote_qkey;
	struct rxe_av av;
	struct sroce_mw_bind_wr bind;	/* BIND_MW */
	/* REG_MR */
	struct ib_mr *reg_mr;
	u32 reg_key;
	u32 reg_access;

	u32 length;			/* bytes of the message */
	u32 num_sge;
	bool is_inline;
	enum sroce_swqe_state state;
	enum ib_wc_status status;
	u32 first_psn;
	u32 last_psn;
	u32 read_done;			/* READ: bytes of response placed */
	u8 data[];			/* struct rxe_sge[num_sge] or inline bytes */
};

static inline const struct rxe_sge *sroce_swqe_sge(const struct sroce_swqe *w)
{
	return (const struct rxe_sge *)w->data;
}

struct sroce_swqe *sroce_swqe_at(struct sroce_qp *qp, u32 index);
int sroce_swqes_init(struct sroce_qp *qp);
void sroce_swqes_free(struct sroce_qp *qp);
/* READ and atomics use one of the responder's resources (max_rd_atomic). */
static inline bool sroce_is_rd_atomic(u32 opcode)
{
	return opcode == IB_WR_RDMA_READ || opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
}

bool sroce_req_run(struct sroce_qp *qp);
void sroce_req_rewind(struct sroce_qp *qp, u32 psn);
void sroce_req_skip_acked(struct sroce_qp *qp, u32 psn);
void sroce_req_probe(struct sroce_qp *qp);

#endif /* SROCE_REQ_H */
