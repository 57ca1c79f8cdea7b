// SPDX-License-Identifier: GPL-2.0
/*
 * msg_floor_test.c - user-space unit tests of the learned floors of the
 * message engine's loss detection (mrc/core/msg_ack.c, Floors): the RTO
 * and the reordering allowance of a peer whose answers are fast shrink
 * to a multiple of its slowest recent RTT (a larger one while there are
 * few samples); slow answers or none lately keep the fixed 20 ms floors,
 * and so does a data_rto_min_ms knob above 0.
 */
#include <stdio.h>
#include <stdlib.h>

#include "msg_pair.h"
#include "../../../mrc/core/msg_int.h"	/* MRC_MSG_FLOOR_* */

#define US		1000ULL
#define WIN		((u64)MRC_MSG_FLOOR_WIN_NS)

static void tick(u64 ns)
{
	A->now += ns;
	B->now = A->now;
}

/*
 * One one-packet message from A to B whose SACK comes back @rtt_ns after
 * it left: the sample A's floor learns from.  Returns 1 if it completed.
 */
static int exchange(u64 rtt_ns)
{
	struct done_rec d = { 0 };
	int err;

	host_send_msg(A, NULL, SEG, 0, done_fn, &d, &err);
	if (err)
		return 0;
	tick(rtt_ns);
	host_pump(A);
	host_run(B);
	host_pump(B);
	host_run(A);
	return d.calls == 1 && d.status == 0;
}

static unsigned int exchanges(unsigned int n, u64 rtt_ns)
{
	unsigned int i, ok = 0;

	for (i = 0; i < n; i++)
		ok += exchange(rtt_ns);
	return ok;
}

static u32 floor_now(void)
{
	return mrc_msg_floor_ns(&A->mp, A->now);
}

/* The floor follows the largest RTT of the last one to two windows. */
static void floor__learned_from_sacks(void)
{
	pair();
	CHECK(A->knob[MRC_KNOB_data_rto_min_ms] == 0,
	      "the knob's default is 0 (learned)");
	CHECK(floor_now() == MRC_MSG_FLOOR_MAX_NS,
	      "no sample yet: the fixed floor, %u", floor_now());
	CHECK(exchange(50 * US) == 1, "a send of 50 us RTT completed");
	CHECK(floor_now() == MRC_MSG_FLOOR_YOUNG * MRC_MSG_FLOOR_MULT * 50 * US,
	      "one sample: 4 x 8 x 50 us, %u", floor_now());
	CHECK(exchanges(MRC_MSG_FLOOR_SAMPLES - 2, 50 * US) ==
	      MRC_MSG_FLOOR_SAMPLES - 2, "14 more completed");
	CHECK(floor_now() == MRC_MSG_FLOOR_YOUNG * MRC_MSG_FLOOR_MULT * 50 * US,
	      "15 samples are still few: 4 x 8 x 50 us, %u", floor_now());
	exchange(50 * US);
	CHECK(floor_now() == MRC_MSG_FLOOR_MULT * 50 * US,
	      "16 samples of 50 us: 8 x 50 us, %u", floor_now());
	exchange(1 * MS);
	CHECK(floor_now() == MRC_MSG_FLOOR_MULT * MS,
	      "one of 1 ms: 8 ms, %u", floor_now());
	/* A new window: the last one's 1 ms still counts. */
	tick(WIN);
	exchanges(MRC_MSG_FLOOR_SAMPLES, 50 * US);
	CHECK(floor_now() == MRC_MSG_FLOOR_MULT * MS,
	      "the window before still counts: %u", floor_now());
	tick(WIN);
	exchanges(MRC_MSG_FLOOR_SAMPLES, 50 * US);
	CHECK(floor_now() == MRC_MSG_FLOOR_MULT * 50 * US,
	      "two windows later it is forgotten: %u", floor_now());
	exchanges(MRC_MSG_FLOOR_SAMPLES, 1 * US);
	CHECK(floor_now() == MRC_MSG_FLOOR_MULT * 50 * US,
	      "smaller samples do not lower the window's largest: %u",
	      floor_now());
	/* SACKs stop: after two windows nothing is known. */
	tick(WIN + WIN / 2);
	CHECK(floor_now() == MRC_MSG_FLOOR_MULT * 50 * US,
	      "1.5 windows after the last sample it holds: %u", floor_now());
	tick(WIN / 2);
	CHECK(floor_now() == MRC_MSG_FLOOR_MAX_NS,
	      "2 windows after it: the fixed floor again, %u", floor_now());
	unpair();
}

