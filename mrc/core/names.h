/* SPDX-License-Identifier: GPL-2.0 */
/*
 * names.h - printable names of uapi enums, shared by mrc.ko (sysfs,
 * debugfs, netlink), mrcctl and mrc-perf so that all say the same words.
 * Kernel-agnostic.
 */
#ifndef _MRC_NAMES_H
#define _MRC_NAMES_H

#include "compat.h"

const char *mrc_rail_state_name(unsigned int state);
const char *mrc_link_layer_name(unsigned int ll);
const char *mrc_rail_stat_name(unsigned int stat);
const char *mrc_path_state_uapi_name(unsigned int state);
const char *mrc_credit_stat_name(unsigned int stat);
/* Path scheduling policies (enum mrc_sched_policy_uapi), classes. */
const char *mrc_sched_policy_name(unsigned int policy);
const char *mrc_sched_class_name(unsigned int cls);
int mrc_sched_policy_parse(const char *name);
int mrc_sched_class_parse(const char *name);

#endif /* _MRC_NAMES_H */
