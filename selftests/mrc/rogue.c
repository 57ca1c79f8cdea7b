// SPDX-License-Identifier: GPL-2.0
/*
 * rogue - send hostile mrc packets to an mrc node (selftests/mrc/rogue.sh).
 *
 * Two ways of reaching the target, both real:
 *
 *  - verbs: the tool opens its own UD QP on a local rxe device (libibverbs)
 *    and sends crafted datagrams to the target's mrc QPNs.  This is what any
 *    process with an RDMA device on the fabric can do.  The source QPN is
 *    the tool's own, so every packet that gets past header validation must
 *    be refused as coming from a node that is not a peer or from a QP that
 *    is not one of the peer's paths.
 *
 *  - raw (-i IFACE): the tool captures one DATA frame that the local mrc
 *    sends to the target (RoCEv2: Ethernet/IPv4/UDP 4791/BTH/DETH/mrc/ICRC),
 *    checks that it recomputes the captured ICRC exactly, and then sends
 *    forged frames with the same addresses and QPNs through a packet socket:
 *    they look like they come from one of the peer's real paths.  This
 *    reaches what the verbs path cannot: datagrams larger than the target's
 *    receive buffers (rxe puts the receiving QP into ERROR; mrc must recover
 *    it) and SACK/NACK/DATA that pass the path check.
 *
 * Every crafted packet is first run through mrc_wire_parse() (mrc/core/wire.c,
 * compiled in) with the target's limits: a kind that claims a header-level
 * drop reason must get exactly that reason from the real parser, a kind
 * that must pass the parser must pass it.  So the expectations printed are
 * the parser's, not hard-coded guesses.
 *
 * Output, one line per kind and one per reason:
 *	kind NAME sent N expect REASON
 *	expect REASON N
 * REASON is a drop reason name (sysfs rails/<rail>/drops/<reason>), or
 * "qp_error" (the receiving QP goes to ERROR and is recovered: counters
 * qp_errors/qp_recoveries), or "invisible" (rxe drops it before mrc sees
 * it: wrong qkey).  Then the datagrams sent from our QP and the frames
 * forged on a packet socket, both with IPv4 TOS 0x28 (ROGUE_TOS) so that
 * the target can count those that reach it:
 *	sent verbs N
 *	sent raw N
 * Exit 0 if everything was sent, 1 on error.
 *
 * Credit packets (CREDIT_REQ, GRANT): "credit" sends malformed, oversized
 * and well-formed ones from the tool's own QP (parser reasons, then
 * wrong_path / unknown_peer); "spoof_credit" forges them on a real path
 * from the GRANTs and CREDIT_REQs our mrc sends the target (k_spoof_credit
 * lists them) and also prints the totals the target's credit counters
 * must move by:
 *	credit grants_bad N	(the target as a sender, per peer)
 *	credit grants_stale N	(at least N: late real grants count too)
 *	credit grants_either N	(N more in grants_bad or grants_stale)
 *	credit requests_bad N	(the target as a receiver, per peer)
 *	credit requests_stale N	(at least N: reordered real ones count too)
 *	credit requests_either N (N more in requests_bad or requests_stale)
 * "bad_type" covers every type above MRC_PKT_TYPE_MAX, so types added
 * later drop out of it.
 *
 * Tokens (wire version 3): the target drops every packet from a
 * configured peer that does not carry the token it gave that peer in its
 * SIDR requests (bad_token), right after the peer lookup.  The tool sits
 * on the peer and is as good as on-path, which the token does not protect
 * against: the verbs kinds that must reach the checks after it
 * (wrong_path, probe_flood, credit) put in the real token, given with -K
 * (read from the peer's debugfs mrc/tokens, a root-only test hook), and
 * the raw kinds copy it from the captured frame.  What an off-path node
 * can do - forge the addresses, QPNs, node id, epoch, msg_id and seq but
 * not the token - is "wrong_token" (from the tool's QP, every type to
 * every QP with tokens near the real one, 0 and random ones),
 * "spoof_wrong_token" (the same forged on a real path), "spoof_epoch"
 * (rogue_epoch.sh) and spoof_credit's "spoof_grant_next" and
 * "spoof_req_next": all must be bad_token.
 *
 * Freshness: "replay_rail_down" (auth.sh) records a real RAIL_DOWN and
 * sends it again, token and all: replayed, and nothing changes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include <infiniband/verbs.h>

#include "../../mrc/core/wire.h"
#include "../../mrc/core/msg.h"
#include "udsend.h"

#define MRC_QKEY	0x4d524331	/* mrc/ud.h MRC_UD_QKEY */
#define MRC_MSG_CAP	(64U << 20)	/* mrc/mrc_api.h MRC_MSG_MAX_LEN */
#define MAX_QPNS	64
#define BUF_LEN		9000
#define PACE_BURST	16		/* sends between pauses ... */
#define PACE_US		3000		/* ... so the target can repost */

#define ROCE_PORT	4791
#define BTH_LEN		12
#define DETH_LEN	8
#define ICRC_LEN	4
#define OP_UD_SEND_ONLY	0x64
#define ROGUE_TOS	0x28	/* DSCP AF11: marks forged frames */

static const char *dev_name = "rxe0";
static struct in_addr target;
static u32 qpns[MAX_QPNS], nqpn;		/* target's mrc QPNs, by ev */
static u32 local_qpns[MAX_QPNS], nlocal;	/* our mrc's QPNs (raw) */
static u32 peer_node = 2, target_node = 1, stranger = 99;
static unsigned int flood = 1000;
static unsigned int spoof_secs = 60;	/* spoof_credit's capture, at most */
static u64 peer_token;			/* -K: the token the target expects
					 * from peer_node (debugfs mrc/tokens
					 * on the peer)
					 */
static bool have_token;
static unsigned int pause_scale = 1;	/* -P: slow targets (debug kernels) */
static const char *ifname;
static bool verbose;

static unsigned long long expect[MRC_DROP_NR], expect_qp_error,
	expect_invisible;
/* Datagrams sent from our QP, forged frames sent (packet socket). */
static unsigned long long verbs_sent, raw_sent;

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "rogue: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void pace(unsigned int i)
{
	if (i % PACE_BURST == PACE_BURST - 1)
		usleep(PACE_US * pause_scale);
}

/*
 * The @i-th wrong token for a target that expects @real: near misses
 * (one bit off, complemented, one more), 0 (never drawn) and values an
 * off-path guesser might try.  Never @real.
 */
static u64 wrong_token(u64 real, unsigned int i)
{
	static const u64 guess[] = { 0, 1, ~0ULL, 0x5555555555555555ULL };
	u64 t;

	switch (i % 8) {
	case 0: t = real ^ 1; break;
	case 1: t = real ^ (1ULL << 63); break;
	case 2: t = ~real; break;
	case 3: t = real + 1; break;
	default: t = guess[i % 8 - 4]; break;
	}
	return t == real ? real ^ 2 : t;
}
#define WRONG_TOKENS	8

static void need_token(const char *kind)
{
	if (!have_token)
		die("%s: needs -K TOKEN (the peer's debugfs mrc/tokens)", kind);
}

/* ------------------------------------------------------------ packets */

static struct mrc_pkt base_hdr(u8 type)
{
	struct mrc_pkt p = {
		.version = MRC_WIRE_VERSION,
		.type = type,
		.src_node = peer_node,
		.dst_node = target_node,
		.src_port = 7,
		.dst_port = 7,
		.msg_id = 0x7fffffff00000000ULL,
		.token = peer_token,
	};
	return p;
}

/* A valid packet of @type (body included) in @buf; returns its length. */
static u32 build(u8 *buf, u8 type, u32 src_node)
{
	struct mrc_pkt p = base_hdr(type);
	u8 *body = buf + MRC_WIRE_HDR_LEN;

	p.src_node = src_node;
	/* A stranger has no token to know: any value. */
	if (src_node != peer_node)
		p.token = 0x0123456789abcdefULL;
	switch (type) {
	case MRC_PKT_DATA:
		p.msg_len = 1000;
		p.seg = 1000;
		p.len = 1000;
		p.flags = MRC_WF_LAST;
		memset(body, 0xa5, p.len);
		break;
	case MRC_PKT_SACK: {
		struct mrc_pkt_sack s = { .cum = 1, .nbits = 8 };

		s.bitmap[0] = 0xff;
		p.len = mrc_wire_put_sack(body, &s);
		break;
	}
	case MRC_PKT_NACK: {
		struct mrc_pkt_nack_range r = { .first = 0, .count = 4 };

		p.len = mrc_wire_put_nack(body, &r, 1);
		break;
	}
	case MRC_PKT_CREDIT_REQ:
	case MRC_PKT_GRANT: {
		struct mrc_pkt_credit c = {
			.msg_len = 1 << 20, .granted = 1 << 20,
			.seq = type == MRC_PKT_GRANT,
		};

		p.len = mrc_wire_put_credit(body, &c);
		break;
	}
	case MRC_PKT_RAIL_DOWN:	/* "your paths to my rail 0 are dead" */
		p.len = mrc_wire_put_rail_down(body, 0);
		break;
	default: {
		struct mrc_pkt_hello h = { .qpn = 1, .qkey = MRC_QKEY };

		p.len = mrc_wire_put_hello(body, &h);
		break;
	}
	}
	mrc_wire_put_hdr(buf, &p);
	return MRC_WIRE_HDR_LEN + p.len;
}

