// SPDX-License-Identifier: GPL-2.0
/*
 * config.c - knob table, value parsing and validation (kernel-agnostic).
 */
#include "../../uapi/linux/mrc.h"
#include "config.h"

const struct mrc_knob mrc_knobs[MRC_KNOB_NR] = {
#define MRC_KNOB_ENTRY(n, a, mi, ma, d, f, u, h)			\
	[MRC_KNOB_##n] = { .name = #n, .attr = a, .min = mi, .max = ma,	\
			   .def = d, .flags = f, .unit = u, .help = h },
	MRC_CONFIG_KNOBS(MRC_KNOB_ENTRY)
#undef MRC_KNOB_ENTRY
};

/**
 * mrc_knob_by_name() - look a knob up by name
 * @name: the knob's name (exact match)
 *
 * Return: the knob called @name, or NULL.
 */
const struct mrc_knob *mrc_knob_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < MRC_KNOB_NR; i++)
		if (!strcmp(mrc_knobs[i].name, name))
			return &mrc_knobs[i];
	return NULL;
}

/**
 * mrc_knob_by_attr() - look a knob up by netlink attribute
 * @attr: a MRC_CONFIG_A_* attribute
 *
 * Return: the knob carried in netlink attribute @attr, or NULL.
 */
const struct mrc_knob *mrc_knob_by_attr(unsigned int attr)
{
	unsigned int i;

	for (i = 0; i < MRC_KNOB_NR; i++)
		if (mrc_knobs[i].attr == attr)
			return &mrc_knobs[i];
	return NULL;
}

/**
 * mrc_knob_check() - check a value for a knob
 * @k: the knob
 * @val: the value
 * @why: set to a static explanation when @val is refused
 *
 * Checks @val against @k's range and flags.
 *
 * Return: 0, or -ERANGE / -EINVAL with *@why set.
 */
int mrc_knob_check(const struct mrc_knob *k, u64 val, const char **why)
{
	if (val < k->min) {
		*why = "value below the knob's minimum";
		return -ERANGE;
	}
	if (val > k->max) {
		*why = "value above the knob's maximum";
		return -ERANGE;
	}
	if ((k->flags & MRC_KNOB_POW2) && (!val || (val & (val - 1)))) {
		*why = "value must be a power of two";
		return -EINVAL;
	}
	*why = NULL;
	return 0;
}

/**
 * mrc_parse_u64() - parse a knob value
 * @s: the text
 * @out: the value, when the text parses
 *
 * Parses an unsigned decimal (or 0x hex) number with an optional binary
 * suffix K, M or G (KiB, MiB, GiB) and one optional trailing newline.
 *
 * Return: 0, -EINVAL on bad syntax, -ERANGE on overflow.
 */
int mrc_parse_u64(const char *s, u64 *out)
{
	unsigned int base = 10, shift = 0;
	u64 v = 0;
	int digits = 0;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (v > (U64_MAX - d) / base)
			return -ERANGE;
		v = v * base + d;
		digits++;
	}
	if (!digits)
		return -EINVAL;
	switch (*s) {
	case 'K': case 'k':
		shift = 10;
		break;
	case 'M': case 'm':
		shift = 20;
		break;
	case 'G': case 'g':
		shift = 30;
		break;
	}
	if (shift) {
		if (v > (U64_MAX >> shift))
			return -ERANGE;
		v <<= shift;
		s++;
	}
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*out = v;
	return 0;
}
