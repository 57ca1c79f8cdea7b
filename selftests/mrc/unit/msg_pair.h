/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msg_pair.h - two linked msg_host.h hosts, A (node 1) and B (node 2),
 * for the sender's unit tests: pair() sets them up, unpair() tears them
 * down and checks that nothing leaked; struct done_rec records a send's
 * done().  One test binary per file includes it.
 */
#ifndef MRC_UNIT_MSG_PAIR_H
#define MRC_UNIT_MSG_PAIR_H

#include "tap.h"
#include "msg_host.h"

#define T0		1000000000ULL	/* 1 s: any non-zero start */
#define MS		1000000ULL
#define SEG		(4096 - MRC_WIRE_HDR_LEN)

struct done_rec {
	int calls;
	int status;
};

static void done_fn(void *ctx, int status)
{
	struct done_rec *d = ctx;

	d->calls++;
	d->status = status;
}

static struct host *A, *B;

static void pair(void)
{
	A = host_new(1, 2, 4, 4096, T0);
	B = host_new(2, 2, 4, 4096, T0);
	host_link(A, B);
}

/*
 * Moves both clocks to the end of @h's hold of the acknowledgments it
 * keeps for a DATA of its own (a message flagged MRC_WF_ACK_LAZY: the
 * only one its sender had queued), if it holds any, and runs @h: its
 * timer sends them as a SACK.
 */
static inline void hold_end(struct host *h)
{
	u64 t = h->mp.done_ack.since_ns + MRC_MSG_ACK_HOLD_NS;

	if (!h->mp.done_ack.valid || !h->mp.done_ack.held)
		return;
	if (t > h->now)
		A->now = B->now = t;
	host_run(h);
}

/* Tears both down and checks that nothing leaked. */
static void unpair(void)
{
	struct host *h[2] = { A, B };
	int i;

	for (i = 0; i < 2; i++) {
		host_stop(h[i]);
		CHECK(h[i]->allocs == 0, "host %d: %ld allocations left", i,
		      h[i]->allocs);
		CHECK(atomic64_read(&h[i]->node.tx_bytes) == 0,
		      "host %d: tx_bytes %lld", i,
		      (long long)atomic64_read(&h[i]->node.tx_bytes));
		CHECK(atomic64_read(&h[i]->node.rx_bytes) == 0,
		      "host %d: rx_bytes %lld", i,
		      (long long)atomic64_read(&h[i]->node.rx_bytes));
		host_destroy(h[i]);
	}
}

#endif /* MRC_UNIT_MSG_PAIR_H */
