// SPDX-License-Identifier: GPL-2.0
/*
 * knob_sweep_test.c - every knob the message engine reads, swept over its
 * range (knob_values.h: min, min + 1, the ms values where a product in ns
 * crosses 2^32, its half or its quadruple, max - 1, max), each value on
 * both hosts of a pair on a lossy, reordering wire, with a check that
 * what the knob controls stays sane: a mixed workload (four classes, 1 B
 * to 300 KB) is delivered exactly once, intact, every send completes with
 * status 0, the sender never queues more than tx_msgs_per_peer, the
 * receiver never holds more than rx_buffer_mb of reassembly memory, the
 * whole run ends within a bounded simulated time, and nothing is left
 * allocated.  knobs_test.c checks the knob-to-parameter arithmetic; this
 * one the engine behind it.
 *
 * Output is TAP 13; the exit status is 0 only if every test passed.
 *   make -C selftests/mrc/unit run
 */
#include <stdio.h>
#include <stdlib.h>

#include "msg_pair.h"
#include "knob_values.h"

#define NMSG		48
#define RUN_LIMIT_NS	(120000 * MS)	/* simulated time for one run */

struct run {
	unsigned int sent, completed, bad_status, delivered, dup, corrupt;
	unsigned int ntx_max;
	u64 rx_hi;			/* most receive bytes held at once */
	u8 seen[NMSG];
};

static struct run R;

/* Message @i: its length, and its bytes (the index, then a pattern). */
static u32 msg_len(unsigned int i)
{
	static const u32 lens[] = { 1, 100, 4000, 4200, 16384, 65536,
				    100000, 300000 };

	return lens[i % ARRAY_SIZE(lens)];
}

static u8 msg_byte(unsigned int i, u32 off)
{
	return off < 4 ? (u8)(i >> (8 * off)) : (u8)(i * 31 + off * 7);
}

static void delivered(struct host *h, const struct mrc_msg_rx *rm)
{
	const u8 *b = rm->buf;
	unsigned int i;
	u32 off, len = rm->r.msg_len;

	(void)h;
	if (len < 4) {
		i = len ? b[0] : NMSG;	/* NMSG < 256 */
	} else {
		i = b[0] | b[1] << 8 | b[2] << 16 | (u32)b[3] << 24;
	}
	if (i >= NMSG || msg_len(i) != len) {
		R.corrupt++;
		return;
	}
	for (off = 0; off < len; off++)
		if (b[off] != msg_byte(i, off)) {
			R.corrupt++;
			return;
		}
	if (R.seen[i]++)
		R.dup++;
	else
		R.delivered++;
}

static void completed(struct host *h, const struct mrc_msg_tx *m)
{
	(void)h;
	R.completed++;
	if (m->status)
		R.bad_status++;
}

static const struct host_hooks hooks = {
	.delivered = delivered,
	.completed = completed,
};

/*
 * Carries @from's queued packets to its peer: about one in @loss_every
 * is lost, and every packet may swap places with the next one.
 */
static void pump_lossy(struct host *from, unsigned int loss_every)
{
	struct host_pkt *hp, held;
	bool holding = false;

	while ((hp = host_take(from))) {
		if (loss_every && rnd(loss_every) == 0)
			continue;
		if (!holding && rnd(4) == 0) {
			held = *hp;
			holding = true;
			continue;
		}
		host_input(from->peer, hp->pi, hp->buf, hp->len);
		if (holding) {
			host_input(from->peer, held.pi, held.buf, held.len);
			holding = false;
		}
	}
	if (holding)
		host_input(from->peer, held.pi, held.buf, held.len);
	host_batch_end(from->peer);
}

/*
 * The hosts' keepalives, as the module's glue sends them: a path out of
 * the spray set is probed, and on this wire the probe is answered (its
 * loss is the packets', not the path's), 20 us after it went.
 */
static void probe_back(struct host *h)
{
	struct mrc_path_params pp;
	unsigned int pi;

	mrc_path_params_default(&pp);
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++) {
		struct mrc_path *p = &h->path[pi];

		if ((p->state == MRC_PATH_ASSUMED_BAD ||
		     p->state == MRC_PATH_PROBING) &&
		    p->since_ns + 40000 <= h->now &&
		    mrc_path_event(p, &pp, MRC_PATH_EV_REPLY, h->now,
				   h->now - 20000) > 0)
			h->kicks++;
	}
}

/* Sends what the queue takes; -ENOBUFS leaves the rest for later. */
static void send_more(void)
{
	static const u8 cls[] = { MRC_SCHED_CLASS_DEFAULT,
				  MRC_SCHED_CLASS_LATENCY,
				  MRC_SCHED_CLASS_BULK,
				  MRC_SCHED_CLASS_BACKGROUND };
	static u8 buf[300000];	/* the largest message */
	int err;

	while (R.sent < NMSG) {
		unsigned int i = R.sent;
		u32 len = msg_len(i), off;

		for (off = 0; off < len; off++)
			buf[off] = msg_byte(i, off);
		if (!host_send_msg(A, buf, len, cls[i % ARRAY_SIZE(cls)],
				   NULL, NULL, &err))
			break;
		R.sent++;
		if (A->mp.ntx > R.ntx_max)
			R.ntx_max = A->mp.ntx;
	}
}

/*
 * One run with knob @id at @v on both hosts: the workload on a wire that
 * loses one packet in 20 and reorders, advancing time to whatever is due
 * next (at least 100 us a step: the wire's delay).
 */
