// SPDX-License-Identifier: GPL-2.0
/*
 * msg_rx.c - the receiver's half of the message engine's kernel binding:
 * DATA packets in (the engine's mrc_msg_rx_packet() under the peer's
 * rx_lock, the reassembly context allocated unlocked when the engine asks
 * for one), the SACK or NACK the arrival calls for, deliveries to the
 * endpoints (where the DATA arrived, or from rx_work), the expiry clock
 * (rx_gc), and the delivery trace in debugfs.  The sender's half, the node and the peers' engine
 * lifetime are msg.c; the locking is described there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/wait_bit.h>

#include "mrc.h"
#include "credit_peer.h"
#include "events.h"
#include "msg.h"
#include "msg_int.h"
#include "peer.h"
#include "trace.h"
#include "ud.h"

/*
 * Messages the receive handler delivers itself per DATA packet (in the
 * CQ's poller, which waits for it), and only to mrc's own recv_buf()
 * endpoints (a kernel consumer's recv() may sleep: mrc_ep_inline()); the
 * rest go to rx_work.
 */
#define MRC_MSG_DIRECT_BUDGET	4

/*
 * Delivery trace (debugfs mrc/deliveries): time and running byte count of
 * the last MRC_MSG_TRACE_N messages delivered, so that stalls can be
 * measured in the kernel's clock (CLOCK_MONOTONIC) instead of by a
 * sampler that a loaded CPU schedules late.  Under mrc_msg_trace_lock.
 */
#define MRC_MSG_TRACE_N		4096
static struct mrc_msg_trace {
	u64 ns;
	u64 bytes;
} mrc_msg_trace[MRC_MSG_TRACE_N];
static unsigned int mrc_msg_trace_n;	/* entries written, wraps */
static u64 mrc_msg_trace_bytes;
static DEFINE_SPINLOCK(mrc_msg_trace_lock);

/*
 * Peers with completion SACKs held for the end of the batch of
 * completions that took their DATA (core/msg_rx.c, Answers), each with a
 * reference and MRC_MK_ACK_HELD set.  Every batch (up to MRC_CQ_BATCH
 * completions of one CQ) ends with mrc_msg_rx_batch_end(), which empties
 * the list: a SACK waits at most for the rest of the batch it arrived
 * in, whichever CQ's poller sends it.
 */
static LLIST_HEAD(mrc_msg_acks);

/* ---- receive: common ---- */

/**
 * mrc_msg_rx_peer() - the peer a packet is from, by its path
 * @uqp: the QP it arrived on
 * @src_qp: its sender's QP number
 * @pkt: the packet, parsed
 * @lp: where the index of the link it came over goes
 * @why: where the drop reason goes if there is no such peer
 *
 * The token this node gave the peer is checked first (token branch),
 * then that the packet came over one of the peer's paths.  Both without
 * peer->lock, so that packets from one peer on several CPUs do not
 * serialise on it: the fields are single words written with WRITE_ONCE()
 * under the lock, and a link being resolved again may, for a moment,
 * show its new path count with a path's old QP number.  Such a packet
 * is dropped as wrong_path or taken from the QP that was the path a
 * moment ago; either is what a packet a moment earlier or later would
 * get, and the token has been checked already.
 *
 * Return: the peer, referenced, or NULL with *@why set.
 */
struct mrc_peer *mrc_msg_rx_peer(struct mrc_ud_qp *uqp, u32 src_qp,
				 const struct mrc_pkt *pkt, unsigned int *lp,
				 enum mrc_drop_reason *why)
{
	struct mrc_peer *peer = mrc_peer_get(pkt->src_node);
	unsigned int l, ev = uqp->ev;

	if (!peer) {
		*why = MRC_DROP_UNKNOWN_PEER;
		return NULL;
	}
	/* token branch: before anything looks at the packet (peer.c) */
	if (!mrc_peer_token_ok(peer, pkt)) {
		mrc_peer_put(peer);
		*why = MRC_DROP_BAD_TOKEN;
		return NULL;
	}
	for (l = 0; l < peer->nlinks; l++) {
		const struct mrc_peer_link *link = &peer->links[l];

		if (READ_ONCE(link->rail) == uqp->ud->rail &&
		    READ_ONCE(link->ah) && ev < READ_ONCE(link->npaths) &&
		    pkt->entropy == ev &&
		    READ_ONCE(link->paths[ev].remote_qpn) == src_qp)
			break;
	}
	if (l == peer->nlinks) {
		mrc_peer_put(peer);
		*why = MRC_DROP_WRONG_PATH;
		return NULL;
	}
	*lp = l;
	return peer;
}

