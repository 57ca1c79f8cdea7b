// SPDX-License-Identifier: GPL-2.0
/*
 * sched_test.c - user-space unit tests of mrc/sched.c (path scheduler).
 *
 * Output is TAP 13; the exit status is 0 only if every test passed.
 *   make -C selftests/mrc/unit run
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../../mrc/sched.h"
#include "tap.h"

#define MS	1000000ULL
#define T0	(1000 * MS)
#define NP	16

static struct mrc_path_params pp;
static struct mrc_sched_params sp;	/* defaults: round-robin, no floor */
static struct mrc_path path[NP];
static struct mrc_path *ptr[NP];

static int ev(unsigned int i, enum mrc_path_event e, u64 now, u64 sent)
{
	return mrc_path_event(&path[i], &pp, e, now, sent);
}

/* @n paths at T0; those with a bit set in @active are ACTIVE. */
static void setup(unsigned int n, u32 active)
{
	unsigned int i;

	for (i = 0; i < NP; i++) {
		mrc_path_init(&path[i], i & 1, i & 1, i >> 1, T0 - 2 * MS);
		ptr[i] = i < n ? &path[i] : NULL;
		if (active & (1u << i))
			ev(i, MRC_PATH_EV_REPLY, T0, T0 - 1 * MS);
	}
}

static int pick(struct mrc_sched *s, unsigned int n, u64 now)
{
	return mrc_sched_pick(s, &sp, ptr, n, now);
}

/* Picks @k times; counts per path in @cnt; returns how many were none. */
static unsigned int run(struct mrc_sched *s, unsigned int n, unsigned int k,
			unsigned int *cnt, u64 now)
{
	unsigned int i, none = 0;
	int r;

	memset(cnt, 0, NP * sizeof(*cnt));
	for (i = 0; i < k; i++) {
		r = pick(s, n, now);
		if (r < 0) {
			none++;
			continue;
		}
		if (r >= (int)n) {
			CHECK(0, "pick %d of %u paths", r, n);
			continue;
		}
		cnt[r]++;
	}
	return none;
}

/* Counts of ACTIVE paths differ by at most 1; others are 0. */
static void check_fair(const unsigned int *cnt, unsigned int n,
		       const char *what)
{
	unsigned int i, lo = ~0u, hi = 0;

	for (i = 0; i < n; i++) {
		if (path[i].state != MRC_PATH_ACTIVE) {
			CHECK(cnt[i] == 0, "%s: path %u (%s) got %u", what, i,
			      mrc_path_state_name(path[i].state), cnt[i]);
			continue;
		}
		if (cnt[i] < lo)
			lo = cnt[i];
		if (cnt[i] > hi)
			hi = cnt[i];
	}
	CHECK(hi - lo <= 1, "%s: counts from %u to %u", what, lo, hi);
}

/* ---------------------------------------------------------------- */

static void params__defaults_and_check(void)
{
	struct mrc_sched_params q;
	const char *why = NULL;

	mrc_sched_params_default(&q);
	CHECK(mrc_sched_params_check(&q, &why) == 0, "refused: %s", why);
	CHECK(q.policy == MRC_SCHED_ROUND_ROBIN && q.min_active == 0,
	      "policy %u min_active %u", q.policy, q.min_active);
	q.policy = MRC_SCHED_POLICY_NR;
	why = NULL;
	CHECK(mrc_sched_params_check(&q, &why) == -EINVAL && why, "policy");
	mrc_sched_params_default(&q);
	q.recent_ns = MRC_SCHED_RECENT_MAX_NS + 1;
	why = NULL;
	CHECK(mrc_sched_params_check(&q, &why) == -EINVAL && why, "recent");
	CHECK(!strcmp(mrc_sched_policy_name(MRC_SCHED_ROUND_ROBIN),
		      "round-robin"), "name");
	CHECK(!mrc_sched_policy_name(MRC_SCHED_POLICY_NR), "name NR");
}

static void rr__cycles_in_order(void)
{
	struct mrc_sched s;
	unsigned int i;
	int r;

	setup(4, 0xf);
	mrc_sched_init(&s);
	for (i = 0; i < 12; i++) {
		r = pick(&s, 4, T0);
		CHECK(r == (int)(i % 4), "pick %u: %d", i, r);
	}
}

