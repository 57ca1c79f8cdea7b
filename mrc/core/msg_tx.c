// SPDX-License-Identifier: GPL-2.0
/*
 * msg_tx.c - the message engine's sender: segmentation, spraying, the
 * congestion window, lanes and epochs, stall and peer timeouts
 * (acknowledgment and loss detection: msg_ack.c).
 * Kernel-agnostic (msg.h); the host serialises every call of this file
 * with its tx lock.
 *
 * Design notes
 *
 * Queue.  The host allocates a message (mrc_msg_tx_alloc(): its buffer and
 * scoreboard, txsb.c), copies the payload in and queues it.  Each run
 * walks the queue in order and, per packet, asks the scheduler (sched.c)
 * for an ACTIVE path and posts one DATA datagram on it through ops->send.
 * A packet is seg payload bytes (the host chooses seg from its rails'
 * MTU; paths whose MTU is smaller are skipped), all of one message carry
 * the same seg.  At most cwnd packets of a peer are in flight: a
 * congestion window with additive increase (one packet per window of
 * acks) and multiplicative decrease (halved on a loss of a packet sent
 * after the previous decrease), between MRC_MSG_CWND_MIN and
 * MRC_MSG_CWND_MAX, starting at MRC_MSG_WINDOW.  It keeps the queues of a
 * bottleneck (and the UD receive queues) from overflowing, where packets
 * declared lost but still queued would otherwise be sent again on top.
 * When a send ring is full (-EAGAIN) the run stops and the timer retries
 * soon.
 *
 * Message ids.  msg_id = epoch << 32 | seq, seq = lane << 30 | n: the
 * lane is the message's traffic class, n counts the lane's messages to
 * the peer from 0 (msg.h); the epoch is the sender's wall-clock second
 * when the peer was added, and goes up whenever the sender gives messages
 * up.  A receiver orders each lane on its own, so a latency message never
 * waits behind a bulk one, and the sender serves latency first and
 * background last (push()).  A receiver that sees a newer epoch restarts
 * every lane at n = 0, so a failed message never blocks its successors.
 *
 * Timer.  One timer per peer serves the sender (the loss scan's next
 * verdict or a tick while anything is queued, a retry after a full ring)
 * and the receiver's acknowledgments held for a DATA of ours (msg_rx.c,
 * Answers).  The engine keeps the deadline it gave the host (timer_ns)
 * and asks for a new one only when it needs a sooner one: a later need
 * leaves the queued deadline standing, whose early run finds little to
 * do, and a bulk sender's runs cost no timer operation.  But a deadline
 * whose reason went away entirely would still come due, a hard interrupt
 * and a softirq for nothing, once per exchange of a request and its
 * reply.  So when the queue empties (its last message acknowledged) and
 * when held acknowledgments leave on a DATA, mrc_msg_timer_settle()
 * moves the timer to what is still needed, or takes it back
 * (timer_moved); what still comes due with nothing to do is counted
 * (timer_idle).
 */
#include "msg_int.h"

static const char * const mrc_msg_stat_names[MRC_MS_NR] = {
	"tx_msgs", "tx_bytes", "tx_done", "tx_failed", "tx_pkts",
	"tx_retrans", "tx_ring_full", "rto_pkts", "loss_pkts",
	"path_down_pkts", "sacks_rx", "sacks_stale", "sacks_tx",
	"rx_pkts", "rx_dup_pkts", "rx_no_mem", "rx_msgs", "rx_bytes",
	"rx_held", "rx_no_endpoint", "rx_discarded", "rx_expired",
	"reo_loss_pkts", "nacks_tx", "nacks_rx", "peer_restarts",
	"cwnd_cuts", "tx_timeout", "bg_yields", "bulk_yields",
	"rx_gone_pkts", "ctl_tx_errors", "params_refused",
	"nacks_replayed", "rx_refused", "tx_refused", "rx_busy", "tx_busy",
	"rx_gone_sacks", "tx_epoch_gone", "rx_refuse_waits", "stuck_loss_pkts",
	"rx_busy_heads", "rto_queue_pkts", "done_batched", "done_acked",
	"nack_early_pkts", "sacks_merged", "done_on_data", "ack_holds",
	"ack_holds_expired", "timer_runs", "timer_idle", "timer_moved",
	"sacks_by_count", "sacks_by_hole", "sacks_asked", "sacks_hole_closed",
	"fill_acks",
};

/**
 * mrc_msg_stat_name() - the name of a counter in debugfs mrc/msg
 * @stat: enum mrc_msg_stat
 *
 * Return: the name, or NULL if @stat is out of range.
 */
const char *mrc_msg_stat_name(unsigned int stat)
{
	return stat < MRC_MS_NR ? mrc_msg_stat_names[stat] : NULL;
}

static u64 peer_timeout_ns(struct mrc_msg_peer *mp)
{
	return msg_knob(mp, MRC_KNOB_peer_timeout_ms) * NSEC_PER_MSEC;
}

/* Every lane back to its first sequence number. */
static void seq_reset(u32 *next)
{
	unsigned int lane;

	BUILD_BUG_ON(MRC_MSG_LANES != 1U << (32 - MRC_MSG_LANE_SHIFT));
	for (lane = 0; lane < MRC_MSG_LANES; lane++)
		next[lane] = lane << MRC_MSG_LANE_SHIFT;
}

