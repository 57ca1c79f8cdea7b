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
 * mrc_ep_close() unlists the endpoint (no new deliveries find it), drops
 * the table's reference and waits for the deliveries in progress, and
 * only then waits for pending to drop to zero (bounded: a message either
 * completes or fails after the peer's unreachable timeout).  In this
 * order because recv() may send: a send it makes is counted before the
 * delivery's reference goes, so the wait for pending sees it.  done() may
 * send too; that send is counted before its own done() returns.  The
 * memory goes after an RCU grace period, since lookups may still be
 * touching it.
 *
 * The last mrc_ep_sent_done() wakes mrc_ep_close() through
 * wake_up_var(), whose wait queue is not in the endpoint: once pending is
 * zero the closer may free the endpoint at once, even before the waker,
 * preempted right after its decrement, gets to the wake-up.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/wait_bit.h>
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
	atomic_t pending;		/* sends whose done() has not returned;
					 * its last drop wakes the closer
					 * (wake_up_var())
					 */
	struct completion released;	/* ref reaching 0 */
	struct rcu_head rcu;
};

static DEFINE_XARRAY(mrc_eps);

/**
 * mrc_ep_open() - open an endpoint
 * @port: its port, 1..65535
 * @ops: its callbacks; ops->recv (or ops->recv_buf) is required
 * @ctx: passed to them
 *
 * Context: process.
 *
 * Return: the endpoint, or ERR_PTR: -EINVAL (port 0, no recv),
 * -EADDRINUSE (port taken), -ENOMEM.
 */
struct mrc_ep *mrc_ep_open(u16 port, const struct mrc_ep_ops *ops, void *ctx)
{
	struct mrc_ep *ep;
	int err;

	if (!port || !ops || (!ops->recv && !ops->recv_buf))
		return ERR_PTR(-EINVAL);
	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ep->port = port;
	ep->ops = ops;
	ep->ctx = ctx;
	refcount_set(&ep->ref, 1);
	atomic_set(&ep->pending, 0);
	init_completion(&ep->released);
	err = xa_insert(&mrc_eps, port, ep, GFP_KERNEL);
	if (err) {
		kfree(ep);
		return ERR_PTR(err == -EBUSY ? -EADDRINUSE : err);
	}
	return ep;
}
EXPORT_SYMBOL_GPL(mrc_ep_open);

/**
 * mrc_ep_close() - close an endpoint
 * @ep: the endpoint
 *
 * Waits until every done() of the endpoint's sends has been called and no
 * recv() runs; after it returns neither is called.  Must not be called
 * from the endpoint's own recv().
 *
 * Context: process; sleeps.
 */
void mrc_ep_close(struct mrc_ep *ep)
{
	xa_erase(&mrc_eps, ep->port);
	/* Deliveries first: a recv() may still send (ep.c, top). */
	if (!refcount_dec_and_test(&ep->ref))
		wait_for_completion(&ep->released);
	wait_var_event(&ep->pending, !atomic_read(&ep->pending));
	kfree_rcu(ep, rcu);
}
EXPORT_SYMBOL_GPL(mrc_ep_close);

/**
 * mrc_ep_port() - an endpoint's port
 * @ep: the endpoint
 *
 * Return: the port it was opened on.
 */
u16 mrc_ep_port(const struct mrc_ep *ep)
{
	return ep->port;
}
EXPORT_SYMBOL_GPL(mrc_ep_port);

/**
 * mrc_ep_send_iter() - send a message read from an iov_iter (/dev/mrc)
 * @ep: the sending endpoint
 * @cls: the message's class (uapi enum mrc_class)
 * @node: the destination node
 * @port: the destination endpoint's port
 * @from: the message: copied once, straight into the message's buffer
 * @len: its length, 1..MRC_MSG_MAX_LEN
 * @done: as for mrc_send_class()
 * @ctx: passed to @done
 *
 * Context: process; may sleep (@from may be user memory).
 *
 * Return: as mrc_send_class(), plus -EFAULT if @from could not be read.
 */
