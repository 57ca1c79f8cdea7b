// SPDX-License-Identifier: GPL-2.0
/*
 * ud.c - the UD queue pairs of a rail: creation, receive buffers, sends,
 * completions and automatic recovery of a QP that enters ERROR.
 *
 * Design notes
 *
 * Receive buffers are GRH + 4096 bytes from a dedicated slab cache,
 * DMA-mapped once at creation and posted for the QP's life.
 *
 * Send ring.  Each QP has MRC_UD_NTX send slots used as a FIFO ring in
 * posting order: [tx_tail, tx_post) posted, [tx_post, tx_head) queued, not
 * yet posted.  A slot holds the WR, its gather list and a header area of
 * MRC_UD_TX_SLOT bytes (one array per QP, DMA-mapped once).  Payload is
 * never copied here: a DATA packet (mrc_ud_queue()) is its 64-byte header,
 * copied into the slot, then one gather entry per page the payload spans
 * (two at most), each mapped with ib_dma_map_page() straight from the
 * message's buffer and unmapped when the slot is reclaimed.  Message
 * buffers are struct mrc_ud_buf (mrc_ud_buf_alloc()): refcounted, one
 * reference for the message engine, one per slot that points into it, so
 * a buffer outlives its message for as long as any WR references it (a
 * retransmission may be in flight on several QPs; a flushed QP returns its
 * WRs late).  Control packets (mrc_ud_send(): PROBEs, SACKs, NACKs,
 * credits) are posted at once, IB_SEND_INLINE from the caller's memory
 * when they fit the provider's max_inline_data, else copied into the
 * slot's header area.
 *
 * Chains.  mrc_ud_queue() only queues; mrc_ud_flush() posts the queued
 * WRs of a QP as one linked list, and a chain that reaches MRC_UD_CHAIN
 * WRs is posted at once, so a post (BH off, QP lock held) is bounded.
 * mrc_ud_send() posts whatever is queued on the QP in front of its packet,
 * so the ring's order is always the posting order.
 *
 * Signalling.  The QP signals only requested WRs: the last WR of every
 * post, and one in MRC_UD_SIG_EVERY queued.  A send completion reclaims
 * every slot from tx_tail up to its own (a QP's sends complete in order);
 * since the newest posted WR is always signalled, no slot waits for
 * traffic that may never come, and when a QP in ERROR flushes (with a
 * completion for every WR still in its queue, signalled or not) the last
 * completion reclaims the whole ring.
 *
 * Completions.  One CQ per rail (cq.c), polled in process context: by a
 * work item, or by a /dev/mrc reader that busy polls.  Each work request
 * carries an ib_cqe: a receive returns its buffer, a send its ring up to
 * it.
 *
 * Recovery.  Any error completion other than a flush, or a fatal QP event,
 * marks the QP broken (state ERROR) and queues its recover_work, which moves
 * the QP to the ERROR state so that every posted work request comes back
 * flushed (DRAINING).  When the last one is back, the completion handler
 * queues the work again (REARM), which resets the QP, brings it back to RTS
 * and reposts every receive.  No work request is ever posted or reused while
 * the provider may still own it (how long recovery takes: "Timer defaults"
 * in Documentation/mrc/design-decisions.rst).  WRs queued while the QP is
 * not READY are dropped at the flush, their packets lost to the sender.
 *
 * Teardown.  State DEAD stops sends and recovery; the QP is destroyed
 * (which makes the provider stop touching its buffers) before the CQ is
 * freed (which waits for the CQ's work) and before any buffer is unmapped
 * or any payload reference dropped.
 * ib_drain_qp() is not used: on a UD QP it posts an RDMA WRITE and WARNs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "mrc.h"
#include "cq.h"
#include "events.h"
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

static struct kmem_cache *mrc_rx_cache;

static void mrc_ud_rx_done(struct ib_cq *cq, struct ib_wc *wc);
static void mrc_ud_tx_done(struct ib_cq *cq, struct ib_wc *wc);

/* Posts receive @i.  Caller holds uqp->lock. */
static int mrc_ud_post_rx(struct mrc_ud_qp *uqp, unsigned int i)
{
	struct mrc_ud_rx *rx = &uqp->rx[i];
	struct ib_sge sge = {
		.addr	= rx->dma,
		.length	= MRC_UD_RX_LEN,
		.lkey	= uqp->ud->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &rx->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};
	int err;

	lockdep_assert_held(&uqp->lock);
	ib_dma_sync_single_for_device(uqp->ud->ibdev, rx->dma, MRC_UD_RX_LEN,
				      DMA_FROM_DEVICE);
	err = ib_post_recv(uqp->qp, &wr, NULL);
	if (!err) {
		rx->posted = true;
		uqp->rx_posted++;
	}
	return err;
}

