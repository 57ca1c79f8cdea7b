// SPDX-License-Identifier: GPL-2.0
/*
 * msg_ack.c - the message engine's sender, its other half: SACK and NACK
 * handling, loss detection (per-path SACK order, the time-based loss
 * scan, RTOs), paths leaving the spray set, and the books every packet
 * leaving flight updates (its path, the congestion window).
 * Kernel-agnostic (msg.h); the host serialises every call of this file
 * with its tx lock.
 *
 * Design notes
 *
 * Acknowledgment.  SACKs come back on the path of the packet that
 * triggered them and echo its tstamp; every acked packet leaves its
 * path's inflight.  Each path with a newly acked packet sent only once
 * gets one ACK event, its RTT sample the age of the newest such packet
 * (ack_samples()): a SACK acknowledges a dozen packets or more
 * sprayed over many paths, and the echo alone would leave the others'
 * estimates to the keepalives of idle times, below what their packets
 * wait behind a transfer's queues.  The newest, because the older ones'
 * ages also hold the wait for the SACK itself, which is the message's
 * (its next packets'), not the path's.  The SACK's own path, if it acked
 * none, gets the echo's sample.  A packet
 * still in flight on a path on which a later-sent packet of the same
 * message was just acked is lost: LOSS event, resent elsewhere.  The
 * timer ticks while anything is queued: packets in flight longer than
 * their path's RTO become LOST (RTO event; but if their path has since
 * delivered a packet sent after them, of any message, the path works and
 * a queue dropped them: no path event, the window is cut, counted as
 * rto_queue_pkts: path_delivered_later()), and so do packets older than
 * their path's srtt plus a reordering margin once a packet sent after
 * them, on any path, was acked (LOSS event, mrc_msg_loss_scan()).  Send
 * times are kept in microseconds, and at fabric speed a message's packets
 * leave several in one: within the same microsecond, a higher index of
 * the same message counts as sent later (rack_later()).  A
 * path whose state leaves ACTIVE (LOSS, RTO, keepalive timeout, rail down
 * or removed, re-resolution) gives back all its in-flight packets at once
 * (mrc_msg_tx_path_down()); they go out again on the remaining paths.  If
 * no path is usable for the peer_timeout_ms knob while packets wait, every
 * queued message fails with -EHOSTUNREACH and its memory is freed; if
 * paths are usable but nothing new is acked, granted or sent for
 * MRC_MSG_STALL_MULT times that, with -ETIMEDOUT.  A message the
 * receiver refused (no endpoint on its port: a SACK of all of it
 * flagged MRC_WF_REFUSED) fails with -ECONNREFUSED at once, even if part
 * of it never went (refused()).  Completions go to
 * mp->done; the host calls mrc_msg_tx_finish() on them without its lock.
 *
 * Floors.  The RTO of a DATA packet and the loss scan's reordering
 * allowance have floors that absorb what the RTT estimate does not see: a
 * receiver that handles a QP's completions in batches, a vCPU that is not
 * running.  On the VM fabric those are milliseconds (20 ms floors); on a
 * hardware fabric whose RTTs are microseconds, 20 ms turns every tail
 * loss into a stall a thousand RTTs long.  With the data_rto_min_ms knob
 * at 0 (the default) the floor is learned per peer: MRC_MSG_FLOOR_MULT
 * times the largest RTT sample its SACKs gave over the last one to two
 * windows (MRC_MSG_FLOOR_WIN_NS), within [MRC_MSG_FLOOR_MIN_NS,
 * MRC_MSG_FLOOR_MAX_NS], and MRC_MSG_FLOOR_MAX_NS (the fixed floors) before
 * the first sample or after the SACKs stop.  While the windows hold fewer
 * than MRC_MSG_FLOOR_SAMPLES samples, the multiple is MRC_MSG_FLOOR_YOUNG
 * times larger, and it applies only if the floor stays within
 * MRC_MSG_FLOOR_YOUNG_MAX_NS (else the fixed floor): a few samples may
 * have missed the slow answers, but waiting for the fixed floor until
 * there are enough costs every peer that exchanges little (the first
 * window of an incast) a 20 ms stall per tail loss.  Before the first
 * sample, the RTO's floor (not the allowance's) is
 * MRC_MSG_FLOOR_PROBE_MULT times the largest srtt the probes of the
 * peer's active paths measured, under the same bound (probe_floor()): an
 * incast's first window lost whole in full switch queues brings no SACK,
 * and would wait for the fixed floor; the multiple is large because a
 * probe crossed an idle fabric, and a first window that is not lost may
 * wait behind all the others' (an incast into deep buffers), where a
 * resend only adds to the queue.  Where one answer
 * takes hundreds of microseconds (the VMs), a few are no evidence of
 * how slow the next one will be.
 * A packet delayed by such batching has an RTT at least as long as the
 * reordering it causes, so a fabric whose slowest recent answer is far
 * below the fixed floor needs only a multiple of that answer; where the
 * answers are milliseconds (the VMs), the floor stays at its maximum.
 * The RTO's floor is never below MRC_MSG_RTO_HI_MULT times the slowest
 * recent answer either, even above the fixed floor (up to rto_max_ms):
 * where the receiver's CPU is the bottleneck, a packet at the back of its
 * receive queue waits as long as that queue takes to drain, tens of ms
 * in the VMs, and an RTO below that resends packets that are merely
 * queued, and takes their paths out of the spray set with every packet
 * they carry.
 * A knob value above 0 is a fixed RTO floor, and the allowance's floor
 * stays MRC_MSG_REO_MIN_NS.
 *
 * Stuck packets.  The floor protects from spurious resends, but one
 * packet that sits in a slow queue (a degraded link) for many RTTs then
 * holds its message's completion, or, if the message goes on, the SACK's
 * reach (MRC_WIRE_SACK_BITS past the cumulative point): the packets beyond
 * it cannot be acked, fill the window, and the peer stalls until it
 * arrives.  So, with the learned floor only and where the answers are far
 * below the fixed floor (stuck_fabric()), a packet sent once is lost (LOSS
 * event: its path leaves the spray set and is probed back) without
 * waiting for any floor when
 *  - a packet sent after it has been acked,
 *  - it is older than srtt + 4 x rttvar of rack_path, the path of the
 *    newest-sent acked packet (a path that delivers now; the least of
 *    all paths' estimates is too low a bar on a busy fabric and resends
 *    what is merely queued), and
 *  - its message has nothing left to send (a tail), or it is the first
 *    missing packet with more than half a SACK's reach sent beyond it (an
 *    edge):
 * mrc_msg_loss_scan(), counted as stuck_loss_pkts.  Counting strikes as
 * for reordering does not do: the path's in-flight count drops with the
 * resend and load-aware sends the next packets into the same queue.
 */
