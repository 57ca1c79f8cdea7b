// SPDX-License-Identifier: GPL-2.0
/*
 * t_event.c - mrcctl self-test: knobs and monitor events
 */
#include "selftest.h"

/* --- config --- */

struct nlmsghdr *mk_config(void *buf, u8 cmd, u32 max_rails,
			   u32 min_mtu, bool future)
{
	struct nlmsghdr *nlh = genl_put(buf, mrc_family, cmd, 1, 0);
	struct nlattr *nest;

	nest = mnl_attr_nest_start(nlh, MRC_A_CONFIG);
	if (max_rails)
		mnl_attr_put_u32(nlh, MRC_CONFIG_A_MAX_RAILS, max_rails);
	if (min_mtu)
		mnl_attr_put_u32(nlh, MRC_CONFIG_A_MIN_MTU, min_mtu);
	if (future)
		mnl_attr_put_u32(nlh, MRC_CONFIG_A_MAX + 5, 1);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

void config__table(void)
{
	struct cfgvals cv = { 0 };
	bool all[MRC_KNOB_NR], one[MRC_KNOB_NR];
	char buf[1024], *got;
	int i;

	reset_state();
	for (i = 0; i < MRC_KNOB_NR; i++) {
		all[i] = true;
		one[i] = i == MRC_KNOB_min_mtu;
	}
	CHECK(config_cb(mk_config(buf, MRC_CMD_CONFIG_GET, 64, 2048, true),
			&cv) == MNL_CB_OK);
	cap_begin();
	config_print(&cv, all);
	got = cap_end();
	/* Every knob of the table, whether or not the kernel sent it. */
	CHECK(got && !strncmp(got, "NAME ", 5));
	CHECK(got && strstr(got, "\nmax_rails ") &&
	      strstr(strstr(got, "\nmax_rails "), " 64 "));
	CHECK(got && strstr(got, "\nmin_mtu ") &&
	      strstr(strstr(got, "\nmin_mtu "), " 2048 ") &&
	      strstr(got, "256..4096 (pow2)"));
	for (unsigned int k = 0; k < MRC_KNOB_NR; k++) {
		char line[64];

		snprintf(line, sizeof(line), "\n%s ", mrc_knobs[k].name);
		CHECK(got && strstr(got, line));
	}
	free(got);

	opt.json = true;
	cap_begin();
	config_print(&cv, one);
	got = cap_end();
	CHECK_STR(got,
		  "[{\"name\":\"min_mtu\",\"value\":2048,\"unit\":\"bytes\","
		  "\"min\":256,\"max\":4096,\"default\":1024,\"pow2\":true}]\n");
	free(got);

	/* A knob the kernel did not report. */
	memset(&cv, 0, sizeof(cv));
	config_cb(mk_config(buf, MRC_CMD_CONFIG_GET, 0, 512, false), &cv);
	cap_begin();
	config_print(&cv, all);
	got = cap_end();
	CHECK(got && strstr(got, "\"name\":\"max_rails\",\"value\":null,"));
	free(got);
	opt.json = false;
	cap_begin();
	config_print(&cv, all);
	got = cap_end();
	CHECK(got && strstr(got, "\nmax_rails ") &&
	      strstr(strstr(got, "\nmax_rails "), " - "));
	free(got);
}

/* --- events --- */

/* What event_print() prints for @nlh must be @exp. */
#define CHECK_EVENT(nlh, exp) do {					\
		char *ev_ = event_of(nlh);				\
									\
		CHECK_STR(ev_, exp);					\
		free(ev_);						\
	} while (0)

static char *event_of(const struct nlmsghdr *nlh)
{
	cap_begin();
	if (event_print(nlh)) {
		free(cap_end());
		return NULL;
	}
	return cap_end();
}

