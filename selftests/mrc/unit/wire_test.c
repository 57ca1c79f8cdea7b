// SPDX-License-Identifier: GPL-2.0
/*
 * wire_test.c - user-space unit tests of mrc/core/wire.c: header layout, round
 * trips, and every drop reason mrc_wire_parse() can give.
 *
 * Output is TAP 13; the exit status is 0 only if every test passed.
 *   make -C selftests/mrc/unit run
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../../mrc/core/wire.h"
#include "tap.h"

#define LOCAL_NODE	0x0a0b0c0dU
#define PEER_NODE	0x01020304U
#define CAP		(64U << 20)	/* the default max message size */

static const struct mrc_wire_limits lim = {
	.max_msg_len = CAP,
	.local_node = LOCAL_NODE,
};

/* Room for the largest packet plus slack to test "too long". */
#define BUF_SZ		(MRC_WIRE_HDR_LEN + 0x10000 + 64)

static u8 buf[BUF_SZ];

/* ---------------------------------------------------------------- */
/* helpers                                                            */
/* ---------------------------------------------------------------- */

static const char *why(enum mrc_drop_reason r)
{
	const char *n = mrc_drop_reason_name(r);

	return n ? n : "(out of range)";
}

/* A valid header of @type addressed to us, body length @len. */
static struct mrc_pkt mk(u8 type, u16 len)
{
	struct mrc_pkt p = {
		.version = MRC_WIRE_VERSION,
		.type = type,
		.src_node = PEER_NODE,
		.dst_node = LOCAL_NODE,
		.src_port = 7,
		.dst_port = 9,
		.msg_id = 0x1122334455667788ULL,
		.len = len,
		.entropy = 3,
		.path_seq = 77,
		.tstamp = 123456789,
	};

	return p;
}

/* DATA packet @offset of a @msg_len message cut in @seg-byte pieces. */
static struct mrc_pkt mk_data(u32 msg_len, u16 seg, u32 offset)
{
	u32 rest = msg_len - offset;
	struct mrc_pkt p = mk(MRC_PKT_DATA, rest < seg ? rest : seg);

	p.msg_len = msg_len;
	p.seg = seg;
	p.offset = offset;
	if (offset + p.len == msg_len)
		p.flags |= MRC_WF_LAST;
	return p;
}

/* Valid body of @type for @p (p->len set accordingly). */
static void put_body(struct mrc_pkt *p)
{
	u8 *body = buf + MRC_WIRE_HDR_LEN;
	struct mrc_pkt_sack s = { .cum = 5, .nbits = 3, .bitmap = { 5 } };
	struct mrc_pkt_nack_range r = { .first = 2, .count = 3 };
	struct mrc_pkt_hello h = { .qpn = 0x11, .qkey = 0x22, .rail_id = 1 };
	struct mrc_pkt_credit c = { .msg_len = 100000, .granted = 8080,
				    .seq = p->type == MRC_PKT_GRANT ? 3 : 0 };
	unsigned int i;

	switch (p->type) {
	case MRC_PKT_CREDIT_REQ:
	case MRC_PKT_GRANT:
		p->len = mrc_wire_put_credit(body, &c);
		break;
	case MRC_PKT_DATA:
		for (i = 0; i < p->len; i++)
			body[i] = (u8)(p->offset + i);
		break;
	case MRC_PKT_SACK:
		p->len = mrc_wire_put_sack(body, &s);
		break;
	case MRC_PKT_NACK:
		p->len = mrc_wire_put_nack(body, &r, 1);
		break;
	case MRC_PKT_RAIL_DOWN:
		p->len = mrc_wire_put_rail_down(body, 0x01020304);
		break;
	default:
		p->len = mrc_wire_put_hello(body, &h);
		break;
	}
}

/* Writes @p (header and a valid body) to buf; returns the datagram size. */
static u32 emit(struct mrc_pkt *p)
{
	put_body(p);
	mrc_wire_put_hdr(buf, p);
	return MRC_WIRE_HDR_LEN + p->len;
}

/* Writes @p's header only, trusting p->len; body bytes are left as they are. */
static u32 emit_hdr(const struct mrc_pkt *p)
{
	mrc_wire_put_hdr(buf, p);
	return MRC_WIRE_HDR_LEN + p->len;
}

static enum mrc_drop_reason parse_n(u32 n, const struct mrc_wire_limits *l)
{
	struct mrc_pkt out;

	return mrc_wire_parse(buf, n, l, &out);
}

/* Parses the first @n bytes of buf with @l; the result must be @reason. */
#define EXPECT(n, l, reason, ...) do {					\
		enum mrc_drop_reason r_ = parse_n(n, l);		\
		if (r_ != (reason)) {					\
			printf("# %s:%d: got %s, want %s: ", __FILE__,	\
			       __LINE__, why(r_), why(reason));		\
			printf(__VA_ARGS__);				\
			printf("\n");					\
			failed_checks++;				\
		}							\
	} while (0)

static bool pkt_eq(const struct mrc_pkt *a, const struct mrc_pkt *b)
{
	return a->version == b->version && a->type == b->type &&
	       a->flags == b->flags && a->src_node == b->src_node &&
	       a->dst_node == b->dst_node && a->src_port == b->src_port &&
	       a->dst_port == b->dst_port && a->msg_id == b->msg_id &&
	       a->offset == b->offset && a->msg_len == b->msg_len &&
	       a->len == b->len && a->seg == b->seg &&
	       a->entropy == b->entropy && a->path_seq == b->path_seq &&
	       a->credit == b->credit && a->tstamp == b->tstamp &&
	       a->token == b->token;
}

/* ---------------------------------------------------------------- */
/* layout                                                             */
/* ---------------------------------------------------------------- */

static void layout__sizes(void)
{
	CHECK(sizeof(struct mrc_wire_hdr) == 64, "%zu",
	      sizeof(struct mrc_wire_hdr));
	CHECK(MRC_WIRE_HDR_LEN == 64, "%d", MRC_WIRE_HDR_LEN);
	CHECK(MRC_WIRE_VERSION == 7, "%d", MRC_WIRE_VERSION);
	/* the SIDR private data, in the 136 bytes a SIDR reply holds */
	CHECK(sizeof(struct mrc_wire_cm) == 136, "%zu",
	      sizeof(struct mrc_wire_cm));
	CHECK(sizeof(struct mrc_wire_sack) == 56, "%zu",
	      sizeof(struct mrc_wire_sack));
	CHECK(sizeof(struct mrc_wire_nack_range) == 8, "%zu",
	      sizeof(struct mrc_wire_nack_range));
	CHECK(sizeof(struct mrc_wire_hello) == 24, "%zu",
	      sizeof(struct mrc_wire_hello));
	CHECK(sizeof(struct mrc_wire_credit) == 16, "%zu",
	      sizeof(struct mrc_wire_credit));
	CHECK(MRC_WIRE_MAX_PAYLOAD == 4032, "%d", MRC_WIRE_MAX_PAYLOAD);
	CHECK(MRC_WIRE_MIN_SEG == 192, "%d", MRC_WIRE_MIN_SEG);
}

/* Offsets as drawn in the wire.h diagram (and protocol.rst). */
static void layout__offsets(void)
{
	static const struct {
		const char *name;
		size_t off, want;
	} f[] = {
#define F(n, w) { #n, offsetof(struct mrc_wire_hdr, n), w }
		F(version, 0), F(type, 1), F(flags, 2), F(src_node, 4),
		F(dst_node, 8), F(src_port, 12), F(dst_port, 14),
		F(msg_id, 16), F(offset, 24), F(msg_len, 28), F(len, 32),
		F(seg, 34), F(entropy, 36), F(ack_delay, 38),
		F(path_seq, 40), F(credit, 44), F(tstamp, 48), F(token, 56),
#undef F
#define F(n, w) { "cm." #n, offsetof(struct mrc_wire_cm, n), w }
		F(version, 0), F(nqp, 1), F(flags, 2), F(src_node, 4),
		F(dst_node, 8), F(rail_id, 12), F(incarnation, 16),
		F(reserved, 20), F(ts, 24), F(nonce, 32), F(token, 40),
		F(qpn, 48), F(mac, 120),
#undef F
#define F(n, w) { "sack." #n, offsetof(struct mrc_wire_sack, n), w }
		F(cum, 0), F(nbits, 4), F(bitmap, 8), F(echo_entropy, 40),
		F(reserved, 42), F(echo_path_seq, 44), F(echo_tstamp, 48),
#undef F
#define F(n, w) { "hello." #n, offsetof(struct mrc_wire_hello, n), w }
		F(qpn, 0), F(qkey, 4), F(rail_id, 8), F(echo_path_seq, 12),
		F(echo_tstamp, 16),
#undef F
#define F(n, w) { "credit." #n, offsetof(struct mrc_wire_credit, n), w }
		F(msg_len, 0), F(granted, 4), F(seq, 8), F(reserved, 12),
#undef F
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(f); i++)
		CHECK(f[i].off == f[i].want, "%s at %zu, want %zu", f[i].name,
		      f[i].off, f[i].want);
}