#include "msg_int.h"

/*
 * The same parameters as the path keepalives (rto_max_ms bounds both), but
 * data packets wait behind queues (a bottleneck's, the receiver's CPU): an
 * RTO shorter than those waits only resends what is still on its way.
 * Knob data_rto_min_ms, at most rto_max_ms.  The knob ranges make every
 * combination valid (path_test.c sweeps them); a refused one would leave
 * the defaults and is counted.
 */
static u32 floor_hi(const struct mrc_msg_peer *mp, u64 now, u32 *n);
static u32 floor_of(u32 hi, u32 n);

/*
 * The RTO's floor while there is no data RTT sample (Floors, above):
 * MRC_MSG_FLOOR_PROBE_MULT times the largest srtt of the peer's active
 * paths (their probes'), if that is at most MRC_MSG_FLOOR_YOUNG_MAX_NS;
 * else, or without one, the fixed floor.  O(paths), but only until the
 * first SACK.
 */
static u32 probe_floor(const struct mrc_msg_peer *mp)
{
	u64 f, hi = 0;
	unsigned int i;

	for (i = 0; i < MRC_MSG_NPATHS; i++)
		if (mp->path[i] && mp->path[i]->state == MRC_PATH_ACTIVE)
			hi = max_t(u64, hi, READ_ONCE(mp->path[i]->rtt.srtt_ns));
	f = hi * MRC_MSG_FLOOR_PROBE_MULT;
	if (!hi || f > MRC_MSG_FLOOR_YOUNG_MAX_NS)
		return MRC_MSG_FLOOR_MAX_NS;
	return (u32)max_t(u64, f, MRC_MSG_FLOOR_MIN_NS);
}

static void msg_path_params(struct mrc_msg_peer *mp,
			    struct mrc_path_params *pp, u64 now)
{
	u64 min_ms = msg_knob(mp, MRC_KNOB_data_rto_min_ms);
	const char *why;
	u32 floor, hi, n;

	if (mrc_path_params_knobs(pp, msg_knob(mp, MRC_KNOB_probe_ms),
				  msg_knob(mp, MRC_KNOB_rto_max_ms),
				  min_ms ?: div_u64(MRC_MSG_FLOOR_MAX_NS,
						    NSEC_PER_MSEC), &why)) {
		mp->node->ops->count(mp->node, MRC_MS_PARAMS_REFUSED, 1);
		return;
	}
	if (min_ms)
		return;
	/* Learned: lower the RTO's floor and its least margin with it. */
	hi = floor_hi(mp, now, &n);
	floor = n ? floor_of(hi, n) : probe_floor(mp);
	pp->rtt.rto_min_ns = min(pp->rtt.rto_min_ns, floor);
	pp->rtt.var_floor_ns = min(pp->rtt.var_floor_ns, floor / 4);
	/* ... and raise it above the slowest recent answers (Floors) */
	if (n)
		pp->rtt.rto_min_ns = max_t(u64, pp->rtt.rto_min_ns,
					   min_t(u64, (u64)hi * MRC_MSG_RTO_HI_MULT,
						 pp->rtt.rto_max_ns));
}

/*
 * A data RTT sample: @now minus the tstamp a SACK echoes (the host's own
 * clock when it sent the packet; one from the future is ignored).  The
 * echo, not the sender's books (ack_samples()): a packet's age there
 * also holds the time its SACK took, and after a lost SACK that is the
 * next one's wait; eight times one such age would hold every tail loss
 * back by as much.  Kept whole: floor_of() clamps what it makes of it,
 * and the RTO's floor follows the slowest answer up to rto_max_ms (a
 * queue of 100 ms behind a slow last hop must not be resent at 40).
 */