void event__plain(void)
{
	char buf[4096], *got;

	reset_state();
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_ADDED, 2, "rxe2:1", "rxe2", 1,
			    "veth0", R_FULL),
		    "[rail added] rxe2:1 netdev veth0 state active\n");
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_ADDED, 2, "rxe2:1", "rxe2", 1,
			    NULL, 0), "[rail added] rxe2:1 state active\n");
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_STATE, 1, "rxe1:1", "rxe1", 1,
			    "eth1", R_FULL | R_PREV),
		    "[rail state] rxe1:1 down -> active\n");
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1", 1,
			    "eth1", R_FULL), "[rail removed] rxe1:1\n");

	/* Config: only the knobs that differ from the last values seen. */
	CHECK_EVENT(mk_config(buf, MRC_CMD_CONFIG_CHANGED, 64, 1024, false),
		    "[config] max_rails 64 min_mtu 1024\n");	/* no baseline */
	CHECK_EVENT(mk_config(buf, MRC_CMD_CONFIG_CHANGED, 64, 4096, true),
		    "[config] min_mtu 4096\n");
	CHECK_EVENT(mk_config(buf, MRC_CMD_CONFIG_CHANGED, 32, 4096, false),
		    "[config] max_rails 32\n");

	CHECK_EVENT(mk_config(buf, 77, 1, 1, false), "[unknown event 77]\n");

	/* Filtered out: nothing printed. */
	mon_filter = MON_CONFIG;
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1", 1,
			    NULL, 0), "");
	mon_filter = MON_RAIL | MON_CONFIG;

	/* A rail event without a rail is reported, not printed. */
	got = event_of(mk_config(buf, MRC_CMD_RAIL_ADDED, 1, 1, false));
	CHECK(got == NULL);
	free(got);

	opt.timestamp = true;
	got = event_of(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1",
			       1, NULL, 0));
	/* "[2024-05-01T12:00:00.123456+0200] [rail removed] rxe1:1\n" */
	CHECK(got && got[0] == '[' && strlen(got) > 34 && got[11] == 'T' &&
	      got[20] == '.' && strstr(got, "] [rail removed] rxe1:1\n"));
	if (got)
		t_show("timestamped", got);
	free(got);
}

void event__json(void)
{
	char buf[4096], *got;

	reset_state();
	opt.json = true;
	opt.pretty = true;	/* ignored: one object per line */
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_STATE, 1, "rxe1:1", "rxe1", 1,
			    "eth1", R_FULL | R_PREV),
		    "{\"event\":\"rail_state\",\"rail\":{\"id\":1,\"name\":\"rxe1:1\","
		    "\"ibdev\":\"rxe1\",\"port\":1,\"netdev\":\"eth1\",\"ifindex\":3,"
		    "\"link_layer\":\"ethernet\",\"gid\":\"::ffff:10.200.0.1\","
		    "\"gid_index\":1,\"mtu\":4096,\"speed_mbps\":10000,\"qps\":8,"
		    "\"weight\":100,\"state\":\"active\",\"prev_state\":\"down\"}}\n");
	got = event_of(mk_rail(buf, MRC_CMD_RAIL_ADDED, 1, "rxe1:1", "rxe1",
			       1, NULL, 0));
	CHECK(got && !strncmp(got, "{\"event\":\"rail_added\",\"rail\":{", 30));
	free(got);
	got = event_of(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1",
			       1, NULL, 0));
	CHECK(got && !strncmp(got, "{\"event\":\"rail_removed\",\"rail\":{", 32));
	free(got);

	mon_cfg.has[MRC_KNOB_max_rails] = mon_cfg.has[MRC_KNOB_min_mtu] = true;
	mon_cfg.val[MRC_KNOB_max_rails] = 64;
	mon_cfg.val[MRC_KNOB_min_mtu] = 1024;
	CHECK_EVENT(mk_config(buf, MRC_CMD_CONFIG_CHANGED, 64, 4096, false),
		    "{\"event\":\"config\",\"config\":{\"max_rails\":64,\"min_mtu\":4096},"
		    "\"changed\":[\"min_mtu\"]}\n");

	opt.timestamp = true;
	got = event_of(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1",
			       1, NULL, 0));
	CHECK(got && !strncmp(got, "{\"timestamp\":\"", 14) &&
	      strstr(got, "\",\"event\":\"rail_removed\","));
	free(got);

	cap_begin();
	monitor_lost();
	got = cap_end();
	CHECK(got && strstr(got, "\"event\":\"warning\",\"message\":\"events lost"));
	free(got);
	opt.json = opt.pretty = opt.timestamp = false;
	cap_begin();
	monitor_lost();
	got = cap_end();
	CHECK_STR(got,
		  "[warning] events lost: netlink receive buffer overrun (ENOBUFS)\n");
	free(got);
}