static int mrc_ud_qp_to_rts(struct mrc_ud_qp *uqp)
{
	struct ib_qp_attr attr = {
		.qp_state	= IB_QPS_INIT,
		.pkey_index	= 0,
		.port_num	= uqp->ud->rail->port,
		.qkey		= MRC_UD_QKEY,
	};
	int err;

	err = ib_modify_qp(uqp->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (err)
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(uqp->qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(uqp->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

/* Posts every receive that is not posted.  Returns how many failed. */
static unsigned int mrc_ud_fill_rx(struct mrc_ud_qp *uqp)
{
	unsigned int i, failed = 0;

	spin_lock_bh(&uqp->lock);
	for (i = 0; i < MRC_UD_NRX; i++)
		if (!uqp->rx[i].posted && mrc_ud_post_rx(uqp, i))
			failed++;
	spin_unlock_bh(&uqp->lock);
	return failed;
}

/* Marks the QP broken and schedules its recovery.  Any context. */
static void mrc_ud_qp_broken(struct mrc_ud_qp *uqp)
{
	bool queue = false;

	spin_lock_bh(&uqp->lock);
	if (uqp->state == MRC_UQP_READY) {
		uqp->state = MRC_UQP_ERROR;
		queue = true;
	}
	spin_unlock_bh(&uqp->lock);
	if (queue) {
		mrc_rail_stat_inc(uqp->ud->rail, MRC_RAIL_STAT_QP_ERRORS);
		pr_warn_ratelimited("%s: QP %u (ev %u) in error, recovering\n",
				    uqp->ud->rail->name, uqp->qp->qp_num,
				    uqp->ev);
		queue_work(system_highpri_wq, &uqp->recover_work);
	}
}

/* Called with uqp->lock held after a WR came back. */
static bool mrc_ud_drained_locked(struct mrc_ud_qp *uqp)
{
	lockdep_assert_held(&uqp->lock);
	if (uqp->state == MRC_UQP_DRAINING && !uqp->rx_posted &&
	    uqp->tx_post == uqp->tx_tail) {
		uqp->state = MRC_UQP_REARM;
		return true;
	}
	return false;
}

static void mrc_ud_recover_workfn(struct work_struct *work)
{
	struct mrc_ud_qp *uqp = container_of(work, struct mrc_ud_qp,
					     recover_work);
	struct ib_qp_attr attr = {};
	enum mrc_uqp_state state;
	bool drained;
	int err;

	spin_lock_bh(&uqp->lock);
	state = uqp->state;
	spin_unlock_bh(&uqp->lock);

	switch (state) {
	case MRC_UQP_ERROR:
		attr.qp_state = IB_QPS_ERR;
		err = ib_modify_qp(uqp->qp, &attr, IB_QP_STATE);
		if (err)
			pr_warn("%s: QP %u to ERROR failed: %d\n",
				uqp->ud->rail->name, uqp->qp->qp_num, err);
		spin_lock_bh(&uqp->lock);
		if (uqp->state == MRC_UQP_ERROR)
			uqp->state = MRC_UQP_DRAINING;
		drained = mrc_ud_drained_locked(uqp);
		spin_unlock_bh(&uqp->lock);
		if (drained)
			queue_work(system_highpri_wq, &uqp->recover_work);
		break;
	case MRC_UQP_REARM:
		attr.qp_state = IB_QPS_RESET;
		err = ib_modify_qp(uqp->qp, &attr, IB_QP_STATE);
		if (!err)
			err = mrc_ud_qp_to_rts(uqp);
		if (err) {
			/* Leave it broken; a later error event retries. */
			pr_err("%s: QP %u recovery failed: %d\n",
			       uqp->ud->rail->name, uqp->qp->qp_num, err);
			spin_lock_bh(&uqp->lock);
			if (uqp->state == MRC_UQP_REARM)
				uqp->state = MRC_UQP_ERROR;
			spin_unlock_bh(&uqp->lock);
			break;
		}
		spin_lock_bh(&uqp->lock);
		if (uqp->state == MRC_UQP_REARM)
			uqp->state = MRC_UQP_READY;
		spin_unlock_bh(&uqp->lock);
		if (mrc_ud_fill_rx(uqp))
			mrc_rail_stat_inc(uqp->ud->rail,
					  MRC_RAIL_STAT_DROP_NO_BUFFER);
		mrc_rail_stat_inc(uqp->ud->rail, MRC_RAIL_STAT_QP_RECOVERIES);
		pr_info_ratelimited("%s: QP %u (ev %u) recovered\n",
				    uqp->ud->rail->name, uqp->qp->qp_num,
				    uqp->ev);
		break;
	default:
		break;
	}
}

static void mrc_ud_qp_event(struct ib_event *event, void *ctx)
{
	struct mrc_ud_qp *uqp = ctx;

	switch (event->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
		mrc_ud_qp_broken(uqp);
		break;
	default:
		break;
	}
}

static void mrc_ud_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mrc_ud_rx *rx = container_of(wc->wr_cqe, struct mrc_ud_rx, cqe);
	struct mrc_ud_qp *uqp = rx->uqp;
	struct mrc_rail *rail = uqp->ud->rail;
	bool requeue = false, repost = false;

	mrc_ev_inc(MRC_EV_RX_CQE);
	spin_lock_bh(&uqp->lock);
	rx->posted = false;
	uqp->rx_posted--;
	spin_unlock_bh(&uqp->lock);

	if (wc->status == IB_WC_SUCCESS) {
		u32 len = wc->byte_len;

		ib_dma_sync_single_for_cpu(uqp->ud->ibdev, rx->dma,
					   MRC_UD_RX_LEN, DMA_FROM_DEVICE);
		mrc_rail_stat_inc(rail, MRC_RAIL_STAT_RX_PACKETS);
		this_cpu_add(rail->pcpu->c[MRC_RAIL_STAT_RX_BYTES], len);
		if (len >= sizeof(struct ib_grh) && len <= MRC_UD_RX_LEN)
			mrc_proto_rx(uqp, wc, rx->buf,
				     rx->buf + sizeof(struct ib_grh),
				     len - sizeof(struct ib_grh));
		else
			mrc_rail_stat_inc(rail, MRC_RAIL_STAT_DROP_MALFORMED);
	} else if (wc->status != IB_WC_WR_FLUSH_ERR) {
		mrc_rail_stat_inc(rail, MRC_RAIL_STAT_RX_ERRORS);
		mrc_ud_qp_broken(uqp);
	}

	spin_lock_bh(&uqp->lock);
	if (uqp->state == MRC_UQP_READY)
		repost = true;
	else
		requeue = mrc_ud_drained_locked(uqp);
	if (repost && mrc_ud_post_rx(uqp, rx - uqp->rx))
		mrc_rail_stat_inc(rail, MRC_RAIL_STAT_DROP_NO_BUFFER);
	spin_unlock_bh(&uqp->lock);
	if (requeue)
		queue_work(system_highpri_wq, &uqp->recover_work);
}

/* ---- payload buffers ---- */

/**
 * mrc_ud_buf_alloc() - a message's payload buffer
 * @bytes: its size
 *
 * The buffer may be handed to mrc_ud_queue(), which keeps it alive for as
 * long as a send references it.
 *
 * Context: process, may sleep.
 *
 * Return: the buffer (@bytes, not zeroed) with one reference, the
 * caller's; or NULL.
 */
void *mrc_ud_buf_alloc(size_t bytes)
{
	struct mrc_ud_buf *b;

	if (bytes > SIZE_MAX - sizeof(*b))
		return NULL;
	b = kvmalloc(sizeof(*b) + bytes, GFP_KERNEL);
	if (!b)
		return NULL;
	refcount_set(&b->ref, 1);
	b->next = NULL;
	return b->data;
}

static struct mrc_ud_buf *mrc_ud_buf_of(void *buf)
{
	return container_of(buf, struct mrc_ud_buf, data[0]);
}

/**
 * mrc_ud_buf_put() - drop the caller's reference to a payload buffer
 * @buf: from mrc_ud_buf_alloc(), or NULL
 *
 * The buffer is freed now, or by the completion of the last send that
 * references it.
 *
 * Context: process, no lock held (it may free a large buffer).
 */
void mrc_ud_buf_put(void *buf)
{
	struct mrc_ud_buf *b;

	if (!buf)
		return;
	b = mrc_ud_buf_of(buf);
	if (refcount_dec_and_test(&b->ref))
		kvfree(b);
}

/* Frees buffers whose last reference a slot dropped; no lock held. */
static void mrc_ud_buf_free_list(struct mrc_ud_buf *b)
{
	struct mrc_ud_buf *next;

	for (; b; b = next) {
		next = b->next;
		kvfree(b);
	}
}

/* ---- the send ring ---- */

static struct mrc_ud_tx *mrc_ud_tx_slot(struct mrc_ud_qp *uqp, u32 i)
{
	return &uqp->tx[i % MRC_UD_NTX];
}

static void *mrc_ud_tx_hdr(struct mrc_ud_qp *uqp, struct mrc_ud_tx *tx)
{
	return uqp->hdr + (tx - uqp->tx) * MRC_UD_TX_SLOT;
}

static u64 mrc_ud_tx_hdr_dma(struct mrc_ud_qp *uqp, struct mrc_ud_tx *tx)
{
	return uqp->hdr_dma + (tx - uqp->tx) * MRC_UD_TX_SLOT;
}

/*
 * Unmaps slot @tx's payload and drops its buffer reference; a buffer
 * whose last reference that was goes on @free.  Caller holds uqp->lock
 * (or the QP and its CQ are gone).
 */
static void mrc_ud_tx_release(struct mrc_ud_qp *uqp, struct mrc_ud_tx *tx,
			      struct mrc_ud_buf **free)
{
	unsigned int k;

	for (k = 1; k <= tx->npay; k++)
		ib_dma_unmap_page(uqp->ud->ibdev, tx->sge[k].addr,
				  tx->sge[k].length, DMA_TO_DEVICE);
	tx->npay = 0;
	if (tx->buf && refcount_dec_and_test(&tx->buf->ref)) {
		tx->buf->next = *free;
		*free = tx->buf;
	}
	tx->buf = NULL;
}

/*
 * Takes the next free slot for a WR to queue.  Caller holds uqp->lock.
 * Returns it, or an ERR_PTR: -ENETDOWN (QP recovering), -EAGAIN (ring
 * full).
 */
static struct mrc_ud_tx *mrc_ud_tx_get(struct mrc_ud_qp *uqp)
{
	struct mrc_ud_tx *tx;

	lockdep_assert_held(&uqp->lock);
	if (uqp->state != MRC_UQP_READY)
		return ERR_PTR(-ENETDOWN);
	if (uqp->tx_head - uqp->tx_tail >= MRC_UD_NTX)
		return ERR_PTR(-EAGAIN);
	tx = mrc_ud_tx_slot(uqp, uqp->tx_head);
	memset(&tx->wr, 0, sizeof(tx->wr));
	return tx;
}

/*
 * Queues the WR of slot @tx (mrc_ud_tx_get()'s) with @nsge gather entries
 * and @flags.  Caller holds uqp->lock.
 */
static void mrc_ud_tx_queue(struct mrc_ud_qp *uqp, struct mrc_ud_tx *tx,
			    struct ib_ah *ah, u32 rqpn, unsigned int nsge,
			    unsigned int flags)
{
	lockdep_assert_held(&uqp->lock);
	tx->wr.wr.wr_cqe = &tx->cqe;
	tx->wr.wr.sg_list = tx->sge;
	tx->wr.wr.num_sge = nsge;
	tx->wr.wr.opcode = IB_WR_SEND;
	tx->wr.ah = ah;
	tx->wr.remote_qpn = rqpn;
	tx->wr.remote_qkey = MRC_UD_QKEY;
	if (++uqp->tx_unsig >= MRC_UD_SIG_EVERY) {
		flags |= IB_SEND_SIGNALED;
		uqp->tx_unsig = 0;
	}
	tx->wr.wr.send_flags = flags;
	uqp->tx_head++;
}

/*
 * Drops the queued WRs from ring index @from on (not posted: their
 * packets are lost to the sender).  Caller holds uqp->lock.
 */
static void mrc_ud_tx_unqueue(struct mrc_ud_qp *uqp, u32 from,
			      struct mrc_ud_buf **free)
{
	struct mrc_rail *rail = uqp->ud->rail;

	lockdep_assert_held(&uqp->lock);
	for (; uqp->tx_head != from; uqp->tx_head--) {
		mrc_ud_tx_release(uqp, mrc_ud_tx_slot(uqp, uqp->tx_head - 1),
				  free);
		mrc_rail_stat_inc(rail, MRC_RAIL_STAT_TX_ERRORS);
	}
}

/*
 * Posts the queued WRs [tx_post, tx_head) as one chain, the last one
 * signalled.  Caller holds uqp->lock.  Returns 0 or the post's error
 * (what was not posted is dropped).
 */
static int mrc_ud_tx_post(struct mrc_ud_qp *uqp, struct mrc_ud_buf **free)
{
	struct mrc_rail *rail = uqp->ud->rail;
	const struct ib_send_wr *bad = NULL;
	struct mrc_ud_tx *tx, *last;
	unsigned int n, i, sig = 0;
	u64 bytes = 0;
	u32 posted;
	int err, k;

	lockdep_assert_held(&uqp->lock);
	n = uqp->tx_head - uqp->tx_post;
	if (!n)
		return 0;
	if (uqp->state != MRC_UQP_READY) {
		mrc_ud_tx_unqueue(uqp, uqp->tx_post, free);
		return -ENETDOWN;
	}
	last = mrc_ud_tx_slot(uqp, uqp->tx_head - 1);
	last->wr.wr.send_flags |= IB_SEND_SIGNALED;
	last->wr.wr.next = NULL;
	uqp->tx_unsig = 0;
	for (i = 0; i + 1 < n; i++)
		mrc_ud_tx_slot(uqp, uqp->tx_post + i)->wr.wr.next =
			&mrc_ud_tx_slot(uqp, uqp->tx_post + i + 1)->wr.wr;
	tx = mrc_ud_tx_slot(uqp, uqp->tx_post);
	err = ib_post_send(uqp->qp, &tx->wr.wr, &bad);
	posted = uqp->tx_post + n;
	if (err) {
		/* bad is the first WR not posted: it and the rest are ours */
		for (i = 0; i < n; i++)
			if (bad == &mrc_ud_tx_slot(uqp, uqp->tx_post + i)->wr.wr)
				break;
		posted = uqp->tx_post + i;
		/*
		 * A partial post leaves an unsignalled WR newest: only a
		 * later signalled one (or a flush) can reclaim it.
		 */
		WARN_ONCE(i && i < n, "mrc: partial post %u of %u: %d\n", i,
			  n, err);
		mrc_ud_tx_unqueue(uqp, posted, free);
	}
	for (i = uqp->tx_post; i != posted; i++) {
		tx = mrc_ud_tx_slot(uqp, i);
		if (tx->wr.wr.send_flags & IB_SEND_SIGNALED)
			sig++;
		for (k = 0; k < tx->wr.wr.num_sge; k++)
			bytes += tx->sge[k].length;
	}
	n = posted - uqp->tx_post;
	uqp->tx_post = posted;
	if (n) {
		mrc_ev_inc(MRC_EV_TX_CHAIN);
		mrc_ev_add(MRC_EV_TX_POST, n);
		mrc_ev_add(MRC_EV_TX_SIGNALED, sig);
		this_cpu_add(rail->pcpu->c[MRC_RAIL_STAT_TX_PACKETS], n);
		this_cpu_add(rail->pcpu->c[MRC_RAIL_STAT_TX_BYTES], bytes);
	}
	return err;
}

static void mrc_ud_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mrc_ud_tx *tx = container_of(wc->wr_cqe, struct mrc_ud_tx, cqe);
	struct mrc_ud_qp *uqp = tx->uqp;
	struct mrc_ud_buf *free = NULL;
	bool requeue;
	u32 n;

	mrc_ev_inc(MRC_EV_TX_CQE);
	if (wc->status != IB_WC_SUCCESS) {
		mrc_rail_stat_inc(uqp->ud->rail, MRC_RAIL_STAT_TX_ERRORS);
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			mrc_ud_qp_broken(uqp);
	}

	spin_lock_bh(&uqp->lock);
	/* Every WR posted before this one is complete too. */
	n = ((u32)(tx - uqp->tx) - uqp->tx_tail) % MRC_UD_NTX + 1;
	if (WARN_ON_ONCE(n > uqp->tx_post - uqp->tx_tail))
		n = 0;
	for (; n; n--, uqp->tx_tail++)
		mrc_ud_tx_release(uqp, mrc_ud_tx_slot(uqp, uqp->tx_tail),
				  &free);
	requeue = mrc_ud_drained_locked(uqp);
	spin_unlock_bh(&uqp->lock);
	mrc_ud_buf_free_list(free);
	if (requeue)
		queue_work(system_highpri_wq, &uqp->recover_work);
}

/**
 * mrc_ud_send() - send one control datagram now
 * @ud: the rail's UD state
 * @ev: the QP (entropy value) to send from
 * @ah: the address handle of the destination
 * @rqpn: the destination QPN
 * @hdr: the header
 * @hlen: its length
 * @body: the body after it, or NULL
 * @blen: its length
 *
 * Posts the WRs queued on the QP (mrc_ud_queue()) and this datagram
 * behind them, inline if it fits the provider's inline limit (nothing is
 * copied by mrc), else copied into a slot; @hdr and @body may be reused
 * as soon as this returns.
 *
 * Context: any; takes the QP's lock (BH).
 *
 * Return: 0, -EAGAIN if the QP's send ring is full, -ENETDOWN if the QP is
 * being recovered, -EMSGSIZE if larger than MRC_UD_TX_SLOT, or the
 * provider's error.
 */
int mrc_ud_send(struct mrc_ud *ud, unsigned int ev, struct ib_ah *ah,
		u32 rqpn, const void *hdr, unsigned int hlen,
		const void *body, unsigned int blen)
{
	struct mrc_ud_buf *free = NULL;
	struct mrc_ud_qp *uqp;
	struct mrc_ud_tx *tx;
	unsigned int nsge = 1, flags = 0;
	u32 lkey = ud->pd->local_dma_lkey;
	int err = 0;

	if (ev >= ud->nqp)
		return -EINVAL;
	if (hlen + blen > MRC_UD_TX_SLOT)
		return -EMSGSIZE;
	if (!body)
		blen = 0;
	uqp = &ud->qps[ev];

	spin_lock_bh(&uqp->lock);
	tx = mrc_ud_tx_get(uqp);
	if (IS_ERR(tx)) {
		err = PTR_ERR(tx);
		/* what is queued still goes */
		mrc_ud_tx_post(uqp, &free);
		goto out;
	}
	if (hlen + blen <= uqp->max_inline) {
		/* The provider copies at the post: the caller's memory. */
		tx->sge[0].addr = (uintptr_t)hdr;
		tx->sge[0].length = hlen;
		tx->sge[0].lkey = lkey;
		if (blen) {
			tx->sge[1].addr = (uintptr_t)body;
			tx->sge[1].length = blen;
			tx->sge[1].lkey = lkey;
			nsge = 2;
		}
		flags = IB_SEND_INLINE;
		mrc_ev_inc(MRC_EV_TX_INLINE);
	} else {
		void *slot = mrc_ud_tx_hdr(uqp, tx);
		u64 dma = mrc_ud_tx_hdr_dma(uqp, tx);

		memcpy(slot, hdr, hlen);
		if (blen)
			memcpy(slot + hlen, body, blen);
		ib_dma_sync_single_for_device(ud->ibdev, dma, hlen + blen,
					      DMA_TO_DEVICE);
		tx->sge[0].addr = dma;
		tx->sge[0].length = hlen + blen;
		tx->sge[0].lkey = lkey;
	}
	mrc_ud_tx_queue(uqp, tx, ah, rqpn, nsge, flags);
	err = mrc_ud_tx_post(uqp, &free);
out:
	spin_unlock_bh(&uqp->lock);
	mrc_ud_buf_free_list(free);
	return err;
}

/* The page of kernel address @p, from the linear map or vmalloc space. */
static struct page *mrc_ud_page(const void *p)
{
	return is_vmalloc_addr(p) ? vmalloc_to_page(p) : virt_to_page(p);
}

/**
 * mrc_ud_queue() - queue one DATA datagram, its payload in place
 * @ud: the rail's UD state
 * @ev: the QP (entropy value) to send from
 * @ah: the address handle of the destination
 * @rqpn: the destination QPN
 * @hdr: the header, copied into the send slot
 * @hlen: its length
 * @buf: the payload's buffer, from mrc_ud_buf_alloc()
 * @off: the payload's offset in @buf
 * @plen: its length
 *
 * The payload is not copied: it is DMA-mapped where it is, and the slot
 * holds a reference on @buf until the send's completion.  The WR is posted
 * by the next mrc_ud_flush() or mrc_ud_send() on this QP, or now if the
 * QP's chain reached MRC_UD_CHAIN.  Whoever queues must flush.
 *
 * Context: any; takes the QP's lock (BH).
 *
 * Return: 0, -EAGAIN if the QP's send ring is full, -ENETDOWN if the QP is
 * being recovered, -EMSGSIZE if too large, -ENOMEM if the payload could
 * not be mapped.
 */
int mrc_ud_queue(struct mrc_ud *ud, unsigned int ev, struct ib_ah *ah,
		 u32 rqpn, const void *hdr, unsigned int hlen,
		 void *buf, u32 off, unsigned int plen)
{
	struct mrc_ud_buf *free = NULL;
	u32 lkey = ud->pd->local_dma_lkey;
	const u8 *p = (const u8 *)buf + off;
	unsigned int k, left = plen;
	struct mrc_ud_qp *uqp;
	struct mrc_ud_tx *tx;
	u64 dma;
	int err = 0;

	BUILD_BUG_ON(MRC_WIRE_MAX_PAYLOAD > PAGE_SIZE);
	BUILD_BUG_ON_NOT_POWER_OF_2(MRC_UD_NTX);
	if (ev >= ud->nqp)
		return -EINVAL;
	if (hlen > MRC_UD_TX_SLOT || plen > MRC_WIRE_MAX_PAYLOAD ||
	    hlen + plen > MRC_WIRE_MAX_PKT)
		return -EMSGSIZE;
	uqp = &ud->qps[ev];

	spin_lock_bh(&uqp->lock);
	tx = mrc_ud_tx_get(uqp);
	if (IS_ERR(tx)) {
		err = PTR_ERR(tx);
		goto out;
	}
	dma = mrc_ud_tx_hdr_dma(uqp, tx);
	memcpy(mrc_ud_tx_hdr(uqp, tx), hdr, hlen);
	ib_dma_sync_single_for_device(ud->ibdev, dma, hlen, DMA_TO_DEVICE);
	tx->sge[0].addr = dma;
	tx->sge[0].length = hlen;
	tx->sge[0].lkey = lkey;
	/* One entry per page: at most two, a payload is below PAGE_SIZE. */
	for (k = 1; left; k++) {
		unsigned int po = offset_in_page(p);
		unsigned int len = min_t(unsigned int, left, PAGE_SIZE - po);

		dma = ib_dma_map_page(ud->ibdev, mrc_ud_page(p), po, len,
				      DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ud->ibdev, dma)) {
			mrc_ud_tx_release(uqp, tx, &free);
			err = -ENOMEM;
			goto out;
		}
		tx->sge[k].addr = dma;
		tx->sge[k].length = len;
		tx->sge[k].lkey = lkey;
		tx->npay = k;
		p += len;
		left -= len;
	}
	tx->buf = mrc_ud_buf_of(buf);
	refcount_inc(&tx->buf->ref);
	mrc_ud_tx_queue(uqp, tx, ah, rqpn, k, 0);
	if (uqp->tx_head - uqp->tx_post >= MRC_UD_CHAIN)
		mrc_ud_tx_post(uqp, &free);
out:
	spin_unlock_bh(&uqp->lock);
	mrc_ud_buf_free_list(free);
	return err;
}

/**
 * mrc_ud_flush() - post what mrc_ud_queue() queued on a QP
 * @ud: the rail's UD state
 * @ev: the QP (entropy value)
 *
 * One ib_post_send() for the whole chain; nothing if nothing is queued
 * (someone else's flush took it).
 *
 * Context: any; takes the QP's lock (BH).
 */
void mrc_ud_flush(struct mrc_ud *ud, unsigned int ev)
{
	struct mrc_ud_buf *free = NULL;
	struct mrc_ud_qp *uqp;

	if (ev >= ud->nqp)
		return;
	uqp = &ud->qps[ev];
	spin_lock_bh(&uqp->lock);
	if (uqp->tx_head != uqp->tx_post &&
	    mrc_ud_tx_post(uqp, &free) && uqp->state == MRC_UQP_READY)
		pr_debug("%s: QP %u post failed\n", ud->rail->name,
			 uqp->qp->qp_num);
	spin_unlock_bh(&uqp->lock);
	mrc_ud_buf_free_list(free);
}

/**
 * mrc_ud_inject_error() - force a QP into ERROR (test facility)
 * @ud: the rail's UD state
 * @ev: the QP
 *
 * Recovery follows by itself.
 *
 * Return: 0, -EINVAL for no such QP, or ib_modify_qp()'s error.
 */
int mrc_ud_inject_error(struct mrc_ud *ud, unsigned int ev)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct mrc_ud_qp *uqp;
	int err;

	if (ev >= ud->nqp)
		return -EINVAL;
	uqp = &ud->qps[ev];
	/* Like a real fault: the provider flushes; we only learn from CQEs. */
	err = ib_modify_qp(uqp->qp, &attr, IB_QP_STATE);
	if (!err)
		mrc_ud_qp_broken(uqp);
	return err;
}

