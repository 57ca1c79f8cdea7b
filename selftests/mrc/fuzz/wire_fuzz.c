// SPDX-License-Identifier: GPL-2.0
/*
 * wire_fuzz.c - libFuzzer target for mrc/core/wire.c.
 *
 * Feeds each input, as one received datagram, to mrc_wire_parse() under a
 * few receiver limits.  Oracles, besides ASan/UBSan:
 *  - a drop gives a reason parse may give (no per-message-state reason,
 *    nothing out of range) and leaves the caller's struct mrc_pkt alone;
 *  - an accepted packet satisfies every rule of Documentation/mrc/
 *    protocol.rst, re-checked here independently of wire.c;
 *  - re-encoding it (mrc_wire_put_hdr + the body helpers) gives the same
 *    bytes (reserved fields, ack_delay where it means nothing, and SACK
 *    bits past nbits as 0) and parses again to the same fields.
 * Each input is also read as the private data of a SIDR request or reply
 * (mrc_wire_cm_parse()): refused without touching the result, or
 * accepted with a sane nqp and incarnation and re-encoded to the same
 * bytes but the ignored ones (reserved, unused QPN slots).
 *
 *   make -C selftests/mrc/fuzz run FUZZ_SECONDS=10
 */
#include "../../../mrc/core/wire.h"

#define LOCAL_NODE	2	/* the seed corpus is addressed to node 2 */

#define FUZZ_NAME "wire_fuzz"
#include "fuzz.h"

static const struct {
	u32 max_msg_len;
	bool node_from_pkt;	/* local_node = the packet's dst_node */
} limit_sets[] = {
	{ 64U << 20, false },	/* the default cap, a fixed node */
	{ U32_MAX, true },	/* no cap to speak of, any node */
	{ 4096, true },		/* a small cap */
	{ 1, true },		/* one-byte messages only */
};

static u32 be32_at(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

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
	       a->token == b->token && a->ndone == b->ndone &&
	       (a->ack_delay_us == b->ack_delay_us ||
		!(a->type == MRC_PKT_SACK || a->ndone)) &&
	       (!a->ndone || !memcmp(a->done, b->done, 4 * a->ndone)) &&
	       !memcmp(a->body, b->body, a->len);
}

/* Whether @p's ack_delay means something (version 7). */
static bool has_ack_delay(const struct mrc_pkt *p)
{
	return p->type == MRC_PKT_SACK ||
	       (p->type == MRC_PKT_DATA && (p->flags & MRC_WF_DONE_MORE));
}

/* The bytes of @p's done list before its body: a DATA's (version 7). */
static u32 data_list(const struct mrc_pkt *p)
{
	return p->type == MRC_PKT_DATA ? 4 * mrc_wire_done_n(p) : 0;
}

