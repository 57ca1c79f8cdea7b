/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - knob table, value parsing and validation.
 *
 * Kernel-agnostic: used by mrc.ko (module parameters, sysfs, netlink), by
 * mrcctl and by the user-space unit tests.
 */
#ifndef _MRC_CONFIG_H
#define _MRC_CONFIG_H

#include "compat.h"
#include "config_knobs.h"

struct mrc_knob {
	const char *name;
	const char *unit;
	const char *help;
	u16 attr;		/* enum mrc_config_attr */
	u32 min;
	u32 max;
	u32 def;
	u32 flags;		/* MRC_KNOB_* */
};

enum mrc_knob_id {
#define MRC_KNOB_ENUM(n, a, mi, ma, d, f, u, h) MRC_KNOB_##n,
	MRC_CONFIG_KNOBS(MRC_KNOB_ENUM)
#undef MRC_KNOB_ENUM
	MRC_KNOB_NR
};

extern const struct mrc_knob mrc_knobs[MRC_KNOB_NR];

const struct mrc_knob *mrc_knob_by_name(const char *name);
const struct mrc_knob *mrc_knob_by_attr(unsigned int attr);

int mrc_knob_check(const struct mrc_knob *k, u64 val, const char **why);

int mrc_parse_u64(const char *s, u64 *out);

#endif /* _MRC_CONFIG_H */
