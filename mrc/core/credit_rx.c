// SPDX-License-Identifier: GPL-2.0
/*
 * credit_rx.c - receiver-driven credits, the receiver: its table of
 * senders and the grant pacer (kernel-agnostic).
 *
 * Design notes
 *
 * Budget.  The pacer turns elapsed time into bytes at the drain rate
 * (tokens); unscheduled arrivals are charged to the same budget, so the
 * tokens may go negative (debt) after an incast's first window.  Saved
 * tokens are capped at burst so an idle receiver does not hand out a
 * large burst at once; while senders wait, what drained since the last
 * pace (elapsed capped at 100 ms) comes on top, so a timer that fires
 * late does not lose budget (on a loaded or virtual host most paces come
 * late: debugfs mrc/credit's pace histogram shows by how much; figures in
 * Documentation/mrc/design-decisions.rst, "Timer defaults").  Grants are
 * also held under max_outstanding, the total of granted-but-not-arrived
 * scheduled bytes, which bounds what can sit in the fabric even if the
 * rate is set too high.
 *
 * Fair share hands the budget out in grant_unit pieces round-robin; the
 * next pace starts after the last entry served, so budgets smaller than
 * one unit per sender still rotate over everyone (max-min fair).  SRPT
 * gives the whole budget to the entry with the fewest bytes left to
 * grant, then the next.  Fair is O(budget / unit + n) per pace, SRPT
 * O(n^2) worst case, with n bounded by the table size the caller chose.
 *
 * Reclaim.  A sender whose scheduled data stops arriving for
 * grant_timeout (its grant was lost, or it went away) has its
 * outstanding credit written off, so the pool is not locked forever; the
 * grant offset itself never moves back (offsets are monotonic), and the
 * sender's re-REQUEST gets the same offset re-sent.  Bytes of a
 * written-off grant that arrive later settle nothing (outstanding is
 * clamped at 0), a transient error bounded by what was reclaimed.
 *
 * Queue bound.  What can be in flight towards the receiver is at most
 * max_outstanding (plus credit reclaimed while its grant was merely late)
 * plus one unscheduled window per sender starting an exchange at the same
 * moment (a chained message, one that starts while its sender is still
 * in the credit loop, sends none: mrc_credit_tx_start()); a last hop with
 * at least that much buffer does not drop.  The
 * unscheduled window must be the same on both sides (a cluster-wide knob,
 * or advertised at HELLO): the receiver counts bytes beyond its own
 * window without a grant as over credit.
 *
 * Lookup.  Every DATA packet is accounted (mrc_credit_rx_data()), so
 * finding its sender's entry must not scan the table: entries in use
 * are chained in a hash index by key (a multiplicative hash into at
 * least twice as many buckets as entries, so chains stay short; keys are
 * the operator's node ids, not chosen by packets), and the number of
 * entries waiting for grants is kept as they change, for the arrivals
 * that ask whether to wake the pacer.  A packet of a message no longer
 * than the unscheduled window does not look at the table at all: no
 * request can have scheduled it (mrc_credit_rx_request_unsched() refuses
 * those), so all its bytes are unscheduled and charged to the budget.
 * Finding a free entry for a new sender's first request still scans,
 * once per scheduled message at most.
 *
 * No 64-bit division: rate * elapsed / 1e9 is a shift-subtract long
 * division (mrc_credit_div()), so the file builds on 32-bit kernels
 * without div_u64().
 */
#include "credit.h"

#define NSEC_PER_S	1000000000U

/* @n / @d with the remainder in *@rem; @d != 0.  No libgcc helpers. */
static u64 mrc_credit_div(u64 n, u32 d, u64 *rem)
{
	u64 q = 0, r = 0;
	int i;

	for (i = 63; i >= 0; i--) {
		r = (r << 1) | ((n >> i) & 1);
		if (r >= d) {
			r -= d;
			q |= 1ULL << i;
		}
	}
	*rem = r;
	return q;
}

/* log2 of the hash index's buckets for @n entries: at least 2 * @n. */
static u32 mrc_credit_hbits(u32 n)
{
	u32 b = 1;

	while ((1U << b) < 2 * n)
		b++;
	return b;
}

