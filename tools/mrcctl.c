// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl - show and configure mrc (multipath RDMA transport) through its
 * generic netlink family "mrc" (uapi/linux/mrc.h).
 *
 *   mrcctl [OPTIONS] rail show [ [dev] DEV | id ID ]
 *   mrcctl [OPTIONS] config show [KEY...]
 *   mrcctl [OPTIONS] config set KEY VALUE [KEY VALUE ...]
 *   mrcctl [OPTIONS] monitor [ all | rail | config ]
 *
 * Built on libmnl.  The knob table, value parser and enum names are shared
 * with the kernel module (mrc/config.c, mrc/names.c) so that both sides
 * use the same words and the same syntax.
 *
 * Built with -DMRCCTL_SELFTEST, main() is replaced by a TAP self-test of
 * the JSON writer, the message decoders/printers and the error decoder
 * (see the end of this file; "make -C tools check").
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/mrc.h>

#include "../mrc/config.h"
#include "../mrc/names.h"

#ifndef MRCCTL_VERSION
#define MRCCTL_VERSION "0.1"
#endif

/* Bitmasks below hold one bit per attribute / counter. */
_Static_assert(MRC_RAIL_A_MAX < 32, "rail attribute bitmask too small");
_Static_assert(MRC_RAIL_STAT_MAX < 32, "rail stat bitmask too small");

static struct {
	bool json;
	bool pretty;
	bool stats;
	bool timestamp;
} opt;

/* Where show/monitor output goes (stdout; a memstream in the self-test). */
static FILE *out;

static bool matches(const char *arg, const char *full)
{
	size_t n = strlen(arg);

	return n && n <= strlen(full) && !strncmp(arg, full, n);
}

/* ------------------------------------------------------------------ */
/* JSON writer                                                         */
/* ------------------------------------------------------------------ */

#define JW_MAX_DEPTH 16

struct jw {
	FILE *f;
	bool pretty;
	bool after_key;
	int depth;
	bool nonempty[JW_MAX_DEPTH];
};

static void jw_init(struct jw *w, FILE *f, bool pretty)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->pretty = pretty;
}

/* Length of the valid UTF-8 sequence starting at @s (1..4), or 0. */
static size_t utf8_seq_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return (s[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		if (c == 0xed)
			hi = 0x9f;	/* surrogates */
		if (s[1] < lo || s[1] > hi)
			return 0;
		return (s[2] & 0xc0) == 0x80 ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		if (c == 0xf4)
			hi = 0x8f;	/* > U+10FFFF */
		if (s[1] < lo || s[1] > hi)
			return 0;
		if ((s[2] & 0xc0) != 0x80 || (s[3] & 0xc0) != 0x80)
			return 0;
		return 4;
	}
	return 0;
}

/*
 * Writes @str as a JSON string.  Control characters are escaped, valid
 * UTF-8 passes through, every byte of invalid UTF-8 becomes U+FFFD so the
 * output is always valid JSON (device names are arbitrary bytes).
 */
static void json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		size_t n;

		switch (c) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		default:
			if (c < 0x20 || c == 0x7f) {
				fprintf(f, "\\u%04x", c);
			} else if (c < 0x80) {
				fputc(c, f);
			} else {
				n = utf8_seq_len(s);
				if (n) {
					fwrite(s, 1, n, f);
					s += n;
					continue;
				}
				fputs("\\ufffd", f);
			}
		}
		s++;
	}
	fputc('"', f);
}

static void jw_newline(struct jw *w)
{
	int i;

	fputc('\n', w->f);
	for (i = 0; i < w->depth; i++)
		fputs("  ", w->f);
}

/* Separator and indentation before a value or a key. */
static void jw_pre(struct jw *w)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (!w->depth)
		return;
	if (w->nonempty[w->depth])
		fputc(',', w->f);
	w->nonempty[w->depth] = true;
	if (w->pretty)
		jw_newline(w);
}

static void jw_open(struct jw *w, char c)
{
	jw_pre(w);
	fputc(c, w->f);
	if (w->depth < JW_MAX_DEPTH - 1)
		w->depth++;
	w->nonempty[w->depth] = false;
}

static void jw_close(struct jw *w, char c)
{
	bool nonempty = w->nonempty[w->depth];

	if (w->depth)
		w->depth--;
	if (w->pretty && nonempty)
		jw_newline(w);
	fputc(c, w->f);
	if (!w->depth)
		fputc('\n', w->f);
}

#define jw_obj_open(w)	jw_open(w, '{')
#define jw_obj_close(w)	jw_close(w, '}')
#define jw_arr_open(w)	jw_open(w, '[')
#define jw_arr_close(w)	jw_close(w, ']')

static void jw_key(struct jw *w, const char *key)
{
	jw_pre(w);
	json_string(w->f, key);
	fputs(w->pretty ? ": " : ":", w->f);
	w->after_key = true;
}

static void jw_str(struct jw *w, const char *s)
{
	jw_pre(w);
	json_string(w->f, s);
}

static void jw_u64(struct jw *w, u64 v)
{
	jw_pre(w);
	fprintf(w->f, "%" PRIu64, v);
}

static void jw_bool(struct jw *w, bool v)
{
	jw_pre(w);
	fputs(v ? "true" : "false", w->f);
}

static void jw_null(struct jw *w)
{
	jw_pre(w);
	fputs("null", w->f);
}

static void jw_kv_str(struct jw *w, const char *k, const char *v)
{
	jw_key(w, k);
	if (v)
		jw_str(w, v);
	else
		jw_null(w);
}

static void jw_kv_u64(struct jw *w, const char *k, u64 v)
{
	jw_key(w, k);
	jw_u64(w, v);
}

/* ------------------------------------------------------------------ */
/* netlink plumbing and error reporting                                */
/* ------------------------------------------------------------------ */

struct nl_error {
	int err;		/* positive errno; 0: none */
	bool has_msg;
	char msg[512];		/* extack text, or a local explanation */
	bool has_offs;
	u32 offs;		/* NLMSGERR_ATTR_OFFS */
	bool has_miss;
	u32 miss_type;		/* NLMSGERR_ATTR_MISS_TYPE */
	u32 pol_type;		/* NL_POLICY_TYPE_ATTR_TYPE, 0 if none */
	bool has_min_u, has_max_u, has_min_s, has_max_s;
	u64 min_u, max_u;
	s64 min_s, max_s;
};

static struct nl_error nlerr;

/* Where each knob of the last CONFIG_SET request sits (for ATTR_OFFS). */
static struct {
	u32 offs;
	const struct mrc_knob *k;
} req_knobs[2 * MRC_KNOB_NR];
static unsigned int req_nknobs;

static struct mnl_socket *nl;
static unsigned int nl_portid, nl_seq;
static u16 mrc_family;
static u32 mrc_family_version;
static u32 mrc_events_grp;
static bool mrc_events_grp_found;
static char rxbuf[65536];

static void nlerr_set(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void nlerr_set(int err, const char *fmt, ...)
{
	va_list ap;

	memset(&nlerr, 0, sizeof(nlerr));
	nlerr.err = err;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(nlerr.msg, sizeof(nlerr.msg), fmt, ap);
		va_end(ap);
		nlerr.has_msg = true;
	}
}

