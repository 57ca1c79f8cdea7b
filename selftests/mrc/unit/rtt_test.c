// SPDX-License-Identifier: GPL-2.0
/*
 * rtt_test.c - user-space unit tests of mrc/core/rtt.c (RTT estimator, RTO).
 *
 * Output is TAP 13; the exit status is 0 only if every test passed.
 *   make -C selftests/mrc/unit run
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../../mrc/core/rtt.h"
#include "tap.h"

#define US	1000ULL
#define MS	1000000ULL
#define ULL(x)	((unsigned long long)(x))

static struct mrc_rtt_params defp(void)
{
	struct mrc_rtt_params p;

	mrc_rtt_params_default(&p);
	return p;
}

static u64 absdiff(u64 a, u64 b)
{
	return a > b ? a - b : b - a;
}

/* ---------------------------------------------------------------- */
/* parameters                                                        */
/* ---------------------------------------------------------------- */

static void params__defaults(void)
{
	struct mrc_rtt_params p = defp();
	const char *why = NULL;

	CHECK(mrc_rtt_params_check(&p, &why) == 0, "defaults refused: %s", why);
	CHECK(p.rto_init_ns == 10 * MS, "rto_init %u", p.rto_init_ns);
	CHECK(p.rto_min_ns == 4 * MS, "rto_min %u", p.rto_min_ns);
	CHECK(p.rto_max_ns == 40 * MS, "rto_max %u", p.rto_max_ns);
	CHECK(p.var_floor_ns == 1 * MS, "var_floor %u", p.var_floor_ns);
	CHECK(p.max_backoff == 3, "max_backoff %u", p.max_backoff);
	/* The point of the defaults: a failed path is seen well < 50 ms. */
	CHECK(p.rto_max_ns < 50 * MS, "rto_max %u", p.rto_max_ns);
}

static void params__check_refuses(void)
{
	static const struct {
		const char *what;
		struct mrc_rtt_params p;
	} bad[] = {
		{ "rto_min 0",		{ 10 * MS, 0, 40 * MS, MS, 3 } },
		{ "min > max",		{ 10 * MS, 50 * MS, 40 * MS, MS, 3 } },
		{ "max > 4 s",		{ 10 * MS, 4 * MS, 4001 * MS, MS, 3 } },
		{ "init < min",		{ 3 * MS, 4 * MS, 40 * MS, MS, 3 } },
		{ "init > max",		{ 41 * MS, 4 * MS, 40 * MS, MS, 3 } },
		{ "floor > max",	{ 10 * MS, 4 * MS, 40 * MS, 41 * MS, 3 } },
		{ "backoff > 16",	{ 10 * MS, 4 * MS, 40 * MS, MS, 17 } },
	};
	static const struct mrc_rtt_params good[] = {
		{ 1, 1, 1, 0, 0 },
		{ 1000 * MS, 1, 1000 * MS, 1000 * MS, 16 },
		{ 4 * MS, 4 * MS, 4 * MS, 0, 0 },
		/* the rto_max_ms knob's maximum, and the limit itself */
		{ 10 * MS, 4 * MS, 2000 * MS, MS, 16 },
		{ 10 * MS, 4 * MS, MRC_RTT_RTO_LIMIT_NS, MS, 16 },
	};
	const char *why;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		why = NULL;
		CHECK(mrc_rtt_params_check(&bad[i].p, &why) == -EINVAL && why,
		      "%s accepted", bad[i].what);
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		why = NULL;
		CHECK(mrc_rtt_params_check(&good[i], &why) == 0,
		      "good[%u] refused: %s", i, why);
	}
}

/* ---------------------------------------------------------------- */
/* update                                                            */
/* ---------------------------------------------------------------- */

