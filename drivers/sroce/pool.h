/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Index pools: the objects that a number names (QPs by QPN, MRs and MWs by
 * key, AHs by ah_num, SRQs by number) and how the packet path finds them.
 *
 * Lifetime of a pooled object (Documentation/lifetime.rst):
 *  1. sroce_pool_reserve(): an index is taken but nothing can find it;
 *  2. sroce_pool_publish(): the fully built object becomes findable;
 *  3. sroce_pool_get() / sroce_pool_put(): lookups hold a kref;
 *  4. sroce_pool_unpublish(): unreachable from then on; the caller stops
 *     or drains every other holder (tasks, timers, in-flight skbs);
 *  5. sroce_pool_drop_and_wait(): drop the initial reference and wait,
 *     without a timeout, for the last holder; then the memory may go.
 *
 * Lookups take the xarray's spinlock instead of RCU: ib_core frees most of
 * these objects right after their destroy verb returns, so an RCU reader
 * could otherwise still be looking at freed memory, and a synchronize_rcu()
 * per destroy is too slow for programs that churn QPs.
 */
#ifndef SROCE_POOL_H
#define SROCE_POOL_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/xarray.h>

struct sroce_pool {
	/* Index -> struct sroce_pool_elem *. Lock: the xarray's, irqsave. */
	struct xarray xa;
	struct xa_limit range;
	u32 next;		/* cyclic allocation hint, under the xa lock */
	u32 max_count;		/* device limit on live objects */
	atomic_t count;		/* live objects, reserved or published */
	const char *name;
};

struct sroce_pool_elem {
	struct kref ref;
	struct completion released;
	u32 index;
};

void sroce_pool_init(struct sroce_pool *pool, const char *name, u32 min,
		     u32 max, u32 max_count);
void sroce_pool_destroy(struct sroce_pool *pool);

int sroce_pool_reserve(struct sroce_pool *pool, struct sroce_pool_elem *elem,
		       gfp_t gfp);
int sroce_pool_reserve_index(struct sroce_pool *pool,
			     struct sroce_pool_elem *elem, u32 index, gfp_t gfp);
void sroce_pool_publish(struct sroce_pool *pool, struct sroce_pool_elem *elem);
void sroce_pool_unpublish(struct sroce_pool *pool,
			  struct sroce_pool_elem *elem);
void sroce_pool_drop_and_wait(struct sroce_pool_elem *elem);

struct sroce_pool_elem *sroce_pool_get(struct sroce_pool *pool, u32 index);
struct sroce_pool_elem *sroce_pool_get_next(struct sroce_pool *pool,
					    u32 *index);

static inline void sroce_pool_elem_get(struct sroce_pool_elem *elem)
{
	kref_get(&elem->ref);
}

void sroce_pool_put(struct sroce_pool_elem *elem);

#endif /* SROCE_POOL_H */