static int policy_attr_cb(const struct nlattr *a, void *data)
{
	struct nl_error *e = data;

	switch (mnl_attr_get_type(a)) {
	case NL_POLICY_TYPE_ATTR_TYPE:
		if (!mnl_attr_validate(a, MNL_TYPE_U32))
			e->pol_type = mnl_attr_get_u32(a);
		break;
	case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
		if (!mnl_attr_validate(a, MNL_TYPE_U64)) {
			e->min_u = mnl_attr_get_u64(a);
			e->has_min_u = true;
		}
		break;
	case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
		if (!mnl_attr_validate(a, MNL_TYPE_U64)) {
			e->max_u = mnl_attr_get_u64(a);
			e->has_max_u = true;
		}
		break;
	case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:
		if (!mnl_attr_validate(a, MNL_TYPE_U64)) {
			e->min_s = (s64)mnl_attr_get_u64(a);
			e->has_min_s = true;
		}
		break;
	case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:
		if (!mnl_attr_validate(a, MNL_TYPE_U64)) {
			e->max_s = (s64)mnl_attr_get_u64(a);
			e->has_max_s = true;
		}
		break;
	}
	return MNL_CB_OK;
}

static int extack_attr_cb(const struct nlattr *a, void *data)
{
	struct nl_error *e = data;

	switch (mnl_attr_get_type(a)) {
	case NLMSGERR_ATTR_MSG:
		if (!mnl_attr_validate(a, MNL_TYPE_NUL_STRING)) {
			snprintf(e->msg, sizeof(e->msg), "%s",
				 mnl_attr_get_str(a));
			e->has_msg = e->msg[0] != '\0';
		}
		break;
	case NLMSGERR_ATTR_OFFS:
		if (!mnl_attr_validate(a, MNL_TYPE_U32)) {
			e->offs = mnl_attr_get_u32(a);
			e->has_offs = true;
		}
		break;
	case NLMSGERR_ATTR_MISS_TYPE:
		if (!mnl_attr_validate(a, MNL_TYPE_U32)) {
			e->miss_type = mnl_attr_get_u32(a);
			e->has_miss = true;
		}
		break;
	case NLMSGERR_ATTR_POLICY:
		if (!mnl_attr_validate(a, MNL_TYPE_NESTED))
			mnl_attr_parse_nested(a, policy_attr_cb, e);
		break;
	}
	return MNL_CB_OK;
}

/* Parses the extended-ACK TLVs that start @off bytes into the payload. */
static void extack_parse(const struct nlmsghdr *nlh, size_t off)
{
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	off = MNL_ALIGN(off);
	if (off >= mnl_nlmsg_get_payload_len(nlh))
		return;
	mnl_attr_parse(nlh, off, extack_attr_cb, &nlerr);
}

static int cb_error(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*e);

	(void)data;
	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		nlerr_set(EBADMSG, "truncated netlink error message");
		return MNL_CB_ERROR;
	}
	/* Without NETLINK_CAP_ACK the whole request is echoed back. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) &&
	    e->msg.nlmsg_len > sizeof(struct nlmsghdr))
		off += e->msg.nlmsg_len - sizeof(struct nlmsghdr);

	memset(&nlerr, 0, sizeof(nlerr));
	extack_parse(nlh, off);
	if (!e->error) {
		/* An ACK; the kernel may still attach a warning. */
		if (nlerr.has_msg)
			fprintf(stderr, "Warning: %s\n", nlerr.msg);
		memset(&nlerr, 0, sizeof(nlerr));
		return MNL_CB_STOP;
	}
	nlerr.err = e->error < 0 ? -e->error : e->error;
	return MNL_CB_ERROR;
}

/* End of a dump; a negative int in the payload means the dump failed. */
static int cb_done(const struct nlmsghdr *nlh, void *data)
{
	int err = 0;

	(void)data;
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	if (err >= 0)
		return MNL_CB_STOP;
	memset(&nlerr, 0, sizeof(nlerr));
	extack_parse(nlh, sizeof(err));
	nlerr.err = -err;
	return MNL_CB_ERROR;
}

static int cb_overrun(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	nlerr_set(ENOBUFS, NULL);
	return MNL_CB_ERROR;
}

static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR]	= cb_error,
	[NLMSG_DONE]	= cb_done,
	[NLMSG_OVERRUN]	= cb_overrun,
};

/* Runs the callbacks over one buffer of received messages. */
static int nl_run(const void *buf, size_t len, unsigned int seq,
		  unsigned int portid, mnl_cb_t cb, void *data)
{
	int ret;

	errno = 0;
	ret = mnl_cb_run2(buf, len, seq, portid, cb, data, ctl_cbs,
			  ARRAY_SIZE(ctl_cbs));
	if (ret == MNL_CB_ERROR && !nlerr.err)
		nlerr_set(errno ? errno : EPROTO, NULL);
	return ret;
}

static void nl_close(void)
{
	if (nl)
		mnl_socket_close(nl);
	nl = NULL;
}

static int nl_open(void)
{
	int one = 1;

	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl) {
		fprintf(stderr, "Error: cannot open netlink socket: %s\n",
			strerror(errno));
		return -1;
	}
	/* Best effort: older kernels lack these; errors stay plain. */
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		fprintf(stderr, "Error: cannot bind netlink socket: %s\n",
			strerror(errno));
		nl_close();
		return -1;
	}
	nl_portid = mnl_socket_get_portid(nl);
	if (!nl_seq)
		nl_seq = (unsigned int)time(NULL);
	return 0;
}

/*
 * Sends @nlh and feeds the replies to @cb until the ACK, the end of the
 * dump or an error.  Returns 0, or -1 with nlerr filled in.
 */
