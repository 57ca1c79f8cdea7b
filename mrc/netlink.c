// SPDX-License-Identifier: GPL-2.0
/*
 * netlink.c - the generic netlink family "mrc".
 *
 * Spec: Documentation/netlink/specs/mrc.yaml.  Requests are validated
 * strictly (unknown attributes, wrong lengths and out-of-range knob values
 * are refused by the policy, with extack); state-changing commands need
 * CAP_NET_ADMIN (GENL_ADMIN_PERM).  Events go to the "events" group.
 *
 * The family lives in the initial network namespace only, like the rails.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <net/genetlink.h>

#include "mrc.h"
#include "peer.h"
#include "schedcfg.h"
#include "ud.h"
#include "netlink_int.h"

enum mrc_mcgrp {
	MRC_MCGRP_EVENTS_ID,
};

static const struct genl_multicast_group mrc_mcgrps[] = {
	[MRC_MCGRP_EVENTS_ID] = { .name = MRC_GENL_MCGRP_EVENTS },
};

/* Request policies. */

static struct netlink_range_validation mrc_rail_id_range = {
	.max = U16_MAX,		/* ids come from an IDA capped there */
};

static const struct nla_policy mrc_rail_policy[MRC_RAIL_A_MAX + 1] = {
	[MRC_RAIL_A_ID]		= NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_rail_id_range),
	[MRC_RAIL_A_NAME]	= { .type = NLA_NUL_STRING,
				    .len = MRC_RAIL_NAME_MAX - 1 },
	/* range checked by RAIL_SET, with its own extack text */
	[MRC_RAIL_A_WEIGHT]	= { .type = NLA_U32 },
};

#define MRC_KNOB_RANGE(n, a, mi, ma, d, f, u, h)			\
	static struct netlink_range_validation mrc_range_##n = {	\
		.min = mi, .max = ma,					\
	};
MRC_CONFIG_KNOBS(MRC_KNOB_RANGE)
#undef MRC_KNOB_RANGE

static const struct nla_policy mrc_config_policy[MRC_CONFIG_A_MAX + 1] = {
#define MRC_KNOB_POLICY(n, a, mi, ma, d, f, u, h)			\
	[a] = NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_range_##n),
	MRC_CONFIG_KNOBS(MRC_KNOB_POLICY)
#undef MRC_KNOB_POLICY
};

static struct netlink_range_validation mrc_node_range = {
	.min = 1,
	.max = 0x7fffffff,
};

/* ADDRS holds repeated ADDR attributes: checked by mrc_nl_parse_addrs(). */
const struct nla_policy mrc_peer_policy[MRC_PEER_A_MAX + 1] = {
	[MRC_PEER_A_NODE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_node_range),
	[MRC_PEER_A_ADDRS]	= { .type = NLA_NESTED },
	[MRC_PEER_A_POLICY]	= { .type = NLA_U32 },	/* PEER_SET checks */
	/* 16..64 bytes: mrc_peer_key_set() checks, with its extack text */
	[MRC_PEER_A_KEY]	= { .type = NLA_BINARY },
};

/* RAILS holds repeated RAIL strings: checked by mrc_nl_class_set_doit(). */
static const struct nla_policy mrc_class_policy[MRC_CLASS_A_MAX + 1] = {
	[MRC_CLASS_A_ID]	= { .type = NLA_U32 },	/* checked, extack */
	[MRC_CLASS_A_RAILS]	= { .type = NLA_NESTED },
	[MRC_CLASS_A_ALL]	= { .type = NLA_FLAG },
};

static const struct nla_policy mrc_policy[MRC_A_MAX + 1] = {
	[MRC_A_RAIL]	= NLA_POLICY_NESTED(mrc_rail_policy),
	[MRC_A_CONFIG]	= NLA_POLICY_NESTED(mrc_config_policy),
	[MRC_A_PEER]	= NLA_POLICY_NESTED(mrc_peer_policy),
	[MRC_A_CLASS]	= NLA_POLICY_NESTED(mrc_class_policy),
	/* 16..64 bytes: mrc_key_default_set() checks, with its extack */
	[MRC_A_KEY]	= { .type = NLA_BINARY },
};

/* ---- message builders ---- */

