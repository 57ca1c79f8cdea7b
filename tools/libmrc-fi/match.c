// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc-fi: receive matching.  Each endpoint keeps two posted-receive
 * queues (untagged, tagged) and two unexpected-message queues, all in
 * arrival order, so the oldest match wins on both sides: a receive is
 * matched against the unexpected messages first, a message against the
 * posted receives.  FI_PEEK, FI_CLAIM and FI_DISCARD work on the tagged
 * unexpected queue.  All functions run with the domain lock held.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "mrc_fi.h"

static bool mrcfi_match(const struct mrcfi_rx *posted, uint8_t op,
			uint32_t node, uint16_t port, uint64_t tag)
{
	if (posted->src != FI_ADDR_UNSPEC &&
	    (posted->node != node || posted->port != port))
		return false;
	if (op == MRCFI_OP_TAGGED && ((posted->tag ^ tag) & ~posted->ignore))
		return false;
	return true;
}

static void mrcfi_rx_report(struct mrcfi_ep *ep, void *context,
			    uint64_t flags, const struct mrcfi_hdr *hdr,
			    uint32_t node, uint16_t port, size_t len,
			    size_t olen, int err)
{
	struct mrcfi_cqe c = { 0 };

	if (!ep->rx_cq)
		return;
	if (!err && ep->rx_selective && !(flags & FI_COMPLETION))
		return;
	c.e.op_context = context;
	c.e.flags = FI_RECV | (hdr->op == MRCFI_OP_TAGGED ? FI_TAGGED :
			       FI_MSG);
	if (hdr->flags & MRCFI_F_CQ_DATA) {
		c.e.flags |= FI_REMOTE_CQ_DATA;
		c.e.data = hdr->data;
	}
	c.e.len = len;
	c.e.tag = hdr->tag;
	c.src = FI_ADDR_NOTAVAIL;
	if ((ep->caps & FI_SOURCE) && ep->av && node)
		c.src = mrcfi_av_reverse(ep->av, node, port);
	c.err = err;
	c.prov_errno = err;
	c.olen = olen;
	if (mrcfi_cq_push(ep->rx_cq, &c))
		MRCFI_WARN(FI_LOG_CQ, "completion lost: out of memory\n");
}

/* Copy a message into a receive's buffer and report it (FI_ETRUNC if
 * the buffer is shorter than the message: its first bytes are kept).
 */
static void mrcfi_rx_complete(struct mrcfi_ep *ep, const struct mrcfi_rx *rx,
			      uint32_t node, uint16_t port,
			      const struct mrcfi_hdr *hdr,
			      const void *payload, size_t len)
{
	size_t cap = mrcfi_iov_len(rx->iov, rx->iov_count);
	size_t n = mrcfi_copy_to_iov(rx->iov, rx->iov_count, payload, len);

	mrcfi_rx_report(ep, rx->context, rx->flags, hdr, node, port, n,
			len > cap ? len - cap : 0, len > cap ? FI_ETRUNC : 0);
}

static struct mrcfi_list *mrcfi_posted(struct mrcfi_ep *ep, uint8_t op)
{
	return op == MRCFI_OP_TAGGED ? &ep->posted_tag : &ep->posted_msg;
}

static struct mrcfi_list *mrcfi_unexp(struct mrcfi_ep *ep, uint8_t op)
{
	return op == MRCFI_OP_TAGGED ? &ep->unexp_tag : &ep->unexp_msg;
}

static void mrcfi_rx_free(struct mrcfi_rx *rx)
{
	free(rx->alloc);
	free(rx);
}

/**
 * mrcfi_deliver() - a message arrived: complete the oldest matching
 * receive, or queue it as unexpected
 * @ep: the endpoint
 * @node: the sender's node id
 * @port: and port
 * @hdr: the provider header it carried
 * @payload: the application's bytes
 * @len: how many
 * @owned: if not NULL and *owned is, the allocation @payload lies in;
 *         taken (and *owned set to NULL) when the message is queued
 */
