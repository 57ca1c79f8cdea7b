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
 * Issue 5's policies add a case that scans the candidates and keeps the
 * best by their key (inflight bytes, srtt, a load score, a rail weight),
 * breaking ties in cursor order so that equal paths still share evenly.
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

void mrc_sched_params_default(struct mrc_sched_params *sp)
{
	sp->policy = MRC_SCHED_DEF_POLICY;
	sp->min_active = MRC_SCHED_DEF_MIN_ACTIVE;
	sp->recent_ns = MRC_SCHED_DEF_RECENT_NS;
}

int mrc_sched_params_check(const struct mrc_sched_params *sp, const char **why)
{
	if (sp->policy >= MRC_SCHED_POLICY_NR) {
		*why = "unknown scheduling policy";
		return -EINVAL;
	}
	if (sp->recent_ns > MRC_SCHED_RECENT_MAX_NS) {
		*why = "recent interval above 4 s";
		return -EINVAL;
	}
	return 0;
}

void mrc_sched_init(struct mrc_sched *s)
{
	s->cursor = 0;
}

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

u32 mrc_sched_count(struct mrc_path *const *paths, u32 n,
		    enum mrc_path_state state)
{
	u32 i, c = 0;

	for (i = 0; i < n; i++)
		if (paths[i] && paths[i]->state == state)
			c++;
	return c;
}

static int mrc_sched_rr(struct mrc_sched *s, const struct mrc_sched_params *sp,
			struct mrc_path *const *paths, u32 n, bool floor,
			u64 now)
{
	u32 i, idx;

	if (s->cursor >= n)
		s->cursor = 0;
	for (i = 0; i < n; i++) {
		idx = s->cursor + i;
		if (idx >= n)
			idx -= n;
		if (mrc_sched_candidate(paths[idx], sp, floor, now)) {
			s->cursor = idx + 1;
			return (int)idx;
		}
	}
	return -EAGAIN;
}

int mrc_sched_pick(struct mrc_sched *s, const struct mrc_sched_params *sp,
		   struct mrc_path *const *paths, u32 n, u64 now)
{
	bool floor = false;

	if (n > INT_MAX)
		return -EINVAL;
	if (sp->min_active)
		floor = mrc_sched_count(paths, n, MRC_PATH_ACTIVE) <
			sp->min_active;

	switch (sp->policy) {
	case MRC_SCHED_ROUND_ROBIN:
		return mrc_sched_rr(s, sp, paths, n, floor, now);
	default:
		return -EINVAL;
	}
}

const char *mrc_sched_policy_name(unsigned int policy)
{
	static const char * const names[MRC_SCHED_POLICY_NR] = {
		[MRC_SCHED_ROUND_ROBIN] = "round-robin",
	};

	return policy < MRC_SCHED_POLICY_NR ? names[policy] : NULL;
}
