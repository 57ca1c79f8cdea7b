// SPDX-License-Identifier: GPL-2.0
/*
 * monitor.c - mrcctl monitor: one line per event of the "events" group
 * (rails, knobs, peers, paths, class fallbacks), as text or one JSON
 * object per line.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mrcctl.h"
#include "nl.h"
#include "print.h"

unsigned int mon_filter = MON_ALL;

/*
 * CONFIG_CHANGED carries every knob, not just the changed ones; the
 * monitor keeps the last values seen (fetched at start) to say which
 * knobs changed.  With no difference visible (no baseline, or a race
 * with the initial fetch), all knobs in the event count as changed.
 */
struct cfgvals mon_cfg;

static void config_changed(const struct cfgvals *cv, bool *changed)
{
	bool any = false;
	int i;

	for (i = 0; i < MRC_KNOB_NR; i++) {
		changed[i] = cv->has[i] &&
			     (!mon_cfg.has[i] || mon_cfg.val[i] != cv->val[i]);
		any |= changed[i];
	}
	for (i = 0; i < MRC_KNOB_NR && !any; i++)
		changed[i] = cv->has[i];
	for (i = 0; i < MRC_KNOB_NR; i++)
		if (cv->has[i]) {
			mon_cfg.has[i] = true;
			mon_cfg.val[i] = cv->val[i];
		}
}

/* Local time, ISO 8601 with microseconds, like "ip -ts monitor". */
static void timestamp_str(char *buf, size_t sz)
{
	struct timespec ts;
	struct tm tm;
	char date[24], zone[8];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	snprintf(buf, sz, "%s.%06d%s", date, (int)(ts.tv_nsec / 1000), zone);
}

static const char *event_name(u8 cmd)
{
	switch (cmd) {
	case MRC_CMD_RAIL_ADDED:
		return "rail_added";
	case MRC_CMD_RAIL_REMOVED:
		return "rail_removed";
	case MRC_CMD_RAIL_STATE:
		return "rail_state";
	case MRC_CMD_CONFIG_CHANGED:
		return "config";
	case MRC_CMD_PEER_ADDED:
		return "peer_added";
	case MRC_CMD_PEER_REMOVED:
		return "peer_removed";
	case MRC_CMD_PATH_STATE:
		return "path_state";
	case MRC_CMD_CLASS_FALLBACK:
		return "class_fallback";
	}
	return "unknown";
}

/* sched: a class-fallback event's class nest. */
struct class_ev {
	u32 id, node;
	u8 fallback;
};

static int class_ev_cb(const struct nlattr *a, void *data)
{
	struct class_ev *c = data;
	unsigned int t = mnl_attr_get_type(a);

	if (t == MRC_CLASS_A_ID || t == MRC_CLASS_A_NODE) {
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return bad_attr("class", t);
		*(t == MRC_CLASS_A_ID ? &c->id : &c->node) =
			mnl_attr_get_u32(a);
	} else if (t == MRC_CLASS_A_FALLBACK) {
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return bad_attr("class", t);
		c->fallback = mnl_attr_get_u8(a);
	}
	return MNL_CB_OK;
}

/* Starts the line of an event: its object, "[time] " or "timestamp". */
static void event_begin(void)
{
	char ts[64];

	/* One JSON object per line, always (-p does not indent events). */
	print_init(print_file(), opt.json, false);
	open_json_object(NULL);
	if (opt.timestamp) {
		timestamp_str(ts, sizeof(ts));
		print_string(PRINT_ANY, "timestamp", "[%s] ", ts);
	}
}

static void event_end(void)
{
	close_json_object();
	print_fmt("\n");
	fflush(print_file());
}

/*
 * "[class fallback] node 2 class latency: on other rails" or "...: back
 * on its rails"; JSON {"event":"class_fallback","node":2,...}.
 */
static int class_event_print(const struct mrc_msg *m)
{
	struct class_ev c = { 0 };

	if (!m->nest[MRC_A_CLASS] ||
	    mnl_attr_parse_nested(m->nest[MRC_A_CLASS], class_ev_cb, &c) < 0) {
		if (!m->nest[MRC_A_CLASS])
			nlerr_set(EPROTO, "class_fallback event without a class");
		return -1;
	}
	event_begin();
	print_string(PRINT_JSON, "event", NULL, "class_fallback");
	print_uint(PRINT_ANY, "node", "[class fallback] node %u", c.node);
	print_string(PRINT_ANY, "class", " class %s", class_name(c.id));
	print_bool(PRINT_JSON, "fallback", NULL, c.fallback);
	print_fmt(": %s", c.fallback ? "on other rails" : "back on its rails");
	event_end();
	return 0;
}

/*
 * CONFIG_CHANGED: "[config] min_mtu 4096" (the knobs that changed), or
 * "config": { every knob sent }, "changed": [ "min_mtu" ].
 */
