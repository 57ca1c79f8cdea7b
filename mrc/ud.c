// SPDX-License-Identifier: GPL-2.0
/*
 * ud.c - the UD queue pairs of a rail: creation, receive buffers, sends,
 * completions and automatic recovery of a QP that enters ERROR.
 *
 * Design notes
 *
 * Buffers.  Receive buffers are GRH + 4096 bytes from a dedicated slab
 * cache, DMA-mapped once at creation and posted for the QP's life.  Send
 * slots are 4096 bytes (MRC_UD_NTX per QP, rxe keeps at most 64 sends in
 * flight per QP); every buffer is freed only when the QP is destroyed.  A
 * send copies its header into a free slot.  A DATA packet's payload is
 * read from the message's buffer in place (gather entries after the
 * header), and the send holds a reference to each folio it reads until
 * its slot comes back (completed, flushed, refused, or the QP destroyed):
 * a message acknowledged and freed before its send completes, or resent
 * while an earlier send of it is still queued, stays readable.  The
 * message engine's buffers of a page or more are folios or vmalloc pages
 * for that (msg.c); a smaller one is a slab object, and its payload (and
 * any control packet's body) is copied into the slot.
 *
 * Completions.  Two CQs per rail (cq.c).  The receive CQ is polled in
 * process context: by a work item, or by a /dev/mrc reader that busy
 * polls.  The send CQ is lazy: whoever posts reaps it right after
 * (mrc_cq_reap(), with no QP lock held), and its signal only schedules a
 * sweep MRC_UD_SWEEP_MS later, for the completions no post came after
 * (an idle rail, a fence, a QP in recovery waiting for its flushed
 * sends).  So a send completion costs no wake-up of a work item.  Each
 * work request carries an ib_cqe.  A receive completion returns exactly
 * its buffer.
 * Sends are signalled selectively: the engine's DATA packets are staged
 * per QP during a run (mrc_ud_stage()) and posted as one chain of at most
 * MRC_UD_CHAIN work requests whose last one alone is signalled; a send
 * queue completes in order, so that completion returns every slot posted
 * up to it (the posted slots are kept in posting order, tx_fifo).  Every
 * chain ends signalled, so nothing posted waits for a later send to come
 * back; a chain the provider took only part of gets its QP recovered,
 * whose flush completes every request, signalled or not.  Control
 * packets are posted at once, signalled (mrc_ud_send()).
 *
 * Recovery.  Any error completion other than a flush, or a fatal QP event,
 * marks the QP broken (state ERROR) and queues its recover_work, which moves
 * the QP to the ERROR state so that every posted work request comes back
 * flushed (DRAINING).  When the last one is back, the completion handler
 * queues the work again (REARM), which resets the QP, brings it back to RTS
 * and reposts every receive.  No work request is ever posted or reused while
 * the provider may still own it (how long recovery takes: "Timer defaults"
 * in Documentation/mrc/design-decisions.rst).  A QP that breaks again
 * within MRC_UD_CALM_MS of its last recovery waits before the next one,
 * 10 ms doubling up to 1 s (debugfs mrc/events qp_recover_deferred), so
 * that whatever errors it repeatedly flushes its receives and sends at
 * most once a second; while it waits its sends are refused (the engine
 * uses the rail's other QPs) and the receives it has posted may still
 * complete (they are reposted by the recovery).
 *
 * Teardown.  State DEAD stops sends and recovery; the QP is destroyed
 * (which makes the provider stop touching its buffers) before the CQ is
 * freed (which waits for the CQ's work) and before any buffer is unmapped.
 * ib_drain_qp() is not used: on a UD QP it posts an RDMA WRITE and WARNs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "mrc.h"
#include "cq.h"
#include "events.h"
#include "ud.h"

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

/* Recovery backoff (ud.c, Recovery). */
#define MRC_UD_CALM_MS		10000	/* healthy this long: no backoff */
#define MRC_UD_DELAY_MIN_MS	10
#define MRC_UD_DELAY_MAX_MS	1000