static void init__zero(void)
{
	struct mrc_rtt r;
	struct mrc_rtt_params p = defp();

	memset(&r, 0xa5, sizeof(r));
	mrc_rtt_init(&r);
	CHECK(!mrc_rtt_valid(&r), "valid before a sample");
	CHECK(r.srtt_ns == 0 && r.rttvar_ns == 0 && r.backoff == 0,
	      "not zeroed");
	CHECK(mrc_rtt_rto(&r, &p) == p.rto_init_ns, "rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
}

static void update__first_sample(void)
{
	struct mrc_rtt r;

	mrc_rtt_init(&r);
	CHECK(mrc_rtt_update(&r, 3 * MS) == 0, "refused");
	CHECK(mrc_rtt_valid(&r), "not valid");
	CHECK(r.srtt_ns == 3 * MS, "srtt %u", r.srtt_ns);
	CHECK(r.rttvar_ns == 1500 * US, "rttvar %u", r.rttvar_ns);
	CHECK(r.last_ns == 3 * MS && r.min_ns == 3 * MS, "last %u min %u",
	      r.last_ns, r.min_ns);
	CHECK(r.samples == 1, "samples %u", r.samples);
}

/* RFC 6298 by hand: R1 = 800, R2 = 1600 (ns). */
static void update__rfc6298_arithmetic(void)
{
	struct mrc_rtt r;

	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 800);
	mrc_rtt_update(&r, 1600);
	/* rttvar = 3/4 * 400 + 1/4 * |800 - 1600| = 500 */
	CHECK(r.rttvar_ns == 500, "rttvar %u", r.rttvar_ns);
	/* srtt = 7/8 * 800 + 1/8 * 1600 = 900 */
	CHECK(r.srtt_ns == 900, "srtt %u", r.srtt_ns);
	mrc_rtt_update(&r, 100);
	/* rttvar = 375 + 800/4 = 575; srtt = 900 - 800/8 = 800 */
	CHECK(r.rttvar_ns == 575, "rttvar %u", r.rttvar_ns);
	CHECK(r.srtt_ns == 800, "srtt %u", r.srtt_ns);
	CHECK(r.min_ns == 100 && r.last_ns == 100, "min %u last %u",
	      r.min_ns, r.last_ns);
}

/*
 * A sample of an idle path (a keepalive's reply) under half of srtt (a
 * delay that went away) sets srtt to it; rttvar takes the drop as usual,
 * so the RTO does not collapse.  One at half or above, and any ACK's
 * sample, moves srtt by 1/8.
 */
static void update__idle_restart_below_half(void)
{
	struct mrc_rtt_params p = defp();
	struct mrc_rtt r;
	u64 rto;

	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 800);
	mrc_rtt_update(&r, 1600);	/* srtt 900, rttvar 500 */
	mrc_rtt_update_idle(&r, 449);
	/* rttvar = 375 + 451/4 = 487 */
	CHECK(r.srtt_ns == 449 && r.rttvar_ns == 487, "srtt %u rttvar %u",
	      r.srtt_ns, r.rttvar_ns);
	CHECK(r.min_ns == 449 && r.last_ns == 449 && r.samples == 3,
	      "min %u last %u samples %u", r.min_ns, r.last_ns, r.samples);

	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 800);
	mrc_rtt_update(&r, 1600);
	mrc_rtt_update_idle(&r, 450);	/* exactly half: the EWMA step */
	CHECK(r.srtt_ns == 900 - 450 / 8, "srtt %u", r.srtt_ns);

	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 800);
	mrc_rtt_update(&r, 1600);
	mrc_rtt_update(&r, 100);	/* an ACK's: RFC 6298 */
	CHECK(r.srtt_ns == 800, "srtt %u", r.srtt_ns);

	mrc_rtt_init(&r);
	mrc_rtt_update_idle(&r, 3 * MS);	/* a first sample as ever */
	CHECK(r.srtt_ns == 3 * MS && r.rttvar_ns == 1500 * US,
	      "srtt %u rttvar %u", r.srtt_ns, r.rttvar_ns);

	/* A path 6 ms slow for a while, then 1 ms again. */
	mrc_rtt_init(&r);
	while (r.samples < 50)
		mrc_rtt_update(&r, 6 * MS);
	CHECK(mrc_rtt_sample(&r, 10 * MS, 9 * MS, true) == 0, "sample");
	rto = mrc_rtt_rto(&r, &p);
	CHECK(r.srtt_ns == 1 * MS, "srtt %u", r.srtt_ns);
	/* rttvar ~ 5 ms / 4: the RTO stays above the old RTT. */
	CHECK(rto >= 6 * MS, "rto %llu", ULL(rto));
}

