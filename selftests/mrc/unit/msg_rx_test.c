// SPDX-License-Identifier: GPL-2.0
/*
 * msg_rx_test.c - user-space unit tests of mrc/core/msg_rx.c, the message
 * engine's receiver: DATA packets crafted through the wire code go into
 * one engine (msg_host.h), and its answers (SACK, NACK), deliveries and
 * memory are checked.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tap.h"
#include "msg_host.h"

#define T0		1000000000ULL
#define MS		1000000ULL
#define SEG		(4096 - MRC_WIRE_HDR_LEN)
#define EPOCH		1000000ULL	/* the sender's epoch in these tests */

static struct host *R;			/* the receiver */
static u64 delivered_ids[256];
static unsigned int ndelivered_ids;
static bool content_ok;
static u16 dport = 9;			/* data()'s destination port */

static void on_delivered(struct host *h, const struct mrc_msg_rx *rm)
{
	u32 i;

	if (ndelivered_ids < ARRAY_SIZE(delivered_ids))
		delivered_ids[ndelivered_ids++] = rm->msg_id;
	for (i = 0; i < rm->r.msg_len; i++)
		if (((u8 *)rm->buf)[i] != (u8)(rm->msg_id + i))
			content_ok = false;
}

static const struct host_hooks hooks = { .delivered = on_delivered };

static void setup(void)
{
	R = host_new(2, 2, 4, 4096, T0);
	R->hooks = &hooks;
	dport = 9;
	ndelivered_ids = 0;
	content_ok = true;
}

static void teardown(void)
{
	host_stop(R);
	CHECK(R->allocs == 0, "%ld allocations left", R->allocs);
	CHECK(R->rx_free_bad == 0, "%ld receive frees of another size",
	      R->rx_free_bad);
	CHECK(atomic64_read(&R->node.rx_bytes) == 0, "rx_bytes %lld",
	      (long long)atomic64_read(&R->node.rx_bytes));
	CHECK(atomic64_read(&R->node.rx_peers) == 0 && R->mp.rx_mem == 0,
	      "rx_peers %lld, rx_mem %llu",
	      (long long)atomic64_read(&R->node.rx_peers),
	      (unsigned long long)R->mp.rx_mem);
	host_destroy(R);
}

/* Message @n of class @cls to port dport, in @epoch. */
static u64 id_of(u64 epoch, unsigned int cls, u32 n)
{
	return epoch << 32 |
	       (u64)mrc_msg_lane(cls, dport) << MRC_MSG_LANE_SHIFT | n;
}

/* DATA packet @idx of message @id (@msg_len bytes) into R on path @pi. */
static enum mrc_drop_reason data(unsigned int pi, u64 id, u32 msg_len,
				 u32 idx, u8 flags)
{
	u8 buf[MRC_WIRE_HDR_LEN + SEG];
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.type = MRC_PKT_DATA,
		.src_node = 1,
		.dst_node = 2,
		.src_port = 7,
		.dst_port = dport,
		.msg_id = id,
		.msg_len = msg_len,
		.seg = SEG,
		.offset = idx * SEG,
		.flags = flags,
		.entropy = pi % MRC_MSG_LINK_PATHS,
		.tstamp = R->now,
	};
	u32 i;

	pkt.len = min_t(u32, SEG, msg_len - pkt.offset);
	if (pkt.offset + pkt.len == msg_len)
		pkt.flags |= MRC_WF_LAST;
	mrc_wire_put_hdr(buf, &pkt);
	for (i = 0; i < pkt.len; i++)
		buf[MRC_WIRE_HDR_LEN + i] = (u8)(id + pkt.offset + i);
	return host_input(R, pi, buf, MRC_WIRE_HDR_LEN + pkt.len);
}

/* All packets of a message, in order. */
static void whole(u64 id, u32 msg_len)
{
	u32 idx;

	for (idx = 0; idx < mrc_wire_npkts(msg_len, SEG); idx++)
		data(idx % 4, id, msg_len, idx, 0);
}

/*
 * The answers R sent since the last call, its batch of arrivals ended
 * first: how many of @type, the last.
 */
static unsigned int answers(u8 type, struct mrc_pkt *last, u8 *body)
{
	struct mrc_wire_limits lim = { MRC_MSG_MAX_BYTES, 0 };
	struct host_pkt *hp;
	unsigned int n = 0;
	struct mrc_pkt pkt;

	host_batch_end(R);
	while ((hp = host_take(R))) {
		if (mrc_wire_parse(hp->buf, hp->len, &lim, &pkt) !=
		    MRC_DROP_NONE || pkt.type != type)
			continue;
		n++;
		if (last) {
			*last = pkt;
			if (body)
				memcpy(body, hp->buf, hp->len);
		}
	}
	return n;
}

static void rx_alloc__bounds_and_no_memory(void)
{
	struct mrc_pkt pkt = { .msg_id = 1, .msg_len = 3 * SEG, .seg = SEG };
	struct mrc_msg_rx *rm;
	long k;

	setup();
	for (k = 0; k < 2; k++) {	/* the context, the buffer */
		R->alloc_fail = k;
		CHECK(!mrc_msg_rx_alloc(&R->node, &pkt), "allocation %ld fails",
		      k);
		CHECK(R->allocs == 0, "nothing left after failure %ld", k);
	}
	R->alloc_fail = -1;
	pkt.msg_len = MRC_MSG_MAX_BYTES + 1;
	CHECK(!mrc_msg_rx_alloc(&R->node, &pkt), "too big");
	pkt.msg_len = 3 * SEG;
	rm = mrc_msg_rx_alloc(&R->node, &pkt);
	CHECK(rm && atomic64_read(&R->node.rx_bytes) == 3 * SEG, "counted");
	if (rm)
		mrc_msg_rx_free(&R->node, rm);
	CHECK(atomic64_read(&R->node.rx_bytes) == 0, "uncounted");
	teardown();
}

static void rx_packet__delivers_in_order_per_lane(void)
{
	setup();
	whole(id_of(EPOCH, 2, 1), 2 * SEG);	/* bulk n 1 first */
	host_run(R);
	CHECK(ndelivered_ids == 0, "n 1 waits for n 0");
	CHECK(R->stats[MRC_MS_RX_HELD] == 1, "held");
	whole(id_of(EPOCH, 2, 0), 100);
	host_run(R);
	CHECK(ndelivered_ids == 2 && delivered_ids[0] == id_of(EPOCH, 2, 0) &&
	      delivered_ids[1] == id_of(EPOCH, 2, 1), "then both, in order");
	CHECK(content_ok, "placed at their offsets");
	teardown();
}

static void rx_packet__lanes_are_independent(void)
{
	setup();
	data(0, id_of(EPOCH, 2, 0), 3 * SEG, 0, 0);	/* bulk incomplete */
	whole(id_of(EPOCH, 1, 0), 100);			/* latency whole */
	host_run(R);
	CHECK(ndelivered_ids == 1 && delivered_ids[0] == id_of(EPOCH, 1, 0),
	      "the latency message does not wait for the bulk one");
	CHECK(READ_ONCE(R->node.lat_ns) == R->now,
	      "and tells bulk and background to yield");
	teardown();
}

static void rx_packet__duplicates_acked_whole_not_redelivered(void)
{
	struct mrc_pkt sack;
	u8 body[HOST_DGRAM_MAX];
	struct mrc_pkt_sack s;

	setup();
	whole(id_of(EPOCH, 0, 0), 2 * SEG);
	host_run(R);
	answers(MRC_PKT_SACK, NULL, NULL);
	CHECK(data(1, id_of(EPOCH, 0, 0), 2 * SEG, 1, MRC_WF_RETRANS) ==
	      MRC_DROP_DUPLICATE, "a late copy is a duplicate");
	host_run(R);
	CHECK(ndelivered_ids == 1, "delivered once: %u", ndelivered_ids);
	CHECK(answers(MRC_PKT_SACK, &sack, body) == 1, "acked");
	if (failed_checks)
		goto out;
	mrc_wire_get_sack(&sack, &s);
	CHECK(s.cum == 2 && s.nbits == 0, "as complete: cum %u", s.cum);
	CHECK(R->stats[MRC_MS_RX_DUP] == 1, "rx_dup_pkts");
out:
	teardown();
}