/* Rewrites header field @off (1, 2 or 4 bytes, big-endian) of @buf. */
static void poke(u8 *buf, size_t off, unsigned int size, u32 v)
{
	if (size == 1) {
		buf[off] = v;
	} else if (size == 2) {
		u16 x = htons(v);

		memcpy(buf + off, &x, 2);
	} else {
		u32 x = htonl(v);

		memcpy(buf + off, &x, 4);
	}
}

/* Rewrites the header's token (big-endian) of @buf. */
static void poke_token(u8 *buf, u64 v)
{
	unsigned int b;

	for (b = 0; b < 8; b++)
		buf[offsetof(struct mrc_wire_hdr, token) + b] = v >> (56 - 8 * b);
}

#define POKE(b, f, v) poke(b, offsetof(struct mrc_wire_hdr, f), \
			   sizeof(((struct mrc_wire_hdr *)0)->f), v)

/*
 * Checks @buf against the real parser: a header-level reason must be the
 * parser's verdict; a post-parse reason needs the parser to accept it.
 */
static void check_expect(const u8 *buf, u32 len, int why, const char *kind)
{
	struct mrc_wire_limits lim = {
		.max_msg_len = MRC_MSG_CAP,
		.local_node = target_node,
	};
	struct mrc_pkt p;
	enum mrc_drop_reason got = mrc_wire_parse(buf, len, &lim, &p);
	bool post = why == MRC_DROP_UNKNOWN_PEER ||
		why == MRC_DROP_WRONG_PATH || why == MRC_DROP_UNEXPECTED ||
		why == MRC_DROP_DUPLICATE || why == MRC_DROP_UNRESOLVED ||
		why == MRC_DROP_NO_MEMORY || why == MRC_DROP_BAD_TOKEN ||
		why < 0;

	if (post && why >= 0 && why != MRC_DROP_UNEXPECTED &&
	    got == MRC_DROP_NONE && p.type == MRC_PKT_HELLO)
		die("%s: HELLO would be UNEXPECTED", kind);
	if (post ? got != MRC_DROP_NONE : (int)got != why)
		die("%s: parser says %s, kind expects %s", kind,
		    mrc_drop_reason_name(got),
		    why < 0 ? "(accepted)" : mrc_drop_reason_name(why));
}

/* ------------------------------------------------------------ verbs */

static struct ud_sender us;	/* our UD QP (udsend.h) */
static u8 *vbuf;

static void verbs_open(void)
{
	ud_open(&us, dev_name, target, ROGUE_TOS, 64, BUF_LEN);
	vbuf = us.buf;
	printf("# rogue QP %u on %s gid index %d\n", us.qp->qp_num, dev_name,
	       us.gid_index);
}

/* Sends @len bytes of vbuf to target QP index @i with @qkey, waits. */
static void vsend(u32 len, unsigned int i, u32 qkey)
{
	int err = ud_post(&us, 0, len, qpns[i % nqpn], qkey);

	if (err)
		die("ibv_post_send: %s", strerror(err));
	while (!ud_reap(&us, 1))
		;
	verbs_sent++;
	pace(i);
}

static void report(const char *kind, unsigned long long n, int why)
{
	const char *name;

	if (why == -1) {
		name = "invisible";
		expect_invisible += n;
	} else if (why == -2) {
		name = "qp_error";
		expect_qp_error += n;
	} else if (why == -3) {
		name = "accepted";	/* on-path: nothing refuses it */
	} else if (why == -4) {
		/* credit "grants_either": bad_credit or duplicate */
		name = "bad_credit_or_duplicate";
	} else {
		name = mrc_drop_reason_name(why);
		expect[why] += n;
	}
	printf("kind %s sent %llu expect %s\n", kind, n, name);
	fflush(stdout);
}

/* Sends the packet in vbuf (@len bytes), checked against @why, @n times. */
static void vsend_kind(const char *kind, u32 len, int why, unsigned int n)
{
	unsigned int i;

	check_expect(vbuf, len, why, kind);
	for (i = 0; i < n; i++)
		vsend(len, i, MRC_QKEY);
}

static void k_wrong_qkey(void)
{
	u32 len = build(vbuf, MRC_PKT_PROBE, peer_node);
	unsigned int i;

	/* Would be WRONG_PATH if delivered: rxe drops it first. */
	check_expect(vbuf, len, MRC_DROP_WRONG_PATH, "wrong_qkey");
	for (i = 0; i < 64; i++)
		vsend(len, i, MRC_QKEY ^ (1u << (i % 31)));
	report("wrong_qkey", 64, -1);
}

static void k_truncated(void)
{
	static const u32 lens[] = { 0, 1, 8, 39, 40, 55 };
	unsigned int i, n = 0;
	u32 len;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++, n++) {
		build(vbuf, MRC_PKT_DATA, peer_node);
		check_expect(vbuf, lens[i], MRC_DROP_TRUNCATED, "truncated");
		vsend(lens[i], n, MRC_QKEY);
	}
	/* A whole header whose len claims more body than arrived. */
	for (i = 0; i < 4; i++, n++) {
		len = build(vbuf, MRC_PKT_SACK, peer_node);
		check_expect(vbuf, len - 1 - i * 10, MRC_DROP_TRUNCATED,
			     "truncated");
		vsend(len - 1 - i * 10, n, MRC_QKEY);
	}
	build(vbuf, MRC_PKT_DATA, peer_node);
	POKE(vbuf, len, 4040);
	check_expect(vbuf, MRC_WIRE_HDR_LEN + 1000, MRC_DROP_TRUNCATED,
		     "truncated");
	vsend(MRC_WIRE_HDR_LEN + 1000, n++, MRC_QKEY);
	report("truncated", n, MRC_DROP_TRUNCATED);
}

static void k_bad_version(void)
{
	unsigned int v, n = 0;
	u32 len;

	for (v = 0; v < 256; v++) {
		if (v == MRC_WIRE_VERSION)
			continue;
		len = build(vbuf, MRC_PKT_PROBE, peer_node);
		POKE(vbuf, version, v);
		check_expect(vbuf, len, MRC_DROP_BAD_VERSION, "bad_version");
		vsend(len, n++, MRC_QKEY);
	}
	report("bad_version", n, MRC_DROP_BAD_VERSION);
}

static void k_bad_type(void)
{
	unsigned int t, n = 0;
	u32 len;

	for (t = 0; t < 256; t++) {
		if (t >= MRC_PKT_DATA && t <= MRC_PKT_TYPE_MAX)
			continue;
		len = build(vbuf, MRC_PKT_PROBE, peer_node);
		POKE(vbuf, type, t);
		check_expect(vbuf, len, MRC_DROP_BAD_TYPE, "bad_type");
		vsend(len, n++, MRC_QKEY);
	}
	report("bad_type", n, MRC_DROP_BAD_TYPE);
}

