// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz_nl.c - the netlink half of nlfuzz: random requests to the "mrc"
 * generic netlink family, built from the spec's tables (nlfuzz_spec.h):
 * every operation (events and unknown numbers too), as do and as dump,
 * with the attributes of its request and of the sets they nest, values at
 * and beyond the spec's checks, wrong types and lengths, nests without
 * NLA_F_NESTED, attributes missing, repeated, unknown or from another
 * set, truncated attributes and headers, several requests in one send,
 * dumps abandoned half read.  Every reply and event is checked against
 * the spec (each attribute known in its set, of its type's length,
 * strings terminated, nests well formed).
 *
 * What is changed stays harmless to the fabric the check afterwards
 * needs: peer-add and peer-del only name the fuzz peers (node ids
 * FUZZ_BASE..+7, none of them a real node; their addresses may be the
 * real peer's, a node that does not exist, or no unicast address at
 * all) or this node's own id (refused unless every address is one of
 * this host's: then the node is its own peer until the cleanup deletes
 * it), the real peer is never deleted (a request that could is
 * rewritten before it is sent), the node-id knob is only ever set to its
 * own value (or to one that must be refused), and the state the run may
 * change (knobs, rail weights, classes, the real peer's policy, the
 * default key) is put back by nf_nl_restore(): every --restore-ms, and at
 * the end, once the fuzz peers and this node's own peer are deleted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/mrc.h>

#include "nlfuzz.h"
#include "nlfuzz_spec.h"

#define NF_TXBUF	16384
#define NF_RXBUF	(128 * 1024)
#define NF_REPLY_S	30	/* no reply this long: an anomaly */
#define NF_MAX_RAILS	16

/* What the run started with, put back by nf_nl_restore(). */
static struct {
	uint16_t family;
	uint32_t knob[MRC_CONFIG_A_MAX + 1];
	bool have_knob[MRC_CONFIG_A_MAX + 1];
	unsigned int nrails;
	uint32_t rail_id[NF_MAX_RAILS];
	uint32_t rail_weight[NF_MAX_RAILS];
	char rail_name[NF_MAX_RAILS][MRC_RAIL_NAME_MAX];
	bool keyed;
	uint32_t mcgrp;
} base;

struct nl_ctx {
	struct mnl_socket *nl;
	unsigned int seq;
	struct nf_rng rng;
	char *tx, *rx;
	const char *opname;		/* for anomaly messages */
	bool clean;			/* this request: no mutation */
};

/* A mutation, one time in @n, never in a clean request. */
static bool mut(struct nl_ctx *c, uint32_t n)
{
	return !c->clean && nf_one_in(&c->rng, n);
}

/* ---- spec lookups ---- */

static const struct nf_attr *set_attr(int set, const char *name)
{
	int i;

	for (i = 0; i < nf_sets[set].n; i++)
		if (!strcmp(nf_sets[set].attrs[i].name, name))
			return &nf_sets[set].attrs[i];
	return NULL;
}

static const struct nf_attr *set_attr_id(int set, unsigned int id)
{
	int i;

	for (i = 0; i < nf_sets[set].n; i++)
		if (nf_sets[set].attrs[i].id == id)
			return &nf_sets[set].attrs[i];
	return NULL;
}

static int set_index(const char *name)
{
	int i;

	for (i = 0; i < NF_NSETS; i++)
		if (!strcmp(nf_sets[i].name, name))
			return i;
	return -1;
}

static const struct nf_op *op_of(unsigned int cmd)
{
	int i;

	for (i = 0; i < NF_NOPS; i++)
		if (nf_ops[i].cmd == cmd)
			return &nf_ops[i];
	return NULL;
}

/**
 * nf_nl_op_name() - the spec's name of a command number
 * @cmd: command number
 *
 * Return: its name, or NULL if the spec has no such command.
 */
const char *nf_nl_op_name(unsigned int cmd)
{
	const struct nf_op *op = op_of(cmd);

	return op ? op->name : NULL;
}

/* ---- checking what the kernel sends: against the spec ---- */

static void check_attrs(struct nl_ctx *c, const void *data, int len, int set,
			int depth)
{
	const struct nlattr *a = data;

	while (len >= (int)sizeof(*a)) {
		unsigned int alen = a->nla_len, type = a->nla_type & NLA_TYPE_MASK;
		const struct nf_attr *at = set_attr_id(set, type);
		unsigned int plen = alen - NLA_HDRLEN;
		const char *p = (const char *)a + NLA_HDRLEN;
		int want = -1;

		if (alen < NLA_HDRLEN || (int)alen > len) {
			nf_anomaly("%s: attribute %u of set %s: nla_len %u, %d bytes left",
				   c->opname, type, nf_sets[set].name, alen, len);
			return;
		}
		if (!at || at->type == NF_UNUSED) {
			nf_anomaly("%s: attribute %u not in set %s",
				   c->opname, type, nf_sets[set].name);
		} else {
			switch (at->type) {
			case NF_FLAG: want = 0; break;
			case NF_U8: want = 1; break;
			case NF_U16: want = 2; break;
			case NF_U32: want = 4; break;
			case NF_U64: want = 8; break;
			default: break;
			}
			if (want >= 0 && (int)plen != want)
				nf_anomaly("%s: %s.%s is %u bytes, want %d",
					   c->opname, nf_sets[set].name,
					   at->name, plen, want);
			if (at->type == NF_STRING &&
			    (!plen || p[plen - 1] || strlen(p) + 1 != plen))
				nf_anomaly("%s: %s.%s not one NUL-terminated string",
					   c->opname, nf_sets[set].name,
					   at->name);
			if (at->type == NF_NEST && depth < 8)
				check_attrs(c, p, plen, at->nest, depth + 1);
		}
		len -= NLA_ALIGN(alen);
		a = (const void *)((const char *)a + NLA_ALIGN(alen));
	}
	if (len > 0 && len < (int)sizeof(*a))
		nf_anomaly("%s: %d stray bytes after the attributes of set %s",
			   c->opname, len, nf_sets[set].name);
}