/* How long the recovery of a QP that just broke waits.  uqp->lock held. */
static unsigned int mrc_ud_recover_delay(struct mrc_ud_qp *uqp)
{
	u64 now = ktime_get_ns();

	lockdep_assert_held(&uqp->lock);
	if (!uqp->recovered_ns ||
	    now - uqp->recovered_ns >= MRC_UD_CALM_MS * NSEC_PER_MSEC)
		uqp->recover_delay_ms = 0;
	else if (!uqp->recover_delay_ms)
		uqp->recover_delay_ms = MRC_UD_DELAY_MIN_MS;
	else
		uqp->recover_delay_ms = min(2 * uqp->recover_delay_ms,
					    MRC_UD_DELAY_MAX_MS);
	return uqp->recover_delay_ms;
}

/* Marks the QP broken and schedules its recovery.  Any context. */
static void mrc_ud_qp_broken(struct mrc_ud_qp *uqp)
{
	unsigned int delay = 0;
	bool queue = false;

	spin_lock_bh(&uqp->lock);
	if (uqp->state == MRC_UQP_READY) {
		uqp->state = MRC_UQP_ERROR;
		delay = mrc_ud_recover_delay(uqp);
		queue = true;
	}
	spin_unlock_bh(&uqp->lock);
	if (queue) {
		mrc_rail_stat_inc(uqp->ud->rail, MRC_RAIL_STAT_QP_ERRORS);
		pr_warn_ratelimited("%s: QP %u (ev %u) in error, recovering in %u ms\n",
				    uqp->ud->rail->name, uqp->qp->qp_num,
				    uqp->ev, delay);
		if (delay)
			mrc_ev_inc(MRC_EV_QP_RECOVER_DEFERRED);
		queue_delayed_work(system_highpri_wq, &uqp->recover_work,
				   msecs_to_jiffies(delay));
	}
}

/* Called with uqp->lock held after a WR came back. */
static bool mrc_ud_drained_locked(struct mrc_ud_qp *uqp)
{
	lockdep_assert_held(&uqp->lock);
	if (uqp->state == MRC_UQP_DRAINING && !uqp->rx_posted &&
	    !uqp->tx_posted) {
		uqp->state = MRC_UQP_REARM;
		return true;
	}
	return false;
}

static void mrc_ud_recover_workfn(struct work_struct *work)
{
	struct mrc_ud_qp *uqp = container_of(to_delayed_work(work),
					     struct mrc_ud_qp, recover_work);
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
		/* the flushed sends rxe has returned; the sweep takes later ones */
		if (!drained)
			mrc_cq_reap(uqp->ud->scq, MRC_UD_REAP);
		if (drained)
			queue_delayed_work(system_highpri_wq, &uqp->recover_work, 0);
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
		if (uqp->state == MRC_UQP_REARM) {
			uqp->state = MRC_UQP_READY;
			uqp->recovered_ns = ktime_get_ns();
		}
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
		queue_delayed_work(system_highpri_wq, &uqp->recover_work, 0);
}

/*
 * Gives back what slot @tx holds of a payload sent in place: the pages'
 * mappings and references.  Dropping the last reference to a message's
 * buffer frees it, if the engine let go of the message meanwhile.
 */
static void mrc_ud_tx_unpin(struct mrc_ud *ud, struct mrc_ud_tx *tx)
{
	unsigned int i;

	for (i = 0; i < tx->npay; i++) {
		ib_dma_unmap_page(ud->ibdev, tx->sge[1 + i].addr,
				  tx->sge[1 + i].length, DMA_TO_DEVICE);
		folio_put(tx->pay[i]);
	}
	tx->npay = 0;
}

/* Returns slot @tx, posted or not, to the free slots.  uqp->lock held. */
static void mrc_ud_tx_put(struct mrc_ud_qp *uqp, struct mrc_ud_tx *tx)
{
	lockdep_assert_held(&uqp->lock);
	if (tx->npay)
		mrc_ud_tx_unpin(uqp->ud, tx);
	uqp->tx_free[uqp->ntx_free++] = tx - uqp->tx;
}

/*
 * Maps the @plen bytes at @payload for slot @tx to send from where they
 * are, taking a reference on each folio they lie in: the memory then
 * outlives its owner's free for as long as the send may read it.  Only
 * memory that references keep alive qualifies: vmalloc'ed pages, and
 * folios of the page allocator (a compound block, or one page).  A slab
 * object is reused while its page lives on, and the tail of a block
 * allocated without __GFP_COMP has no reference count of its own: for
 * those (or if a mapping fails) this returns false, holding nothing, and
 * the caller copies.
 */
