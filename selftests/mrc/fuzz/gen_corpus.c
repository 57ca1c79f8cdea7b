// SPDX-License-Identifier: GPL-2.0
/*
 * gen_corpus.c - writes the seed corpora of the fuzzers.  Deterministic:
 * regenerating gives the same files.
 *
 *   gen_corpus DIR          wire_fuzz: a few valid packets of every type,
 *   gen_corpus wire DIR     addressed to node 2, each checked with
 *                           mrc_wire_parse() before it is written;
 *   gen_corpus reasm DIR    reasm_fuzz: scripts (the format at the top of
 *                           reasm_fuzz.c) completing messages in and out
 *                           of order, a near-4-GiB message, bad packets;
 *   gen_corpus txsb DIR     txsb_fuzz: scripts (see txsb_fuzz.c) sending,
 *                           losing, resending and acking whole messages,
 *                           and hostile SACKs/NACKs;
 *   gen_corpus credit DIR   credit_fuzz: scripts (see credit_fuzz.c): an
 *                           incast paced to its end, lost grants and
 *                           re-requests, replayed and forged grants,
 *                           forget/reset mid-message with a full table;
 *   gen_corpus msg DIR      msg_fuzz: scripts (see msg_fuzz.c): two-way
 *                           traffic, a lossy wire, a plane cut, hostile
 *                           packets, small limits.
 *
 *   make -C selftests/mrc/fuzz corpus     (writes corpus/<name>/)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../mrc/core/wire.h"

/* The largest segment (4032 since wire version 3's 64-byte header). */
#define SEG		MRC_WIRE_MAX_PAYLOAD
#define NODE_ME		1
#define NODE_PEER	2

static const char *dir;
static unsigned int written;

static struct mrc_pkt hdr(u8 type)
{
	struct mrc_pkt p = {
		.version = MRC_WIRE_VERSION,
		.type = type,
		.src_node = NODE_ME,
		.dst_node = NODE_PEER,
		.src_port = 100,
		.dst_port = 200,
		.msg_id = 0x0000000100000007ULL,
		.entropy = 5,
		.path_seq = 41,
		.tstamp = 1700000000123456789ULL,
		.token = 0x5eedc0ffee0ddba1ULL,	/* v3: any value parses */
	};

	return p;
}

/*
 * Writes header + body (already at buf + HDR_LEN), @n bytes in all, to
 * dir/name.
 */