/* A message of the family (a reply or an event): known command, attrs. */
static void check_msg(struct nl_ctx *c, const struct nlmsghdr *h, bool event)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(h);
	const struct nf_op *op;

	if (h->nlmsg_len < NLMSG_HDRLEN + GENL_HDRLEN) {
		nf_anomaly("%s: message of %u bytes", c->opname, h->nlmsg_len);
		return;
	}
	op = op_of(g->cmd);
	if (!op || (event && !op->event)) {
		nf_anomaly("%s: %s with command %u", c->opname,
			   event ? "event" : "reply", g->cmd);
		return;
	}
	check_attrs(c, (const char *)g + GENL_HDRLEN,
		    h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN, NF_TOP_SET, 0);
}

/* ---- sockets ---- */

static struct mnl_socket *nl_open(struct nf_rng *r)
{
	struct timeval tv = { .tv_sec = NF_REPLY_S };
	struct mnl_socket *nl;
	int v;

	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl)
		return NULL;
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(nl);
		return NULL;
	}
	/* Extended and capped ACKs on or off: both reply paths. */
	v = r ? (int)nf_below(r, 2) : 1;
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &v, sizeof(v));
	v = r ? (int)nf_below(r, 2) : 1;
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &v, sizeof(v));
	setsockopt(mnl_socket_get_fd(nl), SOL_SOCKET, SO_RCVTIMEO, &tv,
		   sizeof(tv));
	return nl;
}

/*
 * Reads until @acks requests are answered (an error/ACK or a dump's
 * DONE each).  Returns the first request's errno (0 if it succeeded), or
 * -1 if the socket failed.
 */
static int nl_wait(struct nl_ctx *c, unsigned int acks, uint32_t seq0,
		   bool check)
{
	int first = -2, n;

	while (acks) {
		struct nlmsghdr *h;

		n = recv(mnl_socket_get_fd(c->nl), c->rx, NF_RXBUF, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			if (errno == EAGAIN)
				nf_anomaly("%s: no reply within %d s",
					   c->opname, NF_REPLY_S);
			return -1;
		}
		for (h = (struct nlmsghdr *)c->rx; mnl_nlmsg_ok(h, n);
		     h = mnl_nlmsg_next(h, &n)) {
			int err = 0;

			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);

				err = -e->error;
			} else if (h->nlmsg_type == NLMSG_DONE) {
				if (h->nlmsg_len >= NLMSG_HDRLEN + sizeof(int))
					err = -*(int *)mnl_nlmsg_get_payload(h);
			} else {
				if (check && h->nlmsg_type == base.family)
					check_msg(c, h, false);
				continue;
			}
			if (first == -2 && h->nlmsg_seq == seq0)
				first = err;
			if (acks)
				acks--;
		}
	}
	return first < 0 ? 0 : first;
}

/* ---- building requests ---- */

struct req {
	struct nlmsghdr *nlh;
	size_t size;		/* room in the buffer */
};

static const char *rail_name(struct nf_rng *r)
{
	static const char *const odd[] = {
		"nosuchdev:1", "rxe0:0", "rxe0:99", "rxe0", ":1", "",
		"rxe0:1:1", "rxe0:4294967297",
	};

	if (base.nrails && !nf_one_in(r, 4))
		return base.rail_name[nf_below(r, base.nrails)];
	return odd[nf_below(r, sizeof(odd) / sizeof(odd[0]))];
}

static uint32_t node_value(struct nf_rng *r)
{
	switch (nf_below(r, 10)) {
	case 0: return nf_cfg.node;
	case 1: return nf_cfg.peer;
	case 2: return 0;
	case 3: return 0x80000000u;
	case 4: return nf_cfg.fuzz_base - 1;	/* never added */
	case 5: return (uint32_t)nf_rand(r);
	default: return nf_cfg.fuzz_base + nf_below(r, NF_FUZZ_PEERS);
	}
}

/* An address for a fuzz peer: a real node's, absent, or no unicast. */
static unsigned int addr_value(struct nf_rng *r, unsigned char *a)
{
	static const char *const v4[] = {
		"10.200.0.200", "10.200.1.200", "127.0.0.1", "0.0.0.0",
		"224.0.0.1", "255.255.255.255", "10.200.0.255", "10.200.9.9",
	};
	static const char *const v6[] = {
		"::1", "::", "::ffff:10.200.0.2", "fe80::1", "ff02::1",
		"fd00::1",
	};
	unsigned int n;

	switch (nf_below(r, 8)) {
	case 0: case 1: case 2:
		if (nf_cfg.npeer_addr) {
			memcpy(a, &nf_cfg.peer_addr[nf_below(r, nf_cfg.npeer_addr)], 4);
			return 4;
		}
		/* fall through */
	case 3: case 4:
		inet_pton(AF_INET, v4[nf_below(r, 8)], a);
		return 4;
	case 5:
		inet_pton(AF_INET6, v6[nf_below(r, 6)], a);
		return 16;
	default:
		n = nf_below(r, 33);
		for (unsigned int i = 0; i < n; i++)
			a[i] = nf_rand(r);
		return n;
	}
}