static void floor_sample(struct mrc_msg_peer *mp, u64 now, u64 echo)
{
	u64 age = now - mp->rtt_win_ns;
	u32 s;

	if (echo > now)
		return;
	s = (u32)min_t(u64, now - echo, MRC_RTT_RTO_LIMIT_NS);
	if (age >= MRC_MSG_FLOOR_WIN_NS || now < mp->rtt_win_ns) {
		bool stale = age >= 2ULL * MRC_MSG_FLOOR_WIN_NS ||
			     now < mp->rtt_win_ns;

		mp->rtt_hi_ns[1] = stale ? 0 : mp->rtt_hi_ns[0];
		mp->rtt_n[1] = stale ? 0 : mp->rtt_n[0];
		mp->rtt_hi_ns[0] = 0;
		mp->rtt_n[0] = 0;
		mp->rtt_win_ns = now;
	}
	mp->rtt_hi_ns[0] = max(mp->rtt_hi_ns[0], s);
	if (mp->rtt_n[0] < U32_MAX)
		mp->rtt_n[0]++;
}

/*
 * The largest data RTT sample of the current window and of the one before
 * (only those that ended less than a window ago), and in *@n how many
 * samples they took.
 */
static u32 floor_hi(const struct mrc_msg_peer *mp, u64 now, u32 *n)
{
	u64 age = now - mp->rtt_win_ns;
	u32 hi = 0;

	*n = 0;
	if (now < mp->rtt_win_ns)
		return 0;
	if (age < 2ULL * MRC_MSG_FLOOR_WIN_NS) {
		*n = mp->rtt_n[0];
		hi = mp->rtt_hi_ns[0];
	}
	if (age < MRC_MSG_FLOOR_WIN_NS) {
		*n += mp->rtt_n[1];
		hi = max(hi, mp->rtt_hi_ns[1]);
	}
	return hi;
}

/*
 * Whether packet @idx of message @id, sent at @sent_us, went out before
 * the newest-sent acknowledged one (RACK's evidence).  At fabric speed a
 * message's packets leave several per microsecond: within the same one,
 * a higher index of the same message went later; of two messages
 * nothing is known.
 */
static bool rack_later(const struct mrc_msg_peer *mp, u64 id, u32 idx,
		       u32 sent_us)
{
	s32 d = (s32)(mp->rack_us - sent_us);

	if (!mp->rack_valid)
		return false;
	if (d)
		return d > 0;
	return mp->rack_id == id && mp->rack_idx > idx;
}

/*
 * Whether path @pi delivered a packet sent after @sent_us: an ack of a
 * packet sent only once, sent later on the same path, of any message.
 * Kept per path since its in-flight count was last 0, so the u32 clock
 * cannot wrap into the comparison.
 */
static bool path_delivered_later(const struct mrc_msg_peer *mp, u32 pi,
				 u32 sent_us)
{
	return mrc_bm_test(mp->path_acked, pi) &&
	       (s32)(mp->path_ack_us[pi] - sent_us) > 0;
}

/*
 * Stuck packets (above) are looked for only on a fabric whose answers are
 * far below the fixed floor: the peer has an RTT sample and the largest
 * recent one, times MRC_MSG_FLOOR_MULT, is below MRC_MSG_FLOOR_MAX_NS.
 * Where they are milliseconds (the VMs), packets of different paths
 * overtake each other by milliseconds and the rule would retire sound
 * paths (bench/README.md has the figures).  Unlike the floor, one sample
 * will do: the first window's stuck packets matter most.
 */
static bool stuck_fabric(const struct mrc_msg_peer *mp, u64 now)
{
	u32 n, hi = floor_hi(mp, now, &n);

	return n && (u64)hi * MRC_MSG_FLOOR_MULT < MRC_MSG_FLOOR_MAX_NS;
}

/* The learned floor of @n samples whose largest is @hi ns (Floors). */
static u32 floor_of(u32 hi, u32 n)
{
	u64 mult = MRC_MSG_FLOOR_MULT;

	if (!n)
		return MRC_MSG_FLOOR_MAX_NS;
	if (n < MRC_MSG_FLOOR_SAMPLES) {
		mult *= MRC_MSG_FLOOR_YOUNG;
		if ((u64)hi * mult > MRC_MSG_FLOOR_YOUNG_MAX_NS)
			return MRC_MSG_FLOOR_MAX_NS;
	}
	return (u32)clamp_t(u64, (u64)hi * mult,
			    MRC_MSG_FLOOR_MIN_NS, MRC_MSG_FLOOR_MAX_NS);
}

/**
 * mrc_msg_floor_ns() - the learned floor of a peer's loss detection
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 *
 * Used while the data_rto_min_ms knob is 0 (msg_ack.c, Floors).
 *
 * Return: MRC_MSG_FLOOR_MULT times the largest data RTT sample of the
 * current and the previous window (only those that ended less than a
 * window ago), MRC_MSG_FLOOR_YOUNG times that while they hold fewer than
 * MRC_MSG_FLOOR_SAMPLES (if that is at most MRC_MSG_FLOOR_YOUNG_MAX_NS),
 * within [MRC_MSG_FLOOR_MIN_NS, MRC_MSG_FLOOR_MAX_NS];
 * MRC_MSG_FLOOR_MAX_NS otherwise.
 */
u32 mrc_msg_floor_ns(const struct mrc_msg_peer *mp, u64 now)
{
	u32 n, hi = floor_hi(mp, now, &n);

	return floor_of(hi, n);
}

/**
 * mrc_msg_loss_floor_ns() - the floor of a peer's DATA RTO, as used now
 * @mp: the peer's engine; the caller holds the host's tx lock
 * @now: the caller's clock, ns
 *
 * The data_rto_min_ms knob (capped by rto_max_ms), or with the knob at 0
 * the learned floor (Floors, above).  For the operator (PEER_GET).
 *
 * Return: the floor in ns.
 */
