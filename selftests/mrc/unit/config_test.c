// SPDX-License-Identifier: GPL-2.0
/*
 * config_test.c - user-space unit tests of mrc/core/config.c and mrc/core/names.c
 * (and that mrc/core/wire.c's drop reason names are usable as file names).
 *
 * Output is TAP 13; the exit status is 0 only if every test passed.
 *   make -C selftests/mrc/unit run
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../../uapi/linux/mrc.h"
#include "../../../mrc/core/config.h"
#include "../../../mrc/core/names.h"
#include "../../../mrc/core/wire.h"
#include "tap.h"

static const char *err_name(int err)
{
	switch (err) {
	case 0:
		return "0";
	case -EINVAL:
		return "-EINVAL";
	case -ERANGE:
		return "-ERANGE";
	}
	return "other";
}

/* ---------------------------------------------------------------- */
/* mrc_parse_u64                                                     */
/* ---------------------------------------------------------------- */

#define SENTINEL 0x5a5a5a5a5a5a5a5aULL

/* Expects @s to parse to @exp. */
static void parse_ok(const char *s, u64 exp, int line)
{
	u64 v = SENTINEL;
	int rc = mrc_parse_u64(s, &v);

	if (rc || v != exp) {
		printf("# line %d: parse(\"%s\") = %s, %llu; expected 0, %llu\n",
		       line, s, err_name(rc), (unsigned long long)v,
		       (unsigned long long)exp);
		failed_checks++;
	}
}

/* Expects @s to be refused with @err, leaving the output untouched. */
static void parse_bad(const char *s, int err, int line)
{
	u64 v = SENTINEL;
	int rc = mrc_parse_u64(s, &v);

	if (rc != err || v != SENTINEL) {
		printf("# line %d: parse(\"%s\") = %s, %#llx; expected %s, output untouched\n",
		       line, s, err_name(rc), (unsigned long long)v,
		       err_name(err));
		failed_checks++;
	}
}

#define OK(s, v)	parse_ok(s, v, __LINE__)
#define BAD(s, e)	parse_bad(s, e, __LINE__)

static void parse__decimal(void)
{
	OK("0", 0);
	OK("1", 1);
	OK("4096", 4096);
	OK("007", 7);			/* leading zeros: decimal, not octal */
	OK("010", 10);
	OK("4294967295", 4294967295ULL);
	OK("4294967296", 4294967296ULL);
	OK("18446744073709551615", UINT64_MAX);
}

static void parse__hex(void)
{
	OK("0x0", 0);
	OK("0x10", 16);
	OK("0X10", 16);
	OK("0xff", 255);
	OK("0xFF", 255);
	OK("0xaBcD", 0xabcd);
	OK("0x00001000", 4096);
	OK("0xffffffffffffffff", UINT64_MAX);
	BAD("0x", -EINVAL);
	BAD("0xg", -EINVAL);
	BAD("0x-1", -EINVAL);
	BAD("x10", -EINVAL);
	BAD("0x1x", -EINVAL);
}

static void parse__suffix(void)
{
	OK("1K", 1024);
	OK("1k", 1024);
	OK("4K", 4096);
	OK("1M", 1024 * 1024);
	OK("1m", 1024 * 1024);
	OK("1G", 1024ULL * 1024 * 1024);
	OK("1g", 1024ULL * 1024 * 1024);
	OK("0K", 0);
	OK("16777216G", 1ULL << 54);
	BAD("1T", -EINVAL);		/* only K, M, G */
	BAD("1KK", -EINVAL);
	BAD("1KM", -EINVAL);
	BAD("K", -EINVAL);
	BAD("1 K", -EINVAL);
}

static void parse__hex_suffix(void)
{
	OK("0x10K", 16 * 1024);
	OK("0x1M", 1024 * 1024);
	OK("0x1g", 1024ULL * 1024 * 1024);
	OK("0x4k\n", 4096);
	/* A hex digit is a digit, not a suffix ('b' is no suffix anyway). */
	OK("0x1b", 0x1b);
}

