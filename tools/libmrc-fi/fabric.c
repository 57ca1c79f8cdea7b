// SPDX-License-Identifier: GPL-2.0
/*
 * libmrc-fi: the provider's entry point (fi_prov_ini), fi_getinfo and the
 * fabric object, plus small helpers shared by the other files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mrc_fi.h"

#define MRCFI_TX_CAPS	(FI_MSG | FI_TAGGED | FI_SEND)
#define MRCFI_RX_CAPS	(FI_MSG | FI_TAGGED | FI_RECV | FI_SOURCE | \
			 FI_DIRECTED_RECV)
/* FI_LOCAL_COMM: endpoints of this process (local.c), of others on the node
 * through mrc when the node is its own peer */
#define MRCFI_DOM_CAPS	(FI_LOCAL_COMM | FI_REMOTE_COMM)
#define MRCFI_CAPS	(MRCFI_TX_CAPS | MRCFI_RX_CAPS | MRCFI_DOM_CAPS)
#define MRCFI_ORDER	FI_ORDER_SAS
/*
 * mem_tag_format: 64 tag bits, any layout (the value libfabric's own
 * providers give, FI_TAG_GENERIC of its util code, not exported).  Open
 * MPI counts the leading zero bits of it as bits it must not use.
 */
#define MRCFI_TAG_FORMAT 0xaaaaaaaaaaaaaaaaULL
/* completion flags a send may have by default (send.c) */
#define MRCFI_TX_OP_FLAGS (FI_COMPLETION | FI_INJECT_COMPLETE | \
			   FI_TRANSMIT_COMPLETE | FI_DELIVERY_COMPLETE)

static void mrcfi_cleanup(void)
{
}

bool mrcfi_yield = true;

struct fi_provider mrcfi_prov = {
	.name = MRCFI_PROV_NAME,
	.version = MRCFI_VERSION,
	.fi_version = MRCFI_API_VERSION,
	.getinfo = mrcfi_getinfo,
	.fabric = mrcfi_fabric_open,
	.cleanup = mrcfi_cleanup,
};

/**
 * fi_prov_ini() - entry point libfabric calls after dlopen()ing the provider
 *
 * Return: the provider's description.
 */
FI_EXT_INI
{
	int v;

	fi_param_define(&mrcfi_prov, "yield", FI_PARAM_BOOL,
			"Yield the CPU when a CQ read finds nothing (default: yes), so that mrc's own work runs on a busy CPU");
	if (!fi_param_get_bool(&mrcfi_prov, "yield", &v))
		mrcfi_yield = v;
	return &mrcfi_prov;
}

/* ------------------------------------------------------------ helpers */

/**
 * mrcfi_iov_len() - total length of an iovec array
 * @iov: the array
 * @count: its entries
 *
 * Return: the sum of the entries' lengths.
 */
size_t mrcfi_iov_len(const struct iovec *iov, size_t count)
{
	size_t i, len = 0;

	for (i = 0; i < count; i++)
		len += iov[i].iov_len;
	return len;
}

/**
 * mrcfi_copy_to_iov() - scatter a buffer into an iovec array
 * @iov: destination
 * @count: its entries
 * @src: source bytes
 * @len: how many
 *
 * Return: bytes copied (at most the iovec's total length).
 */
size_t mrcfi_copy_to_iov(const struct iovec *iov, size_t count,
			 const void *src, size_t len)
{
	const char *p = src;
	size_t i, n, done = 0;

	for (i = 0; i < count && done < len; i++) {
		n = iov[i].iov_len;
		if (n > len - done)
			n = len - done;
		memcpy(iov[i].iov_base, p + done, n);
		done += n;
	}
	return done;
}

/**
 * mrcfi_errno() - a /dev/mrc errno as a libfabric error code
 * @err: positive errno
 *
 * libfabric's FI_E* values are the Linux errno values, so this only
 * gives the ones libfabric names differently their libfabric meaning.
 *
 * Return: a positive FI_E* value.
 */
