// SPDX-License-Identifier: GPL-2.0
/*
 * msg.c - the kernel binding of the message engine (core/msg.h): locks,
 * the hrtimer and work items that run it, memory, packets to the UD QPs,
 * SACKs and NACKs in, counters in debugfs, the peers' engine lifetime and
 * the exported send call; the receiver's half (DATA in, deliveries,
 * expiry, the delivery trace) is msg_rx.c.  The protocol itself
 * (segmentation, windows, loss detection, SACK/NACK, reassembly, order,
 * expiry) is core/msg_tx.c, core/msg_ack.c and core/msg_rx.c.
 *
 * Locking.  The engine's sender half runs under peer->lock (BH spin): from
 * mrc_msg_send(), from proto.c's SACK and NACK handlers, from peer.c
 * (paths going down, restarts) and from tx_work, which the engine kicks
 * and the peer's hrtimer arms.  Its receiver half runs under
 * peer->mk.rx_lock (BH spin): DATA from proto.c, the deliveries (msg_rx.c:
 * where the DATA arrived, or from rx_work) and rx_gc (expiry).  They
 * never nest: a SACK is built under rx_lock and sent under peer->lock
 * after rx_lock is released.  Memory of messages is never
 * allocated under a lock: the engine says when it needs a context and the
 * caller allocates it unlocked.  done() and recv() are called in process
 * context without locks.  Lock order (peer.c): mrc_rails_lock ->
 * mrc_peers_lock -> peer->lock -> QP locks; rx_lock -> QP locks is not
 * used (no send under rx_lock).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/llist.h>
#include <linux/ratelimit.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uio.h>
#include <linux/vmalloc.h>

#include "mrc.h"
#include "mrc_api.h"
#include "credit_peer.h"
#include "events.h"
#include "msg.h"
#include "msg_int.h"
#include "peer.h"
#include "peer_int.h"
#include "rxpool.h"
#include "txpool.h"
#include "schedcfg.h"
#include "trace.h"
#include "ud.h"

/* ---- counters (debugfs mrc/msg) ---- */

atomic64_t mrc_msg_stats[MRC_MS_NR];

static struct mrc_peer *mrc_msg_to_peer(struct mrc_msg_peer *mp)
{
	return container_of(mp, struct mrc_peer, mp);
}

static struct mrc_peer_link *mrc_msg_link(struct mrc_peer *peer,
					  unsigned int pi)
{
	return &peer->links[pi / MRC_MSG_LINK_PATHS];
}

/* ---- the engine's operations ---- */

/*
 * Send-side memory (a message, its buffer and scoreboard), taken in the
 * sender's context: charged to its memory cgroup, so a /dev/mrc user
 * cannot make the node hold more than its cgroup allows (kernel
 * consumers sending from a kernel thread are charged to the root).  The
 * size is the sender's choice (up to 64 MiB), so a send that does not
 * fit fails with ENOMEM, quietly: no allocation here may call a full
 * cgroup's OOM killer on the sender (socket buffers do not either) or
 * log a warning per refusal.  What kvmalloc() does, with that rule: a
 * large buffer tries kmalloc() without retrying (__GFP_NORETRY), then
 * vmalloc with __GFP_RETRY_MAYFAIL (kvmalloc() would pass the latter to
 * kmalloc() too, making it compact memory before it falls back).
 */
static void *mrc_msg_op_alloc(struct mrc_msg_node *node, size_t bytes)
{
	const gfp_t gfp = GFP_KERNEL_ACCOUNT | __GFP_NOWARN;
	void *p;

	mrc_ev_inc(MRC_EV_ALLOC);
	if (bytes <= PAGE_SIZE)
		return kmalloc(bytes, gfp | __GFP_RETRY_MAYFAIL);
	p = kmalloc(bytes, gfp | __GFP_NORETRY);
	if (!p)
		p = __vmalloc(bytes, gfp | __GFP_RETRY_MAYFAIL);
	return p;
}

static void mrc_msg_op_free(struct mrc_msg_node *node, void *p)
{
	kvfree(p);
}

/* Receive memory: recycled (rxpool.c). */
static void *mrc_msg_op_rx_alloc(struct mrc_msg_node *node, size_t bytes)
{
	return mrc_rxpool_get(bytes);
}

static void mrc_msg_op_rx_free(struct mrc_msg_node *node, void *p,
			       size_t bytes)
{
	mrc_rxpool_put(p, bytes);
}

/*
 * A message's payload.  Received: recycled (above).  Sent: ud.c reads a
 * DATA packet's payload from it in place, holding a reference to each
 * folio it reads until the send completes, so a buffer of a page or more
 * is memory that such references keep alive: a compound block of the
 * page allocator, recycled by txpool.c (which keeps a block only once
 * no send holds it), else vmalloc.  Freed with vfree() or by txpool.c,
 * either of which leaves what a send still holds to its completion (the
 * send ring's slots bound that: its completion is reaped by the next post
 * or the send CQ's sweep, MRC_UD_SWEEP_MS).  A smaller buffer is a slab
 * object, copied into the send ring.  Charged
 * to the sender's memory cgroup, and quiet when refused, as
 * mrc_msg_op_alloc().
 */
