// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - module init/exit, the knob values and module-wide counters.
 *
 * Knobs are defined once, in config_knobs.h.  Each one is at the same time a
 * module parameter (read-only in /sys/module/mrc/parameters; set at load time
 * from the command line or /etc/modprobe.d/), a read-write file in
 * /sys/kernel/mrc/ and an attribute of the netlink config commands.  All
 * three paths validate through mrc_knob_check().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <net/genetlink.h>

#include "chardev.h"
#include "cq.h"
#include "credit_peer.h"
#include "mrc.h"
#include "msg.h"
#include "peer.h"
#include "rxpool.h"
#include "txpool.h"
#include "schedcfg.h"
#include "ud.h"

/*
 * Knob values.  Written under mrc_config_lock (or by the module loader before
 * init runs), read anywhere with READ_ONCE via mrc_knob().
 */
u32 mrc_config[MRC_KNOB_NR] = {
#define MRC_KNOB_DEFAULT(n, a, mi, ma, d, f, u, h) [MRC_KNOB_##n] = d,
	MRC_CONFIG_KNOBS(MRC_KNOB_DEFAULT)
#undef MRC_KNOB_DEFAULT
};

static DEFINE_MUTEX(mrc_config_lock);

atomic64_t mrc_mod_stats[MRC_MOD_STAT_NR];

const char * const mrc_mod_stat_names[MRC_MOD_STAT_NR] = {
	[MRC_MOD_STAT_RAILS_REFUSED]	= "rails_refused",
	[MRC_MOD_STAT_RAIL_ALLOC_FAILED] = "rail_alloc_failed",
	[MRC_MOD_STAT_NOTIFY_FAILED]	= "notify_failed",
	[MRC_MOD_STAT_REFRESHES]	= "refreshes",
	[MRC_MOD_STAT_UD_CREATE_FAILED]	= "ud_create_failed",
	[MRC_MOD_STAT_CM_NOT_PEER]	= "cm_not_peer",
	[MRC_MOD_STAT_PARAMS_REFUSED]	= "params_refused",
	[MRC_MOD_STAT_CM_MALFORMED]	= "cm_malformed",
	[MRC_MOD_STAT_CM_NO_AUTH]	= "cm_no_auth",
	[MRC_MOD_STAT_CM_BAD_AUTH]	= "cm_bad_auth",
	[MRC_MOD_STAT_CM_EXPIRED]	= "cm_expired",
	[MRC_MOD_STAT_CM_STALE]		= "cm_stale",
};

/**
 * mrc_config_set() - set knobs atomically
 * @knobs: the knobs
 * @vals: their new values
 * @n: how many pairs
 * @why: set to a static explanation on error
 * @bad_idx: if not NULL, set to the index of the offending pair on error
 *
 * Either every (knob, value) pair is valid and all are applied, or
 * nothing changes.  The node id may not become a configured peer's
 * (-EEXIST), nor change while the node is its own peer (-EBUSY): peer
 * adds wait while it changes (mrc_peer_node_id_lock()).
 *
 * Return: 0 or -errno.
 */
int mrc_config_set(const struct mrc_knob * const *knobs, const u64 *vals,
		   unsigned int n, const char **why, unsigned int *bad_idx)
{
	unsigned long changed = 0;
	bool refresh = false;
	int node = -1;		/* index of a node_id pair, or -1 */
	bool locked = false;	/* mrc_peer_node_id_lock() */
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		err = mrc_knob_check(knobs[i], vals[i], why);
		if (err) {
			if (bad_idx)
				*bad_idx = i;
			return err;
		}
		if (knobs[i] == &mrc_knobs[MRC_KNOB_node_id])
			node = i;
	}

	mutex_lock(&mrc_config_lock);
	if (node >= 0 && mrc_config[MRC_KNOB_node_id] != vals[node]) {
		err = mrc_peer_node_id_lock(vals[node], why);
		if (err) {
			mutex_unlock(&mrc_config_lock);
			if (bad_idx)
				*bad_idx = node;
			return err;
		}
		locked = true;
	}
	for (i = 0; i < n; i++) {
		unsigned int id = knobs[i] - mrc_knobs;

		if (mrc_config[id] == vals[i])
			continue;
		WRITE_ONCE(mrc_config[id], vals[i]);
		changed |= BIT(id);
		if (id == MRC_KNOB_min_mtu)
			refresh = true;
	}
	if (locked)
		mrc_peer_node_id_unlock();
	mutex_unlock(&mrc_config_lock);

	if (changed)
		mrc_nl_config_event(changed);
	if (changed & BIT(MRC_KNOB_peer_timeout_ms))
		mrc_msg_timeouts_changed();
	if (refresh)
		mrc_rails_refresh_async();
	return 0;
}

