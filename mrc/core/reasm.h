/* SPDX-License-Identifier: GPL-2.0 */
/*
 * reasm.h - receiver-side bookkeeping of one message being reassembled.
 * Kernel-agnostic.
 *
 * A DATA packet carries (msg_id, offset, msg_len, len, seg); every packet
 * but the last carries exactly seg bytes, so a packet's index is
 * offset / seg and the message has mrc_wire_npkts(msg_len, seg) packets.
 * struct mrc_reasm records which packets arrived, tells the caller whether
 * to place a packet's payload (NEW) or drop it, reports completion exactly
 * once, and produces the SACK and NACK contents.  It does not see or copy
 * payload bytes.
 *
 * Memory: the caller allocates the struct and a bitmap storage of
 * mrc_reasm_storage_bytes(msg_len, seg) bytes (8-byte aligned, e.g.
 * kmalloc), i.e. 8 * ceil(npkts / 64) bytes.  Nothing here allocates,
 * sleeps or locks: the caller serialises all calls on one mrc_reasm.
 */
#ifndef _MRC_REASM_H
#define _MRC_REASM_H

#include "compat.h"
#include "wire.h"

/* Packet geometry from the first packet of the message seen. */
struct mrc_reasm {
	u64	msg_id;		/* for the caller's lookup; not checked here */
	u32	msg_len;
	u32	npkts;		/* mrc_wire_npkts(msg_len, seg) */
	u32	nrecv;		/* distinct packets received */
	u32	cum;		/* first missing packet index (npkts: none) */
	u32	hi;		/* 1 + highest index received, 0 if none */
	u16	seg;
	u64	*bm;		/* bit i: packet i arrived */
};

/*
 * What mrc_reasm_mark() says about one DATA packet:
 * NEW		first copy: place the payload;
 * COMPLETE	first copy, and the message is now whole: place the
 *		payload, then deliver;
 * DUPLICATE	already received: drop (harmless);
 * MISMATCH	msg_len or seg differ from the first packet's: drop, count
 *		as a bad packet;
 * INVALID	offset/len do not fit the geometry: drop.
 */
enum mrc_reasm_verdict {
	MRC_REASM_NEW = 0,
	MRC_REASM_COMPLETE,
	MRC_REASM_DUPLICATE,
	MRC_REASM_MISMATCH,
	MRC_REASM_INVALID,
};

/*
 * SACK content in host order (the wire form is struct mrc_wire_sack).
 * Bit i of the bitmap (word i / 64, bit position i % 64, least
 * significant first) set means packet cum + 1 + i arrived; only bits
 * i < nbits carry meaning, the others are 0.  Packet cum itself is
 * missing by definition (unless cum == npkts: all arrived, nbits == 0).
 */
struct mrc_reasm_sack {
	u32	cum;
	u32	nbits;
	u64	bitmap[MRC_WIRE_SACK_BITS / 64];
};

/* A run of missing packets [first, first + count), host order. */
struct mrc_reasm_range {
	u32	first;
	u32	count;
};

/*
 * Bytes of storage mrc_reasm_init() needs for a message of @msg_len bytes
 * cut in @seg-byte packets: 8 * ceil(mrc_wire_npkts(msg_len, seg) / 64).
 * Returns 0 if @seg is 0 (no valid message has that geometry).  Bounded
 * by msg_len / (8 * seg) + 8, so a cap on msg_len and the wire's minimum
 * seg bound it.
 */
size_t mrc_reasm_storage_bytes(u32 msg_len, u16 seg);

/*
 * Starts reassembly of message @msg_id whose first packet seen says
 * @msg_len and @seg.  @storage must hold mrc_reasm_storage_bytes(msg_len,
 * seg) bytes, 8-byte aligned; it is cleared here and belongs to @r until
 * the caller frees both.  @msg_len 0 is a message of one empty packet
 * (as mrc_wire_npkts() counts it).  Returns 0, or -EINVAL if @seg is 0
 * (then @r is unusable).
 */
int mrc_reasm_init(struct mrc_reasm *r, u64 msg_id, u32 msg_len, u16 seg,
		   void *storage);

/*
 * Records one DATA packet whose header says @msg_len, @seg, @offset, @len.
 * Checked in this order: geometry (@msg_len and @seg equal the values
 * given to init, else MISMATCH: a peer cannot change a message's geometry
 * mid-way); then @offset a multiple of seg and below msg_len (offset 0
 * for an empty message) and @len == seg, or == msg_len - offset for the
 * last packet (else INVALID); then DUPLICATE if packet offset / seg has
 * arrived before.  Otherwise the packet is recorded and the result is NEW,
 * or COMPLETE if it was the last missing one: exactly one call per
 * message ever returns COMPLETE.  Only NEW and COMPLETE change @r.
 *
 * The caller places the payload of a NEW/COMPLETE packet and delivers the
 * message after placing the COMPLETE one; if payload copies of one
 * message can run concurrently outside the caller's lock, the caller
 * must also wait for them before delivering.
 */
enum mrc_reasm_verdict mrc_reasm_mark(struct mrc_reasm *r, u32 msg_len,
				      u16 seg, u32 offset, u32 len);

/* True once every packet has arrived. */
static inline bool mrc_reasm_complete(const struct mrc_reasm *r)
{
	return r->nrecv == r->npkts;
}

/* Cumulative point: index of the first missing packet (npkts if none). */
static inline u32 mrc_reasm_cum(const struct mrc_reasm *r)
{
	return r->cum;
}

/* True if packet @idx (< npkts) has arrived. */
bool mrc_reasm_has(const struct mrc_reasm *r, u32 idx);

/*
 * Fills @s with the current SACK: cum = first missing packet; nbits
 * covers packets cum + 1 up to the highest one received, at most
 * MRC_WIRE_SACK_BITS (0 when nothing beyond cum arrived or the message
 * is complete); bitmap as described at struct mrc_reasm_sack.  nbits
 * never reaches past the last packet of the message.
 */
void mrc_reasm_sack(const struct mrc_reasm *r, struct mrc_reasm_sack *s);

/*
 * Writes to @out (room for @max entries) the runs of missing packets below
 * the highest packet received, lowest first, and returns how many it
 * wrote (at most @max; 0 if there are no holes).  Packets above the
 * highest received are not holes: they may still be on their way.
 */
u32 mrc_reasm_holes(const struct mrc_reasm *r, struct mrc_reasm_range *out,
		    u32 max);

#endif /* _MRC_REASM_H */
