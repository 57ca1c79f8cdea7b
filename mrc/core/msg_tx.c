// SPDX-License-Identifier: GPL-2.0
/*
 * msg_tx.c - the message engine's sender: segmentation, spraying, the
 * congestion window, loss detection, SACK and NACK handling,
 * retransmission, lanes and epochs, stall and peer timeouts.
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
 * Acknowledgment.  SACKs come back on the path of the packet that
 * triggered them and echo its tstamp: one ACK event (with an RTT sample)
 * on that path; every acked packet leaves its path's inflight.  A packet
 * still in flight on a path on which a later-sent packet of the same
 * message was just acked is lost: LOSS event, resent elsewhere.  The
 * timer ticks while anything is queued: packets in flight longer than
 * their path's RTO become LOST (RTO event), and so do packets older than
 * their path's srtt plus a reordering margin once a packet sent after
 * them, on any path, was acked (LOSS event, loss_scan()).  A path whose
 * state leaves ACTIVE (LOSS, RTO, keepalive timeout, rail down or
 * removed, re-resolution) gives back all its in-flight packets at once
 * (mrc_msg_tx_path_down()); they go out again on the remaining paths.  If no
 * path is usable for the peer_timeout_ms knob while packets wait, every
 * queued message fails with -EHOSTUNREACH and its memory is freed; if
 * paths are usable but nothing new is acked, granted or sent for
 * MRC_MSG_STALL_MULT times that, with -ETIMEDOUT.  Completions go to
 * mp->done; the host calls mrc_msg_tx_finish() on them without its lock.
 *
 * Message ids.  msg_id = epoch << 32 | seq, seq = lane << 30 | n: the
 * lane is the message's traffic class, n counts the lane's messages to
 * the peer from 0 (msg.h); the epoch is the sender's wall-clock second
 * when the peer was added, and goes up whenever the sender gives messages
 * up.  A receiver orders each lane on its own, so a latency message never
 * waits behind a bulk one, and the sender serves latency first and
 * background last (push()).  A receiver that sees a newer epoch restarts
 * every lane at n = 0, so a failed message never blocks its successors.
 */
#include "config.h"
#include "msg.h"

#define MRC_MSG_WINDOW		64	/* initial cwnd, packets per peer */
#define MRC_MSG_CWND_MIN	8
#define MRC_MSG_CWND_MAX	128
#define MRC_MSG_BUDGET		128	/* packets per run */
#define MRC_MSG_TICK_NS		(2 * NSEC_PER_MSEC)
#define MRC_MSG_RETRY_NS	(250 * NSEC_PER_USEC)
/*
 * Reordering margin of the loss scan: at least this, beyond a path's
 * srtt.  A receiver may handle one QP's completions in batches, so
 * packets of different paths overtake each other by milliseconds, and
 * two planes' bottleneck queues can differ by tens of ms; a smaller
 * margin turns that reordering into spurious retransmissions
 * (Documentation/mrc/protocol.rst has the figures).
 */
#define MRC_MSG_REO_MIN_NS	(20 * NSEC_PER_MSEC)
#define MRC_MSG_REO_STRIKES	3
/* No progress for this many peer_timeout_ms with paths usable: ETIMEDOUT. */
#define MRC_MSG_STALL_MULT	4
/* Bulk and background yield this long after a latency message. */
#define MRC_MSG_YIELD_NS	(20 * NSEC_PER_MSEC)