/* The bucket heads, after e[]: entry index + 1, 0 for an empty bucket. */
static u32 *mrc_credit_heads(struct mrc_credit_rx *rx)
{
	return (u32 *)&rx->e[rx->nentries];
}

/**
 * mrc_credit_rx_bucket() - the hash bucket of a sender's entry
 * @rx: the receiver's table
 * @key: the sender
 *
 * Return: the bucket, 0 .. (1 << rx->hbits) - 1 (for tests: keys that
 * collide).
 */
u32 mrc_credit_rx_bucket(const struct mrc_credit_rx *rx, u32 key)
{
	return (key * 0x9e3779b1U) >> (32 - rx->hbits);
}

/**
 * mrc_credit_rx_size() - the size of a receiver's table
 * @n: senders it holds
 *
 * Return: the bytes for a table of @n senders; 0 if @n is 0 or too large.
 */
size_t mrc_credit_rx_size(u32 n)
{
	if (!n || n > MRC_CREDIT_MAX_SENDERS)
		return 0;
	return sizeof(struct mrc_credit_rx) +
	       (size_t)n * sizeof(struct mrc_credit_rx_entry) +
	       ((size_t)sizeof(u32) << mrc_credit_hbits(n));
}

/**
 * mrc_credit_rx_init() - set up a receiver's table
 * @rx: mrc_credit_rx_size(@n) bytes
 * @n: senders it holds
 * @p: the parameters
 *
 * Return: 0, or -EINVAL if @n is bad.
 */
int mrc_credit_rx_init(struct mrc_credit_rx *rx, u32 n,
		       const struct mrc_credit_params *p)
{
	if (!mrc_credit_rx_size(n))
		return -EINVAL;
	memset(rx, 0, mrc_credit_rx_size(n));
	rx->nentries = n;
	rx->hbits = mrc_credit_hbits(n);
	rx->tokens = p->burst;
	return 0;
}

/**
 * mrc_credit_rx_lookup() - a sender's entry
 * @rx: the receiver's table
 * @key: the sender
 *
 * Return: its entry (in use), or NULL if it has none.
 */
const struct mrc_credit_rx_entry *
mrc_credit_rx_lookup(const struct mrc_credit_rx *rx, u32 key)
{
	const u32 *heads = (const u32 *)&rx->e[rx->nentries];
	u32 i = heads[mrc_credit_rx_bucket(rx, key)];

	while (i) {
		const struct mrc_credit_rx_entry *e = &rx->e[i - 1];

		if (e->key == key)
			return e;
		i = e->hnext;
	}
	return NULL;
}

static struct mrc_credit_rx_entry *mrc_credit_find(struct mrc_credit_rx *rx,
						   u32 key)
{
	return (struct mrc_credit_rx_entry *)mrc_credit_rx_lookup(rx, key);
}

/* @e (in use, its key set) joins its bucket's chain. */
static void mrc_credit_link(struct mrc_credit_rx *rx,
			    struct mrc_credit_rx_entry *e)
{
	u32 *head = &mrc_credit_heads(rx)[mrc_credit_rx_bucket(rx, e->key)];

	e->hnext = *head;
	*head = (u32)(e - rx->e) + 1;
}

/* @e (in use) leaves its bucket's chain. */
static void mrc_credit_unlink(struct mrc_credit_rx *rx,
			      struct mrc_credit_rx_entry *e)
{
	u32 *pp = &mrc_credit_heads(rx)[mrc_credit_rx_bucket(rx, e->key)];
	u32 idx = (u32)(e - rx->e) + 1;

	while (*pp && *pp != idx)
		pp = &rx->e[*pp - 1].hnext;
	if (*pp)
		*pp = e->hnext;
	e->hnext = 0;
}