static void rx_packet__need_ctx_protocol(void)
{
	struct mrc_msg_rx_out out = { 0 };
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION, .type = MRC_PKT_DATA,
		.msg_id = id_of(EPOCH, 0, 0), .msg_len = 2 * SEG, .seg = SEG,
		.len = SEG, .body = (const u8 *)"",
	};
	struct mrc_pkt other = pkt;
	u8 payload[SEG] = { 0 };

	setup();
	pkt.body = payload;
	CHECK(mrc_msg_rx_packet(&R->mp, 0, &pkt, R->now, &out) ==
	      MRC_DROP_NONE && out.need_ctx, "a new message needs a context");
	CHECK(R->allocs == 0, "the engine allocated nothing itself");
	other.msg_id = id_of(EPOCH, 0, 1);
	out.fresh = mrc_msg_rx_alloc(&R->node, &other);
	CHECK(mrc_msg_rx_packet(&R->mp, 0, &pkt, R->now, &out) ==
	      MRC_DROP_BAD_FIELD && out.fresh,
	      "a context for another message is refused, left to the host");
	mrc_msg_rx_free(&R->node, out.fresh);
	out.fresh = mrc_msg_rx_alloc(&R->node, &pkt);
	CHECK(mrc_msg_rx_packet(&R->mp, 0, &pkt, R->now, &out) ==
	      MRC_DROP_NONE && !out.fresh && !out.need_ctx && out.new_bytes,
	      "the right one is taken");
	CHECK(R->mp.nrx == 1, "one context");
	teardown();
}

static void rx_packet__admission_bounds(void)
{
	struct mrc_pkt ans;

	setup();
	R->knob[MRC_KNOB_rx_msgs_per_peer] = 2;
	data(0, id_of(EPOCH, 0, 1), 2 * SEG, 0, 0);
	data(0, id_of(EPOCH, 0, 2), 2 * SEG, 0, 0);
	answers(MRC_PKT_SACK, NULL, NULL);
	CHECK(data(0, id_of(EPOCH, 0, 3), 2 * SEG, 0, 0) ==
	      MRC_DROP_NO_MEMORY, "a third context is refused");
	CHECK(R->stats[MRC_MS_RX_NO_MEM] == 1, "rx_no_mem");
	/* answered as busy: its sender waits, no path is blamed */
	CHECK(answers(MRC_PKT_SACK, &ans, NULL) == 1 &&
	      (ans.flags & MRC_WF_BUSY) && ans.msg_id == id_of(EPOCH, 0, 3),
	      "a SACK flagged busy for it: flags %#x", ans.flags);
	CHECK(data(0, id_of(EPOCH, 0, 0), 2 * SEG, 0, 0) == MRC_DROP_NONE,
	      "the message that blocks delivery always fits");
	CHECK(R->mp.nrx == 3, "%u contexts", R->mp.nrx);
	R->knob[MRC_KNOB_rx_msgs_per_peer] = 64;
	R->knob[MRC_KNOB_rx_buffer_mb] = 1;
	CHECK(data(0, id_of(EPOCH, 0, 4), 1U << 20, 0, 0) ==
	      MRC_DROP_NO_MEMORY, "rx_buffer_mb bounds the bytes");
	teardown();
}

/*
 * In-order messages are each the head of their lane when they complete:
 * with a reader that does not read, they pile up on the deliver list.
 * They are bounded too: rx_msgs_per_peer + one per lane contexts, after
 * which the sender is refused until the reader catches up.
 */
static void rx_packet__slow_reader_bounds_the_deliver_list(void)
{
	unsigned int n, taken = 0, tries = 4 + MRC_MSG_LANES + 16;

	setup();
	R->knob[MRC_KNOB_rx_msgs_per_peer] = 4;
	for (n = 0; n < tries; n++)
		if (data(0, id_of(EPOCH, 0, taken), 100, 0, 0) ==
		    MRC_DROP_NONE)
			taken++;
	CHECK(taken == 4 + MRC_MSG_LANES, "%u messages taken, want %u",
	      taken, 4 + MRC_MSG_LANES);
	CHECK(R->mp.nrx == taken && R->stats[MRC_MS_RX_NO_MEM] == tries - taken,
	      "%u contexts, rx_no_mem %llu", R->mp.nrx,
	      (unsigned long long)R->stats[MRC_MS_RX_NO_MEM]);
	host_run(R);			/* the reader reads */
	CHECK(ndelivered_ids == taken && R->mp.nrx == 0, "%u delivered",
	      ndelivered_ids);
	CHECK(data(0, id_of(EPOCH, 0, taken), 100, 0, 0) == MRC_DROP_NONE,
	      "the sender's retry is taken");
	host_run(R);
	teardown();
}

/*
 * The same in bytes: heads may go one MRC_MSG_MAX_BYTES message beyond
 * rx_buffer_mb, no more, however many arrive in order.
 */
static void rx_packet__heads_bounded_in_bytes(void)
{
	const u32 len = 1U << 20;
	unsigned int n, want = 1 + MRC_MSG_MAX_BYTES / len;

	setup();
	R->knob[MRC_KNOB_rx_buffer_mb] = 1;
	R->knob[MRC_KNOB_rx_msgs_per_peer] = 4096;
	for (n = 0; n < want + 2; n++) {
		whole(id_of(EPOCH, 0, n), len);
		if (R->mp.nrx != n + 1)
			break;
	}
	CHECK(n == want, "%u whole 1 MiB messages held undelivered, want %u",
	      n, want);
	CHECK((u64)atomic64_read(&R->node.rx_bytes) <=
	      (1ULL << 20) + MRC_MSG_MAX_BYTES, "rx_bytes %lld",
	      (long long)atomic64_read(&R->node.rx_bytes));
	host_run(R);
	CHECK(R->ndelivered == want, "%u delivered", R->ndelivered);
	teardown();
}

/*
 * The share of rx_buffer_mb is per peer: with another peer holding
 * memory, this one gets half, even where the node's total has room.
 * The other peer is played by the node's counters.
 */
static void rx_packet__fair_share_between_peers(void)
{
	const u32 len = 64 << 10, other = 128 << 10;
	unsigned int n, taken = 0;

	setup();
	R->knob[MRC_KNOB_rx_buffer_mb] = 1;
	atomic64_add(1, &R->node.rx_peers);
	atomic64_add(other, &R->node.rx_bytes);
	/* Message 0, which blocks delivery, never comes: all are held. */
	for (n = 1; n <= 16; n++)
		if (data(0, id_of(EPOCH, 0, n), len, 0, 0) == MRC_DROP_NONE)
			taken++;
	CHECK(taken == (512 << 10) / len, "%u partial messages taken, want %u",
	      taken, (512 << 10) / len);
	CHECK(R->mp.rx_mem == (u64)taken * len, "rx_mem %llu",
	      (unsigned long long)R->mp.rx_mem);
	/* The other peer is done: the whole budget is this one's. */
	atomic64_sub(1, &R->node.rx_peers);
	atomic64_sub(other, &R->node.rx_bytes);
	CHECK(data(0, id_of(EPOCH, 0, 17), len, 0, 0) == MRC_DROP_NONE,
	      "alone again, the peer gets more");
	teardown();
}

/*
 * A peer that sends nothing but duplicates does not keep its partial
 * messages alive: they expire twice peer_timeout_ms after the last new
 * packet.
 */
static void rx_expire__duplicates_do_not_refresh(void)
{
	u64 idle, t;

	setup();
	idle = 2 * R->knob[MRC_KNOB_peer_timeout_ms] * MS;
	data(0, id_of(EPOCH, 0, 0), 3 * SEG, 0, 0);
	t = R->now;
	for (R->now = t + MS; R->now < t + idle; R->now += idle / 8)
		data(0, id_of(EPOCH, 0, 0), 3 * SEG, 0, 0);	/* drip */
	R->now = t + idle;
	host_run(R);
	CHECK(R->stats[MRC_MS_RX_EXPIRED] == 1 && R->mp.nrx == 0,
	      "the dripping peer's message expired (%llu)",
	      (unsigned long long)R->stats[MRC_MS_RX_EXPIRED]);
	teardown();
}

