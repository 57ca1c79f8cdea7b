// SPDX-License-Identifier: GPL-2.0
/*
 * txsb.c - sender-side scoreboard of one message (kernel-agnostic; see
 * txsb.h).
 *
 * Per packet: flags (SENT, ACKED, RETX), path and send time of the last
 * send, and one bit in the `lost' bitmap (the retransmit queue).  The
 * state is derived: UNSENT = !SENT; ACKED = ACKED; LOST = lost bit;
 * INFLIGHT = SENT && !ACKED && !lost bit.
 */
#include "bitmap.h"
#include "txsb.h"

#define MRC_TXSB_F_SENT		0x01	/* sent at least once */
#define MRC_TXSB_F_ACKED	0x02
#define MRC_TXSB_F_RETX		0x04	/* sent more than once (Karn) */
/* Bits 3-4: the caller's tag of the last send (the scheduling policy). */
#define MRC_TXSB_TAG_SHIFT	3
#define MRC_TXSB_TAG_MASK	(MRC_TXSB_TAG_MAX << MRC_TXSB_TAG_SHIFT)

size_t mrc_txsb_storage_bytes(u32 npkts)
{
	if (!npkts || npkts > MRC_TXSB_MAX_PKTS)
		return 0;
	return (size_t)mrc_bm_words(npkts) * sizeof(u64) +
	       (size_t)npkts * (sizeof(u32) + 2 * sizeof(u8));
}

int mrc_txsb_init(struct mrc_txsb *sb, u32 npkts, void *storage)
{
	u8 *p = storage;

	memset(sb, 0, sizeof(*sb));
	if (!npkts || npkts > MRC_TXSB_MAX_PKTS)
		return -EINVAL;
	memset(storage, 0, mrc_txsb_storage_bytes(npkts));
	sb->npkts = npkts;
	/* u64 words first, then u32s: each array stays naturally aligned. */
	sb->lost = (u64 *)p;
	p += (size_t)mrc_bm_words(npkts) * sizeof(u64);
	sb->sent_us = (u32 *)p;
	p += (size_t)npkts * sizeof(u32);
	sb->path = p;
	p += npkts;
	sb->flags = p;
	return 0;
}

static bool mrc_txsb_is_lost(const struct mrc_txsb *sb, u32 idx)
{
	return mrc_bm_test(sb->lost, idx);
}

static bool mrc_txsb_is_inflight(const struct mrc_txsb *sb, u32 idx)
{
	return (sb->flags[idx] & (MRC_TXSB_F_SENT | MRC_TXSB_F_ACKED)) ==
	       MRC_TXSB_F_SENT && !mrc_txsb_is_lost(sb, idx);
}

enum mrc_txsb_pkt_state mrc_txsb_state(const struct mrc_txsb *sb, u32 idx)
{
	if (!(sb->flags[idx] & MRC_TXSB_F_SENT))
		return MRC_TXSB_UNSENT;
	if (sb->flags[idx] & MRC_TXSB_F_ACKED)
		return MRC_TXSB_ACKED;
	return mrc_txsb_is_lost(sb, idx) ? MRC_TXSB_LOST : MRC_TXSB_INFLIGHT;
}

static void mrc_txsb_report(const struct mrc_txsb *sb, u32 idx,
			    bool inflight, mrc_txsb_fn fn, void *arg)
{
	struct mrc_txsb_event ev = {
		.idx = idx,
		.sent_us = sb->sent_us[idx],
		.path = sb->path[idx],
		.inflight = inflight,
		.retrans = !!(sb->flags[idx] & MRC_TXSB_F_RETX),
		.tag = (sb->flags[idx] & MRC_TXSB_TAG_MASK) >>
		       MRC_TXSB_TAG_SHIFT,
	};

	if (fn)
		fn(arg, &ev);
}

void mrc_txsb_set_tag(struct mrc_txsb *sb, u32 idx, u8 tag)
{
	if (idx >= sb->npkts || tag > MRC_TXSB_TAG_MAX)
		return;
	sb->flags[idx] = (sb->flags[idx] & ~MRC_TXSB_TAG_MASK) |
			 tag << MRC_TXSB_TAG_SHIFT;
}

u32 mrc_txsb_next(struct mrc_txsb *sb)
{
	u32 i;

	if (sb->nlost) {
		i = mrc_bm_find_next_set(sb->lost, sb->npkts, sb->rtx_hint);
		/* nlost > 0 and no LOST packet below the hint: i < npkts. */
		sb->rtx_hint = i;
		return i;
	}
	return sb->next_new < sb->npkts ? sb->next_new : MRC_TXSB_NONE;
}

int mrc_txsb_sent(struct mrc_txsb *sb, u32 idx, u8 path, u32 now_us)
{
	int ret = 0;

	if (idx >= sb->npkts)
		return -EINVAL;
	if (sb->flags[idx] & MRC_TXSB_F_ACKED)
		return -EALREADY;
	if (sb->flags[idx] & MRC_TXSB_F_SENT) {
		if (!mrc_txsb_is_lost(sb, idx))
			return -EBUSY;
		mrc_bm_clear(sb->lost, idx);
		sb->nlost--;
		sb->flags[idx] |= MRC_TXSB_F_RETX;
		ret = 1;
	} else {
		sb->flags[idx] |= MRC_TXSB_F_SENT;
		if (idx >= sb->hi_sent)
			sb->hi_sent = idx + 1;
		while (sb->next_new < sb->npkts &&
		       (sb->flags[sb->next_new] & MRC_TXSB_F_SENT))
			sb->next_new++;
	}
	sb->path[idx] = path;
	sb->sent_us[idx] = now_us;
	sb->ninflight++;
	return ret;
}

