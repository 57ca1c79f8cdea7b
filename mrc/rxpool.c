// SPDX-License-Identifier: GPL-2.0
/*
 * rxpool.c - the receive path's recycled memory: reassembly contexts,
 * message buffers and /dev/mrc queue entries come from a per-node cache
 * of free objects by size class and go back to it when their last user
 * is done (the engine, the reader of /dev/mrc), so that a steady stream
 * of messages allocates nothing.
 *
 * Design notes
 *
 * Classes.  Powers of two from MRC_RXPOOL_MIN_OBJ to MRC_RXPOOL_MAX_OBJ;
 * a request takes an object of its class (rounded up).  Larger requests
 * are allocated and freed each time (kvmalloc).  Objects are not zeroed:
 * a message buffer is written whole by its packets before it is
 * delivered (only complete messages are), and the engine initialises
 * every field of a context it reads.
 *
 * Bound.  Only idle objects are in the pool, at most MRC_RXPOOL_MAX_BYTES
 * of them together (an object that does not fit is freed): what the pool
 * holds does not depend on what peers send.  Objects in use are bounded
 * where they are used: reassembly memory by rx_msgs_per_peer and
 * rx_buffer_mb, which count message bytes (the rounding to a class adds
 * less than as much again), the /dev/mrc queues by their RCVBUF.
 *
 * Trim.  While the pool holds anything a work item runs every
 * MRC_RXPOOL_TRIM_MS; a class from which nothing was taken for
 * MRC_RXPOOL_IDLE_TICKS runs is emptied, so an idle node gives the memory
 * back within seconds.  Module exit empties the pool.
 *
 * Locking.  One spinlock per class (BH-safe: objects come back under the
 * message engine's rx_lock); a leaf lock, only list operations run under
 * it, memory is allocated and freed outside.  The idle byte count is an
 * atomic, reserved before an object is pushed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "events.h"
#include "rxpool.h"

#define MRC_RXPOOL_MIN_SHIFT	7	/* 128 B: a /dev/mrc queue entry */
#define MRC_RXPOOL_MAX_SHIFT	16
#define MRC_RXPOOL_NCLASS	(MRC_RXPOOL_MAX_SHIFT - MRC_RXPOOL_MIN_SHIFT + 1)
#define MRC_RXPOOL_TRIM_MS	1000
#define MRC_RXPOOL_IDLE_TICKS	3

/* An idle object: its first bytes link it into its class. */
struct mrc_rxpool_obj {
	struct mrc_rxpool_obj *next;
};

struct mrc_rxpool_class {
	spinlock_t lock;		/* the fields below */
	struct mrc_rxpool_obj *head;	/* under lock: idle objects */
	unsigned int n;			/* under lock: how many */
	unsigned int idle_ticks;	/* under lock: trim runs without a take */
};

static struct mrc_rxpool_class mrc_rxpool[MRC_RXPOOL_NCLASS];
static atomic_long_t mrc_rxpool_bytes;	/* idle bytes, every class */
static struct delayed_work mrc_rxpool_trim;

/* The class of @bytes, or -1 if the pool does not recycle that size. */
static int mrc_rxpool_class_of(size_t bytes)
{
	if (!bytes || bytes > MRC_RXPOOL_MAX_OBJ)
		return -1;
	if (bytes <= 1U << MRC_RXPOOL_MIN_SHIFT)
		return 0;
	return order_base_2(bytes) - MRC_RXPOOL_MIN_SHIFT;
}

static size_t mrc_rxpool_size(int c)
{
	return (size_t)1 << (c + MRC_RXPOOL_MIN_SHIFT);
}

static void *mrc_rxpool_pop(struct mrc_rxpool_class *pc)
{
	struct mrc_rxpool_obj *o = pc->head;

	lockdep_assert_held(&pc->lock);
	if (o) {
		pc->head = o->next;
		pc->n--;
	}
	return o;
}

