// SPDX-License-Identifier: GPL-2.0
/*
 * t_peer.c - mrcctl self-test: peer messages and the parsing of node ids and addresses
 */
#include "selftest.h"

/* --- peers --- */

/* One path nest; its numbers derive from plane and entropy value. */
void mk_path(struct nlmsghdr *nlh, u32 plane, const char *rail,
	     u32 ev, u8 state, u32 srtt, u32 rto, unsigned int what)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, MRC_PEER_A_PATH);
	u64 base = 100 * (plane + 1) + ev;

	mnl_attr_put_u32(nlh, MRC_PATH_A_PLANE, plane);
	mnl_attr_put_strz(nlh, MRC_PATH_A_RAIL, rail);
	mnl_attr_put_u32(nlh, MRC_PATH_A_ENTROPY, ev);
	mnl_attr_put_u32(nlh, MRC_PATH_A_LOCAL_QPN, 17 + 16 * plane + ev);
	if (what & P_RESOLVED)
		mnl_attr_put_u32(nlh, MRC_PATH_A_REMOTE_QPN,
				 27 + 16 * plane + ev);
	mnl_attr_put_u8(nlh, MRC_PATH_A_STATE, state);
	if (what & P_RTT)
		mnl_attr_put_u32(nlh, MRC_PATH_A_SRTT_US, srtt);
	mnl_attr_put_u32(nlh, MRC_PATH_A_RTO_US, rto);
	mnl_attr_put_u32(nlh, MRC_PATH_A_INFLIGHT, (u32)(ev * 3));
	if (what & P_STATS) {
		mnl_attr_put_u64(nlh, MRC_PATH_A_TX_PKTS, base * 1000);
		mnl_attr_put_u64(nlh, MRC_PATH_A_ACKED_PKTS, base * 990);
		mnl_attr_put_u64(nlh, MRC_PATH_A_LOST_PKTS, base);
		mnl_attr_put_u64(nlh, MRC_PATH_A_PROBES, 5);
		mnl_attr_put_u64(nlh, MRC_PATH_A_REPLIES, 4);
		mnl_attr_put_u64(nlh, MRC_PATH_A_TIMEOUTS, 1);
		mnl_attr_put_u64(nlh, MRC_PATH_A_STATE_CHANGES, 2);
	}
	if (what & P_PREV)
		mnl_attr_put_u8(nlh, MRC_PATH_A_PREV_STATE,
				MRC_PATH_STATE_ACTIVE);
	if (what & P_FUTURE)
		mnl_attr_put_u32(nlh, MRC_PATH_A_MAX + 4, 1);
	mnl_attr_nest_end(nlh, nest);
}

const u8 addr_v4[4] = { 10, 200, 0, 2 };
const u8 addr_v6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
				0, 0, 0, 0, 0, 0, 0, 2 };

/* A message @cmd about peer @node (0: none), its nest left open. */
struct nlmsghdr *mk_peer_open(void *buf, u8 cmd, u32 node,
			      struct nlattr **nest)
{
	struct nlmsghdr *nlh = mk_nest(buf, cmd, MRC_A_PEER, nest);

	if (node)
		mnl_attr_put_u32(nlh, MRC_PEER_A_NODE, node);
	return nlh;
}

/* A message @cmd about peer @node (0: none) and nothing else. */
struct nlmsghdr *mk_peer_node(void *buf, u8 cmd, u32 node)
{
	struct nlattr *nest;
	struct nlmsghdr *nlh = mk_peer_open(buf, cmd, node, &nest);

	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* PEER_ADDED of node 2 at 10.200.0.2 and @addr2 (@len2 bytes). */
struct nlmsghdr *mk_peer_added(void *buf, const u8 *addr2, u16 len2)
{
	struct nlattr *nest, *an;
	struct nlmsghdr *nlh = mk_peer_open(buf, MRC_CMD_PEER_ADDED, 2, &nest);