static int mrc_nl_put_rail(struct sk_buff *skb, struct mrc_rail *rail,
			   int prev_state, bool stats)
{
	struct mrc_rail_info info;
	struct nlattr *nest, *snest;
	unsigned int s;

	mrc_rail_get_info(rail, &info);

	nest = nla_nest_start(skb, MRC_A_RAIL);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MRC_RAIL_A_ID, rail->id) ||
	    nla_put_string(skb, MRC_RAIL_A_NAME, rail->name) ||
	    nla_put_string(skb, MRC_RAIL_A_IBDEV, rail->ibdev_name) ||
	    nla_put_u32(skb, MRC_RAIL_A_PORT, rail->port) ||
	    nla_put_u8(skb, MRC_RAIL_A_LINK_LAYER, info.link_layer) ||
	    nla_put_u32(skb, MRC_RAIL_A_MTU, info.mtu) ||
	    nla_put_u32(skb, MRC_RAIL_A_SPEED, info.speed) ||
	    nla_put_u8(skb, MRC_RAIL_A_STATE, info.state) ||
	    nla_put_u32(skb, MRC_RAIL_A_QPS, rail->ud ? rail->ud->nqp : 0) ||
	    nla_put_u32(skb, MRC_RAIL_A_WEIGHT, mrc_schedcfg_weight(rail->id)))
		goto cancel;
	if (info.ifindex &&
	    (nla_put_string(skb, MRC_RAIL_A_NETDEV, info.netdev) ||
	     nla_put_u32(skb, MRC_RAIL_A_IFINDEX, info.ifindex)))
		goto cancel;
	if (info.has_gid &&
	    (nla_put(skb, MRC_RAIL_A_GID, sizeof(info.gid.raw),
		     info.gid.raw) ||
	     nla_put_u32(skb, MRC_RAIL_A_GID_INDEX, info.gid_index)))
		goto cancel;
	if (prev_state >= 0 &&
	    nla_put_u8(skb, MRC_RAIL_A_PREV_STATE, prev_state))
		goto cancel;

	if (stats) {
		snest = nla_nest_start(skb, MRC_RAIL_A_STATS);
		if (!snest)
			goto cancel;
		for (s = MRC_RAIL_STAT_UNSPEC + 1; s <= MRC_RAIL_STAT_MAX; s++)
			if (s != MRC_RAIL_STAT_PAD &&
			    nla_put_u64_64bit(skb, s,
					      mrc_rail_stat_read(rail, s),
					      MRC_RAIL_STAT_PAD))
				goto cancel;
		nla_nest_end(skb, snest);

		snest = nla_nest_start(skb, MRC_RAIL_A_DROPS);
		if (!snest)
			goto cancel;
		for (s = MRC_DROP_NONE + 1; s < MRC_DROP_NR; s++)
			if (nla_put_u64_64bit(skb, s,
					      mrc_rail_drops_read(rail, s),
					      MRC_DROP_NONE))
				goto cancel;
		nla_nest_end(skb, snest);
	}
	nla_nest_end(skb, nest);
	return 0;

cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* Puts the knobs whose bit is set in @mask. */
static int mrc_nl_put_config(struct sk_buff *skb, unsigned long mask)
{
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, MRC_A_CONFIG);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < MRC_KNOB_NR; i++) {
		if (!(mask & BIT(i)))
			continue;
		if (nla_put_u32(skb, mrc_knobs[i].attr, mrc_knob(i))) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * mrc_nl_parse_nest() - parse a request's top-level nest
 * @info: the request
 * @type: the nest's attribute, which must be present
 * @tb: where its attributes go
 * @maxtype: the highest attribute of @policy
 * @policy: the nest's policy
 * @missing: the extack's text (static) if the nest is missing
 *
 * Return: 0 or -errno (with extack).
 */
int mrc_nl_parse_nest(struct genl_info *info, int type, struct nlattr **tb,
		      int maxtype, const struct nla_policy *policy,
		      const char *missing)
{
	if (GENL_REQ_ATTR_CHECK(info, type)) {
		if (info->extack)
			info->extack->_msg = missing;
		return -EINVAL;
	}
	return nla_parse_nested(tb, maxtype, info->attrs[type], policy,
				info->extack);
}

/* ---- rail get ---- */

static int mrc_nl_rail_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[MRC_RAIL_A_MAX + 1];
	struct mrc_rail *rail;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = mrc_nl_parse_nest(info, MRC_A_RAIL, tb, MRC_RAIL_A_MAX,
				mrc_rail_policy,
				"rail nest (MRC_A_RAIL) missing");
	if (err)
		return err;
	if (!tb[MRC_RAIL_A_ID] == !tb[MRC_RAIL_A_NAME]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_RAIL],
				    "give the rail's id or its name (one of them)");
		return -EINVAL;
	}

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0,
				MRC_CMD_RAIL_GET);
	if (!hdr) {
		err = -EMSGSIZE;
		goto err_free;
	}

	mutex_lock(&mrc_rails_lock);
	rail = mrc_rail_find_locked(tb[MRC_RAIL_A_ID] ?
				    nla_get_u32(tb[MRC_RAIL_A_ID]) : 0,
				    tb[MRC_RAIL_A_NAME] ?
				    nla_data(tb[MRC_RAIL_A_NAME]) : NULL);
	if (!rail) {
		mutex_unlock(&mrc_rails_lock);
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[MRC_RAIL_A_NAME] ?: tb[MRC_RAIL_A_ID],
				    "no such rail");
		err = -ENODEV;
		goto err_free;
	}
	err = mrc_nl_put_rail(msg, rail, -1, true);
	mutex_unlock(&mrc_rails_lock);
	if (err)
		goto err_free;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err_free:
	nlmsg_free(msg);
	return err;
}

static int mrc_nl_rail_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	long skip = cb->args[0], idx = 0;
	struct mrc_rail *rail;
	int err = 0;

	mutex_lock(&mrc_rails_lock);
	cb->seq = mrc_rails_gen;
	list_for_each_entry(rail, &mrc_rails, node) {
		void *hdr;

		if (idx < skip) {
			idx++;
			continue;
		}
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &mrc_genl_family,
				  NLM_F_MULTI, MRC_CMD_RAIL_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		err = mrc_nl_put_rail(skb, rail, -1, true);
		if (err) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		idx++;
	}
	mutex_unlock(&mrc_rails_lock);
	cb->args[0] = idx;

	/* A full skb ends this round; the core calls us again. */
	if (err == -EMSGSIZE && idx > skip)
		return skb->len;
	return err ?: skb->len;
}

/* ---- config ---- */

static int mrc_nl_config_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0,
				MRC_CMD_CONFIG_GET);
	if (!hdr || mrc_nl_put_config(msg, MRC_KNOB_ALL)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int mrc_nl_config_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	const struct mrc_knob *knobs[MRC_KNOB_NR];
	struct nlattr *tb[MRC_CONFIG_A_MAX + 1];
	struct nlattr *attrs[MRC_KNOB_NR];
	unsigned int i, n = 0, bad;
	u64 vals[MRC_KNOB_NR];
	const char *why;
	int err;

	err = mrc_nl_parse_nest(info, MRC_A_CONFIG, tb, MRC_CONFIG_A_MAX,
				mrc_config_policy,
				"config nest (MRC_A_CONFIG) missing");
	if (err)
		return err;

	for (i = MRC_CONFIG_A_UNSPEC + 1; i <= MRC_CONFIG_A_MAX; i++) {
		const struct mrc_knob *k;

		if (!tb[i])
			continue;
		k = mrc_knob_by_attr(i);
		if (WARN_ON_ONCE(!k))
			return -EINVAL;
		knobs[n] = k;
		attrs[n] = tb[i];
		vals[n] = nla_get_u32(tb[i]);
		n++;
	}
	if (!n) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_CONFIG],
				    "no knob given to set");
		return -EINVAL;
	}

	err = mrc_config_set(knobs, vals, n, &why, &bad);
	if (err && info->extack) {
		/* why is a static string from mrc_knob_check() */
		info->extack->_msg = why;
		info->extack->bad_attr = attrs[bad];
	}
	return err;
}

/* ---- scheduling: rail weights, classes, peer policy ---- */

/* extack with a static reason from schedcfg.c / sched.c. */
static void mrc_nl_why(struct netlink_ext_ack *extack,
		       const struct nlattr *attr, const char *why)
{
	if (extack) {
		extack->_msg = why;
		extack->bad_attr = attr;
	}
}