static void emit_n(const char *name, u8 *buf, struct mrc_pkt *p, u32 n)
{
	struct mrc_wire_limits lim = { .max_msg_len = 64U << 20,
				       .local_node = NODE_PEER };
	struct mrc_pkt check;
	enum mrc_drop_reason r;
	char path[4096];
	FILE *f;

	mrc_wire_put_hdr(buf, p);
	r = mrc_wire_parse(buf, n, &lim, &check);
	if (r != MRC_DROP_NONE) {
		fprintf(stderr, "gen_corpus: %s is not valid: %s\n", name,
			mrc_drop_reason_name(r));
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
	written++;
}

/* Writes header + body (already at buf + HDR_LEN) to dir/name. */
static void emit(const char *name, u8 *buf, struct mrc_pkt *p)
{
	emit_n(name, buf, p, MRC_WIRE_HDR_LEN + p->len);
}

/*
 * The last DATA packet of a 5000-byte message, carrying a done list of
 * @ndone entries before its payload (version 7).
 */
static void data_done(const char *name, unsigned int ndone)
{
	static u8 buf[MRC_WIRE_MAX_PKT];
	struct mrc_pkt p = hdr(MRC_PKT_DATA);
	u32 seq[MRC_WIRE_DONE_MAX], i;

	p.msg_len = 5000;
	p.seg = SEG;
	p.offset = SEG;
	p.len = 5000 - SEG;
	p.flags = MRC_WF_LAST | MRC_WF_ACK_LAZY | MRC_WF_DONE_MORE;
	p.credit = 0x65000000;
	p.ack_delay_us = 250;
	for (i = 0; i < ndone; i++)
		seq[i] = 2000 + i;
	p.ndone = ndone;
	mrc_wire_put_done(buf + MRC_WIRE_HDR_LEN, seq, ndone);
	for (i = 0; i < p.len; i++)
		buf[MRC_WIRE_HDR_LEN + 4 * ndone + i] = (u8)(i * 7);
	p.done = buf + MRC_WIRE_HDR_LEN;
	emit_n(name, buf, &p, MRC_WIRE_HDR_LEN + 4 * ndone + p.len);
}

static void data(const char *name, u32 msg_len, u16 seg, u32 offset,
		 u16 flags)
{
	static u8 buf[MRC_WIRE_MAX_PKT];
	struct mrc_pkt p = hdr(MRC_PKT_DATA);
	u32 rest = msg_len - offset, i;

	p.msg_len = msg_len;
	p.seg = seg;
	p.offset = offset;
	p.len = rest < seg ? rest : seg;
	p.flags = flags | (p.len == rest ? MRC_WF_LAST : 0);
	for (i = 0; i < p.len; i++)
		buf[MRC_WIRE_HDR_LEN + i] = (u8)(i * 7 + offset);
	emit(name, buf, &p);
}

/* A SACK, with a done list of @ndone entries if not 0. */
static void sack(const char *name, u32 cum, u32 nbits, u64 pattern,
		 unsigned int ndone)
{
	static u8 buf[MRC_WIRE_MAX_PKT];
	struct mrc_pkt p = hdr(MRC_PKT_SACK);
	struct mrc_pkt_sack s = {
		.cum = cum, .nbits = nbits,
		.bitmap = { pattern, pattern >> 1, pattern >> 2, pattern >> 3 },
		.echo_entropy = 3, .echo_path_seq = 40,
		.echo_tstamp = 1700000000000000000ULL,
	};
	u32 seq[MRC_WIRE_DONE_MAX];
	unsigned int i;

	p.len = mrc_wire_put_sack(buf + MRC_WIRE_HDR_LEN, &s);
	if (ndone) {
		for (i = 0; i < ndone; i++)
			seq[i] = 1000 + i;
		p.flags |= MRC_WF_DONE_MORE;
		p.len += mrc_wire_put_done(buf + MRC_WIRE_HDR_LEN + p.len,
					   seq, ndone);
	}
	emit(name, buf, &p);
}

static void nack(const char *name, unsigned int n)
{
	static u8 buf[MRC_WIRE_MAX_PKT];
	struct mrc_pkt_nack_range r[MRC_WIRE_NACK_MAX];
	struct mrc_pkt p = hdr(MRC_PKT_NACK);
	unsigned int i;

	for (i = 0; i < n; i++) {
		r[i].first = 3 + 10 * i;
		r[i].count = 1 + i % 4;
	}
	p.len = mrc_wire_put_nack(buf + MRC_WIRE_HDR_LEN, r, n);
	emit(name, buf, &p);
}

static void hello(const char *name, u8 type, bool reply)
{
	static u8 buf[MRC_WIRE_MAX_PKT];
	struct mrc_pkt p = hdr(type);
	struct mrc_pkt_hello h = { .qpn = 0x11, .qkey = 0x4d524331,
				   .rail_id = 1 };

	p.msg_id = 0;
	if (reply) {
		h.echo_path_seq = 41;
		h.echo_tstamp = 1700000000123456789ULL;
	}
	p.len = mrc_wire_put_hello(buf + MRC_WIRE_HDR_LEN, &h);
	emit(name, buf, &p);
}

static void credit(const char *name, u8 type, u32 msg_len, u32 granted,
		   u32 seq)
{
	static u8 buf[MRC_WIRE_MAX_PKT];
	struct mrc_pkt p = hdr(type);
	struct mrc_pkt_credit c = { .msg_len = msg_len, .granted = granted,
				    .seq = seq };

	p.len = mrc_wire_put_credit(buf + MRC_WIRE_HDR_LEN, &c);
	emit(name, buf, &p);
}

static void rail_down(const char *name, u32 rail_id)
{
	static u8 buf[MRC_WIRE_MAX_PKT];
	struct mrc_pkt p = hdr(MRC_PKT_RAIL_DOWN);

	p.msg_id = 0;
	p.len = mrc_wire_put_rail_down(buf + MRC_WIRE_HDR_LEN, rail_id);
	emit(name, buf, &p);
}

/* SIDR private data (struct mrc_wire_cm), for wire_fuzz's cm oracle. */
static void cm(const char *name, u8 nqp, u16 flags)
{
	static u8 buf[sizeof(struct mrc_wire_cm)];
	struct mrc_cm c = {
		.nqp = nqp, .flags = flags,
		.src_node = NODE_ME, .dst_node = NODE_PEER, .rail_id = 3,
		.incarnation = 0x1234567, .ts = 1700000000123456789ULL,
		.nonce = 0x0123456789abcdefULL,
	};
	struct mrc_cm check;
	char path[4096];
	unsigned int i;
	FILE *f;

	if (!(flags & MRC_CM_F_REPLY))
		c.token = 0x5eedc0ffee0ddba1ULL;
	for (i = 0; i < nqp; i++)
		c.qpn[i] = 0x11 + i;
	for (i = 0; flags & MRC_CM_F_MAC && i < MRC_CM_MAC_LEN; i++)
		c.mac[i] = 0xa0 + i;
	mrc_wire_cm_put(buf, &c);
	if (mrc_wire_cm_parse(buf, sizeof(buf), &check)) {
		fprintf(stderr, "gen_corpus: %s is not valid\n", name);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, sizeof(buf), f) != sizeof(buf) || fclose(f)) {
		perror(path);
		exit(1);
	}
	written++;
}

