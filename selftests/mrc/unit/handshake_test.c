// SPDX-License-Identifier: GPL-2.0
/*
 * handshake_test.c - user-space unit tests of the SIDR handshake's private
 * data (mrc/core/wire.c mrc_wire_cm_put/parse) and of its freshness rule
 * (mrc/core/handshake.c).
 *
 * Output is TAP 13; the exit status is 0 only if every test passed.
 *   make -C selftests/mrc/unit run
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../mrc/core/handshake.h"
#include "../../../mrc/core/wire.h"
#include "tap.h"

#define SEC	1000000000ULL

static u8 buf[256];

static struct mrc_cm mk(void)
{
	struct mrc_cm c = {
		.nqp = MRC_CM_MAX_QPS,
		.flags = MRC_CM_F_MAC | MRC_CM_F_NEED_TOKEN,
		.src_node = 0x01020304, .dst_node = 0x05060708,
		.rail_id = 0x090a0b0c, .incarnation = 0x0d0e0f10,
		.ts = 0x1112131415161718ULL, .nonce = 0x2122232425262728ULL,
		.token = 0x3132333435363738ULL,
	};
	unsigned int i;

	for (i = 0; i < MRC_CM_MAX_QPS; i++)
		c.qpn[i] = 0xa00000 + 0x10101 * i;
	for (i = 0; i < MRC_CM_MAX_QPS; i++)
		c.mac[i % MRC_CM_MAC_LEN] = 0xc0 + i;
	return c;
}

/* Every field at its documented offset, big-endian; QPNs in 3 bytes. */
static void cm__bytes(void)
{
	struct mrc_cm c = mk();
	unsigned int i;

	memset(buf, 0xee, sizeof(buf));
	mrc_wire_cm_put(buf, &c);
	CHECK(buf[0] == MRC_WIRE_VERSION, "version %u", buf[0]);
	CHECK(buf[1] == MRC_CM_MAX_QPS, "nqp %u", buf[1]);
	CHECK(buf[2] == 0 && buf[3] == 5, "flags %x %x", buf[2], buf[3]);
	CHECK(buf[4] == 1 && buf[7] == 4, "src_node");
	CHECK(buf[8] == 5 && buf[11] == 8, "dst_node");
	CHECK(buf[12] == 9 && buf[15] == 0x0c, "rail_id");
	CHECK(buf[16] == 0x0d && buf[19] == 0x10, "incarnation");
	for (i = 20; i < 24; i++)
		CHECK(buf[i] == 0, "reserved byte %u is %#x", i, buf[i]);
	CHECK(buf[24] == 0x11 && buf[31] == 0x18, "ts");
	CHECK(buf[32] == 0x21 && buf[39] == 0x28, "nonce");
	CHECK(buf[40] == 0x31 && buf[47] == 0x38, "token");
	for (i = 0; i < MRC_CM_MAX_QPS; i++) {
		u32 q = 0xa00000 + 0x10101 * i;

		CHECK(buf[48 + 3 * i] == (u8)(q >> 16) &&
		      buf[49 + 3 * i] == (u8)(q >> 8) &&
		      buf[50 + 3 * i] == (u8)q, "qpn %u", i);
	}
	CHECK(MRC_CM_MAC_OFF == 120, "%zu", (size_t)MRC_CM_MAC_OFF);
	for (i = 0; i < MRC_CM_MAC_LEN; i++)
		CHECK(buf[120 + i] == c.mac[i], "mac byte %u", i);
	for (i = 136; i < sizeof(buf); i++)
		CHECK(buf[i] == 0xee, "byte %u past the struct written", i);
}

static bool same(const struct mrc_cm *a, const struct mrc_cm *b)
{
	return a->nqp == b->nqp && a->flags == b->flags &&
	       a->src_node == b->src_node && a->dst_node == b->dst_node &&
	       a->rail_id == b->rail_id && a->incarnation == b->incarnation &&
	       a->ts == b->ts && a->nonce == b->nonce &&
	       a->token == b->token &&
	       !memcmp(a->qpn, b->qpn, sizeof(a->qpn)) &&
	       !memcmp(a->mac, b->mac, sizeof(a->mac));
}

