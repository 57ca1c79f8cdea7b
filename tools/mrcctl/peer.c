// SPDX-License-Identifier: GPL-2.0
/*
 * peer.c - mrcctl peer: the other nodes, their decoding and printing,
 * "peer show", "peer add", "peer del" and "peer set".  Their paths are
 * path.c's.
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

void peer_free(struct peer *p)
{
	free(p->paths);
	p->paths = NULL;
	p->npaths = p->cap = 0;
}

static int peer_addr_cb(const struct nlattr *a, void *data)
{
	struct peer *p = data;
	unsigned int t = mnl_attr_get_type(a);
	u16 len = mnl_attr_get_payload_len(a);

	if (t != MRC_PEER_A_ADDR)
		return MNL_CB_OK;
	if (len != 4 && len != 16)
		return bad_attr("peer address", t);
	if (p->naddrs < PEER_ADDRS_KEPT) {
		p->addrs[p->naddrs].len = (u8)len;
		memcpy(p->addrs[p->naddrs].a, mnl_attr_get_payload(a), len);
		p->naddrs++;
	}
	return MNL_CB_OK;
}

/* One u64 of the MRC_PEER_A_CREDIT nest. */
static int peer_credit_cb(const struct nlattr *a, void *data)
{
	struct peer *p = data;
	unsigned int t = mnl_attr_get_type(a);

	if (t <= MRC_CREDIT_STAT_PAD || t > MRC_CREDIT_STAT_MAX)
		return MNL_CB_OK;	/* PAD, UNSPEC and newer counters */
	if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
		return bad_attr("peer credit", t);
	p->credit[t] = mnl_attr_get_u64(a);
	p->credit_present |= 1u << t;
	return MNL_CB_OK;
}

static int peer_attr_cb(const struct nlattr *a, void *data)
{
	struct peer *p = data;
	unsigned int t = mnl_attr_get_type(a);
	struct path *pa;

	switch (t) {
	case MRC_PEER_A_NODE:
	case MRC_PEER_A_PATHS_ACTIVE:
	case MRC_PEER_A_LOSS_FLOOR_US:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return bad_attr("peer", t);
		if (t == MRC_PEER_A_NODE)
			p->node = mnl_attr_get_u32(a);
		else if (t == MRC_PEER_A_PATHS_ACTIVE)
			p->paths_active = mnl_attr_get_u32(a);
		else
			p->loss_floor_us = mnl_attr_get_u32(a);
		break;
	case MRC_PEER_A_POLICY:		/* sched */
	case MRC_PEER_A_POLICY_NOW:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return bad_attr("peer", t);
		if (t == MRC_PEER_A_POLICY)
			p->policy = mnl_attr_get_u32(a);
		else
			p->policy_now = mnl_attr_get_u32(a);
		break;
	case MRC_PEER_A_FALLBACKS:
	case MRC_PEER_A_EXPLORES:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return bad_attr("peer", t);
		if (t == MRC_PEER_A_FALLBACKS)
			p->fallbacks = mnl_attr_get_u64(a);
		else
			p->explores = mnl_attr_get_u64(a);
		break;
	case MRC_PEER_A_KEYED:
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return bad_attr("peer", t);
		p->keyed = mnl_attr_get_u8(a);
		break;
	case MRC_PEER_A_ADDRS:
		if (nest_parse(a, "peer", t, peer_addr_cb, p))
			return MNL_CB_ERROR;
		break;
	case MRC_PEER_A_CREDIT:
		if (nest_parse(a, "peer", t, peer_credit_cb, p))
			return MNL_CB_ERROR;
		break;
	case MRC_PEER_A_PATH:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
			return bad_attr("peer", t);
		pa = grow(p->paths, p->npaths, &p->cap, sizeof(*pa), 16);
		if (!pa)
			return MNL_CB_ERROR;
		p->paths = pa;
		pa = &p->paths[p->npaths];
		memset(pa, 0, sizeof(*pa));
		if (mnl_attr_parse_nested(a, path_attr_cb, pa) < 0)
			return MNL_CB_ERROR;
		p->npaths++;
		break;
	default:
		return MNL_CB_OK;	/* PAD, UNSPEC and newer attributes */
	}
	p->present |= 1u << t;
	return MNL_CB_OK;
}

