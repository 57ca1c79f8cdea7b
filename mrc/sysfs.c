// SPDX-License-Identifier: GPL-2.0
/*
 * sysfs.c - /sys/kernel/mrc: knobs, module counters, one directory per rail.
 *
 *   /sys/kernel/mrc/<knob>                 rw, one file per knob
 *   /sys/kernel/mrc/stats/<counter>        ro, module-wide counters
 *   /sys/kernel/mrc/rails/<rail>/<field>   ro, rail info
 *   /sys/kernel/mrc/rails/<rail>/stats/<counter>
 *
 * Documented in Documentation/ABI/testing/sysfs-kernel-mrc.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "mrc.h"
#include "core/names.h"
#include "schedcfg.h"
#include "ud.h"
#include "core/wire.h"

static struct kobject *mrc_kobj;
static struct kset *mrc_rails_kset;

/* ---- knobs ---- */

struct mrc_knob_attr {
	struct kobj_attribute attr;
	const struct mrc_knob *knob;
};

static ssize_t mrc_knob_show(struct kobject *kobj, struct kobj_attribute *a,
			     char *buf)
{
	const struct mrc_knob *k = container_of(a, struct mrc_knob_attr,
						attr)->knob;

	return sysfs_emit(buf, "%u\n", mrc_knob(k - mrc_knobs));
}

static ssize_t mrc_knob_store(struct kobject *kobj, struct kobj_attribute *a,
			      const char *buf, size_t count)
{
	const struct mrc_knob *k = container_of(a, struct mrc_knob_attr,
						attr)->knob;
	const char *why;
	u64 v;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	err = mrc_parse_u64(buf, &v);
	if (err)
		return err;
	err = mrc_config_set(&k, &v, 1, &why, NULL);
	if (err) {
		pr_info_ratelimited("%s=%llu refused: %s (allowed %u..%u)\n",
				    k->name, v, why, k->min, k->max);
		return err;
	}
	return count;
}

static struct mrc_knob_attr mrc_knob_attrs[MRC_KNOB_NR];
static struct attribute *mrc_knob_attr_ptrs[MRC_KNOB_NR + 1];

static const struct attribute_group mrc_knob_group = {
	.attrs = mrc_knob_attr_ptrs,
};

/* ---- module counters ---- */

struct mrc_mod_stat_attr {
	struct kobj_attribute attr;
	enum mrc_mod_stat stat;
};

static ssize_t mrc_mod_stat_show(struct kobject *kobj,
				 struct kobj_attribute *a, char *buf)
{
	enum mrc_mod_stat s = container_of(a, struct mrc_mod_stat_attr,
					   attr)->stat;

	return sysfs_emit(buf, "%lld\n", atomic64_read(&mrc_mod_stats[s]));
}

static struct mrc_mod_stat_attr mrc_mod_stat_attrs[MRC_MOD_STAT_NR];
static struct attribute *mrc_mod_stat_attr_ptrs[MRC_MOD_STAT_NR + 1];

static const struct attribute_group mrc_mod_stat_group = {
	.name = "stats",
	.attrs = mrc_mod_stat_attr_ptrs,
};

/* ---- rails ---- */

static struct mrc_rail *to_rail(struct kobject *kobj)
{
	return container_of(kobj, struct mrc_rail, kobj);
}

enum mrc_rail_field {
	MRC_RF_ID, MRC_RF_IBDEV, MRC_RF_PORT, MRC_RF_NETDEV, MRC_RF_GID,
	MRC_RF_GID_INDEX, MRC_RF_LINK_LAYER, MRC_RF_MTU, MRC_RF_SPEED,
	MRC_RF_STATE, MRC_RF_QPS,
};

struct mrc_rail_field_attr {
	struct kobj_attribute attr;
	enum mrc_rail_field field;
};

static ssize_t mrc_rail_field_show(struct kobject *kobj,
				   struct kobj_attribute *a, char *buf)
{
	enum mrc_rail_field f = container_of(a, struct mrc_rail_field_attr,
					     attr)->field;
	struct mrc_rail *rail = to_rail(kobj);
	struct mrc_rail_info info;