/*
 * Whether message id @id comes after every request @e took from its
 * sender in the same lane.  A sender's ids grow in the order it
 * schedules its messages within a lane (msg.h: epoch << 32 | lane << 26
 * | n; the epoch and n compared as serial numbers, the epoch first), but
 * lanes (traffic classes, port buckets) are served by rank, not in id
 * order, so the entry keeps the newest n it took per lane (lane_n): an
 * id is compared with its own lane's, and a lane the entry has not seen
 * in this epoch has nothing earlier.
 *
 * One earlier id may come again: a message whose sender gave its
 * schedule up (its receiver's endpoint was busy, msg_ack.c busy()) asks
 * again, with the same id, when it may send new bytes, and another
 * lane's message may have taken the entry meanwhile.  So the newest n of
 * a lane is open (MRC_CREDIT_LANE_OPEN) when it left the entry
 * unfinished (mrc_credit_lane_leave()): its request is taken once more.
 * A finished message's n stays closed, so a replay of its request cannot
 * take the entry over.
 */
static bool mrc_credit_newer(const struct mrc_credit_rx_entry *e, u64 id)
{
	s32 d = (s32)((u32)(id >> 32) - e->lane_epoch);
	u32 n = (u32)id, seen = e->lane_n[n >> MRC_CREDIT_LANE_SHIFT];
	u32 mask = MRC_CREDIT_SEQ_MASK;

	if (d)
		return d > 0;
	if (!(seen & MRC_CREDIT_LANE_SEEN))
		return true;
	if ((seen & MRC_CREDIT_LANE_OPEN) && (n & mask) == (seen & mask))
		return true;
	return (s32)((n - seen) << (32 - MRC_CREDIT_LANE_SHIFT)) > 0;
}

/*
 * @e's message is replaced by another: unless its last byte came, its
 * sender may still want it scheduled (see mrc_credit_newer()), so its
 * lane's n is opened.  Its own bytes decide, not the entry's outstanding
 * credit: any message's scheduled bytes settle that (a late resend of
 * the one before), so a message given up with its grant unused may find
 * it settled, and would be locked out for stale_ns.
 */
static void mrc_credit_lane_leave(struct mrc_credit_rx_entry *e)
{
	u32 n = (u32)e->msg_id, mask = MRC_CREDIT_SEQ_MASK;
	u32 *seen = &e->lane_n[n >> MRC_CREDIT_LANE_SHIFT];

	if ((u32)(e->msg_id >> 32) != e->lane_epoch ||
	    !(*seen & MRC_CREDIT_LANE_SEEN) || (*seen & mask) != (n & mask))
		return;
	if (e->end_seen < e->requested)
		*seen |= MRC_CREDIT_LANE_OPEN;
}

/* @e took the request for @id: the newest of its lane (and epoch). */
static void mrc_credit_lane_take(struct mrc_credit_rx_entry *e, u64 id)
{
	u32 n = (u32)id;

	if ((u32)(id >> 32) != e->lane_epoch) {
		memset(e->lane_n, 0, sizeof(e->lane_n));
		e->lane_epoch = (u32)(id >> 32);
	}
	e->lane_n[n >> MRC_CREDIT_LANE_SHIFT] = MRC_CREDIT_LANE_SEEN |
		(n & MRC_CREDIT_SEQ_MASK);
	e->end_seen = 0;
}

static bool mrc_credit_waits(const struct mrc_credit_rx_entry *e)
{
	return e->in_use && e->granted < e->requested;
}

/* After a change of @e that may start or end its wait (it was @was). */
static void mrc_credit_rewait(struct mrc_credit_rx *rx,
			      const struct mrc_credit_rx_entry *e, bool was)
{
	bool now = mrc_credit_waits(e);

	if (now && !was)
		rx->nwaiting++;
	else if (was && !now)
		rx->nwaiting--;
}

/* An entry that holds nothing: no grants left to give, none in flight. */
static bool mrc_credit_idle(const struct mrc_credit_rx_entry *e)
{
	return !e->in_use || (!mrc_credit_waits(e) && !e->outstanding);
}

static void mrc_credit_fill(const struct mrc_credit_rx *rx,
			    const struct mrc_credit_rx_entry *e,
			    struct mrc_credit_grant *g)
{
	g->idx = (u32)(e - rx->e);
	g->key = e->key;
	g->msg_id = e->msg_id;
	g->granted = e->granted;
	g->seq = e->seq;
}

