// SPDX-License-Identifier: GPL-2.0
/*
 * wire.c - encode and validate mrc packets (kernel-agnostic).
 *
 * The buffer is never cast to a wire struct: received datagrams may sit at
 * any alignment, so every field is copied out with memcpy() at the offset
 * the packed structs in wire.h give it, then converted from big-endian.
 *
 * mrc_wire_parse() checks, in this order, and reports the first failure:
 *
 *   1. buflen >= MRC_WIRE_HDR_LEN                       TRUNCATED
 *   2. version == MRC_WIRE_VERSION                      BAD_VERSION
 *   3. type is DATA..RAIL_DOWN                          BAD_TYPE
 *   4. buflen >= HDR_LEN + len                          TRUNCATED
 *   5. buflen == HDR_LEN + len (no trailing bytes),
 *      len <= MRC_WIRE_MAX_PAYLOAD                      BAD_LENGTH
 *   6. dst_node == lim->local_node (every type)         NOT_FOR_US
 *   7. the body, per type (see the check_* functions)
 *
 * @pkt is written only when the packet is accepted.  Unknown flags,
 * reserved fields and the header fields a type does not use are ignored.
 * The token is not checked here (it needs the peer): the receive path
 * compares it right after the peer lookup (peer.h mrc_peer_token_ok()).
 * Documentation/mrc/protocol.rst explains each rule.
 */
#include "wire.h"

/* BUILD_BUG_ON() for both worlds: fails to compile when @cond is false. */
#define WIRE_BUILD_CHECK(cond)	((void)sizeof(char[1 - 2 * !(cond)]))

/* ---- unaligned big-endian field access ---- */

static u16 get16(const u8 *p)
{
	__be16 v;

	memcpy(&v, p, sizeof(v));
	return be16_to_cpu(v);
}

static u32 get32(const u8 *p)
{
	__be32 v;

	memcpy(&v, p, sizeof(v));
	return be32_to_cpu(v);
}

static u64 get64(const u8 *p)
{
	__be64 v;

	memcpy(&v, p, sizeof(v));
	return be64_to_cpu(v);
}

static void put16(u8 *p, u16 x)
{
	__be16 v = cpu_to_be16(x);

	memcpy(p, &v, sizeof(v));
}

static void put32(u8 *p, u32 x)
{
	__be32 v = cpu_to_be32(x);

	memcpy(p, &v, sizeof(v));
}

static void put64(u8 *p, u64 x)
{
	__be64 v = cpu_to_be64(x);

	memcpy(p, &v, sizeof(v));
}

/* Address of field @f of wire struct @s in the buffer at @b. */
#define AT(b, s, f)	((b) + offsetof(struct s, f))
#define HDR(b, f)	AT(b, mrc_wire_hdr, f)

/* ---- the SIDR handshake's private data (struct mrc_wire_cm) ---- */

#define CM(b, f)	AT(b, mrc_wire_cm, f)

/**
 * mrc_wire_cm_put() - write the private data of a SIDR request or reply
 * @buf: sizeof(struct mrc_wire_cm) bytes
 * @cm: the fields; version is MRC_WIRE_VERSION, reserved 0, QPN entries
 *	at or past @cm->nqp 0, each QPN's low 24 bits
 *
 * The mac bytes are copied from @cm->mac: the caller signs the buffer
 * after this (the MAC covers the MRC_CM_MAC_OFF bytes before it).
 */
void mrc_wire_cm_put(void *buf, const struct mrc_cm *cm)
{
	u8 *b = buf;
	unsigned int i;

	/* A SIDR reply carries at most 136 bytes of private data. */
	WIRE_BUILD_CHECK(sizeof(struct mrc_wire_cm) == 136);
	WIRE_BUILD_CHECK(MRC_CM_MAC_OFF == 120);
	memset(b, 0, sizeof(struct mrc_wire_cm));
	b[offsetof(struct mrc_wire_cm, version)] = MRC_WIRE_VERSION;
	b[offsetof(struct mrc_wire_cm, nqp)] = cm->nqp;
	put16(CM(b, flags), cm->flags);
	put32(CM(b, src_node), cm->src_node);
	put32(CM(b, dst_node), cm->dst_node);
	put32(CM(b, rail_id), cm->rail_id);
	put32(CM(b, incarnation), cm->incarnation);
	put64(CM(b, ts), cm->ts);
	put64(CM(b, nonce), cm->nonce);
	put64(CM(b, token), cm->token);
	for (i = 0; i < cm->nqp && i < MRC_CM_MAX_QPS; i++) {
		u8 *q = CM(b, qpn) + 3 * i;

		q[0] = cm->qpn[i] >> 16;
		q[1] = cm->qpn[i] >> 8;
		q[2] = cm->qpn[i];
	}
	memcpy(CM(b, mac), cm->mac, MRC_CM_MAC_LEN);
}

