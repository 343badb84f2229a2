/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory windows, type 1 and type 2. A window is bound to a range of an MR
 * by a work request (bind_mw / IB_WR_BIND_MW), which the transport runs;
 * this file owns the object and its key.
 */
#ifndef SROCE_MW_H
#define SROCE_MW_H

#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "mr.h"

struct sroce_qp;

enum sroce_mw_state {
	SROCE_MW_FREE,		/* allocated, not bound */
	SROCE_MW_VALID,		/* bound to @mr */
	SROCE_MW_INVALID,	/* invalidated; may be bound again */
};

struct sroce_mw {
	struct ib_mw ibmw;
	struct sroce_keyed key;
	/* lock protects the binding below; taken from any context */
	spinlock_t lock;
	enum sroce_mw_state state;
	struct sroce_mr *mr;		/* referenced while bound */
	struct sroce_qp *qp;		/* type 2: the QP it is bound to */
	u64 addr;
	u64 length;
	int access;
};

/* A BIND_MW work request, as the requester copied it from the send ring. */
struct sroce_mw_bind_wr {
	u32 mw_rkey;		/* the window */
	u32 mr_lkey;		/* the MR to bind it to, unless @length is 0 */
	u32 new_rkey;		/* the window's key once bound */
	u32 access;
	u64 addr;
	u64 length;
};

static inline struct sroce_mw *to_smw(struct ib_mw *ibmw)
{
	return container_of(ibmw, struct sroce_mw, ibmw);
}

void sroce_mw_unbind(struct sroce_mw *mw);

struct sroce_dev;

struct sroce_mr *sroce_rkey_resolve(struct sroce_dev *sdev,
				    struct sroce_qp *qp, u32 rkey, u64 va,
				    u64 length, int access);
int sroce_mw_bind(struct sroce_dev *sdev, struct sroce_qp *qp,
		  const struct sroce_mw_bind_wr *w);
int sroce_key_invalidate(struct sroce_dev *sdev, struct sroce_qp *qp,
			 u32 key, bool remote);

extern const struct ib_device_ops sroce_mw_ops;

#endif /* SROCE_MW_H */
