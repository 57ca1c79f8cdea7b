// SPDX-License-Identifier: GPL-2.0
/*
 * evq.c - the event queue (evq.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "evq.h"

static int ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void evq_init(struct evq *q)
{
	q->cap = 1024;
	q->n = 0;
	q->seq = 0;
	q->peak = 0;
	q->h = malloc(q->cap * sizeof(*q->h));
	if (!q->h) {
		perror("evq");
		exit(2);
	}
}

void evq_free(struct evq *q)
{
	free(q->h);
	q->h = NULL;
}

void evq_push(struct evq *q, uint64_t t, uint32_t type, void *p,
	      uint32_t arg)
{
	struct sim_ev ev = { .t = t, .seq = q->seq++, .p = p, .type = type,
			     .arg = arg };
	uint64_t i;

	if (q->n == q->cap) {
		q->cap *= 2;
		q->h = realloc(q->h, q->cap * sizeof(*q->h));
		if (!q->h) {
			perror("evq");
			exit(2);
		}
	}
	i = q->n++;
	while (i) {
		uint64_t up = (i - 1) / 2;

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
	struct sim_ev last;
	uint64_t i = 0;

	if (!q->n)
		return 0;
	*ev = q->h[0];
	last = q->h[--q->n];
	for (;;) {
		uint64_t c = 2 * i + 1;

		if (c >= q->n)
			break;
		if (c + 1 < q->n && ev_before(&q->h[c + 1], &q->h[c]))
			c++;
		if (!ev_before(&q->h[c], &last))
			break;
		q->h[i] = q->h[c];
		i = c;
	}
	if (q->n)
		q->h[i] = last;
	return 1;
}