static void update__converges_on_constant(void)
{
	static const u64 rtts[] = { 1, 500 * US, 2 * MS, 5 * MS, 30 * MS };
	struct mrc_rtt_params p = defp();
	struct mrc_rtt r;
	unsigned int i, k;
	u64 exp;

	for (i = 0; i < ARRAY_SIZE(rtts); i++) {
		mrc_rtt_init(&r);
		for (k = 0; k < 200; k++)
			mrc_rtt_update(&r, rtts[i]);
		CHECK(absdiff(r.srtt_ns, rtts[i]) < 8, "R %llu: srtt %u",
		      ULL(rtts[i]), r.srtt_ns);
		CHECK(r.rttvar_ns < 8, "R %llu: rttvar %u", ULL(rtts[i]),
		      r.rttvar_ns);
		/* RTO = srtt + floor, clamped */
		exp = rtts[i] + p.var_floor_ns;
		if (exp < p.rto_min_ns)
			exp = p.rto_min_ns;
		if (exp > p.rto_max_ns)
			exp = p.rto_max_ns;
		CHECK(absdiff(mrc_rtt_rto(&r, &p), exp) < 8 + 32,
		      "R %llu: rto %llu, expected ~%llu", ULL(rtts[i]),
		      ULL(mrc_rtt_rto(&r, &p)), ULL(exp));
	}
}

/* A step from 1 ms to 5 ms and back. */
static void update__step_change(void)
{
	struct mrc_rtt_params p = defp();
	struct mrc_rtt r;
	u64 prev, bound, before_rto;
	unsigned int k;

	mrc_rtt_init(&r);
	for (k = 0; k < 100; k++)
		mrc_rtt_update(&r, 1 * MS);
	before_rto = mrc_rtt_rto(&r, &p);
	CHECK(before_rto == 4 * MS, "steady rto %llu", ULL(before_rto));

	prev = r.srtt_ns;
	bound = 4 * MS;			/* |srtt - 5 ms| bound, shrinks 7/8 */
	for (k = 0; k < 60; k++) {
		mrc_rtt_update(&r, 5 * MS);
		/* Moves monotonically toward the new value, never beyond. */
		CHECK(r.srtt_ns >= prev && r.srtt_ns <= 5 * MS,
		      "step %u: srtt %u after %llu", k, r.srtt_ns, ULL(prev));
		bound = bound * 7 / 8;
		CHECK(5 * MS - r.srtt_ns <= bound + 8,
		      "step %u: srtt %u, too slow (bound %llu)", k, r.srtt_ns,
		      ULL(bound));
		if (k == 0) {
			/* rttvar jumps at once: the RTO reacts at once. */
			CHECK(r.srtt_ns == 1500 * US, "srtt %u", r.srtt_ns);
			CHECK(r.rttvar_ns >= 1 * MS, "rttvar %u", r.rttvar_ns);
			CHECK(mrc_rtt_rto(&r, &p) >= 5 * MS,
			      "rto %llu did not react",
			      ULL(mrc_rtt_rto(&r, &p)));
		}
		prev = r.srtt_ns;
	}
	CHECK(5 * MS - r.srtt_ns < 50 * US, "srtt %u after 60", r.srtt_ns);
	/* 8 samples (one RTT's worth of a busy path) cover ~2/3 of a step. */
	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 1 * MS);
	for (k = 0; k < 8; k++)
		mrc_rtt_update(&r, 5 * MS);
	CHECK(r.srtt_ns > 3500 * US, "srtt %u after 8", r.srtt_ns);

	/* And back down, monotonically. */
	mrc_rtt_init(&r);
	for (k = 0; k < 100; k++)
		mrc_rtt_update(&r, 5 * MS);
	prev = r.srtt_ns;
	for (k = 0; k < 60; k++) {
		mrc_rtt_update(&r, 1 * MS);
		CHECK(r.srtt_ns <= prev && r.srtt_ns >= 1 * MS,
		      "down %u: srtt %u after %llu", k, r.srtt_ns, ULL(prev));
		prev = r.srtt_ns;
	}
	CHECK(r.srtt_ns - 1 * MS < 50 * US, "srtt %u", r.srtt_ns);
	CHECK(r.min_ns == 1 * MS, "min %u", r.min_ns);
}