static void rx_packet__sack_every_and_flags(void)
{
	u32 idx;

	setup();
	for (idx = 0; idx < MRC_MSG_SACK_EVERY - 1; idx++)
		data(0, id_of(EPOCH, 0, 0), 40 * SEG, idx, 0);
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 0, "%u packets: no SACK",
	      MRC_MSG_SACK_EVERY - 1);
	data(0, id_of(EPOCH, 0, 0), 40 * SEG, idx++, 0);
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 1, "the %uth: a SACK",
	      MRC_MSG_SACK_EVERY);
	data(0, id_of(EPOCH, 0, 0), 40 * SEG, idx, MRC_WF_ACK_NOW);
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 1, "ACK_NOW: at once");
	teardown();
}

/*
 * By count (sack_by_count()): a message that arrives in order is answered
 * every MRC_MSG_SACK_EVERY packets, but not within half a count of its
 * end, whose completion answers; one of up to 3/2 counts, once.  Each
 * arrival is a batch of its own, so no SACK merges with another.
 */
static void rx_packet__sack_count_spares_the_tail(void)
{
	const u32 short_n = MRC_MSG_SACK_EVERY * 3 / 2;
	const u32 long_n = MRC_MSG_SACK_EVERY * 4;
	u32 idx;

	setup();
	for (idx = 0; idx < short_n; idx++) {
		data(idx % 4, id_of(EPOCH, 0, 0), short_n * SEG, idx, 0);
		host_batch_end(R);
	}
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 1,
	      "%u packets in order: one SACK, its completion's", short_n);
	for (idx = 0; idx < long_n; idx++) {
		data(idx % 4, id_of(EPOCH, 0, 1), long_n * SEG, idx, 0);
		host_batch_end(R);
	}
	/* by count at 16, 32 and 48; the 64th completes it */
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == long_n / MRC_MSG_SACK_EVERY,
	      "%u packets in order: a SACK every %u", long_n,
	      MRC_MSG_SACK_EVERY);
	teardown();
}

/*
 * A packet missing behind more than MRC_MSG_SACK_EVERY_HOLE later ones
 * may sit in a slow queue; its sender finds it stuck only from later
 * packets acked, so they are answered every MRC_MSG_SACK_EVERY_HOLE
 * until it comes, then every MRC_MSG_SACK_EVERY again.
 */
static void rx_packet__sack_count_behind_a_hole(void)
{
	const u32 n = 1 + MRC_MSG_SACK_EVERY_HOLE * 3, len = 200 * SEG;
	u32 idx;

	setup();
	/* packet 0 missing: the HOLEth packet behind it makes it deep */
	for (idx = 1; idx <= MRC_MSG_SACK_EVERY_HOLE; idx++) {
		data(idx % 4, id_of(EPOCH, 0, 0), len, idx, 0);
		host_batch_end(R);
	}
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 1,
	      "%u packets behind the hole: a SACK",
	      MRC_MSG_SACK_EVERY_HOLE);
	for (; idx < n; idx++) {
		data(idx % 4, id_of(EPOCH, 0, 0), len, idx, 0);
		host_batch_end(R);
	}
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 2,
	      "%u more: a SACK every %u", n - 1 - MRC_MSG_SACK_EVERY_HOLE,
	      MRC_MSG_SACK_EVERY_HOLE);
	data(0, id_of(EPOCH, 0, 0), len, 0, 0);
	host_batch_end(R);
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 0,
	      "packet 0 fills a hole a SACK shows: no SACK of its own");
	/* packet 0 was the first of the next count */
	for (idx = n; idx < n + MRC_MSG_SACK_EVERY - 2; idx++) {
		data(idx % 4, id_of(EPOCH, 0, 0), len, idx, 0);
		host_batch_end(R);
	}
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 0,
	      "in order again: %u packets, no SACK",
	      MRC_MSG_SACK_EVERY - 1);
	data(idx % 4, id_of(EPOCH, 0, 0), len, idx, 0);
	host_batch_end(R);
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 1, "the %uth: a SACK",
	      MRC_MSG_SACK_EVERY);
	teardown();
}

/*
 * A LAST packet that arrives before others of its message asks for a
 * SACK only with MRC_WF_ACK_NOW (its sender's end of a burst): else the
 * message's completion answers.  And a hole younger than the arrival
 * path's srtt is not deep, however many packets arrived beyond it (one
 * rail's batch of arrivals ahead of the other's): the count stays
 * MRC_MSG_SACK_EVERY until it is a srtt old.
 */
static void rx_packet__last_and_young_holes(void)
{
	const u32 n = 3 * MRC_MSG_SACK_EVERY_HOLE;
	unsigned int pi;
	u32 idx;

	setup();
	data(0, id_of(EPOCH, 0, 0), n * SEG, n - 1, 0);
	host_batch_end(R);
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 0,
	      "its LAST first, no ACK_NOW: no SACK");
	data(0, id_of(EPOCH, 0, 1), 2 * SEG, 1, MRC_WF_ACK_NOW);
	host_batch_end(R);
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 1,
	      "its LAST first, with ACK_NOW: a SACK");
	for (pi = 0; pi < 4; pi++)
		R->mp.path[pi]->rtt.srtt_ns = 10 * MS;
	for (idx = 1; idx <= MRC_MSG_SACK_EVERY_HOLE + 4; idx++) {
		data(idx % 4, id_of(EPOCH, 0, 2), n * SEG, idx, 0);
		host_batch_end(R);
	}
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 0,
	      "%u packets behind a hole younger than the srtt: no SACK",
	      MRC_MSG_SACK_EVERY_HOLE + 4);
	R->now += 10 * MS;
	data(idx % 4, id_of(EPOCH, 0, 2), n * SEG, idx, 0);
	host_batch_end(R);
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 1,
	      "the hole a srtt old is deep: a SACK");
	teardown();
}

/*
 * Packets 1..N arrive, N > MRC_WIRE_SACK_BITS: a SACK shows cum 0 and 256
 * of them, the rest wait for packet 0.  When it comes, a SACK goes back
 * at once (cum N + 1), although MRC_MSG_SACK_EVERY new packets have not
 * passed since the last one: the sender's window may be full of the
 * packets it could not see acknowledged.
 */
static void rx_packet__sack_when_a_hole_closes(void)
{
	const u32 n = MRC_WIRE_SACK_BITS + 14, len = 400 * SEG;
	struct mrc_pkt sack;
	u8 body[HOST_DGRAM_MAX];
	struct mrc_pkt_sack s;
	u32 idx;

	setup();
	for (idx = 1; idx <= n; idx++) {
		data(idx % 4, id_of(EPOCH, 0, 0), len, idx, 0);
		host_batch_end(R);	/* each arrival a batch of its own */
	}
	CHECK(answers(MRC_PKT_SACK, &sack, body) == n / MRC_MSG_SACK_EVERY_HOLE,
	      "behind a hole, a SACK every %u packets",
	      MRC_MSG_SACK_EVERY_HOLE);
	CHECK(n % MRC_MSG_SACK_EVERY_HOLE + 1 < MRC_MSG_SACK_EVERY_HOLE,
	      "the next packet is not due a SACK by count");
	if (failed_checks)
		goto out;
	mrc_wire_get_sack(&sack, &s);
	CHECK(s.cum == 0 && s.nbits <= MRC_WIRE_SACK_BITS,
	      "cum 0, at most %u packets shown", MRC_WIRE_SACK_BITS);
	data(0, id_of(EPOCH, 0, 0), len, 0, 0);
	CHECK(answers(MRC_PKT_SACK, &sack, body) == 1,
	      "packet 0 closes the hole: a SACK at once");
	if (failed_checks)
		goto out;
	mrc_wire_get_sack(&sack, &s);
	CHECK(s.cum == n + 1, "cum %u (want %u)", s.cum, n + 1);
	/* A hole a SACK can show closes without an answer of its own. */
	for (idx = n + 3; idx < n + 3 + MRC_MSG_SACK_EVERY_HOLE - 2; idx++)
		data(0, id_of(EPOCH, 0, 0), len, idx, 0);
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 0,
	      "%u beyond a new hole", MRC_MSG_SACK_EVERY_HOLE - 2);
	data(0, id_of(EPOCH, 0, 0), len, n + 1, 0);
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 0,
	      "closing a hole a SACK shows: no extra SACK");
out:
	teardown();
}