/* The id of message @m, the next of its lane (class, port bucket). */
static u64 next_id(struct mrc_msg_peer *mp, const struct mrc_msg_tx *m)
{
	unsigned int lane = mrc_msg_lane(m->cls, m->dst_port);
	u32 seq = mp->next_seq[lane];

	mp->next_seq[lane] = mrc_msg_seq_inc(seq);
	return (u64)mp->epoch << 32 | seq;
}

/* A new epoch, after the old one's messages were given up or restarted. */
static void new_epoch(struct mrc_msg_peer *mp)
{
	mp->epoch = max_t(u32, mp->epoch + 1,
			  mp->node->ops->wall_seconds(mp->node));
	seq_reset(mp->next_seq);
}

/*
 * Builds DATA packet @idx of @m for path @pi and posts it.  The receiver's
 * acknowledgments of the peer's messages ride on it if they fit in the
 * message's segment (msg_rx.c, Answers).  A reply (a message queued
 * after one of the peer's arrived) that is the only one queued, sent
 * within the window and its credit, says MRC_WF_ACK_LAZY: nothing waits
 * for its acknowledgment, and the peer is likely to answer, so the
 * receiver may hold it for a DATA of its own.  A sender that only sends
 * never says it: if it waits for each send's completion before the next,
 * a hold would cost it a whole MRC_MSG_ACK_HOLD_NS per message.
 */
static int send_data(struct mrc_msg_peer *mp, struct mrc_msg_tx *m, u32 idx,
		     unsigned int pi, bool retrans, bool ack_now, u64 now)
{
	u8 done[MRC_WIRE_DONE_MAX * sizeof(__be32)];
	int err;
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.type = MRC_PKT_DATA,
		.src_port = m->src_port,
		.dst_port = m->dst_port,
		.msg_id = m->msg_id,
		.offset = idx * m->seg,
		.msg_len = m->len,
		.len = msg_pkt_len(m, idx),
		.seg = m->seg,
		.entropy = pi % MRC_MSG_LINK_PATHS,
		.tstamp = now,
	};

	/*
	 * The last packet of the last message queued asks for its SACK: the
	 * end of a burst, whose tail's losses nothing after it would show.
	 */
	if (idx == m->sb.npkts - 1) {
		pkt.flags |= MRC_WF_LAST;
		if (list_is_last(&m->node, &mp->txq))
			pkt.flags |= MRC_WF_ACK_NOW;
	}
	if (retrans)
		pkt.flags |= MRC_WF_RETRANS | MRC_WF_ACK_NOW;
	/*
	 * @ack_now: the last packet the sender may send for now (its credit
	 * ran out), so the receiver acks it at once, not some packets later.
	 */
	if (ack_now) {
		pkt.flags |= MRC_WF_ACK_NOW;
	} else if (mp->inflight + 1 >= mp->cwnd) {
		/* the window's fill request, counted unless asked already */
		if (!(pkt.flags & MRC_WF_ACK_NOW))
			msg_count(mp, MRC_MS_FILL_ACKS, 1);
		pkt.flags |= MRC_WF_ACK_NOW;
	} else if (m->reply && list_is_singular(&mp->txq)) {
		pkt.flags |= MRC_WF_ACK_LAZY;
	}
	if (pkt.flags & MRC_WF_ACK_LAZY)
		m->lazy = true;
	if (mp->done_ack.valid)
		mrc_msg_rx_done_on_data(mp, &pkt, done, m->seg - pkt.len, now);
	pkt.path_seq = mrc_path_next_seq(mp->path[pi]);
	err = mp->node->ops->send(mp, pi, &pkt, (u8 *)m->buf + pkt.offset);
	if (!err)
		mrc_msg_rx_done_sent(mp, &pkt);
	return err;
}

/* Whether any of the @n paths in mp->paths is in the spray set. */
static bool any_usable(struct mrc_msg_peer *mp, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (mp->paths[i] && mrc_path_in_spray_set(mp->paths[i]))
			return true;
	return false;
}

/*
 * Whether a packet of class @cls must wait (knobs bulk_yield_pkts,
 * bg_yield_pkts): a latency-class message was seen on this node within
 * MRC_MSG_YIELD_NS and the peer already has the class's allowed packets
 * in flight.  The packets in flight come back (acked, lost, released) and
 * kick the queue again, so a held message always moves on.
 */
static bool yields(struct mrc_msg_peer *mp, u8 cls, u64 now)
{
	u64 cap = msg_knob(mp, cls == MRC_SCHED_CLASS_BULK ?
			   MRC_KNOB_bulk_yield_pkts : MRC_KNOB_bg_yield_pkts);
	u64 lat = READ_ONCE(mp->node->lat_ns);

	return cap && mp->cls_inflight[cls] >= cap && lat &&
	       now - lat < MRC_MSG_YIELD_NS;
}

/* One push() run: what every message of the run shares. */
struct mrc_msg_run {
	struct mrc_sched_params sp;	/* sched: the live configuration */
	struct mrc_sched_res res;
	unsigned int budget;		/* packets left in this run */
	unsigned int n;			/* paths for seg */
	u16 seg;
	bool no_path;
	bool more;			/* budget ran out */
	u32 blocked;			/* sched: classes with no path */
	u64 busy_lanes;			/* lanes with a busy message so far */
};