static void floor__clamped(void)
{
	pair();
	exchanges(MRC_MSG_FLOOR_SAMPLES, 1 * US);
	CHECK(floor_now() == MRC_MSG_FLOOR_MIN_NS,
	      "1 us RTTs: the least floor, %u", floor_now());
	exchanges(1, 3 * MS);
	CHECK(floor_now() == MRC_MSG_FLOOR_MAX_NS,
	      "a 3 ms RTT (the VMs'): the fixed floor, %u", floor_now());
	exchanges(1, 10 * 1000 * MS);
	CHECK(floor_now() == MRC_MSG_FLOOR_MAX_NS,
	      "a 10 s one: still the fixed floor, %u", floor_now());
	unpair();
}

/*
 * A one-packet message lost at the tail: only a timeout can find it.
 * Returns the time from its loss to its RTO resend (0: none within
 * @limit_ns), trying every 50 us.
 */
static u64 tail_loss_resend_after(u64 limit_ns, struct done_rec *d)
{
	u64 t0, t;
	int err;

	host_send_msg(A, NULL, SEG, 0, done_fn, d, &err);
	if (err || !host_take(A))
		return 0;
	t0 = A->now;
	for (t = 0; t < limit_ns; t += 50 * US) {
		tick(50 * US);
		host_run(A);
		if (A->stats[MRC_MS_RTO_PKTS])
			return A->now - t0;
	}
	return 0;
}

/*
 * After a tail loss: the resend comes between @lo_ns and @hi_ns, and the
 * message then completes.
 */
static void tail_loss_resent_between(u64 lo_ns, u64 hi_ns, const char *what)
{
	struct done_rec d = { 0 };
	u64 after;

	after = tail_loss_resend_after(hi_ns + 10 * MS, &d);
	CHECK(after >= lo_ns && after <= hi_ns,
	      "%s: resent after %llu ns, want %llu..%llu", what,
	      (unsigned long long)after, (unsigned long long)lo_ns,
	      (unsigned long long)hi_ns);
	host_settle(A, B, A->now + 100 * MS);
	CHECK(d.calls == 1 && d.status == 0, "%s: completes: %d %d", what,
	      d.calls, d.status);
}

static void floor__tail_loss_resent_at_learned_floor(void)
{
	pair();
	exchanges(2 * MRC_MSG_FLOOR_SAMPLES, 20 * US);
	CHECK(floor_now() == 8 * 20 * US, "learned 160 us: %u", floor_now());
	tail_loss_resent_between(8 * 20 * US, 1 * MS,
				 "learned 160 us: within 1 ms, not before");
	unpair();
}

/*
 * A peer that exchanged little (an all-to-all's, an incast's first
 * window): one sample is enough for a floor, with a wider margin.
 */
static void floor__young_peer_resends_before_the_fixed_floor(void)
{
	u32 young = MRC_MSG_FLOOR_YOUNG * MRC_MSG_FLOOR_MULT * 50 * US;

	pair();
	exchange(50 * US);
	CHECK(floor_now() == young, "one sample of 50 us: %u", floor_now());
	tail_loss_resent_between(young, young + 1 * MS,
				 "one sample: within 1 ms of 1.6 ms");
	unpair();
	/*
	 * One VM-like answer (hundreds of us): 4 x 8 x 100 us is above
	 * MRC_MSG_FLOOR_YOUNG_MAX_NS, so the fixed floor.
	 */
	pair();
	exchange(100 * US);
	CHECK(floor_now() == MRC_MSG_FLOOR_MAX_NS,
	      "one sample of 100 us: the fixed floor, %u", floor_now());
	tail_loss_resent_between(20 * MS, 30 * MS,
				 "one sample of 100 us: after 20 ms");
	unpair();
}

