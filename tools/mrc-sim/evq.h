/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evq.h - mrc-sim's event queue, keyed by (time, seq), seq being the
 * order of insertion, so that events due at the same picosecond run in
 * the order they were scheduled, run after run.
 *
 * A timing wheel in front of two 4-ary heaps (evq.c): the events of the
 * wheel's current slot are in a small heap, those of the next
 * EVQ_SLOTS - 1 slots in unsorted per-slot arrays, later ones in an
 * overflow heap.  The order of the events is exactly (t, seq).
 */
#ifndef MRC_SIM_EVQ_H
#define MRC_SIM_EVQ_H

#include <stdint.h>

struct sim_ev {
	uint64_t t;		/* due, ps */
	uint64_t seq;		/* tie break: insertion order */
	void *p;		/* the object it is for */
	uint32_t type;
	uint32_t arg;
};

/* A 4-ary min-heap of events (evq.c). */
struct evheap {
	struct sim_ev *h;	/* the root, inside mem */
	struct sim_ev *mem;
	uint64_t n, cap;
};

struct evslot {
	struct sim_ev *v;
	uint32_t n, cap;
};

struct evq {
	struct evheap cur;	/* events of the current slot */
	struct evheap far;	/* events beyond the wheel */
	struct evslot *slot;	/* EVQ_SLOTS, by slot number mod EVQ_SLOTS */
	uint64_t cur_slot;	/* slot number (t >> EVQ_SLOT_SHIFT) */
	uint64_t in_wheel;	/* events in the slots' arrays */
	uint64_t n;		/* events pending, in all */
	uint64_t seq;
	uint64_t peak;		/* most events pending at once */
};

void evq_init(struct evq *q);
void evq_free(struct evq *q);
void evq_push(struct evq *q, uint64_t t, uint32_t type, void *p,
	      uint32_t arg);
/* Takes the earliest event into *@ev; 0 if the queue is empty. */
int evq_pop(struct evq *q, struct sim_ev *ev);

#endif /* MRC_SIM_EVQ_H */