static uint64_t int_value(struct nl_ctx *c, const struct nf_attr *at)
{
	struct nf_rng *r = &c->rng;

	static const uint64_t odd[] = {
		0, 1, 2, 0xff, 0x100, 0xffff, 0x10000, 0x7fffffff,
		0x80000000, 0xfffffffe, 0xffffffff, 4294, 4295, 17179,
		17180, 1000000, 0x100000000ULL, ~0ULL,
	};

	if (c->clean) {		/* in range; small without a range */
		if (at->nenum)
			return nf_below(r, at->nenum);
		if (!at->has_min && !at->has_max)
			return nf_below(r, nf_one_in(r, 4) ? 256 : 101);
	}
	switch (c->clean ? 0 : nf_below(r, 8)) {
	case 0: case 1:
		if (at->has_min || at->has_max) {
			long long lo = at->has_min ? at->min : 0;
			long long hi = at->has_max ? at->max : lo + 1000;

			return lo + nf_rand(r) % (uint64_t)(hi - lo + 1);
		}
		break;
	case 2:
		if (at->has_min)
			return at->min - nf_below(r, 2);
		break;
	case 3:
		if (at->has_max)
			return at->max + nf_below(r, 2);
		break;
	case 4:
		if (at->nenum)
			return nf_below(r, at->nenum + 2);
		break;
	case 5:
		return nf_rand(r);
	default:
		break;
	}
	return odd[nf_below(r, sizeof(odd) / sizeof(odd[0]))];
}

static bool put(struct req *q, uint16_t type, size_t len, const void *data)
{
	return mnl_attr_put_check(q->nlh, q->size, type, len, data);
}

static void put_nest(struct nl_ctx *c, struct req *q, const struct nf_attr *at,
		     int depth, const struct nf_op *op);

/* Puts one attribute: usually of its own type, sometimes not. */
static void put_attr(struct nl_ctx *c, struct req *q, const struct nf_attr *at,
		     int depth, const struct nf_op *op)
{
	struct nf_rng *r = &c->rng;
	unsigned char b[256] = {};
	enum nf_type t = at->type;
	uint16_t type = at->id;
	unsigned int len = 0, i;
	uint64_t v;

	if (mut(c, 12))		/* another type's shape */
		t = (enum nf_type)(NF_FLAG + nf_below(r, NF_NEST - NF_FLAG + 1));
	if (mut(c, 40))
		type |= NLA_F_NET_BYTEORDER;

	if (!strcmp(at->name, "node") && t == at->type) {
		v = node_value(r);
		put(q, type, 4, &v);
		return;
	}
	if (!strcmp(at->name, "policy") && t == at->type && !nf_one_in(r, 4)) {
		v = nf_one_in(r, 5) ? NF_CONST_SCHED_POLICY_GLOBAL : nf_below(r, 5);
		put(q, type, 4, &v);
		return;
	}
	if (!strcmp(at->name, "addr") && t == at->type) {
		len = addr_value(r, b);
		put(q, type, len, b);
		return;
	}
	if (!strcmp(at->name, "rail") && t == NF_STRING &&
	    at->type == NF_STRING) {
		const char *s = rail_name(r);

		put(q, type, strlen(s) + 1, s);
		return;
	}

	switch (t) {
	case NF_UNUSED:
	case NF_PAD:
	case NF_BINARY:
		if (at->max_len && c->clean)
			len = at->min_len + nf_below(r, at->max_len - at->min_len + 1);
		else if (at->max_len && nf_below(r, 2))
			len = nf_below(r, 2) && at->min_len ?
				at->min_len - nf_below(r, 2) :
				at->max_len + nf_below(r, 2);
		else
			len = nf_below(r, nf_one_in(r, 8) ? sizeof(b) : 33);
		if (len > sizeof(b))
			len = sizeof(b);
		for (i = 0; i < len; i++)
			b[i] = nf_rand(r);
		put(q, type, len, b);
		break;
	case NF_FLAG:
		put(q, type, mut(c, 4) ? nf_below(r, 9) : 0, b);
		break;
	case NF_U8: case NF_U16: case NF_U32: case NF_U64:
		v = int_value(c, at);
		len = t == NF_U8 ? 1 : t == NF_U16 ? 2 : t == NF_U32 ? 4 : 8;
		if (t == NF_U8) {
			uint8_t x = v;

			put(q, type, 1, &x);
		} else if (t == NF_U16) {
			uint16_t x = v;

			put(q, type, 2, &x);
		} else if (t == NF_U32) {
			uint32_t x = v;

			put(q, type, 4, &x);
		} else {
			put(q, type, 8, &v);
		}
		break;
	case NF_STRING:
		if (at->type == NF_STRING && !strcmp(at->name, "name") &&
		    nf_below(r, 2)) {
			const char *s = rail_name(r);

			put(q, type, strlen(s) + 1, s);
			break;
		}
		len = c->clean || nf_below(r, 4) ? 1 + nf_below(r, 20) :
			at->max_len ? at->max_len + nf_below(r, 3) :
				      nf_below(r, sizeof(b));
		if (len > sizeof(b))
			len = sizeof(b);
		for (i = 0; i < len; i++)
			b[i] = 'a' + nf_below(r, 26);
		if (len && !mut(c, 6))
			b[len - 1] = 0;		/* else: no terminator */
		put(q, type, len, b);
		break;
	case NF_NEST:
		if (at->type == NF_NEST) {
			put_nest(c, q, at, depth, op);
		} else {
			struct nlattr *n = mnl_attr_nest_start_check(q->nlh, q->size,
								     type);

			if (n)
				mnl_attr_nest_end(q->nlh, n);
		}
		break;
	}
}