static bool mrc_ud_tx_pin(struct mrc_ud *ud, struct mrc_ud_tx *tx,
			  const void *payload, unsigned int plen)
{
	const u8 *p = payload;
	bool vm = is_vmalloc_addr(p);

	/* a payload spans at most two pages */
	BUILD_BUG_ON(MRC_WIRE_MAX_PAYLOAD > PAGE_SIZE);
	if (!vm && !virt_addr_valid(p))
		return false;
	tx->npay = 0;
	while (plen) {
		unsigned int off = offset_in_page(p);
		/* physically contiguous but for vmalloc */
		unsigned int len = vm ? min_t(unsigned int, plen,
					      PAGE_SIZE - off) : plen;
		struct page *pg = vm ? vmalloc_to_page(p) : virt_to_page(p);
		struct folio *folio;
		u64 dma;

		if (!pg || tx->npay == MRC_UD_TX_PAY)
			goto undo;
		folio = page_folio(pg);
		if (folio_test_slab(folio) || !folio_try_get(folio))
			goto undo;
		dma = ib_dma_map_page(ud->ibdev, pg, off, len, DMA_TO_DEVICE);
		if (ib_dma_mapping_error(ud->ibdev, dma)) {
			folio_put(folio);
			goto undo;
		}
		tx->pay[tx->npay] = folio;
		tx->sge[1 + tx->npay].addr = dma;
		tx->sge[1 + tx->npay].length = len;
		tx->sge[1 + tx->npay].lkey = ud->pd->local_dma_lkey;
		tx->npay++;
		p += len;
		plen -= len;
	}
	return true;
undo:
	mrc_ud_tx_unpin(ud, tx);
	return false;
}

static void mrc_ud_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct mrc_ud_tx *tx = container_of(wc->wr_cqe, struct mrc_ud_tx, cqe);
	struct mrc_ud_qp *uqp = tx->uqp;
	struct mrc_ud_tx *t;
	bool requeue;

	mrc_ev_inc(MRC_EV_TX_CQE);
	if (wc->status != IB_WC_SUCCESS) {
		mrc_rail_stat_inc(uqp->ud->rail, MRC_RAIL_STAT_TX_ERRORS);
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			mrc_ud_qp_broken(uqp);
	}

	spin_lock_bh(&uqp->lock);
	if (WARN_ON_ONCE(!tx->posted)) {
		spin_unlock_bh(&uqp->lock);
		return;
	}
	/* It and the unsignalled sends posted before it: all back. */
	do {
		t = &uqp->tx[uqp->tx_fifo[uqp->fifo_head]];
		uqp->fifo_head = (uqp->fifo_head + 1) % MRC_UD_NTX;
		t->posted = false;
		uqp->tx_posted--;
		uqp->tx_completed++;
		mrc_ud_tx_put(uqp, t);
	} while (t != tx);
	requeue = mrc_ud_drained_locked(uqp);
	spin_unlock_bh(&uqp->lock);
	/* A fence (mrc_ud_tx_fence()) may wait: count before its check. */
	smp_mb();
	wake_up_var(&uqp->tx_completed);
	if (requeue)
		queue_delayed_work(system_highpri_wq, &uqp->recover_work, 0);
}

/*
 * Takes a free slot of @uqp and fills it with the datagram and its work
 * request (not signalled, not linked): the header copied into the slot,
 * the payload after it, or (@in_place: a DATA payload) read from where it
 * is when mrc_ud_tx_pin() can hold it.  NULL if the ring is full.
 */
