// SPDX-License-Identifier: GPL-2.0
/*
 * fi_mrc_check - the mrc libfabric provider's API edge cases, between two
 * nodes (libfabric.sh).  Plain libfabric calls, as an application makes
 * them; the provider is found by fi_getinfo like any other.
 *
 *   fi_mrc_check peer NODE    on one node: answers NODE's "main" (port
 *                             7100, FI_AV_MAP)
 *   fi_mrc_check main NODE    on the other: runs the checks against the
 *                             peer on NODE (port 7101, FI_AV_TABLE)
 *   fi_mrc_check unreach NODE NODE is cut off: sends to it fail with an
 *                             error completion, nothing hangs
 *
 * main also checks local delivery (FI_LOCAL_COMM): sends to itself and
 * to a second endpoint of the same process.
 *
 * main drives: it sends the peer a control message (tag CTL | phase)
 * and the peer sends that phase's messages.  Prints TAP, ends with
 * "N passed, N failed", exits 1 if anything failed.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#define MAIN_PORT	"7101"
#define PEER_PORT	7100
#define CTL		0x8000000000000000ULL	/* control tags */
#define HELLO		(CTL | 0xffff)
#define HELLO_ACK	(CTL | 0xfffe)
#define BIG		(16U << 20)
#define NORDER		200

/* struct mrcfi_addr of the provider (Documentation/mrc/libfabric.rst) */
struct mrc_addr {
	uint32_t node;
	uint16_t port;
	uint16_t pad;
};

static struct fi_info *info;
static struct fid_fabric *fabric;
static struct fid_domain *domain;
static struct fid_av *av;
static struct fid_cq *txcq, *rxcq;
static struct fid_ep *ep;
static fi_addr_t peer;
static int npass, nfail;

static void __attribute__((format(printf, 2, 3)))
result(bool good, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", good ? "ok" : "not ok", npass + nfail + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (good)
		npass++;
	else
		nfail++;
}

#define CHECK(cond, ...) result((cond), __VA_ARGS__)

static void die(const char *what, long ret)
{
	printf("not ok %d - %s: %ld (%s)\n", npass + nfail + 1, what, ret,
	       fi_strerror((int)-ret));
	printf("%d passed, %d failed\n", npass, nfail + 1);
	exit(1);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void setup(const char *port, enum fi_av_type type)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED,
				      .wait_obj = FI_WAIT_FD };
	struct fi_av_attr av_attr = { .type = type };
	struct fi_info *hints = fi_allocinfo();
	long ret;

	hints->fabric_attr->prov_name = strdup("mrc");
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG | FI_TAGGED | FI_SOURCE | FI_DIRECTED_RECV;
	hints->mode = FI_CONTEXT;
	hints->domain_attr->av_type = type;
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, port, FI_SOURCE, hints,
			 &info);
	if (ret)
		die("fi_getinfo", ret);
	fi_freeinfo(hints);
	ret = fi_fabric(info->fabric_attr, &fabric, NULL);
	if (!ret)
		ret = fi_domain(fabric, info, &domain, NULL);
	if (!ret)
		ret = fi_av_open(domain, &av_attr, &av, NULL);
	if (!ret)
		ret = fi_cq_open(domain, &cq_attr, &txcq, NULL);
	if (!ret)
		ret = fi_cq_open(domain, &cq_attr, &rxcq, NULL);
	if (!ret)
		ret = fi_endpoint(domain, info, &ep, NULL);
	if (!ret)
		ret = fi_ep_bind(ep, &av->fid, 0);
	if (!ret)
		ret = fi_ep_bind(ep, &txcq->fid, FI_TRANSMIT);
	if (!ret)
		ret = fi_ep_bind(ep, &rxcq->fid, FI_RECV);
	if (!ret)
		ret = fi_enable(ep);
	if (ret)
		die("setting up the endpoint", ret);
}

static void teardown(void)
{
	fi_close(&ep->fid);
	fi_close(&rxcq->fid);
	fi_close(&txcq->fid);
	fi_close(&av->fid);
	fi_close(&domain->fid);
	fi_close(&fabric->fid);
	fi_freeinfo(info);
}

static fi_addr_t insert(uint32_t node, uint16_t port)
{
	struct mrc_addr a = { .node = node, .port = port };
	fi_addr_t fa = FI_ADDR_NOTAVAIL;
	int ret = fi_av_insert(av, &a, 1, &fa, 0, NULL);

	if (ret != 1)
		die("fi_av_insert", ret);
	return fa;
}

/*
 * The next completion of @cq within @ms: 1 with @e filled, -1 with @err
 * filled (an error completion), 0 on timeout.
 */
