// SPDX-License-Identifier: GPL-2.0
/*
 * path_test.c - user-space unit tests of mrc/core/path.c (path state machine,
 * probe schedule, inflight accounting, counters).
 *
 * Output is TAP 13; the exit status is 0 only if every test passed.
 *   make -C selftests/mrc/unit run
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../../mrc/core/path.h"
#include "tap.h"

#define US	1000ULL
#define MS	1000000ULL
#define T0	(1000 * MS)	/* an arbitrary "now" well after boot */
#define ULL(x)	((unsigned long long)(x))

static struct mrc_path_params pp;	/* defaults, set in main() */

static const char *st(unsigned int s)
{
	return mrc_path_state_name(s);
}

static const char *evn(unsigned int e)
{
	return mrc_path_event_name(e);
}

static int ev(struct mrc_path *p, enum mrc_path_event e, u64 now, u64 sent)
{
	return mrc_path_event(p, &pp, e, now, sent);
}

/* A path that entered @state at exactly @t (t >= 3 ms). */
static void mk(struct mrc_path *p, enum mrc_path_state state, u64 t)
{
	mrc_path_init(p, 1, 2, 7, t - 3 * MS);
	switch (state) {
	case MRC_PATH_PROBING:
		mrc_path_init(p, 1, 2, 7, t);
		break;
	case MRC_PATH_ACTIVE:
		ev(p, MRC_PATH_EV_REPLY, t, t - 1 * MS);
		break;
	case MRC_PATH_ASSUMED_BAD:
		ev(p, MRC_PATH_EV_REPLY, t - 2 * MS, t - 3 * MS);
		ev(p, MRC_PATH_EV_LOSS, t, t - 1 * MS);
		break;
	case MRC_PATH_DEAD:
		ev(p, MRC_PATH_EV_RAIL_DOWN, t, t);
		break;
	case MRC_PATH_DENIED:
		ev(p, MRC_PATH_EV_DENY, t, t);
		break;
	default:
		break;
	}
	if (p->state != state || p->since_ns != t) {
		printf("# mk(%s): got %s since %llu\n", st(state), st(p->state),
		       ULL(p->since_ns));
		failed_checks++;
	}
}

/* ---------------------------------------------------------------- */
/* parameters, init, names                                           */
/* ---------------------------------------------------------------- */

static void params__defaults(void)
{
	struct mrc_path_params d;
	const char *why = NULL;

	mrc_path_params_default(&d);
	CHECK(mrc_path_params_check(&d, &why) == 0, "refused: %s", why);
	CHECK(d.probe_ns == 10 * MS, "probe %u", d.probe_ns);
	CHECK(d.probe_max_ns == 200 * MS, "probe_max %u", d.probe_max_ns);
	CHECK(d.keepalive_ns == 250 * MS, "keepalive %llu", ULL(d.keepalive_ns));
	CHECK(d.rtt.rto_max_ns == MRC_RTT_DEF_RTO_MAX_NS, "rtt defaults");
}

static void params__check_refuses(void)
{
	struct mrc_path_params d;
	const char *why;

	mrc_path_params_default(&d);
	d.probe_ns = 0;
	why = NULL;
	CHECK(mrc_path_params_check(&d, &why) == -EINVAL && why, "probe 0");

	mrc_path_params_default(&d);
	d.probe_ns = d.probe_max_ns + 1;
	why = NULL;
	CHECK(mrc_path_params_check(&d, &why) == -EINVAL && why,
	      "probe > max");

	mrc_path_params_default(&d);
	d.probe_max_ns = MRC_PATH_INTERVAL_MAX_NS + 1;
	why = NULL;
	CHECK(mrc_path_params_check(&d, &why) == -EINVAL && why,
	      "probe_max > 4 s");

	mrc_path_params_default(&d);
	d.keepalive_ns = MRC_PATH_KEEPALIVE_MAX_NS + 1;
	why = NULL;
	CHECK(mrc_path_params_check(&d, &why) == -EINVAL && why,
	      "keepalive > 60 s");

	/* The probe_ms knob's range (to 10 s) crosses 2^32 ns. */
	mrc_path_params_default(&d);
	d.keepalive_ns = 10000 * MS;
	CHECK(mrc_path_params_check(&d, &why) == 0, "keepalive 10 s: %s", why);

	/* The embedded RTT parameters are checked too. */
	mrc_path_params_default(&d);
	d.rtt.rto_min_ns = 0;
	why = NULL;
	CHECK(mrc_path_params_check(&d, &why) == -EINVAL && why,
	      "rtt not checked");

	mrc_path_params_default(&d);
	d.keepalive_ns = 0;
	d.probe_ns = d.probe_max_ns = MRC_PATH_INTERVAL_MAX_NS;
	CHECK(mrc_path_params_check(&d, &why) == 0, "good refused: %s", why);
}

static void init__probing(void)
{
	struct mrc_path p, zero;

	memset(&p, 0xa5, sizeof(p));
	mrc_path_init(&p, 3, 4, 9, T0);
	CHECK(p.local_rail == 3 && p.remote_rail == 4 && p.entropy == 9,
	      "ids %u %u %u", p.local_rail, p.remote_rail, p.entropy);
	CHECK(p.state == MRC_PATH_PROBING, "state %s", st(p.state));
	CHECK(p.reason == MRC_PATH_EV_NONE, "reason %u", p.reason);
	CHECK(p.since_ns == T0, "since %llu", ULL(p.since_ns));
	CHECK(!mrc_path_in_spray_set(&p), "in spray set");
	CHECK(mrc_path_deadline(&p, &pp) == T0, "probe not due at once");
	CHECK(!mrc_rtt_valid(&p.rtt), "rtt valid");
	CHECK(p.inflight_pkts == 0 && p.inflight_bytes == 0 && !p.ok_seen &&
	      !p.rail_down && !p.probe_out && p.tx_seq == 0, "not clean");
	memset(&zero, 0, sizeof(zero));
	CHECK(!memcmp(&p.stats, &zero.stats, sizeof(p.stats)), "stats");
}

