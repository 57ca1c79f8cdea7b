// SPDX-License-Identifier: GPL-2.0
/*
 * mrcctl - show and configure mrc (multipath RDMA transport) through its
 * generic netlink family "mrc" (uapi/linux/mrc.h).
 *
 *   mrcctl [OPTIONS] rail show [ [dev] DEV | id ID ]
 *   mrcctl [OPTIONS] peer show [ [node] NODE ]
 *   mrcctl [OPTIONS] peer add NODE addr ADDR[,ADDR...]
 *   mrcctl [OPTIONS] peer del NODE
 *   mrcctl [OPTIONS] config show [KEY...]
 *   mrcctl [OPTIONS] config set KEY VALUE [KEY VALUE ...]
 *   mrcctl [OPTIONS] monitor [ all | rail | config | peer | path ]
 *
 * Built on libmnl.  The knob table, value parser and enum names are shared
 * with the kernel module (mrc/core/config.c, mrc/core/names.c, and the drop reason
 * names of mrc/core/wire.c) so that both sides use the same words and the same
 * syntax.
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

#include "../mrc/core/config.h"
#include "../mrc/core/names.h"
#include "../mrc/core/wire.h"	/* mrc_drop_reason_name() */

#ifndef MRCCTL_VERSION
#define MRCCTL_VERSION "0.1"
#endif

/* Bitmasks below hold one bit per attribute / counter. */
_Static_assert(MRC_RAIL_A_MAX < 32, "rail attribute bitmask too small");
_Static_assert(MRC_RAIL_STAT_MAX < 32, "rail stat bitmask too small");
_Static_assert(MRC_DROP_NR <= 32, "drop reason bitmask too small");
_Static_assert(MRC_PEER_A_MAX < 32, "peer attribute bitmask too small");
_Static_assert(MRC_PATH_A_MAX < 32, "path attribute bitmask too small");

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

/* "Error: @what "@arg", try "mrcctl @obj help"".  Returns 1. */
static int try_help(const char *what, const char *arg, const char *obj)
{
	fprintf(stderr, "Error: %s \"%s\", try \"mrcctl %s help\"\n", what, arg,
		obj);
	return 1;
}

/* The last word of an object's dispatch: @cmd is "help", or unknown. */
static int help_or_unknown(const char *cmd, void (*usage)(FILE *f),
			   const char *obj)
{
	if (matches(cmd, "help")) {
		usage(stdout);
		return 0;
	}
	return try_help("unknown command", cmd, obj);
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

/*
 * The objects a show got, @n of @size bytes at @v, each printed by @show:
 * into a JSON array with -j, else as plain text (@w NULL).
 */
static void list_print(const void *v, size_t n, size_t size,
		       void (*show)(struct jw *w, const void *obj))
{
	struct jw w;
	size_t i;

	if (opt.json) {
		jw_init(&w, out, opt.pretty);
		jw_arr_open(&w);
	}
	for (i = 0; i < n; i++)
		show(opt.json ? &w : NULL, (const char *)v + i * size);
	if (opt.json)
		jw_arr_close(&w);
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

/*
 * Where each knob of the last CONFIG_SET request, or each address of the
 * last PEER_ADD, sits: an extended ACK's ATTR_OFFS then names the one the
 * kernel refused, "key min_mtu" or "address 10.0.0.1".
 */
#define REQ_LABELS_MAX	64
_Static_assert(2 * MRC_KNOB_NR <= REQ_LABELS_MAX, "too many knobs");
_Static_assert(MRC_PEER_MAX_ADDRS <= REQ_LABELS_MAX, "too many addresses");
static struct {
	u32 offs;
	char label[64];
} req_labels[REQ_LABELS_MAX];
static unsigned int req_nlabels;

/* Remembers that the next attribute put into @nlh is @label. */
static void req_label(const struct nlmsghdr *nlh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void req_label(const struct nlmsghdr *nlh, const char *fmt, ...)
{
	va_list ap;

	if (req_nlabels >= REQ_LABELS_MAX)
		return;
	req_labels[req_nlabels].offs =
		(u32)((const char *)mnl_nlmsg_get_payload_tail(nlh) -
		      (const char *)nlh);
	va_start(ap, fmt);
	vsnprintf(req_labels[req_nlabels].label,
		  sizeof(req_labels[req_nlabels].label), fmt, ap);
	va_end(ap);
	req_nlabels++;
}

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

/* A request of the mrc family. */
static struct nlmsghdr *mrc_put(void *buf, u8 cmd, u16 flags)
{
	return genl_put(buf, mrc_family, cmd, MRC_GENL_VERSION, flags);
}

/*
 * Dumps @cmd, feeding the replies to @cb; @reset empties @data before each
 * try.  NLM_F_DUMP_INTR (the objects changed under the dump) makes it start
 * again on a fresh socket (the old one still holds the rest).  Returns 0,
 * -1 with nlerr filled in, or -2 if no new socket (reported).
 */
static int mrc_dump(u8 cmd, mnl_cb_t cb, void *data, void (*reset)(void *))
{
	char buf[256];
	struct nlmsghdr *nlh;
	int tries;

	for (tries = 0; tries < 5; tries++) {
		nlh = mrc_put(buf, cmd, NLM_F_DUMP);
		reset(data);
		if (nl_request(nlh, cb, data) == 0)
			return 0;
		if (nlerr.err != EINTR)
			return -1;
		nl_close();
		if (nl_open())
			return -2;
	}
	return -1;
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
	/* Several keys or addresses: say which one was refused. */
	if (e->has_offs && req_nlabels > 1)
		for (i = 0; i < req_nlabels; i++)
			if (req_labels[i].offs == e->offs) {
				APPEND(" (%s)", req_labels[i].label);
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
	u32 id, port, ifindex, gid_index, mtu, speed, qps, weight;
	u8 link_layer, state, prev_state;
	u8 gid[16];
	char name[MRC_RAIL_NAME_MAX + 16];
	char ibdev[80];
	char netdev[80];
	u32 stats_present;		/* 1 << MRC_RAIL_STAT_* */
	u64 stats[MRC_RAIL_STAT_MAX + 1];
	u32 drops_present;		/* 1 << MRC_DROP_* */
	u64 drops[MRC_DROP_NR];		/* by enum mrc_drop_reason */
};

#define HAS(r, a)	(!!((r)->present & (1u << (a))))

struct cfgvals {
	bool has[MRC_KNOB_NR];
	u32 val[MRC_KNOB_NR];
};

struct mrc_msg {
	u8 cmd;
	const struct nlattr *nest[MRC_A_MAX + 1];	/* MRC_A_RAIL, ... */
};

static int bad_attr(const char *where, unsigned int type)
{
	nlerr_set(EPROTO, "malformed %s attribute %u from the kernel",
		  where, type);
	return MNL_CB_ERROR;
}

/*
 * Room for one more in the array @v of *@cap elements of @size bytes, @n
 * of them used: @v, or @v grown (to @first elements, then doubling), or
 * NULL with nlerr set and @v untouched.
 */
static void *grow(void *v, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t c;

	if (n < *cap)
		return v;
	c = *cap ? 2 * *cap : first;
	v = realloc(v, c * size);
	if (!v) {
		nlerr_set(ENOMEM, NULL);
		return NULL;
	}
	*cap = c;
	return v;
}

/* Counter @t (a u64 attribute) into @v[@t], its bit set in *@present. */
static int counter_attr(const struct nlattr *a, const char *where,
			unsigned int t, u64 *v, u32 *present)
{
	if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
		return bad_attr(where, t);
	v[t] = mnl_attr_get_u64(a);
	*present |= 1u << t;
	return MNL_CB_OK;
}

static int rail_stat_cb(const struct nlattr *a, void *data)
{
	struct rail *r = data;
	unsigned int t = mnl_attr_get_type(a);

	if (t == MRC_RAIL_STAT_UNSPEC || t == MRC_RAIL_STAT_PAD ||
	    t > MRC_RAIL_STAT_MAX)
		return MNL_CB_OK;	/* newer counters: ignored */
	return counter_attr(a, "rail stats", t, r->stats, &r->stats_present);
}

static int rail_drop_cb(const struct nlattr *a, void *data)
{
	struct rail *r = data;
	unsigned int t = mnl_attr_get_type(a);

	if (t == MRC_DROP_NONE || t >= MRC_DROP_NR)
		return MNL_CB_OK;	/* padding, newer reasons: ignored */
	return counter_attr(a, "rail drops", t, r->drops, &r->drops_present);
}

/* The nest @a (attribute @t of @where) through @cb.  0, or -1 (nlerr). */
static int nest_parse(const struct nlattr *a, const char *where,
		      unsigned int t, mnl_attr_cb_t cb, void *data)
{
	if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0) {
		bad_attr(where, t);
		return -1;
	}
	return mnl_attr_parse_nested(a, cb, data) < 0 ? -1 : 0;
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
	case MRC_RAIL_A_QPS:
		u32p = &r->qps;
		break;
	case MRC_RAIL_A_WEIGHT:
		u32p = &r->weight;
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
		if (nest_parse(a, "rail", t, rail_stat_cb, r))
			return MNL_CB_ERROR;
		break;
	case MRC_RAIL_A_DROPS:
		if (nest_parse(a, "rail", t, rail_drop_cb, r))
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

	if (t != MRC_A_RAIL && t != MRC_A_CONFIG && t != MRC_A_PEER &&
	    t != MRC_A_CLASS)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
		return bad_attr("top-level", t);
	m->nest[t] = a;
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

/*
 * For a request's reply callback: the top-level nest @type of @nlh in
 * *@nest, NULL if it has none or is no mrc message.  0, or -1 with nlerr
 * set if it is malformed.
 */
static int reply_nest(const struct nlmsghdr *nlh, unsigned int type,
		      const struct nlattr **nest)
{
	struct mrc_msg m;

	*nest = NULL;
	if (nlh->nlmsg_type != mrc_family)
		return 0;
	if (mrc_msg_parse(nlh, &m))
		return -1;
	*nest = m.nest[type];
	return 0;
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
	{ "errors", MRC_RAIL_STAT_RX_ERRORS },
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

static const struct stat_col stat_qp[] = {
	{ "errors", MRC_RAIL_STAT_QP_ERRORS },
	{ "recoveries", MRC_RAIL_STAT_QP_RECOVERIES },
};

/* RAIL_DOWN notices: sent about our other rails, received from peers. */
static const struct stat_col stat_notices[] = {
	{ "down_tx", MRC_RAIL_STAT_DOWN_NOTICES_TX },
	{ "down_rx", MRC_RAIL_STAT_DOWN_NOTICES_RX },
};

static const struct stat_col stat_events[] = {
	{ "state_changes", MRC_RAIL_STAT_STATE_CHANGES },
	{ "port_events", MRC_RAIL_STAT_PORT_EVENTS },
};

#define STAT_COLS_PER_ROW	6

static int col_width(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	return (int)(la > lb ? la : lb);
}

/*
 * Two lines, like "ip -s link": headers, then right-aligned values; more
 * than STAT_COLS_PER_ROW columns continue on further pairs of lines.
 */
static void stat_table(const char *label, const char *const *hdr,
		       char (*val)[24], size_t n)
{
	size_t i, j, k;

	for (i = 0; i < n; i += STAT_COLS_PER_ROW) {
		k = n - i < STAT_COLS_PER_ROW ? n - i : STAT_COLS_PER_ROW;
		fprintf(out, "    %-8s", i ? "" : label);
		for (j = i; j < i + k; j++)
			fprintf(out, " %*s", col_width(hdr[j], val[j]), hdr[j]);
		fprintf(out, "\n    %-8s", "");
		for (j = i; j < i + k; j++)
			fprintf(out, " %*s", col_width(hdr[j], val[j]), val[j]);
		fputc('\n', out);
	}
}

static void stat_row(const struct rail *r, const char *label,
		     const struct stat_col *c, size_t n)
{
	const char *hdr[8];
	char val[8][24];
	size_t i;

	for (i = 0; i < n && i < 8; i++) {
		hdr[i] = c[i].hdr;
		if (r->stats_present & (1u << c[i].id))
			snprintf(val[i], sizeof(val[i]), "%" PRIu64,
				 r->stats[c[i].id]);
		else
			snprintf(val[i], sizeof(val[i]), "-");
	}
	stat_table(label, hdr, val, i);
}

/* The non-zero per-reason drop counters; nothing if all are zero. */
static void drop_rows(const struct rail *r)
{
	const char *hdr[MRC_DROP_NR];
	char val[MRC_DROP_NR][24];
	size_t n = 0;
	unsigned int i;

	for (i = MRC_DROP_NONE + 1; i < MRC_DROP_NR; i++) {
		if (!(r->drops_present & (1u << i)) || !r->drops[i])
			continue;
		hdr[n] = mrc_drop_reason_name(i);
		if (!hdr[n])
			continue;
		snprintf(val[n], sizeof(val[n]), "%" PRIu64, r->drops[i]);
		n++;
	}
	if (n)
		stat_table("reasons:", hdr, val, n);
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
	if (HAS(r, MRC_RAIL_A_QPS))
		fprintf(out, "  qps %u", r->qps);
	if (HAS(r, MRC_RAIL_A_WEIGHT))
		fprintf(out, "  weight %u", r->weight);
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
		drop_rows(r);
		stat_row(r, "QP:", stat_qp, ARRAY_SIZE(stat_qp));
		stat_row(r, "notices:", stat_notices, ARRAY_SIZE(stat_notices));
		stat_row(r, "events:", stat_events, ARRAY_SIZE(stat_events));
	}
}

/*
 * "@key": { name: value, ... } of the counters @first..@last of @v that
 * have a @name (null where not in @present, or left out if !@all_keys).
 */
static void counters_json(struct jw *w, const char *key,
			  const char *(*name)(unsigned int), unsigned int first,
			  unsigned int last, const u64 *v, u32 present,
			  bool all_keys)
{
	unsigned int i;

	jw_key(w, key);
	jw_obj_open(w);
	for (i = first; i <= last; i++) {
		const char *n = name(i);

		if (!n)
			continue;
		if (present & (1u << i)) {
			jw_kv_u64(w, n, v[i]);
		} else if (all_keys) {
			jw_key(w, n);
			jw_null(w);
		}
	}
	jw_obj_close(w);
}

/*
 * One rail as a JSON object.  With @all_keys (show), every key is present
 * and absent values are null; otherwise (events) only what was sent.
 */
static void rail_json(struct jw *w, const struct rail *r, bool all_keys)
{
	char gid[INET6_ADDRSTRLEN];

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
	U32_KEY("qps", MRC_RAIL_A_QPS, r->qps);
	U32_KEY("weight", MRC_RAIL_A_WEIGHT, r->weight);
	STR_KEY("state", MRC_RAIL_A_STATE, mrc_rail_state_name(r->state));
	if (HAS(r, MRC_RAIL_A_PREV_STATE))
		jw_kv_str(w, "prev_state", mrc_rail_state_name(r->prev_state));
	if (opt.stats && (all_keys || r->stats_present))
		counters_json(w, "stats", mrc_rail_stat_name, 1,
			      MRC_RAIL_STAT_MAX, r->stats, r->stats_present,
			      all_keys);
	if (opt.stats && (all_keys || r->drops_present))
		counters_json(w, "drops", mrc_drop_reason_name,
			      MRC_DROP_NONE + 1, MRC_DROP_NR - 1, r->drops,
			      r->drops_present, all_keys);
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
	const struct nlattr *nest;
	struct rail r, *v;

	if (reply_nest(nlh, MRC_A_RAIL, &nest))
		return MNL_CB_ERROR;
	if (!nest)
		return MNL_CB_OK;
	if (rail_parse(nest, &r))
		return MNL_CB_ERROR;
	if (l->filter && !rail_match(&r, l->filter))
		return MNL_CB_OK;
	if (l->filter_by_id &&
	    (!HAS(&r, MRC_RAIL_A_ID) || r.id != l->filter_id))
		return MNL_CB_OK;
	v = grow(l->v, l->n, &l->cap, sizeof(*v), 16);
	if (!v)
		return MNL_CB_ERROR;
	l->v = v;
	l->v[l->n++] = r;
	return MNL_CB_OK;
}

static int rail_cmp(const void *a, const void *b)
{
	const struct rail *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* One rail of a show, into @w or (@w NULL) as plain text. */
static void rail_show(struct jw *w, const void *obj)
{
	if (w)
		rail_json(w, obj, true);
	else
		rail_print_plain(obj);
}

static void rail_list_print(const struct rail_list *l)
{
	list_print(l->v, l->n, sizeof(*l->v), rail_show);
}

static void usage_rail(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] rail [ show [ [dev] DEV | id ID ] ]\n"
		"       mrcctl rail set IBDEV:PORT weight W\n"
		"       mrcctl rail help\n"
		"where  DEV := { IBDEV:PORT | IBDEV | NETDEV }\n"
		"\n"
		"Shows mrc's rails (one per RDMA device port): state, netdev,\n"
		"active MTU, speed, link layer, UD QPs (entropy values) and GID;\n"
		"with -s also the counters and, under \"reasons:\", the received\n"
		"packets dropped by reason (only those not zero; -j lists all).\n"
		"IBDEV:PORT (e.g. rxe0:1) names one rail, IBDEV (rxe0) all ports\n"
		"of a device, NETDEV (eth0) the rails on it.\n");
}

/* Get one rail by name or id (doit).  Returns 0, 1 (not found), -1. */
static int rail_get_one(struct rail_list *l, const char *name, u32 id)
{
	char buf[512];
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	nlh = mrc_put(buf, MRC_CMD_RAIL_GET, NLM_F_ACK);
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

static void rail_list_reset(void *data)
{
	struct rail_list *l = data;

	l->n = 0;
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
			return try_help("unexpected argument", argv[0], "rail");
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
			ret = mrc_dump(MRC_CMD_RAIL_GET, rail_list_cb, &l,
				       rail_list_reset);
		}
	} else {
		l.filter = dev;
		ret = mrc_dump(MRC_CMD_RAIL_GET, rail_list_cb, &l,
			       rail_list_reset);
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
			fprintf(stderr, "Error: no rail matches \"%s\"\n",
				dev ? dev : "");
		free(l.v);
		return 1;
	}
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), rail_cmp);
	rail_list_print(&l);
	free(l.v);
	return 0;
}

static int do_rail_set(int argc, char **argv);

static int do_rail(int argc, char **argv)
{
	if (argc < 1 || matches(argv[0], "show") || matches(argv[0], "list"))
		return do_rail_show(argc ? argc - 1 : 0, argv + !!argc);
	if (matches(argv[0], "set") && strlen(argv[0]) >= 2)	/* sched */
		return do_rail_set(argc - 1, argv + 1);
	return help_or_unknown(argv[0], usage_rail, "rail");
}

/* ------------------------------------------------------------------ */
/* peer                                                                */
/* ------------------------------------------------------------------ */

/* Addresses kept per peer from a kernel message; more are ignored. */
#define PEER_ADDRS_KEPT	64

struct peer_addr {
	u8 len;				/* 4 (IPv4) or 16 (IPv6) */
	u8 a[16];
};

struct path {
	u32 present;			/* 1 << MRC_PATH_A_* */
	u64 v[MRC_PATH_A_MAX + 1];	/* the integer attributes */
	char rail[MRC_RAIL_NAME_MAX + 16];
};

struct peer {
	u32 present;			/* 1 << MRC_PEER_A_* */
	u32 node, paths_active;
	u32 policy, policy_now;		/* sched */
	u64 fallbacks, explores;
	unsigned int naddrs;
	struct peer_addr addrs[PEER_ADDRS_KEPT];
	struct path *paths;		/* malloc'ed; peer_free() */
	size_t npaths, cap;
	u32 credit_present;		/* 1 << MRC_CREDIT_STAT_* */
	u64 credit[MRC_CREDIT_STAT_MAX + 1];	/* MRC_PEER_A_CREDIT */
};

#define PHAS(p, a)	(!!((p)->present & (1u << (a))))

/* How each path attribute is read; MNL_TYPE_UNSPEC: not stored. */
static const u8 path_attr_type[MRC_PATH_A_MAX + 1] = {
	[MRC_PATH_A_PLANE]		= MNL_TYPE_U32,
	[MRC_PATH_A_RAIL]		= MNL_TYPE_NUL_STRING,
	[MRC_PATH_A_ENTROPY]		= MNL_TYPE_U32,
	[MRC_PATH_A_LOCAL_QPN]		= MNL_TYPE_U32,
	[MRC_PATH_A_REMOTE_QPN]		= MNL_TYPE_U32,
	[MRC_PATH_A_STATE]		= MNL_TYPE_U8,
	[MRC_PATH_A_SRTT_US]		= MNL_TYPE_U32,
	[MRC_PATH_A_RTO_US]		= MNL_TYPE_U32,
	[MRC_PATH_A_INFLIGHT]		= MNL_TYPE_U32,
	[MRC_PATH_A_TX_PKTS]		= MNL_TYPE_U64,
	[MRC_PATH_A_ACKED_PKTS]		= MNL_TYPE_U64,
	[MRC_PATH_A_LOST_PKTS]		= MNL_TYPE_U64,
	[MRC_PATH_A_PROBES]		= MNL_TYPE_U64,
	[MRC_PATH_A_REPLIES]		= MNL_TYPE_U64,
	[MRC_PATH_A_TIMEOUTS]		= MNL_TYPE_U64,
	[MRC_PATH_A_STATE_CHANGES]	= MNL_TYPE_U64,
	[MRC_PATH_A_PREV_STATE]		= MNL_TYPE_U8,
	[MRC_PATH_A_INFLIGHT_BYTES]	= MNL_TYPE_U64,
	[MRC_PATH_A_TX_BYTES]		= MNL_TYPE_U64,
	[MRC_PATH_A_WEIGHT]		= MNL_TYPE_U32,
};