static const char * const mrc_msg_stat_names[MRC_MS_NR] = {
	"tx_msgs", "tx_bytes", "tx_done", "tx_failed", "tx_pkts",
	"tx_retrans", "tx_ring_full", "rto_pkts", "loss_pkts",
	"path_down_pkts", "sacks_rx", "sacks_stale", "sacks_tx",
	"rx_pkts", "rx_dup_pkts", "rx_no_mem", "rx_msgs", "rx_bytes",
	"rx_held", "rx_no_endpoint", "rx_discarded", "rx_expired",
	"reo_loss_pkts", "nacks_tx", "nacks_rx", "peer_restarts",
	"cwnd_cuts", "tx_timeout", "bg_yields", "bulk_yields",
	"rx_gone_pkts", "ctl_tx_errors",
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

static void count(struct mrc_msg_peer *mp, unsigned int stat, u64 n)
{
	mp->node->ops->count(mp->node, stat, n);
}

static u64 knob(struct mrc_msg_peer *mp, unsigned int id)
{
	return mp->node->ops->knob(mp->node, id);
}

static u32 now_us(u64 now)
{
	return (u32)div_u64(now, NSEC_PER_USEC);
}

static u64 peer_timeout_ns(struct mrc_msg_peer *mp)
{
	return knob(mp, MRC_KNOB_peer_timeout_ms) * NSEC_PER_MSEC;
}

/* The rank (send order) of class @cls: latency first, background last. */
static unsigned int rank_of(u8 cls)
{
	switch (cls) {
	case MRC_SCHED_CLASS_LATENCY:
		return 0;
	case MRC_SCHED_CLASS_BACKGROUND:
		return 2;
	default:
		return 1;
	}
}

/* Every lane back to its first sequence number. */
static void seq_reset(u32 *next)
{
	unsigned int lane;

	BUILD_BUG_ON(MRC_MSG_LANES != 1U << (32 - MRC_MSG_LANE_SHIFT));
	for (lane = 0; lane < MRC_MSG_LANES; lane++)
		next[lane] = lane << MRC_MSG_LANE_SHIFT;
}

/* The id of the next message of class @cls. */
static u64 next_id(struct mrc_msg_peer *mp, u8 cls)
{
	u32 seq = mp->next_seq[cls];

	mp->next_seq[cls] = mrc_msg_seq_inc(seq);
	return (u64)mp->epoch << 32 | seq;
}

/* A new epoch, after the old one's messages were given up or restarted. */
static void new_epoch(struct mrc_msg_peer *mp)
{
	mp->epoch = max_t(u32, mp->epoch + 1,
			  mp->node->ops->wall_seconds(mp->node));
	seq_reset(mp->next_seq);
}

static u32 pkt_len(const struct mrc_msg_tx *m, u32 idx)
{
	return min_t(u32, m->seg, m->len - idx * m->seg);
}

/* The same parameters as the path keepalives: rto_max_ms bounds both. */
static void path_params(struct mrc_msg_peer *mp, struct mrc_path_params *pp)
{
	mrc_path_params_default(pp);
	pp->keepalive_ns = knob(mp, MRC_KNOB_probe_ms) * NSEC_PER_MSEC;
	pp->rtt.rto_max_ns = knob(mp, MRC_KNOB_rto_max_ms) * NSEC_PER_MSEC;
	/*
	 * Data packets wait behind queues (a bottleneck's, the receiver's
	 * CPU): an RTO shorter than those waits only resends what is still
	 * on its way.  Knob data_rto_min_ms, at most rto_max_ms.
	 */
	pp->rtt.rto_min_ns = min_t(u64, knob(mp, MRC_KNOB_data_rto_min_ms) *
					NSEC_PER_MSEC, pp->rtt.rto_max_ns);
	pp->rtt.rto_init_ns = max(pp->rtt.rto_init_ns, pp->rtt.rto_min_ns);
}

/* What the txsb callbacks need; lives on the stack of one call. */
struct mrc_msg_cb {
	struct mrc_msg_peer *mp;
	struct mrc_msg_tx *m;
	struct mrc_path_params pp;
	u64 now;
	int how;			/* enum mrc_path_done */
	int ev;				/* path event to raise, or 0 */
	bool congestion;		/* LOST by queue drop evidence */
};

static void cb_init(struct mrc_msg_cb *cb, struct mrc_msg_peer *mp, u64 now)
{
	memset(cb, 0, sizeof(*cb));
	cb->mp = mp;
	cb->now = now;
	path_params(mp, &cb->pp);
}

/* Send time in ns of a packet sent at @sent_us (u32 us clock). */
static u64 sent_ns(u64 now, u32 sent_us)
{
	u32 age_us = now_us(now) - sent_us;

	return now - min_t(u64, now, (u64)age_us * NSEC_PER_USEC);
}

/* A packet leaves INFLIGHT (acked, lost, released). */
static void cb_fn(void *arg, const struct mrc_txsb_event *ev)
{
	struct mrc_msg_cb *cb = arg;
	struct mrc_msg_peer *mp = cb->mp;
	struct mrc_path *p;

	if (!ev->inflight)
		return;
	p = mp->path[ev->path];
	WARN_ON_ONCE(mrc_path_inflight_sub(p, 1, pkt_len(cb->m, ev->idx),
					   cb->how));
	/* sched: charged to the policy that sent it, not the current one */
	mp->node->ops->sched_done(mp, ev->tag, cb->how);
	if (!WARN_ON_ONCE(!mp->inflight))
		mp->inflight--;
	if (mrc_msg_yielding(cb->m->cls) &&
	    !WARN_ON_ONCE(!mp->cls_inflight[cb->m->cls]))
		mp->cls_inflight[cb->m->cls]--;
	if (cb->how == MRC_PATH_DONE_LOST && cb->congestion &&
	    (!mp->recover_valid || (s32)(ev->sent_us - mp->recover_us) > 0)) {
		/*
		 * First drop since the last decrease: halve the window.  Only
		 * drops proven by a later packet of the same path acked first
		 * (a path is FIFO: a queue dropped it) count; time-based
		 * losses and RTOs, mostly stalls of a host's CPU, resend
		 * without a cut.
		 */
		mp->cwnd = max_t(u32, mp->cwnd / 2, MRC_MSG_CWND_MIN);
		mp->cwnd_acc = 0;
		mp->recover_us = now_us(cb->now);
		mp->recover_valid = true;
		count(mp, MRC_MS_CWND_CUTS, 1);
	}
	if (cb->how == MRC_PATH_DONE_ACKED) {
		if (++mp->cwnd_acc >= mp->cwnd && mp->cwnd < MRC_MSG_CWND_MAX) {
			mp->cwnd++;
			mp->cwnd_acc = 0;
		}
		if (!mp->rack_valid || (s32)(ev->sent_us - mp->rack_us) > 0)
			mp->rack_us = ev->sent_us;
		mp->rack_valid = true;
		mp->reo_strikes[ev->path] = 0;
		if (!mrc_bm_test(mp->ack_seen, ev->path) ||
		    (s32)(ev->sent_us - mp->ack_hi_us[ev->path]) > 0)
			mp->ack_hi_us[ev->path] = ev->sent_us;
		mrc_bm_set(mp->ack_seen, ev->path);
		return;
	}
	if (cb->ev) {
		u8 prev = p->state;

		if (mrc_path_event(p, &cb->pp, cb->ev, cb->now,
				   sent_ns(cb->now, ev->sent_us)) > 0) {
			mrc_bm_set(mp->left, ev->path);
			mp->node->ops->path_changed(mp, ev->path, prev);
		}
	}
}

/* Gives back every packet in flight on a path in mp->left. */
static void drain_left(struct mrc_msg_peer *mp, struct mrc_msg_cb *cb)
{
	struct mrc_msg_tx *m;
	u32 pi;

	cb->how = MRC_PATH_DONE_LOST;
	cb->ev = 0;
	for (pi = mrc_bm_find_next_set(mp->left, MRC_MSG_NPATHS, 0);
	     pi < MRC_MSG_NPATHS;
	     pi = mrc_bm_find_next_set(mp->left, MRC_MSG_NPATHS, pi + 1)) {
		list_for_each_entry(m, &mp->txq, node) {
			cb->m = m;
			count(mp, MRC_MS_PATH_DOWN_PKTS,
			      mrc_txsb_lose_path(&m->sb, pi, cb_fn, cb));
		}
	}
	mrc_bm_zero(mp->left, MRC_MSG_NPATHS);
}

/**
 * mrc_msg_tx_path_down() - give back the packets in flight on a path
 * @mp: the peer's engine
 * @pi: the path
 * @release: the path is about to be torn down (RELEASED, not LOST)
 * @now: the caller's clock, ns
 *
 * Every packet in flight on @pi goes out again on the remaining paths.
 * Call before a path is re-initialised or its link cleared.
 */
void mrc_msg_tx_path_down(struct mrc_msg_peer *mp, unsigned int pi,
		       bool release, u64 now)
{
	struct mrc_msg_cb cb;
	struct mrc_msg_tx *m;

	if (pi >= MRC_MSG_NPATHS || !mp->path[pi] ||
	    !mp->path[pi]->inflight_pkts)
		return;
	cb_init(&cb, mp, now);
	cb.how = release ? MRC_PATH_DONE_RELEASED : MRC_PATH_DONE_LOST;
	list_for_each_entry(m, &mp->txq, node) {
		cb.m = m;
		count(mp, MRC_MS_PATH_DOWN_PKTS,
		      mrc_txsb_lose_path(&m->sb, pi, cb_fn, &cb));
	}
	mp->node->ops->kick(mp);
}

/* Builds DATA packet @idx of @m for path @pi and posts it. */
static int send_data(struct mrc_msg_peer *mp, struct mrc_msg_tx *m, u32 idx,
		     unsigned int pi, bool retrans, bool ack_now, u64 now)
{
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.type = MRC_PKT_DATA,
		.src_port = m->src_port,
		.dst_port = m->dst_port,
		.msg_id = m->msg_id,
		.offset = idx * m->seg,
		.msg_len = m->len,
		.len = pkt_len(m, idx),
		.seg = m->seg,
		.entropy = pi % MRC_MSG_LINK_PATHS,
		.tstamp = now,
	};

	if (idx == m->sb.npkts - 1)
		pkt.flags |= MRC_WF_LAST | MRC_WF_ACK_NOW;
	if (retrans)
		pkt.flags |= MRC_WF_RETRANS | MRC_WF_ACK_NOW;
	/*
	 * @ack_now: the last packet the sender may send for now (its credit
	 * ran out), so the receiver acks it at once, not some packets later.
	 */
	if (ack_now || mp->inflight + 1 >= mp->cwnd)
		pkt.flags |= MRC_WF_ACK_NOW;
	pkt.path_seq = mrc_path_next_seq(mp->path[pi]);
	return mp->node->ops->send(mp, pi, &pkt, (u8 *)m->buf + pkt.offset);
}