static int nl_request(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
{
	ssize_t n;
	int ret;

	memset(&nlerr, 0, sizeof(nlerr));
	nlh->nlmsg_seq = ++nl_seq;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		nlerr_set(errno, NULL);
		return -1;
	}
	for (;;) {
		n = mnl_socket_recvfrom(nl, rxbuf, sizeof(rxbuf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			nlerr_set(errno, NULL);
			return -1;
		}
		ret = nl_run(rxbuf, n, nl_seq, nl_portid, cb, data);
		if (ret == MNL_CB_ERROR)
			return -1;
		if (ret == MNL_CB_STOP)
			return 0;
	}
}

static struct nlmsghdr *genl_put(void *buf, u16 family, u8 cmd, u8 version,
				 u16 flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

/* Full range of a policy integer type: not worth printing. */
static bool pol_full_range(const struct nl_error *e)
{
	switch (e->pol_type) {
	case NL_ATTR_TYPE_U8:
		return e->min_u == 0 && e->max_u == UINT8_MAX;
	case NL_ATTR_TYPE_U16:
		return e->min_u == 0 && e->max_u == UINT16_MAX;
	case NL_ATTR_TYPE_U32:
		return e->min_u == 0 && e->max_u == UINT32_MAX;
	case NL_ATTR_TYPE_U64:
		return e->min_u == 0 && e->max_u == UINT64_MAX;
	case NL_ATTR_TYPE_S8:
		return e->min_s == INT8_MIN && e->max_s == INT8_MAX;
	case NL_ATTR_TYPE_S16:
		return e->min_s == INT16_MIN && e->max_s == INT16_MAX;
	case NL_ATTR_TYPE_S32:
		return e->min_s == INT32_MIN && e->max_s == INT32_MAX;
	case NL_ATTR_TYPE_S64:
		return e->min_s == INT64_MIN && e->max_s == INT64_MAX;
	}
	return false;
}

/*
 * "Error: <extack text or strerror>[ (valid range A..B)][ (key K)]
 *  [ (missing attribute N)][ (needs CAP_NET_ADMIN)]"
 */
static void nlerr_format(const struct nl_error *e, char *buf, size_t sz)
{
	size_t n = 0;
	unsigned int i;

#define APPEND(...) do {						\
		if (n < sz)						\
			n += snprintf(buf + n, sz - n, __VA_ARGS__);	\
	} while (0)

	APPEND("Error: %s", e->has_msg ? e->msg : strerror(e->err));
	if (!pol_full_range(e)) {
		if (e->has_min_u && e->has_max_u)
			APPEND(" (valid range %" PRIu64 "..%" PRIu64 ")",
			       e->min_u, e->max_u);
		else if (e->has_min_s && e->has_max_s)
			APPEND(" (valid range %" PRId64 "..%" PRId64 ")",
			       e->min_s, e->max_s);
	}
	/* Several keys in one request: say which one was refused. */
	if (e->has_offs && req_nknobs > 1)
		for (i = 0; i < req_nknobs; i++)
			if (req_knobs[i].offs == e->offs) {
				APPEND(" (key %s)", req_knobs[i].k->name);
				break;
			}
	if (e->has_miss)
		APPEND(" (missing attribute %u)", e->miss_type);
	if (e->err == EPERM)
		APPEND(" (needs CAP_NET_ADMIN)");
#undef APPEND
}

static void nlerr_print(void)
{
	char buf[1024];

	nlerr_format(&nlerr, buf, sizeof(buf));
	fprintf(stderr, "%s\n", buf);
}

/* ------------------------------------------------------------------ */
/* family resolution                                                   */
/* ------------------------------------------------------------------ */

static int mcgrp_cb(const struct nlattr *a, void *data)
{
	const struct nlattr **tb = data;
	unsigned int t = mnl_attr_get_type(a);

	if (t == CTRL_ATTR_MCAST_GRP_NAME &&
	    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
		tb[t] = a;
	if (t == CTRL_ATTR_MCAST_GRP_ID && !mnl_attr_validate(a, MNL_TYPE_U32))
		tb[t] = a;
	return MNL_CB_OK;
}

static int family_attr_cb(const struct nlattr *a, void *data)
{
	const struct nlattr *grp, *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];

	(void)data;
	switch (mnl_attr_get_type(a)) {
	case CTRL_ATTR_FAMILY_ID:
		if (!mnl_attr_validate(a, MNL_TYPE_U16))
			mrc_family = mnl_attr_get_u16(a);
		break;
	case CTRL_ATTR_VERSION:
		if (!mnl_attr_validate(a, MNL_TYPE_U32))
			mrc_family_version = mnl_attr_get_u32(a);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		mnl_attr_for_each_nested(grp, a) {
			memset(tb, 0, sizeof(tb));
			mnl_attr_parse_nested(grp, mcgrp_cb, tb);
			if (tb[CTRL_ATTR_MCAST_GRP_NAME] &&
			    tb[CTRL_ATTR_MCAST_GRP_ID] &&
			    !strcmp(mnl_attr_get_str(tb[CTRL_ATTR_MCAST_GRP_NAME]),
				    MRC_GENL_MCGRP_EVENTS)) {
				mrc_events_grp =
				    mnl_attr_get_u32(tb[CTRL_ATTR_MCAST_GRP_ID]);
				mrc_events_grp_found = true;
			}
		}
		break;
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN)
		return MNL_CB_OK;
	return mnl_attr_parse(nlh, GENL_HDRLEN, family_attr_cb, data);
}

/* Opens the socket and resolves the "mrc" family.  0 or -1 (reported). */
static int mrc_connect(void)
{
	char buf[256];
	struct nlmsghdr *nlh;

	if (nl_open())
		return -1;
	nlh = genl_put(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME);
	if (nl_request(nlh, family_cb, NULL) < 0) {
		if (nlerr.err == ENOENT)
			fprintf(stderr,
				"Error: mrc module not loaded (try: modprobe mrc)\n");
		else
			nlerr_print();
		return -1;
	}
	if (!mrc_family) {
		fprintf(stderr,
			"Error: netlink controller gave no id for family \"%s\"\n",
			MRC_GENL_NAME);
		return -1;
	}
	if (mrc_family_version != MRC_GENL_VERSION)
		fprintf(stderr,
			"Warning: kernel mrc netlink version %u, mrcctl built for version %u\n",
			mrc_family_version, MRC_GENL_VERSION);
	return 0;
}

/* ------------------------------------------------------------------ */
/* decoding mrc messages                                               */
/* ------------------------------------------------------------------ */

struct rail {
	u32 present;			/* 1 << MRC_RAIL_A_* */
	u32 id, port, ifindex, gid_index, mtu, speed;
	u8 link_layer, state, prev_state;
	u8 gid[16];
	char name[MRC_RAIL_NAME_MAX + 16];
	char ibdev[80];
	char netdev[80];
	u32 stats_present;		/* 1 << MRC_RAIL_STAT_* */
	u64 stats[MRC_RAIL_STAT_MAX + 1];
};

#define HAS(r, a)	(!!((r)->present & (1u << (a))))

struct cfgvals {
	bool has[MRC_KNOB_NR];
	u32 val[MRC_KNOB_NR];
};

struct mrc_msg {
	u8 cmd;
	const struct nlattr *rail;
	const struct nlattr *config;
};

static int bad_attr(const char *where, unsigned int type)
{
	nlerr_set(EPROTO, "malformed %s attribute %u from the kernel",
		  where, type);
	return MNL_CB_ERROR;
}

static int rail_stat_cb(const struct nlattr *a, void *data)
{
	struct rail *r = data;
	unsigned int t = mnl_attr_get_type(a);

	if (t == MRC_RAIL_STAT_UNSPEC || t == MRC_RAIL_STAT_PAD ||
	    t > MRC_RAIL_STAT_MAX)
		return MNL_CB_OK;	/* newer counters: ignored */
	if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
		return bad_attr("rail stats", t);
	r->stats[t] = mnl_attr_get_u64(a);
	r->stats_present |= 1u << t;
	return MNL_CB_OK;
}

static int rail_attr_cb(const struct nlattr *a, void *data)
{
	struct rail *r = data;
	unsigned int t = mnl_attr_get_type(a);
	u32 *u32p = NULL;
	u8 *u8p = NULL;
	char *str = NULL;
	size_t strsz = 0;

	switch (t) {
	case MRC_RAIL_A_ID:
		u32p = &r->id;
		break;
	case MRC_RAIL_A_PORT:
		u32p = &r->port;
		break;
	case MRC_RAIL_A_IFINDEX:
		u32p = &r->ifindex;
		break;
	case MRC_RAIL_A_GID_INDEX:
		u32p = &r->gid_index;
		break;
	case MRC_RAIL_A_MTU:
		u32p = &r->mtu;
		break;
	case MRC_RAIL_A_SPEED:
		u32p = &r->speed;
		break;
	case MRC_RAIL_A_LINK_LAYER:
		u8p = &r->link_layer;
		break;
	case MRC_RAIL_A_STATE:
		u8p = &r->state;
		break;
	case MRC_RAIL_A_PREV_STATE:
		u8p = &r->prev_state;
		break;
	case MRC_RAIL_A_NAME:
		str = r->name;
		strsz = sizeof(r->name);
		break;
	case MRC_RAIL_A_IBDEV:
		str = r->ibdev;
		strsz = sizeof(r->ibdev);
		break;
	case MRC_RAIL_A_NETDEV:
		str = r->netdev;
		strsz = sizeof(r->netdev);
		break;
	case MRC_RAIL_A_GID:
		if (mnl_attr_get_payload_len(a) != sizeof(r->gid))
			return bad_attr("rail", t);
		memcpy(r->gid, mnl_attr_get_payload(a), sizeof(r->gid));
		break;
	case MRC_RAIL_A_STATS:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
			return bad_attr("rail", t);
		if (mnl_attr_parse_nested(a, rail_stat_cb, r) < 0)
			return MNL_CB_ERROR;
		break;
	default:
		return MNL_CB_OK;	/* PAD, UNSPEC and newer attributes */
	}
	if (u32p) {
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return bad_attr("rail", t);
		*u32p = mnl_attr_get_u32(a);
	} else if (u8p) {
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return bad_attr("rail", t);
		*u8p = mnl_attr_get_u8(a);
	} else if (str) {
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
			return bad_attr("rail", t);
		snprintf(str, strsz, "%s", mnl_attr_get_str(a));
	}
	r->present |= 1u << t;
	return MNL_CB_OK;
}

static int rail_parse(const struct nlattr *nest, struct rail *r)
{
	memset(r, 0, sizeof(*r));
	return mnl_attr_parse_nested(nest, rail_attr_cb, r) < 0 ? -1 : 0;
}

static int config_attr_cb(const struct nlattr *a, void *data)
{
	struct cfgvals *cv = data;
	unsigned int t = mnl_attr_get_type(a);
	const struct mrc_knob *k = mrc_knob_by_attr(t);

	if (!k || t == MRC_CONFIG_A_UNSPEC)
		return MNL_CB_OK;	/* newer knobs: ignored */
	if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
		return bad_attr("config", t);
	cv->val[k - mrc_knobs] = mnl_attr_get_u32(a);
	cv->has[k - mrc_knobs] = true;
	return MNL_CB_OK;
}

static int config_parse(const struct nlattr *nest, struct cfgvals *cv)
{
	return mnl_attr_parse_nested(nest, config_attr_cb, cv) < 0 ? -1 : 0;
}

static int top_attr_cb(const struct nlattr *a, void *data)
{
	struct mrc_msg *m = data;
	unsigned int t = mnl_attr_get_type(a);

	if (t != MRC_A_RAIL && t != MRC_A_CONFIG)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
		return bad_attr("top-level", t);
	if (t == MRC_A_RAIL)
		m->rail = a;
	else
		m->config = a;
	return MNL_CB_OK;
}

static int mrc_msg_parse(const struct nlmsghdr *nlh, struct mrc_msg *m)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);

	memset(m, 0, sizeof(*m));
	if (mnl_nlmsg_get_payload_len(nlh) < GENL_HDRLEN) {
		nlerr_set(EPROTO, "truncated mrc message from the kernel");
		return -1;
	}
	m->cmd = g->cmd;
	return mnl_attr_parse(nlh, GENL_HDRLEN, top_attr_cb, m) < 0 ? -1 : 0;
}