/*
 * Sends what the window, the rings and the paths allow of message @m;
 * @later: an earlier message of its lane has packets never sent (see
 * push_lane()).  Returns false when the run must stop (window full, ring
 * full, budget spent), true to go on with the next message.
 */
static bool push_msg_sends(struct mrc_msg_peer *mp, struct mrc_msg_cb *cb,
			   struct mrc_msg_tx *m, struct mrc_msg_run *run,
			   bool later)
{
	const struct mrc_msg_ops *ops = mp->node->ops;
	struct mrc_sched_res *res = &run->res;
	u32 idx;

	/* sched: a class waiting for its rails blocks only itself */
	if (run->blocked & BIT(m->cls))
		return true;
	/*
	 * Its receiver's endpoint is full (msg_ack.c busy()): one probe when
	 * due, by the lane's first busy message only; the lane's later
	 * messages wait too, as its receiver delivers them after it.
	 */
	if (run->busy_lanes & BIT_ULL(mrc_msg_id_lane(m->msg_id)))
		return true;
	if (m->busy_ns) {
		run->busy_lanes |= BIT_ULL(mrc_msg_id_lane(m->msg_id));
		if ((s64)(cb->now - m->busy_ns) < 0)
			return true;
	}
	if (m->seg != run->seg) {
		run->seg = m->seg;
		run->n = ops->paths(mp, run->seg, mp->paths);
	}
	while ((idx = mrc_txsb_next(&m->sb)) != MRC_TXSB_NONE) {
		u32 plen = msg_pkt_len(m, idx);
		int pi, err = 0, tries;
		bool retrans, ack_now;

		if (mp->inflight >= mp->cwnd)
			return false;
		if (mrc_msg_yielding(m->cls) && yields(mp, m->cls, cb->now)) {
			msg_count(mp, m->cls == MRC_SCHED_CLASS_BULK ?
			      MRC_MS_BULK_YIELDS : MRC_MS_BG_YIELDS, 1);
			return true;
		}
		if (!run->budget) {
			run->more = true;
			return false;
		}
		retrans = mrc_txsb_state(&m->sb, idx) == MRC_TXSB_LOST;
		if (!retrans && later)
			return true;
		run->budget--;
		/* Credits: new bytes may wait for a GRANT. */
		if (!retrans &&
		    !ops->credit_may(mp, m->msg_id, m->len, idx * m->seg, plen,
				     m->cls == MRC_SCHED_CLASS_LATENCY,
				     cb->now)) {
			/*
			 * Waiting for a GRANT counts as stuck when no path is
			 * usable: a receiver that cannot be reached never
			 * grants.
			 */
			if (!any_usable(mp, run->n))
				run->no_path = true;
			return true;
		}
		ack_now = !retrans && ops->credit_stops(mp, m->msg_id, m->seg);
		for (tries = 0; tries < 4; tries++) {
			/* sched: the message's class, this packet's length */
			pi = mrc_sched_select(&mp->sched, &run->sp, mp->paths,
					      run->n, m->cls, plen, m->len,
					      cb->now, res);
			if (pi < 0)
				break;
			if (res->flags & MRC_SCHED_F_FALLBACK_CHANGED)
				ops->class_fallback(mp, m->cls,
						    res->flags &
						    MRC_SCHED_F_FALLBACK);
			err = send_data(mp, m, idx, pi, retrans, ack_now,
					cb->now);
			if (err != -ENETDOWN)
				break;
		}
		if (pi < 0) {
			run->no_path = true;
			run->blocked |= BIT(m->cls);
			return true;
		}
		if (err == -EAGAIN) {
			mp->ring_full = true;
			msg_count(mp, MRC_MS_TX_RING_FULL, 1);
			return false;
		}
		/* Any other error (QPs recovering): like a lost send. */
		if (list_empty(&m->sent_node))
			list_add_tail(&m->sent_node, &mp->sentq);
		mrc_txsb_sent(&m->sb, idx, pi, msg_now_us(cb->now));
		/* sched: the policy tag, for per-policy counters */
		mrc_txsb_set_tag(&m->sb, idx, res->policy);
		ops->sched_sent(mp, pi, m->cls, res->policy);
		if (!mp->paths[pi]->inflight_pkts)
			mrc_bm_clear(mp->path_acked, pi);
		mrc_path_inflight_add(mp->paths[pi], 1, plen);
		/*
		 * Nothing else in flight: every packet in flight from now on
		 * is sent after the last acked one and after the last window
		 * cut.  Forgetting both keeps their u32 clock from wrapping
		 * into a comparison after an idle half-wrap (35 minutes).
		 */
		if (!mp->inflight++) {
			mp->rack_valid = false;
			mp->recover_valid = false;
		}
		if (mrc_msg_yielding(m->cls))
			mp->cls_inflight[m->cls]++;
		mp->stuck_ns = 0;
		msg_count(mp, MRC_MS_TX_PKTS, 1);
		if (retrans)
			msg_count(mp, MRC_MS_TX_RETRANS, 1);
		else
			mp->progress_ns = cb->now;
		if (m->busy_ns) {	/* the probe went: wait for its answer */
			m->busy_ns = cb->now + m->busy_wait_ns;
			return true;
		}
	}
	return true;
}

