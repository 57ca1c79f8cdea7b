// SPDX-License-Identifier: GPL-2.0
/*
 * reasm_fuzz.c - libFuzzer target for mrc/core/reasm.c (receiver reassembly
 * bookkeeping).
 *
 * The input is a script run on one struct mrc_reasm:
 *
 *   byte 0      geometry mode (how the next 6 bytes make msg_len)
 *   bytes 1-4   msg_len source (u32, little endian)
 *   bytes 5-6   seg source: MRC_WIRE_MIN_SEG + u16 % (valid seg span)
 *   then ops    one op byte and its arguments each, until the input ends
 *               (missing argument bytes read as 0)
 *
 * msg_len stays within what the wire parser accepts (1..U32_MAX, with 0 as
 * the documented empty message) and seg within [MRC_WIRE_MIN_SEG,
 * MRC_WIRE_MAX_PAYLOAD].  The bitmap storage is malloc()ed with exactly
 * mrc_reasm_storage_bytes() bytes, so ASan reports any access past it.
 *
 * Oracles, besides ASan/UBSan, against a shadow model (one bool per
 * packet, plus the list of indices marked, for holes in huge messages):
 *  - storage size == 8 * ceil(npkts / 64) computed here in 64 bits, and
 *    <= msg_len / (8 * seg) + 8 as reasm.h promises;
 *  - every mark verdict is the one the header's rules give (MISMATCH,
 *    INVALID, DUPLICATE, NEW, COMPLETE), and only NEW/COMPLETE change
 *    the struct or the bitmap (compared against a snapshot);
 *  - COMPLETE is returned exactly once, for the packet that made the
 *    shadow whole; complete(), cum(), has(), nrecv, hi agree with the
 *    shadow after every op;
 *  - a SACK has cum == first missing, nbits == min(hi - cum - 1, 256)
 *    (0 when complete), bits < nbits equal to the shadow, bits >= nbits
 *    zero, and never reaches past the last packet;
 *  - holes(max) gives exactly the shadow's first max runs of missing
 *    packets in [cum, hi), written into an array of exactly max entries.
 *
 *   make -C selftests/mrc/fuzz run FUZZ_SECONDS=10
 */
#include "../../../mrc/core/reasm.h"

#define FUZZ_NAME "reasm_fuzz"
#include "fuzz.h"

/* Longest run one "mark run" op records. */
#define RUN_MAX		4096
/*
 * holes() costs O(hole / 64) in reasm.c: a 4 GiB message with one packet
 * at its end has a 21 M-packet hole.  Above HUGE_PKTS packets an input
 * gets HUGE_HOLE_CALLS hole listings (plus the two at its end), so such
 * inputs stay fast enough to fuzz.
 */
#define HUGE_PKTS	(1U << 20)
#define HUGE_HOLE_CALLS	4
/* Below this many packets, every packet is compared after every op. */
#define FULL_CHECK_PKTS	1024

/* The shadow model. */
struct shadow {
	u64	npkts;
	bool	*got;		/* got_all, cleared again after each input */
	u32	*marked;	/* indices marked, in arrival order */
	u32	nmarked;
	u32	cap;
	u64	cum;
	u64	hi;
	unsigned int ncomplete;	/* COMPLETE verdicts seen */
};

static struct mrc_reasm r;
static u64 *storage;
static size_t storage_len;
static struct shadow sh;
/*
 * One bool per packet of the largest message (U32_MAX bytes in
 * MRC_WIRE_MIN_SEG-byte packets), allocated once: only the entries an
 * input set are cleared afterwards, so huge messages cost no 20 MB
 * calloc per input.
 */
#define SHADOW_MAX_PKTS	(U32_MAX / MRC_WIRE_MIN_SEG + 1)
static bool *got_all;
static u32 msg_len;
static u16 seg;

static int cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static u64 expect_len(u64 idx)
{
	return idx == sh.npkts - 1 ? msg_len - idx * seg : seg;
}

