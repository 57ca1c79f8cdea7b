// SPDX-License-Identifier: GPL-2.0
/*
 * reasm_test.c - user-space unit tests of mrc/core/bitmap.c and mrc/core/reasm.c.
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
#include "tap.h"

static void shuffle(u32 *a, u32 n)
{
	u32 i, j, t;

	for (i = n; i > 1; i--) {
		j = rnd(i);
		t = a[i - 1];
		a[i - 1] = a[j];
		a[j] = t;
	}
}

static const char *verdict_name(enum mrc_reasm_verdict v)
{
	switch (v) {
	case MRC_REASM_NEW:
		return "NEW";
	case MRC_REASM_COMPLETE:
		return "COMPLETE";
	case MRC_REASM_DUPLICATE:
		return "DUPLICATE";
	case MRC_REASM_MISMATCH:
		return "MISMATCH";
	case MRC_REASM_INVALID:
		return "INVALID";
	}
	return "?";
}

/* ---------------------------------------------------------------- */
/* bitmap                                                            */
/* ---------------------------------------------------------------- */

static void bm__words(void)
{
	CHECK(mrc_bm_words(0) == 0, "0");
	CHECK(mrc_bm_words(1) == 1, "1");
	CHECK(mrc_bm_words(64) == 1, "64");
	CHECK(mrc_bm_words(65) == 2, "65");
	CHECK(mrc_bm_words(128) == 2, "128");
	CHECK(mrc_bm_words(U32_MAX) == (1U << 26), "U32_MAX: %u",
	      mrc_bm_words(U32_MAX));
}

static void bm__set_test_clear(void)
{
	u64 bm[3];
	u32 i;

	mrc_bm_zero(bm, 190);
	for (i = 0; i < 192; i++)
		CHECK(!mrc_bm_test(bm, i), "bit %u after zero", i);
	for (i = 0; i < 190; i += 3)
		mrc_bm_set(bm, i);
	for (i = 0; i < 190; i++)
		CHECK(mrc_bm_test(bm, i) == (i % 3 == 0), "bit %u", i);
	CHECK(bm[0] & 1, "bit 0 is the least significant of word 0");
	CHECK(bm[1] & (1ULL << (66 - 64)), "bit 66 is bit 2 of word 1");
	CHECK(mrc_bm_weight(bm, 190) == 64, "weight %u",
	      mrc_bm_weight(bm, 190));
	for (i = 0; i < 190; i += 6)
		mrc_bm_clear(bm, i);
	for (i = 0; i < 190; i++)
		CHECK(mrc_bm_test(bm, i) == (i % 3 == 0 && i % 6 != 0),
		      "bit %u after clear", i);
	mrc_bm_set(bm, 63);
	mrc_bm_set(bm, 64);
	CHECK(mrc_bm_test(bm, 63) && mrc_bm_test(bm, 64), "word edge");
}