/* The protocol's rules, restated without looking at wire.c. */
static void check_accepted(const struct mrc_pkt *p, const u8 *data,
			   u32 size, const struct mrc_wire_limits *lim)
{
	ASSERT(size == MRC_WIRE_HDR_LEN + data_list(p) + p->len);
	ASSERT(size <= MRC_WIRE_MAX_PKT);
	ASSERT(p->body == data + MRC_WIRE_HDR_LEN + data_list(p));
	ASSERT(p->version == MRC_WIRE_VERSION && data[0] == p->version);
	ASSERT(p->type >= MRC_PKT_DATA && p->type <= MRC_PKT_TYPE_MAX);
	ASSERT(p->dst_node == lim->local_node);

	switch (p->type) {
	case MRC_PKT_DATA: {
		u64 end = (u64)p->offset + p->len;

		ASSERT(p->msg_len >= 1 && p->msg_len <= lim->max_msg_len);
		ASSERT(p->seg >= MRC_WIRE_MIN_SEG &&
		       p->seg <= MRC_WIRE_MAX_PAYLOAD);
		ASSERT(p->offset % p->seg == 0);
		ASSERT(p->len >= 1 && end <= p->msg_len);
		ASSERT(p->len == p->seg || end == p->msg_len);
		ASSERT(!!(p->flags & MRC_WF_LAST) == (end == p->msg_len));
		if (p->flags & MRC_WF_DONE_MORE) {
			unsigned int i, n = mrc_wire_done_n(p);

			ASSERT(n >= 1 && n <= MRC_WIRE_DONE_MAX);
			ASSERT(p->done == data + MRC_WIRE_HDR_LEN);
			ASSERT(mrc_wire_done_epoch(p) == p->credit);
			for (i = 0; i < n; i++)
				ASSERT(mrc_wire_get_done(p, i) ==
				       be32_at(data + MRC_WIRE_HDR_LEN + 4 * i));
		} else {
			ASSERT(mrc_wire_done_n(p) == 0);
		}
		/* mrc_wire_npkts() wraps for msg_len near 4 GiB (wire.h) */
		ASSERT(p->offset / p->seg < mrc_wire_npkts(p->msg_len, p->seg) ||
		       p->msg_len > U32_MAX - p->seg);
		break;
	}
	case MRC_PKT_SACK: {
		struct mrc_pkt_sack s;
		unsigned int i;

		if (p->flags & MRC_WF_DONE_MORE) {
			unsigned int n = mrc_wire_done_n(p);

			ASSERT(n >= 1 && n <= MRC_WIRE_DONE_MAX);
			ASSERT(p->len == sizeof(struct mrc_wire_sack) + 4 * n);
			ASSERT(!(p->flags & (MRC_WF_REFUSED | MRC_WF_BUSY |
					     MRC_WF_GONE)));
			for (i = 0; i < n; i++)
				(void)mrc_wire_get_done(p, i);
		} else {
			ASSERT(p->len == sizeof(struct mrc_wire_sack));
			ASSERT(mrc_wire_done_n(p) == 0);
		}
		mrc_wire_get_sack(p, &s);
		ASSERT(s.nbits <= MRC_WIRE_SACK_BITS);
		ASSERT((u64)s.cum + s.nbits <= U32_MAX);
		for (i = s.nbits; i < MRC_WIRE_SACK_BITS; i++)
			ASSERT(!(s.bitmap[i / 64] >> (i % 64) & 1));
		break;
	}
	case MRC_PKT_NACK: {
		unsigned int i, n = mrc_wire_nack_nranges(p);
		u64 prev_end = 0;

		ASSERT(n >= 1 && n <= MRC_WIRE_NACK_MAX);
		ASSERT(p->len == n * sizeof(struct mrc_wire_nack_range));
		for (i = 0; i < n; i++) {
			struct mrc_pkt_nack_range r;

			mrc_wire_get_nack_range(p, i, &r);
			ASSERT(r.count >= 1);
			ASSERT(r.first >= prev_end);
			prev_end = (u64)r.first + r.count;
			ASSERT(prev_end <= U32_MAX);
		}
		break;
	}
	case MRC_PKT_CREDIT_REQ:
	case MRC_PKT_GRANT: {
		struct mrc_pkt_credit c;

		ASSERT(p->len == sizeof(struct mrc_wire_credit));
		mrc_wire_get_credit(p, &c);
		ASSERT(c.msg_len >= 1 && c.msg_len <= lim->max_msg_len);
		ASSERT(c.granted <= c.msg_len);
		if (p->type == MRC_PKT_GRANT)
			ASSERT(c.seq >= 1 && c.granted >= 1);
		break;
	}
	case MRC_PKT_RAIL_DOWN:
		ASSERT(p->len == 8);	/* rail id, reserved word */
		break;
	default:
		ASSERT(p->len == sizeof(struct mrc_wire_hello));
		break;
	}
}