static void peer_free(struct peer *p)
{
	free(p->paths);
	p->paths = NULL;
	p->npaths = p->cap = 0;
}

static int path_attr_cb(const struct nlattr *a, void *data)
{
	struct path *pa = data;
	unsigned int t = mnl_attr_get_type(a);
	enum mnl_attr_data_type type;

	if (t > MRC_PATH_A_MAX || !path_attr_type[t])
		return MNL_CB_OK;	/* PAD, UNSPEC and newer attributes */
	type = path_attr_type[t];
	if (mnl_attr_validate(a, type) < 0)
		return bad_attr("path", t);
	switch (type) {
	case MNL_TYPE_U8:
		pa->v[t] = mnl_attr_get_u8(a);
		break;
	case MNL_TYPE_U32:
		pa->v[t] = mnl_attr_get_u32(a);
		break;
	case MNL_TYPE_U64:
		pa->v[t] = mnl_attr_get_u64(a);
		break;
	default:
		snprintf(pa->rail, sizeof(pa->rail), "%s", mnl_attr_get_str(a));
	}
	pa->present |= 1u << t;
	return MNL_CB_OK;
}

static int peer_addr_cb(const struct nlattr *a, void *data)
{
	struct peer *p = data;
	unsigned int t = mnl_attr_get_type(a);
	u16 len = mnl_attr_get_payload_len(a);

	if (t != MRC_PEER_A_ADDR)
		return MNL_CB_OK;
	if (len != 4 && len != 16)
		return bad_attr("peer address", t);
	if (p->naddrs < PEER_ADDRS_KEPT) {
		p->addrs[p->naddrs].len = (u8)len;
		memcpy(p->addrs[p->naddrs].a, mnl_attr_get_payload(a), len);
		p->naddrs++;
	}
	return MNL_CB_OK;
}

/* One u64 of the MRC_PEER_A_CREDIT nest. */
static int peer_credit_cb(const struct nlattr *a, void *data)
{
	struct peer *p = data;
	unsigned int t = mnl_attr_get_type(a);

	if (t <= MRC_CREDIT_STAT_PAD || t > MRC_CREDIT_STAT_MAX)
		return MNL_CB_OK;	/* PAD, UNSPEC and newer counters */
	if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
		return bad_attr("peer credit", t);
	p->credit[t] = mnl_attr_get_u64(a);
	p->credit_present |= 1u << t;
	return MNL_CB_OK;
}

static int peer_attr_cb(const struct nlattr *a, void *data)
{
	struct peer *p = data;
	unsigned int t = mnl_attr_get_type(a);
	struct path *pa;

	switch (t) {
	case MRC_PEER_A_NODE:
	case MRC_PEER_A_PATHS_ACTIVE:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return bad_attr("peer", t);
		if (t == MRC_PEER_A_NODE)
			p->node = mnl_attr_get_u32(a);
		else
			p->paths_active = mnl_attr_get_u32(a);
		break;
	case MRC_PEER_A_POLICY:		/* sched */
	case MRC_PEER_A_POLICY_NOW:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return bad_attr("peer", t);
		if (t == MRC_PEER_A_POLICY)
			p->policy = mnl_attr_get_u32(a);
		else
			p->policy_now = mnl_attr_get_u32(a);
		break;
	case MRC_PEER_A_FALLBACKS:
	case MRC_PEER_A_EXPLORES:
		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			return bad_attr("peer", t);
		if (t == MRC_PEER_A_FALLBACKS)
			p->fallbacks = mnl_attr_get_u64(a);
		else
			p->explores = mnl_attr_get_u64(a);
		break;
	case MRC_PEER_A_ADDRS:
		if (nest_parse(a, "peer", t, peer_addr_cb, p))
			return MNL_CB_ERROR;
		break;
	case MRC_PEER_A_CREDIT:
		if (nest_parse(a, "peer", t, peer_credit_cb, p))
			return MNL_CB_ERROR;
		break;
	case MRC_PEER_A_PATH:
		if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0)
			return bad_attr("peer", t);
		pa = grow(p->paths, p->npaths, &p->cap, sizeof(*pa), 16);
		if (!pa)
			return MNL_CB_ERROR;
		p->paths = pa;
		pa = &p->paths[p->npaths];
		memset(pa, 0, sizeof(*pa));
		if (mnl_attr_parse_nested(a, path_attr_cb, pa) < 0)
			return MNL_CB_ERROR;
		p->npaths++;
		break;
	default:
		return MNL_CB_OK;	/* PAD, UNSPEC and newer attributes */
	}
	p->present |= 1u << t;
	return MNL_CB_OK;
}

/* 0, or -1 with nlerr set; peer_free() @p in both cases. */
static int peer_parse(const struct nlattr *nest, struct peer *p)
{
	memset(p, 0, sizeof(*p));
	return mnl_attr_parse_nested(nest, peer_attr_cb, p) < 0 ? -1 : 0;
}

static const char *addr_str(const struct peer_addr *pa, char *buf, size_t sz)
{
	if (!inet_ntop(pa->len == 4 ? AF_INET : AF_INET6, pa->a, buf, sz))
		snprintf(buf, sz, "?");
	return buf;
}

/* "node 2", "node ?" if unknown. */
static void node_print(const struct peer *p)
{
	fprintf(out, "node ");
	if (PHAS(p, MRC_PEER_A_NODE))
		fprintf(out, "%u", p->node);
	else
		fputc('?', out);
}

/* "10.200.0.2,10.200.1.2" */
static void addrs_print(const struct peer *p)
{
	char buf[INET6_ADDRSTRLEN];
	unsigned int i;

	for (i = 0; i < p->naddrs; i++)
		fprintf(out, "%s%s", i ? "," : "",
			addr_str(&p->addrs[i], buf, sizeof(buf)));
}

/* Order in which paths are listed: plane, rail, entropy value. */
static int path_cmp(const void *a, const void *b)
{
	const struct path *x = a, *y = b;
	int c;

	if (x->v[MRC_PATH_A_PLANE] != y->v[MRC_PATH_A_PLANE])
		return x->v[MRC_PATH_A_PLANE] < y->v[MRC_PATH_A_PLANE] ? -1 : 1;
	c = strcmp(x->rail, y->rail);
	if (c)
		return c;
	if (x->v[MRC_PATH_A_ENTROPY] != y->v[MRC_PATH_A_ENTROPY])
		return x->v[MRC_PATH_A_ENTROPY] < y->v[MRC_PATH_A_ENTROPY] ?
		       -1 : 1;
	return 0;
}

/* A duration in microseconds, short: 812us, 1.25ms, 12.5ms, 1.50s. */
static void fmt_us(char *buf, size_t sz, u64 us)
{
	if (us < 1000)
		snprintf(buf, sz, "%" PRIu64 "us", us);
	else if (us < 10000)
		snprintf(buf, sz, "%.2fms", us / 1000.0);
	else if (us < 1000000)
		snprintf(buf, sz, "%.1fms", us / 1000.0);
	else
		snprintf(buf, sz, "%.2fs", us / 1000000.0);
}

/* The table of paths: which attribute each column shows and how. */
enum { PC_NUM, PC_STR, PC_STATE, PC_US, PC_SHARE };

/* sched: tx bytes of all the paths of the peer being printed (SHARE). */
static u64 share_total;
static const char *sched_policy_name(u64 v);

static const struct path_col {
	const char *hdr;
	unsigned int attr;
	u8 how;
	bool stats;		/* only with -s */
	bool if_sent;		/* only if some path has it (newer kernels) */
} path_cols[] = {
	{ "PLANE", MRC_PATH_A_PLANE, PC_NUM, false, false },
	{ "RAIL", MRC_PATH_A_RAIL, PC_STR, false, false },
	{ "EV", MRC_PATH_A_ENTROPY, PC_NUM, false, false },
	{ "LQPN", MRC_PATH_A_LOCAL_QPN, PC_NUM, false, false },
	{ "RQPN", MRC_PATH_A_REMOTE_QPN, PC_NUM, false, false },
	{ "STATE", MRC_PATH_A_STATE, PC_STATE, false, false },
	{ "SRTT", MRC_PATH_A_SRTT_US, PC_US, false, false },
	{ "RTO", MRC_PATH_A_RTO_US, PC_US, false, false },
	{ "INFLIGHT", MRC_PATH_A_INFLIGHT, PC_NUM, false, false },
	{ "TX", MRC_PATH_A_TX_PKTS, PC_NUM, true, false },
	{ "ACKED", MRC_PATH_A_ACKED_PKTS, PC_NUM, true, false },
	{ "LOST", MRC_PATH_A_LOST_PKTS, PC_NUM, true, false },
	{ "PROBES", MRC_PATH_A_PROBES, PC_NUM, true, false },
	{ "REPLIES", MRC_PATH_A_REPLIES, PC_NUM, true, false },
	{ "TIMEOUTS", MRC_PATH_A_TIMEOUTS, PC_NUM, true, false },
	{ "CHANGES", MRC_PATH_A_STATE_CHANGES, PC_NUM, true, false },
	/* sched: share of the peer's bytes sent, load, weight */
	{ "SHARE", MRC_PATH_A_TX_BYTES, PC_SHARE, false, true },
	{ "INFL_BYTES", MRC_PATH_A_INFLIGHT_BYTES, PC_NUM, false, true },
	{ "WEIGHT", MRC_PATH_A_WEIGHT, PC_NUM, true, true },
	{ "TX_BYTES", MRC_PATH_A_TX_BYTES, PC_NUM, true, true },
};

#define PATH_NCOLS	ARRAY_SIZE(path_cols)

static void path_cell(const struct path *pa, const struct path_col *c,
		      char *buf, size_t sz)
{
	u64 v = pa->v[c->attr];

	if (!PHAS(pa, c->attr)) {
		snprintf(buf, sz, "-");
		return;
	}
	switch (c->how) {
	case PC_STR:
		snprintf(buf, sz, "%s", pa->rail);
		break;
	case PC_STATE:
		snprintf(buf, sz, "%s", mrc_path_state_uapi_name((unsigned int)v));
		break;
	case PC_US:
		fmt_us(buf, sz, v);
		break;
	case PC_SHARE:	/* this path's part of the peer's bytes sent */
		snprintf(buf, sz, "%.1f%%",
			 share_total ? 100.0 * v / share_total : 0.0);
		break;
	default:
		snprintf(buf, sz, "%" PRIu64, v);
	}
}

static void share_total_set(const struct peer *p)
{
	size_t i;

	share_total = 0;
	for (i = 0; i < p->npaths; i++)
		share_total += p->paths[i].v[MRC_PATH_A_TX_BYTES];
}

/* Credit counters of the peer as sender (tx) and receiver (rx). */
static const unsigned int credit_tx_cols[] = {
	MRC_CREDIT_STAT_TX_UNSCHED_BYTES, MRC_CREDIT_STAT_TX_SCHED_BYTES,
	MRC_CREDIT_STAT_TX_MSGS_SCHED, MRC_CREDIT_STAT_TX_MSGS_CHAINED,
	MRC_CREDIT_STAT_REQUESTS_TX,
	MRC_CREDIT_STAT_GRANTS_RX, MRC_CREDIT_STAT_GRANTS_DUP,
	MRC_CREDIT_STAT_GRANTS_STALE, MRC_CREDIT_STAT_GRANTS_BAD,
	MRC_CREDIT_STAT_WAIT_US,
};
static const unsigned int credit_rx_cols[] = {
	MRC_CREDIT_STAT_RX_UNSCHED_BYTES, MRC_CREDIT_STAT_RX_SCHED_BYTES,
	MRC_CREDIT_STAT_REQUESTS_RX, MRC_CREDIT_STAT_REQUESTS_BAD,
	MRC_CREDIT_STAT_REQUESTS_STALE,
	MRC_CREDIT_STAT_GRANTS_TX, MRC_CREDIT_STAT_GRANTS_RESENT,
	MRC_CREDIT_STAT_GRANTED_BYTES, MRC_CREDIT_STAT_OVER_CREDIT,
};

static void credit_row(const struct peer *p, const char *label,
		       const unsigned int *cols, size_t n)
{
	const char *hdr[MRC_CREDIT_STAT_MAX];
	char val[MRC_CREDIT_STAT_MAX][24];
	size_t i;

	for (i = 0; i < n && i < MRC_CREDIT_STAT_MAX; i++) {
		hdr[i] = mrc_credit_stat_name(cols[i]);
		if (p->credit_present & (1u << cols[i]))
			snprintf(val[i], sizeof(val[i]), "%" PRIu64,
				 p->credit[cols[i]]);
		else
			snprintf(val[i], sizeof(val[i]), "-");
	}
	stat_table(label, hdr, val, i);
}

static unsigned int peer_count_active(const struct peer *p)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < p->npaths; i++)
		n += PHAS(&p->paths[i], MRC_PATH_A_STATE) &&
		     p->paths[i].v[MRC_PATH_A_STATE] == MRC_PATH_STATE_ACTIVE;
	return n;
}

/*
 * node 2  planes 2  paths 16 (active 16)
 *     addrs 10.200.0.2,10.200.1.2
 *     PLANE  RAIL    EV  LQPN  RQPN  STATE   SRTT   RTO     INFLIGHT
 *     0      rxe0:1  0   17    18    active  812us  10.0ms  0
 */
static void peer_print_plain(const struct peer *p)
{
	size_t ncols = 0, i, c, col[PATH_NCOLS];
	int w[PATH_NCOLS];
	char cell[sizeof(((struct path *)0)->rail)];

	node_print(p);
	fprintf(out, "  planes %u  paths %zu (active %u)\n", p->naddrs,
		p->npaths, PHAS(p, MRC_PEER_A_PATHS_ACTIVE) ?
		p->paths_active : peer_count_active(p));
	if (p->naddrs) {
		fprintf(out, "    addrs ");
		addrs_print(p);
		fputc('\n', out);
	}
	if (opt.stats && p->credit_present) {
		credit_row(p, "credtx:", credit_tx_cols,
			   ARRAY_SIZE(credit_tx_cols));
		credit_row(p, "credrx:", credit_rx_cols,
			   ARRAY_SIZE(credit_rx_cols));
	}
	if (PHAS(p, MRC_PEER_A_POLICY_NOW))	/* sched */
		fprintf(out, "    policy %s (%s)  fallbacks %" PRIu64
			"  explores %" PRIu64 "\n",
			sched_policy_name(p->policy_now),
			PHAS(p, MRC_PEER_A_POLICY) ? "peer" : "knob",
			p->fallbacks, p->explores);
	if (!p->npaths)
		return;
	share_total_set(p);

	for (c = 0; c < PATH_NCOLS; c++) {
		bool sent = !path_cols[c].if_sent;

		for (i = 0; i < p->npaths && !sent; i++)
			sent = PHAS(&p->paths[i], path_cols[c].attr);
		if (sent && (opt.stats || !path_cols[c].stats))
			col[ncols++] = c;
	}
	for (c = 0; c < ncols; c++)
		w[c] = (int)strlen(path_cols[col[c]].hdr);
	for (i = 0; i < p->npaths; i++)
		for (c = 0; c < ncols; c++) {
			path_cell(&p->paths[i], &path_cols[col[c]], cell,
				  sizeof(cell));
			if ((int)strlen(cell) > w[c])
				w[c] = (int)strlen(cell);
		}
	fprintf(out, "   ");
	for (c = 0; c < ncols; c++)
		fprintf(out, " %-*s%s", c + 1 < ncols ? w[c] : 0,
			path_cols[col[c]].hdr, c + 1 < ncols ? " " : "\n");
	for (i = 0; i < p->npaths; i++) {
		fprintf(out, "   ");
		for (c = 0; c < ncols; c++) {
			path_cell(&p->paths[i], &path_cols[col[c]], cell,
				  sizeof(cell));
			fprintf(out, " %-*s%s", c + 1 < ncols ? w[c] : 0, cell,
				c + 1 < ncols ? " " : "\n");
		}
	}
}

/* JSON keys of the path attributes, in output order. */
static const struct {
	const char *key;
	unsigned int attr;
} path_keys[] = {
	{ "plane", MRC_PATH_A_PLANE },
	{ "rail", MRC_PATH_A_RAIL },
	{ "entropy", MRC_PATH_A_ENTROPY },
	{ "local_qpn", MRC_PATH_A_LOCAL_QPN },
	{ "remote_qpn", MRC_PATH_A_REMOTE_QPN },
	{ "state", MRC_PATH_A_STATE },
	{ "srtt_us", MRC_PATH_A_SRTT_US },
	{ "rto_us", MRC_PATH_A_RTO_US },
	{ "inflight", MRC_PATH_A_INFLIGHT },
	{ "tx_pkts", MRC_PATH_A_TX_PKTS },
	{ "acked_pkts", MRC_PATH_A_ACKED_PKTS },
	{ "lost_pkts", MRC_PATH_A_LOST_PKTS },
	{ "probes", MRC_PATH_A_PROBES },
	{ "replies", MRC_PATH_A_REPLIES },
	{ "timeouts", MRC_PATH_A_TIMEOUTS },
	{ "state_changes", MRC_PATH_A_STATE_CHANGES },
	{ "inflight_bytes", MRC_PATH_A_INFLIGHT_BYTES },
	{ "tx_bytes", MRC_PATH_A_TX_BYTES },
	{ "weight", MRC_PATH_A_WEIGHT },
};

static void path_json(struct jw *w, const struct path *pa, bool all_keys)
{
	unsigned int i, t;

	jw_obj_open(w);
	for (i = 0; i < ARRAY_SIZE(path_keys); i++) {
		t = path_keys[i].attr;
		if (!PHAS(pa, t)) {
			/* sched's keys only when sent (newer kernels) */
			if (all_keys && t <= MRC_PATH_A_PREV_STATE) {
				jw_key(w, path_keys[i].key);
				jw_null(w);
			}
			continue;
		}
		if (t == MRC_PATH_A_RAIL)
			jw_kv_str(w, path_keys[i].key, pa->rail);
		else if (t == MRC_PATH_A_STATE)
			jw_kv_str(w, path_keys[i].key,
				  mrc_path_state_uapi_name((unsigned int)pa->v[t]));
		else
			jw_kv_u64(w, path_keys[i].key, pa->v[t]);
	}
	if (PHAS(pa, MRC_PATH_A_PREV_STATE))
		jw_kv_str(w, "prev_state",
			  mrc_path_state_uapi_name(
				(unsigned int)pa->v[MRC_PATH_A_PREV_STATE]));
	jw_obj_close(w);
}

/*
 * One peer as a JSON object.  With @all_keys (show), every key is present
 * and absent values are null; otherwise (events) only what was sent.
 */
static void peer_json(struct jw *w, const struct peer *p, bool all_keys)
{
	char buf[INET6_ADDRSTRLEN];
	unsigned int i;
	size_t j;

	jw_obj_open(w);
	if (PHAS(p, MRC_PEER_A_NODE))
		jw_kv_u64(w, "node", p->node);
	else if (all_keys)
		jw_kv_str(w, "node", NULL);
	if (PHAS(p, MRC_PEER_A_ADDRS)) {
		jw_key(w, "addrs");
		jw_arr_open(w);
		for (i = 0; i < p->naddrs; i++)
			jw_str(w, addr_str(&p->addrs[i], buf, sizeof(buf)));
		jw_arr_close(w);
	} else if (all_keys) {
		jw_kv_str(w, "addrs", NULL);
	}
	if (PHAS(p, MRC_PEER_A_PATHS_ACTIVE))
		jw_kv_u64(w, "paths_active", p->paths_active);
	else if (all_keys)
		jw_kv_str(w, "paths_active", NULL);
	if (PHAS(p, MRC_PEER_A_POLICY_NOW)) {	/* sched */
		jw_kv_str(w, "policy", sched_policy_name(p->policy_now));
		jw_kv_str(w, "policy_from",
			  PHAS(p, MRC_PEER_A_POLICY) ? "peer" : "knob");
		jw_kv_u64(w, "fallbacks", p->fallbacks);
		jw_kv_u64(w, "explores", p->explores);
	}
	/* Only when the kernel sent it (kernels before credits do not). */
	if (PHAS(p, MRC_PEER_A_CREDIT))
		counters_json(w, "credit", mrc_credit_stat_name,
			      MRC_CREDIT_STAT_PAD + 1, MRC_CREDIT_STAT_MAX,
			      p->credit, p->credit_present, all_keys);
	if (p->npaths || all_keys) {
		jw_key(w, "paths");
		jw_arr_open(w);
		for (j = 0; j < p->npaths; j++)
			path_json(w, &p->paths[j], all_keys);
		jw_arr_close(w);
	}
	jw_obj_close(w);
}

