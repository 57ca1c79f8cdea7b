// SPDX-License-Identifier: GPL-2.0
/*
 * garbage - a stream of hostile datagrams at a steady rate, from a node
 * that is not a peer of the target (selftests/mrc/hostile.sh).
 *
 * The tool opens its own UD QP on a local rxe device (udsend.c) and sends
 * the target's mrc QPs, round robin, up to RATE datagrams per second for
 * SECS seconds (in batches of 16 per post: one doorbell), each one of (by a seeded PRNG, so a seed repeats a run):
 *
 *   - random bytes of random length;
 *   - a well-formed packet of a routed type (DATA, SACK, NACK, PROBE,
 *     PROBE_REPLY, CREDIT_REQ, GRANT, RAIL_DOWN) in the name of the
 *     target's peer (-s), with a random token: what an off-path node can
 *     forge;
 *   - the same in the name of a random node that is not a peer;
 *   - either of the last two with a random byte overwritten or cut short.
 *
 * What the target must make of each is decided by mrc's own parser
 * (mrc/core/wire.c, compiled in) with the target's limits: its drop
 * reason if it refuses the packet; for a packet it accepts, unknown_peer
 * if the claimed sender is not the peer, else bad_token (a random 64-bit
 * token is the real one with odds of 2^-64).  Accepted HELLO and
 * HELLO_REPLY packets, and packets claiming to come from the target
 * itself, are drawn again: what they cost is rogue.c's subject.
 *
 * With -k QKEY (not mrc's) the same stream is a control: rxe drops every
 * datagram at its Q_Key check, so it costs the target's NIC and rxe but
 * not mrc, and the tool expects "invisible" for all.
 *
 * Output (as rogue.c's):
 *	expect REASON N		per drop reason
 *	sent verbs N
 *	rate N			datagrams per second achieved
 * Exit 0 if everything was sent, 1 on error.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../mrc/core/wire.h"
#include "udsend.h"

#define MRC_QKEY	0x4d524331	/* mrc/ud.h MRC_UD_QKEY */
#define MRC_MSG_CAP	(64U << 20)	/* mrc/mrc_api.h MRC_MSG_MAX_LEN */
#define MAX_QPNS	64
#define DEPTH		64		/* sends in flight */
#define SLOT		2048		/* buffer bytes per send in flight */
#define MAX_LEN		1100		/* below any receive buffer of mrc */
#define GARBAGE_TOS	0x30		/* DSCP AF12: marks our datagrams */
#define BATCH		16		/* datagrams per post (one doorbell) */
#define STALL_NS	10000000000ULL	/* no send completion this long: give up */

static u64 rng_state;

/* xorshift64*: the same seed, the same stream. */
static u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static u32 peer_node = 2, target_node = 1;
static unsigned long long expect[MRC_DROP_NR];

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "garbage: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	exit(1);
}

