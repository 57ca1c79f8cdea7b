// SPDX-License-Identifier: GPL-2.0
/*
 * txsb_test.c - user-space unit tests of mrc/core/txsb.c, and a property test
 * of mrc/core/txsb.c against mrc/core/reasm.c over a simulated lossy multipath
 * channel.
 *
 * Output is TAP 13; the exit status is 0 only if every test passed.
 * Random cases use a seeded PRNG: MRC_TEST_SEED=N reproduces a run (the
 * seed is printed as a TAP comment).
 *   make -C selftests/mrc/unit run
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../../mrc/core/bitmap.h"
#include "../../../mrc/core/reasm.h"
#include "../../../mrc/core/txsb.h"
#include "tap.h"

/* True with probability @pct percent. */
static bool chance(u32 pct)
{
	return rnd(100) < pct;
}

/* ---------------------------------------------------------------- */
/* helpers                                                           */
/* ---------------------------------------------------------------- */

#define MAX_PATHS 256

/* A scoreboard with its storage, plus what its callbacks reported. */
struct sb {
	struct mrc_txsb t;
	void *storage;
	u32 inflight[MAX_PATHS];	/* caller-side per-path counts */
	u32 nev;			/* events since last reset */
	struct mrc_txsb_event ev[64];	/* the first 64 of them */
	bool order_ok;			/* events came in increasing idx */
};

static int sb_init(struct sb *s, u32 npkts)
{
	size_t sz = mrc_txsb_storage_bytes(npkts);

	memset(s, 0, sizeof(*s));
	s->storage = malloc(sz ? sz : 1);
	memset(s->storage, 0xa5, sz);	/* init must clear it */
	s->order_ok = true;
	return mrc_txsb_init(&s->t, npkts, s->storage);
}

static void sb_free(struct sb *s)
{
	free(s->storage);
}

static void sb_reset_events(struct sb *s)
{
	s->nev = 0;
	s->order_ok = true;
}

/* The mrc_txsb_fn a kernel caller would write: keep path inflight exact. */
static void on_event(void *arg, const struct mrc_txsb_event *ev)
{
	struct sb *s = arg;

	if (s->nev && s->nev <= ARRAY_SIZE(s->ev) &&
	    ev->idx <= s->ev[s->nev - 1].idx)
		s->order_ok = false;
	if (s->nev < ARRAY_SIZE(s->ev))
		s->ev[s->nev] = *ev;
	s->nev++;
	if (ev->inflight) {
		if (!s->inflight[ev->path])
			printf("# path %u inflight underflow (packet %u)\n",
			       ev->path, ev->idx), failed_checks++;
		else
			s->inflight[ev->path]--;
	}
}

/* Sends packet @idx on @path, keeping the caller-side count. */
static int sb_send(struct sb *s, u32 idx, u8 path, u32 now)
{
	int rc = mrc_txsb_sent(&s->t, idx, path, now);

	if (rc >= 0)
		s->inflight[path]++;
	return rc;
}

/* Sends the next @n packets the scoreboard asks for, on path i % npaths. */
static void sb_send_n(struct sb *s, u32 n, u32 npaths, u32 now)
{
	u32 i, idx;
	int rc;

	for (i = 0; i < n; i++) {
		idx = mrc_txsb_next(&s->t);
		if (idx == MRC_TXSB_NONE)
			break;
		rc = sb_send(s, idx, (u8)(idx % npaths), now);
		CHECK(rc == 0 || rc == 1, "send %u: %d", idx, rc);
	}
}

/* SACK from a list of received packets (reasm builds the bitmap). */
static int sb_sack_list(struct sb *s, u32 cum, const u32 *got, u32 n)
{
	u64 bm[4] = { 0 };
	u32 nbits = 0, i, bit;

	for (i = 0; i < n; i++) {
		bit = got[i] - cum - 1;
		bm[bit / 64] |= 1ULL << (bit % 64);
		if (bit + 1 > nbits)
			nbits = bit + 1;
	}
	return mrc_txsb_sack(&s->t, cum, nbits, bm, on_event, s);
}

/*
 * Cross-checks the scoreboard's counters with its per-packet states and
 * the caller-side per-path counts.
 */
static void sb_check(struct sb *s, const char *where)
{
	u32 n[4] = { 0 }, path_sum = 0, pf[MAX_PATHS] = { 0 }, i, cum = 0;
	enum mrc_txsb_pkt_state st;

	for (i = 0; i < s->t.npkts; i++) {
		st = mrc_txsb_state(&s->t, i);
		n[st]++;
		if (st == MRC_TXSB_INFLIGHT)
			pf[s->t.path[i]]++;
	}
	while (cum < s->t.npkts &&
	       mrc_txsb_state(&s->t, cum) == MRC_TXSB_ACKED)
		cum++;
	CHECK(n[MRC_TXSB_INFLIGHT] == mrc_txsb_inflight(&s->t),
	      "%s: inflight %u vs %u", where, n[MRC_TXSB_INFLIGHT],
	      mrc_txsb_inflight(&s->t));
	CHECK(n[MRC_TXSB_LOST] == mrc_txsb_lost(&s->t), "%s: lost %u vs %u",
	      where, n[MRC_TXSB_LOST], mrc_txsb_lost(&s->t));
	CHECK(n[MRC_TXSB_ACKED] == mrc_txsb_acked(&s->t),
	      "%s: acked %u vs %u", where, n[MRC_TXSB_ACKED],
	      mrc_txsb_acked(&s->t));
	CHECK(cum == mrc_txsb_cum(&s->t), "%s: cum %u vs %u", where, cum,
	      mrc_txsb_cum(&s->t));
	for (i = 0; i < MAX_PATHS; i++) {
		CHECK(pf[i] == s->inflight[i], "%s: path %u inflight %u vs %u",
		      where, i, pf[i], s->inflight[i]);
		path_sum += s->inflight[i];
	}
	CHECK(path_sum == mrc_txsb_inflight(&s->t), "%s: path sum", where);
}