/* Attributes of a set that requests use (by name); others are refused. */
static bool favoured(const char *set, const char *name)
{
	static const char *const fav[] = {
		"rail.id", "rail.name", "rail.weight", "peer.node",
		"peer.addrs", "peer.policy", "peer.key", "class.id",
		"class.rails", "class.all", "peer-addrs.addr",
		"class-rails.rail",
	};
	char full[64];
	unsigned int i;

	if (!strcmp(set, "config"))
		return true;
	snprintf(full, sizeof(full), "%s.%s", set, name);
	for (i = 0; i < sizeof(fav) / sizeof(fav[0]); i++)
		if (!strcmp(fav[i], full))
			return true;
	return false;
}

static void put_nest(struct nl_ctx *c, struct req *q, const struct nf_attr *at,
		     int depth, const struct nf_op *op)
{
	const struct nf_set *s = &nf_sets[at->nest];
	struct nf_rng *r = &c->rng;
	bool any = mut(c, 4);
	struct nlattr *n;
	int i, k, reps;

	n = mnl_attr_nest_start_check(q->nlh, q->size, at->id);
	if (!n)
		return;
	if (mut(c, 16))
		n->nla_type &= ~NLA_F_NESTED;
	if (depth < 4 && !mut(c, 16)) {
		for (i = 0; i < s->n; i++) {
			const struct nf_attr *a = &s->attrs[i];

			if (!any && !favoured(s->name, a->name))
				continue;
			if (c->clean &&
			    (a->type == NF_UNUSED || a->type == NF_PAD))
				continue;
			/* config: a few knobs; others: most favoured ones */
			if (!strcmp(s->name, "config") ? !nf_one_in(r, 6) :
			    nf_one_in(r, 3))
				continue;
			reps = a->multi ? 1 + nf_below(r, nf_one_in(r, 4) ?
						       NF_CONST_PEER_MAX_ADDRS + 3 : 3) :
					  nf_one_in(r, 20) ? 2 : 1;
			for (k = 0; k < reps; k++)
				put_attr(c, q, a, depth + 1, op);
		}
	}
	if (mut(c, 12)) {		/* unknown, or another set's */
		const struct nf_set *o = &nf_sets[nf_below(r, NF_NSETS)];

		if (nf_below(r, 2))
			put_attr(c, q, &o->attrs[nf_below(r, o->n)], depth + 1, op);
		else
			put(q, s->maxid + 1 + nf_below(r, 4), 4, &c->seq);
	}
	mnl_attr_nest_end(q->nlh, n);
}

/*
 * Rewrites what the request must never do: delete the real peer (a u32
 * of the peer nest's node number equal to its id, in peer-del), add a
 * peer that is no fuzz peer (peer-add), or set this node's id to another
 * valid one (config-set).
 */
static void sanitize(const struct nlmsghdr *nlh, uint8_t cmd)
{
	static int peer_set = -1, config_set, node_id, peer_node;
	const struct nlattr *a, *b;

	if (peer_set < 0) {
		peer_set = set_index("peer");
		config_set = set_index("config");
		node_id = set_attr(config_set, "node-id")->id;
		peer_node = set_attr(peer_set, "node")->id;
	}
	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		unsigned int type = mnl_attr_get_type(a);

		if (mnl_attr_get_payload_len(a) < NLA_HDRLEN)
			continue;
		mnl_attr_for_each_nested(b, a) {
			uint32_t *v = mnl_attr_get_payload(b);
			unsigned int bt = mnl_attr_get_type(b);

			if (mnl_attr_get_payload_len(b) < 4)
				continue;
			if (cmd == MRC_CMD_PEER_DEL && type == MRC_A_PEER &&
			    bt == (unsigned int)peer_node && *v == nf_cfg.peer)
				*v = nf_cfg.fuzz_base;
			/*
			 * Only fuzz peers are added, or our own id (not
			 * while --node-id changes it): refused unless every
			 * address is local (the cleanup deletes that peer);
			 * the real peer's id is refused.
			 */
			if (cmd == MRC_CMD_PEER_ADD && type == MRC_A_PEER &&
			    bt == (unsigned int)peer_node && *v &&
			    *v <= 0x7fffffff &&
			    (*v != nf_cfg.node || nf_cfg.node_id) &&
			    *v != nf_cfg.peer && (*v < nf_cfg.fuzz_base ||
			    *v >= nf_cfg.fuzz_base + NF_FUZZ_PEERS))
				*v = nf_cfg.fuzz_base + *v % NF_FUZZ_PEERS;
			if (cmd == MRC_CMD_CONFIG_SET && type == MRC_A_CONFIG &&
			    bt == (unsigned int)node_id && *v <= 0x7fffffff &&
			    !nf_cfg.node_id)
				*v = nf_cfg.node;
		}
	}
}