int mrc_ep_send_iter(struct mrc_ep *ep, unsigned int cls, u32 node,
		     u16 port, struct iov_iter *from, u32 len,
		     void (*done)(void *ctx, int status), void *ctx)
{
	int err;

	might_sleep();
	if (cls >= MRC_SCHED_CLASS_NR)
		return -EINVAL;
	atomic_inc(&ep->pending);
	err = mrc_msg_send(ep, ep->port, node, port, cls, from, len, done,
			   ctx);
	if (err)
		mrc_ep_sent_done(ep);
	return err;
}

/**
 * mrc_send_class() - mrc_send() with a traffic class for this message only
 * @ep: the sending endpoint
 * @cls: the message's class (uapi enum mrc_class)
 * @node: the destination node
 * @port: the destination endpoint's port
 * @buf: the message, copied: the caller may reuse it at once
 * @len: its length, 1..MRC_MSG_MAX_LEN
 * @done: called exactly once per accepted send, in process context with
 *	no mrc lock held, with the send's status
 * @ctx: passed to @done
 *
 * Context: process; may sleep.
 *
 * Return: as mrc_send(), plus -EINVAL for an unknown class.
 */
int mrc_send_class(struct mrc_ep *ep, unsigned int cls, u32 node, u16 port,
		   const void *buf, u32 len,
		   void (*done)(void *ctx, int status), void *ctx)
{
	struct kvec kv = { .iov_base = (void *)buf, .iov_len = len };
	struct iov_iter from;

	iov_iter_kvec(&from, ITER_SOURCE, &kv, 1, len);
	return mrc_ep_send_iter(ep, cls, node, port, &from, len, done, ctx);
}
EXPORT_SYMBOL_GPL(mrc_send_class);

/**
 * mrc_send() - send a message
 * @ep: the sending endpoint
 * @node: the destination node
 * @port: the destination endpoint's port
 * @buf: the message, copied: the caller may reuse it at once
 * @len: its length, 1..MRC_MSG_MAX_LEN
 * @done: called exactly once per accepted send, in process context with
 *	no mrc lock held: status 0 (the peer has the whole message),
 *	-EHOSTUNREACH or -ETIMEDOUT (see mrc_api.h)
 * @ctx: passed to @done
 *
 * Sends @len bytes of @buf to endpoint @port of node @node, in the
 * endpoint's traffic class (mrc_ep_set_class()).
 *
 * Context: process; may sleep.
 *
 * Return: 0 (done() will be called), or, without calling done(): -EINVAL
 * (len 0 or above MRC_MSG_MAX_LEN, no done), -EHOSTUNREACH (no such
 * peer), -ENOBUFS (too many messages queued for the peer), -ENOMEM.
 */
int mrc_send(struct mrc_ep *ep, u32 node, u16 port, const void *buf, u32 len,
	     void (*done)(void *ctx, int status), void *ctx)
{
	return mrc_send_class(ep, READ_ONCE(ep->cls), node, port, buf, len,
			      done, ctx);
}
EXPORT_SYMBOL_GPL(mrc_send);

/**
 * mrc_ep_set_class() - set the class of an endpoint's later mrc_send()s
 * @ep: the endpoint
 * @cls: the class (uapi enum mrc_class); MRC_CLASS_DEFAULT until set
 *
 * Return: 0, or -EINVAL for an unknown class.
 */
int mrc_ep_set_class(struct mrc_ep *ep, unsigned int cls)
{
	if (cls >= MRC_SCHED_CLASS_NR)
		return -EINVAL;
	WRITE_ONCE(ep->cls, cls);
	return 0;
}
EXPORT_SYMBOL_GPL(mrc_ep_set_class);

/**
 * mrc_ep_class() - the class of an endpoint's mrc_send()s
 * @ep: the endpoint
 *
 * Return: the class mrc_ep_set_class() set, else MRC_CLASS_DEFAULT.
 */
unsigned int mrc_ep_class(const struct mrc_ep *ep)
{
	return READ_ONCE(ep->cls);
}
EXPORT_SYMBOL_GPL(mrc_ep_class);

