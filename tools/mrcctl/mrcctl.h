/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrcctl.h - what the objects of mrcctl (rail, peer, config, class,
 * monitor) share: the global options, command dispatch, and the decoded
 * forms of the kernel's rails, peers and knobs that more than one object
 * prints.
 */
#ifndef _MRCCTL_H
#define _MRCCTL_H

#include <stdbool.h>
#include <stdio.h>

#include <linux/netlink.h>
#include <linux/mrc.h>

#include "mrc/core/config.h"
#include "mrc/core/names.h"
#include "mrc/core/wire.h"	/* mrc_drop_reason_name() */

#ifndef MRCCTL_VERSION
#define MRCCTL_VERSION "0.1"
#endif

/* Bitmasks below hold one bit per attribute / counter. */
_Static_assert(MRC_RAIL_A_MAX < 32, "rail attribute bitmask too small");
_Static_assert(MRC_RAIL_STAT_MAX < 32, "rail stat bitmask too small");
_Static_assert(MRC_DROP_NR <= 32, "drop reason bitmask too small");
_Static_assert(MRC_PEER_A_MAX < 32, "peer attribute bitmask too small");
_Static_assert(MRC_PATH_A_MAX < 32, "path attribute bitmask too small");

/* The global options (-j, -p, -s, -t). */
struct mrcctl_opts {
	bool json;
	bool pretty;
	bool stats;
	bool timestamp;
};

extern struct mrcctl_opts opt;

/*
 * Whether @arg abbreviates the keyword @full: a prefix of it, not empty
 * ("s", "sh" and "show" for "show").  iproute2's matches() has the same
 * meaning with the opposite return value (0 on a match).
 */
bool matches(const char *arg, const char *full);
/* "Error: @what "@arg", try "mrcctl @obj help"".  Returns 1. */
int try_help(const char *what, const char *arg, const char *obj);

/*
 * A command of an object.  A word selects the first command it
 * abbreviates that is at least @min_len long ("set" wants "se": "s" is
 * "show").
 */
struct mrcctl_cmd {
	const char *name;
	unsigned int min_len;
	int (*fn)(int argc, char **argv);
};

/*
 * Runs the command argv[0] names from @cmds (the first one, show, if
 * there is no word); "help" prints @usage; anything else is an error.
 */
int mrcctl_cmd_run(const struct mrcctl_cmd *cmds, int argc, char **argv,
		   void (*usage)(FILE *f), const char *obj);

/* An object: "rail", "peer", ...  Its commands run from @fn. */
struct mrcctl_obj {
	const char *name;
	int (*fn)(int argc, char **argv);
};

int do_rail(int argc, char **argv);
int do_peer(int argc, char **argv);
int do_config(int argc, char **argv);
int do_class(int argc, char **argv);
int do_monitor(int argc, char **argv);
int do_key(int argc, char **argv);
/*
 * Reads the key in @path: its bytes as they are, 16 to @max of them
 * (@key holds @max + 1).  Returns the length, or -1 with a message
 * printed (and @key cleared).
 */
int key_file_read(const char *path, unsigned char *key, size_t max);
void usage(FILE *f);

/* ---- rails (rail.c) ---- */

struct rail {
	u32 present;			/* 1 << MRC_RAIL_A_* */
	u32 id, port, ifindex, gid_index, mtu, speed, qps, weight;
	u8 link_layer, state, prev_state;
	u8 gid[16];
	char name[MRC_RAIL_NAME_MAX + 16];
	char ibdev[80];
	char netdev[80];
	u32 stats_present;		/* 1 << MRC_RAIL_STAT_* */
	u64 stats[MRC_RAIL_STAT_MAX + 1];
	u32 drops_present;		/* 1 << MRC_DROP_* */
	u64 drops[MRC_DROP_NR];		/* by enum mrc_drop_reason */
};

#define HAS(r, a)	(!!((r)->present & (1u << (a))))

struct rail_list {
	struct rail *v;
	size_t n, cap;
	const char *filter;	/* rail, ibdev or netdev name; NULL: all */
	bool filter_by_id;
	u32 filter_id;
};

void usage_rail(FILE *f);
/* 0, or -1 with nlerr set. */
int rail_parse(const struct nlattr *nest, struct rail *r);
/*
 * One rail: as show prints it (text), or as a JSON object "@key" (NULL in
 * an array).  With @all_keys (show), every JSON key is there and absent
 * values are null; otherwise (events) only what the kernel sent.
 */