/* Scripts for the script fuzzers: bytes appended little endian. */
static u8 script[4096];
static u32 slen;

static void put8(u8 v)
{
	if (slen >= sizeof(script)) {
		fprintf(stderr, "gen_corpus: script too long\n");
		exit(1);
	}
	script[slen++] = v;
}

static void put16(u16 v)
{
	put8(v);
	put8(v >> 8);
}

static void put32(u32 v)
{
	put16(v);
	put16(v >> 16);
}

static void put64(u64 v)
{
	put32(v);
	put32(v >> 32);
}

static void script_emit(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(script, 1, slen, f) != slen || fclose(f)) {
		perror(path);
		exit(1);
	}
	slen = 0;
	written++;
}

/* reasm_fuzz: header and ops (see reasm_fuzz.c). */
static void r_hdr(u8 mode, u32 v, u16 seg)
{
	put8(mode);
	put32(v);
	put16(seg - MRC_WIRE_MIN_SEG);	/* seg = MIN_SEG + u16 % span */
}

/* Index picks: how 0 = absolute, 1 = cum + v, 3 = npkts - 1 - v. */
static void r_mark(u8 how, u32 v)
{
	put8(0);
	put8(how);
	put32(v);
}

static void r_raw(u32 off, u32 len)
{
	put8(1);
	put32(off);
	put32(len);
}

static void r_run(u8 how, u32 v, u16 cnt, bool down)
{
	put8(4);
	put8(how);
	put32(v);
	put16(cnt | (down ? 0x8000 : 0));
}

static void r_checks(void)
{
	put8(5);		/* sack */
	put8(6);		/* holes, max 7 */
	put8(7);
}

static void reasm_corpus(void)
{
	/* 10000 bytes in full-size packets, in order. */
	r_hdr(0, 10000, SEG);
	r_mark(0, 0);
	r_checks();
	r_mark(0, 1);
	r_checks();
	r_mark(0, 2);
	r_checks();
	script_emit("in-order");

	/* 1024 packets of 1000 bytes (the last short), out of order. */
	r_hdr(4, 1023 * 1000 + 17, 1000);
	r_run(0, 500, 300, false);
	r_checks();
	r_run(3, 0, 100, true);
	r_checks();
	r_mark(0, 3);
	r_mark(0, 70);
	r_checks();
	r_run(0, 0, 1024, false);
	r_checks();
	script_emit("out-of-order");

	/* The empty message: one packet of 0 bytes. */
	r_hdr(0, 0, SEG);
	r_raw(0, 1);
	r_raw(0, 0);
	r_checks();
	r_raw(0, 0);
	script_emit("empty");

	/* Near 4 GiB in minimum-size packets: the tail, a hole, SACK. */
	r_hdr(3, 0, MRC_WIRE_MIN_SEG);
	r_mark(3, 0);
	r_mark(3, 5);
	r_run(0, 0, 300, false);
	r_mark(1, 10);
	r_checks();
	script_emit("huge");

	/* Bad packets: misaligned, past the end, wrong len, geometry. */
	r_hdr(1, 0x0105, 512);	/* mode 1: 5 * 512 + 1 - 1 bytes */
	r_raw(1, 512);
	r_raw(512 * 64, 512);
	r_raw(512, 511);
	put8(2);			/* near-valid: len off by -1 */
	put8(0);
	put32(1);
	put8(0xff);
	put8(3);			/* another geometry */
	put8(1);
	put32(0x10);
	put32(0);
	put32(512);
	put8(3);			/* same length, another seg */
	put8(0x82);
	put16(0x40);
	put32(512);
	put32(512);
	r_mark(0, 1);
	r_mark(0, 1);
	r_checks();
	script_emit("bad-packets");
}

