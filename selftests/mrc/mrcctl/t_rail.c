// SPDX-License-Identifier: GPL-2.0
/*
 * t_rail.c - mrcctl self-test: rail messages: decoding, text and JSON
 */
#include "selftest.h"

/* --- synthetic kernel messages --- */

const u8 test_gid[16] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 200, 0, 1
};

/* A message @cmd whose top-level nest @type is left open in *@nest. */
struct nlmsghdr *mk_nest(void *buf, u8 cmd, u16 type,
			 struct nlattr **nest)
{
	struct nlmsghdr *nlh = genl_put(buf, mrc_family, cmd, 1, 0);

	*nest = mnl_attr_nest_start(nlh, type);
	return nlh;
}

struct nlmsghdr *mk_rail(void *buf, u8 cmd, u32 id, const char *name,
			 const char *ibdev, u32 port,
			 const char *netdev, unsigned int what)
{
	struct nlattr *nest, *sn;
	struct nlmsghdr *nlh = mk_nest(buf, cmd, MRC_A_RAIL, &nest);
	unsigned int s;

	mnl_attr_put_u32(nlh, MRC_RAIL_A_ID, id);
	mnl_attr_put_strz(nlh, MRC_RAIL_A_NAME, name);
	mnl_attr_put_strz(nlh, MRC_RAIL_A_IBDEV, ibdev);
	mnl_attr_put_u32(nlh, MRC_RAIL_A_PORT, port);
	mnl_attr_put_u8(nlh, MRC_RAIL_A_LINK_LAYER,
			(what & R_SLOW) ? MRC_LINK_LAYER_INFINIBAND :
			MRC_LINK_LAYER_ETHERNET);
	mnl_attr_put_u32(nlh, MRC_RAIL_A_MTU, 4096);
	mnl_attr_put_u32(nlh, MRC_RAIL_A_SPEED, (what & R_SLOW) ? 0 : 10000);
	mnl_attr_put_u8(nlh, MRC_RAIL_A_STATE,
			(what & R_SLOW) ? MRC_RAIL_STATE_NO_GID :
			MRC_RAIL_STATE_ACTIVE);
	if (what & R_FULL) {
		mnl_attr_put_strz(nlh, MRC_RAIL_A_NETDEV, netdev);
		mnl_attr_put_u32(nlh, MRC_RAIL_A_IFINDEX, 3);
		mnl_attr_put(nlh, MRC_RAIL_A_GID, sizeof(test_gid), test_gid);
		mnl_attr_put_u32(nlh, MRC_RAIL_A_GID_INDEX, 1);
		mnl_attr_put_u32(nlh, MRC_RAIL_A_QPS, 8);
		mnl_attr_put_u32(nlh, MRC_RAIL_A_WEIGHT, 100);
	}
	if (what & R_PREV)
		mnl_attr_put_u8(nlh, MRC_RAIL_A_PREV_STATE,
				MRC_RAIL_STATE_DOWN);
	if (what & R_FUTURE)
		mnl_attr_put_u32(nlh, MRC_RAIL_A_MAX + 7, 42);
	if (what & R_STATS) {
		sn = mnl_attr_nest_start(nlh, MRC_RAIL_A_STATS);
		for (s = 1; s <= MRC_RAIL_STAT_MAX; s++)
			if (s != MRC_RAIL_STAT_PAD)
				mnl_attr_put_u64(nlh, s, s * 1000 + s);
		if (what & R_FUTURE)
			mnl_attr_put_u64(nlh, MRC_RAIL_STAT_MAX + 3, 7);
		mnl_attr_nest_end(nlh, sn);
	}
	if (what & R_DROPS) {
		sn = mnl_attr_nest_start(nlh, MRC_RAIL_A_DROPS);
		mnl_attr_put_u64(nlh, MRC_DROP_NONE, 99);	/* "padding" */
		for (s = MRC_DROP_NONE + 1; s < MRC_DROP_NR; s++)
			mnl_attr_put_u64(nlh, s, s % 2 ? s : 0);
		if (what & R_FUTURE)
			mnl_attr_put_u64(nlh, MRC_DROP_NR + 2, 7);
		mnl_attr_nest_end(nlh, sn);
	}
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

static int parse_rail_msg(const struct nlmsghdr *nlh, struct rail *r)
{
	struct mrc_msg m;

	if (mrc_msg_parse(nlh, &m) || !m.nest[MRC_A_RAIL])
		return -1;
	return rail_parse(m.nest[MRC_A_RAIL], r);
}

static char *rail_plain_of(const struct nlmsghdr *nlh)
{
	struct rail r;

	if (parse_rail_msg(nlh, &r))
		return NULL;
	cap_begin();
	rail_print(&r, NULL, true);
	return cap_end();
}

void rail__plain(void)
{
	char buf[4096], *got;

	reset_state();
	got = rail_plain_of(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1",
				    "rxe0", 1, "eth0", R_FULL | R_FUTURE));
	CHECK_STR(got,
		  "0: rxe0:1  netdev eth0  state active  mtu 4096  speed 10000Mb/s  link ethernet  qps 8  weight 100\n"
		  "    gid ::ffff:10.200.0.1 index 1\n");
	free(got);

	got = rail_plain_of(mk_rail(buf, MRC_CMD_RAIL_GET, 7, "mlx5_0:2",
				    "mlx5_0", 2, NULL, R_SLOW));
	CHECK_STR(got,
		  "7: mlx5_0:2  state no-gid  mtu 4096  speed unknown  link infiniband\n");
	free(got);
}