static void parse__newline(void)
{
	OK("4096\n", 4096);		/* sysfs writes: echo 4096 > file */
	OK("4K\n", 4096);
	OK("0x10\n", 16);
	BAD("4096\n\n", -EINVAL);
	BAD("4096\nx", -EINVAL);
	BAD("\n4096", -EINVAL);
	BAD("4096\r\n", -EINVAL);
	BAD("4096 ", -EINVAL);
	BAD("4096\t", -EINVAL);
}

static void parse__overflow(void)
{
	BAD("18446744073709551616", -ERANGE);		/* U64_MAX + 1 */
	BAD("99999999999999999999", -ERANGE);
	BAD("999999999999999999999999999999", -ERANGE);
	BAD("0x10000000000000000", -ERANGE);
	BAD("0x1ffffffffffffffff", -ERANGE);
	/* The suffix shift overflows. */
	OK("17179869183G", 17179869183ULL << 30);
	BAD("17179869184G", -ERANGE);			/* 2^34 G = 2^64 */
	OK("17592186044415M", 17592186044415ULL << 20);
	BAD("17592186044416M", -ERANGE);
	OK("18014398509481983K", 18014398509481983ULL << 10);
	BAD("18014398509481984K", -ERANGE);
	BAD("18446744073709551615K", -ERANGE);
}

static void parse__empty(void)
{
	BAD("", -EINVAL);
	BAD("\n", -EINVAL);
}

static void parse__junk(void)
{
	BAD("abc", -EINVAL);
	BAD("12a", -EINVAL);
	BAD("1.5", -EINVAL);
	BAD("1,000", -EINVAL);
	BAD("1_000", -EINVAL);
	BAD("-1", -EINVAL);
	BAD("+1", -EINVAL);
	BAD(" 1", -EINVAL);
	BAD("1 ", -EINVAL);
	BAD("1e3", -EINVAL);
	BAD("one", -EINVAL);
	BAD("0b101", -EINVAL);
	BAD("\xff", -EINVAL);
}

static void parse__12KB(void)
{
	BAD("12KB", -EINVAL);
	BAD("12KiB", -EINVAL);
	BAD("12kb", -EINVAL);
	BAD("12B", -EINVAL);
	OK("12K", 12 * 1024);
}

/* ---------------------------------------------------------------- */
/* knob table                                                        */
/* ---------------------------------------------------------------- */

static void knob__by_name(void)
{
	unsigned int i;

	for (i = 0; i < MRC_KNOB_NR; i++)
		CHECK(mrc_knob_by_name(mrc_knobs[i].name) == &mrc_knobs[i],
		      "knob %u \"%s\"", i, mrc_knobs[i].name);
	CHECK(mrc_knob_by_name("max_rails") == &mrc_knobs[MRC_KNOB_max_rails],
	      "max_rails");
	CHECK(mrc_knob_by_name("min_mtu") == &mrc_knobs[MRC_KNOB_min_mtu],
	      "min_mtu");
	CHECK(!mrc_knob_by_name(""), "empty name");
	CHECK(!mrc_knob_by_name("MIN_MTU"), "case matters");
	CHECK(!mrc_knob_by_name("min_mt"), "prefix is no match");
	CHECK(!mrc_knob_by_name("min_mtu "), "trailing space");
	CHECK(!mrc_knob_by_name("min_mtux"), "longer name");
	CHECK(!mrc_knob_by_name("min-mtu"), "dash");
}