/**
 * mrc_wire_cm_parse() - check and read the private data of a SIDR message
 * @buf: the private data (NULL: none)
 * @len: its length (rdma_cm reports the whole private data area, so it
 *	may be longer than the struct; what follows is ignored)
 * @cm: filled when accepted
 *
 * Stateless checks only: the length, the version, 1 <= nqp <= 24 and a
 * non-zero incarnation.  The node ids, the flags, the MAC and the
 * freshness need the caller's state.
 *
 * Return: 0, or -EPROTO (@cm untouched).
 */
int mrc_wire_cm_parse(const void *buf, u32 len, struct mrc_cm *cm)
{
	const u8 *b = buf;
	struct mrc_cm c;
	unsigned int i;

	if (!b || len < sizeof(struct mrc_wire_cm) ||
	    b[offsetof(struct mrc_wire_cm, version)] != MRC_WIRE_VERSION)
		return -EPROTO;
	c.nqp = b[offsetof(struct mrc_wire_cm, nqp)];
	c.incarnation = get32(CM(b, incarnation));
	if (!c.nqp || c.nqp > MRC_CM_MAX_QPS || !c.incarnation)
		return -EPROTO;
	c.flags = get16(CM(b, flags));
	c.src_node = get32(CM(b, src_node));
	c.dst_node = get32(CM(b, dst_node));
	c.rail_id = get32(CM(b, rail_id));
	c.ts = get64(CM(b, ts));
	c.nonce = get64(CM(b, nonce));
	c.token = get64(CM(b, token));
	for (i = 0; i < MRC_CM_MAX_QPS; i++) {
		const u8 *q = CM(b, qpn) + 3 * i;

		c.qpn[i] = i < c.nqp ?
			   (u32)q[0] << 16 | (u32)q[1] << 8 | q[2] : 0;
	}
	memcpy(c.mac, CM(b, mac), MRC_CM_MAC_LEN);
	*cm = c;
	return 0;
}

/* ---- header ---- */

/**
 * mrc_wire_put_hdr() - write a packet's header
 * @buf: MRC_WIRE_HDR_LEN bytes
 * @pkt: the header fields
 */
void mrc_wire_put_hdr(void *buf, const struct mrc_pkt *pkt)
{
	u8 *b = buf;

	WIRE_BUILD_CHECK(sizeof(struct mrc_wire_hdr) == MRC_WIRE_HDR_LEN);
	WIRE_BUILD_CHECK(sizeof(struct mrc_wire_sack) == 56);
	WIRE_BUILD_CHECK(sizeof(struct mrc_wire_nack_range) == 8);
	WIRE_BUILD_CHECK(sizeof(struct mrc_wire_hello) == 24);
	WIRE_BUILD_CHECK(sizeof(struct mrc_wire_credit) == 16);
	WIRE_BUILD_CHECK(MRC_WIRE_MAX_PAYLOAD <= 0xffff);	/* len: 16 bits */

	b[offsetof(struct mrc_wire_hdr, version)] = pkt->version;
	b[offsetof(struct mrc_wire_hdr, type)] = pkt->type;
	put16(HDR(b, flags), pkt->flags);
	put32(HDR(b, src_node), pkt->src_node);
	put32(HDR(b, dst_node), pkt->dst_node);
	put16(HDR(b, src_port), pkt->src_port);
	put16(HDR(b, dst_port), pkt->dst_port);
	put64(HDR(b, msg_id), pkt->msg_id);
	put32(HDR(b, offset), pkt->offset);
	put32(HDR(b, msg_len), pkt->msg_len);
	put16(HDR(b, len), pkt->len);
	put16(HDR(b, seg), pkt->seg);
	put16(HDR(b, entropy), pkt->entropy);
	put16(HDR(b, ack_delay), 0);
	if (pkt->type == MRC_PKT_DATA && (pkt->flags & MRC_WF_DONE_MORE)) {
		put16(HDR(b, len), pkt->len + pkt->ndone * sizeof(__be32));
		put16(HDR(b, ack_delay), pkt->ack_delay_us);
	} else if (pkt->type == MRC_PKT_SACK) {
		put16(HDR(b, ack_delay), pkt->ack_delay_us);
	}
	put32(HDR(b, path_seq), pkt->path_seq);
	put32(HDR(b, credit), pkt->credit);
	put64(HDR(b, tstamp), pkt->tstamp);
	put64(HDR(b, token), pkt->token);
}