/* Header-level kinds: each variant mutates one valid packet. */
static void k_header(const char *kind, int why)
{
	unsigned int n = 0;
	u32 len;

#define SEND(l) do { check_expect(vbuf, (l), why, kind); \
		     vsend((l), n++, MRC_QKEY); } while (0)
	switch (why) {
	case MRC_DROP_BAD_LENGTH:
		len = build(vbuf, MRC_PKT_PROBE, peer_node);
		SEND(len + 8);				/* trailing bytes */
		POKE(vbuf, len, 8);
		SEND(MRC_WIRE_HDR_LEN + 8);		/* PROBE body short */
		len = build(vbuf, MRC_PKT_SACK, peer_node);
		POKE(vbuf, len, 16);
		SEND(MRC_WIRE_HDR_LEN + 16);		/* SACK body short */
		build(vbuf, MRC_PKT_NACK, peer_node);
		POKE(vbuf, len, 12);
		SEND(MRC_WIRE_HDR_LEN + 12);		/* NACK not n*8 */
		len = build(vbuf, MRC_PKT_DATA, peer_node);
		POKE(vbuf, msg_len, 0);
		SEND(len);				/* empty message */
		build(vbuf, MRC_PKT_DATA, peer_node);
		POKE(vbuf, msg_len, 3000);
		POKE(vbuf, flags, 0);
		POKE(vbuf, len, 500);
		SEND(MRC_WIRE_HDR_LEN + 500);		/* len != seg, not last */
		break;
	case MRC_DROP_BAD_OFFSET:
		len = build(vbuf, MRC_PKT_DATA, peer_node);
		POKE(vbuf, offset, 1000);
		SEND(len);				/* offset == msg_len */
		POKE(vbuf, offset, 0xfffffc18);
		SEND(len);				/* far past */
		POKE(vbuf, msg_len, 5000);
		POKE(vbuf, offset, 500);
		SEND(len);				/* misaligned */
		POKE(vbuf, msg_len, 1500);
		POKE(vbuf, offset, 1000);
		SEND(len);				/* len past the end */
		POKE(vbuf, msg_len, 1000);
		POKE(vbuf, offset, 0);
		POKE(vbuf, flags, 0);
		SEND(len);				/* last without LAST */
		break;
	case MRC_DROP_MSG_TOO_BIG:
		len = build(vbuf, MRC_PKT_DATA, peer_node);
		POKE(vbuf, flags, 0);
		POKE(vbuf, msg_len, 0xffffffff);
		SEND(len);
		POKE(vbuf, msg_len, MRC_MSG_CAP + 1);
		SEND(len);
		POKE(vbuf, msg_len, 0x80000000);
		SEND(len);
		break;
	case MRC_DROP_BAD_SEG:
		len = build(vbuf, MRC_PKT_DATA, peer_node);
		POKE(vbuf, seg, 0);
		SEND(len);
		POKE(vbuf, seg, MRC_WIRE_MIN_SEG - 1);
		SEND(len);
		POKE(vbuf, seg, MRC_WIRE_MAX_PAYLOAD + 1);
		SEND(len);
		POKE(vbuf, seg, 0xffff);
		SEND(len);
		break;
	case MRC_DROP_BAD_SACK: {
		u32 v;

		len = build(vbuf, MRC_PKT_SACK, peer_node);
		v = htonl(MRC_WIRE_SACK_BITS + 1);	/* nbits too big */
		memcpy(vbuf + MRC_WIRE_HDR_LEN + 4, &v, 4);
		SEND(len);
		v = htonl(0xfffffff0);			/* cum + nbits wraps */
		memcpy(vbuf + MRC_WIRE_HDR_LEN, &v, 4);
		v = htonl(64);
		memcpy(vbuf + MRC_WIRE_HDR_LEN + 4, &v, 4);
		SEND(len);
		len = build(vbuf, MRC_PKT_NACK, peer_node);
		memset(vbuf + MRC_WIRE_HDR_LEN + 4, 0, 4);	/* count 0 */
		SEND(len);
		{
			struct mrc_pkt_nack_range r[2] = {
				{ .first = 10, .count = 5 },
				{ .first = 12, .count = 1 },	/* overlap */
			};
			struct mrc_pkt p = base_hdr(MRC_PKT_NACK);

			p.len = mrc_wire_put_nack(vbuf + MRC_WIRE_HDR_LEN,
						  r, 2);
			mrc_wire_put_hdr(vbuf, &p);
			SEND(MRC_WIRE_HDR_LEN + p.len);
			r[0].first = 0xfffffffe;	/* past U32_MAX */
			r[0].count = 4;
			p.len = mrc_wire_put_nack(vbuf + MRC_WIRE_HDR_LEN,
						  r, 1);
			mrc_wire_put_hdr(vbuf, &p);
			SEND(MRC_WIRE_HDR_LEN + p.len);
		}
		break;
	}
	case MRC_DROP_NOT_FOR_US: {
		static const u8 types[] = { MRC_PKT_DATA, MRC_PKT_SACK,
			MRC_PKT_NACK, MRC_PKT_HELLO, MRC_PKT_PROBE };
		unsigned int i;

		for (i = 0; i < sizeof(types); i++) {
			len = build(vbuf, types[i], peer_node);
			POKE(vbuf, dst_node, target_node + 1000);
			SEND(len);
			POKE(vbuf, dst_node, 0);
			SEND(len);
		}
		break;
	}
	default:
		die("k_header: %d", why);
	}
#undef SEND
	report(kind, n, why);
}

/* Valid packets of every type that mrc routes, claiming node @src. */
static void k_valid_types(const char *kind, u32 src, int why)
{
	static const u8 types[] = { MRC_PKT_DATA, MRC_PKT_SACK, MRC_PKT_NACK,
		MRC_PKT_PROBE, MRC_PKT_PROBE_REPLY, MRC_PKT_RAIL_DOWN };
	unsigned int i, j, n = 0;

	if (src == peer_node)
		need_token(kind);
	for (i = 0; i < sizeof(types); i++) {
		u32 len = build(vbuf, types[i], src);

		check_expect(vbuf, len, why, kind);
		/* To every QP of the rail: each ev checks its own path. */
		for (j = 0; j < nqpn; j++)
			vsend(len, n++, MRC_QKEY);
	}
	report(kind, n, why);
}

static void k_flood(const char *kind, u8 type, u32 src, int why)
{
	u32 len = build(vbuf, type, src);

	if (why == MRC_DROP_WRONG_PATH)
		need_token(kind);
	vsend_kind(kind, len, why, flood);
	report(kind, flood, why);
}

/* A CREDIT_REQ or GRANT in vbuf from @src; returns its length. */
static u32 build_credit(u8 type, u32 src, u64 msg_id, u32 msg_len,
			u32 granted, u32 seq)
{
	struct mrc_pkt_credit c = {
		.msg_len = msg_len, .granted = granted, .seq = seq,
	};
	struct mrc_pkt p = base_hdr(type);

	p.src_node = src;
	p.msg_id = msg_id;
	p.len = mrc_wire_put_credit(vbuf + MRC_WIRE_HDR_LEN, &c);
	mrc_wire_put_hdr(vbuf, &p);
	return MRC_WIRE_HDR_LEN + p.len;
}

/*
 * Credit packets from the rogue's own QP.  Malformed ones are refused by
 * the parser (bad_credit, msg_too_big, bad_length) before anything looks
 * at the source; well-formed ones - valid grants, grants and requests
 * with junk in the reserved fields, a flood of requests for @flood
 * message ids - must be refused as coming from no path of the peer
 * (wrong_path: they carry the peer's real token, -K, to get past that
 * check) or from no peer (unknown_peer) before they touch any credit
 * state.
 */
static void k_credit(void)
{
	static const struct {
		u8 type;
		u32 msg_len, granted, seq;
	} bad[] = {
		{ MRC_PKT_GRANT, 1 << 20, 1 << 20, 0 },		/* seq 0 */
		{ MRC_PKT_GRANT, 1 << 20, 0, 1 },		/* grants 0 */
		{ MRC_PKT_GRANT, 1 << 20, (1 << 20) + 1, 1 },	/* beyond */
		{ MRC_PKT_GRANT, 4040, 0xffffffff, 7 },		/* far beyond */
		{ MRC_PKT_GRANT, 0, 0, 1 },			/* empty msg */
		{ MRC_PKT_CREDIT_REQ, 0, 0, 0 },		/* empty msg */
		{ MRC_PKT_CREDIT_REQ, 1 << 20, (1 << 20) + 4040, 0 },
	}, big[] = {
		{ MRC_PKT_CREDIT_REQ, MRC_MSG_CAP + 1, 0, 0 },
		{ MRC_PKT_CREDIT_REQ, 0xffffffff, 0, 0 },
		{ MRC_PKT_CREDIT_REQ, 0x80000000, 4096, 0 },
		{ MRC_PKT_GRANT, 0xffffffff, 0xffffffff, 1 },
		{ MRC_PKT_GRANT, MRC_MSG_CAP + 1, MRC_MSG_CAP + 1, 2 },
	};
	static const u8 types[] = { MRC_PKT_GRANT, MRC_PKT_CREDIT_REQ };
	static const u16 lens[] = { 0, 8, 12, 15, 17, 20, 32 };
	unsigned int i, j, n;
	u32 len;

	need_token("credit");
	for (i = n = 0; i < sizeof(bad) / sizeof(bad[0]); i++, n++) {
		len = build_credit(bad[i].type, peer_node, 0x7fffffff00000001ULL,
				   bad[i].msg_len, bad[i].granted, bad[i].seq);
		check_expect(vbuf, len, MRC_DROP_BAD_CREDIT, "credit_bad");
		vsend(len, n, MRC_QKEY);
	}
	report("credit_bad", n, MRC_DROP_BAD_CREDIT);

	for (i = n = 0; i < sizeof(big) / sizeof(big[0]); i++, n++) {
		len = build_credit(big[i].type, peer_node, 0x7fffffff00000002ULL,
				   big[i].msg_len, big[i].granted, big[i].seq);
		check_expect(vbuf, len, MRC_DROP_MSG_TOO_BIG, "credit_huge");
		vsend(len, n, MRC_QKEY);
	}
	report("credit_huge", n, MRC_DROP_MSG_TOO_BIG);

	/* Body of the wrong size: len says so, and the datagram agrees. */
	for (i = n = 0; i < sizeof(types); i++)
		for (j = 0; j < sizeof(lens) / sizeof(lens[0]); j++, n++) {
			build_credit(types[i], peer_node, 5, 1 << 20, 4096, 1);
			POKE(vbuf, len, lens[j]);
			check_expect(vbuf, MRC_WIRE_HDR_LEN + lens[j],
				     MRC_DROP_BAD_LENGTH, "credit_bad_length");
			vsend(MRC_WIRE_HDR_LEN + lens[j], n, MRC_QKEY);
		}
	report("credit_bad_length", n, MRC_DROP_BAD_LENGTH);

	/*
	 * Well-formed, from the peer's node id but not its QP: to every QP
	 * of the rail (each entropy value checks its own path), plain and
	 * with every reserved and unused field set (ignored by the parser,
	 * so the same verdict).
	 */
	for (i = n = 0; i < sizeof(types); i++)
		for (j = 0; j < 2 * nqpn; j++) {
			len = build_credit(types[i], peer_node,
					   0x7fffffff00000003ULL, 1 << 20,
					   types[i] == MRC_PKT_GRANT ? 1 << 20 : 0,
					   types[i] == MRC_PKT_GRANT);
			if (j >= nqpn) {
				POKE(vbuf, ack_delay, 0xffff);
				POKE(vbuf, offset, 0xffffffff);
				POKE(vbuf, msg_len, 0xffffffff);
				POKE(vbuf, seg, 0xffff);
				POKE(vbuf, credit, 0xffffffff);
				memset(vbuf + MRC_WIRE_HDR_LEN + 12, 0xff, 4);
			}
			check_expect(vbuf, len, MRC_DROP_WRONG_PATH,
				     "credit_wrong_path");
			vsend(len, n++, MRC_QKEY);
		}
	report("credit_wrong_path", n, MRC_DROP_WRONG_PATH);

	for (i = n = 0; i < sizeof(types); i++)
		for (j = 0; j < nqpn; j++) {
			len = build_credit(types[i], stranger, 1, 1 << 20,
					   1 << 20, 1);
			check_expect(vbuf, len, MRC_DROP_UNKNOWN_PEER,
				     "credit_unknown_peer");
			vsend(len, n++, MRC_QKEY);
		}
	report("credit_unknown_peer", n, MRC_DROP_UNKNOWN_PEER);

	/* Requests for @flood message ids, as the peer, then as nobody. */
	for (i = 0; i < flood; i++) {
		len = build_credit(MRC_PKT_CREDIT_REQ, peer_node,
				   0x7fffffff00000000ULL + i,
				   (256 << 10) + i * 4040, 0, 0);
		check_expect(vbuf, len, MRC_DROP_WRONG_PATH, "credit_req_flood");
		vsend(len, i, MRC_QKEY);
	}
	report("credit_req_flood", flood, MRC_DROP_WRONG_PATH);
	for (i = 0; i < flood; i++) {
		len = build_credit(MRC_PKT_CREDIT_REQ, stranger + 1 + i % 64,
				   0x7fffffff00000000ULL + i,
				   (256 << 10) + i * 4040, 0, 0);
		check_expect(vbuf, len, MRC_DROP_UNKNOWN_PEER,
			     "credit_req_flood_strangers");
		vsend(len, i, MRC_QKEY);
	}
	report("credit_req_flood_strangers", flood, MRC_DROP_UNKNOWN_PEER);
}