static int next_comp(struct fid_cq *cq, struct fi_cq_tagged_entry *e,
		     fi_addr_t *src, struct fi_cq_err_entry *err, int ms)
{
	int64_t end = now_ms() + ms;
	fi_addr_t s = FI_ADDR_NOTAVAIL;
	ssize_t ret;

	do {
		ret = fi_cq_readfrom(cq, e, 1, &s);
		if (ret == 1) {
			if (src)
				*src = s;
			return 1;
		}
		if (ret == -FI_EAVAIL) {
			memset(err, 0, sizeof(*err));
			if (fi_cq_readerr(cq, err, 0) == 1)
				return -1;
		} else if (ret != -FI_EAGAIN) {
			die("fi_cq_readfrom", ret);
		}
	} while (now_ms() < end);
	return 0;
}

static void tsend(const void *buf, size_t len, uint64_t tag, void *ctx)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	ssize_t ret;

	do {
		ret = fi_tsend(ep, buf, len, NULL, peer, tag, ctx);
		if (ret == -FI_EAGAIN)
			fi_cq_read(txcq, NULL, 0);
	} while (ret == -FI_EAGAIN);
	if (ret)
		die("fi_tsend", ret);
	if (next_comp(txcq, &e, NULL, &err, 30000) != 1 || e.op_context != ctx)
		die("fi_tsend completion", -FI_EOTHER);
}

/*
 * Receive a control message from the other side within @ms: its tag
 * (CTL | 0..0xffff), or 0 if none came.  @ignore: tag bits that do not
 * matter.
 */
static uint64_t ctl_recv(uint64_t tag, uint64_t ignore, int ms)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_context c;
	char b[8];
	int r;

	if (fi_trecv(ep, b, sizeof(b), NULL, peer, tag, ignore, &c))
		die("fi_trecv control", -FI_EOTHER);
	r = next_comp(rxcq, &e, NULL, &err, ms);
	if (r == 0 && fi_cancel(&ep->fid, &c) == 0) {
		next_comp(rxcq, &e, NULL, &err, 1000);	/* FI_ECANCELED */
		return 0;
	}
	if (r == 0)	/* completed between the timeout and the cancel */
		r = next_comp(rxcq, &e, NULL, &err, 1000);
	if (r != 1 || e.op_context != &c)
		die("control message", -FI_EOTHER);
	return e.tag;
}

static void ctl_send(uint64_t tag)
{
	struct fi_context c;

	tsend("ctl", 4, tag, &c);
}

static void fill(char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (char)(i * 7 + seed);
}

static bool filled(const char *p, size_t len, unsigned int seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != (char)(i * 7 + seed))
			return false;
	return true;
}

/* ------------------------------------------------------------ peer */

static int run_peer(uint32_t main_node)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_context c;
	struct iovec iov;
	struct fi_msg_tagged m;
	uint32_t seq;
	char *big;
	int i, r;

	setup("7100", FI_AV_MAP);
	peer = insert(main_node, (uint16_t)atoi(MAIN_PORT));
	big = malloc(BIG);
	fill(big, BIG, 3);
	for (;;) {
		uint64_t tag = ctl_recv(CTL, 0xffff, 1000), phase;

		if (!tag)
			continue;
		phase = tag & 0xffff;
		if (tag == HELLO) {
			ctl_send(HELLO_ACK);
			continue;
		}
		if (!phase)
			break;		/* quit */
		switch (phase) {
		case 2:		/* truncation */
			tsend(big, 1000, 0x200, &c);
			tsend(big, 10, 0x201, &c);
			break;
		case 3:		/* tags, direction, source */
			tsend("five", 5, 5, &c);
			tsend("six", 4, 6, &c);
			tsend("eight", 6, 8, &c);
			tsend("masked", 7, 0x1ab, &c);
			break;
		case 4:		/* order */
			for (seq = 0; seq < NORDER; seq++) {
				do {
					r = (int)fi_send(ep, &seq, sizeof(seq),
							 NULL, peer, NULL);
					if (r == -FI_EAGAIN)
						fi_cq_read(txcq, NULL, 0);
				} while (r == -FI_EAGAIN);
				if (r)
					die("fi_send", r);
			}
			for (i = 0; i < NORDER; i++)
				if (next_comp(txcq, &e, NULL, &err, 30000) != 1)
					die("fi_send completions", -FI_EOTHER);
			break;
		case 5:		/* peek / claim / discard */
			tsend("claimed", 7, 0x77, &c);
			tsend("discard", 7, 0x78, &c);
			break;
		case 6:		/* 16 MiB + CQ data, transmit complete */
			iov.iov_base = big;
			iov.iov_len = BIG;
			memset(&m, 0, sizeof(m));
			m.msg_iov = &iov;
			m.iov_count = 1;
			m.addr = peer;
			m.tag = 0x600;
			m.context = &c;
			m.data = 0xfeedface;
			r = (int)fi_tsendmsg(ep, &m, FI_REMOTE_CQ_DATA |
					     FI_TRANSMIT_COMPLETE |
					     FI_COMPLETION);
			if (r)
				die("fi_tsendmsg", r);
			r = next_comp(txcq, &e, NULL, &err, 120000);
			if (r != 1 || e.op_context != &c)
				die("FI_TRANSMIT_COMPLETE completion",
				    r < 0 ? -err.err : -FI_ETIMEDOUT);
			/* then 1 MiB that main receives unexpected */
			tsend(big, 1U << 20, 0x601, &c);
			break;
		default:
			break;
		}
	}
	free(big);
	teardown();
	printf("peer done\n");
	return 0;
}