static void *mrc_msg_op_buf_alloc(struct mrc_msg_node *node, size_t bytes,
				  bool rx)
{
	void *p;

	if (rx)
		return mrc_rxpool_get(bytes);
	if (bytes < PAGE_SIZE)
		return mrc_msg_op_alloc(node, bytes);
	p = mrc_txpool_get(bytes);
	if (p)
		return p;
	mrc_ev_inc(MRC_EV_ALLOC);
	return __vmalloc(bytes, GFP_KERNEL_ACCOUNT | __GFP_NOWARN |
			 __GFP_RETRY_MAYFAIL);
}

static void mrc_msg_op_buf_free(struct mrc_msg_node *node, void *p,
				size_t bytes, bool rx)
{
	if (rx)
		mrc_rxpool_put(p, bytes);
	else if (bytes < PAGE_SIZE || is_vmalloc_addr(p))
		kvfree(p);
	else
		mrc_txpool_put(p, bytes);
}

static u64 mrc_msg_op_knob(struct mrc_msg_node *node, unsigned int id)
{
	return mrc_knob(id);
}

static u32 mrc_msg_op_wall_seconds(struct mrc_msg_node *node)
{
	return (u32)ktime_get_real_seconds();
}

static void mrc_msg_op_count(struct mrc_msg_node *node, unsigned int stat,
			     u64 n)
{
	if (stat < MRC_MS_NR)
		atomic64_add(n, &mrc_msg_stats[stat]);
}

/* The paths of resolved links whose rail's MTU carries @seg. */
static unsigned int mrc_msg_op_paths(struct mrc_msg_peer *mp, u16 seg,
				     struct mrc_path **out)
{
	struct mrc_peer *peer = mrc_msg_to_peer(mp);
	unsigned int l, i;

	lockdep_assert_held(&peer->lock);
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];
		bool ok = link->ah && link->rail &&
			  READ_ONCE(link->rail->info.mtu) >=
			  seg + MRC_WIRE_HDR_LEN;

		for (i = 0; i < MRC_MSG_LINK_PATHS; i++)
			out[l * MRC_MSG_LINK_PATHS + i] =
				ok && i < link->npaths ?
				&link->paths[i].p : NULL;
	}
	return peer->nlinks * MRC_MSG_LINK_PATHS;
}

/* Event counters and trace events of a packet posted on path @pi. */
static void mrc_msg_count_tx(u32 node, unsigned int pi,
			     const struct mrc_pkt *pkt)
{
	switch (pkt->type) {
	case MRC_PKT_DATA:
		mrc_ev_inc(MRC_EV_TX_DATA);	/* copy_tx_bytes: ud.c */
		trace_mrc_data_tx(node, pi, pkt->msg_id, pkt->offset,
				  pkt->len);
		break;
	case MRC_PKT_SACK:
		mrc_ev_inc(MRC_EV_TX_SACK);
		trace_mrc_sack_tx(node, pi, pkt->msg_id, pkt->offset,
				  pkt->len);
		break;
	case MRC_PKT_NACK:
		mrc_ev_inc(MRC_EV_TX_NACK);
		trace_mrc_nack_tx(node, pi, pkt->msg_id, pkt->offset,
				  pkt->len);
		break;
	}
}

/* Posts one packet on path @pi: the header, then the payload or body. */
static int mrc_msg_op_send(struct mrc_msg_peer *mp, unsigned int pi,
			   struct mrc_pkt *pkt, const void *payload)
{
	struct mrc_peer *peer = mrc_msg_to_peer(mp);
	struct mrc_peer_link *link = mrc_msg_link(peer, pi);
	unsigned int ev = pi % MRC_MSG_LINK_PATHS;
	/* a DATA's done list goes right after the header (core/wire.h) */
	u8 hdr[MRC_WIRE_HDR_LEN + MRC_WIRE_DONE_MAX * sizeof(__be32)];
	unsigned int hlen = MRC_WIRE_HDR_LEN;
	int err;

	lockdep_assert_held(&peer->lock);
	if (!link->ah || !link->rail || ev >= link->npaths)
		return -ENETDOWN;
	pkt->src_node = mrc_knob(MRC_KNOB_node_id);
	pkt->dst_node = peer->node_id;
	pkt->token = peer->tx_token;	/* token branch */
	mrc_wire_put_hdr(hdr, pkt);
	if (pkt->type == MRC_PKT_DATA) {
		if (pkt->flags & MRC_WF_DONE_MORE) {
			memcpy(hdr + hlen, pkt->done,
			       pkt->ndone * sizeof(__be32));
			hlen += pkt->ndone * sizeof(__be32);
		}
		/* posted as a chain at the run's end (mrc_msg_op_flush()) */
		err = mrc_ud_stage(link->rail->ud, ev, link->ah,
				   link->paths[ev].remote_qpn, hdr,
				   hlen, payload, pkt->len);
		if (!err)
			__set_bit(pi, peer->mk.staged);
	} else {
		err = mrc_ud_send(link->rail->ud, ev, link->ah,
				  link->paths[ev].remote_qpn, hdr, hlen,
				  payload ? payload : pkt->body, pkt->len);
	}
	if (err) {
		if (err != -EAGAIN && err != -ENETDOWN)
			pr_debug("send to %u: %d\n", peer->node_id, err);
		return err;
	}
	mrc_msg_count_tx(peer->node_id, pi, pkt);
	return 0;
}

