// SPDX-License-Identifier: GPL-2.0
/*
 * txsb_fuzz.c - libFuzzer target for mrc/core/txsb.c (sender scoreboard).
 *
 * The input is a script run on one struct mrc_txsb:
 *
 *   byte 0      size mode (how the next 4 bytes make npkts)
 *   bytes 1-4   npkts source (u32, little endian)
 *   then ops    one op byte and its arguments each, until the input ends
 *               (missing argument bytes read as 0)
 *
 * Ops: next, sent (of next(), of a picked packet, of anything), SACKs
 * built from the shadow (valid, stale, with a hostile twist: cum past the
 * highest sent or past npkts, bits past npkts or on unsent packets, nbits
 * over 256) and raw fuzzed ones, NACK ranges (valid and hostile),
 * lose_path, lose_older with a wrapping clock; callbacks on or NULL.  The storage is malloc()ed
 * with exactly mrc_txsb_storage_bytes() bytes, so ASan reports any access
 * past it.  npkts is kept at most 2^13 here (the storage of
 * MRC_TXSB_MAX_PKTS is 400 MB); the size formula and the refusal of 0 and
 * of MRC_TXSB_MAX_PKTS + 1 are checked on every input without allocating.
 *
 * Oracles, besides ASan/UBSan, against a shadow model (state, path, send
 * time, retransmitted flag per packet):
 *  - every return value is the one txsb.h's rules give, computed here
 *    from the shadow, and every event (idx, path, sent_us, inflight,
 *    retrans) is the shadow's, in increasing index order for SACKs;
 *  - refused calls (errors) change nothing: struct and storage compared
 *    with a snapshot taken before; next() changes no packet state;
 *  - acked + inflight + lost + unsent == npkts, and each count equals
 *    the shadow's; cum == the shadow's first non-acked packet; done()
 *    iff all acked; no packet is ever acked that was never sent;
 *  - mrc_txsb_state() equals the shadow for every packet (after every op
 *    for small scoreboards, at the end of the input for all).
 *
 *   make -C selftests/mrc/fuzz run FUZZ_SECONDS=10
 */
#include "../../../mrc/core/txsb.h"

#define FUZZ_NAME "txsb_fuzz"
#include "fuzz.h"

#define MAX_PKTS	(1U << 13)
/* Below this many packets, every packet is compared after every op. */
#define FULL_CHECK_PKTS	128
#define SACK_WORDS	(MRC_WIRE_SACK_BITS / 64)

/* The shadow model. */
struct spkt {
	u8	state;		/* enum mrc_txsb_pkt_state */
	u8	path;
	bool	retx;
	u32	sent_us;
};

static struct spkt sp[MAX_PKTS];
static u32 npkts;
static u32 cnt[4];		/* packets per state */
static u32 s_hi_sent;		/* 1 + highest ever sent */
static u32 s_cum;		/* first non-acked packet */
static u32 s_next_new;		/* first never-sent packet */
static u32 now_us;		/* the caller's clock (wraps) */

static struct mrc_txsb sb;
static u8 *storage;
static size_t storage_len;
static u8 *snap_storage;
static struct mrc_txsb snap_sb;

/* Events seen by the callback of the call under test. */
static struct mrc_txsb_event evs[MAX_PKTS];
static u32 nev;

static void on_event(void *arg, const struct mrc_txsb_event *ev)
{
	ASSERT(arg == &sb);
	ASSERT(nev < npkts);
	evs[nev++] = *ev;
}

/*
 * Callbacks on (the default) or NULL.  With NULL the events the shadow
 * predicts are filled in after the call, so the same checks and shadow
 * updates run and the packet states are compared to them.
 */
static bool use_fn;

static mrc_txsb_fn cb(void)
{
	return use_fn ? on_event : NULL;
}

