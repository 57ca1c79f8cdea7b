/* SPDX-License-Identifier: GPL-2.0 */
/*
 * events.h - per-CPU counters of the data path's events (debugfs
 * mrc/events): how often each stage, hop, completion and copy happens,
 * so that a benchmark can divide them by the packets and messages it
 * moved (bench/profile).  Cheap enough to stay on: one this_cpu_add()
 * each, no lock, no shared cache line.  The trace events of the same
 * stages are in trace.h.
 */
#ifndef _MRC_EVENTS_H
#define _MRC_EVENTS_H

#include <linux/percpu.h>
#include <linux/types.h>

enum mrc_ev {
	MRC_EV_SEND,		/* sends accepted by mrc_msg_send() */
	MRC_EV_TX_POST,		/* datagrams posted, every type */
	MRC_EV_TX_SIGNALED,	/* ... of them with a signalled completion */
	MRC_EV_TX_DATA,		/* DATA packets posted (first and resent) */
	MRC_EV_TX_SACK,		/* SACKs posted */
	MRC_EV_TX_NACK,		/* NACKs posted */
	MRC_EV_TX_CQE,		/* send completions handled */
	MRC_EV_RX_CQE,		/* receive completions handled */
	MRC_EV_RX_DATA,		/* DATA packets received from a peer's path */
	MRC_EV_RX_SACK,		/* SACKs received */
	MRC_EV_RX_NACK,		/* NACKs received */
	MRC_EV_TX_KICK,		/* tx_work queued (it was not pending) */
	MRC_EV_TX_WORK,		/* tx_work runs */
	MRC_EV_TX_BATCH_RUN,	/* sender runs at a batch's end, kicked by
				 * answers that arrived in it (msg.c)
				 */
	MRC_EV_TIMER,		/* message engine hrtimer expiries */
	MRC_EV_RX_KICK,		/* rx_work queued (it was not pending) */
	MRC_EV_RX_WORK,		/* rx_work runs */
	MRC_EV_COMPLETE,	/* sends completed (done() called) */
	MRC_EV_DELIVER,		/* messages handed to an endpoint */
	MRC_EV_EP_READ,		/* messages read from /dev/mrc */
	MRC_EV_ALLOC,		/* message-sized allocations */
	MRC_EV_RXPOOL_HIT,	/* receive memory taken from the pool */
	MRC_EV_RXPOOL_MISS,	/* ... allocated: none idle, or above 64 KiB */
	MRC_EV_RXPOOL_RECYCLED,	/* receive memory given back, kept */
	MRC_EV_RXPOOL_FREED,	/* ... freed: pool full, trimmed, too large */
	MRC_EV_COPY_TX,		/* payload bytes copied on the send side */
	MRC_EV_COPY_RX,		/* payload bytes copied on the receive side */
	MRC_EV_CQ_WORK,		/* CQ work item runs that polled */
	MRC_EV_TX_REAP,		/* send completions reaped by their posters */
	MRC_EV_BUSY_POLL,	/* busy-poll passes over every CQ */
	MRC_EV_BUSY_CQE,	/* completions handled by busy pollers */
	MRC_EV_BUSY_HIT,	/* busy polls that found a message */
	MRC_EV_RX_DIRECT,	/* messages delivered where their DATA arrived */
	MRC_EV_QP_RECOVER_DEFERRED, /* QP recoveries delayed (ud.c backoff) */
	MRC_EV_DEV_MEM_FULL,	/* /dev/mrc sends or messages refused:
				 * dev_mem_mb reached (chardev.c)
				 */
	MRC_EV_DEV_CLOSE_DEFERRED, /* /dev/mrc closes that left sends to
				    * complete after release() (chardev.c)
				    */
	MRC_EV_TX_INPLACE,	/* DATA payloads sent from the message's
				 * buffer, not copied (ud.c)
				 */
	MRC_EV_TXPOOL_HIT,	/* send buffers taken from the pool */
	MRC_EV_TXPOOL_MISS,	/* ... allocated: none idle for this sender */
	MRC_EV_TXPOOL_RECYCLED,	/* send buffers given back, kept */
	MRC_EV_TXPOOL_BUSY,	/* ... a send still reading from them */
	MRC_EV_TXPOOL_FREED,	/* ... freed: pool full or trimmed */
	MRC_EV_NR
};

struct mrc_ev_counts {
	u64 c[MRC_EV_NR];
};

DECLARE_PER_CPU(struct mrc_ev_counts, mrc_ev_pcpu);

/* Count @n events of kind @ev on this CPU (any context). */
static inline void mrc_ev_add(enum mrc_ev ev, u64 n)
{
	this_cpu_add(mrc_ev_pcpu.c[ev], n);
}

static inline void mrc_ev_inc(enum mrc_ev ev)
{
	this_cpu_inc(mrc_ev_pcpu.c[ev]);
}

struct seq_file;
int mrc_ev_show(struct seq_file *s);

#endif /* _MRC_EVENTS_H */