/* mrc_wire_put_hdr writes exactly these bytes, big-endian. */
static void layout__put_hdr_bytes(void)
{
	static const u8 want[MRC_WIRE_HDR_LEN] = {
		0x01, 0x02, 0xa1, 0xa2,			/* ver type flags */
		0xb1, 0xb2, 0xb3, 0xb4,			/* src_node */
		0xc1, 0xc2, 0xc3, 0xc4,			/* dst_node */
		0xd1, 0xd2, 0xe1, 0xe2,			/* src/dst_port */
		0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, /* msg_id */
		0x20, 0x21, 0x22, 0x23,			/* offset */
		0x30, 0x31, 0x32, 0x33,			/* msg_len */
		0x40, 0x41, 0x50, 0x51,			/* len seg */
		0x60, 0x61, 0x00, 0x00,			/* entropy reserved */
		0x70, 0x71, 0x72, 0x73,			/* path_seq */
		0x80, 0x81, 0x82, 0x83,			/* credit */
		0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, /* tstamp */
		0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, /* token */
	};
	struct mrc_pkt p = {
		.version = 1, .type = 2, .flags = 0xa1a2,
		.src_node = 0xb1b2b3b4, .dst_node = 0xc1c2c3c4,
		.src_port = 0xd1d2, .dst_port = 0xe1e2,
		.msg_id = 0x1011121314151617ULL,
		.offset = 0x20212223, .msg_len = 0x30313233,
		.len = 0x4041, .seg = 0x5051, .entropy = 0x6061,
		.path_seq = 0x70717273, .credit = 0x80818283,
		.tstamp = 0x9091929394959697ULL,
		.token = 0xa0a1a2a3a4a5a6a7ULL,
	};
	unsigned int i;

	/* reserved must be written as 0, and nothing past the header */
	memset(buf, 0xee, 2 * MRC_WIRE_HDR_LEN);
	mrc_wire_put_hdr(buf, &p);
	for (i = 0; i < MRC_WIRE_HDR_LEN; i++)
		CHECK(buf[i] == want[i], "byte %u is %#x, want %#x", i, buf[i],
		      want[i]);
	for (i = MRC_WIRE_HDR_LEN; i < 2 * MRC_WIRE_HDR_LEN; i++)
		CHECK(buf[i] == 0xee, "byte %u past the header written", i);
}

/* Parse reads each field from its documented offset, big-endian. */
static void layout__parse_bytes(void)
{
	static const u8 hdr[MRC_WIRE_HDR_LEN] = {
		0x07, 0x04, 0x80, 0x01,			/* v7 HELLO flags */
		0xb1, 0xb2, 0xb3, 0xb4,			/* src_node */
		0x0a, 0x0b, 0x0c, 0x0d,			/* dst_node = local */
		0xd1, 0xd2, 0xe1, 0xe2,			/* src/dst_port */
		0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, /* msg_id */
		0x20, 0x21, 0x22, 0x23,			/* offset */
		0x30, 0x31, 0x32, 0x33,			/* msg_len */
		0x00, 0x18, 0x50, 0x51,			/* len = 24, seg */
		0x60, 0x61, 0xff, 0xff,			/* entropy ack_delay */
		0x70, 0x71, 0x72, 0x73,			/* path_seq */
		0x80, 0x81, 0x82, 0x83,			/* credit */
		0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, /* tstamp */
		0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, /* token */
	};
	static const u8 body[24] = {
		0x00, 0x12, 0x34, 0x56,	0x01, 0x02, 0x03, 0x04,	/* qpn qkey */
		0x00, 0x00, 0x00, 0x07, 0xa0, 0xa1, 0xa2, 0xa3,	/* rail echo */
		0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,	/* echo_ts */
	};
	struct mrc_pkt_hello h;
	struct mrc_pkt p;
	enum mrc_drop_reason r;

	/* at an odd address, to make unaligned reads visible to UBSan */
	memcpy(buf + 1, hdr, sizeof(hdr));
	memcpy(buf + 1 + sizeof(hdr), body, sizeof(body));
	r = mrc_wire_parse(buf + 1, sizeof(hdr) + sizeof(body), &lim, &p);
	CHECK(r == MRC_DROP_NONE, "%s", why(r));
	if (r)
		return;
	CHECK(p.version == 7 && p.type == MRC_PKT_HELLO, "%u %u", p.version,
	      p.type);
	CHECK(p.flags == 0x8001, "%#x", p.flags);
	CHECK(p.src_node == 0xb1b2b3b4, "%#x", p.src_node);
	CHECK(p.dst_node == LOCAL_NODE, "%#x", p.dst_node);
	CHECK(p.src_port == 0xd1d2 && p.dst_port == 0xe1e2, "%#x %#x",
	      p.src_port, p.dst_port);
	CHECK(p.msg_id == 0x1011121314151617ULL, "%#llx",
	      (unsigned long long)p.msg_id);
	CHECK(p.offset == 0x20212223 && p.msg_len == 0x30313233, "%#x %#x",
	      p.offset, p.msg_len);
	CHECK(p.len == 24 && p.seg == 0x5051, "%u %#x", p.len, p.seg);
	CHECK(p.entropy == 0x6061, "%#x", p.entropy);
	CHECK(p.path_seq == 0x70717273 && p.credit == 0x80818283, "%#x %#x",
	      p.path_seq, p.credit);
	CHECK(p.tstamp == 0x9091929394959697ULL, "%#llx",
	      (unsigned long long)p.tstamp);
	CHECK(p.token == 0xc0c1c2c3c4c5c6c7ULL, "%#llx",
	      (unsigned long long)p.token);
	CHECK(p.body == buf + 1 + MRC_WIRE_HDR_LEN, "body pointer");
	mrc_wire_get_hello(&p, &h);
	CHECK(h.qpn == 0x123456 && h.qkey == 0x01020304 && h.rail_id == 7,
	      "%#x %#x %u", h.qpn, h.qkey, h.rail_id);
	CHECK(h.echo_path_seq == 0xa0a1a2a3, "%#x", h.echo_path_seq);
	CHECK(h.echo_tstamp == 0xf0f1f2f3f4f5f6f7ULL, "%#llx",
	      (unsigned long long)h.echo_tstamp);
}

/* SACK body bytes, and the bitmap's bit numbering. */
static void layout__sack_bytes(void)
{
	struct mrc_pkt_sack s = {
		.cum = 0x01020304, .nbits = 256,
		.bitmap = { 0x1, 0x8000000000000000ULL, 0x0102, 0 },
		.echo_entropy = 0x0506, .echo_path_seq = 0x0708090a,
		.echo_tstamp = 0x1112131415161718ULL,
	};
	u8 want[56] = {
		0x01, 0x02, 0x03, 0x04, 0x00, 0x00, 0x01, 0x00,
		0, 0, 0, 0, 0, 0, 0, 0x01,	/* bit 0 = packet cum + 1 */
		0x80, 0, 0, 0, 0, 0, 0, 0,	/* bit 127 */
		0, 0, 0, 0, 0, 0, 0x01, 0x02,	/* bits 129, 136 */
		0, 0, 0, 0, 0, 0, 0, 0,
		0x05, 0x06, 0x00, 0x00, 0x07, 0x08, 0x09, 0x0a,
		0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18,
	};
	u8 body[64];
	unsigned int i;
	u16 n;

	memset(body, 0xee, sizeof(body));
	n = mrc_wire_put_sack(body, &s);
	CHECK(n == 56, "%u", n);
	for (i = 0; i < sizeof(want); i++)
		CHECK(body[i] == want[i], "byte %u is %#x, want %#x", i,
		      body[i], want[i]);
	CHECK(body[56] == 0xee, "wrote past the body");
}

static void layout__nack_bytes(void)
{
	struct mrc_pkt_nack_range r[2] = {
		{ 0x01020304, 0x05060708 }, { 0x11121314, 0x00000001 },
	};
	static const u8 want[16] = {
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0x11, 0x12, 0x13, 0x14, 0x00, 0x00, 0x00, 0x01,
	};
	u8 body[32];
	u16 n;

	memset(body, 0xee, sizeof(body));
	n = mrc_wire_put_nack(body, r, 2);
	CHECK(n == 16, "%u", n);
	CHECK(!memcmp(body, want, sizeof(want)), "NACK bytes");
	CHECK(body[16] == 0xee, "wrote past the body");
}