static void bm__find_next(void)
{
	u64 bm[2];

	mrc_bm_zero(bm, 100);
	CHECK(mrc_bm_find_next_set(bm, 100, 0) == 100, "empty: none set");
	CHECK(mrc_bm_find_next_zero(bm, 100, 0) == 0, "empty: zero at 0");
	CHECK(mrc_bm_find_next_zero(bm, 100, 99) == 99, "zero at 99");
	CHECK(mrc_bm_find_next_zero(bm, 100, 100) == 100, "start == nbits");
	CHECK(mrc_bm_find_next_set(bm, 100, 5000) == 100, "start > nbits");
	CHECK(mrc_bm_find_next_set(bm, 0, 0) == 0, "nbits 0");
	CHECK(mrc_bm_find_next_zero(bm, 0, 0) == 0, "nbits 0, zero");

	mrc_bm_set(bm, 0);
	mrc_bm_set(bm, 63);
	mrc_bm_set(bm, 64);
	mrc_bm_set(bm, 99);
	CHECK(mrc_bm_find_next_set(bm, 100, 0) == 0, "set at 0");
	CHECK(mrc_bm_find_next_set(bm, 100, 1) == 63, "set from 1");
	CHECK(mrc_bm_find_next_set(bm, 100, 64) == 64, "set from 64");
	CHECK(mrc_bm_find_next_set(bm, 100, 65) == 99, "set from 65");
	CHECK(mrc_bm_find_next_set(bm, 99, 65) == 99, "bit 99 outside 99 bits");
	CHECK(mrc_bm_find_next_zero(bm, 100, 63) == 65, "zero from 63");

	/* Bits past nbits in the last word are garbage: never found. */
	bm[0] = ~0ULL;
	bm[1] = ~0ULL;
	CHECK(mrc_bm_find_next_zero(bm, 100, 0) == 100, "full: no zero");
	CHECK(mrc_bm_weight(bm, 100) == 100, "full: weight %u",
	      mrc_bm_weight(bm, 100));
	bm[1] = ~0ULL << (100 - 64);	/* bits 100..127 set, 64..99 clear */
	CHECK(mrc_bm_find_next_set(bm, 100, 64) == 100, "garbage tail set");
	CHECK(mrc_bm_find_next_set(bm, 90, 64) == 90, "garbage tail 90..");
	CHECK(mrc_bm_weight(bm, 100) == 64, "garbage tail weight %u",
	      mrc_bm_weight(bm, 100));
	CHECK(mrc_bm_weight(bm, 128) == 92, "weight 128: %u",
	      mrc_bm_weight(bm, 128));
	bm[1] = 0x3f;			/* 64..69 set; only 64..67 count */
	CHECK(mrc_bm_find_next_zero(bm, 68, 64) == 68, "garbage tail zero");
	CHECK(mrc_bm_find_next_zero(bm, 70, 64) == 70, "no zero below 70");
	CHECK(mrc_bm_weight64(~0ULL) == 64 && mrc_bm_weight64(0) == 0 &&
	      mrc_bm_weight64(0x8000000000000001ULL) == 2, "weight64");
}

static void bm__random_vs_naive(void)
{
	enum { N = 777 };
	u64 bm[(N + 63) / 64];
	bool ref[N];
	u32 round, i, start, exp_set, exp_zero, exp_w;

	for (round = 0; round < 200; round++) {
		u32 density = rnd(101);

		mrc_bm_zero(bm, N);
		for (i = 0; i < N; i++) {
			ref[i] = rnd(100) < density;
			if (ref[i])
				mrc_bm_set(bm, i);
		}
		exp_w = 0;
		for (i = 0; i < N; i++)
			exp_w += ref[i];
		CHECK(mrc_bm_weight(bm, N) == exp_w, "weight");
		for (start = 0; start <= N + 1; start += 1 + rnd(7)) {
			exp_set = N;
			exp_zero = N;
			for (i = start; i < N; i++)
				if (ref[i]) {
					exp_set = i;
					break;
				}
			for (i = start; i < N; i++)
				if (!ref[i]) {
					exp_zero = i;
					break;
				}
			CHECK(mrc_bm_find_next_set(bm, N, start) == exp_set,
			      "round %u start %u", round, start);
			CHECK(mrc_bm_find_next_zero(bm, N, start) == exp_zero,
			      "round %u start %u", round, start);
		}
	}
}

static void bm__extract(void)
{
	enum { N = 600 };
	u64 bm[(N + 63) / 64];
	u64 out[4];
	u32 round, i, start, n, exp;

	for (round = 0; round < 300; round++) {
		for (i = 0; i < ARRAY_SIZE(bm); i++)
			bm[i] = rng();	/* tail bits past N too: must read 0 */
		start = rnd(N + 20);
		n = rnd(300);
		for (i = 0; i < 4; i++)
			out[i] = rng();
		mrc_bm_extract(bm, N, start, n, out, 4);
		for (i = 0; i < 256; i++) {
			exp = i < n && start + i < N && mrc_bm_test(bm, start + i);
			CHECK(mrc_bm_test(out, i) == exp,
			      "start %u n %u bit %u", start, n, i);
		}
	}
	/* Fewer out words than bits asked for: n is clamped. */
	bm[0] = ~0ULL;
	bm[1] = ~0ULL;
	out[1] = 0x1234;
	mrc_bm_extract(bm, N, 0, 128, out, 1);
	CHECK(out[0] == ~0ULL && out[1] == 0x1234, "clamped to out_words");
}

/* ---------------------------------------------------------------- */
/* reassembly                                                        */
/* ---------------------------------------------------------------- */

