// SPDX-License-Identifier: GPL-2.0
/*
 * cq.c - a rail's completion queue: polled from a work item when the
 * device signals a completion, or directly by a /dev/mrc reader that busy
 * polls (MRC_OPT_BUSY_POLL) before it sleeps.
 *
 * Design notes
 *
 * Why not ib_alloc_cq().  The core's IB_POLL_WORKQUEUE context polls in
 * process context, as mrc wants (posting from the CQ's softirq starved
 * user space on one vCPU), but nobody else may poll such a CQ.  A busy
 * poller saves the work item's wake-up and the reader's own: on a
 * latency-bound exchange these two context switches are most of the
 * receive path's cost.  So the CQ is created with a completion handler of
 * our own that queues our work item, which polls in batches and re-arms,
 * as ib_cq_poll_work() does, and mrc_cq_busy_poll() polls every CQ in
 * the caller's context.
 *
 * Ownership.  One poller at a time: the work item and the busy pollers
 * take the MRC_CQ_OWNED bit with test_and_set_bit_lock() and do nothing
 * if it is taken.  A work item that finds it taken returns without
 * re-arming: the owner re-arms (IB_CQ_REPORT_MISSED_EVENTS) after it
 * lets go and queues the work item if completions are waiting, so no
 * completion is left behind and none is handled twice.  Completion
 * handlers therefore never run concurrently for one CQ, and run in
 * process context, as under IB_POLL_WORKQUEUE.
 *
 * Busy mode.  While any reader busy polls (mrc_cq_busy_begin() ..
 * mrc_cq_busy_end()), a CQ's signal does not wake the work item at once:
 * the work item's worker would preempt the busy poller on its own CPU and
 * take the completions it waits for.  The CQ is marked MISSED and its
 * work item delayed by MRC_CQ_BUSY_SAFETY jiffies, in case no busy poller
 * gets to it (one preempted between passes); busy passes do not re-arm
 * the CQs.  The last busy poller to leave cancels the delayed work items
 * (the pollers took what they were for), re-arms every CQ and queues the
 * work item of each that still holds completions, as NAPI does when busy
 * polling defers a device's interrupts.
 *
 * Lazy CQs.  A send completion only returns a ring slot, and is not
 * urgent: waking the work item for it costs two context switches per
 * chain of sends, on the path of every latency-bound exchange.  So a CQ
 * created lazy (a rail's send CQ) is reaped by the ones who post to it,
 * with mrc_cq_reap() right after they post (rxe has usually completed the
 * send by then), and its signal only schedules the work item @lazy
 * jiffies later, as a sweep for what no poster reaped (an idle rail, a
 * QP in recovery waiting for its flushed sends).  Only the sweep re-arms
 * it, so the device signals it at most once per sweep; a sweep that
 * finds a poster reaping leaves that to the poster (MRC_CQ_SKIPPED).  A
 * lazy CQ's handlers never send (no mrc_msg_rx_batch_end()), so it may
 * be reaped under the engine's locks.
 *
 * Lookup.  Busy pollers find the CQs in the xarray mrc_cqs under RCU.
 * Teardown erases the entry, waits for an RCU grace period (after which
 * no poller can still reach the CQ without owning it), takes the bit for
 * good (waiting for a busy poller to let go), cancels the work and only
 * then destroys the CQ.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "cq.h"
#include "events.h"
#include "msg.h"

static struct workqueue_struct *mrc_cq_wq;
static DEFINE_XARRAY_ALLOC(mrc_cqs);
/* Readers busy polling now: the CQs' signals are deferred (busy mode). */
static atomic_t mrc_cq_busy = ATOMIC_INIT(0);

/* Handles up to @budget completions.  Caller owns @mcq. */
static unsigned int mrc_cq_poll(struct mrc_cq *mcq, unsigned int budget)
{
	struct ib_wc *wcs = mcq->wcs;
	unsigned int done = 0;
	int n, i;

	while (done < budget) {
		n = ib_poll_cq(mcq->cq, min_t(unsigned int, MRC_CQ_BATCH,
					      budget - done), wcs);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &wcs[i];

			/* mrc posts every work request with an ib_cqe */
			if (!WARN_ON_ONCE(!wc->wr_cqe))
				wc->wr_cqe->done(mcq->cq, wc);
		}
		/* the SACKs the batch's DATA held back (core/msg_rx.c) */
		if (!mcq->lazy)
			mrc_msg_rx_batch_end();
		done += n;
		if (n < MRC_CQ_BATCH)
			break;
	}
	return done;
}

/* Runs @mcq's work item: now, or a lazy CQ's sweep later. */
static void mrc_cq_kick(struct mrc_cq *mcq)
{
	if (mcq->lazy)
		queue_delayed_work(mrc_cq_wq, &mcq->work, mcq->lazy);
	else
		mod_delayed_work(mrc_cq_wq, &mcq->work, 0);
}

