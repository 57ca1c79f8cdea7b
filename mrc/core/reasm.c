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

size_t mrc_reasm_storage_bytes(u32 msg_len, u16 seg)
{
	if (!seg)
		return 0;
	return (size_t)mrc_bm_words(mrc_reasm_npkts(msg_len, seg)) *
	       sizeof(u64);
}

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

bool mrc_reasm_has(const struct mrc_reasm *r, u32 idx)
{
	return idx < r->npkts && mrc_bm_test(r->bm, idx);
}

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