static void synth_event(u32 idx)
{
	struct mrc_txsb_event *ev = &evs[nev++];

	ev->idx = idx;
	ev->sent_us = sp[idx].sent_us;
	ev->path = sp[idx].path;
	ev->inflight = sp[idx].state == MRC_TXSB_INFLIGHT;
	ev->retrans = sp[idx].retx;
}

static void snapshot(void)
{
	snap_sb = sb;
	memcpy(snap_storage, storage, storage_len);
}

static void check_unchanged(const char *what, int ret)
{
	if (memcmp(&snap_sb, &sb, sizeof(sb)) ||
	    memcmp(snap_storage, storage, storage_len))
		FAIL("%s refused (%d) but changed the scoreboard", what, ret);
	ASSERT(nev == 0);
}

static void set_state(u32 idx, u8 st)
{
	cnt[sp[idx].state]--;
	sp[idx].state = st;
	cnt[st]++;
}

static void check_pkt(u32 idx)
{
	enum mrc_txsb_pkt_state st = mrc_txsb_state(&sb, idx);

	if (st != sp[idx].state)
		FAIL("packet %u: state %d, shadow %d", idx, st, sp[idx].state);
}

static void check_counts(void)
{
	u32 i;

	ASSERT(sb.npkts == npkts);
	ASSERT(mrc_txsb_acked(&sb) == cnt[MRC_TXSB_ACKED]);
	ASSERT(mrc_txsb_inflight(&sb) == cnt[MRC_TXSB_INFLIGHT]);
	ASSERT(mrc_txsb_lost(&sb) == cnt[MRC_TXSB_LOST]);
	ASSERT((u64)cnt[0] + cnt[1] + cnt[2] + cnt[3] == npkts);
	ASSERT((u64)mrc_txsb_acked(&sb) + mrc_txsb_inflight(&sb) +
	       mrc_txsb_lost(&sb) + cnt[MRC_TXSB_UNSENT] == npkts);
	ASSERT(mrc_txsb_cum(&sb) == s_cum);
	ASSERT(sb.hi_sent == s_hi_sent);
	ASSERT(mrc_txsb_done(&sb) == (cnt[MRC_TXSB_ACKED] == npkts));
	if (npkts <= FULL_CHECK_PKTS)
		for (i = 0; i < npkts; i++)
			check_pkt(i);
}

/*
 * Events of a SACK/NACK/lose call: n distinct packets, each INFLIGHT or
 * LOST in the shadow, with its path, time and retransmitted flag; in
 * increasing index order where txsb.h promises it (SACKs).
 */
static void check_events(const char *what, u32 n, bool increasing)
{
	static bool seen[MAX_PKTS];
	u32 i;

	ASSERT(nev == n);
	for (i = 0; i < nev; i++) {
		ASSERT(evs[i].idx < npkts);
		if (seen[evs[i].idx])
			FAIL("%s: two events for packet %u", what, evs[i].idx);
		seen[evs[i].idx] = true;
	}
	for (i = 0; i < nev; i++)
		seen[evs[i].idx] = false;
	for (i = 0; i < nev; i++) {
		const struct mrc_txsb_event *ev = &evs[i];
		const struct spkt *p;

		ASSERT(ev->idx < npkts);
		p = &sp[ev->idx];
		if (p->state != MRC_TXSB_INFLIGHT && p->state != MRC_TXSB_LOST)
			FAIL("%s: event for packet %u in shadow state %d",
			     what, ev->idx, p->state);
		ASSERT(ev->inflight == (p->state == MRC_TXSB_INFLIGHT));
		ASSERT(ev->path == p->path);
		ASSERT(ev->sent_us == p->sent_us);
		ASSERT(ev->retrans == p->retx);
		if (increasing && i)
			ASSERT(ev->idx > evs[i - 1].idx);
	}
}

/* --- next ------------------------------------------------------------ */