static int mrc_nl_rail_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[MRC_RAIL_A_MAX + 1];
	struct mrc_rail *rail;
	const char *why;
	int err;

	err = mrc_nl_parse_nest(info, MRC_A_RAIL, tb, MRC_RAIL_A_MAX,
				mrc_rail_policy,
				"rail nest (MRC_A_RAIL) missing");
	if (err)
		return err;
	if (!tb[MRC_RAIL_A_ID] == !tb[MRC_RAIL_A_NAME]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_RAIL],
				    "give the rail's id or its name (one of them)");
		return -EINVAL;
	}
	if (!tb[MRC_RAIL_A_WEIGHT]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_RAIL],
				    "nothing to set (MRC_RAIL_A_WEIGHT missing)");
		return -EINVAL;
	}
	mutex_lock(&mrc_rails_lock);
	rail = mrc_rail_find_locked(tb[MRC_RAIL_A_ID] ?
				    nla_get_u32(tb[MRC_RAIL_A_ID]) : 0,
				    tb[MRC_RAIL_A_NAME] ?
				    nla_data(tb[MRC_RAIL_A_NAME]) : NULL);
	if (!rail) {
		mutex_unlock(&mrc_rails_lock);
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[MRC_RAIL_A_NAME] ?: tb[MRC_RAIL_A_ID],
				    "no such rail");
		return -ENODEV;
	}
	err = mrc_schedcfg_set_weight(rail->id,
				      nla_get_u32(tb[MRC_RAIL_A_WEIGHT]),
				      &why);
	mutex_unlock(&mrc_rails_lock);
	if (err)
		mrc_nl_why(info->extack, tb[MRC_RAIL_A_WEIGHT], why);
	return err;
}

static int mrc_nl_parse_class(struct genl_info *info,
			      struct nlattr *tb[MRC_CLASS_A_MAX + 1],
			      bool need_id)
{
	int err;

	err = mrc_nl_parse_nest(info, MRC_A_CLASS, tb, MRC_CLASS_A_MAX,
				mrc_class_policy,
				"class nest (MRC_A_CLASS) missing");
	if (err)
		return err;
	if (!tb[MRC_CLASS_A_ID]) {
		if (!need_id)
			return 0;
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_CLASS],
				    "traffic class (MRC_CLASS_A_ID) missing");
		return -EINVAL;
	}
	if (nla_get_u32(tb[MRC_CLASS_A_ID]) >= MRC_SCHED_CLASS_NR) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_CLASS_A_ID],
				    "unknown traffic class (latency, bulk, background, default)");
		return -EINVAL;
	}
	return 0;
}

/* Puts one CLASS nest; under mrc_rails_lock (rail names). */
static int mrc_nl_put_class(struct sk_buff *skb, u32 cls)
{
	u64 mask = mrc_schedcfg_class(cls);
	struct nlattr *nest, *rails;
	struct mrc_rail *rail;

	lockdep_assert_held(&mrc_rails_lock);
	nest = nla_nest_start(skb, MRC_A_CLASS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MRC_CLASS_A_ID, cls) ||
	    nla_put_string(skb, MRC_CLASS_A_NAME, mrc_sched_class_name(cls)))
		goto cancel;
	if (mask != MRC_SCHED_RAILS_ALL) {
		rails = nla_nest_start(skb, MRC_CLASS_A_RAILS);
		if (!rails)
			goto cancel;
		list_for_each_entry(rail, &mrc_rails, node)
			if (rail->id < MRC_SCHED_MAX_RAILS &&
			    (mask & BIT_ULL(rail->id)) &&
			    nla_put_string(skb, MRC_CLASS_A_RAIL, rail->name))
				goto cancel;
		nla_nest_end(skb, rails);
	}
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int mrc_nl_class_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[MRC_CLASS_A_MAX + 1];
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = mrc_nl_parse_class(info, tb, true);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0,
				MRC_CMD_CLASS_GET);
	mutex_lock(&mrc_rails_lock);
	err = hdr ? mrc_nl_put_class(msg, nla_get_u32(tb[MRC_CLASS_A_ID])) :
		    -EMSGSIZE;
	mutex_unlock(&mrc_rails_lock);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int mrc_nl_class_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	int err = 0;

	mutex_lock(&mrc_rails_lock);
	for (; cb->args[0] < MRC_SCHED_CLASS_NR; cb->args[0]++) {
		void *hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
					cb->nlh->nlmsg_seq, &mrc_genl_family,
					NLM_F_MULTI, MRC_CMD_CLASS_GET);

		err = hdr ? mrc_nl_put_class(skb, cb->args[0]) : -EMSGSIZE;
		if (err) {
			if (hdr)
				genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	mutex_unlock(&mrc_rails_lock);
	return err && !skb->len ? err : skb->len;
}