/* Posts the DATA packets mrc_msg_op_send() staged, per QP one chain. */
static void mrc_msg_op_flush(struct mrc_msg_peer *mp)
{
	struct mrc_peer *peer = mrc_msg_to_peer(mp);
	unsigned int pi;

	lockdep_assert_held(&peer->lock);
	for_each_set_bit(pi, peer->mk.staged, MRC_MSG_NPATHS) {
		struct mrc_peer_link *link = mrc_msg_link(peer, pi);

		__clear_bit(pi, peer->mk.staged);
		if (link->rail)
			mrc_ud_flush(link->rail->ud, pi % MRC_MSG_LINK_PATHS);
	}
}

/*
 * Peers whose senders run at the end of the batch of completions in
 * which an answer of their receiver arrived, each with a reference and
 * MRC_MK_KICK_HELD set (mrc_msg_op_kick()).  Emptied by every batch's
 * end, as mrc_msg_acks is (msg_rx.c), so a run waits at most for the
 * rest of the batch, whichever CQ's poller runs it.
 */
static LLIST_HEAD(mrc_msg_kicks);

/*
 * The engine asks for a run of the sender (the window opened, a loss to
 * resend, a queue to push).  While it takes an answer that arrived in a
 * batch of completions (mk.in_batch), the run is the batch end's, in the
 * poller's own context: a SACK that opens the window is answered with
 * the next DATA without a hop to tx_work and back, and one run serves
 * every answer of the batch.  Elsewhere (timer, send, path events) it
 * is tx_work's.
 */
static void mrc_msg_op_kick(struct mrc_msg_peer *mp)
{
	struct mrc_peer *peer = mrc_msg_to_peer(mp);

	lockdep_assert_held(&peer->lock);
	if (peer->dead)
		return;
	if (peer->mk.in_batch) {
		if (!test_and_set_bit(MRC_MK_KICK_HELD, &peer->mk.flags)) {
			kref_get(&peer->ref);
			llist_add(&peer->mk.kick_node, &mrc_msg_kicks);
		}
		return;
	}
	if (queue_work(system_wq, &peer->mk.tx_work))
		mrc_ev_inc(MRC_EV_TX_KICK);
}

/*
 * One run of @peer's sender (mrc_msg_tx_run()), then the messages it
 * finished handed back without the lock: tx_work's and a batch end's.
 */
static void mrc_msg_run_sender(struct mrc_peer *peer)
{
	LIST_HEAD(done);

	spin_lock_bh(&peer->lock);
	if (!peer->dead)
		mrc_msg_tx_run(&peer->mp, ktime_get_ns());
	list_splice_init(&peer->mp.done, &done);
	spin_unlock_bh(&peer->lock);
	mrc_msg_tx_finish(&mrc_msg_node, &done);
}

/**
 * mrc_msg_tx_batch_end() - run the senders that answers of a batch kicked
 *
 * Context: process, no lock held; from mrc_msg_rx_batch_end().  Each run
 * is tx_work's (mrc_msg_tx_run(), bounded by its push budget: a run that
 * leaves more queues tx_work), here in the poller's context.
 */
void mrc_msg_tx_batch_end(void)
{
	struct llist_node *list = llist_del_all(&mrc_msg_kicks);
	struct mrc_peer *peer, *tmp;

	llist_for_each_entry_safe(peer, tmp, list, mk.kick_node) {
		clear_bit(MRC_MK_KICK_HELD, &peer->mk.flags);
		/* a kick after this queues the peer again: one run more */
		smp_mb__after_atomic();
		mrc_ev_inc(MRC_EV_TX_BATCH_RUN);
		mrc_msg_run_sender(peer);
		mrc_peer_put(peer);
	}
}

static void mrc_msg_op_arm(struct mrc_msg_peer *mp, u64 delay_ns)
{
	struct mrc_peer *peer = mrc_msg_to_peer(mp);
	struct hrtimer *t = &peer->mk.timer;

	lockdep_assert_held(&peer->lock);
	if (peer->dead)
		return;
	/*
	 * The engine asks only for a deadline to stand in place of the one
	 * queued (msg_tx.c, Timer).  From the timer's own callback (a run
	 * in mrc_msg_timer()) this starts it again.
	 */
	hrtimer_start(t, ns_to_ktime(delay_ns), HRTIMER_MODE_REL_SOFT);
}

static void mrc_msg_op_disarm(struct mrc_msg_peer *mp)
{
	struct mrc_peer *peer = mrc_msg_to_peer(mp);

	lockdep_assert_held(&peer->lock);
	/*
	 * Not hrtimer_cancel(): a callback that already came due waits for
	 * peer->lock, held here.  It runs, finds nothing to do and counts
	 * timer_idle.
	 */
	hrtimer_try_to_cancel(&peer->mk.timer);
}

