/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netlink_int.h - what the files of the mrc generic netlink family
 * (netlink.c: the family, rails, config, classes, events;
 * netlink_peer.c: peers) share; internal to them.
 */
#ifndef _MRC_NETLINK_INT_H
#define _MRC_NETLINK_INT_H

#include <net/genetlink.h>

extern struct genl_family mrc_genl_family;
extern const struct nla_policy mrc_peer_policy[MRC_PEER_A_MAX + 1];

int mrc_nl_parse_nest(struct genl_info *info, int type, struct nlattr **tb,
		      int maxtype, const struct nla_policy *policy,
		      const char *missing);

/* netlink_peer.c */
int mrc_nl_peer_add_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_peer_del_doit(struct sk_buff *skb, struct genl_info *info);
size_t mrc_nl_peer_size(unsigned int nlinks);
int mrc_nl_peer_get_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_peer_get_start(struct netlink_callback *cb);
int mrc_nl_peer_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int mrc_nl_peer_set_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_key_set_doit(struct sk_buff *skb, struct genl_info *info);
int mrc_nl_key_get_doit(struct sk_buff *skb, struct genl_info *info);

#endif /* _MRC_NETLINK_INT_H */
