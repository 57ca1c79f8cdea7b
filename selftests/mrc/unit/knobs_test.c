// SPDX-License-Identifier: GPL-2.0
/*
 * knobs_test.c - every time knob swept over its range: the knob's minimum
 * and maximum and the values where a product in ns crosses 2^32 (what a
 * u32 would wrap: 4294/4295 ms, and the same for the knob doubled or
 * quartered), through the core functions that turn knobs into engine
 * parameters (mrc_path_params_knobs(), mrc_sched_params_knobs()), with a
 * check that the behaviour each controls stays sane: an idle path's
 * keepalive probe rate follows probe_ms, the class fallback grace grows
 * with peer_timeout_ms and never collapses.
 *
 * Output is TAP 13; the exit status is 0 only if every test passed.
 *   make -C selftests/mrc/unit run
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../../mrc/core/config.h"
#include "../../../mrc/core/path.h"
#include "../../../mrc/core/sched.h"
#include "tap.h"
#include "knob_values.h"

#define MS	1000000ULL
#define T0	(1000 * MS)
#define ULL(x)	((unsigned long long)(x))

/* Every swept value of every time knob is a value the knob accepts. */
static void sweep__values_accepted(void)
{
	static const unsigned int ids[] = {
		MRC_KNOB_probe_ms, MRC_KNOB_rto_max_ms, MRC_KNOB_peer_timeout_ms,
		MRC_KNOB_data_rto_min_ms, MRC_KNOB_credit_grant_timeout_ms,
	};
	u64 v[SWEEP_MAX];
	unsigned int i, j, n;
	const char *why;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		const struct mrc_knob *k = &mrc_knobs[ids[i]];

		n = sweep(ids[i], v);
		for (j = 0; j < n; j++) {
			why = NULL;
			CHECK(mrc_knob_check(k, v[j], &why) == 0,
			      "%s %llu refused: %s", k->name, ULL(v[j]), why);
		}
		why = NULL;
		CHECK(mrc_knob_check(k, (u64)k->max + 1, &why) != 0,
		      "%s above max accepted", k->name);
	}
	/* The sweep reaches the wrap point where the knob's range does. */
	n = sweep(MRC_KNOB_probe_ms, v);
	for (i = j = 0; i < n; i++)
		j += v[i] == 4295;
	CHECK(j == 1, "probe_ms sweep misses 4295 ms");
}

/*
 * Every combination of probe_ms, rto_max_ms and data_rto_min_ms gives
 * checked parameters holding exactly the knobs' values.
 */
static void path__params_of_every_knob_value(void)
{
	u64 pr[SWEEP_MAX], mx[SWEEP_MAX], mn[SWEEP_MAX + 1];
	unsigned int np, nx, nn, a, b, c, combos = 0;
	struct mrc_path_params pp;
	const char *why;

	np = sweep(MRC_KNOB_probe_ms, pr);
	nx = sweep(MRC_KNOB_rto_max_ms, mx);
	nn = sweep(MRC_KNOB_data_rto_min_ms, mn);
	mn[nn++] = 0;		/* the keepalive path: default rto_min */
	for (a = 0; a < np; a++)
		for (b = 0; b < nx; b++)
			for (c = 0; c < nn; c++) {
				u64 want_min = min(mn[c], mx[b]) * MS;

				why = NULL;
				combos++;
				if (mrc_path_params_knobs(&pp, pr[a], mx[b],
							  mn[c], &why)) {
					CHECK(0, "probe %llu rto_max %llu rto_min %llu refused: %s",
					      ULL(pr[a]), ULL(mx[b]),
					      ULL(mn[c]), why);
					continue;
				}
				CHECK(pp.keepalive_ns == pr[a] * MS,
				      "probe_ms %llu: keepalive %llu ns",
				      ULL(pr[a]), ULL(pp.keepalive_ns));
				CHECK(pp.rtt.rto_max_ns == mx[b] * MS,
				      "rto_max_ms %llu: %u ns", ULL(mx[b]),
				      pp.rtt.rto_max_ns);
				CHECK(!mn[c] || pp.rtt.rto_min_ns == want_min,
				      "rto_min %llu: %u", ULL(mn[c]),
				      pp.rtt.rto_min_ns);
				CHECK(!mrc_path_params_check(&pp, &why),
				      "result refused: %s", why);
			}
	printf("# %u knob combinations\n", combos);

	/* Out of any knob range: refused, and the defaults handed back. */
	why = NULL;
	CHECK(mrc_path_params_knobs(&pp, 100, 5000, 0, &why) == -EINVAL &&
	      why && pp.keepalive_ns == MRC_PATH_DEF_KEEPALIVE_NS,
	      "rto_max 5 s accepted");
	why = NULL;
	CHECK(mrc_path_params_knobs(&pp, 1ULL << 33, 100, 0, &why) == -EINVAL &&
	      why && pp.rtt.rto_max_ns == MRC_RTT_DEF_RTO_MAX_NS,
	      "probe 2^33 ms accepted");
}

