/* SPDX-License-Identifier: GPL-2.0 */
/*
 * schedcfg.h - the module-wide path scheduling configuration (issue 5):
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

void mrc_schedcfg_init(struct dentry *debugfs_dir);

/*
 * Copies the parameters for one push: weights and classes, and the
 * policy: @peer_policy, or the knob if it is MRC_SCHEDCFG_POLICY_GLOBAL.
 */
void mrc_schedcfg_params(struct mrc_sched_params *sp, u8 peer_policy);

/* Rail set of @cls (a bit per rail id; MRC_SCHED_RAILS_ALL = all). */
u64 mrc_schedcfg_class(u32 cls);
/*
 * Sets it.  0, or -EINVAL with *why (class out of range, empty set, or a
 * set whose rails all have weight 0).  The caller checked the rails.
 */
int mrc_schedcfg_set_class(u32 cls, u64 rails, const char **why);

/* Weight of rail @id (ids >= MRC_SCHED_MAX_RAILS: the default). */
u32 mrc_schedcfg_weight(u32 id);
/*
 * Sets it (0..100).  0, or -EINVAL / -ERANGE with *why: above 100, rail
 * id too large to weigh, or it would leave a class only rails of weight 0.
 */
int mrc_schedcfg_set_weight(u32 id, u32 weight, const char **why);

/* Rail @id is gone: default weight, out of every class's set. */
void mrc_schedcfg_rail_gone(u32 id);

/*
 * Counters.  One DATA packet of class @cls was sent on rail @id, on a
 * path chosen by @policy (its tag); a packet tagged @tag left its path's
 * inflight for reason @how (enum mrc_path_done).  Per policy, at rest:
 * sent == acked + lost + released.
 */
void mrc_schedcfg_count_tx(u32 id, u32 cls, u32 policy);
void mrc_schedcfg_count_done(u32 tag, u32 how);

#endif /* _MRC_SCHEDCFG_H */
