// SPDX-License-Identifier: GPL-2.0
/*
 * txpool.c - the send path's recycled message buffers.  A message's
 * payload buffer of a page or more is a compound block of the page
 * allocator (msg.c "A message's payload"); when the message is freed the
 * block goes to a cache by order (pool.c) and the next message of that
 * size takes it, so that a steady stream of sends neither allocates nor
 * has the kernel zero its buffers (init_on_alloc, Debian's default).
 *
 * A block is handed out again only once nothing else holds it.  ud.c
 * sends a DATA packet's payload from the buffer in place and holds a
 * reference to the block until that send completes, which is often after
 * the message was acknowledged and freed (the send CQ is reaped lazily).
 * The pool keeps such a block all the same (counted txpool_busy), with
 * the reference the buffer had; a take passes it over while its
 * reference count says another holder is left, so no send ever reads a
 * buffer that a later message is writing.
 *
 * A block stays charged to the memory cgroup it was allocated in, so it
 * goes only to a sender of that cgroup (or, if it is charged to none, to
 * a sender whose allocation would not be charged either: the root
 * cgroup, kernel threads, kmem accounting off).  Reused blocks are not
 * zeroed: the sender writes the message's bytes before it is queued,
 * only those bytes are ever sent, and nothing reads a send buffer back.
 *
 * Bound.  Blocks up to MRC_TXPOOL_MAX_OBJ, at most MRC_TXPOOL_MAX_BYTES
 * of them idle, trimmed within seconds when unused (pool.c): idle memory
 * that stays charged to a cgroup which may need it, so little of it, and
 * not for long.  Larger blocks, up to KMALLOC_MAX_SIZE, are allocated and
 * freed each time; larger buffers still are vmalloc'ed (msg.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "pool.h"
#include "txpool.h"

#define MRC_TXPOOL_MAX_SHIFT	16
#define MRC_TXPOOL_NCLASS	(MRC_TXPOOL_MAX_SHIFT - PAGE_SHIFT + 1)

static void mrc_txpool_free(void *p, size_t size)
{
	folio_put(virt_to_folio(p));
}

static struct mrc_pool_class mrc_txpool_class[MRC_TXPOOL_NCLASS];
static struct mrc_pool mrc_txpool = {
	.name = "txpool",
	.nclass = MRC_TXPOOL_NCLASS,
	.min_shift = PAGE_SHIFT,
	.max_bytes = MRC_TXPOOL_MAX_BYTES,
	.ev_freed = MRC_EV_TXPOOL_FREED,
	.free = mrc_txpool_free,
	.class = mrc_txpool_class,
};

/* A memory cgroup as a charge: NULL for none, or the root (not charged). */
static const void *mrc_txpool_charge(struct mem_cgroup *memcg)
{
#ifdef CONFIG_MEMCG
	return memcg && memcg->css.parent ? memcg : NULL;
#else
	return NULL;
#endif
}

/*
 * The cgroup a block allocated now would be charged to (NULL: none).
 * Under rcu_read_lock(); compared, never dereferenced, after it.
 */
static const void *mrc_txpool_charge_now(void)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "txpool: no RCU");
	if (!memcg_kmem_enabled() || !in_task() ||
	    (current->flags & PF_KTHREAD))
		return NULL;
	return mrc_txpool_charge(mem_cgroup_from_task(current));
}

/*
 * mrc_pool_take()'s accept(): nothing but the pool holds @p, and it is
 * charged where @key's sender's allocation would be.  The count is read
 * with acquire: the last send's reads of the block come before its
 * folio_put(), and the next message's writes after this read.
 */
static bool mrc_txpool_accept(void *p, const void *key)
{
	struct folio *folio = virt_to_folio(p);

	return atomic_read_acquire(&folio->_refcount) == 1 &&
	       mrc_txpool_charge(folio_memcg(folio)) == key;
}

