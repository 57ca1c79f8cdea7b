/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched.h - path scheduler: which of a peer's paths carries the next
 * packet.  Kernel-agnostic; the caller serialises calls per peer (the
 * same lock that guards the peer's paths).
 *
 * The scheduler only chooses.  The caller sends on the chosen path,
 * records the path in the packet and accounts it there
 * (mrc_path_inflight_add()); since the accounting is per path and not per
 * policy, changing the policy live cannot unbalance it.
 */
#ifndef _MRC_SCHED_H
#define _MRC_SCHED_H

#include "compat.h"
#include "path.h"

/*
 * Values are stable: they may be exported (netlink, sysfs).  Issue 5's
 * policies (min-inflight, min-latency, load-aware) are appended here, each
 * one more case in mrc_sched_pick(); they choose among the same candidates
 * (mrc_sched_candidate()) and differ only in which one wins.
 */
enum mrc_sched_policy {
	MRC_SCHED_ROUND_ROBIN	= 0,	/* plain spray over ACTIVE paths */
	MRC_SCHED_POLICY_NR
};

struct mrc_sched_params {
	u32 policy;		/* enum mrc_sched_policy */
	/*
	 * Floor (MRC 1.0's ev_min_active).  0 = off, the default.  While
	 * fewer than min_active paths are ACTIVE, ASSUMED_BAD paths that
	 * were acked after they left the spray set, within the last
	 * recent_ns, are candidates too.
	 */
	u32 min_active;
	u32 recent_ns;
};

#define MRC_SCHED_DEF_POLICY		MRC_SCHED_ROUND_ROBIN
#define MRC_SCHED_DEF_MIN_ACTIVE	0
#define MRC_SCHED_DEF_RECENT_NS		10000000U	/* one probe interval */
#define MRC_SCHED_RECENT_MAX_NS		4000000000U

/* Per-peer scheduler state.  All-zero is a valid initial state. */
struct mrc_sched {
	u32 cursor;		/* round-robin: index to try first */
};

void mrc_sched_params_default(struct mrc_sched_params *sp);
/* 0 if @sp is usable; else -EINVAL with *why set to a static reason. */
int mrc_sched_params_check(const struct mrc_sched_params *sp, const char **why);

void mrc_sched_init(struct mrc_sched *s);

/*
 * Whether @p may carry the next packet at @now: ACTIVE, or with @floor
 * (fewer ACTIVE paths than min_active) ASSUMED_BAD with an ACK after it
 * left, no older than recent_ns.  NULL slots are never candidates.
 */
bool mrc_sched_candidate(const struct mrc_path *p,
			 const struct mrc_sched_params *sp, bool floor, u64 now);

/* Paths among @paths[0..n) in @state (NULL slots skipped). */
u32 mrc_sched_count(struct mrc_path *const *paths, u32 n,
		    enum mrc_path_state state);

/*
 * Picks the path for the next packet among @paths[0..n) (one peer's
 * paths; NULL slots allowed) at @now.  Returns its index, -EAGAIN if no
 * path may be used now (the caller waits: probes are already due), or
 * -EINVAL for an unknown policy or n > INT_MAX.
 */
int mrc_sched_pick(struct mrc_sched *s, const struct mrc_sched_params *sp,
		   struct mrc_path *const *paths, u32 n, u64 now);

/* "round-robin"; NULL if out of range. */
const char *mrc_sched_policy_name(unsigned int policy);

#endif /* _MRC_SCHED_H */
