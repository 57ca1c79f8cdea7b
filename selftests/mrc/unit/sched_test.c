// SPDX-License-Identifier: GPL-2.0
/*
 * sched_test.c - user-space unit tests of mrc/core/sched.c (path scheduler).
 *
 * Output is TAP 13; the exit status is 0 only if every test passed.
 *   make -C selftests/mrc/unit run
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../../mrc/core/sched.h"
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

static int sel(struct mrc_sched *s, unsigned int n, u32 cls, u32 len, u64 now,
	       struct mrc_sched_res *res)
{
	return mrc_sched_select(s, &sp, ptr, n, cls, len, len, now, res);
}

static void params__weights_classes_explore(void)
{
	struct mrc_sched_params q;
	const char *why = NULL;
	unsigned int i;

	mrc_sched_params_default(&q);
	for (i = 0; i < MRC_SCHED_MAX_RAILS; i++)
		CHECK(q.weight[i] == MRC_SCHED_WEIGHT_DEF, "weight %u", i);
	for (i = 0; i < MRC_SCHED_CLASS_NR; i++)
		CHECK(q.class_rails[i] == MRC_SCHED_RAILS_ALL, "class %u", i);
	CHECK(q.explore_every == 128 && q.explore_ns == 50000000U, "explore");
	q.weight[5] = 101;
	CHECK(mrc_sched_params_check(&q, &why) == -EINVAL && why, "weight");
	q.weight[5] = 0;
	CHECK(!mrc_sched_params_check(&q, &why), "weight 0: %s", why);
	q.class_rails[MRC_SCHED_CLASS_BULK] = 0;
	why = NULL;
	CHECK(mrc_sched_params_check(&q, &why) == -EINVAL && why, "no rail");
	q.class_rails[MRC_SCHED_CLASS_BULK] = 1ULL << 5;
	why = NULL;
	CHECK(mrc_sched_params_check(&q, &why) == -EINVAL && why,
	      "only weight-0 rails");
	q.class_rails[MRC_SCHED_CLASS_BULK] = (1ULL << 5) | (1ULL << 63);
	CHECK(!mrc_sched_params_check(&q, &why), "rails 5, 63: %s", why);
	q.explore_ns = MRC_SCHED_EXPLORE_MAX_NS + 1;
	why = NULL;
	CHECK(mrc_sched_params_check(&q, &why) == -EINVAL && why, "explore");
	q.explore_ns = 0;
	q.explore_every = 0;
	CHECK(!mrc_sched_params_check(&q, &why), "explore off: %s", why);
	q.policy = MRC_SCHED_LOAD_AWARE;
	CHECK(!mrc_sched_params_check(&q, &why), "load-aware: %s", why);
}

static void names__policies_and_classes(void)
{
	static const char * const pol[] = { "round-robin", "min-inflight",
		"min-latency", "load-aware" };
	static const char * const cls[] = { "default", "latency", "bulk",
		"background" };
	unsigned int i;

	CHECK(ARRAY_SIZE(pol) == MRC_SCHED_POLICY_NR, "policies");
	CHECK(ARRAY_SIZE(cls) == MRC_SCHED_CLASS_NR, "classes");
	for (i = 0; i < MRC_SCHED_POLICY_NR; i++) {
		CHECK(!strcmp(mrc_sched_policy_name(i), pol[i]), "%u", i);
		CHECK(mrc_sched_policy_parse(pol[i]) == (int)i, "%s", pol[i]);
	}
	for (i = 0; i < MRC_SCHED_CLASS_NR; i++) {
		CHECK(!strcmp(mrc_sched_class_name(i), cls[i]), "%u", i);
		CHECK(mrc_sched_class_parse(cls[i]) == (int)i, "%s", cls[i]);
	}
	CHECK(!mrc_sched_class_name(MRC_SCHED_CLASS_NR), "class NR");
	CHECK(mrc_sched_policy_parse("fastest") == -EINVAL, "parse");
	CHECK(mrc_sched_policy_parse("") == -EINVAL, "parse empty");
	CHECK(mrc_sched_class_parse("Bulk") == -EINVAL, "parse case");
}

/* The documented formulas, value by value. */
static void cost__formulas(void)
{
	struct mrc_path *p = &path[0];

	setup(1, 0x1);			/* one sample: srtt = last = 1 ms */
	CHECK(p->rtt.srtt_ns == 1000000, "srtt %u", p->rtt.srtt_ns);
	/* Q(1 ms) = (1000000 >> 10) + 1 = 977 -> 3 bits: 896 */
	CHECK(mrc_sched_cost(MRC_SCHED_MIN_LATENCY, p, 0) == 896, "Q %llu",
	      (unsigned long long)mrc_sched_cost(MRC_SCHED_MIN_LATENCY, p, 0));
	CHECK(mrc_sched_cost(MRC_SCHED_ROUND_ROBIN, p, 4096) == 0, "rr");
	CHECK(mrc_sched_cost(MRC_SCHED_MIN_INFLIGHT, p, 0) == 1, "B min 1");
	CHECK(mrc_sched_cost(MRC_SCHED_MIN_INFLIGHT, p, 4096) == 4096, "B");
	mrc_path_inflight_add(p, 2, 8192);
	CHECK(mrc_sched_cost(MRC_SCHED_MIN_INFLIGHT, p, 4096) == 12288, "B");
	/* load-aware: the load, then Q(R) below it */
	CHECK(mrc_sched_cost(MRC_SCHED_LOAD_AWARE, p, 4096) ==
	      (12288ULL << MRC_SCHED_RTT_SHIFT | 896), "load-aware");
	/* A lower latest sample counts at once: 8 ms x3 then 2 ms. */
	mrc_rtt_update(&p->rtt, 8000000);
	mrc_rtt_update(&p->rtt, 8000000);
	mrc_rtt_update(&p->rtt, 8000000);
	mrc_rtt_update(&p->rtt, 2000000);
	CHECK(p->rtt.srtt_ns > 2000000 && p->rtt.last_ns == 2000000, "rtt");
	/* Q(2 ms) = 1954 -> 1792 */
	CHECK(mrc_sched_cost(MRC_SCHED_MIN_LATENCY, p, 0) == 1792, "Q %llu",
	      (unsigned long long)mrc_sched_cost(MRC_SCHED_MIN_LATENCY, p, 0));
	/* Losses since the last ACK: x (1 + L), L capped at 7. */
	p->consec_loss = 2;
	CHECK(mrc_sched_cost(MRC_SCHED_LOAD_AWARE, p, 4096) ==
	      (12288ULL * 3 << MRC_SCHED_RTT_SHIFT | 1792), "loss 2");
	p->consec_loss = U32_MAX;
	CHECK(mrc_sched_cost(MRC_SCHED_LOAD_AWARE, p, 4096) ==
	      (12288ULL * 8 << MRC_SCHED_RTT_SHIFT | 1792), "loss capped");
	/* Bounds: B capped at U32_MAX, no sample -> 10 ms. */
	p->inflight_bytes = U64_MAX - 1;
	CHECK(mrc_sched_cost(MRC_SCHED_MIN_INFLIGHT, p, U32_MAX) == U32_MAX,
	      "B cap");
	p->inflight_bytes = U32_MAX - 10ULL;
	CHECK(mrc_sched_cost(MRC_SCHED_MIN_INFLIGHT, p, 100) == U32_MAX,
	      "B cap sum");
	mrc_rtt_init(&p->rtt);
	/* Q(10 ms) = 9766 -> 8192 */
	CHECK(mrc_sched_cost(MRC_SCHED_MIN_LATENCY, p, 0) == 8192, "unknown");
	p->rtt.samples = 1;
	p->rtt.srtt_ns = p->rtt.last_ns = MRC_RTT_MAX_NS;
	CHECK(mrc_sched_cost(MRC_SCHED_LOAD_AWARE, p, 1) <
	      (1ULL << 56), "largest cost %llu",
	      (unsigned long long)mrc_sched_cost(MRC_SCHED_LOAD_AWARE, p, 1));
	/* The largest load and RTT: capped, and times a weight of 255 fits */
	p->inflight_bytes = U32_MAX;
	p->consec_loss = U32_MAX;
	CHECK(mrc_sched_cost(MRC_SCHED_LOAD_AWARE, p, U32_MAX) ==
	      (MRC_SCHED_LOAD_MAX << MRC_SCHED_RTT_SHIFT |
	       mrc_sched_cost(MRC_SCHED_MIN_LATENCY, p, 0)) &&
	      mrc_sched_cost(MRC_SCHED_LOAD_AWARE, p, U32_MAX) <
	      U64_MAX / 255, "capped cost %llu",
	      (unsigned long long)mrc_sched_cost(MRC_SCHED_LOAD_AWARE, p,
						 U32_MAX));
	p->consec_loss = 0;
	p->inflight_bytes = 0;
	p->rtt.srtt_ns = p->rtt.last_ns = 0;
	CHECK(mrc_sched_cost(MRC_SCHED_MIN_LATENCY, p, 0) == 1, "Q(0)");
}

