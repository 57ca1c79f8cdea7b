// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc-fi: the completion queue.  One ring (it grows, so a completion
 * is never lost) holds successes and errors in the order they happened;
 * fi_cq_read returns successes up to the first error, which then waits
 * for fi_cq_readerr (-FI_EAVAIL).  Reading progresses every endpoint
 * bound to the CQ (manual progress).  The wait object is an epoll fd
 * over the endpoints' /dev/mrc files (and an eventfd for fi_cq_signal):
 * it is readable when a message is queued, and fi_control(FI_GETWAIT)
 * hands it out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fi_eq.h>

#include "mrc_fi.h"

/**
 * mrcfi_cq_push() - queue a completion
 * @cq: the CQ
 * @cqe: what to report (copied)
 *
 * Call with the domain lock held.
 *
 * Return: 0 or -FI_ENOMEM.
 */
int mrcfi_cq_push(struct mrcfi_cq *cq, const struct mrcfi_cqe *cqe)
{
	if (cq->count == cq->cap) {
		size_t cap = cq->cap * 2, i;
		struct mrcfi_cqe *r = malloc(cap * sizeof(*r));

		if (!r)
			return -FI_ENOMEM;
		for (i = 0; i < cq->count; i++)
			r[i] = cq->ring[(cq->head + i) % cq->cap];
		free(cq->ring);
		cq->ring = r;
		cq->head = 0;
		cq->cap = cap;
	}
	cq->ring[(cq->head + cq->count) % cq->cap] = *cqe;
	cq->count++;
	return 0;
}

/**
 * mrcfi_cq_attach() - an endpoint binds to the CQ
 * @cq: the CQ
 * @ep: the endpoint (bound to its /dev/mrc port)
 *
 * Call with the domain lock held.  An endpoint bound for both directions
 * is attached once.
 *
 * Return: 0 or a negative FI_E* code.
 */
int mrcfi_cq_attach(struct mrcfi_cq *cq, struct mrcfi_ep *ep)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ep };
	int i;

	for (i = 0; i < cq->neps; i++)
		if (cq->eps[i] == ep)
			return 0;
	if (cq->neps == MRCFI_CQ_MAX_EPS)
		return -FI_ENOSPC;
	if (epoll_ctl(cq->epfd, EPOLL_CTL_ADD, ep->fd, &ev) < 0)
		return -errno;
	/* local messages (local.c) wake fi_cq_sread too */
	if (epoll_ctl(cq->epfd, EPOLL_CTL_ADD, ep->evfd, &ev) < 0) {
		int err = -errno;

		epoll_ctl(cq->epfd, EPOLL_CTL_DEL, ep->fd, NULL);
		return err;
	}
	cq->eps[cq->neps++] = ep;
	return 0;
}

/**
 * mrcfi_cq_detach() - an endpoint closes
 * @cq: the CQ
 * @ep: the endpoint
 *
 * Call with the domain lock held.
 */
void mrcfi_cq_detach(struct mrcfi_cq *cq, struct mrcfi_ep *ep)
{
	int i;

	for (i = 0; i < cq->neps; i++) {
		if (cq->eps[i] != ep)
			continue;
		epoll_ctl(cq->epfd, EPOLL_CTL_DEL, ep->fd, NULL);
		epoll_ctl(cq->epfd, EPOLL_CTL_DEL, ep->evfd, NULL);
		cq->eps[i] = cq->eps[--cq->neps];
		return;
	}
}

static void mrcfi_cq_fill(struct mrcfi_cq *cq, void *buf, size_t i,
			  const struct mrcfi_cqe *c)
{
	switch (cq->format) {
	case FI_CQ_FORMAT_CONTEXT:
		((struct fi_cq_entry *)buf)[i].op_context = c->e.op_context;
		break;
	case FI_CQ_FORMAT_MSG: {
		struct fi_cq_msg_entry *m = &((struct fi_cq_msg_entry *)buf)[i];

		m->op_context = c->e.op_context;
		m->flags = c->e.flags;
		m->len = c->e.len;
		break;
	}
	case FI_CQ_FORMAT_DATA: {
		struct fi_cq_data_entry *d =
			&((struct fi_cq_data_entry *)buf)[i];

		d->op_context = c->e.op_context;
		d->flags = c->e.flags;
		d->len = c->e.len;
		d->buf = c->e.buf;
		d->data = c->e.data;
		break;
	}
	default:
		((struct fi_cq_tagged_entry *)buf)[i] = c->e;
		break;
	}
}

static void mrcfi_cq_progress(struct mrcfi_cq *cq)
{
	int i;

	for (i = 0; i < cq->neps; i++)
		mrcfi_ep_progress(cq->eps[i]);
}