/* A well-formed packet of @type from @src with @token in @buf. */
static u32 build(u8 *buf, u8 type, u32 src, u64 token)
{
	struct mrc_pkt p = {
		.version = MRC_WIRE_VERSION,
		.type = type,
		.src_node = src,
		.dst_node = target_node,
		.src_port = rnd() & 0xffff,
		.dst_port = rnd() & 0xffff,
		.msg_id = rnd(),
		.token = token,
		.entropy = rnd() % 24,
	};
	u8 *body = buf + MRC_WIRE_HDR_LEN;

	switch (type) {
	case MRC_PKT_DATA:
		p.msg_len = 1 + rnd() % 4000;
		p.seg = 1000;
		p.offset = 0;
		p.len = p.msg_len < 1000 ? p.msg_len : 1000;
		p.flags = p.msg_len <= 1000 ? MRC_WF_LAST : 0;
		memset(body, (int)rnd(), p.len);
		break;
	case MRC_PKT_SACK: {
		struct mrc_pkt_sack s = { .cum = rnd() % 64, .nbits = 8 };

		s.bitmap[0] = rnd();
		p.len = mrc_wire_put_sack(body, &s);
		break;
	}
	case MRC_PKT_NACK: {
		struct mrc_pkt_nack_range r = {
			.first = rnd() % 64, .count = 1 + rnd() % 8,
		};

		p.len = mrc_wire_put_nack(body, &r, 1);
		break;
	}
	case MRC_PKT_CREDIT_REQ:
	case MRC_PKT_GRANT: {
		struct mrc_pkt_credit c = {
			.msg_len = 1 << 20, .granted = 1 << 20,
			.seq = rnd() % 1000,
		};

		p.len = mrc_wire_put_credit(body, &c);
		break;
	}
	case MRC_PKT_RAIL_DOWN:
		p.len = mrc_wire_put_rail_down(body, rnd() % 8);
		break;
	default:		/* PROBE, PROBE_REPLY: header only */
		break;
	}
	mrc_wire_put_hdr(buf, &p);
	return MRC_WIRE_HDR_LEN + p.len;
}

/*
 * One hostile datagram in @buf; returns its length and sets *@why to the
 * reason the target must drop it for.
 */
static u32 make(u8 *buf, int *why)
{
	static const u8 types[] = { MRC_PKT_DATA, MRC_PKT_SACK, MRC_PKT_NACK,
		MRC_PKT_PROBE, MRC_PKT_PROBE_REPLY, MRC_PKT_CREDIT_REQ,
		MRC_PKT_GRANT, MRC_PKT_RAIL_DOWN };
	const struct mrc_wire_limits lim = {
		.max_msg_len = MRC_MSG_CAP, .local_node = target_node,
	};
	enum mrc_drop_reason r;
	struct mrc_pkt p;
	u32 len, i, src;

	for (;;) {
		switch (rnd() % 3) {
		case 0:		/* random bytes */
			len = 1 + rnd() % 256;
			for (i = 0; i < len; i++)
				buf[i] = rnd();
			break;
		default:	/* forged in the peer's or a stranger's name */
			src = rnd() & 1 ? peer_node : rnd() % 1000 + 100;
			len = build(buf, types[rnd() % sizeof(types)], src,
				    rnd());
			switch (rnd() % 4) {
			case 0:
				buf[rnd() % len] = rnd();
				break;
			case 1:
				len = 1 + rnd() % len;
				break;
			}
			break;
		}
		r = mrc_wire_parse(buf, len, &lim, &p);
		if (r != MRC_DROP_NONE) {
			*why = r;
			return len;
		}
		if (p.type == MRC_PKT_HELLO || p.type == MRC_PKT_HELLO_REPLY ||
		    p.src_node == target_node)
			continue;
		*why = p.src_node == peer_node ? MRC_DROP_BAD_TOKEN :
						 MRC_DROP_UNKNOWN_PEER;
		return len;
	}
}

static u64 now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (u64)t.tv_sec * 1000000000ULL + t.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: garbage -t TARGET_IP -q QPN[,QPN...] [-d DEV] [-s PEER_NODE]\n"
		"               [-D TARGET_NODE] [-r RATE] [-T SECS] [-S SEED] [-k QKEY]\n"
		"-r: datagrams per second at most (default 10000), for -T seconds\n"
		"(default 10); -k: another Q_Key than mrc's, for a control run\n"
		"whose datagrams rxe drops before mrc sees them\n");
	exit(2);
}

/* The sender: datagrams posted and completed (in order), its QP. */
static struct ud_sender us;
static u64 posted, done;
static u32 qkey = MRC_QKEY, qpns[MAX_QPNS], nqpn;