/* A reassembly context with its storage, as the kernel would make it. */
struct ctx {
	struct mrc_reasm r;
	u64 *storage;
};

static int ctx_init(struct ctx *c, u32 msg_len, u16 seg)
{
	size_t sz = mrc_reasm_storage_bytes(msg_len, seg);

	c->storage = malloc(sz ? sz : 1);
	/* Garbage in the storage: init must clear it. */
	memset(c->storage, 0xa5, sz);
	return mrc_reasm_init(&c->r, 42, msg_len, seg, c->storage);
}

static void ctx_free(struct ctx *c)
{
	free(c->storage);
}

/* Length of packet @idx of @c's message. */
static u32 pkt_len(const struct mrc_reasm *r, u32 idx)
{
	return idx == r->npkts - 1 ? r->msg_len - idx * r->seg : r->seg;
}

static enum mrc_reasm_verdict mark_idx(struct mrc_reasm *r, u32 idx)
{
	return mrc_reasm_mark(r, r->msg_len, r->seg, idx * r->seg,
			      pkt_len(r, idx));
}

static void reasm__storage_bytes(void)
{
	CHECK(mrc_reasm_storage_bytes(0, 200) == 8, "empty message");
	CHECK(mrc_reasm_storage_bytes(1, 200) == 8, "1 byte");
	CHECK(mrc_reasm_storage_bytes(64 * 200, 200) == 8, "64 packets");
	CHECK(mrc_reasm_storage_bytes(64 * 200 + 1, 200) == 16, "65 packets");
	CHECK(mrc_reasm_storage_bytes(100, 0) == 0, "seg 0");
	/* 64 MiB at the smallest seg (192, v3): 349526 packets, 5462 words. */
	CHECK(mrc_reasm_storage_bytes(64 << 20, MRC_WIRE_MIN_SEG) ==
	      5462 * 8, "64 MiB: %zu",
	      mrc_reasm_storage_bytes(64 << 20, MRC_WIRE_MIN_SEG));
	/* No wrap near 4 GiB (msg_len + seg - 1 would overflow a u32). */
	CHECK(mrc_reasm_storage_bytes(U32_MAX, 1) == (size_t)(1U << 26) * 8,
	      "U32_MAX, seg 1: %zu", mrc_reasm_storage_bytes(U32_MAX, 1));
	CHECK(mrc_reasm_storage_bytes(U32_MAX, 65535) ==
	      (size_t)mrc_bm_words(65538) * 8, "U32_MAX, seg 65535");
}

static void reasm__init(void)
{
	struct ctx c;

	CHECK(ctx_init(&c, 100, 0) == -EINVAL, "seg 0 refused");
	ctx_free(&c);
	CHECK(ctx_init(&c, 10000, 1000) == 0, "init");
	CHECK(c.r.npkts == 10 && c.r.msg_id == 42 && c.r.msg_len == 10000 &&
	      c.r.seg == 1000, "geometry");
	CHECK(!mrc_reasm_complete(&c.r) && mrc_reasm_cum(&c.r) == 0 &&
	      c.r.nrecv == 0, "fresh");
	ctx_free(&c);
	CHECK(ctx_init(&c, U32_MAX, 4040) == 0 && c.r.npkts == 1063111,
	      "U32_MAX: npkts %u", c.r.npkts);
	ctx_free(&c);
}

static void reasm__in_order(void)
{
	struct ctx c;
	u32 i;
	enum mrc_reasm_verdict v;

	ctx_init(&c, 100 * 1000 + 1, 1000);	/* 101 packets, last 1 B */
	for (i = 0; i < c.r.npkts; i++) {
		v = mark_idx(&c.r, i);
		CHECK(v == (i == c.r.npkts - 1 ? MRC_REASM_COMPLETE :
			    MRC_REASM_NEW), "packet %u: %s", i,
		      verdict_name(v));
		CHECK(mrc_reasm_cum(&c.r) == i + 1, "cum %u after %u",
		      mrc_reasm_cum(&c.r), i);
		CHECK(mrc_reasm_complete(&c.r) == (i == c.r.npkts - 1),
		      "complete after %u", i);
	}
	for (i = 0; i < c.r.npkts; i++)
		CHECK(mark_idx(&c.r, i) == MRC_REASM_DUPLICATE, "dup %u", i);
	CHECK(c.r.nrecv == c.r.npkts, "nrecv %u", c.r.nrecv);
	ctx_free(&c);
}

