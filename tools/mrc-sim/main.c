// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - mrc-sim's command line and event loop.  See
 * Documentation/mrc/sim.rst.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include "sim.h"

static void usage(FILE *f)
{
	fprintf(f,
"usage: mrc-sim [options]\n"
"  --hosts N          hosts (64)             --planes P       planes, <= 8 (1)\n"
"  --leaf-hosts N     hosts per leaf (8)     --spines N       spines per plane (8)\n"
"  --entropy N        entropy values per plane, <= 24 (8)\n"
"  --rate-gbps R      link rate (100)        --hop-ns T       per-link delay (500)\n"
"  --buf-kb N         switch output buffer per port (256)\n"
"  --ecn-kb N         ECN mark threshold, 0 = off (0)\n"
"  --nic-ring N       NIC backlog in 4096-byte packets (4096)\n"
"  --ctl-prio         every port sends control packets (SACK, NACK,\n"
"                     credit) before the data waiting there (strict\n"
"                     priority); probes travel with the data\n"
"  --seed S           (1)\n"
"  --pattern perm|incast|single|a2a|ring|rpc (perm)  --size BYTES (1048576)\n"
"                     (ring: an all-reduce of --size bytes per host;\n"
"                     rpc: pairs exchanging requests and replies)\n"
"  --msgs N           messages per sender (1; rpc: exchanges per pair)\n"
"  --incast N         senders (hosts - 1)\n"
"  --jitter-ns T      start jitter (0)       --until-us T  stop (10000000)\n"
"  --policy rr|min-inflight|min-latency|load-aware (load-aware)\n"
"  --credits on|off   receiver-driven credits (off; --knob credit=1)\n"
"  --probe-rearm now|timer  a path the engine retires is probed at once\n"
"                     (now), or at the peer timer's next deadline, as\n"
"                     mrc/msg.c did before it re-armed (timer)\n"
"  --fct FILE         per message: src dst bytes start_us fct_us slowdown\n"
"  --series FILE      goodput over time: bin_end_us gbps (--bin-us 10)\n"
"  --link-down PL:LEAF:SPINE@T0[-T1]      (us; T1: back up)\n"
"  --spine-down PL:SPINE@T0[-T1]\n"
"  --degrade PL:LEAF:SPINE:FRAC@T0[-T1]\n"
"  --knob NAME=VALUE  one of the module's knobs (e.g. data_rto_min_ms=1)\n"
"  --json FILE  --md FILE  --quiet\n"
"  --progress         a line on stderr every 4 Mi events\n");
}

static void die(const char *what, const char *arg)
{
	fprintf(stderr, "mrc-sim: bad %s: %s\n", what, arg);
	usage(stderr);
	exit(2);
}

static uint64_t num(const char *what, const char *s, uint64_t lo,
		    uint64_t hi)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (!*s || *end || v < lo || v > hi)
		die(what, s);
	return v;
}

static double dnum(const char *what, const char *s, double lo, double hi)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v >= lo && v <= hi))
		die(what, s);
	return v;
}

/* "A:B[:C[:F]]@T0[-T1]" */
static void parse_fault(enum sim_fault_kind kind, const char *arg)
{
	struct sim_fault *f;
	double t0, t1 = 0, frac = 0;
	unsigned int a, b = 0;
	int n, want;

	if (g->c.nfaults == SIM_MAX_FAULTS)
		die("fault (too many)", arg);
	f = &g->c.fault[g->c.nfaults];
	memset(f, 0, sizeof(*f));
	f->kind = kind;
	switch (kind) {
	case FAULT_SPINE:
		n = sscanf(arg, "%u:%u@%lf-%lf", &a, &b, &t0, &t1);
		want = 3;
		f->plane = a;
		f->spine = b;
		break;
	case FAULT_LINK:
		n = sscanf(arg, "%u:%u:%u@%lf-%lf", &f->plane, &f->leaf,
			   &f->spine, &t0, &t1);
		want = 4;
		break;
	default:
		n = sscanf(arg, "%u:%u:%u:%lf@%lf-%lf", &f->plane, &f->leaf,
			   &f->spine, &frac, &t0, &t1) - 1;
		want = 4;
		if (frac <= 0 || frac > 1)
			die("degrade fraction", arg);
		f->frac = frac;
		break;
	}
	if (n < want || t0 < 0 || (n > want && t1 <= t0))
		die("fault", arg);
	f->t_down = (uint64_t)(t0 * 1e6);
	f->t_up = n > want ? (uint64_t)(t1 * 1e6) : 0;
	g->c.nfaults++;
}

/* "NAME=VALUE": one of the module's knobs (config_knobs.h), checked. */
static void parse_knob(const char *arg)
{
	const struct mrc_knob *k;
	const char *eq = strchr(arg, '='), *why = NULL;
	char name[64];
	u64 v;

	if (!eq || eq - arg >= (long)sizeof(name) ||
	    g->c.nknobs == MRC_KNOB_NR)
		die("--knob", arg);
	memcpy(name, arg, eq - arg);
	name[eq - arg] = 0;
	k = mrc_knob_by_name(name);
	if (!k || mrc_parse_u64(eq + 1, &v) || mrc_knob_check(k, v, &why))
		die(why ? why : "--knob", arg);
	g->c.knob[g->c.nknobs].id = k - mrc_knobs;
	g->c.knob[g->c.nknobs].val = v;
	g->c.nknobs++;
}