/* Copies every per-packet state, to show a refused call changed nothing. */
struct snap {
	struct mrc_txsb t;
	u8 *st;
};

static void snap_take(struct snap *p, const struct sb *s)
{
	u32 i;

	p->t = s->t;
	p->st = malloc(s->t.npkts);
	for (i = 0; i < s->t.npkts; i++)
		p->st[i] = (u8)mrc_txsb_state(&s->t, i);
}

static bool snap_same(struct snap *p, const struct sb *s)
{
	bool same = p->t.nacked == s->t.nacked &&
		    p->t.ninflight == s->t.ninflight &&
		    p->t.nlost == s->t.nlost && p->t.cum == s->t.cum &&
		    p->t.next_new == s->t.next_new &&
		    p->t.hi_sent == s->t.hi_sent;
	u32 i;

	for (i = 0; i < s->t.npkts; i++)
		if (p->st[i] != mrc_txsb_state(&s->t, i))
			same = false;
	free(p->st);
	return same;
}

/* ---------------------------------------------------------------- */
/* unit tests                                                        */
/* ---------------------------------------------------------------- */

static void txsb__storage_bytes(void)
{
	CHECK(mrc_txsb_storage_bytes(0) == 0, "0 packets");
	CHECK(mrc_txsb_storage_bytes(1) == 8 + 6, "1: %zu",
	      mrc_txsb_storage_bytes(1));
	CHECK(mrc_txsb_storage_bytes(64) == 8 + 6 * 64, "64");
	CHECK(mrc_txsb_storage_bytes(65) == 16 + 6 * 65, "65");
	CHECK(mrc_txsb_storage_bytes(MRC_TXSB_MAX_PKTS) ==
	      (size_t)MRC_TXSB_MAX_PKTS / 8 + 6 * (size_t)MRC_TXSB_MAX_PKTS,
	      "max");
	CHECK(mrc_txsb_storage_bytes(MRC_TXSB_MAX_PKTS + 1) == 0, "max + 1");
	CHECK(mrc_txsb_storage_bytes(U32_MAX) == 0, "U32_MAX");
	/* Every message the wire allows fits. */
	CHECK(mrc_wire_npkts(U32_MAX - MRC_WIRE_MIN_SEG, MRC_WIRE_MIN_SEG) <=
	      MRC_TXSB_MAX_PKTS, "wire's largest message");
}

static void txsb__init(void)
{
	struct sb s;

	CHECK(sb_init(&s, 0) == -EINVAL, "0 packets");
	sb_free(&s);
	CHECK(sb_init(&s, MRC_TXSB_MAX_PKTS + 1) == -EINVAL, "too many");
	sb_free(&s);
	CHECK(sb_init(&s, 100) == 0, "100");
	CHECK(!mrc_txsb_done(&s.t) && mrc_txsb_cum(&s.t) == 0 &&
	      mrc_txsb_next(&s.t) == 0, "fresh");
	sb_check(&s, "fresh");
	sb_free(&s);
}

static void txsb__in_order(void)
{
	struct sb s;
	u64 bm[4] = { 0 };
	u32 i;
	int rc;

	sb_init(&s, 100);
	for (i = 0; i < 100; i++) {
		CHECK(mrc_txsb_next(&s.t) == i, "next %u", i);
		CHECK(mrc_txsb_next(&s.t) == i, "next is idempotent");
		CHECK(sb_send(&s, i, i % 3, 1000 + i) == 0, "first send");
	}
	CHECK(mrc_txsb_next(&s.t) == MRC_TXSB_NONE, "all sent");
	sb_check(&s, "all sent");
	rc = mrc_txsb_sack(&s.t, 40, 0, bm, on_event, &s);
	CHECK(rc == 40 && s.nev == 40 && s.order_ok, "sack 40: %d", rc);
	CHECK(s.ev[0].idx == 0 && s.ev[0].path == 0 && s.ev[0].inflight &&
	      !s.ev[0].retrans && s.ev[0].sent_us == 1000, "event 0");
	CHECK(s.ev[39].idx == 39 && s.ev[39].path == 0 &&
	      s.ev[39].sent_us == 1039, "event 39");
	sb_check(&s, "sack 40");
	sb_reset_events(&s);
	rc = mrc_txsb_sack(&s.t, 100, 0, bm, on_event, &s);
	CHECK(rc == 60 && s.nev == 60 && s.order_ok, "sack 100: %d", rc);
	CHECK(mrc_txsb_done(&s.t) && mrc_txsb_cum(&s.t) == 100, "done");
	sb_check(&s, "done");
	/* Repeating the final SACK: nothing more. */
	CHECK(mrc_txsb_sack(&s.t, 100, 0, bm, on_event, &s) == 0, "again");
	CHECK(mrc_txsb_next(&s.t) == MRC_TXSB_NONE, "nothing to send");
	sb_free(&s);
}