/* Re-encode @p and parse the result again. */
static void check_roundtrip(const struct mrc_pkt *p, const u8 *data,
			    u32 size, const struct mrc_wire_limits *lim)
{
	static u8 out[MRC_WIRE_MAX_PKT];
	u8 *body = out + MRC_WIRE_HDR_LEN;
	const u32 rsv = offsetof(struct mrc_wire_hdr, ack_delay);
	const u32 lst = data_list(p);
	struct mrc_pkt again;
	enum mrc_drop_reason r;
	u16 len = p->len;
	u32 i;

	memset(out, 0xa5, sizeof(out));
	mrc_wire_put_hdr(out, p);
	for (i = 0; i < MRC_WIRE_HDR_LEN; i++) {
		if ((i == rsv || i == rsv + 1) && !has_ack_delay(p))
			ASSERT(out[i] == 0);
		else if (out[i] != data[i])
			FAIL("header byte %u: %#x re-encoded as %#x", i,
			     data[i], out[i]);
	}

	switch (p->type) {
	case MRC_PKT_DATA:
		/* a done list, then the payload: len counts both */
		if (lst)
			memcpy(body, p->done, lst);
		memcpy(body + lst, p->body, p->len);
		ASSERT(!memcmp(body, data + MRC_WIRE_HDR_LEN, lst + p->len));
		break;
	case MRC_PKT_SACK: {
		struct mrc_pkt_sack s;

		mrc_wire_get_sack(p, &s);
		len = mrc_wire_put_sack(body, &s);
		/* identical but for the reserved field and bits >= nbits */
		ASSERT(!memcmp(body, p->body,
			       offsetof(struct mrc_wire_sack, bitmap)));
		ASSERT(!memcmp(body + offsetof(struct mrc_wire_sack,
					       echo_entropy),
			       p->body + offsetof(struct mrc_wire_sack,
						  echo_entropy), 2));
		ASSERT(!memcmp(body + offsetof(struct mrc_wire_sack,
					       echo_path_seq),
			       p->body + offsetof(struct mrc_wire_sack,
						  echo_path_seq), 12));
		if (p->flags & MRC_WF_DONE_MORE) {
			u32 seq[MRC_WIRE_DONE_MAX];
			unsigned int i, n = mrc_wire_done_n(p);

			for (i = 0; i < n; i++)
				seq[i] = mrc_wire_get_done(p, i);
			len += mrc_wire_put_done(body + len, seq, n);
			ASSERT(!memcmp(body + sizeof(struct mrc_wire_sack),
				       p->body + sizeof(struct mrc_wire_sack),
				       4 * n));
		}
		break;
	}
	case MRC_PKT_NACK: {
		struct mrc_pkt_nack_range rg[MRC_WIRE_NACK_MAX];
		unsigned int n = mrc_wire_nack_nranges(p);

		for (i = 0; i < n; i++)
			mrc_wire_get_nack_range(p, i, &rg[i]);
		len = mrc_wire_put_nack(body, rg, n);
		ASSERT(!memcmp(body, p->body, p->len));
		break;
	}
	case MRC_PKT_CREDIT_REQ:
	case MRC_PKT_GRANT: {
		struct mrc_pkt_credit c;

		mrc_wire_get_credit(p, &c);
		len = mrc_wire_put_credit(body, &c);
		/* identical but for the reserved word */
		ASSERT(!memcmp(body, p->body,
			       offsetof(struct mrc_wire_credit, reserved)));
		break;
	}
	case MRC_PKT_RAIL_DOWN:
		len = mrc_wire_put_rail_down(body, mrc_wire_get_rail_down(p));
		/* identical but for the reserved word */
		ASSERT(!memcmp(body, p->body, 4));
		break;
	default: {
		struct mrc_pkt_hello h;

		mrc_wire_get_hello(p, &h);
		len = mrc_wire_put_hello(body, &h);
		ASSERT(!memcmp(body, p->body, p->len));
		break;
	}
	}
	ASSERT(len == p->len);

	r = mrc_wire_parse(out, size, lim, &again);
	if (r != MRC_DROP_NONE)
		FAIL("re-encoded packet dropped: %s", mrc_drop_reason_name(r));
	ASSERT(again.body == body + lst);
	if (lst)	/* pkt_eq() compares the lists' bytes */
		ASSERT(again.done == body);
	if (p->type == MRC_PKT_SACK) {
		struct mrc_pkt_sack s1, s2;

		/* padding after echo_entropy: clear it before memcmp */
		memset(&s1, 0, sizeof(s1));
		memset(&s2, 0, sizeof(s2));
		mrc_wire_get_sack(p, &s1);
		mrc_wire_get_sack(&again, &s2);
		ASSERT(!memcmp(&s1, &s2, sizeof(s1)));
		/* the bodies may differ where the input had junk */
		again.body = p->body;
	}
	if (p->type == MRC_PKT_RAIL_DOWN) {
		ASSERT(mrc_wire_get_rail_down(p) ==
		       mrc_wire_get_rail_down(&again));
		/* the reserved word may have held junk */
		again.body = p->body;
	}
	if (p->type == MRC_PKT_CREDIT_REQ || p->type == MRC_PKT_GRANT) {
		struct mrc_pkt_credit c1, c2;

		mrc_wire_get_credit(p, &c1);
		mrc_wire_get_credit(&again, &c2);
		ASSERT(c1.msg_len == c2.msg_len && c1.granted == c2.granted &&
		       c1.seq == c2.seq);
		/* the reserved word may have held junk */
		again.body = p->body;
	}
	if (!pkt_eq(p, &again))
		FAIL("re-encoded packet parses differently");
}