static void check_cfg(void)
{
	struct sim_cfg *c = &g->c;
	unsigned int i, leaves;

	if (c->pattern == PAT_INCAST && !c->incast_n)
		c->incast_n = c->hosts - 1;
	if (c->incast_n > c->hosts - 1)
		die("--incast (> hosts - 1)", "");
	leaves = (c->hosts + c->leaf_hosts - 1) / c->leaf_hosts;
	for (i = 0; i < c->nfaults; i++) {
		const struct sim_fault *f = &c->fault[i];

		if (f->plane >= c->planes || f->spine >= c->spines ||
		    f->leaf >= leaves)
			die("fault (no such plane, leaf or spine)", "");
	}
}

static void parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hosts", 1, NULL, 'H' }, { "planes", 1, NULL, 'P' },
		{ "leaf-hosts", 1, NULL, 'L' }, { "spines", 1, NULL, 'S' },
		{ "entropy", 1, NULL, 'E' }, { "rate-gbps", 1, NULL, 'R' },
		{ "hop-ns", 1, NULL, 'D' }, { "buf-kb", 1, NULL, 'B' },
		{ "ecn-kb", 1, NULL, 'e' }, { "nic-ring", 1, NULL, 'n' },
		{ "seed", 1, NULL, 's' }, { "pattern", 1, NULL, 'p' },
		{ "size", 1, NULL, 'z' }, { "msgs", 1, NULL, 'm' },
		{ "incast", 1, NULL, 'i' }, { "jitter-ns", 1, NULL, 'j' },
		{ "until-us", 1, NULL, 'u' }, { "policy", 1, NULL, 'y' },
		{ "link-down", 1, NULL, 'l' }, { "spine-down", 1, NULL, 'x' },
		{ "degrade", 1, NULL, 'd' }, { "json", 1, NULL, 'J' },
		{ "md", 1, NULL, 'M' }, { "quiet", 0, NULL, 'q' },
		{ "knob", 1, NULL, 'k' }, { "progress", 0, NULL, 'g' },
		{ "credits", 1, NULL, 'c' }, { "fct", 1, NULL, 'F' },
		{ "series", 1, NULL, 'T' }, { "bin-us", 1, NULL, 'b' },
		{ "probe-rearm", 1, NULL, 'r' }, { "ctl-prio", 0, NULL, 'C' },
		{ "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	static const char *const pol[] = {
		"rr", "min-inflight", "min-latency", "load-aware"
	};
	struct sim_cfg *c = &g->c;
	unsigned int k;
	int o;

	c->hosts = 64;
	c->planes = 1;
	c->leaf_hosts = 8;
	c->spines = 8;
	c->entropy = 8;
	c->rate_gbps = 100;
	c->hop_ps = 500 * PS_PER_NS;
	c->buf_bytes = 256 * 1024;
	c->nic_ring = 4096;
	c->seed = 1;
	c->msg_bytes = 1 << 20;
	c->msgs = 1;
	c->until_ps = 10000000ULL * 1000 * PS_PER_NS;
	c->policy = MRC_SCHED_LOAD_AWARE;
	c->bin_ps = 10 * PS_PER_NS * 1000;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'H':
			c->hosts = num("--hosts", optarg, 2, 1U << 24);
			break;
		case 'P':
			c->planes = num("--planes", optarg, 1, SIM_MAX_PLANES);
			break;
		case 'L':
			c->leaf_hosts = num("--leaf-hosts", optarg, 1, 1U << 20);
			break;
		case 'S':
			c->spines = num("--spines", optarg, 1, 1U << 16);
			break;
		case 'E':
			c->entropy = num("--entropy", optarg, 1, SIM_MAX_EV);
			break;
		case 'R':
			c->rate_gbps = dnum("--rate-gbps", optarg, 0.001, 1e5);
			break;
		case 'D':
			c->hop_ps = num("--hop-ns", optarg, 0, 1ULL << 32) * PS_PER_NS;
			break;
		case 'B':
			c->buf_bytes = num("--buf-kb", optarg, 5, 1U << 20) * 1024;
			break;
		case 'e':
			c->ecn_bytes = num("--ecn-kb", optarg, 0, 1U << 20) * 1024;
			break;
		case 'n':
			c->nic_ring = num("--nic-ring", optarg, 1, 1U << 24);
			break;
		case 'C':
			c->ctl_prio = true;
			break;
		case 's':
			c->seed = num("--seed", optarg, 0, UINT64_MAX);
			break;
		case 'p':
			if (!strcmp(optarg, "perm"))
				c->pattern = PAT_PERM;
			else if (!strcmp(optarg, "incast"))
				c->pattern = PAT_INCAST;
			else if (!strcmp(optarg, "single"))
				c->pattern = PAT_SINGLE;
			else if (!strcmp(optarg, "a2a"))
				c->pattern = PAT_A2A;
			else if (!strcmp(optarg, "ring"))
				c->pattern = PAT_RING;
			else if (!strcmp(optarg, "rpc"))
				c->pattern = PAT_RPC;
			else
				die("--pattern", optarg);
			break;
		case 'z':
			c->msg_bytes = num("--size", optarg, 1, MRC_MSG_MAX_BYTES);
			break;
		case 'm':
			c->msgs = num("--msgs", optarg, 1, 1U << 20);
			break;
		case 'i':
			c->incast_n = num("--incast", optarg, 1, 1U << 24);
			break;
		case 'j':
			c->jitter_ps = num("--jitter-ns", optarg, 0, 1ULL << 40) * PS_PER_NS;
			break;
		case 'u':
			c->until_ps = num("--until-us", optarg, 1, 1ULL << 40) * 1000 * PS_PER_NS;
			break;
		case 'y':
			for (k = 0; k < 4 && strcmp(optarg, pol[k]); k++)
				;
			if (k == 4)
				die("--policy", optarg);
			c->policy = k;
			break;
		case 'l':
			parse_fault(FAULT_LINK, optarg);
			break;
		case 'x':
			parse_fault(FAULT_SPINE, optarg);
			break;
		case 'd':
			parse_fault(FAULT_DEGRADE, optarg);
			break;
		case 'J':
			c->json = optarg;
			break;
		case 'M':
			c->md = optarg;
			break;
		case 'q':
			c->quiet = true;
			break;
		case 'k':
			parse_knob(optarg);
			break;
		case 'g':
			c->progress = true;
			break;
		case 'F':
			c->fct_file = optarg;
			break;
		case 'T':
			c->series_file = optarg;
			break;
		case 'b':
			c->bin_ps = (uint64_t)(dnum("--bin-us", optarg, 0.001,
						    1e6) * 1e6);
			break;
		case 'c':
			if (!strcmp(optarg, "on"))
				c->credit = 1;
			else if (!strcmp(optarg, "off"))
				c->credit = 0;
			else
				die("--credits", optarg);
			break;
		case 'r':
			if (!strcmp(optarg, "now"))
				c->probe_rearm_timer = false;
			else if (!strcmp(optarg, "timer"))
				c->probe_rearm_timer = true;
			else
				die("--probe-rearm", optarg);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			exit(2);
		}
	}
	if (optind != argc)
		die("argument", argv[optind]);
	check_cfg();
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void run(void)
{
	struct sim_ev ev;

	while (evq_pop(&g->q, &ev)) {
		if (ev.t > g->c.until_ps)
			break;
		g->now = ev.t;
		g->st.events++;
		g->st.digest = mix64(g->st.digest ^ ev.t,
				     ((uint64_t)ev.type << 32) | ev.arg);
		switch (ev.type) {
		case EV_ARRIVE:
			fabric_arrive(ev.p, ev.arg);
			break;
		case EV_MSG_START:
			host_start_msg(ev.arg);
			break;
		case EV_FAULT:
			fabric_fault(ev.arg >> 1, ev.arg & 1);
			break;
		default:
			host_ev(&ev);
			break;
		}
		if (g->nmsg_done == g->nmsg && g->nmsg_acked == g->nmsg)
			break;
		if (g->c.progress && !(g->st.events & ((1U << 22) - 1)))
			fprintf(stderr, "mrc-sim: %.3f us, %llu events, "
				"%u/%u delivered, %llu pending\n",
				g->now / 1e6,
				(unsigned long long)g->st.events,
				g->nmsg_done, g->nmsg,
				(unsigned long long)g->q.n);
	}
}

int main(int argc, char **argv)
{
	static struct sim s;
	struct rusage ru;
	double t0, wall;
	unsigned int i;
	int ret;

	g = &s;
	parse(argc, argv);
	t0 = wall_now();
	rng_seed(&g->rng, g->c.seed);
	evq_init(&g->q);
	g->txbuf = calloc(1, g->c.msg_bytes);
	g->rxbuf = calloc(1, g->c.msg_bytes);
	if (!g->txbuf || !g->rxbuf) {
		perror("buffers");
		return 2;
	}
	fabric_init();
	hosts_init();
	traffic_init();
	for (i = 0; i < g->c.nfaults; i++) {
		evq_push(&g->q, g->c.fault[i].t_down, EV_FAULT, NULL,
			 i << 1 | 1);
		if (g->c.fault[i].t_up)
			evq_push(&g->q, g->c.fault[i].t_up, EV_FAULT, NULL,
				 i << 1);
	}
	run();
	wall = wall_now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	ret = report_write(wall, ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
			   (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
			   ru.ru_maxrss);
	fabric_drain();
	hosts_free();
	fabric_free();
	evq_free(&g->q);
	free(g->msg);
	free(g->series);
	free(g->txbuf);
	free(g->rxbuf);
	return ret;
}