static void rx_answer__echoes_the_data_packet(void)
{
	struct mrc_pkt sack;
	u8 body[HOST_DGRAM_MAX];
	struct mrc_pkt_sack s;

	setup();
	R->now = T0 + 5 * MS;
	data(3, id_of(EPOCH, 0, 0), 3 * SEG, 0, MRC_WF_ACK_NOW);
	CHECK(answers(MRC_PKT_SACK, &sack, body) == 1, "a SACK");
	if (failed_checks)
		goto out;
	mrc_wire_get_sack(&sack, &s);
	CHECK(s.cum == 1 && s.echo_tstamp == T0 + 5 * MS &&
	      s.echo_entropy == 3, "cum 1, the tstamp and entropy echoed");
	CHECK(sack.entropy == 3 && sack.src_port == 9 && sack.dst_port == 7,
	      "back on the arrival path, ports swapped");
	data(5, id_of(EPOCH, 0, 0), 3 * SEG, 1, MRC_WF_ACK_NOW);
	CHECK(answers(MRC_PKT_SACK, NULL, NULL) == 0 &&
	      R->stats[MRC_MS_CTL_TX_ERRORS] == 1,
	      "a SACK that cannot go out is counted");
out:
	teardown();
}

static void rx_packet__nack_after_delay(void)
{
	struct mrc_pkt nack;
	struct mrc_pkt_nack_range r;
	u8 body[HOST_DGRAM_MAX];

	setup();
	data(0, id_of(EPOCH, 0, 0), 10 * SEG, 0, 0);
	data(0, id_of(EPOCH, 0, 0), 10 * SEG, 3, 0);	/* 1, 2 missing */
	CHECK(answers(MRC_PKT_NACK, NULL, NULL) == 0, "not at once");
	R->now += 5 * MS;
	data(0, id_of(EPOCH, 0, 0), 10 * SEG, 4, 0);
	CHECK(answers(MRC_PKT_NACK, NULL, NULL) == 0,
	      "not within the reordering allowance");
	R->now += 30 * MS;
	data(0, id_of(EPOCH, 0, 0), 10 * SEG, 5, 0);
	CHECK(answers(MRC_PKT_NACK, &nack, body) == 1, "then a NACK");
	if (failed_checks)
		goto out;
	CHECK(mrc_wire_nack_nranges(&nack) == 1, "of one range");
	mrc_wire_get_nack_range(&nack, 0, &r);
	CHECK(r.first == 1 && r.count == 2, "packets 1..2: %u+%u", r.first,
	      r.count);
	R->now += 1 * MS;
	data(0, id_of(EPOCH, 0, 0), 10 * SEG, 6, 0);
	CHECK(answers(MRC_PKT_NACK, NULL, NULL) == 0, "at most one per delay");
out:
	teardown();
}

static void rx_packet__new_epoch_keeps_whole_drops_partial(void)
{
	setup();
	data(0, id_of(EPOCH, 0, 0), 3 * SEG, 0, 0);	/* partial n 0 */
	whole(id_of(EPOCH, 0, 1), 100);			/* held n 1 */
	host_run(R);
	CHECK(ndelivered_ids == 0, "n 1 held");
	whole(id_of(EPOCH + 1, 0, 0), 100);
	host_run(R);
	CHECK(ndelivered_ids == 2 && delivered_ids[0] == id_of(EPOCH, 0, 1) &&
	      delivered_ids[1] == id_of(EPOCH + 1, 0, 0),
	      "the held one, then the new epoch's first");
	CHECK(R->stats[MRC_MS_RX_DISCARDED] == 1, "the partial one discarded");
	CHECK(data(0, id_of(EPOCH, 0, 0), 3 * SEG, 1, 0) == MRC_DROP_DUPLICATE,
	      "the old epoch is over");
	teardown();
}

static void rx_packet__new_epoch_schedules_held_delivery(void)
{
	setup();
	data(0, id_of(EPOCH, 0, 0), 3 * SEG, 0, 0);	/* partial n 0 */
	whole(id_of(EPOCH, 0, 1), 100);			/* held n 1 */
	host_run(R);
	CHECK(ndelivered_ids == 0 && !R->deliver_due, "n 1 held");
	/* One packet of a new epoch's message, which does not complete. */
	data(0, id_of(EPOCH + 1, 0, 0), 3 * SEG, 0, 0);
	CHECK(R->deliver_due, "the held message's delivery is scheduled");
	host_run(R);
	CHECK(ndelivered_ids == 1 && delivered_ids[0] == id_of(EPOCH, 0, 1),
	      "and it is delivered without waiting for another completion");
	teardown();
}

static void rx_expire__frees_incomplete_and_closes_epoch(void)
{
	struct mrc_pkt sack;
	u8 body[HOST_DGRAM_MAX];
	struct mrc_pkt_sack s;
	u64 idle;

	setup();
	idle = 2 * R->knob[MRC_KNOB_peer_timeout_ms] * MS;
	data(0, id_of(EPOCH, 0, 0), 3 * SEG, 0, 0);
	whole(id_of(EPOCH, 0, 1), 100);
	CHECK(R->expire_armed && R->expire_at == R->now + idle,
	      "the expiry clock runs");
	R->now += idle / 2;
	data(0, id_of(EPOCH, 0, 0), 3 * SEG, 1, 0);	/* news: later */
	R->now = R->expire_at;
	host_run(R);
	CHECK(R->mp.nrx == 2 && R->expire_armed, "not yet: re-armed");
	R->now = R->expire_at;
	host_run(R);
	CHECK(R->stats[MRC_MS_RX_EXPIRED] == 1, "the incomplete one expires");
	CHECK(ndelivered_ids == 1 && delivered_ids[0] == id_of(EPOCH, 0, 1),
	      "the held complete one is delivered");
	CHECK(data(0, id_of(EPOCH, 0, 2), 100, 0, 0) == MRC_DROP_DUPLICATE &&
	      R->stats[MRC_MS_RX_GONE_PKTS] == 1,
	      "the epoch is gone: dropped unacked");
	answers(MRC_PKT_SACK, NULL, NULL);
	CHECK(data(0, id_of(EPOCH, 0, 2), 100, 0, 0) == MRC_DROP_DUPLICATE &&
	      answers(MRC_PKT_SACK, &sack, body) == 1,
	      "answered with one SACK");
	if (failed_checks)
		goto out;
	mrc_wire_get_sack(&sack, &s);
	CHECK(sack.flags == MRC_WF_GONE && s.cum == 0 && s.nbits == 0 &&
	      sack.msg_id == id_of(EPOCH, 0, 2),
	      "of nothing, flagged MRC_WF_GONE: flags %#x cum %u nbits %u",
	      sack.flags, s.cum, s.nbits);
	CHECK(R->stats[MRC_MS_RX_GONE_SACKS] == 2,
	      "rx_gone_sacks: one per packet dropped");
	whole(id_of(EPOCH + 1, 0, 0), 100);
	host_run(R);
	CHECK(ndelivered_ids == 2, "a newer epoch is taken");
out:
	teardown();
}

static void rx_restarted__keeps_whole_drops_partial(void)
{
	setup();
	data(0, id_of(EPOCH, 0, 0), 3 * SEG, 0, 0);
	whole(id_of(EPOCH, 0, 1), 100);
	mrc_msg_rx_restarted(&R->mp);
	host_run(R);
	CHECK(ndelivered_ids == 1, "the complete one is delivered");
	CHECK(R->mp.nrx == 0, "the partial one is gone");
	whole(id_of(EPOCH, 0, 0), 100);		/* same epoch, from 0 */
	host_run(R);
	CHECK(ndelivered_ids == 2, "the restarted peer's epoch is taken anew");
	teardown();
}

static void rx_packet__port_mismatch_is_bad_field(void)
{
	u8 buf[MRC_WIRE_HDR_LEN + 100];
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION, .type = MRC_PKT_DATA,
		.src_node = 1, .dst_node = 2, .src_port = 8, .dst_port = 9,
		.msg_id = id_of(EPOCH, 0, 0), .msg_len = 2 * SEG, .seg = SEG,
		.offset = SEG, .len = SEG,
	};

	setup();
	data(0, id_of(EPOCH, 0, 0), 2 * SEG, 0, 0);
	pkt.len = 2 * SEG - SEG;
	mrc_wire_put_hdr(buf, &pkt);
	CHECK(host_input(R, 0, buf, MRC_WIRE_HDR_LEN + 100) != MRC_DROP_NONE,
	      "a packet of the message from another port is refused");
	CHECK(R->mp.nrx == 1 && ndelivered_ids == 0, "and changes nothing");
	teardown();
}