static void txsb__single_packet(void)
{
	struct sb s;
	u64 bm[4] = { 0 };

	sb_init(&s, 1);
	CHECK(mrc_txsb_next(&s.t) == 0, "next");
	CHECK(mrc_txsb_sack(&s.t, 1, 0, bm, NULL, NULL) == -ERANGE,
	      "ack before send");
	sb_send(&s, 0, 7, 5);
	CHECK(mrc_txsb_nack(&s.t, 0, 1, on_event, &s) == 1, "nack");
	CHECK(mrc_txsb_next(&s.t) == 0, "retransmit");
	CHECK(sb_send(&s, 0, 8, 6) == 1, "retransmission");
	sb_reset_events(&s);
	CHECK(mrc_txsb_sack(&s.t, 1, 0, bm, on_event, &s) == 1, "ack");
	CHECK(s.nev == 1 && s.ev[0].path == 8 && s.ev[0].retrans &&
	      s.ev[0].inflight && s.ev[0].sent_us == 6, "event");
	CHECK(mrc_txsb_done(&s.t), "done");
	sb_check(&s, "done");
	sb_free(&s);
}

static void txsb__sent_errors(void)
{
	struct sb s;
	struct snap p;

	sb_init(&s, 10);
	sb_send_n(&s, 5, 1, 0);
	mrc_txsb_sack(&s.t, 2, 0, (u64[4]){ 0 }, on_event, &s);
	snap_take(&p, &s);
	CHECK(mrc_txsb_sent(&s.t, 10, 0, 0) == -EINVAL, "idx == npkts");
	CHECK(mrc_txsb_sent(&s.t, U32_MAX, 0, 0) == -EINVAL, "idx U32_MAX");
	CHECK(mrc_txsb_sent(&s.t, 1, 0, 0) == -EALREADY, "acked");
	CHECK(mrc_txsb_sent(&s.t, 3, 0, 0) == -EBUSY, "inflight");
	CHECK(snap_same(&p, &s), "refused sends changed nothing");
	sb_check(&s, "after refused sends");
	sb_free(&s);
}

static void txsb__out_of_order_first_sends(void)
{
	struct sb s;
	u64 bm[4] = { 0 };

	sb_init(&s, 10);
	CHECK(sb_send(&s, 5, 0, 0) == 0, "5 first");
	CHECK(mrc_txsb_next(&s.t) == 0, "next still 0");
	CHECK(sb_send(&s, 0, 0, 0) == 0, "0");
	CHECK(mrc_txsb_next(&s.t) == 1, "next 1");
	/* 5 sent, 1..4 not: cum 6 is refused, bit for 5 is fine. */
	CHECK(mrc_txsb_sack(&s.t, 6, 0, bm, NULL, NULL) == -ERANGE,
	      "cum over unsent packets");
	bm[0] = 1ULL << 3;		/* packet 1 + 1 + 3 = 5 */
	CHECK(mrc_txsb_sack(&s.t, 1, 4, bm, on_event, &s) == 2, "0 and 5");
	sb_send(&s, 1, 0, 0);
	sb_send(&s, 2, 0, 0);
	sb_send(&s, 3, 0, 0);
	sb_send(&s, 4, 0, 0);
	CHECK(mrc_txsb_next(&s.t) == 6, "next skips sent 5: %u",
	      mrc_txsb_next(&s.t));
	sb_check(&s, "out of order");
	sb_free(&s);
}

static void txsb__sack_bits(void)
{
	struct sb s;
	u64 bm[4] = { 0 };
	static const u32 got[] = { 3, 4, 70, 200 };
	int rc;

	sb_init(&s, 300);
	sb_send_n(&s, 300, 4, 0);
	/* cum 2: bits for 3.. : 3 -> bit 0, 4 -> 1, 70 -> 67, 200 -> 197. */
	rc = sb_sack_list(&s, 2, got, ARRAY_SIZE(got));
	CHECK(rc == 6 && s.nev == 6 && s.order_ok, "rc %d nev %u", rc, s.nev);
	CHECK(s.ev[2].idx == 3 && s.ev[3].idx == 4 && s.ev[4].idx == 70 &&
	      s.ev[5].idx == 200, "events");
	/* Packet 2 (the SACK's cum) is missing: the cum point stays. */
	CHECK(mrc_txsb_cum(&s.t) == 2, "cum %u", mrc_txsb_cum(&s.t));
	CHECK(mrc_txsb_state(&s.t, 70) == MRC_TXSB_ACKED &&
	      mrc_txsb_state(&s.t, 71) == MRC_TXSB_INFLIGHT &&
	      mrc_txsb_state(&s.t, 2) == MRC_TXSB_INFLIGHT &&
	      mrc_txsb_state(&s.t, 5) == MRC_TXSB_INFLIGHT, "states");
	sb_check(&s, "bits");
	/* Bits at or beyond nbits are ignored, even if set. */
	memset(bm, 0xff, sizeof(bm));
	sb_reset_events(&s);
	rc = mrc_txsb_sack(&s.t, 5, 2, bm, on_event, &s);
	CHECK(rc == 3 && s.ev[0].idx == 2 && s.ev[1].idx == 6 &&
	      s.ev[2].idx == 7, "nbits 2: rc %d", rc);
	CHECK(mrc_txsb_cum(&s.t) == 5, "cum %u", mrc_txsb_cum(&s.t));
	/* Full 256-bit window. */
	sb_reset_events(&s);
	rc = mrc_txsb_sack(&s.t, 5, 256, bm, on_event, &s);
	CHECK(rc == 256 - 2 - 2, "full window: %d", rc); /* 70, 200, 6, 7 */
	CHECK(mrc_txsb_cum(&s.t) == 5, "cum stays at the hole: %u",
	      mrc_txsb_cum(&s.t));
	CHECK(mrc_txsb_state(&s.t, 261) == MRC_TXSB_ACKED &&
	      mrc_txsb_state(&s.t, 262) == MRC_TXSB_INFLIGHT, "window edge");
	sb_check(&s, "window");
	sb_free(&s);
}

