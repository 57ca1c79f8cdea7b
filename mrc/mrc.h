/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc.h - internal declarations shared by mrc.ko's kernel-only files.
 *
 * Locking overview (details next to each field):
 *
 *   mrc_rails_lock (mutex)   the rail list, rail creation/removal, and every
 *                            refresh of a rail's info.  Taken in process
 *                            context only.  Lock order: mrc_rails_lock, then
 *                            RTNL (ib_query_port on RoCE takes RTNL).  No path
 *                            that holds RTNL takes mrc_rails_lock: the netdev
 *                            notifier only schedules work.
 *   rail->info_lock (spin)   the rail's info snapshot; readers (sysfs,
 *                            netlink) copy it out under this lock.
 *   mrc_config_lock (mutex)  serializes knob changes (values are read with
 *                            READ_ONCE without a lock).
 *
 * A rail's memory is owned by its kobject: the last kobject_put() frees it.
 */
#ifndef _MRC_MRC_H
#define _MRC_MRC_H

#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/atomic.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>

#include "../uapi/linux/mrc.h"
#include "core/config.h"

/* ---- knobs (main.c) ---- */

extern u32 mrc_config[MRC_KNOB_NR];

#define MRC_KNOB_ALL	GENMASK(MRC_KNOB_NR - 1, 0)
static_assert(MRC_KNOB_NR <= BITS_PER_LONG);

static inline u32 mrc_knob(enum mrc_knob_id id)
{
	return READ_ONCE(mrc_config[id]);
}

int mrc_config_set(const struct mrc_knob * const *knobs, const u64 *vals,
		   unsigned int n, const char **why, unsigned int *bad_idx);

/* ---- module-wide counters (main.c) ---- */

enum mrc_mod_stat {
	MRC_MOD_STAT_RAILS_REFUSED,	/* ports not taken: max_rails reached */
	MRC_MOD_STAT_RAIL_ALLOC_FAILED,	/* ports not taken: out of memory */
	MRC_MOD_STAT_NOTIFY_FAILED,	/* events not sent (no memory) */
	MRC_MOD_STAT_REFRESHES,		/* rail refresh passes */
	MRC_MOD_STAT_UD_CREATE_FAILED,	/* rails left without QPs */
	MRC_MOD_STAT_CM_NOT_PEER,	/* SIDR requests from non-peers */
	MRC_MOD_STAT_PARAMS_REFUSED,	/* path/sched params from the knobs
					 * refused, defaults used instead
					 */
	/* SIDR requests and replies refused (peer_cm.c, protocol.rst) */
	MRC_MOD_STAT_CM_MALFORMED,	/* not a version 4 mrc_wire_cm */
	MRC_MOD_STAT_CM_NO_AUTH,	/* keyed peer, no MAC */
	MRC_MOD_STAT_CM_BAD_AUTH,	/* wrong MAC, or a MAC unkeyed */
	MRC_MOD_STAT_CM_EXPIRED,	/* ts outside the window */
	MRC_MOD_STAT_CM_STALE,		/* replayed: not newer, no state
					 * change; or a reply's nonce wrong
					 */
	MRC_MOD_STAT_NR
};

extern atomic64_t mrc_mod_stats[MRC_MOD_STAT_NR];
extern const char * const mrc_mod_stat_names[MRC_MOD_STAT_NR];

static inline void mrc_mod_stat_inc(enum mrc_mod_stat s)
{
	atomic64_inc(&mrc_mod_stats[s]);
}

/* ---- rails (rail.c) ---- */

/* What we know about a rail, refreshed from the device and its netdev. */
struct mrc_rail_info {
	union ib_gid gid;
	u32 gid_index;
	bool has_gid;
	int ifindex;			/* 0: netdev unknown */
	char netdev[IFNAMSIZ];
	u32 mtu;			/* active RDMA MTU, bytes */
	u32 speed;			/* Mbit/s, 0 unknown */
	u8 state;			/* enum mrc_rail_state */
	u8 link_layer;			/* enum mrc_link_layer */
};

