// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc-fi: the domain, memory registration (a no-op: mrc copies every
 * message, so a registration only hands out a key), and an event queue
 * that never has events (RDM endpoints have no connections; fi_pingpong
 * and others open one anyway).
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_eq.h>

#include "mrc_fi.h"

/* ------------------------------------------------------------ MR */

struct mrcfi_mr {
	struct fid_mr mr;
	struct mrcfi_domain *dom;
};

static int mrcfi_mr_close(struct fid *fid)
{
	struct mrcfi_mr *m = mrcfi_container_of(fid, struct mrcfi_mr, mr.fid);

	pthread_mutex_lock(&m->dom->lock);
	m->dom->refs--;
	pthread_mutex_unlock(&m->dom->lock);
	free(m);
	return 0;
}

static struct fi_ops mrcfi_mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mrcfi_mr_close,
	.bind = mrcfi_no_bind,
	.control = mrcfi_no_control,
	.ops_open = mrcfi_no_ops_open,
};

static int mrcfi_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
			    uint64_t flags, struct fid_mr **mr)
{
	struct mrcfi_domain *dom =
		mrcfi_container_of(fid, struct mrcfi_domain, domain.fid);
	struct mrcfi_mr *m;

	(void)flags;
	if (attr->iov_count > 1)
		return -FI_EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -FI_ENOMEM;
	m->mr.fid.fclass = FI_CLASS_MR;
	m->mr.fid.context = attr->context;
	m->mr.fid.ops = &mrcfi_mr_fi_ops;
	m->mr.mem_desc = m;
	m->dom = dom;
	pthread_mutex_lock(&dom->lock);
	m->mr.key = attr->requested_key ? attr->requested_key : ++dom->mr_key;
	dom->refs++;
	pthread_mutex_unlock(&dom->lock);
	*mr = &m->mr;
	return 0;
}

static int mrcfi_mr_regv(struct fid *fid, const struct iovec *iov,
			 size_t count, uint64_t access, uint64_t offset,
			 uint64_t requested_key, uint64_t flags,
			 struct fid_mr **mr, void *context)
{
	struct fi_mr_attr attr = {
		.mr_iov = iov,
		.iov_count = count,
		.access = access,
		.offset = offset,
		.requested_key = requested_key,
		.context = context,
	};

	return mrcfi_mr_regattr(fid, &attr, flags, mr);
}

static int mrcfi_mr_reg(struct fid *fid, const void *buf, size_t len,
			uint64_t access, uint64_t offset,
			uint64_t requested_key, uint64_t flags,
			struct fid_mr **mr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return mrcfi_mr_regv(fid, &iov, 1, access, offset, requested_key,
			     flags, mr, context);
}

static struct fi_ops_mr mrcfi_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = mrcfi_mr_reg,
	.regv = mrcfi_mr_regv,
	.regattr = mrcfi_mr_regattr,
};

/* ------------------------------------------------------------ domain */

static int mrcfi_domain_close(struct fid *fid)
{
	struct mrcfi_domain *dom =
		mrcfi_container_of(fid, struct mrcfi_domain, domain.fid);

	if (dom->refs)
		return -FI_EBUSY;
	pthread_mutex_destroy(&dom->lock);
	free(dom);
	return 0;
}

static int mrcfi_no_scalable_ep(struct fid_domain *domain,
				struct fi_info *info, struct fid_ep **sep,
				void *context)
{
	(void)domain; (void)info; (void)sep; (void)context;
	return -FI_ENOSYS;
}

static int mrcfi_no_cntr(struct fid_domain *domain, struct fi_cntr_attr *attr,
			 struct fid_cntr **cntr, void *context)
{
	(void)domain; (void)attr; (void)cntr; (void)context;
	return -FI_ENOSYS;
}

static int mrcfi_no_poll(struct fid_domain *domain, struct fi_poll_attr *attr,
			 struct fid_poll **pollset)
{
	(void)domain; (void)attr; (void)pollset;
	return -FI_ENOSYS;
}

static int mrcfi_no_stx(struct fid_domain *domain, struct fi_tx_attr *attr,
			struct fid_stx **stx, void *context)
{
	(void)domain; (void)attr; (void)stx; (void)context;
	return -FI_ENOSYS;
}

static int mrcfi_no_srx(struct fid_domain *domain, struct fi_rx_attr *attr,
			struct fid_ep **rx_ep, void *context)
{
	(void)domain; (void)attr; (void)rx_ep; (void)context;
	return -FI_ENOSYS;
}

static int mrcfi_no_atomic(struct fid_domain *domain,
			   enum fi_datatype datatype, enum fi_op op,
			   struct fi_atomic_attr *attr, uint64_t flags)
{
	(void)domain; (void)datatype; (void)op; (void)attr; (void)flags;
	return -FI_ENOSYS;
}