static ssize_t mrcfi_cq_readfrom(struct fid_cq *fid, void *buf, size_t count,
				 fi_addr_t *src_addr)
{
	struct mrcfi_cq *cq = mrcfi_container_of(fid, struct mrcfi_cq, cq);
	struct mrcfi_cqe *c;
	ssize_t n = 0;

	pthread_mutex_lock(&cq->dom->lock);
	mrcfi_cq_progress(cq);
	while ((size_t)n < count && cq->count) {
		c = &cq->ring[cq->head];
		if (c->err)
			break;
		mrcfi_cq_fill(cq, buf, n, c);
		if (src_addr)
			src_addr[n] = c->src;
		cq->head = (cq->head + 1) % cq->cap;
		cq->count--;
		n++;
	}
	if (!n && count)
		n = cq->count && cq->ring[cq->head].err ? -FI_EAVAIL :
			-FI_EAGAIN;
	pthread_mutex_unlock(&cq->dom->lock);
	/*
	 * An application polling the CQ leaves mrc's work items (on the
	 * same CPU) the rest of its time slice.
	 */
	if (n == -FI_EAGAIN && mrcfi_yield)
		sched_yield();
	return n;
}

static ssize_t mrcfi_cq_read(struct fid_cq *fid, void *buf, size_t count)
{
	return mrcfi_cq_readfrom(fid, buf, count, NULL);
}

static ssize_t mrcfi_cq_readerr(struct fid_cq *fid, struct fi_cq_err_entry *buf,
				uint64_t flags)
{
	struct mrcfi_cq *cq = mrcfi_container_of(fid, struct mrcfi_cq, cq);
	struct mrcfi_cqe *c;
	ssize_t ret = -FI_EAGAIN;

	(void)flags;
	pthread_mutex_lock(&cq->dom->lock);
	if (cq->count && cq->ring[cq->head].err) {
		c = &cq->ring[cq->head];
		buf->op_context = c->e.op_context;
		buf->flags = c->e.flags;
		buf->len = c->e.len;
		buf->buf = c->e.buf;
		buf->data = c->e.data;
		buf->tag = c->e.tag;
		buf->olen = c->olen;
		buf->err = c->err;
		buf->prov_errno = c->prov_errno;
		buf->err_data = NULL;
		buf->err_data_size = 0;
		cq->head = (cq->head + 1) % cq->cap;
		cq->count--;
		ret = 1;
	}
	pthread_mutex_unlock(&cq->dom->lock);
	return ret;
}

static ssize_t mrcfi_cq_sreadfrom(struct fid_cq *fid, void *buf, size_t count,
				  fi_addr_t *src_addr, const void *cond,
				  int timeout)
{
	struct mrcfi_cq *cq = mrcfi_container_of(fid, struct mrcfi_cq, cq);
	int64_t end = timeout < 0 ? -1 : mrcfi_now_ms() + timeout;
	struct epoll_event ev[8];
	bool tx_wait;
	uint64_t v;
	ssize_t ret;
	int i, n, wait;

	(void)cond;
	if (cq->wait_obj == FI_WAIT_NONE)
		return -FI_EINVAL;
	for (;;) {
		ret = mrcfi_cq_readfrom(fid, buf, count, src_addr);
		if (ret != -FI_EAGAIN)
			return ret;
		wait = -1;
		if (end >= 0) {
			int64_t left = end - mrcfi_now_ms();

			if (left <= 0)
				return -FI_EAGAIN;
			wait = (int)left;
		}
		/*
		 * A send waiting for its peer's acknowledgment
		 * (FI_TRANSMIT_COMPLETE) shows in no fd: look again soon.
		 */
		tx_wait = false;
		pthread_mutex_lock(&cq->dom->lock);
		for (i = 0; i < cq->neps; i++)
			tx_wait |= !mrcfi_list_empty(&cq->eps[i]->tx_wait);
		pthread_mutex_unlock(&cq->dom->lock);
		if (tx_wait && (wait < 0 || wait > 1))
			wait = 1;
		n = epoll_wait(cq->epfd, ev, 8, wait);
		for (i = 0; i < n; i++) {
			struct mrcfi_ep *ep = ev[i].data.ptr;
			bool pending;

			if (!ep) {
				if (read(cq->sigfd, &v, sizeof(v)) < 0)
					v = 0;
				return -FI_EAGAIN;	/* fi_cq_signal */
			}
			if (!(ev[i].events & EPOLLERR))
				continue;
			/*
			 * A failed send (POLLERR): report it now.  Until mrc's
			 * error can be taken (sends still in flight) epoll
			 * says EPOLLERR at once: do not spin on it.
			 */
			pthread_mutex_lock(&cq->dom->lock);
			mrcfi_tx_progress(ep, true);
			pending = ep->err_pending;
			pthread_mutex_unlock(&cq->dom->lock);
			if (pending && !(ev[i].events & EPOLLIN))
				usleep(1000);
		}
	}
}

static ssize_t mrcfi_cq_sread(struct fid_cq *fid, void *buf, size_t count,
			      const void *cond, int timeout)
{
	return mrcfi_cq_sreadfrom(fid, buf, count, NULL, cond, timeout);
}

