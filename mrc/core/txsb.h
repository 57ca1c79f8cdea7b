/* SPDX-License-Identifier: GPL-2.0 */
/*
 * txsb.h - sender-side scoreboard of one message.  Kernel-agnostic.
 *
 * Tracks every packet of a message through
 *
 *   UNSENT --sent--> INFLIGHT --SACK--> ACKED
 *                      |   ^
 *      NACK, path dies,|   | sent again (retransmission)
 *      RTO             v   |
 *                      LOST --SACK--> ACKED
 *
 * LOST packets form the retransmit queue; mrc_txsb_next() hands them out
 * (lowest first) before any new packet.  A packet is INFLIGHT on exactly
 * one path (the one of its last send) or on none, so a caller that adds a
 * packet to its path's inflight count when it sends it and removes it on
 * every event with ev->inflight set keeps exact per-path counts.  A packet
 * must be LOST before it is sent again: to resend an INFLIGHT packet
 * early, mark it lost first (mrc_txsb_nack() with a range of one).
 *
 * Memory: the caller allocates the struct and mrc_txsb_storage_bytes(npkts)
 * bytes of storage (8-byte aligned, e.g. kmalloc):
 *   6 * npkts + 8 * ceil(npkts / 64) bytes
 * (per packet: u32 send time, u8 path, u8 flags, 1 bit of retransmit
 * queue).  Nothing here allocates, sleeps or locks: the caller serialises
 * all calls on one mrc_txsb.  Callbacks run synchronously inside the call
 * and must not call back into the same scoreboard.
 */
#ifndef _MRC_TXSB_H
#define _MRC_TXSB_H

#include "compat.h"
#include "wire.h"

/*
 * Largest message in packets.  A u32 msg_len cut in segments of at least
 * MRC_WIRE_MIN_SEG bytes has fewer than 2^25 packets, so every message
 * the wire allows fits; the bound keeps counts within an int.
 */
#define MRC_TXSB_MAX_PKTS	(64U << 20)	/* 2^26 */
/* mrc_txsb_next(): nothing to send now. */
#define MRC_TXSB_NONE		U32_MAX

/* Packet states, as mrc_txsb_state() reports them. */
enum mrc_txsb_pkt_state {
	MRC_TXSB_UNSENT = 0,
	MRC_TXSB_INFLIGHT,
	MRC_TXSB_LOST,
	MRC_TXSB_ACKED,
};

struct mrc_txsb {
	u32	npkts;
	u32	next_new;	/* lowest never-sent packet (npkts: none) */
	u32	hi_sent;	/* 1 + highest packet ever sent, 0 if none */
	u32	cum;		/* every packet below has been acked */
	u32	nacked;
	u32	ninflight;
	u32	nlost;		/* packets in the retransmit queue */
	u32	rtx_hint;	/* no LOST packet below this index */
	u64	*lost;		/* bitmap: the retransmit queue */
	u32	*sent_us;	/* time of the last send, caller's clock */
	u8	*path;		/* path of the last send */
	u8	*flags;		/* MRC_TXSB_F_* (txsb.c) */
};

/*
 * One packet leaving INFLIGHT or LOST, passed to a mrc_txsb_fn.
 * @inflight: it was INFLIGHT on @path, so it leaves that path's inflight
 * count; false: it was LOST (already out of inflight).
 * @retrans: it was sent more than once: by Karn's rule, no RTT sample.
 */
struct mrc_txsb_event {
	u32	idx;		/* packet index */
	u32	sent_us;	/* time of its last send */
	u8	path;		/* path of its last send */
	bool	inflight;
	bool	retrans;
	u8	tag;		/* mrc_txsb_set_tag() of its last send */
};

typedef void (*mrc_txsb_fn)(void *arg, const struct mrc_txsb_event *ev);

/*
 * Bytes of storage for a scoreboard of @npkts packets (formula above), or
 * 0 if @npkts is 0 or above MRC_TXSB_MAX_PKTS.
 */
size_t mrc_txsb_storage_bytes(u32 npkts);

/*
 * Starts the scoreboard of a message of @npkts packets, all UNSENT.
 * @storage holds mrc_txsb_storage_bytes(npkts) bytes, 8-byte aligned, and
 * is cleared here.  Returns 0, or -EINVAL if @npkts is 0 or above
 * MRC_TXSB_MAX_PKTS (then @sb is unusable).
 */
int mrc_txsb_init(struct mrc_txsb *sb, u32 npkts, void *storage);

/*
 * The packet to send next: the lowest LOST packet if any (retransmissions
 * first), else the lowest UNSENT one, else MRC_TXSB_NONE.  Changes no
 * packet state (only a search hint): calling it twice without a send in
 * between returns the same packet.
 */