/* ---- receiver ---- */

static void mrc_msg_trace_add(u32 len)
{
	struct mrc_msg_trace *t;

	spin_lock_bh(&mrc_msg_trace_lock);
	mrc_msg_trace_bytes += len;
	t = &mrc_msg_trace[mrc_msg_trace_n++ % MRC_MSG_TRACE_N];
	t->ns = ktime_get_ns();
	t->bytes = mrc_msg_trace_bytes;
	spin_unlock_bh(&mrc_msg_trace_lock);
}

/* Hands @rm to its endpoint (or counts it dropped), then frees it. */
static void mrc_msg_deliver_one(struct mrc_msg_rx *rm)
{
	struct mrc_ep *ep = mrc_ep_get(rm->dst_port);

	if (ep) {
		void *buf = mrc_msg_rx_take_buf(rm);

		mrc_ev_inc(MRC_EV_DELIVER);
		trace_mrc_deliver(rm->src_node, rm->src_port, rm->dst_port,
				  rm->r.msg_len);
		mrc_ep_deliver(ep, rm->src_node, rm->src_port, &buf,
			       rm->r.msg_len);
		mrc_ep_put(ep);
		/* the endpoint did not keep it (NULL if it did) */
		mrc_msg_rx_buf_free(&mrc_msg_node, buf, rm->r.msg_len);
		ms_inc(MRC_MS_RX_MSGS);
		atomic64_add(rm->r.msg_len, &mrc_msg_stats[MRC_MS_RX_BYTES]);
		mrc_msg_trace_add(rm->r.msg_len);
	} else {
		ms_inc(MRC_MS_RX_NO_EP);
		pr_info_ratelimited("message from node %u to unbound port %u dropped\n",
				    rm->src_node, rm->dst_port);
	}
	mrc_msg_rx_free(&mrc_msg_node, rm);
}

/*
 * Delivers the peer's ready messages, in order, at most @budget of them;
 * what is left goes to rx_work, and so does everything from the first
 * message for a kernel consumer's recv() on when @direct (the caller is
 * a completion queue's poller: mrc_ep_inline()).  Returns how many were
 * delivered here.
 *
 * One deliverer at a time (MRC_MK_DELIVERING), or two could pop
 * consecutive messages and hand them over out of order.  A caller that
 * finds the bit taken leaves: the owner looks at the deliver list again
 * after letting go, under rx_lock, so a message that became ready while
 * it held the bit (its producer saw the bit taken) is not left behind.
 * Both sides order through rx_lock: the producer readies under it before
 * trying the bit; the owner clears the bit before looking under it.
 */
static unsigned int mrc_msg_deliver_run(struct mrc_peer *peer,
					unsigned int budget, bool direct)
{
	struct mrc_msg_kpeer *mk = &peer->mk;
	const struct mrc_msg_rx *head;
	bool more, handoff = false;
	struct mrc_msg_rx *rm;
	unsigned int n = 0;

	while (!test_and_set_bit(MRC_MK_DELIVERING, &mk->flags)) {
		for (;;) {
			if (n >= budget) {
				rm = NULL;
				break;
			}
			spin_lock_bh(&mk->rx_lock);
			head = mrc_msg_rx_peek(&peer->mp);
			if (direct && head && !mrc_ep_inline(head->dst_port)) {
				handoff = true;
				rm = NULL;
			} else {
				rm = mrc_msg_rx_pop(&peer->mp);
			}
			spin_unlock_bh(&mk->rx_lock);
			if (!rm)
				break;
			mrc_msg_deliver_one(rm);
			n++;
			cond_resched();
		}
		/* wakes mrc_msg_peer_stop(), which waits for no deliverer */
		clear_bit_unlock(MRC_MK_DELIVERING, &mk->flags);
		/* the bit is clear before we look (pairs with test_and_set) */
		smp_mb__after_atomic();
		wake_up_bit(&mk->flags, MRC_MK_DELIVERING);
		spin_lock_bh(&mk->rx_lock);
		more = mrc_msg_rx_ready(&peer->mp);
		/*
		 * The rest from rx_work; queued under rx_lock and only while
		 * the receiver is open, so never after mrc_msg_peer_stop()
		 * closed it and cancelled the work (it delivers what is left
		 * itself).
		 */
		if (more && (n >= budget || handoff)) {
			if (!mrc_msg_rx_closed(&peer->mp) &&
			    queue_work(system_wq, &mk->rx_work))
				mrc_ev_inc(MRC_EV_RX_KICK);
			more = false;
		}
		spin_unlock_bh(&mk->rx_lock);
		if (!more)
			break;
	}
	return n;
}