/* txsb_fuzz: header and ops (see txsb_fuzz.c). */
static void t_hdr(u8 mode, u32 v, u32 now)
{
	put8(mode);
	put32(v);
	put32(now);
}

static void t_send(u8 path, u8 k)	/* next() k times, sending each */
{
	put8(1);
	put8(path);
	put8(k - 1);
}

/* A SACK a receiver could send; twist as in sack_from_shadow(). */
static void t_sack(u8 twist, u16 back, u64 mask)
{
	put8(5);
	put8(twist);
	put16(back);
	put64(mask);
}

static void t_sack_raw(u32 cum, u16 nbits, u64 w0, u64 w1, u64 w2, u64 w3)
{
	put8(7);
	put32(cum);
	put16(nbits);
	put64(w0);
	put64(w1);
	put64(w2);
	put64(w3);
}

static void t_nack(u32 first, u32 count)
{
	put8(9);
	put32(first);
	put32(count);
}

static void txsb_corpus(void)
{
	unsigned int i;

	/* 3 packets: send, ack all. */
	t_hdr(0, 2, 1000);
	t_send(0, 3);
	t_sack(0, 0, ~0ULL);
	put8(0);
	script_emit("simple");

	/* 300 packets on 3 paths, losses of every kind, resends, acks. */
	t_hdr(1, 299, 0xfffff000);	/* the clock wraps mid-way */
	for (i = 0; i < 19; i++)
		t_send(i % 3, 16);
	t_sack(0, 0, 0xf0f0f0f0f0f0f0f0ULL);
	put8(12);		/* callbacks off */
	t_nack(2, 5);
	put8(10);		/* lose_path 1 */
	put8(1);
	put8(0xf5);		/* lose_older (op 11), clock + 15 */
	put16(100);
	t_send(2, 16);
	put8(12);		/* callbacks on */
	t_sack(0, 0, ~0ULL);
	for (i = 0; i < 8; i++) {
		t_send(0, 16);
		t_sack(0, 0, ~0ULL);
	}
	t_sack(1, 20, ~0ULL);	/* stale */
	script_emit("losses");

	/* Hostile SACKs and NACKs on a half-sent message. */
	t_hdr(2, 999, 7);
	for (i = 0; i < 10; i++)
		t_send(0, 16);
	t_sack(0x04, 200, 0x5555555555555555ULL);	/* bit on unsent */
	t_sack(0x08, 3, ~0ULL);				/* cum past sent */
	t_sack(0x8c, 10, ~0ULL);			/* nbits > 256 */
	t_sack(0x72, 0, ~0ULL);				/* nbits past set */
	t_sack_raw(1001, 0, 0, 0, 0, 0);		/* cum > npkts */
	t_sack_raw(100, 256, 0, 0, 0, 1ULL << 63);
	t_sack_raw(159, 1, 1, 0, 0, 0);
	t_nack(150, 11);				/* past sent */
	t_nack(0, 0);
	t_nack(0xffffffff, 2);
	t_sack(0, 0, ~0ULL);
	script_emit("hostile");

	/* 4096 packets: whole message through, one path dying. */
	t_hdr(2, 4095, 0);
	for (i = 0; i < 64; i++) {
		t_send(i % 4, 16);
		if (i % 8 == 7)
			t_sack(0, 0, 0x7fffffffffffffffULL);
	}
	put8(10);
	put8(3);
	for (i = 0; i < 200; i++) {
		t_send(0, 16);
		t_sack(0, 0, ~0ULL);
	}
	script_emit("big");
}

/* credit_fuzz: header and ops (see credit_fuzz.c). */
#define C_SET_SMALL	1	/* 10 B/us, 100-byte units, 1000 unsched */
#define C_SET_TINY	2	/* 1-byte units, no unscheduled window */
#define C_SET_INPUT	3	/* params from the script */
#define C_SRPT		0x20

static void c_hdr(u8 nentries, u8 set, u8 flags, u32 clock)
{
	put8((nentries - 1) | set << 3 | flags);
	put32(clock);
}