static u64 run_one(unsigned int id, u64 v)
{
	u64 t0;

	memset(&R, 0, sizeof(R));
	rng_state = 1 + id * 7919 + v;
	pair();
	A->hooks = &hooks;
	B->hooks = &hooks;
	A->knob[id] = v;
	B->knob[id] = v;
	t0 = A->now;
	while (A->now - t0 < RUN_LIMIT_NS &&
	       (R.sent < NMSG || R.completed < R.sent)) {
		u64 t, held;

		send_more();
		probe_back(A);
		probe_back(B);
		host_run(A);
		host_run(B);
		pump_lossy(A, 20);
		pump_lossy(B, 20);
		host_run(A);
		host_run(B);
		held = (u64)atomic64_read(&B->node.rx_bytes);
		if (held > R.rx_hi)
			R.rx_hi = held;
		if (R.sent == NMSG && R.completed == NMSG)
			break;	/* not on to a timer due after the end */
		t = host_next_due(A);
		if (host_next_due(B) < t)
			t = host_next_due(B);
		/*
		 * One step of the wire's delay; and no further while sends
		 * wait for room: the queue takes them again when a message
		 * completes, not at the next timer (none may be armed).
		 */
		if (t < A->now + 100000 || R.sent < NMSG)
			t = A->now + 100000;
		A->now = B->now = t;
	}
	host_settle(A, B, A->now + 10 * MS);
	return A->now - t0;
}

static void sweep_knob(unsigned int id)
{
	const struct mrc_knob *k = &mrc_knobs[id];
	u64 v[SWEEP_MAX];
	unsigned int n, j;

	n = sweep(id, v);
	for (j = 0; j < n; j++) {
		u64 took = run_one(id, v[j]);

		printf("# %s %llu: %llu ms simulated, %u queued at most, %llu KiB held at most\n",
		       k->name, (unsigned long long)v[j],
		       (unsigned long long)(took / MS), R.ntx_max,
		       (unsigned long long)(R.rx_hi >> 10));

		CHECK(R.sent == NMSG && R.completed == NMSG && !R.bad_status,
		      "%s %llu: %u sent, %u completed, %u with an error",
		      k->name, (unsigned long long)v[j], R.sent, R.completed,
		      R.bad_status);
		CHECK(R.delivered == NMSG && !R.dup && !R.corrupt,
		      "%s %llu: %u delivered once, %u twice, %u corrupt",
		      k->name, (unsigned long long)v[j], R.delivered, R.dup,
		      R.corrupt);
		CHECK(took < RUN_LIMIT_NS, "%s %llu: done in %llu ms",
		      k->name, (unsigned long long)v[j],
		      (unsigned long long)(took / MS));
		if (id == MRC_KNOB_tx_msgs_per_peer)
			CHECK(R.ntx_max <= v[j], "%s %llu: at most %u queued",
			      k->name, (unsigned long long)v[j], R.ntx_max);
		if (id == MRC_KNOB_rx_buffer_mb)
			CHECK(R.rx_hi <= (v[j] << 20),
			      "%s %llu: at most %llu bytes held",
			      k->name, (unsigned long long)v[j],
			      (unsigned long long)R.rx_hi);
		unpair();
	}
}

#define KNOB_TEST(name)							\
static void sweep__##name(void)						\
{									\
	sweep_knob(MRC_KNOB_##name);					\
}

KNOB_TEST(tx_msgs_per_peer)
KNOB_TEST(rx_msgs_per_peer)
KNOB_TEST(rx_buffer_mb)
KNOB_TEST(peer_timeout_ms)
KNOB_TEST(probe_ms)
KNOB_TEST(rto_max_ms)
KNOB_TEST(data_rto_min_ms)
KNOB_TEST(bg_yield_pkts)
KNOB_TEST(bulk_yield_pkts)

/* The defaults, as a baseline for the rest. */
static void sweep__defaults(void)
{
	u64 took = run_one(MRC_KNOB_probe_ms, mrc_knobs[MRC_KNOB_probe_ms].def);

	CHECK(R.completed == NMSG && !R.bad_status && R.delivered == NMSG &&
	      !R.dup && !R.corrupt,
	      "defaults: %u completed (%u errors), %u delivered, %u dup, %u corrupt",
	      R.completed, R.bad_status, R.delivered, R.dup, R.corrupt);
	printf("# defaults: %u messages in %llu ms of simulated time\n", NMSG,
	     (unsigned long long)(took / MS));
	unpair();
}

static const struct tap_test tests[] = {
	{ "sweep__defaults", sweep__defaults },
	{ "sweep__tx_msgs_per_peer", sweep__tx_msgs_per_peer },
	{ "sweep__rx_msgs_per_peer", sweep__rx_msgs_per_peer },
	{ "sweep__rx_buffer_mb", sweep__rx_buffer_mb },
	{ "sweep__peer_timeout_ms", sweep__peer_timeout_ms },
	{ "sweep__probe_ms", sweep__probe_ms },
	{ "sweep__rto_max_ms", sweep__rto_max_ms },
	{ "sweep__data_rto_min_ms", sweep__data_rto_min_ms },
	{ "sweep__bg_yield_pkts", sweep__bg_yield_pkts },
	{ "sweep__bulk_yield_pkts", sweep__bulk_yield_pkts },
};

int main(void)
{
	(void)done_fn;	/* msg_pair.h's; the hooks count here */
	return tap_run(tests, ARRAY_SIZE(tests));
}