/* One request of @op (or of an unknown command) into @q. */
static bool build(struct nl_ctx *c, struct req *q, const struct nf_op *op,
		  uint8_t cmd, bool dump)
{
	struct nf_rng *r = &c->rng;
	struct genlmsghdr *g;
	int i;

	q->nlh = mnl_nlmsg_put_header(q->nlh);
	q->nlh->nlmsg_type = base.family;
	q->nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK |
			      (dump ? NLM_F_DUMP : 0);
	if (mut(c, 20))
		q->nlh->nlmsg_flags |= nf_rand(r) & 0xff0;
	q->nlh->nlmsg_seq = ++c->seq;
	g = mnl_nlmsg_put_extra_header(q->nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = mut(c, 20) ? nf_below(r, 256) : MRC_GENL_VERSION;
	g->reserved = mut(c, 30) ? nf_rand(r) : 0;

	if (op) {
		for (i = 0; i < op->nreq; i++) {
			if (mut(c, 8))
				continue;	/* missing */
			put_attr(c, q, set_attr_id(NF_TOP_SET, op->req[i]), 0, op);
		}
	}
	if (!op || mut(c, op->nreq ? 8 : 3)) {	/* extra attributes */
		const struct nf_set *s = &nf_sets[NF_TOP_SET];

		for (i = nf_below(r, 3); i >= 0; i--) {
			if (nf_one_in(r, 6))
				put(q, s->maxid + 1 + nf_below(r, 4), 4, &c->seq);
			else
				put_attr(c, q, &s->attrs[nf_below(r, s->n)], 0, op);
		}
	}
	sanitize(q->nlh, cmd);
	return true;
}

/* Corrupts a built request: a length that lies, a short header. */
static void corrupt(struct nl_ctx *c, struct nlmsghdr *nlh)
{
	struct nf_rng *r = &c->rng;
	unsigned int hdr = NLMSG_HDRLEN + GENL_HDRLEN;

	switch (nf_below(r, 3)) {
	case 0:	/* message shorter than the genl header */
		nlh->nlmsg_len = NLMSG_HDRLEN + nf_below(r, GENL_HDRLEN);
		break;
	case 1:	/* first attribute claims more than there is */
		if (nlh->nlmsg_len >= hdr + NLA_HDRLEN) {
			struct nlattr *a = (void *)((char *)nlh + hdr);

			a->nla_len = nlh->nlmsg_len - hdr + 4 + nf_below(r, 64);
		}
		break;
	default: /* message cut in the middle of an attribute */
		if (nlh->nlmsg_len > hdr + 2)
			nlh->nlmsg_len = hdr + nf_below(r, nlh->nlmsg_len - hdr);
		break;
	}
}

/* ---- one step of a netlink worker ---- */

static void nl_step(struct nl_ctx *c)
{
	struct nf_rng *r = &c->rng;
	const struct nf_op *op = NULL;
	unsigned int stat, nreq = 1, k, off = 0;
	uint32_t seq0;
	bool dump;
	uint8_t cmd;
	int err;

	if (nf_one_in(r, 16)) {
		cmd = nf_one_in(r, 2) ? NF_NOPS + nf_below(r, 8) :
					nf_below(r, 256);
		op = op_of(cmd);
	} else {
		op = &nf_ops[nf_below(r, NF_NOPS)];
		/* events and unspec are refused at once: a quarter as often */
		if (!op->has_do && !nf_one_in(r, 4))
			op = &nf_ops[nf_below(r, NF_NOPS)];
		cmd = op->cmd;
	}
	c->clean = nf_below(r, 10) < 4;
	/* A changed default key cannot be put back: leave a keyed run alone. */
	if (base.keyed && cmd == MRC_CMD_KEY_SET)
		return;
	stat = op ? cmd : NF_ST_NL_BADCMD;
	c->opname = op ? op->name : "unknown command";
	dump = op && op->has_dump ? nf_one_in(r, 3) : mut(c, 20);
	if (mut(c, 12))
		nreq = 2 + nf_below(r, 3);	/* several in one send */

	seq0 = c->seq + 1;
	for (k = 0; k < nreq; k++) {
		struct req q = {
			.nlh = (struct nlmsghdr *)(c->tx + off),
			.size = NF_TXBUF - off,
		};

		if (q.size < 512)
			break;
		if (k) {
			const struct nf_op *o = &nf_ops[nf_below(r, NF_NOPS)];

			if (base.keyed && o->cmd == MRC_CMD_KEY_SET)
				break;
			build(c, &q, o, o->cmd, false);
		} else {
			build(c, &q, op, cmd, dump);
		}
		off += NLMSG_ALIGN(q.nlh->nlmsg_len);
	}
	nreq = k;
	if (nreq == 1 && mut(c, 24)) {
		corrupt(c, (struct nlmsghdr *)c->tx);
		off = ((struct nlmsghdr *)c->tx)->nlmsg_len;
		if (off > NF_TXBUF)
			off = NF_TXBUF;
	}
	if (send(mnl_socket_get_fd(c->nl), c->tx, off, 0) < 0) {
		nf_count(stat, errno);
		return;
	}
	if (dump && nf_one_in(r, 10)) {
		/* Abandoned: the kernel's dump state goes with the socket. */
		if (nf_below(r, 2))
			recv(mnl_socket_get_fd(c->nl), c->rx, NF_RXBUF,
			     MSG_DONTWAIT);
		mnl_socket_close(c->nl);
		c->nl = nl_open(r);
		nf_count(NF_ST_NL_DUMP_ABANDON, 0);
		return;
	}
	err = nl_wait(c, nreq, seq0, true);
	if (err < 0) {
		mnl_socket_close(c->nl);
		c->nl = nl_open(r);
		return;
	}
	nf_count(stat, err);
}

/* Garbage: bytes that are not a well formed netlink message at all. */
static void nl_garbage(struct nl_ctx *c)
{
	struct nf_rng *r = &c->rng;
	unsigned int len = nf_below(r, 64), i;

	for (i = 0; i < len; i++)
		c->tx[i] = nf_rand(r);
	/* Only ever to this family (or netlink's own control types). */
	if (len >= NLMSG_HDRLEN && !nf_one_in(r, 4))
		((struct nlmsghdr *)c->tx)->nlmsg_type = base.family;
	else if (len >= NLMSG_HDRLEN)
		((struct nlmsghdr *)c->tx)->nlmsg_type = nf_below(r, NLMSG_MIN_TYPE);
	/* never a command that could delete the peer or change our id */
	if (len > NLMSG_HDRLEN &&
	    (c->tx[NLMSG_HDRLEN] == MRC_CMD_PEER_DEL ||
	     c->tx[NLMSG_HDRLEN] == MRC_CMD_CONFIG_SET))
		c->tx[NLMSG_HDRLEN] = MRC_CMD_CONFIG_GET;
	send(mnl_socket_get_fd(c->nl), c->tx, len, 0);
	/* whatever came back (maybe an error) is not waited for */
	recv(mnl_socket_get_fd(c->nl), c->rx, NF_RXBUF, MSG_DONTWAIT);
	nf_count(NF_ST_NL_GARBAGE, 0);
}

/**
 * nf_nl_thread() - a netlink worker: random requests until told to stop
 * @arg: the thread's index, as a uintptr_t (its random stream)
 *
 * Return: NULL.
 */
void *nf_nl_thread(void *arg)
{
	struct nl_ctx c = {};
	unsigned long n;

	nf_rng_init(&c.rng, (uintptr_t)arg);
	c.tx = calloc(1, NF_TXBUF);
	c.rx = malloc(NF_RXBUF);
	c.nl = nl_open(&c.rng);
	if (!c.tx || !c.rx || !c.nl) {
		nf_anomaly("netlink worker: no socket or memory");
		return NULL;
	}
	for (n = 0; !nf_stop && (!nf_cfg.count || n < nf_cfg.count); n++) {
		if (!c.nl && !(c.nl = nl_open(&c.rng)))
			break;
		/* The socket buffer drained of anything left. */
		while (recv(mnl_socket_get_fd(c.nl), c.rx, NF_RXBUF,
			    MSG_DONTWAIT) > 0)
			;
		if (nf_one_in(&c.rng, 100))
			nl_garbage(&c);
		else
			nl_step(&c);
	}
	if (c.nl)
		mnl_socket_close(c.nl);
	free(c.tx);
	free(c.rx);
	__atomic_add_fetch(&nf_done, 1, __ATOMIC_RELAXED);
	return NULL;
}

/**
 * nf_nl_events() - listens to the events group, checks every event
 * @arg: unused
 *
 * Return: NULL.
 */
void *nf_nl_events(void *arg)
{
	struct nl_ctx c = { .opname = "event" };
	struct timeval tv = { .tv_sec = 1 };	/* sees nf_stop */
	int n, grp = base.mcgrp;

	(void)arg;
	c.rx = malloc(NF_RXBUF);
	c.nl = nl_open(NULL);
	if (c.nl)
		setsockopt(mnl_socket_get_fd(c.nl), SOL_SOCKET, SO_RCVTIMEO,
			   &tv, sizeof(tv));
	if (!c.rx || !c.nl ||
	    mnl_socket_setsockopt(c.nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		nf_anomaly("events: cannot join group %d", grp);
		return NULL;
	}
	while (!nf_stop) {
		struct nlmsghdr *h;

		n = recv(mnl_socket_get_fd(c.nl), c.rx, NF_RXBUF, 0);
		if (n < 0) {
			if (errno == ENOBUFS)	/* we were slow: fine */
				nf_count(NF_ST_NL_EVENTS, ENOBUFS);
			continue;
		}
		for (h = (struct nlmsghdr *)c.rx; mnl_nlmsg_ok(h, n);
		     h = mnl_nlmsg_next(h, &n)) {
			check_msg(&c, h, true);
			nf_count(NF_ST_NL_EVENTS, 0);
		}
	}
	mnl_socket_close(c.nl);
	free(c.rx);
	return NULL;
}

/* ---- the builder checked offline ---- */

/* What a built request may not do to the fabric: see sanitize(). */
static bool harmful(const struct nlmsghdr *nlh, uint8_t cmd)
{
	const struct nlattr *a, *b;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		unsigned int type = mnl_attr_get_type(a);

		if (mnl_attr_get_payload_len(a) < NLA_HDRLEN)
			continue;
		mnl_attr_for_each_nested(b, a) {
			uint32_t v = *(uint32_t *)mnl_attr_get_payload(b);
			unsigned int bt = mnl_attr_get_type(b);

			if (mnl_attr_get_payload_len(b) < 4)
				continue;
			if (type == MRC_A_PEER && bt == MRC_PEER_A_NODE &&
			    cmd == MRC_CMD_PEER_DEL && v == nf_cfg.peer)
				return true;
			if (type == MRC_A_PEER && bt == MRC_PEER_A_NODE &&
			    cmd == MRC_CMD_PEER_ADD && v && v <= 0x7fffffff &&
			    (v != nf_cfg.node || nf_cfg.node_id) &&
			    v != nf_cfg.peer &&
			    (v < nf_cfg.fuzz_base ||
			     v >= nf_cfg.fuzz_base + NF_FUZZ_PEERS))
				return true;
			if (type == MRC_A_CONFIG &&
			    bt == MRC_CONFIG_A_NODE_ID && cmd == MRC_CMD_CONFIG_SET &&
			    v <= 0x7fffffff && v != nf_cfg.node &&
			    !nf_cfg.node_id)
				return true;
		}
	}
	return false;
}

/**
 * nf_nl_selftest() - builds @n requests of every operation without a
 * kernel and checks them: none may delete the real peer, add a peer that
 * is no fuzz peer or change this node's id, and every clean request must
 * be as the spec says (the checks replies get)
 * @n: requests per operation and kind (clean, mutated)
 *
 * Return: the number of requests that failed a check (printed).
 */
int nf_nl_selftest(unsigned long n)
{
	struct nl_ctx c = { .opname = "clean request" };
	unsigned long i, bad = 0, a0;
	int k, clean;

	nf_rng_init(&c.rng, 3 * NF_MAX_THREADS);
	c.tx = calloc(1, NF_TXBUF);
	if (!c.tx)
		return 1;
	base.family = GENL_MIN_ID;
	for (k = 0; k < NF_NOPS; k++) {
		for (clean = 0; clean < 2; clean++) {
			for (i = 0; i < n; i++) {
				struct req q = {
					.nlh = (struct nlmsghdr *)c.tx,
					.size = NF_TXBUF,
				};
				const struct nlmsghdr *h = q.nlh;

				c.clean = clean;
				build(&c, &q, &nf_ops[k], nf_ops[k].cmd, false);
				if (harmful(h, nf_ops[k].cmd)) {
					if (bad++ < 10)
						printf("# %s request harmful\n",
						       nf_ops[k].name);
				}
				if (!clean)
					continue;
				a0 = nf_anomalies();
				check_attrs(&c, (const char *)h + NLMSG_HDRLEN +
					    GENL_HDRLEN, h->nlmsg_len -
					    NLMSG_HDRLEN - GENL_HDRLEN,
					    NF_TOP_SET, 0);
				bad += nf_anomalies() != a0;
			}
		}
	}
	base.family = 0;
	free(c.tx);
	return bad;
}

/* ---- the state at the start, and putting it back ---- */

static int ctrl_attr(const struct nlattr *a, void *data)
{
	const struct nlattr *g, *x;

	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
		base.family = mnl_attr_get_u16(a);
	if (mnl_attr_get_type(a) != CTRL_ATTR_MCAST_GROUPS)
		return MNL_CB_OK;
	mnl_attr_for_each_nested(g, a) {
		uint32_t id = 0;
		const char *name = "";

		mnl_attr_for_each_nested(x, g) {
			if (mnl_attr_get_type(x) == CTRL_ATTR_MCAST_GRP_ID)
				id = mnl_attr_get_u32(x);
			if (mnl_attr_get_type(x) == CTRL_ATTR_MCAST_GRP_NAME)
				name = mnl_attr_get_str(x);
		}
		if (!strcmp(name, MRC_GENL_MCGRP_EVENTS))
			base.mcgrp = id;
	}
	(void)data;
	return MNL_CB_OK;
}

static int base_attr(const struct nlattr *a, void *data)
{
	const struct nlattr *x;
	unsigned int i = base.nrails;

	(void)data;
	switch (mnl_attr_get_type(a)) {
	case MRC_A_CONFIG:
		mnl_attr_for_each_nested(x, a) {
			unsigned int t = mnl_attr_get_type(x);

			if (t <= MRC_CONFIG_A_MAX) {
				base.knob[t] = mnl_attr_get_u32(x);
				base.have_knob[t] = true;
			}
		}
		break;
	case MRC_A_RAIL:
		if (i >= NF_MAX_RAILS)
			break;
		mnl_attr_for_each_nested(x, a) {
			if (mnl_attr_get_type(x) == MRC_RAIL_A_ID)
				base.rail_id[i] = mnl_attr_get_u32(x);
			if (mnl_attr_get_type(x) == MRC_RAIL_A_WEIGHT)
				base.rail_weight[i] = mnl_attr_get_u32(x);
			if (mnl_attr_get_type(x) == MRC_RAIL_A_NAME)
				snprintf(base.rail_name[i], MRC_RAIL_NAME_MAX,
					 "%s", mnl_attr_get_str(x));
		}
		base.nrails++;
		break;
	case MRC_A_KEYED:
		base.keyed = mnl_attr_get_u8(a);
		break;
	}
	return MNL_CB_OK;
}

/* A request with a callback for its replies; returns its errno. */
static int simple(struct mnl_socket *nl, struct nlmsghdr *nlh,
		  mnl_attr_cb_t cb)
{
	char buf[NF_RXBUF / 4];
	unsigned int portid = mnl_socket_get_portid(nl);
	int n;

	nlh->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return errno;
	for (;;) {
		struct nlmsghdr *h;

		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0)
			return errno;
		for (h = (struct nlmsghdr *)buf; mnl_nlmsg_ok(h, n);
		     h = mnl_nlmsg_next(h, &n)) {
			if (h->nlmsg_type == NLMSG_ERROR)
				return -((struct nlmsgerr *)mnl_nlmsg_get_payload(h))->error;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (cb)
				mnl_attr_parse(h, GENL_HDRLEN, cb, NULL);
		}
	}
	(void)portid;
}