/*
 * Every active path of @h has one RTT sample, of @rtt_ns: its probe's
 * (the pair's paths came up with a reply of no delay).
 */
static void probe_rtt(struct host *h, u64 rtt_ns)
{
	struct mrc_path_params pp;
	unsigned int i;

	mrc_path_params_default(&pp);
	tick(2 * rtt_ns);
	for (i = 0; i < MRC_MSG_NPATHS; i++) {
		struct mrc_path *p = h->mp.path[i];

		if (!p || p->state != MRC_PATH_ACTIVE)
			continue;
		mrc_rtt_init(&p->rtt);
		mrc_path_event(p, &pp, MRC_PATH_EV_REPLY, h->now,
			       h->now - rtt_ns);
	}
}

/*
 * No data sample yet (a first window lost whole): the RTO's floor is
 * MRC_MSG_FLOOR_PROBE_MULT x the probes' RTT, not the fixed floor; probes
 * of VM-like RTTs keep the fixed floor, and so do paths never probed.
 */
static void floor__probes_before_the_first_sample(void)
{
	u32 probe = MRC_MSG_FLOOR_PROBE_MULT * 4 * US;

	pair();
	CHECK(mrc_msg_loss_floor_ns(&A->mp, A->now) == MRC_MSG_FLOOR_MAX_NS,
	      "no probe RTT: the fixed floor, %u",
	      mrc_msg_loss_floor_ns(&A->mp, A->now));
	probe_rtt(A, 4 * US);
	CHECK(mrc_msg_loss_floor_ns(&A->mp, A->now) == probe,
	      "probes of 4 us: %u, want %u",
	      mrc_msg_loss_floor_ns(&A->mp, A->now), probe);
	tail_loss_resent_between(probe, probe + 1 * MS,
				 "probes of 4 us: within 1 ms of 1 ms");
	unpair();
	pair();
	probe_rtt(A, 20 * US);
	CHECK(mrc_msg_loss_floor_ns(&A->mp, A->now) == MRC_MSG_FLOOR_MAX_NS,
	      "probes of 20 us: the fixed floor, %u",
	      mrc_msg_loss_floor_ns(&A->mp, A->now));
	tail_loss_resent_between(20 * MS, 30 * MS,
				 "probes of 20 us: after 20 ms");
	unpair();
}

static void floor__knob_fixes_the_floor(void)
{
	pair();
	A->knob[MRC_KNOB_data_rto_min_ms] = 20;
	exchanges(2 * MRC_MSG_FLOOR_SAMPLES, 20 * US);
	tail_loss_resent_between(20 * MS, 25 * MS,
				 "data_rto_min_ms 20: after 20 ms");
	unpair();
}

/* Slow answers (the VM fabric's): the lost packet waits the fixed floor. */
static void floor__slow_answers_keep_the_fixed_floor(void)
{
	pair();
	exchanges(2 * MRC_MSG_FLOOR_SAMPLES, 3 * MS);
	tail_loss_resent_between(20 * MS, 30 * MS,
				 "3 ms RTTs: after 20 ms at the earliest");
	unpair();
}

/*
 * Answers slower than half the fixed floor (a receiver whose queue takes
 * 15 ms to drain): the RTO's floor is twice the slowest of them, above
 * the fixed floor, so a packet at the back of that queue is not resent;
 * a tail loss still is.
 */
static void floor__rto_above_twice_the_slowest_answer(void)
{
	pair();
	exchanges(2 * MRC_MSG_FLOOR_SAMPLES, 15 * MS);
	CHECK(mrc_msg_loss_floor_ns(&A->mp, A->now) ==
	      15 * MS * MRC_MSG_RTO_HI_MULT,
	      "15 ms answers: an RTO floor of %u", mrc_msg_loss_floor_ns(&A->mp, A->now));
	CHECK(floor_now() == MRC_MSG_FLOOR_MAX_NS,
	      "the reordering allowance's floor stays fixed: %u", floor_now());
	tail_loss_resent_between(30 * MS, 40 * MS,
				 "15 ms RTTs: after 30 ms at the earliest");
	unpair();
}