/**
 * mrc_credit_rx_request_unsched() - take a REQUEST
 * @rx: the receiver's table
 * @p: the parameters
 * @key: the sender
 * @msg_id: the message
 * @msg_len: its length, bytes
 * @unsched: bytes the sender sends without a grant (the REQUEST's offset:
 *	the window, or 0 for a chained message, see mrc_credit_tx_start();
 *	more than the window is not believed)
 * @now: the caller's clock, ns
 * @out: the current grant to re-send, for MRC_CREDIT_REQ_RESEND; may be
 *	NULL when the caller does not re-send
 *
 * Return: 0 (new message scheduled; a grant comes from the pacer),
 * MRC_CREDIT_REQ_RESEND (known message: @out holds the current grant to
 * re-send, e.g. after a lost GRANT), or a negative code the caller
 * counts and drops the REQUEST for:
 *  -EMSGSIZE	msg_len above max_msg
 *  -EINVAL	msg_len within the unscheduled window (nothing to grant),
 *		or a repeat of msg_id with another length (forged)
 *  -ESTALE	a message not newer than the newest the entry took in its
 *		lane (ids compared as epoch << 32 | seq serial numbers,
 *		msg.c's layout; that newest one again only if it left the
 *		entry unfinished, see mrc_credit_newer()): a
 *		replayed, reordered or forged request, while the entry is
 *		busy (grants to give or in flight) or was active within
 *		stale_ns; an entry quiet for longer takes any message (so
 *		an entry a forged later id took does not lock its sender
 *		out for good)
 *  -EBUSY	a later message while this sender's previous one still
 *		waits for grants (the sender serialises its scheduled
 *		messages: it gave the previous one up)
 *  -ENOSPC	new sender and no free or idle entry
 */
int mrc_credit_rx_request_unsched(struct mrc_credit_rx *rx,
				  const struct mrc_credit_params *p, u32 key,
				  u64 msg_id, u32 msg_len, u32 unsched,
				  u64 now, struct mrc_credit_grant *out)
{
	struct mrc_credit_rx_entry *e;
	u32 i;

	if (msg_len > p->max_msg) {
		rx->stats.req_oversize++;
		return -EMSGSIZE;
	}
	e = mrc_credit_find(rx, key);
	if (e && e->msg_id == msg_id) {
		if (msg_len != e->requested) {
			rx->stats.req_bad++;
			return -EINVAL;
		}
		rx->stats.req_dup++;
		if (out)
			mrc_credit_fill(rx, e, out);
		return MRC_CREDIT_REQ_RESEND;
	}
	if (msg_len <= p->unsched) {
		rx->stats.req_bad++;
		return -EINVAL;
	}
	/*
	 * A sender asks for its messages in order: a request for an
	 * earlier message is a replayed, reordered or forged one, and must
	 * not take the entry over while it holds credit business (grants
	 * to give or in flight) or did lately (its expiry is the last
	 * grant, arrival or request plus grant_timeout).
	 */
	if (e && !mrc_credit_newer(e, msg_id) &&
	    (!mrc_credit_idle(e) || now < e->expiry + p->stale_ns)) {
		rx->stats.req_stale++;
		return -ESTALE;
	}
	if (e && mrc_credit_waits(e)) {
		rx->stats.req_busy++;
		return -EBUSY;
	}
	if (!e) {
		/* A free entry, else one a quiet sender holds. */
		for (i = 0; i < rx->nentries && !e; i++)
			if (!rx->e[i].in_use)
				e = &rx->e[i];
		for (i = 0; i < rx->nentries && !e; i++)
			if (mrc_credit_idle(&rx->e[i]))
				e = &rx->e[i];
		if (!e) {
			rx->stats.req_full++;
			return -ENOSPC;
		}
		/* Idle: not waiting; a quiet sender's entry changes hands. */
		if (e->in_use)
			mrc_credit_unlink(rx, e);
		memset(e, 0, sizeof(*e));
		e->in_use = 1;
		e->key = key;
		mrc_credit_link(rx, e);
	}
	/* Not waiting here (-EBUSY above): it waits from now on. */
	/* Outstanding credit of the previous message carries over. */
	mrc_credit_lane_leave(e);
	e->msg_id = msg_id;
	e->low = 0;
	e->requested = msg_len;
	e->unsched = min(unsched, p->unsched);
	e->granted = e->unsched;
	e->seq = 0;
	e->loop_ns = 0;
	e->expiry = now + p->grant_timeout_ns;
	mrc_credit_lane_take(e, msg_id);
	mrc_credit_rewait(rx, e, false);
	rx->stats.req_new++;
	return 0;
}

