// SPDX-License-Identifier: GPL-2.0
/*
 * t_error.c - mrcctl self-test: netlink errors (extended ACK), abbreviations, dispatch
 */
#include "selftest.h"

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

void error__extack(void)
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
void error__peer(void)
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

void error__dump_done(void)
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

void misc__matches(void)
{
	CHECK(matches("r", "rail"));
	CHECK(matches("rail", "rail"));
	CHECK(!matches("rails", "rail"));
	CHECK(!matches("", "rail"));
	CHECK(!matches("x", "rail"));
}

/* In-process command dispatch (argument errors need no kernel). */
void misc__dispatch(void)
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
	CHECK(got && strstr(got, "OBJECT := { rail | peer | config | class | key | monitor | help }"));
	free(got);
}