struct peer_list {
	struct peer *v;
	size_t n, cap;
};

static void peer_list_free(struct peer_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		peer_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static int peer_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct peer_list *l = data;
	const struct nlattr *nest;
	struct peer p, *v;

	if (reply_nest(nlh, MRC_A_PEER, &nest))
		return MNL_CB_ERROR;
	if (!nest)
		return MNL_CB_OK;
	if (peer_parse(nest, &p)) {
		peer_free(&p);
		return MNL_CB_ERROR;
	}
	v = grow(l->v, l->n, &l->cap, sizeof(*v), 8);
	if (!v) {
		peer_free(&p);
		return MNL_CB_ERROR;
	}
	l->v = v;
	if (p.npaths > 1)
		qsort(p.paths, p.npaths, sizeof(*p.paths), path_cmp);
	l->v[l->n++] = p;
	return MNL_CB_OK;
}

static int peer_cmp(const void *a, const void *b)
{
	const struct peer *x = a, *y = b;

	return x->node < y->node ? -1 : x->node > y->node;
}

/* One peer of a show, into @w or (@w NULL) as plain text. */
static void peer_show(struct jw *w, const void *obj)
{
	if (w)
		peer_json(w, obj, true);
	else
		peer_print_plain(obj);
}

static void peer_list_print(const struct peer_list *l)
{
	list_print(l->v, l->n, sizeof(*l->v), peer_show);
}

static void usage_peer(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] peer [ show [ [node] NODE ] ]\n"
		"       mrcctl peer add [node] NODE addr ADDR[,ADDR...]\n"
		"       mrcctl peer del [node] NODE\n"
		"       mrcctl peer set [node] NODE policy POLICY\n"
		"       mrcctl peer help\n"
		"where  NODE := the peer's node id, 1..%u (decimal or 0x hex)\n"
		"       ADDR := IPv4 or IPv6 address of the peer on one plane;\n"
		"               one per plane, in plane order, at most %u\n"
		"\n"
		"A peer is another node, known by its node id (the node_id knob\n"
		"on that node; ours must be set first) and one address per plane.\n"
		"mrc keeps a path for each (local rail, plane, entropy value) and\n"
		"probes it.  show lists the peers with a table of their paths:\n"
		"  PLANE RAIL EV LQPN RQPN STATE SRTT RTO INFLIGHT\n"
		"(EV the entropy value, LQPN/RQPN the local and remote UD QPN,\n"
		"INFLIGHT packets in flight); with -s also the path counters\n"
		"  TX ACKED LOST PROBES REPLIES TIMEOUTS CHANGES\n"
		"Path states: probing, active, assumed-bad, dead, denied,\n"
		"unresolved.  add and del need CAP_NET_ADMIN.\n",
		0x7fffffffu, MRC_PEER_MAX_ADDRS);
}

/*
 * Parses a node id: 1..0x7fffffff, decimal or 0x hex, nothing else.
 * 0, or -1 with the reason in @err.
 */
static int parse_node(const char *s, u32 *node, char *err, size_t errsz)
{
	unsigned long long v;
	char *end;

	/* No sign, no blanks, no octal: a digit first, "0" only before x. */
	errno = 0;
	v = strtoull(s, &end, 0);
	if (*s < '0' || *s > '9' || errno || *end || !v || v > 0x7fffffffULL ||
	    (s[0] == '0' && s[1] != 'x' && s[1] != 'X')) {
		snprintf(err, errsz,
			 "invalid node id \"%s\" (expected 1..%u)", s,
			 0x7fffffffu);
		return -1;
	}
	*node = (u32)v;
	return 0;
}

/*
 * Appends the comma-separated addresses of @list to @v (holding *@n, at
 * most @max).  0, or -1 with the reason in @err.
 */
static int parse_addrs(const char *list, struct peer_addr *v, unsigned int *n,
		       unsigned int max, char *err, size_t errsz)
{
	char tok[INET6_ADDRSTRLEN + 8];
	const char *p = list, *comma;
	size_t len;

	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (*n >= max) {
			snprintf(err, errsz,
				 "too many addresses (at most %u, one per plane)",
				 max);
			return -1;
		}
		if (len >= sizeof(tok))
			len = sizeof(tok) - 1;	/* too long: refused below */
		memcpy(tok, p, len);
		tok[len] = '\0';
		if (inet_pton(AF_INET, tok, v[*n].a) == 1) {
			v[*n].len = 4;
		} else if (inet_pton(AF_INET6, tok, v[*n].a) == 1) {
			v[*n].len = 16;
		} else {
			snprintf(err, errsz,
				 "invalid address \"%.*s\" (expected IPv4 or IPv6)",
				 comma ? (int)(comma - p) : (int)strlen(p), p);
			return -1;
		}
		(*n)++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

/*
 * The error of a peer command: the kernel's extended ACK if it sent one,
 * else a word on the errors peer commands get, else strerror.
 */
static void peer_err_format(u32 node, bool have_node, char *buf, size_t sz)
{
	if (!nlerr.has_msg && nlerr.err == EOPNOTSUPP)
		snprintf(buf, sz,
			 "Error: the loaded mrc module has no peer commands (older module?)");
	else if (!nlerr.has_msg && have_node && nlerr.err == ENOENT)
		snprintf(buf, sz, "Error: no peer with node id %u", node);
	else if (!nlerr.has_msg && have_node && nlerr.err == EEXIST)
		snprintf(buf, sz, "Error: peer %u exists already", node);
	else
		nlerr_format(&nlerr, buf, sz);
}

static void peer_err_print(u32 node, bool have_node)
{
	char buf[1024];

	peer_err_format(node, have_node, buf, sizeof(buf));
	fprintf(stderr, "%s\n", buf);
}

/* Optional "node" keyword, then NODE.  Consumes them; 0 or 1 (reported). */
static int take_node(int *argc, char ***argv, const char *cmd, u32 *node)
{
	char err[128];

	if (*argc > 0 && !strcmp((*argv)[0], "node")) {
		(*argc)--;
		(*argv)++;
	}
	if (*argc < 1) {
		fprintf(stderr,
			"Error: peer %s needs NODE, try \"mrcctl peer help\"\n",
			cmd);
		return 1;
	}
	if (parse_node((*argv)[0], node, err, sizeof(err))) {
		fprintf(stderr, "Error: %s\n", err);
		return 1;
	}
	(*argc)--;
	(*argv)++;
	return 0;
}

static void peer_list_reset(void *data)
{
	peer_list_free(data);
}

/* A request @cmd for peer @node; its MRC_A_PEER nest is left open. */
static struct nlmsghdr *peer_req(void *buf, u8 cmd, u32 node,
				 struct nlattr **nest)
{
	struct nlmsghdr *nlh = mrc_put(buf, cmd, NLM_F_ACK);

	*nest = mnl_attr_nest_start(nlh, MRC_A_PEER);
	mnl_attr_put_u32(nlh, MRC_PEER_A_NODE, node);
	return nlh;
}

static int do_peer_show(int argc, char **argv)
{
	struct peer_list l = { 0 };
	bool by_node = false;
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[256];
	u32 node = 0;
	int ret;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_peer(stdout);
		return 0;
	}
	if (argc > 0) {
		if (take_node(&argc, &argv, "show", &node))
			return 1;
		by_node = true;
	}
	if (argc > 0)
		return try_help("unexpected argument", argv[0], "peer");
	if (mrc_connect())
		return 1;
	if (by_node) {
		nlh = peer_req(buf, MRC_CMD_PEER_GET, node, &nest);
		mnl_attr_nest_end(nlh, nest);
		ret = nl_request(nlh, peer_list_cb, &l);
	} else {
		ret = mrc_dump(MRC_CMD_PEER_GET, peer_list_cb, &l,
			       peer_list_reset);
	}
	if (ret < 0) {
		if (ret == -1)
			peer_err_print(node, by_node);
		peer_list_free(&l);
		return 1;
	}
	if (l.n > 1)
		qsort(l.v, l.n, sizeof(*l.v), peer_cmp);
	peer_list_print(&l);
	peer_list_free(&l);
	return 0;
}

static int do_peer_add(int argc, char **argv)
{
	struct peer_addr addrs[MRC_PEER_MAX_ADDRS];
	char buf[1024], err[256], text[INET6_ADDRSTRLEN];
	struct nlattr *nest, *anest;
	struct nlmsghdr *nlh;
	unsigned int n = 0, i;
	u32 node;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_peer(stdout);
		return 0;
	}
	if (argc < 1) {
		fprintf(stderr,
			"Error: peer add needs NODE addr ADDR[,ADDR...], try \"mrcctl peer help\"\n");
		return 1;
	}
	if (take_node(&argc, &argv, "add", &node))
		return 1;
	while (argc > 0) {
		if (strcmp(argv[0], "addr") && strcmp(argv[0], "address"))
			return try_help("unexpected argument", argv[0], "peer");
		if (argc < 2) {
			fprintf(stderr, "Error: missing value for \"%s\"\n",
				argv[0]);
			return 1;
		}
		if (parse_addrs(argv[1], addrs, &n, MRC_PEER_MAX_ADDRS, err,
				sizeof(err))) {
			fprintf(stderr, "Error: %s\n", err);
			return 1;
		}
		argc -= 2;
		argv += 2;
	}
	if (!n) {
		fprintf(stderr,
			"Error: peer add needs at least one address (addr ADDR[,ADDR...])\n");
		return 1;
	}

	if (mrc_connect())
		return 1;
	nlh = peer_req(buf, MRC_CMD_PEER_ADD, node, &nest);
	anest = mnl_attr_nest_start(nlh, MRC_PEER_A_ADDRS);
	req_nlabels = 0;
	for (i = 0; i < n; i++) {
		req_label(nlh, "address %s",
			  addr_str(&addrs[i], text, sizeof(text)));
		mnl_attr_put(nlh, MRC_PEER_A_ADDR, addrs[i].len, addrs[i].a);
	}
	mnl_attr_nest_end(nlh, anest);
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		peer_err_print(node, true);
		return 1;
	}
	return 0;
}

static int do_peer_del(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[256];
	u32 node;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_peer(stdout);
		return 0;
	}
	if (take_node(&argc, &argv, "del", &node))
		return 1;
	if (argc > 0)
		return try_help("unexpected argument", argv[0], "peer");
	if (mrc_connect())
		return 1;
	nlh = peer_req(buf, MRC_CMD_PEER_DEL, node, &nest);
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		peer_err_print(node, true);
		return 1;
	}
	return 0;
}

static int do_peer_set(int argc, char **argv);

static int do_peer(int argc, char **argv)
{
	if (argc < 1 || matches(argv[0], "show") || matches(argv[0], "list"))
		return do_peer_show(argc ? argc - 1 : 0, argv + !!argc);
	if (matches(argv[0], "add"))
		return do_peer_add(argc - 1, argv + 1);
	if (matches(argv[0], "del") || matches(argv[0], "delete"))
		return do_peer_del(argc - 1, argv + 1);
	if (matches(argv[0], "set") && strlen(argv[0]) >= 2)	/* sched */
		return do_peer_set(argc - 1, argv + 1);
	return help_or_unknown(argv[0], usage_peer, "peer");
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
		fprintf(f, "  %-12s %s\n  %-12s range %s%s%s, default %u\n",
			k->name, k->help, "", range, k->unit[0] ? " " : "",
			k->unit, k->def);
	}
}

static int config_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *nest;

	if (reply_nest(nlh, MRC_A_CONFIG, &nest))
		return MNL_CB_ERROR;
	if (nest && config_parse(nest, data))
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

static int config_fetch(struct cfgvals *cv)
{
	char buf[256];
	struct nlmsghdr *nlh;

	memset(cv, 0, sizeof(*cv));
	nlh = mrc_put(buf, MRC_CMD_CONFIG_GET, NLM_F_ACK);
	return nl_request(nlh, config_cb, cv);
}

static int do_config_show(int argc, char **argv)
{
	struct cfgvals cv = { 0 };
	bool sel[MRC_KNOB_NR];
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
	if (config_fetch(&cv) < 0) {
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
	nlh = mrc_put(buf, MRC_CMD_CONFIG_SET, NLM_F_ACK);
	nest = mnl_attr_nest_start(nlh, MRC_A_CONFIG);
	req_nlabels = 0;
	for (j = 0; j < n; j++) {
		req_label(nlh, "key %s", ks[j]->name);
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
	return help_or_unknown(argv[0], usage_config, "config");
}

/* ------------------------------------------------------------------ */
/* monitor                                                             */
/* ------------------------------------------------------------------ */

#define MON_RAIL	0x1
#define MON_CONFIG	0x2
#define MON_PEER	0x4	/* peer added/removed, path state */
#define MON_PATH	0x8	/* path state */
#define MON_ALL		(MON_RAIL | MON_CONFIG | MON_PEER | MON_PATH)

static unsigned int mon_filter = MON_ALL;

/*
 * CONFIG_CHANGED carries every knob, not just the changed ones; the
 * monitor keeps the last values seen (fetched at start) to say which
 * knobs changed.  With no difference visible (no baseline, or a race
 * with the initial fetch), all knobs in the event count as changed.
 */
static struct cfgvals mon_cfg;

static void config_changed(const struct cfgvals *cv, bool *changed)
{
	bool any = false;
	int i;

	for (i = 0; i < MRC_KNOB_NR; i++) {
		changed[i] = cv->has[i] &&
			     (!mon_cfg.has[i] || mon_cfg.val[i] != cv->val[i]);
		any |= changed[i];
	}
	for (i = 0; i < MRC_KNOB_NR && !any; i++)
		changed[i] = cv->has[i];
	for (i = 0; i < MRC_KNOB_NR; i++)
		if (cv->has[i]) {
			mon_cfg.has[i] = true;
			mon_cfg.val[i] = cv->val[i];
		}
}

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
	case MRC_CMD_PEER_ADDED:
		return "peer_added";
	case MRC_CMD_PEER_REMOVED:
		return "peer_removed";
	case MRC_CMD_PATH_STATE:
		return "path_state";
	case MRC_CMD_CLASS_FALLBACK:
		return "class_fallback";
	}
	return "unknown";
}

/* "[path state] node 2 plane 1 rxe1:1 ev 3 active -> assumed-bad" */
static void path_event_print(const struct peer *p)
{
	const struct path *pa = p->npaths ? &p->paths[0] : NULL;

	fprintf(out, "[path state] ");
	node_print(p);
	if (!pa) {
		fprintf(out, " (no path)");
		return;
	}
	if (PHAS(pa, MRC_PATH_A_PLANE))
		fprintf(out, " plane %" PRIu64, pa->v[MRC_PATH_A_PLANE]);
	fprintf(out, " %s", PHAS(pa, MRC_PATH_A_RAIL) ? pa->rail : "?");
	if (PHAS(pa, MRC_PATH_A_ENTROPY))
		fprintf(out, " ev %" PRIu64, pa->v[MRC_PATH_A_ENTROPY]);
	fprintf(out, " %s -> %s",
		PHAS(pa, MRC_PATH_A_PREV_STATE) ?
		mrc_path_state_uapi_name(
			(unsigned int)pa->v[MRC_PATH_A_PREV_STATE]) : "?",
		PHAS(pa, MRC_PATH_A_STATE) ?
		mrc_path_state_uapi_name(
			(unsigned int)pa->v[MRC_PATH_A_STATE]) : "?");
}

static void event_print_plain(u8 cmd, const struct rail *r,
			      const struct cfgvals *cv, const bool *changed,
			      const struct peer *p)
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
			if (changed[i]) {
				fprintf(out, " %s %u", mrc_knobs[i].name,
					cv->val[i]);
				any = true;
			}
		if (!any)
			fprintf(out, " (unknown knobs)");
		break;
	case MRC_CMD_PEER_ADDED:
	case MRC_CMD_PEER_REMOVED:
		fprintf(out, "[peer %s] ",
			cmd == MRC_CMD_PEER_ADDED ? "added" : "removed");
		node_print(p);
		if (cmd == MRC_CMD_PEER_ADDED && p->naddrs) {
			fprintf(out, " addrs ");
			addrs_print(p);
		}
		break;
	case MRC_CMD_PATH_STATE:
		path_event_print(p);
		break;
	default:
		fprintf(out, "[unknown event %u]", cmd);
	}
	fputc('\n', out);
}

static void event_print_json(u8 cmd, const char *ts, const struct rail *r,
			     const struct cfgvals *cv, const bool *changed,
			     const struct peer *p)
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
		jw_key(&w, "changed");
		jw_arr_open(&w);
		for (i = 0; i < MRC_KNOB_NR; i++)
			if (changed[i])
				jw_str(&w, mrc_knobs[i].name);
		jw_arr_close(&w);
	} else if (r) {
		jw_key(&w, "rail");
		rail_json(&w, r, false);
	} else if (p) {
		jw_key(&w, "peer");
		peer_json(&w, p, false);
	} else {
		jw_kv_u64(&w, "cmd", cmd);
	}
	jw_obj_close(&w);
}

/* sched: a class-fallback event's class nest. */
struct class_ev {
	u32 id, node;
	u8 fallback;
};

static int class_ev_cb(const struct nlattr *a, void *data)
{
	struct class_ev *c = data;
	unsigned int t = mnl_attr_get_type(a);

	if (t == MRC_CLASS_A_ID || t == MRC_CLASS_A_NODE) {
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return bad_attr("class", t);
		*(t == MRC_CLASS_A_ID ? &c->id : &c->node) =
			mnl_attr_get_u32(a);
	} else if (t == MRC_CLASS_A_FALLBACK) {
		if (mnl_attr_validate(a, MNL_TYPE_U8) < 0)
			return bad_attr("class", t);
		c->fallback = mnl_attr_get_u8(a);
	}
	return MNL_CB_OK;
}

static const char *class_name(u32 id);

/*
 * "[class fallback] node 2 class latency: on other rails" or "...: back
 * on its rails"; JSON {"event":"class_fallback","node":2,...}.
 */
static int class_event_print(const struct mrc_msg *m)
{
	struct class_ev c = { 0 };
	char ts[64];
	struct jw w;

	if (!m->nest[MRC_A_CLASS] ||
	    mnl_attr_parse_nested(m->nest[MRC_A_CLASS], class_ev_cb, &c) < 0) {
		if (!m->nest[MRC_A_CLASS])
			nlerr_set(EPROTO, "class_fallback event without a class");
		return -1;
	}
	if (opt.timestamp)
		timestamp_str(ts, sizeof(ts));
	if (opt.json) {
		jw_init(&w, out, false);
		jw_obj_open(&w);
		if (opt.timestamp)
			jw_kv_str(&w, "timestamp", ts);
		jw_kv_str(&w, "event", "class_fallback");
		jw_kv_u64(&w, "node", c.node);
		jw_kv_str(&w, "class", class_name(c.id));
		jw_key(&w, "fallback");
		jw_bool(&w, c.fallback);
		jw_obj_close(&w);
	} else {
		if (opt.timestamp)
			fprintf(out, "[%s] ", ts);
		fprintf(out, "[class fallback] node %u class %s: %s\n", c.node,
			class_name(c.id),
			c.fallback ? "on other rails" : "back on its rails");
	}
	fflush(out);
	return 0;
}