/* Weighted round-robin: exact shares per cycle; weight 0 never. */
static void rr__weights_exact(void)
{
	unsigned int cnt[NP], i;
	struct mrc_sched s;

	setup(8, 0xff);			/* rail 0: even slots, 1: odd */
	sp.weight[0] = 100;
	sp.weight[1] = 50;
	mrc_sched_init(&s);
	CHECK(!run(&s, 8, 6000, cnt, T0), "none");	/* 10 cycles of 600 */
	for (i = 0; i < 8; i++)
		CHECK(cnt[i] == (i & 1 ? 500u : 1000u), "path %u: %u", i,
		      cnt[i]);
	/*
	 * 33:100 with a count that is no whole number of cycles: off the
	 * exact ratio by less than one cycle (33 and 100 picks).
	 */
	sp.weight[1] = 33;
	mrc_sched_init(&s);
	run(&s, 8, 10000, cnt, T0);
	for (i = 1; i < 8; i += 2)
		CHECK(cnt[i] * 100 + 3300 >= cnt[i - 1] * 33 &&
		      cnt[i] * 100 <= cnt[i - 1] * 33 + 3300,
		      "33:100 -> %u:%u", cnt[i], cnt[i - 1]);
	/* Light weights only: rounds above the heaviest are skipped. */
	sp.weight[0] = 2;
	sp.weight[1] = 1;
	mrc_sched_init(&s);
	run(&s, 8, 1200, cnt, T0);
	for (i = 0; i < 8; i++)
		CHECK(cnt[i] == (i & 1 ? 100u : 200u), "2:1 path %u: %u", i,
		      cnt[i]);
	sp.weight[0] = 0;
	mrc_sched_init(&s);
	run(&s, 8, 100, cnt, T0);
	for (i = 0; i < 8; i++)
		CHECK(cnt[i] == (i & 1 ? 25u : 0u), "weight 0: path %u: %u",
		      i, cnt[i]);
	sp.weight[1] = 0;		/* every rail "never" */
	CHECK(pick(&s, 8, T0) == -EAGAIN, "weight 0 everywhere");
	mrc_sched_params_default(&sp);
}