	an = mnl_attr_nest_start(nlh, MRC_PEER_A_ADDRS);
	mnl_attr_put(nlh, MRC_PEER_A_ADDR, sizeof(addr_v4), addr_v4);
	mnl_attr_put(nlh, MRC_PEER_A_ADDR, len2, addr2);
	mnl_attr_nest_end(nlh, an);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* PATH_STATE of node 2: plane 1 rxe1:1 ev 3, now assumed-bad. */
struct nlmsghdr *mk_path_state(void *buf, unsigned int what)
{
	struct nlattr *nest;
	struct nlmsghdr *nlh = mk_peer_open(buf, MRC_CMD_PATH_STATE, 2, &nest);

	mk_path(nlh, 1, "rxe1:1", 3, MRC_PATH_STATE_ASSUMED_BAD, 0, 1000, what);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/*
 * Node 2, addresses 10.200.0.2 and fd00::2, four paths given out of
 * order: plane 1 ev 1 (assumed-bad), plane 0 ev 0 and 1 (active),
 * plane 1 ev 0 (unresolved).
 */
struct nlmsghdr *mk_peer(void *buf, u8 cmd, u32 node,
			 unsigned int what)
{
	struct nlattr *nest, *an;
	struct nlmsghdr *nlh = mk_peer_open(buf, cmd, node, &nest);

	an = mnl_attr_nest_start(nlh, MRC_PEER_A_ADDRS);
	mnl_attr_put(nlh, MRC_PEER_A_ADDR, sizeof(addr_v4), addr_v4);
	mnl_attr_put(nlh, MRC_PEER_A_ADDR, sizeof(addr_v6), addr_v6);
	mnl_attr_nest_end(nlh, an);
	mnl_attr_put_u32(nlh, MRC_PEER_A_PATHS_ACTIVE, 2);
	if (what & P_FUTURE)
		mnl_attr_put_u32(nlh, MRC_PEER_A_MAX + 3, 1);
	mk_path(nlh, 1, "rxe1:1", 1, MRC_PATH_STATE_ASSUMED_BAD, 12345,
		200000, what | P_RESOLVED | P_RTT);
	mk_path(nlh, 0, "rxe0:1", 0, MRC_PATH_STATE_ACTIVE, 812, 10000,
		what | P_RESOLVED | P_RTT);
	mk_path(nlh, 0, "rxe0:1", 1, MRC_PATH_STATE_ACTIVE, 1250, 10000,
		what | P_RESOLVED | P_RTT);
	mk_path(nlh, 1, "rxe1:1", 0, MRC_PATH_STATE_UNRESOLVED, 0, 1000000,
		what);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* Through the show path: parsed, paths sorted, printed. */
char *peer_show_of(const struct nlmsghdr *nlh)
{
	struct peer_list l = { 0 };

	if (peer_list_cb(nlh, &l) != MNL_CB_OK) {
		peer_list_free(&l);
		return NULL;
	}
	cap_begin();
	peer_list_print(&l);
	peer_list_free(&l);
	return cap_end();
}

void peer__plain(void)
{
	char buf[8192], *got;

	reset_state();
	got = peer_show_of(mk_peer(buf, MRC_CMD_PEER_GET, 2, P_FUTURE));
	CHECK_STR(got,
		  "node 2  planes 2  paths 4 (active 2)\n"
		  "    addrs 10.200.0.2,fd00::2\n"
		  "    PLANE  RAIL    EV  LQPN  RQPN  STATE        SRTT    RTO      INFLIGHT\n"
		  "    0      rxe0:1  0   17    27    active       812us   10.0ms   0\n"
		  "    0      rxe0:1  1   18    28    active       1.25ms  10.0ms   3\n"
		  "    1      rxe1:1  0   33    -     unresolved   -       1.00s    0\n"
		  "    1      rxe1:1  1   34    44    assumed-bad  12.3ms  200.0ms  3\n");
	free(got);

	opt.stats = true;
	got = peer_show_of(mk_peer(buf, MRC_CMD_PEER_GET, 2, P_STATS));
	CHECK_STR(got,
		  "node 2  planes 2  paths 4 (active 2)\n"
		  "    addrs 10.200.0.2,fd00::2\n"
		  "    PLANE  RAIL    EV  LQPN  RQPN  STATE        SRTT    RTO      INFLIGHT  TX      ACKED   LOST  PROBES  REPLIES  TIMEOUTS  CHANGES\n"
		  "    0      rxe0:1  0   17    27    active       812us   10.0ms   0         100000  99000   100   5       4        1         2\n"
		  "    0      rxe0:1  1   18    28    active       1.25ms  10.0ms   3         101000  99990   101   5       4        1         2\n"
		  "    1      rxe1:1  0   33    -     unresolved   -       1.00s    0         200000  198000  200   5       4        1         2\n"
		  "    1      rxe1:1  1   34    44    assumed-bad  12.3ms  200.0ms  3         201000  198990  201   5       4        1         2\n");
	free(got);
	/* Counters absent: "-". */
	got = peer_show_of(mk_peer(buf, MRC_CMD_PEER_GET, 2, 0));
	CHECK(got && strstr(got, "  INFLIGHT  TX  ACKED  LOST  PROBES  REPLIES  TIMEOUTS  CHANGES\n"));
	CHECK(got && strstr(got, "  0         -   -      -     -       -        -         -\n"));
	free(got);
	opt.stats = false;
}

/* sched: policy line, SHARE and INFL_BYTES (WEIGHT, TX_BYTES with -s). */
void peer__sched(void)
{
	char buf[2048], *got;
	struct nlmsghdr *nlh;
	struct nlattr *nest, *pn;
	unsigned int i;

	reset_state();
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 2, &nest);
	mnl_attr_put_u32(nlh, MRC_PEER_A_POLICY, MRC_SCHED_POLICY_MIN_LATENCY);
	mnl_attr_put_u32(nlh, MRC_PEER_A_POLICY_NOW,
			 MRC_SCHED_POLICY_MIN_LATENCY);
	mnl_attr_put_u64(nlh, MRC_PEER_A_FALLBACKS, 7);
	mnl_attr_put_u64(nlh, MRC_PEER_A_EXPLORES, 9);
	mnl_attr_put_u32(nlh, MRC_PEER_A_LOSS_FLOOR_US, 1250);
	for (i = 0; i < 2; i++) {
		pn = mnl_attr_nest_start(nlh, MRC_PEER_A_PATH);
		mnl_attr_put_u32(nlh, MRC_PATH_A_PLANE, i);
		mnl_attr_put_u32(nlh, MRC_PATH_A_ENTROPY, 0);
		mnl_attr_put_u8(nlh, MRC_PATH_A_STATE, MRC_PATH_STATE_ACTIVE);
		mnl_attr_put_u64(nlh, MRC_PATH_A_TX_BYTES, i ? 3000 : 1000);
		mnl_attr_put_u64(nlh, MRC_PATH_A_INFLIGHT_BYTES, 4040 * i);
		mnl_attr_put_u32(nlh, MRC_PATH_A_WEIGHT, i ? 50 : 100);
		mnl_attr_nest_end(nlh, pn);
	}
	mnl_attr_nest_end(nlh, nest);
	got = peer_show_of(nlh);
	CHECK(got && strstr(got,
			    "    policy min-latency (peer)  fallbacks 7  explores 9\n"
			    "    loss floor 1.25ms\n"));
	CHECK(got && strstr(got, "  INFLIGHT  SHARE  INFL_BYTES\n"));
	CHECK(got && strstr(got, "  25.0%  0\n") && strstr(got, "  75.0%  4040\n"));
	free(got);
	opt.stats = true;
	got = peer_show_of(nlh);
	CHECK(got && strstr(got, "  SHARE  INFL_BYTES  WEIGHT  TX_BYTES\n"));
	CHECK(got && strstr(got, "  75.0%  4040        50      3000\n"));
	free(got);
	opt.stats = false;
	opt.json = true;
	got = peer_show_of(nlh);
	CHECK(got && strstr(got, "\"policy\":\"min-latency\",\"policy_from\":\"peer\","
			    "\"fallbacks\":7,\"explores\":9,"
			    "\"loss_floor_us\":1250"));
	CHECK(got && strstr(got, "\"inflight_bytes\":4040,\"tx_bytes\":3000,\"weight\":50}"));
	free(got);
	opt.json = false;
}

/* The MRC_PEER_A_CREDIT nest: -s shows it, JSON has it. */
void peer__credit(void)
{
	char buf[2048], *got;
	struct nlmsghdr *nlh;
	struct nlattr *nest, *cn;
	unsigned int s;

	reset_state();
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 3, &nest);
	cn = mnl_attr_nest_start(nlh, MRC_PEER_A_CREDIT);
	for (s = MRC_CREDIT_STAT_PAD + 1; s <= MRC_CREDIT_STAT_MAX; s++)
		if (s != MRC_CREDIT_STAT_GRANTS_BAD)	/* absent: "-" */
			mnl_attr_put_u64(nlh, s, 1000 + s);
	mnl_attr_put_u64(nlh, MRC_CREDIT_STAT_MAX + 5, 9);	/* future */
	mnl_attr_nest_end(nlh, cn);
	mnl_attr_nest_end(nlh, nest);