static void update__refuses_above_max(void)
{
	struct mrc_rtt r, saved;

	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 2 * MS);
	mrc_rtt_timeout(&r, &(struct mrc_rtt_params){ 1, 1, 1, 0, 3 });
	saved = r;
	CHECK(mrc_rtt_update(&r, (u64)MRC_RTT_MAX_NS + 1) == -ERANGE,
	      "accepted max + 1");
	CHECK(mrc_rtt_update(&r, U64_MAX) == -ERANGE, "accepted U64_MAX");
	CHECK(!memcmp(&r, &saved, sizeof(r)), "refused sample changed state");
	CHECK(mrc_rtt_update(&r, MRC_RTT_MAX_NS) == 0, "refused max");
	CHECK(mrc_rtt_update(&r, 0) == 0, "refused 0");
}

static void sample__from_timestamps(void)
{
	struct mrc_rtt r, saved;
	u64 now = 5000 * MS;

	mrc_rtt_init(&r);
	CHECK(mrc_rtt_sample(&r, now, now - 700 * US, false) == 0, "refused");
	CHECK(r.srtt_ns == 700 * US, "srtt %u", r.srtt_ns);
	saved = r;
	/* An echo from the future: never sent by us. */
	CHECK(mrc_rtt_sample(&r, now, now + 1, false) == -EINVAL,
	      "future accepted");
	CHECK(mrc_rtt_sample(&r, 0, U64_MAX, false) == -EINVAL,
	      "future accepted");
	/* An echo older than 1 s. */
	CHECK(mrc_rtt_sample(&r, now, now - MRC_RTT_MAX_NS - 1, false) ==
	      -ERANGE, "stale accepted");
	CHECK(mrc_rtt_sample(&r, U64_MAX, 0, false) == -ERANGE, "stale accepted");
	CHECK(!memcmp(&r, &saved, sizeof(r)), "refused sample changed state");
	CHECK(mrc_rtt_sample(&r, now, now, false) == 0, "zero RTT refused");
	CHECK(r.samples == 2 && r.min_ns == 0, "samples %u min %u",
	      r.samples, r.min_ns);
}

/* Alternating extremes: nothing overflows, everything stays bounded. */
static void update__extremes_no_overflow(void)
{
	struct mrc_rtt_params p = { MRC_RTT_MAX_NS, 1, MRC_RTT_MAX_NS,
				    MRC_RTT_MAX_NS, MRC_RTT_BACKOFF_LIMIT };
	struct mrc_rtt r;
	unsigned int k;

	mrc_rtt_init(&r);
	for (k = 0; k < 1000; k++) {
		mrc_rtt_update(&r, k & 1 ? MRC_RTT_MAX_NS : 0);
		CHECK(r.srtt_ns <= MRC_RTT_MAX_NS &&
		      r.rttvar_ns <= MRC_RTT_MAX_NS,
		      "k %u: srtt %u rttvar %u", k, r.srtt_ns, r.rttvar_ns);
		CHECK(mrc_rtt_rto(&r, &p) <= MRC_RTT_MAX_NS, "rto %llu",
		      ULL(mrc_rtt_rto(&r, &p)));
	}
	for (k = 0; k < 100; k++)
		CHECK(mrc_rtt_timeout(&r, &p) == MRC_RTT_MAX_NS, "rto %llu",
		      ULL(mrc_rtt_rto(&r, &p)));
	CHECK(r.backoff == MRC_RTT_BACKOFF_LIMIT, "backoff %u", r.backoff);
}

