// SPDX-License-Identifier: GPL-2.0
/*
 * nl_bad - send malformed and unprivileged requests to the "mrc" generic
 * netlink family and check that each is refused with the right errno and an
 * extack message, and that the configuration is unchanged afterwards.
 *
 * Usage: nl_bad            (as root: bad input, expects refusals)
 *        nl_bad --unpriv   (run without CAP_NET_ADMIN: expects EPERM on
 *                           every state-changing op, reads still work)
 *
 * Output: TAP 13.  Exit 0 iff every check passed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/mrc.h>

static struct mnl_socket *nl;
static unsigned int portid, seq;
static uint16_t family;
static int tests, failures;

/* Result of one request: errno (0 = ok), extack text, and the reply. */
struct result {
	int err;
	char msg[256];
	uint32_t config[MRC_CONFIG_A_MAX + 1];
	bool have_config[MRC_CONFIG_A_MAX + 1];
};

static void check(bool cond, const char *fmt, ...)
{
	va_list ap;

	tests++;
	if (!cond)
		failures++;
	printf("%s %d - ", cond ? "ok" : "not ok", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int parse_ack_attr(const struct nlattr *a, void *data)
{
	struct result *r = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
		snprintf(r->msg, sizeof(r->msg), "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

static int parse_config_attr(const struct nlattr *a, void *data)
{
	struct result *r = data;
	uint16_t t = mnl_attr_get_type(a);

	if (t <= MRC_CONFIG_A_MAX && mnl_attr_validate(a, MNL_TYPE_U32) >= 0) {
		r->config[t] = mnl_attr_get_u32(a);
		r->have_config[t] = true;
	}
	return MNL_CB_OK;
}

static int parse_top_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == MRC_A_CONFIG)
		mnl_attr_parse_nested(a, parse_config_attr, data);
	return MNL_CB_OK;
}

static int family_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
		*(uint16_t *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	if (nlh->nlmsg_type == GENL_ID_CTRL)
		return mnl_attr_parse(nlh, sizeof(struct genlmsghdr),
				      family_attr, data);
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), parse_top_attr,
			      data);
}

/* Reads replies until the ack; fills @r. */
static void transact(struct nlmsghdr *nlh, struct result *r, void *cbdata)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	int n;

	memset(r, 0, sizeof(*r));
	nlh->nlmsg_flags |= NLM_F_ACK;
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0) {
		r->err = errno;
		return;
	}
	for (;;) {
		struct nlmsghdr *h;
		int len;

		n = mnl_socket_recvfrom(nl, buf, sizeof(buf));
		if (n < 0) {
			r->err = errno;
			return;
		}
		len = n;
		for (h = (struct nlmsghdr *)buf; mnl_nlmsg_ok(h, len);
		     h = mnl_nlmsg_next(h, &len)) {
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = mnl_nlmsg_get_payload(h);
				unsigned int off = sizeof(*e);

				r->err = -e->error;
				if (!(h->nlmsg_flags & NLM_F_CAPPED))
					off += e->msg.nlmsg_len -
					       sizeof(struct nlmsghdr);
				if (h->nlmsg_flags & NLM_F_ACK_TLVS)
					mnl_attr_parse(h, off, parse_ack_attr,
						       r);
				return;
			}
			if (h->nlmsg_type == NLMSG_DONE)
				return;
			data_cb(h, cbdata ? cbdata : r);
		}
	}
}

static struct nlmsghdr *start(char *buf, uint16_t type, uint8_t cmd,
			      uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = MRC_GENL_VERSION;
	return nlh;
}

static struct nlmsghdr *mrc_msg(char *buf, uint8_t cmd)
{
	return start(buf, family, cmd, 0);
}

/* A request @cmd whose @type nest is left open in *@nest. */
static struct nlmsghdr *nest_msg(char *buf, uint8_t cmd, uint16_t type,
				 struct nlattr **nest)
{
	struct nlmsghdr *nlh = mrc_msg(buf, cmd);

	*nest = mnl_attr_nest_start(nlh, type);
	return nlh;
}

/* Closes @nest and sends @nlh; the outcome in @r. */
static void send_nest(struct nlmsghdr *nlh, struct nlattr *nest,
		      struct result *r)
{
	mnl_attr_nest_end(nlh, nest);
	transact(nlh, r, NULL);
}