static void check_state(void)
{
	u64 i;

	ASSERT(r.npkts == sh.npkts);
	ASSERT(r.msg_len == msg_len && r.seg == seg);
	ASSERT(r.bm == storage);
	ASSERT(r.nrecv == sh.nmarked);
	ASSERT(mrc_reasm_cum(&r) == sh.cum);
	ASSERT(r.hi == sh.hi);
	ASSERT(mrc_reasm_complete(&r) == (sh.nmarked == sh.npkts));
	ASSERT(sh.ncomplete == (sh.nmarked == sh.npkts));
	ASSERT(!mrc_reasm_has(&r, (u32)sh.npkts));
	ASSERT(!mrc_reasm_has(&r, U32_MAX));
	if (sh.npkts <= FULL_CHECK_PKTS)
		for (i = 0; i < sh.npkts; i++)
			ASSERT(mrc_reasm_has(&r, (u32)i) == sh.got[i]);
}

/* has() at and around a few indices (and everywhere if small). */
static void check_has_near(u64 idx)
{
	u64 i, lo = idx > 2 ? idx - 2 : 0;

	for (i = lo; i < idx + 3; i++) {
		if (i > U32_MAX)
			break;
		ASSERT(mrc_reasm_has(&r, (u32)i) ==
		       (i < sh.npkts && sh.got[i]));
	}
}

static void shadow_record(u64 idx)
{
	if (sh.nmarked == sh.cap) {
		sh.cap = sh.cap ? 2 * sh.cap : 64;
		sh.marked = realloc(sh.marked, sh.cap * sizeof(*sh.marked));
		ASSERT(sh.marked);
	}
	sh.marked[sh.nmarked++] = (u32)idx;
	sh.got[idx] = true;
	if (idx + 1 > sh.hi)
		sh.hi = idx + 1;
	while (sh.cum < sh.npkts && sh.got[sh.cum])
		sh.cum++;
}

/* One mark, checked against the header's rules and the shadow. */
static void do_mark(u32 m_len, u16 m_seg, u32 offset, u32 len)
{
	static u64 snap_bm[1 << 16];
	struct mrc_reasm before = r;
	enum mrc_reasm_verdict want, got;
	bool snap = storage_len <= sizeof(snap_bm);
	u64 idx = 0;

	if (m_len != msg_len || m_seg != seg)
		want = MRC_REASM_MISMATCH;
	else if (offset % seg)
		want = MRC_REASM_INVALID;
	else if ((idx = offset / seg) >= sh.npkts)
		want = MRC_REASM_INVALID;
	else if (len != expect_len(idx))
		want = MRC_REASM_INVALID;
	else if (sh.got[idx])
		want = MRC_REASM_DUPLICATE;
	else if (sh.nmarked + 1 == sh.npkts)
		want = MRC_REASM_COMPLETE;
	else
		want = MRC_REASM_NEW;

	if (snap && want != MRC_REASM_NEW && want != MRC_REASM_COMPLETE)
		memcpy(snap_bm, storage, storage_len);
	got = mrc_reasm_mark(&r, m_len, m_seg, offset, len);
	if (got != want)
		FAIL("mark(msg_len %u, seg %u, offset %u, len %u) on "
		     "msg_len %u seg %u npkts %llu: verdict %d, expected %d",
		     m_len, m_seg, offset, len, msg_len, seg,
		     (unsigned long long)sh.npkts, got, want);

	if (want == MRC_REASM_NEW || want == MRC_REASM_COMPLETE) {
		shadow_record(idx);
		if (want == MRC_REASM_COMPLETE)
			sh.ncomplete++;
		check_has_near(idx);
	} else {
		ASSERT(!memcmp(&before, &r, sizeof(r)));
		if (snap)
			ASSERT(!memcmp(snap_bm, storage, storage_len));
	}
}

