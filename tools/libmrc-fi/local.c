// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc-fi: local delivery (FI_LOCAL_COMM).  An MPI rank sends to itself
 * through the provider, and a process may open several endpoints.  A send
 * whose destination is an endpoint of the same process does not go
 * through mrc: it is copied into that endpoint's inbox, which the
 * endpoint's progress matches like a message read from /dev/mrc.
 *
 * Every endpoint of the process is on one list, mrcfi_local_eps; the list
 * and each endpoint's inbox are under mrcfi_local_lock.  Lock order: a
 * domain lock, then mrcfi_local_lock (senders and receivers of any
 * domain hold their own domain lock when they come here; nothing takes a
 * domain lock under mrcfi_local_lock).  An endpoint of another process
 * on the same node is not here (-FI_EHOSTUNREACH): the caller sends to it
 * through mrc, which reaches it if the node is its own peer.
 *
 * An inbox holds at most MRCFI_LOCAL_MAX bytes, mrc's own receive queue
 * limit; a send to a full inbox returns -FI_EAGAIN.  Each endpoint has an
 * eventfd that is readable while its inbox is not empty, watched by the
 * CQs it is bound to (fi_cq_sread wakes up for local messages too).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "mrc_fi.h"

#define MRCFI_LOCAL_MAX		MRC_DEV_RCVBUF_MAX

/* A message on its way to an endpoint of this process. */
struct mrcfi_local_msg {
	struct mrcfi_list link;
	uint32_t node;
	uint16_t port;
	struct mrcfi_hdr hdr;
	size_t len;
	char payload[];
};

static pthread_mutex_t mrcfi_local_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mrcfi_list mrcfi_local_eps = {
	&mrcfi_local_eps, &mrcfi_local_eps
};

static void mrcfi_local_assert_held(void)
{
	/* trylock of a held default mutex fails with EBUSY */
	if (pthread_mutex_trylock(&mrcfi_local_lock) == 0)
		abort();
}

/**
 * mrcfi_local_open() - make an endpoint reachable from this process
 * @ep: the endpoint, bound to its port
 *
 * Return: 0 or a negative FI_E* code.
 */
int mrcfi_local_open(struct mrcfi_ep *ep)
{
	mrcfi_list_init(&ep->inbox);
	ep->inbox_bytes = 0;
	ep->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ep->evfd < 0)
		return -errno;
	pthread_mutex_lock(&mrcfi_local_lock);
	mrcfi_list_add_tail(&ep->local_link, &mrcfi_local_eps);
	pthread_mutex_unlock(&mrcfi_local_lock);
	return 0;
}

/**
 * mrcfi_local_close() - an endpoint closes: no more local messages to it,
 * the ones not yet matched are freed
 * @ep: the endpoint
 */
void mrcfi_local_close(struct mrcfi_ep *ep)
{
	struct mrcfi_list *l;

	pthread_mutex_lock(&mrcfi_local_lock);
	mrcfi_list_del(&ep->local_link);
	while (!mrcfi_list_empty(&ep->inbox)) {
		l = ep->inbox.next;
		mrcfi_list_del(l);
		free(mrcfi_container_of(l, struct mrcfi_local_msg, link));
	}
	ep->inbox_bytes = 0;
	pthread_mutex_unlock(&mrcfi_local_lock);
	close(ep->evfd);
	ep->evfd = -1;
}

static struct mrcfi_ep *mrcfi_local_find(uint16_t port)
{
	struct mrcfi_list *l;

	mrcfi_local_assert_held();
	for (l = mrcfi_local_eps.next; l != &mrcfi_local_eps; l = l->next) {
		struct mrcfi_ep *e = mrcfi_container_of(l, struct mrcfi_ep,
							local_link);

		if (e->port == port)
			return e;
	}
	return NULL;
}

/**
 * mrcfi_local_send() - deliver a message to an endpoint of this process
 * @ep: the sending endpoint (its domain lock held)
 * @port: the destination endpoint's port (on this node)
 * @hdr: the provider header
 * @payload: the application's bytes (already gathered)
 * @len: how many
 *
 * Messages from one endpoint to another arrive in the order sent
 * (FI_ORDER_SAS), as over mrc.
 *
 * Return: 0; -FI_EHOSTUNREACH if no endpoint of this process has @port;
 * -FI_EAGAIN if its inbox is full; -FI_ENOMEM.
 */
ssize_t mrcfi_local_send(struct mrcfi_ep *ep, uint16_t port,
			 const struct mrcfi_hdr *hdr, const void *payload,
			 size_t len)
{
	struct mrcfi_local_msg *m = malloc(sizeof(*m) + len);
	struct mrcfi_ep *to;
	uint64_t one = 1;
	ssize_t ret = 0;

	if (!m)
		return -FI_ENOMEM;
	m->node = ep->node;
	m->port = ep->port;
	m->hdr = *hdr;
	m->len = len;
	memcpy(m->payload, payload, len);

	pthread_mutex_lock(&mrcfi_local_lock);
	to = mrcfi_local_find(port);
	if (!to) {
		ret = -FI_EHOSTUNREACH;
	} else if (to->inbox_bytes && to->inbox_bytes + len > MRCFI_LOCAL_MAX) {
		ret = -FI_EAGAIN;
	} else {
		if (mrcfi_list_empty(&to->inbox) &&
		    write(to->evfd, &one, sizeof(one)) < 0)
			MRCFI_WARN(FI_LOG_EP_DATA, "eventfd: %s\n",
				   strerror(errno));
		mrcfi_list_add_tail(&m->link, &to->inbox);
		to->inbox_bytes += len;
		m = NULL;
	}
	pthread_mutex_unlock(&mrcfi_local_lock);
	free(m);
	return ret;
}

/**
 * mrcfi_local_progress() - match the local messages waiting for @ep
 * @ep: the endpoint (its domain lock held)
 */
void mrcfi_local_progress(struct mrcfi_ep *ep)
{
	struct mrcfi_list got;
	uint64_t v;

	mrcfi_list_init(&got);
	pthread_mutex_lock(&mrcfi_local_lock);
	if (mrcfi_list_empty(&ep->inbox)) {
		pthread_mutex_unlock(&mrcfi_local_lock);
		return;
	}
	/* move the whole inbox over: got takes inbox's place in the ring */
	got.next = ep->inbox.next;
	got.prev = ep->inbox.prev;
	got.next->prev = &got;
	got.prev->next = &got;
	mrcfi_list_init(&ep->inbox);
	ep->inbox_bytes = 0;
	if (read(ep->evfd, &v, sizeof(v)) < 0)
		v = 0;		/* not readable: nothing to clear */
	pthread_mutex_unlock(&mrcfi_local_lock);

	while (!mrcfi_list_empty(&got)) {
		struct mrcfi_local_msg *m =
			mrcfi_container_of(got.next, struct mrcfi_local_msg,
					   link);
		void *own = m;

		mrcfi_list_del(&m->link);
		mrcfi_deliver(ep, m->node, m->port, &m->hdr, m->payload,
			      m->len, &own);
		free(own);	/* NULL if queued as unexpected */
	}
}
