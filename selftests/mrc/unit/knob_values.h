/* SPDX-License-Identifier: GPL-2.0 */
/*
 * knob_values.h - the values a knob is swept over in the unit tests
 * (knobs_test.c, knob_sweep_test.c).  One test binary per file includes it.
 */
#ifndef MRC_UNIT_KNOB_VALUES_H
#define MRC_UNIT_KNOB_VALUES_H

#include "../../../mrc/core/config.h"

#define SWEEP_MAX	32

/*
 * The values of knob @id to sweep: min, min + 1, max - 1, max and, within
 * [min, max], the ms values around 2^32 ns, 2^32 ns / 2 and 2^32 ns x 4
 * (a knob used doubled or quartered).  Returns how many.
 */
static unsigned int sweep(unsigned int id, u64 *v)
{
	static const u64 edges[] = { 2147, 2148, 4294, 4295, 4296,
				     8589, 8590, 17179, 17180, 17181 };
	const struct mrc_knob *k = &mrc_knobs[id];
	unsigned int n = 0, i;

	v[n++] = k->min;
	v[n++] = k->min + 1;
	for (i = 0; i < ARRAY_SIZE(edges); i++)
		if (edges[i] > k->min + 1 && edges[i] < k->max - 1)
			v[n++] = edges[i];
	v[n++] = k->max - 1;
	v[n++] = k->max;
	return n;
}

#endif /* MRC_UNIT_KNOB_VALUES_H */
