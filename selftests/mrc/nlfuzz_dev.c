// SPDX-License-Identifier: GPL-2.0
/*
 * nlfuzz_dev.c - the /dev/mrc half of nlfuzz: NF_SLOTS open files shared
 * by the /dev/mrc workers, each doing at random open, close (also with
 * sends outstanding, and while other threads use the file), BIND,
 * SETOPT, GETOPT, STATS, FLUSH, unknown ioctls, write, read and poll,
 * with struct sizes shorter, longer (zero tail or not) and far beyond
 * PAGE_SIZE, addresses that are NULL, unmapped or cross into an
 * unmapped page, option values at and beyond their limits, headers with
 * a bad version, flags, class, port, node or length, and read buffers
 * too short.  nlfuzz's main thread interrupts the workers with signals,
 * so every blocking wait also ends with EINTR.
 *
 * Messages go to the real peer (ports PORT_BASE..+7, which the peer's
 * nlfuzz binds too), to this node, to the fuzz peers (configured by the
 * netlink half, never reachable) and to nodes nobody configured.  Every
 * payload sent is a prefix of one fixed pattern, so every message read
 * is checked whole: its header (length, flags, reserved, source) and
 * its bytes.  Only one message above 64 KiB is outstanding per file, so
 * the kernel's send memory stays bounded by what the VM has.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <linux/mrc.h>

#include "nlfuzz.h"

#define NF_SLOTS	8
#define NF_MSG_MAX	(4u << 20)	/* largest message really sent */
#define NF_BIG		(64u << 10)	/* one outstanding per file above */
#define NF_PAGE		4096u
#ifndef NF_DEV_PATH
#define NF_DEV_PATH	"/dev/mrc"
#endif

struct slot {
	pthread_rwlock_t lock;	/* read: using fd; write: opening/closing */
	int fd;			/* -1: closed */
	bool bound;		/* a BIND succeeded (a hint, unlocked) */
};

static struct slot slots[NF_SLOTS];
static unsigned char *pattern;	/* NF_MSG_MAX bytes, then a guard page */

/* Per worker: a header page right before a private copy of the pattern. */
struct dev_ctx {
	struct nf_rng rng;
	unsigned char *hdrpage;		/* NF_PAGE + NF_MSG_MAX + guard */
	unsigned char *cross;		/* a page, then an unmapped one */
	unsigned char *rbuf;		/* NF_MSG_MAX + 16, then guard */
};

static void *map_guarded(size_t len)
{
	unsigned char *p = mmap(NULL, len + NF_PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	mprotect(p + len, NF_PAGE, PROT_NONE);
	return p;
}

static void fill_pattern(unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (unsigned char)(i * 7 + (i >> 8) + 0x5a);
}

/**
 * nf_dev_setup() - the slots (all closed) and the payload pattern
 *
 * Return: 0, or -1 without memory.
 */
int nf_dev_setup(void)
{
	int i;

	for (i = 0; i < NF_SLOTS; i++) {
		pthread_rwlock_init(&slots[i].lock, NULL);
		slots[i].fd = -1;
	}
	pattern = map_guarded(NF_MSG_MAX);
	if (!pattern)
		return -1;
	fill_pattern(pattern, NF_MSG_MAX);
	return 0;
}

/* An address user space cannot read or write: NULL, unmapped, kernel. */
static void *bad_addr(struct dev_ctx *c)
{
	switch (nf_below(&c->rng, 4)) {
	case 0: return NULL;
	case 1: return c->cross + NF_PAGE;		/* unmapped */
	case 2: return (void *)0xffff888000000000ULL;	/* kernel */
	default: return c->cross + NF_PAGE - 2;		/* straddles */
	}
}

static uint32_t size_field(struct dev_ctx *c, uint32_t right)
{
	switch (nf_below(&c->rng, 10)) {
	case 0: return right - 1 - nf_below(&c->rng, right);
	case 1: return right + 8;
	case 2: return NF_PAGE + 1 + nf_below(&c->rng, 100000);
	case 3: return nf_rand(&c->rng);
	default: return right;
	}
}

/* The ioctl number, sometimes encoding another struct size. */
static unsigned long ioc_num(struct dev_ctx *c, unsigned long cmd)
{
	unsigned long sz;

	if (!nf_one_in(&c->rng, 6))
		return cmd;
	sz = nf_below(&c->rng, 2) ? nf_below(&c->rng, 64) : nf_below(&c->rng, 1 << 14);
	return (cmd & ~((unsigned long)_IOC_SIZEMASK << _IOC_SIZESHIFT)) |
	       (sz << _IOC_SIZESHIFT);
}

/*
 * An ioctl argument: @len bytes from @data at a good address (its end
 * against an unmapped page, so any over-read faults), sometimes with a
 * non-zero tail or at a bad address.  Returns the address to pass.
 */
static void *ioc_arg(struct dev_ctx *c, const void *data, size_t len,
		     size_t room)
{
	unsigned char *p;

	if (nf_one_in(&c->rng, 12))
		return bad_addr(c);
	if (room > NF_PAGE)
		room = NF_PAGE;
	if (len > room)
		len = room;
	p = c->cross + NF_PAGE - room;
	memset(p, 0, room);
	memcpy(p, data, len);
	if (room > len && nf_one_in(&c->rng, 4))
		p[len + nf_below(&c->rng, room - len)] = 1;
	return p;
}

static int do_ioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? errno : 0;
}

