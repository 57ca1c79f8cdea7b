// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc-fi: the FI_EP_RDM endpoint.  One endpoint is one /dev/mrc file,
 * bound to a port when the endpoint is created (the port of
 * info->src_addr, or an ephemeral one); its address is (node, port).
 * Progress is manual: reading a bound CQ reads every queued message from
 * the file (non-blocking) and from the endpoint's local inbox (local.c)
 * and matches it (match.c).  The fi_msg and
 * fi_tagged entry points take the domain lock and call send.c/match.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "mrc_fi.h"

#define MRCFI_RXBUF_MIN		(65536 + sizeof(struct mrc_dev_recv_hdr) + \
				 sizeof(struct mrcfi_hdr))
#define MRCFI_PROGRESS_MAX	256	/* messages read per progress call */
#define MRCFI_TAKE_MIN		65536	/* queue big unexpected messages
					 * in the read buffer itself
					 */

static struct mrcfi_ep *mrcfi_ep_of(struct fid_ep *fid)
{
	return mrcfi_container_of(fid, struct mrcfi_ep, ep);
}

/* ------------------------------------------------------------ progress */

static int mrcfi_rxbuf(struct mrcfi_ep *ep, size_t need)
{
	void *p;

	if (need < MRCFI_RXBUF_MIN)
		need = MRCFI_RXBUF_MIN;
	if (ep->rxbuf && need <= ep->rxbuf_len)
		return 0;
	p = realloc(ep->rxbuf, need);
	if (!p)
		return -FI_ENOMEM;
	ep->rxbuf = p;
	ep->rxbuf_len = need;
	return 0;
}

/**
 * mrcfi_ep_progress() - read and match what mrc has queued
 * @ep: the endpoint
 *
 * Call with the domain lock held.
 */
void mrcfi_ep_progress(struct mrcfi_ep *ep)
{
	const size_t hl = sizeof(struct mrc_dev_recv_hdr) +
			  sizeof(struct mrcfi_hdr);
	struct mrc_dev_stats st = { .size = sizeof(st) };
	struct mrc_dev_recv_hdr *rh;
	struct mrcfi_hdr h;
	size_t plen;
	ssize_t n;
	void *own;
	int i;

	if (!ep->enabled)
		return;
	mrcfi_local_progress(ep);
	for (i = 0; i < MRCFI_PROGRESS_MAX; i++) {
		if (mrcfi_rxbuf(ep, 0))
			break;
		n = read(ep->fd, ep->rxbuf, ep->rxbuf_len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EMSGSIZE)
				break;
			if (ioctl(ep->fd, MRC_IOC_STATS, &st) < 0 ||
			    mrcfi_rxbuf(ep, sizeof(*rh) + st.rx_next_len))
				break;
			continue;
		}
		rh = ep->rxbuf;
		if ((size_t)n < hl || rh->len != (size_t)n - sizeof(*rh)) {
			MRCFI_WARN(FI_LOG_EP_DATA,
				   "%zd-byte message from %u:%u dropped: no provider header\n",
				   n, rh->src_node, rh->src_port);
			continue;
		}
		memcpy(&h, rh + 1, sizeof(h));
		if (h.version != MRCFI_WIRE_VERSION ||
		    (h.op != MRCFI_OP_MSG && h.op != MRCFI_OP_TAGGED)) {
			MRCFI_WARN(FI_LOG_EP_DATA,
				   "message from %u:%u dropped: version %u op %u\n",
				   rh->src_node, rh->src_port, h.version,
				   h.op);
			continue;
		}
		plen = (size_t)n - hl;
		own = plen >= MRCFI_TAKE_MIN ? ep->rxbuf : NULL;
		mrcfi_deliver(ep, rh->src_node, rh->src_port, &h,
			      (char *)ep->rxbuf + hl, plen, own ? &own : NULL);
		if (plen >= MRCFI_TAKE_MIN && !own) {
			ep->rxbuf = NULL;	/* queued as unexpected */
			ep->rxbuf_len = 0;
		}
	}
	mrcfi_tx_progress(ep, false);
}