static void names__all(void)
{
	unsigned int i;

	CHECK(!strcmp(st(MRC_PATH_PROBING), "probing"), "probing");
	CHECK(!strcmp(st(MRC_PATH_ACTIVE), "active"), "active");
	CHECK(!strcmp(st(MRC_PATH_ASSUMED_BAD), "assumed-bad"), "ab");
	CHECK(!strcmp(st(MRC_PATH_DEAD), "dead"), "dead");
	CHECK(!strcmp(st(MRC_PATH_DENIED), "denied"), "denied");
	CHECK(!strcmp(st(MRC_PATH_STATE_NR), "unknown"), "nr");
	CHECK(!strcmp(st(~0u), "unknown"), "~0");
	for (i = 0; i < MRC_PATH_EV_NR; i++)
		CHECK(evn(i) && strcmp(evn(i), "unknown"), "event %u unnamed",
		      i);
	CHECK(!strcmp(evn(MRC_PATH_EV_RAIL_DOWN), "rail-down"), "rail-down");
	CHECK(!strcmp(evn(MRC_PATH_EV_PEER_DOWN), "peer-rail-down"),
	      "peer-rail-down");
	CHECK(!strcmp(evn(MRC_PATH_EV_NR), "unknown"), "nr");
}

/* ---------------------------------------------------------------- */
/* state machine                                                     */
/* ---------------------------------------------------------------- */

/* Next state for fresh news (sent after the path entered its state). */
static const u8 next_fresh[MRC_PATH_STATE_NR][MRC_PATH_EV_NR] = {
#define ROW(reply, ack, loss, rto, down, up, deny, allow, pdown) \
	{ 0xff, reply, ack, loss, rto, down, up, deny, allow, pdown }
#define P MRC_PATH_PROBING
#define A MRC_PATH_ACTIVE
#define B MRC_PATH_ASSUMED_BAD
#define D MRC_PATH_DEAD
#define X MRC_PATH_DENIED
	/*           reply ack loss rto down up deny allow pdown */
	[P] = ROW(A,    P,  P,   P,  D,   P, X,   P,    P),
	[A] = ROW(A,    A,  B,   B,  D,   A, X,   A,    B),
	[B] = ROW(A,    B,  B,   B,  D,   B, X,   B,    B),
	[D] = ROW(D,    D,  D,   D,  D,   P, X,   D,    D),
	[X] = ROW(X,    X,  X,   X,  X,   X, X,   P,    X),
};

/* Where stale news (sent before the state was entered) differs. */
static u8 next_stale(unsigned int from, unsigned int e)
{
	if (e == MRC_PATH_EV_REPLY && (from == P || from == B))
		return from;
	if ((e == MRC_PATH_EV_LOSS || e == MRC_PATH_EV_RTO) && from == A)
		return from;
	return next_fresh[from][e];
}

/* Events that bump stats.ignored. */
static bool ignored(unsigned int from, unsigned int e, bool fresh)
{
	if (e == MRC_PATH_EV_REPLY)
		return from == D || from == X ||
		       (!fresh && (from == P || from == B));
	if (e == MRC_PATH_EV_LOSS || e == MRC_PATH_EV_RTO)
		return !fresh && from == A;
	return false;
}
#undef P
#undef A
#undef B
#undef D
#undef X
#undef ROW

/* Every event in every state, with fresh and with stale news. */
static void event__every_event_every_state(void)
{
	unsigned int from, e, f, exp_state;
	struct mrc_path p, before;
	const u64 t = T0, now = T0 + 5 * MS;
	u64 sent;
	int rc, exp_rc;

	for (from = 0; from < MRC_PATH_STATE_NR; from++) {
		for (e = 1; e < MRC_PATH_EV_NR; e++) {
			for (f = 0; f < 2; f++) {
				mk(&p, from, t);
				before = p;
				/*
				 * Stale: before the state was entered, but
				 * after the probe whose reply made mk()'s
				 * path active (t - 1 ms): that one again
				 * is a replay (reply__replayed).
				 */
				sent = f ? t + 1 * MS : t - MS / 2;
				exp_state = f ? next_fresh[from][e] :
						next_stale(from, e);
				exp_rc = exp_state != from;
				rc = ev(&p, e, now, sent);
				CHECK(rc == exp_rc && p.state == exp_state,
				      "%s + %s (%s): rc %d state %s, expected rc %d state %s",
				      st(from), evn(e), f ? "fresh" : "stale",
				      rc, st(p.state), exp_rc, st(exp_state));
				CHECK(p.stats.state_changes ==
				      before.stats.state_changes + exp_rc,
				      "%s + %s: state_changes", st(from), evn(e));
				CHECK(exp_rc ? p.since_ns == now &&
					       p.reason == e :
					       p.since_ns == before.since_ns &&
					       p.reason == before.reason,
				      "%s + %s: since %llu reason %s", st(from),
				      evn(e), ULL(p.since_ns), evn(p.reason));
				CHECK(p.stats.ignored - before.stats.ignored ==
				      ignored(from, e, f),
				      "%s + %s (%s): ignored %llu", st(from),
				      evn(e), f ? "fresh" : "stale",
				      ULL(p.stats.ignored -
					  before.stats.ignored));
				/* A path that starts being probed: at once. */
				if (exp_rc && (exp_state == MRC_PATH_PROBING ||
					       exp_state ==
					       MRC_PATH_ASSUMED_BAD))
					CHECK(mrc_path_deadline(&p, &pp) == now,
					      "%s + %s: probe at %llu",
					      st(from), evn(e),
					      ULL(mrc_path_deadline(&p, &pp)));
				/* Never probed when down or denied. */
				if (exp_state == MRC_PATH_DEAD ||
				    exp_state == MRC_PATH_DENIED)
					CHECK(mrc_path_deadline(&p, &pp) ==
					      MRC_PATH_NEVER,
					      "%s + %s: deadline %llu",
					      st(from), evn(e),
					      ULL(mrc_path_deadline(&p, &pp)));
				CHECK(mrc_path_in_spray_set(&p) ==
				      (exp_state == MRC_PATH_ACTIVE),
				      "%s + %s: spray set", st(from), evn(e));
			}
		}
	}
}