/*
 * The entry's message has the window its request announced; any other
 * (the one before it, late or resent; one whose request is still on
 * its way) the whole window.  A chained message's own bytes that arrive
 * late, after the next one's request, are therefore charged instead of
 * settled: rare (a resend), and reclaim writes that credit off.
 */
static u32 mrc_credit_unsched_of(const struct mrc_credit_rx_entry *e,
				 const struct mrc_credit_params *p,
				 u64 msg_id, u32 msg_len)
{
	if (e && e->msg_id == msg_id)
		return e->unsched;
	return min(p->unsched, msg_len);
}

/**
 * mrc_credit_rx_unsched() - the bytes of a message that need no grant
 * @rx: the receiver's table
 * @p: the parameters
 * @key: the sender
 * @msg_id: the message
 * @msg_len: its length, bytes
 *
 * Return: the bytes of message @msg_id from @key that come without a
 * grant: the window its request announced if it is the message @key's
 * entry schedules, else the window (capped at @msg_len).
 */
u32 mrc_credit_rx_unsched(struct mrc_credit_rx *rx,
			  const struct mrc_credit_params *p, u32 key,
			  u64 msg_id, u32 msg_len)
{
	if (msg_len <= p->unsched)	/* never scheduled (see Lookup) */
		return msg_len;
	return mrc_credit_unsched_of(mrc_credit_find(rx, key), p, msg_id,
				     msg_len);
}

/*
 * Credit loop (credit.h): the least time from a grant to the first byte
 * of its credit, per window of MRC_CREDIT_LOOP_WIN_NS; one grant per
 * entry is timed at a time.
 */
static void mrc_credit_loop_sample(struct mrc_credit_rx *rx, u64 ns, u64 now)
{
	u32 s = (u32)min_t(u64, ns, MRC_CREDIT_MAX_ELAPSED_NS);

	if (!s)
		s = 1;
	if (!rx->loop_win_ns || now - rx->loop_win_ns >= MRC_CREDIT_LOOP_WIN_NS) {
		rx->loop_min_ns[1] = rx->loop_min_ns[0];
		rx->loop_n[1] = rx->loop_n[0];
		rx->loop_min_ns[0] = 0;
		rx->loop_n[0] = 0;
		rx->loop_win_ns = now;
	}
	if (!rx->loop_min_ns[0] || s < rx->loop_min_ns[0])
		rx->loop_min_ns[0] = s;
	if (rx->loop_n[0] < U32_MAX)
		rx->loop_n[0]++;
}

/**
 * mrc_credit_rx_loop_ns() - the credit loop in use
 * @rx: the receiver's table
 *
 * Return: the least grant-to-data time of the current and the previous
 * window, ns; 0 while they hold fewer than MRC_CREDIT_LOOP_SAMPLES.
 */
u32 mrc_credit_rx_loop_ns(const struct mrc_credit_rx *rx)
{
	u32 a = rx->loop_min_ns[0], b = rx->loop_min_ns[1];

	if ((u64)rx->loop_n[0] + rx->loop_n[1] < MRC_CREDIT_LOOP_SAMPLES)
		return 0;
	if (!a || !b)
		return a ? a : b;
	return min(a, b);
}

/* The cap on outstanding credit now (credit.h). */
static u64 mrc_credit_out_cap(const struct mrc_credit_rx *rx,
			      const struct mrc_credit_params *p)
{
	u64 loop = mrc_credit_rx_loop_ns(rx), cap = 0, floor, rem;

	if (!p->loop_mult)
		return p->max_outstanding;
	/* <= 1.25e11 x 1e8 < 2^64 (loop samples are capped at 100 ms) */
	if (loop)
		cap = mrc_credit_div(p->rate * loop, NSEC_PER_S, &rem) *
		      p->loop_mult;
	floor = max_t(u64, 2ULL * p->unsched, 4ULL * p->grant_unit);
	return min_t(u64, max(cap, floor), p->max_outstanding);
}

