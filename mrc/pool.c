// SPDX-License-Identifier: GPL-2.0
/*
 * pool.c - a bounded cache of idle memory by power-of-two size class, so
 * that a steady stream of messages allocates nothing: the receive path's
 * objects (rxpool.c) and the send path's message buffers (txpool.c) each
 * have one.  The owner allocates, frees and says which objects go in; the
 * pool keeps them, bounded, and gives back what stays unused.
 *
 * Design notes
 *
 * Objects.  An idle object's first bytes link it into its class; nothing
 * else of it is touched, and it is not zeroed when taken.
 *
 * Bound.  Only idle objects are in a pool, at most pool->max_bytes of
 * them together (mrc_pool_give() refuses one that does not fit, and its
 * owner frees it): what a pool holds does not depend on what peers send.
 * Objects in use are bounded where they are used.
 *
 * Choice.  A take may pass over objects its caller does not accept (the
 * send path's buffers are taken only by senders of the memory cgroup
 * they are charged to); it looks at MRC_POOL_SCAN objects at most, so a
 * take costs O(1) whatever the class holds.
 *
 * Trim.  While a pool holds anything a work item runs every
 * MRC_POOL_TRIM_MS; a class from which nothing was taken for
 * MRC_POOL_IDLE_TICKS runs is emptied, so an idle node gives the memory
 * back within seconds.  mrc_pool_exit() empties the pool.
 *
 * Locking.  One spinlock per class (BH-safe: objects come back from
 * softirq context); a leaf lock, only list operations and the caller's
 * accept() run under it, memory is allocated and freed outside.  The idle
 * byte count is an atomic, reserved before an object is pushed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bug.h>
#include <linux/jiffies.h>

#include "pool.h"

#define MRC_POOL_TRIM_MS	1000
#define MRC_POOL_IDLE_TICKS	3

/* An idle object: its first bytes link it into its class. */
struct mrc_pool_obj {
	struct mrc_pool_obj *next;
};

/*
 * The first object of @pc that @accept takes (any, if @accept is NULL),
 * among the first MRC_POOL_SCAN, unlinked; NULL if none.
 */
static void *mrc_pool_pop(struct mrc_pool_class *pc,
			  bool (*accept)(void *p, const void *key),
			  const void *key)
{
	struct mrc_pool_obj **pp = &pc->head, *o;
	unsigned int i;

	lockdep_assert_held(&pc->lock);
	for (i = 0; i < MRC_POOL_SCAN && (o = *pp); i++, pp = &o->next) {
		if (accept && !accept(o, key))
			continue;
		*pp = o->next;
		pc->n--;
		return o;
	}
	return NULL;
}

/**
 * mrc_pool_take() - an idle object of class @c, if the pool has one
 * @pool: the pool
 * @c: the class, below pool->nclass
 * @accept: NULL, or says whether the caller can use an idle object
 * @key: passed to @accept
 *
 * Context: any but hard interrupt; @accept runs under a spinlock with
 * BHs disabled.
 *
 * Return: the object (not zeroed), or NULL.
 */
void *mrc_pool_take(struct mrc_pool *pool, unsigned int c,
		    bool (*accept)(void *p, const void *key), const void *key)
{
	struct mrc_pool_class *pc = &pool->class[c];
	void *p;

	spin_lock_bh(&pc->lock);
	pc->idle_ticks = 0;
	p = mrc_pool_pop(pc, accept, key);
	spin_unlock_bh(&pc->lock);
	if (p)
		atomic_long_sub(mrc_pool_size(pool, c), &pool->bytes);
	return p;
}

/**
 * mrc_pool_give() - keep an idle object of class @c, if there is room
 * @pool: the pool
 * @c: the class, below pool->nclass
 * @p: the object, of mrc_pool_size(@pool, @c) bytes
 *
 * Context: any but hard interrupt; does not sleep.
 *
 * Return: true if the pool keeps @p; false if it is full (the caller
 * frees @p).
 */
bool mrc_pool_give(struct mrc_pool *pool, unsigned int c, void *p)
{
	struct mrc_pool_class *pc = &pool->class[c];
	size_t size = mrc_pool_size(pool, c);
	struct mrc_pool_obj *o = p;

	if (atomic_long_add_return(size, &pool->bytes) > pool->max_bytes) {
		atomic_long_sub(size, &pool->bytes);
		return false;
	}
	spin_lock_bh(&pc->lock);
	o->next = pc->head;
	pc->head = o;
	pc->n++;
	spin_unlock_bh(&pc->lock);
	/* No-op while pending: the trim re-arms itself while needed. */
	queue_delayed_work(system_wq, &pool->trim,
			   msecs_to_jiffies(MRC_POOL_TRIM_MS));
	return true;
}

/**
 * mrc_pool_idle_bytes() - the bytes a pool holds (debugfs mrc/msg)
 * @pool: the pool
 *
 * Return: the idle objects' bytes, every class.
 */
long mrc_pool_idle_bytes(struct mrc_pool *pool)
{
	return atomic_long_read(&pool->bytes);
}

/* Empties class @c, or only if it was idle long enough (@idle). */
static void mrc_pool_drain(struct mrc_pool *pool, unsigned int c, bool idle)
{
	struct mrc_pool_class *pc = &pool->class[c];
	struct mrc_pool_obj *o = NULL, *next;
	unsigned int n = 0;

	spin_lock_bh(&pc->lock);
	if (pc->n && (!idle || ++pc->idle_ticks >= MRC_POOL_IDLE_TICKS)) {
		o = pc->head;
		n = pc->n;
		pc->head = NULL;
		pc->n = 0;
	}
	spin_unlock_bh(&pc->lock);
	if (!n)
		return;
	atomic_long_sub(n * mrc_pool_size(pool, c), &pool->bytes);
	mrc_ev_add(pool->ev_freed, n);
	for (; o; o = next) {
		next = o->next;
		pool->free(o, mrc_pool_size(pool, c));
	}
}

static void mrc_pool_trim_workfn(struct work_struct *work)
{
	struct mrc_pool *pool = container_of(to_delayed_work(work),
					     struct mrc_pool, trim);
	unsigned int c;

	for (c = 0; c < pool->nclass; c++)
		mrc_pool_drain(pool, c, true);
	if (atomic_long_read(&pool->bytes))
		queue_delayed_work(system_wq, &pool->trim,
				   msecs_to_jiffies(MRC_POOL_TRIM_MS));
}

/**
 * mrc_pool_init() - an empty pool
 * @pool: name, nclass, min_shift, max_bytes, ev_freed, free and class set
 */
void mrc_pool_init(struct mrc_pool *pool)
{
	unsigned int c;

	for (c = 0; c < pool->nclass; c++) {
		spin_lock_init(&pool->class[c].lock);
		pool->class[c].head = NULL;
		pool->class[c].n = 0;
		pool->class[c].idle_ticks = 0;
	}
	atomic_long_set(&pool->bytes, 0);
	INIT_DELAYED_WORK(&pool->trim, mrc_pool_trim_workfn);
}

/**
 * mrc_pool_exit() - every idle object is freed
 * @pool: the pool, whose users have all stopped
 */
void mrc_pool_exit(struct mrc_pool *pool)
{
	unsigned int c;

	cancel_delayed_work_sync(&pool->trim);
	for (c = 0; c < pool->nclass; c++)
		mrc_pool_drain(pool, c, false);
	if (WARN_ON(atomic_long_read(&pool->bytes)))
		pr_err("%s: %ld idle bytes unaccounted at exit\n", pool->name,
		       atomic_long_read(&pool->bytes));
}
