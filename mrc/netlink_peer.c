// SPDX-License-Identifier: GPL-2.0
/*
 * netlink_peer.c - the peer objects of the mrc generic netlink family:
 * a peer, its paths and its credit state as netlink attributes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#include "mrc.h"
#include "peer.h"
#include "schedcfg.h"
#include "ud.h"
#include "peer_int.h"
#include "netlink_int.h"
#include "credit_peer.h"

static u8 mrc_uapi_path_state(const struct mrc_peer_link *link,
			      unsigned int i)
{
	if (!link->ah)
		return MRC_PATH_STATE_UNRESOLVED;
	return link->paths[i].p.state;
}

/**
 * mrc_peer_fill_path() - put one PATH nest
 * @skb: the netlink message
 * @link: the path's link
 * @i: the path's index in @link
 * @prev: its previous state for an event, or < 0 for none
 *
 * Context: peer->lock held.
 *
 * Return: 0, or -EMSGSIZE if @skb is full.
 */
int mrc_peer_fill_path(struct sk_buff *skb, struct mrc_peer_link *link,
		       unsigned int i, int prev)
{
	const struct mrc_path *p = &link->paths[i].p;
	struct mrc_path_params pp;
	struct nlattr *nest;

	lockdep_assert_held(&link->peer->lock);
	mrc_peer_path_params(&pp);
	nest = nla_nest_start(skb, MRC_PEER_A_PATH);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MRC_PATH_A_PLANE, link->plane) ||
	    nla_put_u32(skb, MRC_PATH_A_ENTROPY, i) ||
	    nla_put_u8(skb, MRC_PATH_A_STATE, mrc_uapi_path_state(link, i)))
		goto cancel;
	if (prev >= 0 && nla_put_u8(skb, MRC_PATH_A_PREV_STATE, prev))
		goto cancel;
	if (link->ah &&
	    (nla_put_string(skb, MRC_PATH_A_RAIL, link->rail->name) ||
	     nla_put_u32(skb, MRC_PATH_A_LOCAL_QPN,
			 mrc_ud_qpn(link->rail->ud, i)) ||
	     nla_put_u32(skb, MRC_PATH_A_REMOTE_QPN,
			 link->paths[i].remote_qpn) ||
	     nla_put_u32(skb, MRC_PATH_A_RTO_US,
			 div_u64(mrc_path_rto(p, &pp), NSEC_PER_USEC)) ||
	     nla_put_u32(skb, MRC_PATH_A_INFLIGHT, p->inflight_pkts) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_TX_PKTS, p->stats.tx_pkts,
			       MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_ACKED_PKTS,
			       p->stats.acked_pkts, MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_LOST_PKTS, p->stats.lost_pkts,
			       MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_PROBES, p->stats.probes,
			       MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_REPLIES, p->stats.replies,
			       MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_TIMEOUTS, p->stats.timeouts,
			       MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_STATE_CHANGES,
			       p->stats.state_changes, MRC_PATH_A_PAD)))
		goto cancel;
	if (link->ah && mrc_rtt_valid(&p->rtt) &&
	    nla_put_u32(skb, MRC_PATH_A_SRTT_US,
			div_u64(p->rtt.srtt_ns, NSEC_PER_USEC)))
		goto cancel;
	/* sched: load and weight of the path */
	if (link->ah &&
	    (nla_put_u64_64bit(skb, MRC_PATH_A_INFLIGHT_BYTES,
			       p->inflight_bytes, MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_TX_BYTES, p->stats.tx_bytes,
			       MRC_PATH_A_PAD) ||
	     nla_put_u32(skb, MRC_PATH_A_WEIGHT,
			 mrc_schedcfg_weight(p->local_rail))))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* The MRC_PEER_A_CREDIT nest of @peer: 0, or -EMSGSIZE if @skb is full. */