/* Rails beyond MRC_SCHED_MAX_RAILS: default weight, only in "all". */
static void weight__high_rail_ids(void)
{
	struct mrc_sched_res res;
	struct mrc_sched s;

	setup(2, 0x3);
	path[0].local_rail = 64;
	path[1].local_rail = 70000;
	CHECK(mrc_sched_weight(&sp, &path[0]) == MRC_SCHED_WEIGHT_DEF &&
	      mrc_sched_weight(&sp, &path[1]) == MRC_SCHED_WEIGHT_DEF, "w");
	CHECK(mrc_sched_in_class(&sp, MRC_SCHED_CLASS_BULK, &path[0]), "all");
	sp.class_rails[MRC_SCHED_CLASS_BULK] = U64_MAX >> 1;
	CHECK(!mrc_sched_in_class(&sp, MRC_SCHED_CLASS_BULK, &path[0]),
	      "rail 64 in a set");
	mrc_sched_init(&s);
	CHECK(sel(&s, 2, MRC_SCHED_CLASS_BULK, 0, T0, &res) == 0 &&
	      res.flags == (MRC_SCHED_F_FALLBACK |
			    MRC_SCHED_F_FALLBACK_CHANGED), "fallback %x",
	      res.flags);
	mrc_sched_params_default(&sp);
}