/**
 * mrc_txpool_get() - a send buffer of at least @bytes, not zeroed
 * @bytes: PAGE_SIZE..KMALLOC_MAX_SIZE
 *
 * An idle block of @bytes' order that no send holds any more, charged
 * where the caller's allocation would be (counted txpool_hit), among the
 * first MRC_POOL_SCAN of its order; else (or above MRC_TXPOOL_MAX_OBJ) a
 * new compound block charged to the caller's memory cgroup (txpool_miss
 * and alloc); no retries above a page and quiet when refused, as
 * kmalloc()'s large path.
 *
 * Context: process, may sleep.
 *
 * Return: the block's address (give it back with mrc_txpool_put() and
 * the same @bytes), or NULL: @bytes out of range or no memory.
 */
void *mrc_txpool_get(size_t bytes)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN | __GFP_COMP;
	unsigned int order;
	struct page *pg;
	void *p;

	might_sleep();
	if (bytes < PAGE_SIZE || bytes > KMALLOC_MAX_SIZE)
		return NULL;
	order = get_order(bytes);
	if (order < MRC_TXPOOL_NCLASS) {
		rcu_read_lock();
		p = mrc_pool_take(&mrc_txpool, order, mrc_txpool_accept,
				  mrc_txpool_charge_now());
		rcu_read_unlock();
		if (p) {
			mrc_ev_inc(MRC_EV_TXPOOL_HIT);
			return p;
		}
	}
	mrc_ev_inc(MRC_EV_TXPOOL_MISS);
	mrc_ev_inc(MRC_EV_ALLOC);
	pg = alloc_pages(gfp | (order ? __GFP_NORETRY : __GFP_RETRY_MAYFAIL),
			 order);
	return pg ? page_address(pg) : NULL;
}

/**
 * mrc_txpool_put() - give back a buffer from mrc_txpool_get()
 * @p: the buffer
 * @bytes: the size it was taken with
 *
 * Kept, with the reference mrc_txpool_get() returned, for a later
 * mrc_txpool_get() of its order if the pool has room (txpool_recycled;
 * txpool_busy as well if a send still reads it: it is handed out only
 * once that send has completed and let go).  Else (the pool is full, or
 * the block above MRC_TXPOOL_MAX_OBJ) that reference is dropped
 * (txpool_freed), and the block's last holder frees it.
 *
 * Context: any but hard interrupt; does not sleep.
 */
void mrc_txpool_put(void *p, size_t bytes)
{
	struct folio *folio = virt_to_folio(p);
	bool busy = folio_ref_count(folio) != 1;
	unsigned int order = get_order(bytes);

	if (order < MRC_TXPOOL_NCLASS &&
	    mrc_pool_give(&mrc_txpool, order, p)) {
		mrc_ev_inc(MRC_EV_TXPOOL_RECYCLED);
		if (busy)
			mrc_ev_inc(MRC_EV_TXPOOL_BUSY);
		return;
	}
	mrc_ev_inc(MRC_EV_TXPOOL_FREED);
	folio_put(folio);
}

/**
 * mrc_txpool_idle_bytes() - the bytes the pool holds (debugfs mrc/msg)
 *
 * Return: the idle blocks' bytes, every order.
 */
long mrc_txpool_idle_bytes(void)
{
	return mrc_pool_idle_bytes(&mrc_txpool);
}

/**
 * mrc_txpool_init() - module init: an empty pool
 *
 * Return: 0.
 */
int mrc_txpool_init(void)
{
	BUILD_BUG_ON(MRC_TXPOOL_MAX_OBJ != 1U << MRC_TXPOOL_MAX_SHIFT);
	BUILD_BUG_ON(MRC_TXPOOL_MAX_SHIFT < PAGE_SHIFT);
	mrc_pool_init(&mrc_txpool);
	return 0;
}

/**
 * mrc_txpool_exit() - module exit: every idle block is freed
 *
 * After every message is freed (the parts started after it).
 */
void mrc_txpool_exit(void)
{
	mrc_pool_exit(&mrc_txpool);
}
