// SPDX-License-Identifier: GPL-2.0
/*
 * rail.c - mrcctl rail: the rails (one per RDMA device port), their
 * decoding and printing, "rail show" and "rail set".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mrcctl.h"
#include "nl.h"
#include "print.h"

static int rail_stat_cb(const struct nlattr *a, void *data)
{
	struct rail *r = data;
	unsigned int t = mnl_attr_get_type(a);

	if (t == MRC_RAIL_STAT_UNSPEC || t == MRC_RAIL_STAT_PAD ||
	    t > MRC_RAIL_STAT_MAX)
		return MNL_CB_OK;	/* newer counters: ignored */
	return counter_attr(a, "rail stats", t, r->stats, &r->stats_present);
}

static int rail_drop_cb(const struct nlattr *a, void *data)
{
	struct rail *r = data;
	unsigned int t = mnl_attr_get_type(a);

	if (t == MRC_DROP_NONE || t >= MRC_DROP_NR)
		return MNL_CB_OK;	/* padding, newer reasons: ignored */
	return counter_attr(a, "rail drops", t, r->drops, &r->drops_present);
}

static int rail_attr_cb(const struct nlattr *a, void *data)
{
	struct rail *r = data;
	unsigned int t = mnl_attr_get_type(a);
	u32 *u32p = NULL;
	u8 *u8p = NULL;
	char *str = NULL;
	size_t strsz = 0;

	switch (t) {
	case MRC_RAIL_A_ID:
		u32p = &r->id;
		break;
	case MRC_RAIL_A_PORT:
		u32p = &r->port;
		break;
	case MRC_RAIL_A_IFINDEX:
		u32p = &r->ifindex;
		break;
	case MRC_RAIL_A_GID_INDEX:
		u32p = &r->gid_index;
		break;
	case MRC_RAIL_A_MTU:
		u32p = &r->mtu;
		break;
	case MRC_RAIL_A_SPEED:
		u32p = &r->speed;
		break;
	case MRC_RAIL_A_QPS:
		u32p = &r->qps;
		break;
	case MRC_RAIL_A_WEIGHT:
		u32p = &r->weight;
		break;
	case MRC_RAIL_A_LINK_LAYER:
		u8p = &r->link_layer;
		break;
	case MRC_RAIL_A_STATE:
		u8p = &r->state;
		break;
	case MRC_RAIL_A_PREV_STATE:
		u8p = &r->prev_state;
		break;
	case MRC_RAIL_A_NAME:
		str = r->name;
		strsz = sizeof(r->name);
		break;
	case MRC_RAIL_A_IBDEV:
		str = r->ibdev;
		strsz = sizeof(r->ibdev);
		break;
	case MRC_RAIL_A_NETDEV:
		str = r->netdev;
		strsz = sizeof(r->netdev);
		break;
	case MRC_RAIL_A_GID:
		if (mnl_attr_get_payload_len(a) != sizeof(r->gid))
			return bad_attr("rail", t);
		memcpy(r->gid, mnl_attr_get_payload(a), sizeof(r->gid));
		break;
	case MRC_RAIL_A_STATS:
		if (nest_parse(a, "rail", t, rail_stat_cb, r))
			return MNL_CB_ERROR;
		break;
	case MRC_RAIL_A_DROPS:
		if (nest_parse(a, "rail", t, rail_drop_cb, r))
			return MNL_CB_ERROR;
		break;
	default:
		return MNL_CB_OK;	/* PAD, UNSPEC and newer attributes */
	}
	if (u32p) {
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return bad_attr("rail", t);
		*u32p = mnl_attr_get_u32(a);
	} else if (u8p) {
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return bad_attr("rail", t);
		*u8p = mnl_attr_get_u8(a);
	} else if (str) {
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return bad_attr("rail", t);
		snprintf(str, strsz, "%s", mnl_attr_get_str(a));
	}
	r->present |= 1u << t;
	return MNL_CB_OK;
}