/* Class rail sets: isolation; fallback flagged once per transition. */
static void class__isolation_and_fallback_flags(void)
{
	struct mrc_sched_res res;
	struct mrc_sched s;
	unsigned int i, pol;
	int r;

	for (pol = 0; pol < MRC_SCHED_POLICY_NR; pol++) {
		setup(8, 0xff);
		sp.policy = pol;
		sp.class_rails[MRC_SCHED_CLASS_LATENCY] = 1ULL << 1;
		sp.class_rails[MRC_SCHED_CLASS_BACKGROUND] = 1ULL << 0;
		mrc_sched_init(&s);
		for (i = 0; i < 50; i++) {
			r = sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0, &res);
			CHECK(r >= 0 && (r & 1) && !res.flags,
			      "%u: latency pick %d flags %x", pol, r,
			      res.flags);
			r = sel(&s, 8, MRC_SCHED_CLASS_BACKGROUND, 100, T0,
				&res);
			CHECK(r >= 0 && !(r & 1) && !res.flags,
			      "%u: background pick %d", pol, r);
		}
		/* Rail 1's paths: one dead, the others ASSUMED_BAD. */
		ev(1, MRC_PATH_EV_RAIL_DOWN, T0 + MS, T0 + MS);
		for (i = 3; i < 8; i += 2)
			ev(i, MRC_PATH_EV_LOSS, T0 + MS, T0 + MS);
		r = sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + MS, &res);
		CHECK(r >= 0 && !(r & 1) && res.flags ==
		      (MRC_SCHED_F_FALLBACK | MRC_SCHED_F_FALLBACK_CHANGED),
		      "%u: first fallback %d flags %x", pol, r, res.flags);
		r = sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + MS, &res);
		CHECK(r >= 0 && !(r & 1) && res.flags == MRC_SCHED_F_FALLBACK,
		      "%u: second fallback flags %x", pol, res.flags);
		/* Other classes are not affected. */
		r = sel(&s, 8, MRC_SCHED_CLASS_BACKGROUND, 100, T0 + MS, &res);
		CHECK(r >= 0 && !res.flags, "%u: background %x", pol,
		      res.flags);
		/* Nothing anywhere: -EAGAIN, fallback state kept. */
		for (i = 0; i < 8; i += 2)
			ev(i, MRC_PATH_EV_DENY, T0 + MS, T0 + MS);
		memset(&res, 0xa5, sizeof(res));
		CHECK(sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + MS, &res) ==
		      -EAGAIN && res.flags == 0xa5, "%u: nothing", pol);
		for (i = 0; i < 8; i += 2)
			ev(i, MRC_PATH_EV_ALLOW, T0 + MS, T0 + MS);
		ev(0, MRC_PATH_EV_REPLY, T0 + 2 * MS, T0 + MS);
		r = sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + 2 * MS, &res);
		CHECK(r == 0 && res.flags == MRC_SCHED_F_FALLBACK, "%u: %d %x",
		      pol, r, res.flags);
		/* A class path answers a probe: back, flagged once. */
		ev(5, MRC_PATH_EV_REPLY, T0 + 3 * MS, T0 + 2 * MS);
		r = sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + 3 * MS, &res);
		CHECK(r == 5 && res.flags == MRC_SCHED_F_FALLBACK_CHANGED,
		      "%u: back %d flags %x", pol, r, res.flags);
		r = sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + 3 * MS, &res);
		CHECK(r == 5 && !res.flags, "%u: %d flags %x", pol, r,
		      res.flags);
		CHECK(s.fallbacks == 3, "%u: fallbacks %llu", pol,
		      (unsigned long long)s.fallbacks);
		/* Weight 0 on the class's rail: fallback, never the rail. */
		sp.weight[1] = 0;
		r = sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + 3 * MS, &res);
		CHECK(r == 0 && (res.flags & MRC_SCHED_F_FALLBACK), "%u: %d",
		      pol, r);
		mrc_sched_params_default(&sp);
	}
}