/* The input as SIDR private data (struct mrc_wire_cm). */
static void check_cm(const u8 *data, size_t size)
{
	u8 want[sizeof(struct mrc_wire_cm)], again[sizeof(want)];
	struct mrc_cm cm, before;

	memset(&cm, 0x5a, sizeof(cm));
	before = cm;
	if (mrc_wire_cm_parse(data, size, &cm)) {
		if (memcmp(&cm, &before, sizeof(cm)))
			FAIL("cm written on a refusal");
		return;
	}
	ASSERT(size >= sizeof(want) && data[0] == MRC_WIRE_VERSION);
	ASSERT(cm.nqp >= 1 && cm.nqp <= MRC_CM_MAX_QPS && cm.incarnation);
	memcpy(want, data, sizeof(want));
	memset(want + offsetof(struct mrc_wire_cm, reserved), 0, 4);
	memset(want + offsetof(struct mrc_wire_cm, qpn) + 3 * cm.nqp, 0,
	       3 * (MRC_CM_MAX_QPS - cm.nqp));
	mrc_wire_cm_put(again, &cm);
	if (memcmp(again, want, sizeof(want)))
		FAIL("re-encoded cm differs");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const u32 stateful = 1U << MRC_DROP_UNKNOWN_PEER |
		1U << MRC_DROP_NO_MEMORY | 1U << MRC_DROP_DUPLICATE;
	unsigned int i;

	if (size > 0x20000)	/* u32 buflen; libFuzzer's -max_len is less */
		return 0;
	check_cm(data, size);
	for (i = 0; i < sizeof(limit_sets) / sizeof(limit_sets[0]); i++) {
		struct mrc_wire_limits lim = {
			.max_msg_len = limit_sets[i].max_msg_len,
			.local_node = LOCAL_NODE,
		};
		struct mrc_pkt pkt, before;
		enum mrc_drop_reason r;

		if (limit_sets[i].node_from_pkt && size >= 12)
			lim.local_node = be32_at(data + 8);
		memset(&pkt, 0x5a, sizeof(pkt));
		before = pkt;
		r = mrc_wire_parse(data, size, &lim, &pkt);
		if (r != MRC_DROP_NONE) {
			if (r >= MRC_DROP_NR || (stateful & 1U << r))
				FAIL("parse gave reason %u", r);
			if (memcmp(&pkt, &before, sizeof(pkt)))
				FAIL("pkt written on a drop (%s)",
				     mrc_drop_reason_name(r));
			continue;
		}
		check_accepted(&pkt, data, size, &lim);
		check_roundtrip(&pkt, data, size, &lim);
	}
	return 0;
}