int rail_parse(const struct nlattr *nest, struct rail *r)
{
	memset(r, 0, sizeof(*r));
	return mnl_attr_parse_nested(nest, rail_attr_cb, r) < 0 ? -1 : 0;
}

static const char *gid_str(const struct rail *r, char *buf, size_t sz)
{
	if (!inet_ntop(AF_INET6, r->gid, buf, sz))
		snprintf(buf, sz, "?");
	return buf;
}

struct stat_col {
	const char *hdr;
	unsigned int id;
};

static const struct stat_col stat_rx[] = {
	{ "packets", MRC_RAIL_STAT_RX_PACKETS },
	{ "bytes", MRC_RAIL_STAT_RX_BYTES },
	{ "errors", MRC_RAIL_STAT_RX_ERRORS },
};

static const struct stat_col stat_tx[] = {
	{ "packets", MRC_RAIL_STAT_TX_PACKETS },
	{ "bytes", MRC_RAIL_STAT_TX_BYTES },
	{ "errors", MRC_RAIL_STAT_TX_ERRORS },
};

static const struct stat_col stat_drops[] = {
	{ "rail_down", MRC_RAIL_STAT_DROP_RAIL_DOWN },
	{ "malformed", MRC_RAIL_STAT_DROP_MALFORMED },
	{ "no_buffer", MRC_RAIL_STAT_DROP_NO_BUFFER },
};

static const struct stat_col stat_qp[] = {
	{ "errors", MRC_RAIL_STAT_QP_ERRORS },
	{ "recoveries", MRC_RAIL_STAT_QP_RECOVERIES },
};

/* RAIL_DOWN notices: sent about our other rails, received from peers. */
static const struct stat_col stat_notices[] = {
	{ "down_tx", MRC_RAIL_STAT_DOWN_NOTICES_TX },
	{ "down_rx", MRC_RAIL_STAT_DOWN_NOTICES_RX },
};

static const struct stat_col stat_events[] = {
	{ "state_changes", MRC_RAIL_STAT_STATE_CHANGES },
	{ "port_events", MRC_RAIL_STAT_PORT_EVENTS },
};

static void stat_row(const struct rail *r, const char *label,
		     const struct stat_col *c, size_t n)
{
	const char *hdr[8];
	char val[8][24];
	size_t i;

	for (i = 0; i < n && i < 8; i++) {
		hdr[i] = c[i].hdr;
		if (r->stats_present & (1u << c[i].id))
			snprintf(val[i], sizeof(val[i]), "%" PRIu64,
				 r->stats[c[i].id]);
		else
			snprintf(val[i], sizeof(val[i]), "-");
	}
	print_counter_rows(label, hdr, val, i);
}

/* The non-zero per-reason drop counters; nothing if all are zero. */
static void drop_rows(const struct rail *r)
{
	const char *hdr[MRC_DROP_NR];
	char val[MRC_DROP_NR][24];
	size_t n = 0;
	unsigned int i;

	for (i = MRC_DROP_NONE + 1; i < MRC_DROP_NR; i++) {
		if (!(r->drops_present & (1u << i)) || !r->drops[i])
			continue;
		hdr[n] = mrc_drop_reason_name(i);
		if (!hdr[n])
			continue;
		snprintf(val[n], sizeof(val[n]), "%" PRIu64, r->drops[i]);
		n++;
	}
	if (n)
		print_counter_rows("reasons:", hdr, val, n);
}

/* Attribute @a of @r as "@key" (null if absent, with @all_keys); @fmt. */
static void rail_uint(const struct rail *r, unsigned int a, const char *key,
		      const char *fmt, unsigned int v, bool all_keys)
{
	if (HAS(r, a))
		print_uint(PRINT_ANY, key, fmt, v);
	else if (all_keys)
		print_null(PRINT_JSON, key, NULL, NULL);
}

static void rail_str(const struct rail *r, unsigned int a, const char *key,
		     const char *fmt, const char *v, bool all_keys)
{
	if (HAS(r, a))
		print_string(PRINT_ANY, key, fmt, v);
	else if (all_keys)
		print_null(PRINT_JSON, key, NULL, NULL);
}