/*
 * Fallback grace: a class whose rails still have live paths (here
 * ASSUMED_BAD after a loss) waits instead of falling back, until it has
 * had no candidate for fallback_grace_ns; rails that die fall back at
 * once; a class path back in service ends the wait.
 */
static void class__fallback_grace(void)
{
	struct mrc_sched_res res;
	struct mrc_sched s;
	unsigned int i, pol;
	int r;

	for (pol = 0; pol < MRC_SCHED_POLICY_NR; pol++) {
		setup(8, 0xff);
		sp.policy = pol;
		sp.class_rails[MRC_SCHED_CLASS_LATENCY] = 1ULL << 1;
		sp.fallback_grace_ns = 100 * MS;
		mrc_sched_init(&s);
		for (i = 1; i < 8; i += 2)
			ev(i, MRC_PATH_EV_LOSS, T0 + MS, T0 + MS);
		memset(&res, 0xa5, sizeof(res));
		r = sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + MS, &res);
		CHECK(r == -EAGAIN && res.flags == 0xa5, "%u: waits %d", pol,
		      r);
		CHECK(sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + 100 * MS,
			  &res) == -EAGAIN, "%u: still within the grace", pol);
		/* Other classes are not held up. */
		r = sel(&s, 8, MRC_SCHED_CLASS_BULK, 100, T0 + 100 * MS, &res);
		CHECK(r >= 0 && !(r & 1) && !res.flags, "%u: bulk %d", pol, r);
		r = sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + 101 * MS,
			&res);
		CHECK(r >= 0 && !(r & 1) && res.flags ==
		      (MRC_SCHED_F_FALLBACK | MRC_SCHED_F_FALLBACK_CHANGED),
		      "%u: grace over: fallback %d %x", pol, r, res.flags);
		/* A class path answers: back at once, grace reset. */
		ev(3, MRC_PATH_EV_REPLY, T0 + 102 * MS, T0 + 101 * MS);
		r = sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + 102 * MS,
			&res);
		CHECK(r == 3 && res.flags == MRC_SCHED_F_FALLBACK_CHANGED,
		      "%u: back %d %x", pol, r, res.flags);
		CHECK(!s.nocand_ns[MRC_SCHED_CLASS_LATENCY], "%u: reset", pol);
		/* The class's rail dies: fallback at once. */
		for (i = 1; i < 8; i += 2)
			ev(i, MRC_PATH_EV_RAIL_DOWN, T0 + 103 * MS,
			   T0 + 103 * MS);
		r = sel(&s, 8, MRC_SCHED_CLASS_LATENCY, 100, T0 + 103 * MS,
			&res);
		CHECK(r >= 0 && !(r & 1) && (res.flags & MRC_SCHED_F_FALLBACK),
		      "%u: dead rail: fallback %d %x", pol, r, res.flags);
		mrc_sched_params_default(&sp);
	}
	mrc_sched_params_default(&sp);
	sp.fallback_grace_ns = MRC_SCHED_EXPLORE_MAX_NS + 1;
	{
		const char *why = NULL;

		CHECK(mrc_sched_params_check(&sp, &why) == -EINVAL && why,
		      "grace above 4 s refused");
	}
	mrc_sched_params_default(&sp);
}

