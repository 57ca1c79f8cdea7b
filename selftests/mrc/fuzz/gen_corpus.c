// SPDX-License-Identifier: GPL-2.0
/*
 * gen_corpus.c - writes the seed corpus of wire_fuzz: a few valid packets
 * of every type, addressed to node 2, each checked with mrc_wire_parse()
 * before it is written.  Deterministic: regenerating gives the same files.
 *
 *   make -C selftests/mrc/fuzz corpus     (writes corpus/wire/)
 */
#include <stdio.h>
#include <stdlib.h>

#include "../../../mrc/wire.h"

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
	};

	return p;
}

/* Writes header + body (already at buf + HDR_LEN) to dir/name. */
static void emit(const char *name, u8 *buf, struct mrc_pkt *p)
{
	struct mrc_wire_limits lim = { .max_msg_len = 64U << 20,
				       .local_node = NODE_PEER };
	u32 n = MRC_WIRE_HDR_LEN + p->len;
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

static void sack(const char *name, u32 cum, u32 nbits, u64 pattern)
{
	static u8 buf[MRC_WIRE_MAX_PKT];
	struct mrc_pkt p = hdr(MRC_PKT_SACK);
	struct mrc_pkt_sack s = {
		.cum = cum, .nbits = nbits,
		.bitmap = { pattern, pattern >> 1, pattern >> 2, pattern >> 3 },
		.echo_entropy = 3, .echo_path_seq = 40,
		.echo_tstamp = 1700000000000000000ULL,
	};

	p.len = mrc_wire_put_sack(buf + MRC_WIRE_HDR_LEN, &s);
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

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];

	data("data-single", 1, 4040, 0, 0);
	data("data-first", 10000, 4040, 0, MRC_WF_ACK_NOW);
	data("data-middle", 10000, 1024, 3072, 0);
	data("data-last", 10000, 4040, 8080, 0);
	data("data-full-last", 8080, 4040, 4040, MRC_WF_RETRANS);
	data("data-min-seg", 1000, MRC_WIRE_MIN_SEG, 800, 0);
	data("data-cap", 64U << 20, 4040, (64U << 20) / 4040 * 4040, 0);
	sack("sack-empty", 0, 0, 0);
	sack("sack-some", 17, 5, 0x15);
	sack("sack-full", 1000, MRC_WIRE_SACK_BITS, 0xaaaaaaaaaaaaaaaaULL);
	nack("nack-1", 1);
	nack("nack-5", 5);
	nack("nack-32", MRC_WIRE_NACK_MAX);
	hello("hello", MRC_PKT_HELLO, false);
	hello("hello-reply", MRC_PKT_HELLO_REPLY, true);
	hello("probe", MRC_PKT_PROBE, false);
	hello("probe-reply", MRC_PKT_PROBE_REPLY, true);
	printf("gen_corpus: %u packets in %s\n", written, dir);
	return 0;
}