static u32 shadow_next(void)
{
	u32 i;

	if (cnt[MRC_TXSB_LOST])
		for (i = s_cum; i < s_hi_sent; i++)
			if (sp[i].state == MRC_TXSB_LOST)
				return i;
	ASSERT(!cnt[MRC_TXSB_LOST]);
	while (s_next_new < npkts && sp[s_next_new].state != MRC_TXSB_UNSENT)
		s_next_new++;
	return s_next_new < npkts ? s_next_new : MRC_TXSB_NONE;
}

static u32 do_next(void)
{
	u32 want = shadow_next(), got, again;

	/* A full snapshot for small scoreboards, the struct for all. */
	bool full = storage_len <= 2048;

	if (full)
		snapshot();
	else
		snap_sb = sb;
	nev = 0;
	got = mrc_txsb_next(&sb);
	if (got != want)
		FAIL("next: %u, expected %u", got, want);
	/* Only the search hint may move. */
	snap_sb.rtx_hint = sb.rtx_hint;
	if (full)
		check_unchanged("next", 0);
	else
		ASSERT(!memcmp(&snap_sb, &sb, sizeof(sb)));
	if (got != MRC_TXSB_NONE)
		check_pkt(got);
	again = mrc_txsb_next(&sb);
	ASSERT(again == got);
	return got;
}

/* --- sent ------------------------------------------------------------ */

static void do_sent(u32 idx, u8 path, u32 t)
{
	int want, got;

	if (idx >= npkts)
		want = -EINVAL;
	else if (sp[idx].state == MRC_TXSB_ACKED)
		want = -EALREADY;
	else if (sp[idx].state == MRC_TXSB_INFLIGHT)
		want = -EBUSY;
	else
		want = sp[idx].state == MRC_TXSB_LOST;

	if (want < 0)
		snapshot();
	nev = 0;
	got = mrc_txsb_sent(&sb, idx, path, t);
	if (got != want)
		FAIL("sent(%u, path %u): %d, expected %d", idx, path, got,
		     want);
	if (want < 0) {
		check_unchanged("sent", got);
		return;
	}
	if (want == 1)
		sp[idx].retx = true;
	sp[idx].path = path;
	sp[idx].sent_us = t;
	set_state(idx, MRC_TXSB_INFLIGHT);
	if (idx + 1 > s_hi_sent)
		s_hi_sent = idx + 1;
	check_pkt(idx);
}

/* --- sack ------------------------------------------------------------ */

static bool bit_of(const u64 *bm, u32 i)
{
	return (bm[i / 64] >> (i % 64)) & 1;
}

static void do_sack(u32 cum, u32 nbits, const u64 bm[SACK_WORDS])
{
	u64 words[SACK_WORDS];
	int want = 0, got;
	u32 i, n = 0;

	/* The rules of txsb.h, from the shadow. */
	if (nbits > MRC_WIRE_SACK_BITS) {
		want = -EINVAL;
	} else if (cum > npkts) {
		want = -ERANGE;
	} else {
		/* Below s_cum all are acked, so sent. */
		for (i = s_cum; i < cum; i++)
			if (sp[i].state == MRC_TXSB_UNSENT)
				want = -ERANGE;
		for (i = 0; i < nbits && !want; i++) {
			u64 idx = (u64)cum + 1 + i;

			if (bit_of(bm, i) && (idx >= npkts ||
			    sp[idx].state == MRC_TXSB_UNSENT))
				want = -ERANGE;
		}
	}
	if (!want) {
		for (i = s_cum; i < cum; i++)
			n += sp[i].state != MRC_TXSB_ACKED;
		for (i = 0; i < nbits; i++)
			if (bit_of(bm, i) &&
			    sp[cum + 1 + i].state != MRC_TXSB_ACKED)
				n++;
		want = (int)n;
	}

	memcpy(words, bm, sizeof(words));
	if (want < 0)
		snapshot();
	nev = 0;
	got = mrc_txsb_sack(&sb, cum, nbits, words, cb(), &sb);
	ASSERT(!memcmp(words, bm, sizeof(words)));	/* read only */
	if (got != want)
		FAIL("sack(cum %u, nbits %u) on npkts %u, hi_sent %u, cum "
		     "%u: %d, expected %d", cum, nbits, npkts, s_hi_sent,
		     s_cum, got, want);
	if (want < 0) {
		check_unchanged("sack", got);
		return;
	}
	if (!use_fn) {
		ASSERT(nev == 0);
		for (i = s_cum; i < cum; i++)
			if (sp[i].state != MRC_TXSB_ACKED)
				synth_event(i);
		for (i = 0; i < nbits; i++)
			if (bit_of(bm, i) &&
			    sp[cum + 1 + i].state != MRC_TXSB_ACKED)
				synth_event(cum + 1 + i);
	}
	check_events("sack", n, true);
	for (i = 0; i < nev; i++) {
		u32 idx = evs[i].idx;

		ASSERT(idx < cum || (idx > cum && idx - cum - 1 < nbits &&
				     bit_of(bm, idx - cum - 1)));
		/* Never acked unless sent: the shadow says sent. */
		ASSERT(sp[idx].state != MRC_TXSB_UNSENT);
		set_state(idx, MRC_TXSB_ACKED);
		check_pkt(idx);
	}
	while (s_cum < npkts && sp[s_cum].state == MRC_TXSB_ACKED)
		s_cum++;
}