/* ------------------------------------------------------------ main */

/* A second endpoint of this process, in its own domain (check_self). */
struct ep2 {
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
};

static void ep2_open(struct ep2 *o, const char *port)
{
	struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_TAGGED,
				      .wait_obj = FI_WAIT_FD };
	struct fi_av_attr av_attr = { .type = FI_AV_MAP };
	struct fi_info *hints = fi_allocinfo(), *fi;
	long ret;

	hints->fabric_attr->prov_name = strdup("mrc");
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_TAGGED | FI_SOURCE;
	hints->domain_attr->caps = FI_LOCAL_COMM;
	hints->mode = FI_CONTEXT;
	ret = fi_getinfo(FI_VERSION(1, 17), NULL, port, FI_SOURCE, hints, &fi);
	fi_freeinfo(hints);
	if (ret)
		die("fi_getinfo (FI_LOCAL_COMM)", ret);
	ret = fi_fabric(fi->fabric_attr, &o->fabric, NULL);
	if (!ret)
		ret = fi_domain(o->fabric, fi, &o->domain, NULL);
	if (!ret)
		ret = fi_av_open(o->domain, &av_attr, &o->av, NULL);
	if (!ret)
		ret = fi_cq_open(o->domain, &cq_attr, &o->cq, NULL);
	if (!ret)
		ret = fi_endpoint(o->domain, fi, &o->ep, NULL);
	if (!ret)
		ret = fi_ep_bind(o->ep, &o->av->fid, 0);
	if (!ret)
		ret = fi_ep_bind(o->ep, &o->cq->fid, FI_TRANSMIT | FI_RECV);
	if (!ret)
		ret = fi_enable(o->ep);
	fi_freeinfo(fi);
	if (ret)
		die("setting up a second endpoint", ret);
}

static void ep2_close(struct ep2 *o)
{
	fi_close(&o->ep->fid);
	fi_close(&o->cq->fid);
	fi_close(&o->av->fid);
	fi_close(&o->domain->fid);
	fi_close(&o->fabric->fid);
}

struct late_send {
	fi_addr_t to;
	uint64_t tag;
	char b[16];
	struct fi_context c;
};

static void *late_send(void *arg)
{
	struct late_send *l = arg;

	usleep(300000);
	if (fi_tsend(ep, l->b, sizeof(l->b), NULL, l->to, l->tag, &l->c))
		l->tag = 0;
	return NULL;
}

/*
 * FI_LOCAL_COMM: mrc never sends to its own node; the provider delivers
 * to the endpoints of this process (an MPI rank sends to itself), the
 * same endpoint or another one, and refuses other ports of this node.
 */