/**
 * mrc_credit_rx_data() - account data that arrived
 * @rx: the receiver's table
 * @p: the parameters
 * @key: the sender
 * @msg_id: the message
 * @msg_len: its length, bytes
 * @offset: where the bytes start
 * @len: new (not duplicate) bytes that arrived
 * @now: the caller's clock, ns
 *
 * Unscheduled bytes are charged to the budget; scheduled ones settle
 * outstanding credit.
 *
 * Return: 0, or -EPERM if the bytes lie beyond what was granted to the
 * message being scheduled (the caller counts and may drop them).
 */
int mrc_credit_rx_data(struct mrc_credit_rx *rx,
		       const struct mrc_credit_params *p, u32 key,
		       u64 msg_id, u32 msg_len, u32 offset, u32 len, u64 now)
{
	struct mrc_credit_rx_entry *e = NULL;
	u64 end = (u64)offset + len;
	u64 unsched = msg_len, charge = 0, settle;

	/* A message within the window was never scheduled (see Lookup). */
	if (msg_len > p->unsched) {
		e = mrc_credit_find(rx, key);
		unsched = mrc_credit_unsched_of(e, p, msg_id, msg_len);
	}
	if (e && e->msg_id == msg_id && end > e->granted) {
		rx->stats.data_over_credit++;
		return -EPERM;
	}
	if (!e && end > unsched) {
		/* Scheduled bytes nobody granted. */
		rx->stats.data_over_credit++;
		return -EPERM;
	}
	if (offset < unsched)
		charge = min(end, unsched) - offset;
	if (charge) {
		rx->tokens -= (s64)charge;
		if (rx->tokens < -(s64)U32_MAX)
			rx->tokens = -(s64)U32_MAX;
		rx->stats.unsched_bytes += charge;
	}
	if (e && e->msg_id == msg_id && end > e->end_seen)
		e->end_seen = (u32)end;
	rx->since_pace = (u32)min_t(u64, (u64)rx->since_pace + len, U32_MAX);
	rx->arrived += len;
	rx->arrived_ns = now;
	/* The first byte of a timed grant's credit: a loop sample. */
	if (e && e->msg_id == msg_id && e->loop_ns && end > e->loop_from) {
		if (now > e->loop_ns)
			mrc_credit_loop_sample(rx, now - e->loop_ns, now);
		e->loop_ns = 0;
	}
	settle = len - charge;
	if (e && settle) {
		e->mark = rx->arrived;
		e->mark_ns = now;
		settle = min_t(u64, settle, e->outstanding);
		e->outstanding -= (u32)settle;
		rx->total_outstanding -= settle;
		e->expiry = now + p->grant_timeout_ns;
	}
	return 0;
}

static void mrc_credit_give(struct mrc_credit_rx *rx,
			    const struct mrc_credit_params *p,
			    struct mrc_credit_rx_entry *e, u32 bytes, u64 now)
{
	bool was = mrc_credit_waits(e);

	if (!e->loop_ns) {
		e->loop_ns = max_t(u64, now, 1);	/* 0: none */
		e->loop_from = e->granted;
	}
	e->mark = rx->arrived;
	e->mark_ns = now;

	e->granted += bytes;
	mrc_credit_rewait(rx, e, was);
	e->outstanding += bytes;
	e->granted_bytes += bytes;
	e->expiry = now + p->grant_timeout_ns;
	e->pending = 1;
	rx->total_outstanding += bytes;
	if (rx->total_outstanding > rx->stats.outstanding_max)
		rx->stats.outstanding_max = rx->total_outstanding;
	rx->tokens -= bytes;
	rx->stats.granted_bytes += bytes;
}

/* What @e may get now out of @avail: whole units, or its whole tail. */
static u32 mrc_credit_piece(const struct mrc_credit_rx_entry *e, u64 avail,
			    u64 want, u32 unit)
{
	u64 left = e->requested - e->granted;

	if (left <= avail && left <= want)
		return (u32)left;
	want = min3(want, avail, left);
	return (u32)(want - want % unit);
}