/* The number of lanes of send rank @rank. */
static unsigned int rank_lanes(unsigned int rank)
{
	unsigned int cls, n = 0;

	for (cls = 0; cls < MRC_SCHED_CLASS_NR; cls++)
		if (msg_rank(cls) == rank)
			n += MRC_MSG_PORT_BUCKETS;
	return n;
}

/* The @k-th lane of send rank @rank, @k below rank_lanes(@rank). */
static unsigned int rank_lane(unsigned int rank, unsigned int k)
{
	unsigned int cls, j = k / MRC_MSG_PORT_BUCKETS;

	for (cls = 0; cls < MRC_SCHED_CLASS_NR; cls++)
		if (msg_rank(cls) == rank && !j--)
			break;
	return mrc_msg_lane(cls, k % MRC_MSG_PORT_BUCKETS);
}

/*
 * push_msg_sends() for the messages of @lane, in queue order.  New bytes
 * go in lane order: a message's first sends wait while an earlier message
 * of its lane has packets never sent (its receiver delivers them in that
 * order anyway).  Else a later message could take the peer's one credit
 * schedule (credit_peer.c) while the earlier one, which its receiver
 * needs first, waits for it.  And they stay within MRC_MSG_REFUSED_BEHIND
 * sequence numbers of the lane's oldest queued message: its receiver
 * remembers that many refusals behind delivery, so a resend of a message
 * whose refusal answer was lost is never taken for one delivered
 * (msg_rx.c, Refusal).
 *
 * The rest of the lane is skipped, not walked, where none of it may send:
 * behind a busy message (its receiver's endpoint is full), in a class with
 * no path, past that bound, and from the first message that waits for an
 * earlier one and was never sent (a lane's messages are first sent in
 * lane order: none after it was sent either).  So a run's work follows
 * what it sends, not how long the queue is.  Returns false when the run
 * must stop.
 */
static bool push_lane(struct mrc_msg_peer *mp, struct mrc_msg_cb *cb,
		      unsigned int lane, struct mrc_msg_run *run)
{
	struct mrc_msg_tx *m;
	bool later = false;
	u32 first;

	if (list_empty(&mp->laneq[lane]))
		return true;
	m = list_first_entry(&mp->laneq[lane], struct mrc_msg_tx, lane_node);
	first = (u32)m->msg_id;
	list_for_each_entry(m, &mp->laneq[lane], lane_node) {
		if (mrc_msg_seq_diff((u32)m->msg_id, first) >=
		    MRC_MSG_REFUSED_BEHIND)
			break;
		if (later && !m->sb.hi_sent)
			break;
		if (!push_msg_sends(mp, cb, m, run, later))
			return false;
		if ((run->busy_lanes & BIT_ULL(lane)) ||
		    (run->blocked & BIT(m->cls)))
			break;
		if (m->sb.next_new < m->sb.npkts)
			later = true;
	}
	return true;
}

/*
 * Sends what the window, the rings and the paths allow, lane by rank
 * (msg.h): latency messages first, background ones with what is left of
 * the window.  Within a rank the lanes take turns: a run that stops
 * (window, rings or budget spent) has the next one start with the lane
 * after the one it stopped in, so that one endpoint's long queue does not
 * hold back another's messages.
 */
static void push_all(struct mrc_msg_peer *mp, struct mrc_msg_cb *cb,
		     bool *more)
{
	struct mrc_msg_run run = { .budget = MRC_MSG_BUDGET };
	unsigned int rank, i, k, n;

	BUILD_BUG_ON(MRC_MSG_LANES > 64);	/* run.busy_lanes */
	mp->node->ops->sched_params(mp, &run.sp);
	mp->ring_full = false;
	for (rank = 0; rank < MRC_MSG_RANKS; rank++) {
		if (!mp->ntx_rank[rank])
			continue;
		n = rank_lanes(rank);
		k = mp->lane_next[rank] % n;
		for (i = 0; i < n; i++, k = (k + 1) % n) {
			if (!push_lane(mp, cb, rank_lane(rank, k), &run)) {
				mp->lane_next[rank] = (k + 1) % n;
				*more = run.more;
				return;
			}
		}
	}
	if (run.no_path && !mp->stuck_ns)
		mp->stuck_ns = cb->now ? cb->now : 1;
}

/* push_all(), then the host posts what it held (ops->flush). */
static void push(struct mrc_msg_peer *mp, struct mrc_msg_cb *cb, bool *more)
{
	push_all(mp, cb, more);
	if (mp->node->ops->flush)
		mp->node->ops->flush(mp);
}

/**
 * mrc_msg_release_all() - give back every packet of a message in flight
 * @cb: the event's callback context
 * @m: the message
 *
 * Its packets leave flight as RELEASED (no path is blamed) and go out
 * again when push() gets to them.
 */
void mrc_msg_release_all(struct mrc_msg_cb *cb, struct mrc_msg_tx *m)
{
	unsigned int pi;

	cb->m = m;
	cb->how = MRC_PATH_DONE_RELEASED;
	cb->ev = 0;
	for (pi = 0; pi < MRC_MSG_NPATHS && mrc_txsb_inflight(&m->sb); pi++)
		mrc_txsb_lose_path(&m->sb, pi, mrc_msg_cb_fn, cb);
}

