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
#include "mrc.h"
#include "msg.h"
#include "peer.h"
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
 * nothing changes.
 *
 * Return: 0 or -errno.
 */
int mrc_config_set(const struct mrc_knob * const *knobs, const u64 *vals,
		   unsigned int n, const char **why, unsigned int *bad_idx)
{
	unsigned long changed = 0;
	bool refresh = false;
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		err = mrc_knob_check(knobs[i], vals[i], why);
		if (err) {
			if (bad_idx)
				*bad_idx = i;
			return err;
		}
	}

	mutex_lock(&mrc_config_lock);
	for (i = 0; i < n; i++) {
		unsigned int id = knobs[i] - mrc_knobs;

		if (mrc_config[id] == vals[i])
			continue;
		WRITE_ONCE(mrc_config[id], vals[i]);
		changed |= BIT(id);
		if (id == MRC_KNOB_min_mtu)
			refresh = true;
	}
	mutex_unlock(&mrc_config_lock);

	if (changed)
		mrc_nl_config_event(changed);
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

static int __init mrc_init(void)
{
	int err;

	err = mrc_ud_init();
	if (err)
		return err;
	err = mrc_sysfs_init();
	if (err)
		goto err_ud;
	err = mrc_nl_init();
	if (err)
		goto err_sysfs;
	err = mrc_rail_init();
	if (err)
		goto err_nl;
	err = mrc_msg_init();
	if (err)
		goto err_rail;
	err = mrc_credit_init();	/* credit_peer.c */
	if (err)
		goto err_msg;
	err = mrc_peer_init();
	if (err)
		goto err_credit;
	err = mrc_dev_init();
	if (err)
		goto err_peer;
	pr_info("loaded (netlink family \"%s\" v%d)\n", MRC_GENL_NAME,
		MRC_GENL_VERSION);
	return 0;

err_peer:
	mrc_peer_exit();
err_credit:
	mrc_credit_exit();
err_msg:
	mrc_msg_exit();
err_rail:
	mrc_rail_exit();
err_nl:
	mrc_nl_exit();
err_sysfs:
	mrc_sysfs_exit();
err_ud:
	mrc_ud_exit();
	return err;
}

static void __exit mrc_exit(void)
{
	/*
	 * Peers first (they hold rails, address handles and messages), then
	 * endpoints (consumers hold module references: none are left), then
	 * rails (their removal still sends events), then netlink.  /dev/mrc
	 * goes first: its open files hold module references, none are left.
	 */
	mrc_dev_exit();
	mrc_peer_exit();
	mrc_ep_exit();
	mrc_credit_exit();
	mrc_msg_exit();
	mrc_rail_exit();
	mrc_nl_exit();
	mrc_sysfs_exit();
	mrc_ud_exit();
	pr_info("unloaded\n");
}

module_init(mrc_init);
module_exit(mrc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mrc: multipath, receiver-driven-credit RDMA transport");
MODULE_AUTHOR("The mrc developers");
MODULE_ALIAS_GENL_FAMILY(MRC_GENL_NAME);
