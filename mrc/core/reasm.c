// SPDX-License-Identifier: GPL-2.0
/*
 * reasm.c - receiver-side reassembly bookkeeping (kernel-agnostic; see
 * reasm.h).
 */
#include "bitmap.h"
#include "reasm.h"

/* Packets of a @msg_len-byte message in @seg-byte packets (seg > 0). */
static u32 mrc_reasm_npkts(u32 msg_len, u16 seg)
{
	/* Not (msg_len + seg - 1) / seg: that wraps for msg_len near 4 GiB. */
	if (!msg_len)
		return 1;
	return msg_len / seg + !!(msg_len % seg);
}

/**
 * mrc_reasm_storage_bytes() - storage a message's reassembly needs
 * @msg_len: the message's length, bytes
 * @seg: its packets' payload, bytes
 *
 * Bounded by msg_len / (8 * seg) + 8, so a cap on msg_len and the wire's
 * minimum seg bound it.
 *
 * Return: the bytes of storage mrc_reasm_init() needs for a message of
 * @msg_len bytes cut in @seg-byte packets: 8 * ceil(mrc_wire_npkts(msg_len,
 * seg) / 64); 0 if @seg is 0 (no valid message has that geometry).
 */
size_t mrc_reasm_storage_bytes(u32 msg_len, u16 seg)
{
	if (!seg)
		return 0;
	return (size_t)mrc_bm_words(mrc_reasm_npkts(msg_len, seg)) *
	       sizeof(u64);
}

/**
 * mrc_reasm_init() - start the reassembly of a message
 * @r: the reassembly state
 * @msg_id: the message
 * @msg_len: its length, as its first packet seen says
 * @seg: its packets' payload, as its first packet seen says
 * @storage: mrc_reasm_storage_bytes(@msg_len, @seg) bytes, 8-byte aligned
 *
 * @storage is cleared here and belongs to @r until the caller frees both.
 * @msg_len 0 is a message of one empty packet (as mrc_wire_npkts() counts
 * it).
 *
 * Return: 0, or -EINVAL if @seg is 0 (then @r is unusable).
 */
int mrc_reasm_init(struct mrc_reasm *r, u64 msg_id, u32 msg_len, u16 seg,
		   void *storage)
{
	memset(r, 0, sizeof(*r));
	if (!seg)
		return -EINVAL;
	r->msg_id = msg_id;
	r->msg_len = msg_len;
	r->seg = seg;
	r->npkts = mrc_reasm_npkts(msg_len, seg);
	r->bm = storage;
	mrc_bm_zero(r->bm, r->npkts);
	return 0;
}

/**
 * mrc_reasm_mark() - record one DATA packet
 * @r: the reassembly state
 * @msg_len: the message length the packet's header says
 * @seg: the packet size the header says
 * @offset: the packet's offset in the message
 * @len: the packet's payload length
 *
 * Checked in this order: geometry (@msg_len and @seg equal the values
 * given to init, else MISMATCH: a peer cannot change a message's geometry
 * mid-way); then @offset a multiple of seg and below msg_len (offset 0
 * for an empty message) and @len == seg, or == msg_len - offset for the
 * last packet (else INVALID); then DUPLICATE if packet offset / seg has
 * arrived before.  Otherwise the packet is recorded.  Only NEW and
 * COMPLETE change @r.
 *
 * The caller places the payload of a NEW/COMPLETE packet and delivers the
 * message after placing the COMPLETE one; if payload copies of one
 * message can run concurrently outside the caller's lock, the caller
 * must also wait for them before delivering.
 *
 * Return: MRC_REASM_MISMATCH, MRC_REASM_INVALID or MRC_REASM_DUPLICATE as
 * above; else MRC_REASM_NEW, or MRC_REASM_COMPLETE if the packet was the
 * last missing one: exactly one call per message ever returns COMPLETE.
 */
enum mrc_reasm_verdict mrc_reasm_mark(struct mrc_reasm *r, u32 msg_len,
				      u16 seg, u32 offset, u32 len)
{
	u32 idx;
	u32 expect;

	if (msg_len != r->msg_len || seg != r->seg)
		return MRC_REASM_MISMATCH;
	if (offset % seg)
		return MRC_REASM_INVALID;
	idx = offset / seg;
	if (idx >= r->npkts)
		return MRC_REASM_INVALID;
	/* idx < npkts, so offset <= msg_len: no underflow below. */
	expect = idx == r->npkts - 1 ? msg_len - offset : seg;
	if (len != expect)
		return MRC_REASM_INVALID;
	if (mrc_bm_test(r->bm, idx))
		return MRC_REASM_DUPLICATE;

	mrc_bm_set(r->bm, idx);
	r->nrecv++;
	if (idx >= r->hi)
		r->hi = idx + 1;
	if (idx == r->cum)
		r->cum = mrc_bm_find_next_zero(r->bm, r->npkts, idx + 1);
	return r->nrecv == r->npkts ? MRC_REASM_COMPLETE : MRC_REASM_NEW;
}

/**
 * mrc_reasm_has() - whether a packet has arrived
 * @r: the reassembly state
 * @idx: the packet (< npkts)
 *
 * Return: true if packet @idx has arrived.
 */
bool mrc_reasm_has(const struct mrc_reasm *r, u32 idx)
{
	return idx < r->npkts && mrc_bm_test(r->bm, idx);
}

/**
 * mrc_reasm_sack() - the current SACK of a message
 * @r: the reassembly state
 * @s: filled with the SACK
 *
 * cum = first missing packet; nbits covers packets cum + 1 up to the
 * highest one received, at most MRC_WIRE_SACK_BITS (0 when nothing beyond
 * cum arrived or the message is complete); bitmap as described at struct
 * mrc_reasm_sack.  nbits never reaches past the last packet of the
 * message.
 */
void mrc_reasm_sack(const struct mrc_reasm *r, struct mrc_reasm_sack *s)
{
	u32 n = 0;

	s->cum = r->cum;
	/* Bits cover cum + 1 .. hi - 1 (hi - 1 is received, cum is not). */
	if (r->hi > r->cum)
		n = r->hi - r->cum - 1;
	if (n > MRC_WIRE_SACK_BITS)
		n = MRC_WIRE_SACK_BITS;
	s->nbits = n;
	mrc_bm_extract(r->bm, r->npkts, r->cum + 1, n, s->bitmap,
		       ARRAY_SIZE(s->bitmap));
}

/**
 * mrc_reasm_holes() - the runs of missing packets
 * @r: the reassembly state
 * @out: filled with the runs, lowest first
 * @max: room in @out, entries
 *
 * Only the runs below the highest packet received: packets above it are
 * not holes, they may still be on their way.
 *
 * Return: how many runs were written (at most @max; 0 if there are no
 * holes).
 */
u32 mrc_reasm_holes(const struct mrc_reasm *r, struct mrc_reasm_range *out,
		    u32 max)
{
	u32 n = 0;
	u32 first = r->cum;
	u32 end;

	/* Every hole lies in [cum, hi); hi - 1 itself has arrived. */
	while (n < max && first < r->hi) {
		end = mrc_bm_find_next_set(r->bm, r->hi, first);
		out[n].first = first;
		out[n].count = end - first;
		n++;
		first = mrc_bm_find_next_zero(r->bm, r->hi, end);
	}
	return n;
}
