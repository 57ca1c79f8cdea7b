// SPDX-License-Identifier: GPL-2.0
/*
 * mrc-perf - perftest-like bandwidth and latency over /dev/mrc.
 *
 *   mrc-perf -s [-p PORT]                       server: echoes (lat), sinks
 *                                               and acknowledges (bw)
 *   mrc-perf -c NODE [-p PORT] bw|lat [-m SIZE | -a] [-n ITERS]
 *            [-T SECS] [-w WINDOW] [-e ENDPOINTS] [-j]
 *
 * Protocol (messages between one client endpoint and the server keep their
 * order, so no data message needs a header): a client endpoint sends a
 * control message START {mode, iters, size}; the server then takes the
 * next `iters` messages from that endpoint as data.  bw: it counts them
 * and answers ACK {msgs, bytes}; the client's clock runs from its first
 * send to the last ACK.  lat: it echoes each one back; the client sends
 * the next after the echo (ping-pong) and reports half the round trip, as
 * ib_send_lat does.  A run bounded by time (-T) ends early with a control
 * message STOP {iters: data messages sent}: the server acknowledges (bw)
 * or ends the session without an echo (lat).  Data messages cannot be
 * taken for it: their bytes are 0x5a (bw) or 0xa5 (lat), never
 * PERF_MAGIC.  See Documentation/mrc/devmrc.rst.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/mrc.h>

#include "mrc/core/names.h"

#define PERF_MAGIC	0x4d524350u	/* "MRCP" */
#define PERF_START_BW	1
#define PERF_START_LAT	2
#define PERF_ACK	3
#define PERF_STOP	4
#define DEF_PORT	18515
#define MAX_SESSIONS	1024
/*
 * No progress for this long fails a run: 60 s, or MRC_PERF_TIMEOUT_S
 * from the environment (the selftests scale it on slow debug kernels).
 */
static int ack_timeout_ms = 60000;
#define ACK_TIMEOUT_MS	ack_timeout_ms

struct perf_ctl {
	uint32_t magic;
	uint32_t type;
	uint64_t iters;
	uint64_t size;
	uint64_t msgs;		/* ACK: messages received */
	uint64_t bytes;		/* ACK: bytes received */
};

static const char *dev_path = "/dev/" MRC_DEV_NAME;
static bool json;

