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

/**
 * mrc_txsb_storage_bytes() - storage a scoreboard needs
 * @npkts: the message's packets
 *
 * Return: the bytes of storage for a scoreboard of @npkts packets (the
 * formula in txsb.h), or 0 if @npkts is 0 or above MRC_TXSB_MAX_PKTS.
 */
size_t mrc_txsb_storage_bytes(u32 npkts)
{
	if (!npkts || npkts > MRC_TXSB_MAX_PKTS)
		return 0;
	return (size_t)mrc_bm_words(npkts) * sizeof(u64) +
	       (size_t)npkts * (sizeof(u32) + 2 * sizeof(u8));
}

/**
 * mrc_txsb_init() - start the scoreboard of a message
 * @sb: the scoreboard
 * @npkts: the message's packets, all UNSENT
 * @storage: mrc_txsb_storage_bytes(@npkts) bytes, 8-byte aligned; cleared
 *	here
 *
 * Return: 0, or -EINVAL if @npkts is 0 or above MRC_TXSB_MAX_PKTS (then
 * @sb is unusable).
 */
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

/**
 * mrc_txsb_state() - the state of a packet
 * @sb: the scoreboard
 * @idx: the packet (< npkts)
 *
 * Return: the state of packet @idx.
 */
enum mrc_txsb_pkt_state mrc_txsb_state(const struct mrc_txsb *sb, u32 idx)
{
	if (!(sb->flags[idx] & MRC_TXSB_F_SENT))
		return MRC_TXSB_UNSENT;
	if (sb->flags[idx] & MRC_TXSB_F_ACKED)
		return MRC_TXSB_ACKED;
	return mrc_txsb_is_lost(sb, idx) ? MRC_TXSB_LOST : MRC_TXSB_INFLIGHT;
}

/**
 * mrc_txsb_resent() - whether a packet was sent more than once
 * @sb: the scoreboard
 * @idx: the packet (< npkts)
 *
 * Return: true if packet @idx went out again after its first send.
 */
bool mrc_txsb_resent(const struct mrc_txsb *sb, u32 idx)
{
	return sb->flags[idx] & MRC_TXSB_F_RETX;
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

/**
 * mrc_txsb_set_tag() - tag a packet's last send
 * @sb: the scoreboard
 * @idx: the packet
 * @tag: 0..MRC_TXSB_TAG_MAX; e.g. the scheduling policy that chose its
 *	path
 *
 * The tag is reported in the packet's events until it is tagged again.
 * Ignored if @idx or @tag is out of range.
 */
void mrc_txsb_set_tag(struct mrc_txsb *sb, u32 idx, u8 tag)
{
	if (idx >= sb->npkts || tag > MRC_TXSB_TAG_MAX)
		return;
	sb->flags[idx] = (sb->flags[idx] & ~MRC_TXSB_TAG_MASK) |
			 tag << MRC_TXSB_TAG_SHIFT;
}

/**
 * mrc_txsb_next() - the packet to send next
 * @sb: the scoreboard
 *
 * Changes no packet state (only a search hint): calling it twice without
 * a send in between returns the same packet.
 *
 * Return: the lowest LOST packet if any (retransmissions first), else the
 * lowest UNSENT one, else MRC_TXSB_NONE.
 */
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

/**
 * mrc_txsb_sent() - record that a packet was just sent
 * @sb: the scoreboard
 * @idx: the packet: UNSENT (a first send) or LOST (a retransmission)
 * @path: the path it was sent on
 * @now_us: the caller's microsecond clock; it may wrap, comparisons are
 *	wrap-safe
 *
 * Either way the packet becomes INFLIGHT on @path.  First sends need not
 * be in order.
 *
 * Return: 0 for a first send, 1 for a retransmission (the caller sets
 * MRC_WF_RETRANS); errors, with no change: -EINVAL if @idx >= npkts,
 * -EALREADY if it is ACKED, -EBUSY if it is INFLIGHT.
 */
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

/**
 * mrc_txsb_sack() - apply a SACK
 * @sb: the scoreboard
 * @cum: every packet below it has arrived
 * @nbits: valid bits of @bitmap
 * @bitmap: bit i (word i / 64, bit position i % 64): packet @cum + 1 + i
 *	has arrived
 * @fn: called for every packet newly acked, in increasing index order
 *	(may be NULL)
 * @arg: passed to @fn
 *
 * The SACK is in host order, as struct mrc_reasm_sack.  Bits at or beyond
 * @nbits are ignored; clear bits say nothing (the packet may be on its
 * way).  Every INFLIGHT or LOST packet it covers becomes ACKED.  A stale
 * SACK (a @cum below what earlier SACKs acked) is fine: what it repeats
 * changes nothing.
 *
 * Return: the number of packets newly acked (>= 0), or an error with no
 * change at all, which the caller counts as MRC_DROP_BAD_SACK: -EINVAL if
 * @nbits > MRC_WIRE_SACK_BITS; -ERANGE if @cum > npkts, if a packet below
 * @cum that was not acked yet was never sent (so also if @cum goes past
 * the highest packet sent), or if a set bit names a packet at or beyond
 * npkts or never sent.
 */
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

/**
 * mrc_txsb_nack() - apply a NACK range
 * @sb: the scoreboard
 * @first: first packet missing at the receiver
 * @count: packets [@first, @first + @count) are missing
 * @fn: called for every packet that becomes LOST (may be NULL)
 * @arg: passed to @fn
 *
 * Each INFLIGHT packet of the range becomes LOST (queued for
 * retransmission); ACKED, LOST and UNSENT ones are left alone (a NACK
 * that crossed a SACK is harmless).
 *
 * Return: how many became LOST, or, with no change: -EINVAL if @count is
 * 0, -ERANGE if the range reaches past the highest packet sent (count it
 * as MRC_DROP_BAD_SACK).
 */
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

/**
 * mrc_txsb_lose_path() - a path died: its packets are lost
 * @sb: the scoreboard
 * @path: the path (or a path of the rail) that died
 * @fn: called for every packet that becomes LOST (may be NULL)
 * @arg: passed to @fn
 *
 * Every packet INFLIGHT on @path becomes LOST and will be resent by the
 * caller on other paths.  Costs O(packets between the cumulative ack
 * point and the highest sent).
 *
 * Return: how many packets became LOST.
 */
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

/**
 * mrc_txsb_lose_older() - retransmission timeout: old packets are lost
 * @sb: the scoreboard
 * @before_us: every INFLIGHT packet last sent before it (wrap-safe:
 *	sent_us - before_us < 0 as s32) becomes LOST
 * @fn: called for every packet that becomes LOST (may be NULL)
 * @arg: passed to @fn
 *
 * Same cost as mrc_txsb_lose_path().
 *
 * Return: how many packets became LOST.
 */
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