/*
 * Valid packets of every type mrc routes, as the peer, from the tool's
 * own QP to every QP of the rail, each with every wrong token: the token
 * is checked before the path, so all are bad_token.
 */
static void k_wrong_token(void)
{
	static const u8 types[] = { MRC_PKT_DATA, MRC_PKT_SACK, MRC_PKT_NACK,
		MRC_PKT_PROBE, MRC_PKT_PROBE_REPLY, MRC_PKT_CREDIT_REQ,
		MRC_PKT_GRANT };
	unsigned int i, j, k, n = 0;

	need_token("wrong_token");
	for (i = 0; i < sizeof(types); i++)
		for (k = 0; k < WRONG_TOKENS; k++) {
			u32 len = build(vbuf, types[i], peer_node);

			poke_token(vbuf, wrong_token(peer_token, k));
			check_expect(vbuf, len, MRC_DROP_BAD_TOKEN,
				     "wrong_token");
			for (j = 0; j < nqpn; j++)
				vsend(len, n++, MRC_QKEY);
		}
	report("wrong_token", n, MRC_DROP_BAD_TOKEN);
}

/* ------------------------------------------------------------ raw */

/*
 * CRC-32 as rxe computes its ICRC (crc32_le: reflected, 0xedb88320, no
 * pre/post inversion; rxe seeds it and inverts the result itself).
 */
static u32 crc32_le(u32 crc, const u8 *p, size_t n)
{
	unsigned int k;

	while (n--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (crc & 1 ? 0xedb88320 : 0);
	}
	return crc;
}

/*
 * ICRC of a RoCEv2 IPv4 packet starting at @ip (IHL 5), @paylen bytes of
 * BTH..payload+pad (without the ICRC): the IPv4 and UDP headers with TTL,
 * TOS, both checksums and the BTH's resv8a masked to ones, then the BTH,
 * DETH and payload (drivers/infiniband/sw/rxe/rxe_icrc.c).
 */
static u32 roce_icrc(const u8 *ip, size_t paylen)
{
	u8 ps[20 + 8 + BTH_LEN];
	u32 crc;

	memcpy(ps, ip, sizeof(ps));
	ps[1] = 0xff;			/* tos */
	ps[8] = 0xff;			/* ttl */
	ps[10] = ps[11] = 0xff;		/* ip check */
	ps[20 + 6] = ps[20 + 7] = 0xff;	/* udp check */
	ps[28 + 4] = 0xff;		/* bth resv8a */
	crc = crc32_le(0xdebb20e3, ps, sizeof(ps));
	crc = crc32_le(crc, ip + sizeof(ps), paylen - BTH_LEN);
	return ~crc;
}

static u16 ip_csum(const u8 *p, size_t n)
{
	u32 s = 0;
	size_t i;

	for (i = 0; i < n; i += 2)
		s += p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return ~s;
}

static int rawfd;
static struct sockaddr_ll rawaddr;
static u8 tmpl[BUF_LEN];	/* the captured frame */
static size_t tmpl_hlen;	/* Ethernet .. DETH */
static bool icrc_be;		/* ICRC stored big-endian */
static u64 tmpl_msg_id;		/* its mrc msg_id */
static bool tmpl_data;		/* it is DATA: tmpl_msg_id has the epoch */
static u8 frame[BUF_LEN + 64];