/* ------------------------------------------------------------ fi_ops */

static int mrcfi_ep_close(struct fid *fid)
{
	struct mrcfi_ep *ep = mrcfi_container_of(fid, struct mrcfi_ep, ep.fid);
	struct mrcfi_domain *dom = ep->dom;

	pthread_mutex_lock(&dom->lock);
	if (ep->tx_cq)
		mrcfi_cq_detach(ep->tx_cq, ep);
	if (ep->rx_cq)
		mrcfi_cq_detach(ep->rx_cq, ep);
	if (ep->av)
		ep->av->refs--;
	mrcfi_match_flush(ep);
	mrcfi_local_close(ep);
	while (!mrcfi_list_empty(&ep->tx_wait)) {
		struct mrcfi_tx *t = mrcfi_container_of(ep->tx_wait.next,
							struct mrcfi_tx, link);

		mrcfi_list_del(&t->link);
		free(t);
	}
	dom->refs--;
	pthread_mutex_unlock(&dom->lock);
	/* close() waits (bounded by mrc's peer timeout) for accepted sends */
	close(ep->fd);
	free(ep->txbuf);
	free(ep->rxbuf);
	fi_freeinfo(ep->info);
	free(ep);
	return 0;
}

static int mrcfi_ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct mrcfi_ep *ep = mrcfi_container_of(fid, struct mrcfi_ep, ep.fid);
	struct mrcfi_cq *cq;
	struct mrcfi_av *av;
	int ret = 0;

	pthread_mutex_lock(&ep->dom->lock);
	switch (bfid->fclass) {
	case FI_CLASS_AV:
		av = mrcfi_container_of(bfid, struct mrcfi_av, av.fid);
		if (ep->av) {
			ret = -FI_EALREADY;
			break;
		}
		ep->av = av;
		av->refs++;
		break;
	case FI_CLASS_CQ:
		cq = mrcfi_container_of(bfid, struct mrcfi_cq, cq.fid);
		if (!(flags & (FI_TRANSMIT | FI_RECV))) {
			ret = -FI_EBADFLAGS;
			break;
		}
		if (((flags & FI_TRANSMIT) && ep->tx_cq) ||
		    ((flags & FI_RECV) && ep->rx_cq)) {
			ret = -FI_EALREADY;
			break;
		}
		ret = mrcfi_cq_attach(cq, ep);
		if (ret)
			break;
		if (flags & FI_TRANSMIT) {
			ep->tx_cq = cq;
			ep->tx_selective = flags & FI_SELECTIVE_COMPLETION;
		}
		if (flags & FI_RECV) {
			ep->rx_cq = cq;
			ep->rx_selective = flags & FI_SELECTIVE_COMPLETION;
		}
		break;
	case FI_CLASS_EQ:
		break;		/* no connection events on RDM */
	default:
		ret = -FI_ENOSYS;	/* counters, ... */
		break;
	}
	pthread_mutex_unlock(&ep->dom->lock);
	return ret;
}

static int mrcfi_ep_control(struct fid *fid, int command, void *arg)
{
	struct mrcfi_ep *ep = mrcfi_container_of(fid, struct mrcfi_ep, ep.fid);
	uint64_t *f = arg;
	int ret = 0;

	pthread_mutex_lock(&ep->dom->lock);
	switch (command) {
	case FI_ENABLE:
		if (!ep->av)
			ret = -FI_ENOAV;
		else if (!ep->tx_cq && !ep->rx_cq)
			ret = -FI_ENOCQ;
		else
			ep->enabled = true;
		break;
	case FI_GETOPSFLAG:
		if ((*f & FI_TRANSMIT) && (*f & FI_RECV))
			ret = -FI_EINVAL;
		else if (*f & FI_TRANSMIT)
			*f = ep->tx_op_flags;
		else if (*f & FI_RECV)
			*f = ep->rx_op_flags;
		else
			ret = -FI_EINVAL;
		break;
	case FI_SETOPSFLAG:
		if (*f & FI_TRANSMIT)
			ep->tx_op_flags = *f & ~FI_TRANSMIT;
		else if (*f & FI_RECV)
			ep->rx_op_flags = *f & ~FI_RECV;
		else
			ret = -FI_EINVAL;
		break;
	default:
		ret = -FI_ENOSYS;
		break;
	}
	pthread_mutex_unlock(&ep->dom->lock);
	return ret;
}