static void knob__by_attr(void)
{
	unsigned int i;

	for (i = 0; i < MRC_KNOB_NR; i++)
		CHECK(mrc_knob_by_attr(mrc_knobs[i].attr) == &mrc_knobs[i],
		      "knob %u attr %u", i, mrc_knobs[i].attr);
	CHECK(mrc_knob_by_attr(MRC_CONFIG_A_MIN_MTU) ==
	      &mrc_knobs[MRC_KNOB_min_mtu], "MRC_CONFIG_A_MIN_MTU");
	CHECK(!mrc_knob_by_attr(MRC_CONFIG_A_UNSPEC), "UNSPEC");
	CHECK(!mrc_knob_by_attr(MRC_CONFIG_A_MAX + 1), "MAX + 1");
	CHECK(!mrc_knob_by_attr(0x10000 + MRC_CONFIG_A_MIN_MTU),
	      "attr is not truncated to u16");
	CHECK(!mrc_knob_by_attr(~0u), "UINT_MAX");
}

/* The table and the uapi enum describe the same knobs, once each. */
static void knob__table_matches_uapi(void)
{
	unsigned int i, j, a;

	CHECK((int)MRC_KNOB_NR == (int)MRC_CONFIG_A_MAX,
	      "%d knobs, %d config attributes", MRC_KNOB_NR, MRC_CONFIG_A_MAX);
	for (a = MRC_CONFIG_A_UNSPEC + 1; a <= MRC_CONFIG_A_MAX; a++)
		CHECK(mrc_knob_by_attr(a), "config attribute %u has no knob", a);
	for (i = 0; i < MRC_KNOB_NR; i++)
		for (j = i + 1; j < MRC_KNOB_NR; j++) {
			CHECK(strcmp(mrc_knobs[i].name, mrc_knobs[j].name),
			      "knobs %u and %u share name %s", i, j,
			      mrc_knobs[i].name);
			CHECK(mrc_knobs[i].attr != mrc_knobs[j].attr,
			      "knobs %u and %u share attr %u", i, j,
			      mrc_knobs[i].attr);
		}
}

static void knob__fields(void)
{
	unsigned int i;
	const char *p;

	for (i = 0; i < MRC_KNOB_NR; i++) {
		const struct mrc_knob *k = &mrc_knobs[i];

		CHECK(k->name && k->name[0], "knob %u: no name", i);
		if (!k->name)
			continue;
		/* The name is a sysfs file, a module parameter, a key. */
		for (p = k->name; *p; p++)
			CHECK((*p >= 'a' && *p <= 'z') || *p == '_' ||
			      (*p >= '0' && *p <= '9'),
			      "%s: bad character '%c' in name", k->name, *p);
		/* May be empty for a plain number without a unit (node_id). */
		CHECK(k->unit, "%s: no unit", k->name);
		CHECK(k->help && k->help[0], "%s: no help", k->name);
		CHECK(k->attr > MRC_CONFIG_A_UNSPEC &&
		      k->attr <= MRC_CONFIG_A_MAX, "%s: attr %u", k->name,
		      k->attr);
		CHECK(k->min <= k->max, "%s: min %u > max %u", k->name,
		      k->min, k->max);
		CHECK(!(k->flags & ~MRC_KNOB_POW2), "%s: unknown flags %#x",
		      k->name, k->flags);
		/* A pow2 knob needs at least one power of two in range. */
		if (k->flags & MRC_KNOB_POW2) {
			u64 v;
			bool found = false;

			for (v = 1; v <= k->max; v <<= 1)
				found |= v >= k->min;
			CHECK(found, "%s: no power of two in %u..%u", k->name,
			      k->min, k->max);
		}
	}
}

static void knob__defaults_valid(void)
{
	unsigned int i;
	const char *why;
	int rc;

	for (i = 0; i < MRC_KNOB_NR; i++) {
		const struct mrc_knob *k = &mrc_knobs[i];

		CHECK(k->def >= k->min && k->def <= k->max,
		      "%s: default %u outside %u..%u", k->name, k->def,
		      k->min, k->max);
		why = "unset";
		rc = mrc_knob_check(k, k->def, &why);
		CHECK(rc == 0, "%s: default %u fails its check: %s (%s)",
		      k->name, k->def, err_name(rc), why ? why : "no reason");
		CHECK(why == NULL, "%s: why not cleared on success", k->name);
	}
	/* The values documented in config_knobs.h. */
	CHECK(mrc_knobs[MRC_KNOB_max_rails].def == 64, "max_rails default");
	CHECK(mrc_knobs[MRC_KNOB_min_mtu].def == 1024, "min_mtu default");
}