/**
 * mrc_msg_tx_fail_all() - fail every queued message
 * @mp: the peer's engine
 * @status: the status the messages complete with (a negative errno)
 * @now: the caller's clock, ns
 *
 * The messages move to mp->done; the successors of the given-up ones
 * start a new epoch, so that no receiver waits for them.
 */
void mrc_msg_tx_fail_all(struct mrc_msg_peer *mp, int status, u64 now)
{
	struct mrc_msg_tx *m, *tmp;
	struct mrc_msg_cb cb;

	mrc_msg_cb_init(&cb, mp, now);
	list_for_each_entry_safe(m, tmp, &mp->txq, node) {
		mrc_msg_release_all(&cb, m);
		m->status = status;
		msg_retire(mp, m);
	}
	mp->node->ops->credit_reset(mp);
	new_epoch(mp);
	mp->stuck_ns = 0;
}

/**
 * mrc_msg_tx_epoch_gone() - the receiver gave the current epoch up
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 *
 * A SACK flagged MRC_WF_GONE (msg_rx.c, Expiry): the receiver expired
 * this epoch's incomplete messages and drops its DATA unacked.  Whatever
 * was sent of a queued message may or may not have been delivered (the
 * receiver delivers complete held ones when it expires the rest), so
 * those fail with -ETIMEDOUT, as the stall timeout would fail them.  The
 * messages of which nothing was sent are unknown to the receiver: they
 * stay queued and go in a new epoch, renumbered in queue order.
 */
void mrc_msg_tx_epoch_gone(struct mrc_msg_peer *mp, u64 now)
{
	struct mrc_msg_tx *m, *tmp;
	struct mrc_msg_cb cb;

	msg_count(mp, MRC_MS_TX_EPOCH_GONE, 1);
	mrc_msg_cb_init(&cb, mp, now);
	list_for_each_entry_safe(m, tmp, &mp->txq, node) {
		if (!m->sb.hi_sent)
			continue;
		mrc_msg_release_all(&cb, m);
		m->status = -ETIMEDOUT;
		msg_retire(mp, m);
	}
	mp->node->ops->credit_reset(mp);	/* grants were for old ids */
	new_epoch(mp);
	list_for_each_entry(m, &mp->txq, node)
		m->msg_id = next_id(mp, m);
	mp->rack_valid = false;
	mp->progress_ns = now;
	mp->stuck_ns = 0;
}

/**
 * mrc_msg_tx_finish() - complete and free finished sends
 * @node: the node
 * @done: messages the host took off mp->done
 *
 * Called without locks: ops->complete may call into the host's users.
 */
void mrc_msg_tx_finish(struct mrc_msg_node *node, struct list_head *done)
{
	struct mrc_msg_tx *m, *tmp;

	list_for_each_entry_safe(m, tmp, done, node) {
		list_del(&m->node);
		node->ops->count(node, m->status ? MRC_MS_TX_FAILED :
				 MRC_MS_TX_DONE, 1);
		node->ops->complete(node, m);
		mrc_msg_tx_free(node, m);
	}
}

/*
 * The timer's next run while anything is queued: a tick, or the loss
 * scan's next verdict if that is sooner and the RTO floor in use is below
 * a tick (a learned one).  At a floor of a tick or more (the VMs') the
 * tick stays as it was: exact deadlines there made mrc-sim's failed-spine
 * ring much slower (Documentation/mrc/sim.rst).
 */
static u64 msg_tick_ns(const struct mrc_msg_peer *mp,
		       const struct mrc_msg_cb *cb)
{
	if (mp->scan_due_us == U32_MAX ||
	    cb->pp.rtt.rto_min_ns >= MRC_MSG_TICK_NS)
		return MRC_MSG_TICK_NS;
	return clamp_t(u64, (u64)mp->scan_due_us * NSEC_PER_USEC,
		       MRC_MSG_TICK_MIN_NS, MRC_MSG_TICK_NS);
}

/**
 * mrc_msg_timer_need() - the engine needs the timer by a deadline
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 * @delay_ns: at this far from @now at the latest
 *
 * A sooner deadline already queued stands; else the host's timer is
 * armed for this one (msg_tx.c, Timer).  Tx lock held.
 */
void mrc_msg_timer_need(struct mrc_msg_peer *mp, u64 now, u64 delay_ns)
{
	u64 at = now + delay_ns;

	if (mp->timer_ns && mp->timer_ns <= at)
		return;
	mp->timer_ns = at;
	mp->node->ops->arm(mp, delay_ns);
}

/*
 * The sender's own need of the timer, @delay_ns from @now: a run's
 * (@scan: its loss scan saw every packet in flight) replaces the one
 * before; a push's comes on top of it.
 */
static void tx_need(struct mrc_msg_peer *mp, u64 now, u64 delay_ns,
		    bool scan)
{
	u64 at = now + delay_ns;

	if (scan || !mp->tx_due_ns || at < mp->tx_due_ns)
		mp->tx_due_ns = at;
	mrc_msg_timer_need(mp, now, delay_ns);
}

/**
 * mrc_msg_timer_settle() - a reason for the queued deadline went away
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 *
 * The queue emptied, or held acknowledgments left: what the engine still
 * needs is the sender's deadline while anything is queued, and the end
 * of a hold while acknowledgments are held.  A queued deadline sooner
 * than that is moved to it, or taken back if nothing is needed (counted
 * in timer_moved).  While a run is due (tx_due_ns 0 with a queue), the
 * run decides.  Tx lock held.
 */