static void event__unknown(void)
{
	struct mrc_path p, before;

	mk(&p, MRC_PATH_ACTIVE, T0);
	before = p;
	CHECK(ev(&p, MRC_PATH_EV_NONE, T0 + MS, T0 + MS) == -EINVAL, "none");
	CHECK(ev(&p, MRC_PATH_EV_NR, T0 + MS, T0 + MS) == -EINVAL, "nr");
	CHECK(ev(&p, (enum mrc_path_event)1000, T0 + MS, T0 + MS) == -EINVAL,
	      "1000");
	CHECK(!memcmp(&p, &before, sizeof(p)), "unknown event changed state");
}

static void reply__rtt_and_counters(void)
{
	struct mrc_path p;

	mrc_path_init(&p, 1, 2, 3, T0);
	CHECK(ev(&p, MRC_PATH_EV_REPLY, T0 + 2 * MS, T0) == 1, "not active");
	CHECK(p.rtt.srtt_ns == 2 * MS, "srtt %u", p.rtt.srtt_ns);
	CHECK(p.stats.replies == 1 && p.ok_seen && p.last_ok_ns == T0 + 2 * MS,
	      "replies %llu ok %u at %llu", ULL(p.stats.replies), p.ok_seen,
	      ULL(p.last_ok_ns));
	/* Replies while ACTIVE keep feeding the RTT, even old ones. */
	CHECK(ev(&p, MRC_PATH_EV_REPLY, T0 + 10 * MS, T0 + 1 * MS) == 0, "rc");
	CHECK(p.rtt.samples == 2 && p.stats.replies == 2, "samples %u",
	      p.rtt.samples);
	CHECK(p.stats.ignored == 0, "ignored %llu", ULL(p.stats.ignored));
}

/* A reply with an impossible echo never brings a path back. */
static void reply__bad_echo_refused(void)
{
	struct mrc_path p;

	mk(&p, MRC_PATH_ASSUMED_BAD, T0);
	CHECK(ev(&p, MRC_PATH_EV_REPLY, T0 + MS, T0 + 2 * MS) == 0,
	      "future echo accepted");
	CHECK(ev(&p, MRC_PATH_EV_REPLY, T0 + 2000 * MS, T0 + MS) == 0,
	      "echo older than 1 s accepted");
	CHECK(p.state == MRC_PATH_ASSUMED_BAD, "state %s", st(p.state));
	CHECK(p.stats.rtt_bad == 2, "rtt_bad %llu", ULL(p.stats.rtt_bad));
	CHECK(ev(&p, MRC_PATH_EV_REPLY, T0 + 2 * MS, T0 + MS) == 1,
	      "good reply refused");
}

/* A reply to a probe sent before the loss proves nothing. */
static void reply__stale_probe_ignored(void)
{
	struct mrc_path p;
	u64 t = T0;

	mk(&p, MRC_PATH_ACTIVE, t);
	CHECK(mrc_path_timer(&p, &pp, t + pp.keepalive_ns), "no keepalive");
	/* loss at +251 ms; the keepalive (sent +250) answers at +252 */
	ev(&p, MRC_PATH_EV_LOSS, t + 251 * MS, t + 249 * MS);
	CHECK(p.state == MRC_PATH_ASSUMED_BAD, "state %s", st(p.state));
	CHECK(ev(&p, MRC_PATH_EV_REPLY, t + 252 * MS, t + 250 * MS) == 0,
	      "stale reply brought the path back");
	CHECK(p.stats.ignored == 1, "ignored %llu", ULL(p.stats.ignored));
	/* The probe sent on leaving does. */
	CHECK(mrc_path_timer(&p, &pp, t + 251 * MS), "no probe on leaving");
	CHECK(ev(&p, MRC_PATH_EV_REPLY, t + 253 * MS, t + 251 * MS) == 1,
	      "fresh reply refused");
}

/* Late loss reports about the previous epoch do not flap the path. */
static void loss__stale_no_flap(void)
{
	struct mrc_path p;
	unsigned int i;

	mk(&p, MRC_PATH_ASSUMED_BAD, T0);
	ev(&p, MRC_PATH_EV_REPLY, T0 + 3 * MS, T0 + 1 * MS);
	CHECK(p.state == MRC_PATH_ACTIVE, "state %s", st(p.state));
	/* a burst of SACK holes for packets sent before it came back */
	for (i = 0; i < 10; i++)
		CHECK(ev(&p, MRC_PATH_EV_LOSS, T0 + 4 * MS, T0 - i * US) == 0,
		      "stale loss %u", i);
	CHECK(p.state == MRC_PATH_ACTIVE, "flapped: %s", st(p.state));
	CHECK(p.stats.losses == 11 && p.consec_loss == 11,
	      "losses %llu run %u", ULL(p.stats.losses), p.consec_loss);
	CHECK(p.stats.ignored == 10, "ignored %llu", ULL(p.stats.ignored));
	/* A fresh one does. */
	CHECK(ev(&p, MRC_PATH_EV_LOSS, T0 + 5 * MS, T0 + 3 * MS) == 1,
	      "fresh loss ignored");
	CHECK(p.reason == MRC_PATH_EV_LOSS, "reason %s", evn(p.reason));
}