static struct fi_ops mrcfi_ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mrcfi_ep_close,
	.bind = mrcfi_ep_bind,
	.control = mrcfi_ep_control,
	.ops_open = mrcfi_no_ops_open,
};

/* ------------------------------------------------------------ fi_ops_ep */

static ssize_t mrcfi_ep_cancel(fid_t fid, void *context)
{
	struct mrcfi_ep *ep = mrcfi_container_of(fid, struct mrcfi_ep, ep.fid);
	ssize_t ret;

	pthread_mutex_lock(&ep->dom->lock);
	ret = mrcfi_cancel(ep, context);
	pthread_mutex_unlock(&ep->dom->lock);
	return ret;
}

static int mrcfi_ep_getopt(fid_t fid, int level, int optname, void *optval,
			   size_t *optlen)
{
	(void)fid; (void)level; (void)optname; (void)optval; (void)optlen;
	return -FI_ENOPROTOOPT;
}

static int mrcfi_ep_setopt(fid_t fid, int level, int optname,
			   const void *optval, size_t optlen)
{
	(void)fid; (void)level; (void)optname; (void)optval; (void)optlen;
	return -FI_ENOPROTOOPT;
}

static int mrcfi_no_ctx(struct fid_ep *sep, int index, void *attr,
			struct fid_ep **ep, void *context)
{
	(void)sep; (void)index; (void)attr; (void)ep; (void)context;
	return -FI_ENOSYS;
}

static int mrcfi_no_tx_ctx(struct fid_ep *sep, int index,
			   struct fi_tx_attr *attr, struct fid_ep **ep,
			   void *context)
{
	return mrcfi_no_ctx(sep, index, attr, ep, context);
}

static int mrcfi_no_rx_ctx(struct fid_ep *sep, int index,
			   struct fi_rx_attr *attr, struct fid_ep **ep,
			   void *context)
{
	return mrcfi_no_ctx(sep, index, attr, ep, context);
}

static ssize_t mrcfi_rx_size_left(struct fid_ep *fid)
{
	(void)fid;
	return MRCFI_RX_SIZE;
}

static ssize_t mrcfi_tx_size_left(struct fid_ep *fid)
{
	(void)fid;
	return MRCFI_TX_SIZE;
}

static struct fi_ops_ep mrcfi_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = mrcfi_ep_cancel,
	.getopt = mrcfi_ep_getopt,
	.setopt = mrcfi_ep_setopt,
	.tx_ctx = mrcfi_no_tx_ctx,
	.rx_ctx = mrcfi_no_rx_ctx,
	.rx_size_left = mrcfi_rx_size_left,
	.tx_size_left = mrcfi_tx_size_left,
};

/* ------------------------------------------------------------ fi_ops_cm */

static int mrcfi_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct mrcfi_ep *ep = mrcfi_container_of(fid, struct mrcfi_ep, ep.fid);
	struct mrcfi_addr a = { .node = ep->node, .port = ep->port };
	size_t len = *addrlen;

	*addrlen = sizeof(a);
	if (len < sizeof(a))
		return -FI_ETOOSMALL;
	memcpy(addr, &a, sizeof(a));
	return 0;
}

static int mrcfi_setname(fid_t fid, void *addr, size_t addrlen)
{
	(void)fid; (void)addr; (void)addrlen;
	return -FI_ENOSYS;	/* the port is bound at fi_endpoint */
}

static int mrcfi_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	(void)ep; (void)addr; (void)addrlen;
	return -FI_ENOSYS;
}