/*
 * An idle ACTIVE path whose keepalives are answered after @rtt: the
 * number of probes in @span of simulated time.
 */
static u64 idle_probes(const struct mrc_path_params *pp, u64 span, u64 rtt)
{
	struct mrc_path p;
	u64 t = T0, end = T0 + span, due;
	unsigned int guard = 0;

	mrc_path_init(&p, 1, 2, 0, t - 2 * MS);
	mrc_path_event(&p, pp, MRC_PATH_EV_REPLY, t, t - 1 * MS);
	while (p.state == MRC_PATH_ACTIVE && guard++ < 1000000) {
		due = mrc_path_deadline(&p, pp);
		if (due >= end)
			break;
		t = due;
		if (mrc_path_timer(&p, pp, t))
			mrc_path_event(&p, pp, MRC_PATH_EV_REPLY, t + rtt, t);
	}
	CHECK(p.state == MRC_PATH_ACTIVE, "path left ACTIVE: %s",
	      mrc_path_state_name(p.state));
	return p.stats.probes;
}

/*
 * The behaviour probe_ms controls: one keepalive per probe_ms (plus the
 * reply's RTT) on an idle path, over the whole knob range.  With the
 * keepalive in a u32, 4295 ms wrapped to 32.7 us: some 30000 probes a
 * second instead of one every 4.3 s.
 */
static void path__keepalive_rate_follows_probe_ms(void)
{
	const u64 rtt = 1 * MS;
	struct mrc_path_params pp;
	unsigned int n, i;
	const char *why;
	u64 v[SWEEP_MAX];

	n = sweep(MRC_KNOB_probe_ms, v);
	for (i = 0; i < n; i++) {
		u64 span = 10 * v[i] * MS + 5 * MS, got, lo, hi;

		if (mrc_path_params_knobs(&pp, v[i], 200, 0, &why)) {
			CHECK(0, "probe_ms %llu refused: %s", ULL(v[i]), why);
			continue;
		}
		got = idle_probes(&pp, span, rtt);
		/* Each cycle takes probe_ms + rtt: 9 or 10 probes in the span. */
		lo = span / (v[i] * MS + rtt);
		hi = span / (v[i] * MS);
		CHECK(got >= lo && got <= hi,
		      "probe_ms %llu: %llu probes in %llu ms, want %llu..%llu",
		      ULL(v[i]), ULL(got), ULL(span / MS), ULL(lo), ULL(hi));
	}
}

/*
 * The behaviour peer_timeout_ms controls in the scheduler: the class
 * fallback grace is a quarter of it, capped at 4 s, never smaller for a
 * larger knob, and accepted by mrc_sched_params_check().  With a u32
 * grace, 17180 ms wrapped to 0.2 ms: a class fell back at once.  The same
 * for the exploration interval, twice probe_ms.
 */
static void sched__grace_and_explore_follow_knobs(void)
{
	struct mrc_sched_params sp;
	u64 v[SWEEP_MAX], prev = 0, want;
	unsigned int n, i;
	const char *why;

	n = sweep(MRC_KNOB_peer_timeout_ms, v);
	for (i = 0; i < n; i++) {
		mrc_sched_params_default(&sp);
		mrc_sched_params_knobs(&sp, v[i], 250);
		want = min(v[i] / 4, 4000ULL) * MS;
		CHECK(sp.fallback_grace_ns == want,
		      "peer_timeout_ms %llu: grace %llu ns, want %llu",
		      ULL(v[i]), ULL(sp.fallback_grace_ns), ULL(want));
		CHECK(sp.fallback_grace_ns >= prev,
		      "peer_timeout_ms %llu: grace shrank", ULL(v[i]));
		prev = sp.fallback_grace_ns;
		why = NULL;
		CHECK(!mrc_sched_params_check(&sp, &why),
		      "peer_timeout_ms %llu refused: %s", ULL(v[i]), why);
	}
	prev = 0;
	n = sweep(MRC_KNOB_probe_ms, v);
	for (i = 0; i < n; i++) {
		mrc_sched_params_default(&sp);
		mrc_sched_params_knobs(&sp, 3000, v[i]);
		want = min(2 * v[i], 4000ULL) * MS;
		CHECK(sp.explore_ns == want,
		      "probe_ms %llu: explore %llu ns, want %llu",
		      ULL(v[i]), ULL(sp.explore_ns), ULL(want));
		CHECK(sp.explore_ns >= prev, "probe_ms %llu: shrank",
		      ULL(v[i]));
		prev = sp.explore_ns;
		why = NULL;
		CHECK(!mrc_sched_params_check(&sp, &why),
		      "probe_ms %llu refused: %s", ULL(v[i]), why);
	}
}

static const struct tap_test tests[] = {
#define T(f) { #f, f }
	T(sweep__values_accepted),
	T(path__params_of_every_knob_value),
	T(path__keepalive_rate_follows_probe_ms),
	T(sched__grace_and_explore_follow_knobs),
#undef T
};

int main(void)
{
	return tap_run(tests, ARRAY_SIZE(tests));
}