static void check_self(uint32_t self)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_context c1, c2, c3;
	struct late_send l = { .tag = 0x903 };
	fi_addr_t me, to2, src = FI_ADDR_NOTAVAIL;
	const size_t mib = 1U << 20;
	char *big = malloc(mib), *got = calloc(1, mib + 1);
	char small[16] = "";
	struct ep2 o;
	pthread_t th;
	uint32_t seq, v;
	int64_t t;
	ssize_t ret;
	int r, i;

	CHECK((info->caps & FI_LOCAL_COMM) &&
	      (info->domain_attr->caps & FI_LOCAL_COMM),
	      "fi_getinfo offers FI_LOCAL_COMM (caps %#llx)",
	      (unsigned long long)info->caps);
	me = insert(self, (uint16_t)atoi(MAIN_PORT));
	fill(big, mib, 9);

	/* to itself: a receive posted first, then one left unexpected */
	fi_trecv(ep, small, sizeof(small), NULL, me, 0x900, 0, &c1);
	ret = fi_tsend(ep, "to myself", 10, NULL, me, 0x900, &c2);
	r = next_comp(txcq, &e, NULL, &err, 1000);
	CHECK(!ret && r == 1 && e.op_context == &c2,
	      "fi_tsend to its own address completes (%zd, %d, err %d)", ret,
	      r, r == -1 ? err.err : 0);
	r = next_comp(rxcq, &e, &src, &err, 5000);
	CHECK(r == 1 && e.op_context == &c1 && e.len == 10 && src == me &&
	      !strcmp(small, "to myself"),
	      "and arrives in its posted receive, source its own fi_addr (%d)",
	      r);
	ret = fi_tsend(ep, big, mib, NULL, me, 0x901, &c2);
	r = next_comp(txcq, &e, NULL, &err, 1000);
	CHECK(!ret && r == 1, "1 MiB to itself, nothing posted (%zd, %d)",
	      ret, r);
	fi_cq_read(rxcq, NULL, 0);	/* progress: queued unexpected */
	fi_trecv(ep, got, mib + 1, NULL, FI_ADDR_UNSPEC, 0x901, 0, &c1);
	r = next_comp(rxcq, &e, NULL, &err, 5000);
	CHECK(r == 1 && e.op_context == &c1 && e.len == mib &&
	      filled(got, mib, 9),
	      "a receive posted later gets it whole (%d, len %zu)", r,
	      r == 1 ? e.len : 0);

	/* to another endpoint (another domain) of this process */
	ep2_open(&o, "7103");
	to2 = insert(self, 7103);
	for (seq = 0; seq < NORDER; seq++) {
		ret = fi_tsend(ep, &seq, sizeof(seq), NULL, to2, 0x902, &c2);
		if (ret)
			break;
		next_comp(txcq, &e, NULL, &err, 1000);
	}
	CHECK(seq == NORDER, "%d sends to a second endpoint of this process (%zd)",
	      NORDER, ret);
	for (i = 0; i < NORDER; i++) {
		if (fi_trecv(o.ep, &v, sizeof(v), NULL, FI_ADDR_UNSPEC, 0x902,
			     0, &c3))
			break;
		if (fi_cq_sread(o.cq, &e, 1, NULL, 5000) != 1 || v != (uint32_t)i)
			break;
	}
	CHECK(i == NORDER,
	      "it receives all %d in the order sent (%d)", NORDER, i);

	/* fi_cq_sread sleeping in the fd wakes up for a local message */
	l.to = to2;
	fi_trecv(o.ep, small, sizeof(small), NULL, FI_ADDR_UNSPEC, 0x903, 0,
		 &c3);
	pthread_create(&th, NULL, late_send, &l);
	t = now_ms();
	ret = fi_cq_sread(o.cq, &e, 1, NULL, 10000);
	t = now_ms() - t;
	pthread_join(th, NULL);
	CHECK(ret == 1 && e.op_context == &c3 && l.tag && t >= 250 && t < 3000,
	      "fi_cq_sread waiting on its fd wakes up for a local message after %" PRId64 " ms (%zd)",
	      t, ret);
	next_comp(txcq, &e, NULL, &err, 1000);
	/* left in its inbox and unexpected queue: freed at close */
	fi_tsend(ep, big, mib, NULL, to2, 0x904, &c2);
	next_comp(txcq, &e, NULL, &err, 1000);
	ep2_close(&o);

	ret = fi_tsend(ep, "x", 1, NULL, to2, 1, &c2);
	CHECK(ret == -FI_EHOSTUNREACH,
	      "once it is closed, its port on this node: -FI_EHOSTUNREACH (%zd)",
	      ret);
	ret = fi_tsend(ep, "x", 1, NULL, insert(self, 7199), 1, &c2);
	CHECK(ret == -FI_EHOSTUNREACH,
	      "a port of this node no endpoint of this process has: -FI_EHOSTUNREACH (%zd)",
	      ret);
	free(big);
	free(got);
}