static void layout__hello_bytes(void)
{
	struct mrc_pkt_hello h = {
		.qpn = 0x00123456, .qkey = 0x80010203, .rail_id = 2,
		.echo_path_seq = 0xa0a1a2a3,
		.echo_tstamp = 0xf0f1f2f3f4f5f6f7ULL,
	};
	static const u8 want[24] = {
		0x00, 0x12, 0x34, 0x56, 0x80, 0x01, 0x02, 0x03,
		0x00, 0x00, 0x00, 0x02, 0xa0, 0xa1, 0xa2, 0xa3,
		0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
	};
	u8 body[32];
	u16 n;

	memset(body, 0xee, sizeof(body));
	n = mrc_wire_put_hello(body, &h);
	CHECK(n == 24, "%u", n);
	CHECK(!memcmp(body, want, sizeof(want)), "HELLO bytes");
	CHECK(body[24] == 0xee, "wrote past the body");
}

/* ---------------------------------------------------------------- */
/* round trips                                                        */
/* ---------------------------------------------------------------- */

/* put_hdr -> parse gives back every field, for every type. */
static void roundtrip__every_type(void)
{
	unsigned int t;

	for (t = MRC_PKT_DATA; t <= MRC_PKT_TYPE_MAX; t++) {
		struct mrc_pkt in = t == MRC_PKT_DATA ?
			mk_data(10000, 1024, 9216) : mk(t, 0);
		struct mrc_pkt out;
		enum mrc_drop_reason r;
		u32 n;

		/* every field a distinct, non-zero value */
		in.flags |= 0x0f00;
		in.src_port = 0xfffe;
		in.dst_port = 0x8001;
		in.msg_id = 0xfedcba9876543210ULL + t;
		in.entropy = 0xbeef;
		in.path_seq = 0xfffffff0 + t;
		in.credit = 0x12345678;
		in.tstamp = ~0ULL - t;
		in.token = 0x8877665544332211ULL ^ t;
		if (t != MRC_PKT_DATA) {
			in.offset = 0xdeadbeef;	/* unused: carried as is */
			in.msg_len = 0xcafef00d;
			in.seg = 0xffff;
		}
		n = emit(&in);
		memset(&out, 0, sizeof(out));
		r = mrc_wire_parse(buf, n, &lim, &out);
		CHECK(r == MRC_DROP_NONE, "%s: %s", mrc_wire_type_name(t),
		      why(r));
		CHECK(pkt_eq(&in, &out), "%s: fields differ",
		      mrc_wire_type_name(t));
		CHECK(out.body == buf + MRC_WIRE_HDR_LEN, "%s: body",
		      mrc_wire_type_name(t));
	}
}

/* Every packet of messages of assorted sizes and segments parses. */
static void roundtrip__data_geometry(void)
{
	static const u32 lens[] = {
		1, 2, 199, 200, 201, 1023, 1024, 1025, 4040, 4041, 8080,
		65536, 1000000, CAP - 1, CAP,
	};
	static const u16 segs[] = { MRC_WIRE_MIN_SEG, 201, 1024, 4000,
				    MRC_WIRE_MAX_PAYLOAD };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		for (j = 0; j < ARRAY_SIZE(segs); j++) {
			u32 npkts = mrc_wire_npkts(lens[i], segs[j]);
			u32 k, bytes = 0, bad = 0;

			for (k = 0; k < npkts; k++) {
				struct mrc_pkt in, out;
				u32 n;

				/* the big ones: first, last and a few */
				if (npkts > 64 && k > 2 && k < npkts - 3 &&
				    k % 997)
					continue;
				in = mk_data(lens[i], segs[j], k * segs[j]);
				n = emit(&in);
				if (mrc_wire_parse(buf, n, &lim, &out) ||
				    !pkt_eq(&in, &out))
					bad++;
				bytes = in.offset + in.len;
			}
			CHECK(!bad, "msg_len %u seg %u: %u packets refused",
			      lens[i], segs[j], bad);
			CHECK(bytes == lens[i], "msg_len %u seg %u: ends at %u",
			      lens[i], segs[j], bytes);
		}
	}
}

static void roundtrip__sack_body(void)
{
	static const u32 nbits[] = { 0, 1, 63, 64, 65, 128, 200, 255, 256 };
	unsigned int i, w;

	for (i = 0; i < ARRAY_SIZE(nbits); i++) {
		struct mrc_pkt p = mk(MRC_PKT_SACK, 0), out;
		struct mrc_pkt_sack s = {
			.cum = 1000, .nbits = nbits[i],
			.bitmap = { ~0ULL, ~0ULL, ~0ULL, ~0ULL },
			.echo_entropy = 0xabcd, .echo_path_seq = 0x12345678,
			.echo_tstamp = 0x0102030405060708ULL,
		}, got;
		enum mrc_drop_reason r;

		p.len = mrc_wire_put_sack(buf + MRC_WIRE_HDR_LEN, &s);
		r = mrc_wire_parse(buf, emit_hdr(&p), &lim, &out);
		CHECK(r == MRC_DROP_NONE, "nbits %u: %s", nbits[i], why(r));
		if (r)
			continue;
		memset(&got, 0x55, sizeof(got));
		mrc_wire_get_sack(&out, &got);
		CHECK(got.cum == 1000 && got.nbits == nbits[i], "%u %u",
		      got.cum, got.nbits);
		CHECK(got.echo_entropy == 0xabcd &&
		      got.echo_path_seq == 0x12345678 &&
		      got.echo_tstamp == 0x0102030405060708ULL, "echo fields");
		/* exactly the first nbits bits are set, the rest went out 0 */
		for (w = 0; w < 4; w++) {
			u64 want = nbits[i] >= 64 * (w + 1) ? ~0ULL :
				nbits[i] <= 64 * w ? 0 :
				(1ULL << (nbits[i] - 64 * w)) - 1;

			CHECK(got.bitmap[w] == want,
			      "nbits %u word %u: %#llx want %#llx", nbits[i],
			      w, (unsigned long long)got.bitmap[w],
			      (unsigned long long)want);
		}
	}
}

/* Garbage in the bitmap beyond nbits (a sloppy sender) is ignored. */
static void roundtrip__sack_ignores_bits_past_nbits(void)
{
	struct mrc_pkt p = mk(MRC_PKT_SACK, 0), out;
	struct mrc_pkt_sack s = { .cum = 0, .nbits = 3 }, got;
	u8 *bm = buf + MRC_WIRE_HDR_LEN +
		 offsetof(struct mrc_wire_sack, bitmap);

	p.len = mrc_wire_put_sack(buf + MRC_WIRE_HDR_LEN, &s);
	memset(bm, 0xff, 32);
	CHECK(mrc_wire_parse(buf, emit_hdr(&p), &lim, &out) == MRC_DROP_NONE,
	      "refused");
	mrc_wire_get_sack(&out, &got);
	CHECK(got.bitmap[0] == 7 && !got.bitmap[1] && !got.bitmap[2] &&
	      !got.bitmap[3], "%#llx %#llx", (unsigned long long)got.bitmap[0],
	      (unsigned long long)got.bitmap[1]);
}

static void roundtrip__nack_body(void)
{
	struct mrc_pkt_nack_range r[MRC_WIRE_NACK_MAX], got;
	unsigned int n, i;

	for (i = 0; i < MRC_WIRE_NACK_MAX; i++) {
		r[i].first = 100 * i;
		r[i].count = i + 1;
	}
	for (n = 1; n <= MRC_WIRE_NACK_MAX; n++) {
		struct mrc_pkt p = mk(MRC_PKT_NACK, 0), out;
		enum mrc_drop_reason rc;

		p.len = mrc_wire_put_nack(buf + MRC_WIRE_HDR_LEN, r, n);
		CHECK(p.len == 8 * n, "%u ranges: len %u", n, p.len);
		rc = mrc_wire_parse(buf, emit_hdr(&p), &lim, &out);
		CHECK(rc == MRC_DROP_NONE, "%u ranges: %s", n, why(rc));
		if (rc)
			continue;
		CHECK(mrc_wire_nack_nranges(&out) == n, "%u",
		      mrc_wire_nack_nranges(&out));
		for (i = 0; i < n; i++) {
			mrc_wire_get_nack_range(&out, i, &got);
			CHECK(got.first == r[i].first && got.count == r[i].count,
			      "range %u: %u+%u", i, got.first, got.count);
		}
	}
	CHECK(mrc_wire_put_nack(buf, r, 0) == 0, "0 ranges");
	CHECK(mrc_wire_put_nack(buf, r, MRC_WIRE_NACK_MAX + 1) == 0,
	      "33 ranges");
}