static void mrc_msg_op_path_changed(struct mrc_msg_peer *mp, unsigned int pi,
				    u8 prev)
{
	struct mrc_peer *peer = mrc_msg_to_peer(mp);

	mrc_nl_path_event(peer, mrc_msg_link(peer, pi),
			  pi % MRC_MSG_LINK_PATHS, prev);
	/*
	 * A path the data left (an RTO, a loss) is due for a probe at once
	 * (path.h), not at the peer timer's next deadline, up to probe_ms
	 * later: until a probe answers it stays out of the spray set.
	 * Under the tx lock, which is peer->lock.
	 */
	mrc_peer_arm(peer);
}

static void mrc_msg_op_class_fallback(struct mrc_msg_peer *mp, u8 cls,
				      bool on)
{
	mrc_nl_class_event(mrc_msg_to_peer(mp)->node_id, cls, on);
}

static void mrc_msg_op_sched_params(struct mrc_msg_peer *mp,
				    struct mrc_sched_params *sp)
{
	mrc_schedcfg_params(sp, mp->policy);
}

static void mrc_msg_op_sched_sent(struct mrc_msg_peer *mp, unsigned int pi,
				  u8 cls, u8 policy)
{
	mrc_schedcfg_count_tx(mp->path[pi]->local_rail, cls, policy);
}

static void mrc_msg_op_sched_done(struct mrc_msg_peer *mp, u8 tag, int how)
{
	mrc_schedcfg_count_done(tag, how);
}

static bool mrc_msg_op_credit_may(struct mrc_msg_peer *mp, u64 id,
				  u32 msg_len, u32 off, u32 len, bool urgent,
				  u64 now)
{
	return mrc_credit_tx_may(mrc_msg_to_peer(mp), id, msg_len, off, len,
				 urgent, now);
}

static bool mrc_msg_op_credit_stops(struct mrc_msg_peer *mp, u64 id, u16 seg)
{
	return mrc_credit_tx_stops(mrc_msg_to_peer(mp), id, seg);
}

static void mrc_msg_op_credit_reset(struct mrc_msg_peer *mp)
{
	mrc_credit_tx_reset(mrc_msg_to_peer(mp));
}

static void mrc_msg_op_credit_gone(struct mrc_msg_peer *mp, u64 id)
{
	mrc_credit_tx_gone(mrc_msg_to_peer(mp), id);
}

/* One stall report (three lines) at a time: ratelimited together. */
static DEFINE_RATELIMIT_STATE(mrc_msg_stall_rs, DEFAULT_RATELIMIT_INTERVAL,
			      DEFAULT_RATELIMIT_BURST);

/*
 * Context: peer->lock held (the sender's timer).  Says what the head of
 * the queue was waiting for: its packets' states, a busy receiver, the
 * credit of the scheduled message.
 */
static void mrc_msg_op_stalled(struct mrc_msg_peer *mp, u64 idle_ns,
			       unsigned int ntx)
{
	struct mrc_peer *peer = mrc_msg_to_peer(mp);
	const struct mrc_credit_tx *ct = &peer->credit.tx;
	u64 in_sb = 0, in_paths = 0;
	u64 now = ktime_get_ns();
	struct mrc_msg_tx *m;
	unsigned int pi;

	lockdep_assert_held(&peer->lock);
	if (!__ratelimit(&mrc_msg_stall_rs))
		return;
	pr_warn("peer %u: no progress for %llu ms, its %u messages fail with ETIMEDOUT\n",
		peer->node_id, div_u64(idle_ns, NSEC_PER_MSEC), ntx);
	list_for_each_entry(m, &mp->txq, node)
		in_sb += mrc_txsb_inflight(&m->sb);
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
		if (mp->path[pi])
			in_paths += mp->path[pi]->inflight_pkts;
	pr_warn("peer %u: in flight: %u by the window, %llu by the messages, %llu by the paths\n",
		peer->node_id, mp->inflight, in_sb, in_paths);
	m = list_first_entry_or_null(&mp->txq, struct mrc_msg_tx, node);
	if (!m) {
		pr_warn("peer %u: queue empty\n", peer->node_id);
		return;
	}
	pr_warn("peer %u: head %#llx (lane %u) %u B: %u/%u packets acked, %u in flight, %u lost, next new %u; busy %s; cwnd %u, %u in flight\n",
		peer->node_id, m->msg_id, mrc_msg_id_lane(m->msg_id), m->len,
		mrc_txsb_acked(&m->sb), m->sb.npkts, mrc_txsb_inflight(&m->sb),
		mrc_txsb_lost(&m->sb), m->sb.next_new,
		m->busy_ns ? "yes" : "no", mp->cwnd, mp->inflight);
	if (!peer->credit.tx_on)
		return;
	pr_warn("peer %u: credit: scheduled %#llx %u B, sent %u, granted %u (seq %u), %s\n",
		peer->node_id, ct->msg_id, ct->msg_len, ct->sent,
		ct->granted, ct->seq, ct->starved ? "starved" : "not starved");
	list_for_each_entry(m, &mp->txq, node)
		if (m->msg_id == ct->msg_id)
			break;
	if (list_entry_is_head(m, &mp->txq, node))
		pr_warn("peer %u: the scheduled message is not queued\n",
			peer->node_id);
	else
		pr_warn("peer %u: the scheduled message: %u/%u packets acked, %u in flight, %u lost, next new %u; busy %s (due in %lld us, wait %llu us); class %u\n",
			peer->node_id, mrc_txsb_acked(&m->sb), m->sb.npkts,
			mrc_txsb_inflight(&m->sb), mrc_txsb_lost(&m->sb),
			m->sb.next_new, m->busy_ns ? "yes" : "no",
			m->busy_ns ? div_s64((s64)(m->busy_ns - now), 1000) : 0,
			div_u64(m->busy_wait_ns, 1000), m->cls);
	/* The first message of its lane, if another: it goes first. */
	list_for_each_entry(m, &mp->txq, node)
		if (mrc_msg_id_lane(m->msg_id) == mrc_msg_id_lane(ct->msg_id))
			break;
	if (!list_entry_is_head(m, &mp->txq, node) && m->msg_id != ct->msg_id)
		pr_warn("peer %u: its lane's first: %#llx %u/%u acked, %u in flight, %u lost, next new %u; busy %s (due in %lld us)\n",
			peer->node_id, m->msg_id, mrc_txsb_acked(&m->sb),
			m->sb.npkts, mrc_txsb_inflight(&m->sb),
			mrc_txsb_lost(&m->sb), m->sb.next_new,
			m->busy_ns ? "yes" : "no",
			m->busy_ns ? div_s64((s64)(m->busy_ns - now), 1000) : 0);
}