/* ------------------------------------------------------------------ */
/* rail                                                                */
/* ------------------------------------------------------------------ */

static const char *gid_str(const struct rail *r, char *buf, size_t sz)
{
	if (!inet_ntop(AF_INET6, r->gid, buf, sz))
		snprintf(buf, sz, "?");
	return buf;
}

struct stat_col {
	const char *hdr;
	unsigned int id;
};

static const struct stat_col stat_rx[] = {
	{ "packets", MRC_RAIL_STAT_RX_PACKETS },
	{ "bytes", MRC_RAIL_STAT_RX_BYTES },
};

static const struct stat_col stat_tx[] = {
	{ "packets", MRC_RAIL_STAT_TX_PACKETS },
	{ "bytes", MRC_RAIL_STAT_TX_BYTES },
	{ "errors", MRC_RAIL_STAT_TX_ERRORS },
};

static const struct stat_col stat_drops[] = {
	{ "rail_down", MRC_RAIL_STAT_DROP_RAIL_DOWN },
	{ "malformed", MRC_RAIL_STAT_DROP_MALFORMED },
	{ "no_buffer", MRC_RAIL_STAT_DROP_NO_BUFFER },
};

static const struct stat_col stat_events[] = {
	{ "state_changes", MRC_RAIL_STAT_STATE_CHANGES },
	{ "port_events", MRC_RAIL_STAT_PORT_EVENTS },
};

/* Two lines, like "ip -s link": headers, then right-aligned values. */
static void stat_row(const struct rail *r, const char *label,
		     const struct stat_col *c, size_t n)
{
	char val[8][24];
	int w[8];
	size_t i;

	for (i = 0; i < n && i < 8; i++) {
		if (r->stats_present & (1u << c[i].id))
			snprintf(val[i], sizeof(val[i]), "%" PRIu64,
				 r->stats[c[i].id]);
		else
			snprintf(val[i], sizeof(val[i]), "-");
		w[i] = (int)strlen(c[i].hdr);
		if ((int)strlen(val[i]) > w[i])
			w[i] = (int)strlen(val[i]);
	}
	fprintf(out, "    %-8s", label);
	for (i = 0; i < n && i < 8; i++)
		fprintf(out, " %*s", w[i], c[i].hdr);
	fprintf(out, "\n    %-8s", "");
	for (i = 0; i < n && i < 8; i++)
		fprintf(out, " %*s", w[i], val[i]);
	fputc('\n', out);
}

static void rail_print_plain(const struct rail *r)
{
	char gid[INET6_ADDRSTRLEN];

	if (HAS(r, MRC_RAIL_A_ID))
		fprintf(out, "%u: ", r->id);
	else
		fprintf(out, "?: ");
	fprintf(out, "%s", HAS(r, MRC_RAIL_A_NAME) ? r->name : "?");
	if (HAS(r, MRC_RAIL_A_NETDEV))
		fprintf(out, "  netdev %s", r->netdev);
	if (HAS(r, MRC_RAIL_A_STATE))
		fprintf(out, "  state %s", mrc_rail_state_name(r->state));
	if (HAS(r, MRC_RAIL_A_MTU))
		fprintf(out, "  mtu %u", r->mtu);
	if (HAS(r, MRC_RAIL_A_SPEED)) {
		if (r->speed)
			fprintf(out, "  speed %uMb/s", r->speed);
		else
			fprintf(out, "  speed unknown");
	}
	if (HAS(r, MRC_RAIL_A_LINK_LAYER))
		fprintf(out, "  link %s", mrc_link_layer_name(r->link_layer));
	fputc('\n', out);
	if (HAS(r, MRC_RAIL_A_GID)) {
		fprintf(out, "    gid %s", gid_str(r, gid, sizeof(gid)));
		if (HAS(r, MRC_RAIL_A_GID_INDEX))
			fprintf(out, " index %u", r->gid_index);
		fputc('\n', out);
	}
	if (opt.stats) {
		stat_row(r, "RX:", stat_rx, ARRAY_SIZE(stat_rx));
		stat_row(r, "TX:", stat_tx, ARRAY_SIZE(stat_tx));
		stat_row(r, "drops:", stat_drops, ARRAY_SIZE(stat_drops));
		stat_row(r, "events:", stat_events, ARRAY_SIZE(stat_events));
	}
}

/*
 * One rail as a JSON object.  With @all_keys (show), every key is present
 * and absent values are null; otherwise (events) only what was sent.
 */