static void rr__fair_all_active(void)
{
	unsigned int cnt[NP], i;
	struct mrc_sched s;

	setup(NP, 0xffff);
	mrc_sched_init(&s);
	CHECK(run(&s, NP, 16000, cnt, T0) == 0, "none while all active");
	for (i = 0; i < NP; i++)
		CHECK(cnt[i] == 1000, "path %u: %u", i, cnt[i]);
	/* Uneven number of picks: still +-1. */
	CHECK(run(&s, NP, 1001, cnt, T0) == 0, "none");
	check_fair(cnt, NP, "1001 picks");
}

/* Every non-ACTIVE state is skipped; the ACTIVE ones share evenly. */
static void rr__skips_non_active(void)
{
	unsigned int cnt[NP], k;
	struct mrc_sched s;
	static const unsigned int picks[] = { 1, 2, 7, 13, 1000, 1003 };

	/* 0 probing, 1 active, 2 bad, 3 active, 4 dead, 5 active,
	 * 6 denied, 7 active, 8 probing, 9 active
	 */
	setup(10, 0);
	ev(1, MRC_PATH_EV_REPLY, T0, T0 - MS);
	ev(2, MRC_PATH_EV_REPLY, T0, T0 - MS);
	ev(2, MRC_PATH_EV_LOSS, T0, T0);
	ev(3, MRC_PATH_EV_REPLY, T0, T0 - MS);
	ev(4, MRC_PATH_EV_RAIL_DOWN, T0, T0);
	ev(5, MRC_PATH_EV_REPLY, T0, T0 - MS);
	ev(6, MRC_PATH_EV_DENY, T0, T0);
	ev(7, MRC_PATH_EV_REPLY, T0, T0 - MS);
	ev(9, MRC_PATH_EV_REPLY, T0, T0 - MS);
	CHECK(mrc_sched_count(ptr, 10, MRC_PATH_ACTIVE) == 5, "count %u",
	      mrc_sched_count(ptr, 10, MRC_PATH_ACTIVE));
	for (k = 0; k < ARRAY_SIZE(picks); k++) {
		mrc_sched_init(&s);
		CHECK(run(&s, 10, picks[k], cnt, T0) == 0, "none");
		check_fair(cnt, 10, "mixed states");
	}
}

static void rr__none_when_nothing_usable(void)
{
	struct mrc_sched s;
	unsigned int i;

	mrc_sched_init(&s);
	setup(NP, 0);		/* all probing */
	CHECK(pick(&s, NP, T0) == -EAGAIN, "probing paths used");
	for (i = 0; i < NP; i++)
		ev(i, MRC_PATH_EV_REPLY, T0, T0 - MS);
	for (i = 0; i < NP; i++)
		ev(i, i & 1 ? MRC_PATH_EV_RAIL_DOWN : MRC_PATH_EV_LOSS,
		   T0 + MS, T0 + MS);
	CHECK(pick(&s, NP, T0 + MS) == -EAGAIN, "dead/bad paths used");
	CHECK(pick(&s, 0, T0) == -EAGAIN, "no paths at all");
	memset(ptr, 0, sizeof(ptr));
	CHECK(pick(&s, NP, T0) == -EAGAIN, "NULL slots");
	/* The floor does not revive paths with no ACK since they left. */
	sp.min_active = NP;
	setup(NP, 0xffff);
	for (i = 0; i < NP; i++)
		ev(i, MRC_PATH_EV_LOSS, T0 + MS, T0 + MS);
	CHECK(pick(&s, NP, T0 + MS) == -EAGAIN, "floor used unacked paths");
	mrc_sched_params_default(&sp);
}