/* Decodes and prints one event message.  0, or -1 (nlerr set). */
static int event_print(const struct nlmsghdr *nlh)
{
	bool changed[MRC_KNOB_NR] = { false };
	struct cfgvals cv = { 0 };
	struct mrc_msg m;
	struct rail r;
	struct peer p;
	char ts[64];
	bool is_rail, is_peer;

	if (mrc_msg_parse(nlh, &m))
		return -1;
	if (m.cmd == MRC_CMD_CLASS_FALLBACK)	/* sched */
		return mon_filter & MON_PEER ? class_event_print(&m) : 0;
	is_rail = m.cmd == MRC_CMD_RAIL_ADDED ||
		  m.cmd == MRC_CMD_RAIL_REMOVED || m.cmd == MRC_CMD_RAIL_STATE;
	is_peer = m.cmd == MRC_CMD_PEER_ADDED ||
		  m.cmd == MRC_CMD_PEER_REMOVED || m.cmd == MRC_CMD_PATH_STATE;
	if (is_rail && !(mon_filter & MON_RAIL))
		return 0;
	if (m.cmd == MRC_CMD_CONFIG_CHANGED && !(mon_filter & MON_CONFIG))
		return 0;
	if ((m.cmd == MRC_CMD_PEER_ADDED || m.cmd == MRC_CMD_PEER_REMOVED) &&
	    !(mon_filter & MON_PEER))
		return 0;
	if (m.cmd == MRC_CMD_PATH_STATE && !(mon_filter & (MON_PEER | MON_PATH)))
		return 0;
	if (is_peer) {
		if (!m.nest[MRC_A_PEER]) {
			nlerr_set(EPROTO, "%s event without a peer",
				  event_name(m.cmd));
			return -1;
		}
		if (peer_parse(m.nest[MRC_A_PEER], &p)) {
			peer_free(&p);
			return -1;
		}
	}
	if (is_rail) {
		if (!m.nest[MRC_A_RAIL]) {
			nlerr_set(EPROTO, "%s event without a rail",
				  event_name(m.cmd));
			return -1;
		}
		if (rail_parse(m.nest[MRC_A_RAIL], &r))
			return -1;
	}
	if (m.cmd == MRC_CMD_CONFIG_CHANGED) {
		if (m.nest[MRC_A_CONFIG] &&
		    config_parse(m.nest[MRC_A_CONFIG], &cv))
			return -1;
		config_changed(&cv, changed);
	}

	if (opt.timestamp)
		timestamp_str(ts, sizeof(ts));
	if (opt.json) {
		event_print_json(m.cmd, opt.timestamp ? ts : NULL,
				 is_rail ? &r : NULL, &cv, changed,
				 is_peer ? &p : NULL);
	} else {
		if (opt.timestamp)
			fprintf(out, "[%s] ", ts);
		event_print_plain(m.cmd, is_rail ? &r : NULL, &cv, changed,
				  is_peer ? &p : NULL);
	}
	if (is_peer)
		peer_free(&p);
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
		"Usage: mrcctl [OPTIONS] monitor [ all | rail | config | peer | path ]\n"
		"       mrcctl monitor help\n"
		"\n"
		"Prints one line per event until interrupted:\n"
		"  [rail added] rxe2:1 netdev veth0 state active\n"
		"  [rail state] rxe1:1 active -> down\n"
		"  [rail removed] rxe1:1\n"
		"  [config] min_mtu 4096\n"
		"  [peer added] node 2 addrs 10.200.0.2,10.200.1.2\n"
		"  [peer removed] node 2\n"
		"  [path state] node 2 plane 1 rxe1:1 ev 3 active -> assumed-bad\n"
		"\"peer\" selects the peer and path events, \"path\" only the\n"
		"path events.  With -j one JSON object per line; with -t a\n"
		"timestamp.\n");
}

static int do_monitor(int argc, char **argv)
{
	unsigned int filter = 0;
	int grp;
	ssize_t n;

	for (; argc > 0; argc--, argv++) {
		if (matches(argv[0], "all")) {
			filter |= MON_ALL;
		} else if (matches(argv[0], "rail")) {
			filter |= MON_RAIL;
		} else if (matches(argv[0], "config")) {
			filter |= MON_CONFIG;
		} else if (matches(argv[0], "peer")) {
			filter |= MON_PEER;
		} else if (matches(argv[0], "path") && strlen(argv[0]) >= 2) {
			filter |= MON_PATH;
		} else if (matches(argv[0], "help")) {
			usage_monitor(stdout);
			return 0;
		} else {
			return try_help("unexpected argument", argv[0], "monitor");
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
	/* Baseline for "which knob changed", before joining the group so
	 * that no event is consumed by this request. */
	if ((mon_filter & MON_CONFIG) &&
	    config_fetch(&mon_cfg) < 0)
		memset(&mon_cfg, 0, sizeof(mon_cfg));
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

/* ------------------------------------------------------------------ */
/* scheduling: class, rail set, peer set (issue 5)                     */
/* ------------------------------------------------------------------ */

static const char *const sched_policy_names[] = {
	[MRC_SCHED_POLICY_ROUND_ROBIN]	= "round-robin",
	[MRC_SCHED_POLICY_MIN_INFLIGHT]	= "min-inflight",
	[MRC_SCHED_POLICY_MIN_LATENCY]	= "min-latency",
	[MRC_SCHED_POLICY_LOAD_AWARE]	= "load-aware",
};

static const char *const class_names[] = {
	[MRC_CLASS_DEFAULT]	= "default",
	[MRC_CLASS_LATENCY]	= "latency",
	[MRC_CLASS_BULK]	= "bulk",
	[MRC_CLASS_BACKGROUND]	= "background",
};

static const char *class_name(u32 id)
{
	return id < ARRAY_SIZE(class_names) ? class_names[id] : "unknown";
}

static const char *sched_policy_name(u64 v)
{
	return v < ARRAY_SIZE(sched_policy_names) ? sched_policy_names[v] :
	       "unknown";
}

/* Index of @s in @names (exact, or a number), or -1. */
static int name_index(const char *const *names, unsigned int n,
		      const char *s)
{
	unsigned int i;
	char *end;
	unsigned long v;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			return (int)i;
	/* A number is passed as is: the kernel judges it (extack). */
	errno = 0;
	v = strtoul(s, &end, 10);
	(void)n;
	if (!errno && *s && !*end && v <= 255)
		return (int)v;
	return -1;
}

static void usage_class(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] class [ show [ CLASS ] ]\n"
		"       mrcctl class set CLASS rails { RAIL[,RAIL...] | all }\n"
		"       mrcctl class help\n"
		"where  CLASS := { default | latency | bulk | background }\n"
		"       RAIL := IBDEV:PORT, e.g. rxe1:1\n"
		"\n"
		"Maps a traffic class to the rails its traffic may use (rail\n"
		"isolation; all rails by default).  Endpoints choose a class\n"
		"(/dev/mrc MRC_OPT_CLASS, mrc_ep_set_class()).  A class mapped\n"
		"to no existing or no active rail is refused; if its rails all\n"
		"die later, its traffic falls back to the other rails and\n"
		"\"mrcctl monitor\" shows a class_fallback event.  set needs\n"
		"CAP_NET_ADMIN.\n");
}

struct class_row {
	u32 id;
	bool all;
	char rails[1024];
};

struct class_list {
	struct class_row v[8];
	unsigned int n;
};

static int class_rail_cb(const struct nlattr *a, void *data)
{
	struct class_row *c = data;
	size_t len = strlen(c->rails);

	if (mnl_attr_get_type(a) != MRC_CLASS_A_RAIL)
		return MNL_CB_OK;
	if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
		return bad_attr("class rail", MRC_CLASS_A_RAIL);
	snprintf(c->rails + len, sizeof(c->rails) - len, "%s%s",
		 len ? "," : "", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int class_attr_cb(const struct nlattr *a, void *data)
{
	struct class_row *c = data;

	switch (mnl_attr_get_type(a)) {
	case MRC_CLASS_A_ID:
		if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
			return bad_attr("class", MRC_CLASS_A_ID);
		c->id = mnl_attr_get_u32(a);
		break;
	case MRC_CLASS_A_RAILS:
		c->all = false;
		if (mnl_attr_parse_nested(a, class_rail_cb, c) < 0)
			return MNL_CB_ERROR;
		break;
	}
	return MNL_CB_OK;
}

static int class_list_cb(const struct nlmsghdr *nlh, void *data)
{
	struct class_list *l = data;
	const struct nlattr *nest;
	struct class_row *c;

	if (reply_nest(nlh, MRC_A_CLASS, &nest))
		return MNL_CB_ERROR;
	if (!nest || l->n >= ARRAY_SIZE(l->v))
		return MNL_CB_OK;
	c = &l->v[l->n];
	memset(c, 0, sizeof(*c));
	c->all = true;
	if (mnl_attr_parse_nested(nest, class_attr_cb, c) < 0)
		return MNL_CB_ERROR;
	l->n++;
	return MNL_CB_OK;
}

static void class_list_reset(void *data)
{
	((struct class_list *)data)->n = 0;
}

static int do_class_show(int argc, char **argv)
{
	struct class_list l = { .n = 0 };
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[256];
	unsigned int i;
	struct jw w;
	int cls = -1, ret;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_class(stdout);
		return 0;
	}
	if (argc > 0) {
		cls = name_index(class_names, ARRAY_SIZE(class_names), argv[0]);
		if (cls < 0) {
			fprintf(stderr,
				"Error: unknown class \"%s\" (default, latency, bulk, background)\n",
				argv[0]);
			return 1;
		}
		argc--;
		argv++;
	}
	if (argc > 0)
		return try_help("unexpected argument", argv[0], "class");
	if (mrc_connect())
		return 1;
	if (cls >= 0) {
		nlh = mrc_put(buf, MRC_CMD_CLASS_GET, NLM_F_ACK);
		nest = mnl_attr_nest_start(nlh, MRC_A_CLASS);
		mnl_attr_put_u32(nlh, MRC_CLASS_A_ID, cls);
		mnl_attr_nest_end(nlh, nest);
		ret = nl_request(nlh, class_list_cb, &l);
	} else {
		ret = mrc_dump(MRC_CMD_CLASS_GET, class_list_cb, &l,
			       class_list_reset);
	}
	if (ret < 0) {
		nlerr_print();
		return 1;
	}
	if (opt.json) {
		jw_init(&w, out, opt.pretty);
		jw_arr_open(&w);
		for (i = 0; i < l.n; i++) {
			jw_obj_open(&w);
			jw_kv_str(&w, "class", l.v[i].id < ARRAY_SIZE(class_names) ?
				  class_names[l.v[i].id] : "unknown");
			jw_kv_str(&w, "rails", l.v[i].all ? "all" : l.v[i].rails);
			jw_obj_close(&w);
		}
		jw_arr_close(&w);
		fputc('\n', out);
		return 0;
	}
	for (i = 0; i < l.n; i++)
		fprintf(out, "class %s rails %s\n",
			l.v[i].id < ARRAY_SIZE(class_names) ?
			class_names[l.v[i].id] : "unknown",
			l.v[i].all ? "all" : l.v[i].rails);
	return 0;
}

static int do_class_set(int argc, char **argv)
{
	struct nlattr *nest, *rnest;
	struct nlmsghdr *nlh;
	char buf[4096], list[1024], *tok, *save;
	int cls;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_class(stdout);
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "rails")) {
		fprintf(stderr,
			"Error: class set needs CLASS rails { RAIL[,RAIL...] | all }, try \"mrcctl class help\"\n");
		return 1;
	}
	cls = name_index(class_names, ARRAY_SIZE(class_names), argv[0]);
	if (cls < 0) {
		fprintf(stderr,
			"Error: unknown class \"%s\" (default, latency, bulk, background)\n",
			argv[0]);
		return 1;
	}
	if (strlen(argv[2]) >= sizeof(list)) {
		fprintf(stderr, "Error: rail list too long\n");
		return 1;
	}
	if (mrc_connect())
		return 1;
	nlh = mrc_put(buf, MRC_CMD_CLASS_SET, NLM_F_ACK);
	nest = mnl_attr_nest_start(nlh, MRC_A_CLASS);
	mnl_attr_put_u32(nlh, MRC_CLASS_A_ID, cls);
	req_nlabels = 0;
	if (!strcmp(argv[2], "all")) {
		mnl_attr_put(nlh, MRC_CLASS_A_ALL, 0, NULL);
	} else {
		snprintf(list, sizeof(list), "%s", argv[2]);
		rnest = mnl_attr_nest_start(nlh, MRC_CLASS_A_RAILS);
		for (tok = strtok_r(list, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (strlen(tok) >= MRC_RAIL_NAME_MAX) {
				fprintf(stderr, "Error: rail name \"%s\" too long\n",
					tok);
				return 1;
			}
			req_label(nlh, "rail %s", tok);
			mnl_attr_put_strz(nlh, MRC_CLASS_A_RAIL, tok);
		}
		mnl_attr_nest_end(nlh, rnest);
	}
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		nlerr_print();
		return 1;
	}
	return 0;
}

/* (unused in the self-test build, which has no main()) */
static int __attribute__((unused)) do_class(int argc, char **argv)
{
	if (argc < 1 || matches(argv[0], "show") || matches(argv[0], "list"))
		return do_class_show(argc ? argc - 1 : 0, argv + !!argc);
	if (matches(argv[0], "set") && strlen(argv[0]) >= 2)
		return do_class_set(argc - 1, argv + 1);
	return help_or_unknown(argv[0], usage_class, "class");
}

/* mrcctl rail set DEV weight W */
static int do_rail_set(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[512], *end;
	unsigned long w;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_rail(stdout);
		return 0;
	}
	if (argc > 0 && !strcmp(argv[0], "dev")) {
		argc--;
		argv++;
	}
	if (argc != 3 || strcmp(argv[1], "weight")) {
		fprintf(stderr,
			"Error: rail set needs IBDEV:PORT weight W, try \"mrcctl rail help\"\n");
		return 1;
	}
	errno = 0;
	w = strtoul(argv[2], &end, 0);
	if (errno || !*argv[2] || *end || w > 0xffffffffUL) {
		fprintf(stderr, "Error: bad weight \"%s\" (0..100)\n", argv[2]);
		return 1;
	}
	if (strlen(argv[0]) >= MRC_RAIL_NAME_MAX) {
		fprintf(stderr, "Error: rail name too long\n");
		return 1;
	}
	if (mrc_connect())
		return 1;
	nlh = mrc_put(buf, MRC_CMD_RAIL_SET, NLM_F_ACK);
	nest = mnl_attr_nest_start(nlh, MRC_A_RAIL);
	mnl_attr_put_strz(nlh, MRC_RAIL_A_NAME, argv[0]);
	mnl_attr_put_u32(nlh, MRC_RAIL_A_WEIGHT, (u32)w);
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		nlerr_print();
		return 1;
	}
	return 0;
}

