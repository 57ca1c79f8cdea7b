// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc-fi: sending.  One fi_send is one write() of a /dev/mrc message:
 * mrc's send header, the provider header, the payload.  write() returns
 * once mrc holds its own copy, which is FI_INJECT_COMPLETE: the send
 * completes at once (the default, tx_attr.op_flags).  A send posted with
 * FI_TRANSMIT_COMPLETE or FI_DELIVERY_COMPLETE completes when mrc says
 * every accepted send of the endpoint was acknowledged by its peer
 * (MRC_IOC_STATS: tx_outstanding 0) or fails with the error mrc
 * reports for a failed send (last_error).  All functions run with the
 * domain lock held.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "mrc_fi.h"

static void mrcfi_tx_report(struct mrcfi_ep *ep, void *context,
			    uint64_t flags, uint64_t tag, size_t len, int err)
{
	struct mrcfi_cqe c = { 0 };

	if (!ep->tx_cq)
		return;
	if (!err && ep->tx_selective && !(flags & FI_COMPLETION))
		return;
	c.e.op_context = context;
	c.e.flags = FI_SEND | (flags & (FI_MSG | FI_TAGGED));
	c.e.len = err ? len : 0;
	c.e.tag = tag;
	c.src = FI_ADDR_NOTAVAIL;
	c.err = err;
	c.prov_errno = err;
	if (mrcfi_cq_push(ep->tx_cq, &c))
		MRCFI_WARN(FI_LOG_CQ, "completion lost: out of memory\n");
}

/**
 * mrcfi_now_ms() - CLOCK_MONOTONIC in milliseconds
 *
 * Return: the time.
 */
int64_t mrcfi_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Sends mrc failed after accepting them (peer unreachable or silent for
 * the peer timeout).  mrc counts them but does not say which: the sends
 * waiting for their acknowledgment fail with its error; if none waits,
 * an error completion without a context reports it.  mrc also keeps the
 * error for the next write() (and shows POLLERR until then): @consumed
 * if a write() returned it; else it is taken with MRC_IOC_FLUSH when no
 * send is in flight (FLUSH returns at once then), or left for the next
 * write() (err_pending, mrcfi_write).
 */
static void mrcfi_tx_failed(struct mrcfi_ep *ep,
			    const struct mrc_dev_stats *st, bool consumed)
{
	int err = st->last_error < 0 ? -st->last_error : FI_EIO;

	MRCFI_WARN(FI_LOG_EP_DATA, "port %u: %llu send(s) failed: %s\n",
		   ep->port,
		   (unsigned long long)(st->tx_failed - ep->tx_failed_seen),
		   strerror(err));
	ep->tx_failed_seen = st->tx_failed;
	if (consumed) {
		ep->err_pending = false;
	} else if (!st->tx_outstanding) {
		ioctl(ep->fd, MRC_IOC_FLUSH);	/* returns the error */
		ep->err_pending = false;
	} else {
		ep->err_pending = true;
	}
	if (mrcfi_list_empty(&ep->tx_wait)) {
		/*
		 * An application that binds its CQ for selected completions
		 * only gets none that belongs to no operation (Open MPI takes
		 * every op_context as its own request): its next send fails
		 * with the error instead.
		 */
		if (ep->tx_selective)
			ep->tx_sticky_err = err;
		else
			mrcfi_tx_report(ep, NULL, FI_MSG, 0, 0, err);
		return;
	}
	while (!mrcfi_list_empty(&ep->tx_wait)) {
		struct mrcfi_tx *t = mrcfi_container_of(ep->tx_wait.next,
							struct mrcfi_tx, link);

		mrcfi_list_del(&t->link);
		mrcfi_tx_report(ep, t->context, t->flags, t->tag, t->len, err);
		free(t);
	}
}

#define MRCFI_TX_CHECK_MS	100	/* STATS while sends are in flight */

/**
 * mrcfi_tx_progress() - look at mrc's send counters: complete the sends
 * that wait for their peer, report sends that failed
 * @ep: the endpoint
 * @force: look now (poll() said POLLERR), not only when a send waits or
 *         every MRCFI_TX_CHECK_MS while sends are in flight
 */