static void mrc_ud_qp_free_bufs(struct mrc_ud_qp *uqp)
{
	struct ib_device *dev = uqp->ud->ibdev;
	struct mrc_ud_buf *free = NULL;
	unsigned int i;

	for (i = 0; i < MRC_UD_NRX; i++) {
		if (!uqp->rx[i].buf)
			continue;
		if (uqp->rx[i].dma)
			ib_dma_unmap_single(dev, uqp->rx[i].dma, MRC_UD_RX_LEN,
					    DMA_FROM_DEVICE);
		kmem_cache_free(mrc_rx_cache, uqp->rx[i].buf);
	}
	/* The QP and the CQ are gone: what is left in the ring is ours. */
	for (; uqp->tx_tail != uqp->tx_head; uqp->tx_tail++)
		mrc_ud_tx_release(uqp, mrc_ud_tx_slot(uqp, uqp->tx_tail), &free);
	mrc_ud_buf_free_list(free);
	if (uqp->hdr_dma)
		ib_dma_unmap_single(dev, uqp->hdr_dma,
				    MRC_UD_NTX * MRC_UD_TX_SLOT, DMA_TO_DEVICE);
	kfree(uqp->hdr);
}

static int mrc_ud_qp_alloc_bufs(struct mrc_ud_qp *uqp)
{
	struct ib_device *dev = uqp->ud->ibdev;
	unsigned int i;
	u64 dma;

	for (i = 0; i < MRC_UD_NRX; i++) {
		struct mrc_ud_rx *rx = &uqp->rx[i];

		rx->uqp = uqp;
		rx->cqe.done = mrc_ud_rx_done;
		rx->buf = kmem_cache_alloc(mrc_rx_cache, GFP_KERNEL);
		if (!rx->buf)
			return -ENOMEM;
		dma = ib_dma_map_single(dev, rx->buf, MRC_UD_RX_LEN,
					DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(dev, dma))
			return -ENOMEM;
		rx->dma = dma;
	}
	for (i = 0; i < MRC_UD_NTX; i++) {
		uqp->tx[i].uqp = uqp;
		uqp->tx[i].cqe.done = mrc_ud_tx_done;
	}
	uqp->hdr = kzalloc(MRC_UD_NTX * MRC_UD_TX_SLOT, GFP_KERNEL);
	if (!uqp->hdr)
		return -ENOMEM;
	dma = ib_dma_map_single(dev, uqp->hdr, MRC_UD_NTX * MRC_UD_TX_SLOT,
				DMA_TO_DEVICE);
	if (ib_dma_mapping_error(dev, dma))
		return -ENOMEM;
	uqp->hdr_dma = dma;
	return 0;
}