/* Returns what is left of @avail.  Only entries of tier @low. */
static u64 mrc_credit_fair(struct mrc_credit_rx *rx,
			   const struct mrc_credit_params *p, u64 avail,
			   u64 now, u8 low)
{
	u32 n = rx->nentries, i, idle = 0, piece;
	struct mrc_credit_rx_entry *e;

	/* Stops after a full round that could give nobody anything. */
	for (i = rx->cursor % n; avail && idle < n; i = (i + 1) % n) {
		e = &rx->e[i];
		piece = mrc_credit_waits(e) && e->low == low && !e->stalled ?
			mrc_credit_piece(e, avail, p->grant_unit,
					 p->grant_unit) : 0;
		if (!piece) {
			idle++;
			continue;
		}
		idle = 0;
		mrc_credit_give(rx, p, e, piece, now);
		avail -= piece;
		/* The next pace starts after the last one served. */
		rx->cursor = (i + 1) % n;
	}
	return avail;
}

static u64 mrc_credit_srpt(struct mrc_credit_rx *rx,
			   const struct mrc_credit_params *p, u64 avail,
			   u64 now, u8 low)
{
	struct mrc_credit_rx_entry *e, *best;
	u32 i, piece;

	while (avail) {
		best = NULL;
		for (i = 0; i < rx->nentries; i++) {
			e = &rx->e[i];
			if (!mrc_credit_waits(e) || e->pending || e->low != low ||
			    e->stalled)
				continue;
			if (!best || e->requested - e->granted <
				     best->requested - best->granted)
				best = e;
		}
		if (!best)
			break;
		piece = mrc_credit_piece(best, avail, avail, p->grant_unit);
		if (!piece)
			break;
		mrc_credit_give(rx, p, best, piece, now);
		avail -= piece;
	}
	return avail;
}

/**
 * mrc_credit_rx_pace() - the pacing step, from the caller's hrtimer
 * @rx: the receiver's table
 * @p: the parameters
 * @now: the caller's clock, ns
 * @elapsed: ns since the last pace
 * @out: filled with the grants to send
 * @nout: room in @out; at least nentries
 *
 * Adds @elapsed ns worth of drain rate to the budget (capped at burst,
 * plus what drained in @elapsed while senders wait), reclaims expired
 * credit and grants the budget (and the room under max_outstanding) to
 * waiting senders by policy.
 *
 * Return: how many grants were written to @out, or -EINVAL if @nout is
 * below nentries.
 */
