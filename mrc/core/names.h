/* SPDX-License-Identifier: GPL-2.0 */
/*
 * names.h - printable names of uapi enums, shared by mrc.ko (sysfs) and
 * mrcctl so that both say the same words.  Kernel-agnostic.
 */
#ifndef _MRC_NAMES_H
#define _MRC_NAMES_H

#include "compat.h"

const char *mrc_rail_state_name(unsigned int state);
const char *mrc_link_layer_name(unsigned int ll);
const char *mrc_rail_stat_name(unsigned int stat);
const char *mrc_path_state_uapi_name(unsigned int state);
const char *mrc_credit_stat_name(unsigned int stat);

#endif /* _MRC_NAMES_H */