void rail_print(const struct rail *r, const char *key, bool all_keys);
int rail_list_cb(const struct nlmsghdr *nlh, void *data);
void rail_list_print(const struct rail_list *l);

/* ---- peers and their paths (peer.c, path.c) ---- */

/* Addresses kept per peer from a kernel message; more are ignored. */
#define PEER_ADDRS_KEPT	64

struct peer_addr {
	u8 len;				/* 4 (IPv4) or 16 (IPv6) */
	u8 a[16];
};

struct path {
	u32 present;			/* 1 << MRC_PATH_A_* */
	u64 v[MRC_PATH_A_MAX + 1];	/* the integer attributes */
	char rail[MRC_RAIL_NAME_MAX + 16];
};

struct peer {
	u32 present;			/* 1 << MRC_PEER_A_* */
	u32 node, paths_active;
	u32 policy, policy_now;		/* sched */
	u64 fallbacks, explores;
	u8 keyed;			/* MRC_PEER_A_KEYED */
	u32 loss_floor_us;		/* MRC_PEER_A_LOSS_FLOOR_US */
	unsigned int naddrs;
	struct peer_addr addrs[PEER_ADDRS_KEPT];
	struct path *paths;		/* malloc'ed; peer_free() */
	size_t npaths, cap;
	u32 credit_present;		/* 1 << MRC_CREDIT_STAT_* */
	u64 credit[MRC_CREDIT_STAT_MAX + 1];	/* MRC_PEER_A_CREDIT */
};

#define PHAS(p, a)	(!!((p)->present & (1u << (a))))

struct peer_list {
	struct peer *v;
	size_t n, cap;
};

void usage_peer(FILE *f);
void peer_free(struct peer *p);
/* 0, or -1 with nlerr set; peer_free() @p in both cases. */
int peer_parse(const struct nlattr *nest, struct peer *p);
const char *addr_str(const struct peer_addr *pa, char *buf, size_t sz);
/* Text: "node 2", "node ?" if unknown. */
void node_print(const struct peer *p);
/* Text: "10.200.0.2,10.200.1.2" */
void addrs_print(const struct peer *p);
/* One peer, as rail_print() prints a rail. */
void peer_print(const struct peer *p, const char *key, bool all_keys);
int peer_cmp(const void *a, const void *b);
int peer_list_cb(const struct nlmsghdr *nlh, void *data);
void peer_list_free(struct peer_list *l);
void peer_list_print(const struct peer_list *l);
int parse_node(const char *s, u32 *node, char *err, size_t errsz);
int parse_addrs(const char *list, struct peer_addr *v, unsigned int *n,
		unsigned int max, char *err, size_t errsz);
void peer_err_format(u32 node, bool have_node, char *buf, size_t sz);

/* path.c */
int path_attr_cb(const struct nlattr *a, void *data);
int path_cmp(const void *a, const void *b);
void fmt_us(char *buf, size_t sz, u64 us);
/* The paths of @p: a text table, or the JSON array "paths". */
void paths_print(const struct peer *p, bool all_keys);
/* Text: "plane 1 rxe1:1 ev 3 active -> assumed-bad" of a path event. */
void path_event_print(const struct path *pa);

/* ---- knobs (config.c) ---- */

struct cfgvals {
	bool has[MRC_KNOB_NR];
	u32 val[MRC_KNOB_NR];
};

void known_keys(FILE *f, const char *sep);
int config_parse(const struct nlattr *nest, struct cfgvals *cv);
int config_cb(const struct nlmsghdr *nlh, void *data);
/* 0, or -1 with nlerr set. */
int config_fetch(struct cfgvals *cv);
/* The knobs selected in @sel: a table, or a JSON array. */
void config_print(const struct cfgvals *cv, const bool *sel);

/* ---- classes and policies (class.c) ---- */

const char *class_name(u32 id);
const char *sched_policy_name(u64 v);
int sched_policy_index(const char *s);

/* ---- monitor (monitor.c) ---- */

#define MON_RAIL	0x1
#define MON_CONFIG	0x2
#define MON_PEER	0x4	/* peer added/removed, path state */
#define MON_PATH	0x8	/* path state */
#define MON_ALL		(MON_RAIL | MON_CONFIG | MON_PEER | MON_PATH)

extern unsigned int mon_filter;
extern struct cfgvals mon_cfg;

/* Decodes and prints one event message.  0, or -1 (nlerr set). */
int event_print(const struct nlmsghdr *nlh);
void monitor_lost(void);

#endif /* _MRCCTL_H */