int peer_parse(const struct nlattr *nest, struct peer *p)
{
	memset(p, 0, sizeof(*p));
	return mnl_attr_parse_nested(nest, peer_attr_cb, p) < 0 ? -1 : 0;
}

const char *addr_str(const struct peer_addr *pa, char *buf, size_t sz)
{
	if (!inet_ntop(pa->len == 4 ? AF_INET : AF_INET6, pa->a, buf, sz))
		snprintf(buf, sz, "?");
	return buf;
}

void node_print(const struct peer *p)
{
	if (PHAS(p, MRC_PEER_A_NODE))
		print_fmt("node %u", p->node);
	else
		print_fmt("node ?");
}

void addrs_print(const struct peer *p)
{
	char buf[INET6_ADDRSTRLEN];
	unsigned int i;

	for (i = 0; i < p->naddrs; i++)
		print_fmt("%s%s", i ? "," : "",
			  addr_str(&p->addrs[i], buf, sizeof(buf)));
}

/* Credit counters of the peer as sender (tx) and receiver (rx). */
static const unsigned int credit_tx_cols[] = {
	MRC_CREDIT_STAT_TX_UNSCHED_BYTES, MRC_CREDIT_STAT_TX_SCHED_BYTES,
	MRC_CREDIT_STAT_TX_MSGS_SCHED, MRC_CREDIT_STAT_TX_MSGS_CHAINED,
	MRC_CREDIT_STAT_REQUESTS_TX,
	MRC_CREDIT_STAT_GRANTS_RX, MRC_CREDIT_STAT_GRANTS_DUP,
	MRC_CREDIT_STAT_GRANTS_STALE, MRC_CREDIT_STAT_GRANTS_BAD,
	MRC_CREDIT_STAT_WAIT_US,
};

static const unsigned int credit_rx_cols[] = {
	MRC_CREDIT_STAT_RX_UNSCHED_BYTES, MRC_CREDIT_STAT_RX_SCHED_BYTES,
	MRC_CREDIT_STAT_REQUESTS_RX, MRC_CREDIT_STAT_REQUESTS_BAD,
	MRC_CREDIT_STAT_REQUESTS_STALE,
	MRC_CREDIT_STAT_GRANTS_TX, MRC_CREDIT_STAT_GRANTS_RESENT,
	MRC_CREDIT_STAT_GRANTED_BYTES, MRC_CREDIT_STAT_OVER_CREDIT,
};

static void credit_row(const struct peer *p, const char *label,
		       const unsigned int *cols, size_t n)
{
	const char *hdr[MRC_CREDIT_STAT_MAX];
	char val[MRC_CREDIT_STAT_MAX][24];
	size_t i;

	for (i = 0; i < n && i < MRC_CREDIT_STAT_MAX; i++) {
		hdr[i] = mrc_credit_stat_name(cols[i]);
		if (p->credit_present & (1u << cols[i]))
			snprintf(val[i], sizeof(val[i]), "%" PRIu64,
				 p->credit[cols[i]]);
		else
			snprintf(val[i], sizeof(val[i]), "-");
	}
	print_counter_rows(label, hdr, val, i);
}

static unsigned int peer_count_active(const struct peer *p)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < p->npaths; i++)
		n += PHAS(&p->paths[i], MRC_PATH_A_STATE) &&
		     p->paths[i].v[MRC_PATH_A_STATE] == MRC_PATH_STATE_ACTIVE;
	return n;
}

/*
 * node 2  planes 2  paths 16 (active 16)
 *     addrs 10.200.0.2,10.200.1.2
 *     policy load-aware (knob)  fallbacks 0  explores 0
 *     loss floor 20.0ms
 *     PLANE  RAIL    EV  LQPN  RQPN  STATE   SRTT   RTO     INFLIGHT
 *     0      rxe0:1  0   17    18    active  812us  10.0ms  0
 *
 * or { "node": 2, "addrs": [...], "paths_active": 16, ..., "paths": [...] }
 * (the text's credit rows and the JSON "credit" object sit apart).
 */