/**
 * mrc_msg_deliver_all() - a closing peer: deliver what is complete, here
 * @peer: the peer, its receiver closed (mrc_msg_rx_close()), rx_work
 *	cancelled
 *
 * Waits for a deliverer still at work in a receive handler (it can no
 * longer hand its rest to rx_work) and delivers what is left.  Nothing
 * new becomes ready once the receiver is closed, so this ends.
 *
 * Context: process, no lock held (the endpoints' callbacks run here).
 */
void mrc_msg_deliver_all(struct mrc_peer *peer)
{
	struct mrc_msg_kpeer *mk = &peer->mk;
	bool more;

	do {
		wait_on_bit(&mk->flags, MRC_MK_DELIVERING,
			    TASK_UNINTERRUPTIBLE);
		mrc_msg_deliver_run(peer, UINT_MAX, false);
		spin_lock_bh(&mk->rx_lock);
		more = mrc_msg_rx_ready(&peer->mp);
		spin_unlock_bh(&mk->rx_lock);
	} while (more);
}

/**
 * mrc_msg_rx_workfn() - rx_work: hand every message ready to its endpoint
 * @work: the peer's mk.rx_work
 *
 * Context: process (system_wq), no lock held: the endpoints' callbacks
 * run here.
 */
void mrc_msg_rx_workfn(struct work_struct *work)
{
	struct mrc_peer *peer = container_of(work, struct mrc_peer,
					     mk.rx_work);

	mrc_ev_inc(MRC_EV_RX_WORK);
	mrc_msg_deliver_run(peer, UINT_MAX, false);
}

/**
 * mrc_msg_rx_data() - a DATA packet arrived (proto.c, process context)
 * @uqp: the QP it arrived on
 * @src_qp: its sender's QP number
 * @pkt: the packet, parsed
 *
 * Return: its drop reason, MRC_DROP_NONE if it was used.
 */
enum mrc_drop_reason mrc_msg_rx_data(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt)
{
	struct mrc_msg_rx_out out = {};
	enum mrc_drop_reason why;
	bool due = false;
	struct mrc_peer *peer;
	unsigned int l, pi;

	peer = mrc_msg_rx_peer(uqp, src_qp, pkt, &l, &why);
	if (!peer)
		return why;
	pi = l * MRC_MSG_LINK_PATHS + pkt->entropy;
	ms_inc(MRC_MS_RX_PKTS);
	mrc_ev_inc(MRC_EV_RX_DATA);
	trace_mrc_data_rx(peer->node_id, pi, pkt->msg_id, pkt->offset,
			  pkt->len);
	/* the acknowledgments of our messages it carries, first */
	if (mrc_wire_done_n(pkt))
		mrc_msg_rx_data_done(peer, pkt);
	for (;;) {
		spin_lock_bh(&peer->mk.rx_lock);
		peer->mk.rx_direct = true;	/* deliveries: below */
		why = mrc_msg_rx_packet(&peer->mp, pi, pkt, ktime_get_ns(),
					&out);
		peer->mk.rx_direct = false;
		due |= peer->mk.rx_due;
		peer->mk.rx_due = false;
		spin_unlock_bh(&peer->mk.rx_lock);
		if (!out.need_ctx)
			break;
		out.fresh = mrc_msg_rx_alloc(&mrc_msg_node, pkt);
		if (!out.fresh) {
			ms_inc(MRC_MS_RX_NO_MEM);
			why = MRC_DROP_NO_MEMORY;
			break;
		}
	}
	if (why == MRC_DROP_DUPLICATE)
		ms_inc(MRC_MS_RX_DUP);
	if (out.fresh)
		mrc_msg_rx_free(&mrc_msg_node, out.fresh);
	if (out.sack || out.nholes) {
		bool held;

		spin_lock_bh(&peer->lock);
		held = mrc_msg_rx_answer(&peer->mp, pi, pkt, &out,
					 ktime_get_ns());
		spin_unlock_bh(&peer->lock);
		/*
		 * After the unlock: a batch end that took the peer off the
		 * list before this clears the bit, then takes the lock and
		 * sends what was held, this SACK included.
		 */
		if (held && !test_and_set_bit(MRC_MK_ACK_HELD, &peer->mk.flags)) {
			kref_get(&peer->ref);
			llist_add(&peer->mk.ack_node, &mrc_msg_acks);
		}
	}
	if (out.new_bytes) {	/* placed: copied into the message */
		mrc_ev_add(MRC_EV_COPY_RX, pkt->len);
		/* charge the arrival to the credit pacer */
		mrc_credit_rx_data_hook(peer, pkt);
	}
	/*
	 * A message became ready: hand it over here, after its SACK went
	 * out, instead of waking rx_work (one hop less on the latency
	 * path).  Bounded, as the CQ's poller waits for us.
	 */
	if (due)
		mrc_ev_add(MRC_EV_RX_DIRECT,
			   mrc_msg_deliver_run(peer, MRC_MSG_DIRECT_BUDGET,
					       true));
	mrc_peer_put(peer);
	return why;
}