	got = peer_show_of(nlh);
	CHECK_STR(got, "node 3  planes 0  paths 0 (active 0)\n");
	free(got);
	opt.stats = true;
	got = peer_show_of(nlh);
	CHECK_STR(got,
		  "node 3  planes 0  paths 0 (active 0)\n"
		  "    credtx:  tx_unsched_bytes tx_sched_bytes tx_msgs_sched tx_msgs_chained requests_tx grants_rx\n"
		  "                         1002           1003          1004            1019        1005      1006\n"
		  "             grants_dup grants_stale grants_bad wait_us\n"
		  "                   1007         1018          -    1009\n"
		  "    credrx:  rx_unsched_bytes rx_sched_bytes requests_rx requests_bad requests_stale grants_tx\n"
		  "                         1010           1011        1012         1013           1020      1014\n"
		  "             grants_resent granted_bytes over_credit\n"
		  "                      1015          1016        1017\n");
	free(got);
	opt.stats = false;
	opt.json = true;
	got = peer_show_of(nlh);
	CHECK(got && strstr(got, "\"credit\":{\"tx_unsched_bytes\":1002,"));
	CHECK(got && strstr(got, "\"grants_bad\":null,\"wait_us\":1009,"));
	CHECK(got && strstr(got, "\"tx_msgs_chained\":1019,\"requests_stale\":1020}"));
	free(got);
	opt.json = false;
}

void peer__plain_minimal(void)
{
	char buf[1024], *got;
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	reset_state();
	/* No addresses, no paths, no paths-active: no table. */
	got = peer_show_of(mk_peer_node(buf, MRC_CMD_PEER_GET, 0x7fffffff));
	CHECK_STR(got, "node 2147483647  planes 0  paths 0 (active 0)\n");
	free(got);

	/* paths-active absent: counted from the states. */
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 3, &nest);
	mk_path(nlh, 0, "rxe0:1", 0, MRC_PATH_STATE_ACTIVE, 5, 6, P_RESOLVED);
	mk_path(nlh, 0, "rxe0:1", 1, MRC_PATH_STATE_PROBING, 5, 6, 0);
	mk_path(nlh, 0, "rxe0:1", 2, 77, 5, 6, 0);	/* a future state */
	mnl_attr_nest_end(nlh, nest);
	got = peer_show_of(nlh);
	CHECK(got && !strncmp(got, "node 3  planes 0  paths 3 (active 1)\n", 37));
	CHECK(got && strstr(got, " probing ") && strstr(got, " unknown "));
	free(got);
}

void peer__json(void)
{
	static const char exp[] =
		"[{\"node\":2,\"addrs\":[\"10.200.0.2\",\"fd00::2\"],"
		"\"paths_active\":2,\"loss_floor_us\":null,"
		"\"paths\":[{\"plane\":0,"
		"\"rail\":\"rxe0:1\",\"entropy\":0,\"local_qpn\":17,"
		"\"remote_qpn\":27,\"state\":\"active\",\"srtt_us\":812,"
		"\"rto_us\":10000,\"inflight\":0,\"tx_pkts\":100000,"
		"\"acked_pkts\":99000,\"lost_pkts\":100,\"probes\":5,"
		"\"replies\":4,\"timeouts\":1,\"state_changes\":2},";
	char buf[8192], *got;

	reset_state();
	opt.json = true;
	got = peer_show_of(mk_peer(buf, MRC_CMD_PEER_GET, 2, P_STATS | P_FUTURE));
	CHECK(got && !strncmp(got, exp, strlen(exp)));
	if (got && strncmp(got, exp, strlen(exp)))
		t_show("got", got);
	/* Absent values are null. */
	CHECK(got && strstr(got,
			    "{\"plane\":1,\"rail\":\"rxe1:1\",\"entropy\":0,"
			    "\"local_qpn\":33,\"remote_qpn\":null,"
			    "\"state\":\"unresolved\",\"srtt_us\":null,"
			    "\"rto_us\":1000000,"));
	CHECK(got && strlen(got) > 5 &&
	      !strcmp(got + strlen(got) - 5, "}]}]\n"));
	free(got);

	got = peer_show_of(mk_peer(buf, MRC_CMD_PEER_GET, 2, 0));
	CHECK(got && strstr(got, "\"tx_pkts\":null,\"acked_pkts\":null,"));
	free(got);

	/* Nothing known: every key, null; paths an empty array. */
	got = peer_show_of(mk_peer_node(buf, MRC_CMD_PEER_GET, 0));
	CHECK_STR(got,
		  "[{\"node\":null,\"addrs\":null,\"paths_active\":null,"
		  "\"loss_floor_us\":null,\"paths\":[]}]\n");
	free(got);

	/* No peers: an empty array. */
	{
		struct peer_list l = { 0 };

		cap_begin();
		peer_list_print(&l);
		got = cap_end();
		CHECK_STR(got, "[]\n");
		free(got);
	}
	opt.json = false;
}

void peer__list_sorted(void)
{
	char buf[8192];
	struct peer_list l = { 0 };
	static const u32 nodes[] = { 9, 2, 0x7fffffff, 5 };
	unsigned int i;

	reset_state();
	for (i = 0; i < ARRAY_SIZE(nodes); i++)
		CHECK(peer_list_cb(mk_peer(buf, MRC_CMD_PEER_GET, nodes[i], 0),
				   &l) == MNL_CB_OK);
	CHECK(l.n == 4);
	qsort(l.v, l.n, sizeof(*l.v), peer_cmp);
	CHECK(l.n == 4 && l.v[0].node == 2 && l.v[1].node == 5 &&
	      l.v[2].node == 9 && l.v[3].node == 0x7fffffff);
	for (i = 0; i < l.n; i++)
		CHECK(l.v[i].npaths == 4 &&
		      l.v[i].paths[0].v[MRC_PATH_A_PLANE] == 0 &&
		      l.v[i].paths[3].v[MRC_PATH_A_ENTROPY] == 1);
	peer_list_free(&l);
	CHECK(!l.v && !l.n);

	/* Many paths: the array grows. */
	{
		struct nlattr *nest;
		struct nlmsghdr *nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 4,
						    &nest);

		for (i = 0; i < 40; i++)
			mk_path(nlh, i % 2, i % 2 ? "rxe1:1" : "rxe0:1",
				39 - i, MRC_PATH_STATE_ACTIVE, 1, 1, 0);
		mnl_attr_nest_end(nlh, nest);
		CHECK(peer_list_cb(nlh, &l) == MNL_CB_OK);
		CHECK(l.n == 1 && l.v[0].npaths == 40);
		for (i = 1; l.n == 1 && i < l.v[0].npaths; i++)
			CHECK(path_cmp(&l.v[0].paths[i - 1],
				       &l.v[0].paths[i]) < 0);
		peer_list_free(&l);
	}
}