static int mrc_ud_qp_create(struct mrc_ud *ud, unsigned int ev)
{
	struct mrc_ud_qp *uqp = &ud->qps[ev];
	struct ib_qp_init_attr init = {
		.event_handler	= mrc_ud_qp_event,
		.qp_context	= uqp,
		.send_cq	= ud->cq,
		.recv_cq	= ud->cq,
		.cap = {
			.max_send_wr	= MRC_UD_NTX,
			.max_recv_wr	= MRC_UD_NRX,
			.max_send_sge	= MRC_UD_TX_SGE,
			.max_recv_sge	= 1,
			.max_inline_data = MRC_UD_INLINE,
		},
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.qp_type	= IB_QPT_UD,
		.port_num	= ud->rail->port,
	};
	int err;

	uqp->ud = ud;
	uqp->ev = ev;
	spin_lock_init(&uqp->lock);
	INIT_WORK(&uqp->recover_work, mrc_ud_recover_workfn);
	uqp->state = MRC_UQP_READY;

	err = mrc_ud_qp_alloc_bufs(uqp);
	if (err)
		return err;
	uqp->qp = ib_create_qp(ud->pd, &init);
	if (IS_ERR(uqp->qp) && PTR_ERR(uqp->qp) == -EINVAL) {
		/* No inline data here: every control packet is copied. */
		init.cap.max_inline_data = 0;
		uqp->qp = ib_create_qp(ud->pd, &init);
	}
	if (IS_ERR(uqp->qp)) {
		err = PTR_ERR(uqp->qp);
		uqp->qp = NULL;
		return err;
	}
	/* What the provider granted (at least what was asked). */
	uqp->max_inline = init.cap.max_inline_data;
	err = mrc_ud_qp_to_rts(uqp);
	if (err)
		return err;
	if (mrc_ud_fill_rx(uqp))
		return -ENOMEM;
	return 0;
}