/* Op bits 5-7: the clock advances that many us first. */
static void c_op(u8 op, u8 us)
{
	put8(op | us << 5);
}

/* mode 4: unsched + (v % 16 + 1) units + (v >> 8) % unit bytes */
static void c_start(u8 s, u8 mode, u8 flags, u32 v)
{
	c_op(0, 0);
	put8(s | mode << 2);
	put8(flags);
	put32(v);
}

static void c_send_all(u8 s)
{
	c_op(1, 0);
	put8(s | 4);
}

static void c_data(u8 s, bool drop)	/* the oldest chunk in flight */
{
	c_op(3, 0);
	put8(s | (drop ? 4 : 0));
}

static void c_pace(u8 us)
{
	c_op(5, us);
}

static void c_tick(u8 scale, u16 v)	/* ns, us, ms, 100 ms */
{
	c_op(7, 0);
	put8(scale);
	put16(v);
}

static void c_grant(u8 s, u8 lose)	/* deliver after losing @lose */
{
	c_op(8, 0);
	put8(s | lose << 2);
}

/* Variant 7 is raw: msg_id v << 32 | w, then msg_len, granted, seq. */
static void c_forged(u8 s, u8 variant, u32 v, u32 w)
{
	c_op(12, 0);
	put8(s | variant << 2);
	put32(v);
	put32(w);
	if (variant == 7) {
		put32(v + 100);
		put32(w);
		put32(1);
	}
}

/* flags: 4 forced, 8 lost, 0x10 -EBUSY kept, 0x20 no @out */
static void c_rerequest(u8 s, u8 flags)
{
	c_op(13, 0);
	put8(s | flags);
}

static void c_request_odd(u8 s, u8 variant, u32 v, u32 w)
{
	c_op(14, 0);
	put8(s | variant << 2);
	put32(v);
	put32(w);
}

static void c_ghost(u8 g, u8 mode, u32 v)
{
	c_op(15, 0);
	put8(g | mode << 4);
	put32(v);
}

/* Sender @s's grants delivered, its credit sent and received. */
static void c_round(u8 s)
{
	c_grant(s, 0);
	c_send_all(s);
	c_data(s, false);
}