void mrcfi_deliver(struct mrcfi_ep *ep, uint32_t node, uint16_t port,
		   const struct mrcfi_hdr *hdr, void *payload, size_t len,
		   void **owned)
{
	struct mrcfi_list *h = mrcfi_posted(ep, hdr->op), *l;
	struct mrcfi_rx *rx;

	for (l = h->next; l != h; l = l->next) {
		rx = mrcfi_container_of(l, struct mrcfi_rx, link);
		if (!mrcfi_match(rx, hdr->op, node, port, hdr->tag))
			continue;
		mrcfi_list_del(&rx->link);
		mrcfi_rx_complete(ep, rx, node, port, hdr, payload, len);
		free(rx);
		return;
	}

	rx = calloc(1, sizeof(*rx));
	if (!rx)
		goto lost;
	if (owned && *owned) {
		rx->alloc = *owned;
		rx->buf = payload;
		*owned = NULL;
	} else {
		rx->alloc = malloc(len ? len : 1);
		if (!rx->alloc) {
			free(rx);
			goto lost;
		}
		memcpy(rx->alloc, payload, len);
		rx->buf = rx->alloc;
	}
	rx->node = node;
	rx->port = port;
	rx->hdr = *hdr;
	rx->len = len;
	mrcfi_list_add_tail(&rx->link, mrcfi_unexp(ep, hdr->op));
	return;
lost:
	MRCFI_WARN(FI_LOG_EP_DATA,
		   "message from %u:%u dropped: out of memory\n", node, port);
}

/* FI_PEEK [| FI_CLAIM | FI_DISCARD], and FI_CLAIM [| FI_DISCARD]. */
static ssize_t mrcfi_peek_claim(struct mrcfi_ep *ep, struct mrcfi_rx *want)
{
	struct mrcfi_list *h = &ep->unexp_tag, *l;
	struct mrcfi_rx *rx = NULL;
	struct mrcfi_hdr none = { .op = MRCFI_OP_TAGGED, .tag = want->tag };

	for (l = h->next; l != h; l = l->next) {
		struct mrcfi_rx *u = mrcfi_container_of(l, struct mrcfi_rx,
							 link);

		if (want->flags & FI_PEEK) {
			if (!u->claimed && mrcfi_match(want, MRCFI_OP_TAGGED,
						       u->node, u->port,
						       u->hdr.tag)) {
				rx = u;
				break;
			}
		} else if (u->claimed && u->claim_ctx == want->context) {
			rx = u;
			break;
		}
	}
	if (!rx) {
		if (!(want->flags & FI_PEEK))
			return -FI_EINVAL;	/* FI_CLAIM of nothing */
		mrcfi_rx_report(ep, want->context, FI_COMPLETION, &none, 0, 0,
				0, 0, FI_ENOMSG);
		return 0;
	}
	if ((want->flags & FI_PEEK) && !(want->flags & FI_DISCARD)) {
		/* report what is there; FI_CLAIM reserves it */
		if (want->flags & FI_CLAIM) {
			rx->claimed = true;
			rx->claim_ctx = want->context;
		}
		mrcfi_rx_report(ep, want->context, want->flags, &rx->hdr,
				rx->node, rx->port, rx->len, 0, 0);
		return 0;
	}
	mrcfi_list_del(&rx->link);
	if (want->flags & FI_DISCARD)
		mrcfi_rx_report(ep, want->context, want->flags, &rx->hdr,
				rx->node, rx->port, 0, 0, 0);
	else
		mrcfi_rx_complete(ep, want, rx->node, rx->port, &rx->hdr,
				  rx->buf, rx->len);
	mrcfi_rx_free(rx);
	return 0;
}

/**
 * mrcfi_recv_common() - post a receive (fi_recv*, fi_trecv*)
 * @ep: the endpoint
 * @iov: buffer
 * @count: entries in @iov (at most MRCFI_IOV_LIMIT)
 * @src: FI_ADDR_UNSPEC, or the only sender to accept (FI_DIRECTED_RECV)
 * @op: MRCFI_OP_MSG or MRCFI_OP_TAGGED
 * @tag: tag to match (tagged)
 * @ignore: tag bits that do not matter
 * @context: the application's, reported with the completion
 * @flags: FI_COMPLETION, FI_PEEK, FI_CLAIM, FI_DISCARD
 *
 * Return: 0, or a negative FI_E* code.
 */