static int mrc_credit_peer_fill(struct sk_buff *skb, struct mrc_peer *peer)
{
	u64 v[__MRC_CREDIT_STAT_MAX] = {};
	struct nlattr *nest;
	unsigned int s;

	mrc_credit_peer_stats(peer, v);
	nest = nla_nest_start(skb, MRC_PEER_A_CREDIT);
	if (!nest)
		return -EMSGSIZE;
	for (s = MRC_CREDIT_STAT_PAD + 1; s < __MRC_CREDIT_STAT_MAX; s++)
		if (nla_put_u64_64bit(skb, s, v[s], MRC_CREDIT_STAT_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	nla_nest_end(skb, nest);
	return 0;
}

/**
 * mrc_peer_fill() - put a PEER nest
 * @skb: the netlink message
 * @peer: the peer; the caller holds a reference
 *
 * Return: 0, or -EMSGSIZE if @skb is full.
 */
int mrc_peer_fill(struct sk_buff *skb, struct mrc_peer *peer)
{
	struct nlattr *nest, *addrs;
	unsigned int l, i, active = 0;
	u64 fallbacks, explores;
	u32 floor_ns;
	u8 policy;
	int err = -EMSGSIZE;

	nest = nla_nest_start(skb, MRC_A_PEER);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MRC_PEER_A_NODE, peer->node_id) ||
	    nla_put_u8(skb, MRC_PEER_A_KEYED, !!peer->key))
		goto cancel;
	/* sched: the peer's policy and scheduler counters */
	spin_lock_bh(&peer->lock);
	policy = peer->mp.policy;
	fallbacks = peer->mp.sched.fallbacks;
	explores = peer->mp.sched.explores;
	floor_ns = mrc_msg_loss_floor_ns(&peer->mp, ktime_get_ns());
	spin_unlock_bh(&peer->lock);
	if ((policy != MRC_SCHED_POLICY_GLOBAL &&
	     nla_put_u32(skb, MRC_PEER_A_POLICY, policy)) ||
	    nla_put_u32(skb, MRC_PEER_A_POLICY_NOW,
			policy < MRC_SCHED_POLICY_NR ? policy :
			mrc_knob(MRC_KNOB_sched_policy)) ||
	    nla_put_u64_64bit(skb, MRC_PEER_A_FALLBACKS, fallbacks,
			      MRC_PEER_A_PAD) ||
	    nla_put_u64_64bit(skb, MRC_PEER_A_EXPLORES, explores,
			      MRC_PEER_A_PAD) ||
	    nla_put_u32(skb, MRC_PEER_A_LOSS_FLOOR_US,
			floor_ns / NSEC_PER_USEC))
		goto cancel;
	addrs = nla_nest_start(skb, MRC_PEER_A_ADDRS);
	if (!addrs)
		goto cancel;
	for (l = 0; l < peer->nlinks; l++) {
		const struct sockaddr_storage *ss = &peer->links[l].dst;

		if (ss->ss_family == AF_INET ?
		    nla_put_in_addr(skb, MRC_PEER_A_ADDR,
				    ((struct sockaddr_in *)ss)->sin_addr.s_addr) :
		    nla_put_in6_addr(skb, MRC_PEER_A_ADDR,
				     &((struct sockaddr_in6 *)ss)->sin6_addr))
			goto cancel;
	}
	nla_nest_end(skb, addrs);

	spin_lock_bh(&peer->lock);
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];
		unsigned int n = link->ah ? link->npaths : 1;

		for (i = 0; i < n; i++) {
			if (link->ah && mrc_path_in_spray_set(&link->paths[i].p))
				active++;
			if (mrc_peer_fill_path(skb, link, i, -1))
				goto unlock;
		}
	}
	err = 0;
unlock:
	spin_unlock_bh(&peer->lock);
	if (err || nla_put_u32(skb, MRC_PEER_A_PATHS_ACTIVE, active))
		goto cancel;
	if (mrc_credit_peer_fill(skb, peer))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* ---- requests ---- */

