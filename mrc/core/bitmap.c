// SPDX-License-Identifier: GPL-2.0
/*
 * bitmap.c - search, count and extract over u64-word bitmaps
 * (kernel-agnostic; see bitmap.h).
 */
#include "bitmap.h"

/* Low @n bits set (n <= 64). */
static inline u64 mrc_bm_low_mask(u64 n)
{
	return n >= MRC_BM_WORD_BITS ? ~0ULL : (1ULL << n) - 1;
}

static u32 mrc_bm_find_next(const u64 *bm, u32 nbits, u32 start, u64 invert)
{
	u32 words = mrc_bm_words(nbits);
	u32 w;
	u64 word;
	u64 i;

	if (start >= nbits)
		return nbits;
	w = start / MRC_BM_WORD_BITS;
	word = (bm[w] ^ invert) & (~0ULL << (start % MRC_BM_WORD_BITS));
	for (;;) {
		if (word) {
			i = (u64)w * MRC_BM_WORD_BITS + __builtin_ctzll(word);
			return i < nbits ? (u32)i : nbits;
		}
		if (++w >= words)
			return nbits;
		word = bm[w] ^ invert;
	}
}

/**
 * mrc_bm_find_next_set() - find the next set bit
 * @bm: the bitmap
 * @nbits: its size in bits
 * @start: first bit to look at
 *
 * Return: the index of the first set bit at or after @start and below
 * @nbits, or @nbits if there is none (also when @start >= @nbits).
 */
u32 mrc_bm_find_next_set(const u64 *bm, u32 nbits, u32 start)
{
	return mrc_bm_find_next(bm, nbits, start, 0);
}

/**
 * mrc_bm_find_next_zero() - find the next clear bit
 * @bm: the bitmap
 * @nbits: its size in bits
 * @start: first bit to look at
 *
 * Return: the index of the first clear bit at or after @start and below
 * @nbits, or @nbits if there is none (also when @start >= @nbits).
 */
u32 mrc_bm_find_next_zero(const u64 *bm, u32 nbits, u32 start)
{
	return mrc_bm_find_next(bm, nbits, start, ~0ULL);
}

/**
 * mrc_bm_weight() - count the set bits
 * @bm: the bitmap
 * @nbits: its size in bits
 *
 * Return: the number of set bits in [0, @nbits).
 */
u32 mrc_bm_weight(const u64 *bm, u32 nbits)
{
	u32 full = nbits / MRC_BM_WORD_BITS;
	u32 rest = nbits % MRC_BM_WORD_BITS;
	u32 n = 0;
	u32 w;

	for (w = 0; w < full; w++)
		n += mrc_bm_weight64(bm[w]);
	if (rest)
		n += mrc_bm_weight64(bm[full] & mrc_bm_low_mask(rest));
	return n;
}

/* The 64 bits of @bm starting at bit @pos; bits at or past @nbits are 0. */
static u64 mrc_bm_get64(const u64 *bm, u32 nbits, u64 pos)
{
	u32 words = mrc_bm_words(nbits);
	u32 w;
	u32 s;
	u64 v;

	if (pos >= nbits)
		return 0;
	w = (u32)(pos / MRC_BM_WORD_BITS);
	s = (u32)(pos % MRC_BM_WORD_BITS);
	v = bm[w] >> s;
	if (s && w + 1 < words)
		v |= bm[w + 1] << (MRC_BM_WORD_BITS - s);
	return v & mrc_bm_low_mask(nbits - pos);
}

/**
 * mrc_bm_extract() - copy a range of bits to the start of another bitmap
 * @bm: the source bitmap
 * @nbits: its size in bits
 * @start: first source bit
 * @n: number of bits to copy
 * @out: the destination
 * @out_words: its size in 64-bit words
 *
 * Copies bits [@start, @start + @n) of @bm to bits [0, @n) of @out; every
 * other bit of @out is cleared.  Source bits at or beyond @nbits read as
 * 0.  @n is clamped to @out_words * 64.
 */
void mrc_bm_extract(const u64 *bm, u32 nbits, u32 start, u32 n,
		    u64 *out, u32 out_words)
{
	u64 left = n;
	u64 pos = start;
	u32 k;

	for (k = 0; k < out_words; k++) {
		if (!left) {
			out[k] = 0;
			continue;
		}
		out[k] = mrc_bm_get64(bm, nbits, pos) & mrc_bm_low_mask(left);
		pos += MRC_BM_WORD_BITS;
		left = left > MRC_BM_WORD_BITS ? left - MRC_BM_WORD_BITS : 0;
	}
}