/* mrcctl peer set NODE policy { POLICY | default } */
static int do_peer_set(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	char buf[256];
	u32 node;
	int pol;

	if (argc > 0 && matches(argv[0], "help")) {
		usage_peer(stdout);
		return 0;
	}
	if (take_node(&argc, &argv, "set", &node))
		return 1;
	if (argc != 2 || strcmp(argv[0], "policy")) {
		fprintf(stderr,
			"Error: peer set needs NODE policy { round-robin | min-inflight | min-latency | load-aware | default }\n");
		return 1;
	}
	if (!strcmp(argv[1], "default") || !strcmp(argv[1], "global"))
		pol = MRC_SCHED_POLICY_GLOBAL;
	else
		pol = name_index(sched_policy_names,
				 ARRAY_SIZE(sched_policy_names), argv[1]);
	if (pol < 0) {
		fprintf(stderr,
			"Error: unknown policy \"%s\" (round-robin, min-inflight, min-latency, load-aware, default)\n",
			argv[1]);
		return 1;
	}
	if (mrc_connect())
		return 1;
	nlh = peer_req(buf, MRC_CMD_PEER_SET, node, &nest);
	mnl_attr_put_u32(nlh, MRC_PEER_A_POLICY, (u32)pol);
	mnl_attr_nest_end(nlh, nest);
	if (nl_request(nlh, NULL, NULL) < 0) {
		peer_err_print(node, true);
		return 1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mrcctl [OPTIONS] OBJECT { COMMAND | help }\n"
		"       mrcctl [OPTIONS] rail [ show [ [dev] DEV | id ID ] ]\n"
		"       mrcctl [OPTIONS] peer [ show [ [node] NODE ] ]\n"
		"       mrcctl peer add NODE addr ADDR[,ADDR...]\n"
		"       mrcctl peer del NODE\n"
		"       mrcctl [OPTIONS] config [ show [KEY...] ]\n"
		"       mrcctl config set KEY VALUE [KEY VALUE ...]\n"
		"       mrcctl [OPTIONS] monitor [ all | rail | config | peer | path ]\n"
		"       mrcctl rail set DEV weight W\n"
		"       mrcctl peer set NODE policy POLICY\n"
		"       mrcctl [OPTIONS] class [ show [CLASS] ]\n"
		"       mrcctl class set CLASS rails { RAIL[,RAIL...] | all }\n"
		"       mrcctl help\n"
		"where  OBJECT := { rail | peer | config | class | monitor | help }\n"
		"       DEV := { IBDEV:PORT | IBDEV | NETDEV }\n"
		"       NODE := a node id, 1..2147483647\n"
		"       ADDR := the peer's IPv4 or IPv6 address on one plane\n"
		"       KEY := { ");
	known_keys(f, " | ");
	fprintf(f,
		" }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -s[tats] | -t[imestamp] |\n"
		"                    -V[ersion] | -h[elp] }\n"
		"\n"
		"  -j, --json        JSON output (show: an array; monitor: one object per line)\n"
		"  -p, --pretty      indented JSON (implies -j; not for monitor)\n"
		"  -s, --stats       rail/peer show: add the rail/path counters\n"
		"  -t, --timestamp   monitor: prefix events with the local time\n"
		"  -V, --version     print the version and exit\n"
		"  -h, --help        print this help and exit\n"
		"\n"
		"Commands and objects may be abbreviated (mrcctl r s).  See also\n"
		"\"mrcctl rail help\", \"mrcctl peer help\", \"mrcctl config help\",\n"
		"\"mrcctl monitor help\".\n");
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
			if (optopt && strncmp(argv[optind - 1], "--", 2))
				fprintf(stderr, "Error: unknown option \"-%c\"",
					optopt);
			else
				fprintf(stderr, "Error: bad option \"%s\"",
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
	} else if (matches(argv[0], "peer")) {
		ret = do_peer(argc - 1, argv + 1);
	} else if (matches(argv[0], "config")) {
		ret = do_config(argc - 1, argv + 1);
	} else if (matches(argv[0], "monitor")) {
		ret = do_monitor(argc - 1, argv + 1);
	} else if (matches(argv[0], "class")) {
		ret = do_class(argc - 1, argv + 1);
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

#ifdef MRCCTL_SELFTEST
/* ------------------------------------------------------------------ */
/* self-test (TAP 13): make -C tools check                             */
/* ------------------------------------------------------------------ */
#include <fcntl.h>
#include <sys/wait.h>

static bool t_failed;

#define CHECK(cond) do {						\
		if (!(cond)) {						\
			printf("# %s:%d: check failed: %s\n",		\
			       __FILE__, __LINE__, #cond);		\
			t_failed = true;				\
		}							\
	} while (0)

/* Prints a string as one TAP comment line, newlines shown as \n. */
static void t_show(const char *label, const char *s)
{
	printf("# %s: \"", label);
	for (; s && *s; s++) {
		if (*s == '\n')
			fputs("\\n", stdout);
		else
			putchar(*s);
	}
	printf("\"\n");
}

#define CHECK_STR(got, exp) do {					\
		const char *g_ = (got), *e_ = (exp);			\
		if (!g_ || strcmp(g_, e_)) {				\
			printf("# %s:%d: strings differ\n",		\
			       __FILE__, __LINE__);			\
			t_show("expected", e_);				\
			t_show("got     ", g_);				\
			t_failed = true;				\
		}							\
	} while (0)

static char *cap_buf;
static size_t cap_len;

static void cap_begin(void)
{
	cap_buf = NULL;
	cap_len = 0;
	out = open_memstream(&cap_buf, &cap_len);
	if (!out) {
		perror("open_memstream");
		exit(2);
	}
}

/* Returns what was printed since cap_begin(); free() it. */
static char *cap_end(void)
{
	fclose(out);
	out = stdout;
	return cap_buf;
}

static void reset_state(void)
{
	memset(&opt, 0, sizeof(opt));
	memset(&nlerr, 0, sizeof(nlerr));
	memset(&mon_cfg, 0, sizeof(mon_cfg));
	req_nlabels = 0;
	mon_filter = MON_ALL;
	mrc_family = 0x1234;
}

/* --- JSON --- */

static char *json_of(const char *s)
{
	cap_begin();
	json_string(out, s);
	return cap_end();
}

static void json__escape(void)
{
	static const struct {
		const char *in, *exp;
	} c[] = {
		{ "", "\"\"" },
		{ "eth0", "\"eth0\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "a\\b", "\"a\\\\b\"" },
		{ "a/b", "\"a/b\"" },
		{ "\b\f\n\r\t", "\"\\b\\f\\n\\r\\t\"" },
		{ "\x01\x1f", "\"\\u0001\\u001f\"" },
		{ "\x7f", "\"\\u007f\"" },
		{ "caf\xc3\xa9", "\"caf\xc3\xa9\"" },			/* é */
		{ "\xe2\x82\xac", "\"\xe2\x82\xac\"" },			/* € */
		{ "\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\"" },		/* U+1F600 */
		{ "\xff", "\"\\ufffd\"" },
		{ "a\xc3", "\"a\\ufffd\"" },				/* truncated */
		{ "\xc3(", "\"\\ufffd(\"" },				/* bad continuation */
		{ "\xc0\xaf", "\"\\ufffd\\ufffd\"" },			/* overlong '/' */
		{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"" },	/* overlong */
		{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },	/* surrogate */
		{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" }, /* > U+10FFFF */
		{ "\xe2\x82", "\"\\ufffd\\ufffd\"" },			/* truncated 3-byte */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		char *got = json_of(c[i].in);

		CHECK_STR(got, c[i].exp);
		free(got);
	}
}

/*
 * A new temporary file @path ("/tmp/mrcctl-json-XXXXXX") for python3 to
 * check, open for writing; NULL if python3 is missing (check skipped).
 */
static FILE *py_file(char *path)
{
	int fd;

	if (system("python3 -c pass >/dev/null 2>&1")) {
		printf("# python3 missing: check skipped\n");
		return NULL;
	}
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd < 0)
		return NULL;
	return fdopen(fd, "w");
}

/* Runs @cmd, python3 checking the file @path; then removes the file. */
static void py_check(const char *cmd, const char *path)
{
	int rc = system(cmd);

	CHECK(rc == 0);
	unlink(path);
}

/* Every escaped string must parse as JSON (python3, when installed). */
static void json__valid_per_python(void)
{
	static const char *const in[] = {
		"plain", "q\"uote", "back\\slash", "ctl\x01\x02\x1f\x7f",
		"nl\nx", "\xff\xfe", "\xc3", "\xed\xa0\x80", "caf\xc3\xa9",
		"\xf0\x9f\x98\x80", "\xf4\x90\x80\x80",
	};
	char path[] = "/tmp/mrcctl-json-XXXXXX";
	char cmd[256];
	struct jw w;
	unsigned int i;
	FILE *f;

	f = py_file(path);
	if (!f)
		return;
	jw_init(&w, f, false);
	jw_arr_open(&w);
	for (i = 0; i < ARRAY_SIZE(in); i++)
		jw_str(&w, in[i]);
	jw_arr_close(&w);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; a=json.load(open(sys.argv[1],encoding=\"utf-8\")); assert len(a)==%zu' %s",
		 ARRAY_SIZE(in), path);
	py_check(cmd, path);
}

static void json__structure(void)
{
	struct jw w;
	char *got;

	cap_begin();
	jw_init(&w, out, false);
	jw_arr_open(&w);
	jw_obj_open(&w);
	jw_kv_u64(&w, "a", 1);
	jw_key(&w, "b");
	jw_arr_open(&w);
	jw_arr_close(&w);
	jw_kv_str(&w, "c", NULL);
	jw_key(&w, "d");
	jw_bool(&w, true);
	jw_obj_close(&w);
	jw_obj_open(&w);
	jw_obj_close(&w);
	jw_u64(&w, UINT64_MAX);
	jw_arr_close(&w);
	got = cap_end();
	CHECK_STR(got,
		  "[{\"a\":1,\"b\":[],\"c\":null,\"d\":true},{},18446744073709551615]\n");
	free(got);

	cap_begin();
	jw_init(&w, out, true);
	jw_arr_open(&w);
	jw_obj_open(&w);
	jw_kv_u64(&w, "a", 1);
	jw_key(&w, "b");
	jw_arr_open(&w);
	jw_arr_close(&w);
	jw_key(&w, "c");
	jw_arr_open(&w);
	jw_u64(&w, 2);
	jw_arr_close(&w);
	jw_obj_close(&w);
	jw_arr_close(&w);
	got = cap_end();
	CHECK_STR(got,
		  "[\n  {\n    \"a\": 1,\n    \"b\": [],\n    \"c\": [\n      2\n    ]\n  }\n]\n");
	free(got);

	cap_begin();
	jw_init(&w, out, false);
	jw_arr_open(&w);
	jw_arr_close(&w);
	got = cap_end();
	CHECK_STR(got, "[]\n");
	free(got);
}

/* --- synthetic kernel messages --- */

static const u8 test_gid[16] = {
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 200, 0, 1
};

#define R_FULL		0x1	/* netdev, ifindex, gid */
#define R_STATS		0x2
#define R_PREV		0x4
#define R_FUTURE	0x8	/* unknown attributes and counters */
#define R_SLOW		0x10	/* speed 0, infiniband, no-gid */
#define R_DROPS		0x20	/* drops nest: odd reasons = reason, even 0 */

/* A message @cmd whose top-level nest @type is left open in *@nest. */
static struct nlmsghdr *mk_nest(void *buf, u8 cmd, u16 type,
				struct nlattr **nest)
{
	struct nlmsghdr *nlh = genl_put(buf, mrc_family, cmd, 1, 0);

	*nest = mnl_attr_nest_start(nlh, type);
	return nlh;
}

static struct nlmsghdr *mk_rail(void *buf, u8 cmd, u32 id, const char *name,
				const char *ibdev, u32 port,
				const char *netdev, unsigned int what)
{
	struct nlattr *nest, *sn;
	struct nlmsghdr *nlh = mk_nest(buf, cmd, MRC_A_RAIL, &nest);
	unsigned int s;

	mnl_attr_put_u32(nlh, MRC_RAIL_A_ID, id);
	mnl_attr_put_strz(nlh, MRC_RAIL_A_NAME, name);
	mnl_attr_put_strz(nlh, MRC_RAIL_A_IBDEV, ibdev);
	mnl_attr_put_u32(nlh, MRC_RAIL_A_PORT, port);
	mnl_attr_put_u8(nlh, MRC_RAIL_A_LINK_LAYER,
			(what & R_SLOW) ? MRC_LINK_LAYER_INFINIBAND :
			MRC_LINK_LAYER_ETHERNET);
	mnl_attr_put_u32(nlh, MRC_RAIL_A_MTU, 4096);
	mnl_attr_put_u32(nlh, MRC_RAIL_A_SPEED, (what & R_SLOW) ? 0 : 10000);
	mnl_attr_put_u8(nlh, MRC_RAIL_A_STATE,
			(what & R_SLOW) ? MRC_RAIL_STATE_NO_GID :
			MRC_RAIL_STATE_ACTIVE);
	if (what & R_FULL) {
		mnl_attr_put_strz(nlh, MRC_RAIL_A_NETDEV, netdev);
		mnl_attr_put_u32(nlh, MRC_RAIL_A_IFINDEX, 3);
		mnl_attr_put(nlh, MRC_RAIL_A_GID, sizeof(test_gid), test_gid);
		mnl_attr_put_u32(nlh, MRC_RAIL_A_GID_INDEX, 1);
		mnl_attr_put_u32(nlh, MRC_RAIL_A_QPS, 8);
		mnl_attr_put_u32(nlh, MRC_RAIL_A_WEIGHT, 100);
	}
	if (what & R_PREV)
		mnl_attr_put_u8(nlh, MRC_RAIL_A_PREV_STATE,
				MRC_RAIL_STATE_DOWN);
	if (what & R_FUTURE)
		mnl_attr_put_u32(nlh, MRC_RAIL_A_MAX + 7, 42);
	if (what & R_STATS) {
		sn = mnl_attr_nest_start(nlh, MRC_RAIL_A_STATS);
		for (s = 1; s <= MRC_RAIL_STAT_MAX; s++)
			if (s != MRC_RAIL_STAT_PAD)
				mnl_attr_put_u64(nlh, s, s * 1000 + s);
		if (what & R_FUTURE)
			mnl_attr_put_u64(nlh, MRC_RAIL_STAT_MAX + 3, 7);
		mnl_attr_nest_end(nlh, sn);
	}
	if (what & R_DROPS) {
		sn = mnl_attr_nest_start(nlh, MRC_RAIL_A_DROPS);
		mnl_attr_put_u64(nlh, MRC_DROP_NONE, 99);	/* "padding" */
		for (s = MRC_DROP_NONE + 1; s < MRC_DROP_NR; s++)
			mnl_attr_put_u64(nlh, s, s % 2 ? s : 0);
		if (what & R_FUTURE)
			mnl_attr_put_u64(nlh, MRC_DROP_NR + 2, 7);
		mnl_attr_nest_end(nlh, sn);
	}
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

static int parse_rail_msg(const struct nlmsghdr *nlh, struct rail *r)
{
	struct mrc_msg m;

	if (mrc_msg_parse(nlh, &m) || !m.nest[MRC_A_RAIL])
		return -1;
	return rail_parse(m.nest[MRC_A_RAIL], r);
}

static char *rail_plain_of(const struct nlmsghdr *nlh)
{
	struct rail r;

	if (parse_rail_msg(nlh, &r))
		return NULL;
	cap_begin();
	rail_print_plain(&r);
	return cap_end();
}

static void rail__plain(void)
{
	char buf[4096], *got;

	reset_state();
	got = rail_plain_of(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1",
				    "rxe0", 1, "eth0", R_FULL | R_FUTURE));
	CHECK_STR(got,
		  "0: rxe0:1  netdev eth0  state active  mtu 4096  speed 10000Mb/s  link ethernet  qps 8  weight 100\n"
		  "    gid ::ffff:10.200.0.1 index 1\n");
	free(got);

	got = rail_plain_of(mk_rail(buf, MRC_CMD_RAIL_GET, 7, "mlx5_0:2",
				    "mlx5_0", 2, NULL, R_SLOW));
	CHECK_STR(got,
		  "7: mlx5_0:2  state no-gid  mtu 4096  speed unknown  link infiniband\n");
	free(got);
}

static void rail__plain_stats(void)
{
	char buf[4096], *got;

	reset_state();
	opt.stats = true;
	got = rail_plain_of(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1",
				    "rxe0", 1, "eth0",
				    R_FULL | R_STATS | R_DROPS | R_FUTURE));
	/* Only the non-zero drop reasons, six to a row. */
	CHECK_STR(got,
		  "0: rxe0:1  netdev eth0  state active  mtu 4096  speed 10000Mb/s  link ethernet  qps 8  weight 100\n"
		  "    gid ::ffff:10.200.0.1 index 1\n"
		  "    RX:      packets bytes errors\n"
		  "                3003  4004  12012\n"
		  "    TX:      packets bytes errors\n"
		  "                1001  2002   5005\n"
		  "    drops:   rail_down malformed no_buffer\n"
		  "                  6006      7007      8008\n"
		  "    reasons: truncated bad_type bad_offset bad_seg not_for_us no_memory\n"
		  "                     1        3          5       7          9        11\n"
		  "             bad_field unexpected bad_credit\n"
		  "                    13         15         17\n"
		  "    QP:      errors recoveries\n"
		  "              13013      14014\n"
		  "    notices: down_tx down_rx\n"
		  "               15015   16016\n"
		  "    events:  state_changes port_events\n"
		  "                      9009       10010\n");
	free(got);

	/* No counters from the kernel: "-" placeholders, no reasons. */
	got = rail_plain_of(mk_rail(buf, MRC_CMD_RAIL_GET, 1, "rxe1:1",
				    "rxe1", 1, NULL, 0));
	CHECK(got && strstr(got, "    RX:      packets bytes errors\n"
				 "                   -     -      -\n"));
	CHECK(got && !strstr(got, "reasons:") && !strstr(got, "qps"));
	free(got);
	opt.stats = false;

	/* Without -s: no counters, no reasons. */
	got = rail_plain_of(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1",
				    "rxe0", 1, "eth0", R_FULL | R_STATS | R_DROPS));
	CHECK(got && !strstr(got, "RX:") && !strstr(got, "reasons:"));
	free(got);
}

static char *rail_json_of(const struct nlmsghdr *nlh, bool all_keys)
{
	struct rail r;
	struct jw w;

	if (parse_rail_msg(nlh, &r))
		return NULL;
	cap_begin();
	jw_init(&w, out, false);
	rail_json(&w, &r, all_keys);
	return cap_end();
}

static void rail__json(void)
{
	char buf[4096], *got;

	reset_state();
	got = rail_json_of(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1", "rxe0",
				   1, "eth0", R_FULL | R_STATS), true);
	CHECK_STR(got,
		  "{\"id\":0,\"name\":\"rxe0:1\",\"ibdev\":\"rxe0\",\"port\":1,"
		  "\"netdev\":\"eth0\",\"ifindex\":3,\"link_layer\":\"ethernet\","
		  "\"gid\":\"::ffff:10.200.0.1\",\"gid_index\":1,\"mtu\":4096,"
		  "\"speed_mbps\":10000,\"qps\":8,\"weight\":100,"
		  "\"state\":\"active\"}\n");
	free(got);

	opt.stats = true;
	got = rail_json_of(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1", "rxe0",
				   1, "eth0", R_FULL | R_STATS | R_DROPS | R_FUTURE),
			   true);
	/* Every drop reason, zero or not; padding and newer ones not. */
	CHECK(got && strstr(got,
			    ",\"stats\":{\"tx_packets\":1001,\"tx_bytes\":2002,"
			    "\"rx_packets\":3003,\"rx_bytes\":4004,"
			    "\"tx_errors\":5005,\"drop_rail_down\":6006,"
			    "\"drop_malformed\":7007,\"drop_no_buffer\":8008,"
			    "\"state_changes\":9009,\"port_events\":10010,"
			    "\"rx_errors\":12012,\"qp_errors\":13013,"
			    "\"qp_recoveries\":14014,"
			    "\"down_notices_tx\":15015,"
			    "\"down_notices_rx\":16016},"
			    "\"drops\":{\"truncated\":1,\"bad_version\":0,"
			    "\"bad_type\":3,\"bad_length\":0,\"bad_offset\":5,"
			    "\"msg_too_big\":0,\"bad_seg\":7,\"bad_sack\":0,"
			    "\"not_for_us\":9,\"unknown_peer\":0,"
			    "\"no_memory\":11,\"duplicate\":0,\"bad_field\":13,"
			    "\"wrong_path\":0,\"unexpected\":15"));
	if (got && !strstr(got, "\"drops\":{\"truncated\":1,"))
		t_show("got", got);
	free(got);

	/* Absent optional attributes are null in show output... */
	got = rail_json_of(mk_rail(buf, MRC_CMD_RAIL_GET, 2, "rxe2:1", "rxe2",
				   1, NULL, 0), true);
	CHECK(got && strstr(got, "\"netdev\":null,\"ifindex\":null,"));
	CHECK(got && strstr(got, "\"gid\":null,\"gid_index\":null,"));
	CHECK(got && strstr(got, "\"stats\":{\"tx_packets\":null,"));
	CHECK(got && strstr(got, "\"qps\":null,"));
	CHECK(got && strstr(got, "\"drops\":{\"truncated\":null,"));
	free(got);
	/* ...and left out of events. */
	got = rail_json_of(mk_rail(buf, MRC_CMD_RAIL_GET, 2, "rxe2:1", "rxe2",
				   1, NULL, 0), false);
	CHECK(got && !strstr(got, "netdev") && !strstr(got, "stats"));
	free(got);
	opt.stats = false;
}

static void rail__malformed(void)
{
	char buf[1024];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct rail r;

	reset_state();
	nlh = mk_nest(buf, MRC_CMD_RAIL_GET, MRC_A_RAIL, &nest);
	mnl_attr_put_u8(nlh, MRC_RAIL_A_ID, 1);		/* u32 expected */
	mnl_attr_nest_end(nlh, nest);
	CHECK(parse_rail_msg(nlh, &r) < 0);
	CHECK(nlerr.err == EPROTO);
	CHECK_STR(nlerr.msg, "malformed rail attribute 1 from the kernel");

	nlh = mk_nest(buf, MRC_CMD_RAIL_GET, MRC_A_RAIL, &nest);
	mnl_attr_put(nlh, MRC_RAIL_A_GID, 4, "abcd");	/* 16 expected */
	mnl_attr_nest_end(nlh, nest);
	CHECK(parse_rail_msg(nlh, &r) < 0);

	nlh = mk_nest(buf, MRC_CMD_RAIL_GET, MRC_A_RAIL, &nest);
	mnl_attr_put(nlh, MRC_RAIL_A_NAME, 3, "abc");	/* no NUL */
	mnl_attr_nest_end(nlh, nest);
	CHECK(parse_rail_msg(nlh, &r) < 0);

	/* Header shorter than a genlmsghdr. */
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = mrc_family;
	CHECK(parse_rail_msg(nlh, &r) < 0);
}

static void rail__filter(void)
{
	char buf[4096];
	struct rail_list l = { 0 };
	static const char *const dev[] = {
		"rxe0:1", "rxe0", "eth0", "rxe1:1", "nope", "rxe", "rxe0:"
	};
	static const size_t exp[] = { 1, 2, 1, 1, 0, 0, 0 };
	unsigned int i;

	reset_state();
	for (i = 0; i < ARRAY_SIZE(dev); i++) {
		l.n = 0;
		l.filter = dev[i];
		rail_list_cb(mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1", "rxe0",
				     1, "eth0", R_FULL), &l);
		rail_list_cb(mk_rail(buf, MRC_CMD_RAIL_GET, 1, "rxe0:2", "rxe0",
				     2, "eth1", R_FULL), &l);
		rail_list_cb(mk_rail(buf, MRC_CMD_RAIL_GET, 2, "rxe1:1", "rxe1",
				     1, NULL, 0), &l);
		if (l.n != exp[i])
			printf("# filter \"%s\": %zu rails, expected %zu\n",
			       dev[i], l.n, exp[i]);
		CHECK(l.n == exp[i]);
	}
	/* Messages of another family are not ours. */
	l.n = 0;
	l.filter = NULL;
	mk_rail(buf, MRC_CMD_RAIL_GET, 0, "rxe0:1", "rxe0", 1, "eth0", R_FULL);
	mrc_family = 0x99;
	rail_list_cb((struct nlmsghdr *)buf, &l);
	mrc_family = 0x1234;
	CHECK(l.n == 0);
	free(l.v);
}

/* --- peers --- */

#define P_RESOLVED	0x1	/* remote QPN */
#define P_RTT		0x2	/* srtt */
#define P_STATS		0x4	/* the counters */
#define P_PREV		0x8	/* prev-state (events) */
#define P_FUTURE	0x10	/* unknown attributes */

/* One path nest; its numbers derive from plane and entropy value. */
static void mk_path(struct nlmsghdr *nlh, u32 plane, const char *rail,
		    u32 ev, u8 state, u32 srtt, u32 rto, unsigned int what)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, MRC_PEER_A_PATH);
	u64 base = 100 * (plane + 1) + ev;

	mnl_attr_put_u32(nlh, MRC_PATH_A_PLANE, plane);
	mnl_attr_put_strz(nlh, MRC_PATH_A_RAIL, rail);
	mnl_attr_put_u32(nlh, MRC_PATH_A_ENTROPY, ev);
	mnl_attr_put_u32(nlh, MRC_PATH_A_LOCAL_QPN, 17 + 16 * plane + ev);
	if (what & P_RESOLVED)
		mnl_attr_put_u32(nlh, MRC_PATH_A_REMOTE_QPN,
				 27 + 16 * plane + ev);
	mnl_attr_put_u8(nlh, MRC_PATH_A_STATE, state);
	if (what & P_RTT)
		mnl_attr_put_u32(nlh, MRC_PATH_A_SRTT_US, srtt);
	mnl_attr_put_u32(nlh, MRC_PATH_A_RTO_US, rto);
	mnl_attr_put_u32(nlh, MRC_PATH_A_INFLIGHT, (u32)(ev * 3));
	if (what & P_STATS) {
		mnl_attr_put_u64(nlh, MRC_PATH_A_TX_PKTS, base * 1000);
		mnl_attr_put_u64(nlh, MRC_PATH_A_ACKED_PKTS, base * 990);
		mnl_attr_put_u64(nlh, MRC_PATH_A_LOST_PKTS, base);
		mnl_attr_put_u64(nlh, MRC_PATH_A_PROBES, 5);
		mnl_attr_put_u64(nlh, MRC_PATH_A_REPLIES, 4);
		mnl_attr_put_u64(nlh, MRC_PATH_A_TIMEOUTS, 1);
		mnl_attr_put_u64(nlh, MRC_PATH_A_STATE_CHANGES, 2);
	}
	if (what & P_PREV)
		mnl_attr_put_u8(nlh, MRC_PATH_A_PREV_STATE,
				MRC_PATH_STATE_ACTIVE);
	if (what & P_FUTURE)
		mnl_attr_put_u32(nlh, MRC_PATH_A_MAX + 4, 1);
	mnl_attr_nest_end(nlh, nest);
}

static const u8 addr_v4[4] = { 10, 200, 0, 2 };
static const u8 addr_v6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 0,
				0, 0, 0, 0, 0, 0, 0, 2 };

/* A message @cmd about peer @node (0: none), its nest left open. */
static struct nlmsghdr *mk_peer_open(void *buf, u8 cmd, u32 node,
				     struct nlattr **nest)
{
	struct nlmsghdr *nlh = mk_nest(buf, cmd, MRC_A_PEER, nest);

	if (node)
		mnl_attr_put_u32(nlh, MRC_PEER_A_NODE, node);
	return nlh;
}

/* A message @cmd about peer @node (0: none) and nothing else. */
static struct nlmsghdr *mk_peer_node(void *buf, u8 cmd, u32 node)
{
	struct nlattr *nest;
	struct nlmsghdr *nlh = mk_peer_open(buf, cmd, node, &nest);

	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* PEER_ADDED of node 2 at 10.200.0.2 and @addr2 (@len2 bytes). */
static struct nlmsghdr *mk_peer_added(void *buf, const u8 *addr2, u16 len2)
{
	struct nlattr *nest, *an;
	struct nlmsghdr *nlh = mk_peer_open(buf, MRC_CMD_PEER_ADDED, 2, &nest);

	an = mnl_attr_nest_start(nlh, MRC_PEER_A_ADDRS);
	mnl_attr_put(nlh, MRC_PEER_A_ADDR, sizeof(addr_v4), addr_v4);
	mnl_attr_put(nlh, MRC_PEER_A_ADDR, len2, addr2);
	mnl_attr_nest_end(nlh, an);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* PATH_STATE of node 2: plane 1 rxe1:1 ev 3, now assumed-bad. */
static struct nlmsghdr *mk_path_state(void *buf, unsigned int what)
{
	struct nlattr *nest;
	struct nlmsghdr *nlh = mk_peer_open(buf, MRC_CMD_PATH_STATE, 2, &nest);