static int mrcfi_cq_signal(struct fid_cq *fid)
{
	struct mrcfi_cq *cq = mrcfi_container_of(fid, struct mrcfi_cq, cq);
	uint64_t one = 1;

	if (write(cq->sigfd, &one, sizeof(one)) < 0)
		return -errno;
	return 0;
}

static const char *mrcfi_cq_strerror(struct fid_cq *fid, int prov_errno,
				     const void *err_data, char *buf,
				     size_t len)
{
	const char *s = strerror(prov_errno < 0 ? -prov_errno : prov_errno);

	(void)fid; (void)err_data;
	if (buf && len) {
		strncpy(buf, s, len - 1);
		buf[len - 1] = '\0';
		return buf;
	}
	return s;
}

static int mrcfi_cq_control(struct fid *fid, int command, void *arg)
{
	struct mrcfi_cq *cq = mrcfi_container_of(fid, struct mrcfi_cq, cq.fid);

	switch (command) {
	case FI_GETWAIT:
		if (cq->wait_obj != FI_WAIT_FD)
			return -FI_ENODATA;
		*(int *)arg = cq->epfd;
		return 0;
	case FI_GETWAITOBJ:
		*(enum fi_wait_obj *)arg = cq->wait_obj;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int mrcfi_cq_close(struct fid *fid)
{
	struct mrcfi_cq *cq = mrcfi_container_of(fid, struct mrcfi_cq, cq.fid);

	if (cq->neps)
		return -FI_EBUSY;
	pthread_mutex_lock(&cq->dom->lock);
	cq->dom->refs--;
	pthread_mutex_unlock(&cq->dom->lock);
	close(cq->epfd);
	close(cq->sigfd);
	free(cq->ring);
	free(cq);
	return 0;
}

static struct fi_ops mrcfi_cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mrcfi_cq_close,
	.bind = mrcfi_no_bind,
	.control = mrcfi_cq_control,
	.ops_open = mrcfi_no_ops_open,
};

static struct fi_ops_cq mrcfi_cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = mrcfi_cq_read,
	.readfrom = mrcfi_cq_readfrom,
	.readerr = mrcfi_cq_readerr,
	.sread = mrcfi_cq_sread,
	.sreadfrom = mrcfi_cq_sreadfrom,
	.signal = mrcfi_cq_signal,
	.strerror = mrcfi_cq_strerror,
};

/**
 * mrcfi_cq_open() - the domain's fi_cq_open
 * @domain: the mrc domain
 * @attr: format up to FI_CQ_FORMAT_TAGGED; wait object FI_WAIT_NONE,
 *        FI_WAIT_UNSPEC or FI_WAIT_FD (an fd either way)
 * @cq: the new completion queue
 * @context: the application's
 *
 * Return: 0 or a negative FI_E* code.
 */
int mrcfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		  struct fid_cq **cq, void *context)
{
	struct mrcfi_domain *dom =
		mrcfi_container_of(domain, struct mrcfi_domain, domain);
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct mrcfi_cq *c;

	switch (attr->format) {
	case FI_CQ_FORMAT_UNSPEC:
	case FI_CQ_FORMAT_CONTEXT:
	case FI_CQ_FORMAT_MSG:
	case FI_CQ_FORMAT_DATA:
	case FI_CQ_FORMAT_TAGGED:
		break;
	default:
		return -FI_ENOSYS;
	}
	switch (attr->wait_obj) {
	case FI_WAIT_NONE:
	case FI_WAIT_UNSPEC:
	case FI_WAIT_FD:
		break;
	default:
		return -FI_ENOSYS;
	}
	if (attr->flags & FI_AFFINITY)
		return -FI_ENOSYS;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -FI_ENOMEM;
	c->dom = dom;
	c->format = attr->format == FI_CQ_FORMAT_UNSPEC ?
		    FI_CQ_FORMAT_CONTEXT : attr->format;
	c->wait_obj = attr->wait_obj == FI_WAIT_NONE ? FI_WAIT_NONE :
		      FI_WAIT_FD;
	c->cap = attr->size ? attr->size : MRCFI_DEF_CQ_SIZE;
	c->ring = malloc(c->cap * sizeof(*c->ring));
	c->epfd = epoll_create1(EPOLL_CLOEXEC);
	c->sigfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!c->ring || c->epfd < 0 || c->sigfd < 0 ||
	    epoll_ctl(c->epfd, EPOLL_CTL_ADD, c->sigfd, &ev) < 0) {
		if (c->epfd >= 0)
			close(c->epfd);
		if (c->sigfd >= 0)
			close(c->sigfd);
		free(c->ring);
		free(c);
		return -FI_ENOMEM;
	}
	c->cq.fid.fclass = FI_CLASS_CQ;
	c->cq.fid.context = context;
	c->cq.fid.ops = &mrcfi_cq_fi_ops;
	c->cq.ops = &mrcfi_cq_ops;
	pthread_mutex_lock(&dom->lock);
	dom->refs++;
	pthread_mutex_unlock(&dom->lock);
	*cq = &c->cq;
	return 0;
}
