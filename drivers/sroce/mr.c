// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions.
 *
 * Four kinds: the kernel DMA MR (ib_alloc_pd() asks for it; with virtual
 * DMA its addresses are kernel virtual addresses), user MRs over pinned
 * pages, on-demand-paging user MRs (odp.c) and fast-registration MRs whose
 * pages a kernel consumer supplies with map_mr_sg() and activates with an
 * IB_WR_REG_MR work request.
 *
 * The memory of an MR is ours: dereg unpublishes the key, waits for every
 * holder (the packet path holds a reference while it copies) and frees.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <sroce/params.h>

#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce.h"
#include "fault.h"
#include "mr.h"
#include "odp.h"

/*
 * Access flags sroce implements; the optional ones and HUGETLB ("the pages
 * are huge pages") are hints it may ignore.
 */
#define SROCE_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC | \
			 IB_ACCESS_MW_BIND | IB_ACCESS_ON_DEMAND | \
			 IB_ACCESS_HUGETLB | IB_ACCESS_OPTIONAL)

/* A fresh key for pool index @index: the low byte varies per object. */
u32 sroce_next_key(struct sroce_dev *sdev, u32 index)
{
	return index << 8 | (atomic_inc_return(&sdev->key_variant) & 0xff);
}

/**
 * sroce_key_get - find the MR or MW an lkey/rkey names
 * @sdev: the device
 * @key: untrusted key
 *
 * Context: any.
 * Return: the object with a reference held, or NULL when no live object
 * has exactly this key.
 */
struct sroce_keyed *sroce_key_get(struct sroce_dev *sdev, u32 key)
{
	struct sroce_pool_elem *elem = sroce_pool_get(&sdev->key_pool, key >> 8);
	struct sroce_keyed *k;

	if (!elem)
		return NULL;
	k = container_of(elem, struct sroce_keyed, elem);
	if (READ_ONCE(k->key) != key) {
		sroce_pool_put(elem);
		return NULL;
	}
	return k;
}

void sroce_key_put(struct sroce_keyed *k)
{
	sroce_pool_put(&k->elem);
}

/* The MR an lkey or rkey names, referenced; NULL for MWs and bad keys. */
struct sroce_mr *sroce_mr_get(struct sroce_dev *sdev, u32 key)
{
	struct sroce_keyed *k = sroce_key_get(sdev, key);

	if (!k)
		return NULL;
	if (k->kind != SROCE_KEY_MR) {
		sroce_key_put(k);
		return NULL;
	}
	return container_of(k, struct sroce_mr, key);
}

void sroce_mr_put(struct sroce_mr *mr)
{
	sroce_key_put(&mr->key);
}

/**
 * sroce_mr_check - may @length bytes at @iova be accessed as @access?
 * @mr: a referenced MR
 * @pd: the PD of the QP asking
 * @iova: first byte, untrusted
 * @length: untrusted
 * @access: IB_ACCESS_* bits the operation needs (0 for a local read)
 *
 * The range is checked without any u64 wrap-around: [iova, iova + length)
 * must lie inside [mr iova, mr iova + mr length).
 *
 * Context: any.
 * Return: 0, or -EACCES for a bad state, PD or access, -ERANGE for a bad
 * range.
 */
int sroce_mr_check(struct sroce_mr *mr, struct ib_pd *pd, u64 iova,
		   u64 length, int access)
{
	u64 start = mr->ibmr.iova, len = mr->ibmr.length;

	if (READ_ONCE(mr->state) != SROCE_MR_VALID || mr->ibmr.pd != pd)
		return -EACCES;
	if ((READ_ONCE(mr->access) & access) != access)
		return -EACCES;
	if (mr->type == SROCE_MR_DMA)
		return 0;
	if (iova < start || iova - start > len || length > len - (iova - start))
		return -ERANGE;
	return 0;
}

/*
 * Where @iova of a checked MR lives: a kernel address (DMA and fast-reg
 * MRs), or a page and the offset in it (pinned user MRs, which are kmapped
 * or referenced by the caller), and how many bytes are contiguous there.
 */
struct sroce_mr_span {
	void *va;
	struct page *page;
	u32 offset;
	u32 len;
};

static void sroce_mr_locate(struct sroce_mr *mr, u64 iova,
			    struct sroce_mr_span *span)
{
	u64 off;