	mk_path(nlh, 1, "rxe1:1", 3, MRC_PATH_STATE_ASSUMED_BAD, 0, 1000, what);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/*
 * Node 2, addresses 10.200.0.2 and fd00::2, four paths given out of
 * order: plane 1 ev 1 (assumed-bad), plane 0 ev 0 and 1 (active),
 * plane 1 ev 0 (unresolved).
 */
static struct nlmsghdr *mk_peer(void *buf, u8 cmd, u32 node,
				unsigned int what)
{
	struct nlattr *nest, *an;
	struct nlmsghdr *nlh = mk_peer_open(buf, cmd, node, &nest);

	an = mnl_attr_nest_start(nlh, MRC_PEER_A_ADDRS);
	mnl_attr_put(nlh, MRC_PEER_A_ADDR, sizeof(addr_v4), addr_v4);
	mnl_attr_put(nlh, MRC_PEER_A_ADDR, sizeof(addr_v6), addr_v6);
	mnl_attr_nest_end(nlh, an);
	mnl_attr_put_u32(nlh, MRC_PEER_A_PATHS_ACTIVE, 2);
	if (what & P_FUTURE)
		mnl_attr_put_u32(nlh, MRC_PEER_A_MAX + 3, 1);
	mk_path(nlh, 1, "rxe1:1", 1, MRC_PATH_STATE_ASSUMED_BAD, 12345,
		200000, what | P_RESOLVED | P_RTT);
	mk_path(nlh, 0, "rxe0:1", 0, MRC_PATH_STATE_ACTIVE, 812, 10000,
		what | P_RESOLVED | P_RTT);
	mk_path(nlh, 0, "rxe0:1", 1, MRC_PATH_STATE_ACTIVE, 1250, 10000,
		what | P_RESOLVED | P_RTT);
	mk_path(nlh, 1, "rxe1:1", 0, MRC_PATH_STATE_UNRESOLVED, 0, 1000000,
		what);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

/* Through the show path: parsed, paths sorted, printed. */
static char *peer_show_of(const struct nlmsghdr *nlh)
{
	struct peer_list l = { 0 };

	if (peer_list_cb(nlh, &l) != MNL_CB_OK) {
		peer_list_free(&l);
		return NULL;
	}
	cap_begin();
	peer_list_print(&l);
	peer_list_free(&l);
	return cap_end();
}

static void peer__plain(void)
{
	char buf[8192], *got;

	reset_state();
	got = peer_show_of(mk_peer(buf, MRC_CMD_PEER_GET, 2, P_FUTURE));
	CHECK_STR(got,
		  "node 2  planes 2  paths 4 (active 2)\n"
		  "    addrs 10.200.0.2,fd00::2\n"
		  "    PLANE  RAIL    EV  LQPN  RQPN  STATE        SRTT    RTO      INFLIGHT\n"
		  "    0      rxe0:1  0   17    27    active       812us   10.0ms   0\n"
		  "    0      rxe0:1  1   18    28    active       1.25ms  10.0ms   3\n"
		  "    1      rxe1:1  0   33    -     unresolved   -       1.00s    0\n"
		  "    1      rxe1:1  1   34    44    assumed-bad  12.3ms  200.0ms  3\n");
	free(got);

	opt.stats = true;
	got = peer_show_of(mk_peer(buf, MRC_CMD_PEER_GET, 2, P_STATS));
	CHECK_STR(got,
		  "node 2  planes 2  paths 4 (active 2)\n"
		  "    addrs 10.200.0.2,fd00::2\n"
		  "    PLANE  RAIL    EV  LQPN  RQPN  STATE        SRTT    RTO      INFLIGHT  TX      ACKED   LOST  PROBES  REPLIES  TIMEOUTS  CHANGES\n"
		  "    0      rxe0:1  0   17    27    active       812us   10.0ms   0         100000  99000   100   5       4        1         2\n"
		  "    0      rxe0:1  1   18    28    active       1.25ms  10.0ms   3         101000  99990   101   5       4        1         2\n"
		  "    1      rxe1:1  0   33    -     unresolved   -       1.00s    0         200000  198000  200   5       4        1         2\n"
		  "    1      rxe1:1  1   34    44    assumed-bad  12.3ms  200.0ms  3         201000  198990  201   5       4        1         2\n");
	free(got);
	/* Counters absent: "-". */
	got = peer_show_of(mk_peer(buf, MRC_CMD_PEER_GET, 2, 0));
	CHECK(got && strstr(got, "  INFLIGHT  TX  ACKED  LOST  PROBES  REPLIES  TIMEOUTS  CHANGES\n"));
	CHECK(got && strstr(got, "  0         -   -      -     -       -        -         -\n"));
	free(got);
	opt.stats = false;
}

/* sched: policy line, SHARE and INFL_BYTES (WEIGHT, TX_BYTES with -s). */
static void peer__sched(void)
{
	char buf[2048], *got;
	struct nlmsghdr *nlh;
	struct nlattr *nest, *pn;
	unsigned int i;

	reset_state();
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 2, &nest);
	mnl_attr_put_u32(nlh, MRC_PEER_A_POLICY, MRC_SCHED_POLICY_MIN_LATENCY);
	mnl_attr_put_u32(nlh, MRC_PEER_A_POLICY_NOW,
			 MRC_SCHED_POLICY_MIN_LATENCY);
	mnl_attr_put_u64(nlh, MRC_PEER_A_FALLBACKS, 7);
	mnl_attr_put_u64(nlh, MRC_PEER_A_EXPLORES, 9);
	for (i = 0; i < 2; i++) {
		pn = mnl_attr_nest_start(nlh, MRC_PEER_A_PATH);
		mnl_attr_put_u32(nlh, MRC_PATH_A_PLANE, i);
		mnl_attr_put_u32(nlh, MRC_PATH_A_ENTROPY, 0);
		mnl_attr_put_u8(nlh, MRC_PATH_A_STATE, MRC_PATH_STATE_ACTIVE);
		mnl_attr_put_u64(nlh, MRC_PATH_A_TX_BYTES, i ? 3000 : 1000);
		mnl_attr_put_u64(nlh, MRC_PATH_A_INFLIGHT_BYTES, 4040 * i);
		mnl_attr_put_u32(nlh, MRC_PATH_A_WEIGHT, i ? 50 : 100);
		mnl_attr_nest_end(nlh, pn);
	}
	mnl_attr_nest_end(nlh, nest);
	got = peer_show_of(nlh);
	CHECK(got && strstr(got,
			    "    policy min-latency (peer)  fallbacks 7  explores 9\n"));
	CHECK(got && strstr(got, "  INFLIGHT  SHARE  INFL_BYTES\n"));
	CHECK(got && strstr(got, "  25.0%  0\n") && strstr(got, "  75.0%  4040\n"));
	free(got);
	opt.stats = true;
	got = peer_show_of(nlh);
	CHECK(got && strstr(got, "  SHARE  INFL_BYTES  WEIGHT  TX_BYTES\n"));
	CHECK(got && strstr(got, "  75.0%  4040        50      3000\n"));
	free(got);
	opt.stats = false;
	opt.json = true;
	got = peer_show_of(nlh);
	CHECK(got && strstr(got, "\"policy\":\"min-latency\",\"policy_from\":\"peer\","
			    "\"fallbacks\":7,\"explores\":9"));
	CHECK(got && strstr(got, "\"inflight_bytes\":4040,\"tx_bytes\":3000,\"weight\":50}"));
	free(got);
	opt.json = false;
}

/* The MRC_PEER_A_CREDIT nest: -s shows it, JSON has it. */
static void peer__credit(void)
{
	char buf[2048], *got;
	struct nlmsghdr *nlh;
	struct nlattr *nest, *cn;
	unsigned int s;

	reset_state();
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 3, &nest);
	cn = mnl_attr_nest_start(nlh, MRC_PEER_A_CREDIT);
	for (s = MRC_CREDIT_STAT_PAD + 1; s <= MRC_CREDIT_STAT_MAX; s++)
		if (s != MRC_CREDIT_STAT_GRANTS_BAD)	/* absent: "-" */
			mnl_attr_put_u64(nlh, s, 1000 + s);
	mnl_attr_put_u64(nlh, MRC_CREDIT_STAT_MAX + 5, 9);	/* future */
	mnl_attr_nest_end(nlh, cn);
	mnl_attr_nest_end(nlh, nest);

	got = peer_show_of(nlh);
	CHECK_STR(got, "node 3  planes 0  paths 0 (active 0)\n");
	free(got);
	opt.stats = true;
	got = peer_show_of(nlh);
	CHECK_STR(got,
		  "node 3  planes 0  paths 0 (active 0)\n"
		  "    credtx:  tx_unsched_bytes tx_sched_bytes tx_msgs_sched tx_msgs_chained requests_tx grants_rx\n"
		  "                         1002           1003          1004            1019        1005      1006\n"
		  "             grants_dup grants_stale grants_bad wait_us\n"
		  "                   1007         1018          -    1009\n"
		  "    credrx:  rx_unsched_bytes rx_sched_bytes requests_rx requests_bad requests_stale grants_tx\n"
		  "                         1010           1011        1012         1013           1020      1014\n"
		  "             grants_resent granted_bytes over_credit\n"
		  "                      1015          1016        1017\n");
	free(got);
	opt.stats = false;
	opt.json = true;
	got = peer_show_of(nlh);
	CHECK(got && strstr(got, "\"credit\":{\"tx_unsched_bytes\":1002,"));
	CHECK(got && strstr(got, "\"grants_bad\":null,\"wait_us\":1009,"));
	CHECK(got && strstr(got, "\"tx_msgs_chained\":1019,\"requests_stale\":1020}"));
	free(got);
	opt.json = false;
}

static void peer__plain_minimal(void)
{
	char buf[1024], *got;
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	reset_state();
	/* No addresses, no paths, no paths-active: no table. */
	got = peer_show_of(mk_peer_node(buf, MRC_CMD_PEER_GET, 0x7fffffff));
	CHECK_STR(got, "node 2147483647  planes 0  paths 0 (active 0)\n");
	free(got);

	/* paths-active absent: counted from the states. */
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 3, &nest);
	mk_path(nlh, 0, "rxe0:1", 0, MRC_PATH_STATE_ACTIVE, 5, 6, P_RESOLVED);
	mk_path(nlh, 0, "rxe0:1", 1, MRC_PATH_STATE_PROBING, 5, 6, 0);
	mk_path(nlh, 0, "rxe0:1", 2, 77, 5, 6, 0);	/* a future state */
	mnl_attr_nest_end(nlh, nest);
	got = peer_show_of(nlh);
	CHECK(got && !strncmp(got, "node 3  planes 0  paths 3 (active 1)\n", 37));
	CHECK(got && strstr(got, " probing ") && strstr(got, " unknown "));
	free(got);
}

static void peer__json(void)
{
	static const char exp[] =
		"[{\"node\":2,\"addrs\":[\"10.200.0.2\",\"fd00::2\"],"
		"\"paths_active\":2,\"paths\":[{\"plane\":0,"
		"\"rail\":\"rxe0:1\",\"entropy\":0,\"local_qpn\":17,"
		"\"remote_qpn\":27,\"state\":\"active\",\"srtt_us\":812,"
		"\"rto_us\":10000,\"inflight\":0,\"tx_pkts\":100000,"
		"\"acked_pkts\":99000,\"lost_pkts\":100,\"probes\":5,"
		"\"replies\":4,\"timeouts\":1,\"state_changes\":2},";
	char buf[8192], *got;

	reset_state();
	opt.json = true;
	got = peer_show_of(mk_peer(buf, MRC_CMD_PEER_GET, 2, P_STATS | P_FUTURE));
	CHECK(got && !strncmp(got, exp, strlen(exp)));
	if (got && strncmp(got, exp, strlen(exp)))
		t_show("got", got);
	/* Absent values are null. */
	CHECK(got && strstr(got,
			    "{\"plane\":1,\"rail\":\"rxe1:1\",\"entropy\":0,"
			    "\"local_qpn\":33,\"remote_qpn\":null,"
			    "\"state\":\"unresolved\",\"srtt_us\":null,"
			    "\"rto_us\":1000000,"));
	CHECK(got && strlen(got) > 5 &&
	      !strcmp(got + strlen(got) - 5, "}]}]\n"));
	free(got);

	got = peer_show_of(mk_peer(buf, MRC_CMD_PEER_GET, 2, 0));
	CHECK(got && strstr(got, "\"tx_pkts\":null,\"acked_pkts\":null,"));
	free(got);

	/* Nothing known: every key, null; paths an empty array. */
	got = peer_show_of(mk_peer_node(buf, MRC_CMD_PEER_GET, 0));
	CHECK_STR(got,
		  "[{\"node\":null,\"addrs\":null,\"paths_active\":null,"
		  "\"paths\":[]}]\n");
	free(got);

	/* No peers: an empty array. */
	{
		struct peer_list l = { 0 };

		cap_begin();
		peer_list_print(&l);
		got = cap_end();
		CHECK_STR(got, "[]\n");
		free(got);
	}
	opt.json = false;
}

static void peer__list_sorted(void)
{
	char buf[8192];
	struct peer_list l = { 0 };
	static const u32 nodes[] = { 9, 2, 0x7fffffff, 5 };
	unsigned int i;

	reset_state();
	for (i = 0; i < ARRAY_SIZE(nodes); i++)
		CHECK(peer_list_cb(mk_peer(buf, MRC_CMD_PEER_GET, nodes[i], 0),
				   &l) == MNL_CB_OK);
	CHECK(l.n == 4);
	qsort(l.v, l.n, sizeof(*l.v), peer_cmp);
	CHECK(l.n == 4 && l.v[0].node == 2 && l.v[1].node == 5 &&
	      l.v[2].node == 9 && l.v[3].node == 0x7fffffff);
	for (i = 0; i < l.n; i++)
		CHECK(l.v[i].npaths == 4 &&
		      l.v[i].paths[0].v[MRC_PATH_A_PLANE] == 0 &&
		      l.v[i].paths[3].v[MRC_PATH_A_ENTROPY] == 1);
	peer_list_free(&l);
	CHECK(!l.v && !l.n);

	/* Many paths: the array grows. */
	{
		struct nlattr *nest;
		struct nlmsghdr *nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 4,
						    &nest);

		for (i = 0; i < 40; i++)
			mk_path(nlh, i % 2, i % 2 ? "rxe1:1" : "rxe0:1",
				39 - i, MRC_PATH_STATE_ACTIVE, 1, 1, 0);
		mnl_attr_nest_end(nlh, nest);
		CHECK(peer_list_cb(nlh, &l) == MNL_CB_OK);
		CHECK(l.n == 1 && l.v[0].npaths == 40);
		for (i = 1; l.n == 1 && i < l.v[0].npaths; i++)
			CHECK(path_cmp(&l.v[0].paths[i - 1],
				       &l.v[0].paths[i]) < 0);
		peer_list_free(&l);
	}
}

static void peer__malformed(void)
{
	char buf[1024];
	struct peer_list l = { 0 };
	struct nlmsghdr *nlh;
	struct nlattr *nest, *an;

	reset_state();
	/* An address of 5 bytes. */
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 0, &nest);
	an = mnl_attr_nest_start(nlh, MRC_PEER_A_ADDRS);
	mnl_attr_put(nlh, MRC_PEER_A_ADDR, 5, "abcde");
	mnl_attr_nest_end(nlh, an);
	mnl_attr_nest_end(nlh, nest);
	CHECK(peer_list_cb(nlh, &l) == MNL_CB_ERROR && l.n == 0);
	CHECK_STR(nlerr.msg, "malformed peer address attribute 3 from the kernel");

	/* A node of 2 bytes. */
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 0, &nest);
	mnl_attr_put_u16(nlh, MRC_PEER_A_NODE, 2);
	mnl_attr_nest_end(nlh, nest);
	CHECK(peer_list_cb(nlh, &l) == MNL_CB_ERROR && l.n == 0);

	/* A path state of 4 bytes, after a good path (freed: ASan). */
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 0, &nest);
	mk_path(nlh, 0, "rxe0:1", 0, MRC_PATH_STATE_ACTIVE, 1, 1, 0);
	an = mnl_attr_nest_start(nlh, MRC_PEER_A_PATH);
	mnl_attr_put_u32(nlh, MRC_PATH_A_STATE, 1);
	mnl_attr_nest_end(nlh, an);
	mnl_attr_nest_end(nlh, nest);
	CHECK(peer_list_cb(nlh, &l) == MNL_CB_ERROR && l.n == 0);
	CHECK_STR(nlerr.msg, "malformed path attribute 6 from the kernel");

	/* A rail name without its NUL. */
	nlh = mk_peer_open(buf, MRC_CMD_PEER_GET, 0, &nest);
	an = mnl_attr_nest_start(nlh, MRC_PEER_A_PATH);
	mnl_attr_put(nlh, MRC_PATH_A_RAIL, 3, "abc");
	mnl_attr_nest_end(nlh, an);
	mnl_attr_nest_end(nlh, nest);
	CHECK(peer_list_cb(nlh, &l) == MNL_CB_ERROR && l.n == 0);

	/* The top-level peer attribute not a nest. */
	nlh = genl_put(buf, mrc_family, MRC_CMD_PEER_GET, 1, 0);
	mnl_attr_put_u8(nlh, MRC_A_PEER, 1);
	CHECK(peer_list_cb(nlh, &l) == MNL_CB_ERROR && l.n == 0);
	peer_list_free(&l);
}

static void peer__fmt_us(void)
{
	static const struct {
		u64 us;
		const char *exp;
	} c[] = {
		{ 0, "0us" }, { 999, "999us" }, { 1000, "1.00ms" },
		{ 1250, "1.25ms" }, { 9999, "10.00ms" }, { 10000, "10.0ms" },
		{ 999949, "999.9ms" }, { 1000000, "1.00s" },
		{ 4294967295ULL, "4294.97s" },
	};
	char buf[32];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		fmt_us(buf, sizeof(buf), c[i].us);
		CHECK_STR(buf, c[i].exp);
	}
}

/* --- argument parsing --- */

static void parse__node(void)
{
	static const struct {
		const char *in;
		u32 exp;	/* 0: refused */
	} c[] = {
		{ "1", 1 }, { "2", 2 }, { "2147483647", 0x7fffffff },
		{ "0x7fffffff", 0x7fffffff }, { "0X10", 16 }, { "0x1", 1 },
		{ "0", 0 }, { "0x0", 0 }, { "2147483648", 0 },
		{ "0x80000000", 0 }, { "4294967297", 0 },
		{ "99999999999999999999999", 0 }, { "", 0 }, { "-1", 0 },
		{ "+1", 0 }, { " 1", 0 }, { "1 ", 0 }, { "1x", 0 },
		{ "x", 0 }, { "010", 0 }, { "0x", 0 }, { "1K", 0 },
		{ "node", 0 },
	};
	char err[128];
	unsigned int i;
	u32 node;
	int rc;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		node = 12345;
		err[0] = '\0';
		rc = parse_node(c[i].in, &node, err, sizeof(err));
		if (c[i].exp) {
			CHECK(rc == 0 && node == c[i].exp);
		} else {
			CHECK(rc == -1 && node == 12345);
			CHECK(strstr(err, "invalid node id \"") &&
			      strstr(err, "\" (expected 1..2147483647)"));
		}
		if ((rc == 0) != (c[i].exp != 0))
			printf("# node \"%s\": rc %d, node %u\n", c[i].in, rc,
			       node);
	}
}

