/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fuzz.h - what the libFuzzer targets here share: FAIL() and ASSERT()
 * (abort with the target's name, FUZZ_NAME, which the target defines
 * before including this), and the reader of a script input (bytes taken
 * in order, little endian; bytes past the end read as 0).  Include it
 * after the mrc header under test (for u8 ... u64).
 */
#ifndef MRC_FUZZ_H
#define MRC_FUZZ_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define FAIL(...) do {							\
		fprintf(stderr, FUZZ_NAME ": %s:%d: ", __FILE__, __LINE__); \
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, "\n");					\
		abort();						\
	} while (0)
#define ASSERT(cond) do {						\
		if (!(cond))						\
			FAIL("%s", #cond);				\
	} while (0)

struct input {
	const u8 *p;
	size_t n;
};

static inline u8 get8(struct input *in)
{
	u8 v;

	if (!in->n)
		return 0;
	v = *in->p++;
	in->n--;
	return v;
}

static inline u16 get16(struct input *in)
{
	u16 v = get8(in);

	return v | (u16)get8(in) << 8;
}

static inline u32 get32(struct input *in)
{
	u32 v = get16(in);

	return v | (u32)get16(in) << 16;
}

/* Low word first (two calls, sequenced). */
static inline u64 get64(struct input *in)
{
	u64 lo = get32(in);

	return lo | (u64)get32(in) << 32;
}

#endif /* MRC_FUZZ_H */