static void select__refuses_bad_input(void)
{
	struct mrc_sched_res res;
	struct mrc_sched s, s0;

	setup(4, 0xf);
	mrc_sched_init(&s);
	s.cursor = 2;
	s0 = s;
	memset(&res, 0x5a, sizeof(res));
	CHECK(sel(&s, 4, MRC_SCHED_CLASS_NR, 0, T0, &res) == -EINVAL,
	      "class NR");
	CHECK(sel(&s, 4, U32_MAX, 0, T0, &res) == -EINVAL, "class");
	sp.policy = MRC_SCHED_POLICY_NR;
	CHECK(sel(&s, 4, 0, 0, T0, &res) == -EINVAL, "policy");
	mrc_sched_params_default(&sp);
	CHECK(!memcmp(&s, &s0, sizeof(s)) && res.flags == 0x5a &&
	      res.path == 0x5a5a5a5a, "state changed on -EINVAL");
	/* A pick reports its policy tag and counts under it. */
	sp.policy = MRC_SCHED_MIN_INFLIGHT;
	CHECK(sel(&s, 4, 0, 10, T0, &res) == 2 && res.path == 2 &&
	      res.policy == MRC_SCHED_MIN_INFLIGHT && !res.flags,
	      "res %u %u %x", res.path, res.policy, res.flags);
	CHECK(s.picks[MRC_SCHED_MIN_INFLIGHT] == 1 &&
	      !s.picks[MRC_SCHED_ROUND_ROBIN], "picks");
	mrc_sched_params_default(&sp);
	sp.min_active = 8;
	CHECK(sel(&s, 4, 0, 10, T0, &res) >= 0 &&
	      res.flags == MRC_SCHED_F_FLOOR, "floor flag %x", res.flags);
	mrc_sched_params_default(&sp);
}

/* Cost policies: least cost per weight wins; ties take turns. */
static void best__ties_rotate_and_weights_scale(void)
{
	unsigned int cnt[NP], i, pol;
	struct mrc_sched_res res;
	struct mrc_sched s;

	for (pol = 1; pol < MRC_SCHED_POLICY_NR; pol++) {
		setup(4, 0xf);
		sp.policy = pol;
		sp.explore_every = 0;
		mrc_sched_init(&s);
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < 400; i++) {
			int r = sel(&s, 4, 0, 4096, T0, &res);

			if (r >= 0)
				cnt[r]++;
		}
		for (i = 0; i < 4; i++)
			CHECK(cnt[i] == 100, "%u: tie path %u: %u", pol, i,
			      cnt[i]);
		/* Path 2 loaded: min-inflight, load-aware avoid it. */
		mrc_path_inflight_add(&path[2], 1, 4096);
		mrc_sched_init(&s);
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < 300; i++) {
			int r = sel(&s, 4, 0, 4096, T0, &res);

			if (r >= 0)
				cnt[r]++;
		}
		CHECK(pol == MRC_SCHED_MIN_LATENCY ? cnt[2] == 75 : !cnt[2],
		      "%u: loaded path %u", pol, cnt[2]);
		/* Double weight offsets double inflight. */
		mrc_path_inflight_add(&path[0], 1, 4096);
		sp.weight[0] = 100;
		sp.weight[1] = 50;
		CHECK(sel(&s, 2, 0, 4096, T0, &res) == 0 || pol ==
		      MRC_SCHED_MIN_LATENCY, "%u: %u", pol, res.path);
		mrc_sched_params_default(&sp);
	}
}

/*
 * Exploration: a stale path (silent explore_ns, nothing in flight) gets
 * one pick per explore_every, and only under min-latency/load-aware.
 */