/*
 * A SACK a receiver could send: cum at or below the first not-yet-acked
 * sent packet run, bits for a random subset of sent packets after it.
 * @twist makes it hostile or stale.
 */
static void sack_from_shadow(struct input *in)
{
	u8 twist = get8(in);
	u32 back = get16(in);
	u64 mask = get64(in);
	u64 bm[SACK_WORDS] = { 0 };
	u32 cum = s_cum, nbits, i;

	/* Extend cum over a prefix of sent packets (the receiver has them). */
	while (cum < npkts && sp[cum].state != MRC_TXSB_UNSENT &&
	       (mask & 1)) {
		cum++;
		mask = mask >> 1 | mask << 63;
	}
	if (twist & 1)			/* stale: an older cum */
		cum = back > cum ? 0 : cum - back;
	nbits = 0;
	for (i = 0; i < MRC_WIRE_SACK_BITS; i++) {
		u64 idx = (u64)cum + 1 + i;

		if (idx >= s_hi_sent)
			break;
		if (sp[idx].state != MRC_TXSB_UNSENT &&
		    ((mask >> (i % 64)) & 1)) {
			bm[i / 64] |= 1ULL << (i % 64);
			nbits = i + 1;
		}
	}
	if (twist & 2)			/* claim more bits than it set */
		nbits += (twist >> 4) % 8;
	switch ((twist >> 2) & 3) {
	case 1:				/* a bit on a packet never sent/past npkts */
		i = (back % MRC_WIRE_SACK_BITS);
		bm[i / 64] |= 1ULL << (i % 64);
		if (nbits <= i)
			nbits = i + 1;
		break;
	case 2:				/* cum past what was sent */
		cum = s_hi_sent + (back & 7);
		break;
	case 3:				/* nbits over the wire's maximum */
		if (twist & 0x80)
			nbits = MRC_WIRE_SACK_BITS + 1 + (back & 0xff);
		break;
	}
	if (nbits > MRC_WIRE_SACK_BITS && !((twist >> 2) & 3))
		nbits = MRC_WIRE_SACK_BITS;
	do_sack(cum, nbits, bm);
}

static void sack_raw(struct input *in)
{
	u64 bm[SACK_WORDS];
	u32 cum = get32(in), nbits = get16(in), i;

	if (!(nbits & 0x8000))
		cum %= npkts + 2;
	nbits &= 0x7fff;
	if (nbits > 2 * MRC_WIRE_SACK_BITS)
		nbits %= MRC_WIRE_SACK_BITS + 2;
	for (i = 0; i < SACK_WORDS; i++)
		bm[i] = get64(in);
	do_sack(cum, nbits, bm);
}