u32 mrc_txsb_next(struct mrc_txsb *sb);

/*
 * Records that packet @idx was just sent on @path at @now_us (caller's
 * microsecond clock; it may wrap, comparisons are wrap-safe).  @idx must
 * be UNSENT (a first send: returns 0) or LOST (a retransmission:
 * returns 1, the caller sets MRC_WF_RETRANS); either way it becomes
 * INFLIGHT on @path.  First sends need not be in order.  Errors, with no
 * change: -EINVAL if @idx >= npkts, -EALREADY if it is ACKED, -EBUSY if
 * it is INFLIGHT.
 */
int mrc_txsb_sent(struct mrc_txsb *sb, u32 idx, u8 path, u32 now_us);

/*
 * Applies a SACK (host order, as struct mrc_reasm_sack): packets below
 * @cum and packet @cum + 1 + i for every set bit i < @nbits of @bitmap
 * (word i / 64, bit position i % 64) have arrived.  Bits at or beyond
 * @nbits are ignored; clear bits say nothing (the packet may be on its
 * way).  Every INFLIGHT or LOST packet it covers becomes ACKED and is
 * passed to @fn (if not NULL) in increasing index order.  A stale SACK (a
 * @cum below what earlier SACKs acked) is fine: what it repeats changes
 * nothing.
 *
 * Returns the number of packets newly acked (>= 0), or an error with no
 * change at all, which the caller counts as MRC_DROP_BAD_SACK:
 * -EINVAL if @nbits > MRC_WIRE_SACK_BITS; -ERANGE if @cum > npkts, if a
 * packet below @cum that was not acked yet was never sent (so also if
 * @cum goes past the highest packet sent), or if a set bit names a packet
 * at or beyond npkts or never sent.
 */
int mrc_txsb_sack(struct mrc_txsb *sb, u32 cum, u32 nbits,
		  const u64 bitmap[MRC_WIRE_SACK_BITS / 64],
		  mrc_txsb_fn fn, void *arg);

/*
 * Applies a NACK range: packets [@first, @first + @count) are missing at
 * the receiver.  Each INFLIGHT one becomes LOST (queued for retransmission)
 * and is passed to @fn; ACKED, LOST and UNSENT ones are left alone (a
 * NACK that crossed a SACK is harmless).  Returns how many became LOST,
 * or, with no change: -EINVAL if @count is 0, -ERANGE if the range
 * reaches past the highest packet sent (count it as MRC_DROP_BAD_SACK).
 */
int mrc_txsb_nack(struct mrc_txsb *sb, u32 first, u32 count,
		  mrc_txsb_fn fn, void *arg);

/*
 * A path died (or its rail did): every packet INFLIGHT on @path becomes
 * LOST, is passed to @fn, and will be resent by the caller on other paths.
 * Returns how many.  Costs O(packets between the cumulative ack point and
 * the highest sent).
 */
u32 mrc_txsb_lose_path(struct mrc_txsb *sb, u8 path, mrc_txsb_fn fn,
		       void *arg);

/*
 * Retransmission timeout: every INFLIGHT packet last sent before
 * @before_us (wrap-safe: sent_us - before_us < 0 as s32) becomes LOST and
 * is passed to @fn.  Returns how many.  Same cost as mrc_txsb_lose_path().
 */
u32 mrc_txsb_lose_older(struct mrc_txsb *sb, u32 before_us, mrc_txsb_fn fn,
			void *arg);

/*
 * Tags packet @idx's last send with @tag (0..MRC_TXSB_TAG_MAX; e.g. the
 * scheduling policy that chose its path), reported in its events until
 * it is tagged again.  Ignored if @idx or @tag is out of range.
 */
#define MRC_TXSB_TAG_MAX	3
void mrc_txsb_set_tag(struct mrc_txsb *sb, u32 idx, u8 tag);

/* State of packet @idx (< npkts). */
enum mrc_txsb_pkt_state mrc_txsb_state(const struct mrc_txsb *sb, u32 idx);

/* True once every packet has been acked. */
static inline bool mrc_txsb_done(const struct mrc_txsb *sb)
{
	return sb->nacked == sb->npkts;
}

/* Packets INFLIGHT / LOST (retransmit queue) / ACKED right now. */
static inline u32 mrc_txsb_inflight(const struct mrc_txsb *sb)
{
	return sb->ninflight;
}

static inline u32 mrc_txsb_lost(const struct mrc_txsb *sb)
{
	return sb->nlost;
}

static inline u32 mrc_txsb_acked(const struct mrc_txsb *sb)
{
	return sb->nacked;
}

/* Every packet below this index is ACKED. */
static inline u32 mrc_txsb_cum(const struct mrc_txsb *sb)
{
	return sb->cum;
}

#endif /* _MRC_TXSB_H */