static void roundtrip__hello_body(void)
{
	unsigned int t;

	for (t = MRC_PKT_HELLO; t <= MRC_PKT_PROBE_REPLY; t++) {
		struct mrc_pkt p = mk(t, 0), out;
		struct mrc_pkt_hello h = {
			.qpn = 0xffffff, .qkey = 0x80000000 + t, .rail_id = t,
			.echo_path_seq = ~0U, .echo_tstamp = ~0ULL - 1,
		}, got;
		enum mrc_drop_reason r;

		p.len = mrc_wire_put_hello(buf + MRC_WIRE_HDR_LEN, &h);
		r = mrc_wire_parse(buf, emit_hdr(&p), &lim, &out);
		CHECK(r == MRC_DROP_NONE, "%s: %s", mrc_wire_type_name(t),
		      why(r));
		if (r)
			continue;
		mrc_wire_get_hello(&out, &got);
		CHECK(!memcmp(&got, &h, sizeof(h)), "%s: body differs",
		      mrc_wire_type_name(t));
	}
}

/* ---------------------------------------------------------------- */
/* drops: generic header checks                                       */
/* ---------------------------------------------------------------- */

static void parse__truncated_header(void)
{
	struct mrc_pkt p = mk(MRC_PKT_HELLO, 0), out;
	u32 n = emit(&p), i;

	for (i = 0; i < MRC_WIRE_HDR_LEN; i++)
		EXPECT(i, &lim, MRC_DROP_TRUNCATED, "buflen %u", i);
	/* NULL is fine when there is nothing to read */
	CHECK(mrc_wire_parse(NULL, 0, &lim, &out) == MRC_DROP_TRUNCATED,
	      "NULL, 0");
	EXPECT(n, &lim, MRC_DROP_NONE, "whole packet");
}

/* len says more than the datagram holds: truncated, for every type. */
static void parse__truncated_body(void)
{
	unsigned int t;

	for (t = MRC_PKT_DATA; t <= MRC_PKT_TYPE_MAX; t++) {
		struct mrc_pkt p = t == MRC_PKT_DATA ? mk_data(3000, 1000, 0) :
			mk(t, 0);
		u32 n = emit(&p), i;

		for (i = MRC_WIRE_HDR_LEN; i < n; i++)
			EXPECT(i, &lim, MRC_DROP_TRUNCATED, "%s, %u of %u",
			       mrc_wire_type_name(t), i, n);
		/* a len near 64 KiB over a short datagram */
		p.len = 0xffff;
		emit_hdr(&p);
		EXPECT(n, &lim, MRC_DROP_TRUNCATED, "%s, len 65535",
		       mrc_wire_type_name(t));
	}
}

/* Decision: bytes after header + len are refused (BAD_LENGTH). */
static void parse__trailing_bytes(void)
{
	unsigned int t, extra;

	for (t = MRC_PKT_DATA; t <= MRC_PKT_TYPE_MAX; t++) {
		struct mrc_pkt p = t == MRC_PKT_DATA ? mk_data(3000, 1000, 2000) :
			mk(t, 0);
		u32 n = emit(&p);

		for (extra = 1; extra <= 9; extra += 4)
			EXPECT(n + extra, &lim, MRC_DROP_BAD_LENGTH, "%s + %u",
			       mrc_wire_type_name(t), extra);
	}
}

/* No datagram above MRC_WIRE_MAX_PKT is accepted, even if len agrees. */
static void parse__too_long(void)
{
	struct mrc_pkt p = mk(MRC_PKT_DATA, 0);
	static const u32 lens[] = { MRC_WIRE_MAX_PAYLOAD + 1, 4096, 0xffff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		p.len = lens[i];
		p.seg = lens[i];	/* even seg agrees */
		p.msg_len = lens[i];
		p.flags = MRC_WF_LAST;
		EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "len %u",
		       lens[i]);
	}
	p = mk_data(MRC_WIRE_MAX_PAYLOAD, MRC_WIRE_MAX_PAYLOAD, 0);
	CHECK(emit(&p) == MRC_WIRE_MAX_PKT, "largest packet");
	EXPECT(MRC_WIRE_MAX_PKT, &lim, MRC_DROP_NONE, "4096 bytes");
}

static void parse__bad_version(void)
{
	struct mrc_pkt p = mk(MRC_PKT_HELLO, 0);
	u32 n = emit(&p), v;

	for (v = 0; v < 256; v++) {
		if (v == MRC_WIRE_VERSION)
			continue;
		buf[0] = v;
		EXPECT(n, &lim, MRC_DROP_BAD_VERSION, "version %u", v);
	}
	/* version is checked before type and length */
	buf[0] = MRC_WIRE_VERSION + 1;
	buf[1] = 0;
	EXPECT(n + 3, &lim, MRC_DROP_BAD_VERSION, "next version with junk");
}

static void parse__unknown_type(void)
{
	struct mrc_pkt p = mk(MRC_PKT_HELLO, 0);
	u32 n = emit(&p), t;

	for (t = 0; t < 256; t++) {
		if (t >= MRC_PKT_DATA && t <= MRC_PKT_TYPE_MAX)
			continue;
		buf[1] = t;
		EXPECT(n, &lim, MRC_DROP_BAD_TYPE, "type %u", t);
	}
	CHECK(MRC_PKT_TYPE_MAX == 10, "new type: update this test");
}

/* RAIL_DOWN: an 8-byte body, rail id then a reserved word. */
static void parse__rail_down(void)
{
	static const u8 want[8] = { 1, 2, 3, 4, 0, 0, 0, 0 };
	struct mrc_pkt p = mk(MRC_PKT_RAIL_DOWN, 0), out;
	u32 n = emit(&p), len;

	CHECK(p.len == 8, "body %u", p.len);
	CHECK(!memcmp(buf + MRC_WIRE_HDR_LEN, want, sizeof(want)), "bytes");
	CHECK(mrc_wire_parse(buf, n, &lim, &out) == MRC_DROP_NONE &&
	      mrc_wire_get_rail_down(&out) == 0x01020304, "accepted, id");
	/* reserved is ignored on receive */
	buf[MRC_WIRE_HDR_LEN + 7] = 0xff;
	EXPECT(n, &lim, MRC_DROP_NONE, "reserved set");
	/* any other body length is refused */
	for (len = 0; len <= 24; len += 4) {
		if (len == 8)
			continue;
		p.len = len;
		EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "len %u", len);
	}
	CHECK(!strcmp(mrc_wire_type_name(MRC_PKT_RAIL_DOWN), "rail_down"),
	      "name");
}

/* dst_node must be ours, for every type; HELLO has no wildcard. */
static void parse__not_for_us(void)
{
	static const u32 nodes[] = { 0, LOCAL_NODE + 1, LOCAL_NODE ^ 0x80000000,
				     PEER_NODE, ~0U };
	unsigned int t, i;

	for (t = MRC_PKT_DATA; t <= MRC_PKT_TYPE_MAX; t++) {
		for (i = 0; i < ARRAY_SIZE(nodes); i++) {
			struct mrc_pkt p = t == MRC_PKT_DATA ?
				mk_data(100, 1000, 0) : mk(t, 0);

			p.dst_node = nodes[i];
			EXPECT(emit(&p), &lim, MRC_DROP_NOT_FOR_US,
			       "%s to %#x", mrc_wire_type_name(t), nodes[i]);
		}
	}
}

/* Another node's limits accept what ours refuse, and vice versa. */
static void parse__local_node_from_limits(void)
{
	struct mrc_wire_limits other = { .max_msg_len = CAP, .local_node = 0 };
	struct mrc_pkt p = mk(MRC_PKT_PROBE, 0);

	p.dst_node = 0;
	EXPECT(emit(&p), &other, MRC_DROP_NONE, "node 0 to node 0");
	EXPECT(emit(&p), &lim, MRC_DROP_NOT_FOR_US, "node 0 to us");
}

/*
 * Unknown flags, and ack_delay and credit without a done list, are
 * ignored on receive.
 */
static void parse__ignored_fields(void)
{
	struct mrc_pkt p = mk_data(5000, 1000, 1000), out;
	u32 n;

	p.flags |= (0xfff8 & ~MRC_WF_DONE_MORE) | MRC_WF_RETRANS |
		   MRC_WF_ACK_NOW;
	p.credit = 0xffffffff;
	n = emit(&p);
	buf[offsetof(struct mrc_wire_hdr, ack_delay)] = 0xff;
	buf[offsetof(struct mrc_wire_hdr, ack_delay) + 1] = 0x7f;
	CHECK(mrc_wire_parse(buf, n, &lim, &out) == MRC_DROP_NONE, "refused");
	CHECK(out.flags == p.flags, "%#x", out.flags);
}