static u32 rd32(const u8 *p)
{
	return (u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static bool in_list(u32 v, const u32 *l, u32 n)
{
	while (n--)
		if (l[n] == v)
			return true;
	return false;
}

/* An mrc frame from one of our mrc QPs to one of the target's? */
/*
 * Whether @f is an mrc frame between us and the target: from our mrc to
 * the target's (@in false) or from the target's mrc to ours (@in true).
 */
static bool mrc_frame(const u8 *f, ssize_t n, bool in)
{
	const u8 *ip = f + 14, *udp = ip + 20, *bth = udp + 8;
	const u8 *mrc = bth + BTH_LEN + DETH_LEN;

	return n >= 14 + 20 + 8 + BTH_LEN + DETH_LEN + MRC_WIRE_HDR_LEN +
		    ICRC_LEN &&
	       ip[0] == 0x45 && ip[9] == IPPROTO_UDP &&
	       !memcmp(ip + (in ? 12 : 16), &target, 4) &&
	       (udp[2] << 8 | udp[3]) == ROCE_PORT &&
	       bth[0] == OP_UD_SEND_ONLY &&
	       in_list(rd32(bth + 4) & 0xffffff, in ? local_qpns : qpns,
		       in ? nlocal : nqpn) &&
	       in_list(rd32(bth + 16) & 0xffffff, in ? qpns : local_qpns,
		       in ? nqpn : nlocal) &&
	       (size_t)n >= 14 + (size_t)(ip[2] << 8 | ip[3]) &&
	       mrc[0] == MRC_WIRE_VERSION;
}

static bool is_mrc_frame(const u8 *f, ssize_t n)
{
	return mrc_frame(f, n, false);
}

/*
 * Waits for a frame that our mrc sends to the target on one of its paths:
 * a DATA frame if one comes within 5 s (it tells the sender's epoch),
 * else any (PROBEs flow all the time).  Learns the ICRC byte order from it.
 */
static void raw_open(void)
{
	int rcvbuf = 64 << 20;

	/* Only ETH_P_ALL taps see outgoing frames (dev_queue_xmit_nit). */
	rawfd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (rawfd < 0)
		die("AF_PACKET: %s", strerror(errno));
	/*
	 * The tap sees every frame, DATA of 9 KB too: with the default
	 * buffer, a tool that a loaded guest runs late would lose GRANTs
	 * and CREDIT_REQs it is to copy.  (spoof_credit reports the
	 * socket's drops.)
	 */
	if (setsockopt(rawfd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		       sizeof(rcvbuf)))
		die("SO_RCVBUFFORCE: %s", strerror(errno));
	rawaddr.sll_family = AF_PACKET;
	rawaddr.sll_protocol = htons(ETH_P_ALL);
	rawaddr.sll_ifindex = if_nametoindex(ifname);
	if (!rawaddr.sll_ifindex)
		die("%s: no such interface", ifname);
	if (bind(rawfd, (struct sockaddr *)&rawaddr, sizeof(rawaddr)))
		die("bind %s: %s", ifname, strerror(errno));
	printf("# capturing on %s\n", ifname);
}

static void raw_capture(void)
{
	static u8 fallback[BUF_LEN];
	ssize_t n, fallback_n = 0;
	struct timespec t0, t;
	struct pollfd pfd;
	const u8 *ip, *bth, *mrc;
	size_t paylen;
	u32 icrc, want;

	raw_open();
	pfd.fd = rawfd;
	pfd.events = POLLIN;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (fallback_n && t.tv_sec - t0.tv_sec >= 5) {
			memcpy(tmpl, fallback, fallback_n);
			break;
		}
		if (t.tv_sec - t0.tv_sec > 30)
			die("no mrc frame to the target to capture on %s in 30 s",
			    ifname);
		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		n = recv(rawfd, tmpl, sizeof(tmpl), 0);
		if (!is_mrc_frame(tmpl, n))
			continue;
		if (tmpl[14 + 28 + BTH_LEN + DETH_LEN + 1] == MRC_PKT_DATA)
			break;
		if (!fallback_n) {
			memcpy(fallback, tmpl, n);
			fallback_n = n;
		}
	}
	ip = tmpl + 14;
	bth = ip + 28;
	mrc = bth + BTH_LEN + DETH_LEN;
	paylen = (ip[2] << 8 | ip[3]) - 20 - 8 - ICRC_LEN;
	want = roce_icrc(ip, paylen);
	memcpy(&icrc, bth + paylen, 4);
	if (icrc == want)
		icrc_be = false;
	else if (icrc == htonl(want))
		icrc_be = true;
	else
		die("captured ICRC %08x, computed %08x: the ICRC rule here does not match rxe's",
		    icrc, want);
	tmpl_hlen = 14 + 20 + 8 + BTH_LEN + DETH_LEN;
	tmpl_data = mrc[1] == MRC_PKT_DATA;
	memcpy(&tmpl_msg_id, mrc + offsetof(struct mrc_wire_hdr, msg_id), 8);
	tmpl_msg_id = be64toh(tmpl_msg_id);
	printf("# captured %s from QP %u to QP %u, msg_id %#llx, ICRC %s-endian verified\n",
	       mrc_wire_type_name(mrc[1]), rd32(bth + 16) & 0xffffff,
	       rd32(bth + 4) & 0xffffff, (unsigned long long)tmpl_msg_id,
	       icrc_be ? "big" : "little");
}

/*
 * Sends the captured frame with @len bytes of mrc packet @pkt instead of
 * its own: lengths, checksums and ICRC recomputed.
 */
static void raw_send(const u8 *pkt, size_t len)
{
	size_t pad = (4 - len % 4) % 4, paylen, flen;
	u8 *ip = frame + 14, *bth = ip + 28;
	u32 icrc;
	u16 v;

	memcpy(frame, tmpl, tmpl_hlen);
	/*
	 * Forged frames carry our TOS (the ICRC masks it, rxe ignores it),
	 * as do the datagrams from our QP (its AH's traffic class): the
	 * target can count all that reach its NIC.
	 */
	ip[1] = ROGUE_TOS;
	memcpy(frame + tmpl_hlen, pkt, len);
	memset(frame + tmpl_hlen + len, 0, pad);
	paylen = BTH_LEN + DETH_LEN + len + pad;
	bth[1] = (bth[1] & ~0x30) | pad << 4;
	v = htons(20 + 8 + paylen + ICRC_LEN);
	memcpy(ip + 2, &v, 2);
	ip[10] = ip[11] = 0;
	v = htons(ip_csum(ip, 20));
	memcpy(ip + 10, &v, 2);
	v = htons(8 + paylen + ICRC_LEN);
	memcpy(ip + 24, &v, 2);
	ip[26] = ip[27] = 0;		/* no UDP checksum (IPv4) */
	icrc = roce_icrc(ip, paylen);
	if (icrc_be)
		icrc = htonl(icrc);
	memcpy(bth + paylen, &icrc, 4);
	flen = 14 + 28 + paylen + ICRC_LEN;
	if (sendto(rawfd, frame, flen, 0, (struct sockaddr *)&rawaddr,
		   sizeof(rawaddr)) != (ssize_t)flen)
		die("raw send %zu bytes: %s", flen, strerror(errno));
	raw_sent++;
}

/*
 * replay_rail_down: waits (up to -T seconds) for a RAIL_DOWN that our mrc
 * sends the target on one of its paths, keeps the frame as it is, waits
 * until the file -W names exists (the test lets the rail come back first)
 * and then sends the very same frame -n times: a recorded notice
 * replayed, token and all, as an on-path node can.  The target must take
 * none (replayed) and leave the rail's paths alone.
 */
static const char *go_file;

static void k_replay_rail_down(void)
{
	static u8 rec[BUF_LEN];
	struct timespec t0, t;
	struct pollfd pfd;
	ssize_t n = 0, got = 0;
	unsigned int i;

	if (!ifname || !nlocal || !go_file)
		die("replay_rail_down needs -i IFACE, -Q QPNS and -W FILE");
	raw_open();
	pfd.fd = rawfd;
	pfd.events = POLLIN;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!got) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > spoof_secs)
			die("no RAIL_DOWN to the target on %s in %u s", ifname,
			    spoof_secs);
		if (poll(&pfd, 1, 1000) <= 0)
			continue;
		n = recv(rawfd, rec, sizeof(rec), 0);
		if (is_mrc_frame(rec, n) &&
		    rec[14 + 28 + BTH_LEN + DETH_LEN + 1] == MRC_PKT_RAIL_DOWN)
			got = n;
	}
	printf("# captured RAIL_DOWN from QP %u to QP %u, %zd bytes\n",
	       rd32(rec + 14 + 28 + 16) & 0xffffff,
	       rd32(rec + 14 + 28 + 4) & 0xffffff, got);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (access(go_file, F_OK)) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 600)
			die("%s did not appear in 600 s", go_file);
		usleep(100000);
	}
	for (i = 0; i < flood; i++) {
		if (sendto(rawfd, rec, got, 0, (struct sockaddr *)&rawaddr,
			   sizeof(rawaddr)) != got)
			die("raw send: %s", strerror(errno));
		raw_sent++;
		pace(i);
	}
	report("replay_rail_down", flood, MRC_DROP_REPLAYED);
}

/* The mrc header of the captured frame, parsed (it passed the parser). */
static struct mrc_pkt tmpl_pkt(void)
{
	struct mrc_wire_limits lim = {
		.max_msg_len = MRC_MSG_CAP, .local_node = target_node,
	};
	struct mrc_pkt p;
	size_t len = (tmpl[14 + 2] << 8 | tmpl[14 + 3]) - 28 - BTH_LEN -
		DETH_LEN - ICRC_LEN - ((tmpl[14 + 28 + 1] >> 4) & 3);

	if (mrc_wire_parse(tmpl + tmpl_hlen, len, &lim, &p))
		die("captured packet does not parse");
	return p;
}

static void k_spoof(void)
{
	struct mrc_pkt t = tmpl_pkt(), p;
	static u8 b[BUF_LEN];
	unsigned int i;
	u32 len;

	/*
	 * DATA of an epoch before the current one: a given-up message.
	 * Without a captured DATA, epoch 1 is older than any (real-time
	 * seconds, compared as s32 differences).
	 */
	p = t;
	p.type = MRC_PKT_DATA;
	p.msg_id = tmpl_data ? (t.msg_id - (1ULL << 32)) | 0x10 : 1ULL << 32;
	p.offset = 0;
	p.msg_len = 100;
	p.seg = 1024;
	p.len = 100;
	p.flags = MRC_WF_LAST;
	mrc_wire_put_hdr(b, &p);
	memset(b + MRC_WIRE_HDR_LEN, 0x5a, 100);
	len = MRC_WIRE_HDR_LEN + 100;
	check_expect(b, len, MRC_DROP_DUPLICATE, "spoof_stale_data");
	for (i = 0; i < 32; i++) {
		raw_send(b, len);
		pace(i);
	}
	report("spoof_stale_data", 32, MRC_DROP_DUPLICATE);

	/*
	 * SACK and NACK, from the peer's real path, for message ids the
	 * target never sent: an epoch (real-time seconds, see msg.c) about
	 * eleven days ahead of now.
	 */
	for (i = 0; i < 64; i++) {
		struct mrc_pkt_sack s = { .cum = 4, .nbits = 16 };
		struct mrc_pkt_nack_range r = { .first = 0, .count = 8 };

		p = t;
		p.flags = 0;
		p.offset = p.msg_len = p.seg = 0;
		p.msg_id = (u64)((u32)time(NULL) + 1000000) << 32 | i;
		if (i % 2) {
			p.type = MRC_PKT_NACK;
			p.len = mrc_wire_put_nack(b + MRC_WIRE_HDR_LEN, &r, 1);
		} else {
			p.type = MRC_PKT_SACK;
			s.bitmap[0] = ~0ULL;
			p.len = mrc_wire_put_sack(b + MRC_WIRE_HDR_LEN, &s);
		}
		mrc_wire_put_hdr(b, &p);
		/* Well-formed: only the sender's state can refuse it. */
		check_expect(b, MRC_WIRE_HDR_LEN + p.len, -1,
			     "spoof_ack_unsent");
		raw_send(b, MRC_WIRE_HDR_LEN + p.len);
		pace(i);
	}
	report("spoof_ack_unsent", 64, MRC_DROP_BAD_SACK);

	/*
	 * Every type forged on the peer's real path (its addresses, QPNs,
	 * entropy value) as an off-path node would: all it lacks is the
	 * token.  Checked before anything else: bad_token.
	 */
	{
		static const u8 types[] = { MRC_PKT_DATA, MRC_PKT_SACK,
			MRC_PKT_NACK, MRC_PKT_PROBE, MRC_PKT_PROBE_REPLY,
			MRC_PKT_CREDIT_REQ, MRC_PKT_GRANT };
		unsigned int k, n = 0;

		for (i = 0; i < sizeof(types); i++)
			for (k = 0; k < WRONG_TOKENS; k++) {
				len = build(b, types[i], t.src_node);
				POKE(b, entropy, t.entropy);
				poke_token(b, wrong_token(t.token, k));
				check_expect(b, len, MRC_DROP_BAD_TOKEN,
					     "spoof_wrong_token");
				raw_send(b, len);
				pace(n++);
			}
		report("spoof_wrong_token", n, MRC_DROP_BAD_TOKEN);
	}

	/* Two datagrams larger than any receive buffer (40 + 4096). */
	p = t;
	mrc_wire_put_hdr(b, &p);
	memset(b + MRC_WIRE_HDR_LEN, 0xee, 6000);
	for (i = 0; i < 2; i++) {
		raw_send(b, MRC_WIRE_HDR_LEN + 6000);
		usleep(300000 * pause_scale);	/* the QP is back by then */
	}
	report("spoof_oversized", 2, -2);
}