static void get_hdr(const u8 *b, struct mrc_pkt *pkt)
{
	pkt->version = b[offsetof(struct mrc_wire_hdr, version)];
	pkt->type = b[offsetof(struct mrc_wire_hdr, type)];
	pkt->flags = get16(HDR(b, flags));
	pkt->src_node = get32(HDR(b, src_node));
	pkt->dst_node = get32(HDR(b, dst_node));
	pkt->src_port = get16(HDR(b, src_port));
	pkt->dst_port = get16(HDR(b, dst_port));
	pkt->msg_id = get64(HDR(b, msg_id));
	pkt->offset = get32(HDR(b, offset));
	pkt->msg_len = get32(HDR(b, msg_len));
	pkt->len = get16(HDR(b, len));
	pkt->seg = get16(HDR(b, seg));
	pkt->entropy = get16(HDR(b, entropy));
	pkt->ack_delay_us = get16(HDR(b, ack_delay));
	pkt->path_seq = get32(HDR(b, path_seq));
	pkt->credit = get32(HDR(b, credit));
	pkt->tstamp = get64(HDR(b, tstamp));
	pkt->token = get64(HDR(b, token));
	pkt->body = b + MRC_WIRE_HDR_LEN;
}

/* ---- per-type body checks ---- */

/*
 * DATA: the packet is piece offset / seg of a message of msg_len bytes cut
 * into seg-byte pieces.  Whether seg and msg_len match the other packets of
 * the same message is the reassembly's business (it has the state).  With
 * MRC_WF_DONE_MORE (version 7), 1 to MRC_WIRE_DONE_MAX done list entries
 * precede the payload: @p then points past them, with len the payload's.
 */
static enum mrc_drop_reason check_data(struct mrc_pkt *p,
				       const struct mrc_wire_limits *lim)
{
	u32 rest, want, extra;
	bool last;

	if (!p->msg_len)
		return MRC_DROP_BAD_LENGTH;
	if (p->msg_len > lim->max_msg_len)
		return MRC_DROP_MSG_TOO_BIG;
	if (p->seg < MRC_WIRE_MIN_SEG || p->seg > MRC_WIRE_MAX_PAYLOAD)
		return MRC_DROP_BAD_SEG;
	if (p->offset >= p->msg_len || p->offset % p->seg)
		return MRC_DROP_BAD_OFFSET;
	rest = p->msg_len - p->offset;
	if (p->len > rest && !(p->flags & MRC_WF_DONE_MORE))
		return MRC_DROP_BAD_OFFSET;
	want = min_t(u32, rest, p->seg);
	if (p->len < want)
		return MRC_DROP_BAD_LENGTH;
	extra = p->len - want;
	if (p->flags & MRC_WF_DONE_MORE) {
		if (!extra || extra % sizeof(__be32) ||
		    extra / sizeof(__be32) > MRC_WIRE_DONE_MAX)
			return MRC_DROP_BAD_LENGTH;
	} else if (extra) {
		return MRC_DROP_BAD_LENGTH;
	}
	last = want == rest;
	if (!!(p->flags & MRC_WF_LAST) != last)
		return MRC_DROP_BAD_OFFSET;
	if (extra) {
		p->done = p->body;
		p->ndone = extra / sizeof(__be32);
		p->body += extra;
		p->len = want;
	}
	return MRC_DROP_NONE;
}