void peer__malformed(void)
{
	char buf[1024];
	struct peer_list l = { 0 };
	struct nlmsghdr *nlh;
	struct nlattr *nest, *an;

	reset_state();
	/* An address of 5 bytes. */
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 0, &nest);
	an = mnl_attr_nest_start(nlh, MRC_PEER_A_ADDRS);
	mnl_attr_put(nlh, MRC_PEER_A_ADDR, 5, "abcde");
	mnl_attr_nest_end(nlh, an);
	mnl_attr_nest_end(nlh, nest);
	CHECK(peer_list_cb(nlh, &l) == MNL_CB_ERROR && l.n == 0);
	CHECK_STR(nlerr.msg, "malformed peer address attribute 3 from the kernel");

	/* A node of 2 bytes. */
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 0, &nest);
	mnl_attr_put_u16(nlh, MRC_PEER_A_NODE, 2);
	mnl_attr_nest_end(nlh, nest);
	CHECK(peer_list_cb(nlh, &l) == MNL_CB_ERROR && l.n == 0);

	/* A path state of 4 bytes, after a good path (freed: ASan). */
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 0, &nest);
	mk_path(nlh, 0, "rxe0:1", 0, MRC_PATH_STATE_ACTIVE, 1, 1, 0);
	an = mnl_attr_nest_start(nlh, MRC_PEER_A_PATH);
	mnl_attr_put_u32(nlh, MRC_PATH_A_STATE, 1);
	mnl_attr_nest_end(nlh, an);
	mnl_attr_nest_end(nlh, nest);
	CHECK(peer_list_cb(nlh, &l) == MNL_CB_ERROR && l.n == 0);
	CHECK_STR(nlerr.msg, "malformed path attribute 6 from the kernel");

	/* A rail name without its NUL. */
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 0, &nest);
	an = mnl_attr_nest_start(nlh, MRC_PEER_A_PATH);
	mnl_attr_put(nlh, MRC_PATH_A_RAIL, 3, "abc");
	mnl_attr_nest_end(nlh, an);
	mnl_attr_nest_end(nlh, nest);
	CHECK(peer_list_cb(nlh, &l) == MNL_CB_ERROR && l.n == 0);

	/* The top-level peer attribute not a nest. */
	nlh = genl_put(buf, mrc_family, MRC_CMD_PEER_GET, 1, 0);
	mnl_attr_put_u8(nlh, MRC_A_PEER, 1);
	CHECK(peer_list_cb(nlh, &l) == MNL_CB_ERROR && l.n == 0);
	peer_list_free(&l);
}

