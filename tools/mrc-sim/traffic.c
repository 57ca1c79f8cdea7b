// SPDX-License-Identifier: GPL-2.0
/*
 * traffic.c - the workloads: permutation (every host sends to a distinct
 * other host), N:1 incast (hosts 1..N to host 0) and a single flow
 * (host 0 to the last host, on another leaf when there is one).  Every
 * sender queues --msgs messages of --size bytes at a start time drawn
 * uniformly in [0, jitter).  All draws come from the run's seed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

static void add_msgs(uint32_t src, uint32_t dst)
{
	uint64_t start = g->c.jitter_ps ?
			 rng_below(&g->rng, g->c.jitter_ps) : 0;
	unsigned int k;

	for (k = 0; k < g->c.msgs; k++) {
		struct smsg *m = &g->msg[g->nmsg];

		m->src = src;
		m->dst = dst;
		m->len = g->c.msg_bytes;
		m->ideal_ps = fabric_ideal_ps(src, dst, m->len);
		evq_push(&g->q, start, EV_MSG_START, NULL, g->nmsg);
		g->nmsg++;
	}
	if (!g->first_start || start < g->first_start)
		g->first_start = start;
}

/* A random permutation of the hosts without fixed points. */
static uint32_t *derangement(unsigned int n)
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
	for (i = 0; i < n; i++)
		if (p[i] == i) {
			uint32_t j = (i + 1) % n, t = p[i];

			p[i] = p[j];
			p[j] = t;
		}
	return p;
}

void traffic_init(void)
{
	unsigned int n = g->c.hosts, i, senders;
	uint32_t *perm;

	senders = g->c.pattern == PAT_PERM ? n :
		  g->c.pattern == PAT_INCAST ? g->c.incast_n : 1;
	g->msg = calloc((size_t)senders * g->c.msgs, sizeof(*g->msg));
	if (!g->msg) {
		perror("messages");
		exit(2);
	}
	switch (g->c.pattern) {
	case PAT_PERM:
		perm = derangement(n);
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
	}
}