void peer_print(const struct peer *p, const char *key, bool all_keys)
{
	char buf[INET6_ADDRSTRLEN];
	unsigned int i;

	open_json_object(key);
	if (PHAS(p, MRC_PEER_A_NODE))
		print_uint(PRINT_ANY, "node", "node %u", p->node);
	else if (all_keys)
		print_null(PRINT_ANY, "node", "node ?", NULL);
	else
		print_fmt("node ?");
	print_fmt("  planes %u  paths %zu (active %u)\n", p->naddrs,
		  p->npaths, PHAS(p, MRC_PEER_A_PATHS_ACTIVE) ?
		  p->paths_active : peer_count_active(p));
	/* Addresses only come in MRC_PEER_A_ADDRS: naddrs implies it. */
	if (PHAS(p, MRC_PEER_A_ADDRS)) {
		open_json_array("addrs");
		if (p->naddrs)
			print_fmt("    addrs ");
		for (i = 0; i < p->naddrs; i++)
			print_string(PRINT_ANY, NULL, i ? ",%s" : "%s",
				     addr_str(&p->addrs[i], buf, sizeof(buf)));
		if (p->naddrs)
			print_fmt("\n");
		close_json_array();
	} else if (all_keys) {
		print_null(PRINT_JSON, "addrs", NULL, NULL);
	}
	/* Whether the handshake is authenticated; the key is never shown. */
	if (PHAS(p, MRC_PEER_A_KEYED)) {
		print_bool(PRINT_JSON, "keyed", NULL, p->keyed);
		if (p->keyed)
			print_fmt("    key set (authenticated handshake)\n");
	}
	if (PHAS(p, MRC_PEER_A_PATHS_ACTIVE))
		print_uint(PRINT_JSON, "paths_active", NULL, p->paths_active);
	else if (all_keys)
		print_null(PRINT_JSON, "paths_active", NULL, NULL);
	if (opt.stats && p->credit_present) {
		credit_row(p, "credtx:", credit_tx_cols,
			   ARRAY_SIZE(credit_tx_cols));
		credit_row(p, "credrx:", credit_rx_cols,
			   ARRAY_SIZE(credit_rx_cols));
	}
	if (PHAS(p, MRC_PEER_A_POLICY_NOW)) {	/* sched */
		print_string(PRINT_ANY, "policy", "    policy %s",
			     sched_policy_name(p->policy_now));
		print_string(PRINT_ANY, "policy_from", " (%s)",
			     PHAS(p, MRC_PEER_A_POLICY) ? "peer" : "knob");
		print_u64(PRINT_ANY, "fallbacks", "  fallbacks %" PRIu64,
			  p->fallbacks);
		print_u64(PRINT_ANY, "explores", "  explores %" PRIu64,
			  p->explores);
		print_fmt("\n");
	}
	/* Kernels before the learned loss floor do not send it. */
	if (PHAS(p, MRC_PEER_A_LOSS_FLOOR_US)) {
		fmt_us(buf, sizeof(buf), p->loss_floor_us);
		print_uint(PRINT_JSON, "loss_floor_us", NULL,
			   p->loss_floor_us);
		print_string(PRINT_FP, NULL, "    loss floor %s\n", buf);
	} else if (all_keys) {
		print_null(PRINT_JSON, "loss_floor_us", NULL, NULL);
	}
	/* Only when the kernel sent it (kernels before credits do not). */
	if (PHAS(p, MRC_PEER_A_CREDIT))
		print_counters("credit", mrc_credit_stat_name,
			       MRC_CREDIT_STAT_PAD + 1, MRC_CREDIT_STAT_MAX,
			       p->credit, p->credit_present, all_keys);
	paths_print(p, all_keys);
	close_json_object();
}

void peer_list_free(struct peer_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		peer_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

int peer_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct peer_list *l = data;
	const struct nlattr *nest;
	struct peer p, *v;

	if (reply_nest(nlh, MRC_A_PEER, &nest))
		return MNL_CB_ERROR;
	if (!nest)
		return MNL_CB_OK;
	if (peer_parse(nest, &p)) {
		peer_free(&p);
		return MNL_CB_ERROR;
	}
	v = grow(l->v, l->n, &l->cap, sizeof(*v), 8);
	if (!v) {
		peer_free(&p);
		return MNL_CB_ERROR;
	}
	l->v = v;
	if (p.npaths > 1)
		qsort(p.paths, p.npaths, sizeof(*p.paths), path_cmp);
	l->v[l->n++] = p;
	return MNL_CB_OK;
}