void peer__fmt_us(void)
{
	static const struct {
		u64 us;
		const char *exp;
	} c[] = {
		{ 0, "0us" }, { 999, "999us" }, { 1000, "1.00ms" },
		{ 1250, "1.25ms" }, { 9999, "10.00ms" }, { 10000, "10.0ms" },
		{ 999949, "999.9ms" }, { 1000000, "1.00s" },
		{ 4294967295ULL, "4294.97s" },
	};
	char buf[32];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		fmt_us(buf, sizeof(buf), c[i].us);
		CHECK_STR(buf, c[i].exp);
	}
}

/* --- argument parsing --- */

void parse__node(void)
{
	static const struct {
		const char *in;
		u32 exp;	/* 0: refused */
	} c[] = {
		{ "1", 1 }, { "2", 2 }, { "2147483647", 0x7fffffff },
		{ "0x7fffffff", 0x7fffffff }, { "0X10", 16 }, { "0x1", 1 },
		{ "0", 0 }, { "0x0", 0 }, { "2147483648", 0 },
		{ "0x80000000", 0 }, { "4294967297", 0 },
		{ "99999999999999999999999", 0 }, { "", 0 }, { "-1", 0 },
		{ "+1", 0 }, { " 1", 0 }, { "1 ", 0 }, { "1x", 0 },
		{ "x", 0 }, { "010", 0 }, { "0x", 0 }, { "1K", 0 },
		{ "node", 0 },
	};
	char err[128];
	unsigned int i;
	u32 node;
	int rc;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		node = 12345;
		err[0] = '\0';
		rc = parse_node(c[i].in, &node, err, sizeof(err));
		if (c[i].exp) {
			CHECK(rc == 0 && node == c[i].exp);
		} else {
			CHECK(rc == -1 && node == 12345);
			CHECK(strstr(err, "invalid node id \"") &&
			      strstr(err, "\" (expected 1..2147483647)"));
		}
		if ((rc == 0) != (c[i].exp != 0))
			printf("# node \"%s\": rc %d, node %u\n", c[i].in, rc,
			       node);
	}
}