int mrcfi_errno(int err)
{
	switch (err) {
	case EWOULDBLOCK:
		return FI_EAGAIN;
	case ENOBUFS:
		return FI_EAGAIN;	/* mrc's per-peer queue: retry later */
	default:
		return err;
	}
}

/**
 * mrcfi_no_bind() - fi_ops.bind of objects that bind to nothing
 * @fid: the object
 * @bfid: what to bind
 * @flags: bind flags
 *
 * Return: -FI_ENOSYS.
 */
int mrcfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	(void)fid; (void)bfid; (void)flags;
	return -FI_ENOSYS;
}

/**
 * mrcfi_no_control() - fi_ops.control of objects without controls
 * @fid: the object
 * @command: FI_GETWAIT, ...
 * @arg: its argument
 *
 * Return: -FI_ENOSYS.
 */
int mrcfi_no_control(struct fid *fid, int command, void *arg)
{
	(void)fid; (void)command; (void)arg;
	return -FI_ENOSYS;
}

/**
 * mrcfi_no_ops_open() - fi_open_ops: the provider has no extensions
 * @fid: the object
 * @name: extension name
 * @flags: flags
 * @ops: where the extension's ops would go
 * @context: the application's
 *
 * Return: -FI_ENOSYS.
 */
int mrcfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		      void **ops, void *context)
{
	(void)fid; (void)name; (void)flags; (void)ops; (void)context;
	return -FI_ENOSYS;
}

/* ------------------------------------------------------------ getinfo */

/* This node's id, from a throw-away /dev/mrc endpoint; 0 on failure. */
static uint32_t mrcfi_local_node(void)
{
	struct mrc_dev_opt o = { .size = sizeof(o), .opt = MRC_OPT_NODE };
	int fd;

	fd = open(MRCFI_DEV, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (ioctl(fd, MRC_IOC_GETOPT, &o) < 0)
		o.value = 0;
	close(fd);
	return (uint32_t)o.value;
}

static int mrcfi_parse_u(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!s || !*s)
		return -FI_EINVAL;
	errno = 0;
	*v = strtoul(s, &end, 0);
	if (errno || *end || *v > max)
		return -FI_EINVAL;
	return 0;
}

static void *mrcfi_addr_dup(uint32_t node, uint16_t port)
{
	struct mrcfi_addr *a = calloc(1, sizeof(*a));

	if (a) {
		a->node = node;
		a->port = port;
	}
	return a;
}

/* Do the hints ask for something this provider does not have? */
static int mrcfi_check_hints(const struct fi_info *h)
{
	uint64_t caps = h->caps;

	if (caps & ~MRCFI_CAPS)
		return -FI_ENODATA;
	if (h->mode && !(h->mode & FI_CONTEXT))
		return -FI_ENODATA;
	if (h->addr_format != FI_FORMAT_UNSPEC)
		return -FI_ENODATA;
	if (h->ep_attr) {
		if (h->ep_attr->type != FI_EP_UNSPEC &&
		    h->ep_attr->type != FI_EP_RDM)
			return -FI_ENODATA;
		if (h->ep_attr->protocol != FI_PROTO_UNSPEC)
			return -FI_ENODATA;
		if (h->ep_attr->max_msg_size > MRCFI_MAX_MSG)
			return -FI_ENODATA;
		if (h->ep_attr->tx_ctx_cnt > 1 || h->ep_attr->rx_ctx_cnt > 1)
			return -FI_ENODATA;
	}
	if (h->fabric_attr && h->fabric_attr->name &&
	    strcmp(h->fabric_attr->name, MRCFI_FABRIC_NAME))
		return -FI_ENODATA;
	if (h->domain_attr) {
		const struct fi_domain_attr *d = h->domain_attr;

		if (d->name && strcmp(d->name, MRCFI_DOMAIN_NAME))
			return -FI_ENODATA;
		if (d->av_type != FI_AV_UNSPEC && d->av_type != FI_AV_MAP &&
		    d->av_type != FI_AV_TABLE)
			return -FI_ENODATA;
		if (d->control_progress == FI_PROGRESS_AUTO ||
		    d->data_progress == FI_PROGRESS_AUTO)
			return -FI_ENODATA;
		if (d->cq_data_size > MRCFI_CQ_DATA_SIZE)
			return -FI_ENODATA;
		if (d->caps & ~MRCFI_DOM_CAPS)
			return -FI_ENODATA;
	}
	if (h->tx_attr) {
		if (h->tx_attr->caps & ~MRCFI_TX_CAPS)
			return -FI_ENODATA;
		if (h->tx_attr->msg_order & ~MRCFI_ORDER)
			return -FI_ENODATA;
		if (h->tx_attr->inject_size > MRCFI_INJECT_SIZE)
			return -FI_ENODATA;
		if (h->tx_attr->iov_limit > MRCFI_IOV_LIMIT)
			return -FI_ENODATA;
	}
	if (h->rx_attr) {
		if (h->rx_attr->caps & ~MRCFI_RX_CAPS)
			return -FI_ENODATA;
		if (h->rx_attr->msg_order & ~MRCFI_ORDER)
			return -FI_ENODATA;
		if (h->rx_attr->iov_limit > MRCFI_IOV_LIMIT)
			return -FI_ENODATA;
	}
	return 0;
}