/*
 * Loss scan, every run: a packet in flight on path P is lost if
 *  - it is older than P's RTO (RTO event), or
 *  - a packet sent after it (on any path) has been acked and it is older
 *    than P's srtt + max(4 * rttvar, srtt, MRC_MSG_REO_MIN_NS)
 *    (LOSS event):
 *    time-based loss detection across paths, as RACK (RFC 8985) does
 *    across a flow's packets.  When a plane dies, its packets are found
 *    lost about one RTT after the first later packet on another plane is
 *    acked, instead of after an RTO; the path leaves the spray set and is
 *    probed back.
 */
static void loss_scan(struct mrc_msg_peer *mp, struct mrc_msg_cb *cb)
{
	u32 now = now_us(cb->now);
	struct mrc_msg_tx *m;
	bool any = false;
	unsigned int pi;

	if (!mp->inflight)
		return;
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++) {
		struct mrc_path *p = mp->path[pi];
		u64 rto, reo;

		if (!p || !p->inflight_pkts)
			continue;
		rto = mrc_path_rto(p, &cb->pp);
		reo = p->rtt.srtt_ns ?
		      (u64)p->rtt.srtt_ns +
		      max3(4ULL * p->rtt.rttvar_ns, (u64)p->rtt.srtt_ns,
			   (u64)MRC_MSG_REO_MIN_NS) : rto;
		mp->rto_cut_us[pi] = now - (u32)div_u64(rto, NSEC_PER_USEC);
		mp->reo_cut_us[pi] = now - (u32)div_u64(min(reo, rto),
							NSEC_PER_USEC);
		any = true;
	}
	if (!any)
		return;
	cb->how = MRC_PATH_DONE_LOST;
	list_for_each_entry(m, &mp->txq, node) {
		struct mrc_txsb *sb = &m->sb;
		u32 idx;

		cb->m = m;
		for (idx = mrc_txsb_cum(sb);
		     idx < sb->hi_sent && mrc_txsb_inflight(sb); idx++) {
			u32 sent = sb->sent_us[idx];

			if (mrc_txsb_state(sb, idx) != MRC_TXSB_INFLIGHT)
				continue;
			pi = sb->path[idx];
			if ((s32)(sent - mp->rto_cut_us[pi]) < 0) {
				cb->ev = MRC_PATH_EV_RTO;
				count(mp, MRC_MS_RTO_PKTS, 1);
			} else if (mp->rack_valid &&
				   (s32)(mp->rack_us - sent) > 0 &&
				   (s32)(sent - mp->reo_cut_us[pi]) < 0) {
				/*
				 * Resend it; the path leaves the spray set
				 * only at MRC_MSG_REO_STRIKES such losses
				 * without an ack in between (a dead plane
				 * gets there within one scan, a reordered
				 * packet does not).
				 */
				if (mp->reo_strikes[pi] < U8_MAX)
					mp->reo_strikes[pi]++;
				cb->ev = mp->reo_strikes[pi] >=
					 MRC_MSG_REO_STRIKES ?
					 MRC_PATH_EV_LOSS : 0;
				count(mp, MRC_MS_REO_LOSS_PKTS, 1);
			} else {
				continue;
			}
			mrc_txsb_nack(sb, idx, 1, cb_fn, cb);
		}
	}
	drain_left(mp, cb);
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
	u64 cap = knob(mp, cls == MRC_SCHED_CLASS_BULK ?
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
};

