// SPDX-License-Identifier: GPL-2.0
/*
 * nl.c - netlink plumbing of mrcctl (see nl.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nl.h"

struct nl_error nlerr;
struct req_label req_labels[REQ_LABELS_MAX];
unsigned int req_nlabels;

_Static_assert(MRC_PEER_MAX_ADDRS <= REQ_LABELS_MAX, "too many addresses");

void req_label(const struct nlmsghdr *nlh, const char *fmt, ...)
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

struct mnl_socket *nl;
static unsigned int nl_portid, nl_seq;
u16 mrc_family;
static u32 mrc_family_version;
u32 mrc_events_grp;
bool mrc_events_grp_found;
char rxbuf[65536];

void nlerr_set(int err, const char *fmt, ...)
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
int nl_run(const void *buf, size_t len, unsigned int seq, unsigned int portid,
	   mnl_cb_t cb, void *data)
{
	int ret;

	errno = 0;
	ret = mnl_cb_run2(buf, len, seq, portid, cb, data, ctl_cbs,
			  ARRAY_SIZE(ctl_cbs));
	if (ret == MNL_CB_ERROR && !nlerr.err)
		nlerr_set(errno ? errno : EPROTO, NULL);
	return ret;
}

void nl_close(void)
{
	if (nl)
		mnl_socket_close(nl);
	nl = NULL;
}

int nl_open(void)
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
int nl_request(struct nlmsghdr *nlh, mnl_cb_t cb, void *data)
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

struct nlmsghdr *genl_put(void *buf, u16 family, u8 cmd, u8 version,
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
struct nlmsghdr *mrc_put(void *buf, u8 cmd, u16 flags)
{
	return genl_put(buf, mrc_family, cmd, MRC_GENL_VERSION, flags);
}

/*
 * Dumps @cmd, feeding the replies to @cb; @reset empties @data before each
 * try.  NLM_F_DUMP_INTR (the objects changed under the dump) makes it start
 * again on a fresh socket (the old one still holds the rest).  Returns 0,
 * -1 with nlerr filled in, or -2 if no new socket (reported).
 */
int mrc_dump(u8 cmd, mnl_cb_t cb, void *data, void (*reset)(void *))
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
void nlerr_format(const struct nl_error *e, char *buf, size_t sz)
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

void nlerr_print(void)
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
int mrc_connect(void)
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
/* decoding                                                            */
/* ------------------------------------------------------------------ */

int bad_attr(const char *where, unsigned int type)
{
	nlerr_set(EPROTO, "malformed %s attribute %u from the kernel",
		  where, type);
	return MNL_CB_ERROR;
}

void *grow(void *v, size_t n, size_t *cap, size_t size, size_t first)
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

int counter_attr(const struct nlattr *a, const char *where, unsigned int t,
		 u64 *v, u32 *present)
{
	if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
		return bad_attr(where, t);
	v[t] = mnl_attr_get_u64(a);
	*present |= 1u << t;
	return MNL_CB_OK;
}

int nest_parse(const struct nlattr *a, const char *where, unsigned int t,
	       mnl_attr_cb_t cb, void *data)
{
	if (mnl_attr_validate(a, MNL_TYPE_NESTED) < 0) {
		bad_attr(where, t);
		return -1;
	}
	return mnl_attr_parse_nested(a, cb, data) < 0 ? -1 : 0;
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

int mrc_msg_parse(const struct nlmsghdr *nlh, struct mrc_msg *m)
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

int reply_nest(const struct nlmsghdr *nlh, unsigned int type,
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