static void rx_drain__after_close_frees_everything(void)
{
	struct list_head gone;

	setup();
	data(0, id_of(EPOCH, 0, 0), 3 * SEG, 0, 0);
	whole(id_of(EPOCH, 0, 1), 100);
	whole(id_of(EPOCH, 2, 0), 100);		/* ready, not popped */
	mrc_msg_rx_close(&R->mp);
	CHECK(data(0, id_of(EPOCH, 0, 2), 100, 0, 0) == MRC_DROP_UNKNOWN_PEER,
	      "closed: nothing new");
	INIT_LIST_HEAD(&gone);
	mrc_msg_rx_drain(&R->mp, &gone);
	host_free_rx_list(R, &gone);
	CHECK(R->stats[MRC_MS_RX_DISCARDED] == 3, "three discarded: %llu",
	      (unsigned long long)R->stats[MRC_MS_RX_DISCARDED]);
	CHECK(R->mp.nrx == 0, "no context counted");
	teardown();
}

static void rx_take_buf__reader_owns_the_bytes(void)
{
	struct mrc_msg_rx *rm;
	long allocs;
	void *buf;
	u32 i;

	setup();
	whole(id_of(EPOCH, 2, 0), 2 * SEG + 5);
	CHECK(R->deliver_due, "delivery scheduled");
	rm = mrc_msg_rx_pop(&R->mp);
	CHECK(rm && rm->r.msg_len == 2 * SEG + 5, "popped whole");
	if (!rm) {
		teardown();
		return;
	}
	buf = mrc_msg_rx_take_buf(rm);
	CHECK(buf && !mrc_msg_rx_take_buf(rm), "taken once");
	for (i = 0; i < 2 * SEG + 5; i++)
		if (((u8 *)buf)[i] != (u8)(rm->msg_id + i))
			break;
	CHECK(i == 2 * SEG + 5, "the bytes are the message's");
	allocs = R->allocs;
	mrc_msg_rx_free(&R->node, rm);
	CHECK(R->allocs == allocs - 1, "the context goes, not the buffer");
	CHECK(atomic64_read(&R->node.rx_bytes) == 0,
	      "no longer reassembly memory");
	mrc_msg_rx_buf_free(&R->node, buf, 2 * SEG + 5);
	CHECK(R->rx_allocs == 0, "all receive memory given back");
	CHECK(R->rx_free_bad == 0, "each piece with the size it was taken with");
	R->deliver_due = false;
	teardown();
}

/* The SACK R sent last, and whether it says REFUSED; false if none. */
static bool last_sack(struct mrc_pkt_sack *s, bool *refused)
{
	u8 body[HOST_DGRAM_MAX];
	struct mrc_pkt sack;

	if (!answers(MRC_PKT_SACK, &sack, body))
		return false;
	mrc_wire_get_sack(&sack, s);
	*refused = sack.flags & MRC_WF_REFUSED;
	return true;
}

/*
 * A message to a port with nothing bound is refused at its first packet,
 * without memory: a SACK of all of it flagged REFUSED; its other packets
 * and late copies get the same; the lane goes on after it.
 */
static void rx_packet__unbound_port_refused(void)
{
	struct mrc_pkt_sack s;
	bool refused = false;

	setup();
	R->closed_port = 9;
	CHECK(data(0, id_of(EPOCH, 0, 0), 3 * SEG, 0, 0) == MRC_DROP_NONE,
	      "the first packet is taken");
	CHECK(R->allocs == 0, "no memory for it: %ld", R->allocs);
	CHECK(last_sack(&s, &refused) && refused && s.cum == 3,
	      "answered: the whole message, refused (cum %u)", s.cum);
	CHECK(R->stats[MRC_MS_RX_REFUSED] == 1, "rx_refused %llu",
	      (unsigned long long)R->stats[MRC_MS_RX_REFUSED]);
	data(1, id_of(EPOCH, 0, 0), 3 * SEG, 1, 0);
	CHECK(last_sack(&s, &refused) && refused && s.cum == 3,
	      "its next packet too");
	R->closed_port = 0;
	whole(id_of(EPOCH, 0, 1), 100);
	host_run(R);
	CHECK(ndelivered_ids == 1 && delivered_ids[0] == id_of(EPOCH, 0, 1),
	      "the next message is not held behind it");
	answers(MRC_PKT_SACK, NULL, NULL);
	CHECK(data(2, id_of(EPOCH, 0, 0), 3 * SEG, 2, MRC_WF_RETRANS) ==
	      MRC_DROP_DUPLICATE, "a late copy is a duplicate");
	CHECK(last_sack(&s, &refused) && refused && s.cum == 3,
	      "still answered as refused");
	CHECK(R->stats[MRC_MS_RX_REFUSED] == 1, "counted once");
	teardown();
}

/* A refusal ahead of its lane's delivery is skipped when it gets there. */
static void rx_packet__refused_ahead_skipped_in_order(void)
{
	setup();
	data(0, id_of(EPOCH, 2, 0), 2 * SEG, 0, 0);	/* n 0 incomplete */
	R->closed_port = 9;
	whole(id_of(EPOCH, 2, 1), 100);			/* n 1 refused */
	R->closed_port = 0;
	whole(id_of(EPOCH, 2, 2), 100);			/* n 2 held */
	host_run(R);
	CHECK(ndelivered_ids == 0, "both wait for n 0");
	data(1, id_of(EPOCH, 2, 0), 2 * SEG, 1, 0);	/* n 0 complete */
	host_run(R);
	CHECK(ndelivered_ids == 2 && delivered_ids[0] == id_of(EPOCH, 2, 0) &&
	      delivered_ids[1] == id_of(EPOCH, 2, 2),
	      "n 0 then n 2: %u delivered", ndelivered_ids);
	whole(id_of(EPOCH, 2, 3), 100);
	host_run(R);
	CHECK(ndelivered_ids == 3, "the lane goes on");
	teardown();
}

/* Refusals that fit ahead of a lane's delivery at sequence number 0. */
#define AHEAD	(MRC_MSG_REFUSED_AHEAD - 1)

/* R's answers since the last call end with a SACK of nothing, BUSY. */
static bool answered_busy(void)
{
	u8 body[HOST_DGRAM_MAX];
	struct mrc_pkt_sack s;
	struct mrc_pkt sack;

	if (!answers(MRC_PKT_SACK, &sack, body))
		return false;
	mrc_wire_get_sack(&sack, &s);
	return sack.flags == MRC_WF_BUSY && !s.cum && !s.nbits;
}

/*
 * Refusals ahead of delivery are remembered in a window of its lane:
 * beyond it, a new one waits (answered busy: the sender asks again
 * later), and nothing is allocated either way.  Once delivery passes them
 * they move to the bits behind it.
 */