static void reasm__reverse(void)
{
	struct ctx c;
	u32 i;
	enum mrc_reasm_verdict v;

	ctx_init(&c, 300 * 256, 256);
	for (i = c.r.npkts; i-- > 0;) {
		v = mark_idx(&c.r, i);
		CHECK(v == (i == 0 ? MRC_REASM_COMPLETE : MRC_REASM_NEW),
		      "packet %u: %s", i, verdict_name(v));
		CHECK(mrc_reasm_cum(&c.r) == (i ? 0 : c.r.npkts), "cum %u",
		      mrc_reasm_cum(&c.r));
	}
	ctx_free(&c);
}

/* Random permutations with duplicates mixed in: exactly one COMPLETE. */
static void reasm__random_with_duplicates(void)
{
	u32 round;

	for (round = 0; round < 300; round++) {
		u16 seg = MRC_WIRE_MIN_SEG + rnd(4000);
		u32 msg_len = 1 + rnd(rnd(2) ? 2000 * seg : 5 * seg);
		struct ctx c;
		u32 *order, n, k, i, cum = 0, distinct = 0, ncomplete = 0;
		u8 *seen;
		enum mrc_reasm_verdict v, exp;

		ctx_init(&c, msg_len, seg);
		n = c.r.npkts;
		/* Each packet once, plus about n / 3 duplicates. */
		order = malloc(sizeof(*order) * (n + n / 3 + 1));
		seen = calloc(n, 1);
		for (i = 0; i < n; i++)
			order[i] = i;
		k = n;
		for (i = 0; i < n / 3 + 1; i++)
			order[k++] = rnd(n);
		shuffle(order, k);
		for (i = 0; i < k; i++) {
			if (seen[order[i]]) {
				exp = MRC_REASM_DUPLICATE;
			} else {
				seen[order[i]] = 1;
				distinct++;
				exp = distinct == n ? MRC_REASM_COMPLETE :
				      MRC_REASM_NEW;
			}
			v = mark_idx(&c.r, order[i]);
			CHECK(v == exp, "round %u, packet %u of %u: %s, expected %s",
			      round, order[i], n, verdict_name(v),
			      verdict_name(exp));
			ncomplete += v == MRC_REASM_COMPLETE;
			while (cum < n && seen[cum])
				cum++;
			CHECK(mrc_reasm_cum(&c.r) == cum, "cum %u, expected %u",
			      mrc_reasm_cum(&c.r), cum);
			CHECK(mrc_reasm_complete(&c.r) == (distinct == n),
			      "complete");
		}
		CHECK(ncomplete == 1, "round %u: %u completions", round,
		      ncomplete);
		CHECK(c.r.nrecv == n, "round %u: nrecv %u of %u", round,
		      c.r.nrecv, n);
		free(order);
		free(seen);
		ctx_free(&c);
	}
}

static void reasm__one_byte(void)
{
	struct ctx c;

	ctx_init(&c, 1, 1000);
	CHECK(c.r.npkts == 1, "npkts %u", c.r.npkts);
	CHECK(mrc_reasm_mark(&c.r, 1, 1000, 0, 0) == MRC_REASM_INVALID,
	      "len 0");
	CHECK(mrc_reasm_mark(&c.r, 1, 1000, 0, 2) == MRC_REASM_INVALID,
	      "len 2");
	CHECK(mrc_reasm_mark(&c.r, 1, 1000, 0, 1000) == MRC_REASM_INVALID,
	      "len seg");
	CHECK(mrc_reasm_mark(&c.r, 1, 1000, 1000, 1) == MRC_REASM_INVALID,
	      "offset seg");
	CHECK(!mrc_reasm_complete(&c.r), "invalid packets change nothing");
	CHECK(mrc_reasm_mark(&c.r, 1, 1000, 0, 1) == MRC_REASM_COMPLETE,
	      "the byte");
	CHECK(mrc_reasm_mark(&c.r, 1, 1000, 0, 1) == MRC_REASM_DUPLICATE,
	      "again");
	CHECK(mrc_reasm_cum(&c.r) == 1, "cum");
	ctx_free(&c);

	/* An empty message is one empty packet, as mrc_wire_npkts() says. */
	ctx_init(&c, 0, 1000);
	CHECK(c.r.npkts == 1 && c.r.npkts == mrc_wire_npkts(0, 1000),
	      "empty: npkts %u", c.r.npkts);
	CHECK(mrc_reasm_mark(&c.r, 0, 1000, 0, 1) == MRC_REASM_INVALID,
	      "empty: len 1");
	CHECK(mrc_reasm_mark(&c.r, 0, 1000, 0, 0) == MRC_REASM_COMPLETE,
	      "empty: len 0");
	ctx_free(&c);
}