	mrc_rail_get_info(rail, &info);
	switch (f) {
	case MRC_RF_ID:
		return sysfs_emit(buf, "%u\n", rail->id);
	case MRC_RF_IBDEV:
		return sysfs_emit(buf, "%s\n", rail->ibdev_name);
	case MRC_RF_PORT:
		return sysfs_emit(buf, "%u\n", rail->port);
	case MRC_RF_NETDEV:
		return sysfs_emit(buf, "%s\n", info.ifindex ? info.netdev : "");
	case MRC_RF_GID:
		if (!info.has_gid)
			return sysfs_emit(buf, "\n");
		return sysfs_emit(buf, "%pI6c\n", info.gid.raw);
	case MRC_RF_GID_INDEX:
		if (!info.has_gid)
			return sysfs_emit(buf, "\n");
		return sysfs_emit(buf, "%u\n", info.gid_index);
	case MRC_RF_LINK_LAYER:
		return sysfs_emit(buf, "%s\n",
				  mrc_link_layer_name(info.link_layer));
	case MRC_RF_MTU:
		return sysfs_emit(buf, "%u\n", info.mtu);
	case MRC_RF_SPEED:
		return sysfs_emit(buf, "%u\n", info.speed);
	case MRC_RF_STATE:
		return sysfs_emit(buf, "%s\n", mrc_rail_state_name(info.state));
	case MRC_RF_QPS:
		return sysfs_emit(buf, "%u\n", rail->ud ? rail->ud->nqp : 0);
	}
	return -EINVAL;
}

#define MRC_RAIL_ATTR(_name, _field)					\
	static struct mrc_rail_field_attr mrc_rail_attr_##_name = {		\
		.attr = __ATTR(_name, 0444, mrc_rail_field_show, NULL),	\
		.field = _field,					\
	}

MRC_RAIL_ATTR(id, MRC_RF_ID);
MRC_RAIL_ATTR(ibdev, MRC_RF_IBDEV);
MRC_RAIL_ATTR(port, MRC_RF_PORT);
MRC_RAIL_ATTR(netdev, MRC_RF_NETDEV);
MRC_RAIL_ATTR(gid, MRC_RF_GID);
MRC_RAIL_ATTR(gid_index, MRC_RF_GID_INDEX);
MRC_RAIL_ATTR(link_layer, MRC_RF_LINK_LAYER);
MRC_RAIL_ATTR(mtu, MRC_RF_MTU);
MRC_RAIL_ATTR(speed, MRC_RF_SPEED);
MRC_RAIL_ATTR(state, MRC_RF_STATE);
MRC_RAIL_ATTR(qps, MRC_RF_QPS);

/* QP numbers, one per entropy value, space separated. */
static ssize_t qpns_show(struct kobject *kobj, struct kobj_attribute *a,
			 char *buf)
{
	struct mrc_rail *rail = to_rail(kobj);
	unsigned int i;
	int n = 0;

	if (!rail->ud)
		return sysfs_emit(buf, "\n");
	for (i = 0; i < rail->ud->nqp; i++)
		n += sysfs_emit_at(buf, n, "%s%u", i ? " " : "",
				   mrc_ud_qpn(rail->ud, i));
	return n + sysfs_emit_at(buf, n, "\n");
}

/*
 * Test facility: writing an entropy value index forces that QP into the
 * ERROR state, as a fault would; recovery follows by itself.
 */
static ssize_t inject_qp_error_store(struct kobject *kobj,
				     struct kobj_attribute *a,
				     const char *buf, size_t count)
{
	struct mrc_rail *rail = to_rail(kobj);
	unsigned int ev;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	err = kstrtouint(buf, 0, &ev);
	if (err)
		return err;
	if (!rail->ud)
		return -ENODEV;
	err = mrc_ud_inject_error(rail->ud, ev);
	return err ?: count;
}

/* sched: the rail's scheduling weight, 0 (never) .. 100 (schedcfg.c). */
static ssize_t weight_show(struct kobject *kobj, struct kobj_attribute *a,
			   char *buf)
{
	return sysfs_emit(buf, "%u\n", mrc_schedcfg_weight(to_rail(kobj)->id));
}