static int mrc_nl_parse_peer(struct genl_info *info,
			     struct nlattr *tb[MRC_PEER_A_MAX + 1])
{
	int err;

	err = mrc_nl_parse_nest(info, MRC_A_PEER, tb, MRC_PEER_A_MAX,
				mrc_peer_policy,
				"peer nest (MRC_A_PEER) missing");
	if (err)
		return err;
	if (!tb[MRC_PEER_A_NODE]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_PEER],
				    "peer node id (MRC_PEER_A_NODE) missing");
		return -EINVAL;
	}
	/* A key is given once, at peer add; elsewhere it would be ignored. */
	if (tb[MRC_PEER_A_KEY] && info->genlhdr->cmd != MRC_CMD_PEER_ADD) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_PEER_A_KEY],
				    "a key is given only with peer add");
		return -EINVAL;
	}
	return 0;
}

static int mrc_nl_parse_addrs(const struct nlattr *nest,
			      struct sockaddr_storage *addrs,
			      struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	int rem, n = 0;

	nla_for_each_nested(a, nest, rem) {
		struct sockaddr_storage *ss = &addrs[n];

		if (nla_type(a) != MRC_PEER_A_ADDR) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "only MRC_PEER_A_ADDR in ADDRS");
			return -EINVAL;
		}
		if (n == MRC_PEER_MAX_ADDRS) {
			NL_SET_ERR_MSG_ATTR(extack, a, "too many addresses");
			return -E2BIG;
		}
		memset(ss, 0, sizeof(*ss));
		if (nla_len(a) == 4) {
			struct sockaddr_in *sin = (struct sockaddr_in *)ss;

			sin->sin_family = AF_INET;
			sin->sin_port = htons(MRC_CM_PORT);
			sin->sin_addr.s_addr = nla_get_in_addr(a);
			if (ipv4_is_zeronet(sin->sin_addr.s_addr) ||
			    ipv4_is_multicast(sin->sin_addr.s_addr) ||
			    ipv4_is_lbcast(sin->sin_addr.s_addr)) {
				NL_SET_ERR_MSG_ATTR(extack, a,
						    "not a unicast address");
				return -EINVAL;
			}
		} else if (nla_len(a) == 16) {
			struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

			sin6->sin6_family = AF_INET6;
			sin6->sin6_port = htons(MRC_CM_PORT);
			sin6->sin6_addr = nla_get_in6_addr(a);
			if (ipv6_addr_type(&sin6->sin6_addr) &
			    (IPV6_ADDR_MULTICAST | IPV6_ADDR_ANY)) {
				NL_SET_ERR_MSG_ATTR(extack, a,
						    "not a unicast address");
				return -EINVAL;
			}
		} else {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "address must be 4 (IPv4) or 16 (IPv6) bytes");
			return -EINVAL;
		}
		n++;
	}
	if (!n) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "no address given");
		return -EINVAL;
	}
	return n;
}

/**
 * mrc_nl_peer_add_doit() - MRC_CMD_PEER_ADD: a peer and its addresses
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 or -errno (with extack).
 */
int mrc_nl_peer_add_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sockaddr_storage addrs[MRC_PEER_MAX_ADDRS];
	struct nlattr *tb[MRC_PEER_A_MAX + 1], *key;
	int err, n;

	err = mrc_nl_parse_peer(info, tb);
	if (err)
		return err;
	if (!tb[MRC_PEER_A_ADDRS]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_PEER],
				    "peer addresses (MRC_PEER_A_ADDRS) missing");
		return -EINVAL;
	}
	n = mrc_nl_parse_addrs(tb[MRC_PEER_A_ADDRS], addrs, info->extack);
	if (n < 0)
		return n;
	key = tb[MRC_PEER_A_KEY];
	return mrc_peer_add(nla_get_u32(tb[MRC_PEER_A_NODE]), addrs, n,
			    key ? nla_data(key) : NULL, key ? nla_len(key) : 0,
			    info->extack);
}