static void reasm__short_last_packet(void)
{
	struct ctx c;
	const u16 seg = 1000;
	const u32 len = 3 * seg + 17;

	ctx_init(&c, len, seg);
	CHECK(c.r.npkts == 4, "npkts %u", c.r.npkts);
	CHECK(mrc_reasm_mark(&c.r, len, seg, 3000, seg) == MRC_REASM_INVALID,
	      "last with a full seg");
	CHECK(mrc_reasm_mark(&c.r, len, seg, 3000, 16) == MRC_REASM_INVALID,
	      "last one byte short");
	CHECK(mrc_reasm_mark(&c.r, len, seg, 1000, 17) == MRC_REASM_INVALID,
	      "middle packet short");
	CHECK(mrc_reasm_mark(&c.r, len, seg, 3000, 17) == MRC_REASM_NEW,
	      "last");
	CHECK(mrc_reasm_mark(&c.r, len, seg, 0, seg) == MRC_REASM_NEW, "0");
	CHECK(mrc_reasm_mark(&c.r, len, seg, 2000, seg) == MRC_REASM_NEW, "2");
	CHECK(mrc_reasm_mark(&c.r, len, seg, 1000, seg) == MRC_REASM_COMPLETE,
	      "1");
	ctx_free(&c);

	/* An exact multiple: the last packet is a full one. */
	ctx_init(&c, 4 * seg, seg);
	CHECK(c.r.npkts == 4, "npkts %u", c.r.npkts);
	CHECK(mrc_reasm_mark(&c.r, 4 * seg, seg, 4000, 0) == MRC_REASM_INVALID,
	      "no empty packet after an exact multiple");
	CHECK(mrc_reasm_mark(&c.r, 4 * seg, seg, 3000, 999) ==
	      MRC_REASM_INVALID, "last short");
	CHECK(mrc_reasm_mark(&c.r, 4 * seg, seg, 3000, seg) == MRC_REASM_NEW,
	      "last full");
	ctx_free(&c);
}

static void reasm__geometry_mismatch(void)
{
	struct ctx c;

	ctx_init(&c, 10000, 1000);
	CHECK(mrc_reasm_mark(&c.r, 10000, 1000, 0, 1000) == MRC_REASM_NEW,
	      "first");
	CHECK(mrc_reasm_mark(&c.r, 10001, 1000, 1000, 1000) ==
	      MRC_REASM_MISMATCH, "msg_len grows");
	CHECK(mrc_reasm_mark(&c.r, 9000, 1000, 1000, 1000) ==
	      MRC_REASM_MISMATCH, "msg_len shrinks");
	CHECK(mrc_reasm_mark(&c.r, 10000, 500, 1000, 500) ==
	      MRC_REASM_MISMATCH, "seg changes");
	CHECK(mrc_reasm_mark(&c.r, 10000, 2000, 0, 2000) ==
	      MRC_REASM_MISMATCH, "seg changes on a received offset");
	/* Mismatch is reported before invalid and before duplicate. */
	CHECK(mrc_reasm_mark(&c.r, 5, 1000, 0, 1000) == MRC_REASM_MISMATCH,
	      "mismatch and invalid");
	CHECK(mrc_reasm_mark(&c.r, 10000, 999, 0, 1000) == MRC_REASM_MISMATCH,
	      "mismatch and duplicate");
	CHECK(c.r.nrecv == 1 && c.r.cum == 1 && c.r.hi == 1,
	      "mismatches changed nothing");
	CHECK(mrc_reasm_mark(&c.r, 10000, 1000, 1000, 1000) == MRC_REASM_NEW,
	      "right geometry still works");
	ctx_free(&c);
}

