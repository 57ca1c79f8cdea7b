/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc_api.h - mrc's exported in-kernel API (EXPORT_SYMBOL_GPL).
 *
 * A kernel consumer opens an endpoint on a 16-bit port, sends whole
 * messages to (node, port) and receives whole messages through a callback.
 * Documentation/mrc/kernel-api.rst describes the contract; the example
 * consumer is selftests/mrc/modules/mrc_echo.
 *
 *  - Messages are 1 byte .. MRC_MSG_MAX_LEN bytes, delivered exactly once,
 *    whole, and in the order they were sent between one sending node and
 *    one receiving port within one traffic class (so per pair of
 *    endpoints that keep their class); classes, and ports in different
 *    buckets (port % 16), do not wait for each other.
 *  - mrc_send() copies the buffer: the caller may reuse it at once.  It
 *    may sleep (process context only).
 *  - done(ctx, status) is called exactly once per accepted send, in process
 *    context with no mrc lock held: status 0 (the peer has the whole
 *    message), -EHOSTUNREACH (no path to the peer lived for the peer
 *    timeout, or the peer was removed), -ECONNREFUSED (nothing was
 *    bound to the port on the peer) or -ETIMEDOUT (paths lived, but
 *    the peer acknowledged nothing for 4 peer timeouts).  It may call
 *    mrc_send().
 *  - ops->recv() is called once per message, in process context, one call
 *    at a time per sending node; @data is valid only during the call (copy
 *    what you keep).  It runs in a work item, never in a completion
 *    queue's poller (mrc's own recv_buf() endpoints, /dev/mrc, are
 *    delivered there), so a recv() that sleeps delays only the later
 *    messages from its sending node.  It may call mrc_send(); it must
 *    not call mrc_ep_close(), on its own endpoint or any other (the
 *    close waits for the deliveries in progress, this one included).
 *  - mrc_ep_close() waits until every done() of the endpoint's sends has
 *    been called and no recv() runs; after it returns neither is called.
 */
#ifndef _MRC_API_H
#define _MRC_API_H

#include <linux/types.h>

#define MRC_MSG_MAX_LEN		(64U << 20)

struct mrc_ep;

/*
 * An endpoint's callbacks, in process context with no mrc lock held, one
 * at a time per sending node.  recv(): a whole message, @data valid only
 * during the call.  recv_buf() (instead of recv(), for endpoints inside
 * mrc.ko such as /dev/mrc): the same, but the endpoint may keep @data
 * (receive memory of mrc's pool, given back with
 * mrc_rxpool_put(@data, @len), rxpool.h) by returning true; false
 * leaves it to mrc.
 *
 * admit() (optional) is asked when a new message for the endpoint starts
 * to arrive, before mrc acknowledges any of it, in softirq context (no
 * sleep, no mrc call): 0 takes it; -EBUSY holds its sender back (it asks
 * again at the message's next packet, after a wait that doubles up to
 * rto_max_ms; nothing is lost and the sender does not time out);
 * -ECONNREFUSED fails it at its sender with that status.  A message
 * admitted is always handed to recv() or recv_buf().
 */
struct mrc_ep_ops {
	void (*recv)(struct mrc_ep *ep, void *ctx, u32 src_node, u16 src_port,
		     const void *data, u32 len);
	bool (*recv_buf)(struct mrc_ep *ep, void *ctx, u32 src_node,
			 u16 src_port, void *data, u32 len);
	int (*admit)(struct mrc_ep *ep, void *ctx, u32 len);
};

struct mrc_ep *mrc_ep_open(u16 port, const struct mrc_ep_ops *ops, void *ctx);
void mrc_ep_close(struct mrc_ep *ep);
u16 mrc_ep_port(const struct mrc_ep *ep);

int mrc_send(struct mrc_ep *ep, u32 node, u16 port, const void *buf, u32 len,
	     void (*done)(void *ctx, int status), void *ctx);

/*
 * Traffic classes (uapi enum mrc_class): MRC_CLASS_DEFAULT (0), LATENCY
 * (1), BULK (2), BACKGROUND (3).  The operator maps each to a set of
 * rails (mrcctl class set); a class whose rails are all unusable falls
 * back to the others (and an event says so).
 *
 * mrc_ep_set_class() sets the class of the endpoint's later mrc_send()s
 * (default MRC_CLASS_DEFAULT); -EINVAL for an unknown class.
 * mrc_send_class() is mrc_send() with a class for this message only;
 * same returns, plus -EINVAL for an unknown class.
 */
int mrc_ep_set_class(struct mrc_ep *ep, unsigned int cls);
unsigned int mrc_ep_class(const struct mrc_ep *ep);
int mrc_send_class(struct mrc_ep *ep, unsigned int cls, u32 node, u16 port,
		   const void *buf, u32 len,
		   void (*done)(void *ctx, int status), void *ctx);

#endif /* _MRC_API_H */