int peer_cmp(const void *a, const void *b)
{
	const struct peer *x = a, *y = b;

	return x->node < y->node ? -1 : x->node > y->node;
}

/* The peers of a show: one after the other, or a JSON array. */
void peer_list_print(const struct peer_list *l)
{
	size_t i;

	open_json_array(NULL);
	for (i = 0; i < l->n; i++)
		peer_print(&l->v[i], NULL, true);
	close_json_array();
}

void usage_peer(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] peer [ show [ [node] NODE ] ]\n"
		"       mrcctl peer add [node] NODE addr ADDR[,ADDR...] [key FILE]\n"
		"       mrcctl peer del [node] NODE\n"
		"       mrcctl peer set [node] NODE policy POLICY\n"
		"       mrcctl peer help\n"
		"where  NODE := the peer's node id, 1..%u (decimal or 0x hex)\n"
		"       ADDR := IPv4 or IPv6 address of the peer on one plane;\n"
		"               one per plane, in plane order, at most %u\n"
		"       FILE := a file holding the key shared with the peer,\n"
		"               16 to 64 bytes taken as they are (e.g.\n"
		"               head -c 32 /dev/urandom > FILE); the peer must be\n"
		"               added with the same key for this node\n"
		"\n"
		"A peer is another node, known by its node id (the node_id knob\n"
		"on that node; ours must be set first) and one address per plane;\n"
		"our own id with our own addresses makes this node its own peer\n"
		"(its endpoints then reach each other through the rails).\n"
		"mrc keeps a path for each (local rail, plane, entropy value) and\n"
		"probes it.  show lists the peers with a table of their paths:\n"
		"  PLANE RAIL EV LQPN RQPN STATE SRTT RTO INFLIGHT\n"
		"(EV the entropy value, LQPN/RQPN the local and remote UD QPN,\n"
		"INFLIGHT packets in flight); with -s also the path counters\n"
		"  TX ACKED LOST PROBES REPLIES TIMEOUTS CHANGES\n"
		"Path states: probing, active, assumed-bad, dead, denied,\n"
		"unresolved.  add and del need CAP_NET_ADMIN.\n",
		0x7fffffffu, MRC_PEER_MAX_ADDRS);
}

/*
 * Parses a node id: 1..0x7fffffff, decimal or 0x hex, nothing else.
 * 0, or -1 with the reason in @err.
 */
int parse_node(const char *s, u32 *node, char *err, size_t errsz)
{
	unsigned long long v;
	char *end;

	/* No sign, no blanks, no octal: a digit first, "0" only before x. */
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s < '0' || *s > '9' || errno || *end || !v || v > 0x7fffffffULL ||
	    (s[0] == '0' && s[1] != 'x' && s[1] != 'X')) {
		snprintf(err, errsz,
			 "invalid node id \"%s\" (expected 1..%u)", s,
			 0x7fffffffu);
		return -1;
	}
	*node = (u32)v;
	return 0;
}

/*
 * Appends the comma-separated addresses of @list to @v (holding *@n, at
 * most @max).  0, or -1 with the reason in @err.
 */