static void mrc_rxpool_push(struct mrc_rxpool_class *pc, void *p)
{
	struct mrc_rxpool_obj *o = p;

	lockdep_assert_held(&pc->lock);
	o->next = pc->head;
	pc->head = o;
	pc->n++;
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
	struct mrc_rxpool_class *pc;
	void *p;

	might_sleep();
	if (c >= 0) {
		pc = &mrc_rxpool[c];
		spin_lock_bh(&pc->lock);
		pc->idle_ticks = 0;
		p = mrc_rxpool_pop(pc);
		spin_unlock_bh(&pc->lock);
		if (p) {
			atomic_long_sub(mrc_rxpool_size(c), &mrc_rxpool_bytes);
			mrc_ev_inc(MRC_EV_RXPOOL_HIT);
			return p;
		}
		bytes = mrc_rxpool_size(c);
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
	struct mrc_rxpool_class *pc;
	size_t size;

	if (!p)
		return;
	if (c < 0)
		goto free;
	size = mrc_rxpool_size(c);
	if (atomic_long_add_return(size, &mrc_rxpool_bytes) >
	    MRC_RXPOOL_MAX_BYTES) {
		atomic_long_sub(size, &mrc_rxpool_bytes);
		goto free;
	}
	pc = &mrc_rxpool[c];
	spin_lock_bh(&pc->lock);
	mrc_rxpool_push(pc, p);
	spin_unlock_bh(&pc->lock);
	mrc_ev_inc(MRC_EV_RXPOOL_RECYCLED);
	/* No-op while pending: the trim re-arms itself while needed. */
	queue_delayed_work(system_wq, &mrc_rxpool_trim,
			   msecs_to_jiffies(MRC_RXPOOL_TRIM_MS));
	return;
free:
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
	return atomic_long_read(&mrc_rxpool_bytes);
}

/* Empties class @c, or only if it was idle long enough (@idle). */
static void mrc_rxpool_drain(int c, bool idle)
{
	struct mrc_rxpool_class *pc = &mrc_rxpool[c];
	struct mrc_rxpool_obj *o = NULL, *next;
	unsigned int n = 0;

	spin_lock_bh(&pc->lock);
	if (pc->n && (!idle || ++pc->idle_ticks >= MRC_RXPOOL_IDLE_TICKS)) {
		o = pc->head;
		n = pc->n;
		pc->head = NULL;
		pc->n = 0;
	}
	spin_unlock_bh(&pc->lock);
	if (!n)
		return;
	atomic_long_sub(n * mrc_rxpool_size(c), &mrc_rxpool_bytes);
	mrc_ev_add(MRC_EV_RXPOOL_FREED, n);
	for (; o; o = next) {
		next = o->next;
		kvfree(o);
	}
}

static void mrc_rxpool_trim_workfn(struct work_struct *work)
{
	int c;

	for (c = 0; c < MRC_RXPOOL_NCLASS; c++)
		mrc_rxpool_drain(c, true);
	if (atomic_long_read(&mrc_rxpool_bytes))
		queue_delayed_work(system_wq, &mrc_rxpool_trim,
				   msecs_to_jiffies(MRC_RXPOOL_TRIM_MS));
}

/**
 * mrc_rxpool_init() - module init: an empty pool
 *
 * Return: 0.
 */
int mrc_rxpool_init(void)
{
	int c;

	BUILD_BUG_ON(MRC_RXPOOL_MAX_OBJ != 1U << MRC_RXPOOL_MAX_SHIFT);
	for (c = 0; c < MRC_RXPOOL_NCLASS; c++)
		spin_lock_init(&mrc_rxpool[c].lock);
	atomic_long_set(&mrc_rxpool_bytes, 0);
	INIT_DELAYED_WORK(&mrc_rxpool_trim, mrc_rxpool_trim_workfn);
	return 0;
}

/**
 * mrc_rxpool_exit() - module exit: every idle object is freed
 *
 * After every user of the pool stopped (the parts started after it).
 */
void mrc_rxpool_exit(void)
{
	int c;

	cancel_delayed_work_sync(&mrc_rxpool_trim);
	for (c = 0; c < MRC_RXPOOL_NCLASS; c++)
		mrc_rxpool_drain(c, false);
	WARN_ON(atomic_long_read(&mrc_rxpool_bytes));
}