/**
 * mrc_msg_rx_batch_end() - a batch of completions was handled: send the
 * SACKs it held back, run the senders its answers kicked
 *
 * Context: process, no lock held; from cq.c after every batch.
 */
void mrc_msg_rx_batch_end(void)
{
	struct llist_node *list = llist_del_all(&mrc_msg_acks);
	struct mrc_peer *peer, *tmp;

	llist_for_each_entry_safe(peer, tmp, list, mk.ack_node) {
		clear_bit(MRC_MK_ACK_HELD, &peer->mk.flags);
		/* cleared before the lock: see mrc_msg_rx_data() */
		smp_mb__after_atomic();
		spin_lock_bh(&peer->lock);
		if (!peer->dead)
			mrc_msg_rx_flush(&peer->mp, ktime_get_ns());
		spin_unlock_bh(&peer->lock);
		mrc_peer_put(peer);
	}
	/* the senders the batch's answers kicked (msg.c) */
	mrc_msg_tx_batch_end();
}

/**
 * mrc_msg_free_list() - free reassembly contexts the engine gave back
 * @list: contexts off every engine list (expired, drained)
 */
void mrc_msg_free_list(struct list_head *list)
{
	struct mrc_msg_rx *rm, *tmp;

	list_for_each_entry_safe(rm, tmp, list, node) {
		list_del(&rm->node);
		mrc_msg_rx_free(&mrc_msg_node, rm);
	}
}

/**
 * mrc_msg_rx_gc_workfn() - rx_gc: the expiry clock (core/msg_rx.c, Expiry)
 * @work: the peer's mk.rx_gc
 */
void mrc_msg_rx_gc_workfn(struct work_struct *work)
{
	struct mrc_peer *peer = container_of(to_delayed_work(work),
					     struct mrc_peer, mk.rx_gc);
	LIST_HEAD(gone);

	spin_lock_bh(&peer->mk.rx_lock);
	mrc_msg_rx_expire(&peer->mp, ktime_get_ns(), &gone);
	spin_unlock_bh(&peer->mk.rx_lock);
	mrc_msg_free_list(&gone);
}

/* ---- debugfs ---- */

/**
 * mrc_msg_trace_show() - debugfs mrc/deliveries: the delivery trace
 * @s: the file
 *
 * "ns bytes" per delivered message, oldest first (a snapshot).
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_msg_trace_show(struct seq_file *s)
{
	struct mrc_msg_trace *t;
	unsigned int n, i, first;

	t = kvmalloc_array(MRC_MSG_TRACE_N, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	spin_lock_bh(&mrc_msg_trace_lock);
	n = min_t(unsigned int, mrc_msg_trace_n, MRC_MSG_TRACE_N);
	first = mrc_msg_trace_n - n;
	for (i = 0; i < n; i++)
		t[i] = mrc_msg_trace[(first + i) % MRC_MSG_TRACE_N];
	spin_unlock_bh(&mrc_msg_trace_lock);
	for (i = 0; i < n; i++)
		seq_printf(s, "%llu %llu\n", t[i].ns, t[i].bytes);
	kvfree(t);
	return 0;
}