/**
 * mrc_nl_peer_del_doit() - MRC_CMD_PEER_DEL: remove a peer
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 or -errno (with extack).
 */
int mrc_nl_peer_del_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[MRC_PEER_A_MAX + 1];
	int err;

	err = mrc_nl_parse_peer(info, tb);
	if (err)
		return err;
	return mrc_peer_del(nla_get_u32(tb[MRC_PEER_A_NODE]), info->extack);
}

/* The most a PATH nest takes (mrc_peer_fill_path()), longest rail name. */
static size_t mrc_nl_path_size(void)
{
	return nla_total_size(0) +			/* the nest */
	       4 * nla_total_size(sizeof(u32)) +	/* plane, entropy,
							 * state, prev_state
							 */
	       nla_total_size(MRC_RAIL_NAME_MAX) +	/* rail */
	       6 * nla_total_size(sizeof(u32)) +	/* qpns, rto, inflight,
							 * srtt, weight
							 */
	       9 * nla_total_size_64bit(sizeof(u64));	/* counters, bytes */
}

/**
 * mrc_nl_peer_size() - the most a PEER_GET message of a peer takes
 * @nlinks: the peer's links (addresses), 1..MRC_PEER_MAX_ADDRS
 *
 * What mrc_peer_fill() can put, with every link resolved with the most
 * QPs the entropy knob allows and the longest rail names, so that the
 * answer never fails with -EMSGSIZE: 8 links x 24 paths take about
 * 60 KB, more than the 32 KiB a netlink dump is given by default.
 *
 * Return: the payload size for genlmsg_new() (header included).
 */
size_t mrc_nl_peer_size(unsigned int nlinks)
{
	size_t paths = (size_t)nlinks * mrc_knobs[MRC_KNOB_entropy].max;

	return GENL_HDRLEN +
	       nla_total_size(0) +			/* MRC_A_PEER */
	       6 * nla_total_size(sizeof(u32)) +	/* node, policies,
							 * paths_active,
							 * loss_floor_us,
							 * keyed (a u8 takes
							 * as much)
							 */
	       2 * nla_total_size_64bit(sizeof(u64)) +	/* fallbacks, explores */
	       nla_total_size(0) +			/* ADDRS */
	       nlinks * nla_total_size(sizeof(struct in6_addr)) +
	       paths * mrc_nl_path_size() +
	       nla_total_size(0) +			/* CREDIT */
	       __MRC_CREDIT_STAT_MAX * nla_total_size_64bit(sizeof(u64));
}

/**
 * mrc_nl_peer_get_start() - MRC_CMD_PEER_GET dump: before the first part
 * @cb: the dump's state
 *
 * A dump's messages are 32 KiB at most unless the family asks for more;
 * one peer's message must fit in one, so ask for the largest
 * (mrc_nl_peer_size()).  A reader needs a receive buffer that large
 * (mrcctl's is 64 KiB).
 *
 * Return: 0.
 */
int mrc_nl_peer_get_start(struct netlink_callback *cb)
{
	cb->min_dump_alloc = nlmsg_total_size(mrc_nl_peer_size(MRC_PEER_MAX_ADDRS));
	return 0;
}

/**
 * mrc_nl_peer_get_doit() - MRC_CMD_PEER_GET of one peer
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 (the reply is sent) or -errno (with extack).
 */