static void reasm__invalid(void)
{
	struct ctx c;

	ctx_init(&c, 10000, 1000);
	CHECK(mrc_reasm_mark(&c.r, 10000, 1000, 1, 1000) == MRC_REASM_INVALID,
	      "misaligned");
	CHECK(mrc_reasm_mark(&c.r, 10000, 1000, 999, 1000) ==
	      MRC_REASM_INVALID, "misaligned 999");
	CHECK(mrc_reasm_mark(&c.r, 10000, 1000, 10000, 0) == MRC_REASM_INVALID,
	      "offset == msg_len");
	CHECK(mrc_reasm_mark(&c.r, 10000, 1000, 11000, 1000) ==
	      MRC_REASM_INVALID, "beyond the end");
	CHECK(mrc_reasm_mark(&c.r, 10000, 1000, 4294967000U, 1000) ==
	      MRC_REASM_INVALID, "offset near 4 GiB");
	CHECK(mrc_reasm_mark(&c.r, 10000, 1000, 2000, 0) == MRC_REASM_INVALID,
	      "empty middle packet");
	CHECK(mrc_reasm_mark(&c.r, 10000, 1000, 2000, 1001) ==
	      MRC_REASM_INVALID, "too long");
	CHECK(mrc_reasm_mark(&c.r, 10000, 1000, 2000, U32_MAX) ==
	      MRC_REASM_INVALID, "len U32_MAX");
	CHECK(c.r.nrecv == 0 && c.r.hi == 0, "invalid packets changed nothing");
	ctx_free(&c);
}

/* Reference SACK computed from first principles. */
static void naive_sack(const struct mrc_reasm *r, const u8 *got,
		       struct mrc_reasm_sack *s)
{
	u32 cum = 0, hi = 0, i;

	while (cum < r->npkts && got[cum])
		cum++;
	for (i = 0; i < r->npkts; i++)
		if (got[i])
			hi = i + 1;
	memset(s, 0, sizeof(*s));
	s->cum = cum;
	s->nbits = hi > cum + 1 ? hi - cum - 1 : 0;
	if (s->nbits > MRC_WIRE_SACK_BITS)
		s->nbits = MRC_WIRE_SACK_BITS;
	for (i = 0; i < s->nbits; i++)
		if (got[cum + 1 + i])
			s->bitmap[i / 64] |= 1ULL << (i % 64);
}

static bool sack_eq(const struct mrc_reasm_sack *a,
		    const struct mrc_reasm_sack *b)
{
	return a->cum == b->cum && a->nbits == b->nbits &&
	       !memcmp(a->bitmap, b->bitmap, sizeof(a->bitmap));
}

static void reasm__sack_basic(void)
{
	struct ctx c;
	struct mrc_reasm_sack s;
	static const u32 got[] = { 0, 1, 2, 5, 7 };
	u32 i;

	ctx_init(&c, 20 * 500, 500);
	memset(&s, 0xff, sizeof(s));
	mrc_reasm_sack(&c.r, &s);
	CHECK(s.cum == 0 && s.nbits == 0 && !s.bitmap[0] && !s.bitmap[3],
	      "nothing yet: cum %u nbits %u", s.cum, s.nbits);
	for (i = 0; i < ARRAY_SIZE(got); i++)
		mark_idx(&c.r, got[i]);
	mrc_reasm_sack(&c.r, &s);
	/* cum 3; bits for packets 4..7: 5 -> bit 1, 7 -> bit 3. */
	CHECK(s.cum == 3 && s.nbits == 4, "cum %u nbits %u", s.cum, s.nbits);
	CHECK(s.bitmap[0] == 0xa && !s.bitmap[1] && !s.bitmap[2] &&
	      !s.bitmap[3], "bitmap %#llx", (unsigned long long)s.bitmap[0]);
	mark_idx(&c.r, 3);
	mrc_reasm_sack(&c.r, &s);
	CHECK(s.cum == 4 && s.nbits == 3 && s.bitmap[0] == 0x5,
	      "cum %u nbits %u bitmap %#llx", s.cum, s.nbits,
	      (unsigned long long)s.bitmap[0]);
	mark_idx(&c.r, 4);
	mrc_reasm_sack(&c.r, &s);
	CHECK(s.cum == 6 && s.nbits == 1 && s.bitmap[0] == 0x1,
	      "cum %u nbits %u", s.cum, s.nbits);
	mark_idx(&c.r, 6);
	mrc_reasm_sack(&c.r, &s);
	CHECK(s.cum == 8 && s.nbits == 0 && s.bitmap[0] == 0,
	      "cum %u nbits %u", s.cum, s.nbits);
	for (i = 8; i < 20; i++)
		mark_idx(&c.r, i);
	mrc_reasm_sack(&c.r, &s);
	CHECK(s.cum == 20 && s.nbits == 0, "complete: cum %u nbits %u",
	      s.cum, s.nbits);
	ctx_free(&c);
}