u32 mrc_msg_loss_floor_ns(struct mrc_msg_peer *mp, u64 now)
{
	struct mrc_path_params pp;

	msg_path_params(mp, &pp, now);
	return pp.rtt.rto_min_ns;
}

/**
 * mrc_msg_cb_init() - the context of one event's scoreboard callbacks
 * @cb: on the caller's stack
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 */
void mrc_msg_cb_init(struct mrc_msg_cb *cb, struct mrc_msg_peer *mp, u64 now)
{
	memset(cb, 0, sizeof(*cb));
	cb->mp = mp;
	cb->now = now;
	msg_path_params(mp, &cb->pp, now);
}

/* Send time in ns of a packet sent at @sent_us (u32 us clock). */
static u64 msg_sent_ns(u64 now, u32 sent_us)
{
	u32 age_us = msg_now_us(now) - sent_us;

	return now - min_t(u64, now, (u64)age_us * NSEC_PER_USEC);
}

/* Keeps in @at[@pi] the latest of the send times given, @seen its paths. */
static void newest_on_path(u64 *seen, u32 *at, u8 pi, u32 sent_us)
{
	if (!mrc_bm_test(seen, pi) || (s32)(sent_us - at[pi]) > 0)
		at[pi] = sent_us;
	mrc_bm_set(seen, pi);
}

/**
 * mrc_msg_cb_fn() - a packet leaves INFLIGHT (acked, lost, released)
 * @arg: the struct mrc_msg_cb of the event
 * @ev: the scoreboard's event
 *
 * Its path's and the peer's books, the congestion window, the loss
 * evidence (RACK time, per-path highest ack), and the path's state.
 */