int mrc_nl_peer_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[MRC_PEER_A_MAX + 1];
	struct mrc_peer *peer;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = mrc_nl_parse_peer(info, tb);
	if (err)
		return err;
	peer = mrc_peer_get(nla_get_u32(tb[MRC_PEER_A_NODE]));
	if (!peer) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_PEER_A_NODE],
				    "no such peer");
		return -ENOENT;
	}
	err = -ENOMEM;
	msg = genlmsg_new(mrc_nl_peer_size(peer->nlinks), GFP_KERNEL);
	if (!msg)
		goto put;
	hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0,
				MRC_CMD_PEER_GET);
	err = -EMSGSIZE;
	if (!hdr || mrc_peer_fill(msg, peer)) {
		nlmsg_free(msg);
		goto put;
	}
	genlmsg_end(msg, hdr);
	mrc_peer_put(peer);
	return genlmsg_reply(msg, info);
put:
	mrc_peer_put(peer);
	return err;
}

/**
 * mrc_nl_peer_get_dumpit() - MRC_CMD_PEER_GET dump: every peer
 * @skb: the reply being filled
 * @cb: the dump's state (args[0]: the next peer's index)
 *
 * Return: the bytes in @skb, 0 at the end, or -errno.
 */
int mrc_nl_peer_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mrc_peer *peer;
	void *hdr;
	int err;

	for (;; cb->args[0]++) {
		peer = mrc_peer_get_nth(cb->args[0]);
		if (!peer)
			break;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &mrc_genl_family,
				  NLM_F_MULTI, MRC_CMD_PEER_GET);
		err = hdr ? mrc_peer_fill(skb, peer) : -EMSGSIZE;
		mrc_peer_put(peer);
		if (err) {
			if (hdr)
				genlmsg_cancel(skb, hdr);
			/* A peer that fits in no message ends the dump. */
			return skb->len ?: err;
		}
		genlmsg_end(skb, hdr);
	}
	return skb->len;
}

/**
 * mrc_nl_peer_set_doit() - MRC_CMD_PEER_SET: a peer's own path policy
 * @skb: the request
 * @info: its attributes and extack
 *
 * Return: 0 or -errno (with extack).
 */
int mrc_nl_peer_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[MRC_PEER_A_MAX + 1];
	struct mrc_peer *peer;
	u32 pol;
	int err;

	err = mrc_nl_parse_peer(info, tb);
	if (err)
		return err;
	if (!tb[MRC_PEER_A_POLICY]) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[MRC_A_PEER],
				    "nothing to set (MRC_PEER_A_POLICY missing)");
		return -EINVAL;
	}
	pol = nla_get_u32(tb[MRC_PEER_A_POLICY]);
	if (pol >= MRC_SCHED_POLICY_NR && pol != MRC_SCHED_POLICY_GLOBAL) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_PEER_A_POLICY],
				    "unknown scheduling policy");
		return -EINVAL;
	}
	peer = mrc_peer_get(nla_get_u32(tb[MRC_PEER_A_NODE]));
	if (!peer) {
		NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_PEER_A_NODE],
				    "no such peer");
		return -ENOENT;
	}
	/* Live: the next tx_work run picks with it (msg.c, schedcfg.c). */
	spin_lock_bh(&peer->lock);
	peer->mp.policy = pol;
	spin_unlock_bh(&peer->lock);
	mrc_peer_put(peer);
	return 0;
}

/**
 * mrc_nl_key_set_doit() - MRC_CMD_KEY_SET: the cluster's default key
 * @skb: the request
 * @info: its attributes (MRC_A_KEY, or none to clear) and extack
 *
 * Return: 0 or -errno (with extack).
 */
int mrc_nl_key_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *key = info->attrs[MRC_A_KEY];

	return mrc_key_default_set(key ? nla_data(key) : NULL,
				   key ? nla_len(key) : 0, info->extack);
}

/**
 * mrc_nl_key_get_doit() - MRC_CMD_KEY_GET: is a default key set?
 * @skb: the request
 * @info: the request's info
 *
 * Return: 0 or -errno.
 */
int mrc_nl_key_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0,
				MRC_CMD_KEY_GET);
	if (!hdr || nla_put_u8(msg, MRC_A_KEYED, mrc_key_default_isset())) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}