static struct mrc_ud_tx *mrc_ud_tx_fill(struct mrc_ud_qp *uqp,
					struct ib_ah *ah, u32 rqpn,
					const void *hdr, unsigned int hlen,
					const void *payload, unsigned int plen,
					bool in_place)
{
	struct mrc_ud *ud = uqp->ud;
	struct mrc_ud_tx *tx;
	unsigned int len = hlen;

	lockdep_assert_held(&uqp->lock);
	if (!uqp->ntx_free)
		return NULL;
	tx = &uqp->tx[uqp->tx_free[--uqp->ntx_free]];
	memcpy(tx->buf, hdr, hlen);
	if (in_place && plen && mrc_ud_tx_pin(ud, tx, payload, plen)) {
		mrc_ev_inc(MRC_EV_TX_INPLACE);
	} else if (plen) {
		memcpy(tx->buf + hlen, payload, plen);
		len += plen;
		if (in_place)
			mrc_ev_add(MRC_EV_COPY_TX, plen);
	}
	ib_dma_sync_single_for_device(ud->ibdev, tx->dma, len, DMA_TO_DEVICE);
	tx->sge[0].addr = tx->dma;
	tx->sge[0].length = len;
	tx->sge[0].lkey = ud->pd->local_dma_lkey;
	memset(&tx->wr, 0, sizeof(tx->wr));
	tx->wr.wr.wr_cqe = &tx->cqe;
	tx->wr.wr.sg_list = tx->sge;
	tx->wr.wr.num_sge = 1 + tx->npay;
	tx->wr.wr.opcode = IB_WR_SEND;
	tx->wr.ah = ah;
	tx->wr.remote_qpn = rqpn;
	tx->wr.remote_qkey = MRC_UD_QKEY;
	return tx;
}

/*
 * Posts the chain of sends from @first to @last (linked by wr.wr.next),
 * only the last one signalled: its completion returns them all.  Sends the
 * provider refused go back to the free slots, counted as send errors.
 * Returns 0, or the post's error with the number of sends that did go
 * in *@posted.
 */
static int mrc_ud_post_chain(struct mrc_ud_qp *uqp, struct mrc_ud_tx *first,
			     struct mrc_ud_tx *last, unsigned int *posted)
{
	struct mrc_rail *rail = uqp->ud->rail;
	const struct ib_send_wr *bad = NULL;
	struct ib_send_wr *wr, *next;
	unsigned int bytes = 0, i;
	bool refused = false;
	int err;

	lockdep_assert_held(&uqp->lock);
	last->wr.wr.next = NULL;
	last->wr.wr.send_flags = IB_SEND_SIGNALED;
	err = ib_post_send(uqp->qp, &first->wr.wr, &bad);
	if (err && !bad)
		bad = &first->wr.wr;	/* none went */
	*posted = 0;
	for (wr = &first->wr.wr; wr; wr = next) {
		struct mrc_ud_tx *tx = container_of(wr, struct mrc_ud_tx,
						    wr.wr);

		next = wr->next;
		if (err && wr == bad)
			refused = true;
		if (refused) {	/* from the refused one on: still ours */
			mrc_ud_tx_put(uqp, tx);
			mrc_rail_stat_inc(rail, MRC_RAIL_STAT_TX_ERRORS);
			continue;
		}
		uqp->tx_fifo[(uqp->fifo_head + uqp->tx_posted) % MRC_UD_NTX] =
			tx - uqp->tx;
		tx->posted = true;
		uqp->tx_posted++;
		(*posted)++;
		for (i = 0; i < wr->num_sge; i++)
			bytes += tx->sge[i].length;
		mrc_ev_inc(MRC_EV_TX_POST);
	}
	if (*posted) {
		this_cpu_add(rail->pcpu->c[MRC_RAIL_STAT_TX_PACKETS], *posted);
		this_cpu_add(rail->pcpu->c[MRC_RAIL_STAT_TX_BYTES], bytes);
		if (!err)
			mrc_ev_inc(MRC_EV_TX_SIGNALED);
	}
	return err;
}

/* Posts what is staged on @uqp; see mrc_ud_flush().  uqp->lock held. */
static bool mrc_ud_flush_locked(struct mrc_ud_qp *uqp)
{
	struct mrc_ud_tx *first = uqp->stage_first, *last = uqp->stage_last;
	struct ib_send_wr *wr;
	unsigned int posted;
	int err;

	lockdep_assert_held(&uqp->lock);
	if (!first)
		return false;
	uqp->stage_first = NULL;
	uqp->stage_last = NULL;
	uqp->nstaged = 0;
	if (uqp->state != MRC_UQP_READY) {
		/* Lost with the QP, as if posted and flushed. */
		for (wr = &first->wr.wr; wr; wr = wr->next) {
			struct mrc_ud_tx *tx = container_of(wr,
							    struct mrc_ud_tx,
							    wr.wr);

			mrc_ud_tx_put(uqp, tx);
			mrc_rail_stat_inc(uqp->ud->rail,
					  MRC_RAIL_STAT_TX_ERRORS);
		}
		return false;
	}
	err = mrc_ud_post_chain(uqp, first, last, &posted);
	/*
	 * Part of a chain posted without its signalled end would never come
	 * back while the QP stays idle: recover the QP, which flushes them.
	 */
	return err && posted;
}

