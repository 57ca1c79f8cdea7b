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

size_t mrc_txsb_storage_bytes(u32 npkts);

int mrc_txsb_init(struct mrc_txsb *sb, u32 npkts, void *storage);

u32 mrc_txsb_next(struct mrc_txsb *sb);

int mrc_txsb_sent(struct mrc_txsb *sb, u32 idx, u8 path, u32 now_us);

int mrc_txsb_sack(struct mrc_txsb *sb, u32 cum, u32 nbits,
		  const u64 bitmap[MRC_WIRE_SACK_BITS / 64],
		  mrc_txsb_fn fn, void *arg);

int mrc_txsb_nack(struct mrc_txsb *sb, u32 first, u32 count,
		  mrc_txsb_fn fn, void *arg);

u32 mrc_txsb_lose_path(struct mrc_txsb *sb, u8 path, mrc_txsb_fn fn,
		       void *arg);

u32 mrc_txsb_lose_older(struct mrc_txsb *sb, u32 before_us, mrc_txsb_fn fn,
			void *arg);

/* The highest tag of mrc_txsb_set_tag(). */
#define MRC_TXSB_TAG_MAX	3
void mrc_txsb_set_tag(struct mrc_txsb *sb, u32 idx, u8 tag);

enum mrc_txsb_pkt_state mrc_txsb_state(const struct mrc_txsb *sb, u32 idx);
bool mrc_txsb_resent(const struct mrc_txsb *sb, u32 idx);

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