static int mrcfi_connect(struct fid_ep *ep, const void *addr,
			 const void *param, size_t paramlen)
{
	(void)ep; (void)addr; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

static int mrcfi_listen(struct fid_pep *pep)
{
	(void)pep;
	return -FI_ENOSYS;
}

static int mrcfi_accept(struct fid_ep *ep, const void *param,
			size_t paramlen)
{
	(void)ep; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

static int mrcfi_reject(struct fid_pep *pep, fid_t handle, const void *param,
			size_t paramlen)
{
	(void)pep; (void)handle; (void)param; (void)paramlen;
	return -FI_ENOSYS;
}

static int mrcfi_shutdown(struct fid_ep *ep, uint64_t flags)
{
	(void)ep; (void)flags;
	return -FI_ENOSYS;
}

static int mrcfi_join(struct fid_ep *ep, const void *addr, uint64_t flags,
		      struct fid_mc **mc, void *context)
{
	(void)ep; (void)addr; (void)flags; (void)mc; (void)context;
	return -FI_ENOSYS;
}

static struct fi_ops_cm mrcfi_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = mrcfi_setname,
	.getname = mrcfi_getname,
	.getpeer = mrcfi_getpeer,
	.connect = mrcfi_connect,
	.listen = mrcfi_listen,
	.accept = mrcfi_accept,
	.reject = mrcfi_reject,
	.shutdown = mrcfi_shutdown,
	.join = mrcfi_join,
};

/* ------------------------------------------------------------ open */

/* libfabric's traffic class onto mrc's (Documentation/mrc/sched.rst). */
static int mrcfi_class(uint32_t tclass)
{
	switch (tclass) {
	case FI_TC_LOW_LATENCY:
	case FI_TC_DEDICATED_ACCESS:
	case FI_TC_NETWORK_CTRL:
		return MRC_CLASS_LATENCY;
	case FI_TC_BULK_DATA:
		return MRC_CLASS_BULK;
	case FI_TC_SCAVENGER:
		return MRC_CLASS_BACKGROUND;
	default:
		return MRC_CLASS_DEFAULT;
	}
}

static int mrcfi_setopt(int fd, uint32_t opt, uint64_t value)
{
	struct mrc_dev_opt o = { .size = sizeof(o), .opt = opt,
				 .value = value };

	return ioctl(fd, MRC_IOC_SETOPT, &o) < 0 ? -errno : 0;
}

static int mrcfi_ep_setup(struct mrcfi_ep *ep, const struct fi_info *info)
{
	struct mrc_dev_opt o = { .size = sizeof(o), .opt = MRC_OPT_NODE };
	struct mrc_dev_bind b = { .size = sizeof(b) };
	const struct mrcfi_addr *src = info->src_addr;

	ep->fd = open(MRCFI_DEV, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (ep->fd < 0)
		return errno == ENOENT ? -FI_ENODEV : -errno;
	/*
	 * The largest receive queue mrc allows: messages wait there until
	 * the application progresses the endpoint, and mrc drops what does
	 * not fit.  As many sends in flight as mrc allows.
	 */
	if (mrcfi_setopt(ep->fd, MRC_OPT_RCVBUF, MRC_DEV_RCVBUF_MAX) ||
	    mrcfi_setopt(ep->fd, MRC_OPT_SNDWIN, MRC_DEV_SNDWIN_MAX))
		MRCFI_WARN(FI_LOG_EP_CTRL, "cannot size the endpoint: %s\n",
			   strerror(errno));
	if (info->tx_attr && info->tx_attr->tclass &&
	    mrcfi_setopt(ep->fd, MRC_OPT_CLASS,
			 mrcfi_class(info->tx_attr->tclass)))
		return -FI_EINVAL;
	if (src && info->src_addrlen == sizeof(*src))
		b.port = src->port;
	if (ioctl(ep->fd, MRC_IOC_BIND, &b) < 0)
		return -errno;
	ep->port = b.port;
	if (ioctl(ep->fd, MRC_IOC_GETOPT, &o) < 0)
		return -errno;
	ep->node = (uint32_t)o.value;
	return 0;
}

/**
 * mrcfi_ep_open() - the domain's fi_endpoint: an RDM endpoint on a new
 * /dev/mrc port
 * @domain: the mrc domain
 * @info: from fi_getinfo; src_addr's port, if any, is the port to bind
 * @ep: the new endpoint
 * @context: the application's
 *
 * Return: 0 or a negative FI_E* code (-FI_EADDRINUSE: port taken,
 * -FI_EACCES: port below 1024 without CAP_NET_BIND_SERVICE or no
 * permission on /dev/mrc).
 */
int mrcfi_ep_open(struct fid_domain *domain, struct fi_info *info,
		  struct fid_ep **ep, void *context)
{
	struct mrcfi_domain *dom =
		mrcfi_container_of(domain, struct mrcfi_domain, domain);
	struct mrcfi_ep *e;
	int ret;

	if (!info || !info->ep_attr || info->ep_attr->type != FI_EP_RDM)
		return -FI_EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -FI_ENOMEM;
	e->fd = -1;
	e->info = fi_dupinfo(info);
	if (!e->info) {
		free(e);
		return -FI_ENOMEM;
	}
	ret = mrcfi_ep_setup(e, info);
	if (!ret)
		ret = mrcfi_local_open(e);
	if (ret) {
		if (e->fd >= 0)
			close(e->fd);
		fi_freeinfo(e->info);
		free(e);
		return ret;
	}
	e->dom = dom;
	e->caps = info->caps ? info->caps : (FI_MSG | FI_TAGGED | FI_SOURCE |
					     FI_DIRECTED_RECV);
	if (info->tx_attr)
		e->tx_op_flags = info->tx_attr->op_flags;
	if (info->rx_attr)
		e->rx_op_flags = info->rx_attr->op_flags;
	mrcfi_list_init(&e->posted_msg);
	mrcfi_list_init(&e->posted_tag);
	mrcfi_list_init(&e->unexp_msg);
	mrcfi_list_init(&e->unexp_tag);
	mrcfi_list_init(&e->tx_wait);
	e->ep.fid.fclass = FI_CLASS_EP;
	e->ep.fid.context = context;
	e->ep.fid.ops = &mrcfi_ep_fi_ops;
	e->ep.ops = &mrcfi_ep_ops;
	e->ep.cm = &mrcfi_cm_ops;
	e->ep.msg = &mrcfi_msg_ops;
	e->ep.tagged = &mrcfi_tagged_ops;
	pthread_mutex_lock(&dom->lock);
	dom->refs++;
	pthread_mutex_unlock(&dom->lock);
	*ep = &e->ep;
	return 0;
}

/* ------------------------------------------------------------ fi_msg */

#define MRCFI_LOCKED(ep, call)					\
	({							\
		ssize_t __r;					\
		pthread_mutex_lock(&(ep)->dom->lock);		\
		__r = (call);					\
		pthread_mutex_unlock(&(ep)->dom->lock);		\
		__r;						\
	})

/*
 * The send entry points of fi_msg and fi_tagged share one path: @op
 * tells the two families apart, @own adds the endpoint's tx_op_flags
 * (the calls without a flags argument) to @flags.
 */
static ssize_t mrcfi_post_iov(struct fid_ep *fid, const struct iovec *iov,
			      size_t count, fi_addr_t dest, uint8_t op,
			      uint64_t tag, uint64_t data, void *context,
			      uint64_t flags, bool own)
{
	struct mrcfi_ep *ep = mrcfi_ep_of(fid);

	if (own)
		flags |= ep->tx_op_flags;
	return MRCFI_LOCKED(ep, mrcfi_send_common(ep, iov, count, dest, op,
			    tag, data, context, flags));
}

static ssize_t mrcfi_post_buf(struct fid_ep *fid, const void *buf,
			      size_t len, fi_addr_t dest, uint8_t op,
			      uint64_t tag, uint64_t data, void *context,
			      uint64_t flags, bool own)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return mrcfi_post_iov(fid, &iov, 1, dest, op, tag, data, context,
			      flags, own);
}

static ssize_t mrcfi_recv(struct fid_ep *fid, void *buf, size_t len,
			  void *desc, fi_addr_t src, void *context)
{
	struct mrcfi_ep *ep = mrcfi_ep_of(fid);
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	(void)desc;
	return MRCFI_LOCKED(ep, mrcfi_recv_common(ep, &iov, 1, src,
			    MRCFI_OP_MSG, 0, 0, context, ep->rx_op_flags));
}

static ssize_t mrcfi_recvv(struct fid_ep *fid, const struct iovec *iov,
			   void **desc, size_t count, fi_addr_t src,
			   void *context)
{
	struct mrcfi_ep *ep = mrcfi_ep_of(fid);

	(void)desc;
	return MRCFI_LOCKED(ep, mrcfi_recv_common(ep, iov, count, src,
			    MRCFI_OP_MSG, 0, 0, context, ep->rx_op_flags));
}

static ssize_t mrcfi_recvmsg(struct fid_ep *fid, const struct fi_msg *msg,
			     uint64_t flags)
{
	struct mrcfi_ep *ep = mrcfi_ep_of(fid);

	return MRCFI_LOCKED(ep, mrcfi_recv_common(ep, msg->msg_iov,
			    msg->iov_count, msg->addr, MRCFI_OP_MSG, 0, 0,
			    msg->context, flags));
}

static ssize_t mrcfi_send(struct fid_ep *fid, const void *buf, size_t len,
			  void *desc, fi_addr_t dest, void *context)
{
	(void)desc;
	return mrcfi_post_buf(fid, buf, len, dest, MRCFI_OP_MSG, 0, 0, context,
			      0, true);
}

static ssize_t mrcfi_sendv(struct fid_ep *fid, const struct iovec *iov,
			   void **desc, size_t count, fi_addr_t dest,
			   void *context)
{
	(void)desc;
	return mrcfi_post_iov(fid, iov, count, dest, MRCFI_OP_MSG, 0, 0,
			      context, 0, true);
}

static ssize_t mrcfi_sendmsg(struct fid_ep *fid, const struct fi_msg *msg,
			     uint64_t flags)
{
	return mrcfi_post_iov(fid, msg->msg_iov, msg->iov_count, msg->addr,
			      MRCFI_OP_MSG, 0, msg->data, msg->context, flags,
			      false);
}

static ssize_t mrcfi_senddata(struct fid_ep *fid, const void *buf, size_t len,
			      void *desc, uint64_t data, fi_addr_t dest,
			      void *context)
{
	(void)desc;
	return mrcfi_post_buf(fid, buf, len, dest, MRCFI_OP_MSG, 0, data,
			      context, FI_REMOTE_CQ_DATA, true);
}

static ssize_t mrcfi_inject(struct fid_ep *fid, const void *buf, size_t len,
			    fi_addr_t dest)
{
	return mrcfi_post_buf(fid, buf, len, dest, MRCFI_OP_MSG, 0, 0, NULL,
			      FI_INJECT, false);
}

static ssize_t mrcfi_injectdata(struct fid_ep *fid, const void *buf,
				size_t len, uint64_t data, fi_addr_t dest)
{
	return mrcfi_post_buf(fid, buf, len, dest, MRCFI_OP_MSG, 0, data, NULL,
			      FI_INJECT | FI_REMOTE_CQ_DATA, false);
}

struct fi_ops_msg mrcfi_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = mrcfi_recv,
	.recvv = mrcfi_recvv,
	.recvmsg = mrcfi_recvmsg,
	.send = mrcfi_send,
	.sendv = mrcfi_sendv,
	.sendmsg = mrcfi_sendmsg,
	.inject = mrcfi_inject,
	.senddata = mrcfi_senddata,
	.injectdata = mrcfi_injectdata,
};