static uint16_t port_value(struct dev_ctx *c)
{
	switch (nf_below(&c->rng, 8)) {
	case 0: return 0;
	case 1: return nf_below(&c->rng, 1024);
	case 2: return nf_rand(&c->rng);
	default: return nf_cfg.port_base + nf_below(&c->rng, NF_DEV_PORTS);
	}
}

static void op_bind(struct dev_ctx *c, struct slot *sl, int fd)
{
	struct mrc_dev_bind b = { .size = sizeof(b) };
	size_t room = sizeof(b);
	int err;

	b.port = port_value(c);
	if (nf_one_in(&c->rng, 5)) {
		b.size = size_field(c, sizeof(b));
		room = b.size < NF_PAGE ? b.size : NF_PAGE;
	}
	if (nf_one_in(&c->rng, 20))
		b.reserved = nf_rand(&c->rng);
	err = do_ioctl(fd, ioc_num(c, MRC_IOC_BIND),
		       ioc_arg(c, &b, sizeof(b), room));
	if (!err)
		sl->bound = true;
	nf_count(NF_ST_DEV_BIND, err);
}

static uint64_t opt_value(struct dev_ctx *c)
{
	static const uint64_t odd[] = {
		0, 1, 2, 3, 4, 5, 4095, 4096, 65536, 1 << 20, 16 << 20,
		(256 << 20) - 1, 256 << 20, (256 << 20) + 1, 1023, 1024, 1025,
		9999, 10000, 10001, 0xffffffffULL, 1ULL << 32, ~0ULL,
	};

	if (nf_below(&c->rng, 4))
		return odd[nf_below(&c->rng, sizeof(odd) / sizeof(odd[0]))];
	return nf_below(&c->rng, 2) ? nf_below(&c->rng, 100) : nf_rand(&c->rng);
}

static void op_opt(struct dev_ctx *c, int fd, bool set)
{
	struct mrc_dev_opt o = { .size = sizeof(o) };
	size_t room = sizeof(o);

	o.opt = nf_one_in(&c->rng, 8) ? nf_rand(&c->rng) : nf_below(&c->rng, 8);
	o.value = opt_value(c);
	/* a big receive queue that is never read holds memory: rarely */
	if (set && o.opt == MRC_OPT_RCVBUF && o.value > (16 << 20) &&
	    !nf_one_in(&c->rng, 8))
		o.value = 1 << 20;
	if (nf_one_in(&c->rng, 5)) {
		o.size = size_field(c, sizeof(o));
		room = o.size < NF_PAGE ? o.size : NF_PAGE;
	}
	nf_count(set ? NF_ST_DEV_SETOPT : NF_ST_DEV_GETOPT,
		 do_ioctl(fd, ioc_num(c, set ? MRC_IOC_SETOPT : MRC_IOC_GETOPT),
			  ioc_arg(c, &o, sizeof(o), room)));
}

static int stats_of(int fd, struct mrc_dev_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	return do_ioctl(fd, MRC_IOC_STATS, s);
}