void mrcfi_tx_progress(struct mrcfi_ep *ep, bool force)
{
	struct mrc_dev_stats st = { .size = sizeof(st) };
	int64_t now = 0;

	if (!force && mrcfi_list_empty(&ep->tx_wait)) {
		if (!ep->tx_unchecked && !ep->err_pending)
			return;
		now = mrcfi_now_ms();
		if (now - ep->tx_checked_ms < MRCFI_TX_CHECK_MS)
			return;
	}
	ep->tx_checked_ms = now ? now : mrcfi_now_ms();
	if (ioctl(ep->fd, MRC_IOC_STATS, &st) < 0)
		return;
	if (st.tx_failed > ep->tx_failed_seen) {
		mrcfi_tx_failed(ep, &st, false);
		return;
	}
	if (st.tx_outstanding)
		return;
	ep->tx_unchecked = false;
	if (ep->err_pending) {
		ioctl(ep->fd, MRC_IOC_FLUSH);
		ep->err_pending = false;
	}
	while (!mrcfi_list_empty(&ep->tx_wait)) {
		struct mrcfi_tx *t = mrcfi_container_of(ep->tx_wait.next,
							struct mrcfi_tx, link);

		mrcfi_list_del(&t->link);
		mrcfi_tx_report(ep, t->context, t->flags, t->tag, t->len, 0);
		free(t);
	}
}

static int mrcfi_txbuf(struct mrcfi_ep *ep, size_t need)
{
	void *p;

	if (need <= ep->txbuf_len)
		return 0;
	if (need < 65536)
		need = 65536;
	p = realloc(ep->txbuf, need);
	if (!p)
		return -FI_ENOMEM;
	ep->txbuf = p;
	ep->txbuf_len = need;
	return 0;
}

/* write() the message.  A failure mrc kept from an earlier send (already
 * reported, err_pending, or found now in MRC_IOC_STATS) comes back from
 * write() instead, which then sent nothing: write again.
 */
static ssize_t mrcfi_write(struct mrcfi_ep *ep, size_t count)
{
	struct mrc_dev_stats st = { .size = sizeof(st) };
	int tries;

	for (tries = 0; tries < 3; tries++) {
		if (write(ep->fd, ep->txbuf, count) == (ssize_t)count) {
			ep->tx_unchecked = true;
			return 0;
		}
		if (errno == EINTR) {
			tries--;
			continue;
		}
		if (errno != EHOSTUNREACH && errno != ETIMEDOUT)
			break;
		if (ep->err_pending) {
			ep->err_pending = false;
			continue;
		}
		if (ioctl(ep->fd, MRC_IOC_STATS, &st) < 0 ||
		    st.tx_failed <= ep->tx_failed_seen)
			break;
		mrcfi_tx_failed(ep, &st, true);	/* an earlier send's error */
	}
	return -mrcfi_errno(errno);
}

/**
 * mrcfi_send_common() - post a send (fi_send*, fi_tsend*, fi_inject*)
 * @ep: the endpoint
 * @iov: payload
 * @count: entries in @iov (at most MRCFI_IOV_LIMIT)
 * @dest: the destination, an fi_addr_t of the endpoint's AV
 * @op: MRCFI_OP_MSG or MRCFI_OP_TAGGED
 * @tag: the tag (tagged)
 * @data: remote CQ data (with FI_REMOTE_CQ_DATA in @flags)
 * @context: the application's, reported with the completion
 * @flags: FI_INJECT (no completion), FI_COMPLETION, FI_REMOTE_CQ_DATA,
 *         FI_TRANSMIT_COMPLETE, FI_DELIVERY_COMPLETE
 *
 * A destination on this node goes to an endpoint of this process
 * (local.c) and completes at once, whatever @flags ask; one in another
 * process goes through mrc like any other (the node is its own peer).
 *
 * Return: 0; the error of an earlier send mrc failed, once, if the tx CQ
 * was bound with FI_SELECTIVE_COMPLETION and no send waited for it;
 * -FI_EAGAIN when mrc's send window (or the local receiver's inbox) is full (progress the CQ and retry); -FI_EHOSTUNREACH if @dest
 * is not an mrc peer nor an endpoint of this process; another negative
 * FI_E* code.
 */
