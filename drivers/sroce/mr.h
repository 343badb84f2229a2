/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory regions: key checks, copies to and from registered memory, and
 * user memory appended to packets by reference.
 *
 * MRs and MWs share the device's key pool: the upper 24 bits of an lkey or
 * rkey are the pool index, the low 8 bits vary from one registration to
 * the next (and, for fast-registration MRs, are chosen by the consumer).
 * A key names a live object only if all 32 bits match.
 */
#ifndef SROCE_MR_H
#define SROCE_MR_H

#include <linux/skbuff.h>
#include <rdma/ib_verbs.h>

#include "pool.h"

struct sroce_dev;
struct sroce_pd;

enum sroce_key_kind {
	SROCE_KEY_MR = 1,
	SROCE_KEY_MW,
};

/* What the key pool holds: an MR or an MW, told apart by @kind. */
struct sroce_keyed {
	struct sroce_pool_elem elem;
	enum sroce_key_kind kind;
	u32 key;	/* the full current key; WRITE_ONCE when it changes */
};

enum sroce_mr_type {
	SROCE_MR_DMA,		/* kernel: the whole kernel address space */
	SROCE_MR_USER,		/* pinned user pages (ib_umem) */
	SROCE_MR_FAST_REG,	/* kernel: pages given by IB_WR_REG_MR */
	SROCE_MR_ODP,		/* user pages looked up at each access */
};

enum sroce_mr_state {
	SROCE_MR_INVALID,	/* fast-reg MR not (or no longer) registered */
	SROCE_MR_VALID,
};

enum sroce_copy_dir {
	SROCE_TO_MR,
	SROCE_FROM_MR,
};

struct sroce_mr {
	struct ib_mr ibmr;
	struct sroce_keyed key;
	enum sroce_mr_type type;
	/* state and access change under the owning QP's send processing */
	enum sroce_mr_state state;
	int access;

	/* SROCE_MR_USER: one struct page per PAGE_SIZE of the region. */
	struct ib_umem *umem;
	struct page **pages;
	unsigned int npages;
	unsigned int first_offset;	/* of ibmr.iova in pages[0] */

	/* SROCE_MR_FAST_REG: kernel addresses of ibmr.page_size blocks. */
	u64 *blocks;
	unsigned int nblocks;
	unsigned int max_blocks;

	/* SROCE_MR_ODP: the registering process and where ibmr.iova is. */
	struct mm_struct *mm;
	u64 odp_start;

	atomic_t num_mw;		/* memory windows bound to it */
};

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

u32 sroce_next_key(struct sroce_dev *sdev, u32 index);
struct sroce_keyed *sroce_key_get(struct sroce_dev *sdev, u32 key);
void sroce_key_put(struct sroce_keyed *k);

struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key);
void sroce_mr_put(struct sroce_mr *mr);
int sroce_mr_check(struct sroce_mr *mr, struct ib_pd *pd, u64 iova,
		   u64 length, int access);
int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 length,
		  enum sroce_copy_dir dir);
u64 *sroce_mr_map_word(struct sroce_mr *mr, u64 iova, struct page **page);
void sroce_mr_unmap_word(struct sroce_mr *mr, u64 *word, struct page *page);

int sroce_mr_attach(struct sroce_mr *mr, u64 iova, struct sk_buff *skb,
		    u32 length);

struct rxe_sge;

int sroce_sge_copy(struct sroce_dev *sdev, struct ib_pd *pd,
		   const struct rxe_sge *sge, u32 num_sge, u32 offset,
		   void *buf, u32 length, enum sroce_copy_dir dir);
int sroce_sge_attach(struct sroce_dev *sdev, struct ib_pd *pd,
		     const struct rxe_sge *sge, u32 num_sge, u32 offset,
		     struct sk_buff *skb, u32 length);

extern const struct ib_device_ops sroce_mr_ops;

#endif /* SROCE_MR_H */
