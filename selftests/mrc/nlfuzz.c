// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz - a spec-driven fuzzer for mrc's user-space interfaces: the
 * "mrc" generic netlink family (nlfuzz_nl.c, built from
 * Documentation/netlink/specs/mrc.yaml through nlfuzz_gen.py) and
 * /dev/mrc (nlfuzz_dev.c), from several threads at once.
 *
 * Usage: nlfuzz [--seed N] [--seconds N] [--threads N] [--count N]
 *               [--peer NODE --peer-addr A[,B]] [--fuzz-base NODE]
 *               [--port-base PORT] [--restore-ms MS] [--signal-ms MS]
 *               [--no-dev] [--no-nl] [-v]
 *
 *   --seed N        random seed (default: from the clock; printed)
 *   --seconds N     run time (default 60)
 *   --threads N     netlink workers and /dev/mrc workers, N of each (2)
 *   --count N       stop each worker after N operations (0: no limit)
 *   --peer NODE     the real peer: /dev/mrc sends go mostly to it; it is
 *                   never deleted; its policy is put back
 *   --peer-addr     its addresses, given to fuzz peers too
 *   --fuzz-base     first of the 8 node ids peer-add/del use (100)
 *   --port-base     first of the 8 /dev/mrc ports bound here and sent to
 *                   on the peer (7100)
 *   --restore-ms    put the knobs, weights, classes back this often (3000)
 *   --signal-ms     interrupt a /dev/mrc worker this often (50)
 *   --node-id       set the node-id knob at will too (restored with the
 *                   rest; the peer sees a stranger meanwhile)
 *   --selftest N    no fuzzing, no kernel: build N clean and N mutated
 *                   requests of every operation and check that none would
 *                   delete the real peer, add another peer than a fuzz
 *                   peer or change the node id, and that every clean one
 *                   is as the spec says
 *
 * Each worker draws its operations from its own generator, seeded from
 * the seed and its index: with --threads 1 --count N a run is the same
 * sequence again (timing, and the kernel's answers, may still differ).
 *
 * Must be run as root in a VM of the test fabric (selftests/mrc/nlfuzz.sh):
 * it changes mrc's knobs and peers.  Output: TAP 13; exit 0 iff every
 * check passed.  The counters at the end: executions, per operation, and
 * per operation the errno histogram.
 */
#define _GNU_SOURCE	/* strerrorname_np, pthread_tryjoin_np */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <dirent.h>

#include "nlfuzz.h"

struct nf_cfg nf_cfg = {
	.seconds = 60,
	.nl_threads = 2,
	.dev_threads = 2,
	.fuzz_base = 100,
	.port_base = 7100,
};
volatile int nf_stop;
unsigned int nf_done;

static unsigned long counts[NF_ST_NR];
static unsigned long errs[NF_ST_NR][NF_NERRNO];
static unsigned long anomalies;
static int tests, failures;

/**
 * nf_rng_init() - a worker's generator: from the seed and its stream
 * @r: the generator
 * @stream: the worker's index
 */
void nf_rng_init(struct nf_rng *r, unsigned int stream)
{
	/* splitmix64 of seed and stream: never 0, streams far apart */
	uint64_t z = nf_cfg.seed + (stream + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	r->s = (z ^ (z >> 31)) | 1;
}

/**
 * nf_count() - counts one execution
 * @op: operation (a command number or enum nf_stat)
 * @err: 0 or the errno it ended with
 */
void nf_count(unsigned int op, int err)
{
	if (op >= NF_ST_NR)
		return;
	if (err < 0 || err >= NF_NERRNO)
		err = NF_NERRNO - 1;
	__atomic_add_fetch(&counts[op], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&errs[op][err], 1, __ATOMIC_RELAXED);
}

/**
 * nf_anomaly() - something the kernel must not do; the first 20 printed
 * @fmt: what, printf style
 */
void nf_anomaly(const char *fmt, ...)
{
	va_list ap;

	if (__atomic_add_fetch(&anomalies, 1, __ATOMIC_RELAXED) > 20)
		return;
	va_start(ap, fmt);
	printf("# ANOMALY: ");
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	va_end(ap);
}

/**
 * nf_anomalies() - anomalies so far
 *
 * Return: their number.
 */
unsigned long nf_anomalies(void)
{
	return __atomic_load_n(&anomalies, __ATOMIC_RELAXED);
}

static void check(bool cond, const char *fmt, ...)
{
	va_list ap;

	tests++;
	failures += !cond;
	printf("%s %d - ", cond ? "ok" : "not ok", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static const char *op_name(unsigned int op)
{
	static const char *const names[] = {
		[NF_ST_NL_BADCMD - 256] = "nl unknown command",
		[NF_ST_NL_DUMP_ABANDON - 256] = "nl dump abandoned",
		[NF_ST_NL_GARBAGE - 256] = "nl garbage",
		[NF_ST_NL_RESTORE - 256] = "nl restore",
		[NF_ST_NL_EVENTS - 256] = "nl events received",
		[NF_ST_DEV_OPEN - 256] = "dev open",
		[NF_ST_DEV_CLOSE - 256] = "dev close",
		[NF_ST_DEV_BIND - 256] = "dev BIND",
		[NF_ST_DEV_SETOPT - 256] = "dev SETOPT",
		[NF_ST_DEV_GETOPT - 256] = "dev GETOPT",
		[NF_ST_DEV_STATS - 256] = "dev STATS",
		[NF_ST_DEV_FLUSH - 256] = "dev FLUSH",
		[NF_ST_DEV_BADIOCTL - 256] = "dev other ioctl",
		[NF_ST_DEV_WRITE - 256] = "dev write",
		[NF_ST_DEV_READ - 256] = "dev read",
		[NF_ST_DEV_POLL - 256] = "dev poll",
		[NF_ST_DEV_SIGNAL - 256] = "dev signal",
	};
	static char buf[32];
	const char *n;

	if (op >= 256)
		return names[op - 256];
	n = nf_nl_op_name(op);
	if (n) {
		snprintf(buf, sizeof(buf), "nl %s", n);
		return buf;
	}
	return "?";
}

static unsigned long report(double secs)
{
	unsigned long total = 0, per;
	unsigned int op, e;

	for (op = 0; op < NF_ST_NR; op++)
		if (op != NF_ST_NL_EVENTS && op != NF_ST_DEV_SIGNAL &&
		    op != NF_ST_NL_RESTORE)
			total += counts[op];
	printf("# executions: %lu in %.1f s, %.1f/s (seed %llu)\n", total,
	       secs, total / (secs > 0 ? secs : 1),
	       (unsigned long long)nf_cfg.seed);
	for (op = 0; op < NF_ST_NR; op++) {
		char line[1024];
		int len;

		if (!counts[op])
			continue;
		len = snprintf(line, sizeof(line), "# %-22s %8lu:", op_name(op),
			       counts[op]);
		for (e = 0; e < NF_NERRNO; e++) {
			per = errs[op][e];
			if (!per || len >= (int)sizeof(line) - 40)
				continue;
			len += snprintf(line + len, sizeof(line) - len, " %s %lu",
					e ? strerrorname_np(e) ?: "E?" : "ok",
					per);
		}
		printf("%s\n", line);
	}
	return total;
}

static void on_signal(int sig)
{
	(void)sig;
}

/*
 * Joins the workers of @tid that have returned and signals the others;
 * returns how many are still running.
 */
static unsigned int stop_workers(const pthread_t *tid, bool *joined,
				 unsigned int n)
{
	unsigned int i, left = 0;

	for (i = 0; i < n; i++) {
		if (joined[i])
			continue;
		if (pthread_tryjoin_np(tid[i], NULL) != EBUSY) {
			joined[i] = true;
			continue;
		}
		pthread_kill(tid[i], SIGUSR1);
		left++;
	}
	return left;
}

static void parse_addrs(char *s)
{
	char *a;

	for (a = strtok(s, ","); a && nf_cfg.npeer_addr < 2; a = strtok(NULL, ","))
		if (inet_pton(AF_INET, a, &nf_cfg.peer_addr[nf_cfg.npeer_addr]) == 1)
			nf_cfg.npeer_addr++;
}

static void usage(void)
{
	fprintf(stderr, "usage: nlfuzz [--seed N] [--seconds N] [--threads N] [--count N]\n"
		"  [--peer NODE --peer-addr A[,B]] [--fuzz-base NODE] [--port-base PORT]\n"
		"  [--restore-ms MS] [--signal-ms MS] [--no-dev] [--no-nl] [-v]\n"
		"  [--node-id] [--selftest N]\n");
	exit(2);
}

/*
 * Workers that have not stopped long after being told: what each of our
 * threads waits for in the kernel (its stack, root only), as TAP
 * comments, so that a wait that ignores signals shows where it is.
 */
static void dump_stacks(void)
{
	struct dirent *d;
	char path[300], line[256];
	DIR *dir = opendir("/proc/self/task");
	FILE *f;

	if (!dir)
		return;
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		printf("# thread %s:\n", d->d_name);
		snprintf(path, sizeof(path), "/proc/self/task/%s/stack",
			 d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			printf("#   %s", line);
		fclose(f);
	}
	closedir(dir);
	fflush(stdout);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", 1, NULL, 's' }, { "seconds", 1, NULL, 't' },
		{ "threads", 1, NULL, 'j' }, { "count", 1, NULL, 'n' },
		{ "peer", 1, NULL, 'p' }, { "peer-addr", 1, NULL, 'a' },
		{ "fuzz-base", 1, NULL, 'f' }, { "port-base", 1, NULL, 'P' },
		{ "restore-ms", 1, NULL, 'r' }, { "signal-ms", 1, NULL, 'S' },
		{ "no-dev", 0, NULL, 'D' }, { "no-nl", 0, NULL, 'N' },
		{ "verbose", 0, NULL, 'v' }, { "selftest", 1, NULL, 'T' },
		{ "node-id", 0, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned int restore_ms = 3000, signal_ms = 50, i, ndev = 0, nw = 0;
	pthread_t tid[2 * NF_MAX_THREADS + 1], dev_tid[NF_MAX_THREADS], ev;
	bool dev_joined[NF_MAX_THREADS] = { false };
	struct sigaction sa = { .sa_handler = on_signal };
	double t0, next_restore, next_note, secs, stop_t;
	unsigned long total;
	struct nf_rng r;
	unsigned long selftest = 0;
	bool have_seed = false;
	int c, bad, dumped = 0;

	while ((c = getopt_long(argc, argv, "v", opts, NULL)) != -1) {
		switch (c) {
		case 's': nf_cfg.seed = strtoull(optarg, NULL, 0); have_seed = true; break;
		case 't': nf_cfg.seconds = atoi(optarg); break;
		case 'j': nf_cfg.nl_threads = nf_cfg.dev_threads = atoi(optarg); break;
		case 'n': nf_cfg.count = strtoul(optarg, NULL, 0); break;
		case 'p': nf_cfg.peer = strtoul(optarg, NULL, 0); break;
		case 'a': parse_addrs(optarg); break;
		case 'f': nf_cfg.fuzz_base = strtoul(optarg, NULL, 0); break;
		case 'P': nf_cfg.port_base = atoi(optarg); break;
		case 'r': restore_ms = atoi(optarg); break;
		case 'S': signal_ms = atoi(optarg); break;
		case 'D': nf_cfg.no_dev = true; break;
		case 'N': nf_cfg.no_nl = true; break;
		case 'v': nf_cfg.verbose = true; break;
		case 'T': selftest = strtoul(optarg, NULL, 0); break;
		case 'I': nf_cfg.node_id = true; break;
		default: usage();
		}
	}
	if (optind != argc || nf_cfg.nl_threads > NF_MAX_THREADS ||
	    !restore_ms || !signal_ms || nf_cfg.fuzz_base < 2 ||
	    nf_cfg.fuzz_base > 0x7fffffff - NF_FUZZ_PEERS)
		usage();
	if (!have_seed)
		nf_cfg.seed = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	printf("# nlfuzz --seed %llu --seconds %u --threads %u%s%s%s\n",
	       (unsigned long long)nf_cfg.seed, nf_cfg.seconds,
	       nf_cfg.nl_threads, nf_cfg.no_nl ? " --no-nl" : "",
	       nf_cfg.no_dev ? " --no-dev" : "",
	       nf_cfg.node_id ? " --node-id" : "");

	if (selftest) {
		if (!nf_cfg.node)
			nf_cfg.node = 1;
		bad = nf_nl_selftest(selftest);
		check(!bad, "request builder: %lu clean and %lu mutated requests of every operation, %d harmful or off the spec",
		      selftest, selftest, bad);
		printf("1..%d\n# %d passed, %d failed\n", tests,
		       tests - failures, failures);
		return failures ? 1 : 0;
	}
	sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART: waits end, EINTR */
	sigaction(SIGALRM, &sa, NULL);
	bad = nf_nl_setup() || nf_dev_setup();
	check(!bad, "family %s found, state to put back recorded", "mrc");
	if (bad) {
		printf("1..%d\n# %d passed, %d failed\n", tests,
		       tests - failures, failures);
		return 1;
	}

	t0 = now();
	if (!nf_cfg.no_nl) {
		for (i = 0; i < nf_cfg.nl_threads; i++)
			pthread_create(&tid[nw++], NULL, nf_nl_thread,
				       (void *)(uintptr_t)i);
		pthread_create(&ev, NULL, nf_nl_events, NULL);
	}
	if (!nf_cfg.no_dev)
		for (i = 0; i < nf_cfg.dev_threads; i++)
			pthread_create(&dev_tid[ndev++], NULL, nf_dev_thread,
				       (void *)(uintptr_t)(NF_MAX_THREADS + i));

	nf_rng_init(&r, 2 * NF_MAX_THREADS);
	next_restore = t0 + restore_ms / 1e3;
	next_note = t0 + 10;
	while (now() - t0 < nf_cfg.seconds) {
		usleep(1000 * (1 + nf_below(&r, signal_ms)));
		if (ndev) {
			pthread_kill(dev_tid[nf_below(&r, ndev)], SIGUSR1);
			nf_count(NF_ST_DEV_SIGNAL, 0);
		}
		if (!nf_cfg.no_nl && now() >= next_restore) {
			nf_nl_restore();
			next_restore = now() + restore_ms / 1e3;
		}
		if (nf_cfg.verbose && now() >= next_note) {
			unsigned long n = 0;

			for (i = 0; i < NF_ST_NR; i++)
				n += counts[i];
			printf("# %.0f s: %lu operations\n", now() - t0, n);
			next_note += 10;
		}
		if (nf_cfg.count && nf_done == nw + ndev)
			break;		/* every worker did its --count */
	}
	nf_stop = 1;
	/*
	 * Workers blocked in read, write, FLUSH or close: every one still
	 * running is woken until all are gone.  Waking only the one being
	 * joined is not enough: it may wait on a slot's lock that another
	 * holds across a close(), whose wait for its sends (up to a fuzzed
	 * peer_timeout_ms) only a signal to that other one ends.  Still
	 * there after 30 s: their kernel stacks, once (every such wait is
	 * interruptible or bounded by peer_timeout_ms).
	 */
	stop_t = now();
	while (stop_workers(dev_tid, dev_joined, ndev)) {
		if (!dumped && now() - stop_t > 30) {
			printf("# /dev/mrc workers still running 30 s after the stop\n");
			dump_stacks();
			dumped = 1;
		}
		usleep(20000);
	}
	if (dumped)
		printf("# every worker stopped after %.0f s\n", now() - stop_t);
	for (i = 0; i < nw; i++)
		pthread_join(tid[i], NULL);
	if (!nf_cfg.no_nl)
		pthread_join(ev, NULL);
	secs = now() - t0;
	total = report(secs);
	check(total > 0, "fuzzed %.0f s, seed %llu: %lu executions, %.1f/s",
	      secs, (unsigned long long)nf_cfg.seed, total, total / secs);

	/* Fuzz peers first: sends to them then fail at once, not on close. */
	if (!nf_cfg.no_nl) {
		bad = nf_nl_cleanup();
		check(!bad, "knobs, weights, classes, policy, key put back; fuzz peers deleted (%d failed)",
		      bad);
	}
	nf_dev_cleanup();
	check(anomalies == 0, "replies, events, messages read, files at rest as they must be: %lu anomalies",
	      anomalies);
	printf("1..%d\n# %d passed, %d failed\n", tests, tests - failures,
	       failures);
	return failures ? 1 : 0;
}