/*
 * SACK: fixed size, or with MRC_WF_DONE_MORE that and a done list of 1 to
 * MRC_WIRE_DONE_MAX entries (not with REFUSED, BUSY or GONE); the bitmap
 * must not run past packet index U32_MAX.
 */
static enum mrc_drop_reason check_sack(struct mrc_pkt *p)
{
	const u32 base = sizeof(struct mrc_wire_sack);
	u32 cum, nbits;

	if (p->flags & MRC_WF_DONE_MORE) {
		if (p->len <= base || (p->len - base) % sizeof(__be32) ||
		    (p->len - base) / sizeof(__be32) > MRC_WIRE_DONE_MAX)
			return MRC_DROP_BAD_LENGTH;
		if (p->flags & (MRC_WF_REFUSED | MRC_WF_BUSY | MRC_WF_GONE))
			return MRC_DROP_BAD_SACK;
	} else if (p->len != base) {
		return MRC_DROP_BAD_LENGTH;
	}
	cum = get32(AT(p->body, mrc_wire_sack, cum));
	nbits = get32(AT(p->body, mrc_wire_sack, nbits));
	if (nbits > MRC_WIRE_SACK_BITS)
		return MRC_DROP_BAD_SACK;
	if ((u64)cum + nbits > U32_MAX)
		return MRC_DROP_BAD_SACK;
	if (p->len > base) {
		p->done = p->body + base;
		p->ndone = (p->len - base) / sizeof(__be32);
	}
	return MRC_DROP_NONE;
}

/*
 * NACK: 1..MRC_WIRE_NACK_MAX ranges, each non-empty, ending at or below
 * U32_MAX, in ascending order without overlap (adjacent is fine).
 */
static enum mrc_drop_reason check_nack(const struct mrc_pkt *p)
{
	const unsigned int rsz = sizeof(struct mrc_wire_nack_range);
	u64 end = 0;
	unsigned int i, n;

	if (!p->len || p->len % rsz || p->len / rsz > MRC_WIRE_NACK_MAX)
		return MRC_DROP_BAD_LENGTH;
	n = p->len / rsz;
	for (i = 0; i < n; i++) {
		const u8 *r = p->body + i * rsz;
		u32 first = get32(AT(r, mrc_wire_nack_range, first));
		u32 count = get32(AT(r, mrc_wire_nack_range, count));

		if (!count || first < end)
			return MRC_DROP_BAD_SACK;
		end = (u64)first + count;
		if (end > U32_MAX)
			return MRC_DROP_BAD_SACK;
	}
	return MRC_DROP_NONE;
}

static enum mrc_drop_reason check_hello(const struct mrc_pkt *p)
{
	if (p->len != sizeof(struct mrc_wire_hello))
		return MRC_DROP_BAD_LENGTH;
	return MRC_DROP_NONE;
}

/*
 * CREDIT_REQ / GRANT: fixed size; a message of 1..cap bytes; granted
 * within it.  A GRANT grants something (granted > 0) with a sequence
 * number of 1 or more.  Whether it matches the sender's message is the
 * credit state's business (credit.c).
 */
static enum mrc_drop_reason check_credit(const struct mrc_pkt *p,
					 const struct mrc_wire_limits *lim)
{
	u32 msg_len, granted, seq;

	if (p->len != sizeof(struct mrc_wire_credit))
		return MRC_DROP_BAD_LENGTH;
	msg_len = get32(AT(p->body, mrc_wire_credit, msg_len));
	granted = get32(AT(p->body, mrc_wire_credit, granted));
	seq = get32(AT(p->body, mrc_wire_credit, seq));
	if (!msg_len)
		return MRC_DROP_BAD_CREDIT;
	if (msg_len > lim->max_msg_len)
		return MRC_DROP_MSG_TOO_BIG;
	if (granted > msg_len)
		return MRC_DROP_BAD_CREDIT;
	if (p->type == MRC_PKT_GRANT && (!seq || !granted))
		return MRC_DROP_BAD_CREDIT;
	return MRC_DROP_NONE;
}