static void check_local(uint32_t self)
{
	struct mrc_addr bad[3] = {
		{ .node = 0, .port = PEER_PORT },
		{ .node = 2, .port = 0 },
		{ .node = 2, .port = PEER_PORT, .pad = 1 },
	};
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_msg_tagged m;
	fi_addr_t fa[3], far;
	struct mrc_addr me;
	struct fi_context c;
	size_t len;
	int64_t t;
	static char b[8192];
	ssize_t ret;
	int r;

	len = 1;
	ret = fi_getname(&ep->fid, &me, &len);
	CHECK(ret == -FI_ETOOSMALL && len == sizeof(me),
	      "fi_getname with a 1-byte buffer: -FI_ETOOSMALL, length 8 (%zd, %zu)",
	      ret, len);
	len = sizeof(me);
	ret = fi_getname(&ep->fid, &me, &len);
	CHECK(!ret && me.node == self && me.port == atoi(MAIN_PORT),
	      "fi_getname: node %u port %u (the node id, the port asked for)",
	      me.node, me.port);

	r = fi_av_insert(av, bad, 3, fa, 0, NULL);
	CHECK(r == 0 && fa[0] == FI_ADDR_NOTAVAIL &&
	      fa[1] == FI_ADDR_NOTAVAIL && fa[2] == FI_ADDR_NOTAVAIL,
	      "fi_av_insert of node 0, port 0, pad != 0: none inserted, FI_ADDR_NOTAVAIL each (%d)",
	      r);
	r = fi_av_insertsvc(av, "node2", "7100", &far, 0, NULL);
	CHECK(r < 0, "fi_av_insertsvc of a non-numeric node fails (%d)", r);
	ret = fi_tsend(ep, "x", 1, NULL, 12345, 1, &c);
	CHECK(ret == -FI_EINVAL,
	      "fi_tsend to an fi_addr the AV never gave: -FI_EINVAL (%zd)",
	      ret);
	far = insert(99, PEER_PORT);
	ret = fi_tsend(ep, "x", 1, NULL, far, 1, &c);
	CHECK(ret == -FI_EHOSTUNREACH,
	      "fi_tsend to node 99 (not an mrc peer): -FI_EHOSTUNREACH (%zd)",
	      ret);
	ret = fi_tinject(ep, b, 8192, peer, 1);
	CHECK(ret < 0, "fi_tinject above inject_size fails (%zd)", ret);

	ret = fi_trecv(ep, b, sizeof(b), NULL, FI_ADDR_UNSPEC, 0x1234, 0, &c);
	CHECK(!ret, "fi_trecv posted (tag 0x1234)");
	ret = fi_cancel(&ep->fid, &c);
	r = next_comp(rxcq, &e, NULL, &err, 1000);
	CHECK(!ret && r == -1 && err.err == FI_ECANCELED &&
	      err.op_context == &c && (err.flags & FI_TAGGED),
	      "fi_cancel: an FI_ECANCELED error completion with its context (%zd, %d, err %d)",
	      ret, r, r == -1 ? err.err : 0);
	ret = fi_cancel(&ep->fid, &c);
	CHECK(ret == -FI_ENOENT, "fi_cancel again: -FI_ENOENT (%zd)", ret);

	memset(&m, 0, sizeof(m));
	m.addr = FI_ADDR_UNSPEC;
	m.tag = 0x777;
	m.context = &c;
	ret = fi_trecvmsg(ep, &m, FI_PEEK);
	r = next_comp(rxcq, &e, NULL, &err, 1000);
	CHECK(!ret && r == -1 && err.err == FI_ENOMSG && err.op_context == &c,
	      "FI_PEEK with nothing there: FI_ENOMSG (%zd, %d)", ret, r);

	t = now_ms();
	ret = fi_cq_sread(rxcq, &e, 1, NULL, 300);
	t = now_ms() - t;
	CHECK(ret == -FI_EAGAIN && t >= 280 && t < 5000,
	      "fi_cq_sread on an empty CQ, 300 ms: -FI_EAGAIN after %" PRId64 " ms (%zd)",
	      t, ret);
	r = -1;
	ret = fi_control(&rxcq->fid, FI_GETWAIT, &r);
	CHECK(!ret && r >= 0, "fi_control(FI_GETWAIT): an fd (%zd, fd %d)",
	      ret, r);
}

static void check_trunc(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_context c1, c2;
	char small[100], b[16];
	int r;

	fi_trecv(ep, small, sizeof(small), NULL, peer, 0x200, 0, &c1);
	fi_trecv(ep, b, sizeof(b), NULL, peer, 0x201, 0, &c2);
	ctl_send(CTL | 2);
	r = next_comp(rxcq, &e, NULL, &err, 30000);
	CHECK(r == -1 && err.err == FI_ETRUNC && err.olen == 900 &&
	      err.len == 100 && err.tag == 0x200 && err.op_context == &c1 &&
	      filled(small, 100, 3),
	      "1000 B into 100 B: FI_ETRUNC, olen 900, len 100, first 100 bytes kept (%d, err %d, olen %zu)",
	      r, r == -1 ? err.err : 0, r == -1 ? err.olen : 0);
	r = next_comp(rxcq, &e, NULL, &err, 30000);
	CHECK(r == 1 && e.op_context == &c2 && e.len == 10 &&
	      filled(b, 10, 3),
	      "the next message arrives whole after the truncated one (%d)",
	      r);
}