	*span = (struct sroce_mr_span){};
	switch (mr->type) {
	case SROCE_MR_DMA:
		span->va = (void *)(uintptr_t)iova;
		span->len = U32_MAX;
		break;
	case SROCE_MR_USER:
		off = iova - mr->ibmr.iova + mr->first_offset;
		span->page = mr->pages[off >> PAGE_SHIFT];
		span->offset = offset_in_page(off);
		span->len = PAGE_SIZE - span->offset;
		break;
	case SROCE_MR_FAST_REG: {
		u64 psz = mr->ibmr.page_size;

		off = iova - (mr->ibmr.iova & ~(psz - 1));
		span->va = (void *)(uintptr_t)(mr->blocks[off / psz] +
					       (off & (psz - 1)));
		span->len = psz - (off & (psz - 1));
		break;
	}
	case SROCE_MR_ODP:	/* never: copied by sroce_odp_copy() */
		break;
	}
}

/**
 * sroce_mr_copy - copy between a kernel buffer and registered memory
 * @mr: a referenced MR on which sroce_mr_check() passed for this range
 * @iova: first byte in the MR
 * @buf: kernel buffer
 * @length: bytes
 * @dir: SROCE_TO_MR or SROCE_FROM_MR
 *
 * Context: any; process context for an ODP MR.
 * Return: 0, or -EFAULT when an ODP MR's pages are not there.
 */
int sroce_mr_copy(struct sroce_mr *mr, u64 iova, void *buf, u32 length,
		  enum sroce_copy_dir dir)
{
	if (mr->type == SROCE_MR_ODP)
		return sroce_odp_copy(mr, iova, buf, length, dir);
	while (length) {
		struct sroce_mr_span span;
		void *va;
		u32 n;

		sroce_mr_locate(mr, iova, &span);
		n = min(span.len, length);
		va = span.page ? kmap_local_page(span.page) + span.offset :
				 span.va;
		if (dir == SROCE_TO_MR)
			memcpy(va, buf, n);
		else
			memcpy(buf, va, n);
		if (span.page)
			kunmap_local(va);
		iova += n;
		buf += n;
		length -= n;
	}
	return 0;
}

/**
 * sroce_mr_map_word - map an aligned 8-byte word of an MR for an atomic
 * @mr: a referenced MR on which sroce_mr_check() passed for the word
 * @iova: the word, 8-byte aligned (so it never straddles a page or block)
 * @page: set to what sroce_mr_unmap_word() needs
 *
 * Context: may sleep for an ODP MR; call before taking the atomic lock.
 * Return: the word's kernel address, or NULL (ODP page not there).
 */
u64 *sroce_mr_map_word(struct sroce_mr *mr, u64 iova, struct page **page)
{
	struct sroce_mr_span span;

	*page = NULL;
	if (mr->type == SROCE_MR_ODP)
		return sroce_odp_map_word(mr, iova, page);
	sroce_mr_locate(mr, iova, &span);
	if (!span.page)
		return span.va;
	*page = span.page;
	get_page(*page);	/* both kinds are released alike */
	return kmap_local_page(*page) + span.offset;
}

/*
 * An ODP page was only referenced for the write, so it is dirtied here
 * (which may sleep: ODP atomics run in process context). A pinned MR's
 * pages are dirtied when they are unpinned, and an atomic may run in the
 * receive softirq, where set_page_dirty_lock() must not be called.
 */
void sroce_mr_unmap_word(struct sroce_mr *mr, u64 *word, struct page *page)
{
	if (!page)
		return;
	kunmap_local(word);
	if (mr->type == SROCE_MR_ODP)
		set_page_dirty_lock(page);
	put_page(page);
}

/**
 * sroce_mr_attach - append registered memory to a packet by reference
 * @mr: a referenced MR on which sroce_mr_check() passed for this range
 * @iova: first byte in the MR
 * @skb: the packet; the range becomes its next page fragments, each
 *	holding a reference to its page
 * @length: bytes
 *
 * Only pinned user pages can be referenced this way: a kernel MR's memory
 * may be slab, and an ODP MR's pages may go at any time.
 *
 * Context: any.
 * Return: 0, or -EOPNOTSUPP for another kind of MR or when the packet has
 * no fragment slot left (what was appended stays, and goes with the skb).
 */