/* Destroys what mrc_ud_qp_create made, in a safe order. */
static void mrc_ud_qp_destroy(struct mrc_ud_qp *uqp)
{
	if (!uqp->ud)
		return;
	spin_lock_bh(&uqp->lock);
	uqp->state = MRC_UQP_DEAD;
	spin_unlock_bh(&uqp->lock);
	cancel_work_sync(&uqp->recover_work);
	if (uqp->qp)
		ib_destroy_qp(uqp->qp);
}

/**
 * mrc_ud_create() - create a rail's UD queue pairs
 * @rail: the rail
 * @nqp: how many QPs (entropy values)
 *
 * Creates the rail's PD, CQ and @nqp QPs, all receives posted.
 *
 * Return: the UD state, or an ERR_PTR().
 */
struct mrc_ud *mrc_ud_create(struct mrc_rail *rail, unsigned int nqp)
{
	struct ib_device *dev = rail->ibdev;
	struct mrc_ud *ud;
	unsigned int i;
	int err;

	ud = kzalloc(sizeof(*ud), GFP_KERNEL);
	if (!ud)
		return ERR_PTR(-ENOMEM);
	ud->rail = rail;
	ud->ibdev = dev;
	ud->nqp = nqp;
	ud->qps = kvcalloc(nqp, sizeof(*ud->qps), GFP_KERNEL);
	if (!ud->qps) {
		err = -ENOMEM;
		goto err_free;
	}
	ud->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(ud->pd)) {
		err = PTR_ERR(ud->pd);
		ud->pd = NULL;
		goto err_free;
	}
	ud->mcq = mrc_cq_create(dev, nqp * (MRC_UD_NRX + MRC_UD_NTX));
	if (IS_ERR(ud->mcq)) {
		err = PTR_ERR(ud->mcq);
		ud->mcq = NULL;
		goto err_free;
	}
	ud->cq = ud->mcq->cq;
	for (i = 0; i < nqp; i++) {
		err = mrc_ud_qp_create(ud, i);
		if (err)
			goto err_free;
	}
	return ud;