/*
 * CLASS_SET: every rail named must exist and have an id below 64, and
 * at least one of them must be ACTIVE now (a class mapped to no live
 * rail is refused; rails that die later make the class fall back).
 */
static int mrc_nl_class_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[MRC_CLASS_A_MAX + 1];
	struct netlink_ext_ack *extack = info->extack;
	const struct nlattr *a;
	struct mrc_rail *rail;
	unsigned int live = 0;
	u64 mask = 0;
	const char *why;
	int err, rem;

	err = mrc_nl_parse_class(info, tb, true);
	if (err)
		return err;
	if (!tb[MRC_CLASS_A_RAILS] == !tb[MRC_CLASS_A_ALL]) {
		NL_SET_ERR_MSG_ATTR(extack, info->attrs[MRC_A_CLASS],
				    "give the class's rails or ALL (one of them)");
		return -EINVAL;
	}
	if (tb[MRC_CLASS_A_ALL]) {
		err = mrc_schedcfg_set_class(nla_get_u32(tb[MRC_CLASS_A_ID]),
					     MRC_SCHED_RAILS_ALL, &why);
		if (err)
			mrc_nl_why(extack, tb[MRC_CLASS_A_ALL], why);
		return err;
	}
	mutex_lock(&mrc_rails_lock);
	nla_for_each_nested(a, tb[MRC_CLASS_A_RAILS], rem) {
		struct mrc_rail_info ri;
		char name[MRC_RAIL_NAME_MAX];

		if (nla_type(a) != MRC_CLASS_A_RAIL) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "only MRC_CLASS_A_RAIL in RAILS");
			err = -EINVAL;
			goto unlock;
		}
		if (nla_strscpy(name, a, sizeof(name)) < 0) {
			NL_SET_ERR_MSG_ATTR(extack, a, "rail name too long");
			err = -EINVAL;
			goto unlock;
		}
		rail = mrc_rail_find_locked(0, name);
		if (!rail) {
			NL_SET_ERR_MSG_ATTR(extack, a, "no such rail");
			err = -ENODEV;
			goto unlock;
		}
		if (rail->id >= MRC_SCHED_MAX_RAILS) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "rail id above 63 cannot be in a class");
			err = -EINVAL;
			goto unlock;
		}
		mask |= BIT_ULL(rail->id);
		mrc_rail_get_info(rail, &ri);
		if (ri.state == MRC_RAIL_STATE_ACTIVE)
			live++;
	}
	if (!mask) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MRC_CLASS_A_RAILS],
				    "traffic class mapped to no rail");
		err = -EINVAL;
		goto unlock;
	}
	if (!live) {
		NL_SET_ERR_MSG_ATTR(extack, tb[MRC_CLASS_A_RAILS],
				    "traffic class mapped to no live rail (none is active)");
		err = -ENETDOWN;
		goto unlock;
	}
	err = mrc_schedcfg_set_class(nla_get_u32(tb[MRC_CLASS_A_ID]), mask,
				     &why);
	if (err)
		mrc_nl_why(extack, tb[MRC_CLASS_A_RAILS], why);
unlock:
	mutex_unlock(&mrc_rails_lock);
	return err;
}