static void update__samples_saturate(void)
{
	struct mrc_rtt r;

	mrc_rtt_init(&r);
	mrc_rtt_update(&r, MS);
	r.samples = U32_MAX - 1;
	mrc_rtt_update(&r, MS);
	mrc_rtt_update(&r, MS);
	CHECK(r.samples == U32_MAX, "samples %u", r.samples);
	CHECK(mrc_rtt_valid(&r), "wrapped to invalid");
}

/* ---------------------------------------------------------------- */
/* RTO                                                               */
/* ---------------------------------------------------------------- */

static void rto__bounds(void)
{
	struct mrc_rtt_params p = defp();
	struct mrc_rtt r;

	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 10 * US);		/* hardware-fast path */
	CHECK(mrc_rtt_rto(&r, &p) == p.rto_min_ns, "fast: rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 500 * MS);		/* absurdly slow */
	CHECK(mrc_rtt_rto(&r, &p) == p.rto_max_ns, "slow: rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
	/* 10 ms: 10 + 4 * 5 = 30 ms, inside the bounds */
	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 10 * MS);
	CHECK(mrc_rtt_rto(&r, &p) == 30 * MS, "10 ms: rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
	/* rto_init is clamped too, if a caller skips params_check */
	p.rto_init_ns = 100 * MS;
	mrc_rtt_init(&r);
	CHECK(mrc_rtt_rto(&r, &p) == p.rto_max_ns, "init: rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
}

static void rto__var_floor(void)
{
	struct mrc_rtt_params p = defp();
	struct mrc_rtt r;
	unsigned int k;

	/* Steady 20 ms: rttvar -> 0, RTO stays srtt + var_floor. */
	mrc_rtt_init(&r);
	for (k = 0; k < 200; k++)
		mrc_rtt_update(&r, 20 * MS);
	CHECK(mrc_rtt_rto(&r, &p) == 21 * MS, "rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
	p.var_floor_ns = 0;
	CHECK(mrc_rtt_rto(&r, &p) == 20 * MS, "no floor: rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
}

static void rto__params_apply_live(void)
{
	struct mrc_rtt_params p = defp();
	struct mrc_rtt r;

	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 1 * MS);
	CHECK(mrc_rtt_rto(&r, &p) == 4 * MS, "rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
	p.rto_min_ns = 2500 * US;
	/* 1 + max(4 * 0.5, 1) = 3 ms */
	CHECK(mrc_rtt_rto(&r, &p) == 3 * MS, "rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
	p.rto_max_ns = 2 * MS;
	CHECK(mrc_rtt_rto(&r, &p) == 2 * MS, "rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
}

static void backoff__doubles_then_caps(void)
{
	struct mrc_rtt_params p = defp();
	struct mrc_rtt r;
	static const u64 exp[] = { 8 * MS, 16 * MS, 32 * MS, 32 * MS,
				   32 * MS };
	unsigned int k;
	u64 rto;

	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 1 * MS);	/* base RTO: 4 ms (rto_min) */
	for (k = 0; k < ARRAY_SIZE(exp); k++) {
		rto = mrc_rtt_timeout(&r, &p);
		CHECK(rto == exp[k] && rto == mrc_rtt_rto(&r, &p),
		      "timeout %u: rto %llu, expected %llu", k + 1, ULL(rto),
		      ULL(exp[k]));
	}
	/* More doublings allowed: rto_max caps. */
	p.max_backoff = 16;
	CHECK(mrc_rtt_rto(&r, &p) == 40 * MS, "rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
	for (k = 0; k < 50; k++)
		CHECK(mrc_rtt_timeout(&r, &p) == 40 * MS, "rto %llu",
		      ULL(mrc_rtt_rto(&r, &p)));
	/* No backoff allowed at all. */
	p.max_backoff = 0;
	CHECK(mrc_rtt_rto(&r, &p) == 4 * MS, "rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
	/* Before any sample: rto_init doubles. */
	p = defp();
	mrc_rtt_init(&r);
	CHECK(mrc_rtt_timeout(&r, &p) == 20 * MS, "init backoff %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
	CHECK(mrc_rtt_timeout(&r, &p) == 40 * MS, "init backoff %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
}

static void backoff__reset_by_valid_sample(void)
{
	struct mrc_rtt_params p = defp();
	struct mrc_rtt r;

	mrc_rtt_init(&r);
	mrc_rtt_update(&r, 1 * MS);
	mrc_rtt_timeout(&r, &p);
	mrc_rtt_timeout(&r, &p);
	CHECK(mrc_rtt_rto(&r, &p) == 16 * MS, "rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
	/* A refused sample does not end the backoff. */
	mrc_rtt_sample(&r, 10 * MS, 11 * MS, false);
	mrc_rtt_update(&r, (u64)MRC_RTT_MAX_NS + 1);
	CHECK(r.backoff == 2, "backoff %u", r.backoff);
	mrc_rtt_update(&r, 1 * MS);
	CHECK(r.backoff == 0, "backoff %u", r.backoff);
	CHECK(mrc_rtt_rto(&r, &p) == 4 * MS, "rto %llu",
	      ULL(mrc_rtt_rto(&r, &p)));
}

/*
 * TCG-like noise: RTTs of 0.5-5 ms with occasional 20 ms stalls.  The RTO
 * never exceeds 40 ms (a dead path is caught well under 50 ms) and never
 * falls below the RTT most samples see (few spurious timeouts).
 */
static void rto__tcg_noise(void)
{
	struct mrc_rtt_params p = defp();
	struct mrc_rtt r;
	unsigned int k, below = 0, n = 5000;
	u32 seed = 12345;
	u64 s, rto;

	mrc_rtt_init(&r);
	for (k = 0; k < n; k++) {
		seed = seed * 1103515245 + 12345;
		s = 500 * US + (seed >> 8) % (4500 * US);
		if ((seed >> 4) % 100 == 0)
			s = 20 * MS;
		rto = mrc_rtt_rto(&r, &p);
		if (k > 10 && s > rto)
			below++;	/* this sample would have timed out */
		mrc_rtt_update(&r, s);
		CHECK(rto >= p.rto_min_ns && rto <= p.rto_max_ns,
		      "k %u: rto %llu", k, ULL(rto));
	}
	/* Only the stalls (1%) and a little more may beat the RTO. */
	CHECK(below < n / 50, "%u of %u samples above the RTO", below, n);
	for (k = 0; k < 10; k++)
		CHECK(mrc_rtt_timeout(&r, &p) <= 40 * MS, "backoff %llu",
		      ULL(mrc_rtt_rto(&r, &p)));
}

/* ---------------------------------------------------------------- */

static const struct tap_test tests[] = {
#define T(f) { #f, f }
	T(params__defaults),
	T(params__check_refuses),
	T(init__zero),
	T(update__first_sample),
	T(update__rfc6298_arithmetic),
	T(update__idle_restart_below_half),
	T(update__converges_on_constant),
	T(update__step_change),
	T(update__refuses_above_max),
	T(sample__from_timestamps),
	T(update__extremes_no_overflow),
	T(update__samples_saturate),
	T(rto__bounds),
	T(rto__var_floor),
	T(rto__params_apply_live),
	T(backoff__doubles_then_caps),
	T(backoff__reset_by_valid_sample),
	T(rto__tcg_noise),
#undef T
};

int main(void)
{
	return tap_run(tests, ARRAY_SIZE(tests));
}