static void check_match(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_context c5, c6, c8x, c8, cm;
	char b5[8], b6[8], b8x[8], b8[8], bm[8];
	fi_addr_t other = insert(98, PEER_PORT), src;
	int r, i, got = 0;

	fi_trecv(ep, b6, sizeof(b6), NULL, peer, 6, 0, &c6);
	fi_trecv(ep, b5, sizeof(b5), NULL, FI_ADDR_UNSPEC, 5, 0, &c5);
	fi_trecv(ep, b8x, sizeof(b8x), NULL, other, 8, 0, &c8x);
	fi_trecv(ep, b8, sizeof(b8), NULL, peer, 8, 0, &c8);
	fi_trecv(ep, bm, sizeof(bm), NULL, FI_ADDR_UNSPEC, 0x100, 0xff, &cm);
	ctl_send(CTL | 3);
	for (i = 0; i < 4; i++) {
		r = next_comp(rxcq, &e, &src, &err, 30000);
		if (r != 1)
			break;
		if (e.op_context == &c5 && e.tag == 5 &&
		    !strcmp(b5, "five") && src == peer)
			got |= 1;
		else if (e.op_context == &c6 && e.tag == 6 &&
			 !strcmp(b6, "six"))
			got |= 2;
		else if (e.op_context == &c8 && !strcmp(b8, "eight"))
			got |= 4;
		else if (e.op_context == &cm && e.tag == 0x1ab &&
			 !strcmp(bm, "masked"))
			got |= 8;
	}
	CHECK(got & 1, "tag 5 into the any-source receive, FI_SOURCE gives the peer's fi_addr");
	CHECK(got & 2, "tag 6 into the receive directed at the peer (posted first, matched by tag)");
	CHECK(got & 4, "tag 8 skips the receive directed at node 98, lands in the one for the peer");
	CHECK(got & 8, "tag 0x1ab matches tag 0x100 with ignore 0xff");
	fi_cancel(&ep->fid, &c8x);
	r = next_comp(rxcq, &e, NULL, &err, 1000);
	CHECK(r == -1 && err.err == FI_ECANCELED && err.op_context == &c8x,
	      "the receive for node 98 was still posted (cancelled now)");
}

static void check_order(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	static uint32_t v[NORDER];
	int i, r, bad = 0, posted = 50;

	/* 50 posted before, the rest after: both matching paths */
	for (i = 0; i < posted; i++)
		fi_recv(ep, &v[i], sizeof(v[i]), NULL, FI_ADDR_UNSPEC, &v[i]);
	ctl_send(CTL | 4);
	usleep(500000);
	for (; i < NORDER; i++)
		fi_recv(ep, &v[i], sizeof(v[i]), NULL, FI_ADDR_UNSPEC, &v[i]);
	for (i = 0; i < NORDER; i++) {
		r = next_comp(rxcq, &e, NULL, &err, 30000);
		if (r != 1 || e.op_context != &v[i] || v[i] != (uint32_t)i ||
		    !(e.flags & FI_MSG)) {
			bad = 1;
			break;
		}
	}
	CHECK(!bad, "%d untagged messages arrive in the order sent (first bad: %d)",
	      NORDER, bad ? i : -1);
}