ssize_t mrcfi_recv_common(struct mrcfi_ep *ep, const struct iovec *iov,
			  size_t count, fi_addr_t src, uint8_t op,
			  uint64_t tag, uint64_t ignore, void *context,
			  uint64_t flags)
{
	struct mrcfi_list *h, *l;
	struct mrcfi_addr a = { 0 };
	struct mrcfi_rx *rx, *u;
	ssize_t ret;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (count > MRCFI_IOV_LIMIT)
		return -FI_EINVAL;
	if (!(ep->caps & FI_DIRECTED_RECV))
		src = FI_ADDR_UNSPEC;
	if (src != FI_ADDR_UNSPEC &&
	    (!ep->av || mrcfi_av_resolve(ep->av, src, &a)))
		return -FI_EINVAL;
	if ((flags & (FI_PEEK | FI_CLAIM)) && op != MRCFI_OP_TAGGED)
		return -FI_EBADFLAGS;

	rx = calloc(1, sizeof(*rx));
	if (!rx)
		return -FI_ENOMEM;
	if (count)
		memcpy(rx->iov, iov, count * sizeof(*iov));
	rx->iov_count = count;
	rx->src = src;
	rx->node = a.node;
	rx->port = a.port;
	rx->tag = tag;
	rx->ignore = ignore;
	rx->context = context;
	rx->flags = flags;

	if (flags & (FI_PEEK | FI_CLAIM)) {
		if (flags & FI_PEEK)
			mrcfi_ep_progress(ep);	/* what mrc has queued */
		ret = mrcfi_peek_claim(ep, rx);
		free(rx);
		return ret;
	}

	h = mrcfi_unexp(ep, op);
	for (l = h->next; l != h; l = l->next) {
		u = mrcfi_container_of(l, struct mrcfi_rx, link);
		if (u->claimed ||
		    !mrcfi_match(rx, op, u->node, u->port, u->hdr.tag))
			continue;
		mrcfi_list_del(&u->link);
		mrcfi_rx_complete(ep, rx, u->node, u->port, &u->hdr, u->buf,
				  u->len);
		mrcfi_rx_free(u);
		free(rx);
		return 0;
	}
	mrcfi_list_add_tail(&rx->link, mrcfi_posted(ep, op));
	return 0;
}

/**
 * mrcfi_cancel() - fi_cancel of a posted receive
 * @ep: the endpoint
 * @context: the receive's context
 *
 * The receive completes with FI_ECANCELED.  Sends complete when they are
 * posted (or, FI_TRANSMIT_COMPLETE, when mrc has delivered them) and
 * cannot be cancelled.
 *
 * Return: 0, or -FI_ENOENT if no receive with @context is posted.
 */
ssize_t mrcfi_cancel(struct mrcfi_ep *ep, void *context)
{
	struct mrcfi_list *lists[2] = { &ep->posted_msg, &ep->posted_tag };
	static const uint8_t ops[2] = { MRCFI_OP_MSG, MRCFI_OP_TAGGED };
	struct mrcfi_list *l;
	int i;

	for (i = 0; i < 2; i++) {
		for (l = lists[i]->next; l != lists[i]; l = l->next) {
			struct mrcfi_rx *rx =
				mrcfi_container_of(l, struct mrcfi_rx, link);
			struct mrcfi_hdr h = { .op = ops[i], .tag = rx->tag };

			if (rx->context != context)
				continue;
			mrcfi_list_del(&rx->link);
			mrcfi_rx_report(ep, context, rx->flags, &h, 0, 0, 0,
					0, FI_ECANCELED);
			free(rx);
			return 0;
		}
	}
	return -FI_ENOENT;
}

static void mrcfi_list_free(struct mrcfi_list *h)
{
	while (!mrcfi_list_empty(h)) {
		struct mrcfi_rx *rx = mrcfi_container_of(h->next,
							 struct mrcfi_rx,
							 link);

		mrcfi_list_del(&rx->link);
		mrcfi_rx_free(rx);
	}
}

/**
 * mrcfi_match_flush() - free every posted receive and unexpected message
 * @ep: the endpoint, closing
 */
void mrcfi_match_flush(struct mrcfi_ep *ep)
{
	mrcfi_list_free(&ep->posted_msg);
	mrcfi_list_free(&ep->posted_tag);
	mrcfi_list_free(&ep->unexp_msg);
	mrcfi_list_free(&ep->unexp_tag);
}