/* A path back in the spray set gets its turn at once, then its share. */
static void rr__returning_path_gets_traffic(void)
{
	unsigned int cnt[NP], i;
	struct mrc_sched s;
	int r, seen = 0;

	setup(8, 0xff);
	mrc_sched_init(&s);
	run(&s, 8, 3, cnt, T0);
	ev(5, MRC_PATH_EV_LOSS, T0 + MS, T0 + MS);
	CHECK(!run(&s, 8, 700, cnt, T0 + MS), "none");
	CHECK(cnt[5] == 0, "bad path got %u", cnt[5]);
	check_fair(cnt, 8, "7 active");
	ev(5, MRC_PATH_EV_REPLY, T0 + 3 * MS, T0 + 2 * MS);
	for (i = 0; i < 8 && !seen; i++) {
		r = pick(&s, 8, T0 + 3 * MS);
		seen = r == 5;
	}
	CHECK(seen, "returning path not picked within one round");
	run(&s, 8, 800, cnt, T0 + 3 * MS);
	check_fair(cnt, 8, "8 active again");
	CHECK(cnt[5] >= 99, "returning path got %u of 800", cnt[5]);
}

/* The path set shrinks under the cursor, and has NULL holes. */
static void rr__cursor_and_holes(void)
{
	unsigned int cnt[NP];
	struct mrc_sched s;
	int r;

	setup(NP, 0xffff);
	mrc_sched_init(&s);
	s.cursor = 15;
	CHECK(pick(&s, 4, T0) == 0, "cursor beyond n not wrapped");
	s.cursor = U32_MAX;
	CHECK(pick(&s, 4, T0) == 0, "cursor U32_MAX");
	CHECK(pick(&s, 1, T0) == 0 && pick(&s, 1, T0) == 0, "single path");
	ptr[1] = ptr[2] = NULL;
	mrc_sched_init(&s);
	run(&s, 4, 100, cnt, T0);
	CHECK(cnt[0] == 50 && cnt[3] == 50 && !cnt[1] && !cnt[2],
	      "holes: %u %u %u %u", cnt[0], cnt[1], cnt[2], cnt[3]);
	CHECK(mrc_sched_count(ptr, 4, MRC_PATH_ACTIVE) == 2, "count %u",
	      mrc_sched_count(ptr, 4, MRC_PATH_ACTIVE));
	sp.min_active = 4;		/* the floor counts over holes too */
	run(&s, 4, 100, cnt, T0);
	CHECK(cnt[0] == 50 && cnt[3] == 50, "floor with holes");
	mrc_sched_params_default(&sp);
	/* Wrap-around from the last slot. */
	s.cursor = 3;
	r = pick(&s, 4, T0);
	CHECK(r == 3, "pick %d", r);
	r = pick(&s, 4, T0);
	CHECK(r == 0, "wrap: pick %d", r);
}

static void pick__refuses_bad_input(void)
{
	struct mrc_sched s;

	setup(4, 0xf);
	mrc_sched_init(&s);
	sp.policy = MRC_SCHED_POLICY_NR;
	CHECK(pick(&s, 4, T0) == -EINVAL, "unknown policy");
	sp.policy = 1000;
	CHECK(pick(&s, 4, T0) == -EINVAL, "unknown policy");
	mrc_sched_params_default(&sp);
	CHECK(mrc_sched_pick(&s, &sp, ptr, (u32)INT_MAX + 1, T0) == -EINVAL,
	      "n > INT_MAX");
	CHECK(s.cursor == 0, "cursor moved on a refused pick");
}