/* ------------------------------------------------------------ fi_tagged */

static ssize_t mrcfi_trecv(struct fid_ep *fid, void *buf, size_t len,
			   void *desc, fi_addr_t src, uint64_t tag,
			   uint64_t ignore, void *context)
{
	struct mrcfi_ep *ep = mrcfi_ep_of(fid);
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	(void)desc;
	return MRCFI_LOCKED(ep, mrcfi_recv_common(ep, &iov, 1, src,
			    MRCFI_OP_TAGGED, tag, ignore, context,
			    ep->rx_op_flags));
}

static ssize_t mrcfi_trecvv(struct fid_ep *fid, const struct iovec *iov,
			    void **desc, size_t count, fi_addr_t src,
			    uint64_t tag, uint64_t ignore, void *context)
{
	struct mrcfi_ep *ep = mrcfi_ep_of(fid);

	(void)desc;
	return MRCFI_LOCKED(ep, mrcfi_recv_common(ep, iov, count, src,
			    MRCFI_OP_TAGGED, tag, ignore, context,
			    ep->rx_op_flags));
}

static ssize_t mrcfi_trecvmsg(struct fid_ep *fid,
			      const struct fi_msg_tagged *msg, uint64_t flags)
{
	struct mrcfi_ep *ep = mrcfi_ep_of(fid);

	return MRCFI_LOCKED(ep, mrcfi_recv_common(ep, msg->msg_iov,
			    msg->iov_count, msg->addr, MRCFI_OP_TAGGED,
			    msg->tag, msg->ignore, msg->context, flags));
}