/*
 * The token is the receive path's business (it needs the peer): the
 * parser takes any value, 0 and all ones included, for every type, and
 * hands it over unchanged.
 */
static void parse__token_not_checked(void)
{
	static const u64 tokens[] = { 0, 1, 0x8000000000000000ULL, ~0ULL,
		0x0123456789abcdefULL };
	unsigned int t, i;

	for (t = MRC_PKT_DATA; t <= MRC_PKT_TYPE_MAX; t++)
		for (i = 0; i < ARRAY_SIZE(tokens); i++) {
			struct mrc_pkt p = t == MRC_PKT_DATA ?
				mk_data(3000, 1000, 2000) : mk(t, 0), out;
			u32 n;

			p.token = tokens[i];
			n = emit(&p);
			CHECK(mrc_wire_parse(buf, n, &lim, &out) ==
			      MRC_DROP_NONE, "%s token %#llx refused",
			      mrc_wire_type_name(t),
			      (unsigned long long)tokens[i]);
			CHECK(out.token == tokens[i], "%s: token %#llx",
			      mrc_wire_type_name(t),
			      (unsigned long long)out.token);
		}
}

/* On a drop, the caller's struct mrc_pkt is left alone. */
static void parse__pkt_untouched_on_drop(void)
{
	struct mrc_pkt p = mk_data(5000, 1000, 0), out, before;
	u32 n = emit(&p);

	memset(&out, 0xa5, sizeof(out));
	before = out;
	buf[offsetof(struct mrc_wire_hdr, offset) + 3] = 1;	/* misalign */
	CHECK(mrc_wire_parse(buf, n, &lim, &out) == MRC_DROP_BAD_OFFSET,
	      "not refused");
	CHECK(!memcmp(&out, &before, sizeof(out)), "pkt written on a drop");
}

/* The first failing check wins, in the documented order. */
static void parse__check_order(void)
{
	struct mrc_pkt p = mk_data(CAP + 1, 10, 3);	/* bad everything */
	u32 n;

	p.dst_node = 5;
	p.len = 100;
	n = emit_hdr(&p);
	EXPECT(n - 1, &lim, MRC_DROP_TRUNCATED, "short body first");
	EXPECT(n + 1, &lim, MRC_DROP_BAD_LENGTH, "then trailing bytes");
	EXPECT(n, &lim, MRC_DROP_NOT_FOR_US, "then dst_node");
	p.dst_node = LOCAL_NODE;
	n = emit_hdr(&p);
	EXPECT(n, &lim, MRC_DROP_MSG_TOO_BIG, "then msg_len");
	p.msg_len = 1000;
	n = emit_hdr(&p);
	EXPECT(n, &lim, MRC_DROP_BAD_SEG, "then seg");
	p.seg = 300;
	n = emit_hdr(&p);
	EXPECT(n, &lim, MRC_DROP_BAD_OFFSET, "then offset");
}

/* ---------------------------------------------------------------- */
/* drops: DATA geometry                                               */
/* ---------------------------------------------------------------- */

static void data__msg_len_zero(void)
{
	struct mrc_pkt p = mk_data(1, 1000, 0);

	p.msg_len = 0;
	EXPECT(emit(&p), &lim, MRC_DROP_BAD_LENGTH, "msg_len 0, len 1");
	p.len = 0;
	p.flags = MRC_WF_LAST;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "msg_len 0, len 0");
}

static void data__msg_too_big(void)
{
	struct mrc_wire_limits small = { .max_msg_len = 4096,
					 .local_node = LOCAL_NODE };
	struct mrc_wire_limits one = { .max_msg_len = 1,
				       .local_node = LOCAL_NODE };
	struct mrc_wire_limits none = { .max_msg_len = 0,
					.local_node = LOCAL_NODE };
	struct mrc_wire_limits huge = { .max_msg_len = U32_MAX,
					.local_node = LOCAL_NODE };
	struct mrc_pkt p;

	p = mk_data(CAP, 4000, 0);
	EXPECT(emit(&p), &lim, MRC_DROP_NONE, "at the cap");
	p = mk_data(CAP + 1, 4000, 0);
	EXPECT(emit(&p), &lim, MRC_DROP_MSG_TOO_BIG, "cap + 1");
	p = mk_data(U32_MAX, 4000, 0);
	EXPECT(emit(&p), &lim, MRC_DROP_MSG_TOO_BIG, "U32_MAX");
	EXPECT(emit(&p), &huge, MRC_DROP_NONE, "U32_MAX under a U32_MAX cap");
	p = mk_data(U32_MAX, 4000, U32_MAX - U32_MAX % 4000);
	EXPECT(emit(&p), &huge, MRC_DROP_NONE, "last packet of 4 GiB - 1");
	p = mk_data(4097, 1000, 4000);
	EXPECT(emit(&p), &small, MRC_DROP_MSG_TOO_BIG, "4097 over 4096");
	p = mk_data(4096, 1000, 4000);
	EXPECT(emit(&p), &small, MRC_DROP_NONE, "4096 under 4096");
	p = mk_data(2, 1000, 0);
	EXPECT(emit(&p), &one, MRC_DROP_MSG_TOO_BIG, "2 over 1");
	p = mk_data(1, 1000, 0);
	EXPECT(emit(&p), &one, MRC_DROP_NONE, "1 under 1");
	EXPECT(emit(&p), &none, MRC_DROP_MSG_TOO_BIG, "1 over 0");
}

static void data__seg_range(void)
{
	static const u16 bad[] = { 0, 1, MRC_WIRE_MIN_SEG - 1,
				   MRC_WIRE_MAX_PAYLOAD + 1, 4096, 0xffff };
	static const u16 good[] = { MRC_WIRE_MIN_SEG, MRC_WIRE_MAX_PAYLOAD };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		/* a one-packet message: len = msg_len < seg whatever seg is */
		struct mrc_pkt p = mk_data(100, 1000, 0);

		p.seg = bad[i];
		EXPECT(emit(&p), &lim, MRC_DROP_BAD_SEG, "seg %u", bad[i]);
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		struct mrc_pkt p = mk_data(100000, good[i], good[i]);

		EXPECT(emit(&p), &lim, MRC_DROP_NONE, "seg %u", good[i]);
	}
}

static void data__offset(void)
{
	struct mrc_pkt p;
	u32 off;

	/* not a multiple of seg */
	for (off = 1; off < 1000; off += 111) {
		p = mk_data(10000, 1000, 0);
		p.offset = 1000 + off;
		EXPECT(emit(&p), &lim, MRC_DROP_BAD_OFFSET, "offset %u",
		       p.offset);
	}
	/* at or past the end */
	p = mk_data(3000, 1000, 2000);
	p.offset = 3000;
	EXPECT(emit(&p), &lim, MRC_DROP_BAD_OFFSET, "offset == msg_len");
	p.offset = 4000;
	EXPECT(emit(&p), &lim, MRC_DROP_BAD_OFFSET, "offset > msg_len");
	p.offset = 0xffffffff - 0xffffffff % 1000;
	EXPECT(emit(&p), &lim, MRC_DROP_BAD_OFFSET, "offset near 4 GiB");
	/* ... also when len and LAST look like a middle packet's */
	p = mk_data(3000, 1000, 1000);
	CHECK(!(p.flags & MRC_WF_LAST) && p.len == 1000, "helper");
	p.offset = 4000;
	EXPECT(emit(&p), &lim, MRC_DROP_BAD_OFFSET, "middle-like past end");
	p.offset = 3000;
	EXPECT(emit(&p), &lim, MRC_DROP_BAD_OFFSET, "middle-like at end");
	/* the last packet claims more than is left */
	p = mk_data(2500, 1000, 2000);
	p.len = 1000;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_OFFSET, "past msg_len");
	p = mk_data(2500, 1000, 2000);
	p.len = 501;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_OFFSET, "one byte past");
}

static void data__len(void)
{
	struct mrc_pkt p;

	/* a packet other than the last carries exactly seg bytes */
	p = mk_data(3000, 1000, 1000);
	p.len = 999;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "short middle");
	p.len = 1001;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "long middle");
	p.len = 0;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "empty middle");
	/* the last one carries exactly what is left */
	p = mk_data(2500, 1000, 2000);
	p.len = 499;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "short last");
	p.len = 0;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "empty last");
	p = mk_data(2500, 1000, 2000);
	EXPECT(emit(&p), &lim, MRC_DROP_NONE, "right last");
}