static const struct genl_small_ops mrc_genl_ops[] = {
	{
		.cmd	= MRC_CMD_RAIL_GET,
		.doit	= mrc_nl_rail_get_doit,
		.dumpit	= mrc_nl_rail_get_dumpit,
	},
	{
		.cmd	= MRC_CMD_CONFIG_GET,
		.doit	= mrc_nl_config_get_doit,
	},
	{
		.cmd	= MRC_CMD_CONFIG_SET,
		.doit	= mrc_nl_config_set_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= MRC_CMD_PEER_ADD,
		.doit	= mrc_nl_peer_add_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= MRC_CMD_PEER_DEL,
		.doit	= mrc_nl_peer_del_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= MRC_CMD_CLASS_GET,
		.doit	= mrc_nl_class_get_doit,
		.dumpit	= mrc_nl_class_get_dumpit,
	},
	{
		.cmd	= MRC_CMD_CLASS_SET,
		.doit	= mrc_nl_class_set_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= MRC_CMD_RAIL_SET,
		.doit	= mrc_nl_rail_set_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= MRC_CMD_PEER_SET,
		.doit	= mrc_nl_peer_set_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= MRC_CMD_KEY_SET,
		.doit	= mrc_nl_key_set_doit,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= MRC_CMD_KEY_GET,
		.doit	= mrc_nl_key_get_doit,
	},
};

/*
 * Commands that need more than a small op: PEER_GET's dump asks for
 * messages large enough for one peer (mrc_nl_peer_get_start()).  The
 * family's policy applies, as for the small ops.
 */
static const struct genl_ops mrc_genl_full_ops[] = {
	{
		.cmd	= MRC_CMD_PEER_GET,
		.doit	= mrc_nl_peer_get_doit,
		.start	= mrc_nl_peer_get_start,
		.dumpit	= mrc_nl_peer_get_dumpit,
	},
};

struct genl_family mrc_genl_family __ro_after_init = {
	.name		= MRC_GENL_NAME,
	.version	= MRC_GENL_VERSION,
	.maxattr	= MRC_A_MAX,
	.policy		= mrc_policy,
	.netnsok	= false,
	.module		= THIS_MODULE,
	.ops		= mrc_genl_full_ops,
	.n_ops		= ARRAY_SIZE(mrc_genl_full_ops),
	.small_ops	= mrc_genl_ops,
	.n_small_ops	= ARRAY_SIZE(mrc_genl_ops),
	.mcgrps		= mrc_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(mrc_mcgrps),
};

/* ---- events ---- */

/*
 * Events: mrc_nl_event_new() starts one (NULL if nobody listens, or on
 * allocation failure, which is counted); the caller fills it and hands it
 * with its fill result to mrc_nl_event_send(), which counts failures.
 */
static struct sk_buff *mrc_nl_event_new(size_t size, u8 cmd, gfp_t gfp,
					void **hdr)
{
	struct sk_buff *msg;

	if (!genl_has_listeners(&mrc_genl_family, &init_net,
				MRC_MCGRP_EVENTS_ID))
		return NULL;
	msg = genlmsg_new(size, gfp);
	*hdr = msg ? genlmsg_put(msg, 0, 0, &mrc_genl_family, 0, cmd) : NULL;
	if (!*hdr) {
		nlmsg_free(msg);
		mrc_mod_stat_inc(MRC_MOD_STAT_NOTIFY_FAILED);
		return NULL;
	}
	return msg;
}

static void mrc_nl_event_send(struct sk_buff *msg, void *hdr, int fill_err,
			      gfp_t gfp)
{
	int err = fill_err;

	if (fill_err) {
		nlmsg_free(msg);
	} else {
		genlmsg_end(msg, hdr);
		err = genlmsg_multicast(&mrc_genl_family, msg, 0,
					MRC_MCGRP_EVENTS_ID, gfp);
	}
	/* -ESRCH only means nobody listens. */
	if (err && err != -ESRCH)
		mrc_mod_stat_inc(MRC_MOD_STAT_NOTIFY_FAILED);
}

/**
 * mrc_nl_rail_event() - multicast a rail event
 * @rail: the rail
 * @cmd: MRC_CMD_RAIL_ADDED, MRC_CMD_RAIL_REMOVED or MRC_CMD_RAIL_STATE
 * @prev_state: the state before, for MRC_CMD_RAIL_STATE
 *
 * Context: process (GFP_KERNEL).
 */
void mrc_nl_rail_event(struct mrc_rail *rail, u8 cmd, u8 prev_state)
{
	struct sk_buff *msg;
	void *hdr;

	int prev = cmd == MRC_CMD_RAIL_STATE ? prev_state : -1;

	msg = mrc_nl_event_new(NLMSG_GOODSIZE, cmd, GFP_KERNEL, &hdr);
	if (msg)
		mrc_nl_event_send(msg, hdr,
				  mrc_nl_put_rail(msg, rail, prev, false),
				  GFP_KERNEL);
}