static struct fi_ops mrcfi_domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mrcfi_domain_close,
	.bind = mrcfi_no_bind,
	.control = mrcfi_no_control,
	.ops_open = mrcfi_no_ops_open,
};

static struct fi_ops_domain mrcfi_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = mrcfi_av_open,
	.cq_open = mrcfi_cq_open,
	.endpoint = mrcfi_ep_open,
	.scalable_ep = mrcfi_no_scalable_ep,
	.cntr_open = mrcfi_no_cntr,
	.poll_open = mrcfi_no_poll,
	.stx_ctx = mrcfi_no_stx,
	.srx_ctx = mrcfi_no_srx,
	.query_atomic = mrcfi_no_atomic,
};

/**
 * mrcfi_domain_open() - the fabric's fi_domain
 * @fabric: the mrc fabric
 * @info: from fi_getinfo (domain name "mrc")
 * @domain: the new domain
 * @context: the application's
 *
 * Return: 0 or a negative FI_E* code.
 */
int mrcfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		      struct fid_domain **domain, void *context)
{
	struct mrcfi_domain *dom;

	if (info && info->domain_attr && info->domain_attr->name &&
	    strcmp(info->domain_attr->name, MRCFI_DOMAIN_NAME))
		return -FI_EINVAL;
	dom = calloc(1, sizeof(*dom));
	if (!dom)
		return -FI_ENOMEM;
	pthread_mutex_init(&dom->lock, NULL);
	dom->fab = mrcfi_container_of(fabric, struct mrcfi_fabric, fabric);
	dom->domain.fid.fclass = FI_CLASS_DOMAIN;
	dom->domain.fid.context = context;
	dom->domain.fid.ops = &mrcfi_domain_fi_ops;
	dom->domain.ops = &mrcfi_domain_ops;
	dom->domain.mr = &mrcfi_mr_ops;
	*domain = &dom->domain;
	return 0;
}

/* ------------------------------------------------------------ EQ */

static int mrcfi_eq_close(struct fid *fid)
{
	free(mrcfi_container_of(fid, struct fid_eq, fid));
	return 0;
}

static ssize_t mrcfi_eq_read(struct fid_eq *eq, uint32_t *event, void *buf,
			     size_t len, uint64_t flags)
{
	(void)eq; (void)event; (void)buf; (void)len; (void)flags;
	return -FI_EAGAIN;
}

static ssize_t mrcfi_eq_readerr(struct fid_eq *eq,
				struct fi_eq_err_entry *buf, uint64_t flags)
{
	(void)eq; (void)buf; (void)flags;
	return -FI_EAGAIN;
}

static ssize_t mrcfi_eq_write(struct fid_eq *eq, uint32_t event,
			      const void *buf, size_t len, uint64_t flags)
{
	(void)eq; (void)event; (void)buf; (void)len; (void)flags;
	return -FI_ENOSYS;
}

static ssize_t mrcfi_eq_sread(struct fid_eq *eq, uint32_t *event, void *buf,
			      size_t len, int timeout, uint64_t flags)
{
	(void)eq; (void)event; (void)buf; (void)len; (void)flags;
	if (timeout > 0)
		poll(NULL, 0, timeout);
	return -FI_EAGAIN;
}

static const char *mrcfi_eq_strerror(struct fid_eq *eq, int prov_errno,
				     const void *err_data, char *buf,
				     size_t len)
{
	(void)eq; (void)err_data;
	if (buf && len) {
		strncpy(buf, fi_strerror(prov_errno), len - 1);
		buf[len - 1] = '\0';
		return buf;
	}
	return fi_strerror(prov_errno);
}

static struct fi_ops mrcfi_eq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mrcfi_eq_close,
	.bind = mrcfi_no_bind,
	.control = mrcfi_no_control,
	.ops_open = mrcfi_no_ops_open,
};

static struct fi_ops_eq mrcfi_eq_ops = {
	.size = sizeof(struct fi_ops_eq),
	.read = mrcfi_eq_read,
	.readerr = mrcfi_eq_readerr,
	.write = mrcfi_eq_write,
	.sread = mrcfi_eq_sread,
	.strerror = mrcfi_eq_strerror,
};

/**
 * mrcfi_eq_open() - the fabric's fi_eq_open: an event queue without events
 * @fabric: the mrc fabric
 * @attr: its attributes (a wait set is refused)
 * @eq: the new event queue
 * @context: the application's
 *
 * Return: 0 or a negative FI_E* code.
 */
int mrcfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		  struct fid_eq **eq, void *context)
{
	struct fid_eq *e;

	(void)fabric;
	if (attr && attr->wait_obj == FI_WAIT_SET)
		return -FI_ENOSYS;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -FI_ENOMEM;
	e->fid.fclass = FI_CLASS_EQ;
	e->fid.context = context;
	e->fid.ops = &mrcfi_eq_fi_ops;
	e->ops = &mrcfi_eq_ops;
	*eq = e;
	return 0;
}
