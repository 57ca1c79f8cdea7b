/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ud.h - the UD queue pairs of a rail.
 *
 * Each rail has one PD, one CQ and one UD QP per entropy value (on rxe the
 * UDP source port is fixed per QP, so a QP *is* an entropy value: a path
 * through an ECMP fabric).  Every QP keeps MRC_UD_NRX receive buffers of
 * GRH + MRC_WIRE_MAX_PKT bytes posted, so no datagram mrc accepts can be
 * larger than a buffer.  Sends go through a FIFO ring of MRC_UD_NTX slots
 * per QP: the header in the slot, the payload mapped in place from the
 * message's buffer (struct mrc_ud_buf, which the send holds a reference
 * on), DATA packets posted in chains, control packets inline (ud.c has the
 * design notes).  A QP that enters ERROR (rxe does so on an oversized
 * datagram from anyone) is recovered automatically: moved to ERROR, its
 * flushed work requests collected, then RESET -> INIT -> RTR -> RTS and
 * every receive reposted.
 */
#ifndef _MRC_UD_H
#define _MRC_UD_H

#include <rdma/ib_verbs.h>
#include <linux/workqueue.h>

#include "core/wire.h"

#define MRC_UD_QKEY	0x4d524331	/* "MRC1" */
#define MRC_UD_RX_LEN	(sizeof(struct ib_grh) + MRC_WIRE_MAX_PKT)
#define MRC_UD_NRX	128	/* receives posted per QP */
#define MRC_UD_NTX	64	/* send ring slots per QP (rxe's limit), 2^n */
/* Header room of a send slot: the largest control packet (a full NACK). */
#define MRC_UD_TX_SLOT	512
/* Inline data asked of the provider: a full NACK. */
#define MRC_UD_INLINE	(MRC_WIRE_HDR_LEN + MRC_WIRE_NACK_MAX * 8)
#define MRC_UD_CHAIN	16	/* WRs per ib_post_send() at most */
#define MRC_UD_SIG_EVERY 16	/* a signalled WR at least this often */
/* Gather entries: the header, a payload crossing one page boundary. */
#define MRC_UD_TX_SGE	3

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

struct mrc_ud_buf;

/*
 * One send slot.  Everything but cqe and uqp is written by whoever owns
 * the slot under uqp->lock: the poster from mrc_ud_tx_get() until it is
 * posted, then the provider until a completion reclaims it.
 */
struct mrc_ud_tx {
	struct ib_cqe cqe;
	struct mrc_ud_qp *uqp;
	struct ib_ud_wr wr;
	struct ib_sge sge[MRC_UD_TX_SGE];
	struct mrc_ud_buf *buf;	/* the payload's buffer (a reference) */
	u8 npay;		/* payload entries mapped: sge[1..npay] */
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

	spinlock_t lock;		/* everything below, and rx/tx slots */
	enum mrc_uqp_state state;
	unsigned int rx_posted;
	/*
	 * The send ring, free-running indices (slot = index % MRC_UD_NTX):
	 * [tx_tail, tx_post) posted and not yet known complete, [tx_post,
	 * tx_head) queued (the pending chain, posted by the next flush),
	 * the rest free.  The newest posted WR is always signalled.
	 */
	u32 tx_tail, tx_post, tx_head;
	unsigned int tx_unsig;		/* WRs queued since a signalled one */
	unsigned int max_inline;	/* the provider's, fixed at creation */
	struct work_struct recover_work;

	struct mrc_ud_rx rx[MRC_UD_NRX];
	struct mrc_ud_tx tx[MRC_UD_NTX];
	void *hdr;			/* MRC_UD_NTX * MRC_UD_TX_SLOT bytes */
	u64 hdr_dma;			/* ... mapped once, to the device */
};

struct mrc_ud {
	struct mrc_rail *rail;
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct mrc_cq *mcq;
	struct ib_cq *cq;		/* mcq->cq */
	unsigned int nqp;
	struct mrc_ud_qp *qps;		/* nqp entries */
};

int mrc_ud_init(void);
void mrc_ud_exit(void);

struct mrc_ud *mrc_ud_create(struct mrc_rail *rail, unsigned int nqp);
void mrc_ud_destroy(struct mrc_ud *ud);

int mrc_ud_send(struct mrc_ud *ud, unsigned int ev, struct ib_ah *ah,
		u32 rqpn, const void *hdr, unsigned int hlen,
		const void *body, unsigned int blen);
int mrc_ud_queue(struct mrc_ud *ud, unsigned int ev, struct ib_ah *ah,
		 u32 rqpn, const void *hdr, unsigned int hlen,
		 void *buf, u32 off, unsigned int plen);
void mrc_ud_flush(struct mrc_ud *ud, unsigned int ev);

void *mrc_ud_buf_alloc(size_t bytes);
void mrc_ud_buf_put(void *buf);

int mrc_ud_inject_error(struct mrc_ud *ud, unsigned int ev);

/* QP number of entropy value @ev. */
static inline u32 mrc_ud_qpn(const struct mrc_ud *ud, unsigned int ev)
{
	return ud->qps[ev].qp->qp_num;
}

void mrc_proto_rx(struct mrc_ud_qp *uqp, const struct ib_wc *wc,
		  const struct ib_grh *grh, const void *pkt, u32 len);

#endif /* _MRC_UD_H */