static struct nlmsghdr *req(char *buf, uint16_t type, uint8_t cmd,
			    uint16_t flags)
{
	static unsigned int seq;
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = MRC_GENL_VERSION;
	return nlh;
}

/**
 * nf_nl_setup() - finds the family, records the state to put back
 *
 * Return: 0, or -1 (printed) if the family or its state cannot be read.
 */
int nf_nl_setup(void)
{
	char buf[4096];
	struct mnl_socket *nl = nl_open(NULL);
	struct nlmsghdr *nlh;
	int err;

	if (!nl) {
		perror("netlink socket");
		return -1;
	}
	nlh = req(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME);
	err = simple(nl, nlh, ctrl_attr);
	if (err || !base.family) {
		fprintf(stderr, "family %s: %s\n", MRC_GENL_NAME, strerror(err));
		mnl_socket_close(nl);
		return -1;
	}
	err = simple(nl, req(buf, base.family, MRC_CMD_CONFIG_GET, 0), base_attr);
	if (!err)
		err = simple(nl, req(buf, base.family, MRC_CMD_RAIL_GET,
				     NLM_F_DUMP), base_attr);
	if (!err)
		err = simple(nl, req(buf, base.family, MRC_CMD_KEY_GET, 0),
			     base_attr);
	mnl_socket_close(nl);
	if (err) {
		fprintf(stderr, "reading mrc's state: %s\n", strerror(err));
		return -1;
	}
	if (base.have_knob[MRC_CONFIG_A_NODE_ID])
		nf_cfg.node = base.knob[MRC_CONFIG_A_NODE_ID];
	return 0;
}