/*
 * 0: rxe0:1  netdev eth0  state active  mtu 4096  speed 10000Mb/s ...
 *     gid ::ffff:10.200.0.1 index 1
 *
 * The JSON keys come in their own order (id, name, ibdev, port, ...), the
 * text words in theirs: the calls that write only one form interleave.
 */
void rail_print(const struct rail *r, const char *key, bool all_keys)
{
	const char *ll = mrc_link_layer_name(r->link_layer);
	const char *state = mrc_rail_state_name(r->state);
	char gid[INET6_ADDRSTRLEN];

	gid_str(r, gid, sizeof(gid));
	open_json_object(key);
	rail_uint(r, MRC_RAIL_A_ID, "id", "%u: ", r->id, all_keys);
	if (!HAS(r, MRC_RAIL_A_ID))
		print_fmt("?: ");
	rail_str(r, MRC_RAIL_A_NAME, "name", "%s", r->name, all_keys);
	if (!HAS(r, MRC_RAIL_A_NAME))
		print_fmt("?");
	rail_str(r, MRC_RAIL_A_IBDEV, "ibdev", NULL, r->ibdev, all_keys);
	rail_uint(r, MRC_RAIL_A_PORT, "port", NULL, r->port, all_keys);
	rail_str(r, MRC_RAIL_A_NETDEV, "netdev", "  netdev %s", r->netdev,
		 all_keys);
	if (HAS(r, MRC_RAIL_A_STATE))
		print_string(PRINT_FP, NULL, "  state %s", state);
	rail_uint(r, MRC_RAIL_A_IFINDEX, "ifindex", NULL, r->ifindex, all_keys);
	rail_str(r, MRC_RAIL_A_LINK_LAYER, "link_layer", NULL, ll, all_keys);
	rail_str(r, MRC_RAIL_A_GID, "gid", NULL, gid, all_keys);
	rail_uint(r, MRC_RAIL_A_GID_INDEX, "gid_index", NULL, r->gid_index,
		  all_keys);
	rail_uint(r, MRC_RAIL_A_MTU, "mtu", "  mtu %u", r->mtu, all_keys);
	rail_uint(r, MRC_RAIL_A_SPEED, "speed_mbps",
		  r->speed ? "  speed %uMb/s" : "  speed unknown", r->speed,
		  all_keys);
	if (HAS(r, MRC_RAIL_A_LINK_LAYER))
		print_string(PRINT_FP, NULL, "  link %s", ll);
	rail_uint(r, MRC_RAIL_A_QPS, "qps", "  qps %u", r->qps, all_keys);
	rail_uint(r, MRC_RAIL_A_WEIGHT, "weight", "  weight %u", r->weight,
		  all_keys);
	rail_str(r, MRC_RAIL_A_STATE, "state", NULL, state, all_keys);
	if (HAS(r, MRC_RAIL_A_PREV_STATE))
		print_string(PRINT_JSON, "prev_state", NULL,
			     mrc_rail_state_name(r->prev_state));
	print_fmt("\n");
	if (HAS(r, MRC_RAIL_A_GID)) {
		print_string(PRINT_FP, NULL, "    gid %s", gid);
		if (HAS(r, MRC_RAIL_A_GID_INDEX))
			print_uint(PRINT_FP, NULL, " index %u", r->gid_index);
		print_fmt("\n");
	}
	if (opt.stats) {
		/* JSON: every counter by its name; text: grouped tables. */
		if (all_keys || r->stats_present)
			print_counters("stats", mrc_rail_stat_name, 1,
				       MRC_RAIL_STAT_MAX, r->stats,
				       r->stats_present, all_keys);
		if (all_keys || r->drops_present)
			print_counters("drops", mrc_drop_reason_name,
				       MRC_DROP_NONE + 1, MRC_DROP_NR - 1,
				       r->drops, r->drops_present, all_keys);
		stat_row(r, "RX:", stat_rx, ARRAY_SIZE(stat_rx));
		stat_row(r, "TX:", stat_tx, ARRAY_SIZE(stat_tx));
		stat_row(r, "drops:", stat_drops, ARRAY_SIZE(stat_drops));
		drop_rows(r);
		stat_row(r, "QP:", stat_qp, ARRAY_SIZE(stat_qp));
		stat_row(r, "notices:", stat_notices,
			 ARRAY_SIZE(stat_notices));
		stat_row(r, "events:", stat_events, ARRAY_SIZE(stat_events));
	}
	close_json_object();
}