static void ack__clears_loss_run_keeps_state(void)
{
	struct mrc_path p;

	mk(&p, MRC_PATH_ASSUMED_BAD, T0);
	ev(&p, MRC_PATH_EV_LOSS, T0 + 1 * MS, T0);
	CHECK(p.consec_loss == 2, "run %u", p.consec_loss);
	/* ACK after it left: last success, RTT, but still out. */
	CHECK(ev(&p, MRC_PATH_EV_ACK, T0 + 2 * MS, T0 - 1 * MS) == 0, "rc");
	CHECK(p.state == MRC_PATH_ASSUMED_BAD, "state %s", st(p.state));
	CHECK(p.consec_loss == 0, "run %u", p.consec_loss);
	CHECK(p.stats.acks == 1 && p.ok_seen && p.last_ok_ns == T0 + 2 * MS,
	      "acks %llu last_ok %llu", ULL(p.stats.acks), ULL(p.last_ok_ns));
	CHECK(p.rtt.last_ns == 3 * MS, "rtt sample %u", p.rtt.last_ns);
	/* A bad echo still counts the ACK but not the sample. */
	ev(&p, MRC_PATH_EV_ACK, T0 + 3 * MS, T0 + 4 * MS);
	CHECK(p.stats.acks == 2 && p.stats.rtt_bad == 1, "acks %llu bad %llu",
	      ULL(p.stats.acks), ULL(p.stats.rtt_bad));
	CHECK(p.rtt.last_ns == 3 * MS, "rtt took a bad sample");
}

static void rto__backs_off_only_when_fresh(void)
{
	struct mrc_path p;

	mk(&p, MRC_PATH_ACTIVE, T0);
	/* srtt 1 ms: base RTO 4 ms */
	CHECK(mrc_path_rto(&p, &pp) == 4 * MS, "rto %llu",
	      ULL(mrc_path_rto(&p, &pp)));
	ev(&p, MRC_PATH_EV_RTO, T0 + 1 * MS, T0 - 1);
	CHECK(p.state == MRC_PATH_ACTIVE && p.rtt.backoff == 0,
	      "stale RTO: %s backoff %u", st(p.state), p.rtt.backoff);
	CHECK(ev(&p, MRC_PATH_EV_RTO, T0 + 5 * MS, T0 + 1 * MS) == 1, "rc");
	CHECK(p.state == MRC_PATH_ASSUMED_BAD && p.reason == MRC_PATH_EV_RTO,
	      "%s reason %s", st(p.state), evn(p.reason));
	CHECK(p.rtt.backoff == 1 && mrc_path_rto(&p, &pp) == 8 * MS,
	      "backoff %u rto %llu", p.rtt.backoff,
	      ULL(mrc_path_rto(&p, &pp)));
	CHECK(p.stats.timeouts == 2, "timeouts %llu", ULL(p.stats.timeouts));
	/* The answered probe resets the backoff. */
	ev(&p, MRC_PATH_EV_REPLY, T0 + 6 * MS, T0 + 5 * MS);
	CHECK(p.rtt.backoff == 0, "backoff %u", p.rtt.backoff);
}

static void rail__down_up_and_deny_remember(void)
{
	struct mrc_path p;
	u64 t = T0;

	mk(&p, MRC_PATH_ACTIVE, t);
	ev(&p, MRC_PATH_EV_RAIL_DOWN, t + 1, t + 1);
	CHECK(p.state == MRC_PATH_DEAD && p.rail_down, "down: %s",
	      st(p.state));
	/* denied while the rail is down: allow returns it to DEAD */
	ev(&p, MRC_PATH_EV_DENY, t + 2, t + 2);
	ev(&p, MRC_PATH_EV_ALLOW, t + 3, t + 3);
	CHECK(p.state == MRC_PATH_DEAD, "allow while down: %s", st(p.state));
	/* rail returns while denied: allow goes straight to PROBING */
	ev(&p, MRC_PATH_EV_DENY, t + 4, t + 4);
	ev(&p, MRC_PATH_EV_RAIL_UP, t + 5, t + 5);
	CHECK(p.state == MRC_PATH_DENIED && !p.rail_down, "up while denied");
	ev(&p, MRC_PATH_EV_ALLOW, t + 6, t + 6);
	CHECK(p.state == MRC_PATH_PROBING, "allow: %s", st(p.state));
	/* rail goes down while denied: stays denied, remembered */
	ev(&p, MRC_PATH_EV_DENY, t + 7, t + 7);
	ev(&p, MRC_PATH_EV_RAIL_DOWN, t + 8, t + 8);
	CHECK(p.state == MRC_PATH_DENIED && p.rail_down, "down while denied");
	ev(&p, MRC_PATH_EV_ALLOW, t + 9, t + 9);
	CHECK(p.state == MRC_PATH_DEAD, "allow: %s", st(p.state));
	ev(&p, MRC_PATH_EV_RAIL_UP, t + 10, t + 10);
	CHECK(p.state == MRC_PATH_PROBING && p.reason == MRC_PATH_EV_RAIL_UP,
	      "rail up: %s", st(p.state));
	CHECK(mrc_path_deadline(&p, &pp) == t + 10, "probe not due");
	/* 1 (ACTIVE) + 8 changes, no more */
	CHECK(p.stats.state_changes == 1 + 8, "state_changes %llu",
	      ULL(p.stats.state_changes));
}

/* A full life: the counters add up. */
static void counters__life_cycle(void)
{
	struct mrc_path p;
	u64 t = T0;

	mrc_path_init(&p, 0, 0, 0, t);
	CHECK(mrc_path_timer(&p, &pp, t), "hello");
	ev(&p, MRC_PATH_EV_REPLY, t + 1 * MS, t);
	ev(&p, MRC_PATH_EV_ACK, t + 3 * MS, t + 2 * MS);
	ev(&p, MRC_PATH_EV_LOSS, t + 4 * MS, t + 2 * MS);
	CHECK(mrc_path_timer(&p, &pp, t + 4 * MS), "probe");
	ev(&p, MRC_PATH_EV_REPLY, t + 5 * MS, t + 4 * MS);
	ev(&p, MRC_PATH_EV_RTO, t + 20 * MS, t + 6 * MS);
	CHECK(mrc_path_timer(&p, &pp, t + 20 * MS), "probe");
	ev(&p, MRC_PATH_EV_RAIL_DOWN, t + 21 * MS, 0);
	ev(&p, MRC_PATH_EV_RAIL_UP, t + 22 * MS, 0);
	CHECK(p.stats.probes == 3, "probes %llu", ULL(p.stats.probes));
	CHECK(p.stats.replies == 2, "replies %llu", ULL(p.stats.replies));
	CHECK(p.stats.acks == 1, "acks %llu", ULL(p.stats.acks));
	CHECK(p.stats.losses == 1, "losses %llu", ULL(p.stats.losses));
	CHECK(p.stats.timeouts == 1, "timeouts %llu", ULL(p.stats.timeouts));
	/* probing->active->bad->active->bad->dead->probing */
	CHECK(p.stats.state_changes == 6, "state_changes %llu",
	      ULL(p.stats.state_changes));
	CHECK(p.stats.ignored == 0 && p.stats.rtt_bad == 0, "ignored %llu",
	      ULL(p.stats.ignored));
}