/*
 * Answers slower than the fixed floor (a window queued behind a slow last
 * hop): each counts whole, so the RTO's floor is twice the slowest of
 * them, up to rto_max_ms.
 */
static void floor__rto_follows_a_slow_queue(void)
{
	u64 max;

	pair();
	max = A->knob[MRC_KNOB_rto_max_ms] * MS;
	exchanges(2 * MRC_MSG_FLOOR_SAMPLES, 60 * MS);
	CHECK(mrc_msg_loss_floor_ns(&A->mp, A->now) ==
	      60 * MS * MRC_MSG_RTO_HI_MULT,
	      "60 ms answers: an RTO floor of %u",
	      mrc_msg_loss_floor_ns(&A->mp, A->now));
	exchange(max);
	CHECK(mrc_msg_loss_floor_ns(&A->mp, A->now) == max,
	      "one as long as rto_max_ms: the floor is rto_max_ms, %u",
	      mrc_msg_loss_floor_ns(&A->mp, A->now));
	unpair();
}

/*
 * A packet overtaken by a later one that was acked: on this fast fabric
 * the stuck-packet rule finds it lost within the delivering path's srtt +
 * 4 rttvar, before the RTO's learned floor.  Both left in the same
 * microsecond: the later index of the same message went later.
 */
static void floor__overtaken_packet_resent_soon(void)
{
	struct done_rec d = { 0 };
	struct host_pkt *first;
	u64 t0, lost = 0;
	int err;

	pair();
	exchanges(2 * MRC_MSG_FLOOR_SAMPLES, 20 * US);
	host_send_msg(A, NULL, 2 * SEG, 0, done_fn, &d, &err);
	first = host_take(A);
	CHECK(first && A->nout == 1, "two packets out, the first taken");
	/* the second arrives and is acked at once (LAST) */
	tick(20 * US);
	host_pump(A);
	host_run(B);
	host_pump(B);
	CHECK(d.calls == 0, "the message is not complete");
	t0 = A->now;
	while (!lost && A->now - t0 < 30 * MS) {
		tick(10 * US);
		host_run(A);
		lost = A->stats[MRC_MS_REO_LOSS_PKTS] +
		       A->stats[MRC_MS_RTO_PKTS] +
		       A->stats[MRC_MS_STUCK_LOSS_PKTS];
	}
	CHECK(lost == 1 && A->stats[MRC_MS_STUCK_LOSS_PKTS] == 1,
	      "found lost by the stuck rule: stuck %llu reo_loss %llu rto %llu",
	      (unsigned long long)A->stats[MRC_MS_STUCK_LOSS_PKTS],
	      (unsigned long long)A->stats[MRC_MS_REO_LOSS_PKTS],
	      (unsigned long long)A->stats[MRC_MS_RTO_PKTS]);
	CHECK(A->now - t0 <= 100 * US,
	      "within 100 us (the RTO floor is 160), by the timer alone: %llu ns",
	      (unsigned long long)(A->now - t0));
	host_settle(A, B, A->now + 100 * MS);
	CHECK(d.calls == 1 && d.status == 0, "completes: %d %d", d.calls,
	      d.status);
	unpair();
}

/*
 * The ACK of a resent packet may be of its first send (Karn): it is no
 * evidence that what was sent before the resend on the resend's path is
 * lost.  M1's first packet is held until the stuck rule resends it; M2's
 * packets, sent before that resend on every path, stay in flight; then
 * M1's first send arrives (its ACK counts for the resend's path) and the
 * rest of M2 arrives but what went on that path.  None of M2's packets
 * may be found lost: a path is FIFO, and its resend is behind them.
 */
static struct host_pkt held[24];