static bool rail_match(const struct rail *r, const char *dev)
{
	return (HAS(r, MRC_RAIL_A_NAME) && !strcmp(r->name, dev)) ||
	       (HAS(r, MRC_RAIL_A_IBDEV) && !strcmp(r->ibdev, dev)) ||
	       (HAS(r, MRC_RAIL_A_NETDEV) && !strcmp(r->netdev, dev));
}

int rail_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rail_list *l = data;
	const struct nlattr *nest;
	struct rail r, *v;

	if (reply_nest(nlh, MRC_A_RAIL, &nest))
		return MNL_CB_ERROR;
	if (!nest)
		return MNL_CB_OK;
	if (rail_parse(nest, &r))
		return MNL_CB_ERROR;
	if (l->filter && !rail_match(&r, l->filter))
		return MNL_CB_OK;
	if (l->filter_by_id &&
	    (!HAS(&r, MRC_RAIL_A_ID) || r.id != l->filter_id))
		return MNL_CB_OK;
	v = grow(l->v, l->n, &l->cap, sizeof(*v), 16);
	if (!v)
		return MNL_CB_ERROR;
	l->v = v;
	l->v[l->n++] = r;
	return MNL_CB_OK;
}

static int rail_cmp(const void *a, const void *b)
{
	const struct rail *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The rails of a show: one after the other, or a JSON array. */
void rail_list_print(const struct rail_list *l)
{
	size_t i;

	open_json_array(NULL);
	for (i = 0; i < l->n; i++)
		rail_print(&l->v[i], NULL, true);
	close_json_array();
}

void usage_rail(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] rail [ show [ [dev] DEV | id ID ] ]\n"
		"       mrcctl rail set IBDEV:PORT weight W\n"
		"       mrcctl rail help\n"
		"where  DEV := { IBDEV:PORT | IBDEV | NETDEV }\n"
		"\n"
		"Shows mrc's rails (one per RDMA device port): state, netdev,\n"
		"active MTU, speed, link layer, UD QPs (entropy values) and GID;\n"
		"with -s also the counters and, under \"reasons:\", the received\n"
		"packets dropped by reason (only those not zero; -j lists all).\n"
		"IBDEV:PORT (e.g. rxe0:1) names one rail, IBDEV (rxe0) all ports\n"
		"of a device, NETDEV (eth0) the rails on it.\n");
}

/* Get one rail by name or id (doit).  Returns 0, 1 (not found), -1. */
static int rail_get_one(struct rail_list *l, const char *name, u32 id)
{
	char buf[512];
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = mrc_put(buf, MRC_CMD_RAIL_GET, NLM_F_ACK);
	nest = mnl_attr_nest_start(nlh, MRC_A_RAIL);
	if (name)
		mnl_attr_put_strz(nlh, MRC_RAIL_A_NAME, name);
	else
		mnl_attr_put_u32(nlh, MRC_RAIL_A_ID, id);
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, rail_list_cb, l) == 0)
		return 0;
	if (nlerr.err == ENODEV || nlerr.err == ENOENT)
		return 1;
	return -1;
}

static void rail_list_reset(void *data)
{
	struct rail_list *l = data;

	l->n = 0;
}