/*
 * Sends what the window, the rings and the paths allow of message @m.
 * Returns false when the run must stop (window full, ring full, budget
 * spent), true to go on with the next message.
 */
static bool push_msg(struct mrc_msg_peer *mp, struct mrc_msg_cb *cb,
		     struct mrc_msg_tx *m, struct mrc_msg_run *run)
{
	const struct mrc_msg_ops *ops = mp->node->ops;
	struct mrc_sched_res *res = &run->res;
	u32 idx;

	/* sched: a class waiting for its rails blocks only itself */
	if (run->blocked & BIT(m->cls))
		return true;
	if (m->seg != run->seg) {
		run->seg = m->seg;
		run->n = ops->paths(mp, run->seg, mp->paths);
	}
	while ((idx = mrc_txsb_next(&m->sb)) != MRC_TXSB_NONE) {
		u32 plen = pkt_len(m, idx);
		int pi, err = 0, tries;
		bool retrans, ack_now;

		if (mp->inflight >= mp->cwnd)
			return false;
		if (mrc_msg_yielding(m->cls) && yields(mp, m->cls, cb->now)) {
			count(mp, m->cls == MRC_SCHED_CLASS_BULK ?
			      MRC_MS_BULK_YIELDS : MRC_MS_BG_YIELDS, 1);
			return true;
		}
		if (!run->budget) {
			run->more = true;
			return false;
		}
		run->budget--;
		retrans = mrc_txsb_state(&m->sb, idx) == MRC_TXSB_LOST;
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
					      run->n, m->cls, plen, cb->now,
					      res);
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
			count(mp, MRC_MS_TX_RING_FULL, 1);
			return false;
		}
		/* Any other error (QPs recovering): like a lost send. */
		mrc_txsb_sent(&m->sb, idx, pi, now_us(cb->now));
		/* sched: the policy tag, for per-policy counters */
		mrc_txsb_set_tag(&m->sb, idx, res->policy);
		ops->sched_sent(mp, pi, m->cls, res->policy);
		mrc_path_inflight_add(mp->paths[pi], 1, plen);
		mp->inflight++;
		if (mrc_msg_yielding(m->cls))
			mp->cls_inflight[m->cls]++;
		mp->stuck_ns = 0;
		count(mp, MRC_MS_TX_PKTS, 1);
		if (retrans)
			count(mp, MRC_MS_TX_RETRANS, 1);
		else
			mp->progress_ns = cb->now;
	}
	return true;
}

