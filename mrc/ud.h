/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ud.h - the UD queue pairs of a rail.
 *
 * Each rail has one PD, a receive CQ, a send CQ and one UD QP per
 * entropy value (on rxe the UDP source port is fixed per QP, so a QP *is*
 * an entropy value: a path through an ECMP fabric).  Every QP keeps MRC_UD_NRX receive buffers of
 * GRH + MRC_WIRE_MAX_PKT bytes posted, so no datagram mrc accepts can be
 * larger than a buffer.  A QP that enters ERROR anyway (rxe does so on an
 * oversized datagram from anyone) is recovered automatically: moved to
 * ERROR, its flushed work requests collected, then RESET -> INIT -> RTR ->
 * RTS and every receive reposted.
 */
#ifndef _MRC_UD_H
#define _MRC_UD_H

#include <rdma/ib_verbs.h>
#include <linux/workqueue.h>

#include "core/wire.h"

#define MRC_UD_QKEY	0x4d524331	/* "MRC1" */
#define MRC_UD_RX_LEN	(sizeof(struct ib_grh) + MRC_WIRE_MAX_PKT)
#define MRC_UD_NRX	128	/* receives posted per QP */
#define MRC_UD_NTX	64	/* sends in flight per QP (rxe's limit) */
#define MRC_UD_CHAIN	16	/* staged sends posted as one chain, at most */
/* Send completions reaped per mrc_cq_reap() after a post. */
#define MRC_UD_REAP	64
/* The send CQ's sweep, behind its posters' reaping (cq.c, Lazy). */
#define MRC_UD_SWEEP_MS	4

struct mrc_rail;
struct mrc_ud;
struct mrc_ud_qp;
struct mrc_cq;

struct mrc_ud_rx {
	struct ib_cqe cqe;
	struct mrc_ud_qp *uqp;
	void *buf;
	u64 dma;
	bool posted;		/* under uqp->lock */
};

/*
 * Payload pages a DATA send reads in place, at most: a payload (at most
 * MRC_WIRE_MAX_PAYLOAD bytes, under a page) spans two pages of a
 * vmalloc'ed buffer, one range of a physically contiguous one.
 */
#define MRC_UD_TX_PAY	2

struct mrc_ud_tx {
	struct ib_cqe cqe;
	struct mrc_ud_qp *uqp;
	void *buf;		/* the header, and a payload copied */
	u64 dma;
	/* Under uqp->lock: the work request, while staged or posted. */
	struct ib_ud_wr wr;
	/* The slot's buffer, then the payload's pages if sent in place */
	struct ib_sge sge[1 + MRC_UD_TX_PAY];
	/*
	 * Under uqp->lock: the pages of a payload sent in place, each with a
	 * reference and mapped (sge[1 + i]) until the slot comes back.
	 */
	struct folio *pay[MRC_UD_TX_PAY];
	u8 npay;
	bool posted;
};

enum mrc_uqp_state {
	MRC_UQP_READY,		/* RTS, receives posted */
	MRC_UQP_ERROR,		/* broken: to be moved to ERROR */
	MRC_UQP_DRAINING,	/* in ERROR, waiting for flushed WRs */
	MRC_UQP_REARM,		/* drained: to be reset and reposted */
	MRC_UQP_DEAD,		/* being destroyed */
};

struct mrc_ud_qp {
	struct mrc_ud *ud;
	struct ib_qp *qp;
	u16 ev;				/* entropy value = index on the rail */

	spinlock_t lock;		/* everything below, and rx/tx posted */
	enum mrc_uqp_state state;
	unsigned int rx_posted;
	unsigned int tx_posted;
	u64 tx_completed;		/* sends back from the CQ, ever; a
					 * fence waits on it (wake_up_var)
					 */
	u16 tx_free[MRC_UD_NTX];	/* stack of free tx slot indices */
	unsigned int ntx_free;
	/*
	 * Posted sends in posting order (a ring of slot indices): a send
	 * queue completes in order, so a signalled completion returns its
	 * slot and every slot posted before it.
	 */
	u16 tx_fifo[MRC_UD_NTX];
	unsigned int fifo_head;		/* oldest posted */
	/* Staged sends (mrc_ud_stage()), linked by wr.wr.next. */
	struct mrc_ud_tx *stage_first, *stage_last;
	unsigned int nstaged;
	u64 recovered_ns;		/* last back in READY, or 0 */
	unsigned int recover_delay_ms;	/* of the last recovery (backoff) */
	struct delayed_work recover_work;

	struct mrc_ud_rx rx[MRC_UD_NRX];
	struct mrc_ud_tx tx[MRC_UD_NTX];
};

struct mrc_ud {
	struct mrc_rail *rail;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct mrc_cq *mcq;		/* receives */
	struct ib_cq *cq;		/* mcq->cq */
	struct mrc_cq *scq;		/* sends: lazy, reaped after posts */
	unsigned int nqp;
	struct mrc_ud_qp *qps;		/* nqp entries */
};

int mrc_ud_init(void);
void mrc_ud_exit(void);

struct mrc_ud *mrc_ud_create(struct mrc_rail *rail, unsigned int nqp);
void mrc_ud_destroy(struct mrc_ud *ud);

int mrc_ud_send(struct mrc_ud *ud, unsigned int ev, struct ib_ah *ah,
		u32 rqpn, const void *hdr, unsigned int hlen,
		const void *payload, unsigned int plen);

int mrc_ud_stage(struct mrc_ud *ud, unsigned int ev, struct ib_ah *ah,
		 u32 rqpn, const void *hdr, unsigned int hlen,
		 const void *payload, unsigned int plen);
void mrc_ud_flush(struct mrc_ud *ud, unsigned int ev);

int mrc_ud_inject_error(struct mrc_ud *ud, unsigned int ev);
void mrc_ud_tx_fence(struct mrc_ud *ud);

/* QP number of entropy value @ev. */
static inline u32 mrc_ud_qpn(const struct mrc_ud *ud, unsigned int ev)
{
	return ud->qps[ev].qp->qp_num;
}

void mrc_proto_rx(struct mrc_ud_qp *uqp, const struct ib_wc *wc,
		  const struct ib_grh *grh, const void *pkt, u32 len);

#endif /* _MRC_UD_H */