/**
 * nf_nl_restore() - puts back the knobs, rail weights, classes, the real
 * peer's policy and (if none was set) the default key
 *
 * Return: the number of requests that failed.
 */
int nf_nl_restore(void)
{
	char buf[4096];
	struct mnl_socket *nl = nl_open(NULL);
	struct nlmsghdr *nlh;
	struct nlattr *n;
	unsigned int i, bad = 0;

	if (!nl)
		return 1;
	nlh = req(buf, base.family, MRC_CMD_CONFIG_SET, 0);
	n = mnl_attr_nest_start(nlh, MRC_A_CONFIG);
	for (i = 1; i <= MRC_CONFIG_A_MAX; i++)
		if (base.have_knob[i])
			mnl_attr_put_u32(nlh, i, base.knob[i]);
	mnl_attr_nest_end(nlh, n);
	if (simple(nl, nlh, NULL)) {
		/* All or nothing refused: one at a time, the rest back. */
		bad++;
		for (i = 1; i <= MRC_CONFIG_A_MAX; i++) {
			if (!base.have_knob[i])
				continue;
			nlh = req(buf, base.family, MRC_CMD_CONFIG_SET, 0);
			n = mnl_attr_nest_start(nlh, MRC_A_CONFIG);
			mnl_attr_put_u32(nlh, i, base.knob[i]);
			mnl_attr_nest_end(nlh, n);
			simple(nl, nlh, NULL);
		}
	}

	/* Classes first: a weight 0 left in one could refuse a rail-set. */
	for (i = MRC_CLASS_DEFAULT; i <= MRC_CLASS_BACKGROUND; i++) {
		nlh = req(buf, base.family, MRC_CMD_CLASS_SET, 0);
		n = mnl_attr_nest_start(nlh, MRC_A_CLASS);
		mnl_attr_put_u32(nlh, MRC_CLASS_A_ID, i);
		mnl_attr_put(nlh, MRC_CLASS_A_ALL, 0, buf);
		mnl_attr_nest_end(nlh, n);
		bad += !!simple(nl, nlh, NULL);
	}
	for (i = 0; i < base.nrails; i++) {
		nlh = req(buf, base.family, MRC_CMD_RAIL_SET, 0);
		n = mnl_attr_nest_start(nlh, MRC_A_RAIL);
		mnl_attr_put_u32(nlh, MRC_RAIL_A_ID, base.rail_id[i]);
		mnl_attr_put_u32(nlh, MRC_RAIL_A_WEIGHT, base.rail_weight[i]);
		mnl_attr_nest_end(nlh, n);
		bad += !!simple(nl, nlh, NULL);
	}
	if (nf_cfg.peer) {
		nlh = req(buf, base.family, MRC_CMD_PEER_SET, 0);
		n = mnl_attr_nest_start(nlh, MRC_A_PEER);
		mnl_attr_put_u32(nlh, MRC_PEER_A_NODE, nf_cfg.peer);
		mnl_attr_put_u32(nlh, MRC_PEER_A_POLICY,
				 MRC_SCHED_POLICY_GLOBAL);
		mnl_attr_nest_end(nlh, n);
		bad += !!simple(nl, nlh, NULL);
	}
	if (!base.keyed) {
		nlh = req(buf, base.family, MRC_CMD_KEY_SET, 0);
		bad += !!simple(nl, nlh, NULL);
	}
	mnl_socket_close(nl);
	nf_count(NF_ST_NL_RESTORE, bad ? EIO : 0);
	return bad;
}

