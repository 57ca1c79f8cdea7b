/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nlfuzz.h - what nlfuzz's parts share: the run's settings, the random
 * number generator (one per thread, seeded from --seed and the thread's
 * index, so that each thread's sequence of operations is reproducible),
 * and the counters printed at the end.
 */
#ifndef NLFUZZ_H
#define NLFUZZ_H

#include <stdbool.h>
#include <stdint.h>

#define NF_FUZZ_PEERS	8	/* node ids FUZZ_BASE.. for peer-add/del */
#define NF_DEV_PORTS	8	/* ports PORT_BASE.. bound on every node */
#define NF_MAX_THREADS	32

struct nf_cfg {
	uint64_t seed;
	unsigned int seconds;
	unsigned int nl_threads;	/* netlink workers */
	unsigned int dev_threads;	/* /dev/mrc workers */
	unsigned long count;		/* operations per thread, 0: no limit */
	uint32_t node;			/* our node id (config) */
	uint32_t peer;			/* the real peer's node id, or 0 */
	uint32_t peer_addr[2];		/* its addresses (network order) */
	unsigned int npeer_addr;
	uint32_t fuzz_base;		/* first node id of the fuzz peers */
	uint16_t port_base;
	bool no_dev, no_nl, verbose;
	bool node_id;			/* --node-id: node-id knob fuzzed too */
};

extern struct nf_cfg nf_cfg;
extern volatile int nf_stop;
extern unsigned int nf_done;	/* workers that returned (atomic) */

struct nf_rng {
	uint64_t s;
};

static inline uint64_t nf_rand(struct nf_rng *r)
{
	/* xorshift64* */
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 2685821657736338717ULL;
}

/* 0..n-1 (n > 0) */
static inline uint32_t nf_below(struct nf_rng *r, uint32_t n)
{
	return (uint32_t)((nf_rand(r) >> 32) % n);
}

/* true one time in @n */
static inline bool nf_one_in(struct nf_rng *r, uint32_t n)
{
	return nf_below(r, n) == 0;
}

void nf_rng_init(struct nf_rng *r, unsigned int stream);

/* Operation counters: netlink commands by number, then these. */
enum nf_stat {
	NF_ST_NL_BADCMD = 256,	/* commands the spec does not have */
	NF_ST_NL_DUMP_ABANDON,	/* dumps left unread, socket closed */
	NF_ST_NL_GARBAGE,	/* bytes that are no netlink message */
	NF_ST_NL_RESTORE,	/* the state put back (nlfuzz.c) */
	NF_ST_NL_EVENTS,	/* events received and checked */
	NF_ST_DEV_OPEN,
	NF_ST_DEV_CLOSE,
	NF_ST_DEV_BIND,
	NF_ST_DEV_SETOPT,
	NF_ST_DEV_GETOPT,
	NF_ST_DEV_STATS,
	NF_ST_DEV_FLUSH,
	NF_ST_DEV_BADIOCTL,
	NF_ST_DEV_WRITE,
	NF_ST_DEV_READ,
	NF_ST_DEV_POLL,
	NF_ST_DEV_SIGNAL,
	NF_ST_NR,
};

#define NF_NERRNO 256

/* Counts one execution of @op that ended with @err (0, or an errno). */
void nf_count(unsigned int op, int err);

/*
 * Something the kernel must never do (a malformed reply, a reply that
 * disagrees with the spec, a read() header that lies): counted, the first
 * few printed; nlfuzz then exits 1.
 */
void nf_anomaly(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
unsigned long nf_anomalies(void);

/* nlfuzz_nl.c */
int nf_nl_setup(void);
void *nf_nl_thread(void *arg);
void *nf_nl_events(void *arg);
int nf_nl_restore(void);
int nf_nl_cleanup(void);
int nf_nl_selftest(unsigned long n);
const char *nf_nl_op_name(unsigned int cmd);

/* nlfuzz_dev.c */
int nf_dev_setup(void);
void *nf_dev_thread(void *arg);
void nf_dev_cleanup(void);

#endif
