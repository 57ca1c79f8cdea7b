/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cq.h - a rail's completion queue, polled from a work item or by a busy
 * polling reader.
 */
#ifndef _MRC_CQ_H
#define _MRC_CQ_H

#include <rdma/ib_verbs.h>
#include <linux/workqueue.h>

/* Completions one poll of the work item handles before it yields. */
#define MRC_CQ_WORK_BUDGET	256
/* Completions one busy-poll pass handles per CQ. */
#define MRC_CQ_BUSY_BUDGET	64
/*
 * A CQ that signals while busy pollers run is polled by its work item
 * after this long (jiffies) if no busy poller took its completions.
 */
#define MRC_CQ_BUSY_SAFETY	2

enum {
	MRC_CQ_OWNED,		/* someone polls it (work, busy poller, teardown) */
	MRC_CQ_MISSED,		/* signalled while busy pollers ran */
	MRC_CQ_SKIPPED,		/* lazy: its sweep found a poster reaping it */
};

/* Completions taken from the CQ per ib_poll_cq() call. */
#define MRC_CQ_BATCH	16

struct mrc_cq {
	struct ib_cq *cq;
	u32 id;				/* index in mrc_cqs */
	/*
	 * 0, or a send CQ reaped by its posters (mrc_cq_reap()): its signal
	 * only schedules the work item this many jiffies later (cq.c, Lazy).
	 * Set at creation, read-only after.
	 */
	unsigned int lazy;
	unsigned long flags;		/* MRC_CQ_*, atomic bitops */
	struct delayed_work work;
	struct ib_wc wcs[MRC_CQ_BATCH];	/* the owner's */
};

struct mrc_cq *mrc_cq_create(struct ib_device *dev, unsigned int ncqe,
			     unsigned int lazy);
unsigned int mrc_cq_reap(struct mrc_cq *mcq, unsigned int budget);
void mrc_cq_destroy(struct mrc_cq *mcq);
void mrc_cq_busy_begin(void);
unsigned int mrc_cq_busy_poll(unsigned int budget);
void mrc_cq_busy_end(void);

int mrc_cq_init(void);
void mrc_cq_exit(void);

#endif /* _MRC_CQ_H */