/*
 * Credit packets forged on a real path, built from the GRANTs and
 * CREDIT_REQs that our own mrc sends the target (captured as they leave,
 * and sent on the same QPs right after them, so the target has taken the
 * real one first).  The target is at once a sender (it sends to us: we
 * grant) and a receiver (we send to it: we request).  Every forgery is
 * well-formed (the parser takes it) or refused by the parser for a reason
 * it names; none is one the credit state could take:
 *
 *  spoof_grant_same_seq	the captured seq with another offset: it
 *				contradicts that grant while it is the last
 *				taken (bad), but once a newer one is taken it
 *				looks like an older real grant (stale; the
 *				target keeps no history): "grants_either"
 *  spoof_grant_no_more		a far newer seq that grants nothing more
 *  spoof_grant_old_seq		an older seq granting the whole message
 *  spoof_grant_len		another msg_len (more than was requested)
 *  spoof_grant_unrequested	a message id never requested
 *  spoof_grant_reserved	as no_more, every reserved/unused field set
 *  spoof_grant_replay		a real grant of a message the target has
 *				finished sending (replayed once it moved on):
 *				what a late real grant looks like, so
 *				duplicate and grants_stale, not grants_bad
 *  spoof_grant_beyond		granted past msg_len (parser)
 *  spoof_req_len		the captured message with another length: it
 *				contradicts that request while the
 *				receiver's entry holds the message (bad),
 *				but once the sender's next request took the
 *				entry over it looks like a replayed earlier
 *				one (stale; the receiver keeps no history):
 *				"requests_either"
 *  spoof_req_small		a message the unscheduled window covers
 *  spoof_req_replay		a real request of an earlier message,
 *				replayed right after the next one's
 *  spoof_req_flood		@flood requests for earlier message ids
 *  spoof_req_huge		msg_len above the cap (parser)
 *
 * All but the parser's, the grant and request replays and the request
 * flood (duplicate: what late or reordered real ones look like) and
 * same_seq and req_len (either) are bad_credit; the sender's grants_bad
 * and the receiver's requests_bad counters (debugfs mrc/credit) must move
 * by the "credit" totals printed at the end, plus the same_seq (req_len)
 * ones found bad; grants_stale by at least the grant replays and the
 * other same_seq ones (late real grants count there too), requests_stale
 * by at least the request replays, the flood and the other req_len ones.
 * Two more are what an off-path node would send, without the token (the
 * holes before wire version 3):
 *
 *  spoof_grant_next		the captured message id with a far newer
 *				seq, granting the whole message (a later
 *				grant of the receiver: taken, with the token)
 *  spoof_req_next		a request for a far later message id (takes
 *				the peer's credit entry over, with the token)
 *
 * Both must be bad_token, and move no credit counter.
 */
enum {
	SG_SAME_SEQ, SG_NO_MORE, SG_OLD_SEQ, SG_LEN, SG_UNREQ, SG_RESERVED,
	SG_REPLAY, SG_BEYOND, SR_LEN, SR_SMALL, SR_REPLAY, SR_FLOOD, SR_HUGE,
	SG_NEXT, SR_NEXT, SC_NR
};

static const char *const sc_names[SC_NR] = {
	"spoof_grant_same_seq", "spoof_grant_no_more", "spoof_grant_old_seq",
	"spoof_grant_len", "spoof_grant_unrequested", "spoof_grant_reserved",
	"spoof_grant_replay", "spoof_grant_beyond", "spoof_req_len",
	"spoof_req_small", "spoof_req_replay", "spoof_req_flood",
	"spoof_req_huge", "spoof_grant_next", "spoof_req_next",
};

static unsigned long long sc_sent[SC_NR];
static unsigned int sc_total;

/* Sends mrc packet @p with credit body @c on the template's path. */
static void sc_send(int kind, struct mrc_pkt p, const struct mrc_pkt_credit *c,
		    int parser_why)
{
	static u8 b[MRC_WIRE_HDR_LEN + sizeof(struct mrc_wire_credit)];

	p.len = mrc_wire_put_credit(b + MRC_WIRE_HDR_LEN, c);
	mrc_wire_put_hdr(b, &p);
	if (kind == SG_RESERVED) {
		b[offsetof(struct mrc_wire_hdr, ack_delay)] = 0xff;
		b[offsetof(struct mrc_wire_hdr, ack_delay) + 1] = 0xff;
		memset(b + offsetof(struct mrc_wire_hdr, offset), 0xff, 4);
		memset(b + offsetof(struct mrc_wire_hdr, seg), 0xff, 2);
		memset(b + offsetof(struct mrc_wire_hdr, credit), 0xff, 4);
		memset(b + MRC_WIRE_HDR_LEN + 12, 0xff, 4);
	}
	check_expect(b, sizeof(b), parser_why, sc_names[kind]);
	raw_send(b, sizeof(b));
	sc_sent[kind]++;
	pace(sc_total++);
}

/* Most of each kind per run (and the flood's size). */
#define SC_EACH		16
#define SC_FLOOD	64

static bool sc_enough(void)
{
	unsigned int k;

	for (k = 0; k < SC_NR; k++) {
		if (k == SR_FLOOD ? !sc_sent[k] :
		    k == SG_REPLAY || k == SR_REPLAY ? sc_sent[k] < 4 :
		    sc_sent[k] < SC_EACH / 2)
			return false;
	}
	return true;
}

/* Parses the mrc packet of frame @f for a receiver @node. */
static enum mrc_drop_reason frame_parse(const u8 *f, u32 node,
					struct mrc_pkt *p)
{
	struct mrc_wire_limits lim = {
		.max_msg_len = MRC_MSG_CAP, .local_node = node,
	};
	size_t len = (f[14 + 2] << 8 | f[14 + 3]) - 28 - BTH_LEN - DETH_LEN -
		     ICRC_LEN - ((f[14 + 28 + 1] >> 4) & 3);

	return mrc_wire_parse(f + tmpl_hlen, len, &lim, p);
}