void mrc_msg_cb_fn(void *arg, const struct mrc_txsb_event *ev)
{
	struct mrc_msg_cb *cb = arg;
	struct mrc_msg_peer *mp = cb->mp;
	struct mrc_path *p;

	if (!ev->inflight)
		return;
	p = mp->path[ev->path];
	WARN_ON_ONCE(mrc_path_inflight_sub(p, 1, msg_pkt_len(cb->m, ev->idx),
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
		 * (a path is FIFO: a queue dropped it) count, found by a SACK
		 * or, at the RTO, across messages; other time-based losses
		 * and RTOs, mostly stalls of a host's CPU, resend without a
		 * cut.
		 */
		mp->cwnd = max_t(u32, mp->cwnd / 2, MRC_MSG_CWND_MIN);
		mp->cwnd_acc = 0;
		mp->recover_us = msg_now_us(cb->now);
		mp->recover_valid = true;
		msg_count(mp, MRC_MS_CWND_CUTS, 1);
	}
	if (cb->how == MRC_PATH_DONE_ACKED) {
		if (++mp->cwnd_acc >= mp->cwnd && mp->cwnd < MRC_MSG_CWND_MAX) {
			mp->cwnd++;
			mp->cwnd_acc = 0;
		}
		/*
		 * The ACK of a packet sent more than once may be of any of
		 * its sends (Karn): it is no evidence of the last send's
		 * path or time.  Taken as such, it would move the RACK time
		 * and the path's highest ack, and what is queued ahead of
		 * the resend on that path would look lost; nor is it an RTT
		 * sample.
		 */
		if (ev->retrans)
			return;
		if (!rack_later(mp, cb->m->msg_id, ev->idx, ev->sent_us)) {
			mp->rack_us = ev->sent_us;
			mp->rack_path = ev->path;
			mp->rack_id = cb->m->msg_id;
			mp->rack_idx = ev->idx;
		}
		mp->rack_valid = true;
		newest_on_path(mp->path_acked, mp->path_ack_us, ev->path,
			       ev->sent_us);
		mp->reo_strikes[ev->path] = 0;
		newest_on_path(mp->ack_seen, mp->ack_hi_us, ev->path,
			       ev->sent_us);
		return;
	}
	if (cb->ev) {
		u8 prev = p->state;

		if (mrc_path_event(p, &cb->pp, cb->ev, cb->now,
				   msg_sent_ns(cb->now, ev->sent_us)) > 0) {
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
		list_for_each_entry(m, &mp->sentq, sent_node) {
			cb->m = m;
			msg_count(mp, MRC_MS_PATH_DOWN_PKTS,
				  mrc_txsb_lose_path(&m->sb, pi, mrc_msg_cb_fn,
						     cb));
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
 *
 * Return: how many packets were given back.
 */
unsigned int mrc_msg_tx_path_down(struct mrc_msg_peer *mp, unsigned int pi,
				  bool release, u64 now)
{
	struct mrc_msg_cb cb;
	struct mrc_msg_tx *m;
	unsigned int n = 0;

	if (pi >= MRC_MSG_NPATHS || !mp->path[pi] ||
	    !mp->path[pi]->inflight_pkts)
		return 0;
	mrc_msg_cb_init(&cb, mp, now);
	cb.how = release ? MRC_PATH_DONE_RELEASED : MRC_PATH_DONE_LOST;
	list_for_each_entry(m, &mp->sentq, sent_node) {
		cb.m = m;
		n += mrc_txsb_lose_path(&m->sb, pi, mrc_msg_cb_fn, &cb);
	}
	msg_count(mp, MRC_MS_PATH_DOWN_PKTS, n);
	mp->node->ops->kick(mp);
	return n;
}

/*
 * The floor of the reordering allowance (Floors, above): MRC_MSG_REO_MIN_NS
 * with the data_rto_min_ms knob set, else the floor learned for @mp.
 */
static u64 reo_floor_ns(struct mrc_msg_peer *mp, u64 now)
{
	return msg_knob(mp, MRC_KNOB_data_rto_min_ms) ? MRC_MSG_REO_MIN_NS :
		mrc_msg_floor_ns(mp, now);
}

/*
 * How long a packet in flight on @p may have been overtaken before it
 * counts as lost: srtt + max(4 * rttvar, srtt, @floor), at most @rto (the
 * RTO alone while @p has no RTT sample).
 */
static u64 reo_allowance(const struct mrc_path *p, u64 rto, u64 floor)
{
	if (!p->rtt.srtt_ns)
		return rto;
	return min(rto, (u64)p->rtt.srtt_ns +
			max3(4ULL * p->rtt.rttvar_ns, (u64)p->rtt.srtt_ns,
			     floor));
}

/**
 * mrc_msg_loss_scan() - find the packets lost in flight (every run)
 * @mp: the peer's engine
 * @cb: the run's callback context
 *
 * A packet in flight on path P is lost if
 *  - it is older than P's RTO (RTO event), plus MRC_MSG_ACK_HOLD_NS if
 *    its message said MRC_WF_ACK_LAZY (its receiver may hold the answer
 *    that long, and the RTO's floor may be shorter), or
 *  - a packet sent after it (on any path) has been acked and it is older
 *    than P's srtt + max(4 * rttvar, srtt, floor) (LOSS event), the
 *    floor learned or MRC_MSG_REO_MIN_NS (Floors, above):
 *    time-based loss detection across paths, as RACK (RFC 8985) does
 *    across a flow's packets.  When a plane dies, its packets are found
 *    lost about one RTT after the first later packet on another plane is
 *    acked, instead of after an RTO; the path leaves the spray set and is
 *    probed back, or
 *  - with the learned floor on a fast fabric, a packet sent after it has
 *    been acked, it was sent once, it is older than srtt + 4 * rttvar of
 *    the path of the newest-sent acked packet, and it is in a message with
 *    nothing left to send or is the first missing packet of one with more
 *    than MRC_WIRE_SACK_BITS / 2 sent beyond it (LOSS event, Stuck
 *    packets above).
 */
void mrc_msg_loss_scan(struct mrc_msg_peer *mp, struct mrc_msg_cb *cb)
{
	u32 now = msg_now_us(cb->now);
	struct mrc_msg_tx *m;
	bool any = false;
	unsigned int pi;
	u32 due = U32_MAX, stuck_cut = 0;
	const struct mrc_path *ref;
	bool fixed, use_stuck;
	u64 reo_floor;

	mp->scan_due_us = U32_MAX;
	if (!mp->inflight)
		return;
	fixed = msg_knob(mp, MRC_KNOB_data_rto_min_ms);
	reo_floor = reo_floor_ns(mp, cb->now);
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++) {
		struct mrc_path *p = mp->path[pi];
		u64 rto, reo;

		if (!p || !p->inflight_pkts)
			continue;
		rto = mrc_path_rto(p, &cb->pp);
		reo = reo_allowance(p, rto, reo_floor);
		mp->rto_cut_us[pi] = now - (u32)div_u64(rto, NSEC_PER_USEC);
		mp->reo_cut_us[pi] = now - (u32)div_u64(reo, NSEC_PER_USEC);
		any = true;
	}
	if (!any)
		return;
	/* Stuck packets, above: measured against the path that delivered */
	ref = mp->rack_valid && mp->rack_path < MRC_MSG_NPATHS ?
	      mp->path[mp->rack_path] : NULL;
	use_stuck = !fixed && ref && ref->rtt.srtt_ns &&
		    stuck_fabric(mp, cb->now);
	if (use_stuck)
		stuck_cut = now - (u32)div_u64((u64)ref->rtt.srtt_ns +
					       4ULL * ref->rtt.rttvar_ns,
					       NSEC_PER_USEC);
	cb->how = MRC_PATH_DONE_LOST;
	list_for_each_entry(m, &mp->sentq, sent_node) {
		struct mrc_txsb *sb = &m->sb;
		bool tail = sb->next_new >= sb->npkts;
		u32 hold = m->lazy ? MRC_MSG_ACK_HOLD_NS / NSEC_PER_USEC : 0;
		u32 idx, edge = U32_MAX;

		if (sb->hi_sent > mrc_txsb_cum(sb) + 1 + MRC_WIRE_SACK_BITS / 2)
			edge = mrc_txsb_cum(sb);
		cb->m = m;
		for (idx = mrc_txsb_cum(sb);
		     idx < sb->hi_sent && mrc_txsb_inflight(sb); idx++) {
			u32 sent = sb->sent_us[idx];
			bool later = rack_later(mp, m->msg_id, idx, sent);
			bool stuck = use_stuck && later &&
				     (tail || idx == edge) &&
				     !mrc_txsb_resent(sb, idx);

			if (mrc_txsb_state(sb, idx) != MRC_TXSB_INFLIGHT)
				continue;
			pi = sb->path[idx];
			cb->congestion = false;
			if ((s32)(sent + hold - mp->rto_cut_us[pi]) < 0) {
				cb->ev = MRC_PATH_EV_RTO;
				msg_count(mp, MRC_MS_RTO_PKTS, 1);
				/* Path delivering: lost in a queue, above */
				if (path_delivered_later(mp, pi, sent)) {
					cb->ev = 0;
					cb->congestion = true;
					msg_count(mp, MRC_MS_RTO_QUEUE_PKTS, 1);
				}
			} else if (stuck && (s32)(sent - stuck_cut) < 0) {
				/* Stuck packets, above */
				cb->ev = MRC_PATH_EV_LOSS;
				msg_count(mp, MRC_MS_STUCK_LOSS_PKTS, 1);
			} else if (later &&
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
				msg_count(mp, MRC_MS_REO_LOSS_PKTS, 1);
			} else {
				/* not yet: when it could be */
				due = min(due,
					  sent + hold - mp->rto_cut_us[pi] + 1);
				if (later)
					due = min(due,
						  sent - mp->reo_cut_us[pi] + 1);
				if (stuck)
					due = min(due, sent - stuck_cut + 1);
				continue;
			}
			mrc_txsb_nack(sb, idx, 1, mrc_msg_cb_fn, cb);
		}
	}
	mp->scan_due_us = due;
	drain_left(mp, cb);
}

/*
 * The queued message @id: in its lane, whose messages are in sequence
 * order, from the oldest (the one a SACK is most likely for) up to where
 * the sequence numbers pass @id's.
 */
static struct mrc_msg_tx *tx_find(struct mrc_msg_peer *mp, u64 id)
{
	struct mrc_msg_tx *m;

	list_for_each_entry(m, &mp->laneq[mrc_msg_id_lane(id)], lane_node) {
		if (m->msg_id == id)
			return m;
		if (mrc_msg_seq_diff((u32)m->msg_id, (u32)id) > 0)
			break;
	}
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
		if (mrc_txsb_nack(sb, idx, 1, mrc_msg_cb_fn, cb) > 0)
			msg_count(mp, MRC_MS_LOSS_PKTS, 1);
	}
}

/*
 * The receiver's endpoint cannot take @m now (a SACK of nothing flagged
 * MRC_WF_BUSY, msg_rx.c Back-pressure): its packets in flight come back
 * without blaming their paths, and one of them goes again after a wait
 * that starts at MRC_MSG_BUSY_MIN_NS and doubles per busy answer up to
 * rto_max_ms.  The answer shows the receiver alive: progress, so a slow
 * reader never makes the queue time out.  Answers to packets sent before
 * now are stale from here on (m->busy_ts): a burst's packets each get a
 * busy answer, which must not double the wait once per packet.  If @m
 * held the peer's credit schedule (one message at a time), it gives it
 * up: a slow reader must not hold back the messages to other endpoints;
 * it asks again when it may send new bytes.
 */
static void busy(struct mrc_msg_peer *mp, struct mrc_msg_tx *m,
		 struct mrc_msg_cb *cb)
{
	u64 max = msg_knob(mp, MRC_KNOB_rto_max_ms) * NSEC_PER_MSEC;

	msg_count(mp, MRC_MS_TX_BUSY, 1);
	mrc_msg_release_all(cb, m);
	mp->node->ops->credit_gone(mp, m->msg_id);
	m->busy_wait_ns = m->busy_wait_ns ?
			  min(2 * m->busy_wait_ns, max) : MRC_MSG_BUSY_MIN_NS;
	m->busy_ns = cb->now + m->busy_wait_ns;
	m->busy_ts = cb->now;
	mp->progress_ns = cb->now;
}

/*
 * The receiver refused @m (msg_rx.c, Refusal: no endpoint on its port
 * took it): the answer is for the whole message, whatever was sent so
 * far.  A scheduled message may have sent only its unscheduled window,
 * so the SACK's "all of it" names packets never sent, which a SACK must
 * not (txsb.c): it fails here, its packets in flight come back without
 * blame, and its credit, if it is the scheduled message, is given up.
 */
static void refused(struct mrc_msg_peer *mp, struct mrc_msg_tx *m,
		    struct mrc_msg_cb *cb)
{
	msg_count(mp, MRC_MS_TX_REFUSED, 1);
	mrc_msg_release_all(cb, m);
	mp->node->ops->credit_gone(mp, m->msg_id);
	m->status = -ECONNREFUSED;
	mp->progress_ns = cb->now;
	msg_retire(mp, m);
}

/*
 * One ACK event per path in mp->ack_seen, its sample the age of the
 * newest packet sent once that the SACK newly acked on it
 * (Acknowledgment, above), less @delay_ns, the time the receiver held
 * the acknowledgment for a DATA of its own.  Return: whether the SACK's
 * path @pi got its event here.
 */
static bool ack_samples(struct mrc_msg_peer *mp, struct mrc_msg_cb *cb,
			unsigned int pi, u64 delay_ns)
{
	bool got = false;
	u32 i;

	for (i = mrc_bm_find_next_set(mp->ack_seen, MRC_MSG_NPATHS, 0);
	     i < MRC_MSG_NPATHS;
	     i = mrc_bm_find_next_set(mp->ack_seen, MRC_MSG_NPATHS, i + 1)) {
		if (!mp->path[i])
			continue;
		mrc_path_event(mp->path[i], &cb->pp, MRC_PATH_EV_ACK, cb->now,
			       min(msg_sent_ns(cb->now, mp->ack_hi_us[i]) +
				   delay_ns, cb->now));
		got |= i == pi;
	}
	return got;
}

/*
 * The done list of a SACK or DATA (MRC_WF_DONE_MORE, msg_rx.c Answers):
 * each entry a message of its epoch that arrived whole, a SACK of all of
 * it.  Its packets leave flight acked; the paths they were on get their
 * ACK events (ack_samples(), the ack delay taken out), a SACK's own path
 * from the SACK itself.  An entry for a message no longer queued is
 * late (sacks_stale); one that names packets never sent is dropped, as
 * such a SACK is.
 */
static void done_list(struct mrc_msg_peer *mp, const struct mrc_pkt *pkt,
		      struct mrc_msg_cb *cb)
{
	static const u64 none[MRC_WIRE_SACK_BITS / 64];
	unsigned int i, n = mrc_wire_done_n(pkt);
	u64 epoch = (u64)mrc_wire_done_epoch(pkt) << 32;
	u64 delay = (u64)pkt->ack_delay_us * NSEC_PER_USEC;
	bool any = false;

	mrc_bm_zero(mp->ack_seen, MRC_MSG_NPATHS);
	for (i = 0; i < n; i++) {
		u64 id = epoch | mrc_wire_get_done(pkt, i);
		struct mrc_msg_tx *m = tx_find(mp, id);

		if (!m) {
			msg_count(mp, MRC_MS_SACKS_STALE, 1);
			continue;
		}
		cb->m = m;
		cb->how = MRC_PATH_DONE_ACKED;
		if (mrc_txsb_sack(&m->sb, m->sb.npkts, 0, none, mrc_msg_cb_fn,
				  cb) < 0)
			continue;
		any = true;
		msg_count(mp, MRC_MS_DONE_ACKED, 1);
		if (mrc_txsb_done(&m->sb))
			msg_retire(mp, m);
	}
	if (!any)
		return;
	mp->progress_ns = cb->now;
	ack_samples(mp, cb, MRC_MSG_NO_PATH, delay);
}

/**
 * mrc_msg_tx_data_done() - a DATA packet carried a done list
 * @mp: the peer's engine
 * @pkt: the DATA, parsed by mrc_wire_parse()
 * @now: the caller's clock, ns
 *
 * Its entries acknowledge whole messages of ours (version 7, msg_rx.c
 * Answers), as a SACK's done list does.  Tx lock held; the messages it
 * retires wait on mp->done for the host.
 */
void mrc_msg_tx_data_done(struct mrc_msg_peer *mp, const struct mrc_pkt *pkt,
			  u64 now)
{
	struct mrc_msg_cb cb;

	if (!mrc_wire_done_n(pkt))
		return;
	mrc_msg_cb_init(&cb, mp, now);
	done_list(mp, pkt, &cb);
	if (!list_empty(&mp->txq))
		mp->node->ops->kick(mp);
	else	/* the last one: its timer is not needed */
		mrc_msg_timer_settle(mp, now);
}

/* A SACK of a message of ours: mrc_msg_tx_sack() without the timer. */
static enum mrc_drop_reason tx_sack(struct mrc_msg_peer *mp, unsigned int pi,
				    const struct mrc_pkt *pkt, u64 now)
{
	struct mrc_pkt_sack sack;
	struct mrc_msg_cb cb;
	struct mrc_msg_tx *m;
	u64 delay, echo;
	int n;

	msg_count(mp, MRC_MS_SACKS_RX, 1);
	mrc_msg_cb_init(&cb, mp, now);
	delay = (u64)pkt->ack_delay_us * NSEC_PER_USEC;
	if (pkt->flags & MRC_WF_DONE_MORE) {
		done_list(mp, pkt, &cb);
		if (!list_empty(&mp->txq))
			mp->node->ops->kick(mp);
	}
	m = tx_find(mp, pkt->msg_id);
	if (!m) {
		msg_count(mp, MRC_MS_SACKS_STALE, 1);
		return ack_stale(mp, pkt->msg_id);
	}
	mrc_wire_get_sack(pkt, &sack);
	/* the echo as if the receiver had answered at once (its ack delay) */
	echo = min(sack.echo_tstamp + delay, now);
	if (pi < MRC_MSG_NPATHS && mp->path[pi] &&
	    (pkt->flags & (MRC_WF_BUSY | MRC_WF_REFUSED | MRC_WF_GONE)))
		mrc_path_event(mp->path[pi], &cb.pp, MRC_PATH_EV_ACK, now,
			       sack.echo_tstamp);
	if (pkt->flags & MRC_WF_GONE) {
		/* acknowledges nothing (msg_rx.c, Expiry) */
		if (sack.cum || sack.nbits)
			return MRC_DROP_BAD_SACK;
		mrc_msg_tx_epoch_gone(mp, now);
		mp->node->ops->kick(mp);
		return MRC_DROP_NONE;
	}
	if (pkt->flags & MRC_WF_REFUSED) {
		/* always of the whole message (msg_rx.c full_sack()) */
		if (sack.cum != m->sb.npkts || sack.nbits)
			return MRC_DROP_BAD_SACK;
		refused(mp, m, &cb);
		if (!list_empty(&mp->txq))
			mp->node->ops->kick(mp);
		return MRC_DROP_NONE;
	}
	if (sack.echo_tstamp > m->busy_ts) {
		if (pkt->flags & MRC_WF_BUSY) {
			busy(mp, m, &cb);
			return MRC_DROP_NONE;
		}
		/* admitted: it goes on at full speed */
		m->busy_ts = sack.echo_tstamp;
		m->busy_ns = 0;
		m->busy_wait_ns = 0;
	} else if (pkt->flags & MRC_WF_BUSY) {
		/* about a packet sent before the last decision */
		mp->progress_ns = now;
		return MRC_DROP_NONE;
	}
	cb.m = m;
	cb.how = MRC_PATH_DONE_ACKED;
	mrc_bm_zero(mp->ack_seen, MRC_MSG_NPATHS);
	n = mrc_txsb_sack(&m->sb, sack.cum, sack.nbits, sack.bitmap, mrc_msg_cb_fn,
			  &cb);
	if (n < 0)
		return MRC_DROP_BAD_SACK;
	if (n > 0)
		mp->progress_ns = now;
	if (!ack_samples(mp, &cb, pi, delay) && pi < MRC_MSG_NPATHS &&
	    mp->path[pi])
		mrc_path_event(mp->path[pi], &cb.pp, MRC_PATH_EV_ACK, now, echo);
	if (n > 0)
		floor_sample(mp, now, echo);
	if (mrc_txsb_done(&m->sb)) {
		msg_retire(mp, m);
	} else if (n > 0) {
		sack_losses(mp, m, &cb, sack.cum + 1 + sack.nbits);
		drain_left(mp, &cb);
	}
	/* The window opened or a loss is to resend: a run, if any is left. */
	if ((n > 0 || mrc_txsb_lost(&m->sb)) && !list_empty(&mp->txq))
		mp->node->ops->kick(mp);
	return MRC_DROP_NONE;
}

/**
 * mrc_msg_tx_sack() - a SACK arrived
 * @mp: the peer's engine
 * @pi: the path it came on (MRC_MSG_NO_PATH: that path is gone)
 * @pkt: the SACK, parsed by mrc_wire_parse()
 * @now: the caller's clock, ns
 *
 * If it acknowledged the last message queued, the timer the sender
 * armed for it is taken back (msg_tx.c, Timer).
 *
 * Return: the drop reason, MRC_DROP_NONE if the SACK was used.
 */
enum mrc_drop_reason mrc_msg_tx_sack(struct mrc_msg_peer *mp, unsigned int pi,
				     const struct mrc_pkt *pkt, u64 now)
{
	enum mrc_drop_reason why = tx_sack(mp, pi, pkt, now);

	if (list_empty(&mp->txq))	/* its timer is not needed */
		mrc_msg_timer_settle(mp, now);
	return why;
}

/*
 * Whether packet @idx of @sb, in flight, is too young for a NACK of it to
 * mean it is lost: sent less than its own path's reordering allowance ago
 * (reo_allowance(), as the loss scan judges it).  The receiver times its
 * holes by the path the later packets came on and cannot tell a packet
 * lost from one still on a slower path (one plane behind a deep queue).
 * If it is lost, the loss scan or the receiver's next NACK finds it.
 */
static bool nack_early(struct mrc_msg_peer *mp, const struct mrc_txsb *sb,
		       u32 idx, const struct mrc_msg_cb *cb, u64 floor)
{
	const struct mrc_path *p = sb->path[idx] < MRC_MSG_NPATHS ?
				   mp->path[sb->path[idx]] : NULL;
	u32 age_us = msg_now_us(cb->now) - sb->sent_us[idx];

	if (!p || !p->rtt.srtt_ns)
		return false;
	return (u64)age_us * NSEC_PER_USEC <
	       reo_allowance(p, mrc_path_rto(p, &cb->pp), floor);
}

/**
 * mrc_msg_tx_nack() - a NACK arrived
 * @mp: the peer's engine
 * @pkt: the NACK, parsed by mrc_wire_parse()
 * @now: the caller's clock, ns
 *
 * Resends what the receiver misses, except packets sent too recently on
 * their own path to be taken for lost (nack_early(), counted in
 * nack_early_pkts); which path is to blame is the sender's own evidence's
 * call (loss scan, per-path SACK order).  A NACK
 * of a message is taken only if its tstamp (the receiver's clock) is
 * later than the last one taken: a replayed NACK would resend packets
 * for nothing, as often as it is sent (MRC_DROP_REPLAYED, counted in
 * nacks_replayed).
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
	u64 floor;
	u32 idx;

	msg_count(mp, MRC_MS_NACKS_RX, 1);
	m = tx_find(mp, pkt->msg_id);
	if (!m)
		return ack_stale(mp, pkt->msg_id);
	if (pkt->tstamp <= m->nack_ts) {
		msg_count(mp, MRC_MS_NACKS_REPLAYED, 1);
		return MRC_DROP_REPLAYED;
	}
	m->nack_ts = pkt->tstamp;
	mrc_msg_cb_init(&cb, mp, now);
	cb.m = m;
	cb.how = MRC_PATH_DONE_LOST;
	floor = reo_floor_ns(mp, now);
	for (i = 0; i < mrc_wire_nack_nranges(pkt); i++) {
		mrc_wire_get_nack_range(pkt, i, &r);
		if (!r.count || (u64)r.first + r.count > m->sb.hi_sent) {
			why = MRC_DROP_BAD_SACK;
			break;
		}
		for (idx = r.first; idx < r.first + r.count; idx++) {
			if (mrc_txsb_state(&m->sb, idx) != MRC_TXSB_INFLIGHT)
				continue;
			if (nack_early(mp, &m->sb, idx, &cb, floor)) {
				msg_count(mp, MRC_MS_NACK_EARLY_PKTS, 1);
				continue;
			}
			mrc_txsb_nack(&m->sb, idx, 1, mrc_msg_cb_fn, &cb);
		}
	}
	drain_left(mp, &cb);
	mp->node->ops->kick(mp);
	return why;
}