/* Whether @ud has QP @ev and a datagram of @len bytes fits a buffer. */
static int mrc_ud_tx_check(const struct mrc_ud *ud, unsigned int ev,
			   unsigned int len)
{
	if (ev >= ud->nqp)
		return -EINVAL;
	return len > MRC_WIRE_MAX_PKT ? -EMSGSIZE : 0;
}

/**
 * mrc_ud_send() - send one datagram now
 * @ud: the rail's UD state
 * @ev: the QP (entropy value) to send from
 * @ah: the address handle of the destination
 * @rqpn: the destination QPN
 * @hdr: the header, copied
 * @hlen: its length
 * @payload: the payload, copied after the header
 * @plen: its length
 *
 * Posted at once and signalled (control packets, probes, credits).
 *
 * Context: any.
 *
 * Return: 0, -EAGAIN if the QP's send ring is full, -ENETDOWN if the QP is
 * being recovered, -EMSGSIZE if too large.
 */
int mrc_ud_send(struct mrc_ud *ud, unsigned int ev, struct ib_ah *ah,
		u32 rqpn, const void *hdr, unsigned int hlen,
		const void *payload, unsigned int plen)
{
	struct mrc_ud_qp *uqp;
	struct mrc_ud_tx *tx;
	unsigned int posted;
	bool broken;
	int err;

	err = mrc_ud_tx_check(ud, ev, hlen + plen);
	if (err)
		return err;
	uqp = &ud->qps[ev];
	spin_lock_bh(&uqp->lock);
	if (uqp->state != MRC_UQP_READY) {
		err = -ENETDOWN;
	} else {
		tx = mrc_ud_tx_fill(uqp, ah, rqpn, hdr, hlen, payload, plen,
				    false);
		err = tx ? mrc_ud_post_chain(uqp, tx, tx, &posted) : -EAGAIN;
	}
	/* What another context staged on this QP does not wait for its flush */
	broken = mrc_ud_flush_locked(uqp);
	spin_unlock_bh(&uqp->lock);
	if (broken)
		mrc_ud_qp_broken(uqp);
	mrc_cq_reap(ud->scq, MRC_UD_REAP);
	return err;
}

/**
 * mrc_ud_stage() - send one datagram with the next ones
 * @ud: the rail's UD state
 * @ev: the QP (entropy value) to send from
 * @ah: the address handle of the destination
 * @rqpn: the destination QPN
 * @hdr: the header, copied
 * @hlen: its length
 * @payload: a DATA packet's payload: read from where it is, or copied
 * @plen: its length
 *
 * The payload is sent from where it is if it lies in memory that page
 * references keep alive (vmalloc, or a folio of the page allocator: what
 * msg.c's buffers of a page or more are): the send holds a reference
 * to each folio it reads until its completion, so the owner may free the
 * buffer at any time.  A payload in a slab object is copied into the
 * slot (debugfs mrc/events: tx_inplace, copy_tx_bytes).
 *
 * As mrc_ud_send(), but the datagram waits in the QP's chain of staged
 * sends, posted with one ib_post_send() when MRC_UD_CHAIN are staged or at
 * mrc_ud_flush(), with only the chain's last send signalled: one
 * completion, one pass through the CQ, per chain instead of per packet.
 * The caller must call mrc_ud_flush() for @ev before it lets go of what
 * keeps @ah alive (for the engine: before it drops the peer's lock).  A
 * staged send that the provider then refuses, or that a QP in recovery
 * drops, is counted as a send error and is lost like a packet on the wire.
 *
 * Context: any.
 *
 * Return: as mrc_ud_send().
 */