static void reasm__sack_window(void)
{
	struct ctx c;
	struct mrc_reasm_sack s;
	u32 i;

	ctx_init(&c, 1000 * 200, 200);
	for (i = 1; i < 1000; i++)
		mark_idx(&c.r, i);
	mrc_reasm_sack(&c.r, &s);
	CHECK(s.cum == 0 && s.nbits == MRC_WIRE_SACK_BITS,
	      "cum %u nbits %u", s.cum, s.nbits);
	for (i = 0; i < 4; i++)
		CHECK(s.bitmap[i] == ~0ULL, "word %u", i);
	ctx_free(&c);

	/* Near the end: nbits stops at the last packet received. */
	ctx_init(&c, 300 * 200, 200);
	mark_idx(&c.r, 299);
	mark_idx(&c.r, 200);
	mrc_reasm_sack(&c.r, &s);
	/* Bits for packets 1..256: 200 is bit 199 (word 3, bit 7). */
	CHECK(s.cum == 0 && s.nbits == 256 && s.bitmap[3] == 1ULL << 7 &&
	      !s.bitmap[0] && !s.bitmap[1] && !s.bitmap[2],
	      "cum %u nbits %u w3 %#llx", s.cum, s.nbits,
	      (unsigned long long)s.bitmap[3]);
	for (i = 0; i < 200; i++)
		mark_idx(&c.r, i);
	mrc_reasm_sack(&c.r, &s);
	/* cum 201; packets 202..299: nbits 98, only 299 set (bit 97). */
	CHECK(s.cum == 201 && s.nbits == 98, "cum %u nbits %u", s.cum,
	      s.nbits);
	CHECK(s.bitmap[0] == 0 && s.bitmap[1] == 1ULL << 33 && !s.bitmap[2],
	      "w0 %#llx w1 %#llx", (unsigned long long)s.bitmap[0],
	      (unsigned long long)s.bitmap[1]);
	ctx_free(&c);
}

static void reasm__sack_random(void)
{
	u32 round, i;

	for (round = 0; round < 300; round++) {
		u32 npkts = 1 + rnd(rnd(2) ? 700 : 40);
		u32 density = rnd(101);
		struct ctx c;
		struct mrc_reasm_sack s, exp;
		u8 *got = calloc(npkts, 1);

		ctx_init(&c, npkts * 300 - rnd(300), 300);
		CHECK(c.r.npkts == npkts, "npkts");
		for (i = 0; i < npkts; i++) {
			if (rnd(100) >= (u32)density)
				continue;
			got[i] = 1;
			mark_idx(&c.r, i);
		}
		memset(&s, 0x5a, sizeof(s));
		mrc_reasm_sack(&c.r, &s);
		naive_sack(&c.r, got, &exp);
		CHECK(sack_eq(&s, &exp),
		      "round %u: cum %u/%u nbits %u/%u", round, s.cum,
		      exp.cum, s.nbits, exp.nbits);
		CHECK(s.nbits == 0 || s.cum + s.nbits < npkts,
		      "nbits past the end");
		free(got);
		ctx_free(&c);
	}
}

