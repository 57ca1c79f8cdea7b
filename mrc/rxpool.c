// SPDX-License-Identifier: GPL-2.0
/*
 * rxpool.c - the receive path's recycled memory: reassembly contexts,
 * message buffers and /dev/mrc queue entries come from a cache of free
 * objects by size class (pool.c) and go back to it when their last user
 * is done (the engine, the reader of /dev/mrc), so that a steady stream
 * of messages allocates nothing.
 *
 * Classes.  Powers of two from 128 B (a /dev/mrc queue entry) to
 * MRC_RXPOOL_MAX_OBJ; a request takes an object of its class (rounded
 * up).  Larger requests are allocated and freed each time (kvmalloc).
 * Objects are not zeroed: a message buffer is written whole by its
 * packets before it is delivered (only complete messages are), and the
 * engine initialises every field of a context it reads.
 *
 * Bound.  At most MRC_RXPOOL_MAX_BYTES idle.  Objects in use are bounded
 * where they are used: reassembly memory by rx_msgs_per_peer and
 * rx_buffer_mb, which count message bytes (the rounding to a class adds
 * less than as much again), the /dev/mrc queues by their RCVBUF.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "pool.h"
#include "rxpool.h"

#define MRC_RXPOOL_MIN_SHIFT	7	/* 128 B: a /dev/mrc queue entry */
#define MRC_RXPOOL_MAX_SHIFT	16
#define MRC_RXPOOL_NCLASS	(MRC_RXPOOL_MAX_SHIFT - MRC_RXPOOL_MIN_SHIFT + 1)

static void mrc_rxpool_free(void *p, size_t size)
{
	kvfree(p);
}

static struct mrc_pool_class mrc_rxpool_class[MRC_RXPOOL_NCLASS];
static struct mrc_pool mrc_rxpool = {
	.name = "rxpool",
	.nclass = MRC_RXPOOL_NCLASS,
	.min_shift = MRC_RXPOOL_MIN_SHIFT,
	.max_bytes = MRC_RXPOOL_MAX_BYTES,
	.ev_freed = MRC_EV_RXPOOL_FREED,
	.free = mrc_rxpool_free,
	.class = mrc_rxpool_class,
};

/* The class of @bytes, or -1 if the pool does not recycle that size. */
static int mrc_rxpool_class_of(size_t bytes)
{
	if (!bytes || bytes > MRC_RXPOOL_MAX_OBJ)
		return -1;
	if (bytes <= 1U << MRC_RXPOOL_MIN_SHIFT)
		return 0;
	return order_base_2(bytes) - MRC_RXPOOL_MIN_SHIFT;
}

/**
 * mrc_rxpool_get() - receive memory of at least @bytes, not zeroed
 * @bytes: the size wanted
 *
 * An idle object of @bytes' class if there is one (counted rxpool_hit),
 * else a new one (rxpool_miss and alloc).
 *
 * Context: process, may sleep.
 *
 * Return: the memory (give it back with mrc_rxpool_put() and the same
 * @bytes), or NULL.
 */
void *mrc_rxpool_get(size_t bytes)
{
	int c = mrc_rxpool_class_of(bytes);
	void *p;

	might_sleep();
	if (c >= 0) {
		p = mrc_pool_take(&mrc_rxpool, c, NULL, NULL);
		if (p) {
			mrc_ev_inc(MRC_EV_RXPOOL_HIT);
			return p;
		}
		bytes = mrc_pool_size(&mrc_rxpool, c);
	}
	mrc_ev_inc(MRC_EV_RXPOOL_MISS);
	mrc_ev_inc(MRC_EV_ALLOC);
	return kvmalloc(bytes, GFP_KERNEL);
}

/**
 * mrc_rxpool_put() - give back memory from mrc_rxpool_get()
 * @p: the memory, or NULL
 * @bytes: the size it was taken with
 *
 * Kept for the next mrc_rxpool_get() of its class (rxpool_recycled) if
 * the pool has room, else freed (rxpool_freed).
 *
 * Context: any but hard interrupt; does not sleep.
 */
void mrc_rxpool_put(void *p, size_t bytes)
{
	int c = mrc_rxpool_class_of(bytes);

	if (!p)
		return;
	if (c >= 0 && mrc_pool_give(&mrc_rxpool, c, p)) {
		mrc_ev_inc(MRC_EV_RXPOOL_RECYCLED);
		return;
	}
	mrc_ev_inc(MRC_EV_RXPOOL_FREED);
	kvfree(p);
}

/**
 * mrc_rxpool_idle_bytes() - the bytes the pool holds (debugfs mrc/msg)
 *
 * Return: the idle objects' bytes, every class.
 */
long mrc_rxpool_idle_bytes(void)
{
	return mrc_pool_idle_bytes(&mrc_rxpool);
}

/**
 * mrc_rxpool_init() - module init: an empty pool
 *
 * Return: 0.
 */
int mrc_rxpool_init(void)
{
	BUILD_BUG_ON(MRC_RXPOOL_MAX_OBJ != 1U << MRC_RXPOOL_MAX_SHIFT);
	mrc_pool_init(&mrc_rxpool);
	return 0;
}

/**
 * mrc_rxpool_exit() - module exit: every idle object is freed
 *
 * After every user of the pool stopped (the parts started after it).
 */
void mrc_rxpool_exit(void)
{
	mrc_pool_exit(&mrc_rxpool);
}