/* put then parse gives the fields back, for every nqp. */
static void cm__roundtrip(void)
{
	struct mrc_cm c = mk(), d;
	unsigned int n, i;

	for (n = 1; n <= MRC_CM_MAX_QPS; n++) {
		c.nqp = n;
		for (i = n; i < MRC_CM_MAX_QPS; i++)
			c.qpn[i] = 0;
		c.ts = rng();
		c.nonce = rng();
		mrc_wire_cm_put(buf, &c);
		CHECK(!mrc_wire_cm_parse(buf, 136, &d), "nqp %u", n);
		CHECK(same(&c, &d), "nqp %u: fields differ", n);
	}
	/* rdma_cm hands the whole private data area: longer is fine */
	CHECK(!mrc_wire_cm_parse(buf, 180, &d), "180 bytes");
}

/* Unused QPN slots are sent as 0 and read as 0 whatever they hold. */
static void cm__unused_qpns(void)
{
	struct mrc_cm c = mk(), d;
	unsigned int i;

	c.nqp = 2;
	mrc_wire_cm_put(buf, &c);
	for (i = 48 + 6; i < 120; i++)
		CHECK(buf[i] == 0, "unused qpn byte %u sent as %#x", i, buf[i]);
	memset(buf + 48 + 6, 0x5a, 120 - 54);
	CHECK(!mrc_wire_cm_parse(buf, 136, &d), "parse");
	for (i = 2; i < MRC_CM_MAX_QPS; i++)
		CHECK(d.qpn[i] == 0, "qpn %u read as %#x", i, d.qpn[i]);
}

/* Stateless refusals; @d is left alone. */
static void cm__refused(void)
{
	struct mrc_cm c = mk(), d, keep;
	unsigned int v, len;

	memset(&d, 0x77, sizeof(d));
	keep = d;
	mrc_wire_cm_put(buf, &c);
	CHECK(mrc_wire_cm_parse(NULL, 136, &d) == -EPROTO, "NULL");
	for (len = 0; len < 136; len++)
		CHECK(mrc_wire_cm_parse(buf, len, &d) == -EPROTO, "len %u",
		      len);
	for (v = 0; v < 256; v++) {
		buf[0] = v;
		if (v != MRC_WIRE_VERSION)
			CHECK(mrc_wire_cm_parse(buf, 136, &d) == -EPROTO,
			      "version %u", v);
	}
	buf[0] = MRC_WIRE_VERSION;
	buf[1] = 0;
	CHECK(mrc_wire_cm_parse(buf, 136, &d) == -EPROTO, "nqp 0");
	buf[1] = MRC_CM_MAX_QPS + 1;
	CHECK(mrc_wire_cm_parse(buf, 136, &d) == -EPROTO, "nqp 25");
	buf[1] = 255;
	CHECK(mrc_wire_cm_parse(buf, 136, &d) == -EPROTO, "nqp 255");
	buf[1] = 1;
	memset(buf + 16, 0, 4);
	CHECK(mrc_wire_cm_parse(buf, 136, &d) == -EPROTO, "incarnation 0");
	CHECK(!memcmp(&d, &keep, sizeof(d)), "refusals wrote the result");
	/* version 3's layout (124 bytes, token at 116) is refused */
	memset(buf, 0, sizeof(buf));
	buf[0] = 3;
	buf[1] = 1;
	buf[112] = 1;
	CHECK(mrc_wire_cm_parse(buf, 136, &d) == -EPROTO, "version 3");
}

/*
 * Random bytes: never a crash (ASan), and anything accepted writes back
 * to the same bytes but for the ignored ones (reserved, unused QPNs).
 */
