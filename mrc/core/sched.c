// SPDX-License-Identifier: GPL-2.0
/*
 * sched.c - path scheduler (kernel-agnostic).
 *
 * Design notes
 *
 * Picking is two steps: which paths are candidates (mrc_sched_candidate():
 * the same for every policy) and which candidate wins (one function per
 * policy).  Round-robin keeps a cursor: it takes the first candidate at or
 * after the cursor and moves the cursor past it, so over any run of picks
 * with a fixed candidate set every candidate gets the same count +-1, and
 * a path that comes back to ACTIVE gets its turn in the very next round.
 * Weighted round-robin adds a round counter: round k skips the paths of
 * weight <= k, so one cycle of W rounds gives each path its weight in
 * picks, without per-path state.  The other policies scan the candidates
 * once, keeping the least cost per weight (cross-multiplied, so no
 * division) and the stalest path for exploration, breaking ties in
 * cursor order so that equal paths still share evenly.  Formulas and
 * their bounds are in sched.h.
 *
 * The class filter is a second pass only when the first finds nothing:
 * the common case (class rails alive, or no isolation) costs one scan.
 *
 * With no candidate the answer is "none" (-EAGAIN): every non-ACTIVE path
 * that can be probed already has a probe due, so the caller just waits for
 * a reply (or for the peer's unreachable timeout).
 *
 * The floor (min_active, MRC 1.0's ev_min_active) is off by default.  It
 * is for fabric-wide random loss: when most paths have just dropped one
 * packet each, spraying over the two or three still ACTIVE concentrates
 * the load, while the others still deliver.  The evidence that an
 * ASSUMED_BAD path still delivers is an ACK received after it left the
 * spray set (strictly later than the loss): a cut rail produces none, so
 * the floor does not spray into it; but late ACKs of packets sent before a
 * cut could briefly qualify, which is why it stays off unless asked for.
 */
#include "sched.h"

/* One pick's inputs, passed down the helpers. */
struct mrc_sched_ctx {
	const struct mrc_sched_params *sp;
	struct mrc_path *const *paths;
	u32 n;
	u32 cls;
	u32 len;
	u32 rail_free;		/* load-aware: F of the packet's message */
	u64 now;
	bool floor;		/* the min_active floor is on */
	bool any_rail;		/* fallback: ignore the class's rail set */
};

/**
 * mrc_sched_params_default() - fill in the default scheduling parameters
 * @sp: the parameters to set (MRC_SCHED_DEF_*, see sched.h)
 */
void mrc_sched_params_default(struct mrc_sched_params *sp)
{
	unsigned int i;

	sp->policy = MRC_SCHED_DEF_POLICY;
	sp->min_active = MRC_SCHED_DEF_MIN_ACTIVE;
	sp->recent_ns = MRC_SCHED_DEF_RECENT_NS;
	sp->explore_every = MRC_SCHED_DEF_EXPLORE_EVERY;
	sp->explore_ns = MRC_SCHED_DEF_EXPLORE_NS;
	sp->fallback_grace_ns = 0;
	for (i = 0; i < MRC_SCHED_MAX_RAILS; i++)
		sp->weight[i] = MRC_SCHED_WEIGHT_DEF;
	for (i = 0; i < MRC_SCHED_CLASS_NR; i++)
		sp->class_rails[i] = MRC_SCHED_RAILS_ALL;
}

/**
 * mrc_sched_params_knobs() - the knob-derived scheduling intervals
 * @sp: its fallback_grace_ns and explore_ns are set
 * @peer_timeout_ms: the peer_timeout_ms knob
 * @probe_ms: the probe_ms knob
 *
 * Class fallback grace: a quarter of @peer_timeout_ms, so that a class
 * whose rails silently stopped working falls back well before its
 * messages would fail.  Exploration: two keepalive intervals (2 x
 * @probe_ms).  Both computed in u64 and capped at 4 s
 * (MRC_SCHED_EXPLORE_MAX_NS, what mrc_sched_params_check() accepts): the
 * knobs' ranges cross 2^32 ns (peer_timeout_ms 17180), where a u32
 * product would wrap to a tiny grace.  A 4 s grace is still a quarter or
 * less of a peer timeout that long.
 */
void mrc_sched_params_knobs(struct mrc_sched_params *sp, u64 peer_timeout_ms,
			    u64 probe_ms)
{
	u64 cap_ms = MRC_SCHED_EXPLORE_MAX_NS / NSEC_PER_MSEC;

	sp->fallback_grace_ns = min_t(u64, peer_timeout_ms / 4, cap_ms) *
				NSEC_PER_MSEC;
	sp->explore_ns = min_t(u64, probe_ms, cap_ms / 2) * 2 * NSEC_PER_MSEC;
}