static void mrc_msg_op_complete(struct mrc_msg_node *node,
				struct mrc_msg_tx *m)
{
	mrc_ev_inc(MRC_EV_COMPLETE);
	trace_mrc_complete(m->dst_port, m->msg_id, m->len, m->status);
	m->done(m->ctx, m->status);
	mrc_ep_sent_done(m->owner);
}

static void mrc_msg_op_deliver(struct mrc_msg_peer *mp)
{
	struct mrc_peer *peer = mrc_msg_to_peer(mp);

	lockdep_assert_held(&peer->mk.rx_lock);
	if (peer->mk.rx_direct) {	/* mrc_msg_rx_data() delivers it */
		peer->mk.rx_due = true;
		return;
	}
	if (queue_work(system_wq, &peer->mk.rx_work))
		mrc_ev_inc(MRC_EV_RX_KICK);
}

/*
 * A later deadline than the pending one is a no-op (the expiry re-arms
 * itself for the rest when it runs); a sooner one pulls the work in, so
 * that a deadline armed under a long peer_timeout_ms does not hold back
 * one armed after the knob was lowered.
 */
static void mrc_msg_op_expire_arm(struct mrc_msg_peer *mp, u64 delay_ns)
{
	struct mrc_msg_kpeer *mk = &mrc_msg_to_peer(mp)->mk;
	unsigned long delay = nsecs_to_jiffies(delay_ns) + 1;

	lockdep_assert_held(&mk->rx_lock);
	if (delayed_work_pending(&mk->rx_gc) &&
	    time_before_eq(mk->gc_at, jiffies + delay))
		return;
	mk->gc_at = jiffies + delay;
	mod_delayed_work(system_wq, &mk->rx_gc, delay);
}

/*
 * Under rx_lock (BH off): the endpoint, referenced, and its admit(),
 * which may take its own leaf lock (/dev/mrc: rxq_lock).
 */
static int mrc_msg_op_port(struct mrc_msg_node *node, u16 port, u32 len)
{
	return mrc_ep_admit(port, len);
}

static const struct mrc_msg_ops mrc_msg_ops = {
	.alloc = mrc_msg_op_alloc,
	.free = mrc_msg_op_free,
	.rx_alloc = mrc_msg_op_rx_alloc,
	.rx_free = mrc_msg_op_rx_free,
	.buf_alloc = mrc_msg_op_buf_alloc,
	.buf_free = mrc_msg_op_buf_free,
	.knob = mrc_msg_op_knob,
	.wall_seconds = mrc_msg_op_wall_seconds,
	.count = mrc_msg_op_count,
	.paths = mrc_msg_op_paths,
	.send = mrc_msg_op_send,
	.flush = mrc_msg_op_flush,
	.kick = mrc_msg_op_kick,
	.arm = mrc_msg_op_arm,
	.disarm = mrc_msg_op_disarm,
	.path_changed = mrc_msg_op_path_changed,
	.class_fallback = mrc_msg_op_class_fallback,
	.sched_params = mrc_msg_op_sched_params,
	.sched_sent = mrc_msg_op_sched_sent,
	.sched_done = mrc_msg_op_sched_done,
	.credit_may = mrc_msg_op_credit_may,
	.credit_stops = mrc_msg_op_credit_stops,
	.credit_reset = mrc_msg_op_credit_reset,
	.credit_gone = mrc_msg_op_credit_gone,
	.stalled = mrc_msg_op_stalled,
	.complete = mrc_msg_op_complete,
	.deliver = mrc_msg_op_deliver,
	.expire_arm = mrc_msg_op_expire_arm,
	.port = mrc_msg_op_port,
};

/* This node's engines. */
struct mrc_msg_node mrc_msg_node = {
	.ops = &mrc_msg_ops,
	.batch_done = true,	/* cq.c: mrc_msg_rx_batch_end() */
};

/* ---- sender ---- */