static void rail_json(struct jw *w, const struct rail *r, bool all_keys)
{
	char gid[INET6_ADDRSTRLEN];
	unsigned int i;

#define U32_KEY(key, attr, val) do {					\
		if (HAS(r, attr))					\
			jw_kv_u64(w, key, val);				\
		else if (all_keys) {					\
			jw_key(w, key);					\
			jw_null(w);					\
		}							\
	} while (0)
#define STR_KEY(key, attr, val) do {					\
		if (HAS(r, attr))					\
			jw_kv_str(w, key, val);				\
		else if (all_keys)					\
			jw_kv_str(w, key, NULL);			\
	} while (0)

	jw_obj_open(w);
	U32_KEY("id", MRC_RAIL_A_ID, r->id);
	STR_KEY("name", MRC_RAIL_A_NAME, r->name);
	STR_KEY("ibdev", MRC_RAIL_A_IBDEV, r->ibdev);
	U32_KEY("port", MRC_RAIL_A_PORT, r->port);
	STR_KEY("netdev", MRC_RAIL_A_NETDEV, r->netdev);
	U32_KEY("ifindex", MRC_RAIL_A_IFINDEX, r->ifindex);
	STR_KEY("link_layer", MRC_RAIL_A_LINK_LAYER,
		mrc_link_layer_name(r->link_layer));
	STR_KEY("gid", MRC_RAIL_A_GID, gid_str(r, gid, sizeof(gid)));
	U32_KEY("gid_index", MRC_RAIL_A_GID_INDEX, r->gid_index);
	U32_KEY("mtu", MRC_RAIL_A_MTU, r->mtu);
	U32_KEY("speed_mbps", MRC_RAIL_A_SPEED, r->speed);
	STR_KEY("state", MRC_RAIL_A_STATE, mrc_rail_state_name(r->state));
	if (HAS(r, MRC_RAIL_A_PREV_STATE))
		jw_kv_str(w, "prev_state", mrc_rail_state_name(r->prev_state));
	if (opt.stats && (all_keys || r->stats_present)) {
		jw_key(w, "stats");
		jw_obj_open(w);
		for (i = 1; i <= MRC_RAIL_STAT_MAX; i++) {
			const char *name = mrc_rail_stat_name(i);

			if (!name)
				continue;
			if (r->stats_present & (1u << i)) {
				jw_kv_u64(w, name, r->stats[i]);
			} else if (all_keys) {
				jw_key(w, name);
				jw_null(w);
			}
		}
		jw_obj_close(w);
	}
	jw_obj_close(w);
#undef U32_KEY
#undef STR_KEY
}

struct rail_list {
	struct rail *v;
	size_t n, cap;
	const char *filter;	/* rail, ibdev or netdev name; NULL: all */
	bool filter_by_id;
	u32 filter_id;
};

static bool rail_match(const struct rail *r, const char *dev)
{
	return (HAS(r, MRC_RAIL_A_NAME) && !strcmp(r->name, dev)) ||
	       (HAS(r, MRC_RAIL_A_IBDEV) && !strcmp(r->ibdev, dev)) ||
	       (HAS(r, MRC_RAIL_A_NETDEV) && !strcmp(r->netdev, dev));
}

static int rail_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rail_list *l = data;
	struct mrc_msg m;
	struct rail r;

	if (nlh->nlmsg_type != mrc_family)
		return MNL_CB_OK;
	if (mrc_msg_parse(nlh, &m))
		return MNL_CB_ERROR;
	if (!m.rail)
		return MNL_CB_OK;
	if (rail_parse(m.rail, &r))
		return MNL_CB_ERROR;
	if (l->filter && !rail_match(&r, l->filter))
		return MNL_CB_OK;
	if (l->filter_by_id &&
	    (!HAS(&r, MRC_RAIL_A_ID) || r.id != l->filter_id))
		return MNL_CB_OK;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 16;
		struct rail *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			nlerr_set(ENOMEM, NULL);
			return MNL_CB_ERROR;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = r;
	return MNL_CB_OK;
}

static int rail_cmp(const void *a, const void *b)
{
	const struct rail *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

static void rail_list_print(const struct rail_list *l)
{
	struct jw w;
	size_t i;

	if (opt.json) {
		jw_init(&w, out, opt.pretty);
		jw_arr_open(&w);
		for (i = 0; i < l->n; i++)
			rail_json(&w, &l->v[i], true);
		jw_arr_close(&w);
		return;
	}
	for (i = 0; i < l->n; i++)
		rail_print_plain(&l->v[i]);
}

static void usage_rail(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] rail [ show [ [dev] DEV | id ID ] ]\n"
		"       mrcctl rail help\n"
		"where  DEV := { IBDEV:PORT | IBDEV | NETDEV }\n"
		"\n"
		"Shows mrc's rails (one per RDMA device port): state, netdev,\n"
		"active MTU, speed, link layer and GID; with -s also the\n"
		"counters.  IBDEV:PORT (e.g. rxe0:1) names one rail, IBDEV\n"
		"(rxe0) all ports of a device, NETDEV (eth0) the rails on it.\n");
}

/* Get one rail by name or id (doit).  Returns 0, 1 (not found), -1. */
static int rail_get_one(struct rail_list *l, const char *name, u32 id)
{
	char buf[512];
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = genl_put(buf, mrc_family, MRC_CMD_RAIL_GET, MRC_GENL_VERSION,
		       NLM_F_ACK);
	nest = mnl_attr_nest_start(nlh, MRC_A_RAIL);
	if (name)
		mnl_attr_put_strz(nlh, MRC_RAIL_A_NAME, name);
	else
		mnl_attr_put_u32(nlh, MRC_RAIL_A_ID, id);
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, rail_list_cb, l) == 0)
		return 0;
	if (nlerr.err == ENODEV || nlerr.err == ENOENT)
		return 1;
	return -1;
}

static int rail_dump(struct rail_list *l)
{
	char buf[256];
	struct nlmsghdr *nlh;
	int tries;

	for (tries = 0; tries < 5; tries++) {
		nlh = genl_put(buf, mrc_family, MRC_CMD_RAIL_GET,
			       MRC_GENL_VERSION, NLM_F_DUMP);
		l->n = 0;
		if (nl_request(nlh, rail_list_cb, l) == 0)
			return 0;
		if (nlerr.err != EINTR)
			return -1;
		/* NLM_F_DUMP_INTR: rails changed under the dump; redo it
		 * on a fresh socket (the old one still holds the rest). */
		nl_close();
		if (nl_open())
			return -2;
	}
	return -1;
}