/*
 * Sends what the window, the rings and the paths allow, lane by rank
 * (msg.h): latency messages first, background ones with what is left of
 * the window; in queue order within a rank.
 */
static void push(struct mrc_msg_peer *mp, struct mrc_msg_cb *cb, bool *more)
{
	struct mrc_msg_run run = { .budget = MRC_MSG_BUDGET };
	struct mrc_msg_tx *m;
	unsigned int rank;

	mp->node->ops->sched_params(mp, &run.sp);
	mp->ring_full = false;
	for (rank = 0; rank < MRC_MSG_RANKS; rank++) {
		if (!mp->ntx_rank[rank])
			continue;
		list_for_each_entry(m, &mp->txq, node)
			if (rank_of(m->cls) == rank &&
			    !push_msg(mp, cb, m, &run)) {
				*more = run.more;
				return;
			}
	}
	if (run.no_path && !mp->stuck_ns)
		mp->stuck_ns = cb->now ? cb->now : 1;
}

/* Takes @m off the queue onto mp->done. */
static void retire(struct mrc_msg_peer *mp, struct mrc_msg_tx *m)
{
	list_move_tail(&m->node, &mp->done);
	mp->ntx--;
	mp->ntx_rank[rank_of(m->cls)]--;
}

/* Gives back every packet of @m in flight (RELEASED). */
static void release_all(struct mrc_msg_cb *cb, struct mrc_msg_tx *m)
{
	unsigned int pi;

	cb->m = m;
	cb->how = MRC_PATH_DONE_RELEASED;
	cb->ev = 0;
	for (pi = 0; pi < MRC_MSG_NPATHS && mrc_txsb_inflight(&m->sb); pi++)
		mrc_txsb_lose_path(&m->sb, pi, cb_fn, cb);
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

	cb_init(&cb, mp, now);
	list_for_each_entry_safe(m, tmp, &mp->txq, node) {
		release_all(&cb, m);
		m->status = status;
		retire(mp, m);
	}
	mp->node->ops->credit_reset(mp);
	new_epoch(mp);
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

/**
 * mrc_msg_tx_run() - the sender's timer or kick came due
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 *
 * Finds losses, sends what may go, fails the queue with -EHOSTUNREACH if
 * no path was usable for peer_timeout_ms, or with -ETIMEDOUT if paths are
 * usable but nothing progressed for MRC_MSG_STALL_MULT times that, and
 * arms the timer again while anything is queued.
 */
void mrc_msg_tx_run(struct mrc_msg_peer *mp, u64 now)
{
	const struct mrc_msg_ops *ops = mp->node->ops;
	struct mrc_msg_cb cb;
	bool more = false;

	cb_init(&cb, mp, now);
	loss_scan(mp, &cb);
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
		count(mp, MRC_MS_TX_TIMEOUT, 1);
		ops->stalled(mp, now - mp->progress_ns, mp->ntx);
		mrc_msg_tx_fail_all(mp, -ETIMEDOUT, now);
	}
	if (more)
		ops->kick(mp);
	else if (mp->ring_full)
		ops->arm(mp, MRC_MSG_RETRY_NS);
	else if (!list_empty(&mp->txq))
		ops->arm(mp, MRC_MSG_TICK_NS);
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

	cb_init(&cb, mp, now);
	push(mp, &cb, &more);
	if (more || mp->stuck_ns)
		ops->kick(mp);
	else if (mp->ring_full)
		ops->arm(mp, MRC_MSG_RETRY_NS);
	else
		ops->arm(mp, MRC_MSG_TICK_NS);
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
	m->buf = node->ops->alloc(node, len);
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
	if (m->buf)
		node->ops->free(node, m->buf);
	if (m->sb_mem)
		node->ops->free(node, m->sb_mem);
	node->ops->free(node, m);
}