static enum hrtimer_restart mrc_msg_timer(struct hrtimer *t)
{
	struct mrc_peer *peer = container_of(t, struct mrc_peer, mk.timer);

	mrc_ev_inc(MRC_EV_TIMER);
	spin_lock_bh(&peer->lock);
	/*
	 * A short queue's run here, in the timer's softirq (bounded like
	 * any run); a longer queue's in tx_work.  Messages it finishes
	 * (fails) are tx_work's to hand back, in process context.
	 */
	if (!peer->dead) {
		mrc_msg_tx_timer(&peer->mp, ktime_get_ns());
		if (!list_empty(&peer->mp.done))
			mrc_msg_op_kick(&peer->mp);
	}
	spin_unlock_bh(&peer->lock);
	return HRTIMER_NORESTART;
}

static void mrc_msg_tx_workfn(struct work_struct *work)
{
	struct mrc_peer *peer = container_of(work, struct mrc_peer,
					     mk.tx_work);

	mrc_ev_inc(MRC_EV_TX_WORK);
	mrc_msg_run_sender(peer);
}

/**
 * mrc_msg_path_down() - a path left the spray set, or is torn down
 * @peer: the peer, peer->lock held
 * @l: link index
 * @i: path (entropy value) within the link
 * @release: the path is about to be torn down (re-initialised or cleared)
 *
 * Every packet in flight on it is resent elsewhere.  Call before a path
 * is re-initialised or its link cleared.
 *
 * Return: how many packets were in flight on it.
 */
unsigned int mrc_msg_path_down(struct mrc_peer *peer, unsigned int l,
			       unsigned int i, bool release)
{
	lockdep_assert_held(&peer->lock);
	return mrc_msg_tx_path_down(&peer->mp, l * MRC_MSG_LINK_PATHS + i,
				    release, ktime_get_ns());
}

/**
 * mrc_msg_push_now() - send what may go now, right here
 * @peer: the peer, peer->lock held, not peer->dead
 *
 * One workqueue hop less (a GRANT came); tx_work gets what one push
 * leaves.
 */
void mrc_msg_push_now(struct mrc_peer *peer)
{
	lockdep_assert_held(&peer->lock);
	mrc_msg_tx_push_now(&peer->mp, ktime_get_ns());
}

/**
 * mrc_msg_send() - send a message (mrc_api.h's mrc_send())
 * @ep: the sending endpoint (its pending count is held by the caller)
 * @src_port: its port
 * @node: the destination node
 * @port: the destination port
 * @cls: traffic class (out of range: the default class)
 * @from: the message, copied from here into the message's buffer (the
 *	only copy on the send side) before this returns; user memory may
 *	fault, so no lock is held while copying
 * @len: its length, 1..MRC_MSG_MAX_LEN, at most what @from holds
 * @done: called once with the outcome, in process context, no locks held
 * @ctx: for @done
 *
 * Return: 0 (queued: @done will be called), -EINVAL, -EHOSTUNREACH (no
 * such peer, or it is going away), -ENOBUFS (tx_msgs_per_peer queued
 * already), -EFAULT (@from could not be read whole) or -ENOMEM.
 */
int mrc_msg_send(struct mrc_ep *ep, u16 src_port, u32 node, u16 port,
		 u8 cls, struct iov_iter *from, u32 len,
		 void (*done)(void *ctx, int status), void *ctx)
{
	u16 seg = MRC_WIRE_MAX_PAYLOAD;
	struct mrc_peer *peer;
	struct mrc_msg_tx *m;
	unsigned int l;
	u32 mtu = 0;
	int err = 0;

	BUILD_BUG_ON(MRC_MSG_MAX_LEN != MRC_MSG_MAX_BYTES);
	if (!len || len > MRC_MSG_MAX_LEN || !done)
		return -EINVAL;
	peer = mrc_peer_get(node);
	if (!peer)
		return -EHOSTUNREACH;

	/* The segment: the smallest MTU among the resolved links. */
	spin_lock_bh(&peer->lock);
	for (l = 0; l < peer->nlinks; l++)
		if (peer->links[l].ah && peer->links[l].rail) {
			u32 x = READ_ONCE(peer->links[l].rail->info.mtu);

			if (x > MRC_WIRE_HDR_LEN + MRC_WIRE_MIN_SEG &&
			    (!mtu || x < mtu))
				mtu = x;
		}
	spin_unlock_bh(&peer->lock);
	if (mtu && mtu - MRC_WIRE_HDR_LEN < seg)
		seg = mtu - MRC_WIRE_HDR_LEN;

	m = mrc_msg_tx_alloc(&mrc_msg_node, len, seg, cls);
	if (!m) {
		err = -ENOMEM;
		goto out_put;
	}
	m->owner = ep;
	m->done = done;
	m->ctx = ctx;
	m->src_port = src_port;
	m->dst_port = port;
	if (copy_from_iter(m->buf, len, from) != len) {
		mrc_msg_tx_free(&mrc_msg_node, m);
		err = -EFAULT;
		goto out_put;
	}
	mrc_ev_add(MRC_EV_COPY_TX, len);

	spin_lock_bh(&peer->lock);
	if (peer->dead)
		err = -EHOSTUNREACH;
	else
		err = mrc_msg_tx_queue(&peer->mp, m, ktime_get_ns());
	spin_unlock_bh(&peer->lock);
	if (err) {
		mrc_msg_tx_free(&mrc_msg_node, m);
	} else {
		mrc_ev_inc(MRC_EV_SEND);
		trace_mrc_send(node, port, cls, len);
	}
out_put:
	mrc_peer_put(peer);
	return err;
}