int mrc_ud_stage(struct mrc_ud *ud, unsigned int ev, struct ib_ah *ah,
		 u32 rqpn, const void *hdr, unsigned int hlen,
		 const void *payload, unsigned int plen)
{
	struct mrc_ud_qp *uqp;
	struct mrc_ud_tx *tx;
	bool broken = false;
	int err;

	err = mrc_ud_tx_check(ud, ev, hlen + plen);
	if (err)
		return err;
	uqp = &ud->qps[ev];
	/* a ring short of slots may have sends back that nobody reaped */
	if (data_race(READ_ONCE(uqp->ntx_free)) < MRC_UD_CHAIN)
		mrc_cq_reap(ud->scq, MRC_UD_REAP);
	spin_lock_bh(&uqp->lock);
	if (uqp->state != MRC_UQP_READY) {
		err = -ENETDOWN;
		goto out;
	}
	tx = mrc_ud_tx_fill(uqp, ah, rqpn, hdr, hlen, payload, plen, true);
	if (!tx) {
		err = -EAGAIN;
		goto out;
	}
	if (uqp->stage_last)
		uqp->stage_last->wr.wr.next = &tx->wr.wr;
	else
		uqp->stage_first = tx;
	uqp->stage_last = tx;
	if (++uqp->nstaged >= MRC_UD_CHAIN)
		broken = mrc_ud_flush_locked(uqp);
out:
	spin_unlock_bh(&uqp->lock);
	if (broken)
		mrc_ud_qp_broken(uqp);
	return err;
}

/**
 * mrc_ud_flush() - post the sends staged on a QP
 * @ud: the rail's UD state
 * @ev: the QP (entropy value)
 *
 * Context: any.
 */
void mrc_ud_flush(struct mrc_ud *ud, unsigned int ev)
{
	struct mrc_ud_qp *uqp;
	bool broken;

	if (ev >= ud->nqp)
		return;
	uqp = &ud->qps[ev];
	spin_lock_bh(&uqp->lock);
	broken = mrc_ud_flush_locked(uqp);
	spin_unlock_bh(&uqp->lock);
	if (broken)
		mrc_ud_qp_broken(uqp);
	mrc_cq_reap(ud->scq, MRC_UD_REAP);
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

/* Has every send posted before @target completions come back? */
static bool mrc_ud_tx_passed(struct mrc_ud_qp *uqp, u64 target)
{
	bool passed;

	spin_lock_bh(&uqp->lock);
	passed = uqp->tx_completed >= target;
	spin_unlock_bh(&uqp->lock);
	return passed;
}

/**
 * mrc_ud_tx_fence() - wait until the sends posted so far have completed
 * @ud: the rail's UD state (alive: not destroyed before this returns)
 *
 * A posted UD send refers to its address handle until its completion
 * (rxe looks the AH up by index when it builds the packet), so an AH may
 * be destroyed only after every send that may carry it is back; the
 * caller has made sure no new send can take it (unlinked it under
 * peer->lock).  A send queue completes in order, so the sends posted
 * before this call are back once the QP's completion count reaches what
 * had completed plus what was posted when it was called.  Flushed sends
 * (a QP in recovery) count too.  Bounded by the provider: every posted
 * signalled send completes; after 5 s a warning says which QP is stuck
 * and the wait goes on.
 *
 * Context: process; sleeps.
 */
void mrc_ud_tx_fence(struct mrc_ud *ud)
{
	unsigned int i;

	might_sleep();
	for (i = 0; i < ud->nqp; i++) {
		struct mrc_ud_qp *uqp = &ud->qps[i];
		u64 target;

		spin_lock_bh(&uqp->lock);
		target = uqp->tx_completed + uqp->tx_posted;
		spin_unlock_bh(&uqp->lock);
		mrc_cq_reap(ud->scq, MRC_UD_REAP);
		while (!wait_var_event_timeout(&uqp->tx_completed,
					       mrc_ud_tx_passed(uqp, target),
					       5 * HZ))
			pr_warn("%s: QP %u (ev %u): posted sends not back after 5 s, an address handle waits for them\n",
				ud->rail->name, uqp->qp->qp_num, uqp->ev);
	}
}

static void mrc_ud_qp_free_bufs(struct mrc_ud_qp *uqp)
{
	struct ib_device *dev = uqp->ud->ibdev;
	unsigned int i;

	for (i = 0; i < MRC_UD_NRX; i++) {
		if (!uqp->rx[i].buf)
			continue;
		if (uqp->rx[i].dma)
			ib_dma_unmap_single(dev, uqp->rx[i].dma, MRC_UD_RX_LEN,
					    DMA_FROM_DEVICE);
		kmem_cache_free(mrc_rx_cache, uqp->rx[i].buf);
	}
	for (i = 0; i < MRC_UD_NTX; i++) {
		if (!uqp->tx[i].buf)
			continue;
		/* the QP is gone: a send it never completed reads nothing */
		mrc_ud_tx_unpin(uqp->ud, &uqp->tx[i]);
		if (uqp->tx[i].dma)
			ib_dma_unmap_single(dev, uqp->tx[i].dma,
					    MRC_WIRE_MAX_PKT, DMA_TO_DEVICE);
		kfree(uqp->tx[i].buf);
	}
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
		struct mrc_ud_tx *tx = &uqp->tx[i];

		tx->uqp = uqp;
		tx->cqe.done = mrc_ud_tx_done;
		tx->buf = kmalloc(MRC_WIRE_MAX_PKT, GFP_KERNEL);
		if (!tx->buf)
			return -ENOMEM;
		dma = ib_dma_map_single(dev, tx->buf, MRC_WIRE_MAX_PKT,
					DMA_TO_DEVICE);
		if (ib_dma_mapping_error(dev, dma))
			return -ENOMEM;
		tx->dma = dma;
		uqp->tx_free[i] = i;
	}
	uqp->ntx_free = MRC_UD_NTX;
	return 0;
}