static void knob_check__range(void)
{
	unsigned int i;
	const char *why;
	int rc;

	for (i = 0; i < MRC_KNOB_NR; i++) {
		const struct mrc_knob *k = &mrc_knobs[i];

		why = "unset";
		CHECK(mrc_knob_check(k, k->min, &why) == 0 && !why,
		      "%s: min %u refused", k->name, k->min);
		why = "unset";
		CHECK(mrc_knob_check(k, k->max, &why) == 0 && !why,
		      "%s: max %u refused", k->name, k->max);
		if (k->min > 0) {
			why = NULL;
			rc = mrc_knob_check(k, (u64)k->min - 1, &why);
			CHECK(rc == -ERANGE && why && why[0],
			      "%s: min - 1: %s", k->name, err_name(rc));
		}
		why = NULL;
		rc = mrc_knob_check(k, (u64)k->max + 1, &why);
		CHECK(rc == -ERANGE && why && why[0], "%s: max + 1: %s",
		      k->name, err_name(rc));
		why = NULL;
		rc = mrc_knob_check(k, U64_MAX, &why);
		CHECK(rc == -ERANGE && why, "%s: U64_MAX: %s", k->name,
		      err_name(rc));
		/* A u64 whose low 32 bits are in range is still too big. */
		why = NULL;
		rc = mrc_knob_check(k, (1ULL << 32) | k->def, &why);
		CHECK(rc == -ERANGE, "%s: 2^32 + default: %s", k->name,
		      err_name(rc));
	}
	/* Specific values of the current knobs. */
	why = NULL;
	CHECK(mrc_knob_check(&mrc_knobs[MRC_KNOB_max_rails], 0, &why) ==
	      -ERANGE, "max_rails 0");
	CHECK(why && !strcmp(why, "value below the knob's minimum"),
	      "why: %s", why ? why : "NULL");
	why = NULL;
	CHECK(mrc_knob_check(&mrc_knobs[MRC_KNOB_max_rails], 1025, &why) ==
	      -ERANGE, "max_rails 1025");
	CHECK(why && !strcmp(why, "value above the knob's maximum"),
	      "why: %s", why ? why : "NULL");
	CHECK(mrc_knob_check(&mrc_knobs[MRC_KNOB_max_rails], 1000, &why) == 0,
	      "max_rails 1000 (not a power of two, no POW2 flag)");
	CHECK(mrc_knob_check(&mrc_knobs[MRC_KNOB_min_mtu], 128, &why) ==
	      -ERANGE, "min_mtu 128");
	CHECK(mrc_knob_check(&mrc_knobs[MRC_KNOB_min_mtu], 8192, &why) ==
	      -ERANGE, "min_mtu 8192");
}