static void txsb__sack_beyond_npkts(void)
{
	struct sb s;
	struct snap p;
	u64 bm[4] = { 0 };

	sb_init(&s, 10);
	sb_send_n(&s, 10, 2, 0);
	snap_take(&p, &s);
	CHECK(mrc_txsb_sack(&s.t, 11, 0, bm, on_event, &s) == -ERANGE,
	      "cum past npkts");
	CHECK(mrc_txsb_sack(&s.t, U32_MAX, 0, bm, on_event, &s) == -ERANGE,
	      "cum U32_MAX");
	bm[0] = 1ULL << 8;		/* packet 1 + 1 + 8 = 10 */
	CHECK(mrc_txsb_sack(&s.t, 1, 9, bm, on_event, &s) == -ERANGE,
	      "bit for packet npkts");
	bm[0] = 1;			/* packet 10 + 1 */
	CHECK(mrc_txsb_sack(&s.t, 10, 1, bm, on_event, &s) == -ERANGE,
	      "bit past the end after a full cum");
	bm[0] = 1ULL << 2;		/* 3 */
	bm[3] = 1ULL << 63;		/* packet 1 + 1 + 255 */
	CHECK(mrc_txsb_sack(&s.t, 0, 256, bm, on_event, &s) == -ERANGE,
	      "good bit with a bad one: all refused");
	CHECK(mrc_txsb_sack(&s.t, 0, 257, bm, on_event, &s) == -EINVAL,
	      "nbits 257");
	CHECK(mrc_txsb_sack(&s.t, 0, U32_MAX, bm, on_event, &s) == -EINVAL,
	      "nbits U32_MAX");
	CHECK(s.nev == 0, "no events from refused SACKs");
	CHECK(snap_same(&p, &s), "refused SACKs changed nothing");
	/* Clear bits past the end claim nothing: accepted. */
	bm[0] = 1ULL << 2;
	bm[3] = 0;
	CHECK(mrc_txsb_sack(&s.t, 0, 256, bm, on_event, &s) == 1,
	      "nbits past the end, only clear bits there");
	CHECK(mrc_txsb_state(&s.t, 3) == MRC_TXSB_ACKED, "3 acked");
	sb_check(&s, "beyond");
	sb_free(&s);
}

static void txsb__sack_never_sent(void)
{
	struct sb s;
	struct snap p;
	u64 bm[4] = { 0 };

	sb_init(&s, 100);
	sb_send_n(&s, 10, 2, 0);		/* 0..9 sent */
	snap_take(&p, &s);
	CHECK(mrc_txsb_sack(&s.t, 11, 0, bm, on_event, &s) == -ERANGE,
	      "cum past the highest sent");
	CHECK(s.nev == 0 && snap_same(&p, &s), "no change");
	CHECK(mrc_txsb_sack(&s.t, 10, 0, bm, on_event, &s) == 10,
	      "cum == highest sent + 1 is fine");
	sb_reset_events(&s);
	snap_take(&p, &s);
	bm[0] = 1;			/* packet 10 + 1 */
	CHECK(mrc_txsb_sack(&s.t, 10, 1, bm, on_event, &s) == -ERANGE,
	      "bit for unsent 11");
	bm[0] = 1ULL << 40;
	CHECK(mrc_txsb_sack(&s.t, 3, 64, bm, on_event, &s) == -ERANGE,
	      "stale cum, bit for unsent 44");
	CHECK(s.nev == 0 && snap_same(&p, &s), "no change");
	/* Fresh scoreboard: nothing sent, nothing may be acked. */
	sb_free(&s);
	sb_init(&s, 100);
	bm[0] = 1;
	CHECK(mrc_txsb_sack(&s.t, 0, 1, bm, NULL, NULL) == -ERANGE,
	      "nothing sent yet");
	CHECK(mrc_txsb_sack(&s.t, 0, 0, bm, NULL, NULL) == 0,
	      "empty SACK for nothing is fine");
	sb_free(&s);
}

static void txsb__sack_stale(void)
{
	struct sb s;
	struct snap p;
	static const u32 got_new[] = { 12, 15 };
	static const u32 got_old[] = { 7, 9, 12 };
	int rc;

	sb_init(&s, 50);
	sb_send_n(&s, 20, 3, 0);
	CHECK(sb_sack_list(&s, 10, got_new, 2) == 12, "newer SACK first");
	snap_take(&p, &s);
	sb_reset_events(&s);
	/* An older SACK arriving late: a subset of what is known. */
	rc = sb_sack_list(&s, 5, got_old, 3);
	CHECK(rc == 0 && s.nev == 0, "stale: rc %d nev %u", rc, s.nev);
	CHECK(mrc_txsb_sack(&s.t, 0, 0, (u64[4]){ 0 }, on_event, &s) == 0,
	      "cum 0");
	CHECK(snap_same(&p, &s), "stale SACKs changed nothing");
	CHECK(mrc_txsb_cum(&s.t) == 10, "cum did not move back: %u",
	      mrc_txsb_cum(&s.t));
	sb_check(&s, "stale");
	sb_free(&s);
}