static void credit_corpus(void)
{
	unsigned int i, s;

	/* Incast: 3 senders, grants delivered in order, to the end. */
	c_hdr(4, C_SET_SMALL, 0, 1000000);
	for (s = 0; s < 3; s++) {
		c_start(s, 4, 0, 0x0907 + s * 0x101);
		c_send_all(s);
		c_data(s, false);
	}
	for (i = 0; i < 40; i++) {
		c_tick(1, 20);
		c_pace(0);
		for (s = 0; s < 3; s++)
			c_round(s);
	}
	script_emit("incast");

	/* The same with SRPT, one sender background (set_low). */
	c_hdr(4, C_SET_SMALL, C_SRPT, 7);
	for (s = 0; s < 3; s++) {
		c_start(s, 4, 0, 0x0300 + s * 0x405);
		c_send_all(s);
	}
	c_op(17, 0);		/* set_low(sender 1) */
	put8(0x21);
	for (i = 0; i < 30; i++) {
		c_tick(1, 30);
		c_pace(7);
		for (s = 0; s < 3; s++)
			c_round(s);
	}
	script_emit("srpt-low");

	/* Lost grants: re-requests after the timeout, reclaim. */
	c_hdr(2, C_SET_SMALL, 0, 5000);
	c_start(0, 4, 0, 0x3f0f);
	c_send_all(0);
	c_data(0, false);
	for (i = 0; i < 12; i++) {
		c_tick(1, 30);
		c_pace(0);
		if (i % 3 == 2) {	/* its data is lost: reclaimed */
			c_grant(0, 0);
			c_send_all(0);
			c_data(0, true);
			c_tick(1, 250);
			c_pace(0);
			continue;
		}
		c_op(9, 0);		/* the grant is lost */
		put8(0);
		c_send_all(0);		/* starved */
		c_tick(1, 150);		/* past request_timeout */
		c_rerequest(0, 0);	/* due: RESEND of the offset */
		c_round(0);
	}
	script_emit("lost-grants");

	/* Replays and forged grants, across two messages. */
	c_hdr(2, C_SET_SMALL, 0, 99);
	c_start(0, 2, 0, 5000);	/* 6001 bytes */
	for (i = 0; i < 6; i++) {
		c_tick(1, 40);
		c_pace(0);
		c_round(0);
	}
	for (i = 0; i < 2; i++) {
		c_tick(1, 40);
		c_pace(0);
	}
	c_op(10, 0);		/* swap: reordered, the older one stale */
	put8(0);
	for (i = 0; i < 8; i++)
		c_forged(0, i, 0x01010101 * i, 0x11 * i + 1);
	c_op(11, 0);		/* replay */
	put8(0);
	c_op(2, 0);		/* sent() over credit */
	put8(0);
	put32(2);
	c_op(4, 0);		/* DATA beyond the grant */
	put8(0);
	put32(5990);
	put16(11);
	for (i = 0; i < 6; i++) {
		c_tick(1, 40);
		c_pace(0);
		c_round(0);
	}
	c_start(0, 4, 0, 0x0505);	/* the next message */
	c_op(11, 0);		/* a grant of the previous one */
	put8(4);
	c_forged(0, 5, 2, 4);
	for (i = 0; i < 7; i++)
		c_request_odd(0, i, 0x10 + i, 0x0200 + i);
	c_tick(1, 40);
	c_pace(0);
	c_round(0);
	script_emit("forged");

	/* Forget and reset mid-message; ghosts fill a 3-entry table. */
	c_hdr(3, C_SET_SMALL, 0, 0);
	c_start(0, 4, 0, 0x0f0f);
	c_start(1, 4, 0, 0x0f0e);
	for (i = 0; i < 3; i++) {
		c_tick(1, 100);
		c_pace(5);
		c_round(0);
		c_round(1);
	}
	c_op(16, 0);		/* forget(sender 0) */
	put8(0);
	c_rerequest(0, 4);	/* forced: a new entry, seq from 1 */
	c_op(18, 0);		/* reset sender 1 */
	put8(1);
	c_start(1, 4, 0, 0x0203);	/* -EBUSY: forget + request */
	for (i = 0; i < 4; i++)
		c_ghost(i, 0, 0x100 * i);	/* the table fills */
	c_start(2, 4, 0, 0x0101);	/* -ENOSPC */
	for (i = 0; i < 6; i++) {
		c_tick(1, 100);
		c_pace(5);
		c_round(0);
		c_round(1);
		c_op(20, 0);	/* ghost 0's data */
		put8(0);
		put16(300);
	}
	c_op(16, 0);		/* forget(ghost 0): sender 2 gets in */
	put8(0x40);
	c_rerequest(2, 4);
	c_pace(5);
	c_round(2);
	script_emit("forget-reset");

	/*
	 * A message given up (its endpoint busy: reset) resumes with its
	 * own id after another lane's message took the entry: once with
	 * its credit outstanding, once reclaimed.
	 */
	c_hdr(2, C_SET_SMALL, 0, 1000);
	for (i = 0; i < 2; i++) {
		c_start(0, 4, 0, 0x0003);	/* lane 0: 400 B to grant */
		c_tick(1, 100);
		c_pace(0);			/* all granted, none sent */
		c_op(18, 0);			/* reset: given up */
		put8(0);
		if (i) {			/* past grant_timeout */
			c_tick(2, 20);
			c_pace(0);		/* reclaimed */
		}
		c_start(0, 4, 1, 0x0003);	/* lane 1 takes the entry */
		c_tick(1, 100);
		c_pace(0);
		c_round(0);
		c_start(0, 4, 0x80, 0);		/* lane 0's again */
		c_tick(1, 100);
		c_pace(0);
		c_round(0);
	}
	script_emit("busy-resume");

	/* Tiny: 1-byte units, one entry, every sender after it. */
	c_hdr(1, C_SET_TINY, 0, 0);
	for (s = 0; s < 4; s++)
		c_start(s, 1, 0x10, s);
	for (i = 0; i < 40; i++) {
		c_tick(0, 3);
		c_pace(0);
		c_round(i % 4);
		if (i % 8 == 7)		/* the others retry */
			c_rerequest(i / 8 % 4, 4);
	}
	script_emit("tiny");

	/* Params from the script; late paces and retuning. */
	c_hdr(8, C_SET_INPUT, 0, 123456);
	put16(4095);		/* unit 4096 */
	put8(7);		/* burst 8 units */
	put16(0);
	put8(31);		/* max_outstanding 32 units */
	put16(0);
	put32(65536);		/* unsched */
	put32(1U << 20);	/* max_msg unsched + 1 + 1 MiB */
	put64(12500000000ULL - 1);	/* rate 100 Gbit/s */
	put32(1000000 - 1);	/* grant_timeout 1 ms */
	put32(1000000 - 1);	/* request_timeout 1 ms */
	put32(100000000);	/* stale 100 ms */
	for (s = 0; s < 4; s++)
		c_start(s, 2, s, 0x12345 * (s + 1));
	for (i = 0; i < 16; i++) {
		c_tick(i % 4 == 3 ? 3 : 1, i % 4 == 3 ? 2 : 5);
		c_pace(0);
		for (s = 0; s < 4; s++)
			c_round(s);
		if (i == 8) {
			c_op(19, 0);	/* retune: SRPT */
			put8(0);
			put32(0);
		}
	}
	script_emit("params");
}

