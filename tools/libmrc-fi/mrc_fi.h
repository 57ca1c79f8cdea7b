/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libmrc-fi: an external libfabric provider ("mrc") over /dev/mrc.
 *
 * Only libfabric's public API is available to a DL provider, so this one
 * keeps its own fabric, domain, address vector, completion queue, endpoint
 * and tag matching.  One endpoint is one /dev/mrc file (one mrc port).
 * Every mrc message the provider sends starts with struct mrcfi_hdr
 * (Documentation/mrc/libfabric.rst, "Wire format").
 */
#ifndef MRC_FI_H
#define MRC_FI_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include <linux/mrc.h>

#define MRCFI_PROV_NAME		"mrc"
#define MRCFI_FABRIC_NAME	"mrc"
#define MRCFI_DOMAIN_NAME	"mrc"
#define MRCFI_VERSION		FI_VERSION(0, 1)
#define MRCFI_API_VERSION	FI_VERSION(1, 17)
#define MRCFI_DEV		"/dev/" MRC_DEV_NAME

/* ------------------------------------------------------------ wire format */

#define MRCFI_WIRE_VERSION	1
#define MRCFI_OP_MSG		1	/* fi_send family */
#define MRCFI_OP_TAGGED		2	/* fi_tsend family */
#define MRCFI_F_CQ_DATA		0x0001	/* data carries remote CQ data */

/*
 * The provider's header at the front of every mrc message (24 bytes,
 * little-endian), followed by the application's payload.  A receiver
 * drops (and logs) a message whose version it does not know.
 */
struct mrcfi_hdr {
	uint8_t version;	/* MRCFI_WIRE_VERSION */
	uint8_t op;		/* MRCFI_OP_* */
	uint16_t flags;		/* MRCFI_F_* */
	uint32_t reserved;	/* 0 */
	uint64_t tag;		/* MRCFI_OP_TAGGED: the tag, else 0 */
	uint64_t data;		/* MRCFI_F_CQ_DATA: remote CQ data, else 0 */
};

#define MRCFI_MAX_MSG		(MRC_DEV_MSG_MAX - sizeof(struct mrcfi_hdr))
#define MRCFI_INJECT_SIZE	4096
#define MRCFI_IOV_LIMIT		8
#define MRCFI_CQ_DATA_SIZE	8
#define MRCFI_DEF_CQ_SIZE	1024
#define MRCFI_RX_SIZE		65536	/* advertised rx/tx queue sizes */
#define MRCFI_TX_SIZE		MRC_DEV_SNDWIN_MAX

/*
 * The address of an endpoint (fi_getname, fi_av_insert): mrc node id and
 * port; pad must be 0.
 */
struct mrcfi_addr {
	uint32_t node;
	uint16_t port;
	uint16_t pad;
};

/* ------------------------------------------------------------------ lists */

struct mrcfi_list {
	struct mrcfi_list *prev, *next;
};

static inline void mrcfi_list_init(struct mrcfi_list *h)
{
	h->prev = h;
	h->next = h;
}

static inline bool mrcfi_list_empty(const struct mrcfi_list *h)
{
	return h->next == h;
}

static inline void mrcfi_list_add_tail(struct mrcfi_list *e,
				       struct mrcfi_list *h)
{
	e->prev = h->prev;
	e->next = h;
	h->prev->next = e;
	h->prev = e;
}

static inline void mrcfi_list_del(struct mrcfi_list *e)
{
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->prev = e;
	e->next = e;
}

#define mrcfi_container_of(p, type, member) \
	((type *)((char *)(p) - offsetof(type, member)))

/* ------------------------------------------------------------------ objects */

extern struct fi_provider mrcfi_prov;
extern bool mrcfi_yield;		/* FI_MRC_YIELD */

struct mrcfi_fabric {
	struct fid_fabric fabric;
};

struct mrcfi_domain {
	struct fid_domain domain;
	struct mrcfi_fabric *fab;
	pthread_mutex_t lock;	/* every object of the domain */
	uint64_t mr_key;
	int refs;		/* AVs, CQs, EPs, MRs open on it */
};

struct mrcfi_av {
	struct fid_av av;
	struct mrcfi_domain *dom;
	enum fi_av_type type;
	struct mrcfi_addr *tab;	/* slot i: fi_addr i (FI_AV_TABLE) */
	bool *used;
	size_t n, cap;
	int refs;		/* endpoints bound */
};

/* One completion (or error) waiting in a CQ. */
struct mrcfi_cqe {
	struct fi_cq_tagged_entry e;
	fi_addr_t src;		/* FI_ADDR_NOTAVAIL unless known */
	int err;		/* positive FI_E* errno, 0 for a success */
	int prov_errno;
	size_t olen;
};

#define MRCFI_CQ_MAX_EPS	64

struct mrcfi_ep;

struct mrcfi_cq {
	struct fid_cq cq;
	struct mrcfi_domain *dom;
	enum fi_cq_format format;
	enum fi_wait_obj wait_obj;
	struct mrcfi_cqe *ring;	/* grows: completions are never lost */
	size_t head, count, cap;
	struct mrcfi_ep *eps[MRCFI_CQ_MAX_EPS];	/* bound endpoints */
	int neps;
	int epfd;		/* epoll of the endpoints' fds + sigfd */
	int sigfd;		/* eventfd for fi_cq_signal */
};

/*
 * A posted receive, or (unexpected) a message nobody asked for yet.
 * node/port: the sender (unexpected), or the source a directed receive
 * waits for (src != FI_ADDR_UNSPEC).
 */