/**
 * mrc_msg_tx_queue() - queue a message and send what may go at once
 * @mp: the peer's engine
 * @m: from mrc_msg_tx_alloc(), filled in
 * @now: the caller's clock, ns
 *
 * Return: 0, or -ENOBUFS if the peer already has tx_msgs_per_peer
 * messages queued (@m is still the caller's).
 */
int mrc_msg_tx_queue(struct mrc_msg_peer *mp, struct mrc_msg_tx *m, u64 now)
{
	bool idle = list_empty(&mp->txq);

	if (mp->ntx >= knob(mp, MRC_KNOB_tx_msgs_per_peer))
		return -ENOBUFS;
	if (idle)	/* the stall clock starts now */
		mp->progress_ns = now;
	m->msg_id = next_id(mp, m->cls);
	if (m->cls == MRC_SCHED_CLASS_LATENCY)	/* others yield */
		WRITE_ONCE(mp->node->lat_ns, now);
	list_add_tail(&m->node, &mp->txq);
	mp->ntx++;
	mp->ntx_rank[rank_of(m->cls)]++;
	count(mp, MRC_MS_TX_MSGS, 1);
	count(mp, MRC_MS_TX_BYTES, m->len);
	/*
	 * Nothing else queued: send the first window right here (one hop
	 * less on the latency path); later runs do the rest and the timer
	 * takes over loss detection.
	 */
	if (idle)
		mrc_msg_tx_push_now(mp, now);
	else
		mp->node->ops->kick(mp);
	return 0;
}