static void op_stats(struct dev_ctx *c, int fd)
{
	struct mrc_dev_stats s = { .size = sizeof(s) };
	size_t room = sizeof(s);

	if (nf_one_in(&c->rng, 4)) {
		s.size = size_field(c, sizeof(s));
		room = s.size < NF_PAGE ? s.size : NF_PAGE;
	}
	nf_count(NF_ST_DEV_STATS, do_ioctl(fd, ioc_num(c, MRC_IOC_STATS),
					    ioc_arg(c, &s, sizeof(s), room)));
}

static void op_badioctl(struct dev_ctx *c, int fd)
{
	unsigned long cmd;

	switch (nf_below(&c->rng, 3)) {
	case 0:	/* our magic, numbers beyond ours, any direction */
		cmd = _IOC(nf_below(&c->rng, 4), MRC_IOC_MAGIC,
			   6 + nf_below(&c->rng, 250), nf_below(&c->rng, 256));
		break;
	case 1:	/* FLUSH with a size, ours with direction bits changed */
		cmd = _IOC(nf_below(&c->rng, 4), MRC_IOC_MAGIC,
			   1 + nf_below(&c->rng, 5), nf_below(&c->rng, 64));
		break;
	default:
		cmd = (uint32_t)nf_rand(&c->rng);
		/* never another driver's numbers on this fd: only ours or junk */
		if (_IOC_TYPE(cmd) != MRC_IOC_MAGIC && _IOC_TYPE(cmd) < 0x80)
			cmd = (cmd & ~((unsigned long)_IOC_TYPEMASK << _IOC_TYPESHIFT)) |
			      (0xF8UL << _IOC_TYPESHIFT);
		break;
	}
	nf_count(NF_ST_DEV_BADIOCTL,
		 do_ioctl(fd, cmd, nf_below(&c->rng, 2) ? bad_addr(c) :
			  ioc_arg(c, "", 0, 64)));
}

static uint32_t dst_node(struct dev_ctx *c, bool *real)
{
	uint32_t v = nf_below(&c->rng, 16);

	*real = false;
	if (v < 9 && nf_cfg.peer) {
		*real = true;
		return nf_cfg.peer;
	}
	switch (v) {
	case 9: return nf_cfg.node;
	case 10: return 0;
	case 11: return 0x80000000u;
	case 12: return nf_cfg.fuzz_base - 1;
	default: return nf_cfg.fuzz_base + nf_below(&c->rng, NF_FUZZ_PEERS);
	}
}

static uint32_t msg_len(struct dev_ctx *c, bool big)
{
	uint32_t v = nf_below(&c->rng, 100);

	if (v < 5)
		return nf_below(&c->rng, 17);
	if (v < 70 || !big)
		return 1 + nf_below(&c->rng, 4096);
	if (v < 95)
		return 1 + nf_below(&c->rng, NF_BIG);
	return 1 + nf_below(&c->rng, NF_MSG_MAX);
}

static void op_write(struct dev_ctx *c, int fd)
{
	struct mrc_dev_send_hdr h = { .version = MRC_DEV_VERSION };
	struct mrc_dev_stats st;
	unsigned char *buf = c->hdrpage + NF_PAGE - sizeof(h);
	size_t count;
	bool real;
	ssize_t n;

	h.dst_node = dst_node(c, &real);
	h.dst_port = port_value(c);
	/* big messages only to the real peer, one outstanding per file */
	h.len = msg_len(c, real && !stats_of(fd, &st) && !st.tx_outstanding);
	if (nf_one_in(&c->rng, 6))
		h.flags = MRC_DEV_SEND_FLAGS(nf_below(&c->rng, 6));
	if (nf_one_in(&c->rng, 30))
		h.flags = nf_rand(&c->rng);
	if (nf_one_in(&c->rng, 30))
		h.version = nf_below(&c->rng, 4);
	count = sizeof(h) + h.len;
	switch (nf_below(&c->rng, 40)) {
	case 0:	/* a length that is not count's */
		count += nf_below(&c->rng, 2) ? 1 : -1;
		break;
	case 1:	/* above the largest message (never queued: EMSGSIZE) */
		h.len = MRC_DEV_MSG_MAX + nf_below(&c->rng, 3);
		break;
	case 2:	/* short: not even a header */
		count = nf_below(&c->rng, sizeof(h));
		break;
	case 3:	/* header at a bad address */
		nf_count(NF_ST_DEV_WRITE,
			 write(fd, bad_addr(c), count) < 0 ? errno : 0);
		return;
	case 4:	/* payload runs into an unmapped page: EFAULT, nothing sent */
		h.len = 64 + nf_below(&c->rng, 3000);
		buf = c->cross + NF_PAGE - sizeof(h) - nf_below(&c->rng, 64);
		count = sizeof(h) + h.len;
		break;
	}
	memcpy(buf, &h, sizeof(h));
	n = write(fd, buf, count);
	nf_count(NF_ST_DEV_WRITE, n < 0 ? errno : 0);
}