void rail__plain_stats(void)
{
	char buf[4096], *got;

	reset_state();
	opt.stats = true;
	got = rail_plain_of(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1",
				    "rxe0", 1, "eth0",
				    R_FULL | R_STATS | R_DROPS | R_FUTURE));
	/* Only the non-zero drop reasons, six to a row. */
	CHECK_STR(got,
		  "0: rxe0:1  netdev eth0  state active  mtu 4096  speed 10000Mb/s  link ethernet  qps 8  weight 100\n"
		  "    gid ::ffff:10.200.0.1 index 1\n"
		  "    RX:      packets bytes errors\n"
		  "                3003  4004  12012\n"
		  "    TX:      packets bytes errors\n"
		  "                1001  2002   5005\n"
		  "    drops:   rail_down malformed no_buffer\n"
		  "                  6006      7007      8008\n"
		  "    reasons: truncated bad_type bad_offset bad_seg not_for_us no_memory\n"
		  "                     1        3          5       7          9        11\n"
		  "             bad_field unexpected bad_credit replayed\n"
		  "                    13         15         17       19\n"
		  "    QP:      errors recoveries\n"
		  "              13013      14014\n"
		  "    notices: down_tx down_rx\n"
		  "               15015   16016\n"
		  "    events:  state_changes port_events\n"
		  "                      9009       10010\n");
	free(got);

	/* No counters from the kernel: "-" placeholders, no reasons. */
	got = rail_plain_of(mk_rail(buf, MRC_CMD_RAIL_GET, 1, "rxe1:1",
				    "rxe1", 1, NULL, 0));
	CHECK(got && strstr(got, "    RX:      packets bytes errors\n"
				 "                   -     -      -\n"));
	CHECK(got && !strstr(got, "reasons:") && !strstr(got, "qps"));
	free(got);
	opt.stats = false;

	/* Without -s: no counters, no reasons. */
	got = rail_plain_of(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1",
				    "rxe0", 1, "eth0", R_FULL | R_STATS | R_DROPS));
	CHECK(got && !strstr(got, "RX:") && !strstr(got, "reasons:"));
	free(got);
}

static char *rail_json_of(const struct nlmsghdr *nlh, bool all_keys)
{
	struct rail r;

	if (parse_rail_msg(nlh, &r))
		return NULL;
	cap_begin();
	print_init(out, true, false);
	rail_print(&r, NULL, all_keys);
	return cap_end();
}

