/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ud_int.h - what ud.c (QPs, receives, recovery) and ud_tx.c (the send
 * side) share.
 */
#ifndef _MRC_UD_INT_H
#define _MRC_UD_INT_H

#include "ud.h"

/*
 * A message's payload buffer.  @ref: the message engine's reference and
 * one per send slot mapping part of @data; the last put frees it.  @next
 * chains buffers to free once the QP lock is dropped.
 */
struct mrc_ud_buf {
	refcount_t ref;
	struct mrc_ud_buf *next;
	u8 data[] __aligned(16);
};

/* Slot @i of the send ring (ring positions count up, modulo its size). */
static inline struct mrc_ud_tx *mrc_ud_tx_slot(struct mrc_ud_qp *uqp, u32 i)
{
	return &uqp->tx[i % MRC_UD_NTX];
}

void mrc_ud_qp_broken(struct mrc_ud_qp *uqp);
bool mrc_ud_drained_locked(struct mrc_ud_qp *uqp);

void mrc_ud_tx_done(struct ib_cq *cq, struct ib_wc *wc);
void mrc_ud_tx_release(struct mrc_ud_qp *uqp, struct mrc_ud_tx *tx,
		       struct mrc_ud_buf **free);
void mrc_ud_buf_free_list(struct mrc_ud_buf *b);

#endif /* _MRC_UD_INT_H */