static void rx_packet__refusals_bounded(void)
{
	struct mrc_pkt_sack s;
	bool refused = false;
	unsigned int n, k;
	long allocs;

	setup();
	data(0, id_of(EPOCH, 0, 0), 2 * SEG, 0, 0);	/* blocks the lane */
	allocs = R->allocs;
	R->closed_port = 9;
	for (n = 1; n <= AHEAD; n++)
		CHECK(data(0, id_of(EPOCH, 0, n), 100, 0, 0) == MRC_DROP_NONE,
		      "refusal %u", n);
	answers(MRC_PKT_SACK, NULL, NULL);
	CHECK(data(0, id_of(EPOCH, 0, n), 100, 0, 0) == MRC_DROP_NO_MEMORY &&
	      answered_busy() && R->stats[MRC_MS_RX_REFUSE_WAITS] == 1,
	      "one more ahead waits: answered busy");
	CHECK(R->stats[MRC_MS_RX_REFUSED] == AHEAD, "rx_refused %llu",
	      (unsigned long long)R->stats[MRC_MS_RX_REFUSED]);
	CHECK(R->allocs == allocs, "only n 0's memory: %ld, was %ld",
	      R->allocs, allocs);
	R->closed_port = 0;
	data(1, id_of(EPOCH, 0, 0), 2 * SEG, 1, 0);	/* n 0 complete */
	host_run(R);
	answers(MRC_PKT_SACK, NULL, NULL);		/* its batch ends */
	CHECK(ndelivered_ids == 1, "n 0 delivered, the refused skipped");
	CHECK(R->mp.rx_refused_ahead[mrc_msg_lane(0, dport)] == 0 &&
	      R->mp.rx_refused_bm[mrc_msg_lane(0, dport)] ==
	      BIT_ULL(AHEAD) - 1, "they moved behind delivery: %#llx",
	      (unsigned long long)R->mp.rx_refused_bm[mrc_msg_lane(0, dport)]);
	for (k = 1; k <= AHEAD; k++) {
		data(0, id_of(EPOCH, 0, k), 100, 0, MRC_WF_RETRANS);
		if (!last_sack(&s, &refused) || !refused)
			break;
	}
	CHECK(k > AHEAD, "their resends are still answered refused: %u", k);
	R->closed_port = 9;
	CHECK(data(0, id_of(EPOCH, 0, n), 100, 0, 0) == MRC_DROP_NONE &&
	      last_sack(&s, &refused) && refused,
	      "the waiting one is refused now");
	R->closed_port = 0;
	whole(id_of(EPOCH, 0, n + 1), 100);
	host_run(R);
	CHECK(ndelivered_ids == 2 && delivered_ids[1] == id_of(EPOCH, 0, n + 1),
	      "and the lane goes on");
	teardown();
}

/*
 * The message a lane waits for is refused even when refusals ahead of it
 * fill the window: it needs no room.  Before, it waited for a slot that
 * only its own refusal could free: the lane blocked for good.
 */
static void rx_packet__lane_head_refused_when_full(void)
{
	unsigned int n;

	setup();
	R->closed_port = 9;
	for (n = 1; n <= AHEAD; n++)
		data(0, id_of(EPOCH, 0, n), 100, 0, 0);
	CHECK(R->stats[MRC_MS_RX_REFUSED] == AHEAD &&
	      data(0, id_of(EPOCH, 0, n), 100, 0, 0) == MRC_DROP_NO_MEMORY,
	      "the refusals ahead of n 0 fill the window");
	CHECK(data(0, id_of(EPOCH, 0, 0), 100, 0, 0) == MRC_DROP_NONE &&
	      R->stats[MRC_MS_RX_REFUSED] == AHEAD + 1,
	      "n 0 is refused all the same");
	CHECK(data(0, id_of(EPOCH, 0, n), 100, 0, 0) == MRC_DROP_NONE,
	      "the lane moved past them: n %u is refused too", n);
	R->closed_port = 0;
	whole(id_of(EPOCH, 0, n + 1), 100);
	host_run(R);
	CHECK(ndelivered_ids == 1 && delivered_ids[0] == id_of(EPOCH, 0, n + 1),
	      "and the next message is delivered: %u", ndelivered_ids);
	teardown();
}

/*
 * A reader closed with messages queued for it in several lanes, their
 * first packets reordered: each lane's refusals ahead of its delivery
 * have their own window, so none waits for room.  A table of 32 per peer
 * answered every one past the 32nd busy, each such answer holding its
 * lane for a growing wait.
 */
static void rx_packet__refusals_ahead_per_lane(void)
{
	unsigned int cls, lane, n, busy = 0;

	setup();
	R->closed_port = 9;
	for (cls = 0; cls < 4; cls++) {
		/* n 0 arrives last: n 1..40 are ahead of delivery */
		for (n = 1; n <= 40; n++) {
			answers(MRC_PKT_SACK, NULL, NULL);
			if (data(0, id_of(EPOCH, cls, n), 100, 0, 0) !=
			    MRC_DROP_NONE || answered_busy())
				busy++;
		}
	}
	CHECK(!busy && !R->stats[MRC_MS_RX_REFUSE_WAITS] &&
	      R->stats[MRC_MS_RX_REFUSED] == 4 * 40,
	      "160 refused ahead: %u busy, %llu refused", busy,
	      (unsigned long long)R->stats[MRC_MS_RX_REFUSED]);
	CHECK(R->allocs == 0, "no memory taken: %ld", R->allocs);
	for (cls = 0; cls < 4; cls++)
		data(0, id_of(EPOCH, cls, 0), 100, 0, 0);
	CHECK(R->stats[MRC_MS_RX_REFUSED] == 4 * 41, "the heads too");
	for (cls = 0; cls < 4; cls++) {
		lane = mrc_msg_lane(cls, dport);
		CHECK(R->mp.rx_next[lane] == (u32)id_of(EPOCH, cls, 41) &&
		      !R->mp.rx_refused_ahead[lane] &&
		      R->mp.rx_refused_bm[lane] == BIT_ULL(41) - 1,
		      "class %u moved past all 41: next %#x", cls,
		      R->mp.rx_next[lane]);
	}
	R->closed_port = 0;
	for (cls = 0; cls < 4; cls++)
		whole(id_of(EPOCH, cls, 41), 100);
	host_run(R);
	CHECK(ndelivered_ids == 4, "each lane delivers its next: %u",
	      ndelivered_ids);
	teardown();
}

/*
 * Refusals behind delivery: the last MRC_MSG_REFUSED_BEHIND sequence
 * numbers of a lane, however many were refused and for how long.  The
 * 64th one behind is forgotten (a resend of it would be answered as
 * delivered): its sender never gets that far ahead of a message it
 * still holds (msg_tx.c push_lane(), checked by msg_tx_test).
 */
static void rx_packet__refused_behind_remembered(void)
{
	struct mrc_pkt_sack s;
	bool refused = false;
	unsigned int n;

	setup();
	R->closed_port = 9;
	for (n = 0; n < MRC_MSG_REFUSED_BEHIND; n++)
		data(0, id_of(EPOCH, 0, n), 100, 0, 0);
	CHECK(R->stats[MRC_MS_RX_REFUSED] == MRC_MSG_REFUSED_BEHIND &&
	      R->mp.rx_refused_ahead[mrc_msg_lane(0, dport)] == 0,
	      "64 refused, none ahead");
	R->now += 3600000 * MS;		/* an hour later */
	data(0, id_of(EPOCH, 0, 0), 100, 0, MRC_WF_RETRANS);
	CHECK(last_sack(&s, &refused) && refused && s.cum == 1,
	      "the first one's resend is answered refused");
	data(0, id_of(EPOCH, 0, n), 100, 0, 0);	/* one more */
	data(0, id_of(EPOCH, 0, 0), 100, 0, MRC_WF_RETRANS);
	CHECK(last_sack(&s, &refused) && !refused && s.cum == 1,
	      "64 behind: forgotten, answered as delivered");
	teardown();
}

/*
 * A lane's next message whose successor is held is taken even from a
 * busy endpoint: refused, it would keep the successor (and its context)
 * until its sender's next try.
 */
static void rx_packet__busy_endpoint_takes_a_held_lane_head(void)
{
	setup();
	whole(id_of(EPOCH, 0, 1), 100);		/* arrives first: held */
	host_run(R);
	CHECK(ndelivered_ids == 0 && R->mp.nrx == 1, "the second one held");
	R->busy_port = 9;
	CHECK(data(0, id_of(EPOCH, 0, 0), 100, 0, 0) == MRC_DROP_NONE,
	      "the first one taken from the busy endpoint");
	host_run(R);
	CHECK(ndelivered_ids == 2 && R->mp.nrx == 0 && content_ok,
	      "both delivered: %u", ndelivered_ids);
	CHECK(R->stats[MRC_MS_RX_BUSY_HEADS] == 1 &&
	      R->stats[MRC_MS_RX_BUSY] == 0, "rx_busy_heads %llu, rx_busy %llu",
	      (unsigned long long)R->stats[MRC_MS_RX_BUSY_HEADS],
	      (unsigned long long)R->stats[MRC_MS_RX_BUSY]);
	/* With nothing held behind it, the next one is held back. */
	CHECK(data(0, id_of(EPOCH, 0, 2), 100, 0, 0) == MRC_DROP_NO_MEMORY &&
	      R->stats[MRC_MS_RX_BUSY] == 1, "the third one: busy");
	teardown();
}

/*
 * An endpoint that cannot take a new message now: its packet is dropped
 * without memory taken, answered by a SACK of nothing flagged BUSY; once
 * the endpoint has room, the same packet is taken.
 */