/**
 * nf_nl_cleanup() - the end of a run: fuzz peers deleted, state put back
 *
 * The fuzz peers go, and this node's own peer, which a peer-add of our
 * own id with only local addresses makes (the real peer is never ours);
 * then the state is put back (a node that is its own peer refuses a new
 * node id).
 *
 * Return: the number of requests that failed (a peer not there is no
 * failure).
 */
int nf_nl_cleanup(void)
{
	char buf[4096];
	struct mnl_socket *nl = nl_open(NULL);
	struct nlmsghdr *nlh;
	struct nlattr *n;
	unsigned int i;
	int bad = 0, err;
	uint32_t id;

	if (!nl)
		return nf_nl_restore() + 1;
	for (i = 0; i <= NF_FUZZ_PEERS; i++) {
		id = i < NF_FUZZ_PEERS ? nf_cfg.fuzz_base + i : nf_cfg.node;
		if (id == nf_cfg.peer)
			continue;
		nlh = req(buf, base.family, MRC_CMD_PEER_DEL, 0);
		n = mnl_attr_nest_start(nlh, MRC_A_PEER);
		mnl_attr_put_u32(nlh, MRC_PEER_A_NODE, id);
		mnl_attr_nest_end(nlh, n);
		err = simple(nl, nlh, NULL);
		bad += err && err != ENOENT;
	}
	mnl_socket_close(nl);
	return bad + nf_nl_restore();
}
