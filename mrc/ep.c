// SPDX-License-Identifier: GPL-2.0
/*
 * ep.c - endpoints and the exported kernel API (mrc_api.h).
 *
 * Design notes
 *
 * Endpoints live in an xarray indexed by port (its own lock serialises
 * open and close; lookups run under RCU).  An endpoint is refcounted: the
 * table holds one reference, each delivery in progress another.  Every
 * accepted send counts in ep->pending until its done() has returned.
 * mrc_ep_close() unlists the endpoint (no new deliveries find it), waits
 * for pending to drop to zero (bounded: a message either completes or
 * fails after the peer's unreachable timeout), then drops the table's
 * reference and waits for deliveries in progress; the memory goes after
 * an RCU grace period, since lookups may still be touching it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "mrc.h"
#include "mrc_api.h"
#include "msg.h"

struct mrc_ep {
	u16 port;
	u8 cls;				/* traffic class of mrc_send() */
	const struct mrc_ep_ops *ops;
	void *ctx;
	refcount_t ref;			/* table + deliveries in progress */
	atomic_t pending;		/* sends whose done() has not returned */
	wait_queue_head_t wq;		/* pending reaching 0 */
	struct completion released;	/* ref reaching 0 */
	struct rcu_head rcu;
};

static DEFINE_XARRAY(mrc_eps);

struct mrc_ep *mrc_ep_open(u16 port, const struct mrc_ep_ops *ops, void *ctx)
{
	struct mrc_ep *ep;
	int err;

	if (!port || !ops || !ops->recv)
		return ERR_PTR(-EINVAL);
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ep->port = port;
	ep->ops = ops;
	ep->ctx = ctx;
	refcount_set(&ep->ref, 1);
	atomic_set(&ep->pending, 0);
	init_waitqueue_head(&ep->wq);
	init_completion(&ep->released);
	err = xa_insert(&mrc_eps, port, ep, GFP_KERNEL);
	if (err) {
		kfree(ep);
		return ERR_PTR(err == -EBUSY ? -EADDRINUSE : err);
	}
	return ep;
}
EXPORT_SYMBOL_GPL(mrc_ep_open);

void mrc_ep_close(struct mrc_ep *ep)
{
	xa_erase(&mrc_eps, ep->port);
	wait_event(ep->wq, !atomic_read(&ep->pending));
	if (!refcount_dec_and_test(&ep->ref))
		wait_for_completion(&ep->released);
	kfree_rcu(ep, rcu);
}
EXPORT_SYMBOL_GPL(mrc_ep_close);

u16 mrc_ep_port(const struct mrc_ep *ep)
{
	return ep->port;
}
EXPORT_SYMBOL_GPL(mrc_ep_port);

int mrc_send_class(struct mrc_ep *ep, unsigned int cls, u32 node, u16 port,
		   const void *buf, u32 len,
		   void (*done)(void *ctx, int status), void *ctx)
{
	int err;

	might_sleep();
	if (cls >= MRC_SCHED_CLASS_NR)
		return -EINVAL;
	atomic_inc(&ep->pending);
	err = mrc_msg_send(ep, ep->port, node, port, cls, buf, len, done, ctx);
	if (err)
		mrc_ep_sent_done(ep);
	return err;
}
EXPORT_SYMBOL_GPL(mrc_send_class);

int mrc_send(struct mrc_ep *ep, u32 node, u16 port, const void *buf, u32 len,
	     void (*done)(void *ctx, int status), void *ctx)
{
	return mrc_send_class(ep, READ_ONCE(ep->cls), node, port, buf, len,
			      done, ctx);
}
EXPORT_SYMBOL_GPL(mrc_send);

int mrc_ep_set_class(struct mrc_ep *ep, unsigned int cls)
{
	if (cls >= MRC_SCHED_CLASS_NR)
		return -EINVAL;
	WRITE_ONCE(ep->cls, cls);
	return 0;
}
EXPORT_SYMBOL_GPL(mrc_ep_set_class);

unsigned int mrc_ep_class(const struct mrc_ep *ep)
{
	return READ_ONCE(ep->cls);
}
EXPORT_SYMBOL_GPL(mrc_ep_class);

/* A send of @ep is over (its done() returned, or it was refused). */
void mrc_ep_sent_done(struct mrc_ep *ep)
{
	if (atomic_dec_and_test(&ep->pending))
		wake_up_all(&ep->wq);
}

struct mrc_ep *mrc_ep_get(u16 port)
{
	struct mrc_ep *ep;

	rcu_read_lock();
	ep = xa_load(&mrc_eps, port);
	if (ep && !refcount_inc_not_zero(&ep->ref))
		ep = NULL;
	rcu_read_unlock();
	return ep;
}

void mrc_ep_put(struct mrc_ep *ep)
{
	if (refcount_dec_and_test(&ep->ref))
		complete(&ep->released);
}

void mrc_ep_deliver(struct mrc_ep *ep, u32 src_node, u16 src_port,
		    const void *data, u32 len)
{
	ep->ops->recv(ep, ep->ctx, src_node, src_port, data, len);
}

void mrc_ep_exit(void)
{
	/* Consumers hold references to this module: none can be left. */
	WARN_ON(!xa_empty(&mrc_eps));
	xa_destroy(&mrc_eps);
}