static void check_sack(void)
{
	struct mrc_reasm_sack s;
	u64 n = 0, i;

	memset(&s, 0xa5, sizeof(s));
	mrc_reasm_sack(&r, &s);
	ASSERT(s.cum == sh.cum);
	if (sh.hi > sh.cum)
		n = sh.hi - sh.cum - 1;
	if (n > MRC_WIRE_SACK_BITS)
		n = MRC_WIRE_SACK_BITS;
	ASSERT(s.nbits == n);
	if (sh.nmarked == sh.npkts)
		ASSERT(s.cum == sh.npkts && s.nbits == 0);
	ASSERT((u64)s.cum + 1 + s.nbits <= sh.npkts || s.nbits == 0);
	for (i = 0; i < MRC_WIRE_SACK_BITS; i++) {
		bool bit = (s.bitmap[i / 64] >> (i % 64)) & 1;
		bool want = i < n && sh.got[sh.cum + 1 + i];

		if (bit != want)
			FAIL("sack bit %llu (packet %llu): %d, expected %d "
			     "(cum %u nbits %u)", (unsigned long long)i,
			     (unsigned long long)(sh.cum + 1 + i), bit, want,
			     s.cum, s.nbits);
	}
}

static void check_holes(u32 max)
{
	struct mrc_reasm_range *out, want;
	u32 *sorted = NULL;
	u32 n, k = 0, j, ns = 0;
	u64 first = sh.cum;

	/* Exactly max entries: ASan sees a write past them. */
	out = malloc(max ? max * sizeof(*out) : 1);
	ASSERT(out);
	n = mrc_reasm_holes(&r, out, max);
	ASSERT(n <= max);

	if (sh.nmarked) {
		sorted = malloc(sh.nmarked * sizeof(*sorted));
		ASSERT(sorted);
		for (j = 0; j < sh.nmarked; j++)
			if (sh.marked[j] >= sh.cum)
				sorted[ns++] = sh.marked[j];
		qsort(sorted, ns, sizeof(*sorted), cmp_u32);
	}
	/* Runs of missing packets between consecutive marked ones. */
	for (j = 0; j < ns && k < max; j++) {
		if (sorted[j] > first) {
			want.first = (u32)first;
			want.count = (u32)(sorted[j] - first);
			if (k >= n || out[k].first != want.first ||
			    out[k].count != want.count)
				FAIL("hole %u: got [%u +%u], expected [%u +%u] "
				     "(n %u, max %u)", k,
				     k < n ? out[k].first : 0,
				     k < n ? out[k].count : 0,
				     want.first, want.count, n, max);
			k++;
		}
		first = (u64)sorted[j] + 1;
	}
	if (n != k)
		FAIL("holes: %u runs, expected %u (max %u)", n, k, max);
	if (ns)
		ASSERT(first == sh.hi || k == max);
	free(sorted);
	free(out);
}

/* An index picked relative to an interesting point. */
static u64 pick_idx(struct input *in)
{
	u8 how = get8(in);
	u32 v = get32(in);
	u64 base;

	switch (how % 5) {
	case 0:
		return v % sh.npkts;
	case 1:
		base = sh.cum + (v & 0xff);
		break;
	case 2:
		base = sh.hi + (v & 0xff);
		base = base > 128 ? base - 128 : 0;
		break;
	case 3:
		base = sh.npkts - 1 - (v & 0xff) % sh.npkts;
		break;
	default:
		base = v & 0xffff;
		break;
	}
	return base < sh.npkts ? base : sh.npkts - 1;
}

static void mark_idx(u64 idx)
{
	do_mark(msg_len, seg, (u32)(idx * seg), (u32)expect_len(idx));
}