int parse_addrs(const char *list, struct peer_addr *v, unsigned int *n,
		unsigned int max, char *err, size_t errsz)
{
	char tok[INET6_ADDRSTRLEN + 8];
	const char *p = list, *comma;
	size_t len;

	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (*n >= max) {
			snprintf(err, errsz,
				 "too many addresses (at most %u, one per plane)",
				 max);
			return -1;
		}
		if (len >= sizeof(tok))
			len = sizeof(tok) - 1;	/* too long: refused below */
		memcpy(tok, p, len);
		tok[len] = '\0';
		if (inet_pton(AF_INET, tok, v[*n].a) == 1) {
			v[*n].len = 4;
		} else if (inet_pton(AF_INET6, tok, v[*n].a) == 1) {
			v[*n].len = 16;
		} else {
			snprintf(err, errsz,
				 "invalid address \"%.*s\" (expected IPv4 or IPv6)",
				 comma ? (int)(comma - p) : (int)strlen(p), p);
			return -1;
		}
		(*n)++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/*
 * The error of a peer command: the kernel's extended ACK if it sent one,
 * else a word on the errors peer commands get, else strerror.
 */
void peer_err_format(u32 node, bool have_node, char *buf, size_t sz)
{
	if (!nlerr.has_msg && nlerr.err == EOPNOTSUPP)
		snprintf(buf, sz,
			 "Error: the loaded mrc module has no peer commands (older module?)");
	else if (!nlerr.has_msg && have_node && nlerr.err == ENOENT)
		snprintf(buf, sz, "Error: no peer with node id %u", node);
	else if (!nlerr.has_msg && have_node && nlerr.err == EEXIST)
		snprintf(buf, sz, "Error: peer %u exists already", node);
	else
		nlerr_format(&nlerr, buf, sz);
}

static void peer_err_print(u32 node, bool have_node)
{
	char buf[1024];

	peer_err_format(node, have_node, buf, sizeof(buf));
	fprintf(stderr, "%s\n", buf);
}

/* Optional "node" keyword, then NODE.  Consumes them; 0 or 1 (reported). */
static int take_node(int *argc, char ***argv, const char *cmd, u32 *node)
{
	char err[128];

	if (*argc > 0 && !strcmp((*argv)[0], "node")) {
		(*argc)--;
		(*argv)++;
	}
	if (*argc < 1) {
		fprintf(stderr,
			"Error: peer %s needs NODE, try \"mrcctl peer help\"\n",
			cmd);
		return 1;
	}
	if (parse_node((*argv)[0], node, err, sizeof(err))) {
		fprintf(stderr, "Error: %s\n", err);
		return 1;
	}
	(*argc)--;
	(*argv)++;
	return 0;
}

static void peer_list_reset(void *data)
{
	peer_list_free(data);
}

/* A request @cmd for peer @node; its MRC_A_PEER nest is left open. */
static struct nlmsghdr *peer_req(void *buf, u8 cmd, u32 node,
				 struct nlattr **nest)
{
	struct nlmsghdr *nlh = mrc_put(buf, cmd, NLM_F_ACK);

	*nest = mnl_attr_nest_start(nlh, MRC_A_PEER);
	mnl_attr_put_u32(nlh, MRC_PEER_A_NODE, node);
	return nlh;
}

static int do_peer_show(int argc, char **argv)
{
	struct peer_list l = { 0 };
	bool by_node = false;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[256];
	u32 node = 0;
	int ret;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_peer(stdout);
		return 0;
	}
	if (argc > 0) {
		if (take_node(&argc, &argv, "show", &node))
			return 1;
		by_node = true;
	}
	if (argc > 0)
		return try_help("unexpected argument", argv[0], "peer");
	if (mrc_connect())
		return 1;
	if (by_node) {
		nlh = peer_req(buf, MRC_CMD_PEER_GET, node, &nest);
		mnl_attr_nest_end(nlh, nest);
		ret = nl_request(nlh, peer_list_cb, &l);
	} else {
		ret = mrc_dump(MRC_CMD_PEER_GET, peer_list_cb, &l,
			       peer_list_reset);
	}
	if (ret < 0) {
		if (ret == -1)
			peer_err_print(node, by_node);
		peer_list_free(&l);
		return 1;
	}
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), peer_cmp);
	peer_list_print(&l);
	peer_list_free(&l);
	return 0;
}