static void txsb__sack_acks_lost(void)
{
	struct sb s;
	u64 bm[4] = { 0 };
	int rc;

	sb_init(&s, 20);
	sb_send_n(&s, 20, 2, 100);
	CHECK(mrc_txsb_nack(&s.t, 3, 4, on_event, &s) == 4, "nack 3..6");
	CHECK(mrc_txsb_lost(&s.t) == 4 && mrc_txsb_next(&s.t) == 3,
	      "queued");
	sb_check(&s, "lost");
	/* The originals arrive after all: SACK 0..4. */
	sb_reset_events(&s);
	rc = mrc_txsb_sack(&s.t, 5, 0, bm, on_event, &s);
	CHECK(rc == 5, "rc %d", rc);
	CHECK(s.ev[2].inflight && !s.ev[3].inflight && !s.ev[4].inflight,
	      "lost packets were not inflight any more");
	CHECK(mrc_txsb_lost(&s.t) == 2 && mrc_txsb_next(&s.t) == 5,
	      "acked ones left the queue: next %u", mrc_txsb_next(&s.t));
	sb_check(&s, "acked lost");
	sb_free(&s);
}

static void txsb__karn(void)
{
	struct sb s;
	u64 bm[4] = { 0 };

	sb_init(&s, 4);
	sb_send(&s, 0, 1, 10);
	sb_send(&s, 1, 1, 11);
	sb_send(&s, 2, 2, 12);
	sb_send(&s, 3, 2, 13);
	mrc_txsb_nack(&s.t, 1, 1, on_event, &s);
	CHECK(sb_send(&s, 1, 3, 50) == 1, "retransmit 1 on path 3");
	mrc_txsb_nack(&s.t, 1, 1, on_event, &s);
	CHECK(sb_send(&s, 1, 4, 90) == 1, "again on path 4");
	sb_reset_events(&s);
	mrc_txsb_sack(&s.t, 4, 0, bm, on_event, &s);
	CHECK(s.nev == 4, "4 events");
	CHECK(!s.ev[0].retrans && s.ev[0].sent_us == 10, "0: sample ok");
	CHECK(s.ev[1].retrans && s.ev[1].path == 4 && s.ev[1].sent_us == 90,
	      "1: retransmitted, last send reported");
	CHECK(!s.ev[2].retrans && !s.ev[3].retrans, "2, 3");
	sb_check(&s, "karn");
	sb_free(&s);
}

static void txsb__nack(void)
{
	struct sb s;
	struct snap p;
	u64 bm[4] = { 0 };
	int rc;

	sb_init(&s, 100);
	sb_send_n(&s, 30, 5, 0);		/* 0..29 on paths idx % 5 */
	bm[0] = 1ULL << 3 | 1ULL << 4;	/* 15, 16 */
	mrc_txsb_sack(&s.t, 11, 5, bm, on_event, &s);	/* 0..10, 15, 16 */
	snap_take(&p, &s);
	CHECK(mrc_txsb_nack(&s.t, 20, 0, on_event, &s) == -EINVAL, "count 0");
	CHECK(mrc_txsb_nack(&s.t, 25, 6, on_event, &s) == -ERANGE,
	      "past the highest sent");
	CHECK(mrc_txsb_nack(&s.t, U32_MAX, 2, on_event, &s) == -ERANGE,
	      "wrapping range");
	CHECK(mrc_txsb_nack(&s.t, 0, U32_MAX, on_event, &s) == -ERANGE,
	      "huge count");
	CHECK(snap_same(&p, &s), "refused NACKs changed nothing");
	sb_reset_events(&s);
	/* 8..19: 8..10, 15, 16 acked; 11..14 and 17..19 inflight. */
	rc = mrc_txsb_nack(&s.t, 8, 12, on_event, &s);
	CHECK(rc == 7 && s.nev == 7 && s.order_ok, "nack 8..19: %d", rc);
	CHECK(s.ev[0].idx == 11 && s.ev[0].inflight && s.ev[0].path == 1 &&
	      s.ev[4].idx == 17, "events");
	CHECK(mrc_txsb_state(&s.t, 15) == MRC_TXSB_ACKED &&
	      mrc_txsb_state(&s.t, 11) == MRC_TXSB_LOST, "states");
	/* Again: already lost, nothing new. */
	CHECK(mrc_txsb_nack(&s.t, 8, 12, on_event, &s) == 0, "repeat");
	CHECK(mrc_txsb_nack(&s.t, 29, 1, on_event, &s) == 1, "last sent");
	/* Retransmissions first, lowest first, then new packets. */
	CHECK(mrc_txsb_next(&s.t) == 11, "next 11");
	CHECK(sb_send(&s, 11, 2, 5) == 1, "resend 11");
	CHECK(mrc_txsb_next(&s.t) == 12, "next 12");
	sb_send_n(&s, 7, 3, 6);	/* 12, 13, 14, 17, 18, 19, 29 */
	CHECK(mrc_txsb_lost(&s.t) == 0, "queue drained");
	CHECK(mrc_txsb_next(&s.t) == 30, "then new: %u", mrc_txsb_next(&s.t));
	/* A NACK for an unsent packet below the highest sent is skipped. */
	sb_send(&s, 40, 0, 7);
	CHECK(mrc_txsb_nack(&s.t, 35, 6, on_event, &s) == 1,
	      "only the sent one");
	CHECK(mrc_txsb_state(&s.t, 35) == MRC_TXSB_UNSENT, "35 unsent");
	sb_check(&s, "nack");
	sb_free(&s);
}

