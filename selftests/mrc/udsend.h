/* SPDX-License-Identifier: GPL-2.0 */
/*
 * udsend - a UD queue pair of the test tools' own on a local rxe device,
 * with an address handle to one target (rogue.c, garbage.c).
 */
#ifndef _MRC_UDSEND_H
#define _MRC_UDSEND_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/verbs.h>

struct ud_sender {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	uint8_t *buf;		/* registered, buf_len bytes */
	size_t buf_len;
	unsigned int depth;	/* send queue (and CQ) depth */
	int gid_index;		/* our RoCEv2 IPv4 GID */
};

/*
 * ud_open() - opens @dev's port 1, a UD QP of @depth sends in RTS, a
 * registered buffer of @buf_len bytes and an address handle to the
 * RoCEv2 IPv4 address @target whose packets carry IPv4 TOS @tos.
 * Exits with a message on stderr if any step fails.
 */
void ud_open(struct ud_sender *s, const char *dev, struct in_addr target,
	     uint8_t tos, unsigned int depth, size_t buf_len);

/*
 * ud_post() - posts @len bytes at @off of the buffer to QP number @qpn
 * with @qkey (signalled).  Returns 0 or an errno.
 */
int ud_post(struct ud_sender *s, size_t off, uint32_t len, uint32_t qpn,
	    uint32_t qkey);

/* One datagram of a batch: @len bytes at @off of the buffer to @qpn. */
struct ud_msg {
	size_t off;
	uint32_t len;
	uint32_t qpn;
};

/*
 * ud_post_n() - posts @n datagrams (@n <= 32) with @qkey in one call, so
 * one doorbell, signalled.  Returns 0 or an errno.
 */
int ud_post_n(struct ud_sender *s, const struct ud_msg *m, unsigned int n,
	      uint32_t qkey);

/*
 * ud_reap() - polls up to @max completions; exits if one failed.
 * Returns how many were polled.
 */
int ud_reap(struct ud_sender *s, int max);

/*
 * ud_parse_qpns() - a comma-separated list of numbers (QP numbers) into
 * @l, at most @max; exits with a message if it is not one.  Returns the
 * count.
 */
uint32_t ud_parse_qpns(const char *s, uint32_t *l, uint32_t max);

#endif /* _MRC_UDSEND_H */