static void config_get(struct result *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];

	transact(mrc_msg(buf, MRC_CMD_CONFIG_GET), r, NULL);
}

/* Sends CONFIG_SET with one knob set to a u32. */
static void set_u32(uint16_t attr, uint32_t v, struct result *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlattr *nest;
	struct nlmsghdr *nlh = nest_msg(buf, MRC_CMD_CONFIG_SET, MRC_A_CONFIG,
					&nest);

	mnl_attr_put_u32(nlh, attr, v);
	send_nest(nlh, nest, r);
}

static bool refused(const struct result *r, int want_err)
{
	return r->err == want_err && r->msg[0];
}

static void expect(const struct result *r, int want_err, const char *what)
{
	check(refused(r, want_err), "%s: errno %d (want %d), extack \"%s\"",
	      what, r->err, want_err, r->msg);
}

static void bad_input(const struct result *before)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct result r;
	uint32_t rails = before->config[MRC_CONFIG_A_MAX_RAILS];

	/* Positive control: a valid set works (and is put back below). */
	set_u32(MRC_CONFIG_A_MAX_RAILS, rails + 1, &r);
	check(r.err == 0, "valid config set accepted (errno %d \"%s\")",
	      r.err, r.msg);
	set_u32(MRC_CONFIG_A_MAX_RAILS, rails, &r);
	check(r.err == 0, "valid config set back to %u", rails);

	/* Missing attributes. */
	transact(mrc_msg(buf, MRC_CMD_CONFIG_SET), &r, NULL);
	expect(&r, EINVAL, "config set without config nest");

	nlh = nest_msg(buf, MRC_CMD_CONFIG_SET, MRC_A_CONFIG, &nest);
	send_nest(nlh, nest, &r);
	expect(&r, EINVAL, "config set with empty config nest");

	transact(mrc_msg(buf, MRC_CMD_RAIL_GET), &r, NULL);
	expect(&r, EINVAL, "rail get without rail nest");

	nlh = nest_msg(buf, MRC_CMD_RAIL_GET, MRC_A_RAIL, &nest);
	send_nest(nlh, nest, &r);
	expect(&r, EINVAL, "rail get without id or name");

	/* Unknown attributes. */
	nlh = nest_msg(buf, MRC_CMD_CONFIG_SET, MRC_A_CONFIG, &nest);
	mnl_attr_put_u32(nlh, MRC_CONFIG_A_MAX + 7, 1);
	send_nest(nlh, nest, &r);
	expect(&r, EINVAL, "unknown knob attribute in config nest");

	nlh = mrc_msg(buf, MRC_CMD_CONFIG_SET);
	mnl_attr_put_u32(nlh, MRC_A_MAX + 5, 1);
	transact(nlh, &r, NULL);
	expect(&r, EINVAL, "unknown top-level attribute");

	nlh = nest_msg(buf, MRC_CMD_RAIL_GET, MRC_A_RAIL, &nest);
	mnl_attr_put_u32(nlh, MRC_RAIL_A_MTU, 4096);
	send_nest(nlh, nest, &r);
	expect(&r, EINVAL, "read-only rail attribute in a request");

	/* Wrong types. */
	nlh = nest_msg(buf, MRC_CMD_CONFIG_SET, MRC_A_CONFIG, &nest);
	mnl_attr_put_u16(nlh, MRC_CONFIG_A_MAX_RAILS, 8);
	send_nest(nlh, nest, &r);
	expect(&r, EINVAL, "knob as u16 instead of u32");

	nlh = nest_msg(buf, MRC_CMD_CONFIG_SET, MRC_A_CONFIG, &nest);
	mnl_attr_put_u64(nlh, MRC_CONFIG_A_MIN_MTU, 4096);
	send_nest(nlh, nest, &r);
	expect(&r, EINVAL, "knob as u64 instead of u32");

	nlh = mrc_msg(buf, MRC_CMD_CONFIG_SET);
	mnl_attr_put_strz(nlh, MRC_A_CONFIG, "min_mtu=4096");
	transact(nlh, &r, NULL);
	expect(&r, EINVAL, "string where the config nest belongs");

	nlh = nest_msg(buf, MRC_CMD_RAIL_GET, MRC_A_RAIL, &nest);
	mnl_attr_put(nlh, MRC_RAIL_A_NAME, 4, "rxe0");	/* no NUL */
	send_nest(nlh, nest, &r);
	expect(&r, EINVAL, "rail name without NUL terminator");

	/* Out of range. */
	set_u32(MRC_CONFIG_A_MAX_RAILS, 0, &r);
	expect(&r, ERANGE, "max_rails 0 (below minimum)");
	set_u32(MRC_CONFIG_A_MAX_RAILS, 1u << 31, &r);
	expect(&r, ERANGE, "max_rails 2^31 (above maximum)");
	set_u32(MRC_CONFIG_A_MIN_MTU, 8192, &r);
	expect(&r, ERANGE, "min_mtu 8192 (above maximum)");
	set_u32(MRC_CONFIG_A_MIN_MTU, 3000, &r);
	expect(&r, EINVAL, "min_mtu 3000 (not a power of two)");
	check(strstr(r.msg, "power of two") != NULL,
	      "extack says why: \"%s\"", r.msg);

	/* All or nothing: one bad knob refuses the whole request. */
	nlh = nest_msg(buf, MRC_CMD_CONFIG_SET, MRC_A_CONFIG, &nest);
	mnl_attr_put_u32(nlh, MRC_CONFIG_A_MAX_RAILS, rails + 3);
	mnl_attr_put_u32(nlh, MRC_CONFIG_A_MIN_MTU, 3000);
	send_nest(nlh, nest, &r);
	expect(&r, EINVAL, "good + bad knob in one request");

	/* Unknown rail, unknown command. */
	nlh = nest_msg(buf, MRC_CMD_RAIL_GET, MRC_A_RAIL, &nest);
	mnl_attr_put_strz(nlh, MRC_RAIL_A_NAME, "nosuchdev:9");
	send_nest(nlh, nest, &r);
	expect(&r, ENODEV, "rail get of a rail that does not exist");

	transact(mrc_msg(buf, MRC_CMD_MAX + 10), &r, NULL);
	check(r.err == EOPNOTSUPP, "unknown command: errno %d (want %d)",
	      r.err, EOPNOTSUPP);

	/* Notifications are not requests. */
	transact(mrc_msg(buf, MRC_CMD_RAIL_ADDED), &r, NULL);
	check(r.err == EOPNOTSUPP, "event command as request: errno %d",
	      r.err);
}