int mrc_credit_rx_pace(struct mrc_credit_rx *rx,
		       const struct mrc_credit_params *p, u64 now,
		       u64 elapsed, struct mrc_credit_grant *out, u32 nout)
{
	struct mrc_credit_rx_entry *e;
	u64 add, avail, cap, over, lost, rem, stall, stall_ns, stalled, live;
	u64 news;
	bool waiting = false;
	int n = 0;
	u8 low;
	u32 i;

	if (nout < rx->nentries)
		return -EINVAL;
	over = elapsed > MRC_CREDIT_MAX_ELAPSED_NS ?
	       elapsed - MRC_CREDIT_MAX_ELAPSED_NS : 0;
	elapsed -= over;
	/* <= 1.25e19 + 1e9 < 2^64: no overflow. */
	add = mrc_credit_div(p->rate * elapsed + rx->frac, NSEC_PER_S,
			     &rx->frac);
	rx->stats.paces++;
	/*
	 * At most burst is saved; but while senders wait, what drained
	 * since the last pace comes on top, so that a pace that came late
	 * does not lose budget.  What is lost (beyond the 100 ms of elapsed
	 * one pace accounts for, or beyond burst while grants are held
	 * back by max_outstanding) is counted.
	 */
	cap = p->burst;
	if (over || rx->tokens + (s64)add > (s64)cap)
		waiting = mrc_credit_rx_waiting(rx) != 0;
	if (waiting) {
		cap += add;
		/*
		 * rate * over may pass 2^64 (1.25e11 B/s x 1 s): split
		 * rate into whole and part bytes per ns (credit_fuzz).
		 */
		over = min_t(u64, over, NSEC_PER_S);
		lost = mrc_credit_div(p->rate, NSEC_PER_S, &rem);
		lost = lost * over + mrc_credit_div(rem * over, NSEC_PER_S,
						    &rem);
		rx->stats.capped_bytes += lost;
	}
	rx->tokens += (s64)add;
	if (rx->tokens > (s64)cap) {
		if (waiting)
			rx->stats.capped_bytes += rx->tokens - cap;
		rx->tokens = cap;
	}

	rx->out_cap = mrc_credit_out_cap(rx, p);
	/*
	 * What the others delivered since a sender's last news, or how long
	 * nobody delivered anything.
	 */
	stall = 0;
	stall_ns = 0;
	if (p->loop_mult) {
		stall = rx->out_cap * MRC_CREDIT_STALL_CAPS;
		stall_ns = (u64)mrc_credit_rx_loop_ns(rx) *
			   MRC_CREDIT_STALL_LOOPS ?:
			   p->grant_timeout_ns / MRC_CREDIT_STALL_LOOPS;
	}
	stalled = 0;
	for (i = 0; i < rx->nentries; i++) {
		e = &rx->e[i];
		e->pending = 0;
		e->stalled = 0;
		if (!e->in_use || !e->outstanding)
			continue;
		if (now < e->expiry) {
			/* news stamped by a caller's later clock: none */
			news = max(e->mark_ns, rx->arrived_ns);
			if ((stall && rx->arrived - e->mark >= stall) ||
			    (stall_ns && now > news && now - news >= stall_ns)) {
				/* no more credit until its bytes come */
				e->stalled = 1;
				stalled += e->outstanding;
			}
			continue;
		}
		e->loop_ns = 0;
		e->reclaimed_bytes += e->outstanding;
		rx->stats.reclaimed_bytes += e->outstanding;
		rx->total_outstanding -= e->outstanding;
		e->outstanding = 0;
	}
	rx->out_stalled = stalled;
	live = rx->total_outstanding - min(stalled, rx->total_outstanding);

	rx->since_pace = 0;
	if (rx->tokens <= 0) {
		rx->stats.paces_no_tokens++;
		return 0;
	}
	/* Full: no room for a whole unit (a shorter tail may still fit). */
	if (live + p->grant_unit > rx->out_cap)
		rx->stats.paces_out_full++;
	if (live >= rx->out_cap)
		return 0;
	avail = min_t(u64, rx->tokens, rx->out_cap - live);
	/* Background (low) entries get what the others leave. */
	for (low = 0; low <= 1 && avail; low++)
		avail = p->policy == MRC_CREDIT_SRPT ?
			mrc_credit_srpt(rx, p, avail, now, low) :
			mrc_credit_fair(rx, p, avail, now, low);

	for (i = 0; i < rx->nentries; i++) {
		e = &rx->e[i];
		if (!e->pending)
			continue;
		e->pending = 0;
		e->seq++;
		e->grants++;
		rx->stats.grants++;
		mrc_credit_fill(rx, e, &out[n++]);
	}
	return n;
}

/**
 * mrc_credit_rx_forget() - forget a sender (peer gone)
 * @rx: the receiver's table
 * @key: the sender; its outstanding credit is released
 */
void mrc_credit_rx_forget(struct mrc_credit_rx *rx, u32 key)
{
	struct mrc_credit_rx_entry *e = mrc_credit_find(rx, key);

	if (!e)
		return;
	rx->total_outstanding -= e->outstanding;
	if (mrc_credit_waits(e))
		rx->nwaiting--;
	mrc_credit_unlink(rx, e);
	memset(e, 0, sizeof(*e));
}

/**
 * mrc_credit_rx_set_low() - mark a sender's message low priority
 * @rx: the receiver's table
 * @key: the sender, whose scheduled message is marked
 * @low: background traffic
 *
 * Each pace serves the other waiting entries first (by the policy), low
 * ones only with what is left.  Reset by the next request.
 */
void mrc_credit_rx_set_low(struct mrc_credit_rx *rx, u32 key, bool low)
{
	struct mrc_credit_rx_entry *e = mrc_credit_find(rx, key);

	if (e)
		e->low = low;
}

/**
 * mrc_credit_rx_waiting() - senders waiting for grants
 * @rx: the receiver's table
 *
 * Return: how many senders wait for grants (the caller may stop its timer
 * at 0); O(1), kept up to date as entries change.
 */
u32 mrc_credit_rx_waiting(const struct mrc_credit_rx *rx)
{
	return rx->nwaiting;
}