/* --- nack, lose_path, lose_older -------------------------------------- */

static void do_nack(u32 first, u32 count)
{
	int want, got;
	u32 i, n = 0;

	if (!count)
		want = -EINVAL;
	else if ((u64)first + count > s_hi_sent)
		want = -ERANGE;
	else {
		for (i = first; i < first + count; i++)
			n += sp[i].state == MRC_TXSB_INFLIGHT;
		want = (int)n;
	}
	if (want < 0)
		snapshot();
	nev = 0;
	got = mrc_txsb_nack(&sb, first, count, cb(), &sb);
	if (got != want)
		FAIL("nack(%u, %u) hi_sent %u: %d, expected %d", first, count,
		     s_hi_sent, got, want);
	if (want < 0) {
		check_unchanged("nack", got);
		return;
	}
	if (!use_fn) {
		ASSERT(nev == 0);
		for (i = first; i < first + count; i++)
			if (sp[i].state == MRC_TXSB_INFLIGHT)
				synth_event(i);
	}
	check_events("nack", n, false);
	for (i = 0; i < nev; i++) {
		ASSERT(evs[i].inflight);
		ASSERT(evs[i].idx >= first && evs[i].idx - first < count);
		set_state(evs[i].idx, MRC_TXSB_LOST);
		check_pkt(evs[i].idx);
	}
}

static void do_lose(bool by_path, u8 path, u32 before)
{
	u32 i, n = 0, got;

	for (i = 0; i < npkts; i++)
		if (sp[i].state == MRC_TXSB_INFLIGHT &&
		    (by_path ? sp[i].path == path :
		     (s32)(sp[i].sent_us - before) < 0))
			n++;
	if (!n)
		snapshot();
	nev = 0;
	got = by_path ? mrc_txsb_lose_path(&sb, path, cb(), &sb) :
			mrc_txsb_lose_older(&sb, before, cb(), &sb);
	if (got != n)
		FAIL("lose_%s(%u): %u, expected %u",
		     by_path ? "path" : "older", by_path ? path : before, got,
		     n);
	if (!n)
		check_unchanged(by_path ? "lose_path" : "lose_older", 0);
	for (i = 0; i < npkts && !use_fn; i++)
		if (sp[i].state == MRC_TXSB_INFLIGHT &&
		    (by_path ? sp[i].path == path :
		     (s32)(sp[i].sent_us - before) < 0))
			synth_event(i);
	check_events(by_path ? "lose_path" : "lose_older", n, false);
	for (i = 0; i < nev; i++) {
		ASSERT(evs[i].inflight);
		if (by_path)
			ASSERT(evs[i].path == path);
		else
			ASSERT((s32)(evs[i].sent_us - before) < 0);
		set_state(evs[i].idx, MRC_TXSB_LOST);
		check_pkt(evs[i].idx);
	}
}

/* --- setup ----------------------------------------------------------- */

static u32 pick_idx(struct input *in)
{
	u8 how = get8(in);
	u16 v = get16(in);

	switch (how % 4) {
	case 0:
		return v % npkts;
	case 1:
		return s_cum + v % 8 < npkts ? s_cum + v % 8 : npkts - 1;
	case 2:
		return s_hi_sent > v % 8 ? s_hi_sent - v % 8 : 0;
	default:
		return npkts - 1 - v % npkts;
	}
}

static void check_sizes(u32 any)
{
	u64 n = any;

	if (!any || any > MRC_TXSB_MAX_PKTS)
		ASSERT(mrc_txsb_storage_bytes(any) == 0);
	else
		ASSERT(mrc_txsb_storage_bytes(any) ==
		       6 * n + 8 * ((n + 63) / 64));
	ASSERT(mrc_txsb_storage_bytes(0) == 0);
	ASSERT(mrc_txsb_storage_bytes(MRC_TXSB_MAX_PKTS + 1) == 0);
	ASSERT(mrc_txsb_storage_bytes(U32_MAX) == 0);
	ASSERT(mrc_txsb_storage_bytes(MRC_TXSB_MAX_PKTS) ==
	       6ULL * MRC_TXSB_MAX_PKTS + MRC_TXSB_MAX_PKTS / 8);
}