/* PEER_ADD or PEER_DEL of @node (one address that answers nothing). */
static void peer_op_addr(uint8_t cmd, uint32_t node, const uint8_t *addr,
			 struct result *r)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlattr *nest, *addrs;
	struct nlmsghdr *nlh = nest_msg(buf, cmd, MRC_A_PEER, &nest);

	mnl_attr_put_u32(nlh, MRC_PEER_A_NODE, node);
	if (cmd == MRC_CMD_PEER_ADD) {
		addrs = mnl_attr_nest_start(nlh, MRC_PEER_A_ADDRS);
		mnl_attr_put(nlh, MRC_PEER_A_ADDR, 4, addr);
		mnl_attr_nest_end(nlh, addrs);
	}
	send_nest(nlh, nest, r);
}

/* A peer request for @node at 10.200.0.250 (an address of no node). */
static void peer_op(uint8_t cmd, uint32_t node, struct result *r)
{
	static const uint8_t addr[4] = { 10, 200, 0, 250 };

	peer_op_addr(cmd, node, addr, r);
}

/*
 * The node id can never be another configured peer's: setting it to one
 * is refused (nlfuzz found that config-set took it, leaving a peer with
 * this node's own id).  A peer with the node's own id is the node itself,
 * with addresses of its own (here 127.0.0.1; an address of no host is
 * refused), and while it is, the node id cannot change.
 */