static void karn__resent_ack_is_no_loss_evidence(void)
{
	struct done_rec d1 = { 0 }, d2 = { 0 };
	struct host_pkt *hp, orig, resend;
	unsigned int i, n = 0, on_y = 0;
	u64 t0;
	int err;

	pair();
	exchanges(2 * MRC_MSG_FLOOR_SAMPLES, 20 * US);
	host_send_msg(A, NULL, 2 * SEG, 0, done_fn, &d1, &err);
	host_send_msg(A, NULL, 16 * SEG, 0, done_fn, &d2, &err);
	CHECK(A->nout == 18, "18 packets out: %u", A->nout);
	if (A->nout != 18)
		goto out;
	orig = *host_take(A);
	hp = host_take(A);
	host_input(B, hp->pi, hp->buf, hp->len);
	while ((hp = host_take(A)) && n < ARRAY_SIZE(held))
		held[n++] = *hp;
	tick(20 * US);
	host_pump(B);
	t0 = A->now;
	while (!A->nout && A->now - t0 < 150 * US) {
		tick(10 * US);
		host_run(A);
	}
	CHECK(A->stats[MRC_MS_STUCK_LOSS_PKTS] == 1 &&
	      !A->stats[MRC_MS_RTO_PKTS],
	      "M1's first packet resent by the stuck rule: stuck %llu",
	      (unsigned long long)A->stats[MRC_MS_STUCK_LOSS_PKTS]);
	/* the resend is the one full packet; the others probe its old path */
	resend.len = 0;
	while ((hp = host_take(A))) {
		if (hp->len == orig.len && !resend.len)
			resend = *hp;
		else
			host_input(B, hp->pi, hp->buf, hp->len);
	}
	CHECK(resend.len == orig.len, "the resend went out");
	if (resend.len != orig.len)
		goto out;
	/* its first send arrives: M1 completes, acked on resend.pi */
	host_input(B, orig.pi, orig.buf, orig.len);
	host_batch_end(B);
	host_pump(B);
	CHECK(d1.calls == 1 && d1.status == 0, "M1 completes");
	for (i = 0; i < n; i++) {
		if (held[i].pi == resend.pi)
			on_y++;
		else
			host_input(B, held[i].pi, held[i].buf, held[i].len);
	}
	CHECK(on_y > 0 && on_y < n, "M2 packets on the resend's path: %u of %u",
	      on_y, n);
	host_pump(B);
	host_run(A);
	CHECK(!A->stats[MRC_MS_LOSS_PKTS],
	      "none of M2's packets found lost: %llu",
	      (unsigned long long)A->stats[MRC_MS_LOSS_PKTS]);
	for (i = 0; i < n; i++)
		if (held[i].pi == resend.pi)
			host_input(B, held[i].pi, held[i].buf, held[i].len);
	host_input(B, resend.pi, resend.buf, resend.len);
out:
	host_settle(A, B, A->now + 100 * MS);
	CHECK(d2.calls == 1 && d2.status == 0, "M2 completes: %d %d", d2.calls,
	      d2.status);
	unpair();
}

static const struct tap_test tests[] = {
	{ "floor__learned_from_sacks", floor__learned_from_sacks },
	{ "floor__clamped", floor__clamped },
	{ "floor__tail_loss_resent_at_learned_floor",
	  floor__tail_loss_resent_at_learned_floor },
	{ "floor__young_peer_resends_before_the_fixed_floor",
	  floor__young_peer_resends_before_the_fixed_floor },
	{ "floor__probes_before_the_first_sample",
	  floor__probes_before_the_first_sample },
	{ "floor__knob_fixes_the_floor", floor__knob_fixes_the_floor },
	{ "floor__rto_above_twice_the_slowest_answer",
	  floor__rto_above_twice_the_slowest_answer },
	{ "floor__rto_follows_a_slow_queue", floor__rto_follows_a_slow_queue },
	{ "floor__slow_answers_keep_the_fixed_floor",
	  floor__slow_answers_keep_the_fixed_floor },
	{ "floor__overtaken_packet_resent_soon",
	  floor__overtaken_packet_resent_soon },
	{ "karn__resent_ack_is_no_loss_evidence",
	  karn__resent_ack_is_no_loss_evidence },
};

int main(void)
{
	return tap_run(tests, ARRAY_SIZE(tests));
}