static void parse__addrs(void)
{
	struct peer_addr v[MRC_PEER_MAX_ADDRS];
	char err[256], text[INET6_ADDRSTRLEN];
	unsigned int n = 0;

	CHECK(parse_addrs("10.200.0.2", v, &n, MRC_PEER_MAX_ADDRS, err,
			  sizeof(err)) == 0 && n == 1 && v[0].len == 4 &&
	      !memcmp(v[0].a, addr_v4, 4));
	/* Appends; IPv6, IPv4-mapped IPv6 stays 16 bytes. */
	CHECK(parse_addrs("fd00::2,::ffff:10.0.0.1", v, &n,
			  MRC_PEER_MAX_ADDRS, err, sizeof(err)) == 0 &&
	      n == 3 && v[1].len == 16 && !memcmp(v[1].a, addr_v6, 16) &&
	      v[2].len == 16);
	CHECK_STR(addr_str(&v[2], text, sizeof(text)), "::ffff:10.0.0.1");
	CHECK_STR(addr_str(&v[1], text, sizeof(text)), "fd00::2");

	n = 0;
	CHECK(parse_addrs("1.2.3", v, &n, 8, err, sizeof(err)) == -1 && !n);
	CHECK_STR(err, "invalid address \"1.2.3\" (expected IPv4 or IPv6)");
	CHECK(parse_addrs("1.2.3.4,", v, &n, 8, err, sizeof(err)) == -1);
	CHECK_STR(err, "invalid address \"\" (expected IPv4 or IPv6)");
	n = 0;
	CHECK(parse_addrs("1.2.3.4,,5.6.7.8", v, &n, 8, err, sizeof(err)) == -1);
	CHECK_STR(err, "invalid address \"\" (expected IPv4 or IPv6)");
	n = 0;
	CHECK(parse_addrs("1.2.3.4 ", v, &n, 8, err, sizeof(err)) == -1);
	n = 0;
	CHECK(parse_addrs("rxe0", v, &n, 8, err, sizeof(err)) == -1);
	n = 0;
	CHECK(parse_addrs("1.2.3.4/24", v, &n, 8, err, sizeof(err)) == -1);
	CHECK_STR(err, "invalid address \"1.2.3.4/24\" (expected IPv4 or IPv6)");
	/* Longer than any address: refused, quoted whole. */
	n = 0;
	CHECK(parse_addrs("1111:2222:3333:4444:5555:6666:7777:8888:9999:aaaa:bbbb",
			  v, &n, 8, err, sizeof(err)) == -1);
	CHECK(strstr(err, ":9999:aaaa:bbbb\" (expected"));

	n = 0;
	CHECK(parse_addrs("1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4,1.0.0.5,1.0.0.6,"
			  "1.0.0.7,1.0.0.8", v, &n, 8, err, sizeof(err)) == 0 &&
	      n == 8);
	CHECK(parse_addrs("1.0.0.9", v, &n, 8, err, sizeof(err)) == -1 &&
	      n == 8);
	CHECK_STR(err, "too many addresses (at most 8, one per plane)");
	n = 0;
	CHECK(parse_addrs("1.0.0.1,1.0.0.2,1.0.0.3", v, &n, 2, err,
			  sizeof(err)) == -1 && n == 2);
}

/* --- config --- */

static struct nlmsghdr *mk_config(void *buf, u8 cmd, u32 max_rails,
				  u32 min_mtu, bool future)
{
	struct nlmsghdr *nlh = genl_put(buf, mrc_family, cmd, 1, 0);
	struct nlattr *nest;

	nest = mnl_attr_nest_start(nlh, MRC_A_CONFIG);
	if (max_rails)
		mnl_attr_put_u32(nlh, MRC_CONFIG_A_MAX_RAILS, max_rails);
	if (min_mtu)
		mnl_attr_put_u32(nlh, MRC_CONFIG_A_MIN_MTU, min_mtu);
	if (future)
		mnl_attr_put_u32(nlh, MRC_CONFIG_A_MAX + 5, 1);
	mnl_attr_nest_end(nlh, nest);
	return nlh;
}

static void config__table(void)
{
	struct cfgvals cv = { 0 };
	bool all[MRC_KNOB_NR], one[MRC_KNOB_NR];
	char buf[1024], *got;
	int i;

	reset_state();
	for (i = 0; i < MRC_KNOB_NR; i++) {
		all[i] = true;
		one[i] = i == MRC_KNOB_min_mtu;
	}
	CHECK(config_cb(mk_config(buf, MRC_CMD_CONFIG_GET, 64, 2048, true),
			&cv) == MNL_CB_OK);
	cap_begin();
	config_print(&cv, all);
	got = cap_end();
	/* Every knob of the table, whether or not the kernel sent it. */
	CHECK(got && !strncmp(got, "NAME ", 5));
	CHECK(got && strstr(got, "\nmax_rails ") &&
	      strstr(strstr(got, "\nmax_rails "), " 64 "));
	CHECK(got && strstr(got, "\nmin_mtu ") &&
	      strstr(strstr(got, "\nmin_mtu "), " 2048 ") &&
	      strstr(got, "256..4096 (pow2)"));
	for (unsigned int k = 0; k < MRC_KNOB_NR; k++) {
		char line[64];

		snprintf(line, sizeof(line), "\n%s ", mrc_knobs[k].name);
		CHECK(got && strstr(got, line));
	}
	free(got);

	opt.json = true;
	cap_begin();
	config_print(&cv, one);
	got = cap_end();
	CHECK_STR(got,
		  "[{\"name\":\"min_mtu\",\"value\":2048,\"unit\":\"bytes\","
		  "\"min\":256,\"max\":4096,\"default\":1024,\"pow2\":true}]\n");
	free(got);

	/* A knob the kernel did not report. */
	memset(&cv, 0, sizeof(cv));
	config_cb(mk_config(buf, MRC_CMD_CONFIG_GET, 0, 512, false), &cv);
	cap_begin();
	config_print(&cv, all);
	got = cap_end();
	CHECK(got && strstr(got, "\"name\":\"max_rails\",\"value\":null,"));
	free(got);
	opt.json = false;
	cap_begin();
	config_print(&cv, all);
	got = cap_end();
	CHECK(got && strstr(got, "\nmax_rails ") &&
	      strstr(strstr(got, "\nmax_rails "), " - "));
	free(got);
}

/* --- events --- */

/* What event_print() prints for @nlh must be @exp. */
#define CHECK_EVENT(nlh, exp) do {					\
		char *ev_ = event_of(nlh);				\
									\
		CHECK_STR(ev_, exp);					\
		free(ev_);						\
	} while (0)

static char *event_of(const struct nlmsghdr *nlh)
{
	cap_begin();
	if (event_print(nlh)) {
		fclose(out);
		out = stdout;
		free(cap_buf);
		return NULL;
	}
	return cap_end();
}

static void event__plain(void)
{
	char buf[4096], *got;

	reset_state();
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_ADDED, 2, "rxe2:1", "rxe2", 1,
			    "veth0", R_FULL),
		    "[rail added] rxe2:1 netdev veth0 state active\n");
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_ADDED, 2, "rxe2:1", "rxe2", 1,
			    NULL, 0), "[rail added] rxe2:1 state active\n");
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_STATE, 1, "rxe1:1", "rxe1", 1,
			    "eth1", R_FULL | R_PREV),
		    "[rail state] rxe1:1 down -> active\n");
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1", 1,
			    "eth1", R_FULL), "[rail removed] rxe1:1\n");

	/* Config: only the knobs that differ from the last values seen. */
	CHECK_EVENT(mk_config(buf, MRC_CMD_CONFIG_CHANGED, 64, 1024, false),
		    "[config] max_rails 64 min_mtu 1024\n");	/* no baseline */
	CHECK_EVENT(mk_config(buf, MRC_CMD_CONFIG_CHANGED, 64, 4096, true),
		    "[config] min_mtu 4096\n");
	CHECK_EVENT(mk_config(buf, MRC_CMD_CONFIG_CHANGED, 32, 4096, false),
		    "[config] max_rails 32\n");

	CHECK_EVENT(mk_config(buf, 77, 1, 1, false), "[unknown event 77]\n");

	/* Filtered out: nothing printed. */
	mon_filter = MON_CONFIG;
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1", 1,
			    NULL, 0), "");
	mon_filter = MON_RAIL | MON_CONFIG;

	/* A rail event without a rail is reported, not printed. */
	got = event_of(mk_config(buf, MRC_CMD_RAIL_ADDED, 1, 1, false));
	CHECK(got == NULL);
	free(got);

	opt.timestamp = true;
	got = event_of(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1",
			       1, NULL, 0));
	/* "[2024-05-01T12:00:00.123456+0200] [rail removed] rxe1:1\n" */
	CHECK(got && got[0] == '[' && strlen(got) > 34 && got[11] == 'T' &&
	      got[20] == '.' && strstr(got, "] [rail removed] rxe1:1\n"));
	if (got)
		t_show("timestamped", got);
	free(got);
}

static void event__json(void)
{
	char buf[4096], *got;

	reset_state();
	opt.json = true;
	opt.pretty = true;	/* ignored: one object per line */
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_STATE, 1, "rxe1:1", "rxe1", 1,
			    "eth1", R_FULL | R_PREV),
		    "{\"event\":\"rail_state\",\"rail\":{\"id\":1,\"name\":\"rxe1:1\","
		    "\"ibdev\":\"rxe1\",\"port\":1,\"netdev\":\"eth1\",\"ifindex\":3,"
		    "\"link_layer\":\"ethernet\",\"gid\":\"::ffff:10.200.0.1\","
		    "\"gid_index\":1,\"mtu\":4096,\"speed_mbps\":10000,\"qps\":8,"
		    "\"weight\":100,\"state\":\"active\",\"prev_state\":\"down\"}}\n");
	got = event_of(mk_rail(buf, MRC_CMD_RAIL_ADDED, 1, "rxe1:1", "rxe1",
			       1, NULL, 0));
	CHECK(got && !strncmp(got, "{\"event\":\"rail_added\",\"rail\":{", 30));
	free(got);
	got = event_of(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1",
			       1, NULL, 0));
	CHECK(got && !strncmp(got, "{\"event\":\"rail_removed\",\"rail\":{", 32));
	free(got);

	mon_cfg.has[MRC_KNOB_max_rails] = mon_cfg.has[MRC_KNOB_min_mtu] = true;
	mon_cfg.val[MRC_KNOB_max_rails] = 64;
	mon_cfg.val[MRC_KNOB_min_mtu] = 1024;
	CHECK_EVENT(mk_config(buf, MRC_CMD_CONFIG_CHANGED, 64, 4096, false),
		    "{\"event\":\"config\",\"config\":{\"max_rails\":64,\"min_mtu\":4096},"
		    "\"changed\":[\"min_mtu\"]}\n");

	opt.timestamp = true;
	got = event_of(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1",
			       1, NULL, 0));
	CHECK(got && !strncmp(got, "{\"timestamp\":\"", 14) &&
	      strstr(got, "\",\"event\":\"rail_removed\","));
	free(got);

	cap_begin();
	monitor_lost();
	got = cap_end();
	CHECK(got && strstr(got, "\"event\":\"warning\",\"message\":\"events lost"));
	free(got);
	opt.json = opt.pretty = opt.timestamp = false;
	cap_begin();
	monitor_lost();
	got = cap_end();
	CHECK_STR(got,
		  "[warning] events lost: netlink receive buffer overrun (ENOBUFS)\n");
	free(got);
}

/* sched: class-fallback events, plain and JSON, and the peer filter. */
static void event__class_fallback(void)
{
	char buf[1024], *got;
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	reset_state();
	nlh = mk_nest(buf, MRC_CMD_CLASS_FALLBACK, MRC_A_CLASS, &nest);
	mnl_attr_put_u32(nlh, MRC_CLASS_A_ID, MRC_CLASS_LATENCY);
	mnl_attr_put_strz(nlh, MRC_CLASS_A_NAME, "latency");
	mnl_attr_put_u32(nlh, MRC_CLASS_A_NODE, 2);
	mnl_attr_put_u8(nlh, MRC_CLASS_A_FALLBACK, 1);
	mnl_attr_nest_end(nlh, nest);
	CHECK_EVENT(nlh, "[class fallback] node 2 class latency: on other rails\n");
	opt.json = true;
	got = event_of(nlh);
	CHECK_STR(got, "{\"event\":\"class_fallback\",\"node\":2,"
		  "\"class\":\"latency\",\"fallback\":true}\n");
	free(got);
	opt.json = false;
	mon_filter = MON_RAIL;
	CHECK_EVENT(nlh, "");
	mon_filter = MON_ALL;
}

static void event__peer_plain(void)
{
	char buf[8192], buf2[1024], *got;
	struct nlmsghdr *nlh;
	struct nlattr *nest, *an;

	reset_state();
	/* PEER_ADDED: node and addresses. */
	CHECK_EVENT(mk_peer_added(buf, (u8[]){ 10, 200, 1, 2 }, 4),
		    "[peer added] node 2 addrs 10.200.0.2,10.200.1.2\n");

	/* The full peer works too (paths not printed). */
	CHECK_EVENT(mk_peer(buf, MRC_CMD_PEER_ADDED, 7, 0),
		    "[peer added] node 7 addrs 10.200.0.2,fd00::2\n");

	CHECK_EVENT(mk_peer_node(buf, MRC_CMD_PEER_REMOVED, 2),
		    "[peer removed] node 2\n");

	/* PATH_STATE: the peer with one path, state and prev-state. */
	CHECK_EVENT(mk_path_state(buf, P_PREV | P_FUTURE),
		    "[path state] node 2 plane 1 rxe1:1 ev 3 active -> assumed-bad\n");

	/* Missing pieces: "?". */
	nlh = mk_peer_open(buf2, MRC_CMD_PATH_STATE, 0, &nest);
	an = mnl_attr_nest_start(nlh, MRC_PEER_A_PATH);
	mnl_attr_put_u8(nlh, MRC_PATH_A_STATE, MRC_PATH_STATE_DEAD);
	mnl_attr_nest_end(nlh, an);
	mnl_attr_nest_end(nlh, nest);
	CHECK_EVENT(nlh, "[path state] node ? ? ? -> dead\n");

	/* A peer event without a peer is reported, not printed. */
	got = event_of(mk_config(buf, MRC_CMD_PEER_REMOVED, 1, 1, false));
	CHECK(got == NULL && nlerr.err == EPROTO);
	CHECK_STR(nlerr.msg, "peer_removed event without a peer");

	/* Filters: "path" keeps only path events, "peer" both. */
	mon_filter = MON_PATH;
	CHECK_EVENT(mk_peer(buf, MRC_CMD_PEER_ADDED, 7, 0), "");
	CHECK_EVENT(nlh, "[path state] node ? ? ? -> dead\n");
	mon_filter = MON_RAIL | MON_CONFIG;
	CHECK_EVENT(nlh, "");
	CHECK_EVENT(mk_peer(buf, MRC_CMD_PEER_REMOVED, 7, 0), "");
	mon_filter = MON_PEER;
	CHECK_EVENT(nlh, "[path state] node ? ? ? -> dead\n");
	CHECK_EVENT(mk_rail(buf, MRC_CMD_RAIL_REMOVED, 1, "rxe1:1", "rxe1", 1,
			    NULL, 0), "");
	mon_filter = MON_ALL;
}

static void event__peer_json(void)
{
	char buf[8192];

	reset_state();
	opt.json = true;
	CHECK_EVENT(mk_peer_added(buf, addr_v6, sizeof(addr_v6)),
		    "{\"event\":\"peer_added\",\"peer\":{\"node\":2,"
		    "\"addrs\":[\"10.200.0.2\",\"fd00::2\"]}}\n");

	CHECK_EVENT(mk_peer_node(buf, MRC_CMD_PEER_REMOVED, 2),
		    "{\"event\":\"peer_removed\",\"peer\":{\"node\":2}}\n");

	CHECK_EVENT(mk_path_state(buf, P_PREV | P_RESOLVED),
		    "{\"event\":\"path_state\",\"peer\":{\"node\":2,\"paths\":["
		    "{\"plane\":1,\"rail\":\"rxe1:1\",\"entropy\":3,"
		    "\"local_qpn\":36,\"remote_qpn\":46,"
		    "\"state\":\"assumed-bad\",\"rto_us\":1000,\"inflight\":9,"
		    "\"prev_state\":\"active\"}]}}\n");
	opt.json = false;
}

/* --- errors --- */

/*
 * An NLMSG_ERROR reply to @req: @capped drops the echoed request;
 * @msg, @offs, @pol_min/@pol_max (with @pol_type) become extack TLVs.
 */
static struct nlmsghdr *mk_err(void *buf, const struct nlmsghdr *req,
			       int error, bool capped, const char *msg,
			       int offs, u32 pol_type, u64 pol_min,
			       u64 pol_max)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlmsgerr *e;
	struct nlattr *nest;
	size_t len = capped ? sizeof(*req) : req->nlmsg_len;

	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_seq = req->nlmsg_seq;
	if (capped)
		nlh->nlmsg_flags |= NLM_F_CAPPED;
	e = mnl_nlmsg_put_extra_header(nlh, sizeof(*e) - sizeof(e->msg) + len);
	e->error = error;
	memcpy(&e->msg, req, len);
	if (msg || offs >= 0 || pol_type) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		if (msg)
			mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
		if (offs >= 0)
			mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, offs);
		if (pol_type) {
			nest = mnl_attr_nest_start(nlh, NLMSGERR_ATTR_POLICY);
			mnl_attr_put_u32(nlh, NL_POLICY_TYPE_ATTR_TYPE,
					 pol_type);
			mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MIN_VALUE_U,
					 pol_min);
			mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MAX_VALUE_U,
					 pol_max);
			mnl_attr_nest_end(nlh, nest);
		}
	}
	return nlh;
}

/* Feeds @nlh to the receive path; returns the formatted error. */
static const char *err_of(const struct nlmsghdr *nlh, int *ret)
{
	static char text[1024];

	memset(&nlerr, 0, sizeof(nlerr));
	*ret = nl_run(nlh, nlh->nlmsg_len, nlh->nlmsg_seq, 0, NULL, NULL);
	nlerr_format(&nlerr, text, sizeof(text));
	return text;
}

static void error__extack(void)
{
	char req[512], rep[2048];
	struct nlmsghdr *r, *e;
	struct nlattr *nest;
	int ret, capped;
	u32 off_min_mtu;

	reset_state();
	r = genl_put(req, mrc_family, MRC_CMD_CONFIG_SET, 1, NLM_F_ACK);
	r->nlmsg_seq = 42;
	nest = mnl_attr_nest_start(r, MRC_A_CONFIG);
	mnl_attr_put_u32(r, MRC_CONFIG_A_MAX_RAILS, 8);
	off_min_mtu = (char *)mnl_nlmsg_get_payload_tail(r) - (char *)r;
	mnl_attr_put_u32(r, MRC_CONFIG_A_MIN_MTU, 5000);
	mnl_attr_nest_end(r, nest);

	for (capped = 0; capped < 2; capped++) {
		/* The policy's range rides along with the message. */
		e = mk_err(rep, r, -ERANGE, capped, "integer out of range",
			   off_min_mtu, NL_ATTR_TYPE_U32, 256, 4096);
		CHECK_STR(err_of(e, &ret),
			  "Error: integer out of range (valid range 256..4096)");
		CHECK(ret == MNL_CB_ERROR && nlerr.err == ERANGE);

		/* Several keys: the offset names the refused one. */
		req_nlabels = 0;
		req_label(r, "key max_rails");
		req_labels[0].offs = off_min_mtu - 8;
		req_label(r, "key min_mtu");
		req_labels[1].offs = off_min_mtu;
		e = mk_err(rep, r, -EINVAL, capped,
			   "value must be a power of two", off_min_mtu, 0, 0, 0);
		CHECK_STR(err_of(e, &ret),
			  "Error: value must be a power of two (key min_mtu)");
		req_nlabels = 0;
	}

	/* A full-width range says nothing: left out. */
	e = mk_err(rep, r, -EINVAL, true, "invalid attribute length", 24,
		   NL_ATTR_TYPE_U32, 0, UINT32_MAX);
	CHECK_STR(err_of(e, &ret), "Error: invalid attribute length");

	/* No extack: strerror, plus the hint for EPERM. */
	e = mk_err(rep, r, -EPERM, true, NULL, -1, 0, 0, 0);
	CHECK_STR(err_of(e, &ret),
		  "Error: Operation not permitted (needs CAP_NET_ADMIN)");
	e = mk_err(rep, r, -ENODEV, false, NULL, -1, 0, 0, 0);
	CHECK_STR(err_of(e, &ret), "Error: No such device");
	CHECK(nlerr.err == ENODEV);

	/* An ACK is success, even one carrying a (warning) message. */
	e = mk_err(rep, r, 0, true, NULL, -1, 0, 0, 0);
	err_of(e, &ret);
	CHECK(ret == MNL_CB_STOP && nlerr.err == 0);

	/* Missing attribute (GENL_REQ_ATTR_CHECK). */
	e = mk_err(rep, r, -EINVAL, true, "config nest (MRC_A_CONFIG) missing",
		   -1, 0, 0, 0);
	mnl_attr_put_u32(e, NLMSGERR_ATTR_MISS_TYPE, MRC_A_CONFIG);
	CHECK_STR(err_of(e, &ret),
		  "Error: config nest (MRC_A_CONFIG) missing (missing attribute 2)");

	/* Truncated error message. */
	e = mnl_nlmsg_put_header(rep);
	e->nlmsg_type = NLMSG_ERROR;
	e->nlmsg_seq = 42;
	mnl_nlmsg_put_extra_header(e, 4);
	err_of(e, &ret);
	CHECK(ret == MNL_CB_ERROR && nlerr.err == EBADMSG);
}