ssize_t mrcfi_send_common(struct mrcfi_ep *ep, const struct iovec *iov,
			  size_t count, fi_addr_t dest, uint8_t op,
			  uint64_t tag, uint64_t data, void *context,
			  uint64_t flags)
{
	size_t i, off, len = mrcfi_iov_len(iov, count);
	size_t hl = sizeof(struct mrc_dev_send_hdr) + sizeof(struct mrcfi_hdr);
	struct mrc_dev_send_hdr *sh;
	struct mrcfi_hdr *h;
	struct mrcfi_addr a;
	struct mrcfi_tx *t;
	uint64_t cflags;
	ssize_t ret;
	bool local;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (ep->tx_sticky_err) {	/* an earlier send failed (selective) */
		ret = -ep->tx_sticky_err;
		ep->tx_sticky_err = 0;
		return ret;
	}
	if (count > MRCFI_IOV_LIMIT)
		return -FI_EINVAL;
	if (len > MRCFI_MAX_MSG)
		return -FI_EMSGSIZE;
	if ((flags & FI_INJECT) && len > MRCFI_INJECT_SIZE)
		return -FI_EMSGSIZE;
	if (!ep->av || mrcfi_av_resolve(ep->av, dest, &a))
		return -FI_EINVAL;
	ret = mrcfi_txbuf(ep, hl + len);
	if (ret)
		return ret;

	sh = ep->txbuf;
	memset(sh, 0, hl);
	sh->version = MRC_DEV_VERSION;
	sh->dst_node = a.node;
	sh->dst_port = a.port;
	sh->len = (uint32_t)(sizeof(*h) + len);
	h = (struct mrcfi_hdr *)(sh + 1);
	h->version = MRCFI_WIRE_VERSION;
	h->op = op;
	h->tag = op == MRCFI_OP_TAGGED ? tag : 0;
	if (flags & FI_REMOTE_CQ_DATA) {
		h->flags |= MRCFI_F_CQ_DATA;
		h->data = data;
	}
	for (i = 0, off = hl; i < count; i++) {
		if (!iov[i].iov_len)
			continue;
		memcpy((char *)ep->txbuf + off, iov[i].iov_base,
		       iov[i].iov_len);
		off += iov[i].iov_len;
	}

	/*
	 * This node: an endpoint of this process gets it straight into its
	 * inbox (local.c); one of another process (an MPI job's other ranks
	 * on the node) through mrc, where the node is its own peer.
	 */
	local = a.node == ep->node;
	if (local) {
		ret = mrcfi_local_send(ep, a.port, h, h + 1, len);
		if (ret == -FI_EHOSTUNREACH)
			local = false;
	}
	if (!local) {
		ret = mrcfi_write(ep, hl + len);
		if (ret == -FI_EHOSTUNREACH && a.node == ep->node)
			MRCFI_WARN(FI_LOG_EP_DATA,
				   "port %u of this node is not in this process, and node %u is not its own mrc peer (mrcctl peer add %u addr ...)\n",
				   a.port, a.node, a.node);
	}
	if (ret)
		return ret;

	if (flags & FI_INJECT)
		return 0;
	cflags = (flags & FI_COMPLETION) |
		 (op == MRCFI_OP_TAGGED ? FI_TAGGED : FI_MSG);
	/* a local message is in its receiver's inbox: complete now */
	if (!local && (flags & (FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE))) {
		t = calloc(1, sizeof(*t));
		if (t) {
			t->context = context;
			t->flags = cflags;
			t->len = len;
			t->tag = tag;
			mrcfi_list_add_tail(&t->link, &ep->tx_wait);
			return 0;
		}
		/* no memory to wait: mrc has the copy, complete now */
	}
	mrcfi_tx_report(ep, context, cflags, tag, len, 0);
	return 0;
}