/* Arms @mcq; if completions wait (or @more), its work item runs. */
static void mrc_cq_arm(struct mrc_cq *mcq, bool more)
{
	if (ib_req_notify_cq(mcq->cq, IB_CQ_NEXT_COMP |
			     IB_CQ_REPORT_MISSED_EVENTS) > 0 || more)
		mrc_cq_kick(mcq);
}

/*
 * Lets go of @mcq and arms it; if completions came in meanwhile (or are
 * left over), the work item takes them.
 */
static void mrc_cq_release(struct mrc_cq *mcq, bool more)
{
	clear_bit_unlock(MRC_CQ_OWNED, &mcq->flags);
	mrc_cq_arm(mcq, more);
}

static void mrc_cq_workfn(struct work_struct *work)
{
	struct mrc_cq *mcq = container_of(to_delayed_work(work), struct mrc_cq,
					  work);
	unsigned int n;

	/* A busy poller (or teardown) has it; it re-arms when it lets go. */
	while (test_and_set_bit_lock(MRC_CQ_OWNED, &mcq->flags)) {
		if (!mcq->lazy)
			return;
		/*
		 * A poster reaping a lazy CQ does not re-arm it when it lets
		 * go (mrc_cq_reap()), unless told to here; if it let go
		 * before it could see this, take the CQ after all.
		 */
		set_bit(MRC_CQ_SKIPPED, &mcq->flags);
		/* pairs with mrc_cq_reap()'s: one of us sees the other */
		smp_mb__after_atomic();
		if (test_bit(MRC_CQ_OWNED, &mcq->flags))
			return;
	}
	if (mcq->lazy)
		clear_bit(MRC_CQ_SKIPPED, &mcq->flags);	/* re-armed below */
	mrc_ev_inc(MRC_EV_CQ_WORK);
	n = mrc_cq_poll(mcq, MRC_CQ_WORK_BUDGET);
	mrc_cq_release(mcq, n >= MRC_CQ_WORK_BUDGET);
}

static void mrc_cq_comp(struct ib_cq *cq, void *ctx)
{
	struct mrc_cq *mcq = cq->cq_context;

	if (mcq->lazy) {
		/* the posters reap it; this is the sweep behind them */
		queue_delayed_work(mrc_cq_wq, &mcq->work, mcq->lazy);
		return;
	}
	if (atomic_read(&mrc_cq_busy)) {
		/* busy pollers take it; the work item only if they do not */
		set_bit(MRC_CQ_MISSED, &mcq->flags);
		queue_delayed_work(mrc_cq_wq, &mcq->work, MRC_CQ_BUSY_SAFETY);
		return;
	}
	mod_delayed_work(mrc_cq_wq, &mcq->work, 0);
}

static void mrc_cq_event(struct ib_event *event, void *ctx)
{
	pr_warn_ratelimited("%s: CQ event %s\n", dev_name(&event->device->dev),
			    ib_event_msg(event->event));
}

/**
 * mrc_cq_create() - create a completion queue polled by mrc
 * @dev: the device
 * @ncqe: its size
 * @lazy: 0, or for a CQ that only send queues use: its posters reap it
 *	with mrc_cq_reap() and its signal runs the work item this many
 *	jiffies later; its completion handlers must not send
 *
 * The CQ's completions are handled one poller at a time: by a work item
 * after the device signals (in process context), by mrc_cq_busy_poll(),
 * or for a lazy CQ by mrc_cq_reap().  Each work request must carry an
 * ib_cqe.
 *
 * Return: the CQ or an ERR_PTR().
 */
struct mrc_cq *mrc_cq_create(struct ib_device *dev, unsigned int ncqe,
			     unsigned int lazy)
{
	struct ib_cq_init_attr attr = { .cqe = ncqe };
	struct mrc_cq *mcq;
	int err;

	mcq = kzalloc(sizeof(*mcq), GFP_KERNEL);
	if (!mcq)
		return ERR_PTR(-ENOMEM);
	INIT_DELAYED_WORK(&mcq->work, mrc_cq_workfn);
	mcq->lazy = lazy;
	mcq->cq = ib_create_cq(dev, mrc_cq_comp, mrc_cq_event, mcq, &attr);
	if (IS_ERR(mcq->cq)) {
		err = PTR_ERR(mcq->cq);
		kfree(mcq);
		return ERR_PTR(err);
	}
	err = xa_alloc(&mrc_cqs, &mcq->id, mcq, xa_limit_32b, GFP_KERNEL);
	if (err) {
		ib_destroy_cq(mcq->cq);
		kfree(mcq);
		return ERR_PTR(err);
	}
	ib_req_notify_cq(mcq->cq, IB_CQ_NEXT_COMP);
	return mcq;
}

/**
 * mrc_cq_destroy() - destroy a completion queue of mrc_cq_create()
 * @mcq: the CQ, with no QP left on it
 *
 * Waits until no work item or busy poller handles its completions.
 * Completions still queued are not handled.
 */
void mrc_cq_destroy(struct mrc_cq *mcq)
{
	if (!mcq)
		return;
	xa_erase(&mrc_cqs, mcq->id);
	synchronize_rcu();		/* no busy poller can find it now */
	while (test_and_set_bit_lock(MRC_CQ_OWNED, &mcq->flags))
		usleep_range(50, 100);	/* a busy poller lets go soon */
	cancel_delayed_work_sync(&mcq->work);
	ib_destroy_cq(mcq->cq);
	kfree(mcq);
}

