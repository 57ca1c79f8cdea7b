/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched.h - path scheduler: which of a peer's paths carries the next
 * packet.  Kernel-agnostic, deterministic (no clock, no randomness: the
 * same paths, parameters, state and arguments give the same pick), integer
 * only and without division.  The caller serialises calls per peer (the
 * same lock that guards the peer's paths).
 *
 * Picking is three steps:
 *
 *  1. Candidates: mrc_sched_candidate() (ACTIVE, or the min_active floor),
 *     the same for every policy, minus paths whose local rail has weight 0
 *     ("never").
 *  2. Class filter (rail isolation): only paths whose local rail is in the
 *     traffic class's rail set.  If none of those is a candidate, all
 *     candidates are used instead and the result says so
 *     (MRC_SCHED_F_FALLBACK; MRC_SCHED_F_FALLBACK_CHANGED on the first
 *     such pick and on the first pick back on the class's own rails, so
 *     that the caller emits one event per transition, not per packet).
 *     With fallback_grace_ns set, a class whose rails still have live
 *     paths (PROBING or ASSUMED_BAD: not DEAD, not DENIED, weight > 0)
 *     waits instead (-EAGAIN) until it has had no candidate for that
 *     long: a loss or a timeout on the class's rails (the path is probed
 *     and normally back within an RTT) does not send its traffic onto
 *     the other classes' rails; rails that die (every class path DEAD,
 *     DENIED or gone) fall back at once, and a class whose live paths
 *     never answer falls back after the grace.
 *  3. Policy: which of the remaining paths wins.
 *
 * Accounting: the scheduler only chooses.  The caller sends on the chosen
 * path and accounts the packet on that path (mrc_path_inflight_add(), and
 * mrc_path_inflight_sub() when it is acked, lost or released) whatever the
 * policy: per-path inflight is the same counter under every policy, and no
 * policy keeps an inflight count of its own, so changing the policy (or
 * weights, or classes) while packets are in flight cannot unbalance it.
 * The result carries the policy that chose the path (res.policy); the
 * caller stores that tag with the packet and charges any per-policy
 * statistics (e.g. share of traffic per policy) to the tag, never to the
 * policy current when the packet completes (the rtrs min-inflight lesson).
 *
 * Policies (cost c_i of path i, weight w_i of its local rail, 1..100; the
 * winner has the least c_i / w_i, compared as c_i * w_j < c_j * w_i; ties
 * go to the first path at or after the cursor, which then moves past the
 * winner, so equal paths take turns):
 *
 *  round-robin   Interleaved weighted round-robin: in round k
 *                (0 <= k < W, W the largest weight among the paths left
 *                by steps 1-2) the paths with w_i > k take one turn each,
 *                in index order.  Over W rounds path i gets exactly w_i
 *                picks; with equal weights this is plain spray (+-1).
 *  min-inflight  c_i = B_i, the bytes in flight on path i plus this
 *                packet's length (at least 1), capped at U32_MAX.
 *                Equilibrium: B_i proportional to w_i.
 *  min-latency   c_i = Q(R_i), the path's RTT (below), quantised.
 *                Everything goes to the fastest paths (near-ties share).
 *  load-aware    c_i = (B_i * (1 + min(L_i, 7)) + S_i, Q(R_i)) compared
 *                in that order: the load first, L_i the path's losses
 *                since its last ACK (consec_loss), the RTT only between
 *                paths of equal load.  S_i is the rail queue: the peer's
 *                bytes in flight on all its paths of path i's local rail,
 *                less F (0 if below).  Many paths share one rail's send
 *                queue and port: with more paths than packets in flight
 *                most paths are idle, and without S_i a burst would go
 *                to idle paths of the one rail with the least RTT,
 *                queueing there while the other rails idle.  F, the
 *                bytes that do not count, is MRC_SCHED_RAIL_FREE for a
 *                packet of a message of at most that many bytes: a few
 *                packets ahead cost less than the RTT noise between
 *                rails, and a small message goes whole to its fastest
 *                rail instead of waiting for the slower of two.  For a
 *                longer message F is 0: its packets spread over the rails
 *                from the first, however few are in flight (a sender
 *                paced by its receiver's credits has a few packets in
 *                flight at a time, and with F > 0 they would all queue
 *                at one rail's last hop).  The loss factor weighs the
 *                path's own bytes only.
 *                Packed as load << MRC_SCHED_RTT_SHIFT |
 *                Q(R_i), the load capped at MRC_SCHED_LOAD_MAX and Q at
 *                2^MRC_SCHED_RTT_SHIFT - 1.  A slow or congested path
 *                drains slowly, so its bytes in flight stay up and it
 *                gets fewer packets, in proportion to how fast it drains
 *                (w_i / R_i under load); idle paths (a ping-pong, the
 *                start of a burst) compete on RTT alone, so latency
 *                traffic takes the fastest path.  The RTT is not a
 *                factor of the load: every sender sees the same RTTs, a
 *                little late, so a product with them moves all senders'
 *                traffic to the same paths at once and back, and the
 *                queues of slow links fill and drop (sched.rst, "Why
 *                the RTT only breaks ties").
 *
 *  R_i = min(srtt, latest sample) in ns (an RTT that just dropped counts
 *  at once: a path that recovers is believed on its first fast sample,
 *  and a keepalive's sample under srtt / 2 restarts srtt (rtt.c), so
 *  that it then competes as an equal; one that slows down is believed as
 *  srtt catches up), or
 *  MRC_SCHED_RTT_UNKNOWN_NS before any sample.  Q(x) = (x >> 10) + 1
 *  rounded down to MRC_SCHED_RTT_BITS significant bits (12.5-25% steps,
 *  so paths within noise of each other tie and take turns).  Bounds:
 *  B < 2^32, Q < 2^20 (R <= MRC_RTT_MAX_NS), (1 + L) <= 8, S < 2^32,
 *  w <= 255; the load-aware cost is below 2^(31 + 24) = 2^55 (the load
 *  capped): every product with a weight fits a u64.
 *
 * Exploration (min-latency and load-aware; off with explore_every = 0):
 * a policy that prefers fast paths stops sending on slow ones, and without
 * traffic their RTT is never measured again, so they would never win
 * traffic back.  A path is stale when nothing is in flight on it and it
 * has had no news (ACK or probe reply) for explore_ns.  When a stale path
 * exists and at least explore_every - 1 picks went by since the last
 * exploration, the next pick goes to the stalest one (no news ever first,
 * then the oldest news) and says MRC_SCHED_F_EXPLORE.  So exploration
 * takes at most one pick in explore_every, and a slow path that speeds up
 * (or an ASSUMED_BAD one that answers probes again) gets a fresh sample
 * within explore_ns + its RTT + explore_every picks, after which it
 * competes on its new RTT.
 */
#ifndef _MRC_SCHED_H
#define _MRC_SCHED_H

#include "compat.h"
#include "names.h"
#include "path.h"

/* Values are stable: they may be exported (netlink, sysfs). */
enum mrc_sched_policy {
	MRC_SCHED_ROUND_ROBIN	= 0,	/* weighted spray over the paths */
	MRC_SCHED_MIN_INFLIGHT	= 1,	/* least bytes in flight */
	MRC_SCHED_MIN_LATENCY	= 2,	/* least RTT */
	MRC_SCHED_LOAD_AWARE	= 3,	/* inflight x recent loss, then RTT */
	MRC_SCHED_POLICY_NR
};

/*
 * Traffic classes.  Values are stable.  DEFAULT is traffic that did not
 * choose one; each class has its own rail set (all rails by default).
 */
enum mrc_sched_class {
	MRC_SCHED_CLASS_DEFAULT		= 0,
	MRC_SCHED_CLASS_LATENCY		= 1,
	MRC_SCHED_CLASS_BULK		= 2,
	MRC_SCHED_CLASS_BACKGROUND	= 3,
	MRC_SCHED_CLASS_NR
};

/*
 * Rails with a weight and a place in class rail sets: local rail ids
 * 0..63 (the max_rails knob's default; rail ids are allocated lowest
 * first).  A rail with a higher id has weight MRC_SCHED_WEIGHT_DEF and is
 * only in rail sets equal to MRC_SCHED_RAILS_ALL.
 */
#define MRC_SCHED_MAX_RAILS		64
#define MRC_SCHED_RAILS_ALL		U64_MAX
#define MRC_SCHED_WEIGHT_MAX		100
#define MRC_SCHED_WEIGHT_DEF		100

/* R_i of a path without an RTT sample: rtt.h's rto_init default. */
#define MRC_SCHED_RTT_UNKNOWN_NS	10000000U
#define MRC_SCHED_RTT_BITS		3
/* Cap of L_i in the load-aware cost. */
#define MRC_SCHED_LOSS_CAP		7
/*
 * Bytes in flight on a rail that the load-aware S_i does not count, for a
 * packet of a message of at most this many bytes (for a longer one: none).
 */
#define MRC_SCHED_RAIL_FREE		(4 * 4096)
/* The load-aware cost: load << MRC_SCHED_RTT_SHIFT | Q(R), load capped. */
#define MRC_SCHED_RTT_SHIFT		24
#define MRC_SCHED_LOAD_MAX		((1ULL << 31) - 1)

struct mrc_sched_params {
	u32 policy;		/* enum mrc_sched_policy */
	/*
	 * Floor (MRC 1.0's ev_min_active).  0 = off, the default.  While
	 * fewer than min_active paths (of all the peer's paths) are ACTIVE,
	 * ASSUMED_BAD paths that were acked after they left the spray set,
	 * within the last recent_ns, are candidates too.
	 */
	u32 min_active;
	u32 recent_ns;
	u32 explore_every;	/* picks per exploration at most; 0 = off */
	u32 explore_ns;		/* no news for this long: stale */
	/* Weight by local rail id: 0 = never used, 1..100. */
	u8 weight[MRC_SCHED_MAX_RAILS];
	/* Rail set of each class: bit r = local rail id r. */
	u64 class_rails[MRC_SCHED_CLASS_NR];
	/* Class fallback grace (see step 2), <= 4 s; 0 = at once. */
	u32 fallback_grace_ns;
};

/*
 * Defaults.  Policy: round-robin here; the kernel passes packet lengths
 * and classes and takes its policy from the sched_policy knob, whose
 * default is load-aware (schedcfg.c).  Class fallback grace: 0 here; the
 * kernel uses a quarter of peer_timeout_ms, at most 4 s.  Exploration: at most 1 pick in
 * 128 (0.8% of the packets; but a request/response of two 2-packet
 * messages takes 4 picks, so up to 3% of its round trips), for paths
 * silent for 50 ms here.  The kernel makes that two keepalive intervals
 * (2 x probe_ms, 500 ms by default, schedcfg.c): an idle ACTIVE path's
 * keepalive probe refreshes its RTT, so a path that answers its probes is
 * never stale and never gets data just to be measured, and a recovered
 * path is believed on its next probe reply (within probe_ms + its RTT):
 * well under the second a recovered path may take to carry traffic
 * again.  Exploration stays for the paths that probes leave silent that
 * long (unanswered, or probe_ms raised).
 */
#define MRC_SCHED_DEF_POLICY		MRC_SCHED_ROUND_ROBIN
#define MRC_SCHED_DEF_MIN_ACTIVE	0
#define MRC_SCHED_DEF_RECENT_NS		10000000U	/* one probe interval */
#define MRC_SCHED_RECENT_MAX_NS		4000000000U
#define MRC_SCHED_DEF_EXPLORE_EVERY	128
#define MRC_SCHED_DEF_EXPLORE_NS	50000000U
#define MRC_SCHED_EXPLORE_MAX_NS	4000000000U

/* mrc_sched_res.flags */
#define MRC_SCHED_F_FALLBACK		0x01	/* class's rails unusable:
						 * picked among all rails
						 */
#define MRC_SCHED_F_FALLBACK_CHANGED	0x02	/* F_FALLBACK differs from
						 * this class's last pick
						 */
#define MRC_SCHED_F_EXPLORE		0x04	/* exploration pick */
#define MRC_SCHED_F_FLOOR		0x08	/* the min_active floor was on */

/* What mrc_sched_select() chose. */
struct mrc_sched_res {
	u32 path;		/* index in paths[] */
	u8 policy;		/* tag: the policy that chose; store it with
				 * the packet
				 */
	u8 flags;		/* MRC_SCHED_F_* */
};

/* Per-peer scheduler state.  All-zero is a valid initial state. */
struct mrc_sched {
	u32 cursor;		/* index to try first */
	u32 round;		/* round-robin: the weighted round */
	u32 explore;		/* picks since the last exploration (sat.) */
	u32 fallback;		/* bit c: class c's last pick fell back */
	u64 nocand_ns[MRC_SCHED_CLASS_NR];	/* since when class c's rails
						 * have had live paths but no
						 * candidate (0: not so)
						 */
	u64 picks[MRC_SCHED_POLICY_NR];	/* successful picks by policy */
	u64 fallbacks;		/* picks with F_FALLBACK */
	u64 explores;		/* picks with F_EXPLORE */
};

void mrc_sched_params_default(struct mrc_sched_params *sp);
int mrc_sched_params_check(const struct mrc_sched_params *sp, const char **why);
void mrc_sched_params_knobs(struct mrc_sched_params *sp, u64 peer_timeout_ms,
			    u64 probe_ms);

void mrc_sched_init(struct mrc_sched *s);

bool mrc_sched_candidate(const struct mrc_path *p,
			 const struct mrc_sched_params *sp, bool floor, u64 now);

u32 mrc_sched_count(struct mrc_path *const *paths, u32 n,
		    enum mrc_path_state state);

u32 mrc_sched_weight(const struct mrc_sched_params *sp,
		     const struct mrc_path *p);
bool mrc_sched_in_class(const struct mrc_sched_params *sp, u32 cls,
			const struct mrc_path *p);

u32 mrc_sched_rail_free(u32 msg_len);
u64 mrc_sched_cost_rail(u32 policy, const struct mrc_path *p, u32 len,
			u32 rail_bytes, u32 rail_free);

/* The cost with nothing else in flight on @p's rail (unit tests). */
static inline u64 mrc_sched_cost(u32 policy, const struct mrc_path *p,
				 u32 len)
{
	return mrc_sched_cost_rail(policy, p, len, 0, 0);
}

int mrc_sched_select(struct mrc_sched *s, const struct mrc_sched_params *sp,
		     struct mrc_path *const *paths, u32 n, u32 cls, u32 len,
		     u32 msg_len, u64 now, struct mrc_sched_res *res);

int mrc_sched_pick(struct mrc_sched *s, const struct mrc_sched_params *sp,
		   struct mrc_path *const *paths, u32 n, u64 now);

#endif /* _MRC_SCHED_H */