static void knob_check__pow2(void)
{
	const struct mrc_knob *k = &mrc_knobs[MRC_KNOB_min_mtu];
	unsigned int i;
	const char *why;
	u64 v;
	int rc;

	CHECK(k->flags & MRC_KNOB_POW2, "min_mtu is POW2");
	for (v = 256; v <= 4096; v <<= 1) {
		why = "unset";
		rc = mrc_knob_check(k, v, &why);
		CHECK(rc == 0 && !why, "min_mtu %llu: %s",
		      (unsigned long long)v, err_name(rc));
	}
	for (v = 257; v < 4096; v += 97) {
		if (!(v & (v - 1)))
			continue;
		why = NULL;
		rc = mrc_knob_check(k, v, &why);
		CHECK(rc == -EINVAL, "min_mtu %llu: %s", (unsigned long long)v,
		      err_name(rc));
		CHECK(why && !strcmp(why, "value must be a power of two"),
		      "min_mtu %llu why: %s", (unsigned long long)v,
		      why ? why : "NULL");
	}
	/* Range is checked before pow2: out of range is -ERANGE. */
	CHECK(mrc_knob_check(k, 5000, &why) == -ERANGE, "min_mtu 5000");
	CHECK(mrc_knob_check(k, 3, &why) == -ERANGE, "min_mtu 3");

	/* Every POW2 knob: min..max powers pass, their neighbours fail. */
	for (i = 0; i < MRC_KNOB_NR; i++) {
		k = &mrc_knobs[i];
		if (!(k->flags & MRC_KNOB_POW2))
			continue;
		for (v = 1; v <= k->max; v <<= 1) {
			if (v < k->min)
				continue;
			CHECK(mrc_knob_check(k, v, &why) == 0, "%s %llu",
			      k->name, (unsigned long long)v);
			if (v > 2 && v - 1 >= k->min)
				CHECK(mrc_knob_check(k, v - 1, &why) == -EINVAL,
				      "%s %llu", k->name,
				      (unsigned long long)(v - 1));
			if (v + 1 <= k->max && v > 1)
				CHECK(mrc_knob_check(k, v + 1, &why) == -EINVAL,
				      "%s %llu", k->name,
				      (unsigned long long)(v + 1));
		}
	}
}

/* A hand-made knob: the check follows the table, not hard-coded knobs. */
static void knob_check__custom_knob(void)
{
	const struct mrc_knob k = {
		.name = "test", .unit = "x", .help = "x",
		.attr = 99, .min = 0, .max = 64, .def = 8,
		.flags = MRC_KNOB_POW2,
	};
	const struct mrc_knob any = {
		.name = "test", .unit = "x", .help = "x",
		.attr = 99, .min = 0, .max = U32_MAX, .def = 0, .flags = 0,
	};
	const char *why;

	CHECK(mrc_knob_check(&k, 64, &why) == 0, "64");
	CHECK(mrc_knob_check(&k, 1, &why) == 0, "1 = 2^0");
	CHECK(mrc_knob_check(&k, 48, &why) == -EINVAL, "48");
	CHECK(mrc_knob_check(&k, 128, &why) == -ERANGE, "128");
	CHECK(mrc_knob_check(&any, 0, &why) == 0, "0 in 0..U32_MAX");
	CHECK(mrc_knob_check(&any, U32_MAX, &why) == 0, "U32_MAX");
	CHECK(mrc_knob_check(&any, (u64)U32_MAX + 1, &why) == -ERANGE,
	      "U32_MAX + 1");
}

/* ---------------------------------------------------------------- */
/* names                                                             */
/* ---------------------------------------------------------------- */

static void names__rail_state(void)
{
	static const char *const exp[] = {
		[MRC_RAIL_STATE_DOWN]	= "down",
		[MRC_RAIL_STATE_ACTIVE]	= "active",
		[MRC_RAIL_STATE_NO_GID]	= "no-gid",
		[MRC_RAIL_STATE_MTU_LOW] = "mtu-low",
		[MRC_RAIL_STATE_ERROR]	= "error",
	};
	unsigned int i, j;

	CHECK(ARRAY_SIZE(exp) == MRC_RAIL_STATE_MAX + 1,
	      "a new rail state needs a name here (and in names.c)");
	for (i = 0; i <= MRC_RAIL_STATE_MAX; i++) {
		const char *n = mrc_rail_state_name(i);

		CHECK(n && strcmp(n, "unknown"), "state %u has no name", i);
		if (i < ARRAY_SIZE(exp) && exp[i])
			CHECK(n && !strcmp(n, exp[i]), "state %u: \"%s\", not \"%s\"",
			      i, n ? n : "NULL", exp[i]);
		for (j = 0; j < i; j++)
			CHECK(strcmp(n, mrc_rail_state_name(j)),
			      "states %u and %u are both \"%s\"", j, i, n);
	}
}