void mrc_msg_timer_settle(struct mrc_msg_peer *mp, u64 now)
{
	u64 need = U64_MAX;

	if (!list_empty(&mp->txq)) {
		if (!mp->tx_due_ns)
			return;
		need = mp->tx_due_ns;
	} else {
		mp->tx_due_ns = 0;
	}
	mp->timer_stale = false;
	if (!mp->timer_ns)
		return;
	if (mp->done_ack.valid && mp->done_ack.held)
		need = min(need, mp->done_ack.since_ns + MRC_MSG_ACK_HOLD_NS);
	if (need <= mp->timer_ns)
		return;
	msg_count(mp, MRC_MS_TIMER_MOVED, 1);
	if (need == U64_MAX) {
		mp->timer_ns = 0;
		mp->node->ops->disarm(mp);
	} else {
		mp->timer_ns = need;
		mp->node->ops->arm(mp, need > now ? need - now : 0);
	}
}

/**
 * mrc_msg_tx_run() - the sender's timer or kick came due
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 *
 * Sends the acknowledgments held for a DATA of ours that came due (one
 * timer serves both), finds losses, sends what may go, fails the queue
 * with -EHOSTUNREACH if no path was usable for peer_timeout_ms, or with
 * -ETIMEDOUT if paths are usable but nothing progressed for
 * MRC_MSG_STALL_MULT times that, and arms the timer again while anything
 * is queued.
 */
void mrc_msg_tx_run(struct mrc_msg_peer *mp, u64 now)
{
	const struct mrc_msg_ops *ops = mp->node->ops;
	struct mrc_msg_cb cb;
	bool more = false;

	/*
	 * A deadline that has passed: the timer's run may be this one (a
	 * host may serve a kick and the timer due with one run), so what
	 * is still needed is armed again below.
	 */
	if (mp->timer_ns && (s64)(now - mp->timer_ns) >= 0)
		mp->timer_ns = 0;
	mrc_msg_rx_ack_timer(mp, now);
	mrc_msg_cb_init(&cb, mp, now);
	mrc_msg_loss_scan(mp, &cb);
	push(mp, &cb, &more);
	if (mp->stuck_ns && now - mp->stuck_ns > peer_timeout_ns(mp))
		mrc_msg_tx_fail_all(mp, -EHOSTUNREACH, now);
	/*
	 * Paths usable but no progress at all (nothing new acked, sent or
	 * granted): a broken or hostile receiver.  Nothing may wait forever
	 * (the host's endpoints wait for every send when they close).
	 */
	if (!list_empty(&mp->txq) &&
	    now - mp->progress_ns > MRC_MSG_STALL_MULT * peer_timeout_ns(mp)) {
		msg_count(mp, MRC_MS_TX_TIMEOUT, 1);
		ops->stalled(mp, now - mp->progress_ns, mp->ntx);
		mrc_msg_tx_fail_all(mp, -ETIMEDOUT, now);
	}
	if (more) {
		mp->tx_due_ns = 0;
		ops->kick(mp);
	} else if (mp->ring_full) {
		tx_need(mp, now, MRC_MSG_RETRY_NS, true);
	} else if (!list_empty(&mp->txq)) {
		tx_need(mp, now, msg_tick_ns(mp, &cb), true);
	}
	if (mp->timer_stale || list_empty(&mp->txq))
		mrc_msg_timer_settle(mp, now);
}

/**
 * mrc_msg_tx_timer() - the sender's timer came due
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 *
 * With a short queue (at most MRC_MSG_PUSH_NOW_MAX messages, as a send
 * that mrc_msg_tx_queue() pushes at once) and no finished message waiting
 * for the host, runs mrc_msg_tx_run() right here.  A request/response
 * exchange's timer often comes due while its message is still in flight:
 * that costs a loss scan in the timer, not a hop to the host's work item
 * and back.  A longer queue's run is the work item's (ops->kick()).
 * Acknowledgments held for a DATA of ours that came due go first.
 */
void mrc_msg_tx_timer(struct mrc_msg_peer *mp, u64 now)
{
	bool held = mp->done_ack.valid && mp->done_ack.held;

	msg_count(mp, MRC_MS_TIMER_RUNS, 1);
	mp->timer_ns = 0;	/* it came due: a run arms what it needs */
	mp->tx_due_ns = 0;
	mrc_msg_rx_ack_timer(mp, now);
	if (list_empty(&mp->txq)) {
		/* nothing queued (its SACK came first), no hold ended */
		if (!held || mp->done_ack.held)
			msg_count(mp, MRC_MS_TIMER_IDLE, 1);
		return;
	}
	if (mp->ntx <= MRC_MSG_PUSH_NOW_MAX && list_empty(&mp->done))
		mrc_msg_tx_run(mp, now);
	else
		mp->node->ops->kick(mp);
}

/**
 * mrc_msg_tx_push_now() - send what may go, right here
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 *
 * For a send to an idle peer and for a GRANT: one timer or workqueue hop
 * less on the latency path; the timer takes over loss detection.
 */