/* Module parameters: one per knob, validated like every other path. */
static int mrc_param_set(const char *val, const struct kernel_param *kp)
{
	const struct mrc_knob *k = kp->arg;
	const char *why;
	u64 v;
	int err;

	err = mrc_parse_u64(val, &v);
	if (err) {
		pr_err("%s=%s: %s\n", k->name, val,
		       err == -ERANGE ? "number too large" : "not a number");
		return err;
	}
	err = mrc_knob_check(k, v, &why);
	if (err) {
		pr_err("%s=%llu: %s (allowed %u..%u)\n", k->name, v, why,
		       k->min, k->max);
		return err;
	}
	WRITE_ONCE(mrc_config[k - mrc_knobs], v);
	return 0;
}

static int mrc_param_get(char *buf, const struct kernel_param *kp)
{
	const struct mrc_knob *k = kp->arg;

	return sysfs_emit(buf, "%u\n", mrc_knob(k - mrc_knobs));
}

static const struct kernel_param_ops mrc_param_ops = {
	.set = mrc_param_set,
	.get = mrc_param_get,
};

#define MRC_KNOB_PARAM(n, a, mi, ma, d, f, u, h)			\
	module_param_cb(n, &mrc_param_ops,				\
			(void *)&mrc_knobs[MRC_KNOB_##n], 0444);		\
	MODULE_PARM_DESC(n, h " (" #mi ".." #ma ", default " #d ")");
MRC_CONFIG_KNOBS(MRC_KNOB_PARAM)
#undef MRC_KNOB_PARAM

/*
 * The module's parts, in the order they start; they stop in the reverse
 * order, at unload as after a failed load.  Rails before the peers that
 * sit on them, peers before the endpoints whose messages they carry
 * (consumers hold module references: no endpoint is left when peers
 * go), /dev/mrc after everything it uses (its open files hold module
 * references), debugfs after the others (its files show their state).
 * The receive memory pool stops after everything that gives memory back
 * to it (messages, peers, /dev/mrc).  The netlink family comes last and
 * goes first: its requests drive every other part (a PEER_ADD makes
 * timers, work and cm ids), so none may arrive before they are all up
 * or after any of them began to stop; genl_unregister_family() returns
 * only once no request of the family runs.  Events the parts send
 * before it is registered or after it is gone find no listener and are
 * not sent (mrc_nl_event_new()).
 */
static const struct {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
} mrc_parts[] = {
	{ "cq", mrc_cq_init, mrc_cq_exit },
	{ "ud", mrc_ud_init, mrc_ud_exit },
	{ "sysfs", mrc_sysfs_init, mrc_sysfs_exit },
	{ "rails", mrc_rail_init, mrc_rail_exit },
	{ "sched", mrc_schedcfg_init, NULL },
	{ "rxpool", mrc_rxpool_init, mrc_rxpool_exit },
	{ "txpool", mrc_txpool_init, mrc_txpool_exit },
	{ "messages", NULL, mrc_msg_exit },
	{ "credits", mrc_credit_init, mrc_credit_exit },
	{ "endpoints", NULL, mrc_ep_exit },
	{ "peers", mrc_peer_init, mrc_peer_exit },
	{ "/dev/mrc", mrc_dev_init, mrc_dev_exit },
	{ "debugfs", mrc_debugfs_init, mrc_debugfs_exit },
	{ "netlink", mrc_nl_init, mrc_nl_exit },
};

/* Stops parts [0, @n) in reverse. */
static void mrc_stop(unsigned int n)
{
	while (n--)
		if (mrc_parts[n].exit)
			mrc_parts[n].exit();
}

static int __init mrc_init(void)
{
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(mrc_parts); i++) {
		err = mrc_parts[i].init ? mrc_parts[i].init() : 0;
		if (err) {
			pr_err("cannot start %s: %d\n", mrc_parts[i].name, err);
			mrc_stop(i);
			return err;
		}
	}
	pr_info("loaded (netlink family \"%s\" v%d)\n", MRC_GENL_NAME,
		MRC_GENL_VERSION);
	return 0;
}

static void __exit mrc_exit(void)
{
	mrc_stop(ARRAY_SIZE(mrc_parts));
	pr_info("unloaded\n");
}

module_init(mrc_init);
module_exit(mrc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mrc: multipath, receiver-driven-credit RDMA transport");
MODULE_AUTHOR("The mrc developers");
MODULE_ALIAS_GENL_FAMILY(MRC_GENL_NAME);