int sroce_mr_attach(struct sroce_mr *mr, u64 iova, struct sk_buff *skb,
		    u32 length)
{
	if (mr->type != SROCE_MR_USER)
		return -EOPNOTSUPP;
	while (length) {
		int i = skb_shinfo(skb)->nr_frags;
		struct sroce_mr_span span;
		u32 n;

		if (i >= MAX_SKB_FRAGS)
			return -EOPNOTSUPP;
		sroce_mr_locate(mr, iova, &span);
		n = min(span.len, length);
		get_page(span.page);
		skb_fill_page_desc(skb, i, span.page, span.offset, n);
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
		iova += n;
		length -= n;
	}
	return 0;
}

/* What to do with each checked piece of a scatter/gather list. */
typedef int (*sroce_sge_fn)(struct sroce_mr *mr, u64 iova, u32 n, void *ctx);

static int sroce_sge_one(struct sroce_dev *sdev, struct ib_pd *pd,
			 const struct rxe_sge *sge, u32 off, u32 n, int access,
			 sroce_sge_fn fn, void *ctx)
{
	struct sroce_mr *mr;
	int err;

	mr = sroce_mr_get(sdev, sge->lkey);
	if (!mr)
		return -EACCES;
	err = sroce_mr_check(mr, pd, sge->addr + off, n, access);
	if (!err)
		err = fn(mr, sge->addr + off, n, ctx);
	sroce_mr_put(mr);
	return err;
}

/*
 * Call @fn on each piece of @length bytes at @offset of the list, after
 * checking the piece's lkey, PD, @access and range.
 */
static int sroce_sge_walk(struct sroce_dev *sdev, struct ib_pd *pd,
			  const struct rxe_sge *sge, u32 num_sge, u32 offset,
			  u32 length, int access, sroce_sge_fn fn, void *ctx)
{
	u32 i;
	int err;

	for (i = 0; i < num_sge && length; i++) {
		u32 n;

		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		n = min(sge[i].length - offset, length);
		err = sroce_sge_one(sdev, pd, &sge[i], offset, n, access, fn, ctx);
		if (err)
			return err;
		length -= n;
		offset = 0;
	}
	return length ? -EMSGSIZE : 0;
}

struct sroce_sge_copy_ctx {
	void *buf;
	enum sroce_copy_dir dir;
};

static int sroce_sge_copy_piece(struct sroce_mr *mr, u64 iova, u32 n,
				void *ctx)
{
	struct sroce_sge_copy_ctx *c = ctx;
	int err = sroce_mr_copy(mr, iova, c->buf, n, c->dir);

	c->buf += n;
	return err;
}

/**
 * sroce_sge_copy - copy between a kernel buffer and a scatter/gather list
 * @sdev: the device
 * @pd: the PD of the QP that owns the list
 * @sge: the list, already copied into kernel memory
 * @num_sge: its length
 * @offset: where in the list (counted across its elements) to start
 * @buf: kernel buffer
 * @length: bytes to copy
 * @dir: SROCE_TO_MR (receive) or SROCE_FROM_MR (send)
 *
 * Every element's lkey, PD, access and range are checked before a byte
 * moves through it.
 *
 * Context: any.
 * Return: 0, -EACCES or -ERANGE for a bad lkey or range, -EMSGSIZE when
 * the list is shorter than @offset + @length.
 */
int sroce_sge_copy(struct sroce_dev *sdev, struct ib_pd *pd,
		   const struct rxe_sge *sge, u32 num_sge, u32 offset,
		   void *buf, u32 length, enum sroce_copy_dir dir)
{
	struct sroce_sge_copy_ctx c = { .buf = buf, .dir = dir };

	return sroce_sge_walk(sdev, pd, sge, num_sge, offset, length,
			      dir == SROCE_TO_MR ? IB_ACCESS_LOCAL_WRITE : 0,
			      sroce_sge_copy_piece, &c);
}

static int sroce_sge_attach_piece(struct sroce_mr *mr, u64 iova, u32 n,
				  void *ctx)
{
	return sroce_mr_attach(mr, iova, ctx, n);
}

/**
 * sroce_sge_attach - append a scatter/gather list's memory to a packet
 * @sdev: the device
 * @pd: the PD of the QP that owns the list
 * @sge: the list, already copied into kernel memory
 * @num_sge: its length
 * @offset: where in the list to start
 * @skb: the packet (see sroce_mr_attach())
 * @length: bytes
 *
 * Checked as sroce_sge_copy() checks for SROCE_FROM_MR.
 *
 * Context: any.
 * Return: 0, an error of sroce_sge_copy(), or -EOPNOTSUPP when some of the
 * memory cannot be referenced (then copy it instead).
 */