struct mrc_ud;

struct mrc_rail_pcpu {
	u64 c[__MRC_RAIL_STAT_MAX];	/* indexed by enum mrc_rail_stat */
	u64 drops[MRC_DROP_NR];		/* indexed by enum mrc_drop_reason */
};

struct mrc_rail {
	struct kobject kobj;		/* /sys/kernel/mrc/rails/<name> */
	struct list_head node;		/* on mrc_rails, under mrc_rails_lock */
	struct ib_device *ibdev;	/* valid while on mrc_rails */
	u32 id;				/* from mrc_rail_ida */
	u32 port;
	char name[MRC_RAIL_NAME_MAX];	/* "<ibdev>:<port>", fixed at add */
	char ibdev_name[IB_DEVICE_NAME_MAX];

	spinlock_t info_lock;		/* protects info */
	struct mrc_rail_info info;

	struct mrc_rail_pcpu __percpu *pcpu;	/* lock-free counters */

	/*
	 * UD queue pairs; set at creation, NULL if they could not be made
	 * (state ERROR), destroyed after the rail is unlisted.
	 */
	struct mrc_ud *ud;
	atomic_t nah;			/* AHs on ud's PD (ah.c) */
};

extern struct mutex mrc_rails_lock;
extern struct list_head mrc_rails;	/* under mrc_rails_lock */
extern unsigned int mrc_rails_gen;	/* bumped on add/remove, same lock */

static inline void mrc_rail_stat_inc(struct mrc_rail *rail,
				     enum mrc_rail_stat s)
{
	this_cpu_inc(rail->pcpu->c[s]);
}

/* Counts a received packet dropped for @why. */
static inline void mrc_rail_drop(struct mrc_rail *rail,
				 enum mrc_drop_reason why)
{
	this_cpu_inc(rail->pcpu->drops[why]);
}

u64 mrc_rail_stat_read(const struct mrc_rail *rail, enum mrc_rail_stat s);
u64 mrc_rail_drops_read(const struct mrc_rail *rail,
			enum mrc_drop_reason why);
void mrc_rail_get_info(struct mrc_rail *rail, struct mrc_rail_info *info);
struct mrc_rail *mrc_rail_find_locked(u32 id, const char *name);
void mrc_rails_refresh_async(void);
void mrc_rail_release(struct kobject *kobj);

int mrc_rail_init(void);
void mrc_rail_exit(void);

/* ---- address handles on a rail's PD (ah.c) ---- */

struct ib_ah *mrc_ah_create(struct mrc_rail *rail, struct rdma_ah_attr *attr);
void mrc_ah_release(struct mrc_rail *rail, struct ib_ah *ah);
void mrc_ah_wait_all(struct mrc_rail *rail);

/* ---- sysfs (sysfs.c) ---- */

int mrc_sysfs_init(void);
void mrc_sysfs_exit(void);
int mrc_sysfs_rail_add(struct mrc_rail *rail);
void mrc_sysfs_rail_del(struct mrc_rail *rail);
void mrc_sysfs_rail_init(struct mrc_rail *rail);

/* ---- generic netlink (netlink.c) ---- */

int mrc_nl_init(void);
void mrc_nl_exit(void);

/* debugfs.c */
int mrc_debugfs_init(void);
void mrc_debugfs_exit(void);
void mrc_nl_rail_event(struct mrc_rail *rail, u8 cmd, u8 prev_state);
struct mrc_peer;
struct mrc_peer_link;
void mrc_nl_peer_event(struct mrc_peer *peer, u8 cmd);
void mrc_nl_path_event(struct mrc_peer *peer, struct mrc_peer_link *link,
		       unsigned int i, u8 prev);
void mrc_nl_class_event(u32 node, u32 cls, bool fallback);
void mrc_nl_config_event(unsigned long changed);

#endif /* _MRC_MRC_H */