static void cm__random(void)
{
	struct mrc_cm d;
	unsigned int n, i, ok = 0;
	u8 again[136];

	for (n = 0; n < 20000; n++) {
		for (i = 0; i < sizeof(buf); i++)
			buf[i] = rng();
		if (n & 1) {
			buf[0] = MRC_WIRE_VERSION;
			buf[1] = 1 + rnd(MRC_CM_MAX_QPS);
		}
		if (mrc_wire_cm_parse(buf, 136, &d))
			continue;
		ok++;
		memset(buf + 20, 0, 4);
		memset(buf + 48 + 3 * d.nqp, 0, 72 - 3 * d.nqp);
		mrc_wire_cm_put(again, &d);
		CHECK(!memcmp(again, buf, 136), "case %u differs", n);
	}
	CHECK(ok > 1000, "only %u accepted", ok);
}

/* The window, either way, and the high-water mark. */
static void fresh__rules(void)
{
	u64 now = 1800000000ULL * SEC;

	CHECK(mrc_cm_request_fresh(0, now, now) == MRC_CM_TAKE, "now");
	CHECK(mrc_cm_request_fresh(0, now - 60 * SEC, now) == MRC_CM_TAKE,
	      "60 s old");
	CHECK(mrc_cm_request_fresh(0, now + 60 * SEC, now) == MRC_CM_TAKE,
	      "60 s ahead");
	CHECK(mrc_cm_request_fresh(0, now - 60 * SEC - 1, now) ==
	      MRC_CM_EXPIRED, "too old");
	CHECK(mrc_cm_request_fresh(0, now + 60 * SEC + 1, now) ==
	      MRC_CM_EXPIRED, "too far ahead");
	CHECK(mrc_cm_request_fresh(0, 0, now) == MRC_CM_EXPIRED, "ts 0");
	CHECK(mrc_cm_request_fresh(0, ~0ULL, now) == MRC_CM_EXPIRED, "ts max");
	/* the mark: equal (a replay of the last one taken) and older */
	CHECK(mrc_cm_request_fresh(now - SEC, now - SEC, now) == MRC_CM_OLD,
	      "replay of the last taken");
	CHECK(mrc_cm_request_fresh(now - SEC, now - 2 * SEC, now) ==
	      MRC_CM_OLD, "older than the last taken");
	CHECK(mrc_cm_request_fresh(now - SEC, now - SEC + 1, now) ==
	      MRC_CM_TAKE, "1 ns newer");
	/* expired wins over old: a mark from the future changes nothing */
	CHECK(mrc_cm_request_fresh(now + 120 * SEC, now - 61 * SEC, now) ==
	      MRC_CM_EXPIRED, "expired and old");
	/* a clock at 0 (no RTC) still works near 0 */
	CHECK(mrc_cm_request_fresh(0, 5 * SEC, 3 * SEC) == MRC_CM_TAKE,
	      "near the epoch");
}

/* A replayed sequence: each request taken once, in order, never twice. */
static void fresh__replay_sequence(void)
{
	u64 now = 1800000000ULL * SEC, mark = 0, ts[8];
	unsigned int i, taken = 0;

	for (i = 0; i < 8; i++)
		ts[i] = now - 8 * SEC + i * SEC + rnd(1000);
	for (i = 0; i < 8; i++)
		if (mrc_cm_request_fresh(mark, ts[i], now) == MRC_CM_TAKE) {
			mark = ts[i];
			taken++;
		}
	CHECK(taken == 8, "%u of 8 in order taken", taken);
	for (i = 0; i < 8; i++)
		CHECK(mrc_cm_request_fresh(mark, ts[i], now) == MRC_CM_OLD,
		      "replay %u", i);
}

static const struct tap_test tests[] = {
#define T(f) { #f, f }
	T(cm__bytes),
	T(cm__roundtrip),
	T(cm__unused_qpns),
	T(cm__refused),
	T(cm__random),
	T(fresh__rules),
	T(fresh__replay_sequence),
#undef T
};

int main(void)
{
	return tap_run_seeded(tests, ARRAY_SIZE(tests));
}
