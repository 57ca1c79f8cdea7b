/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nl.h - mrcctl's netlink plumbing over libmnl: the socket, resolving the
 * "mrc" family, building requests, do and dump, decoding the top level of
 * mrc messages, and the errors (extended ACK) said the way iproute2 says
 * them.
 */
#ifndef _MRCCTL_NL_H
#define _MRCCTL_NL_H

#include <stdbool.h>
#include <stddef.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/mrc.h>

#include "mrc/core/compat.h"

/* The error of the last request, from its NLMSG_ERROR and extended ACK. */
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

extern struct nl_error nlerr;

/*
 * Where each knob of the last CONFIG_SET request, or each address of the
 * last PEER_ADD, sits: an extended ACK's ATTR_OFFS then names the one the
 * kernel refused, "key min_mtu" or "address 10.0.0.1".
 */
#define REQ_LABELS_MAX	64
struct req_label {
	u32 offs;
	char label[64];
};

extern struct req_label req_labels[REQ_LABELS_MAX];
extern unsigned int req_nlabels;

/* Remembers that the next attribute put into @nlh is @label. */
void req_label(const struct nlmsghdr *nlh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

extern struct mnl_socket *nl;
extern u16 mrc_family;
extern u32 mrc_events_grp;
extern bool mrc_events_grp_found;
/* Receive buffer of requests and of the monitor. */
extern char rxbuf[65536];

void nlerr_set(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* "Error: <extack text or strerror>[ (valid range A..B)][ (key K)]..." */
void nlerr_format(const struct nl_error *e, char *buf, size_t sz);
void nlerr_print(void);

/* Runs the callbacks over one buffer of received messages. */
int nl_run(const void *buf, size_t len, unsigned int seq, unsigned int portid,
	   mnl_cb_t cb, void *data);
int nl_open(void);
void nl_close(void);
/*
 * Sends @nlh and feeds the replies to @cb until the ACK, the end of the
 * dump or an error.  Returns 0, or -1 with nlerr filled in.
 */
int nl_request(struct nlmsghdr *nlh, mnl_cb_t cb, void *data);
struct nlmsghdr *genl_put(void *buf, u16 family, u8 cmd, u8 version,
			  u16 flags);
/* A request of the mrc family. */
struct nlmsghdr *mrc_put(void *buf, u8 cmd, u16 flags);
/*
 * Dumps @cmd, feeding the replies to @cb; @reset empties @data before each
 * try.  Returns 0, -1 with nlerr filled in, or -2 if no new socket
 * (reported).
 */
int mrc_dump(u8 cmd, mnl_cb_t cb, void *data, void (*reset)(void *));
/* Opens the socket and resolves the "mrc" family.  0 or -1 (reported). */
int mrc_connect(void);

/* ---- decoding ---- */

/* nlerr says attribute @type of @where is malformed; MNL_CB_ERROR. */
int bad_attr(const char *where, unsigned int type);
/*
 * Room for one more in the array @v of *@cap elements of @size bytes, @n
 * of them used: @v, or @v grown (to @first elements, then doubling), or
 * NULL with nlerr set and @v untouched.
 */
void *grow(void *v, size_t n, size_t *cap, size_t size, size_t first);
/* Counter @t (a u64 attribute) into @v[@t], its bit set in *@present. */
int counter_attr(const struct nlattr *a, const char *where, unsigned int t,
		 u64 *v, u32 *present);
/* The nest @a (attribute @t of @where) through @cb.  0, or -1 (nlerr). */
int nest_parse(const struct nlattr *a, const char *where, unsigned int t,
	       mnl_attr_cb_t cb, void *data);

/* An mrc message: its command and its top-level nests. */
struct mrc_msg {
	u8 cmd;
	const struct nlattr *nest[MRC_A_MAX + 1];	/* MRC_A_RAIL, ... */
};

int mrc_msg_parse(const struct nlmsghdr *nlh, struct mrc_msg *m);
/*
 * For a request's reply callback: the top-level nest @type of @nlh in
 * *@nest, NULL if it has none or is no mrc message.  0, or -1 with nlerr
 * set if it is malformed.
 */
int reply_nest(const struct nlmsghdr *nlh, unsigned int type,
	       const struct nlattr **nest);

#endif /* _MRCCTL_NL_H */