err_free:
	mrc_ud_destroy(ud);
	return ERR_PTR(err);
}

/**
 * mrc_ud_destroy() - destroy a rail's UD state
 * @ud: the UD state
 *
 * Destroys everything; waits until nothing outstanding can be touched
 * again.
 */
void mrc_ud_destroy(struct mrc_ud *ud)
{
	unsigned int i;

	if (!ud)
		return;
	if (ud->qps) {
		for (i = 0; i < ud->nqp; i++)
			mrc_ud_qp_destroy(&ud->qps[i]);
	}
	/* No QP left: the CQ gets no more entries; freeing it stops its polling. */
	mrc_cq_destroy(ud->mcq);
	if (ud->qps) {
		for (i = 0; i < ud->nqp; i++) {
			if (ud->qps[i].ud)
				mrc_ud_qp_free_bufs(&ud->qps[i]);
		}
		kvfree(ud->qps);
	}
	if (ud->pd)
		ib_dealloc_pd(ud->pd);
	kfree(ud);
}

/**
 * mrc_ud_init() - module init: the receive buffer cache
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_ud_init(void)
{
	mrc_rx_cache = kmem_cache_create("mrc_rx", MRC_UD_RX_LEN, 64, 0, NULL);
	return mrc_rx_cache ? 0 : -ENOMEM;
}

/**
 * mrc_ud_exit() - module exit: frees the receive buffer cache
 */
void mrc_ud_exit(void)
{
	kmem_cache_destroy(mrc_rx_cache);
}