static void names__link_layer(void)
{
	CHECK(!strcmp(mrc_link_layer_name(MRC_LINK_LAYER_UNSPEC), "unknown"),
	      "UNSPEC");
	CHECK(!strcmp(mrc_link_layer_name(MRC_LINK_LAYER_ETHERNET),
		      "ethernet"), "ETHERNET");
	CHECK(!strcmp(mrc_link_layer_name(MRC_LINK_LAYER_INFINIBAND),
		      "infiniband"), "INFINIBAND");
}

static void names__rail_stat(void)
{
	static const char *const exp[] = {
		[MRC_RAIL_STAT_TX_PACKETS]	= "tx_packets",
		[MRC_RAIL_STAT_TX_BYTES]	= "tx_bytes",
		[MRC_RAIL_STAT_RX_PACKETS]	= "rx_packets",
		[MRC_RAIL_STAT_RX_BYTES]	= "rx_bytes",
		[MRC_RAIL_STAT_TX_ERRORS]	= "tx_errors",
		[MRC_RAIL_STAT_DROP_RAIL_DOWN]	= "drop_rail_down",
		[MRC_RAIL_STAT_DROP_MALFORMED]	= "drop_malformed",
		[MRC_RAIL_STAT_DROP_NO_BUFFER]	= "drop_no_buffer",
		[MRC_RAIL_STAT_STATE_CHANGES]	= "state_changes",
		[MRC_RAIL_STAT_PORT_EVENTS]	= "port_events",
		[MRC_RAIL_STAT_PAD]		= NULL,
		[MRC_RAIL_STAT_RX_ERRORS]	= "rx_errors",
		[MRC_RAIL_STAT_QP_ERRORS]	= "qp_errors",
		[MRC_RAIL_STAT_QP_RECOVERIES]	= "qp_recoveries",
		[MRC_RAIL_STAT_DOWN_NOTICES_TX]	= "down_notices_tx",
		[MRC_RAIL_STAT_DOWN_NOTICES_RX]	= "down_notices_rx",
	};
	unsigned int i, j;
	const char *p;

	CHECK(ARRAY_SIZE(exp) == MRC_RAIL_STAT_MAX + 1,
	      "a new counter needs a name here (and in names.c)");
	CHECK(mrc_rail_stat_name(MRC_RAIL_STAT_UNSPEC) == NULL, "UNSPEC");
	CHECK(mrc_rail_stat_name(MRC_RAIL_STAT_PAD) == NULL, "PAD");
	for (i = MRC_RAIL_STAT_UNSPEC + 1; i <= MRC_RAIL_STAT_MAX; i++) {
		const char *n = mrc_rail_stat_name(i);

		if (i == MRC_RAIL_STAT_PAD)
			continue;
		CHECK(n && n[0], "counter %u has no name", i);
		if (!n)
			continue;
		if (i < ARRAY_SIZE(exp) && exp[i])
			CHECK(!strcmp(n, exp[i]), "counter %u: \"%s\", not \"%s\"",
			      i, n, exp[i]);
		/* A sysfs file name and a JSON key. */
		for (p = n; *p; p++)
			CHECK((*p >= 'a' && *p <= 'z') || *p == '_' ||
			      (*p >= '0' && *p <= '9'),
			      "counter %u: bad character '%c' in \"%s\"", i,
			      *p, n);
		for (j = 1; j < i; j++)
			CHECK(!mrc_rail_stat_name(j) ||
			      strcmp(n, mrc_rail_stat_name(j)),
			      "counters %u and %u are both \"%s\"", j, i, n);
	}
}