/*
 * msg_fuzz: the setup bytes, then ops (see msg_fuzz.c): an op is its
 * code (c % 13) and x (x & 1: which side), then its own bytes.
 */
enum { M_SEND = 0, M_TIME = 2, M_WIRE = 3, M_DOWN = 7, M_UP = 8,
       M_HOSTILE = 9, M_SEND_ERR = 10, M_ALLOC_FAIL = 11, M_REPLAY = 12 };

static void m_hdr(u8 nlinks, u8 nqps, u8 rx, u8 tx_msgs, u8 timeout)
{
	int i;

	put8(nlinks - 1);
	put8(nqps - 1);
	put8(rx);
	for (i = 0; i < 2; i++) {
		put8(tx_msgs);
		put8(timeout);
		put8(0);		/* data_rto_min_ms 0: learned */
	}
}

static void m_send(int side, u16 len, u8 cls)
{
	put8(M_SEND);
	put8(side | cls << 1);
	put16(len);
}

static void m_time(u16 us)
{
	put8(M_TIME);
	put8(0);
	put16(us);
}

/* @fate: 0 delivered, 5 lost, 6 duplicated, 7 reordered. */
static void m_wire(int side, u8 fate, unsigned int n)
{
	while (n--) {
		put8(M_WIRE);
		put8(side | fate << 1);
		put8(n * 37);
	}
}

static void m_op(u8 op, int side, u8 arg)
{
	put8(op);
	put8(side | arg << 1);
}

static void m_hostile(int side, u8 kind, u32 r)
{
	int i;

	m_op(M_HOSTILE, side, 0);
	put8(1);		/* entropy */
	put16(500);		/* tstamp: 500 ns ago */
	put8(kind);
	put32(r);
	for (i = 0; i < 16; i++)
		put8(i * 29 + kind);
}

static void msg_corpus(void)
{
	int i;

	/* Both ways on a clean wire, every class. */
	m_hdr(2, 4, 0x18, 40, 20);
	m_send(0, 100, 0);
	m_send(0, 9000, 1);
	m_send(1, 30000, 2);
	m_send(1, 1, 3);
	for (i = 0; i < 8; i++) {
		m_wire(0, 0, 8);
		m_wire(1, 0, 8);
		m_time(2000);
	}
	script_emit("two-way");

	/* Losses, duplicates, reordering, late replays. */
	m_hdr(2, 2, 0x13, 20, 10);
	for (i = 0; i < 4; i++)
		m_send(i & 1, 4032 * (i + 1), i);
	for (i = 0; i < 10; i++) {
		m_wire(0, i % 3 ? 7 : 5, 3);
		m_wire(1, 6, 2);
		m_op(M_REPLAY, i & 1, i);
		m_time(25000);
	}
	script_emit("lossy");

	/* A plane goes down mid-message and comes back. */
	m_hdr(2, 4, 0x20, 30, 30);
	m_send(0, 40000, 2);
	m_wire(0, 0, 3);
	for (i = 0; i < 4; i++)
		m_op(M_DOWN, 0, 24 + i);	/* link 1's paths */
	m_wire(0, 0, 6);
	m_wire(1, 0, 6);
	m_time(30000);
	for (i = 0; i < 4; i++)
		m_op(M_UP, 0, 24 + i);
	m_wire(0, 0, 8);
	m_wire(1, 0, 8);
	script_emit("plane-cut");

	/* Hostile packets of every kind among real traffic. */
	m_hdr(1, 4, 0x31, 16, 5);
	m_send(0, 5000, 0);
	m_send(1, 5000, 1);
	for (i = 0; i < 8; i++)
		m_hostile(i & 1, i, 0x9e3779b9u * (i + 1));
	m_wire(0, 0, 4);
	m_wire(1, 0, 4);
	script_emit("hostile");

	/* Small limits: full queues, no memory, full rings, failed allocs. */
	m_hdr(1, 1, 0x00, 0, 0);
	for (i = 0; i < 12; i++)
		m_send(0, 1000 + 3000 * i, i & 3);
	m_op(M_SEND_ERR, 0, 1);
	m_op(M_ALLOC_FAIL, 1, 2);
	for (i = 0; i < 6; i++) {
		m_wire(0, 7, 4);
		m_wire(1, 0, 4);
		m_time(60000);
	}
	script_emit("pressure");
}