static void die(const char *what)
{
	fprintf(stderr, "mrc-perf: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void fail(const char *msg)
{
	fprintf(stderr, "mrc-perf: %s\n", msg);
	exit(1);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_opt(int fd, uint32_t opt, uint64_t val)
{
	struct mrc_dev_opt o = { .size = sizeof(o), .opt = opt, .value = val };

	if (ioctl(fd, MRC_IOC_SETOPT, &o))
		die("MRC_IOC_SETOPT");
}

/* -C: traffic class of every endpoint (MRC_OPT_CLASS), -1 = unset. */
static int ep_class = -1;
/* -b / --busy-poll: MRC_OPT_BUSY_POLL of every endpoint, microseconds. */
static uint32_t busy_poll_us;

static int ep_open(uint16_t port, uint32_t sndwin, uint64_t rcvbuf)
{
	struct mrc_dev_bind b = { .size = sizeof(b), .port = port };
	int fd = open(dev_path, O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		die(dev_path);
	if (ioctl(fd, MRC_IOC_BIND, &b)) {
		fprintf(stderr, "mrc-perf: bind port %u: %s\n", port,
			strerror(errno));
		exit(1);
	}
	set_opt(fd, MRC_OPT_SNDWIN, sndwin);
	set_opt(fd, MRC_OPT_RCVBUF, rcvbuf);
	if (ep_class >= 0)
		set_opt(fd, MRC_OPT_CLASS, ep_class);
	if (busy_poll_us)
		set_opt(fd, MRC_OPT_BUSY_POLL, busy_poll_us);
	return fd;
}

/* Sends @len bytes at @buf + sizeof(hdr) (the header is filled here). */
static int send_msg(int fd, void *buf, uint32_t node, uint16_t port,
		    uint32_t len)
{
	struct mrc_dev_send_hdr *h = buf;
	ssize_t n;

	h->version = MRC_DEV_VERSION;
	h->dst_node = node;
	h->dst_port = port;
	h->flags = 0;
	h->len = len;
	n = write(fd, buf, sizeof(*h) + len);
	if (n < 0)
		return -errno;
	return 0;
}

/* send_msg() that waits for a free send slot on a non-blocking fd. */
static int send_msg_wait(int fd, void *buf, uint32_t node, uint16_t port,
			 uint32_t len)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int err;

	while ((err = send_msg(fd, buf, node, port, len)) == -EAGAIN)
		if (poll(&p, 1, ACK_TIMEOUT_MS) <= 0 && errno != EINTR)
			return -ETIMEDOUT;
	return err;
}

static void send_ctl(int fd, uint32_t node, uint16_t port,
		     const struct perf_ctl *c)
{
	struct {
		struct mrc_dev_send_hdr h;
		struct perf_ctl c;
	} m;

	int err;

	m.c = *c;
	err = send_msg_wait(fd, &m, node, port, sizeof(m.c));
	if (err) {
		errno = -err;
		die("send control message");
	}
}

/* Reads one message into *buf (grown as needed); returns payload bytes. */
static ssize_t recv_msg(int fd, char **buf, size_t *cap,
			struct mrc_dev_recv_hdr **h)
{
	struct mrc_dev_stats st;
	ssize_t n;

	for (;;) {
		n = read(fd, *buf, *cap);
		if (n >= 0)
			break;
		if (errno == EAGAIN || errno == EINTR) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			poll(&p, 1, -1);
			continue;
		}
		if (errno != EMSGSIZE)
			return -errno;
		st.size = sizeof(st);
		if (ioctl(fd, MRC_IOC_STATS, &st))
			die("MRC_IOC_STATS");
		*cap = sizeof(**h) + st.rx_next_len;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			fail("out of memory");
	}
	*h = (struct mrc_dev_recv_hdr *)*buf;
	return (*h)->len;
}

/* ------------------------------------------------------------- server */

struct session {
	uint32_t node;
	uint16_t port;
	uint32_t type;
	uint64_t left, msgs, bytes;
};

static struct session sessions[MAX_SESSIONS];

static struct session *session_of(uint32_t node, uint16_t port, bool make)
{
	struct session *free_s = NULL;
	int i;

	for (i = 0; i < MAX_SESSIONS; i++) {
		struct session *s = &sessions[i];

		if (s->left && s->node == node && s->port == port)
			return s;
		if (!s->left && !free_s)
			free_s = s;
	}
	if (free_s && make) {
		free_s->node = node;
		free_s->port = port;
	}
	return make ? free_s : NULL;
}

/*
 * The server's sends.  A client that went away (killed mid-run) makes the
 * server's send to it fail later, with ECONNREFUSED; /dev/mrc returns that
 * as the endpoint's pending error from the next write(), which then sends
 * nothing (Documentation/mrc/devmrc.rst).  That write may be an answer to
 * another client: report the earlier failure and send it again, so that
 * one vanished client costs no other client its answer.
 */
static int server_send(int fd, void *buf, uint32_t node, uint16_t port,
		       uint32_t len)
{
	int err = send_msg_wait(fd, buf, node, port, len);

	if (err == -ECONNREFUSED || err == -ETIMEDOUT ||
	    err == -EHOSTUNREACH) {
		fprintf(stderr, "mrc-perf: an earlier send failed: %s\n",
			strerror(-err));
		err = send_msg_wait(fd, buf, node, port, len);
	}
	return err;
}

static void server_ack(int fd, struct session *s)
{
	struct {
		struct mrc_dev_send_hdr h;
		struct perf_ctl c;
	} m = { .c = { .magic = PERF_MAGIC, .type = PERF_ACK,
		       .msgs = s->msgs, .bytes = s->bytes } };
	int err = server_send(fd, &m, s->node, s->port, sizeof(m.c));

	if (err)
		fprintf(stderr, "mrc-perf: ack to %u:%u: %s\n", s->node,
			s->port, strerror(-err));
}

/* A STOP control message (data messages never carry PERF_MAGIC). */
static bool is_stop(const struct mrc_dev_recv_hdr *h, ssize_t len)
{
	struct perf_ctl c;

	if (len != sizeof(c))
		return false;
	memcpy(&c, h + 1, sizeof(c));
	return c.magic == PERF_MAGIC && c.type == PERF_STOP;
}

static int run_server(uint16_t port)
{
	struct mrc_dev_recv_hdr *h;
	size_t cap = 65536;
	char *buf = malloc(cap);
	int fd = ep_open(port, MRC_DEV_SNDWIN_MAX, MRC_DEV_RCVBUF_MAX);
	ssize_t len;

	if (!buf)
		fail("out of memory");
	fprintf(stderr, "mrc-perf: server on port %u\n", port);
	for (;;) {
		struct session *s;
		struct perf_ctl c;

		len = recv_msg(fd, &buf, &cap, &h);
		if (len < 0) {
			errno = -len;
			die("read");
		}
		s = session_of(h->src_node, h->src_port, false);
		if (s && is_stop(h, len)) {
			/* -T: the client sent all it will; the rest is off */
			s->left = 0;
			if (s->type == PERF_START_BW)
				server_ack(fd, s);
			continue;
		}
		if (s) {
			s->left--;
			s->msgs++;
			s->bytes += len;
			if (s->type == PERF_START_LAT) {
				struct mrc_dev_send_hdr *sh = (void *)buf;
				uint32_t node = h->src_node;
				uint16_t p = h->src_port;
				int err;

				/* Same size as mrc_dev_recv_hdr: in place. */
				err = server_send(fd, sh, node, p, len);
				if (err)
					fprintf(stderr, "mrc-perf: echo to %u:%u: %s\n",
						node, p, strerror(-err));
			} else if (!s->left) {
				server_ack(fd, s);
			}
			continue;
		}
		if (len != sizeof(c))
			continue;
		memcpy(&c, h + 1, sizeof(c));
		if (c.magic != PERF_MAGIC ||
		    (c.type != PERF_START_BW && c.type != PERF_START_LAT))
			continue;
		s = session_of(h->src_node, h->src_port, true);
		if (!s) {
			fprintf(stderr, "mrc-perf: too many clients\n");
			continue;
		}
		s->type = c.type;
		s->left = c.iters;
		s->msgs = 0;
		s->bytes = 0;
		if (!c.iters && c.type == PERF_START_BW)
			server_ack(fd, s);
	}
	return 0;
}

/* ------------------------------------------------------------- client */

struct opts {
	uint32_t node;
	uint16_t port;
	bool bw, sweep;
	uint64_t size, iters;
	double secs;		/* -T: time bound of a size's run, 0 = none */
	uint32_t window, endpoints;
};

static int *eps;
static uint32_t n_eps;

static void client_open(const struct opts *o)
{
	uint32_t i;

	eps = calloc(o->endpoints, sizeof(*eps));
	if (!eps)
		fail("out of memory");
	for (i = 0; i < o->endpoints; i++)
		eps[i] = ep_open(0, o->window, MRC_DEV_RCVBUF_DEF);
	n_eps = o->endpoints;
}

static void check_failures(void)
{
	struct mrc_dev_stats st;
	uint32_t i;

	for (i = 0; i < n_eps; i++) {
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		if (ioctl(eps[i], MRC_IOC_STATS, &st))
			die("MRC_IOC_STATS");
		if (st.tx_failed || st.rx_dropped) {
			fprintf(stderr, "mrc-perf: endpoint %u: %llu sends failed (last %s), %llu messages dropped\n",
				i, (unsigned long long)st.tx_failed,
				strerror(-st.last_error),
				(unsigned long long)st.rx_dropped);
			exit(1);
		}
	}
}

static int first_result = 1;

static void print_sep(void)
{
	if (json && !first_result)
		printf(",\n");
	first_result = 0;
}

/*
 * -T: the time is up; each endpoint still sending ends with a STOP that
 * says how many data messages it sent (bw: the server acknowledges them).
 */
static void bw_stop(const struct opts *o, uint64_t *left, const uint64_t *sent)
{
	uint32_t i;

	for (i = 0; i < o->endpoints; i++) {
		struct perf_ctl c = { .magic = PERF_MAGIC, .type = PERF_STOP,
				      .iters = sent[i] };

		if (!left[i])
			continue;	/* all sent: the server acks by count */
		left[i] = 0;
		send_ctl(eps[i], o->node, o->port, &c);
	}
}

static void run_bw(const struct opts *o, uint64_t size)
{
	uint32_t ne = o->endpoints, i, acked = 0;
	uint64_t *left = calloc(ne, sizeof(*left));
	uint64_t *sent_ep = calloc(ne, sizeof(*sent_ep));
	bool timed = false;
	uint64_t total_msgs = 0, total_bytes = 0, sent = 0;
	struct pollfd *pfd = calloc(ne, sizeof(*pfd));
	char *buf = malloc(sizeof(struct mrc_dev_send_hdr) + size);
	size_t rcap = 4096;
	char *rbuf = malloc(rcap);
	double t0, t1, last_prog;
	bool *done = calloc(ne, sizeof(*done));

	if (!left || !sent_ep || !pfd || !buf || !rbuf || !done)
		fail("out of memory");
	memset(buf + sizeof(struct mrc_dev_send_hdr), 0x5a, size);
	for (i = 0; i < ne; i++) {
		struct perf_ctl c = { .magic = PERF_MAGIC,
				      .type = PERF_START_BW, .size = size };

		left[i] = o->iters / ne + (i < o->iters % ne);
		c.iters = left[i];
		send_ctl(eps[i], o->node, o->port, &c);
		pfd[i].fd = eps[i];
	}
	t0 = now_s();
	last_prog = t0;
	while (acked < ne) {
		int n;

		if (o->secs && !timed && now_s() - t0 >= o->secs) {
			timed = true;
			bw_stop(o, left, sent_ep);
		}
		for (i = 0; i < ne; i++)
			pfd[i].events = POLLIN | (left[i] ? POLLOUT : 0);
		n = poll(pfd, ne, ACK_TIMEOUT_MS);
		if (n < 0 && errno != EINTR)
			die("poll");
		if (!n) {
			check_failures();
			fail("bw: no progress for MRC_PERF_TIMEOUT_S (default 60 s; server down?)");
		}
		for (i = 0; i < ne; i++) {
			if (pfd[i].revents & POLLERR)
				check_failures();
			while (left[i] && (pfd[i].revents & POLLOUT)) {
				int err;

				if (o->secs && now_s() - t0 >= o->secs)
					break;	/* STOP at the top of the loop */
				err = send_msg(eps[i], buf, o->node, o->port,
					       size);
				if (err == -EAGAIN)
					break;
				if (err) {
					errno = -err;
					die("bw: send");
				}
				left[i]--;
				sent_ep[i]++;
				sent++;
			}
			if (pfd[i].revents & POLLIN) {
				struct mrc_dev_recv_hdr *h;
				struct perf_ctl c;
				ssize_t len = recv_msg(eps[i], &rbuf, &rcap,
						       &h);

				if (len != sizeof(c))
					continue;
				memcpy(&c, h + 1, sizeof(c));
				if (c.magic != PERF_MAGIC ||
				    c.type != PERF_ACK || done[i])
					continue;
				done[i] = true;
				acked++;
				total_msgs += c.msgs;
				total_bytes += c.bytes;
			}
		}
		t1 = now_s();
		if (t1 - last_prog >= 1.0) {
			fprintf(stderr, "mrc-perf: bw %" PRIu64 " B: %" PRIu64
				"/%" PRIu64 " sent, %.1f s\n", size, sent,
				o->iters, t1 - t0);
			last_prog = t1;
		}
	}
	t1 = now_s();
	check_failures();
	if (total_msgs != sent || total_bytes != sent * size) {
		fprintf(stderr, "mrc-perf: server got %" PRIu64 " msgs / %"
			PRIu64 " B, expected %" PRIu64 " / %" PRIu64 "\n",
			total_msgs, total_bytes, sent, sent * size);
		exit(1);
	}
	{
		double dt = t1 - t0;
		double mbs = total_bytes / dt / 1e6, rate = total_msgs / dt;

		if (json) {
			print_sep();
			printf("    {\"bytes\": %" PRIu64 ", \"iterations\": %"
			       PRIu64 ", \"seconds\": %.6f, \"bw_MBps\": %.6f, "
			       "\"msg_rate\": %.3f, \"window\": %u, "
			       "\"time_bound\": %s}", size, sent, dt, mbs,
			       rate, o->window, timed ? "true" : "false");
		} else {
			printf(" %-10" PRIu64 " %-12" PRIu64 " %-14.2f %-14.1f\n",
			       size, sent, mbs, rate);
		}
		fflush(stdout);
	}
	free(left);
	free(sent_ep);
	free(pfd);
	free(buf);
	free(rbuf);
	free(done);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(const uint64_t *v, uint64_t n, double p)
{
	uint64_t i = (uint64_t)(p * (n - 1) + 0.5);

	return v[i] / 2000.0;	/* ns round trip -> us one way */
}

static void run_lat(const struct opts *o, uint64_t size)
{
	uint64_t warm = o->iters / 10 < 100 ? o->iters / 10 : 100;
	uint64_t total = o->iters + warm, i, nm;
	uint64_t *rtt = calloc(o->iters ? o->iters : 1, sizeof(*rtt));
	char *buf = malloc(sizeof(struct mrc_dev_send_hdr) + size);
	size_t rcap = sizeof(struct mrc_dev_recv_hdr) + size;
	char *rbuf = malloc(rcap);
	struct perf_ctl c = { .magic = PERF_MAGIC, .type = PERF_START_LAT,
			      .size = size, .iters = total };
	int fd = eps[0];
	double t0 = now_s(), last_prog = t0, tm = 0;

	if (!rtt || !buf || !rbuf)
		fail("out of memory");
	memset(buf + sizeof(struct mrc_dev_send_hdr), 0xa5, size);
	send_ctl(fd, o->node, o->port, &c);
	for (i = 0; i < total; i++) {
		struct mrc_dev_recv_hdr *h;
		struct timespec a, b;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t len;
		int err;

		/*
		 * -T: the warm-up takes at most a tenth of SECS, the measured
		 * round trips SECS (at least one).
		 */
		if (o->secs && i < warm && now_s() - t0 >= o->secs / 10) {
			warm = i;
			total = o->iters + warm;
		}
		if (i == warm)
			tm = now_s();
		if (o->secs && i > warm && now_s() - tm >= o->secs)
			break;
		clock_gettime(CLOCK_MONOTONIC, &a);
		err = send_msg_wait(fd, buf, o->node, o->port, size);
		if (err) {
			errno = -err;
			die("lat: send");
		}
		for (;;) {
			int n = poll(&p, 1, ACK_TIMEOUT_MS);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				check_failures();
				fail("lat: no echo for MRC_PERF_TIMEOUT_S (default 60 s; server down?)");
			}
			len = recv_msg(fd, &rbuf, &rcap, &h);
			if (len < 0) {
				errno = -len;
				die("lat: read");
			}
			if (h->src_node == o->node && h->src_port == o->port)
				break;
		}
		clock_gettime(CLOCK_MONOTONIC, &b);
		if ((uint64_t)len != size)
			fail("lat: echo of the wrong size");
		if (i >= warm)
			rtt[i - warm] = (b.tv_sec - a.tv_sec) * 1000000000ULL +
					b.tv_nsec - a.tv_nsec;
		if (now_s() - last_prog >= 1.0) {
			last_prog = now_s();
			fprintf(stderr, "mrc-perf: lat %" PRIu64 " B: %" PRIu64
				"/%" PRIu64 ", %.1f s\n", size, i, total,
				last_prog - t0);
		}
	}
	if (i < c.iters) {	/* -T ended it: the server's session too */
		struct perf_ctl stop = { .magic = PERF_MAGIC,
					 .type = PERF_STOP, .iters = i };

		send_ctl(fd, o->node, o->port, &stop);
	}
	check_failures();
	nm = i - warm;		/* measured round trips */
	qsort(rtt, nm, sizeof(*rtt), cmp_u64);
	if (json) {
		print_sep();
		printf("    {\"bytes\": %" PRIu64 ", \"iterations\": %" PRIu64
		       ", \"p50_us\": %.2f, \"p95_us\": %.2f, \"p99_us\": %.2f"
		       ", \"p99_9_us\": %.2f, \"max_us\": %.2f, "
		       "\"time_bound\": %s}", size,
		       nm, pct(rtt, nm, 0.5),
		       pct(rtt, nm, 0.95), pct(rtt, nm, 0.99),
		       pct(rtt, nm, 0.999), rtt[nm - 1] / 2000.0,
		       i < c.iters ? "true" : "false");
	} else {
		printf(" %-10" PRIu64 " %-12" PRIu64 " %-10.2f %-10.2f %-10.2f "
		       "%-10.2f %-10.2f\n", size, nm,
		       pct(rtt, nm, 0.5), pct(rtt, nm, 0.95),
		       pct(rtt, nm, 0.99), pct(rtt, nm, 0.999),
		       rtt[nm - 1] / 2000.0);
	}
	fflush(stdout);
	free(rtt);
	free(buf);
	free(rbuf);
}

static int run_client(struct opts *o)
{
	uint64_t s, max = o->sweep ? (o->size ? o->size : 1 << 20) : o->size;

	client_open(o);
	if (json)
		printf("{\"mode\": \"%s\", \"node\": %u, \"port\": %u, "
		       "\"window\": %u, \"endpoints\": %u, "
		       "\"busy_poll_us\": %u, \"results\": [\n",
		       o->bw ? "bw" : "lat", o->node, o->port, o->window,
		       o->endpoints, busy_poll_us);
	else if (o->bw)
		printf(" #bytes     #iterations  BW[MB/s]       MsgRate[msg/s]\n");
	else
		printf(" #bytes     #iterations  p50[usec]  p95[usec]  p99[usec]"
		       "  p99.9[usec] max[usec]\n");
	for (s = o->sweep ? 1 : o->size; s <= max; s *= 2) {
		if (o->bw)
			run_bw(o, s);
		else
			run_lat(o, s);
		if (!o->sweep)
			break;
	}
	if (json)
		printf("\n]}\n");
	return 0;
}

static void usage(int code)
{
	fprintf(code ? stderr : stdout,
		"usage: mrc-perf -s [-p PORT] [-b USEC]\n"
		"       mrc-perf -c NODE [-p PORT] bw|lat [-m SIZE | -a] [-n ITERS]\n"
		"                [-T SECS] [-w WINDOW] [-e ENDPOINTS] [-C CLASS]\n"
		"                [-b USEC] [-j]\n"
		"  -s            server: sink and acknowledge (bw), echo (lat)\n"
		"  -c NODE       client of the server on node NODE\n"
		"  -p PORT       server port (default %u)\n"
		"  -m SIZE       message size in bytes (default 65536 bw, 2 lat)\n"
		"  -a            sweep sizes 1, 2, 4 .. 1 MiB (or .. -m SIZE)\n"
		"  -n ITERS      messages per size (default 1000)\n"
		"  -T SECS       also end a size's run after SECS seconds (bw: of\n"
		"                sending; lat: of measured round trips, after a\n"
		"                warm-up of at most SECS/10); 0 = no bound (default)\n"
		"  -w WINDOW     bw: sends outstanding per endpoint (default 64;\n"
		"                the counterpart of perftest's -t tx depth, 128)\n"
		"  -e ENDPOINTS  bw: client endpoints sharing ITERS (default 1)\n"
		"  -C CLASS      traffic class of the endpoints: default, latency,\n"
		"                bulk, background (or 0..3)\n"
		"  -b USEC, --busy-poll[=USEC]\n"
		"                a read that would wait polls mrc's completion\n"
		"                queues for up to USEC us first (MRC_OPT_BUSY_POLL,\n"
		"                default 0; --busy-poll alone: %u); give it to\n"
		"                the server too\n"
		"  -j            JSON on stdout\n"
		"  -D PATH       device (default /dev/mrc)\n"
		"bw prints BW in MB/s (10^6 B/s) and the message rate (messages/s,\n"
		"perftest's MsgRate x 10^6) from the first send until the server\n"
		"confirmed every message; lat prints half the round trip.\n"
		"A run fails after MRC_PERF_TIMEOUT_S (environment, default 60)\n"
		"seconds without progress.\n",
		DEF_PORT, MRC_DEV_BUSY_POLL_MAX);
	exit(code);
}

static uint64_t num(const char *s, uint64_t min, uint64_t max, const char *w)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || end == s || v < min || v > max) {
		fprintf(stderr, "mrc-perf: bad %s '%s' (%" PRIu64 "..%" PRIu64
			")\n", w, s, min, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	struct opts o = { .port = DEF_PORT, .iters = 1000, .window = 64,
			  .endpoints = 1 };
	bool server = false, client = false;
	int c;
	const char *to = getenv("MRC_PERF_TIMEOUT_S");

	if (to)
		ack_timeout_ms = num(to, 1, 86400, "MRC_PERF_TIMEOUT_S") * 1000;

	static const struct option longopts[] = {
		{ "busy-poll", optional_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ }
	};

	while ((c = getopt_long(argc, argv, "sc:p:m:an:T:w:e:jD:C:b:h",
				longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			busy_poll_us = num(optarg, 0, MRC_DEV_BUSY_POLL_MAX,
					   "busy-poll microseconds");
			break;
		case 'B':
			busy_poll_us = optarg ?
				num(optarg, 0, MRC_DEV_BUSY_POLL_MAX,
				    "busy-poll microseconds") :
				MRC_DEV_BUSY_POLL_MAX;
			break;
		case 'C':
			/* mrc/core/names.c: the module's own class names */
			ep_class = mrc_sched_class_parse(optarg);
			if (ep_class < 0)
				ep_class = (int)num(optarg, 0, 255, "class");
			break;
		case 's':
			server = true;
			break;
		case 'c':
			client = true;
			o.node = num(optarg, 1, 0x7fffffff, "node");
			break;
		case 'p':
			o.port = num(optarg, 1, 65535, "port");
			break;
		case 'm':
			o.size = num(optarg, 1, MRC_DEV_MSG_MAX, "size");
			break;
		case 'a':
			o.sweep = true;
			break;
		case 'n':
			o.iters = num(optarg, 1, 1ULL << 40, "iterations");
			break;
		case 'T': {
			char *end;

			errno = 0;
			o.secs = strtod(optarg, &end);
			if (errno || *end || end == optarg || o.secs < 0 ||
			    o.secs > 86400) {
				fprintf(stderr, "mrc-perf: bad seconds '%s' (0..86400)\n",
					optarg);
				exit(2);
			}
			break;
		}
		case 'w':
			o.window = num(optarg, 1, MRC_DEV_SNDWIN_MAX, "window");
			break;
		case 'e':
			o.endpoints = num(optarg, 1, 256, "endpoints");
			break;
		case 'j':
			json = true;
			break;
		case 'D':
			dev_path = optarg;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	}
	if (server == client)
		usage(2);
	if (server)
		return run_server(o.port);
	if (optind != argc - 1)
		usage(2);
	if (!strcmp(argv[optind], "bw"))
		o.bw = true;
	else if (strcmp(argv[optind], "lat"))
		usage(2);
	if (!o.size && !o.sweep)
		o.size = o.bw ? 65536 : 2;
	if (!o.bw)
		o.endpoints = 1;
	return run_client(&o);
}