static ssize_t weight_store(struct kobject *kobj, struct kobj_attribute *a,
			    const char *buf, size_t count)
{
	const char *why;
	unsigned int w;
	int err;

	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	err = kstrtouint(buf, 0, &w);
	if (err)
		return err;
	err = mrc_schedcfg_set_weight(to_rail(kobj)->id, w, &why);
	if (err) {
		pr_info_ratelimited("%s: weight %u refused: %s\n",
				    to_rail(kobj)->name, w, why);
		return err;
	}
	return count;
}

static struct kobj_attribute mrc_rail_attr_weight = __ATTR_RW(weight);
static struct kobj_attribute mrc_rail_attr_qpns = __ATTR_RO(qpns);
static struct kobj_attribute mrc_rail_attr_inject_qp_error =
	__ATTR_WO(inject_qp_error);

static struct attribute *mrc_rail_info_attrs[] = {
	&mrc_rail_attr_id.attr.attr,
	&mrc_rail_attr_ibdev.attr.attr,
	&mrc_rail_attr_port.attr.attr,
	&mrc_rail_attr_netdev.attr.attr,
	&mrc_rail_attr_gid.attr.attr,
	&mrc_rail_attr_gid_index.attr.attr,
	&mrc_rail_attr_link_layer.attr.attr,
	&mrc_rail_attr_mtu.attr.attr,
	&mrc_rail_attr_speed.attr.attr,
	&mrc_rail_attr_state.attr.attr,
	&mrc_rail_attr_qps.attr.attr,
	&mrc_rail_attr_qpns.attr,
	&mrc_rail_attr_weight.attr,
	&mrc_rail_attr_inject_qp_error.attr,
	NULL
};

static const struct attribute_group mrc_rail_info_group = {
	.attrs = mrc_rail_info_attrs,
};

struct mrc_rail_stat_attr {
	struct kobj_attribute attr;
	enum mrc_rail_stat stat;
};

static ssize_t mrc_rail_stat_show(struct kobject *kobj,
				  struct kobj_attribute *a, char *buf)
{
	enum mrc_rail_stat s = container_of(a, struct mrc_rail_stat_attr,
					    attr)->stat;

	return sysfs_emit(buf, "%llu\n", mrc_rail_stat_read(to_rail(kobj), s));
}

static struct mrc_rail_stat_attr mrc_rail_stat_attrs[__MRC_RAIL_STAT_MAX];
static struct attribute *mrc_rail_stat_attr_ptrs[__MRC_RAIL_STAT_MAX + 1];

static const struct attribute_group mrc_rail_stat_group = {
	.name = "stats",
	.attrs = mrc_rail_stat_attr_ptrs,
};

struct mrc_rail_drop_attr {
	struct kobj_attribute attr;
	enum mrc_drop_reason why;
};

static ssize_t mrc_rail_drop_show(struct kobject *kobj,
				  struct kobj_attribute *a, char *buf)
{
	enum mrc_drop_reason why = container_of(a, struct mrc_rail_drop_attr,
						attr)->why;

	return sysfs_emit(buf, "%llu\n",
			  mrc_rail_drops_read(to_rail(kobj), why));
}

static struct mrc_rail_drop_attr mrc_rail_drop_attrs[MRC_DROP_NR];
static struct attribute *mrc_rail_drop_attr_ptrs[MRC_DROP_NR + 1];

static const struct attribute_group mrc_rail_drop_group = {
	.name = "drops",
	.attrs = mrc_rail_drop_attr_ptrs,
};

static const struct attribute_group *mrc_rail_groups[] = {
	&mrc_rail_info_group,
	&mrc_rail_stat_group,
	&mrc_rail_drop_group,
	NULL
};

static const struct kobj_type mrc_rail_ktype = {
	.release	= mrc_rail_release,
	.sysfs_ops	= &kobj_sysfs_ops,
	.default_groups	= mrc_rail_groups,
};

/**
 * mrc_sysfs_rail_init() - set up a rail's kobject
 * @rail: the rail; its kobject goes in /sys/kernel/mrc/rails/ once added
 *
 * From here on the rail is freed by its kobject's release,
 * mrc_rail_release().
 */
void mrc_sysfs_rail_init(struct mrc_rail *rail)
{
	kobject_init(&rail->kobj, &mrc_rail_ktype);
	rail->kobj.kset = mrc_rails_kset;
}

/**
 * mrc_sysfs_rail_add() - add a rail's directory, /sys/kernel/mrc/rails/NAME
 * @rail: the rail, set up by mrc_sysfs_rail_init()
 *
 * Return: 0 or kobject_add()'s error.
 */