static struct mrc_msg_tx *tx_find(struct mrc_msg_peer *mp, u64 id)
{
	struct mrc_msg_tx *m;

	list_for_each_entry(m, &mp->txq, node)
		if (m->msg_id == id)
			return m;
	return NULL;
}

/*
 * A SACK/NACK whose message is not in the queue is normally late (the
 * message completed or was given up: DUPLICATE).  An id this node never
 * handed out (an epoch ahead of ours, or our epoch at or past next_seq) is
 * a forgery or a peer bug: BAD_SACK.
 */
static enum mrc_drop_reason ack_stale(const struct mrc_msg_peer *mp, u64 id)
{
	u32 epoch = id >> 32, seq = (u32)id;

	if (epoch == mp->epoch)
		return mrc_msg_seq_diff(seq,
					mp->next_seq[mrc_msg_seq_lane(seq)]) >= 0 ?
		       MRC_DROP_BAD_SACK : MRC_DROP_DUPLICATE;
	return (s32)(epoch - mp->epoch) > 0 ? MRC_DROP_BAD_SACK :
					      MRC_DROP_DUPLICATE;
}

/* After a SACK: in-flight packets sent before an acked one on their path. */
static void sack_losses(struct mrc_msg_peer *mp, struct mrc_msg_tx *m,
			struct mrc_msg_cb *cb, u32 end)
{
	struct mrc_txsb *sb = &m->sb;
	u32 idx;

	cb->how = MRC_PATH_DONE_LOST;
	cb->ev = MRC_PATH_EV_LOSS;
	cb->congestion = true;
	for (idx = mrc_txsb_cum(sb); idx < end && idx < sb->hi_sent; idx++) {
		u8 pi = sb->path[idx];

		if (mrc_txsb_state(sb, idx) != MRC_TXSB_INFLIGHT ||
		    !mrc_bm_test(mp->ack_seen, pi) ||
		    (s32)(sb->sent_us[idx] - mp->ack_hi_us[pi]) >= 0)
			continue;
		if (mrc_txsb_nack(sb, idx, 1, cb_fn, cb) > 0)
			count(mp, MRC_MS_LOSS_PKTS, 1);
	}
}