/**
 * mrc_ep_sent_done() - a send of an endpoint is over
 * @ep: the endpoint
 *
 * Its done() returned, or the send was refused: mrc_ep_close() may stop
 * waiting for it.
 */
void mrc_ep_sent_done(struct mrc_ep *ep)
{
	/*
	 * Nothing of @ep is touched after the decrement: the closer may
	 * free it as soon as it reads zero (ep.c, top).
	 */
	if (atomic_dec_and_test(&ep->pending))
		wake_up_var(&ep->pending);
}

/**
 * mrc_ep_get() - find the endpoint open on a port, for a delivery
 * @port: the port
 *
 * Return: the endpoint with a reference (mrc_ep_put()), or NULL.
 */
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

/**
 * mrc_ep_admit() - whether a new message may start towards a port
 * @port: the port it is for
 * @len: its length
 *
 * Asked by the receiver when a message's first packet arrives, before
 * any memory is taken for it; a refused message fails at its sender, a
 * busy one waits there (core/msg_rx.c, Refusal and Back-pressure).
 *
 * Context: any; no sleep.
 *
 * Return: 0; -ECONNREFUSED if no endpoint is open on @port; else what
 * its ops->admit() says (-EBUSY: not now).
 */
int mrc_ep_admit(u16 port, u32 len)
{
	struct mrc_ep *ep = mrc_ep_get(port);
	int err = 0;

	if (!ep)
		return -ECONNREFUSED;
	/* the reference keeps ep->ctx alive: mrc_ep_close() waits for it */
	if (ep->ops->admit)
		err = ep->ops->admit(ep, ep->ctx, len);
	mrc_ep_put(ep);
	return err;
}

/**
 * mrc_ep_inline() - whether a message for a port may be delivered in a
 *	completion queue's poller
 * @port: the port
 *
 * Only mrc's own recv_buf() endpoints (/dev/mrc: they queue the buffer
 * and return) are delivered there; a kernel consumer's recv() may sleep,
 * and runs in a work item (mrc_api.h).  No endpoint: yes, the message is
 * only counted and dropped.
 *
 * Context: any; no sleep.
 *
 * Return: true if the poller may deliver it.
 */
bool mrc_ep_inline(u16 port)
{
	struct mrc_ep *ep;
	bool ok;

	rcu_read_lock();
	ep = xa_load(&mrc_eps, port);
	ok = !ep || ep->ops->recv_buf;
	rcu_read_unlock();
	return ok;
}

/**
 * mrc_ep_put() - drop a mrc_ep_get() reference
 * @ep: the endpoint
 */
void mrc_ep_put(struct mrc_ep *ep)
{
	if (refcount_dec_and_test(&ep->ref))
		complete(&ep->released);
}

/**
 * mrc_ep_deliver() - hand a message to an endpoint's recv() or recv_buf()
 * @ep: the endpoint, referenced
 * @src_node: the sending node
 * @src_port: the sending endpoint's port
 * @data: the message's buffer (rxpool.c): *@data becomes NULL if the
 *	endpoint kept it (recv_buf()); else it stays the caller's to free
 * @len: its length
 *
 * Context: process, one call at a time per sending node.
 */
void mrc_ep_deliver(struct mrc_ep *ep, u32 src_node, u16 src_port,
		    void **data, u32 len)
{
	if (ep->ops->recv_buf) {
		if (ep->ops->recv_buf(ep, ep->ctx, src_node, src_port, *data,
				      len))
			*data = NULL;
		return;
	}
	ep->ops->recv(ep, ep->ctx, src_node, src_port, *data, len);
}

/**
 * mrc_ep_exit() - module exit: the endpoint table goes
 *
 * Consumers hold references to this module, so no endpoint can be left.
 */
void mrc_ep_exit(void)
{
	/* Consumers hold references to this module: none can be left. */
	WARN_ON(!xa_empty(&mrc_eps));
	xa_destroy(&mrc_eps);
}