/* INFLIGHT or LOST packet @idx becomes ACKED. */
static void mrc_txsb_ack(struct mrc_txsb *sb, u32 idx, mrc_txsb_fn fn,
			 void *arg)
{
	bool inflight = !mrc_txsb_is_lost(sb, idx);

	if (inflight) {
		sb->ninflight--;
	} else {
		mrc_bm_clear(sb->lost, idx);
		sb->nlost--;
	}
	sb->flags[idx] |= MRC_TXSB_F_ACKED;
	sb->nacked++;
	mrc_txsb_report(sb, idx, inflight, fn, arg);
}

/* INFLIGHT packet @idx becomes LOST. */
static void mrc_txsb_lose(struct mrc_txsb *sb, u32 idx, mrc_txsb_fn fn,
			  void *arg)
{
	mrc_bm_set(sb->lost, idx);
	sb->nlost++;
	sb->ninflight--;
	if (idx < sb->rtx_hint)
		sb->rtx_hint = idx;
	mrc_txsb_report(sb, idx, true, fn, arg);
}

/* Bit @i (< MRC_WIRE_SACK_BITS) of a SACK bitmap. */
static bool mrc_txsb_sack_bit(const u64 *bitmap, u32 i)
{
	return mrc_bm_test(bitmap, i);
}

int mrc_txsb_sack(struct mrc_txsb *sb, u32 cum, u32 nbits,
		  const u64 bitmap[MRC_WIRE_SACK_BITS / 64],
		  mrc_txsb_fn fn, void *arg)
{
	u32 acked = sb->nacked;
	u32 i;
	u32 idx;

	/* Check everything first: a bad SACK changes nothing. */
	if (nbits > MRC_WIRE_SACK_BITS)
		return -EINVAL;
	if (cum > sb->npkts || cum > sb->hi_sent)
		return -ERANGE;
	for (idx = sb->cum; idx < cum; idx++)
		if (!(sb->flags[idx] & MRC_TXSB_F_SENT))
			return -ERANGE;
	for (i = 0; i < nbits; i++) {
		if (!mrc_txsb_sack_bit(bitmap, i))
			continue;
		/* cum <= npkts <= MRC_TXSB_MAX_PKTS: no overflow. */
		idx = cum + 1 + i;
		if (idx >= sb->npkts || !(sb->flags[idx] & MRC_TXSB_F_SENT))
			return -ERANGE;
	}

	for (idx = sb->cum; idx < cum; idx++)
		if (!(sb->flags[idx] & MRC_TXSB_F_ACKED))
			mrc_txsb_ack(sb, idx, fn, arg);
	for (i = 0; i < nbits; i++) {
		idx = cum + 1 + i;
		if (mrc_txsb_sack_bit(bitmap, i) &&
		    !(sb->flags[idx] & MRC_TXSB_F_ACKED))
			mrc_txsb_ack(sb, idx, fn, arg);
	}
	while (sb->cum < sb->npkts && (sb->flags[sb->cum] & MRC_TXSB_F_ACKED))
		sb->cum++;
	return (int)(sb->nacked - acked);
}

int mrc_txsb_nack(struct mrc_txsb *sb, u32 first, u32 count,
		  mrc_txsb_fn fn, void *arg)
{
	u32 n = 0;
	u32 idx;

	if (!count)
		return -EINVAL;
	if ((u64)first + count > sb->hi_sent)
		return -ERANGE;
	for (idx = first; idx < first + count; idx++) {
		if (mrc_txsb_is_inflight(sb, idx)) {
			mrc_txsb_lose(sb, idx, fn, arg);
			n++;
		}
	}
	return (int)n;
}

u32 mrc_txsb_lose_path(struct mrc_txsb *sb, u8 path, mrc_txsb_fn fn,
		       void *arg)
{
	u32 n = 0;
	u32 idx;

	for (idx = sb->cum; idx < sb->hi_sent && sb->ninflight; idx++) {
		if (sb->path[idx] == path && mrc_txsb_is_inflight(sb, idx)) {
			mrc_txsb_lose(sb, idx, fn, arg);
			n++;
		}
	}
	return n;
}

u32 mrc_txsb_lose_older(struct mrc_txsb *sb, u32 before_us, mrc_txsb_fn fn,
			void *arg)
{
	u32 n = 0;
	u32 idx;

	for (idx = sb->cum; idx < sb->hi_sent && sb->ninflight; idx++) {
		if ((s32)(sb->sent_us[idx] - before_us) < 0 &&
		    mrc_txsb_is_inflight(sb, idx)) {
			mrc_txsb_lose(sb, idx, fn, arg);
			n++;
		}
	}
	return n;
}