/**
 * mrc_msg_tx_sack() - a SACK arrived
 * @mp: the peer's engine
 * @pi: the path it came on (MRC_MSG_NO_PATH: that path is gone)
 * @pkt: the SACK, parsed by mrc_wire_parse()
 * @now: the caller's clock, ns
 *
 * Return: the drop reason, MRC_DROP_NONE if the SACK was used.
 */
enum mrc_drop_reason mrc_msg_tx_sack(struct mrc_msg_peer *mp, unsigned int pi,
				     const struct mrc_pkt *pkt, u64 now)
{
	struct mrc_pkt_sack sack;
	struct mrc_msg_cb cb;
	struct mrc_msg_tx *m;
	int n;

	count(mp, MRC_MS_SACKS_RX, 1);
	m = tx_find(mp, pkt->msg_id);
	if (!m) {
		count(mp, MRC_MS_SACKS_STALE, 1);
		return ack_stale(mp, pkt->msg_id);
	}
	mrc_wire_get_sack(pkt, &sack);
	cb_init(&cb, mp, now);
	cb.m = m;
	cb.how = MRC_PATH_DONE_ACKED;
	mrc_bm_zero(mp->ack_seen, MRC_MSG_NPATHS);
	n = mrc_txsb_sack(&m->sb, sack.cum, sack.nbits, sack.bitmap, cb_fn,
			  &cb);
	if (n < 0)
		return MRC_DROP_BAD_SACK;
	if (n > 0)
		mp->progress_ns = now;
	if (pi < MRC_MSG_NPATHS && mp->path[pi])
		mrc_path_event(mp->path[pi], &cb.pp, MRC_PATH_EV_ACK, now,
			       sack.echo_tstamp);
	if (mrc_txsb_done(&m->sb)) {
		retire(mp, m);
	} else if (n > 0) {
		sack_losses(mp, m, &cb, sack.cum + 1 + sack.nbits);
		drain_left(mp, &cb);
	}
	if (n > 0 || mrc_txsb_lost(&m->sb))
		mp->node->ops->kick(mp);
	return MRC_DROP_NONE;
}

/**
 * mrc_msg_tx_nack() - a NACK arrived
 * @mp: the peer's engine
 * @pkt: the NACK, parsed by mrc_wire_parse()
 * @now: the caller's clock, ns
 *
 * Resends what the receiver misses; which path is to blame is the
 * sender's own evidence's call (loss scan, per-path SACK order).
 *
 * Return: the drop reason, MRC_DROP_NONE if the NACK was used.
 */
enum mrc_drop_reason mrc_msg_tx_nack(struct mrc_msg_peer *mp,
				     const struct mrc_pkt *pkt, u64 now)
{
	enum mrc_drop_reason why = MRC_DROP_NONE;
	struct mrc_pkt_nack_range r;
	struct mrc_msg_cb cb;
	struct mrc_msg_tx *m;
	unsigned int i;

	count(mp, MRC_MS_NACKS_RX, 1);
	m = tx_find(mp, pkt->msg_id);
	if (!m)
		return ack_stale(mp, pkt->msg_id);
	cb_init(&cb, mp, now);
	cb.m = m;
	cb.how = MRC_PATH_DONE_LOST;
	for (i = 0; i < mrc_wire_nack_nranges(pkt); i++) {
		mrc_wire_get_nack_range(pkt, i, &r);
		if (mrc_txsb_nack(&m->sb, r.first, r.count, cb_fn, &cb) < 0) {
			why = MRC_DROP_BAD_SACK;
			break;
		}
	}
	drain_left(mp, &cb);
	mp->node->ops->kick(mp);
	return why;
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

	count(mp, MRC_MS_PEER_RESTARTS, 1);
	cb_init(&cb, mp, now);
	new_epoch(mp);
	mp->progress_ns = now;
	list_for_each_entry(m, &mp->txq, node) {
		release_all(&cb, m);
		mrc_txsb_init(&m->sb, m->sb.npkts, m->sb_mem);
		m->msg_id = next_id(mp, m->cls);
	}
	mp->rack_valid = false;
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
	(void)now;
	mp->node = node;
	INIT_LIST_HEAD(&mp->txq);
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