/* PEER_ADD: which address was refused; the peer commands' own words. */
static void error__peer(void)
{
	static const struct {
		int err;
		const char *msg;	/* extack text */
		u32 node;		/* 0: none */
		const char *exp;
	} c[] = {
		{ EEXIST, NULL, 2, "Error: peer 2 exists already" },
		{ ENOENT, NULL, 9, "Error: no peer with node id 9" },
		{ ENOENT, NULL, 0, "Error: No such file or directory" },
		{ EOPNOTSUPP, NULL, 2,
		  "Error: the loaded mrc module has no peer commands (older module?)" },
		{ EPERM, NULL, 2,
		  "Error: Operation not permitted (needs CAP_NET_ADMIN)" },
		{ EEXIST, "peer exists", 2, "Error: peer exists" },
		{ EINVAL, "node_id is not set", 2, "Error: node_id is not set" },
	};
	char req[512], rep[2048], text[1024];
	struct nlattr *nest, *an;
	struct nlmsghdr *r, *e;
	unsigned int i;
	u32 off_v6;
	int ret;

	reset_state();
	r = genl_put(req, mrc_family, MRC_CMD_PEER_ADD, 1, NLM_F_ACK);
	r->nlmsg_seq = 43;
	nest = mnl_attr_nest_start(r, MRC_A_PEER);
	mnl_attr_put_u32(r, MRC_PEER_A_NODE, 2);
	an = mnl_attr_nest_start(r, MRC_PEER_A_ADDRS);
	req_label(r, "address 10.200.0.2");
	mnl_attr_put(r, MRC_PEER_A_ADDR, 4, addr_v4);
	off_v6 = (char *)mnl_nlmsg_get_payload_tail(r) - (char *)r;
	req_label(r, "address fd00::2");
	mnl_attr_put(r, MRC_PEER_A_ADDR, 16, addr_v6);
	mnl_attr_nest_end(r, an);
	mnl_attr_nest_end(r, nest);
	CHECK(req_nlabels == 2 && req_labels[1].offs == off_v6);

	e = mk_err(rep, r, -EINVAL, true, "no local rail reaches this address",
		   off_v6, 0, 0, 0);
	CHECK_STR(err_of(e, &ret),
		  "Error: no local rail reaches this address (address fd00::2)");
	/* An offset that is no address: nothing added. */
	e = mk_err(rep, r, -EINVAL, true, "bad", off_v6 + 4, 0, 0, 0);
	CHECK_STR(err_of(e, &ret), "Error: bad");
	/* One address only: no need to say which. */
	req_nlabels = 1;
	e = mk_err(rep, r, -EINVAL, true, "bad", (int)req_labels[0].offs,
		   0, 0, 0);
	CHECK_STR(err_of(e, &ret), "Error: bad");
	req_nlabels = 0;

	/* The node-id range from the policy. */
	e = mk_err(rep, r, -ERANGE, true, "integer out of range", 28,
		   NL_ATTR_TYPE_U32, 1, 0x7fffffff);
	CHECK_STR(err_of(e, &ret),
		  "Error: integer out of range (valid range 1..2147483647)");

	/*
	 * Plain errnos of peer commands, without extack; with one, the
	 * kernel's words win.
	 */
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		e = mk_err(rep, r, -c[i].err, true, c[i].msg, -1, 0, 0, 0);
		err_of(e, &ret);
		peer_err_format(c[i].node, c[i].node != 0, text, sizeof(text));
		CHECK_STR(text, c[i].exp);
	}
}

/* Peer and event JSON parse (python3, when installed). */
static void json__peer_valid_per_python(void)
{
	char path[] = "/tmp/mrcctl-json-XXXXXX";
	char buf[8192], cmd[512];
	struct peer_list l = { 0 };
	FILE *f;

	reset_state();
	f = py_file(path);
	if (!f)
		return;
	out = f;
	opt.json = opt.stats = true;
	peer_list_cb(mk_peer(buf, MRC_CMD_PEER_GET, 2, P_STATS), &l);
	peer_list_cb(mk_peer(buf, MRC_CMD_PEER_GET, 3, 0), &l);
	peer_list_print(&l);
	peer_list_free(&l);
	event_print(mk_peer(buf, MRC_CMD_PATH_STATE, 2, P_PREV));
	event_print(mk_peer(buf, MRC_CMD_PEER_ADDED, 2, 0));
	event_print(mk_rail(buf, MRC_CMD_RAIL_STATE, 0, "rxe0:1", "rxe0", 1,
			    "eth0", R_FULL | R_STATS | R_DROPS | R_PREV));
	fclose(f);
	out = stdout;
	opt.json = opt.stats = false;
	/* One JSON value per line. */
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; v=[json.loads(x) for x in open(sys.argv[1])]; "
		 "assert len(v)==4 and len(v[0])==2 and len(v[0][0][\"paths\"])==4 "
		 "and v[1][\"peer\"][\"paths\"][0][\"prev_state\"]==\"active\" "
		 "and v[3][\"rail\"][\"drops\"][\"truncated\"]==1' %s", path);
	py_check(cmd, path);
}

static void error__dump_done(void)
{
	char rep[512];
	struct nlmsghdr *d;
	int *err, ret;

	reset_state();
	d = mnl_nlmsg_put_header(rep);
	d->nlmsg_type = NLMSG_DONE;
	d->nlmsg_flags = NLM_F_MULTI;
	d->nlmsg_seq = 7;
	err = mnl_nlmsg_put_extra_header(d, sizeof(int));
	*err = 0;
	err_of(d, &ret);
	CHECK(ret == MNL_CB_STOP && nlerr.err == 0);

	*err = -EMSGSIZE;
	d->nlmsg_flags |= NLM_F_ACK_TLVS;
	mnl_attr_put_strz(d, NLMSGERR_ATTR_MSG, "dump failed");
	CHECK_STR(err_of(d, &ret), "Error: dump failed");
	CHECK(ret == MNL_CB_ERROR && nlerr.err == EMSGSIZE);

	/* NLM_F_DUMP_INTR is EINTR: mrc_dump() retries on it. */
	d = mnl_nlmsg_put_header(rep);
	d->nlmsg_type = mrc_family;
	d->nlmsg_flags = NLM_F_MULTI | NLM_F_DUMP_INTR;
	d->nlmsg_seq = 7;
	mnl_nlmsg_put_extra_header(d, GENL_HDRLEN);
	err_of(d, &ret);
	CHECK(ret == MNL_CB_ERROR && nlerr.err == EINTR);
}

static void misc__matches(void)
{
	CHECK(matches("r", "rail"));
	CHECK(matches("rail", "rail"));
	CHECK(!matches("rails", "rail"));
	CHECK(!matches("", "rail"));
	CHECK(!matches("x", "rail"));
}

/* In-process command dispatch (argument errors need no kernel). */
static void misc__dispatch(void)
{
	char *argv_frob[] = { "frob", NULL };
	char *argv_set[] = { "set", "nope", "1", NULL };
	char *got;
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);

	fflush(stderr);
	dup2(devnull, 2);	/* the error lines themselves: see cli__* */
	CHECK(do_rail(1, argv_frob) == 1);
	CHECK(do_config(1, argv_frob) == 1);
	CHECK(do_config(3, argv_set) == 1);
	CHECK(do_monitor(1, argv_frob) == 1);
	CHECK(do_peer(1, argv_frob) == 1);
	{
		char *add_bad[] = { "add", "0", "addr", "1.2.3.4", NULL };
		char *del_bad[] = { "del", "node", NULL };
		char *show_bad[] = { "show", "2", "3", NULL };

		CHECK(do_peer(4, add_bad) == 1);
		CHECK(do_peer(2, del_bad) == 1);
		CHECK(do_peer(3, show_bad) == 1);
	}
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(devnull);

	cap_begin();
	usage(out);
	got = cap_end();
	{
		char keys[512] = "KEY := { ";

		for (unsigned int k = 0; k < MRC_KNOB_NR; k++) {
			strcat(keys, mrc_knobs[k].name);
			strcat(keys, k + 1 < MRC_KNOB_NR ? " | " : " }");
		}
		CHECK(got && strstr(got, keys));
	}
	CHECK(got && strstr(got, "OBJECT := { rail | peer | config | class | monitor | help }"));
	free(got);
}

/* --- the real binary ($MRCCTL) --- */

struct run {
	int status;		/* exit code, or -1 */
	char out[8192], err[8192];
};

static void slurp(FILE *f, char *buf, size_t sz)
{
	size_t n;

	rewind(f);
	n = fread(buf, 1, sz - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void run_cli(struct run *r, const char *const *argv)
{
	const char *bin = getenv("MRCCTL");
	FILE *fo = tmpfile(), *fe = tmpfile();
	char *args[32];
	pid_t pid;
	int st, i;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (!fo || !fe)
		return;
	args[0] = (char *)bin;
	for (i = 0; argv[i] && i < 30; i++)
		args[i + 1] = (char *)argv[i];
	args[i + 1] = NULL;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(fileno(fo), 1);
		dup2(fileno(fe), 2);
		execv(bin, args);
		_exit(127);
	}
	if (pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st))
		r->status = WEXITSTATUS(st);
	slurp(fo, r->out, sizeof(r->out));
	slurp(fe, r->err, sizeof(r->err));
}

#define RUN(r, ...) run_cli(r, (const char *const[]){ __VA_ARGS__, NULL })

static bool have_cli(void)
{
	const char *bin = getenv("MRCCTL");

	if (bin && !access(bin, X_OK))
		return true;
	printf("# $MRCCTL not set or not executable: check skipped\n");
	return false;
}

static void cli__help_and_version(void)
{
	struct run r;

	if (!have_cli())
		return;
	RUN(&r, "-V");
	CHECK(r.status == 0 && strstr(r.out, "mrcctl ") &&
	      strstr(r.out, "(mrc netlink version 2)"));
	RUN(&r, "--version");
	CHECK(r.status == 0 && strstr(r.out, "mrc netlink version"));
	RUN(&r, "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl", 13) && !*r.err);
	RUN(&r, "-h");
	CHECK(r.status == 0 && strstr(r.out, "--json"));
	RUN(&r, "rail", "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl [OPTIONS] rail", 28));
	RUN(&r, "r", "s", "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl [OPTIONS] rail", 28));
	RUN(&r, "config", "help");
	CHECK(r.status == 0 && strstr(r.out, "min_mtu") &&
	      strstr(r.out, "range 256..4096 (pow2) bytes, default 1024"));
	RUN(&r, "monitor", "help");
	CHECK(r.status == 0 && strstr(r.out, "[rail state]") &&
	      strstr(r.out, "[path state] node 2 plane 1 rxe1:1 ev 3 active -> assumed-bad"));
	RUN(&r, "peer", "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl [OPTIONS] peer", 28) &&
	      strstr(r.out, "PLANE RAIL EV LQPN RQPN STATE SRTT RTO INFLIGHT") &&
	      !*r.err);
	RUN(&r, "p", "a", "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl [OPTIONS] peer", 28));
	RUN(&r, "peer", "show", "help");
	CHECK(r.status == 0 && !strncmp(r.out, "Usage: mrcctl [OPTIONS] peer", 28));
	RUN(&r, "config", "help");
	CHECK(r.status == 0 &&
	      strstr(r.out, "range 0..2147483647, default 0\n") &&
	      strstr(r.out, "range 1..24 QPs, default 8\n") &&
	      strstr(r.out, "range 10..10000 ms, default 250\n"));
}

static void cli__usage_errors(void)
{
	struct run r;

	if (!have_cli())
		return;
	RUN(&r, "-x");
	CHECK(r.status == 1 && strstr(r.err, "Error: unknown option \"-x\""));
	RUN(&r, "--bogus");
	CHECK(r.status == 1 && strstr(r.err, "Error: bad option \"--bogus\""));
	run_cli(&r, (const char *const[]){ NULL });
	CHECK(r.status == 1 && strstr(r.err, "Usage:"));
	RUN(&r, "frob");
	CHECK(r.status == 1 &&
	      !strcmp(r.err, "Error: unknown object \"frob\", try \"mrcctl help\"\n"));
	RUN(&r, "rail", "frob");
	CHECK(r.status == 1 && strstr(r.err, "Error: unknown command \"frob\""));
	RUN(&r, "rail", "show", "a", "b");
	CHECK(r.status == 1 && strstr(r.err, "unexpected argument \"b\""));
	RUN(&r, "rail", "show", "id", "x");
	CHECK(r.status == 1 && strstr(r.err, "invalid rail id \"x\""));
	RUN(&r, "config", "set");
	CHECK(r.status == 1 && strstr(r.err, "needs KEY VALUE"));
	RUN(&r, "config", "set", "nope", "1");
	{
		char want[512] = "Error: unknown key \"nope\"; known keys: ";

		for (unsigned int k = 0; k < MRC_KNOB_NR; k++) {
			strcat(want, mrc_knobs[k].name);
			strcat(want, k + 1 < MRC_KNOB_NR ? ", " : "\n");
		}
		CHECK(r.status == 1 && !strcmp(r.err, want));
	}
	RUN(&r, "config", "show", "nope");
	CHECK(r.status == 1 && strstr(r.err, "Error: unknown key \"nope\""));
	RUN(&r, "config", "set", "min_mtu");
	CHECK(r.status == 1 &&
	      !strcmp(r.err, "Error: missing value for key \"min_mtu\"\n"));
	RUN(&r, "config", "set", "min_mtu", "12KB");
	CHECK(r.status == 1 && strstr(r.err, "Error: invalid value \"12KB\""));
	RUN(&r, "config", "set", "min_mtu", "");
	CHECK(r.status == 1 && strstr(r.err, "Error: invalid value \"\""));
	RUN(&r, "config", "set", "min_mtu", "-1");
	CHECK(r.status == 1 && strstr(r.err, "Error: invalid value \"-1\""));
	RUN(&r, "config", "set", "max_rails", "4G");
	CHECK(r.status == 1 && strstr(r.err, "is too large"));
	RUN(&r, "config", "set", "min_mtu", "1K", "min_mtu", "2K");
	CHECK(r.status == 1 && strstr(r.err, "given twice"));
	RUN(&r, "monitor", "frob");
	CHECK(r.status == 1 && strstr(r.err, "unexpected argument \"frob\""));
}

/* Peer commands: every refusal that needs no kernel. */
static void cli__peer_usage_errors(void)
{
	static const struct {
		const char *argv[10];
		const char *err;	/* the whole of stderr */
	} c[] = {
		{ { "peer", "frob" },
		  "Error: unknown command \"frob\", try \"mrcctl peer help\"\n" },
		{ { "peer", "add" },
		  "Error: peer add needs NODE addr ADDR[,ADDR...], try \"mrcctl peer help\"\n" },
		{ { "peer", "add", "2" },
		  "Error: peer add needs at least one address (addr ADDR[,ADDR...])\n" },
		{ { "peer", "add", "x", "addr", "10.0.0.2" },
		  "Error: invalid node id \"x\" (expected 1..2147483647)\n" },
		{ { "peer", "add", "0", "addr", "10.0.0.2" },
		  "Error: invalid node id \"0\" (expected 1..2147483647)\n" },
		{ { "peer", "add", "2147483648", "addr", "10.0.0.2" },
		  "Error: invalid node id \"2147483648\" (expected 1..2147483647)\n" },
		{ { "peer", "add", "-2", "addr", "10.0.0.2" },
		  "Error: invalid node id \"-2\" (expected 1..2147483647)\n" },
		{ { "peer", "add", "2", "addr", "10.0.0" },
		  "Error: invalid address \"10.0.0\" (expected IPv4 or IPv6)\n" },
		{ { "peer", "add", "2", "addr", "10.0.0.2,fd00::2,zz::" },
		  "Error: invalid address \"zz::\" (expected IPv4 or IPv6)\n" },
		{ { "peer", "add", "2", "addr", "10.0.0.2," },
		  "Error: invalid address \"\" (expected IPv4 or IPv6)\n" },
		{ { "peer", "add", "2", "addr", "1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4,"
		    "1.0.0.5,1.0.0.6,1.0.0.7,1.0.0.8,1.0.0.9" },
		  "Error: too many addresses (at most 8, one per plane)\n" },
		{ { "peer", "add", "2", "addr", "1.0.0.1,1.0.0.2,1.0.0.3,1.0.0.4",
		    "addr", "1.0.0.5,1.0.0.6,1.0.0.7,1.0.0.8", "addr", "::1" },
		  "Error: too many addresses (at most 8, one per plane)\n" },
		{ { "peer", "add", "2", "addr" },
		  "Error: missing value for \"addr\"\n" },
		{ { "peer", "add", "2", "via", "10.0.0.2" },
		  "Error: unexpected argument \"via\", try \"mrcctl peer help\"\n" },
		{ { "peer", "del" },
		  "Error: peer del needs NODE, try \"mrcctl peer help\"\n" },
		{ { "peer", "del", "node" },
		  "Error: peer del needs NODE, try \"mrcctl peer help\"\n" },
		{ { "peer", "del", "2x" },
		  "Error: invalid node id \"2x\" (expected 1..2147483647)\n" },
		{ { "peer", "del", "2", "3" },
		  "Error: unexpected argument \"3\", try \"mrcctl peer help\"\n" },
		{ { "peer", "show", "node", "0x80000000" },
		  "Error: invalid node id \"0x80000000\" (expected 1..2147483647)\n" },
		{ { "-j", "peer", "show", "2", "extra" },
		  "Error: unexpected argument \"extra\", try \"mrcctl peer help\"\n" },
		{ { "monitor", "peer", "frob" },
		  "Error: unexpected argument \"frob\", try \"mrcctl monitor help\"\n" },
	};
	struct run r;
	unsigned int i;

	if (!have_cli())
		return;
	for (i = 0; i < ARRAY_SIZE(c); i++) {
		run_cli(&r, c[i].argv);
		CHECK(r.status == 1 && !strcmp(r.err, c[i].err) && !*r.out);
		if (strcmp(r.err, c[i].err)) {
			printf("# case %u:\n", i);
			t_show("expected", c[i].err);
			t_show("got     ", r.err);
		}
	}
}

/* 1: family "mrc" registered, 0: not, -1: cannot tell. */
static int family_present(void)
{
	char buf[256];
	struct nlmsghdr *nlh;
	int ret;

	if (nl_open())
		return -1;
	nlh = genl_put(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, NLM_F_ACK);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME);
	ret = nl_request(nlh, NULL, NULL);
	nl_close();
	if (!ret)
		return 1;
	return nlerr.err == ENOENT ? 0 : -1;
}

static bool cli__module_not_loaded_skip(void)
{
	return family_present() != 0;
}

static void cli__module_not_loaded(void)
{
	static const char *const msg =
		"Error: mrc module not loaded (try: modprobe mrc)\n";
	struct run r;

	if (!have_cli())
		return;
	RUN(&r, "rail", "show");
	CHECK(r.status == 1 && !strcmp(r.err, msg) && !*r.out);
	RUN(&r, "-j", "rail", "show", "rxe0:1");
	CHECK(r.status == 1 && !strcmp(r.err, msg) && !*r.out);
	RUN(&r, "config", "show");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "config", "set", "min_mtu", "4K");	/* valid syntax */
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "monitor");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "monitor", "peer", "path");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "peer", "show");
	CHECK(r.status == 1 && !strcmp(r.err, msg) && !*r.out);
	RUN(&r, "-j", "-s", "peer", "show", "node", "2");
	CHECK(r.status == 1 && !strcmp(r.err, msg) && !*r.out);
	/* Valid syntax: refused only for want of the module. */
	RUN(&r, "peer", "add", "2", "addr", "10.200.0.2,fd00::2");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "peer", "add", "node", "0x7fffffff", "addr", "10.200.0.2",
	    "addr", "10.200.1.2");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
	RUN(&r, "peer", "del", "2");
	CHECK(r.status == 1 && !strcmp(r.err, msg));
}

static const struct {
	const char *name;
	void (*fn)(void);
	bool (*skip)(void);
} tests[] = {
#define T(fn)		{ #fn, fn, NULL }
#define T_SKIP(fn, s)	{ #fn, fn, s }
	T(json__escape),
	T(json__valid_per_python),
	T(json__structure),
	T(rail__plain),
	T(rail__plain_stats),
	T(rail__json),
	T(rail__malformed),
	T(rail__filter),
	T(peer__plain),
	T(peer__plain_minimal),
	T(peer__sched),
	T(event__class_fallback),
	T(peer__json),
	T(peer__credit),
	T(peer__list_sorted),
	T(peer__malformed),
	T(peer__fmt_us),
	T(parse__node),
	T(parse__addrs),
	T(config__table),
	T(event__plain),
	T(event__json),
	T(event__peer_plain),
	T(event__peer_json),
	T(error__extack),
	T(error__peer),
	T(json__peer_valid_per_python),
	T(error__dump_done),
	T(misc__matches),
	T(misc__dispatch),
	T(cli__help_and_version),
	T(cli__usage_errors),
	T(cli__peer_usage_errors),
	T_SKIP(cli__module_not_loaded, cli__module_not_loaded_skip),
#undef T
#undef T_SKIP
};

int main(void)
{
	unsigned int i, failed = 0;

	out = stdout;
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%zu\n", ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		if (tests[i].skip && tests[i].skip()) {
			printf("ok %u - %s # SKIP mrc family registered or netlink unusable\n",
			       i + 1, tests[i].name);
			continue;
		}
		t_failed = false;
		reset_state();
		tests[i].fn();
		printf("%sok %u - %s\n", t_failed ? "not " : "", i + 1,
		       tests[i].name);
		failed += t_failed;
	}
	printf("# %u of %zu failed\n", failed, ARRAY_SIZE(tests));
	return failed ? 1 : 0;
}
#endif /* MRCCTL_SELFTEST */