static void k_spoof_credit(unsigned int secs)
{
	static u8 saved[BUF_LEN], fr[BUF_LEN];
	struct mrc_pkt last_grant = {}, last_req = {}, req_wait = {};
	struct mrc_pkt_credit lg = {}, lr = {}, rw = {};
	struct timespec t0, t;
	struct pollfd pfd = { .fd = rawfd, .events = POLLIN };
	unsigned long long bad_grants = 0, bad_reqs = 0, stale_grants = 0;
	unsigned long long stale_reqs = 0;
	unsigned long long either_grants = 0, either_reqs = 0;
	const u32 seq_mask = MRC_MSG_SEQ_MASK;
	u16 tmpl_ev = 0;	/* the entropy of the frame in tmpl */
	bool flooded = false;
	unsigned int k, i;

	memcpy(saved, tmpl, sizeof(saved));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!sc_enough()) {
		struct mrc_pkt p, f;
		struct mrc_pkt_credit c, fc;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec >= (time_t)secs)
			break;
		if (poll(&pfd, 1, 200) <= 0)
			continue;
		n = recv(rawfd, fr, sizeof(fr), 0);
		/*
		 * The target's GRANT of the request we wait on: it took the
		 * real request, so one with another length (SR_LEN) or for
		 * earlier messages (SR_FLOOD) finds its entry holding the
		 * real one.  Forged before that, one would take the entry
		 * if the real request was lost on its way (a loaded guest's
		 * rxe drops what finds no receive posted), and the real
		 * sender, its requests then refused as contradicting, would
		 * get no grant: a stall this test is not about.
		 */
		if (mrc_frame(fr, n, true)) {
			if (!req_wait.type || frame_parse(fr, peer_node, &p) ||
			    p.type != MRC_PKT_GRANT ||
			    p.msg_id != req_wait.msg_id)
				continue;
			/*
			 * On tmpl's path: the last frame copied, which may
			 * be a GRANT on another path than the last request
			 * (another entropy there is wrong_path).
			 */
			f = req_wait;
			f.entropy = tmpl_ev;
			req_wait.type = 0;
			if (sc_sent[SR_LEN] < SC_EACH &&
			    rw.msg_len <= MRC_MSG_CAP - 32768) {
				fc = rw;
				fc.msg_len += 32768;
				sc_send(SR_LEN, f, &fc, -1);
				either_reqs++;
			}
			/*
			 * Earlier message ids, while the real one (long
			 * enough to keep its entry busy) has grants to give
			 * or in flight.  In its lane: the sequence number
			 * wraps in its 26 bits (a borrow from the lane bits
			 * would make an id of another lane, which counts as
			 * newer: credit_rx.c, mrc_credit_newer()).
			 */
			if (!flooded && rw.msg_len >= (1U << 20)) {
				flooded = true;
				for (i = 0; i < SC_FLOOD; i++) {
					p = f;
					p.msg_id = (f.msg_id & ~(u64)seq_mask) |
						   ((f.msg_id - 1 - i) &
						    seq_mask);
					fc = rw;
					fc.msg_len = (256U << 10) + i * 4040;
					fc.granted = 0;
					sc_send(SR_FLOOD, p, &fc, -1);
					stale_reqs++;
				}
			}
			continue;
		}
		if (!is_mrc_frame(fr, n) ||
		    (fr[tmpl_hlen + 1] != MRC_PKT_GRANT &&
		     fr[tmpl_hlen + 1] != MRC_PKT_CREDIT_REQ) ||
		    frame_parse(fr, target_node, &p))
			continue;
		/* Forged frames go on the path of the last one copied. */
		memcpy(tmpl, fr, n);
		tmpl_ev = p.entropy;
		mrc_wire_get_credit(&p, &c);
		if (p.type == MRC_PKT_GRANT) {
			/* The target moved on: the old message's grant. */
			if (last_grant.type && last_grant.msg_id != p.msg_id &&
			    sc_sent[SG_REPLAY] < 4) {
				/* On this frame's path (its QPs). */
				last_grant.entropy = p.entropy;
				sc_send(SG_REPLAY, last_grant, &lg, -1);
				stale_grants++;
			}
			last_grant = p;
			lg = c;
			for (k = SG_SAME_SEQ; k <= SG_NEXT; k++) {
				if (k == SG_REPLAY || (k > SG_BEYOND &&
						       k != SG_NEXT))
					continue;
				if (sc_sent[k] >= SC_EACH)
					continue;
				f = p;
				fc = c;
				switch (k) {
				case SG_SAME_SEQ:
					fc.granted = c.granted < c.msg_len ?
						c.granted + 1 : c.granted - 1;
					break;
				case SG_NO_MORE:
				case SG_RESERVED:
					fc.seq = c.seq + 0x10000;
					break;
				case SG_OLD_SEQ:
					if (c.seq < 2)
						continue;
					fc.seq = c.seq - 1;
					fc.granted = c.msg_len;
					break;
				case SG_LEN:
					if (c.msg_len > MRC_MSG_CAP - 32768)
						continue;
					fc.msg_len = c.msg_len + 32768;
					fc.granted = fc.msg_len;
					fc.seq = c.seq + 1;
					break;
				case SG_UNREQ:
					f.msg_id += 1000000ULL << 32;
					fc.granted = c.msg_len;
					fc.seq = c.seq + 1;
					break;
				case SG_BEYOND:
					fc.granted = c.msg_len + 1;
					fc.seq = c.seq + 1;
					break;
				case SG_NEXT:
					/*
					 * Far enough ahead to be newer than
					 * what the pacer sent meanwhile.
					 */
					if (c.granted == c.msg_len)
						continue;
					fc.granted = c.msg_len;
					fc.seq = c.seq + 0x1000;
					/* off-path: everything but the token */
					f.token = wrong_token(p.token,
							      sc_sent[k]);
					break;
				}
				if (fc.granted == c.granted && k == SG_SAME_SEQ)
					continue;
				sc_send(k, f, &fc, k == SG_BEYOND ?
					MRC_DROP_BAD_CREDIT : -1);
				if (k == SG_SAME_SEQ)
					either_grants++;
				else
					bad_grants += k != SG_BEYOND &&
						      k != SG_NEXT;
			}
			continue;
		}
		/* CREDIT_REQ: the target is the receiver. */
		if (last_req.type && last_req.msg_id != p.msg_id &&
		    sc_sent[SR_REPLAY] < 4) {
			last_req.entropy = p.entropy;
			sc_send(SR_REPLAY, last_req, &lr, -1);
			stale_reqs++;
		}
		last_req = p;
		lr = c;
		if (p.msg_id != req_wait.msg_id || !req_wait.type) {
			req_wait = p;
			rw = c;
		}
		if (sc_sent[SR_SMALL] < SC_EACH) {
			f = p;
			f.msg_id++;
			fc = c;
			fc.msg_len = 1000;
			fc.granted = 0;
			sc_send(SR_SMALL, f, &fc, -1);
			bad_reqs++;
		}
		if (sc_sent[SR_NEXT] < SC_EACH) {
			/* off-path: a far later message, no token */
			f = p;
			f.msg_id += 1000000ULL << 32;
			f.token = wrong_token(p.token, sc_sent[SR_NEXT]);
			sc_send(SR_NEXT, f, &c, -1);
		}
		if (sc_sent[SR_HUGE] < SC_EACH) {
			fc = c;
			fc.msg_len = sc_sent[SR_HUGE] % 2 ? 0xffffffff :
				     MRC_MSG_CAP + 1;
			sc_send(SR_HUGE, p, &fc, MRC_DROP_MSG_TOO_BIG);
		}
	}
	for (k = 0; k < SC_NR; k++)
		report(sc_names[k], sc_sent[k],
		       k == SG_NEXT || k == SR_NEXT ? MRC_DROP_BAD_TOKEN :
		       k == SR_HUGE ? MRC_DROP_MSG_TOO_BIG :
		       k == SG_REPLAY || k == SR_REPLAY || k == SR_FLOOD ?
		       MRC_DROP_DUPLICATE :
		       k == SG_SAME_SEQ || k == SR_LEN ? -4 :
		       MRC_DROP_BAD_CREDIT);
	printf("credit grants_bad %llu\ncredit requests_bad %llu\n"
	       "credit grants_stale %llu\ncredit grants_either %llu\n"
	       "credit requests_stale %llu\ncredit requests_either %llu\n",
	       bad_grants, bad_reqs, stale_grants, either_grants, stale_reqs,
	       either_reqs);
	{
		struct tpacket_stats st;
		socklen_t sl = sizeof(st);

		if (!getsockopt(rawfd, SOL_PACKET, PACKET_STATISTICS, &st, &sl))
			printf("# capture: %u frames seen, %u dropped by the socket\n",
			       st.tp_packets, st.tp_drops);
	}
	memcpy(tmpl, saved, sizeof(saved));
}
/*
 * rogue_epoch.sh (by name only): DATA forged on a real path with a newer
 * epoch.  With the peer's token (wire version 2 had none) one such packet
 * made the receiver restart its ordering for that epoch
 * (mrc_msg_new_epoch), deliver the forged message, and drop the real
 * sender's packets as "given up" (duplicate) until the sender itself gave
 * up.  Sent as an off-path node would, with every wrong token
 * (WRONG_TOKENS packets, each of its own far newer epoch): bad_token.
 * @onpath ("spoof_epoch_onpath", by name only; rogue_epoch.sh onpath):
 * one packet with the captured token, as a node that sees the peer's
 * frames would send it: the token does not protect against that, the
 * packet is taken and rogue_epoch.sh fails as version 2 did.
 */
static void k_spoof_epoch(bool onpath)
{
	struct mrc_pkt t = tmpl_pkt(), p;
	static u8 b[MRC_WIRE_HDR_LEN + 16];
	u64 epoch = tmpl_data ?
		(t.msg_id & ~0xffffffffULL) + (1000000ULL << 32) :
		(u64)((u32)time(NULL) + 1000000) << 32;
	unsigned int k;

	for (k = 0; k < (onpath ? 1 : WRONG_TOKENS); k++) {
		p = t;
		p.type = MRC_PKT_DATA;
		p.seg = 1024;
		p.msg_id = epoch + ((u64)k << 32);
		p.offset = 0;
		p.msg_len = 16;
		p.len = 16;
		p.flags = MRC_WF_LAST;
		p.token = onpath ? t.token : wrong_token(t.token, k);
		mrc_wire_put_hdr(b, &p);
		memset(b + MRC_WIRE_HDR_LEN, 0x66, 16);
		check_expect(b, sizeof(b), onpath ? -1 : MRC_DROP_BAD_TOKEN,
			     "spoof_epoch");
		raw_send(b, sizeof(b));
		pace(k);
	}
	if (onpath)
		report("spoof_epoch_onpath", 1, -3);
	else
		report("spoof_epoch", WRONG_TOKENS, MRC_DROP_BAD_TOKEN);
}

/*
 * drip (by name only; churn.sh): a peer that drips.  Keeps the newest DATA
 * frame our mrc sends the target until the file -W names exists (so its
 * epoch is the sender's current one), then forges on that path, with the
 * captured token, the first packet of a message of DRIP_LEN bytes,
 * DRIP_AHEAD messages ahead in the same lane, and sends that very frame
 * again every second (x -P) for -T seconds: one packet of new bytes, then
 * duplicates only.  The target must give the message up twice
 * peer_timeout_ms after its first packet, duplicates notwithstanding
 * (before, each one refreshed the expiry clock and the message stayed
 * for as long as the drip went on), and then drop the rest of the drip
 * (its epoch is given up: rx_gone_pkts).  Prints "drip sent N".
 */
#define DRIP_LEN	(1U << 20)
#define DRIP_AHEAD	64