static void node_id_of_a_peer(const struct result *before)
{
	static const uint8_t loopback[4] = { 127, 0, 0, 1 };
	uint32_t id = before->config[MRC_CONFIG_A_NODE_ID];
	struct result r, now;

	set_u32(MRC_CONFIG_A_NODE_ID, 5, &r);
	check(r.err == 0, "node_id 5 set (errno %d)", r.err);
	peer_op(MRC_CMD_PEER_ADD, 6, &r);
	check(r.err == 0, "peer 6 added (errno %d \"%s\")", r.err, r.msg);
	peer_op(MRC_CMD_PEER_ADD, 5, &r);
	expect(&r, EINVAL, "peer with this node's own id (5), not its address");
	check(strstr(r.msg, "not local") != NULL, "extack says why: \"%s\"",
	      r.msg);
	peer_op_addr(MRC_CMD_PEER_ADD, 5, loopback, &r);
	check(r.err == 0, "the node its own peer (5 at 127.0.0.1) (errno %d \"%s\")",
	      r.err, r.msg);
	set_u32(MRC_CONFIG_A_NODE_ID, 7, &r);
	expect(&r, EBUSY, "node_id set while the node is its own peer");
	check(strstr(r.msg, "own peer") != NULL, "extack says why: \"%s\"",
	      r.msg);
	peer_op(MRC_CMD_PEER_DEL, 5, &r);
	check(r.err == 0, "its own peer deleted (errno %d)", r.err);
	set_u32(MRC_CONFIG_A_NODE_ID, 6, &r);
	expect(&r, EEXIST, "node_id set to peer 6's id");
	config_get(&now);
	check(now.config[MRC_CONFIG_A_NODE_ID] == 5,
	      "node_id still 5 (%u)", now.config[MRC_CONFIG_A_NODE_ID]);
	peer_op(MRC_CMD_PEER_DEL, 6, &r);
	check(r.err == 0, "peer 6 deleted (errno %d)", r.err);
	set_u32(MRC_CONFIG_A_NODE_ID, 6, &r);
	check(r.err == 0, "then node_id 6 is taken (errno %d)", r.err);
	set_u32(MRC_CONFIG_A_NODE_ID, id, &r);
	check(r.err == 0, "node_id back to %u (errno %d)", id, r.err);
}

static void unpriv(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct nlmsghdr *nlh;
	struct result r;

	config_get(&r);
	check(r.err == 0 && r.have_config[MRC_CONFIG_A_MIN_MTU],
	      "unprivileged config get works (errno %d)", r.err);

	nlh = start(buf, family, MRC_CMD_RAIL_GET, NLM_F_DUMP);
	transact(nlh, &r, NULL);
	check(r.err == 0, "unprivileged rail dump works (errno %d)", r.err);

	set_u32(MRC_CONFIG_A_MIN_MTU, 4096, &r);
	check(r.err == EPERM, "unprivileged config set refused: errno %d (want EPERM)",
	      r.err);
	set_u32(MRC_CONFIG_A_MAX_RAILS, 1, &r);
	check(r.err == EPERM, "unprivileged max_rails set refused: errno %d",
	      r.err);
}

int main(int argc, char **argv)
{
	bool unprivileged = argc > 1 && !strcmp(argv[1], "--unpriv");
	char buf[MNL_SOCKET_BUFFER_SIZE];
	struct result before, after;
	struct nlmsghdr *nlh;
	int one = 1, i;

	printf("TAP version 13\n");
	nl = mnl_socket_open(NETLINK_GENERIC);
	if (!nl || mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		perror("netlink socket");
		printf("Bail out! no netlink socket\n");
		return 1;
	}
	portid = mnl_socket_get_portid(nl);
	mnl_socket_setsockopt(nl, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl, NETLINK_CAP_ACK, &one, sizeof(one));

	nlh = start(buf, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME);
	transact(nlh, &before, &family);
	if (!family) {
		printf("Bail out! family %s not registered (errno %d)\n",
		       MRC_GENL_NAME, before.err);
		return 1;
	}

	config_get(&before);
	check(before.err == 0, "config get works (errno %d)", before.err);

	if (unprivileged)
		unpriv();
	else {
		bad_input(&before);
		node_id_of_a_peer(&before);
	}

	config_get(&after);
	for (i = 1; i <= MRC_CONFIG_A_MAX; i++)
		check(after.have_config[i] &&
		      after.config[i] == before.config[i],
		      "knob attr %d unchanged afterwards (%u -> %u)", i,
		      before.config[i], after.config[i]);

	printf("1..%d\n", tests);
	printf("# %d passed, %d failed\n", tests - failures, failures);
	mnl_socket_close(nl);
	return failures ? 1 : 0;
}