static void config_event_print(const struct cfgvals *cv, const bool *changed)
{
	bool any = false;
	int i;

	print_fmt("[config]");
	open_json_object("config");
	for (i = 0; i < MRC_KNOB_NR; i++)
		if (cv->has[i])
			print_uint(PRINT_JSON, mrc_knobs[i].name, NULL,
				   cv->val[i]);
	close_json_object();
	open_json_array("changed");
	for (i = 0; i < MRC_KNOB_NR; i++)
		if (changed[i]) {
			print_string(PRINT_JSON, NULL, NULL, mrc_knobs[i].name);
			print_fmt(" %s %u", mrc_knobs[i].name, cv->val[i]);
			any = true;
		}
	close_json_array();
	if (!any)
		print_fmt(" (unknown knobs)");
}

/* The text of a rail event; its JSON is the rail ("rail": {...}). */
static void rail_event_print(u8 cmd, const struct rail *r)
{
	const char *name = HAS(r, MRC_RAIL_A_NAME) ? r->name : "?";

	print_mute_text(true);
	rail_print(r, "rail", false);
	print_mute_text(false);
	switch (cmd) {
	case MRC_CMD_RAIL_ADDED:
		print_fmt("[rail added] %s", name);
		if (HAS(r, MRC_RAIL_A_NETDEV))
			print_fmt(" netdev %s", r->netdev);
		if (HAS(r, MRC_RAIL_A_STATE))
			print_fmt(" state %s", mrc_rail_state_name(r->state));
		break;
	case MRC_CMD_RAIL_REMOVED:
		print_fmt("[rail removed] %s", name);
		break;
	default:
		print_fmt("[rail state] %s %s -> %s", name,
			  HAS(r, MRC_RAIL_A_PREV_STATE) ?
			  mrc_rail_state_name(r->prev_state) : "?",
			  HAS(r, MRC_RAIL_A_STATE) ?
			  mrc_rail_state_name(r->state) : "?");
	}
}

/*
 * "[peer added] node 2 addrs 10.200.0.2,10.200.1.2", "[peer removed]
 * node 2", "[path state] node 2 plane 1 rxe1:1 ev 3 active -> assumed-bad";
 * the JSON is the peer ("peer": {...}, a path event's one path in it).
 */
static void peer_event_print(u8 cmd, const struct peer *p)
{
	print_mute_text(true);
	peer_print(p, "peer", false);
	print_mute_text(false);
	switch (cmd) {
	case MRC_CMD_PEER_ADDED:
	case MRC_CMD_PEER_REMOVED:
		print_fmt("[peer %s] ",
			  cmd == MRC_CMD_PEER_ADDED ? "added" : "removed");
		node_print(p);
		if (cmd == MRC_CMD_PEER_ADDED && p->naddrs) {
			print_fmt(" addrs ");
			addrs_print(p);
		}
		break;
	default:
		print_fmt("[path state] ");
		node_print(p);
		if (p->npaths)
			path_event_print(&p->paths[0]);
		else
			print_fmt(" (no path)");
	}
}

int event_print(const struct nlmsghdr *nlh)
{
	bool changed[MRC_KNOB_NR] = { false };
	struct cfgvals cv = { 0 };
	struct mrc_msg m;
	struct rail r;
	struct peer p;
	bool is_rail, is_peer;

	if (mrc_msg_parse(nlh, &m))
		return -1;
	if (m.cmd == MRC_CMD_CLASS_FALLBACK)	/* sched */
		return mon_filter & MON_PEER ? class_event_print(&m) : 0;
	is_rail = m.cmd == MRC_CMD_RAIL_ADDED ||
		  m.cmd == MRC_CMD_RAIL_REMOVED || m.cmd == MRC_CMD_RAIL_STATE;
	is_peer = m.cmd == MRC_CMD_PEER_ADDED ||
		  m.cmd == MRC_CMD_PEER_REMOVED || m.cmd == MRC_CMD_PATH_STATE;
	if (is_rail && !(mon_filter & MON_RAIL))
		return 0;
	if (m.cmd == MRC_CMD_CONFIG_CHANGED && !(mon_filter & MON_CONFIG))
		return 0;
	if ((m.cmd == MRC_CMD_PEER_ADDED || m.cmd == MRC_CMD_PEER_REMOVED) &&
	    !(mon_filter & MON_PEER))
		return 0;
	if (m.cmd == MRC_CMD_PATH_STATE && !(mon_filter & (MON_PEER | MON_PATH)))
		return 0;
	if (is_peer) {
		if (!m.nest[MRC_A_PEER]) {
			nlerr_set(EPROTO, "%s event without a peer",
				  event_name(m.cmd));
			return -1;
		}
		if (peer_parse(m.nest[MRC_A_PEER], &p)) {
			peer_free(&p);
			return -1;
		}
	}
	if (is_rail) {
		if (!m.nest[MRC_A_RAIL]) {
			nlerr_set(EPROTO, "%s event without a rail",
				  event_name(m.cmd));
			return -1;
		}
		if (rail_parse(m.nest[MRC_A_RAIL], &r))
			return -1;
	}
	if (m.cmd == MRC_CMD_CONFIG_CHANGED) {
		if (m.nest[MRC_A_CONFIG] &&
		    config_parse(m.nest[MRC_A_CONFIG], &cv))
			return -1;
		config_changed(&cv, changed);
	}

	event_begin();
	print_string(PRINT_JSON, "event", NULL, event_name(m.cmd));
	if (m.cmd == MRC_CMD_CONFIG_CHANGED)
		config_event_print(&cv, changed);
	else if (is_rail)
		rail_event_print(m.cmd, &r);
	else if (is_peer)
		peer_event_print(m.cmd, &p);
	else
		print_uint(PRINT_ANY, "cmd", "[unknown event %u]", m.cmd);
	event_end();
	if (is_peer)
		peer_free(&p);
	return 0;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)data;
	if (nlh->nlmsg_type != mrc_family)
		return MNL_CB_OK;
	if (event_print(nlh)) {
		/* A bad event is reported, not fatal. */
		char buf[1024];

		nlerr_format(&nlerr, buf, sizeof(buf));
		fprintf(stderr, "Warning: %s\n", buf + strlen("Error: "));
	}
	return MNL_CB_OK;
}