/* A message read: header and bytes as sent (a prefix of the pattern). */
static void check_read(const unsigned char *b, ssize_t n)
{
	struct mrc_dev_recv_hdr h;

	if (n < (ssize_t)sizeof(h)) {
		nf_anomaly("read returned %zd (< header)", n);
		return;
	}
	memcpy(&h, b, sizeof(h));
	if (h.len != n - sizeof(h) || h.flags || h.reserved)
		nf_anomaly("read: header len %u flags %u reserved %u, %zd bytes",
			   h.len, h.flags, h.reserved, n);
	else if (h.src_node != nf_cfg.peer && h.src_node != nf_cfg.node)
		nf_anomaly("read: message from node %u", h.src_node);
	else if (memcmp(b + sizeof(h), pattern, h.len))
		nf_anomaly("read: %u bytes from node %u port %u corrupted",
			   h.len, h.src_node, h.src_port);
}

static void op_read(struct dev_ctx *c, int fd)
{
	size_t room = NF_MSG_MAX + sizeof(struct mrc_dev_recv_hdr);
	unsigned char *buf = c->rbuf;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t count;
	ssize_t n;

	/* Mostly only when there is something: a blocking read waits. */
	if (!nf_one_in(&c->rng, 8) && poll(&p, 1, 0) == 0) {
		nf_count(NF_ST_DEV_POLL, 0);
		return;
	}
	switch (nf_below(&c->rng, 12)) {
	case 0:	count = nf_below(&c->rng, 17); break;	/* short */
	case 1:	count = 16 + nf_below(&c->rng, 100); break;
	case 2:	/* at a bad address, or running into one */
		if (nf_below(&c->rng, 2)) {
			buf = bad_addr(c);
			count = room;
		} else {
			count = 16 + nf_below(&c->rng, 200);
			buf = c->cross + NF_PAGE - nf_below(&c->rng, 64);
		}
		break;
	default: count = room; break;
	}
	n = read(fd, buf, count);
	nf_count(NF_ST_DEV_READ, n < 0 ? errno : 0);
	if (n >= 0 && buf == c->rbuf)
		check_read(buf, n);
}

static void op_poll(struct dev_ctx *c, int fd)
{
	struct pollfd p = {
		.fd = fd,
		.events = nf_below(&c->rng, 2) ? POLLIN | POLLOUT :
						 (short)nf_rand(&c->rng),
	};
	int n = poll(&p, 1, nf_below(&c->rng, 50));

	nf_count(NF_ST_DEV_POLL, n < 0 ? errno : 0);
}

static void op_open(struct dev_ctx *c, struct slot *s)
{
	int fd;

	if (pthread_rwlock_trywrlock(&s->lock))
		return;
	if (s->fd < 0) {
		fd = open(NF_DEV_PATH, O_RDWR | O_CLOEXEC |
			  (nf_below(&c->rng, 2) ? O_NONBLOCK : 0));
		nf_count(NF_ST_DEV_OPEN, fd < 0 ? errno : 0);
		s->fd = fd;
		s->bound = false;
	}
	pthread_rwlock_unlock(&s->lock);
}

static void op_close(struct dev_ctx *c, struct slot *s)
{
	(void)c;
	if (pthread_rwlock_trywrlock(&s->lock))
		return;		/* in use: closed another time */
	if (s->fd >= 0) {
		nf_count(NF_ST_DEV_CLOSE, close(s->fd) ? errno : 0);
		s->fd = -1;
		s->bound = false;
	}
	pthread_rwlock_unlock(&s->lock);
}