int main(int argc, char **argv)
{
	const char *kind = "wire";

	if (argc == 3) {
		kind = argv[1];
		dir = argv[2];
	} else if (argc == 2) {
		dir = argv[1];
	} else {
		fprintf(stderr, "usage: %s [wire|reasm|txsb|credit|msg] DIR\n",
			argv[0]);
		return 2;
	}

	if (!strcmp(kind, "reasm")) {
		reasm_corpus();
		printf("gen_corpus: %u scripts in %s\n", written, dir);
		return 0;
	}
	if (!strcmp(kind, "txsb")) {
		txsb_corpus();
		printf("gen_corpus: %u scripts in %s\n", written, dir);
		return 0;
	}
	if (!strcmp(kind, "msg")) {
		msg_corpus();
		printf("gen_corpus: %u scripts in %s\n", written, dir);
		return 0;
	}
	if (!strcmp(kind, "credit")) {
		credit_corpus();
		printf("gen_corpus: %u scripts in %s\n", written, dir);
		return 0;
	}
	if (strcmp(kind, "wire")) {
		fprintf(stderr, "gen_corpus: unknown corpus %s\n", kind);
		return 2;
	}

	data("data-single", 1, SEG, 0, 0);
	data("data-first", 10000, SEG, 0, MRC_WF_ACK_NOW);
	data("data-middle", 10000, 1024, 3072, 0);
	data("data-last", 10000, SEG, 2 * SEG, 0);
	data("data-full-last", 2 * SEG, SEG, SEG, MRC_WF_RETRANS);
	data("data-min-seg", 1000, MRC_WIRE_MIN_SEG, 4 * MRC_WIRE_MIN_SEG, 0);
	data("data-cap", 64U << 20, SEG, (64U << 20) / SEG * SEG, 0);
	data_done("data-done-1", 1);
	data_done("data-done-max", MRC_WIRE_DONE_MAX);
	sack("sack-empty", 0, 0, 0, 0);
	sack("sack-some", 17, 5, 0x15, 0);
	sack("sack-full", 1000, MRC_WIRE_SACK_BITS, 0xaaaaaaaaaaaaaaaaULL, 0);
	sack("sack-done-1", 1, 0, 0, 1);
	sack("sack-done-max", 1, 0, 0, MRC_WIRE_DONE_MAX);
	nack("nack-1", 1);
	nack("nack-5", 5);
	nack("nack-32", MRC_WIRE_NACK_MAX);
	hello("hello", MRC_PKT_HELLO, false);
	hello("hello-reply", MRC_PKT_HELLO_REPLY, true);
	hello("probe", MRC_PKT_PROBE, false);
	hello("probe-reply", MRC_PKT_PROBE_REPLY, true);
	credit("credit-req", MRC_PKT_CREDIT_REQ, 1048576, 0, 0);
	credit("credit-req-held", MRC_PKT_CREDIT_REQ, 1048576, 131072, 0);
	credit("grant", MRC_PKT_GRANT, 1048576, 135168, 1);
	credit("grant-all", MRC_PKT_GRANT, 64U << 20, 64U << 20, 4000);
	rail_down("rail-down", 1);
	cm("cm-request", 8, MRC_CM_F_MAC);
	cm("cm-request-need-token", 1, MRC_CM_F_NEED_TOKEN);
	cm("cm-reply", MRC_CM_MAX_QPS, MRC_CM_F_REPLY | MRC_CM_F_MAC);
	printf("gen_corpus: %u packets in %s\n", written, dir);
	return 0;
}