static int do_peer_add(int argc, char **argv)
{
	struct peer_addr addrs[MRC_PEER_MAX_ADDRS];
	char buf[1024], err[256], text[INET6_ADDRSTRLEN];
	struct nlattr *nest, *anest;
	unsigned char key[65];	/* one more than a key, to see a longer file */
	struct nlmsghdr *nlh;
	unsigned int n = 0, i;
	int keylen = 0, ret = 0;
	u32 node;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_peer(stdout);
		return 0;
	}
	if (argc < 1) {
		fprintf(stderr,
			"Error: peer add needs NODE addr ADDR[,ADDR...], try \"mrcctl peer help\"\n");
		return 1;
	}
	if (take_node(&argc, &argv, "add", &node))
		return 1;
	while (argc > 0) {
		if (strcmp(argv[0], "addr") && strcmp(argv[0], "address") &&
		    strcmp(argv[0], "key"))
			return try_help("unexpected argument", argv[0], "peer");
		if (argc < 2) {
			fprintf(stderr, "Error: missing value for \"%s\"\n",
				argv[0]);
			return 1;
		}
		if (!strcmp(argv[0], "key")) {
			keylen = key_file_read(argv[1], key, sizeof(key) - 1);
			if (keylen < 0)
				return 1;
			argc -= 2;
			argv += 2;
			continue;
		}
		if (parse_addrs(argv[1], addrs, &n, MRC_PEER_MAX_ADDRS, err,
				sizeof(err))) {
			fprintf(stderr, "Error: %s\n", err);
			return 1;
		}
		argc -= 2;
		argv += 2;
	}
	if (!n) {
		fprintf(stderr,
			"Error: peer add needs at least one address (addr ADDR[,ADDR...])\n");
		explicit_bzero(key, sizeof(key));
		return 1;
	}

	if (mrc_connect()) {
		explicit_bzero(key, sizeof(key));
		return 1;
	}
	nlh = peer_req(buf, MRC_CMD_PEER_ADD, node, &nest);
	anest = mnl_attr_nest_start(nlh, MRC_PEER_A_ADDRS);
	req_nlabels = 0;
	for (i = 0; i < n; i++) {
		req_label(nlh, "address %s",
			  addr_str(&addrs[i], text, sizeof(text)));
		mnl_attr_put(nlh, MRC_PEER_A_ADDR, addrs[i].len, addrs[i].a);
	}
	mnl_attr_nest_end(nlh, anest);
	if (keylen)
		mnl_attr_put(nlh, MRC_PEER_A_KEY, keylen, key);
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		peer_err_print(node, true);
		ret = 1;
	}
	/* The key leaves this process only in the request. */
	explicit_bzero(key, sizeof(key));
	explicit_bzero(buf, sizeof(buf));
	return ret;
}

static int do_peer_del(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[256];
	u32 node;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_peer(stdout);
		return 0;
	}
	if (take_node(&argc, &argv, "del", &node))
		return 1;
	if (argc > 0)
		return try_help("unexpected argument", argv[0], "peer");
	if (mrc_connect())
		return 1;
	nlh = peer_req(buf, MRC_CMD_PEER_DEL, node, &nest);
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		peer_err_print(node, true);
		return 1;
	}
	return 0;
}

/* mrcctl peer set NODE policy { POLICY | default } */
static int do_peer_set(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[256];
	u32 node;
	int pol;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_peer(stdout);
		return 0;
	}
	if (take_node(&argc, &argv, "set", &node))
		return 1;
	if (argc != 2 || strcmp(argv[0], "policy")) {
		fprintf(stderr,
			"Error: peer set needs NODE policy { round-robin | min-inflight | min-latency | load-aware | default }\n");
		return 1;
	}
	if (!strcmp(argv[1], "default") || !strcmp(argv[1], "global"))
		pol = MRC_SCHED_POLICY_GLOBAL;
	else
		pol = sched_policy_index(argv[1]);
	if (pol < 0) {
		fprintf(stderr,
			"Error: unknown policy \"%s\" (round-robin, min-inflight, min-latency, load-aware, default)\n",
			argv[1]);
		return 1;
	}
	if (mrc_connect())
		return 1;
	nlh = peer_req(buf, MRC_CMD_PEER_SET, node, &nest);
	mnl_attr_put_u32(nlh, MRC_PEER_A_POLICY, (u32)pol);
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		peer_err_print(node, true);
		return 1;
	}
	return 0;
}

static const struct mrcctl_cmd peer_cmds[] = {
	{ "show", 0, do_peer_show },
	{ "list", 0, do_peer_show },
	{ "add", 0, do_peer_add },
	{ "del", 0, do_peer_del },
	{ "delete", 0, do_peer_del },
	{ "set", 2, do_peer_set },	/* "s" is show */
	{ NULL, 0, NULL }
};

int do_peer(int argc, char **argv)
{
	return mrcctl_cmd_run(peer_cmds, argc, argv, usage_peer, "peer");
}