static void reasm__holes(void)
{
	struct ctx c;
	struct mrc_reasm_range h[8];
	u32 n;

	ctx_init(&c, 100 * 200, 200);
	CHECK(mrc_reasm_holes(&c.r, h, 8) == 0, "nothing received: no holes");
	mark_idx(&c.r, 0);
	mark_idx(&c.r, 1);
	CHECK(mrc_reasm_holes(&c.r, h, 8) == 0, "prefix: no holes");
	mark_idx(&c.r, 5);
	mark_idx(&c.r, 6);
	mark_idx(&c.r, 9);
	mark_idx(&c.r, 20);
	n = mrc_reasm_holes(&c.r, h, 8);
	CHECK(n == 3, "n %u", n);
	CHECK(h[0].first == 2 && h[0].count == 3, "h0 %u+%u", h[0].first,
	      h[0].count);
	CHECK(h[1].first == 7 && h[1].count == 2, "h1 %u+%u", h[1].first,
	      h[1].count);
	CHECK(h[2].first == 10 && h[2].count == 10, "h2 %u+%u", h[2].first,
	      h[2].count);
	/* At most max ranges, lowest first. */
	memset(h, 0xee, sizeof(h));
	n = mrc_reasm_holes(&c.r, h, 2);
	CHECK(n == 2 && h[0].first == 2 && h[1].first == 7 &&
	      h[2].first == 0xeeeeeeee, "max 2: n %u", n);
	CHECK(mrc_reasm_holes(&c.r, h, 0) == 0, "max 0");
	/* Filling the holes. */
	mark_idx(&c.r, 7);
	mark_idx(&c.r, 8);
	n = mrc_reasm_holes(&c.r, h, 8);
	CHECK(n == 2 && h[0].first == 2 && h[1].first == 10, "n %u", n);
	mark_idx(&c.r, 99);
	n = mrc_reasm_holes(&c.r, h, 8);
	CHECK(n == 3 && h[2].first == 21 && h[2].count == 78,
	      "to the last: n %u %u+%u", n, h[2].first, h[2].count);
	ctx_free(&c);
}

static void reasm__holes_random(void)
{
	u32 round, i;

	for (round = 0; round < 300; round++) {
		u32 npkts = 1 + rnd(500);
		u32 density = rnd(101);
		u32 max = rnd(MRC_WIRE_NACK_MAX + 1);
		struct mrc_reasm_range h[MRC_WIRE_NACK_MAX];
		struct mrc_reasm_range e[MRC_WIRE_NACK_MAX];
		u32 n, ne = 0, hi = 0;
		struct ctx c;
		u8 *got = calloc(npkts, 1);

		ctx_init(&c, npkts * 1000, 1000);
		for (i = 0; i < npkts; i++)
			if (rnd(100) < density) {
				got[i] = 1;
				mark_idx(&c.r, i);
				hi = i + 1;
			}
		/* Every run of missing packets below hi; keep the first max. */
		for (i = 0; i < hi; i++) {
			if (got[i])
				continue;
			if (i && !got[i - 1]) {
				if (ne <= max && ne)
					e[ne - 1].count++;
				continue;
			}
			if (ne < max) {
				e[ne].first = i;
				e[ne].count = 1;
			}
			ne++;
		}
		if (ne > max)
			ne = max;
		n = mrc_reasm_holes(&c.r, h, max);
		CHECK(n == ne, "round %u: %u ranges, expected %u", round, n,
		      ne);
		for (i = 0; i < n && i < ne; i++)
			CHECK(h[i].first == e[i].first &&
			      h[i].count == e[i].count,
			      "round %u range %u: %u+%u, expected %u+%u", round,
			      i, h[i].first, h[i].count, e[i].first,
			      e[i].count);
		free(got);
		ctx_free(&c);
	}
}

/* ---------------------------------------------------------------- */

static const struct tap_test tests[] = {
#define T(fn) { #fn, fn }
	T(bm__words),
	T(bm__set_test_clear),
	T(bm__find_next),
	T(bm__random_vs_naive),
	T(bm__extract),
	T(reasm__storage_bytes),
	T(reasm__init),
	T(reasm__in_order),
	T(reasm__reverse),
	T(reasm__random_with_duplicates),
	T(reasm__one_byte),
	T(reasm__short_last_packet),
	T(reasm__geometry_mismatch),
	T(reasm__invalid),
	T(reasm__sack_basic),
	T(reasm__sack_window),
	T(reasm__sack_random),
	T(reasm__holes),
	T(reasm__holes_random),
#undef T
};

int main(void)
{
	return tap_run_seeded(tests, ARRAY_SIZE(tests));
}
