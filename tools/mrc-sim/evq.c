// SPDX-License-Identifier: GPL-2.0
/*
 * evq.c - the event queue (evq.h): a 4-ary min-heap.
 *
 * perf on a 2048-host, 8-plane permutation put a quarter of the time in
 * the binary heap's pop, nearly all of it cache misses on the way down.
 * With four children per node the heap is half as deep, and the four
 * children of a node (4 x 32 bytes) lie in one 128-byte-aligned block:
 * slot k holds heap index k - EVQ_OFF, so the children of index i,
 * 4i + 1 .. 4i + 4, sit in slots 4(i + 1) .. 4(i + 1) + 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evq.h"

#define EVQ_OFF		3	/* slots before the root: aligns the children */
#define EVQ_ALIGN	128

static int ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static struct sim_ev *evq_alloc(uint64_t cap)
{
	size_t bytes = (cap + EVQ_OFF + 1) * sizeof(struct sim_ev);
	void *p;

	bytes = (bytes + EVQ_ALIGN - 1) / EVQ_ALIGN * EVQ_ALIGN;
	p = aligned_alloc(EVQ_ALIGN, bytes);
	if (!p) {
		perror("evq");
		exit(2);
	}
	return p;
}

void evq_init(struct evq *q)
{
	q->cap = 1024;
	q->n = 0;
	q->seq = 0;
	q->peak = 0;
	q->mem = evq_alloc(q->cap);
	q->h = q->mem + EVQ_OFF;
}

void evq_free(struct evq *q)
{
	free(q->mem);
	q->mem = NULL;
	q->h = NULL;
}

void evq_push(struct evq *q, uint64_t t, uint32_t type, void *p,
	      uint32_t arg)
{
	struct sim_ev ev = { .t = t, .seq = q->seq++, .p = p, .type = type,
			     .arg = arg };
	uint64_t i;

	if (q->n == q->cap) {
		struct sim_ev *m = evq_alloc(2 * q->cap);

		memcpy(m + EVQ_OFF, q->h, q->n * sizeof(*q->h));
		free(q->mem);
		q->mem = m;
		q->h = m + EVQ_OFF;
		q->cap *= 2;
	}
	i = q->n++;
	while (i) {
		uint64_t up = (i - 1) / 4;

		if (!ev_before(&ev, &q->h[up]))
			break;
		q->h[i] = q->h[up];
		i = up;
	}
	q->h[i] = ev;
	if (q->n > q->peak)
		q->peak = q->n;
}

int evq_pop(struct evq *q, struct sim_ev *ev)
{
	struct sim_ev *h = q->h, last;
	uint64_t i = 0, n;

	if (!q->n)
		return 0;
	*ev = h[0];
	n = --q->n;
	last = h[n];
	for (;;) {
		uint64_t c = 4 * i + 1, m = c, k, end = c + 4;

		if (c >= n)
			break;
		if (end > n)
			end = n;
		for (k = c + 1; k < end; k++)
			if (ev_before(&h[k], &h[m]))
				m = k;
		if (!ev_before(&h[m], &last))
			break;
		h[i] = h[m];
		i = m;
	}
	if (n)
		h[i] = last;
	/* The next event's object: fetched while this one runs. */
	if (n)
		__builtin_prefetch(h[0].p);
	return 1;
}
