/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bitmap.h - a minimal bitmap over u64 words.  Kernel-agnostic.
 *
 * The kernel's bitmap API (unsigned long words) does not exist in user
 * space; mrc's reassembly and send scoreboards use this one in both, so
 * the unit tests exercise the very code the module runs.
 *
 * Layout: bit i lives in word i / 64 at bit position i % 64 (least
 * significant first).  A bitmap of @nbits bits needs mrc_bm_words(@nbits)
 * words; callers own the storage.  Bits at or beyond @nbits in the last
 * word are never read by the search and count functions, whatever their
 * value.  Nothing here allocates or locks.
 */
#ifndef _MRC_BITMAP_H
#define _MRC_BITMAP_H

#include "compat.h"

#define MRC_BM_WORD_BITS	64

/* Words needed for @nbits bits (0 for 0); never overflows. */
static inline u32 mrc_bm_words(u32 nbits)
{
	return nbits / MRC_BM_WORD_BITS + !!(nbits % MRC_BM_WORD_BITS);
}

static inline void mrc_bm_set(u64 *bm, u32 i)
{
	bm[i / MRC_BM_WORD_BITS] |= 1ULL << (i % MRC_BM_WORD_BITS);
}

static inline void mrc_bm_clear(u64 *bm, u32 i)
{
	bm[i / MRC_BM_WORD_BITS] &= ~(1ULL << (i % MRC_BM_WORD_BITS));
}

static inline bool mrc_bm_test(const u64 *bm, u32 i)
{
	return (bm[i / MRC_BM_WORD_BITS] >> (i % MRC_BM_WORD_BITS)) & 1;
}

/* Clears bits [0, @nbits) (whole words: the tail of the last one too). */
static inline void mrc_bm_zero(u64 *bm, u32 nbits)
{
	memset(bm, 0, (size_t)mrc_bm_words(nbits) * sizeof(u64));
}

/* Set bits in @w (portable: no libgcc call in the kernel). */
static inline u32 mrc_bm_weight64(u64 w)
{
	w = w - ((w >> 1) & 0x5555555555555555ULL);
	w = (w & 0x3333333333333333ULL) + ((w >> 2) & 0x3333333333333333ULL);
	w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (u32)((w * 0x0101010101010101ULL) >> 56);
}

u32 mrc_bm_find_next_set(const u64 *bm, u32 nbits, u32 start);

u32 mrc_bm_find_next_zero(const u64 *bm, u32 nbits, u32 start);

u32 mrc_bm_weight(const u64 *bm, u32 nbits);

void mrc_bm_extract(const u64 *bm, u32 nbits, u32 start, u32 n,
		    u64 *out, u32 out_words);

#endif /* _MRC_BITMAP_H */