/* ---- SACK / NACK at the sender ---- */

/**
 * mrc_msg_rx_data_done() - a DATA packet carried acknowledgments of ours
 * @peer: the peer it came from (held)
 * @pkt: the packet, parsed, with a done list (core/wire.h, version 7)
 *
 * Takes its done list as a SACK's (core/msg_ack.c), then hands back the
 * messages it completed.  Context: process, no lock held.
 */
void mrc_msg_rx_data_done(struct mrc_peer *peer, const struct mrc_pkt *pkt)
{
	LIST_HEAD(done);

	spin_lock_bh(&peer->lock);
	if (!peer->dead) {
		peer->mk.in_batch = true;
		mrc_msg_tx_data_done(&peer->mp, pkt, ktime_get_ns());
		peer->mk.in_batch = false;
	}
	list_splice_init(&peer->mp.done, &done);
	spin_unlock_bh(&peer->lock);
	mrc_msg_tx_finish(&mrc_msg_node, &done);
}

/**
 * mrc_msg_rx_sack() - a SACK arrived (proto.c, process context)
 * @uqp: the QP it arrived on
 * @src_qp: its sender's QP number
 * @pkt: the packet, parsed
 *
 * Return: its drop reason, MRC_DROP_NONE if it was used.
 */
enum mrc_drop_reason mrc_msg_rx_sack(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt)
{
	enum mrc_drop_reason why;
	struct mrc_peer *peer;
	unsigned int l, pi;
	LIST_HEAD(done);

	peer = mrc_msg_rx_peer(uqp, src_qp, pkt, &l, &why);
	if (!peer)
		return why;
	pi = l * MRC_MSG_LINK_PATHS + pkt->entropy;
	mrc_ev_inc(MRC_EV_RX_SACK);
	trace_mrc_sack_rx(peer->node_id, pi, pkt->msg_id, pkt->offset,
			  pkt->len);
	spin_lock_bh(&peer->lock);
	if (peer->dead) {
		ms_inc(MRC_MS_SACKS_RX);
		ms_inc(MRC_MS_SACKS_STALE);
		why = MRC_DROP_DUPLICATE;
	} else {
		if (!peer->links[l].ah || pkt->entropy >= peer->links[l].npaths)
			pi = MRC_MSG_NO_PATH;
		peer->mk.in_batch = true;
		why = mrc_msg_tx_sack(&peer->mp, pi, pkt, ktime_get_ns());
		peer->mk.in_batch = false;
	}
	list_splice_init(&peer->mp.done, &done);
	spin_unlock_bh(&peer->lock);
	mrc_msg_tx_finish(&mrc_msg_node, &done);
	mrc_peer_put(peer);
	return why;
}

/**
 * mrc_msg_rx_nack() - a NACK arrived (proto.c, process context)
 * @uqp: the QP it arrived on
 * @src_qp: its sender's QP number
 * @pkt: the packet, parsed
 *
 * Return: its drop reason, MRC_DROP_NONE if it was used.
 */
enum mrc_drop_reason mrc_msg_rx_nack(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt)
{
	enum mrc_drop_reason why;
	struct mrc_peer *peer;
	unsigned int l;

	peer = mrc_msg_rx_peer(uqp, src_qp, pkt, &l, &why);
	if (!peer)
		return why;
	mrc_ev_inc(MRC_EV_RX_NACK);
	trace_mrc_nack_rx(peer->node_id, l * MRC_MSG_LINK_PATHS + pkt->entropy,
			  pkt->msg_id, pkt->offset, pkt->len);
	spin_lock_bh(&peer->lock);
	if (peer->dead) {
		ms_inc(MRC_MS_NACKS_RX);
		why = MRC_DROP_DUPLICATE;
	} else {
		peer->mk.in_batch = true;
		why = mrc_msg_tx_nack(&peer->mp, pkt, ktime_get_ns());
		peer->mk.in_batch = false;
	}
	spin_unlock_bh(&peer->lock);
	mrc_peer_put(peer);
	return why;
}

/* ---- peer lifetime ---- */

/**
 * mrc_msg_peer_restarted() - the peer restarted (a new incarnation)
 * @peer: the peer, no lock held
 *
 * What it had of our messages is gone, and so is its sequence state:
 * every queued message starts over under a new epoch.  Of its old
 * messages to us, the complete ones are still delivered and the partial
 * ones discarded; its next messages open a new epoch.
 */
void mrc_msg_peer_restarted(struct mrc_peer *peer)
{
	spin_lock_bh(&peer->lock);
	mrc_msg_tx_restarted(&peer->mp, ktime_get_ns());
	spin_unlock_bh(&peer->lock);
	mrc_credit_peer_stop(peer);	/* and our table's entry for it */

	spin_lock_bh(&peer->mk.rx_lock);
	mrc_msg_rx_restarted(&peer->mp);
	spin_unlock_bh(&peer->mk.rx_lock);
}