static void rx_packet__busy_endpoint_holds_back(void)
{
	u8 body[HOST_DGRAM_MAX];
	struct mrc_pkt_sack s;
	struct mrc_pkt sack;

	setup();
	R->busy_port = 9;
	CHECK(data(0, id_of(EPOCH, 0, 0), 3 * SEG, 0, 0) == MRC_DROP_NO_MEMORY,
	      "dropped");
	CHECK(R->allocs == 0, "no memory for it: %ld", R->allocs);
	CHECK(answers(MRC_PKT_SACK, &sack, body) == 1, "answered");
	if (failed_checks)
		goto out;
	mrc_wire_get_sack(&sack, &s);
	CHECK((sack.flags & MRC_WF_BUSY) && !(sack.flags & MRC_WF_REFUSED) &&
	      s.cum == 0 && s.nbits == 0,
	      "busy, nothing acknowledged: flags %#x cum %u nbits %u",
	      sack.flags, s.cum, s.nbits);
	CHECK(R->stats[MRC_MS_RX_BUSY] == 1 && R->stats[MRC_MS_RX_NO_MEM] == 0,
	      "rx_busy %llu, rx_no_mem %llu",
	      (unsigned long long)R->stats[MRC_MS_RX_BUSY],
	      (unsigned long long)R->stats[MRC_MS_RX_NO_MEM]);
	R->busy_port = 0;
	whole(id_of(EPOCH, 0, 0), 3 * SEG);
	host_run(R);
	CHECK(ndelivered_ids == 1 && content_ok, "then taken and delivered");
	CHECK(answers(MRC_PKT_SACK, &sack, body) >= 1 &&
	      !(sack.flags & MRC_WF_BUSY), "and acknowledged");
out:
	teardown();
}

/*
 * The SACKs of the messages one batch of arrivals completes go as one:
 * the last message's, with the others' sequence numbers in its done list
 * (in completion order).  A message still incomplete is answered at the
 * batch's end too, and its completion within the batch answers for it.
 */
static void rx_answer__batch_one_sack(void)
{
	u8 body[HOST_DGRAM_MAX];
	struct mrc_pkt_sack s;
	struct mrc_pkt sack;
	unsigned int i;

	setup();
	for (i = 0; i < 3; i++)
		data(i, id_of(EPOCH, 0, i), 100, 0, 0);
	CHECK(R->nout == 0, "nothing sent within the batch: %u", R->nout);
	CHECK(answers(MRC_PKT_SACK, &sack, body) == 1, "one SACK");
	if (failed_checks)
		goto out;
	mrc_wire_get_sack(&sack, &s);
	CHECK(sack.msg_id == id_of(EPOCH, 0, 2) && s.cum == 1 && !s.nbits,
	      "of the last message, all of it: %#llx cum %u",
	      (unsigned long long)sack.msg_id, s.cum);
	CHECK(sack.flags == MRC_WF_DONE_MORE && mrc_wire_done_n(&sack) == 2 &&
	      mrc_wire_get_done(&sack, 0) == (u32)id_of(EPOCH, 0, 0) &&
	      mrc_wire_get_done(&sack, 1) == (u32)id_of(EPOCH, 0, 1),
	      "the other two in its done list: flags %#x, %u entries",
	      sack.flags, mrc_wire_done_n(&sack));
	CHECK(R->stats[MRC_MS_SACKS_TX] == 1 &&
	      R->stats[MRC_MS_DONE_BATCHED] == 2,
	      "sacks_tx %llu done_batched %llu",
	      (unsigned long long)R->stats[MRC_MS_SACKS_TX],
	      (unsigned long long)R->stats[MRC_MS_DONE_BATCHED]);
	host_run(R);
	CHECK(ndelivered_ids == 3, "all three delivered: %u", ndelivered_ids);
	/* one alone: a plain SACK; a LAST-less middle packet: at once */
	data(0, id_of(EPOCH, 0, 3), 100, 0, 0);
	CHECK(answers(MRC_PKT_SACK, &sack, body) == 1 && !sack.flags,
	      "one completion: a plain SACK (flags %#x)", sack.flags);
	data(0, id_of(EPOCH, 0, 4), 3 * SEG, 0, MRC_WF_ACK_NOW);
	CHECK(R->nout == 0 && host_batch_end_flushes(R),
	      "ACK_NOW answered at the batch's end: %u sent", R->nout);
	data(0, id_of(EPOCH, 0, 4), 3 * SEG, 1, 0);
	data(0, id_of(EPOCH, 0, 4), 3 * SEG, 2, MRC_WF_LAST);
	CHECK(answers(MRC_PKT_SACK, &sack, body) == 1 && !sack.flags,
	      "its completion: one plain SACK (flags %#x)", sack.flags);
	CHECK(R->stats[MRC_MS_SACKS_MERGED] == 1, "sacks_merged %llu",
	      (unsigned long long)R->stats[MRC_MS_SACKS_MERGED]);
out:
	teardown();
}

/*
 * Within a batch, the SACKs a message's packets ask for (every
 * MRC_MSG_SACK_EVERY, ACK_NOW, RETRANS) merge into one at its end: the
 * newest state, echoing the last packet that asked.  Each message has
 * its own; with MRC_MSG_STEP_HELD messages held, one more sends the
 * oldest at once.  A refusal is not held.
 */
static void rx_answer__batch_merges_sacks(void)
{
	struct mrc_wire_limits lim = { MRC_MSG_MAX_BYTES, 0 };
	u8 body[HOST_DGRAM_MAX];
	struct mrc_pkt_sack s;
	struct mrc_pkt sack;
	u32 idx;
	unsigned int i;

	setup();
	for (idx = 0; idx < 6 + MRC_MSG_SACK_EVERY + 2; idx++) {
		R->now += 1000;
		data(idx % 4, id_of(EPOCH, 0, 0), 40 * SEG, idx,
		     idx == 5 || idx == MRC_MSG_SACK_EVERY + 7 ?
		     MRC_WF_ACK_NOW : 0);
	}
	CHECK(R->nout == 0, "nothing sent within the batch: %u", R->nout);
	CHECK(answers(MRC_PKT_SACK, &sack, body) == 1,
	      "ACK_NOW at 5 and %u, %u packets after 5: one SACK",
	      MRC_MSG_SACK_EVERY + 7, MRC_MSG_SACK_EVERY);
	if (failed_checks)
		goto out;
	mrc_wire_get_sack(&sack, &s);
	CHECK(s.cum == idx && !s.nbits, "of all %u: cum %u nbits %u", idx,
	      s.cum, s.nbits);
	CHECK(s.echo_tstamp == R->now &&
	      sack.entropy == (MRC_MSG_SACK_EVERY + 7) % 4,
	      "echoes the last that asked (packet %u)",
	      MRC_MSG_SACK_EVERY + 7);
	CHECK(R->stats[MRC_MS_SACKS_MERGED] == 2 &&
	      R->stats[MRC_MS_SACKS_TX] == 1, "sacks_merged %llu sacks_tx %llu",
	      (unsigned long long)R->stats[MRC_MS_SACKS_MERGED],
	      (unsigned long long)R->stats[MRC_MS_SACKS_TX]);
	/* one SACK per message, the oldest goes when one more is held */
	for (i = 1; i <= MRC_MSG_STEP_HELD + 1; i++)
		data(0, id_of(EPOCH, 0, i), 2 * SEG, 0, MRC_WF_ACK_NOW);
	CHECK(R->nout == 1, "%u messages asked: the oldest sent at once: %u",
	      MRC_MSG_STEP_HELD + 1, R->nout);
	CHECK(answers(MRC_PKT_SACK, &sack, body) == MRC_MSG_STEP_HELD + 1,
	      "one SACK each");
	/* a completion's answer leaves the others in their order */
	for (i = 11; i < 11 + MRC_MSG_STEP_HELD; i++)
		data(0, id_of(EPOCH, 0, i), 2 * SEG, 0, MRC_WF_ACK_NOW);
	data(0, id_of(EPOCH, 0, 11), 2 * SEG, 1, 0);	/* 11 completes */
	data(0, id_of(EPOCH, 0, 20), 2 * SEG, 0, MRC_WF_ACK_NOW);
	CHECK(R->nout == 0, "11 done: room for one more: %u sent", R->nout);
	data(0, id_of(EPOCH, 0, 21), 2 * SEG, 0, MRC_WF_ACK_NOW);
	CHECK(R->nout == 1 &&
	      mrc_wire_parse(R->out[R->out_head].buf, R->out[R->out_head].len,
			     &lim, &sack) == MRC_DROP_NONE &&
	      sack.msg_id == id_of(EPOCH, 0, 12),
	      "then the oldest held, 12's, goes: %u sent, %#llx", R->nout,
	      (unsigned long long)sack.msg_id);
	teardown();

	/* a refusal is answered at once */
	setup();
	R->closed_port = 9;
	data(0, id_of(EPOCH, 0, 0), 2 * SEG, 0, MRC_WF_ACK_NOW);
	CHECK(R->nout == 1, "REFUSED: at once: %u", R->nout);
	R->closed_port = 0;
out:
	teardown();
}