void mrc_msg_tx_push_now(struct mrc_msg_peer *mp, u64 now)
{
	const struct mrc_msg_ops *ops = mp->node->ops;
	struct mrc_msg_cb cb;
	bool more = false;

	mrc_msg_cb_init(&cb, mp, now);
	push(mp, &cb, &more);
	if (more || mp->stuck_ns) {
		mp->tx_due_ns = 0;
		ops->kick(mp);
	} else if (mp->ring_full) {
		tx_need(mp, now, MRC_MSG_RETRY_NS, false);
	} else {	/* what went now is lost an RTO from now at the earliest */
		tx_need(mp, now, clamp_t(u64, cb.pp.rtt.rto_min_ns,
					 MRC_MSG_TICK_MIN_NS, MRC_MSG_TICK_NS),
			false);
	}
	if (mp->timer_stale)
		mrc_msg_timer_settle(mp, now);
}

/**
 * mrc_msg_tx_alloc() - a message to send, with its memory
 * @node: the node
 * @len: payload bytes, 1..MRC_MSG_MAX_BYTES
 * @seg: payload bytes per packet, MRC_WIRE_MIN_SEG..MRC_WIRE_MAX_PAYLOAD
 * @cls: traffic class (out of range: the default class)
 *
 * No lock held (it may sleep).  The host fills m->buf, the ports and the
 * completion, then queues it with mrc_msg_tx_queue().
 *
 * Return: the message, or NULL if an argument is out of range or memory
 * is short.
 */
struct mrc_msg_tx *mrc_msg_tx_alloc(struct mrc_msg_node *node, u32 len,
				    u16 seg, u8 cls)
{
	struct mrc_msg_tx *m;
	size_t sbb;
	u32 npkts;

	if (!len || len > MRC_MSG_MAX_BYTES || seg < MRC_WIRE_MIN_SEG ||
	    seg > MRC_WIRE_MAX_PAYLOAD)
		return NULL;
	npkts = mrc_wire_npkts(len, seg);
	sbb = mrc_txsb_storage_bytes(npkts);
	m = node->ops->alloc(node, sizeof(*m));
	if (!m)
		return NULL;
	memset(m, 0, sizeof(*m));
	m->len = len;
	m->seg = seg;
	m->cls = cls < MRC_SCHED_CLASS_NR ? cls : MRC_SCHED_CLASS_DEFAULT;
	m->buf = node->ops->buf_alloc ?
		 node->ops->buf_alloc(node, len, false) :
		 node->ops->alloc(node, len);
	m->sb_mem = node->ops->alloc(node, sbb);
	if (!m->buf || !m->sb_mem) {
		mrc_msg_tx_free(node, m);
		return NULL;
	}
	m->mem = len + sbb;
	atomic64_add(m->mem, &node->tx_bytes);
	mrc_txsb_init(&m->sb, npkts, m->sb_mem);
	return m;
}

/**
 * mrc_msg_tx_free() - free a message
 * @node: the node
 * @m: a message never queued, or one taken off mp->done
 */
void mrc_msg_tx_free(struct mrc_msg_node *node, struct mrc_msg_tx *m)
{
	atomic64_sub(m->mem, &node->tx_bytes);
	if (m->buf && node->ops->buf_free)
		node->ops->buf_free(node, m->buf, m->len, false);
	else if (m->buf)
		node->ops->free(node, m->buf);
	if (m->sb_mem)
		node->ops->free(node, m->sb_mem);
	node->ops->free(node, m);
}

/*
 * The slot of @owner in mp->tx_own[]: its own if it has messages queued,
 * else a free one, else the last (shared by the owners beyond
 * MRC_MSG_TX_OWNERS).  *@owners: the owners with messages queued, this
 * one included.
 */
static unsigned int own_slot(struct mrc_msg_peer *mp, const void *owner,
			     unsigned int *owners)
{
	unsigned int i, slot = MRC_MSG_TX_OWNERS, free = MRC_MSG_TX_OWNERS;

	*owners = 0;
	for (i = 0; i < MRC_MSG_TX_OWNERS; i++) {
		if (!mp->tx_own[i].n) {
			if (free == MRC_MSG_TX_OWNERS)
				free = i;
			continue;
		}
		(*owners)++;
		if (mp->tx_own[i].owner == owner)
			slot = i;
	}
	if (slot == MRC_MSG_TX_OWNERS) {
		slot = free < MRC_MSG_TX_OWNERS ? free : MRC_MSG_TX_OWNERS - 1;
		if (!mp->tx_own[slot].n)
			(*owners)++;
	}
	return slot;
}

/**
 * mrc_msg_tx_queue() - queue a message and send what may go at once
 * @mp: the peer's engine
 * @m: from mrc_msg_tx_alloc(), filled in (m->owner: its endpoint)
 * @now: the caller's clock, ns
 *
 * The tx_msgs_per_peer knob bounds the peer's queue, and each owner
 * (endpoint) gets a fair share of it: the bound divided by the owners
 * with messages queued to this peer, itself included.  So one endpoint's
 * flood of small sends cannot make every other endpoint's send fail:
 * once it holds its share it is refused, and the others get the slots
 * its completions free.
 *
 * Return: 0, or -ENOBUFS if the peer's queue is full or @m's owner
 * holds its share (@m is still the caller's).
 */