int mrc_sysfs_rail_add(struct mrc_rail *rail)
{
	return kobject_add(&rail->kobj, NULL, "%s", rail->name);
}

/**
 * mrc_sysfs_rail_del() - remove a rail's directory
 * @rail: the rail
 */
void mrc_sysfs_rail_del(struct mrc_rail *rail)
{
	kobject_del(&rail->kobj);
}

/* ---- init ---- */

static void mrc_sysfs_build_attrs(void)
{
	unsigned int i, n = 0;

	for (i = 0; i < MRC_KNOB_NR; i++) {
		struct mrc_knob_attr *ka = &mrc_knob_attrs[i];

		sysfs_attr_init(&ka->attr.attr);
		ka->attr.attr.name = mrc_knobs[i].name;
		ka->attr.attr.mode = 0644;
		ka->attr.show = mrc_knob_show;
		ka->attr.store = mrc_knob_store;
		ka->knob = &mrc_knobs[i];
		mrc_knob_attr_ptrs[i] = &ka->attr.attr;
	}

	for (i = 0; i < MRC_MOD_STAT_NR; i++) {
		struct mrc_mod_stat_attr *sa = &mrc_mod_stat_attrs[i];

		sysfs_attr_init(&sa->attr.attr);
		sa->attr.attr.name = mrc_mod_stat_names[i];
		sa->attr.attr.mode = 0444;
		sa->attr.show = mrc_mod_stat_show;
		sa->stat = i;
		mrc_mod_stat_attr_ptrs[i] = &sa->attr.attr;
	}

	for (i = 0; i < __MRC_RAIL_STAT_MAX; i++) {
		struct mrc_rail_stat_attr *sa = &mrc_rail_stat_attrs[n];
		const char *name = mrc_rail_stat_name(i);

		if (!name)
			continue;
		sysfs_attr_init(&sa->attr.attr);
		sa->attr.attr.name = name;
		sa->attr.attr.mode = 0444;
		sa->attr.show = mrc_rail_stat_show;
		sa->stat = i;
		mrc_rail_stat_attr_ptrs[n++] = &sa->attr.attr;
	}

	for (n = 0, i = MRC_DROP_NONE + 1; i < MRC_DROP_NR; i++) {
		struct mrc_rail_drop_attr *da = &mrc_rail_drop_attrs[n];

		sysfs_attr_init(&da->attr.attr);
		da->attr.attr.name = mrc_drop_reason_name(i);
		da->attr.attr.mode = 0444;
		da->attr.show = mrc_rail_drop_show;
		da->why = i;
		mrc_rail_drop_attr_ptrs[n++] = &da->attr.attr;
	}
}

/**
 * mrc_sysfs_init() - create /sys/kernel/mrc: knobs, stats, rails/
 *
 * Return: 0 or -errno (nothing is left behind).
 */
int mrc_sysfs_init(void)
{
	int err;

	mrc_sysfs_build_attrs();

	mrc_kobj = kobject_create_and_add("mrc", kernel_kobj);
	if (!mrc_kobj)
		return -ENOMEM;
	err = sysfs_create_group(mrc_kobj, &mrc_knob_group);
	if (err)
		goto err_kobj;
	err = sysfs_create_group(mrc_kobj, &mrc_mod_stat_group);
	if (err)
		goto err_knobs;
	mrc_rails_kset = kset_create_and_add("rails", NULL, mrc_kobj);
	if (!mrc_rails_kset) {
		err = -ENOMEM;
		goto err_stats;
	}
	return 0;

err_stats:
	sysfs_remove_group(mrc_kobj, &mrc_mod_stat_group);
err_knobs:
	sysfs_remove_group(mrc_kobj, &mrc_knob_group);
err_kobj:
	kobject_put(mrc_kobj);
	return err;
}

/**
 * mrc_sysfs_exit() - remove /sys/kernel/mrc
 */
void mrc_sysfs_exit(void)
{
	kset_unregister(mrc_rails_kset);
	sysfs_remove_group(mrc_kobj, &mrc_mod_stat_group);
	sysfs_remove_group(mrc_kobj, &mrc_knob_group);
	kobject_put(mrc_kobj);
}