void parse__addrs(void)
{
	struct peer_addr v[MRC_PEER_MAX_ADDRS];
	char err[256], text[INET6_ADDRSTRLEN];
	unsigned int n = 0;

	CHECK(parse_addrs("10.200.0.2", v, &n, MRC_PEER_MAX_ADDRS, err,
			  sizeof(err)) == 0 && n == 1 && v[0].len == 4 &&
	      !memcmp(v[0].a, addr_v4, 4));
	/* Appends; IPv6, IPv4-mapped IPv6 stays 16 bytes. */
	CHECK(parse_addrs("fd00::2,::ffff:10.0.0.1", v, &n,
			  MRC_PEER_MAX_ADDRS, err, sizeof(err)) == 0 &&
	      n == 3 && v[1].len == 16 && !memcmp(v[1].a, addr_v6, 16) &&
	      v[2].len == 16);
	CHECK_STR(addr_str(&v[2], text, sizeof(text)), "::ffff:10.0.0.1");
	CHECK_STR(addr_str(&v[1], text, sizeof(text)), "fd00::2");

	n = 0;
	CHECK(parse_addrs("1.2.3", v, &n, 8, err, sizeof(err)) == -1 && !n);
	CHECK_STR(err, "invalid address \"1.2.3\" (expected IPv4 or IPv6)");
	CHECK(parse_addrs("1.2.3.4,", v, &n, 8, err, sizeof(err)) == -1);
	CHECK_STR(err, "invalid address \"\" (expected IPv4 or IPv6)");
	n = 0;
	CHECK(parse_addrs("1.2.3.4,,5.6.7.8", v, &n, 8, err, sizeof(err)) == -1);
	CHECK_STR(err, "invalid address \"\" (expected IPv4 or IPv6)");
	n = 0;
	CHECK(parse_addrs("1.2.3.4 ", v, &n, 8, err, sizeof(err)) == -1);
	n = 0;
	CHECK(parse_addrs("rxe0", v, &n, 8, err, sizeof(err)) == -1);
	n = 0;
	CHECK(parse_addrs("1.2.3.4/24", v, &n, 8, err, sizeof(err)) == -1);
	CHECK_STR(err, "invalid address \"1.2.3.4/24\" (expected IPv4 or IPv6)");
	/* Longer than any address: refused, quoted whole. */
	n = 0;
	CHECK(parse_addrs("1111:2222:3333:4444:5555:6666:7777:8888:9999:aaaa:bbbb",
			  v, &n, 8, err, sizeof(err)) == -1);
	CHECK(strstr(err, ":9999:aaaa:bbbb\" (expected"));

	n = 0;
	CHECK(parse_addrs("1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4,1.0.0.5,1.0.0.6,"
			  "1.0.0.7,1.0.0.8", v, &n, 8, err, sizeof(err)) == 0 &&
	      n == 8);
	CHECK(parse_addrs("1.0.0.9", v, &n, 8, err, sizeof(err)) == -1 &&
	      n == 8);
	CHECK_STR(err, "too many addresses (at most 8, one per plane)");
	n = 0;
	CHECK(parse_addrs("1.0.0.1,1.0.0.2,1.0.0.3", v, &n, 2, err,
			  sizeof(err)) == -1 && n == 2);
}

