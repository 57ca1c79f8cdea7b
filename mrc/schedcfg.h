/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedcfg.h - the module-wide path scheduling configuration:
 * per-rail weights, the rail set of each traffic class, and per-rail,
 * per-class DATA counters.  The policy is the sched_policy knob (or a
 * peer's own, mrc_msg_peer.policy).  See schedcfg.c.
 */
#ifndef _MRC_SCHEDCFG_H
#define _MRC_SCHEDCFG_H

#include "../uapi/linux/mrc.h"
#include "core/sched.h"

struct dentry;

/* Peer policy value meaning "the sched_policy knob". */
#define MRC_SCHEDCFG_POLICY_GLOBAL	MRC_SCHED_POLICY_GLOBAL

int mrc_schedcfg_init(void);
/* debugfs mrc/sched (debugfs.c). */
struct seq_file;
int mrc_schedcfg_show(struct seq_file *s);

void mrc_schedcfg_params(struct mrc_sched_params *sp, u8 peer_policy);

u64 mrc_schedcfg_class(u32 cls);
int mrc_schedcfg_set_class(u32 cls, u64 rails, const char **why);

u32 mrc_schedcfg_weight(u32 id);
int mrc_schedcfg_set_weight(u32 id, u32 weight, const char **why);

void mrc_schedcfg_rail_gone(u32 id);

void mrc_schedcfg_count_tx(u32 id, u32 cls, u32 policy);
void mrc_schedcfg_count_done(u32 tag, u32 how);

#endif /* _MRC_SCHEDCFG_H */