static void seq__per_path(void)
{
	struct mrc_path a, b;

	mrc_path_init(&a, 0, 0, 0, T0);
	mrc_path_init(&b, 0, 0, 1, T0);
	CHECK(mrc_path_next_seq(&a) == 0 && mrc_path_next_seq(&a) == 1,
	      "a");
	CHECK(mrc_path_next_seq(&b) == 0, "b shares a's sequence");
	a.tx_seq = U32_MAX;
	CHECK(mrc_path_next_seq(&a) == U32_MAX && mrc_path_next_seq(&a) == 0,
	      "no wrap");
}

/* ---------------------------------------------------------------- */
/* probes and keepalives                                             */
/* ---------------------------------------------------------------- */

static void probe__interval_doubles_and_caps(void)
{
	static const u64 exp[] = { 10, 20, 40, 80, 160, 200, 200, 200 };
	struct mrc_path_params q = pp;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(exp); i++)
		CHECK(mrc_path_probe_interval(&pp, i) == exp[i] * MS,
		      "n %u: %llu", i, ULL(mrc_path_probe_interval(&pp, i)));
	CHECK(mrc_path_probe_interval(&pp, 31) == 200 * MS, "31");
	CHECK(mrc_path_probe_interval(&pp, 1000) == 200 * MS, "1000");
	CHECK(mrc_path_probe_interval(&pp, U32_MAX) == 200 * MS, "U32_MAX");
	q.probe_ns = q.probe_max_ns = MRC_PATH_INTERVAL_MAX_NS;
	CHECK(mrc_path_probe_interval(&q, U32_MAX) == MRC_PATH_INTERVAL_MAX_NS,
	      "max: no overflow");
}

/* Leaving the spray set: probe at once, then 10, 20, ... 200, 200 ms. */
static void probe__schedule_after_loss(void)
{
	static const u64 gap[] = { 10, 20, 40, 80, 160, 200, 200, 200, 200 };
	struct mrc_path p;
	u64 t, due;
	unsigned int i;

	mk(&p, MRC_PATH_ASSUMED_BAD, T0);
	t = T0;
	CHECK(mrc_path_deadline(&p, &pp) == t, "first probe at %llu",
	      ULL(mrc_path_deadline(&p, &pp)));
	for (i = 0; i < ARRAY_SIZE(gap); i++) {
		due = mrc_path_deadline(&p, &pp);
		/* early: nothing, and nothing changes */
		CHECK(due == t, "probe %u due %llu, expected %llu", i, ULL(due),
		      ULL(t));
		if (due > T0)
			CHECK(!mrc_path_timer(&p, &pp, due - 1),
			      "probe %u early", i);
		CHECK(mrc_path_timer(&p, &pp, due), "probe %u not sent", i);
		CHECK(!mrc_path_timer(&p, &pp, due), "probe %u twice", i);
		t = due + gap[i] * MS;
	}
	CHECK(p.stats.probes == ARRAY_SIZE(gap), "probes %llu",
	      ULL(p.stats.probes));
	CHECK(p.state == MRC_PATH_ASSUMED_BAD, "state %s", st(p.state));
	/* Late timer: the next probe counts from when it really went out. */
	t = mrc_path_deadline(&p, &pp) + 50 * MS;
	CHECK(mrc_path_timer(&p, &pp, t), "late probe");
	CHECK(mrc_path_deadline(&p, &pp) == t + 200 * MS, "after late: %llu",
	      ULL(mrc_path_deadline(&p, &pp)));
}

/*
 * A slow path (srtt 300 ms, an overloaded receiver under TCG): a retry
 * waits for the path's RTO, not 10 ms, so one probe is out per round trip
 * instead of six; the RTO caps the wait (rto_max 2 s, the knob's top).
 */
static void probe__retry_not_before_rto(void)
{
	struct mrc_path_params q = pp;
	struct mrc_path p;
	u64 t = T0, rto;
	unsigned int i;

	q.rtt.rto_max_ns = 2000 * MS;
	mrc_path_init(&p, 1, 2, 7, t);
	for (i = 0; i < 8; i++) {	/* srtt -> 300 ms, small rttvar */
		t += 300 * MS;
		mrc_path_event(&p, &q, MRC_PATH_EV_REPLY, t, t - 300 * MS);
	}
	CHECK(p.state == MRC_PATH_ACTIVE, "state %s", st(p.state));
	mrc_path_event(&p, &q, MRC_PATH_EV_LOSS, t + 1 * MS, t);
	CHECK(p.state == MRC_PATH_ASSUMED_BAD, "state %s", st(p.state));
	rto = mrc_path_rto(&p, &q);
	CHECK(rto > 300 * MS && rto < 2000 * MS, "rto %llu", ULL(rto));
	t += 1 * MS;
	CHECK(mrc_path_timer(&p, &q, t), "first probe not at once");
	CHECK(mrc_path_deadline(&p, &q) == t + rto, "retry after %llu, rto %llu",
	      ULL(mrc_path_deadline(&p, &q) - t), ULL(rto));
	CHECK(!mrc_path_timer(&p, &q, t + 10 * MS), "retry at 10 ms");
	CHECK(!mrc_path_timer(&p, &q, t + 200 * MS), "retry at probe_max");
	CHECK(mrc_path_timer(&p, &q, t + rto), "no retry after the rto");
	CHECK(p.stats.probes == 2, "probes %llu", ULL(p.stats.probes));
	/* A fast path keeps the 10 ms schedule (rto <= probe_ns). */
	mk(&p, MRC_PATH_ASSUMED_BAD, T0);
	CHECK(mrc_path_rto(&p, &q) <= q.probe_ns, "fast rto %llu",
	      ULL(mrc_path_rto(&p, &q)));
	mrc_path_timer(&p, &q, T0);
	CHECK(mrc_path_deadline(&p, &q) == T0 + 10 * MS, "fast: %llu",
	      ULL(mrc_path_deadline(&p, &q) - T0));
}