static int do_rail_show(int argc, char **argv)
{
	struct rail_list l = { 0 };
	const char *dev = NULL;
	bool by_id = false;
	unsigned long long id = 0;
	char *end;
	int ret;

	while (argc > 0) {
		if (!strcmp(argv[0], "dev") && argc > 1) {
			argc--;
			argv++;
			dev = argv[0];
		} else if (!strcmp(argv[0], "id") && argc > 1) {
			argc--;
			argv++;
			errno = 0;
			id = strtoull(argv[0], &end, 0);
			if (errno || *end || !*argv[0] || id > U32_MAX ||
			    argv[0][0] == '-') {
				fprintf(stderr, "Error: invalid rail id \"%s\"\n",
					argv[0]);
				return 1;
			}
			by_id = true;
		} else if (matches(argv[0], "help")) {
			usage_rail(stdout);
			return 0;
		} else if (!dev && !by_id && argv[0][0] != '-') {
			dev = argv[0];
		} else {
			fprintf(stderr,
				"Error: unexpected argument \"%s\", try \"mrcctl rail help\"\n",
				argv[0]);
			return 1;
		}
		argc--;
		argv++;
	}
	if (dev && by_id) {
		fprintf(stderr, "Error: give either DEV or id, not both\n");
		return 1;
	}
	if (mrc_connect())
		return 1;

	if (by_id || (dev && strchr(dev, ':'))) {
		if (dev && strlen(dev) >= MRC_RAIL_NAME_MAX)
			ret = 1;
		else
			ret = rail_get_one(&l, dev, (u32)id);
		/* A kernel without doit: fall back to dump + filter. */
		if (ret < 0 && nlerr.err == EOPNOTSUPP) {
			l.filter = dev;
			l.filter_by_id = by_id;
			l.filter_id = (u32)id;
			ret = rail_dump(&l);
		}
	} else {
		l.filter = dev;
		ret = rail_dump(&l);
	}
	if (ret < 0) {
		if (ret == -1)
			nlerr_print();
		free(l.v);
		return 1;
	}
	if (ret == 1 || ((dev || by_id) && !l.n)) {
		if (by_id)
			fprintf(stderr, "Error: no rail with id %llu\n", id);
		else
			fprintf(stderr, "Error: no rail matches \"%s\"\n", dev);
		free(l.v);
		return 1;
	}
	qsort(l.v, l.n, sizeof(*l.v), rail_cmp);
	rail_list_print(&l);
	free(l.v);
	return 0;
}

static int do_rail(int argc, char **argv)
{
	if (argc < 1 || matches(argv[0], "show") || matches(argv[0], "list"))
		return do_rail_show(argc ? argc - 1 : 0, argv + !!argc);
	if (matches(argv[0], "help")) {
		usage_rail(stdout);
		return 0;
	}
	fprintf(stderr,
		"Error: unknown command \"%s\", try \"mrcctl rail help\"\n",
		argv[0]);
	return 1;
}

/* ------------------------------------------------------------------ */
/* config                                                              */
/* ------------------------------------------------------------------ */

static void knob_range(const struct mrc_knob *k, char *buf, size_t sz)
{
	snprintf(buf, sz, "%u..%u%s", k->min, k->max,
		 (k->flags & MRC_KNOB_POW2) ? " (pow2)" : "");
}

static void known_keys(FILE *f, const char *sep)
{
	unsigned int i;

	for (i = 0; i < MRC_KNOB_NR; i++)
		fprintf(f, "%s%s", i ? sep : "", mrc_knobs[i].name);
}

static void usage_config(FILE *f)
{
	char range[64];
	unsigned int i;

	fprintf(f,
		"Usage: mrcctl [OPTIONS] config [ show [KEY...] ]\n"
		"       mrcctl config set KEY VALUE [KEY VALUE ...]\n"
		"       mrcctl config help\n"
		"where  KEY := { ");
	known_keys(f, " | ");
	fprintf(f,
		" }\n"
		"       VALUE := decimal or 0x hex, optional suffix K, M or G (x1024^n)\n"
		"\n"
		"Setting needs CAP_NET_ADMIN; the kernel checks ranges.  Keys:\n");
	for (i = 0; i < MRC_KNOB_NR; i++) {
		const struct mrc_knob *k = &mrc_knobs[i];

		knob_range(k, range, sizeof(range));
		fprintf(f, "  %-12s %s\n  %-12s range %s %s, default %u\n",
			k->name, k->help, "", range, k->unit, k->def);
	}
}

static int config_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mrc_msg m;

	if (nlh->nlmsg_type != mrc_family)
		return MNL_CB_OK;
	if (mrc_msg_parse(nlh, &m))
		return MNL_CB_ERROR;
	if (m.config && config_parse(m.config, data))
		return MNL_CB_ERROR;
	return MNL_CB_OK;
}

static void config_print(const struct cfgvals *cv, const bool *sel)
{
	static const char * const hdr[5] = {
		"NAME", "VALUE", "UNIT", "RANGE", "DEFAULT"
	};
	char cell[MRC_KNOB_NR][5][64];
	int w[5], i, c;
	struct jw jw;

	if (opt.json) {
		jw_init(&jw, out, opt.pretty);
		jw_arr_open(&jw);
		for (i = 0; i < MRC_KNOB_NR; i++) {
			const struct mrc_knob *k = &mrc_knobs[i];

			if (!sel[i])
				continue;
			jw_obj_open(&jw);
			jw_kv_str(&jw, "name", k->name);
			jw_key(&jw, "value");
			if (cv->has[i])
				jw_u64(&jw, cv->val[i]);
			else
				jw_null(&jw);
			jw_kv_str(&jw, "unit", k->unit);
			jw_kv_u64(&jw, "min", k->min);
			jw_kv_u64(&jw, "max", k->max);
			jw_kv_u64(&jw, "default", k->def);
			jw_key(&jw, "pow2");
			jw_bool(&jw, k->flags & MRC_KNOB_POW2);
			jw_obj_close(&jw);
		}
		jw_arr_close(&jw);
		return;
	}

	for (c = 0; c < 5; c++)
		w[c] = (int)strlen(hdr[c]);
	for (i = 0; i < MRC_KNOB_NR; i++) {
		const struct mrc_knob *k = &mrc_knobs[i];

		snprintf(cell[i][0], 64, "%s", k->name);
		if (cv->has[i])
			snprintf(cell[i][1], 64, "%u", cv->val[i]);
		else
			snprintf(cell[i][1], 64, "-");
		snprintf(cell[i][2], 64, "%s", k->unit);
		knob_range(k, cell[i][3], 64);
		snprintf(cell[i][4], 64, "%u", k->def);
		for (c = 0; c < 5 && sel[i]; c++)
			if ((int)strlen(cell[i][c]) > w[c])
				w[c] = (int)strlen(cell[i][c]);
	}
	for (c = 0; c < 4; c++)
		fprintf(out, "%-*s  ", w[c], hdr[c]);
	fprintf(out, "%s\n", hdr[4]);
	for (i = 0; i < MRC_KNOB_NR; i++) {
		if (!sel[i])
			continue;
		for (c = 0; c < 4; c++)
			fprintf(out, "%-*s  ", w[c], cell[i][c]);
		fprintf(out, "%s\n", cell[i][4]);
	}
}

static void unknown_key(const char *key)
{
	fprintf(stderr, "Error: unknown key \"%s\"; known keys: ", key);
	known_keys(stderr, ", ");
	fputc('\n', stderr);
}

static int do_config_show(int argc, char **argv)
{
	struct cfgvals cv = { 0 };
	bool sel[MRC_KNOB_NR];
	char buf[256];
	struct nlmsghdr *nlh;
	int i;

	for (i = 0; i < MRC_KNOB_NR; i++)
		sel[i] = !argc;
	for (i = 0; i < argc; i++) {
		const struct mrc_knob *k = mrc_knob_by_name(argv[i]);

		if (!k) {
			if (matches(argv[i], "help")) {
				usage_config(stdout);
				return 0;
			}
			unknown_key(argv[i]);
			return 1;
		}
		sel[k - mrc_knobs] = true;
	}
	if (mrc_connect())
		return 1;
	nlh = genl_put(buf, mrc_family, MRC_CMD_CONFIG_GET, MRC_GENL_VERSION,
		       NLM_F_ACK);
	if (nl_request(nlh, config_cb, &cv) < 0) {
		nlerr_print();
		return 1;
	}
	config_print(&cv, sel);
	return 0;
}