static void k_drip(void)
{
	static u8 b[BUF_LEN], f[BUF_LEN];
	struct timespec t0, t;
	struct pollfd pfd;
	struct mrc_pkt p;
	unsigned int i, n_new = 0;
	ssize_t n;
	u32 seq;

	if (!go_file)
		die("drip needs -W FILE");
	pfd.fd = rawfd;
	pfd.events = POLLIN;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (access(go_file, F_OK)) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 600)
			die("%s did not appear in 600 s", go_file);
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(rawfd, f, sizeof(f), 0);
		if (!is_mrc_frame(f, n) ||
		    f[14 + 28 + BTH_LEN + DETH_LEN + 1] != MRC_PKT_DATA)
			continue;
		memcpy(tmpl, f, n);
		tmpl_data = true;
		n_new++;
	}
	p = tmpl_pkt();
	printf("# drip: %u newer DATA frames seen, the last msg_id %#llx\n",
	       n_new, (unsigned long long)p.msg_id);
	if (!tmpl_data || !p.seg || p.seg > sizeof(b) - MRC_WIRE_HDR_LEN)
		die("drip: no DATA frame with a usable segment size captured");
	seq = (u32)p.msg_id;
	seq = (seq & ~MRC_MSG_SEQ_MASK) | ((seq + DRIP_AHEAD) & MRC_MSG_SEQ_MASK);
	p.msg_id = (p.msg_id & ~0xffffffffULL) | seq;
	p.type = MRC_PKT_DATA;
	p.flags = 0;
	p.offset = 0;
	p.msg_len = DRIP_LEN;
	p.len = p.seg;
	p.credit = 0;
	mrc_wire_put_hdr(b, &p);
	memset(b + MRC_WIRE_HDR_LEN, 0x5a, p.len);
	check_expect(b, MRC_WIRE_HDR_LEN + p.len, -1, "drip");
	printf("# drip: msg_id %#llx, %u B, a packet of %u B every %u s for %u s\n",
	       (unsigned long long)p.msg_id, p.msg_len, p.len, pause_scale,
	       spoof_secs);
	for (i = 0; i * pause_scale < spoof_secs; i++) {
		raw_send(b, MRC_WIRE_HDR_LEN + p.len);
		sleep(pause_scale);
	}
	printf("drip sent %u\n", i);
}

/* ------------------------------------------------------------ main */

static void usage(void)
{
	fprintf(stderr,
		"usage: rogue -t TARGET_IP -q QPN[,QPN...] [-d DEV] [-s PEER_NODE]\n"
		"             [-D TARGET_NODE] [-u STRANGER_NODE] [-n FLOOD]\n"
		"             [-i IFACE -Q OUR_MRC_QPN[,...]] [-T SECS] [-K TOKEN]\n"
		"             [-P SCALE] [-W FILE] [-v] [KIND...]\n"
		"-P: pauses between bursts x SCALE (1..100; slow targets)\n"
		"kinds: wrong_qkey truncated bad_version bad_type bad_length\n"
		"       bad_offset msg_too_big bad_seg bad_sack not_for_us\n"
		"       unknown_peer wrong_path hello_flood probe_flood credit\n"
		"       wrong_token spoof spoof_credit\n"
		"       (default: all; spoof* need -i and -Q; spoof_credit\n"
		"       captures our GRANTs/CREDIT_REQs to the target for up\n"
		"       to -T SECS, default 60; wrong_path probe_flood credit\n"
		"       wrong_token need -K, the token the target expects from\n"
		"       PEER_NODE, hex: the peer's debugfs mrc/tokens)\n"
		"       spoof_epoch (only by name: rogue_epoch.sh)\n"
		"       spoof_epoch_onpath (only by name: what the token does\n"
		"       not stop, rogue_epoch.sh onpath)\n"
		"       drip (only by name, churn.sh: needs -i, -Q and -W\n"
		"       FILE; a message's first packet, then the same again\n"
		"       every -P s for -T s, once FILE exists)\n"
		"       replay_rail_down (only by name, auth.sh: needs -i, -Q\n"
		"       and -W FILE; our next RAIL_DOWN to the target, sent\n"
		"       again FLOOD times once FILE exists)\n");
	exit(2);
}

static bool want(int argc, char **argv, const char *kind)
{
	int i;

	if (optind >= argc)	/* default: all but the demonstrations */
		return strcmp(kind, "spoof_epoch") &&
		       strcmp(kind, "spoof_epoch_onpath") &&
		       strcmp(kind, "replay_rail_down") &&
		       strcmp(kind, "drip") &&
		       (strncmp(kind, "spoof", 5) || ifname);
	for (i = optind; i < argc; i++)
		if (!strcmp(argv[i], kind))
			return true;
	return false;
}

int main(int argc, char **argv)
{
	unsigned int i;
	int c;

	while ((c = getopt(argc, argv, "d:t:q:s:D:u:n:i:Q:T:K:P:W:v")) != -1) {
		switch (c) {
		case 'd': dev_name = optarg; break;
		case 't':
			if (inet_pton(AF_INET, optarg, &target) != 1)
				usage();
			break;
		case 'q': nqpn = ud_parse_qpns(optarg, qpns, MAX_QPNS); break;
		case 's': peer_node = strtoul(optarg, NULL, 0); break;
		case 'D': target_node = strtoul(optarg, NULL, 0); break;
		case 'u': stranger = strtoul(optarg, NULL, 0); break;
		case 'n': flood = strtoul(optarg, NULL, 0); break;
		case 'i': ifname = optarg; break;
		case 'Q': nlocal = ud_parse_qpns(optarg, local_qpns, MAX_QPNS); break;
		case 'T': spoof_secs = strtoul(optarg, NULL, 0); break;
		case 'K':
			peer_token = strtoull(optarg, NULL, 16);
			have_token = peer_token != 0;
			break;
		case 'P':
			pause_scale = strtoul(optarg, NULL, 0);
			if (!pause_scale || pause_scale > 100)
				usage();
			break;
		case 'W': go_file = optarg; break;
		case 'v': verbose = true; break;
		default: usage();
		}
	}
	if (!nqpn || !target.s_addr)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	verbs_open();

	if (want(argc, argv, "wrong_qkey"))
		k_wrong_qkey();
	if (want(argc, argv, "truncated"))
		k_truncated();
	if (want(argc, argv, "bad_version"))
		k_bad_version();
	if (want(argc, argv, "bad_type"))
		k_bad_type();
	if (want(argc, argv, "bad_length"))
		k_header("bad_length", MRC_DROP_BAD_LENGTH);
	if (want(argc, argv, "bad_offset"))
		k_header("bad_offset", MRC_DROP_BAD_OFFSET);
	if (want(argc, argv, "msg_too_big"))
		k_header("msg_too_big", MRC_DROP_MSG_TOO_BIG);
	if (want(argc, argv, "bad_seg"))
		k_header("bad_seg", MRC_DROP_BAD_SEG);
	if (want(argc, argv, "bad_sack"))
		k_header("bad_sack", MRC_DROP_BAD_SACK);
	if (want(argc, argv, "not_for_us"))
		k_header("not_for_us", MRC_DROP_NOT_FOR_US);
	if (want(argc, argv, "unknown_peer"))
		k_valid_types("unknown_peer", stranger, MRC_DROP_UNKNOWN_PEER);
	if (want(argc, argv, "wrong_path"))
		k_valid_types("wrong_path", peer_node, MRC_DROP_WRONG_PATH);
	if (want(argc, argv, "hello_flood")) {
		k_flood("hello_flood", MRC_PKT_HELLO, peer_node,
			MRC_DROP_UNEXPECTED);
		k_flood("hello_reply_flood", MRC_PKT_HELLO_REPLY, stranger,
			MRC_DROP_UNEXPECTED);
	}
	if (want(argc, argv, "probe_flood")) {
		k_flood("probe_flood", MRC_PKT_PROBE, peer_node,
			MRC_DROP_WRONG_PATH);
		k_flood("probe_flood_stranger", MRC_PKT_PROBE, stranger,
			MRC_DROP_UNKNOWN_PEER);
	}
	if (want(argc, argv, "credit"))
		k_credit();
	if (want(argc, argv, "wrong_token"))
		k_wrong_token();
	if (want(argc, argv, "spoof") || want(argc, argv, "spoof_epoch") ||
	    want(argc, argv, "spoof_epoch_onpath") || want(argc, argv, "drip") ||
	    want(argc, argv, "spoof_credit")) {
		if (!ifname || !nlocal)
			die("spoof needs -i IFACE and -Q QPNS");
		raw_capture();
		if (want(argc, argv, "spoof_credit"))
			k_spoof_credit(spoof_secs);
		if (want(argc, argv, "spoof"))
			k_spoof();
		if (want(argc, argv, "spoof_epoch"))
			k_spoof_epoch(false);
		if (want(argc, argv, "spoof_epoch_onpath"))
			k_spoof_epoch(true);
		if (want(argc, argv, "drip"))
			k_drip();
	}

	if (want(argc, argv, "replay_rail_down"))
		k_replay_rail_down();

	for (i = 1; i < MRC_DROP_NR; i++)
		if (expect[i])
			printf("expect %s %llu\n", mrc_drop_reason_name(i),
			       expect[i]);
	if (expect_qp_error)
		printf("expect qp_error %llu\n", expect_qp_error);
	if (expect_invisible)
		printf("expect invisible %llu\n", expect_invisible);
	printf("sent verbs %llu\nsent raw %llu\n", verbs_sent, raw_sent);
	return 0;
}