struct mrcfi_rx {
	struct mrcfi_list link;
	uint32_t node;
	uint16_t port;
	/* posted */
	struct iovec iov[MRCFI_IOV_LIMIT];
	size_t iov_count;
	fi_addr_t src;		/* FI_ADDR_UNSPEC: any */
	uint64_t tag, ignore;
	void *context;
	uint64_t flags;		/* FI_COMPLETION, ... */
	/* unexpected */
	struct mrcfi_hdr hdr;
	void *alloc;		/* the buffer to free */
	void *buf;		/* payload, inside alloc */
	size_t len;
	bool claimed;		/* FI_PEEK | FI_CLAIM'ed: waits for FI_CLAIM */
	void *claim_ctx;
};

/* A send whose completion waits for the peer (FI_TRANSMIT_COMPLETE). */
struct mrcfi_tx {
	struct mrcfi_list link;
	void *context;
	uint64_t flags;
	size_t len;
	uint64_t tag;
};

struct mrcfi_ep {
	struct fid_ep ep;
	struct mrcfi_domain *dom;
	struct fi_info *info;
	int fd;			/* the /dev/mrc endpoint */
	uint32_t node;
	uint16_t port;
	struct mrcfi_av *av;
	struct mrcfi_cq *tx_cq, *rx_cq;
	bool tx_selective, rx_selective;
	uint64_t tx_op_flags, rx_op_flags;
	uint64_t caps;
	bool enabled;
	struct mrcfi_list posted_msg, posted_tag;
	struct mrcfi_list unexp_msg, unexp_tag;
	struct mrcfi_list tx_wait;	/* FI_TRANSMIT_COMPLETE sends */
	uint64_t tx_failed_seen;	/* MRC_IOC_STATS.tx_failed seen */
	bool tx_unchecked;		/* sends in flight: look at STATS */
	bool err_pending;		/* mrc still holds a reported error */
	int tx_sticky_err;		/* for the next send (selective CQ) */
	int64_t tx_checked_ms;		/* when STATS was last read */
	void *txbuf, *rxbuf;
	size_t txbuf_len, rxbuf_len;
	/* local delivery (local.c), under mrcfi_local_lock */
	struct mrcfi_list local_link;	/* on mrcfi_local_eps */
	struct mrcfi_list inbox;	/* messages from this process */
	size_t inbox_bytes;
	int evfd;			/* readable: inbox not empty */
};

/* ------------------------------------------------------------ functions */

/* fabric.c */
int mrcfi_getinfo(uint32_t version, const char *node, const char *service,
		  uint64_t flags, const struct fi_info *hints,
		  struct fi_info **info);
int mrcfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		      void *context);

/* domain.c */
int mrcfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		      struct fid_domain **dom, void *context);
int mrcfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		  struct fid_eq **eq, void *context);

/* av.c */
int mrcfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		  struct fid_av **av, void *context);
int mrcfi_av_resolve(struct mrcfi_av *av, fi_addr_t fi_addr,
		     struct mrcfi_addr *out);
fi_addr_t mrcfi_av_reverse(struct mrcfi_av *av, uint32_t node, uint16_t port);

/* cq.c */
int mrcfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		  struct fid_cq **cq, void *context);
int mrcfi_cq_push(struct mrcfi_cq *cq, const struct mrcfi_cqe *cqe);
int mrcfi_cq_attach(struct mrcfi_cq *cq, struct mrcfi_ep *ep);
void mrcfi_cq_detach(struct mrcfi_cq *cq, struct mrcfi_ep *ep);

/* ep.c */
int mrcfi_ep_open(struct fid_domain *domain, struct fi_info *info,
		  struct fid_ep **ep, void *context);
void mrcfi_ep_progress(struct mrcfi_ep *ep);
extern struct fi_ops_msg mrcfi_msg_ops;
extern struct fi_ops_tagged mrcfi_tagged_ops;

/* send.c */
ssize_t mrcfi_send_common(struct mrcfi_ep *ep, const struct iovec *iov,
			  size_t count, fi_addr_t dest, uint8_t op,
			  uint64_t tag, uint64_t data, void *context,
			  uint64_t flags);
void mrcfi_tx_progress(struct mrcfi_ep *ep, bool force);
int64_t mrcfi_now_ms(void);

/* local.c */
int mrcfi_local_open(struct mrcfi_ep *ep);
void mrcfi_local_close(struct mrcfi_ep *ep);
ssize_t mrcfi_local_send(struct mrcfi_ep *ep, uint16_t port,
			 const struct mrcfi_hdr *hdr, const void *payload,
			 size_t len);
void mrcfi_local_progress(struct mrcfi_ep *ep);

/* match.c */
ssize_t mrcfi_recv_common(struct mrcfi_ep *ep, const struct iovec *iov,
			  size_t count, fi_addr_t src, uint8_t op,
			  uint64_t tag, uint64_t ignore, void *context,
			  uint64_t flags);
void mrcfi_deliver(struct mrcfi_ep *ep, uint32_t node, uint16_t port,
		   const struct mrcfi_hdr *hdr, void *payload, size_t len,
		   void **owned);
ssize_t mrcfi_cancel(struct mrcfi_ep *ep, void *context);
void mrcfi_match_flush(struct mrcfi_ep *ep);

/* util (fabric.c) */
size_t mrcfi_iov_len(const struct iovec *iov, size_t count);
size_t mrcfi_copy_to_iov(const struct iovec *iov, size_t count,
			 const void *src, size_t len);
int mrcfi_errno(int err);
int mrcfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int mrcfi_no_control(struct fid *fid, int command, void *arg);
int mrcfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		      void **ops, void *context);

#define MRCFI_WARN(subsys, ...) FI_WARN(&mrcfi_prov, subsys, __VA_ARGS__)

#endif /* MRC_FI_H */