static int do_config_set(int argc, char **argv)
{
	const struct mrc_knob *ks[2 * MRC_KNOB_NR];
	u32 vals[2 * MRC_KNOB_NR];
	char buf[1024];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	unsigned int n = 0, j;
	int i, rc;
	u64 v;

	if (argc < 1) {
		fprintf(stderr,
			"Error: config set needs KEY VALUE, try \"mrcctl config help\"\n");
		return 1;
	}
	for (i = 0; i < argc; i += 2) {
		const struct mrc_knob *k = mrc_knob_by_name(argv[i]);

		if (!k) {
			unknown_key(argv[i]);
			return 1;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "Error: missing value for key \"%s\"\n",
				argv[i]);
			return 1;
		}
		for (j = 0; j < n; j++)
			if (ks[j] == k) {
				fprintf(stderr, "Error: key \"%s\" given twice\n",
					k->name);
				return 1;
			}
		rc = mrc_parse_u64(argv[i + 1], &v);
		if (rc == -ERANGE || (!rc && v > U32_MAX)) {
			/* An encoding limit (u32 attribute), not the range. */
			fprintf(stderr,
				"Error: value \"%s\" for key \"%s\" is too large (at most %u)\n",
				argv[i + 1], k->name, U32_MAX);
			return 1;
		}
		if (rc) {
			fprintf(stderr,
				"Error: invalid value \"%s\" for key \"%s\" (expected a number: decimal or 0x hex, optional suffix K, M or G)\n",
				argv[i + 1], k->name);
			return 1;
		}
		ks[n] = k;
		vals[n] = (u32)v;
		n++;
	}

	if (mrc_connect())
		return 1;
	nlh = genl_put(buf, mrc_family, MRC_CMD_CONFIG_SET, MRC_GENL_VERSION,
		       NLM_F_ACK);
	nest = mnl_attr_nest_start(nlh, MRC_A_CONFIG);
	req_nknobs = 0;
	for (j = 0; j < n; j++) {
		req_knobs[j].offs = (u32)((char *)mnl_nlmsg_get_payload_tail(nlh) -
					  (char *)nlh);
		req_knobs[j].k = ks[j];
		req_nknobs++;
		mnl_attr_put_u32(nlh, ks[j]->attr, vals[j]);
	}
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		nlerr_print();
		return 1;
	}
	return 0;
}

static int do_config(int argc, char **argv)
{
	if (argc < 1 || matches(argv[0], "show") || matches(argv[0], "list"))
		return do_config_show(argc ? argc - 1 : 0, argv + !!argc);
	if (matches(argv[0], "set") && strlen(argv[0]) >= 2)
		return do_config_set(argc - 1, argv + 1);
	if (matches(argv[0], "help")) {
		usage_config(stdout);
		return 0;
	}
	fprintf(stderr,
		"Error: unknown command \"%s\", try \"mrcctl config help\"\n",
		argv[0]);
	return 1;
}

/* ------------------------------------------------------------------ */
/* monitor                                                             */
/* ------------------------------------------------------------------ */

#define MON_RAIL	0x1
#define MON_CONFIG	0x2

static unsigned int mon_filter = MON_RAIL | MON_CONFIG;

/* Local time, ISO 8601 with microseconds, like "ip -ts monitor". */
static void timestamp_str(char *buf, size_t sz)
{
	struct timespec ts;
	struct tm tm;
	char date[24], zone[8];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	snprintf(buf, sz, "%s.%06d%s", date, (int)(ts.tv_nsec / 1000), zone);
}

static const char *event_name(u8 cmd)
{
	switch (cmd) {
	case MRC_CMD_RAIL_ADDED:
		return "rail_added";
	case MRC_CMD_RAIL_REMOVED:
		return "rail_removed";
	case MRC_CMD_RAIL_STATE:
		return "rail_state";
	case MRC_CMD_CONFIG_CHANGED:
		return "config";
	}
	return "unknown";
}

static void event_print_plain(u8 cmd, const struct rail *r,
			      const struct cfgvals *cv)
{
	const char *name = r && HAS(r, MRC_RAIL_A_NAME) ? r->name : "?";
	bool any = false;
	int i;

	switch (cmd) {
	case MRC_CMD_RAIL_ADDED:
		fprintf(out, "[rail added] %s", name);
		if (HAS(r, MRC_RAIL_A_NETDEV))
			fprintf(out, " netdev %s", r->netdev);
		if (HAS(r, MRC_RAIL_A_STATE))
			fprintf(out, " state %s", mrc_rail_state_name(r->state));
		break;
	case MRC_CMD_RAIL_REMOVED:
		fprintf(out, "[rail removed] %s", name);
		break;
	case MRC_CMD_RAIL_STATE:
		fprintf(out, "[rail state] %s %s -> %s", name,
			HAS(r, MRC_RAIL_A_PREV_STATE) ?
			mrc_rail_state_name(r->prev_state) : "?",
			HAS(r, MRC_RAIL_A_STATE) ?
			mrc_rail_state_name(r->state) : "?");
		break;
	case MRC_CMD_CONFIG_CHANGED:
		fprintf(out, "[config]");
		for (i = 0; i < MRC_KNOB_NR; i++)
			if (cv->has[i]) {
				fprintf(out, " %s %u", mrc_knobs[i].name,
					cv->val[i]);
				any = true;
			}
		if (!any)
			fprintf(out, " (unknown knobs)");
		break;
	default:
		fprintf(out, "[unknown event %u]", cmd);
	}
	fputc('\n', out);
}

static void event_print_json(u8 cmd, const char *ts, const struct rail *r,
			     const struct cfgvals *cv)
{
	struct jw w;
	int i;

	jw_init(&w, out, false);	/* one object per line, always */
	jw_obj_open(&w);
	if (ts)
		jw_kv_str(&w, "timestamp", ts);
	jw_kv_str(&w, "event", event_name(cmd));
	if (cmd == MRC_CMD_CONFIG_CHANGED) {
		jw_key(&w, "config");
		jw_obj_open(&w);
		for (i = 0; i < MRC_KNOB_NR; i++)
			if (cv->has[i])
				jw_kv_u64(&w, mrc_knobs[i].name, cv->val[i]);
		jw_obj_close(&w);
	} else if (r) {
		jw_key(&w, "rail");
		rail_json(&w, r, false);
	} else {
		jw_kv_u64(&w, "cmd", cmd);
	}
	jw_obj_close(&w);
}

/* Decodes and prints one event message.  0, or -1 (nlerr set). */
static int event_print(const struct nlmsghdr *nlh)
{
	struct cfgvals cv = { 0 };
	struct mrc_msg m;
	struct rail r;
	char ts[64];
	bool is_rail;

	if (mrc_msg_parse(nlh, &m))
		return -1;
	is_rail = m.cmd == MRC_CMD_RAIL_ADDED ||
		  m.cmd == MRC_CMD_RAIL_REMOVED || m.cmd == MRC_CMD_RAIL_STATE;
	if (is_rail && !(mon_filter & MON_RAIL))
		return 0;
	if (m.cmd == MRC_CMD_CONFIG_CHANGED && !(mon_filter & MON_CONFIG))
		return 0;
	if (is_rail) {
		if (!m.rail) {
			nlerr_set(EPROTO, "%s event without a rail",
				  event_name(m.cmd));
			return -1;
		}
		if (rail_parse(m.rail, &r))
			return -1;
	}
	if (m.cmd == MRC_CMD_CONFIG_CHANGED && m.config &&
	    config_parse(m.config, &cv))
		return -1;

	if (opt.timestamp)
		timestamp_str(ts, sizeof(ts));
	if (opt.json) {
		event_print_json(m.cmd, opt.timestamp ? ts : NULL,
				 is_rail ? &r : NULL, &cv);
	} else {
		if (opt.timestamp)
			fprintf(out, "[%s] ", ts);
		event_print_plain(m.cmd, is_rail ? &r : NULL, &cv);
	}
	fflush(out);
	return 0;
}

