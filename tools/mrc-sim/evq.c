// SPDX-License-Identifier: GPL-2.0
/*
 * evq.c - the event queue (evq.h): a timing wheel in front of 4-ary heaps.
 *
 * perf on 2048- and 4096-host, 8-plane permutations put a quarter to a
 * third of the time in the pop of one heap of every pending event,
 * nearly all of it cache misses on the way down: at scale millions of
 * packets are in flight, each with its arrival event.  Most events are
 * due within microseconds (a hop), so a wheel of EVQ_SLOTS slots of
 * 2^EVQ_SLOT_SHIFT ps takes them in O(1): an event for a later slot is
 * appended to that slot's array; when the current slot is used up, the
 * next non-empty one is heapified into the small heap of the current
 * slot, which also takes the events pushed for the current slot
 * meanwhile.  Events beyond the wheel (timers, far backlogs) wait in the
 * overflow heap and move into the wheel as it turns.  Every event of a
 * slot comes before every event of a later slot, and within a slot the
 * heap orders by (t, seq): the order is exactly that of one heap of
 * every event, so the results are the same.
 *
 * The heaps are 4-ary, each node's four children in one 128-byte-aligned
 * block: slot k of the array holds heap index k - HEAP_OFF, so the
 * children of index i, 4i + 1 .. 4i + 4, sit in 4(i + 1) .. 4(i + 1) + 3.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evq.h"

#define EVQ_SLOT_SHIFT	10		/* 1.024 ns per slot */
#define EVQ_SLOTS	(1U << 16)	/* 67 us of wheel */
/* A slot keeps at most this many events' room once drained. */
#define EVQ_SLOT_KEEP	64
#define HEAP_OFF	3
#define HEAP_ALIGN	128

static inline int ev_before(const struct sim_ev *a, const struct sim_ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void *xalloc(size_t bytes, size_t align)
{
	void *p;

	bytes = (bytes + align - 1) / align * align;
	p = aligned_alloc(align, bytes);
	if (!p) {
		perror("evq");
		exit(2);
	}
	return p;
}

static void heap_grow(struct evheap *hp, uint64_t cap)
{
	struct sim_ev *m = xalloc((cap + HEAP_OFF + 1) * sizeof(*m),
				  HEAP_ALIGN);

	if (hp->n)
		memcpy(m + HEAP_OFF, hp->h, hp->n * sizeof(*m));
	free(hp->mem);
	hp->mem = m;
	hp->h = m + HEAP_OFF;
	hp->cap = cap;
}

static void heap_up(struct evheap *hp, uint64_t i, const struct sim_ev *ev)
{
	struct sim_ev *h = hp->h;

	while (i) {
		uint64_t up = (i - 1) / 4;

		if (!ev_before(ev, &h[up]))
			break;
		h[i] = h[up];
		i = up;
	}
	h[i] = *ev;
}

/* Sifts @ev down from index @i of a heap of @n events. */
static void heap_down(struct sim_ev *h, uint64_t n, uint64_t i,
		      const struct sim_ev *ev)
{
	for (;;) {
		uint64_t c = 4 * i + 1, m = c, k, end = c + 4;

		if (c >= n)
			break;
		if (end > n)
			end = n;
		for (k = c + 1; k < end; k++)
			if (ev_before(&h[k], &h[m]))
				m = k;
		if (!ev_before(&h[m], ev))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = *ev;
}

static void heap_push(struct evheap *hp, const struct sim_ev *ev)
{
	if (hp->n == hp->cap)
		heap_grow(hp, 2 * hp->cap);
	heap_up(hp, hp->n++, ev);
}

static void heap_pop(struct evheap *hp, struct sim_ev *ev)
{
	*ev = hp->h[0];
	if (--hp->n)
		heap_down(hp->h, hp->n, 0, &hp->h[hp->n]);
}

static void slot_add(struct evslot *s, const struct sim_ev *ev)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v) {
			perror("evq");
			exit(2);
		}
	}
	s->v[s->n++] = *ev;
}

void evq_init(struct evq *q)
{
	memset(q, 0, sizeof(*q));
	heap_grow(&q->cur, 1024);
	heap_grow(&q->far, 1024);
	q->slot = calloc(EVQ_SLOTS, sizeof(*q->slot));
	if (!q->slot) {
		perror("evq");
		exit(2);
	}
}

void evq_free(struct evq *q)
{
	unsigned int i;

	for (i = 0; i < EVQ_SLOTS; i++)
		free(q->slot[i].v);
	free(q->slot);
	free(q->cur.mem);
	free(q->far.mem);
	memset(q, 0, sizeof(*q));
}

/* Into the current heap, a slot of the wheel, or the overflow heap. */
static void place(struct evq *q, const struct sim_ev *ev)
{
	uint64_t s = ev->t >> EVQ_SLOT_SHIFT;

	if (s <= q->cur_slot) {
		heap_push(&q->cur, ev);
	} else if (s - q->cur_slot < EVQ_SLOTS) {
		slot_add(&q->slot[s & (EVQ_SLOTS - 1)], ev);
		q->in_wheel++;
	} else {
		heap_push(&q->far, ev);
	}
}

void evq_push(struct evq *q, uint64_t t, uint32_t type, void *p,
	      uint32_t arg)
{
	struct sim_ev ev = { .t = t, .seq = q->seq++, .p = p, .type = type,
			     .arg = arg };

	place(q, &ev);
	if (++q->n > q->peak)
		q->peak = q->n;
}

/* The wheel turned to cur_slot: the overflow events now within it. */
static void pull_far(struct evq *q)
{
	struct sim_ev ev;

	while (q->far.n &&
	       (q->far.h[0].t >> EVQ_SLOT_SHIFT) - q->cur_slot < EVQ_SLOTS) {
		heap_pop(&q->far, &ev);
		place(q, &ev);
	}
}

/* The current slot is used up: on to the next one that holds events. */
static void advance(struct evq *q)
{
	struct evslot *s;
	uint64_t i;

	if (!q->in_wheel) {
		/* nothing within the wheel: jump to the overflow's first */
		q->cur_slot = q->far.h[0].t >> EVQ_SLOT_SHIFT;
		pull_far(q);
		return;
	}
	do {
		q->cur_slot++;
		s = &q->slot[q->cur_slot & (EVQ_SLOTS - 1)];
	} while (!s->n);
	if (s->n > q->cur.cap) {
		uint64_t cap = q->cur.cap;

		while (cap < s->n)
			cap *= 2;
		heap_grow(&q->cur, cap);
	}
	memcpy(q->cur.h, s->v, s->n * sizeof(*s->v));
	q->cur.n = s->n;
	q->in_wheel -= s->n;
	s->n = 0;
	/* a burst's slot gives its memory back: the wheel holds what waits */
	if (s->cap > EVQ_SLOT_KEEP) {
		free(s->v);
		s->v = NULL;
		s->cap = 0;
	}
	for (i = (q->cur.n - 2) / 4 + 1; q->cur.n > 1 && i--;) {
		struct sim_ev ev = q->cur.h[i];

		heap_down(q->cur.h, q->cur.n, i, &ev);
	}
	pull_far(q);
}

int evq_pop(struct evq *q, struct sim_ev *ev)
{
	if (!q->n)
		return 0;
	while (!q->cur.n)
		advance(q);
	heap_pop(&q->cur, ev);
	q->n--;
	/* The next event's object: fetched while this one runs. */
	if (q->cur.n)
		__builtin_prefetch(q->cur.h[0].p);
	return 1;
}