int sroce_sge_attach(struct sroce_dev *sdev, struct ib_pd *pd,
		     const struct rxe_sge *sge, u32 num_sge, u32 offset,
		     struct sk_buff *skb, u32 length)
{
	return sroce_sge_walk(sdev, pd, sge, num_sge, offset, length, 0,
			      sroce_sge_attach_piece, skb);
}

static struct sroce_mr *sroce_mr_alloc(struct ib_pd *ibpd,
				       enum sroce_mr_type type, int access)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_mr *mr;
	int err;

	if (!sroce_charge(&sdev->num_mr, SROCE_MAX_MR))
		return ERR_PTR(-ENOMEM);
	mr = sroce_kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto err_uncharge;
	}
	err = sroce_pool_reserve(&sdev->key_pool, &mr->key.elem, GFP_KERNEL);
	if (err)
		goto err_free;
	mr->key.kind = SROCE_KEY_MR;
	mr->key.key = sroce_next_key(sdev, mr->key.elem.index);
	mr->ibmr.lkey = mr->key.key;
	mr->ibmr.rkey = mr->key.key;
	mr->type = type;
	mr->access = access;
	mr->ibmr.device = ibpd->device;
	mr->ibmr.pd = ibpd;
	atomic_set(&mr->num_mw, 0);
	return mr;

err_free:
	kfree(mr);
err_uncharge:
	atomic_dec(&sdev->num_mr);
	return ERR_PTR(err);
}

/* Undo sroce_mr_alloc() and everything attached to the MR since. */
static void sroce_mr_free(struct sroce_mr *mr)
{
	struct sroce_dev *sdev = to_sdev(mr->ibmr.device);

	sroce_pool_unpublish(&sdev->key_pool, &mr->key.elem);
	sroce_pool_drop_and_wait(&mr->key.elem);
	if (mr->type == SROCE_MR_ODP)
		sroce_odp_end(sdev);
	kvfree(mr->pages);
	if (mr->umem)
		ib_umem_release(mr->umem);
	sroce_odp_release(mr);
	kfree(mr->blocks);
	kfree(mr);
	atomic_dec(&sdev->num_mr);
}

static void sroce_mr_publish(struct sroce_mr *mr, struct ib_pd *ibpd)
{
	sroce_pool_publish(&to_sdev(ibpd->device)->key_pool, &mr->key.elem);
}

static struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_mr *mr = sroce_mr_alloc(ibpd, SROCE_MR_DMA, access);

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->ibmr.iova = 0;
	mr->ibmr.length = U64_MAX;
	mr->state = SROCE_MR_VALID;
	sroce_mr_publish(mr, ibpd);
	return &mr->ibmr;
}

/* Record the pinned pages so that any byte can be found in O(1). */
static int sroce_mr_map_umem(struct sroce_mr *mr)
{
	struct ib_umem *umem = mr->umem;
	struct sg_page_iter iter;
	unsigned int n = 0;

	mr->npages = ib_umem_num_pages(umem);
	mr->pages = sroce_kvmalloc_array(mr->npages, sizeof(*mr->pages),
					 GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		if (n == mr->npages)
			return -EFAULT;
		mr->pages[n++] = sg_page_iter_page(&iter);
	}
	if (n != mr->npages)
		return -EFAULT;
	mr->first_offset = ib_umem_offset(umem);
	return 0;
}

static int sroce_check_reg_args(u64 start, u64 length, u64 iova, int access)
{
	if (access & ~SROCE_MR_ACCESS)
		return -EOPNOTSUPP;
	/* The last byte may be at 2^64 - 1; nothing may wrap past it. */
	if (!length || length > SROCE_MAX_MR_SIZE ||
	    iova + (length - 1) < iova || start + (length - 1) < start)
		return -EINVAL;
	return 0;
}

/*
 * An ODP MR pins nothing: its pages are looked up at each access (odp.c).
 * Start 0 and length U64_MAX ask for an implicit MR over the whole address
 * space.
 */