static void txsb__lose_path(void)
{
	u32 round;

	for (round = 0; round < 50; round++) {
		u32 npkts = 1 + rnd(2000), npaths = 1 + rnd(8);
		u8 dead = (u8)rnd(npaths);
		struct sb s;
		u8 *exp;
		u32 i, nexp = 0, lost_before;
		int k;

		sb_init(&s, npkts);
		exp = calloc(npkts, 1);
		/* Random mix: sends on random paths, SACKs, NACKs. */
		for (k = 0; k < 20; k++) {
			u32 n = rnd(200), idx;

			for (i = 0; i < n; i++) {
				idx = mrc_txsb_next(&s.t);
				if (idx == MRC_TXSB_NONE)
					break;
				sb_send(&s, idx, (u8)rnd(npaths), k);
			}
			if (chance(50) && s.t.hi_sent) {
				u32 first = rnd(s.t.hi_sent);
				u32 cnt = 1 + rnd(s.t.hi_sent - first);

				mrc_txsb_nack(&s.t, first, cnt, on_event, &s);
			}
			if (chance(50) && s.t.hi_sent) {
				u64 bm[4] = { rng(), rng(), rng(), rng() };
				u32 cum = mrc_txsb_cum(&s.t) + rnd(20);
				u32 nbits;

				if (cum > s.t.hi_sent)
					cum = s.t.hi_sent;
				nbits = s.t.hi_sent > cum + 1 ?
					s.t.hi_sent - cum - 1 : 0;
				if (nbits > 256)
					nbits = 256;
				mrc_txsb_sack(&s.t, cum, nbits, bm, on_event,
					      &s);
			}
		}
		sb_check(&s, "before");
		for (i = 0; i < npkts; i++)
			if (mrc_txsb_state(&s.t, i) == MRC_TXSB_INFLIGHT &&
			    s.t.path[i] == dead) {
				exp[i] = 1;
				nexp++;
			}
		CHECK(nexp == s.inflight[dead], "round %u", round);
		lost_before = mrc_txsb_lost(&s.t);
		sb_reset_events(&s);
		i = mrc_txsb_lose_path(&s.t, dead, on_event, &s);
		CHECK(i == nexp && s.nev == nexp, "round %u: lost %u of %u",
		      round, i, nexp);
		CHECK(s.inflight[dead] == 0, "round %u: path still has %u",
		      round, s.inflight[dead]);
		CHECK(mrc_txsb_lost(&s.t) == lost_before + nexp, "queue");
		for (i = 0; i < npkts; i++)
			if (exp[i])
				CHECK(mrc_txsb_state(&s.t, i) == MRC_TXSB_LOST,
				      "round %u: packet %u not requeued",
				      round, i);
		for (i = 0; i < s.nev && i < ARRAY_SIZE(s.ev); i++)
			CHECK(s.ev[i].path == dead && s.ev[i].inflight &&
			      exp[s.ev[i].idx], "round %u: event %u", round, i);
		CHECK(mrc_txsb_lose_path(&s.t, dead, on_event, &s) == 0,
		      "second time: nothing");
		sb_check(&s, "after");
		/* Resend the queue on a survivor: retransmissions first. */
		while (mrc_txsb_lost(&s.t)) {
			u32 idx = mrc_txsb_next(&s.t);

			if (idx == MRC_TXSB_NONE ||
			    mrc_txsb_state(&s.t, idx) != MRC_TXSB_LOST ||
			    sb_send(&s, idx, dead + 1, 0) != 1) {
				CHECK(0, "round %u: next %u is no retransmission",
				      round, idx);
				break;
			}
		}
		for (i = 0; i < npkts; i++)
			if (exp[i])
				CHECK(mrc_txsb_state(&s.t, i) ==
				      MRC_TXSB_INFLIGHT && s.t.path[i] == dead + 1,
				      "round %u: packet %u not resent", round, i);
		CHECK(s.inflight[dead] == 0, "dead path stays empty");
		sb_check(&s, "resent");
		free(exp);
		sb_free(&s);
	}
}

static void txsb__lose_older(void)
{
	struct sb s;
	const u32 t0 = U32_MAX - 50;	/* the clock wraps during the test */
	u32 i;

	sb_init(&s, 10);
	for (i = 0; i < 10; i++)
		sb_send(&s, i, (u8)i, t0 + 20 * i);	/* 5..9 after wrap */
	mrc_txsb_sack(&s.t, 2, 0, (u64[4]){ 0 }, on_event, &s);
	sb_reset_events(&s);
	/* Older than t0 + 100 (wrapped to 49): 2, 3, 4. */
	CHECK(mrc_txsb_lose_older(&s.t, t0 + 100, on_event, &s) == 3,
	      "3 timed out, nev %u", s.nev);
	CHECK(s.ev[0].idx == 2 && s.ev[2].idx == 4, "which");
	CHECK(mrc_txsb_lose_older(&s.t, t0 + 100, on_event, &s) == 0,
	      "lost ones are not inflight");
	CHECK(mrc_txsb_lose_older(&s.t, t0 + 141, on_event, &s) == 3,
	      "5, 6, 7");
	CHECK(mrc_txsb_lose_older(&s.t, t0, on_event, &s) == 0,
	      "nothing older than t0");
	sb_check(&s, "older");
	sb_free(&s);
}

/* ---------------------------------------------------------------- */
/* property test: txsb <-> reasm over a lossy multipath channel      */
/* ---------------------------------------------------------------- */

struct wire_item {
	u32 due;		/* tick it arrives */
	u32 idx;		/* DATA: packet; */
	u8 path;
	bool nack;		/* ack channel: NACK, else SACK */
	struct mrc_reasm_sack sack;
	struct mrc_reasm_range ranges[4];
	u32 nranges;
};

struct queue {
	struct wire_item *it;
	u32 n, cap;
};

static void q_push(struct queue *q, const struct wire_item *w)
{
	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 256;
		q->it = realloc(q->it, q->cap * sizeof(*q->it));
	}
	q->it[q->n++] = *w;
}