static int mrc_ud_qp_create(struct mrc_ud *ud, unsigned int ev)
{
	struct mrc_ud_qp *uqp = &ud->qps[ev];
	struct ib_qp_init_attr init = {
		.event_handler	= mrc_ud_qp_event,
		.qp_context	= uqp,
		.send_cq	= ud->scq->cq,
		.recv_cq	= ud->cq,
		.cap = {
			.max_send_wr	= MRC_UD_NTX,
			.max_recv_wr	= MRC_UD_NRX,
			.max_send_sge	= 1 + MRC_UD_TX_PAY,
			.max_recv_sge	= 1,
		},
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.qp_type	= IB_QPT_UD,
		.port_num	= ud->rail->port,
	};
	int err;

	uqp->ud = ud;
	uqp->ev = ev;
	spin_lock_init(&uqp->lock);
	INIT_DELAYED_WORK(&uqp->recover_work, mrc_ud_recover_workfn);
	uqp->state = MRC_UQP_READY;

	err = mrc_ud_qp_alloc_bufs(uqp);
	if (err)
		return err;
	uqp->qp = ib_create_qp(ud->pd, &init);
	if (IS_ERR(uqp->qp)) {
		err = PTR_ERR(uqp->qp);
		uqp->qp = NULL;
		return err;
	}
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
	cancel_delayed_work_sync(&uqp->recover_work);
	if (uqp->qp)
		ib_destroy_qp(uqp->qp);
}

/**
 * mrc_ud_create() - create a rail's UD queue pairs
 * @rail: the rail
 * @nqp: how many QPs (entropy values)
 *
 * Creates the rail's PD, CQs and @nqp QPs, all receives posted.
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
	ud->mcq = mrc_cq_create(dev, nqp * MRC_UD_NRX, 0);
	if (IS_ERR(ud->mcq)) {
		err = PTR_ERR(ud->mcq);
		ud->mcq = NULL;
		goto err_free;
	}
	ud->cq = ud->mcq->cq;
	ud->scq = mrc_cq_create(dev, nqp * MRC_UD_NTX,
				max(1UL, msecs_to_jiffies(MRC_UD_SWEEP_MS)));
	if (IS_ERR(ud->scq)) {
		err = PTR_ERR(ud->scq);
		ud->scq = NULL;
		goto err_free;
	}
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
	/* No QP left: the CQs get no more entries; freeing stops their polling. */
	mrc_cq_destroy(ud->mcq);
	mrc_cq_destroy(ud->scq);
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