/* The backoff restarts each time the path leaves the spray set again. */
static void probe__backoff_restarts(void)
{
	struct mrc_path p;
	unsigned int i;
	u64 t;

	mk(&p, MRC_PATH_ASSUMED_BAD, T0);
	for (i = 0; i < 6; i++)
		mrc_path_timer(&p, &pp, mrc_path_deadline(&p, &pp));
	t = mrc_path_deadline(&p, &pp);
	ev(&p, MRC_PATH_EV_REPLY, t, t - 1 * MS);
	CHECK(p.state == MRC_PATH_ACTIVE, "state %s", st(p.state));
	ev(&p, MRC_PATH_EV_LOSS, t + 1 * MS, t + 1 * MS);
	CHECK(mrc_path_deadline(&p, &pp) == t + 1 * MS, "not at once");
	mrc_path_timer(&p, &pp, t + 1 * MS);
	CHECK(mrc_path_deadline(&p, &pp) == t + 11 * MS, "backoff kept: %llu",
	      ULL(mrc_path_deadline(&p, &pp) - t));
}

static void probe__none_when_dead_or_denied(void)
{
	struct mrc_path p;
	unsigned int s;
	static const u8 quiet[] = { MRC_PATH_DEAD, MRC_PATH_DENIED };

	for (s = 0; s < ARRAY_SIZE(quiet); s++) {
		mk(&p, quiet[s], T0);
		CHECK(mrc_path_deadline(&p, &pp) == MRC_PATH_NEVER,
		      "%s: deadline", st(quiet[s]));
		CHECK(!mrc_path_timer(&p, &pp, T0 + 10000 * MS) &&
		      !mrc_path_timer(&p, &pp, U64_MAX),
		      "%s: probed", st(quiet[s]));
		CHECK(p.stats.probes == 0, "%s: probes", st(quiet[s]));
	}
}

static void keepalive__idle_active_path(void)
{
	struct mrc_path p;
	u64 t = T0, due;

	mk(&p, MRC_PATH_ACTIVE, t);
	CHECK(mrc_path_deadline(&p, &pp) == t + 250 * MS, "due %llu",
	      ULL(mrc_path_deadline(&p, &pp) - t));
	/* Traffic pushes it out: ACKs prove the path. */
	ev(&p, MRC_PATH_EV_ACK, t + 100 * MS, t + 99 * MS);
	CHECK(mrc_path_deadline(&p, &pp) == t + 350 * MS, "due %llu",
	      ULL(mrc_path_deadline(&p, &pp) - t));
	CHECK(!mrc_path_timer(&p, &pp, t + 349 * MS), "early keepalive");
	CHECK(mrc_path_timer(&p, &pp, t + 350 * MS), "no keepalive");
	CHECK(p.probe_out && p.stats.probes == 1, "probe_out %u", p.probe_out);
	/* Outstanding: the deadline is its timeout (RTO 4 ms). */
	CHECK(mrc_path_deadline(&p, &pp) == t + 354 * MS, "timeout at %llu",
	      ULL(mrc_path_deadline(&p, &pp) - t));
	CHECK(!mrc_path_timer(&p, &pp, t + 353 * MS), "early timeout");
	/* Answered: still ACTIVE, next keepalive 250 ms after the reply. */
	ev(&p, MRC_PATH_EV_REPLY, t + 352 * MS, t + 350 * MS);
	CHECK(p.state == MRC_PATH_ACTIVE && !p.probe_out, "%s", st(p.state));
	due = mrc_path_deadline(&p, &pp);
	CHECK(due == t + 602 * MS, "next keepalive %llu", ULL(due - t));
	CHECK(p.stats.timeouts == 0, "timeouts %llu", ULL(p.stats.timeouts));
}

/* An unanswered keepalive takes the path out within one RTO. */
static void keepalive__unanswered_times_out(void)
{
	struct mrc_path p;
	u64 t = T0, ka = T0 + 250 * MS, out;

	mk(&p, MRC_PATH_ACTIVE, t);
	CHECK(mrc_path_timer(&p, &pp, ka), "no keepalive");
	out = mrc_path_deadline(&p, &pp);
	CHECK(out - ka == mrc_path_rto(&p, &pp), "timeout after %llu",
	      ULL(out - ka));
	CHECK(out - ka < 50 * MS, "too slow: %llu", ULL(out - ka));
	/* The timeout moves it out and asks for a probe at once. */
	CHECK(mrc_path_timer(&p, &pp, out), "no probe after timeout");
	CHECK(p.state == MRC_PATH_ASSUMED_BAD && p.reason == MRC_PATH_EV_RTO,
	      "%s reason %s", st(p.state), evn(p.reason));
	CHECK(p.stats.timeouts == 1 && p.stats.probes == 2 &&
	      p.rtt.backoff == 1, "timeouts %llu probes %llu backoff %u",
	      ULL(p.stats.timeouts), ULL(p.stats.probes), p.rtt.backoff);
	CHECK(mrc_path_deadline(&p, &pp) == out + 10 * MS, "next %llu",
	      ULL(mrc_path_deadline(&p, &pp) - out));
	/* An ACK while the keepalive is out also proves the path. */
	mk(&p, MRC_PATH_ACTIVE, t);
	mrc_path_timer(&p, &pp, ka);
	ev(&p, MRC_PATH_EV_ACK, ka + 1 * MS, ka - 1 * MS);
	CHECK(!p.probe_out, "ack did not clear the keepalive");
	CHECK(!mrc_path_timer(&p, &pp, ka + 40 * MS) &&
	      p.state == MRC_PATH_ACTIVE, "timed out anyway");
}