static struct ib_mr *sroce_reg_odp_mr(struct ib_pd *ibpd, u64 start,
				      u64 length, u64 iova, int access)
{
	bool implicit = !start && length == U64_MAX;
	struct sroce_mr *mr;
	int err;

	if (implicit)
		err = (access & ~SROCE_MR_ACCESS) ? -EOPNOTSUPP :
		      iova ? -EINVAL : 0;
	else
		err = sroce_check_reg_args(start, length, iova, access);
	if (err)
		return ERR_PTR(err);
	mr = sroce_mr_alloc(ibpd, SROCE_MR_ODP, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	sroce_odp_begin(to_sdev(ibpd->device));
	sroce_odp_init(mr, start);
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	mr->state = SROCE_MR_VALID;
	sroce_mr_publish(mr, ibpd);
	return &mr->ibmr;
}

static struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start,
				       u64 length, u64 iova, int access,
				       struct ib_udata *udata)
{
	struct sroce_mr *mr;
	int err;

	if (access & IB_ACCESS_ON_DEMAND)
		return sroce_reg_odp_mr(ibpd, start, length, iova, access);
	err = sroce_check_reg_args(start, length, iova, access);
	if (err)
		return ERR_PTR(err);
	mr = sroce_mr_alloc(ibpd, SROCE_MR_USER, access);
	if (IS_ERR(mr))
		return ERR_CAST(mr);

	mr->umem = sroce_fault() ? ERR_PTR(-ENOMEM) :
		   ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		mr->umem = NULL;
		goto err_free;
	}
	err = sroce_mr_map_umem(mr);
	if (err)
		goto err_free;

	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	mr->ibmr.page_size = PAGE_SIZE;
	mr->state = SROCE_MR_VALID;
	sroce_mr_publish(mr, ibpd);
	return &mr->ibmr;

err_free:
	sroce_mr_free(mr);
	return ERR_PTR(err);
}

/*
 * PD and access changes happen in place (ib_core moves the PD reference);
 * a new translation gets a new MR, which ib_core swaps in for the old one.
 */
static struct ib_mr *sroce_rereg_user_mr(struct ib_mr *ibmr, int flags,
					 u64 start, u64 length, u64 iova,
					 int access, struct ib_pd *pd,
					 struct ib_udata *udata)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->type != SROCE_MR_USER)
		return ERR_PTR(-EINVAL);
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	if (flags & IB_MR_REREG_TRANS)
		return sroce_reg_user_mr(pd, start, length, iova, access, udata);
	if (access & ~SROCE_MR_ACCESS)
		return ERR_PTR(-EOPNOTSUPP);
	if (atomic_read(&mr->num_mw) && !(access & IB_ACCESS_MW_BIND))
		return ERR_PTR(-EBUSY);
	WRITE_ONCE(mr->access, access);
	return NULL;
}

static struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
				    u32 max_num_sg)
{
	struct sroce_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > SROCE_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);
	mr = sroce_mr_alloc(ibpd, SROCE_MR_FAST_REG, 0);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->blocks = sroce_kcalloc(max_num_sg, sizeof(*mr->blocks), GFP_KERNEL);
	if (!mr->blocks) {
		sroce_mr_free(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->max_blocks = max_num_sg;
	mr->state = SROCE_MR_INVALID;
	sroce_mr_publish(mr, ibpd);
	return &mr->ibmr;
}

static int sroce_set_block(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->nblocks == mr->max_blocks)
		return -ENOMEM;
	mr->blocks[mr->nblocks++] = addr;
	return 0;
}

/*
 * Record the pages of a fast-registration MR. The MR only becomes valid
 * when the consumer posts IB_WR_REG_MR for it.
 */
static int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			   int sg_nents, unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);

	mr->nblocks = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, sroce_set_block);
}

static int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_mr *mr = to_smr(ibmr);

	/* A window bound to the MR would point into freed memory. */
	if (atomic_read(&mr->num_mw))
		return -EBUSY;
	sroce_mr_free(mr);
	return 0;
}

const struct ib_device_ops sroce_mr_ops = {
	.alloc_mr = sroce_alloc_mr,
	.dereg_mr = sroce_dereg_mr,
	.get_dma_mr = sroce_get_dma_mr,
	.map_mr_sg = sroce_map_mr_sg,
	.reg_user_mr = sroce_reg_user_mr,
	.rereg_user_mr = sroce_rereg_user_mr,
};