static struct fi_info *mrcfi_info_alloc(const struct fi_info *h)
{
	struct fi_info *fi = fi_allocinfo();
	uint64_t caps = MRCFI_CAPS;

	if (!fi)
		return NULL;
	if (h && h->caps) {
		caps = h->caps | MRCFI_DOM_CAPS;
		/* FI_MSG or FI_TAGGED alone mean both directions */
		if (!(caps & (FI_SEND | FI_RECV)))
			caps |= FI_SEND | FI_RECV;
	}
	fi->caps = caps;
	fi->mode = FI_CONTEXT;
	fi->addr_format = FI_FORMAT_UNSPEC;

	fi->tx_attr->caps = caps & MRCFI_TX_CAPS;
	fi->tx_attr->mode = FI_CONTEXT;
	fi->tx_attr->op_flags = FI_INJECT_COMPLETE;
	fi->tx_attr->msg_order = MRCFI_ORDER;
	fi->tx_attr->comp_order = FI_ORDER_NONE;
	fi->tx_attr->inject_size = MRCFI_INJECT_SIZE;
	fi->tx_attr->size = MRCFI_TX_SIZE;
	fi->tx_attr->iov_limit = MRCFI_IOV_LIMIT;
	fi->tx_attr->rma_iov_limit = 0;
	if (h && h->tx_attr) {
		fi->tx_attr->tclass = h->tx_attr->tclass;
		/*
		 * The default flags of the endpoint's operations are the
		 * ones the application asked for (Open MPI: FI_COMPLETION,
		 * which its FI_SELECTIVE_COMPLETION binding needs).
		 */
		fi->tx_attr->op_flags |= h->tx_attr->op_flags &
					 MRCFI_TX_OP_FLAGS;
	}

	fi->rx_attr->caps = caps & MRCFI_RX_CAPS;
	fi->rx_attr->mode = FI_CONTEXT;
	if (h && h->rx_attr)
		fi->rx_attr->op_flags = h->rx_attr->op_flags & FI_COMPLETION;
	fi->rx_attr->msg_order = MRCFI_ORDER;
	fi->rx_attr->comp_order = FI_ORDER_NONE;
	fi->rx_attr->total_buffered_recv = 0;
	fi->rx_attr->size = MRCFI_RX_SIZE;
	fi->rx_attr->iov_limit = MRCFI_IOV_LIMIT;

	fi->ep_attr->type = FI_EP_RDM;
	fi->ep_attr->protocol = FI_PROTO_UNSPEC;
	fi->ep_attr->protocol_version = MRCFI_WIRE_VERSION;
	fi->ep_attr->max_msg_size = MRCFI_MAX_MSG;
	/* every tag bit is matched: no bit is the provider's */
	fi->ep_attr->mem_tag_format = MRCFI_TAG_FORMAT;
	fi->ep_attr->msg_prefix_size = 0;
	fi->ep_attr->tx_ctx_cnt = 1;
	fi->ep_attr->rx_ctx_cnt = 1;

