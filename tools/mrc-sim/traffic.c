// SPDX-License-Identifier: GPL-2.0
/*
 * traffic.c - the workloads.  Every draw comes from the run's seed.
 *
 *  perm    every host sends --msgs messages of --size bytes to a distinct
 *          other host (a permutation without fixed points);
 *  incast  hosts 1..N send to host 0;
 *  single  host 0 sends to the last host;
 *  a2a     every host sends to every other host, host h to h+1, h+2, ...
 *          in that order;
 *  ring    a ring all-reduce of --size bytes per host over all hosts, in
 *          a seeded random ring order: 2(N - 1) steps of a chunk of
 *          size / N bytes to the next host; a host sends step k + 1 when
 *          step k from its predecessor has arrived;
 *  rpc     the hosts in seeded random pairs, a client and a server
 *          (an odd host out stays idle): the client sends a request of
 *          --size bytes, the server answers with a reply of --size bytes
 *          when the request has arrived, the client sends the next
 *          request when the reply has arrived, --msgs times.  Each
 *          reply and each request after the first is a reply in the
 *          engine's sense (MRC_WF_ACK_LAZY): it carries the
 *          acknowledgment of the message it answers.
 *
 * A sender's first message starts at a time drawn in [0, --jitter-ns).
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

static uint32_t *ring;		/* PAT_RING: hosts in ring order */
static uint64_t *ring_start;	/* its step-0 start times */
static uint32_t ring_steps;

const char *traffic_name(void)
{
	static const char *const name[] = {
		[PAT_PERM] = "permutation", [PAT_INCAST] = "incast",
		[PAT_SINGLE] = "single", [PAT_A2A] = "all-to-all",
		[PAT_RING] = "ring-allreduce", [PAT_RPC] = "rpc",
	};

	return name[g->c.pattern];
}

static uint64_t jitter(void)
{
	return g->c.jitter_ps ? rng_below(&g->rng, g->c.jitter_ps) : 0;
}

/*
 * Message @mi from @src to @dst, of @len bytes, started at @start, or
 * later by traffic_delivered() if @start is U64_MAX.
 */
static void add_msg(uint32_t mi, uint32_t src, uint32_t dst, uint32_t len,
		    uint64_t start)
{
	struct smsg *m = &g->msg[mi];

	m->src = src;
	m->dst = dst;
	m->len = len;
	m->ideal_ps = fabric_ideal_ps(src, dst, len);
	if (start == U64_MAX)
		return;
	evq_push(&g->q, start, EV_MSG_START, NULL, mi);
	if (!g->first_start || start < g->first_start)
		g->first_start = start;
}

static void add_msgs(uint32_t src, uint32_t dst)
{
	uint64_t start = jitter();
	unsigned int k;

	for (k = 0; k < g->c.msgs; k++)
		add_msg(g->nmsg++, src, dst, g->c.msg_bytes, start);
}

/* A random permutation of the hosts; without fixed points if @derange. */
static uint32_t *shuffle(unsigned int n, bool derange)
{
	uint32_t *p = malloc(n * sizeof(*p));
	unsigned int i;

	if (!p) {
		perror("permutation");
		exit(2);
	}
	for (i = 0; i < n; i++)
		p[i] = i;
	for (i = n - 1; i > 0; i--) {
		uint32_t j = rng_below(&g->rng, i + 1), t = p[i];

		p[i] = p[j];
		p[j] = t;
	}
	for (i = 0; derange && i < n; i++)
		if (p[i] == i) {
			uint32_t j = (i + 1) % n, t = p[i];

			p[i] = p[j];
			p[j] = t;
		}
	return p;
}

static void ring_init(void)
{
	unsigned int n = g->c.hosts, k;
	uint32_t chunk = g->c.msg_bytes / n ? g->c.msg_bytes / n : 1;
	uint32_t s;

	ring = shuffle(n, false);
	ring_start = malloc(n * sizeof(*ring_start));
	if (!ring_start) {
		perror("ring");
		exit(2);
	}
	ring_steps = 2 * (n - 1);
	for (k = 0; k < n; k++)
		ring_start[k] = jitter();
	for (s = 0; s < ring_steps; s++)
		for (k = 0; k < n; k++)
			add_msg(s * n + k, ring[k], ring[(k + 1) % n], chunk,
				s ? U64_MAX : ring_start[k]);
	g->nmsg = ring_steps * n;
}

/* Pair j: messages 2 m j .. 2 m (j + 1) - 1, request and reply in turn. */
static void rpc_init(void)
{
	unsigned int n = g->c.hosts, j, r;
	uint32_t *p = shuffle(n, false);

	for (j = 0; j < n / 2; j++) {
		uint32_t cli = p[2 * j], srv = p[2 * j + 1];

		for (r = 0; r < g->c.msgs; r++) {
			add_msg(g->nmsg++, cli, srv, g->c.msg_bytes,
				r ? U64_MAX : jitter());
			add_msg(g->nmsg++, srv, cli, g->c.msg_bytes, U64_MAX);
		}
	}
	free(p);
}