/**
 * mrc_wire_parse() - parse and validate one datagram
 * @buf: the datagram: header + body, GRH already stripped
 * @buflen: its length
 * @lim: the limits it is checked against
 * @pkt: filled when the datagram is accepted
 *
 * Checks everything that needs no per-message state: version, type,
 * lengths, node, DATA geometry (seg in range, offset a multiple of seg,
 * offset+len within msg_len, msg_len within the cap, len == seg except for
 * the last packet), SACK/NACK/HELLO body sizes and SACK nbits,
 * CREDIT_REQ/GRANT bodies (msg_len 1..cap, granted <= msg_len; GRANT: seq
 * and granted > 0).
 *
 * Return: MRC_DROP_NONE, or the reason to drop the datagram.
 */
enum mrc_drop_reason mrc_wire_parse(const void *buf, u32 buflen,
				    const struct mrc_wire_limits *lim,
				    struct mrc_pkt *pkt)
{
	enum mrc_drop_reason why;
	struct mrc_pkt p;

	if (buflen < MRC_WIRE_HDR_LEN)
		return MRC_DROP_TRUNCATED;
	memset(&p, 0, sizeof(p));
	get_hdr(buf, &p);
	if (p.version != MRC_WIRE_VERSION)
		return MRC_DROP_BAD_VERSION;
	if (p.type < MRC_PKT_DATA || p.type > MRC_PKT_TYPE_MAX)
		return MRC_DROP_BAD_TYPE;
	if (buflen - MRC_WIRE_HDR_LEN < p.len)
		return MRC_DROP_TRUNCATED;
	if (buflen - MRC_WIRE_HDR_LEN > p.len || p.len > MRC_WIRE_MAX_PAYLOAD)
		return MRC_DROP_BAD_LENGTH;
	if (p.dst_node != lim->local_node)
		return MRC_DROP_NOT_FOR_US;

	switch (p.type) {
	case MRC_PKT_DATA:
		why = check_data(&p, lim);
		break;
	case MRC_PKT_SACK:
		why = check_sack(&p);
		break;
	case MRC_PKT_NACK:
		why = check_nack(&p);
		break;
	case MRC_PKT_CREDIT_REQ:
	case MRC_PKT_GRANT:
		why = check_credit(&p, lim);
		break;
	case MRC_PKT_RAIL_DOWN:
		why = p.len == sizeof(struct mrc_wire_rail_down) ?
		      MRC_DROP_NONE : MRC_DROP_BAD_LENGTH;
		break;
	default:	/* HELLO, PROBE and their replies */
		why = check_hello(&p);
		break;
	}
	if (why == MRC_DROP_NONE)
		*pkt = p;
	return why;
}

/* ---- bodies ---- */

/**
 * mrc_wire_get_sack() - the body of an accepted SACK
 * @pkt: the packet
 * @sack: filled with the body; bitmap bits at or beyond nbits read as 0
 */
void mrc_wire_get_sack(const struct mrc_pkt *pkt, struct mrc_pkt_sack *sack)
{
	const u8 *b = pkt->body;
	unsigned int w;

	sack->cum = get32(AT(b, mrc_wire_sack, cum));
	sack->nbits = get32(AT(b, mrc_wire_sack, nbits));
	for (w = 0; w < ARRAY_SIZE(sack->bitmap); w++) {
		unsigned int lo = w * 64;
		u64 word = get64(AT(b, mrc_wire_sack, bitmap) + 8 * w);

		/* bits >= nbits are ignored on receive */
		if (sack->nbits <= lo)
			word = 0;
		else if (sack->nbits - lo < 64)
			word &= (1ULL << (sack->nbits - lo)) - 1;
		sack->bitmap[w] = word;
	}
	sack->echo_entropy = get16(AT(b, mrc_wire_sack, echo_entropy));
	sack->echo_path_seq = get32(AT(b, mrc_wire_sack, echo_path_seq));
	sack->echo_tstamp = get64(AT(b, mrc_wire_sack, echo_tstamp));
}