static void best__exploration_budget(void)
{
	struct mrc_sched_res res;
	unsigned int i, pol, ex, got;
	struct mrc_sched s;
	u64 t = T0 + 20 * MS;

	for (pol = 0; pol < MRC_SCHED_POLICY_NR; pol++) {
		setup(4, 0xf);
		sp.policy = pol;
		sp.explore_every = 8;
		/* Silent for 20 ms: not stale under the default 50 ms. */
		mrc_sched_init(&s);
		for (i = 0; i < 16; i++)
			CHECK(sel(&s, 4, 0, 100, t, &res) >= 0 &&
			      !(res.flags & MRC_SCHED_F_EXPLORE),
			      "%u: explored before explore_ns", pol);
		sp.explore_ns = 10 * MS;
		/* Path 3 slow (9 ms); 0..2 acked recently. */
		mrc_rtt_update(&path[3].rtt, 9000000);
		mrc_rtt_update(&path[3].rtt, 9000000);
		for (i = 0; i < 3; i++)
			ev(i, MRC_PATH_EV_ACK, t, t - MS);
		mrc_sched_init(&s);
		ex = got = 0;
		for (i = 0; i < 80; i++) {
			if (sel(&s, 4, 0, 100, t, &res) == 3)
				got++;
			if (res.flags & MRC_SCHED_F_EXPLORE) {
				ex++;
				CHECK(res.path == 3, "explored %u", res.path);
			}
		}
		if (pol == MRC_SCHED_MIN_LATENCY ||
		    pol == MRC_SCHED_LOAD_AWARE)
			CHECK(ex == 10 && got == 10 && s.explores == 10,
			      "%u: explored %u, got %u", pol, ex, got);
		else
			CHECK(!ex && got == 20, "%u: explored %u, got %u",
			      pol, ex, got);
		/* Something in flight on it: not stale. */
		mrc_path_inflight_add(&path[3], 1, 100);
		mrc_sched_init(&s);
		for (i = 0; i < 80; i++)
			CHECK(sel(&s, 4, 0, 100, t, &res) != 3 ||
			      pol < MRC_SCHED_MIN_LATENCY, "%u: explored busy",
			      pol);
		mrc_sched_params_default(&sp);
	}
}

/* ---------------------------------------------------------------- */

/*
 * Load-aware counts the rail queue: paths i & 1 are rails 0 and 1, rail 0
 * has the lower RTT.  A few packets ahead on rail 0 leave the next one
 * on rail 0 (the RTT decides); eight ahead send it to rail 1, and a burst
 * then evens out the rails' bytes in flight instead of filling rail 0's
 * idle paths first.
 */