int mrc_msg_tx_queue(struct mrc_msg_peer *mp, struct mrc_msg_tx *m, u64 now)
{
	u64 limit = msg_knob(mp, MRC_KNOB_tx_msgs_per_peer);
	bool idle = list_empty(&mp->txq);
	unsigned int slot, owners;

	if (mp->ntx >= limit)
		return -ENOBUFS;
	slot = own_slot(mp, m->owner, &owners);
	if (mp->tx_own[slot].n >= max_t(u64, 1, div_u64(limit, owners)))
		return -ENOBUFS;
	if (!mp->tx_own[slot].n)
		mp->tx_own[slot].owner = m->owner;
	mp->tx_own[slot].n++;
	m->own = slot;
	if (idle)	/* the stall clock starts now */
		mp->progress_ns = now;
	m->msg_id = next_id(mp, m);
	m->reply = mp->rx_done_n != mp->rx_done_seen;
	mp->rx_done_seen = mp->rx_done_n;
	if (m->cls == MRC_SCHED_CLASS_LATENCY)	/* others yield */
		WRITE_ONCE(mp->node->lat_ns, now);
	list_add_tail(&m->node, &mp->txq);
	list_add_tail(&m->lane_node,
		      &mp->laneq[mrc_msg_id_lane(m->msg_id)]);
	INIT_LIST_HEAD(&m->sent_node);
	mp->ntx++;
	mp->ntx_rank[msg_rank(m->cls)]++;
	msg_count(mp, MRC_MS_TX_MSGS, 1);
	msg_count(mp, MRC_MS_TX_BYTES, m->len);
	/*
	 * A short queue (a request/response exchange: the messages ahead
	 * only wait for their SACKs): send right here, one workqueue hop
	 * less on the latency path; the walk of the queue that push() does
	 * stays a few entries.  A longer queue is the sender's work item's:
	 * a bulk sender does not walk it once per message.  Later runs do
	 * the rest and the timer takes over loss detection.  With the
	 * window full no run could send it: the run that the next SACK
	 * opens the window for does (msg_ack.c), and the timer ticks while
	 * anything is queued, so a bulk sender's every send does not wake
	 * the work item for nothing.
	 */
	if (idle || mp->ntx <= MRC_MSG_PUSH_NOW_MAX)
		mrc_msg_tx_push_now(mp, now);
	else if (mp->inflight < mp->cwnd)
		mp->node->ops->kick(mp);
	return 0;
}

/**
 * mrc_msg_tx_idle() - whether the sender has nothing queued
 * @mp: the peer's engine
 *
 * With nothing queued nothing is in flight either: a run (mrc_msg_tx_run())
 * would have nothing to send, no loss to look for and no stall to time.
 *
 * Return: true if the queue is empty.
 */
bool mrc_msg_tx_idle(const struct mrc_msg_peer *mp)
{
	return list_empty(&mp->txq);
}

/**
 * mrc_msg_tx_restarted() - the peer restarted
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 *
 * What the peer had of our messages is gone, and so is its sequence
 * state: every queued message starts over under a new epoch, renumbered
 * from 0 in queue order, with all its packets unsent.
 */
void mrc_msg_tx_restarted(struct mrc_msg_peer *mp, u64 now)
{
	struct mrc_msg_tx *m;
	struct mrc_msg_cb cb;

	msg_count(mp, MRC_MS_PEER_RESTARTS, 1);
	mrc_msg_cb_init(&cb, mp, now);
	new_epoch(mp);
	mp->progress_ns = now;
	list_for_each_entry(m, &mp->txq, node) {
		mrc_msg_release_all(&cb, m);
		m->busy_ns = 0;
		m->busy_wait_ns = 0;
		m->busy_ts = 0;
		mrc_txsb_init(&m->sb, m->sb.npkts, m->sb_mem);
		list_del_init(&m->sent_node);
		m->msg_id = next_id(mp, m);
		m->nack_ts = 0;		/* the new incarnation's clock */
	}
	mp->rack_valid = false;
	/* answers held for the old incarnation's messages: nobody wants them */
	mp->done_ack.valid = false;
	mp->done_ack.held = false;
	mp->done_ack.n = 0;
	mp->step_ack.n = 0;
	mp->node->ops->credit_reset(mp);	/* grants were for old ids */
	mp->node->ops->kick(mp);
}

/**
 * mrc_msg_engine_init() - initialise a peer's engine (both halves)
 * @mp: the engine, zeroed but for mp->path[]
 * @node: the node it belongs to
 * @now: the caller's clock, ns (unused today: the epoch is wall-clock)
 */
void mrc_msg_engine_init(struct mrc_msg_peer *mp, struct mrc_msg_node *node,
			 u64 now)
{
	unsigned int i;

	(void)now;
	mp->node = node;
	INIT_LIST_HEAD(&mp->txq);
	for (i = 0; i < MRC_MSG_LANES; i++)
		INIT_LIST_HEAD(&mp->laneq[i]);
	INIT_LIST_HEAD(&mp->sentq);
	INIT_LIST_HEAD(&mp->done);
	mp->epoch = node->ops->wall_seconds(node);
	seq_reset(mp->next_seq);
	seq_reset(mp->rx_next);
	mp->cwnd = MRC_MSG_WINDOW;
	mrc_sched_init(&mp->sched);
	mp->policy = MRC_SCHED_POLICY_GLOBAL;
	INIT_LIST_HEAD(&mp->rxq);
	INIT_LIST_HEAD(&mp->held);
	INIT_LIST_HEAD(&mp->deliver);
}