void traffic_init(void)
{
	unsigned int n = g->c.hosts, i, k;
	uint64_t total;
	uint32_t *perm;

	switch (g->c.pattern) {
	case PAT_PERM:
		total = (uint64_t)n * g->c.msgs;
		break;
	case PAT_INCAST:
		total = (uint64_t)g->c.incast_n * g->c.msgs;
		break;
	case PAT_SINGLE:
		total = g->c.msgs;
		break;
	case PAT_A2A:
		total = (uint64_t)n * (n - 1) * g->c.msgs;
		break;
	case PAT_RPC:
		total = 2ULL * (n / 2) * g->c.msgs;
		break;
	default:
		total = 2ULL * (n - 1) * n;
		break;
	}
	if (total > UINT32_MAX) {
		fprintf(stderr, "mrc-sim: %llu messages: too many\n",
			(unsigned long long)total);
		exit(2);
	}
	g->msg = calloc(total, sizeof(*g->msg));
	if (!g->msg) {
		perror("messages");
		exit(2);
	}
	switch (g->c.pattern) {
	case PAT_PERM:
		perm = shuffle(n, true);
		for (i = 0; i < n; i++)
			add_msgs(i, perm[i]);
		free(perm);
		break;
	case PAT_INCAST:
		for (i = 1; i <= g->c.incast_n; i++)
			add_msgs(i, 0);
		break;
	case PAT_SINGLE:
		add_msgs(0, n - 1);
		break;
	case PAT_A2A:
		for (i = 0; i < n; i++) {
			uint64_t start = jitter();

			for (k = 1; k < n; k++)
				add_msg(g->nmsg++, i, (i + k) % n,
					g->c.msg_bytes, start);
		}
		break;
	case PAT_RING:
		ring_init();
		break;
	case PAT_RPC:
		rpc_init();
		break;
	}
}

void traffic_delivered(uint32_t mi)
{
	unsigned int n = g->c.hosts;
	uint32_t s = mi / n, k = mi % n;

	if (g->c.pattern == PAT_RPC) {
		/* the answer to it: a reply, or the pair's next request */
		if ((mi + 1) % (2 * g->c.msgs))
			evq_push(&g->q, g->now, EV_MSG_START, NULL, mi + 1);
		return;
	}
	if (g->c.pattern != PAT_RING || s + 1 >= ring_steps)
		return;
	/* ring[k + 1] has step s: it sends step s + 1 to ring[k + 2] */
	evq_push(&g->q, g->now, EV_MSG_START, NULL, (s + 1) * n + (k + 1) % n);
}

uint32_t traffic_ring_pred(uint32_t mi)
{
	unsigned int n = g->c.hosts;
	uint32_t s = mi / n, k = mi % n;

	if (g->c.pattern != PAT_RING || !s)
		return UINT32_MAX;
	return (s - 1) * n + (k + n - 1) % n;
}

/*
 * Collectives: the time from the first start to the last delivery, and
 * its ideal.  All-to-all: a host's every byte at the rate of its planes,
 * plus one message's latency.  Ring: the longest chain of 2(N - 1)
 * dependent chunks, each at its ideal; the chain ending at position k
 * starts at position k + 3 and misses positions k + 1 and k + 2 once.
 */
uint64_t traffic_coll_ps(uint64_t *ideal_ps)
{
	unsigned int n = g->c.hosts, k;
	uint64_t sum = 0, best = 0, t0 = U64_MAX;
	double ser;

	if (g->c.pattern == PAT_A2A) {
		ser = (g->c.msg_bytes + (double)MRC_WIRE_HDR_LEN *
		       mrc_wire_npkts(g->c.msg_bytes, MRC_WIRE_MAX_PAYLOAD)) *
		      8000.0 / (g->c.rate_gbps * g->c.planes);
		*ideal_ps = fabric_ideal_ps(0, n - 1, g->c.msg_bytes) +
			    (uint64_t)((n - 2) * ser);
		return g->last_done - g->first_start;
	}
	if (g->c.pattern != PAT_RING)
		return 0;
	for (k = 0; k < n; k++) {
		sum += g->msg[k].ideal_ps;
		if (ring_start[k] < t0)
			t0 = ring_start[k];
	}
	for (k = 0; k < n; k++) {
		uint64_t t = ring_start[(k + 3) % n] + 2 * sum -
			     g->msg[(k + 1) % n].ideal_ps -
			     g->msg[(k + 2) % n].ideal_ps;

		if (t > best)
			best = t;
	}
	*ideal_ps = best - t0;
	return g->last_done - t0;
}