/**
 * mrc_wire_put_sack() - write a SACK body
 * @body: sizeof(struct mrc_wire_sack) bytes
 * @sack: the body; bitmap bits at or beyond nbits go out as 0
 *
 * Return: the body length, sizeof(struct mrc_wire_sack).
 */
u16 mrc_wire_put_sack(void *body, const struct mrc_pkt_sack *sack)
{
	u8 *b = body;
	unsigned int w;

	put32(AT(b, mrc_wire_sack, cum), sack->cum);
	put32(AT(b, mrc_wire_sack, nbits), sack->nbits);
	for (w = 0; w < ARRAY_SIZE(sack->bitmap); w++) {
		unsigned int lo = w * 64;
		u64 word = sack->bitmap[w];

		if (sack->nbits <= lo)
			word = 0;
		else if (sack->nbits - lo < 64)
			word &= (1ULL << (sack->nbits - lo)) - 1;
		put64(AT(b, mrc_wire_sack, bitmap) + 8 * w, word);
	}
	put16(AT(b, mrc_wire_sack, echo_entropy), sack->echo_entropy);
	put16(AT(b, mrc_wire_sack, reserved), 0);
	put32(AT(b, mrc_wire_sack, echo_path_seq), sack->echo_path_seq);
	put64(AT(b, mrc_wire_sack, echo_tstamp), sack->echo_tstamp);
	return sizeof(struct mrc_wire_sack);
}

/**
 * mrc_wire_done_n() - the entries of an accepted SACK's or DATA's done list
 * @pkt: the packet
 *
 * Return: 0 without MRC_WF_DONE_MORE, else 1..MRC_WIRE_DONE_MAX.
 */
unsigned int mrc_wire_done_n(const struct mrc_pkt *pkt)
{
	if (!(pkt->flags & MRC_WF_DONE_MORE))
		return 0;
	return pkt->ndone;
}

/**
 * mrc_wire_get_done() - one entry of an accepted packet's done list
 * @pkt: the packet
 * @i: the entry, below mrc_wire_done_n()
 *
 * Return: its sequence number (msg_id bits 31..0).
 */
u32 mrc_wire_get_done(const struct mrc_pkt *pkt, unsigned int i)
{
	return get32(pkt->done + i * sizeof(__be32));
}

/**
 * mrc_wire_done_epoch() - the epoch of an accepted packet's done list
 * @pkt: the packet, with a done list
 *
 * Return: msg_id bits 63..32 of its entries: a SACK's own message's, a
 * DATA's from its credit field (version 7).
 */
u32 mrc_wire_done_epoch(const struct mrc_pkt *pkt)
{
	if (pkt->type == MRC_PKT_DATA)
		return pkt->credit;
	return pkt->msg_id >> 32;
}

/**
 * mrc_wire_put_done() - write a done list after a SACK body
 * @body: where the SACK body ends, room for @n entries
 * @seq: the sequence numbers
 * @n: how many, 1..MRC_WIRE_DONE_MAX
 *
 * Return: the bytes written, to add to the SACK's length (the caller
 * sets MRC_WF_DONE_MORE).  A DATA's list goes the same way, right after
 * its header (struct mrc_pkt, done).
 */
u16 mrc_wire_put_done(void *body, const u32 *seq, unsigned int n)
{
	u8 *b = body;
	unsigned int i;

	for (i = 0; i < n; i++)
		put32(b + i * sizeof(__be32), seq[i]);
	return n * sizeof(__be32);
}

/**
 * mrc_wire_nack_nranges() - the ranges in an accepted NACK
 * @pkt: the packet
 *
 * Return: the number of ranges, 1..MRC_WIRE_NACK_MAX.
 */
unsigned int mrc_wire_nack_nranges(const struct mrc_pkt *pkt)
{
	return pkt->len / sizeof(struct mrc_wire_nack_range);
}

/**
 * mrc_wire_get_nack_range() - one range of an accepted NACK
 * @pkt: the packet
 * @i: the range, below mrc_wire_nack_nranges()
 * @range: filled with it
 */