/* LAST is set on, and only on, the packet that ends the message. */
static void data__last_flag(void)
{
	struct mrc_pkt p;

	p = mk_data(2500, 1000, 2000);
	p.flags &= ~MRC_WF_LAST;
	EXPECT(emit(&p), &lim, MRC_DROP_BAD_OFFSET, "last without LAST");
	p = mk_data(2500, 1000, 1000);
	p.flags |= MRC_WF_LAST;
	EXPECT(emit(&p), &lim, MRC_DROP_BAD_OFFSET, "LAST on a middle one");
	p = mk_data(1, 1000, 0);
	p.flags &= ~MRC_WF_LAST;
	EXPECT(emit(&p), &lim, MRC_DROP_BAD_OFFSET, "single without LAST");
	p = mk_data(3000, 1000, 2000);	/* exact multiple of seg */
	CHECK(p.flags & MRC_WF_LAST, "helper");
	EXPECT(emit(&p), &lim, MRC_DROP_NONE, "full-size last");
	p.flags &= ~MRC_WF_LAST;
	EXPECT(emit(&p), &lim, MRC_DROP_BAD_OFFSET, "full-size, no LAST");
}

/* ---------------------------------------------------------------- */
/* drops: SACK / NACK / HELLO bodies                                   */
/* ---------------------------------------------------------------- */

static void sack__len(void)
{
	static const u16 lens[] = { 0, 1, 8, 55, 57, 64, 112 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		struct mrc_pkt p = mk(MRC_PKT_SACK, 0);

		emit(&p);
		p.len = lens[i];
		EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "len %u",
		       lens[i]);
	}
}

static void sack_set(u32 cum, u32 nbits)
{
	struct mrc_pkt p = mk(MRC_PKT_SACK, 0);
	u8 *b = buf + MRC_WIRE_HDR_LEN;
	__be32 v;

	emit(&p);
	v = cpu_to_be32(cum);
	memcpy(b + offsetof(struct mrc_wire_sack, cum), &v, 4);
	v = cpu_to_be32(nbits);
	memcpy(b + offsetof(struct mrc_wire_sack, nbits), &v, 4);
}

static void sack__nbits(void)
{
	static const u32 bad[] = { MRC_WIRE_SACK_BITS + 1, 512, 0x10000,
				   0x80000000, U32_MAX };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		sack_set(0, bad[i]);
		EXPECT(MRC_WIRE_HDR_LEN + 56, &lim, MRC_DROP_BAD_SACK,
		       "nbits %u", bad[i]);
	}
	sack_set(0, MRC_WIRE_SACK_BITS);
	EXPECT(MRC_WIRE_HDR_LEN + 56, &lim, MRC_DROP_NONE, "nbits 256");
	sack_set(0, 0);
	EXPECT(MRC_WIRE_HDR_LEN + 56, &lim, MRC_DROP_NONE, "nbits 0");
}

/* Packet index cum + nbits must fit in 32 bits. */
static void sack__overflow(void)
{
	sack_set(U32_MAX, 0);
	EXPECT(MRC_WIRE_HDR_LEN + 56, &lim, MRC_DROP_NONE, "U32_MAX + 0");
	sack_set(U32_MAX - 256, 256);
	EXPECT(MRC_WIRE_HDR_LEN + 56, &lim, MRC_DROP_NONE, "last fitting");
	sack_set(U32_MAX - 255, 256);
	EXPECT(MRC_WIRE_HDR_LEN + 56, &lim, MRC_DROP_BAD_SACK, "one over");
	sack_set(U32_MAX, 1);
	EXPECT(MRC_WIRE_HDR_LEN + 56, &lim, MRC_DROP_BAD_SACK, "U32_MAX + 1");
}

/*
 * @p (its len the bytes before a done list) flagged MRC_WF_DONE_MORE with
 * no list, a partial entry, or one entry too many: each a wrong length.
 */
static void bad_done_lists(struct mrc_pkt p)
{
	u16 base = p.len;

	p.flags |= MRC_WF_DONE_MORE;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "%s: flag, no list",
	       mrc_wire_type_name(p.type));
	p.len = base + 6;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH,
	       "%s: 6 bytes of list", mrc_wire_type_name(p.type));
	p.len = base + 4 * (MRC_WIRE_DONE_MAX + 1);
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "%s: %u entries",
	       mrc_wire_type_name(p.type), MRC_WIRE_DONE_MAX + 1);
}

/*
 * A done list (MRC_WF_DONE_MORE) round-trips after the SACK body, 1 to
 * MRC_WIRE_DONE_MAX entries; anything else with the flag, or the list
 * without it, is dropped, and so is the flag with REFUSED, BUSY or GONE.
 */
static void sack__done_list(void)
{
	static const u16 bad_flags[] = { MRC_WF_REFUSED, MRC_WF_BUSY,
					 MRC_WF_GONE };
	u32 seq[MRC_WIRE_DONE_MAX], i, n;
	struct mrc_pkt_sack sack = { .cum = 3 };
	struct mrc_pkt p, out;
	u16 len;

	for (i = 0; i < MRC_WIRE_DONE_MAX; i++)
		seq[i] = 0x80000001u * (i + 1);
	for (n = 1; n <= MRC_WIRE_DONE_MAX; n += MRC_WIRE_DONE_MAX - 1) {
		p = mk(MRC_PKT_SACK, 0);
		p.flags = MRC_WF_DONE_MORE;
		len = mrc_wire_put_sack(buf + MRC_WIRE_HDR_LEN, &sack);
		len += mrc_wire_put_done(buf + MRC_WIRE_HDR_LEN + len, seq, n);
		CHECK(len == 56 + 4 * n, "%u entries: len %u", n, len);
		p.len = len;
		CHECK(mrc_wire_parse(buf, emit_hdr(&p), &lim, &out) ==
		      MRC_DROP_NONE, "%u entries", n);
		CHECK(mrc_wire_done_n(&out) == n, "%u entries: %u", n,
		      mrc_wire_done_n(&out));
		for (i = 0; i < n; i++)
			CHECK(mrc_wire_get_done(&out, i) == seq[i],
			      "entry %u: %#x", i, mrc_wire_get_done(&out, i));
		/* the list without the flag: a SACK of the wrong length */
		p.flags = 0;
		EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH,
		       "%u entries, no flag", n);
		for (i = 0; i < ARRAY_SIZE(bad_flags); i++) {
			p.flags = MRC_WF_DONE_MORE | bad_flags[i];
			EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_SACK,
			       "with flag %#x", bad_flags[i]);
		}
	}
	/* the flag without a list, a partial entry, one entry too many */
	p = mk(MRC_PKT_SACK, 0);
	emit(&p);
	bad_done_lists(p);
	/* a SACK without the flag has no list */
	p = mk(MRC_PKT_SACK, 0);
	emit(&p);
	CHECK(mrc_wire_parse(buf, MRC_WIRE_HDR_LEN + 56, &lim, &out) ==
	      MRC_DROP_NONE && mrc_wire_done_n(&out) == 0, "plain SACK");
}

/*
 * Version 7: a DATA's done list sits between its header and its payload,
 * 1 to MRC_WIRE_DONE_MAX entries, counted in len.  The parser hands the
 * payload over as body and len, the list, its epoch (credit) and the ack
 * delay apart.  Extra bytes without the flag, the flag without a list, a
 * partial entry, one entry too many, and a list that makes the datagram
 * larger than the largest are dropped.
 */
static void data__done_list(void)
{
	u8 list[MRC_WIRE_DONE_MAX * 4];
	u32 seq[MRC_WIRE_DONE_MAX], i, n, total;
	struct mrc_pkt p, out;

	for (i = 0; i < MRC_WIRE_DONE_MAX; i++)
		seq[i] = 0x40000003u + 7 * i;
	for (n = 1; n <= MRC_WIRE_DONE_MAX; n += MRC_WIRE_DONE_MAX - 1) {
		p = mk_data(5000, 1000, 4000);
		p.flags |= MRC_WF_DONE_MORE;
		mrc_wire_put_done(list, seq, n);
		p.done = list;
		p.ndone = n;
		p.credit = 0xabcdef01;
		p.ack_delay_us = 321;
		mrc_wire_put_hdr(buf, &p);
		memcpy(buf + MRC_WIRE_HDR_LEN, list, 4 * n);
		memset(buf + MRC_WIRE_HDR_LEN + 4 * n, 0x5a, p.len);
		total = MRC_WIRE_HDR_LEN + 4 * n + p.len;
		CHECK(mrc_wire_parse(buf, total, &lim, &out) == MRC_DROP_NONE,
		      "%u entries", n);
		CHECK(out.len == 1000 &&
		      out.body == buf + MRC_WIRE_HDR_LEN + 4 * n &&
		      out.body[0] == 0x5a && out.body[999] == 0x5a,
		      "%u entries: payload %u at +%ld", n, out.len,
		      (long)(out.body - buf));
		CHECK(mrc_wire_done_n(&out) == n &&
		      mrc_wire_done_epoch(&out) == 0xabcdef01 &&
		      out.ack_delay_us == 321, "%u entries: %u, epoch %#x, %u us",
		      n, mrc_wire_done_n(&out), mrc_wire_done_epoch(&out),
		      out.ack_delay_us);
		for (i = 0; i < n; i++)
			CHECK(mrc_wire_get_done(&out, i) == seq[i],
			      "entry %u: %#x", i, mrc_wire_get_done(&out, i));
		/* a packet of the middle with the list but not the flag */
		p = mk_data(5000, 1000, 0);
		p.len += 4 * n;
		EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH,
		       "%u entries, no flag", n);
	}
	/* the flag without a list, a partial entry, one entry too many */
	bad_done_lists(mk_data(5000, 1000, 0));
	/* a full segment of the largest size has no room for one */
	p = mk_data(10000, MRC_WIRE_MAX_PAYLOAD, 0);
	p.flags |= MRC_WF_DONE_MORE;
	p.len += 4;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "%u + 4 bytes",
	       MRC_WIRE_MAX_PAYLOAD);
	p.len -= 4;
	EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "flag, full segment");
}