void monitor_lost(void)
{
	event_begin();
	print_string(PRINT_JSON, "event", NULL, "warning");
	print_string(PRINT_ANY, "message", "[warning] %s",
		     "events lost: netlink receive buffer overrun (ENOBUFS)");
	event_end();
}

static void usage_monitor(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] monitor [ all | rail | config | peer | path ]\n"
		"       mrcctl monitor help\n"
		"\n"
		"Prints one line per event until interrupted:\n"
		"  [rail added] rxe2:1 netdev veth0 state active\n"
		"  [rail state] rxe1:1 active -> down\n"
		"  [rail removed] rxe1:1\n"
		"  [config] min_mtu 4096\n"
		"  [peer added] node 2 addrs 10.200.0.2,10.200.1.2\n"
		"  [peer removed] node 2\n"
		"  [path state] node 2 plane 1 rxe1:1 ev 3 active -> assumed-bad\n"
		"\"peer\" selects the peer and path events, \"path\" only the\n"
		"path events.  With -j one JSON object per line; with -t a\n"
		"timestamp.\n");
}

/* The words that select events, like the commands of an object. */
static const struct {
	const char *name;
	unsigned int min_len;
	unsigned int filter;
} mon_words[] = {
	{ "all", 0, MON_ALL },
	{ "rail", 0, MON_RAIL },
	{ "config", 0, MON_CONFIG },
	{ "peer", 0, MON_PEER },
	{ "path", 2, MON_PATH },	/* "p" is peer */
};

int do_monitor(int argc, char **argv)
{
	unsigned int filter = 0, i;
	int grp;
	ssize_t n;

	for (; argc > 0; argc--, argv++) {
		for (i = 0; i < ARRAY_SIZE(mon_words); i++)
			if (matches(argv[0], mon_words[i].name) &&
			    strlen(argv[0]) >= mon_words[i].min_len)
				break;
		if (i < ARRAY_SIZE(mon_words)) {
			filter |= mon_words[i].filter;
		} else if (matches(argv[0], "help")) {
			usage_monitor(stdout);
			return 0;
		} else {
			return try_help("unexpected argument", argv[0],
					"monitor");
		}
	}
	if (filter)
		mon_filter = filter;
	if (mrc_connect())
		return 1;
	if (!mrc_events_grp_found) {
		fprintf(stderr,
			"Error: family \"%s\" has no multicast group \"%s\"\n",
			MRC_GENL_NAME, MRC_GENL_MCGRP_EVENTS);
		return 1;
	}
	/*
	 * Baseline for "which knob changed", before joining the group so
	 * that no event is consumed by this request.
	 */
	if ((mon_filter & MON_CONFIG) &&
	    config_fetch(&mon_cfg) < 0)
		memset(&mon_cfg, 0, sizeof(mon_cfg));
	grp = (int)mrc_events_grp;
	if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		fprintf(stderr, "Error: cannot join group \"%s\": %s\n",
			MRC_GENL_MCGRP_EVENTS, strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (;;) {
		n = mnl_socket_recvfrom(nl, rxbuf, sizeof(rxbuf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				monitor_lost();
				continue;
			}
			fprintf(stderr, "Error: receiving events: %s\n",
				strerror(errno));
			return 1;
		}
		/* Events carry seq 0 and portid 0: no tracking. */
		if (nl_run(rxbuf, n, 0, 0, event_cb, NULL) == MNL_CB_ERROR) {
			if (nlerr.err == ENOBUFS) {
				monitor_lost();
				continue;
			}
			nlerr_print();
			return 1;
		}
	}
}