/*
 * A batch holds at most MRC_WIRE_DONE_MAX + 1 completions in one SACK; one
 * more sends what is held, and a completion of a newer epoch, too: a done
 * list names messages of its header's epoch only.  Without batch_done
 * every completion is answered at once.
 */
static void rx_answer__batch_bounds(void)
{
	u8 body[HOST_DGRAM_MAX];
	struct mrc_pkt sack;
	unsigned int i, n = MRC_WIRE_DONE_MAX + 2;

	setup();
	for (i = 0; i < n; i++)
		data(i % 4, id_of(EPOCH, 0, i), 100, 0, 0);
	CHECK(R->stats[MRC_MS_SACKS_TX] == 1, "one sent within the batch, "
	      "its list full: %llu",
	      (unsigned long long)R->stats[MRC_MS_SACKS_TX]);
	CHECK(host_batch_end_flushes(R), "the last held");
	CHECK(answers(MRC_PKT_SACK, &sack, body) == 2 &&
	      R->stats[MRC_MS_DONE_BATCHED] == MRC_WIRE_DONE_MAX,
	      "%u completions: 2 SACKs (sacks_tx %llu), %u in a done list "
	      "(done_batched %llu)", n,
	      (unsigned long long)R->stats[MRC_MS_SACKS_TX],
	      MRC_WIRE_DONE_MAX,
	      (unsigned long long)R->stats[MRC_MS_DONE_BATCHED]);
	CHECK(sack.msg_id == id_of(EPOCH, 0, n - 1) && !sack.flags,
	      "the last alone");
	/* a newer epoch mid-batch */
	data(0, id_of(EPOCH, 0, n), 100, 0, 0);
	data(0, id_of(EPOCH + 1, 0, 0), 100, 0, 0);
	CHECK(answers(MRC_PKT_SACK, &sack, body) == 2 && !sack.flags &&
	      sack.msg_id == id_of(EPOCH + 1, 0, 0),
	      "two epochs: two SACKs, the newer last");
	teardown();

	host_batch_done = false;
	setup();
	for (i = 0; i < 3; i++)
		data(i, id_of(EPOCH, 0, i), 100, 0, 0);
	CHECK(R->nout == 3 && !R->ack_held, "batch_done off: %u SACKs at once",
	      R->nout);
	teardown();
	host_batch_done = true;
}

/*
 * Ports in different buckets are different lanes: a message to one
 * endpoint does not wait behind an incomplete one to another; two to
 * the same port do.
 */
static void rx_packet__port_buckets_are_lanes(void)
{
	u64 a, b, c;

	setup();
	a = id_of(EPOCH, 0, 0);			/* port 9, incomplete */
	data(0, a, 2 * SEG, 0, 0);
	dport = 10;
	b = id_of(EPOCH, 0, 0);			/* port 10: another lane */
	whole(b, 100);
	dport = 9;
	c = id_of(EPOCH, 0, 1);			/* port 9 again */
	whole(c, 100);
	host_run(R);
	CHECK(a != b, "ids of lanes differ");
	CHECK(ndelivered_ids == 1 && delivered_ids[0] == b,
	      "port 10's message does not wait: %u delivered", ndelivered_ids);
	data(1, a, 2 * SEG, 1, 0);
	host_run(R);
	CHECK(ndelivered_ids == 3 && delivered_ids[1] == a &&
	      delivered_ids[2] == c, "port 9's in order once complete");
	teardown();
}

static const struct tap_test tests[] = {
	{ "rx_alloc__bounds_and_no_memory", rx_alloc__bounds_and_no_memory },
	{ "rx_packet__busy_endpoint_takes_a_held_lane_head",
	  rx_packet__busy_endpoint_takes_a_held_lane_head },
	{ "rx_take_buf__reader_owns_the_bytes",
	  rx_take_buf__reader_owns_the_bytes },
	{ "rx_packet__delivers_in_order_per_lane",
	  rx_packet__delivers_in_order_per_lane },
	{ "rx_packet__lanes_are_independent",
	  rx_packet__lanes_are_independent },
	{ "rx_packet__duplicates_acked_whole_not_redelivered",
	  rx_packet__duplicates_acked_whole_not_redelivered },
	{ "rx_packet__need_ctx_protocol", rx_packet__need_ctx_protocol },
	{ "rx_packet__admission_bounds", rx_packet__admission_bounds },
	{ "rx_packet__slow_reader_bounds_the_deliver_list",
	  rx_packet__slow_reader_bounds_the_deliver_list },
	{ "rx_packet__heads_bounded_in_bytes",
	  rx_packet__heads_bounded_in_bytes },
	{ "rx_packet__fair_share_between_peers",
	  rx_packet__fair_share_between_peers },
	{ "rx_expire__duplicates_do_not_refresh",
	  rx_expire__duplicates_do_not_refresh },
	{ "rx_packet__sack_every_and_flags", rx_packet__sack_every_and_flags },
	{ "rx_packet__sack_count_spares_the_tail",
	  rx_packet__sack_count_spares_the_tail },
	{ "rx_packet__sack_count_behind_a_hole",
	  rx_packet__sack_count_behind_a_hole },
	{ "rx_packet__last_and_young_holes", rx_packet__last_and_young_holes },
	{ "rx_packet__sack_when_a_hole_closes",
	  rx_packet__sack_when_a_hole_closes },
	{ "rx_answer__echoes_the_data_packet",
	  rx_answer__echoes_the_data_packet },
	{ "rx_packet__nack_after_delay", rx_packet__nack_after_delay },
	{ "rx_packet__new_epoch_keeps_whole_drops_partial",
	  rx_packet__new_epoch_keeps_whole_drops_partial },
	{ "rx_packet__new_epoch_schedules_held_delivery",
	  rx_packet__new_epoch_schedules_held_delivery },
	{ "rx_expire__frees_incomplete_and_closes_epoch",
	  rx_expire__frees_incomplete_and_closes_epoch },
	{ "rx_restarted__keeps_whole_drops_partial",
	  rx_restarted__keeps_whole_drops_partial },
	{ "rx_packet__port_mismatch_is_bad_field",
	  rx_packet__port_mismatch_is_bad_field },
	{ "rx_drain__after_close_frees_everything",
	  rx_drain__after_close_frees_everything },
	{ "rx_packet__unbound_port_refused", rx_packet__unbound_port_refused },
	{ "rx_packet__refused_ahead_skipped_in_order",
	  rx_packet__refused_ahead_skipped_in_order },
	{ "rx_packet__refusals_bounded", rx_packet__refusals_bounded },
	{ "rx_packet__lane_head_refused_when_full",
	  rx_packet__lane_head_refused_when_full },
	{ "rx_packet__refusals_ahead_per_lane",
	  rx_packet__refusals_ahead_per_lane },
	{ "rx_packet__refused_behind_remembered",
	  rx_packet__refused_behind_remembered },
	{ "rx_packet__busy_endpoint_holds_back",
	  rx_packet__busy_endpoint_holds_back },
	{ "rx_answer__batch_one_sack", rx_answer__batch_one_sack },
	{ "rx_answer__batch_merges_sacks", rx_answer__batch_merges_sacks },
	{ "rx_answer__batch_bounds", rx_answer__batch_bounds },
	{ "rx_packet__port_buckets_are_lanes",
	  rx_packet__port_buckets_are_lanes },
};

int main(void)
{
	return tap_run(tests, ARRAY_SIZE(tests));
}
