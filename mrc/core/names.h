/* SPDX-License-Identifier: GPL-2.0 */
/*
 * names.h - printable names of uapi enums, shared by mrc.ko (sysfs) and
 * mrcctl so that both say the same words.  Kernel-agnostic.
 */
#ifndef _MRC_NAMES_H
#define _MRC_NAMES_H

#include "compat.h"

/*
 * "down", "active", "no-gid", "mtu-low", "error"; "unknown" when out of
 * range.
 */
const char *mrc_rail_state_name(unsigned int state);
/* "ethernet", "infiniband", "unknown". */
const char *mrc_link_layer_name(unsigned int ll);
/* File/JSON name of an enum mrc_rail_stat, e.g. "tx_packets"; NULL if none. */
const char *mrc_rail_stat_name(unsigned int stat);
/*
 * Name of an enum mrc_path_state_uapi: "probing", "active", "assumed-bad",
 * "dead", "denied", "unresolved"; "unknown" when out of range.
 */
const char *mrc_path_state_uapi_name(unsigned int state);
/* Name of an enum mrc_credit_stat, e.g. "grants_rx"; NULL if none. */
const char *mrc_credit_stat_name(unsigned int stat);

#endif /* _MRC_NAMES_H */