void rail__json(void)
{
	char buf[4096], *got;

	reset_state();
	got = rail_json_of(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1", "rxe0",
				   1, "eth0", R_FULL | R_STATS), true);
	CHECK_STR(got,
		  "{\"id\":0,\"name\":\"rxe0:1\",\"ibdev\":\"rxe0\",\"port\":1,"
		  "\"netdev\":\"eth0\",\"ifindex\":3,\"link_layer\":\"ethernet\","
		  "\"gid\":\"::ffff:10.200.0.1\",\"gid_index\":1,\"mtu\":4096,"
		  "\"speed_mbps\":10000,\"qps\":8,\"weight\":100,"
		  "\"state\":\"active\"}\n");
	free(got);

	opt.stats = true;
	got = rail_json_of(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1", "rxe0",
				   1, "eth0", R_FULL | R_STATS | R_DROPS | R_FUTURE),
			   true);
	/* Every drop reason, zero or not; padding and newer ones not. */
	CHECK(got && strstr(got,
			    ",\"stats\":{\"tx_packets\":1001,\"tx_bytes\":2002,"
			    "\"rx_packets\":3003,\"rx_bytes\":4004,"
			    "\"tx_errors\":5005,\"drop_rail_down\":6006,"
			    "\"drop_malformed\":7007,\"drop_no_buffer\":8008,"
			    "\"state_changes\":9009,\"port_events\":10010,"
			    "\"rx_errors\":12012,\"qp_errors\":13013,"
			    "\"qp_recoveries\":14014,"
			    "\"down_notices_tx\":15015,"
			    "\"down_notices_rx\":16016},"
			    "\"drops\":{\"truncated\":1,\"bad_version\":0,"
			    "\"bad_type\":3,\"bad_length\":0,\"bad_offset\":5,"
			    "\"msg_too_big\":0,\"bad_seg\":7,\"bad_sack\":0,"
			    "\"not_for_us\":9,\"unknown_peer\":0,"
			    "\"no_memory\":11,\"duplicate\":0,\"bad_field\":13,"
			    "\"wrong_path\":0,\"unexpected\":15"));
	if (got && !strstr(got, "\"drops\":{\"truncated\":1,"))
		t_show("got", got);
	free(got);

	/* Absent optional attributes are null in show output... */
	got = rail_json_of(mk_rail(buf, MRC_CMD_RAIL_GET, 2, "rxe2:1", "rxe2",
				   1, NULL, 0), true);
	CHECK(got && strstr(got, "\"netdev\":null,\"ifindex\":null,"));
	CHECK(got && strstr(got, "\"gid\":null,\"gid_index\":null,"));
	CHECK(got && strstr(got, "\"stats\":{\"tx_packets\":null,"));
	CHECK(got && strstr(got, "\"qps\":null,"));
	CHECK(got && strstr(got, "\"drops\":{\"truncated\":null,"));
	free(got);
	/* ...and left out of events. */
	got = rail_json_of(mk_rail(buf, MRC_CMD_RAIL_GET, 2, "rxe2:1", "rxe2",
				   1, NULL, 0), false);
	CHECK(got && !strstr(got, "netdev") && !strstr(got, "stats"));
	free(got);
	opt.stats = false;
}

void rail__malformed(void)
{
	char buf[1024];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct rail r;

	reset_state();
	nlh = mk_nest(buf, MRC_CMD_RAIL_GET, MRC_A_RAIL, &nest);
	mnl_attr_put_u8(nlh, MRC_RAIL_A_ID, 1);		/* u32 expected */
	mnl_attr_nest_end(nlh, nest);
	CHECK(parse_rail_msg(nlh, &r) < 0);
	CHECK(nlerr.err == EPROTO);
	CHECK_STR(nlerr.msg, "malformed rail attribute 1 from the kernel");

	nlh = mk_nest(buf, MRC_CMD_RAIL_GET, MRC_A_RAIL, &nest);
	mnl_attr_put(nlh, MRC_RAIL_A_GID, 4, "abcd");	/* 16 expected */
	mnl_attr_nest_end(nlh, nest);
	CHECK(parse_rail_msg(nlh, &r) < 0);

	nlh = mk_nest(buf, MRC_CMD_RAIL_GET, MRC_A_RAIL, &nest);
	mnl_attr_put(nlh, MRC_RAIL_A_NAME, 3, "abc");	/* no NUL */
	mnl_attr_nest_end(nlh, nest);
	CHECK(parse_rail_msg(nlh, &r) < 0);

	/* Header shorter than a genlmsghdr. */
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = mrc_family;
	CHECK(parse_rail_msg(nlh, &r) < 0);
}

void rail__filter(void)
{
	char buf[4096];
	struct rail_list l = { 0 };
	static const char *const dev[] = {
		"rxe0:1", "rxe0", "eth0", "rxe1:1", "nope", "rxe", "rxe0:"
	};
	static const size_t exp[] = { 1, 2, 1, 1, 0, 0, 0 };
	unsigned int i;

	reset_state();
	for (i = 0; i < ARRAY_SIZE(dev); i++) {
		l.n = 0;
		l.filter = dev[i];
		rail_list_cb(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1", "rxe0",
				     1, "eth0", R_FULL), &l);
		rail_list_cb(mk_rail(buf, MRC_CMD_RAIL_GET, 1, "rxe0:2", "rxe0",
				     2, "eth1", R_FULL), &l);
		rail_list_cb(mk_rail(buf, MRC_CMD_RAIL_GET, 2, "rxe1:1", "rxe1",
				     1, NULL, 0), &l);
		if (l.n != exp[i])
			printf("# filter \"%s\": %zu rails, expected %zu\n",
			       dev[i], l.n, exp[i]);
		CHECK(l.n == exp[i]);
	}
	/* Messages of another family are not ours. */
	l.n = 0;
	l.filter = NULL;
	mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1", "rxe0", 1, "eth0", R_FULL);
	mrc_family = 0x99;
	rail_list_cb((struct nlmsghdr *)buf, &l);
	mrc_family = 0x1234;
	CHECK(l.n == 0);
	free(l.v);
}