	fi->domain_attr->name = strdup(MRCFI_DOMAIN_NAME);
	fi->domain_attr->caps = MRCFI_DOM_CAPS;
	fi->domain_attr->threading = FI_THREAD_SAFE;
	fi->domain_attr->control_progress = FI_PROGRESS_MANUAL;
	fi->domain_attr->data_progress = FI_PROGRESS_MANUAL;
	fi->domain_attr->resource_mgmt = FI_RM_ENABLED;
	fi->domain_attr->av_type = FI_AV_UNSPEC;
	fi->domain_attr->mr_mode = 0;
	fi->domain_attr->mr_key_size = sizeof(uint64_t);
	fi->domain_attr->cq_data_size = MRCFI_CQ_DATA_SIZE;
	fi->domain_attr->cq_cnt = 1024;
	fi->domain_attr->ep_cnt = 1024;
	fi->domain_attr->tx_ctx_cnt = 1024;
	fi->domain_attr->rx_ctx_cnt = 1024;
	fi->domain_attr->max_ep_tx_ctx = 1;
	fi->domain_attr->max_ep_rx_ctx = 1;
	fi->domain_attr->mr_iov_limit = 1;
	fi->domain_attr->mr_cnt = 65536;
	if (h && h->domain_attr) {
		const struct fi_domain_attr *d = h->domain_attr;

		if (d->av_type != FI_AV_UNSPEC)
			fi->domain_attr->av_type = d->av_type;
		if (d->threading != FI_THREAD_UNSPEC)
			fi->domain_attr->threading = d->threading;
		if (d->resource_mgmt != FI_RM_UNSPEC)
			fi->domain_attr->resource_mgmt = d->resource_mgmt;
	}

	fi->fabric_attr->name = strdup(MRCFI_FABRIC_NAME);
	fi->fabric_attr->prov_version = MRCFI_VERSION;
	if (!fi->domain_attr->name || !fi->fabric_attr->name) {
		fi_freeinfo(fi);
		return NULL;
	}
	return fi;
}

/**
 * mrcfi_getinfo() - the provider's fi_getinfo
 * @version: API version the application asked for
 * @node: with FI_SOURCE in @flags the local, else the destination node
 *        id (decimal), or NULL
 * @service: the matching port, or NULL
 * @flags: FI_SOURCE, ...
 * @hints: the application's requirements, or NULL
 * @info: the answer (one fi_info)
 *
 * Return: 0, or -FI_ENODATA if /dev/mrc is missing or the hints ask for
 * more than the provider has.
 */
int mrcfi_getinfo(uint32_t version, const char *node, const char *service,
		  uint64_t flags, const struct fi_info *hints,
		  struct fi_info **info)
{
	unsigned long n = 0, p = 0;
	struct fi_info *fi;
	uint32_t self;
	struct stat st;
	int ret;

	(void)version;
	*info = NULL;
	if (stat(MRCFI_DEV, &st) < 0) {
		FI_INFO(&mrcfi_prov, FI_LOG_CORE, "%s: %s\n", MRCFI_DEV,
			strerror(errno));
		return -FI_ENODATA;
	}
	if (hints) {
		ret = mrcfi_check_hints(hints);
		if (ret)
			return ret;
	}
	if (node && mrcfi_parse_u(node, 0x7fffffff, &n))
		return -FI_ENODATA;
	if (service && mrcfi_parse_u(service, 65535, &p))
		return -FI_ENODATA;