/**
 * mrc_sched_params_check() - check scheduling parameters
 * @sp: the parameters
 * @why: set to a static reason when @sp is refused
 *
 * Return: 0 if @sp is usable; else -EINVAL with *@why set: unknown
 * policy, interval out of range, weight above 100, a class with an empty
 * rail set or whose rails all have weight 0.
 */
int mrc_sched_params_check(const struct mrc_sched_params *sp, const char **why)
{
	unsigned int i, c;

	if (sp->policy >= MRC_SCHED_POLICY_NR) {
		*why = "unknown scheduling policy";
		return -EINVAL;
	}
	if (sp->recent_ns > MRC_SCHED_RECENT_MAX_NS) {
		*why = "recent interval above 4 s";
		return -EINVAL;
	}
	if (sp->fallback_grace_ns > MRC_SCHED_EXPLORE_MAX_NS) {
		*why = "class fallback grace above 4 s";
		return -EINVAL;
	}
	if (sp->explore_ns > MRC_SCHED_EXPLORE_MAX_NS) {
		*why = "exploration interval above 4 s";
		return -EINVAL;
	}
	for (i = 0; i < MRC_SCHED_MAX_RAILS; i++) {
		if (sp->weight[i] > MRC_SCHED_WEIGHT_MAX) {
			*why = "rail weight above 100";
			return -EINVAL;
		}
	}
	for (c = 0; c < MRC_SCHED_CLASS_NR; c++) {
		u64 m = sp->class_rails[c];

		if (!m) {
			*why = "traffic class mapped to no rail";
			return -EINVAL;
		}
		if (m == MRC_SCHED_RAILS_ALL)
			continue;
		for (i = 0; i < MRC_SCHED_MAX_RAILS; i++)
			if (((m >> i) & 1) && sp->weight[i])
				break;
		if (i == MRC_SCHED_MAX_RAILS) {
			*why = "traffic class mapped only to rails of weight 0";
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * mrc_sched_init() - reset a peer's scheduler state
 * @s: the state (all-zero afterwards)
 */
void mrc_sched_init(struct mrc_sched *s)
{
	memset(s, 0, sizeof(*s));
}

/**
 * mrc_sched_candidate() - whether a path may carry the next packet
 * @p: the path; NULL slots are never candidates
 * @sp: the parameters
 * @floor: fewer ACTIVE paths than min_active
 * @now: the caller's clock, ns
 *
 * Weights and classes are not considered here.
 *
 * Return: true if @p is ACTIVE, or, with @floor, ASSUMED_BAD with an ACK
 * after it left, no older than recent_ns.
 */
bool mrc_sched_candidate(const struct mrc_path *p,
			 const struct mrc_sched_params *sp, bool floor, u64 now)
{
	if (!p)
		return false;
	if (p->state == MRC_PATH_ACTIVE)
		return true;
	if (!floor || p->state != MRC_PATH_ASSUMED_BAD || !p->ok_seen)
		return false;
	/* Acked after it left, and not too long ago. */
	return p->last_ok_ns > p->since_ns && p->last_ok_ns <= now &&
	       now - p->last_ok_ns < sp->recent_ns;
}

/**
 * mrc_sched_count() - count the paths in a state
 * @paths: the paths; NULL slots are skipped
 * @n: how many
 * @state: the state
 *
 * Return: the paths among @paths[0..n) in @state.
 */
u32 mrc_sched_count(struct mrc_path *const *paths, u32 n,
		    enum mrc_path_state state)
{
	u32 i, c = 0;

	for (i = 0; i < n; i++)
		if (paths[i] && paths[i]->state == state)
			c++;
	return c;
}

/**
 * mrc_sched_weight() - the weight of a path's rail
 * @sp: the parameters
 * @p: the path
 *
 * Return: the weight of @p's local rail under @sp (0..255; 0 = never).
 */
u32 mrc_sched_weight(const struct mrc_sched_params *sp,
		     const struct mrc_path *p)
{
	if (p->local_rail < MRC_SCHED_MAX_RAILS)
		return sp->weight[p->local_rail];
	return MRC_SCHED_WEIGHT_DEF;
}

/**
 * mrc_sched_in_class() - whether a path's rail serves a class
 * @sp: the parameters
 * @cls: the class (< MRC_SCHED_CLASS_NR)
 * @p: the path
 *
 * Return: true if @p's local rail is in class @cls's rail set.
 */
bool mrc_sched_in_class(const struct mrc_sched_params *sp, u32 cls,
			const struct mrc_path *p)
{
	u64 m = sp->class_rails[cls];

	if (m == MRC_SCHED_RAILS_ALL)
		return true;
	return p->local_rail < MRC_SCHED_MAX_RAILS &&
	       ((m >> p->local_rail) & 1);
}

/* R_i: min(srtt, latest sample), or the stand-in before any sample. */
static u32 mrc_sched_rtt(const struct mrc_path *p)
{
	u32 r = p->rtt.srtt_ns;

	if (!mrc_rtt_valid(&p->rtt))
		return MRC_SCHED_RTT_UNKNOWN_NS;
	if (p->rtt.last_ns < r)
		r = p->rtt.last_ns;
	return r;
}

/* Q(x): (x >> 10) + 1 kept to MRC_SCHED_RTT_BITS significant bits. */
static u32 mrc_sched_quant(u32 ns)
{
	u32 v = (ns >> 10) + 1, sh;

	if (v < (1u << MRC_SCHED_RTT_BITS))
		return v;
	sh = 32 - __builtin_clz(v) - MRC_SCHED_RTT_BITS;
	return (v >> sh) << sh;
}

/* B_i: bytes in flight plus this packet (at least 1), capped. */
static u32 mrc_sched_bytes(const struct mrc_path *p, u32 len)
{
	u64 b;

	if (p->inflight_bytes >= U32_MAX)
		return U32_MAX;
	b = p->inflight_bytes + (len ? len : 1);
	return b < U32_MAX ? (u32)b : U32_MAX;
}

/**
 * mrc_sched_rail_free() - the rail bytes load-aware does not count
 * @msg_len: the length of the message the packet is of
 *
 * Return: F of sched.h: MRC_SCHED_RAIL_FREE for a message of at most that
 * many bytes, else 0.
 */
u32 mrc_sched_rail_free(u32 msg_len)
{
	return msg_len <= MRC_SCHED_RAIL_FREE ? MRC_SCHED_RAIL_FREE : 0;
}

/**
 * mrc_sched_cost_rail() - a policy's cost of sending on a path
 * @policy: the policy
 * @p: the path
 * @len: bytes to send
 * @rail_bytes: the peer's bytes in flight on @p's local rail, over all
 *	of its paths there (@p's own included); only load-aware uses it
 * @rail_free: how many of @rail_bytes do not count (mrc_sched_rail_free())
 *
 * Used by the pick (mrc_sched_best()) and the unit tests.
 *
 * Return: the policy's cost c_i of sending @len bytes on @p now (the
 * policies in sched.h); the round-robin cost is 0.
 */
u64 mrc_sched_cost_rail(u32 policy, const struct mrc_path *p, u32 len,
			u32 rail_bytes, u32 rail_free)
{
	u64 load;
	u32 loss;

	switch (policy) {
	case MRC_SCHED_MIN_INFLIGHT:
		return mrc_sched_bytes(p, len);
	case MRC_SCHED_MIN_LATENCY:
		return mrc_sched_quant(mrc_sched_rtt(p));
	case MRC_SCHED_LOAD_AWARE:
		loss = min_t(u32, p->consec_loss, MRC_SCHED_LOSS_CAP);
		load = (u64)mrc_sched_bytes(p, len) * (1 + loss);
		if (rail_bytes > rail_free)
			load += rail_bytes - rail_free;	/* S_i */
		load = min_t(u64, load, MRC_SCHED_LOAD_MAX);
		return load << MRC_SCHED_RTT_SHIFT |
		       min_t(u32, mrc_sched_quant(mrc_sched_rtt(p)),
			     BIT(MRC_SCHED_RTT_SHIFT) - 1);
	default:
		return 0;
	}
}

/*
 * Bytes in flight per local rail over all of the peer's paths, whatever
 * their state (what was sent on a path that has since gone bad is still
 * ahead in its rail's queue), each sum capped at U32_MAX.  Rails with an
 * id of MRC_SCHED_MAX_RAILS or more are not counted (their S_i is 0).
 */
static void mrc_sched_rail_load(const struct mrc_sched_ctx *c, u32 *rail)
{
	const struct mrc_path *p;
	u64 b;
	u32 i;

	memset(rail, 0, MRC_SCHED_MAX_RAILS * sizeof(*rail));
	for (i = 0; i < c->n; i++) {
		p = c->paths[i];
		if (!p || p->local_rail >= MRC_SCHED_MAX_RAILS ||
		    !p->inflight_bytes)
			continue;
		b = (u64)rail[p->local_rail] + p->inflight_bytes;
		rail[p->local_rail] = b < U32_MAX ? (u32)b : U32_MAX;
	}
}

/* The weight of paths[idx] if it may be picked now, else 0. */
static u32 mrc_sched_usable(const struct mrc_sched_ctx *c, u32 idx)
{
	const struct mrc_path *p = c->paths[idx];

	if (!mrc_sched_candidate(p, c->sp, c->floor, c->now))
		return 0;
	if (!c->any_rail && !mrc_sched_in_class(c->sp, c->cls, p))
		return 0;
	return mrc_sched_weight(c->sp, p);
}

/* Interleaved weighted round-robin; see sched.h. */
static int mrc_sched_rr(struct mrc_sched *s, const struct mrc_sched_ctx *c)
{
	u32 i, idx, w, maxw = 0, round = s->round, start = s->cursor;

	for (i = 0; i < c->n; i++) {
		w = mrc_sched_usable(c, i);
		if (w > maxw)
			maxw = w;
	}
	if (!maxw)
		return -EAGAIN;
	if (start >= c->n) {		/* the last round ended */
		start = 0;
		round++;
	}
	if (round >= maxw)
		round = 0;
	/*
	 * The rest of this round, then the next from index 0: a round
	 * below maxw always has the heaviest path, so 2n steps suffice.
	 */
	idx = start;
	for (i = 0; i < 2 * c->n; i++) {
		if (idx >= c->n) {
			idx = 0;
			if (++round >= maxw)
				round = 0;
		}
		if (mrc_sched_usable(c, idx) > round) {
			s->round = round;
			return (int)idx;
		}
		idx++;
	}
	return -EAGAIN;		/* not reached */
}

/* Whether @p has been silent, with nothing in flight, for explore_ns. */
static bool mrc_sched_stale(const struct mrc_sched_ctx *c,
			    const struct mrc_path *p)
{
	if (p->inflight_pkts)
		return false;
	if (!p->ok_seen)
		return true;
	return p->last_ok_ns <= c->now &&
	       c->now - p->last_ok_ns >= c->sp->explore_ns;
}

/* @a has older news than @b (never heard from is oldest). */
static bool mrc_sched_staler(const struct mrc_path *a,
			     const struct mrc_path *b)
{
	if (!a->ok_seen)
		return b->ok_seen;
	return b->ok_seen && a->last_ok_ns < b->last_ok_ns;
}

/* Least cost per weight; exploration of stale paths.  See sched.h. */
static int mrc_sched_best(struct mrc_sched *s, const struct mrc_sched_ctx *c,
			  u32 policy, u8 *flags)
{
	const struct mrc_sched_params *sp = c->sp;
	bool explore = (policy == MRC_SCHED_MIN_LATENCY ||
			policy == MRC_SCHED_LOAD_AWARE) &&
		       sp->explore_every && s->explore + 1 >= sp->explore_every;
	u32 rail[MRC_SCHED_MAX_RAILS], i, idx, w, bw = 0, rb;
	int best = -1, stale = -1;
	u64 bc = 0, cost;

	if (policy == MRC_SCHED_LOAD_AWARE)
		mrc_sched_rail_load(c, rail);
	idx = s->cursor < c->n ? s->cursor : 0;
	for (i = 0; i < c->n; i++, idx++) {
		const struct mrc_path *p;

		if (idx >= c->n)
			idx = 0;
		w = mrc_sched_usable(c, idx);
		if (!w)
			continue;
		p = c->paths[idx];
		rb = policy == MRC_SCHED_LOAD_AWARE &&
		     p->local_rail < MRC_SCHED_MAX_RAILS ?
		     rail[p->local_rail] : 0;
		cost = mrc_sched_cost_rail(policy, p, c->len, rb,
					   c->rail_free);
		if (best < 0 || cost * bw < bc * w) {
			best = (int)idx;
			bc = cost;
			bw = w;
		}
		if (explore && mrc_sched_stale(c, p) &&
		    (stale < 0 || mrc_sched_staler(p, c->paths[stale])))
			stale = (int)idx;
	}
	if (stale >= 0 && stale != best) {
		*flags |= MRC_SCHED_F_EXPLORE;
		return stale;
	}
	return best < 0 ? -EAGAIN : best;
}

/* Whether class c->cls has a live path: not DEAD or DENIED, weight > 0. */
static bool mrc_sched_class_alive(const struct mrc_sched_ctx *c)
{
	const struct mrc_path *p;
	u32 i;

	for (i = 0; i < c->n; i++) {
		p = c->paths[i];
		if (p && p->state != MRC_PATH_DEAD &&
		    p->state != MRC_PATH_DENIED &&
		    mrc_sched_in_class(c->sp, c->cls, p) &&
		    mrc_sched_weight(c->sp, p))
			return true;
	}
	return false;
}

static int mrc_sched_run(struct mrc_sched *s, const struct mrc_sched_ctx *c,
			 u8 *flags)
{
	if (c->sp->policy == MRC_SCHED_ROUND_ROBIN)
		return mrc_sched_rr(s, c);
	return mrc_sched_best(s, c, c->sp->policy, flags);
}

/**
 * mrc_sched_select() - pick the path for the next packet
 * @s: the peer's scheduler state
 * @sp: the parameters
 * @paths: one peer's paths; NULL slots allowed
 * @n: how many
 * @cls: the packet's traffic class
 * @len: its bytes
 * @msg_len: the length of the message it is of (load-aware: the rail
 *	bytes that do not count, mrc_sched_rail_free())
 * @now: the caller's clock, ns
 * @res: filled with the path's index, the policy tag and flags
 *
 * Without a class (MRC_SCHED_CLASS_DEFAULT mapped to all rails), one scan
 * of @paths.
 *
 * Return: the path's index, -EAGAIN if no path may be used now, not even
 * by falling back (the caller waits: probes are already due), or -EINVAL
 * for an unknown policy or class or n > INT_MAX; on error @res is
 * untouched, and so is @s except the fallback grace's start (nocand_ns).
 */
int mrc_sched_select(struct mrc_sched *s, const struct mrc_sched_params *sp,
		     struct mrc_path *const *paths, u32 n, u32 cls, u32 len,
		     u32 msg_len, u64 now, struct mrc_sched_res *res)
{
	struct mrc_sched_ctx c = {
		.sp = sp, .paths = paths, .n = n, .cls = cls, .len = len,
		.rail_free = mrc_sched_rail_free(msg_len), .now = now,
	};
	u32 policy = sp->policy, bit;
	u8 flags = 0;
	int idx;

	if (n > INT_MAX || policy >= MRC_SCHED_POLICY_NR ||
	    cls >= MRC_SCHED_CLASS_NR)
		return -EINVAL;
	if (sp->min_active)
		c.floor = mrc_sched_count(paths, n, MRC_PATH_ACTIVE) <
			  sp->min_active;
	if (c.floor)
		flags |= MRC_SCHED_F_FLOOR;

	idx = mrc_sched_run(s, &c, &flags);
	if (idx == -EAGAIN && sp->class_rails[cls] != MRC_SCHED_RAILS_ALL) {
		/* Live class paths: wait out the grace (see sched.h). */
		if (sp->fallback_grace_ns && mrc_sched_class_alive(&c)) {
			if (!s->nocand_ns[cls] || s->nocand_ns[cls] > now)
				s->nocand_ns[cls] = now ? now : 1;
			if (now - s->nocand_ns[cls] < sp->fallback_grace_ns)
				return -EAGAIN;
		}
		c.any_rail = true;
		idx = mrc_sched_run(s, &c, &flags);
		if (idx >= 0)
			flags |= MRC_SCHED_F_FALLBACK;
	}
	if (idx < 0)
		return idx;
	if (!(flags & MRC_SCHED_F_FALLBACK))
		s->nocand_ns[cls] = 0;

	bit = 1u << cls;
	if (!(flags & MRC_SCHED_F_FALLBACK) != !(s->fallback & bit)) {
		flags |= MRC_SCHED_F_FALLBACK_CHANGED;
		s->fallback ^= bit;
	}
	if (flags & MRC_SCHED_F_FALLBACK)
		s->fallbacks++;
	if (flags & MRC_SCHED_F_EXPLORE) {
		s->explores++;
		s->explore = 0;
	} else if (s->explore != U32_MAX) {
		s->explore++;
	}
	s->cursor = (u32)idx + 1;
	s->picks[policy]++;
	res->path = (u32)idx;
	res->policy = (u8)policy;
	res->flags = flags;
	return idx;
}

/**
 * mrc_sched_pick() - mrc_sched_select() for the default class and an
 *	unknown length
 * @s: the peer's scheduler state
 * @sp: the parameters
 * @paths: one peer's paths; NULL slots allowed
 * @n: how many
 * @now: the caller's clock, ns
 *
 * Return: as mrc_sched_select().
 */
int mrc_sched_pick(struct mrc_sched *s, const struct mrc_sched_params *sp,
		   struct mrc_path *const *paths, u32 n, u64 now)
{
	struct mrc_sched_res res;

	return mrc_sched_select(s, sp, paths, n, MRC_SCHED_CLASS_DEFAULT, 0,
				0, now, &res);
}