/* Writes @n ranges as given (no helper checks) and parses them. */
static enum mrc_drop_reason nack_raw(const u32 *fc, unsigned int n)
{
	struct mrc_pkt p = mk(MRC_PKT_NACK, 8 * n);
	u8 *b = buf + MRC_WIRE_HDR_LEN;
	unsigned int i;

	for (i = 0; i < 2 * n; i++) {
		__be32 v = cpu_to_be32(fc[i]);

		memcpy(b + 4 * i, &v, 4);
	}
	return parse_n(emit_hdr(&p), &lim);
}

static void nack__len(void)
{
	static const u16 bad[] = { 0, 1, 4, 7, 9, 15, 17, 255,
				   8 * (MRC_WIRE_NACK_MAX + 1), 4040 };
	u32 fc[2 * 506];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(fc) / 2; i++) {
		fc[2 * i] = 2 * i;
		fc[2 * i + 1] = 1;
	}
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct mrc_pkt p = mk(MRC_PKT_NACK, bad[i]);

		nack_raw(fc, 506);	/* a valid-looking body */
		EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH, "len %u",
		       bad[i]);
	}
	CHECK(nack_raw(fc, 1) == MRC_DROP_NONE, "1 range");
	CHECK(nack_raw(fc, MRC_WIRE_NACK_MAX) == MRC_DROP_NONE, "32 ranges");
	CHECK(nack_raw(fc, MRC_WIRE_NACK_MAX + 1) == MRC_DROP_BAD_LENGTH,
	      "33 ranges");
}

static void nack__count_zero(void)
{
	u32 a[] = { 5, 0 };
	u32 b[] = { 1, 2, 5, 0 };
	u32 c[] = { 0, 0, 5, 1 };

	CHECK(nack_raw(a, 1) == MRC_DROP_BAD_SACK, "only range empty");
	CHECK(nack_raw(b, 2) == MRC_DROP_BAD_SACK, "second range empty");
	CHECK(nack_raw(c, 2) == MRC_DROP_BAD_SACK, "first range empty");
}

static void nack__overflow(void)
{
	u32 a[] = { U32_MAX, 1 };
	u32 b[] = { 1, U32_MAX };
	u32 c[] = { U32_MAX, U32_MAX };
	u32 d[] = { 0x80000000, 0x80000000 };
	u32 ok1[] = { U32_MAX - 1, 1 };
	u32 ok2[] = { 0, U32_MAX };

	CHECK(nack_raw(a, 1) == MRC_DROP_BAD_SACK, "U32_MAX + 1");
	CHECK(nack_raw(b, 1) == MRC_DROP_BAD_SACK, "1 + U32_MAX");
	CHECK(nack_raw(c, 1) == MRC_DROP_BAD_SACK, "U32_MAX + U32_MAX");
	CHECK(nack_raw(d, 1) == MRC_DROP_BAD_SACK, "2^31 + 2^31");
	CHECK(nack_raw(ok1, 1) == MRC_DROP_NONE, "ends at U32_MAX");
	CHECK(nack_raw(ok2, 1) == MRC_DROP_NONE, "0 + U32_MAX");
}

/* Decision: ranges ascend and do not overlap (touching is fine). */
static void nack__order(void)
{
	u32 desc[] = { 10, 2, 5, 2 };
	u32 overlap[] = { 5, 3, 7, 2 };
	u32 same[] = { 5, 1, 5, 1 };
	u32 touch[] = { 5, 2, 7, 2 };
	u32 gap[] = { 5, 1, 7, 1, 100, 50 };

	CHECK(nack_raw(desc, 2) == MRC_DROP_BAD_SACK, "descending");
	CHECK(nack_raw(overlap, 2) == MRC_DROP_BAD_SACK, "overlapping");
	CHECK(nack_raw(same, 2) == MRC_DROP_BAD_SACK, "repeated");
	CHECK(nack_raw(touch, 2) == MRC_DROP_NONE, "adjacent");
	CHECK(nack_raw(gap, 3) == MRC_DROP_NONE, "ascending with gaps");
}

static void hello__len(void)
{
	static const u16 lens[] = { 0, 1, 23, 25, 32, 48 };
	unsigned int t, i;

	for (t = MRC_PKT_HELLO; t <= MRC_PKT_PROBE_REPLY; t++) {
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			struct mrc_pkt p = mk(t, 0);

			emit(&p);
			p.len = lens[i];
			EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH,
			       "%s len %u", mrc_wire_type_name(t), lens[i]);
		}
	}
}

/* ---------------------------------------------------------------- */
/* CREDIT_REQ / GRANT                                                 */
/* ---------------------------------------------------------------- */

static void layout__credit_bytes(void)
{
	struct mrc_pkt_credit c = {
		.msg_len = 0x01020304, .granted = 0x00a0b0c0, .seq = 0x11121314,
	};
	static const u8 want[16] = {
		0x01, 0x02, 0x03, 0x04, 0x00, 0xa0, 0xb0, 0xc0,
		0x11, 0x12, 0x13, 0x14, 0x00, 0x00, 0x00, 0x00,
	};
	u8 body[32];
	u16 n;

	memset(body, 0xee, sizeof(body));
	n = mrc_wire_put_credit(body, &c);
	CHECK(n == 16, "%u", n);
	CHECK(!memcmp(body, want, sizeof(want)), "credit bytes");
	CHECK(body[16] == 0xee, "wrote past the body");
}

/* Parses a CREDIT_REQ/GRANT of body @c; returns the reason. */
static enum mrc_drop_reason credit_parse(u8 type,
					 const struct mrc_pkt_credit *c,
					 struct mrc_pkt *out)
{
	struct mrc_pkt p = mk(type, 0);

	p.len = mrc_wire_put_credit(buf + MRC_WIRE_HDR_LEN, c);
	return mrc_wire_parse(buf, emit_hdr(&p), &lim, out);
}

static void roundtrip__credit_body(void)
{
	static const struct mrc_pkt_credit cs[] = {
		{ 1, 1, 1 }, { CAP, CAP, ~0U }, { 70000, 4040, 2 },
	};
	unsigned int t, i;

	for (t = MRC_PKT_CREDIT_REQ; t <= MRC_PKT_GRANT; t++) {
		for (i = 0; i < ARRAY_SIZE(cs); i++) {
			struct mrc_pkt_credit got;
			struct mrc_pkt out;
			enum mrc_drop_reason r = credit_parse(t, &cs[i], &out);

			CHECK(r == MRC_DROP_NONE, "%s %u: %s",
			      mrc_wire_type_name(t), i, why(r));
			if (r)
				continue;
			CHECK(out.type == t, "type %u", out.type);
			mrc_wire_get_credit(&out, &got);
			CHECK(got.msg_len == cs[i].msg_len &&
			      got.granted == cs[i].granted &&
			      got.seq == cs[i].seq, "%s %u: body differs",
			      mrc_wire_type_name(t), i);
		}
	}
	/* a request may carry seq 0 and granted 0 (nothing held yet) */
	{
		struct mrc_pkt_credit c = { .msg_len = 5000 };
		struct mrc_pkt out;

		CHECK(credit_parse(MRC_PKT_CREDIT_REQ, &c, &out) ==
		      MRC_DROP_NONE, "request 0/0");
	}
}