static void check_peek(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_msg_tagged m;
	struct fi_context cp, cq, cd, cx;
	struct iovec iov;
	char b[16] = "", bq[16];
	int64_t end;
	int r = 0;

	fi_trecv(ep, bq, sizeof(bq), NULL, FI_ADDR_UNSPEC, 0x99, 0, &cq);
	ctl_send(CTL | 5);
	memset(&m, 0, sizeof(m));
	m.addr = FI_ADDR_UNSPEC;
	m.tag = 0x77;
	m.context = &cp;
	end = now_ms() + 30000;
	while (now_ms() < end) {
		fi_trecvmsg(ep, &m, FI_PEEK | FI_CLAIM);
		r = next_comp(rxcq, &e, NULL, &err, 1000);
		if (r == 1 || (r == -1 && err.err != FI_ENOMSG))
			break;
	}
	CHECK(r == 1 && e.op_context == &cp && e.len == 7 && e.tag == 0x77,
	      "FI_PEEK | FI_CLAIM finds tag 0x77, 7 bytes (%d)", r);
	m.context = &cx;
	fi_trecvmsg(ep, &m, FI_PEEK);
	r = next_comp(rxcq, &e, NULL, &err, 1000);
	CHECK(r == -1 && err.err == FI_ENOMSG,
	      "a claimed message is not found by another FI_PEEK (%d)", r);
	iov.iov_base = b;
	iov.iov_len = sizeof(b);
	m.msg_iov = &iov;
	m.iov_count = 1;
	m.context = &cp;
	fi_trecvmsg(ep, &m, FI_CLAIM);
	r = next_comp(rxcq, &e, NULL, &err, 1000);
	CHECK(r == 1 && e.op_context == &cp && e.len == 7 &&
	      !memcmp(b, "claimed", 7),
	      "FI_CLAIM with the peek's context receives it (%d)", r);

	m.tag = 0x78;
	m.msg_iov = NULL;
	m.iov_count = 0;
	m.context = &cd;
	end = now_ms() + 30000;
	while (now_ms() < end) {
		fi_trecvmsg(ep, &m, FI_PEEK | FI_DISCARD);
		r = next_comp(rxcq, &e, NULL, &err, 1000);
		if (r == 1 || (r == -1 && err.err != FI_ENOMSG))
			break;
	}
	CHECK(r == 1 && e.op_context == &cd,
	      "FI_PEEK | FI_DISCARD finds and drops tag 0x78 (%d)", r);
	fi_trecv(ep, b, sizeof(b), NULL, FI_ADDR_UNSPEC, 0x78, 0, &cx);
	r = next_comp(rxcq, &e, NULL, &err, 500);
	CHECK(r == 0, "a receive for 0x78 then finds nothing (%d)", r);
	fi_cancel(&ep->fid, &cx);
	fi_cancel(&ep->fid, &cq);
	next_comp(rxcq, &e, NULL, &err, 500);
	next_comp(rxcq, &e, NULL, &err, 500);
}

static void check_big(void)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_msg_tagged m;
	struct fi_context c;
	char *big = malloc(BIG);
	int64_t end;
	ssize_t r;

	memset(big, 0, BIG);
	fi_trecv(ep, big, BIG, NULL, peer, 0x600, 0, &c);
	ctl_send(CTL | 6);
	r = fi_cq_sread(rxcq, &e, 1, NULL, 120000);
	CHECK(r == 1 && e.op_context == &c && e.len == BIG &&
	      (e.flags & FI_REMOTE_CQ_DATA) && e.data == 0xfeedface &&
	      filled(big, BIG, 3),
	      "16 MiB tagged with CQ data, by fi_cq_sread: whole, data 0x%" PRIx64 " (%zd)",
	      r == 1 ? e.data : 0, r);

	/* 1 MiB with no receive posted: FI_PEEK until it is there */
	memset(&m, 0, sizeof(m));
	m.addr = FI_ADDR_UNSPEC;
	m.tag = 0x601;
	m.context = &c;
	end = now_ms() + 60000;
	r = 0;
	while (now_ms() < end) {
		fi_trecvmsg(ep, &m, FI_PEEK);
		r = next_comp(rxcq, &e, NULL, &err, 1000);
		if (r == 1 || (r == -1 && err.err != FI_ENOMSG))
			break;
	}
	CHECK(r == 1 && e.len == 1U << 20,
	      "1 MiB nobody asked for waits as unexpected, FI_PEEK sees it (%zd)",
	      r);
	memset(big, 0, BIG);
	fi_trecv(ep, big, BIG, NULL, FI_ADDR_UNSPEC, 0x601, 0, &c);
	r = next_comp(rxcq, &e, NULL, &err, 1000);
	CHECK(r == 1 && e.op_context == &c && e.len == 1U << 20 &&
	      filled(big, 1U << 20, 3) && !big[1U << 20],
	      "a receive posted then gets it whole at once (%zd)", r);
	free(big);
}

static int run_main(uint32_t peer_node, uint32_t self)
{
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	int i;

	setup(MAIN_PORT, FI_AV_TABLE);
	peer = insert(peer_node, PEER_PORT);
	CHECK(peer == 0, "FI_AV_TABLE: the first address is fi_addr 0");
	for (i = 0; i < 600; i++) {
		struct fi_context c;

		if (fi_tsend(ep, "hi", 3, NULL, peer, HELLO, &c) == 0)
			next_comp(txcq, &e, NULL, &err, 1000);
		if (ctl_recv(HELLO_ACK, 0, 1000))
			break;
	}
	CHECK(i < 600, "the peer answered");
	/*
	 * A HELLO sent before the peer's endpoint was bound fails later
	 * (ECONNREFUSED: an error completion without a context), and the
	 * HELLOs that went unanswered completed too: take all of them, so
	 * that the checks below see only their own completions.
	 */
	while (next_comp(txcq, &e, NULL, &err, 500))
		;
	check_local(self);
	check_self(self);
	check_trunc();
	check_match();
	check_order();
	check_peek();
	check_big();
	ctl_send(CTL);		/* quit */
	teardown();
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}