/* Removes and returns a random item due by @now; false if none. */
static bool q_pop_due(struct queue *q, u32 now, struct wire_item *out)
{
	u32 i, start;

	if (!q->n)
		return false;
	start = rnd(q->n);
	for (i = 0; i < q->n; i++) {
		u32 j = (start + i) % q->n;

		if (q->it[j].due <= now) {
			*out = q->it[j];
			q->it[j] = q->it[--q->n];
			return true;
		}
	}
	return false;
}

/* Drops every DATA item on @path (a dead path loses what it carried). */
static void q_drop_path(struct queue *q, u8 path)
{
	u32 i = 0;

	while (i < q->n) {
		if (q->it[i].path == path)
			q->it[i] = q->it[--q->n];
		else
			i++;
	}
}

/* Ack callback: everything acked must really be at the receiver. */
struct sim {
	struct sb s;
	struct mrc_reasm r;
	bool bad_ack;
};

static void sim_on_event(void *arg, const struct mrc_txsb_event *ev)
{
	struct sim *m = arg;

	on_event(&m->s, ev);
}

static void sim_on_ack(void *arg, const struct mrc_txsb_event *ev)
{
	struct sim *m = arg;

	if (!mrc_reasm_has(&m->r, ev->idx))
		m->bad_ack = true;
	on_event(&m->s, ev);
}

/* One message over the channel; returns false if it failed. */
static bool sim_run(u32 round)
{
	enum { NPATHS_MAX = 6 };
	u16 seg = MRC_WIRE_MIN_SEG +
		  rnd(MRC_WIRE_MAX_PAYLOAD - MRC_WIRE_MIN_SEG + 1);
	u32 msg_len = rnd(4) ? 1 + rnd(3000 * seg) : 1 + rnd(3 * seg);
	u32 npaths = 1 + rnd(NPATHS_MAX);
	u32 loss[NPATHS_MAX], delay[NPATHS_MAX];
	bool alive[NPATHS_MAX];
	u32 dup_pct = rnd(10), sack_loss = rnd(40), nack_pct = rnd(30);
	u32 window = 8 + rnd(600), rate = 1 + rnd(16);
	u32 die_at = npaths > 1 && chance(60) ? rnd(300) : U32_MAX;
	u8 die_path = (u8)rnd(npaths);
	const u32 base = U32_MAX - 2000;	/* the clock wraps */
	const u32 rto = 400;
	struct sim *m = calloc(1, sizeof(*m));
	struct queue data = { 0 }, acks = { 0 };
	struct wire_item w;
	u64 *rstore;
	u32 *copies;
	u32 now, i, rr = 0, completions = 0, npkts, bad = 0, sacks = 0;
	u32 retrans = 0, limit;
	bool ok = true;
	enum mrc_reasm_verdict v;

	for (i = 0; i < npaths; i++) {
		loss[i] = rnd(3) ? rnd(15) : rnd(60);
		delay[i] = 1 + rnd(40);
		alive[i] = true;
	}
	rstore = malloc(mrc_reasm_storage_bytes(msg_len, seg));
	mrc_reasm_init(&m->r, round, msg_len, seg, rstore);
	npkts = m->r.npkts;
	copies = calloc(npkts, sizeof(*copies));
	sb_init(&m->s, npkts);

	/* Generous: a healthy run needs a few ticks per packet. */
	limit = 20000 + 100 * npkts;
	for (now = 0; now < limit && !mrc_txsb_done(&m->s.t); now++) {
		/* A path dies: its packets vanish; its inflight is resent. */
		if (now == die_at) {
			u32 had = m->s.inflight[die_path];

			alive[die_path] = false;
			q_drop_path(&data, die_path);
			i = mrc_txsb_lose_path(&m->s.t, die_path, sim_on_event,
					       m);
			CHECK(i == had && !m->s.inflight[die_path],
			      "round %u: path death requeued %u of %u", round,
			      i, had);
		}
		/* RTO. */
		mrc_txsb_lose_older(&m->s.t, base + now - rto, sim_on_event, m);
		/* Sender: retransmissions first, within the window. */
		for (i = 0; i < rate; i++) {
			u32 idx;
			u8 p;
			int rc;

			if (mrc_txsb_inflight(&m->s.t) >= window)
				break;
			idx = mrc_txsb_next(&m->s.t);
			if (idx == MRC_TXSB_NONE)
				break;
			do {
				p = (u8)(rr++ % npaths);
			} while (!alive[p]);
			rc = sb_send(&m->s, idx, p, base + now);
			if (rc < 0) {
				CHECK(0, "round %u: send %u: %d", round, idx,
				      rc);
				ok = false;
				goto out;
			}
			retrans += rc;
			if (chance(loss[p]))
				continue;
			w = (struct wire_item){ .idx = idx, .path = p };
			w.due = now + delay[p] + rnd(delay[p]);
			q_push(&data, &w);
			if (chance(dup_pct)) {
				w.due += rnd(50);
				q_push(&data, &w);
			}
		}
		/* Receiver. */
		while (q_pop_due(&data, now, &w)) {
			u32 off = w.idx * seg;
			u32 len = w.idx == npkts - 1 ? msg_len - off : seg;

			v = mrc_reasm_mark(&m->r, msg_len, seg, off, len);
			if (v == MRC_REASM_NEW || v == MRC_REASM_COMPLETE)
				copies[w.idx]++;
			if (v == MRC_REASM_COMPLETE)
				completions++;
			if (v == MRC_REASM_MISMATCH || v == MRC_REASM_INVALID)
				bad++;
			/* Coalesced SACKs: every other NEW, every dup. */
			if (v == MRC_REASM_NEW && chance(50))
				continue;
			if (chance(sack_loss))
				continue;
			w = (struct wire_item){ .due = now + 1 + rnd(30) };
			mrc_reasm_sack(&m->r, &w.sack);
			q_push(&acks, &w);
			if (chance(nack_pct)) {
				w.nack = true;
				w.nranges = mrc_reasm_holes(&m->r, w.ranges,
							    ARRAY_SIZE(w.ranges));
				if (w.nranges)
					q_push(&acks, &w);
			}
		}
		/* Sender gets SACKs and NACKs, reordered. */
		while (q_pop_due(&acks, now, &w)) {
			int rc;

			if (!w.nack) {
				rc = mrc_txsb_sack(&m->s.t, w.sack.cum,
						   w.sack.nbits, w.sack.bitmap,
						   sim_on_ack, m);
				sacks++;
				CHECK(rc >= 0, "round %u: SACK cum %u: %d",
				      round, w.sack.cum, rc);
				continue;
			}
			for (i = 0; i < w.nranges; i++) {
				rc = mrc_txsb_nack(&m->s.t, w.ranges[i].first,
						   w.ranges[i].count,
						   sim_on_event, m);
				CHECK(rc >= 0, "round %u: NACK %u+%u: %d",
				      round, w.ranges[i].first,
				      w.ranges[i].count, rc);
			}
		}
		if (m->bad_ack) {
			CHECK(0, "round %u: acked a packet the receiver lacks",
			      round);
			ok = false;
			goto out;
		}
		if (now % 64 == 0)
			sb_check(&m->s, "sim");
	}
	sb_check(&m->s, "sim end");
	if (!mrc_txsb_done(&m->s.t)) {
		CHECK(0, "round %u: not done after %u ticks (npkts %u acked %u)",
		      round, now, npkts, mrc_txsb_acked(&m->s.t));
		ok = false;
	}
	CHECK(mrc_reasm_complete(&m->r) && completions == 1,
	      "round %u: %u completions", round, completions);
	for (i = 0; i < npkts; i++)
		if (copies[i] != 1) {
			CHECK(0, "round %u: packet %u placed %u times", round,
			      i, copies[i]);
			break;
		}
	CHECK(!bad, "round %u: %u packets refused", round, bad);
	CHECK(!mrc_txsb_inflight(&m->s.t) && !mrc_txsb_lost(&m->s.t),
	      "round %u: leftovers", round);
	if (round < 4)
		printf("# round %u: %u packets, seg %u, %u paths%s, %u ticks, "
		       "%u retransmissions, %u SACKs\n", round, npkts, seg,
		       npaths, die_at != U32_MAX ? " (one dies)" : "", now,
		       retrans, sacks);
out:
	free(data.it);
	free(acks.it);
	free(copies);
	free(rstore);
	sb_free(&m->s);
	free(m);
	return ok;
}