/* Posts @n (<= BATCH) hostile datagrams, the i-th in buffer slot @slot[i]. */
static void post(unsigned int n, const unsigned int *slot)
{
	struct ud_msg m[BATCH];
	unsigned int i;
	int why, err;

	for (i = 0; i < n; i++) {
		m[i].off = slot[i] * SLOT;
		m[i].len = make(us.buf + m[i].off, &why);
		m[i].qpn = qpns[(posted + i) % nqpn];
		expect[why]++;
	}
	err = ud_post_n(&us, m, n, qkey);
	if (err)
		die("ibv_post_send: %s", strerror(err));
	posted += n;
}

/*
 * Waits until at most @max datagrams are in flight.  rxe (Linux 6.1) can
 * stop completing a queue pair's sends for good under this stream (the
 * QP then holds references that rxe warns about when it is destroyed);
 * after STALL_NS without a completion, give up with a message rather
 * than wait forever.
 */
static void reap_to(u64 max)
{
	u64 quiet = now_ns();
	int got;

	while (posted - done > max) {
		got = ud_reap(&us, (int)(posted - done));
		if (got) {
			done += got;
			quiet = now_ns();
		} else if (now_ns() - quiet >= STALL_NS) {
			die("%s: no send completion for 10 s", "rxe");
		}
	}
}

int main(int argc, char **argv)
{
	unsigned int rate = 10000, secs = 10, slot[BATCH], i;
	u64 seed = 1, nslot = 0, t0, t, due, end;
	const char *dev = "rxe0";
	struct in_addr target = {};
	int c;

	while ((c = getopt(argc, argv, "d:t:q:s:D:r:T:S:k:")) != -1) {
		switch (c) {
		case 'd':
			dev = optarg;
			break;
		case 't':
			if (inet_pton(AF_INET, optarg, &target) != 1)
				usage();
			break;
		case 'q':
			nqpn = ud_parse_qpns(optarg, qpns, MAX_QPNS);
			break;
		case 's':
			peer_node = strtoul(optarg, NULL, 0);
			break;
		case 'D':
			target_node = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			rate = strtoul(optarg, NULL, 0);
			break;
		case 'T':
			secs = strtoul(optarg, NULL, 0);
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'k':
			qkey = strtoul(optarg, NULL, 0);
			break;
		default:
			usage();
		}
	}
	if (!nqpn || !target.s_addr || !rate || !secs)
		usage();
	rng_state = seed * 0x9e3779b97f4a7c15ULL | 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	ud_open(&us, dev, target, GARBAGE_TOS, DEPTH, DEPTH * SLOT);
	printf("# garbage QP %u on %s: %u/s for %u s to %u QPs, seed %llu\n",
	       us.qp->qp_num, dev, rate, secs, nqpn,
	       (unsigned long long)seed);

	t0 = now_ns();
	end = t0 + secs * 1000000000ULL;
	while (now_ns() < end) {
		/* The next batch is due at t0 + posted / rate. */
		due = t0 + posted * 1000000000ULL / rate;
		while ((t = now_ns()) < due && t < end)
			usleep(100);
		/*
		 * Datagrams take the slots in turn: the last DEPTH
		 * of them are the only ones that can be in flight.
		 */
		reap_to(DEPTH - BATCH);
		for (i = 0; i < BATCH; i++)
			slot[i] = (nslot + i) % DEPTH;
		post(BATCH, slot);
		nslot += BATCH;
		done += ud_reap(&us, (int)(posted - done));
	}
	reap_to(0);
	t = now_ns() - t0;
	if (qkey != MRC_QKEY) {	/* rxe drops them all: mrc sees none */
		memset(expect, 0, sizeof(expect));
		printf("expect invisible %llu\n", (unsigned long long)posted);
	}
	for (i = 1; i < MRC_DROP_NR; i++)
		if (expect[i])
			printf("expect %s %llu\n", mrc_drop_reason_name(i),
			       expect[i]);
	printf("sent verbs %llu\nrate %llu\n", (unsigned long long)posted,
	       (unsigned long long)(posted * 1000000000ULL / (t ?: 1)));
	return 0;
}