/* sched: class-fallback events, plain and JSON, and the peer filter. */
void event__class_fallback(void)
{
	char buf[1024], *got;
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	reset_state();
	nlh = mk_nest(buf, MRC_CMD_CLASS_FALLBACK, MRC_A_CLASS, &nest);
	mnl_attr_put_u32(nlh, MRC_CLASS_A_ID, MRC_CLASS_LATENCY);
	mnl_attr_put_strz(nlh, MRC_CLASS_A_NAME, "latency");
	mnl_attr_put_u32(nlh, MRC_CLASS_A_NODE, 2);
	mnl_attr_put_u8(nlh, MRC_CLASS_A_FALLBACK, 1);
	mnl_attr_nest_end(nlh, nest);
	CHECK_EVENT(nlh, "[class fallback] node 2 class latency: on other rails\n");
	opt.json = true;
	got = event_of(nlh);
	CHECK_STR(got, "{\"event\":\"class_fallback\",\"node\":2,"
		  "\"class\":\"latency\",\"fallback\":true}\n");
	free(got);
	opt.json = false;
	mon_filter = MON_RAIL;
	CHECK_EVENT(nlh, "");
	mon_filter = MON_ALL;
}

void event__peer_plain(void)
{
	char buf[8192], buf2[1024], *got;
	struct nlmsghdr *nlh;
	struct nlattr *nest, *an;

	reset_state();
	/* PEER_ADDED: node and addresses. */
	CHECK_EVENT(mk_peer_added(buf, (u8[]){ 10, 200, 1, 2 }, 4),
		    "[peer added] node 2 addrs 10.200.0.2,10.200.1.2\n");

	/* The full peer works too (paths not printed). */
	CHECK_EVENT(mk_peer(buf, MRC_CMD_PEER_ADDED, 7, 0),
		    "[peer added] node 7 addrs 10.200.0.2,fd00::2\n");

	CHECK_EVENT(mk_peer_node(buf, MRC_CMD_PEER_REMOVED, 2),
		    "[peer removed] node 2\n");

	/* PATH_STATE: the peer with one path, state and prev-state. */
	CHECK_EVENT(mk_path_state(buf, P_PREV | P_FUTURE),
		    "[path state] node 2 plane 1 rxe1:1 ev 3 active -> assumed-bad\n");

	/* Missing pieces: "?". */
	nlh = mk_peer_open(buf2, MRC_CMD_PATH_STATE, 0, &nest);
	an = mnl_attr_nest_start(nlh, MRC_PEER_A_PATH);
	mnl_attr_put_u8(nlh, MRC_PATH_A_STATE, MRC_PATH_STATE_DEAD);
	mnl_attr_nest_end(nlh, an);
	mnl_attr_nest_end(nlh, nest);
	CHECK_EVENT(nlh, "[path state] node ? ? ? -> dead\n");

	/* A peer event without a peer is reported, not printed. */
	got = event_of(mk_config(buf, MRC_CMD_PEER_REMOVED, 1, 1, false));
	CHECK(got == NULL && nlerr.err == EPROTO);
	CHECK_STR(nlerr.msg, "peer_removed event without a peer");

	/* Filters: "path" keeps only path events, "peer" both. */
	mon_filter = MON_PATH;
	CHECK_EVENT(mk_peer(buf, MRC_CMD_PEER_ADDED, 7, 0), "");
	CHECK_EVENT(nlh, "[path state] node ? ? ? -> dead\n");
	mon_filter = MON_RAIL | MON_CONFIG;
	CHECK_EVENT(nlh, "");
	CHECK_EVENT(mk_peer(buf, MRC_CMD_PEER_REMOVED, 7, 0), "");
	mon_filter = MON_PEER;
	CHECK_EVENT(nlh, "[path state] node ? ? ? -> dead\n");
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1", 1,
			    NULL, 0), "");
	mon_filter = MON_ALL;
}

void event__peer_json(void)
{
	char buf[8192];

	reset_state();
	opt.json = true;
	CHECK_EVENT(mk_peer_added(buf, addr_v6, sizeof(addr_v6)),
		    "{\"event\":\"peer_added\",\"peer\":{\"node\":2,"
		    "\"addrs\":[\"10.200.0.2\",\"fd00::2\"]}}\n");

	CHECK_EVENT(mk_peer_node(buf, MRC_CMD_PEER_REMOVED, 2),
		    "{\"event\":\"peer_removed\",\"peer\":{\"node\":2}}\n");

	CHECK_EVENT(mk_path_state(buf, P_PREV | P_RESOLVED),
		    "{\"event\":\"path_state\",\"peer\":{\"node\":2,\"paths\":["
		    "{\"plane\":1,\"rail\":\"rxe1:1\",\"entropy\":3,"
		    "\"local_qpn\":36,\"remote_qpn\":46,"
		    "\"state\":\"assumed-bad\",\"rto_us\":1000,\"inflight\":9,"
		    "\"prev_state\":\"active\"}]}}\n");
	opt.json = false;
}

