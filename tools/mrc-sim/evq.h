/* SPDX-License-Identifier: GPL-2.0 */
/*
 * evq.h - mrc-sim's event queue: a 4-ary min-heap keyed by (time, seq),
 * seq being the order of insertion, so that events due at the same
 * picosecond run in the order they were scheduled, run after run.
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

struct evq {
	struct sim_ev *h;	/* the root, inside mem */
	struct sim_ev *mem;
	uint64_t n, cap;
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