static int do_rail_show(int argc, char **argv)
{
	struct rail_list l = { 0 };
	const char *dev = NULL;
	bool by_id = false;
	unsigned long long id = 0;
	char *end;
	int ret;

	while (argc > 0) {
		if (!strcmp(argv[0], "dev") && argc > 1) {
			argc--;
			argv++;
			dev = argv[0];
		} else if (!strcmp(argv[0], "id") && argc > 1) {
			argc--;
			argv++;
			errno = 0;
			id = strtoull(argv[0], &end, 0);
			if (errno || *end || !*argv[0] || id > U32_MAX ||
			    argv[0][0] == '-') {
				fprintf(stderr, "Error: invalid rail id \"%s\"\n",
					argv[0]);
				return 1;
			}
			by_id = true;
		} else if (matches(argv[0], "help")) {
			usage_rail(stdout);
			return 0;
		} else if (!dev && !by_id && argv[0][0] != '-') {
			dev = argv[0];
		} else {
			return try_help("unexpected argument", argv[0], "rail");
		}
		argc--;
		argv++;
	}
	if (dev && by_id) {
		fprintf(stderr, "Error: give either DEV or id, not both\n");
		return 1;
	}
	if (mrc_connect())
		return 1;

	if (by_id || (dev && strchr(dev, ':'))) {
		if (dev && strlen(dev) >= MRC_RAIL_NAME_MAX)
			ret = 1;
		else
			ret = rail_get_one(&l, dev, (u32)id);
		/* A kernel without doit: fall back to dump + filter. */
		if (ret < 0 && nlerr.err == EOPNOTSUPP) {
			l.filter = dev;
			l.filter_by_id = by_id;
			l.filter_id = (u32)id;
			ret = mrc_dump(MRC_CMD_RAIL_GET, rail_list_cb, &l,
				       rail_list_reset);
		}
	} else {
		l.filter = dev;
		ret = mrc_dump(MRC_CMD_RAIL_GET, rail_list_cb, &l,
			       rail_list_reset);
	}
	if (ret < 0) {
		if (ret == -1)
			nlerr_print();
		free(l.v);
		return 1;
	}
	if (ret == 1 || ((dev || by_id) && !l.n)) {
		if (by_id)
			fprintf(stderr, "Error: no rail with id %llu\n", id);
		else
			fprintf(stderr, "Error: no rail matches \"%s\"\n",
				dev ? dev : "");
		free(l.v);
		return 1;
	}
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), rail_cmp);
	rail_list_print(&l);
	free(l.v);
	return 0;
}

/* mrcctl rail set DEV weight W */
static int do_rail_set(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[512], *end;
	unsigned long w;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_rail(stdout);
		return 0;
	}
	if (argc > 0 && !strcmp(argv[0], "dev")) {
		argc--;
		argv++;
	}
	if (argc != 3 || strcmp(argv[1], "weight")) {
		fprintf(stderr,
			"Error: rail set needs IBDEV:PORT weight W, try \"mrcctl rail help\"\n");
		return 1;
	}
	errno = 0;
	w = strtoul(argv[2], &end, 0);
	if (errno || !*argv[2] || *end || w > 0xffffffffUL) {
		fprintf(stderr, "Error: bad weight \"%s\" (0..100)\n", argv[2]);
		return 1;
	}
	if (strlen(argv[0]) >= MRC_RAIL_NAME_MAX) {
		fprintf(stderr, "Error: rail name too long\n");
		return 1;
	}
	if (mrc_connect())
		return 1;
	nlh = mrc_put(buf, MRC_CMD_RAIL_SET, NLM_F_ACK);
	nest = mnl_attr_nest_start(nlh, MRC_A_RAIL);
	mnl_attr_put_strz(nlh, MRC_RAIL_A_NAME, argv[0]);
	mnl_attr_put_u32(nlh, MRC_RAIL_A_WEIGHT, (u32)w);
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		nlerr_print();
		return 1;
	}
	return 0;
}

static const struct mrcctl_cmd rail_cmds[] = {
	{ "show", 0, do_rail_show },
	{ "list", 0, do_rail_show },
	{ "set", 2, do_rail_set },	/* "s" is show */
	{ NULL, 0, NULL }
};

int do_rail(int argc, char **argv)
{
	return mrcctl_cmd_run(rail_cmds, argc, argv, usage_rail, "rail");
}

