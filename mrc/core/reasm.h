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

size_t mrc_reasm_storage_bytes(u32 msg_len, u16 seg);

int mrc_reasm_init(struct mrc_reasm *r, u64 msg_id, u32 msg_len, u16 seg,
		   void *storage);

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

bool mrc_reasm_has(const struct mrc_reasm *r, u32 idx);

void mrc_reasm_sack(const struct mrc_reasm *r, struct mrc_reasm_sack *s);

u32 mrc_reasm_holes(const struct mrc_reasm *r, struct mrc_reasm_range *out,
		    u32 max);

#endif /* _MRC_REASM_H */