static void keepalive__off(void)
{
	struct mrc_path_params q = pp;
	struct mrc_path p;

	q.keepalive_ns = 0;
	mk(&p, MRC_PATH_ACTIVE, T0);
	CHECK(mrc_path_deadline(&p, &q) == MRC_PATH_NEVER, "deadline %llu",
	      ULL(mrc_path_deadline(&p, &q)));
	CHECK(!mrc_path_timer(&p, &q, U64_MAX), "probed");
	/* Turned off while a keepalive is out: its timeout still runs. */
	mrc_path_timer(&p, &pp, T0 + 250 * MS);
	CHECK(mrc_path_deadline(&p, &q) == T0 + 254 * MS, "deadline %llu",
	      ULL(mrc_path_deadline(&p, &q)));
}

/* ---------------------------------------------------------------- */
/* inflight                                                          */
/* ---------------------------------------------------------------- */

static bool balanced(const struct mrc_path *p)
{
	const struct mrc_path_stats *s = &p->stats;

	return s->tx_pkts == p->inflight_pkts + s->acked_pkts + s->lost_pkts +
			     s->released_pkts &&
	       s->tx_bytes == p->inflight_bytes + s->acked_bytes +
			      s->lost_bytes + s->released_bytes;
}

static void inflight__add_sub(void)
{
	struct mrc_path p;

	mrc_path_init(&p, 0, 0, 0, T0);
	CHECK(mrc_path_inflight_add(&p, 1, 4040) == 0, "add");
	CHECK(mrc_path_inflight_add(&p, 3, 3 * 4040) == 0, "add");
	CHECK(mrc_path_inflight_add(&p, 1, 0) == 0, "empty packet");
	CHECK(mrc_path_inflight_add(&p, 0, 0) == 0, "nothing");
	CHECK(p.inflight_pkts == 5 && p.inflight_bytes == 4 * 4040,
	      "%u %llu", p.inflight_pkts, ULL(p.inflight_bytes));
	CHECK(mrc_path_inflight_sub(&p, 2, 2 * 4040, MRC_PATH_DONE_ACKED) == 0,
	      "acked");
	CHECK(mrc_path_inflight_sub(&p, 1, 4040, MRC_PATH_DONE_LOST) == 0,
	      "lost");
	CHECK(mrc_path_inflight_sub(&p, 2, 4040, MRC_PATH_DONE_RELEASED) == 0,
	      "released");
	CHECK(p.inflight_pkts == 0 && p.inflight_bytes == 0, "%u %llu",
	      p.inflight_pkts, ULL(p.inflight_bytes));
	CHECK(p.stats.tx_pkts == 5 && p.stats.acked_pkts == 2 &&
	      p.stats.lost_pkts == 1 && p.stats.released_pkts == 2 &&
	      p.stats.lost_bytes == 4040, "stats");
	CHECK(balanced(&p), "unbalanced");
	CHECK(p.stats.inflight_errors == 0, "errors");
}

static void inflight__never_negative(void)
{
	struct mrc_path p, before;

	mrc_path_init(&p, 0, 0, 0, T0);
	CHECK(mrc_path_inflight_sub(&p, 1, 0, MRC_PATH_DONE_ACKED) == -ERANGE,
	      "sub from empty");
	mrc_path_inflight_add(&p, 2, 100);
	before = p;
	CHECK(mrc_path_inflight_sub(&p, 3, 100, MRC_PATH_DONE_ACKED) == -ERANGE,
	      "too many packets");
	CHECK(mrc_path_inflight_sub(&p, 1, 101, MRC_PATH_DONE_ACKED) == -ERANGE,
	      "too many bytes");
	CHECK(mrc_path_inflight_sub(&p, 2, 99, MRC_PATH_DONE_LOST) == -ERANGE,
	      "leaves bytes without packets");
	CHECK(mrc_path_inflight_sub(&p, 0, 1, MRC_PATH_DONE_LOST) == -EINVAL,
	      "bytes without packets");
	CHECK(mrc_path_inflight_sub(&p, 1, 1, MRC_PATH_DONE_NR) == -EINVAL,
	      "bad reason");
	CHECK(mrc_path_inflight_sub(&p, 1, 1, (enum mrc_path_done)-1) ==
	      -EINVAL, "bad reason");
	CHECK(p.stats.inflight_errors == before.stats.inflight_errors + 6,
	      "errors %llu", ULL(p.stats.inflight_errors));
	p.stats.inflight_errors = before.stats.inflight_errors;
	CHECK(!memcmp(&p, &before, sizeof(p)), "refused sub changed state");
	CHECK(mrc_path_inflight_sub(&p, 2, 100, MRC_PATH_DONE_ACKED) == 0,
	      "exact");
	CHECK(p.inflight_pkts == 0 && p.inflight_bytes == 0, "not empty");
}

static void inflight__add_refuses_overflow(void)
{
	struct mrc_path p, before;

	mrc_path_init(&p, 0, 0, 0, T0);
	CHECK(mrc_path_inflight_add(&p, 0, 1) == -EINVAL,
	      "bytes without packets");
	mrc_path_inflight_add(&p, U32_MAX - 1, 10);
	before = p;
	CHECK(mrc_path_inflight_add(&p, 2, 0) == -EOVERFLOW, "pkts wrap");
	CHECK(mrc_path_inflight_add(&p, 1, U64_MAX - 9) == -EOVERFLOW,
	      "bytes wrap");
	CHECK(p.stats.inflight_errors == 3, "errors %llu",
	      ULL(p.stats.inflight_errors));
	p.stats.inflight_errors = before.stats.inflight_errors;
	CHECK(!memcmp(&p, &before, sizeof(p)), "refused add changed state");
	CHECK(mrc_path_inflight_add(&p, 1, U64_MAX - 10) == 0, "to the brim");
}

