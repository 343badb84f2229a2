// SPDX-License-Identifier: GPL-2.0
/*
 * Index pools; see pool.h for the lifetime rules.
 */
#include <linux/error-injection.h>
#include <linux/slab.h>

#include "fault.h"
#include "pool.h"

/**
 * sroce_pool_init - set up an empty pool
 * @pool: the pool
 * @name: for messages
 * @min: lowest index handed out
 * @max: highest index handed out
 * @max_count: most objects alive at once
 *
 * Indices are allocated cyclically, so a freed index is reused only after
 * every other index of the range was used: a stale number (a QPN or key in
 * a late packet, a key a program kept) almost never names a new object.
 */
void sroce_pool_init(struct sroce_pool *pool, const char *name, u32 min,
		     u32 max, u32 max_count)
{
	xa_init_flags(&pool->xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	pool->range = XA_LIMIT(min, max);
	pool->next = min;
	pool->max_count = max_count;
	atomic_set(&pool->count, 0);
	pool->name = name;
}

void sroce_pool_destroy(struct sroce_pool *pool)
{
	/* Every object is destroyed before its device; say so if not. */
	if (!xa_empty(&pool->xa))
		pr_err("sroce: %s pool destroyed with %d live objects\n",
		       pool->name, atomic_read(&pool->count));
	xa_destroy(&pool->xa);
}

static void sroce_pool_elem_init(struct sroce_pool_elem *elem)
{
	kref_init(&elem->ref);
	init_completion(&elem->released);
}

static bool sroce_pool_charge(struct sroce_pool *pool)
{
	if (atomic_inc_return(&pool->count) > pool->max_count) {
		atomic_dec(&pool->count);
		return false;
	}
	return true;
}

/**
 * sroce_pool_reserve - take a free index for @elem, not yet findable
 * @pool: the pool
 * @elem: the element embedded in the new object
 * @gfp: allocation flags; GFP_ATOMIC where the caller cannot sleep
 *
 * Context: any, as @gfp allows.
 * Return: 0, -ENOMEM when the pool is at its limit or memory is short.
 */
int sroce_pool_reserve(struct sroce_pool *pool, struct sroce_pool_elem *elem,
		       gfp_t gfp)
{
	int err;

	if (!sroce_pool_charge(pool))
		return -ENOMEM;
	sroce_pool_elem_init(elem);
	/* A NULL entry is reserved: xa_load() returns NULL for it. */
	err = sroce_fault() ? -ENOMEM :
	      xa_alloc_cyclic_irq(&pool->xa, &elem->index, NULL, pool->range,
				  &pool->next, gfp);
	if (err < 0) {
		atomic_dec(&pool->count);
		return err == -EBUSY ? -ENOMEM : err;
	}
	return 0;
}
ALLOW_ERROR_INJECTION(sroce_pool_reserve, ERRNO);

/**
 * sroce_pool_reserve_index - reserve a given index (QP1 for the GSI QP)
 * @pool: the pool
 * @elem: the element embedded in the new object
 * @index: the index wanted
 * @gfp: allocation flags
 *
 * Return: 0, -EBUSY when the index is taken, -ENOMEM.
 */
int sroce_pool_reserve_index(struct sroce_pool *pool,
			     struct sroce_pool_elem *elem, u32 index, gfp_t gfp)
{
	int err;

	if (!sroce_pool_charge(pool))
		return -ENOMEM;
	sroce_pool_elem_init(elem);
	elem->index = index;
	err = sroce_fault() ? -ENOMEM : xa_insert_irq(&pool->xa, index, NULL, gfp);
	if (err)
		atomic_dec(&pool->count);
	return err;
}
ALLOW_ERROR_INJECTION(sroce_pool_reserve_index, ERRNO);

/* Make a fully built object findable. */
void sroce_pool_publish(struct sroce_pool *pool, struct sroce_pool_elem *elem)
{
	unsigned long flags;

	xa_lock_irqsave(&pool->xa, flags);
	__xa_store(&pool->xa, elem->index, elem, GFP_ATOMIC);
	xa_unlock_irqrestore(&pool->xa, flags);
}

/*
 * Make an object unreachable and give its index back. Also undoes a
 * reservation that was never published.
 */
void sroce_pool_unpublish(struct sroce_pool *pool,
			  struct sroce_pool_elem *elem)
{
	unsigned long flags;

	xa_lock_irqsave(&pool->xa, flags);
	__xa_erase(&pool->xa, elem->index);
	xa_unlock_irqrestore(&pool->xa, flags);
	atomic_dec(&pool->count);
}

/**
 * sroce_pool_get - find the object at @index and take a reference
 * @pool: the pool
 * @index: e.g. a QPN from a packet, or a key's index
 *
 * Context: any.
 * Return: the element, or NULL when nothing live is published there.
 */
struct sroce_pool_elem *sroce_pool_get(struct sroce_pool *pool, u32 index)
{
	struct sroce_pool_elem *elem;
	unsigned long flags;

	xa_lock_irqsave(&pool->xa, flags);
	elem = xa_load(&pool->xa, index);
	if (elem && !kref_get_unless_zero(&elem->ref))
		elem = NULL;
	xa_unlock_irqrestore(&pool->xa, flags);
	return elem;
}

/**
 * sroce_pool_get_next - the next live object at or after *@index, referenced
 * @pool: the pool
 * @index: where to start; set to the index found
 *
 * For walks over every object: for (i = 0; (e = get_next(p, &i)); i++).
 *
 * Context: any.
 * Return: the element (release with sroce_pool_put()), or NULL at the end.
 */
struct sroce_pool_elem *sroce_pool_get_next(struct sroce_pool *pool,
					    u32 *index)
{
	struct sroce_pool_elem *elem;
	unsigned long flags, i = *index;

	xa_lock_irqsave(&pool->xa, flags);
	xa_for_each_start(&pool->xa, i, elem, *index)
		if (kref_get_unless_zero(&elem->ref))
			break;
	xa_unlock_irqrestore(&pool->xa, flags);
	*index = i;
	return elem;
}

static void sroce_pool_release(struct kref *ref)
{
	struct sroce_pool_elem *elem =
		container_of(ref, struct sroce_pool_elem, ref);

	complete(&elem->released);
}

void sroce_pool_put(struct sroce_pool_elem *elem)
{
	kref_put(&elem->ref, sroce_pool_release);
}

/**
 * sroce_pool_drop_and_wait - drop the initial reference, wait for the rest
 * @elem: an unpublished element
 *
 * Context: process context; sleeps until every holder has let go.
 */
void sroce_pool_drop_and_wait(struct sroce_pool_elem *elem)
{
	sroce_pool_put(elem);
	wait_for_completion(&elem->released);
}