/* Floor: off by default; on, it adds recently acked ASSUMED_BAD paths. */
static void floor__recently_acked_bad_paths(void)
{
	unsigned int cnt[NP];
	struct mrc_sched s;
	u64 t = T0 + 10 * MS;

	setup(4, 0xf);
	/* 0, 1 active; 2 lost a packet but later packets got acked;
	 * 3 lost a packet and nothing since (a cut rail).
	 */
	ev(2, MRC_PATH_EV_LOSS, t, t);
	ev(2, MRC_PATH_EV_ACK, t + 1 * MS, t - 1 * MS);
	ev(3, MRC_PATH_EV_ACK, t, t - 1 * MS);
	ev(3, MRC_PATH_EV_LOSS, t, t);

	mrc_sched_init(&s);
	run(&s, 4, 100, cnt, t + 2 * MS);
	CHECK(cnt[0] == 50 && cnt[1] == 50 && !cnt[2] && !cnt[3],
	      "floor off: %u %u %u %u", cnt[0], cnt[1], cnt[2], cnt[3]);

	sp.min_active = 3;
	CHECK(mrc_sched_candidate(&path[2], &sp, true, t + 2 * MS),
	      "acked-after-loss path not a candidate");
	CHECK(!mrc_sched_candidate(&path[3], &sp, true, t + 2 * MS),
	      "acked-before-loss path is a candidate");
	CHECK(!mrc_sched_candidate(&path[2], &sp, false, t + 2 * MS),
	      "candidate without the floor");
	CHECK(!mrc_sched_candidate(NULL, &sp, true, t), "NULL");
	mrc_sched_init(&s);
	run(&s, 4, 99, cnt, t + 2 * MS);
	CHECK(cnt[0] == 33 && cnt[1] == 33 && cnt[2] == 33 && !cnt[3],
	      "floor on: %u %u %u %u", cnt[0], cnt[1], cnt[2], cnt[3]);
	/* The ACK ages out after recent_ns (10 ms). */
	run(&s, 4, 100, cnt, t + 11 * MS);
	CHECK(!cnt[2], "stale ACK still counts: %u", cnt[2]);
	CHECK(run(&s, 4, 10, cnt, t + 1 * MS - 1) == 0 && !cnt[2],
	      "ACK from the future counted");
	/* Enough ACTIVE paths: the floor is not needed. */
	sp.min_active = 2;
	run(&s, 4, 100, cnt, t + 2 * MS);
	CHECK(!cnt[2], "floor used while at min_active: %u", cnt[2]);
	/* No ACTIVE path at all: the floor alone keeps the peer going. */
	sp.min_active = 1;
	ev(0, MRC_PATH_EV_RAIL_DOWN, t, t);
	ev(1, MRC_PATH_EV_RAIL_DOWN, t, t);
	run(&s, 4, 10, cnt, t + 2 * MS);
	CHECK(cnt[2] == 10, "floor alone: %u", cnt[2]);
	mrc_sched_params_default(&sp);
	CHECK(pick(&s, 4, t + 2 * MS) == -EAGAIN, "floor off: pick");
}

/* A realistic failover: a rail's 8 paths go, the other 8 carry all. */
static void rr__rail_failover(void)
{
	unsigned int cnt[NP], i;
	struct mrc_sched s;

	setup(NP, 0xffff);
	mrc_sched_init(&s);
	run(&s, NP, 5, cnt, T0);
	for (i = 0; i < NP; i += 2)	/* rail 0: even slots */
		ev(i, MRC_PATH_EV_RAIL_DOWN, T0 + MS, 0);
	run(&s, NP, 800, cnt, T0 + MS);
	for (i = 0; i < NP; i++)
		CHECK(cnt[i] == (i & 1 ? 100u : 0u), "path %u: %u", i, cnt[i]);
	for (i = 0; i < NP; i += 2) {
		ev(i, MRC_PATH_EV_RAIL_UP, T0 + 2 * MS, 0);
		ev(i, MRC_PATH_EV_REPLY, T0 + 3 * MS, T0 + 2 * MS);
	}
	run(&s, NP, 1600, cnt, T0 + 3 * MS);
	for (i = 0; i < NP; i++)
		CHECK(cnt[i] == 100, "back: path %u: %u", i, cnt[i]);
}

/* ---------------------------------------------------------------- */

static const struct tap_test tests[] = {
#define T(f) { #f, f }
	T(params__defaults_and_check),
	T(rr__cycles_in_order),
	T(rr__fair_all_active),
	T(rr__skips_non_active),
	T(rr__none_when_nothing_usable),
	T(rr__returning_path_gets_traffic),
	T(rr__cursor_and_holes),
	T(pick__refuses_bad_input),
	T(floor__recently_acked_bad_paths),
	T(rr__rail_failover),
#undef T
};

int main(void)
{
	mrc_path_params_default(&pp);
	mrc_sched_params_default(&sp);
	return tap_run(tests, ARRAY_SIZE(tests));
}