/* Random add/sub: never negative, always balanced. */
static void inflight__random_walk(void)
{
	struct mrc_path p;
	u32 seed = 7, pkts, i;
	u64 bytes, want_pkts = 0, want_bytes = 0;
	int rc;

	mrc_path_init(&p, 0, 0, 0, T0);
	for (i = 0; i < 100000; i++) {
		seed = seed * 1103515245 + 12345;
		pkts = (seed >> 8) % 4;
		bytes = (u64)pkts * ((seed >> 12) % 4097);
		if ((seed >> 20) & 1) {
			rc = mrc_path_inflight_add(&p, pkts, bytes);
			if (!rc) {
				want_pkts += pkts;
				want_bytes += bytes;
			}
		} else {
			rc = mrc_path_inflight_sub(&p, pkts, bytes,
						   (seed >> 22) % 3);
			if (!rc) {
				want_pkts -= pkts;
				want_bytes -= bytes;
			}
		}
		if (p.inflight_pkts != want_pkts ||
		    p.inflight_bytes != want_bytes || !balanced(&p) ||
		    (!p.inflight_pkts && p.inflight_bytes)) {
			CHECK(0, "step %u: %u %llu, expected %llu %llu", i,
			      p.inflight_pkts, ULL(p.inflight_bytes),
			      ULL(want_pkts), ULL(want_bytes));
			break;
		}
	}
	CHECK(p.stats.inflight_errors > 0 && p.stats.acked_pkts > 0,
	      "walk did not exercise both sides");
}

/* ---------------------------------------------------------------- */

/*
 * A PROBE_REPLY recorded and sent again (or overtaken by a reply to a
 * later probe) changes nothing: no RTT sample, no liveness, no state;
 * counted in stats.replayed.  A reply to a later probe is taken.
 */
static void reply__replayed(void)
{
	const u64 t = T0;
	struct mrc_path p, before;
	int rc;

	/* ACTIVE, a keepalive out: the replay must not answer it */
	mk(&p, MRC_PATH_ACTIVE, t);
	CHECK(ev(&p, MRC_PATH_EV_REPLY, t + 10 * MS, t + 9 * MS) == 0,
	      "a reply to a later probe taken");
	CHECK(p.reply_echo == t + 9 * MS, "echo %llu", ULL(p.reply_echo));
	p.probe_out = 1;
	p.probe_sent_ns = t + 20 * MS;
	before = p;
	rc = ev(&p, MRC_PATH_EV_REPLY, t + 400 * MS, t + 9 * MS);
	CHECK(rc == -EALREADY, "replay: rc %d", rc);
	CHECK(p.stats.replayed == before.stats.replayed + 1, "counted");
	before.stats.replayed++;
	CHECK(!memcmp(&p, &before, sizeof(p)),
	      "a replay changed the path (rtt, last_ok, probe_out, state)");
	rc = ev(&p, MRC_PATH_EV_REPLY, t + 400 * MS, t + 5 * MS);
	CHECK(rc == -EALREADY && p.stats.replayed == 2,
	      "an older echo: rc %d", rc);
	CHECK(p.probe_out == 1, "the keepalive is still unanswered");
	rc = ev(&p, MRC_PATH_EV_REPLY, t + 21 * MS, t + 20 * MS);
	CHECK(rc == 0 && p.probe_out == 0 && p.stats.replies ==
	      before.stats.replies + 1, "the real answer taken: rc %d", rc);

	/*
	 * ASSUMED_BAD: a reply from before the trouble is stale (ignored,
	 * as before); one replayed from after it, once taken, is refused:
	 * the path goes back only on the real answer.
	 */
	mk(&p, MRC_PATH_ASSUMED_BAD, t);
	CHECK(ev(&p, MRC_PATH_EV_REPLY, t + 2 * MS, t + 1 * MS) == 1 &&
	      p.state == MRC_PATH_ACTIVE, "back on a fresh reply");
	CHECK(ev(&p, MRC_PATH_EV_LOSS, t + 3 * MS, t + 2 * MS) == 1 &&
	      p.state == MRC_PATH_ASSUMED_BAD, "trouble again");
	rc = ev(&p, MRC_PATH_EV_REPLY, t + 4 * MS, t + 1 * MS);
	CHECK(rc == -EALREADY && p.state == MRC_PATH_ASSUMED_BAD,
	      "the old reply again: rc %d state %s", rc, st(p.state));

	/* a new path (re-resolved) starts with no mark, and no replay of
	 * the old path's replies passes: they are older than its state
	 */
	mrc_path_init(&p, 1, 2, 7, t + 50 * MS);
	CHECK(p.reply_echo == 0, "init clears the mark");
	CHECK(ev(&p, MRC_PATH_EV_REPLY, t + 60 * MS, t + 9 * MS) == 0 &&
	      p.state == MRC_PATH_PROBING, "an old reply does not bring it up");
}

static const struct tap_test tests[] = {
#define T(f) { #f, f }
	T(params__defaults),
	T(params__check_refuses),
	T(init__probing),
	T(names__all),
	T(reply__replayed),
	T(event__every_event_every_state),
	T(event__unknown),
	T(reply__rtt_and_counters),
	T(reply__bad_echo_refused),
	T(reply__stale_probe_ignored),
	T(loss__stale_no_flap),
	T(ack__clears_loss_run_keeps_state),
	T(rto__backs_off_only_when_fresh),
	T(rail__down_up_and_deny_remember),
	T(counters__life_cycle),
	T(seq__per_path),
	T(probe__interval_doubles_and_caps),
	T(probe__schedule_after_loss),
	T(probe__retry_not_before_rto),
	T(probe__backoff_restarts),
	T(probe__none_when_dead_or_denied),
	T(keepalive__idle_active_path),
	T(keepalive__unanswered_times_out),
	T(keepalive__off),
	T(inflight__add_sub),
	T(inflight__never_negative),
	T(inflight__add_refuses_overflow),
	T(inflight__random_walk),
#undef T
};

int main(void)
{
	mrc_path_params_default(&pp);
	return tap_run(tests, ARRAY_SIZE(tests));
}