static void credit__len(void)
{
	static const u16 lens[] = { 0, 1, 15, 17, 24, 56 };
	unsigned int t, i;

	for (t = MRC_PKT_CREDIT_REQ; t <= MRC_PKT_GRANT; t++) {
		for (i = 0; i < ARRAY_SIZE(lens); i++) {
			struct mrc_pkt p = mk(t, 0);

			emit(&p);
			p.len = lens[i];
			EXPECT(emit_hdr(&p), &lim, MRC_DROP_BAD_LENGTH,
			       "%s len %u", mrc_wire_type_name(t), lens[i]);
		}
	}
}

/* Oversized, empty, beyond the message, GRANT without seq or offset. */
static void credit__fields(void)
{
	static const struct {
		u8 type;
		struct mrc_pkt_credit c;
		enum mrc_drop_reason want;
	} cases[] = {
		{ MRC_PKT_CREDIT_REQ, { 0, 0, 0 }, MRC_DROP_BAD_CREDIT },
		{ MRC_PKT_GRANT, { 0, 0, 1 }, MRC_DROP_BAD_CREDIT },
		{ MRC_PKT_CREDIT_REQ, { CAP + 1, 0, 0 }, MRC_DROP_MSG_TOO_BIG },
		{ MRC_PKT_GRANT, { ~0U, 4096, 1 }, MRC_DROP_MSG_TOO_BIG },
		{ MRC_PKT_CREDIT_REQ, { 100, 101, 0 }, MRC_DROP_BAD_CREDIT },
		{ MRC_PKT_GRANT, { 100, 101, 1 }, MRC_DROP_BAD_CREDIT },
		{ MRC_PKT_GRANT, { 100, ~0U, 1 }, MRC_DROP_BAD_CREDIT },
		{ MRC_PKT_GRANT, { 100, 50, 0 }, MRC_DROP_BAD_CREDIT },
		{ MRC_PKT_GRANT, { 100, 0, 5 }, MRC_DROP_BAD_CREDIT },
		{ MRC_PKT_GRANT, { 100, 100, 5 }, MRC_DROP_NONE },
		{ MRC_PKT_CREDIT_REQ, { 100, 100, 7 }, MRC_DROP_NONE },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct mrc_pkt out = { .type = 0xee };
		enum mrc_drop_reason r = credit_parse(cases[i].type,
						      &cases[i].c, &out);

		CHECK(r == cases[i].want, "case %u: got %s, want %s", i,
		      why(r), why(cases[i].want));
		if (r != MRC_DROP_NONE)
			CHECK(out.type == 0xee, "case %u: pkt written", i);
	}
	/* the reserved word is ignored */
	{
		struct mrc_pkt_credit c = { 100, 100, 5 };
		struct mrc_pkt p = mk(MRC_PKT_GRANT, 0);

		p.len = mrc_wire_put_credit(buf + MRC_WIRE_HDR_LEN, &c);
		memset(buf + MRC_WIRE_HDR_LEN + 12, 0xff, 4);
		EXPECT(emit_hdr(&p), &lim, MRC_DROP_NONE, "reserved set");
	}
}

/* ---------------------------------------------------------------- */
/* names and robustness                                               */
/* ---------------------------------------------------------------- */

static void names__drop_reasons(void)
{
	unsigned int i, j;

	for (i = 0; i < MRC_DROP_NR; i++) {
		const char *n = mrc_drop_reason_name(i);

		CHECK(n && *n, "reason %u has no name", i);
		for (j = 0; n && j < i; j++)
			CHECK(strcmp(n, mrc_drop_reason_name(j)),
			      "reasons %u and %u both %s", i, j, n);
	}
	CHECK(!strcmp(mrc_drop_reason_name(MRC_DROP_TRUNCATED), "truncated"),
	      "truncated");
	CHECK(!strcmp(mrc_drop_reason_name(MRC_DROP_NOT_FOR_US), "not_for_us"),
	      "not_for_us");
	CHECK(!strcmp(mrc_drop_reason_name(MRC_DROP_BAD_TOKEN), "bad_token"),
	      "bad_token");
	CHECK(MRC_DROP_BAD_TOKEN == 18, "%d", MRC_DROP_BAD_TOKEN);
	CHECK(!mrc_drop_reason_name(MRC_DROP_NR), "NR");
	CHECK(!mrc_drop_reason_name(~0U), "~0");
}

static void names__types(void)
{
	static const char * const want[] = {
		"unknown", "data", "sack", "nack", "hello", "hello_reply",
		"probe", "probe_reply", "credit_req", "grant", "rail_down",
		"unknown",
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++)
		CHECK(!strcmp(mrc_wire_type_name(i), want[i]), "%u: %s", i,
		      mrc_wire_type_name(i));
	CHECK(!strcmp(mrc_wire_type_name(~0U), "unknown"), "~0");
}

/*
 * Random mutations of valid packets: parse never reads out of bounds
 * (ASan), never gives a reason that needs per-message state, and every
 * accepted packet round-trips.
 */
static void parse__random_mutations(void)
{
	static const u32 stateful = (1U << MRC_DROP_UNKNOWN_PEER) |
		(1U << MRC_DROP_NO_MEMORY) | (1U << MRC_DROP_DUPLICATE) |
		(1U << MRC_DROP_BAD_TOKEN);
	unsigned int seen[MRC_DROP_NR] = { 0 };
	u32 x = 12345, i, bad = 0, rt = 0;

	for (i = 0; i < 200000; i++) {
		u8 t = MRC_PKT_DATA + i % MRC_PKT_TYPE_MAX;
		struct mrc_pkt p = t == MRC_PKT_DATA ?
			mk_data(2500, 1000, 1000 * (i % 3)) : mk(t, 0), out;
		u32 n = emit(&p), k, flips = 1 + i % 4;
		enum mrc_drop_reason r;
		u8 *pkt;

		for (k = 0; k < flips; k++) {
			x = x * 1103515245 + 12345;
			buf[(x >> 8) % n] ^= 1 << ((x >> 4) & 7);
		}
		x = x * 1103515245 + 12345;
		if (!(x & 0x700))
			n = (x >> 16) % (n + 8);
		/* exact-size copy so ASan sees any over-read */
		pkt = malloc(n ? n : 1);
		memcpy(pkt, buf, n);
		r = mrc_wire_parse(pkt, n, &lim, &out);
		if (r >= MRC_DROP_NR || (stateful & (1U << r))) {
			bad++;
		} else {
			seen[r]++;
		}
		if (r == MRC_DROP_NONE) {
			struct mrc_pkt again;

			mrc_wire_put_hdr(buf, &out);
			memcpy(buf + MRC_WIRE_HDR_LEN, out.body, out.len);
			if (mrc_wire_parse(buf, n, &lim, &again) ||
			    !pkt_eq(&out, &again))
				rt++;
		}
		free(pkt);
	}
	CHECK(!bad, "%u stateful or out-of-range reasons", bad);
	CHECK(!rt, "%u accepted packets did not round-trip", rt);
	for (i = 0; i < MRC_DROP_NR; i++)
		if (i < MRC_DROP_UNKNOWN_PEER)
			CHECK(seen[i], "%s never seen", why(i));
}

/* ---------------------------------------------------------------- */

static const struct tap_test tests[] = {
#define T(fn) { #fn, fn }
	T(layout__sizes),
	T(layout__offsets),
	T(layout__put_hdr_bytes),
	T(layout__parse_bytes),
	T(layout__sack_bytes),
	T(layout__nack_bytes),
	T(layout__hello_bytes),
	T(roundtrip__every_type),
	T(roundtrip__data_geometry),
	T(roundtrip__sack_body),
	T(roundtrip__sack_ignores_bits_past_nbits),
	T(roundtrip__nack_body),
	T(roundtrip__hello_body),
	T(parse__truncated_header),
	T(parse__truncated_body),
	T(parse__trailing_bytes),
	T(parse__too_long),
	T(parse__bad_version),
	T(parse__unknown_type),
	T(parse__rail_down),
	T(parse__not_for_us),
	T(parse__local_node_from_limits),
	T(parse__ignored_fields),
	T(parse__token_not_checked),
	T(parse__pkt_untouched_on_drop),
	T(parse__check_order),
	T(data__msg_len_zero),
	T(data__msg_too_big),
	T(data__seg_range),
	T(data__offset),
	T(data__len),
	T(data__last_flag),
	T(sack__len),
	T(sack__nbits),
	T(sack__overflow),
	T(sack__done_list),
	T(data__done_list),
	T(nack__len),
	T(nack__count_zero),
	T(nack__overflow),
	T(nack__order),
	T(hello__len),
	T(layout__credit_bytes),
	T(roundtrip__credit_body),
	T(credit__len),
	T(credit__fields),
	T(names__drop_reasons),
	T(names__types),
	T(parse__random_mutations),
#undef T
};

int main(void)
{
	return tap_run(tests, ARRAY_SIZE(tests));
}