/**
 * mrc_msg_peer_init() - set up a new peer's engine and its binding
 * @peer: the peer, zeroed, not yet visible to anyone
 */
void mrc_msg_peer_init(struct mrc_peer *peer)
{
	struct mrc_msg_kpeer *mk = &peer->mk;
	unsigned int l, i;

	for (l = 0; l < MRC_PEER_MAX_ADDRS; l++)
		for (i = 0; i < MRC_MSG_LINK_PATHS; i++)
			peer->mp.path[l * MRC_MSG_LINK_PATHS + i] =
				&peer->links[l].paths[i].p;
	mrc_msg_engine_init(&peer->mp, &mrc_msg_node, ktime_get_ns());
	hrtimer_init(&mk->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	mk->timer.function = mrc_msg_timer;
	INIT_WORK(&mk->tx_work, mrc_msg_tx_workfn);
	spin_lock_init(&mk->rx_lock);
	INIT_WORK(&mk->rx_work, mrc_msg_rx_workfn);
	INIT_DELAYED_WORK(&mk->rx_gc, mrc_msg_rx_gc_workfn);
}

/**
 * mrc_msg_peer_stop() - a peer goes away: fail its sends, free its buffers
 * @peer: the peer, peer->dead set, no lock held
 *
 * Messages already complete are still delivered.
 */
void mrc_msg_peer_stop(struct mrc_peer *peer)
{
	struct mrc_msg_kpeer *mk = &peer->mk;
	LIST_HEAD(done);
	LIST_HEAD(rx);

	mrc_credit_peer_stop(peer);	/* credit_peer.c: forget its credit */
	/* peer->dead is set: neither the timer nor the work re-arm. */
	hrtimer_cancel(&mk->timer);
	cancel_work_sync(&mk->tx_work);
	spin_lock_bh(&peer->lock);
	mrc_msg_tx_fail_all(&peer->mp, -EHOSTUNREACH, ktime_get_ns());
	list_splice_init(&peer->mp.done, &done);
	spin_unlock_bh(&peer->lock);
	mrc_msg_tx_finish(&mrc_msg_node, &done);

	spin_lock_bh(&mk->rx_lock);
	mrc_msg_rx_close(&peer->mp);
	spin_unlock_bh(&mk->rx_lock);
	cancel_delayed_work_sync(&mk->rx_gc);
	/*
	 * Messages already complete are still delivered, here: rx_work is
	 * not queued again once the receiver is closed (msg_rx.c).
	 */
	cancel_work_sync(&mk->rx_work);
	mrc_msg_deliver_all(peer);
	spin_lock_bh(&mk->rx_lock);
	mrc_msg_rx_drain(&peer->mp, &rx);
	spin_unlock_bh(&mk->rx_lock);
	mrc_msg_free_list(&rx);
}

/**
 * mrc_msg_timeouts_changed() - re-arm the expiries for a new peer_timeout_ms
 *
 * Context: process, no mrc lock held.
 *
 * Each peer's expiry clock runs at once and re-arms itself for what is
 * left under the new value, since a deadline armed under the old value
 * could be far later (core/msg_rx.c, Expiry; up to 20 minutes).
 */
void mrc_msg_timeouts_changed(void)
{
	struct mrc_peer *peer;
	unsigned long i;

	for (i = 0; (peer = mrc_peer_get_nth(i)); i++) {
		struct mrc_msg_kpeer *mk = &peer->mk;

		spin_lock_bh(&mk->rx_lock);
		/* not after mrc_msg_peer_stop() closed the receiver */
		if (!peer->mp.rx_dead) {
			mk->gc_at = jiffies;
			mod_delayed_work(system_wq, &mk->rx_gc, 0);
		}
		spin_unlock_bh(&mk->rx_lock);
		mrc_peer_put(peer);
	}
}

/* ---- debugfs ---- */

/**
 * mrc_msg_stats_show() - debugfs mrc/msg: "name value" per counter
 * @s: the file
 *
 * Return: 0.
 */
int mrc_msg_stats_show(struct seq_file *s)
{
	int i;

	for (i = 0; i < MRC_MS_NR; i++)
		seq_printf(s, "%s %lld\n", mrc_msg_stat_name(i),
			   atomic64_read(&mrc_msg_stats[i]));
	seq_printf(s, "rx_buffer_bytes %lld\n",
		   atomic64_read(&mrc_msg_node.rx_bytes));
	seq_printf(s, "tx_buffer_bytes %lld\n",
		   atomic64_read(&mrc_msg_node.tx_bytes));
	seq_printf(s, "rx_pool_bytes %ld\n", mrc_rxpool_idle_bytes());
	seq_printf(s, "tx_pool_bytes %ld\n", mrc_txpool_idle_bytes());
	return 0;
}

/**
 * mrc_msg_exit() - module exit: no message memory may be left
 */
void mrc_msg_exit(void)
{
	WARN_ON(atomic64_read(&mrc_msg_node.rx_bytes));
	WARN_ON(atomic64_read(&mrc_msg_node.tx_bytes));
}