static void best__rail_queue_counts(void)
{
	u64 r[2] = { 0, 0 };
	struct mrc_sched_res res;
	struct mrc_sched s;
	unsigned int i, k;
	int p;

	setup(NP, 0xffff);
	for (i = 1; i < NP; i += 2)
		for (k = 0; k < 8; k++)
			mrc_rtt_update(&path[i].rtt, 2 * MS);
	CHECK(mrc_sched_cost(MRC_SCHED_MIN_LATENCY, &path[1], 0) >
	      mrc_sched_cost(MRC_SCHED_MIN_LATENCY, &path[0], 0),
	      "rail 1 slower");
	sp.policy = MRC_SCHED_LOAD_AWARE;
	sp.explore_every = 0;
	mrc_sched_init(&s);

	/* One packet ahead (within MRC_SCHED_RAIL_FREE): still rail 0. */
	mrc_path_inflight_add(&path[0], 1, 4096);
	p = sel(&s, NP, 0, 4096, T0, &res);
	CHECK(p >= 0 && !(p & 1), "1 ahead: path %d", p);

	/* Eight ahead: rail 1, although its RTT is higher. */
	mrc_path_inflight_add(&path[0], 7, 7 * 4096);
	mrc_sched_init(&s);
	p = sel(&s, NP, 0, 4096, T0, &res);
	CHECK(p >= 0 && (p & 1), "8 ahead: path %d", p);

	/*
	 * A burst of 16 evens the rails out, to within the two packets by
	 * which a path's own bytes (B_i) tip the balance.
	 */
	r[0] = 8 * 4096;
	for (i = 0; i < 16; i++) {
		p = sel(&s, NP, 0, 4096, T0, &res);
		if (p < 0)
			break;
		mrc_path_inflight_add(&path[p], 1, 4096);
		r[p & 1] += 4096;
	}
	CHECK(i == 16, "burst picks %u", i);
	CHECK(r[0] + 8192 >= r[1] && r[1] + 8192 >= r[0],
	      "rails %llu / %llu", (unsigned long long)r[0],
	      (unsigned long long)r[1]);
	/* With the rail's bytes: S_i only beyond F (MRC_SCHED_RAIL_FREE). */
	CHECK(mrc_sched_cost_rail(MRC_SCHED_LOAD_AWARE, &path[2], 4096,
				  MRC_SCHED_RAIL_FREE + 8192,
				  MRC_SCHED_RAIL_FREE) ==
	      mrc_sched_cost(MRC_SCHED_LOAD_AWARE, &path[2], 4096) +
	      (8192ULL << MRC_SCHED_RTT_SHIFT), "S_i");
	mrc_sched_params_default(&sp);
}

/*
 * The rail bytes load-aware does not count depend on the message: rail 0
 * faster, four packets of a 16 KiB message all go to rail 0 (it goes
 * whole to the fastest rail), those of a 256 KiB message spread over
 * both rails from the second (a credit-paced sender has that few in
 * flight).
 */
static void best__long_message_spreads_at_once(void)
{
	static const u32 msg_len[] = { 16384, 262144 };
	struct mrc_sched_res res;
	struct mrc_sched s;
	unsigned int i, k, j, r[2];
	int p;

	CHECK(mrc_sched_rail_free(16384) == MRC_SCHED_RAIL_FREE &&
	      mrc_sched_rail_free(16385) == 0, "F");
	for (j = 0; j < ARRAY_SIZE(msg_len); j++) {
		setup(NP, 0xffff);
		for (i = 1; i < NP; i += 2)
			for (k = 0; k < 8; k++)
				mrc_rtt_update(&path[i].rtt, 2 * MS);
		sp.policy = MRC_SCHED_LOAD_AWARE;
		sp.explore_every = 0;
		mrc_sched_init(&s);
		r[0] = r[1] = 0;
		for (i = 0; i < 4; i++) {
			p = mrc_sched_select(&s, &sp, ptr, NP, 0, 4096,
					     msg_len[j], T0, &res);
			if (p < 0)
				break;
			mrc_path_inflight_add(&path[p], 1, 4096);
			r[p & 1]++;
		}
		CHECK(i == 4, "%u: picks %u", msg_len[j], i);
		if (j == 0)
			CHECK(r[0] == 4 && r[1] == 0, "%u: rails %u / %u",
			      msg_len[j], r[0], r[1]);
		else
			CHECK(r[0] == 2 && r[1] == 2, "%u: rails %u / %u",
			      msg_len[j], r[0], r[1]);
	}
	mrc_sched_params_default(&sp);
}

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
	T(params__weights_classes_explore),
	T(names__policies_and_classes),
	T(cost__formulas),
	T(rr__weights_exact),
	T(weight__high_rail_ids),
	T(class__isolation_and_fallback_flags),
	T(class__fallback_grace),
	T(select__refuses_bad_input),
	T(best__ties_rotate_and_weights_scale),
	T(best__exploration_budget),
	T(best__rail_queue_counts),
	T(best__long_message_spreads_at_once),
#undef T
};

int main(void)
{
	mrc_path_params_default(&pp);
	mrc_sched_params_default(&sp);
	return tap_run(tests, ARRAY_SIZE(tests));
}