static int event_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)data;
	if (nlh->nlmsg_type != mrc_family)
		return MNL_CB_OK;
	if (event_print(nlh)) {
		/* A bad event is reported, not fatal. */
		char buf[1024];

		nlerr_format(&nlerr, buf, sizeof(buf));
		fprintf(stderr, "Warning: %s\n", buf + strlen("Error: "));
	}
	return MNL_CB_OK;
}

static void monitor_lost(void)
{
	char ts[64];
	struct jw w;

	if (opt.timestamp)
		timestamp_str(ts, sizeof(ts));
	if (opt.json) {
		jw_init(&w, out, false);
		jw_obj_open(&w);
		if (opt.timestamp)
			jw_kv_str(&w, "timestamp", ts);
		jw_kv_str(&w, "event", "warning");
		jw_kv_str(&w, "message",
			  "events lost: netlink receive buffer overrun (ENOBUFS)");
		jw_obj_close(&w);
	} else {
		if (opt.timestamp)
			fprintf(out, "[%s] ", ts);
		fprintf(out,
			"[warning] events lost: netlink receive buffer overrun (ENOBUFS)\n");
	}
	fflush(out);
}

static void usage_monitor(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] monitor [ all | rail | config ]\n"
		"       mrcctl monitor help\n"
		"\n"
		"Prints one line per event until interrupted:\n"
		"  [rail added] rxe2:1 netdev veth0 state active\n"
		"  [rail state] rxe1:1 active -> down\n"
		"  [rail removed] rxe1:1\n"
		"  [config] min_mtu 4096\n"
		"With -j one JSON object per line; with -t a timestamp.\n");
}

static int do_monitor(int argc, char **argv)
{
	unsigned int filter = 0;
	int grp;
	ssize_t n;

	for (; argc > 0; argc--, argv++) {
		if (matches(argv[0], "all")) {
			filter |= MON_RAIL | MON_CONFIG;
		} else if (matches(argv[0], "rail")) {
			filter |= MON_RAIL;
		} else if (matches(argv[0], "config")) {
			filter |= MON_CONFIG;
		} else if (matches(argv[0], "help")) {
			usage_monitor(stdout);
			return 0;
		} else {
			fprintf(stderr,
				"Error: unexpected argument \"%s\", try \"mrcctl monitor help\"\n",
				argv[0]);
			return 1;
		}
	}
	if (filter)
		mon_filter = filter;
	if (mrc_connect())
		return 1;
	if (!mrc_events_grp_found) {
		fprintf(stderr,
			"Error: family \"%s\" has no multicast group \"%s\"\n",
			MRC_GENL_NAME, MRC_GENL_MCGRP_EVENTS);
		return 1;
	}
	grp = (int)mrc_events_grp;
	if (mnl_socket_setsockopt(nl, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		fprintf(stderr, "Error: cannot join group \"%s\": %s\n",
			MRC_GENL_MCGRP_EVENTS, strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	for (;;) {
		n = mnl_socket_recvfrom(nl, rxbuf, sizeof(rxbuf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				monitor_lost();
				continue;
			}
			fprintf(stderr, "Error: receiving events: %s\n",
				strerror(errno));
			return 1;
		}
		/* Events carry seq 0 and portid 0: no tracking. */
		if (nl_run(rxbuf, n, 0, 0, event_cb, NULL) == MNL_CB_ERROR) {
			if (nlerr.err == ENOBUFS) {
				monitor_lost();
				continue;
			}
			nlerr_print();
			return 1;
		}
	}
}

/* ------------------------------------------------------------------ */
/* main                                                                */
/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] OBJECT { COMMAND | help }\n"
		"       mrcctl [OPTIONS] rail [ show [ [dev] DEV | id ID ] ]\n"
		"       mrcctl [OPTIONS] config [ show [KEY...] ]\n"
		"       mrcctl config set KEY VALUE [KEY VALUE ...]\n"
		"       mrcctl [OPTIONS] monitor [ all | rail | config ]\n"
		"       mrcctl help\n"
		"where  OBJECT := { rail | config | monitor | help }\n"
		"       DEV := { IBDEV:PORT | IBDEV | NETDEV }\n"
		"       KEY := { ");
	known_keys(f, " | ");
	fprintf(f,
		" }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -s[tats] | -t[imestamp] |\n"
		"                    -V[ersion] | -h[elp] }\n"
		"\n"
		"  -j, --json        JSON output (show: an array; monitor: one object per line)\n"
		"  -p, --pretty      indented JSON (implies -j; not for monitor)\n"
		"  -s, --stats       rail show: add the per-rail counters\n"
		"  -t, --timestamp   monitor: prefix events with the local time\n"
		"  -V, --version     print the version and exit\n"
		"  -h, --help        print this help and exit\n"
		"\n"
		"Commands and objects may be abbreviated (mrcctl r s).  See also\n"
		"\"mrcctl rail help\", \"mrcctl config help\", \"mrcctl monitor help\".\n");
}

#ifndef MRCCTL_SELFTEST
int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "stats", no_argument, NULL, 's' },
		{ "statistics", no_argument, NULL, 's' },
		{ "timestamp", no_argument, NULL, 't' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, ret;

	out = stdout;
	opterr = 0;
	/* "+": options end at the first non-option, as in iproute2. */
	while ((c = getopt_long(argc, argv, "+jpstVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt.json = true;
			break;
		case 'p':
			opt.pretty = true;
			opt.json = true;
			break;
		case 's':
			opt.stats = true;
			break;
		case 't':
			opt.timestamp = true;
			break;
		case 'V':
			printf("mrcctl %s (mrc netlink version %d)\n",
			       MRCCTL_VERSION, MRC_GENL_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (optopt)
				fprintf(stderr, "Error: unknown option \"-%c\"",
					optopt);
			else
				fprintf(stderr, "Error: unknown option \"%s\"",
					argv[optind - 1]);
			fprintf(stderr, ", try \"mrcctl --help\"\n");
			return 1;
		}
	}
	argc -= optind;
	argv += optind;

	if (argc < 1) {
		usage(stderr);
		return 1;
	}
	if (matches(argv[0], "rail")) {
		ret = do_rail(argc - 1, argv + 1);
	} else if (matches(argv[0], "config")) {
		ret = do_config(argc - 1, argv + 1);
	} else if (matches(argv[0], "monitor")) {
		ret = do_monitor(argc - 1, argv + 1);
	} else if (matches(argv[0], "help")) {
		usage(stdout);
		ret = 0;
	} else {
		fprintf(stderr,
			"Error: unknown object \"%s\", try \"mrcctl help\"\n",
			argv[0]);
		ret = 1;
	}
	nl_close();
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "Error: writing output: %s\n", strerror(errno));
		ret = 1;
	}
	return ret;
}
#endif /* !MRCCTL_SELFTEST */