/**
 * mrc_cq_busy_begin() - a reader starts busy polling
 *
 * Until the matching mrc_cq_busy_end(), the CQs' signals are deferred to
 * the busy pollers (busy mode, above).  Call mrc_cq_busy_poll() in
 * between, often: completions wait for it.
 */
void mrc_cq_busy_begin(void)
{
	atomic_inc(&mrc_cq_busy);
}

/**
 * mrc_cq_busy_end() - a reader stops busy polling
 *
 * The last one re-arms every CQ and hands what waits to the work items.
 * Does not sleep.
 */
void mrc_cq_busy_end(void)
{
	unsigned long idx;
	struct mrc_cq *mcq;

	if (!atomic_dec_and_test(&mrc_cq_busy))
		return;
	rcu_read_lock();
	xa_for_each(&mrc_cqs, idx, mcq) {
		/*
		 * A signal in busy mode queued the work item late; the busy
		 * pollers took what it was for, and arming reports what they
		 * did not: no work item (and no preemption of the reader
		 * that just got its message) for an empty CQ.  A CQ owned
		 * now is armed by its owner when it lets go.
		 */
		if (!mcq->lazy &&
		    test_and_clear_bit(MRC_CQ_MISSED, &mcq->flags))
			cancel_delayed_work(&mcq->work);
		mrc_cq_arm(mcq, false);
	}
	rcu_read_unlock();
}

/**
 * mrc_cq_busy_poll() - poll every CQ of mrc once, here
 * @budget: completions to handle at most per CQ
 *
 * For a reader that busy polls before it sleeps, between
 * mrc_cq_busy_begin() and mrc_cq_busy_end().  A CQ that its work item
 * (or another busy poller) polls at the moment is skipped.
 *
 * Context: process, no locks held (completion handlers run here).
 * Return: how many completions were handled.
 */
unsigned int mrc_cq_busy_poll(unsigned int budget)
{
	unsigned long idx = 0;
	unsigned int done = 0, n;
	struct mrc_cq *mcq;
	bool owned;

	might_sleep();
	for (;;) {
		rcu_read_lock();
		mcq = xa_find(&mrc_cqs, &idx, ULONG_MAX, XA_PRESENT);
		owned = mcq && !test_and_set_bit_lock(MRC_CQ_OWNED,
						      &mcq->flags);
		rcu_read_unlock();
		if (!mcq)
			break;
		if (owned) {
			/* busy mode: not re-armed, busy_end() does that */
			n = mrc_cq_poll(mcq, budget);
			clear_bit_unlock(MRC_CQ_OWNED, &mcq->flags);
			done += n;
		}
		idx++;
	}
	mrc_ev_inc(MRC_EV_BUSY_POLL);
	mrc_ev_add(MRC_EV_BUSY_CQE, done);
	return done;
}

/**
 * mrc_cq_reap() - poll a lazy CQ, here, after posting to it
 * @mcq: the CQ, created lazy
 * @budget: completions to handle at most
 *
 * Does nothing if someone else polls @mcq at the moment (they take what
 * waits).  Leaves the CQ's arming to its sweep (the work item).
 *
 * Context: any but hard IRQ; no lock held that a completion handler of
 * @mcq takes (for the UD send CQ: no QP's lock).
 * Return: how many completions were handled.
 */
unsigned int mrc_cq_reap(struct mrc_cq *mcq, unsigned int budget)
{
	unsigned int n;

	if (WARN_ON_ONCE(!mcq->lazy) ||
	    test_and_set_bit_lock(MRC_CQ_OWNED, &mcq->flags))
		return 0;
	n = mrc_cq_poll(mcq, budget);
	clear_bit_unlock(MRC_CQ_OWNED, &mcq->flags);
	/*
	 * Not re-armed: every arm costs a signal (on rxe a tasklet) at the
	 * next completion, a reap per chain would pay it per chain.  The CQ
	 * stays armed, or its sweep is pending, or the sweep came meanwhile
	 * and left the arming to us (mrc_cq_workfn()).
	 */
	smp_mb__after_atomic();		/* pairs with mrc_cq_workfn()'s */
	if (test_and_clear_bit(MRC_CQ_SKIPPED, &mcq->flags))
		mrc_cq_arm(mcq, false);
	mrc_ev_add(MRC_EV_TX_REAP, n);
	return n;
}

/**
 * mrc_cq_init() - module init: the CQs' workqueue
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_cq_init(void)
{
	mrc_cq_wq = alloc_workqueue("mrc_cq", WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	return mrc_cq_wq ? 0 : -ENOMEM;
}

/**
 * mrc_cq_exit() - module exit: every CQ is gone, so is the workqueue
 */
void mrc_cq_exit(void)
{
	WARN_ON(!xa_empty(&mrc_cqs));
	destroy_workqueue(mrc_cq_wq);
}