void mrc_wire_get_nack_range(const struct mrc_pkt *pkt, unsigned int i,
			     struct mrc_pkt_nack_range *range)
{
	const u8 *r = pkt->body + i * sizeof(struct mrc_wire_nack_range);

	range->first = get32(AT(r, mrc_wire_nack_range, first));
	range->count = get32(AT(r, mrc_wire_nack_range, count));
}

/**
 * mrc_wire_put_nack() - write a NACK body
 * @body: room for @n ranges
 * @ranges: the ranges
 * @n: how many
 *
 * Return: the body length, or 0 (nothing written) if @n is 0 or above
 * MRC_WIRE_NACK_MAX.
 */
u16 mrc_wire_put_nack(void *body, const struct mrc_pkt_nack_range *ranges,
		      unsigned int n)
{
	const unsigned int rsz = sizeof(struct mrc_wire_nack_range);
	unsigned int i;

	if (!n || n > MRC_WIRE_NACK_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		u8 *r = (u8 *)body + i * rsz;

		put32(AT(r, mrc_wire_nack_range, first), ranges[i].first);
		put32(AT(r, mrc_wire_nack_range, count), ranges[i].count);
	}
	return n * rsz;
}

/**
 * mrc_wire_get_hello() - the body of an accepted HELLO, HELLO_REPLY, PROBE
 *	or PROBE_REPLY
 * @pkt: the packet
 * @hello: filled with the body
 */
void mrc_wire_get_hello(const struct mrc_pkt *pkt, struct mrc_pkt_hello *hello)
{
	const u8 *b = pkt->body;

	hello->qpn = get32(AT(b, mrc_wire_hello, qpn));
	hello->qkey = get32(AT(b, mrc_wire_hello, qkey));
	hello->rail_id = get32(AT(b, mrc_wire_hello, rail_id));
	hello->echo_path_seq = get32(AT(b, mrc_wire_hello, echo_path_seq));
	hello->echo_tstamp = get64(AT(b, mrc_wire_hello, echo_tstamp));
}

/**
 * mrc_wire_put_hello() - write a HELLO, HELLO_REPLY, PROBE or PROBE_REPLY
 *	body
 * @body: sizeof(struct mrc_wire_hello) bytes
 * @hello: the body
 *
 * Return: the body length, sizeof(struct mrc_wire_hello).
 */
u16 mrc_wire_put_hello(void *body, const struct mrc_pkt_hello *hello)
{
	u8 *b = body;

	put32(AT(b, mrc_wire_hello, qpn), hello->qpn);
	put32(AT(b, mrc_wire_hello, qkey), hello->qkey);
	put32(AT(b, mrc_wire_hello, rail_id), hello->rail_id);
	put32(AT(b, mrc_wire_hello, echo_path_seq), hello->echo_path_seq);
	put64(AT(b, mrc_wire_hello, echo_tstamp), hello->echo_tstamp);
	return sizeof(struct mrc_wire_hello);
}

/**
 * mrc_wire_get_rail_down() - the body of an accepted RAIL_DOWN
 * @pkt: the packet
 *
 * Return: the rail id of the rail that went down.
 */
u32 mrc_wire_get_rail_down(const struct mrc_pkt *pkt)
{
	return get32(AT(pkt->body, mrc_wire_rail_down, rail_id));
}

/**
 * mrc_wire_put_rail_down() - write a RAIL_DOWN body
 * @body: sizeof(struct mrc_wire_rail_down) bytes
 * @rail_id: the rail that went down
 *
 * Return: the body length, sizeof(struct mrc_wire_rail_down).
 */
u16 mrc_wire_put_rail_down(void *body, u32 rail_id)
{
	u8 *b = body;

	put32(AT(b, mrc_wire_rail_down, rail_id), rail_id);
	put32(AT(b, mrc_wire_rail_down, reserved), 0);
	return sizeof(struct mrc_wire_rail_down);
}

/**
 * mrc_wire_get_credit() - the body of an accepted CREDIT_REQ or GRANT
 * @pkt: the packet
 * @credit: filled with the body
 */
void mrc_wire_get_credit(const struct mrc_pkt *pkt,
			 struct mrc_pkt_credit *credit)
{
	const u8 *b = pkt->body;