static void names__path_state(void)
{
	static const char *const exp[] = {
		[MRC_PATH_STATE_PROBING]	= "probing",
		[MRC_PATH_STATE_ACTIVE]		= "active",
		[MRC_PATH_STATE_ASSUMED_BAD]	= "assumed-bad",
		[MRC_PATH_STATE_DEAD]		= "dead",
		[MRC_PATH_STATE_DENIED]		= "denied",
		[MRC_PATH_STATE_UNRESOLVED]	= "unresolved",
	};
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(exp); i++) {
		const char *n = mrc_path_state_uapi_name(i);

		CHECK(n && !strcmp(n, exp[i]), "path state %u: \"%s\", not \"%s\"",
		      i, n ? n : "NULL", exp[i]);
		for (j = 0; j < i; j++)
			CHECK(strcmp(n, mrc_path_state_uapi_name(j)),
			      "path states %u and %u are both \"%s\"", j, i, n);
	}
	/* The uapi enum has no MAX: the first value past the table. */
	CHECK(!strcmp(mrc_path_state_uapi_name(ARRAY_SIZE(exp)), "unknown"),
	      "a new path state needs a name here (and in names.c)");
}

/*
 * Drop reasons (mrc_drop_reason_name() in wire.c, tested there) are also
 * the files in rails/<rail>/drops/ and mrcctl's JSON keys.
 */
static void names__drop_reason_chars(void)
{
	unsigned int i;
	const char *n, *p;

	for (i = MRC_DROP_NONE + 1; i < MRC_DROP_NR; i++) {
		n = mrc_drop_reason_name(i);
		CHECK(n && n[0], "reason %u has no name", i);
		for (p = n; p && *p; p++)
			CHECK((*p >= 'a' && *p <= 'z') || *p == '_',
			      "reason %u: bad character '%c' in \"%s\"", i,
			      *p, n);
	}
}

static void names__out_of_range(void)
{
	static const unsigned int bad[] = {
		64, 255, 256, 65535, 0x7fffffff, 0x80000000u, ~0u,
	};
	unsigned int i;

	CHECK(!strcmp(mrc_rail_state_name(MRC_RAIL_STATE_MAX + 1), "unknown"),
	      "state MAX + 1");
	CHECK(!strcmp(mrc_link_layer_name(MRC_LINK_LAYER_INFINIBAND + 1),
		      "unknown"), "link layer INFINIBAND + 1");
	CHECK(mrc_rail_stat_name(MRC_RAIL_STAT_MAX + 1) == NULL,
	      "counter MAX + 1");
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		CHECK(!strcmp(mrc_rail_state_name(bad[i]), "unknown"),
		      "state %u", bad[i]);
		CHECK(!strcmp(mrc_link_layer_name(bad[i]), "unknown"),
		      "link layer %u", bad[i]);
		CHECK(mrc_rail_stat_name(bad[i]) == NULL, "counter %u",
		      bad[i]);
		CHECK(!strcmp(mrc_path_state_uapi_name(bad[i]), "unknown"),
		      "path state %u", bad[i]);
	}
}

/* ---------------------------------------------------------------- */

static const struct tap_test tests[] = {
#define T(fn) { #fn, fn }
	T(parse__decimal),
	T(parse__hex),
	T(parse__suffix),
	T(parse__hex_suffix),
	T(parse__newline),
	T(parse__overflow),
	T(parse__empty),
	T(parse__junk),
	T(parse__12KB),
	T(knob__by_name),
	T(knob__by_attr),
	T(knob__table_matches_uapi),
	T(knob__fields),
	T(knob__defaults_valid),
	T(knob_check__range),
	T(knob_check__pow2),
	T(knob_check__custom_knob),
	T(names__rail_state),
	T(names__link_layer),
	T(names__rail_stat),
	T(names__path_state),
	T(names__drop_reason_chars),
	T(names__out_of_range),
#undef T
};

int main(void)
{
	return tap_run(tests, ARRAY_SIZE(tests));
}