static void channel__lossy_multipath(void)
{
	u32 round;

	for (round = 0; round < 120; round++)
		if (!sim_run(round))
			break;
}

/* ---------------------------------------------------------------- */

/*
 * The policy tag (sched): reported with the packet's events, kept
 * across state changes, replaced by a resend's tag, out of range ignored.
 */
static void txsb__tag(void)
{
	struct sb s;
	u64 bm[4] = { 0 };

	sb_init(&s, 4);
	sb_send(&s, 0, 1, 10);
	mrc_txsb_set_tag(&s.t, 0, 3);
	sb_send(&s, 1, 1, 11);
	mrc_txsb_set_tag(&s.t, 1, 1);
	sb_send(&s, 2, 2, 12);		/* never tagged: 0 */
	sb_send(&s, 3, 2, 13);
	mrc_txsb_set_tag(&s.t, 3, 2);
	mrc_txsb_set_tag(&s.t, 3, MRC_TXSB_TAG_MAX + 1);	/* ignored */
	mrc_txsb_set_tag(&s.t, 4, 1);				/* ignored */
	sb_reset_events(&s);
	mrc_txsb_nack(&s.t, 1, 1, on_event, &s);
	CHECK(s.nev == 1 && s.ev[0].tag == 1, "lost packet 1: tag 1");
	CHECK(sb_send(&s, 1, 3, 50) == 1, "resent");
	mrc_txsb_set_tag(&s.t, 1, 3);
	CHECK(mrc_txsb_state(&s.t, 1) == MRC_TXSB_INFLIGHT, "tag keeps state");
	sb_reset_events(&s);
	mrc_txsb_sack(&s.t, 4, 0, bm, on_event, &s);
	CHECK(s.nev == 4, "4 events");
	CHECK(s.ev[0].tag == 3 && s.ev[1].tag == 3 && s.ev[2].tag == 0 &&
	      s.ev[3].tag == 2, "tags 3, 3 (the resend's), 0, 2");
	CHECK(s.ev[1].retrans && s.ev[1].path == 3, "tag bits leave RETX");
	sb_check(&s, "tag");
	sb_free(&s);
}

static const struct tap_test tests[] = {
#define T(fn) { #fn, fn }
	T(txsb__storage_bytes),
	T(txsb__init),
	T(txsb__in_order),
	T(txsb__single_packet),
	T(txsb__sent_errors),
	T(txsb__out_of_order_first_sends),
	T(txsb__sack_bits),
	T(txsb__sack_beyond_npkts),
	T(txsb__sack_never_sent),
	T(txsb__sack_stale),
	T(txsb__sack_acks_lost),
	T(txsb__karn),
	T(txsb__nack),
	T(txsb__lose_path),
	T(txsb__lose_older),
	T(txsb__tag),
	T(channel__lossy_multipath),
#undef T
};

int main(void)
{
	return tap_run_seeded(tests, ARRAY_SIZE(tests));
}