	fi = mrcfi_info_alloc(hints);
	if (!fi)
		return -FI_ENOMEM;
	self = mrcfi_local_node();
	if (flags & FI_SOURCE) {
		fi->src_addr = mrcfi_addr_dup(n ? (uint32_t)n : self,
					      (uint16_t)p);
		fi->src_addrlen = sizeof(struct mrcfi_addr);
	} else {
		if (self) {
			fi->src_addr = mrcfi_addr_dup(self, 0);
			fi->src_addrlen = sizeof(struct mrcfi_addr);
		}
		if (node) {
			fi->dest_addr = mrcfi_addr_dup((uint32_t)n,
						       (uint16_t)p);
			fi->dest_addrlen = sizeof(struct mrcfi_addr);
		}
	}
	if (hints && hints->src_addr &&
	    hints->src_addrlen == sizeof(struct mrcfi_addr)) {
		free(fi->src_addr);
		fi->src_addr = malloc(sizeof(struct mrcfi_addr));
		if (fi->src_addr)
			memcpy(fi->src_addr, hints->src_addr,
			       sizeof(struct mrcfi_addr));
		fi->src_addrlen = sizeof(struct mrcfi_addr);
	}
	if (hints && hints->dest_addr &&
	    hints->dest_addrlen == sizeof(struct mrcfi_addr)) {
		free(fi->dest_addr);
		fi->dest_addr = malloc(sizeof(struct mrcfi_addr));
		if (fi->dest_addr)
			memcpy(fi->dest_addr, hints->dest_addr,
			       sizeof(struct mrcfi_addr));
		fi->dest_addrlen = sizeof(struct mrcfi_addr);
	}
	if ((fi->src_addrlen && !fi->src_addr) ||
	    (fi->dest_addrlen && !fi->dest_addr)) {
		fi_freeinfo(fi);
		return -FI_ENOMEM;
	}
	*info = fi;
	return 0;
}

/* ------------------------------------------------------------ fabric */

static int mrcfi_fabric_close(struct fid *fid)
{
	free(mrcfi_container_of(fid, struct mrcfi_fabric, fabric.fid));
	return 0;
}

static int mrcfi_trywait(struct fid_fabric *fabric, struct fid **fids,
			 int count)
{
	struct mrcfi_cq *cq;
	int i, j, busy = 0;

	(void)fabric;
	for (i = 0; i < count; i++) {
		switch (fids[i]->fclass) {
		case FI_CLASS_CQ:
			cq = mrcfi_container_of(fids[i], struct mrcfi_cq,
						cq.fid);
			pthread_mutex_lock(&cq->dom->lock);
			for (j = 0; j < cq->neps; j++)
				mrcfi_ep_progress(cq->eps[j]);
			busy |= cq->count > 0;
			pthread_mutex_unlock(&cq->dom->lock);
			break;
		case FI_CLASS_EQ:
			break;		/* never has events */
		default:
			return -FI_EINVAL;
		}
	}
	return busy ? -FI_EAGAIN : 0;
}

static int mrcfi_no_pep(struct fid_fabric *fabric, struct fi_info *info,
			struct fid_pep **pep, void *context)
{
	(void)fabric; (void)info; (void)pep; (void)context;
	return -FI_ENOSYS;
}

static int mrcfi_no_wait(struct fid_fabric *fabric, struct fi_wait_attr *attr,
			 struct fid_wait **waitset)
{
	(void)fabric; (void)attr; (void)waitset;
	return -FI_ENOSYS;
}

static struct fi_ops mrcfi_fabric_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mrcfi_fabric_close,
	.bind = mrcfi_no_bind,
	.control = mrcfi_no_control,
	.ops_open = mrcfi_no_ops_open,
};

static struct fi_ops_fabric mrcfi_fabric_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = mrcfi_domain_open,
	.passive_ep = mrcfi_no_pep,
	.eq_open = mrcfi_eq_open,
	.wait_open = mrcfi_no_wait,
	.trywait = mrcfi_trywait,
};

/**
 * mrcfi_fabric_open() - the provider's fi_fabric
 * @attr: fabric attributes from fi_getinfo (name "mrc")
 * @fabric: the new fabric
 * @context: the application's
 *
 * Return: 0 or a negative FI_E* code.
 */
int mrcfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		      void *context)
{
	struct mrcfi_fabric *f;

	if (attr->name && strcmp(attr->name, MRCFI_FABRIC_NAME))
		return -FI_EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -FI_ENOMEM;
	f->fabric.fid.fclass = FI_CLASS_FABRIC;
	f->fabric.fid.context = context;
	f->fabric.fid.ops = &mrcfi_fabric_fi_ops;
	f->fabric.ops = &mrcfi_fabric_ops;
	*fabric = &f->fabric;
	return 0;
}