static void dev_step(struct dev_ctx *c)
{
	struct slot *s = &slots[nf_below(&c->rng, NF_SLOTS)];
	uint32_t v = nf_below(&c->rng, 100);
	int fd;

	if (v < 3) {
		op_close(c, s);
		return;
	}
	pthread_rwlock_rdlock(&s->lock);
	fd = s->fd;
	if (fd < 0) {
		pthread_rwlock_unlock(&s->lock);
		op_open(c, s);
		return;
	}
	if (v < 10 || (!s->bound && nf_below(&c->rng, 2)))
		op_bind(c, s, fd);
	else if (v < 16)
		op_opt(c, fd, true);
	else if (v < 20)
		op_opt(c, fd, false);
	else if (v < 24)
		op_stats(c, fd);
	else if (v < 26)
		nf_count(NF_ST_DEV_FLUSH, do_ioctl(fd, ioc_num(c, MRC_IOC_FLUSH),
						    NULL));
	else if (v < 29)
		op_badioctl(c, fd);
	else if (v < 55)
		op_write(c, fd);
	else if (v < 90)
		op_read(c, fd);
	else
		op_poll(c, fd);
	pthread_rwlock_unlock(&s->lock);
}

/**
 * nf_dev_thread() - a /dev/mrc worker: random operations until told to stop
 * @arg: the thread's index, as a uintptr_t (its random stream)
 *
 * Return: NULL.
 */
void *nf_dev_thread(void *arg)
{
	struct dev_ctx c = {};
	unsigned long n;

	nf_rng_init(&c.rng, (uintptr_t)arg);
	c.hdrpage = map_guarded(NF_PAGE + NF_MSG_MAX);
	c.cross = map_guarded(NF_PAGE);
	c.rbuf = map_guarded(NF_MSG_MAX + NF_PAGE);
	if (!c.hdrpage || !c.cross || !c.rbuf) {
		nf_anomaly("/dev/mrc worker: no memory");
		return NULL;
	}
	memcpy(c.hdrpage + NF_PAGE, pattern, NF_MSG_MAX);
	for (n = 0; !nf_stop && (!nf_cfg.count || n < nf_cfg.count); n++)
		dev_step(&c);
	munmap(c.hdrpage, 2 * NF_PAGE + NF_MSG_MAX);
	munmap(c.cross, 2 * NF_PAGE);
	munmap(c.rbuf, NF_MSG_MAX + 2 * NF_PAGE);
	__atomic_add_fetch(&nf_done, 1, __ATOMIC_RELAXED);
	return NULL;
}

/*
 * Everything queued on @fd read and checked, non-blocking; false if its
 * STATS still count queued messages that read() does not return (asked
 * a few times: the peer may be delivering right then).
 */