static void setup(struct input *in)
{
	u8 mode = get8(in);
	u32 v = get32(in);
	struct mrc_txsb bad;
	u64 bad_storage = 0;

	check_sizes(v);
	ASSERT(mrc_txsb_init(&bad, 0, &bad_storage) == -EINVAL);
	ASSERT(mrc_txsb_init(&bad, MRC_TXSB_MAX_PKTS + 1, &bad_storage) ==
	       -EINVAL);
	ASSERT(bad_storage == 0);

	switch (mode % 4) {
	case 0:
		npkts = 1 + v % 8;
		break;
	case 1:
		npkts = 1 + v % 300;
		break;
	case 2:
		npkts = 1 + v % 4096;
		break;
	default:
		npkts = 1 + v % MAX_PKTS;
		break;
	}
	storage_len = mrc_txsb_storage_bytes(npkts);
	ASSERT(storage_len == 6 * (u64)npkts + 8 * ((npkts + 63) / 64));
	storage = malloc(storage_len);
	snap_storage = malloc(storage_len);
	ASSERT(storage && snap_storage);
	memset(storage, 0xa5, storage_len);	/* init must clear it */
	ASSERT(mrc_txsb_init(&sb, npkts, storage) == 0);

	memset(sp, 0, npkts * sizeof(*sp));
	memset(cnt, 0, sizeof(cnt));
	cnt[MRC_TXSB_UNSENT] = npkts;
	s_hi_sent = 0;
	s_cum = 0;
	s_next_new = 0;
	use_fn = true;
	now_us = get32(in);	/* any start: the clock may wrap */
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	unsigned int ops = 0;
	u32 i;

	setup(&in);
	check_counts();

	while (in.n && ops++ < 2048) {
		u8 op = get8(&in);

		now_us += op >> 4;
		switch (op % 13) {
		case 0:
			do_next();
			break;
		case 1:
		case 2: {	/* send what next() says, on some path */
			u8 path = get8(&in) % 4;
			u8 k = get8(&in) % 16 + 1;

			while (k--) {
				u32 idx = do_next();

				if (idx == MRC_TXSB_NONE)
					break;
				do_sent(idx, path, now_us++);
			}
			break;
		}
		case 3: {	/* send a picked packet (maybe refused) */
			u32 idx = pick_idx(&in);

			do_sent(idx, get8(&in) % 4, now_us);
			break;
		}
		case 4: {	/* send anything */
			u32 idx = get32(&in);

			do_sent(idx, get8(&in), now_us);
			break;
		}
		case 5:
		case 6:
			sack_from_shadow(&in);
			break;
		case 7:
			sack_raw(&in);
			break;
		case 8: {	/* a NACK range near what was sent */
			u32 first = pick_idx(&in);

			do_nack(first, get8(&in) % 40);
			break;
		}
		case 9: {	/* any NACK range */
			u32 first = get32(&in);

			do_nack(first, get32(&in));
			break;
		}
		case 10:
			do_lose(true, get8(&in) % 5, 0);
			break;
		case 12:	/* callbacks off/on */
			use_fn = !use_fn;
			break;
		default: {	/* RTO: packets older than now - age */
			u32 age = get16(&in);

			if (age & 0x8000)	/* or any instant at all */
				do_lose(false, 0, get32(&in));
			else
				do_lose(false, 0, now_us - age);
			break;
		}
		}
		check_counts();
	}
	for (i = 0; i < npkts; i++)
		check_pkt(i);

	free(storage);
	free(snap_storage);
	return 0;
}