static void setup(struct input *in)
{
	u8 mode = get8(in);
	u32 v = get32(in);
	u16 sv = get16(in);
	u64 npkts, words, bound;

	seg = MRC_WIRE_MIN_SEG +
	      sv % (MRC_WIRE_MAX_PAYLOAD - MRC_WIRE_MIN_SEG + 1);
	switch (mode % 6) {
	case 0:		/* small messages: up to 64 KiB */
		msg_len = v & 0xffff;
		break;
	case 1:		/* a few packets, exact multiples and one off */
		msg_len = (v & 0x3f) * seg + ((v >> 8) & 3) - 1;
		break;
	case 2:		/* anything up to 64 MiB (the default cap) */
		msg_len = v & ((64U << 20) - 1);
		break;
	case 3:		/* near 4 GiB: npkts arithmetic must not wrap */
		msg_len = U32_MAX - (v & 0xffff);
		break;
	case 4:		/* up to 1024 packets */
		msg_len = v % (1024U * seg + 1);
		break;
	default:
		msg_len = v;
		break;
	}

	npkts = msg_len ? ((u64)msg_len + seg - 1) / seg : 1;
	words = (npkts + 63) / 64;
	storage_len = mrc_reasm_storage_bytes(msg_len, seg);
	ASSERT(storage_len == words * 8);
	bound = (u64)msg_len / (8 * (u64)seg) + 8;
	ASSERT(storage_len <= bound);
	ASSERT(mrc_wire_npkts(msg_len, seg) == npkts);
	ASSERT(mrc_reasm_storage_bytes(msg_len, 0) == 0);

	storage = malloc(storage_len);
	ASSERT(storage);
	memset(storage, 0x5a, storage_len);	/* init must clear it */
	ASSERT(mrc_reasm_init(&r, 0x1234, msg_len, seg, storage) == 0);

	memset(&sh, 0, sizeof(sh));
	sh.npkts = npkts;
	if (!got_all)
		got_all = calloc(SHADOW_MAX_PKTS, sizeof(*got_all));
	ASSERT(got_all && npkts <= SHADOW_MAX_PKTS);
	sh.got = got_all;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	struct mrc_reasm bad;
	u64 bad_storage;
	unsigned int ops = 0, hole_calls = 0;
	u32 i;

	/* seg 0 is refused and needs no storage. */
	ASSERT(mrc_reasm_init(&bad, 1, 100, 0, &bad_storage) == -EINVAL);

	setup(&in);
	check_state();

	while (in.n && ops++ < 4096) {
		u8 op = get8(&in);

		switch (op % 8) {
		case 0:		/* a valid packet */
			mark_idx(pick_idx(&in));
			break;
		case 1: {	/* anything at all, right geometry */
			u32 off = get32(&in), len = get32(&in);

			do_mark(msg_len, seg, off, len);
			break;
		}
		case 2: {	/* near-valid: aligned offset, len off by d */
			u64 idx = pick_idx(&in);
			int d = (signed char)get8(&in);

			do_mark(msg_len, seg, (u32)(idx * seg),
				(u32)(expect_len(idx) + d));
			break;
		}
		case 3: {	/* another geometry */
			u32 l = msg_len, off;
			u16 s = seg;
			u8 how = get8(&in);

			switch (how % 3) {
			case 0:		/* a different length */
				l ^= get32(&in) | 1;
				break;
			case 1:		/* any length */
				l = get32(&in);
				break;
			default:	/* the same length */
				break;
			}
			if (how & 0x80)		/* a different seg, maybe 0 */
				s ^= get16(&in) | 1;
			else if (how & 0x40)	/* any seg */
				s = get16(&in);
			off = get32(&in);
			do_mark(l, s, off, get32(&in));
			break;
		}
		case 4: {	/* a run of valid packets, maybe backwards */
			u64 idx = pick_idx(&in);
			u16 cnt = get16(&in);
			bool down = cnt & 0x8000;
			u32 i;

			cnt = (cnt & 0x7fff) % (RUN_MAX + 1);
			for (i = 0; i < cnt; i++) {
				mark_idx(idx);
				if (down ? idx == 0 : idx + 1 == sh.npkts)
					break;
				idx = down ? idx - 1 : idx + 1;
			}
			break;
		}
		case 5:
			check_sack();
			break;
		case 6: {
			u32 max = get8(&in) % 40;

			if (sh.npkts <= HUGE_PKTS || hole_calls++ < HUGE_HOLE_CALLS)
				check_holes(max);
			break;
		}
		default:	/* has() around a picked index */
			check_has_near(pick_idx(&in));
			break;
		}
		check_state();
	}
	check_sack();
	check_holes(8);
	check_holes(1000);

	for (i = 0; i < sh.nmarked; i++)
		sh.got[sh.marked[i]] = false;
	free(sh.marked);
	free(storage);
	return 0;
}