static bool drain(int fd, unsigned char *buf, int idx)
{
	struct mrc_dev_stats st;
	int tries = 0;

	for (;;) {
		ssize_t r = read(fd, buf, NF_MSG_MAX + 16);

		if (r >= 0) {
			check_read(buf, r);
			continue;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN) {
			nf_anomaly("file %d: read at rest: %s", idx,
				   strerror(errno));
			return false;
		}
		if (stats_of(fd, &st)) {
			nf_anomaly("file %d: STATS failed", idx);
			return false;
		}
		if (!st.rx_queued_msgs && !st.rx_queued_bytes &&
		    !st.rx_next_len)
			return true;
		if (++tries > 3) {
			nf_anomaly("file %d: read() finds nothing, still %llu queued (%llu B, next %llu B)",
				   idx, (unsigned long long)st.rx_queued_msgs,
				   (unsigned long long)st.rx_queued_bytes,
				   (unsigned long long)st.rx_next_len);
			return false;
		}
		usleep(10000);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The files at rest, all together: every accepted send completes, the
 * counters agree (accepted = done + failed, none outstanding), and every
 * queued message reads back intact, leaving the queues empty.  The
 * queues are read while the sends are waited for: a send to a full
 * endpoint (its queue holds RCVBUF bytes) waits, by design, until that
 * endpoint reads, and that endpoint may be another of these files, or
 * one of the peer's, whose nlfuzz reads its own at the same time.
 *
 * How long: a send that makes no progress is what must not be, so the
 * wait ends NF_SETTLE_QUIET_S after the last send of this node completed
 * (each completion, counted by debugfs mrc/msg, starts that clock again;
 * without debugfs, each of these files' sends), and at NF_SETTLE_MAX_S in
 * all.  Draining is legitimately slow after a fuzz: a receiver remembers
 * at most 32 refusals per peer, each for peer_timeout_ms after its
 * message's last packet (core/msg_rx.c, Refusal), and the fuzz leaves
 * hundreds of sends queued to ports nobody binds, the sends of the files
 * it closed included, in the same lanes as these files' sends.
 */
#define NF_SETTLE_QUIET_S	60
#define NF_SETTLE_MAX_S		300

/* Sends this node completed so far (tx_done + tx_failed), or 0. */
static unsigned long long completions(void)
{
	FILE *f = fopen("/sys/kernel/debug/mrc/msg", "r");
	unsigned long long n = 0, v;
	char name[64];

	if (!f)
		return 0;
	while (fscanf(f, "%63s %llu", name, &v) == 2)
		if (!strcmp(name, "tx_done") || !strcmp(name, "tx_failed"))
			n += v;
	fclose(f);
	return n;
}

static void settle_all(void)
{
	unsigned char *buf = malloc(NF_MSG_MAX + 16);
	double t0 = now_s(), quiet = t0 + NF_SETTLE_QUIET_S;
	unsigned long long done = completions(), d;
	unsigned long pending, last = ~0UL;
	struct mrc_dev_stats st;
	bool ok[NF_SLOTS];
	int i, err;

	if (!buf) {
		nf_anomaly("settle: no memory");
		return;
	}
	for (i = 0; i < NF_SLOTS; i++) {
		ok[i] = true;
		if (slots[i].fd >= 0)
			fcntl(slots[i].fd, F_SETFL, O_NONBLOCK);
	}
	do {
		pending = 0;
		for (i = 0; i < NF_SLOTS; i++) {
			if (slots[i].fd < 0 || !ok[i])
				continue;
			ok[i] = drain(slots[i].fd, buf, i);
			if (ok[i] && !stats_of(slots[i].fd, &st))
				pending += st.tx_outstanding;
		}
		d = completions();
		if (pending < last || d != done)
			quiet = now_s() + NF_SETTLE_QUIET_S;
		last = pending;
		done = d;
		if (pending)
			usleep(20000);
	} while (pending && now_s() < quiet && now_s() < t0 + NF_SETTLE_MAX_S);
	printf("# files at rest after %.1f s (%lu sends outstanding)\n",
	       now_s() - t0, pending);
	for (i = 0; i < NF_SLOTS; i++) {
		int fd = slots[i].fd;

		if (fd < 0)
			continue;
		alarm(5);	/* SIGALRM without SA_RESTART: EINTR */
		err = do_ioctl(fd, MRC_IOC_FLUSH, NULL);
		alarm(0);
		if (stats_of(fd, &st)) {
			nf_anomaly("file %d: STATS failed", i);
			continue;
		}
		if (err == EINTR || st.tx_outstanding ||
		    st.tx_msgs != st.tx_done + st.tx_failed)
			nf_anomaly("file %d at rest: %llu sends accepted, %llu done, %llu failed, %llu outstanding; its queue held back %llu messages",
				   i, (unsigned long long)st.tx_msgs,
				   (unsigned long long)st.tx_done,
				   (unsigned long long)st.tx_failed,
				   (unsigned long long)st.tx_outstanding,
				   (unsigned long long)st.rx_busy);
		if (ok[i])
			drain(fd, buf, i);
	}
	free(buf);
}

/**
 * nf_dev_cleanup() - every file still open (workers stopped) settled,
 * checked and closed
 */
void nf_dev_cleanup(void)
{
	int i;

	if (pattern)
		settle_all();
	for (i = 0; i < NF_SLOTS; i++) {
		if (slots[i].fd >= 0)
			nf_count(NF_ST_DEV_CLOSE, close(slots[i].fd) ? errno : 0);
		slots[i].fd = -1;
	}
}
