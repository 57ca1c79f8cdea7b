/* SPDX-License-Identifier: GPL-2.0 */
/*
 * selftest.h - the mrcctl self-test (TAP 13): tools/mrcctl/'s decoders
 * and printers run on canned kernel messages, its error decoder on canned
 * NLMSG_ERRORs, and the mrcctl binary ($MRCCTL) on the command lines that
 * need no kernel.  Built from the sources of tools/mrcctl/ (main()
 * renamed) and the module's shared files.
 */
#ifndef _MRCCTL_SELFTEST_H
#define _MRCCTL_SELFTEST_H

#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mrcctl.h"
#include "nl.h"
#include "print.h"

/* The failure flag of the running test. */
extern bool t_failed;

#define CHECK(cond) do {						\
		if (!(cond)) {						\
			printf("# %s:%d: check failed: %s\n",		\
			       __FILE__, __LINE__, #cond);		\
			t_failed = true;				\
		}							\
	} while (0)

/* Prints a string as one TAP comment line, newlines shown as \n. */
void t_show(const char *label, const char *s);

#define CHECK_STR(got, exp) do {					\
		const char *g_ = (got), *e_ = (exp);			\
		if (!g_ || strcmp(g_, e_)) {				\
			printf("# %s:%d: strings differ\n",		\
			       __FILE__, __LINE__);			\
			t_show("expected", e_);				\
			t_show("got     ", g_);				\
			t_failed = true;				\
		}							\
	} while (0)

/*
 * Where the printers write: print_init()'s file.  cap_begin() points it
 * at a memory buffer (as -j/-p say: opt.json, opt.pretty); cap_end()
 * returns what was written (free() it) and points it back at stdout.
 */
extern FILE *out;
void cap_begin(void);
char *cap_end(void);
/* Options, errors and monitor state as at the start of a run. */
void reset_state(void);

/* ---- canned kernel messages ---- */

extern const u8 test_gid[16];
extern const u8 addr_v4[4];
extern const u8 addr_v6[16];

#define R_FULL		0x1	/* netdev, ifindex, gid */
#define R_STATS		0x2
#define R_PREV		0x4
#define R_FUTURE	0x8	/* unknown attributes and counters */
#define R_SLOW		0x10	/* speed 0, infiniband, no-gid */
#define R_DROPS		0x20	/* drops nest: odd reasons = reason, even 0 */
#define P_RESOLVED	0x1	/* remote QPN */
#define P_RTT		0x2	/* srtt */
#define P_STATS		0x4	/* the counters */
#define P_PREV		0x8	/* prev-state (events) */
#define P_FUTURE	0x10	/* unknown attributes */

/* A message @cmd whose top-level nest @type is left open in *@nest. */
struct nlmsghdr *mk_nest(void *buf, u8 cmd, u16 type, struct nlattr **nest);
struct nlmsghdr *mk_rail(void *buf, u8 cmd, u32 id, const char *name,
			 const char *ibdev, u32 port, const char *netdev,
			 unsigned int what);
/* One path nest; its numbers derive from plane and entropy value. */
void mk_path(struct nlmsghdr *nlh, u32 plane, const char *rail, u32 ev,
	     u8 state, u32 srtt, u32 rto, unsigned int what);
/* A message @cmd about peer @node (0: none), its nest left open. */
struct nlmsghdr *mk_peer_open(void *buf, u8 cmd, u32 node,
			      struct nlattr **nest);
/* A message @cmd about peer @node (0: none) and nothing else. */
struct nlmsghdr *mk_peer_node(void *buf, u8 cmd, u32 node);
/* PEER_ADDED of node 2 at 10.200.0.2 and @addr2 (@len2 bytes). */
struct nlmsghdr *mk_peer_added(void *buf, const u8 *addr2, u16 len2);
/* PATH_STATE of node 2: plane 1 rxe1:1 ev 3, now assumed-bad. */
struct nlmsghdr *mk_path_state(void *buf, unsigned int what);
/* Node 2 (or @node) with two addresses and four paths out of order. */
struct nlmsghdr *mk_peer(void *buf, u8 cmd, u32 node, unsigned int what);
/* Through the show path: parsed, paths sorted, printed. */
char *peer_show_of(const struct nlmsghdr *nlh);
struct nlmsghdr *mk_config(void *buf, u8 cmd, u32 max_rails, u32 min_mtu,
			   bool future);

/* ---- the tests, by file (selftest.c runs them in its order) ---- */

void json__escape(void);
void json__valid_per_python(void);
void json__structure(void);
void json__peer_valid_per_python(void);
void rail__plain(void);
void rail__plain_stats(void);
void rail__json(void);
void rail__malformed(void);
void rail__filter(void);
void peer__plain(void);
void peer__sched(void);
void peer__credit(void);
void peer__plain_minimal(void);
void peer__json(void);
void peer__list_sorted(void);
void peer__malformed(void);
void peer__fmt_us(void);
void parse__node(void);
void parse__addrs(void);
void config__table(void);
void event__plain(void);
void event__json(void);
void event__class_fallback(void);
void event__peer_plain(void);
void event__peer_json(void);
void error__extack(void);
void error__peer(void);
void error__dump_done(void);
void misc__matches(void);
void misc__dispatch(void);
void cli__help_and_version(void);
void cli__usage_errors(void);
void cli__peer_usage_errors(void);
void cli__module_not_loaded(void);
void print__forms(void);
void print__table(void);
void misc__commands(void);
bool cli__module_not_loaded_skip(void);

#endif /* _MRCCTL_SELFTEST_H */