/*
 * NODE took its planes down: a send completes at once (mrc has the copy),
 * then mrc fails it; a send waiting for FI_TRANSMIT_COMPLETE fails with
 * mrc's error, and a failure with no send waiting still shows as an
 * error completion.  Nothing hangs.
 */
static int run_unreach(uint32_t node)
{
	static char buf[4096];
	struct fi_cq_tagged_entry e;
	struct fi_cq_err_entry err;
	struct fi_msg_tagged m;
	struct fi_context ca, cb, cc;
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	int64_t t0, t;
	ssize_t ret;
	int r, i;

	setup("7102", FI_AV_MAP);
	peer = insert(node, PEER_PORT);
	t0 = now_ms();
	ret = fi_tsend(ep, buf, sizeof(buf), NULL, peer, 1, &ca);
	r = next_comp(txcq, &e, NULL, &err, 1000);
	CHECK(!ret && r == 1 && e.op_context == &ca,
	      "a send to the unreachable node completes at once: mrc took it (%zd, %d)",
	      ret, r);

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.iov_count = 1;
	m.addr = peer;
	m.tag = 2;
	m.context = &cb;
	ret = fi_tsendmsg(ep, &m, FI_TRANSMIT_COMPLETE | FI_COMPLETION);
	r = 0;
	for (i = 0; i < 4 && r != -1; i++)	/* successes do not count */
		r = next_comp(txcq, &e, NULL, &err, 60000);
	t = now_ms() - t0;
	CHECK(!ret && r == -1 && err.op_context == &cb &&
	      (err.err == FI_EHOSTUNREACH || err.err == FI_ETIMEDOUT),
	      "FI_TRANSMIT_COMPLETE send: error completion %d (%s) after %" PRId64 " ms",
	      r == -1 ? err.err : 0,
	      r == -1 ? fi_strerror(err.err) : "none", t);
	/* the second send's own failure may follow without a context */
	while (next_comp(txcq, &e, NULL, &err, 1000) == -1)
		;

	t0 = now_ms();
	ret = fi_tsend(ep, buf, sizeof(buf), NULL, peer, 3, &cc);
	r = next_comp(txcq, &e, NULL, &err, 1000);
	CHECK(!ret && r == 1 && e.op_context == &cc,
	      "another send is accepted and completes (%zd, %d)", ret, r);
	r = next_comp(txcq, &e, NULL, &err, 60000);
	t = now_ms() - t0;
	CHECK(r == -1 && !err.op_context &&
	      (err.err == FI_EHOSTUNREACH || err.err == FI_ETIMEDOUT),
	      "its failure, no send waiting: an error completion without a context, %d (%s) after %" PRId64 " ms",
	      r == -1 ? err.err : 0,
	      r == -1 ? fi_strerror(err.err) : "none", t);
	t0 = now_ms();
	ret = fi_cq_sread(txcq, &e, 1, NULL, 500);
	t = now_ms() - t0;
	CHECK(ret == -FI_EAGAIN && t >= 450,
	      "then fi_cq_sread waits its 500 ms: no error left behind (%zd after %" PRId64 " ms)",
	      ret, t);
	teardown();
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct mrc_addr me;
	size_t len = sizeof(me);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 3 || (strcmp(argv[1], "main") && strcmp(argv[1], "peer") &&
			  strcmp(argv[1], "unreach"))) {
		fprintf(stderr, "usage: %s main|peer|unreach NODE\n", argv[0]);
		return 2;
	}
	printf("TAP version 13\n");
	if (!strcmp(argv[1], "peer"))
		return run_peer((uint32_t)atoi(argv[2]));
	if (!strcmp(argv[1], "unreach"))
		return run_unreach((uint32_t)atoi(argv[2]));
	/* this node's id: from the provider's fi_getinfo src_addr */
	{
		struct fi_info *h = fi_allocinfo(), *fi;

		h->fabric_attr->prov_name = strdup("mrc");
		if (fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0, h, &fi))
			die("fi_getinfo", -FI_ENODATA);
		memcpy(&me, fi->src_addr, len);
		fi_freeinfo(fi);
		fi_freeinfo(h);
	}
	return run_main((uint32_t)atoi(argv[2]), me.node);
}