static ssize_t mrcfi_tsend(struct fid_ep *fid, const void *buf, size_t len,
			   void *desc, fi_addr_t dest, uint64_t tag,
			   void *context)
{
	(void)desc;
	return mrcfi_post_buf(fid, buf, len, dest, MRCFI_OP_TAGGED, tag, 0,
			      context, 0, true);
}

static ssize_t mrcfi_tsendv(struct fid_ep *fid, const struct iovec *iov,
			    void **desc, size_t count, fi_addr_t dest,
			    uint64_t tag, void *context)
{
	(void)desc;
	return mrcfi_post_iov(fid, iov, count, dest, MRCFI_OP_TAGGED, tag, 0,
			      context, 0, true);
}

static ssize_t mrcfi_tsendmsg(struct fid_ep *fid,
			      const struct fi_msg_tagged *msg, uint64_t flags)
{
	return mrcfi_post_iov(fid, msg->msg_iov, msg->iov_count, msg->addr,
			      MRCFI_OP_TAGGED, msg->tag, msg->data,
			      msg->context, flags, false);
}

static ssize_t mrcfi_tsenddata(struct fid_ep *fid, const void *buf,
			       size_t len, void *desc, uint64_t data,
			       fi_addr_t dest, uint64_t tag, void *context)
{
	(void)desc;
	return mrcfi_post_buf(fid, buf, len, dest, MRCFI_OP_TAGGED, tag, data,
			      context, FI_REMOTE_CQ_DATA, true);
}

static ssize_t mrcfi_tinject(struct fid_ep *fid, const void *buf, size_t len,
			     fi_addr_t dest, uint64_t tag)
{
	return mrcfi_post_buf(fid, buf, len, dest, MRCFI_OP_TAGGED, tag, 0,
			      NULL, FI_INJECT, false);
}

static ssize_t mrcfi_tinjectdata(struct fid_ep *fid, const void *buf,
				 size_t len, uint64_t data, fi_addr_t dest,
				 uint64_t tag)
{
	return mrcfi_post_buf(fid, buf, len, dest, MRCFI_OP_TAGGED, tag, data,
			      NULL, FI_INJECT | FI_REMOTE_CQ_DATA, false);
}

struct fi_ops_tagged mrcfi_tagged_ops = {
	.size = sizeof(struct fi_ops_tagged),
	.recv = mrcfi_trecv,
	.recvv = mrcfi_trecvv,
	.recvmsg = mrcfi_trecvmsg,
	.send = mrcfi_tsend,
	.sendv = mrcfi_tsendv,
	.sendmsg = mrcfi_tsendmsg,
	.inject = mrcfi_tinject,
	.senddata = mrcfi_tsenddata,
	.injectdata = mrcfi_tinjectdata,
};