/**
 * mrc_nl_config_event() - multicast changed knobs
 * @changed: the knobs to send: bit (1 << enum mrc_knob_id) set
 *
 * Context: process (GFP_KERNEL).
 */
void mrc_nl_config_event(unsigned long changed)
{
	struct sk_buff *msg;
	void *hdr;

	msg = mrc_nl_event_new(NLMSG_GOODSIZE, MRC_CMD_CONFIG_CHANGED,
			       GFP_KERNEL, &hdr);
	if (msg)
		mrc_nl_event_send(msg, hdr, mrc_nl_put_config(msg, changed),
				  GFP_KERNEL);
}

/**
 * mrc_nl_peer_event() - multicast a peer event
 * @peer: the peer, referenced
 * @cmd: MRC_CMD_PEER_ADDED or MRC_CMD_PEER_REMOVED
 *
 * Context: process (GFP_KERNEL).
 */
void mrc_nl_peer_event(struct mrc_peer *peer, u8 cmd)
{
	struct sk_buff *msg;
	void *hdr;

	msg = mrc_nl_event_new(mrc_nl_peer_size(peer->nlinks), cmd, GFP_KERNEL,
			       &hdr);
	if (msg)
		mrc_nl_event_send(msg, hdr, mrc_peer_fill(msg, peer),
				  GFP_KERNEL);
}

/**
 * mrc_nl_path_event() - multicast that a path changed state
 * @peer: the path's peer
 * @link: the path's link
 * @i: the path's index in @link
 * @prev: its state before
 *
 * Context: any, peer->lock held (GFP_ATOMIC).
 */
void mrc_nl_path_event(struct mrc_peer *peer, struct mrc_peer_link *link,
		       unsigned int i, u8 prev)
{
	struct nlattr *nest;
	struct sk_buff *msg;
	void *hdr;
	int err = -EMSGSIZE;

	lockdep_assert_held(&peer->lock);
	msg = mrc_nl_event_new(NLMSG_GOODSIZE, MRC_CMD_PATH_STATE,
			       GFP_ATOMIC, &hdr);
	if (!msg)
		return;
	nest = nla_nest_start(msg, MRC_A_PEER);
	if (nest && !nla_put_u32(msg, MRC_PEER_A_NODE, peer->node_id) &&
	    !mrc_peer_fill_path(msg, link, i, prev)) {
		nla_nest_end(msg, nest);
		err = 0;
	}
	mrc_nl_event_send(msg, hdr, err, GFP_ATOMIC);
}

/**
 * mrc_nl_class_event() - multicast a class fallback event
 * @node: the peer whose traffic it is
 * @cls: the class
 * @fallback: true: class @cls's traffic to @node now falls back to rails
 *	outside its set; false: it is back on its own rails
 *
 * Context: any (GFP_ATOMIC).
 */
void mrc_nl_class_event(u32 node, u32 cls, bool fallback)
{
	struct nlattr *nest;
	struct sk_buff *msg;
	void *hdr;
	int err = -EMSGSIZE;

	msg = mrc_nl_event_new(NLMSG_GOODSIZE, MRC_CMD_CLASS_FALLBACK,
			       GFP_ATOMIC, &hdr);
	if (!msg)
		return;
	nest = nla_nest_start(msg, MRC_A_CLASS);
	if (nest && !nla_put_u32(msg, MRC_CLASS_A_ID, cls) &&
	    !nla_put_string(msg, MRC_CLASS_A_NAME, mrc_sched_class_name(cls)) &&
	    !nla_put_u32(msg, MRC_CLASS_A_NODE, node) &&
	    !nla_put_u8(msg, MRC_CLASS_A_FALLBACK, fallback)) {
		nla_nest_end(msg, nest);
		err = 0;
	}
	mrc_nl_event_send(msg, hdr, err, GFP_ATOMIC);
}

/**
 * mrc_nl_init() - register the mrc generic netlink family
 *
 * Return: 0 or genl_register_family()'s error.
 */
int mrc_nl_init(void)
{
	return genl_register_family(&mrc_genl_family);
}

/**
 * mrc_nl_exit() - unregister the mrc generic netlink family
 */
void mrc_nl_exit(void)
{
	genl_unregister_family(&mrc_genl_family);
}
