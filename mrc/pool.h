/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pool.h - a bounded cache of idle memory by power-of-two size class
 * (pool.c), under the receive path's objects (rxpool.c) and the send
 * path's message buffers (txpool.c).
 */
#ifndef _MRC_POOL_H
#define _MRC_POOL_H

#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "events.h"

struct mrc_pool_obj;

/* One size class: its idle objects, linked through their first bytes. */
struct mrc_pool_class {
	spinlock_t lock;		/* the fields below; BH-safe, leaf */
	struct mrc_pool_obj *head;	/* under lock: idle objects */
	unsigned int n;			/* under lock: how many */
	unsigned int idle_ticks;	/* under lock: trims without a take */
};

/**
 * struct mrc_pool - a cache of idle objects by size class
 * @name: for messages
 * @nclass: the classes; class c holds objects of 1 << (c + @min_shift) B
 * @min_shift: log2 of class 0's size
 * @max_bytes: most idle bytes kept, every class together
 * @ev_freed: the event counted for each object the pool frees
 * @free: frees an idle object of @size bytes (trim and exit)
 * @class: @nclass classes
 * @bytes: idle bytes (reserved before an object is pushed)
 * @trim: empties classes idle for a while
 */
struct mrc_pool {
	const char *name;
	unsigned int nclass;
	unsigned int min_shift;
	long max_bytes;
	enum mrc_ev ev_freed;
	void (*free)(void *p, size_t size);
	struct mrc_pool_class *class;
	atomic_long_t bytes;
	struct delayed_work trim;
};

/* Objects a take looks at for one its caller accepts. */
#define MRC_POOL_SCAN		4

void mrc_pool_init(struct mrc_pool *pool);
void mrc_pool_exit(struct mrc_pool *pool);
void *mrc_pool_take(struct mrc_pool *pool, unsigned int c,
		    bool (*accept)(void *p, const void *key), const void *key);
bool mrc_pool_give(struct mrc_pool *pool, unsigned int c, void *p);
long mrc_pool_idle_bytes(struct mrc_pool *pool);

/* The bytes of an object of class @c. */
static inline size_t mrc_pool_size(const struct mrc_pool *pool, unsigned int c)
{
	return (size_t)1 << (c + pool->min_shift);
}

#endif /* _MRC_POOL_H */