	credit->msg_len = get32(AT(b, mrc_wire_credit, msg_len));
	credit->granted = get32(AT(b, mrc_wire_credit, granted));
	credit->seq = get32(AT(b, mrc_wire_credit, seq));
}

/**
 * mrc_wire_put_credit() - write a CREDIT_REQ or GRANT body
 * @body: sizeof(struct mrc_wire_credit) bytes
 * @credit: the body
 *
 * Return: the body length, sizeof(struct mrc_wire_credit).
 */
u16 mrc_wire_put_credit(void *body, const struct mrc_pkt_credit *credit)
{
	u8 *b = body;

	put32(AT(b, mrc_wire_credit, msg_len), credit->msg_len);
	put32(AT(b, mrc_wire_credit, granted), credit->granted);
	put32(AT(b, mrc_wire_credit, seq), credit->seq);
	put32(AT(b, mrc_wire_credit, reserved), 0);
	return sizeof(struct mrc_wire_credit);
}

/* ---- names ---- */

static const char * const mrc_wire_type_names[] = {
	[MRC_PKT_DATA]		= "data",
	[MRC_PKT_SACK]		= "sack",
	[MRC_PKT_NACK]		= "nack",
	[MRC_PKT_HELLO]		= "hello",
	[MRC_PKT_HELLO_REPLY]	= "hello_reply",
	[MRC_PKT_PROBE]		= "probe",
	[MRC_PKT_PROBE_REPLY]	= "probe_reply",
	[MRC_PKT_CREDIT_REQ]	= "credit_req",
	[MRC_PKT_GRANT]		= "grant",
	[MRC_PKT_RAIL_DOWN]	= "rail_down",
};

static const char * const mrc_drop_reason_names[MRC_DROP_NR] = {
	[MRC_DROP_NONE]		= "none",
	[MRC_DROP_TRUNCATED]	= "truncated",
	[MRC_DROP_BAD_VERSION]	= "bad_version",
	[MRC_DROP_BAD_TYPE]	= "bad_type",
	[MRC_DROP_BAD_LENGTH]	= "bad_length",
	[MRC_DROP_BAD_OFFSET]	= "bad_offset",
	[MRC_DROP_MSG_TOO_BIG]	= "msg_too_big",
	[MRC_DROP_BAD_SEG]	= "bad_seg",
	[MRC_DROP_BAD_SACK]	= "bad_sack",
	[MRC_DROP_NOT_FOR_US]	= "not_for_us",
	[MRC_DROP_UNKNOWN_PEER]	= "unknown_peer",
	[MRC_DROP_NO_MEMORY]	= "no_memory",
	[MRC_DROP_DUPLICATE]	= "duplicate",
	[MRC_DROP_BAD_FIELD]	= "bad_field",
	[MRC_DROP_WRONG_PATH]	= "wrong_path",
	[MRC_DROP_UNEXPECTED]	= "unexpected",
	[MRC_DROP_UNRESOLVED]	= "unresolved",
	[MRC_DROP_BAD_CREDIT]	= "bad_credit",
	[MRC_DROP_BAD_TOKEN]	= "bad_token",	/* token branch */
	[MRC_DROP_REPLAYED]	= "replayed",
};

/**
 * mrc_wire_type_name() - the name of a packet type
 * @type: an enum mrc_wire_type
 *
 * Return: "data", "sack", ... "probe_reply"; "unknown" for any other
 * value.
 */
const char *mrc_wire_type_name(unsigned int type)
{
	if (type < ARRAY_SIZE(mrc_wire_type_names) && mrc_wire_type_names[type])
		return mrc_wire_type_names[type];
	return "unknown";
}

/**
 * mrc_drop_reason_name() - the counter name of a drop reason
 * @reason: an enum mrc_drop_reason
 *
 * Return: "none", "truncated", "bad_version", ...; NULL at or above
 * MRC_DROP_NR.
 */
const char *mrc_drop_reason_name(unsigned int reason)
{
	if (reason < ARRAY_SIZE(mrc_drop_reason_names))
		return mrc_drop_reason_names[reason];
	return NULL;
}
