/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msg_int.h - what the sender's two files (msg_tx.c: queue, push, timers;
 * msg_ack.c: acknowledgment and loss detection) share.  Internal to
 * mrc/core/msg_*.c; the engine's interface is msg.h.
 */
#ifndef _MRC_CORE_MSG_INT_H
#define _MRC_CORE_MSG_INT_H

#include "config.h"
#include "msg.h"

#define MRC_MSG_WINDOW		64	/* initial cwnd, packets per peer */
#define MRC_MSG_CWND_MIN	8
#define MRC_MSG_CWND_MAX	128
#define MRC_MSG_BUDGET		128	/* packets per run */
/* A send pushes in the caller's context while at most this many queued. */
#define MRC_MSG_PUSH_NOW_MAX	4
/*
 * The sender's timer while anything is queued: every tick, or sooner when
 * the loss scan's next verdict is due sooner and the RTO floor in use
 * (a learned one) is below a tick, but not sooner than the least tick.
 */
#define MRC_MSG_TICK_NS		(2 * NSEC_PER_MSEC)
#define MRC_MSG_TICK_MIN_NS	(20 * NSEC_PER_USEC)
/* The first wait after a busy answer (msg_ack.c busy()); it doubles. */
#define MRC_MSG_BUSY_MIN_NS	(1 * NSEC_PER_MSEC)
#define MRC_MSG_RETRY_NS	(250 * NSEC_PER_USEC)
/*
 * Reordering margin of the loss scan: at least this, beyond a path's
 * srtt.  A receiver may handle one QP's completions in batches, so
 * packets of different paths overtake each other by milliseconds, and
 * two planes' bottleneck queues can differ by tens of ms; a smaller
 * margin turns that reordering into spurious retransmissions
 * (Documentation/mrc/protocol.rst has the figures).
 */
#define MRC_MSG_REO_MIN_NS	(20 * NSEC_PER_MSEC)
/*
 * Learned floors (msg_ack.c, Floors), used while the data_rto_min_ms knob
 * is 0: MRC_MSG_FLOOR_MULT times the largest data RTT of the last one to
 * two windows of MRC_MSG_FLOOR_WIN_NS, within [MIN, MAX]; MAX (the fixed
 * floors above) while they hold no sample, and MRC_MSG_FLOOR_YOUNG times
 * the multiple while they hold fewer than MRC_MSG_FLOOR_SAMPLES, if that
 * floor is at most MRC_MSG_FLOOR_YOUNG_MAX_NS (else MAX).  With no sample,
 * the RTO's floor is MRC_MSG_FLOOR_PROBE_MULT times the largest srtt of
 * the peer's active paths (their probes'), under the same bound.
 */
#define MRC_MSG_FLOOR_MAX_NS	MRC_MSG_REO_MIN_NS
#define MRC_MSG_FLOOR_MIN_NS	(100 * NSEC_PER_USEC)
#define MRC_MSG_FLOOR_WIN_NS	(1000 * NSEC_PER_MSEC)
#define MRC_MSG_FLOOR_MULT	8
#define MRC_MSG_FLOOR_SAMPLES	16
#define MRC_MSG_FLOOR_YOUNG	4
#define MRC_MSG_FLOOR_YOUNG_MAX_NS	(MRC_MSG_FLOOR_MAX_NS / 8)
#define MRC_MSG_FLOOR_PROBE_MULT	256
/* The learned RTO floor is at least this times the slowest recent RTT. */
#define MRC_MSG_RTO_HI_MULT	2
#define MRC_MSG_REO_STRIKES	3
/* No progress for this many peer_timeout_ms with paths usable: ETIMEDOUT. */
#define MRC_MSG_STALL_MULT	4
/* Bulk and background yield this long after a latency message. */
#define MRC_MSG_YIELD_NS	(20 * NSEC_PER_MSEC)

static inline void msg_count(struct mrc_msg_peer *mp, unsigned int stat, u64 n)
{
	mp->node->ops->count(mp->node, stat, n);
}

static inline u64 msg_knob(struct mrc_msg_peer *mp, unsigned int id)
{
	return mp->node->ops->knob(mp->node, id);
}

static inline u32 msg_now_us(u64 now)
{
	return (u32)div_u64(now, NSEC_PER_USEC);
}

/* The rank (send order) of class @cls: latency first, background last. */
static inline unsigned int msg_rank(u8 cls)
{
	switch (cls) {
	case MRC_SCHED_CLASS_LATENCY:
		return 0;
	case MRC_SCHED_CLASS_BACKGROUND:
		return 2;
	default:
		return 1;
	}
}

static inline u32 msg_pkt_len(const struct mrc_msg_tx *m, u32 idx)
{
	return min_t(u32, m->seg, m->len - idx * m->seg);
}

/* What the txsb callbacks need; lives on the stack of one call. */
struct mrc_msg_cb {
	struct mrc_msg_peer *mp;
	struct mrc_msg_tx *m;
	struct mrc_path_params pp;
	u64 now;
	int how;			/* enum mrc_path_done */
	int ev;				/* path event to raise, or 0 */
	bool congestion;		/* LOST by queue drop evidence */
};

/* Takes @m off the queue onto mp->done. */
static inline void msg_retire(struct mrc_msg_peer *mp, struct mrc_msg_tx *m)
{
	list_move_tail(&m->node, &mp->done);
	list_del(&m->lane_node);
	list_del_init(&m->sent_node);
	mp->ntx--;
	mp->ntx_rank[msg_rank(m->cls)]--;
	mp->tx_own[m->own].n--;
}

void mrc_msg_cb_init(struct mrc_msg_cb *cb, struct mrc_msg_peer *mp, u64 now);
void mrc_msg_release_all(struct mrc_msg_cb *cb, struct mrc_msg_tx *m);
void mrc_msg_cb_fn(void *arg, const struct mrc_txsb_event *ev);
void mrc_msg_loss_scan(struct mrc_msg_peer *mp, struct mrc_msg_cb *cb);
void mrc_msg_tx_epoch_gone(struct mrc_msg_peer *mp, u64 now);

#endif /* _MRC_CORE_MSG_INT_H */
