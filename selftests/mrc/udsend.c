// SPDX-License-Identifier: GPL-2.0
/*
 * udsend - a UD queue pair of the test tools' own (udsend.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "udsend.h"

static void fail(const char *what, const char *dev)
{
	fprintf(stderr, "udsend: %s: %s: %s\n", dev, what, strerror(errno));
	exit(1);
}

/* The index of @c's first RoCEv2 IPv4 GID on port 1, or -1. */
static int find_gid(struct ibv_context *c, union ibv_gid *gid)
{
	static const uint8_t v4[12] = { [10] = 0xff, [11] = 0xff };
	struct ibv_port_attr pa;
	int i;

	if (ibv_query_port(c, 1, &pa))
		return -1;
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid(c, 1, i, gid))
			continue;
		if (!memcmp(gid->raw, v4, sizeof(v4)) &&
		    memcmp(gid->raw + 12, "\0\0\0\0", 4))
			return i;
	}
	return -1;
}

void ud_open(struct ud_sender *s, const char *dev, struct in_addr target,
	     uint8_t tos, unsigned int depth, size_t buf_len)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = depth, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
	};
	struct ibv_qp_attr a = {};
	struct ibv_ah_attr aa = {};
	struct ibv_device **list;
	union ibv_gid gid;
	int i, n;

	memset(s, 0, sizeof(*s));
	list = ibv_get_device_list(&n);
	if (!list)
		fail("ibv_get_device_list", dev);
	for (i = 0; i < n; i++)
		if (!strcmp(ibv_get_device_name(list[i]), dev))
			s->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!s->ctx)
		fail("cannot open the device", dev);
	s->depth = depth;
	s->buf_len = buf_len;
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = s->pd ? ibv_create_cq(s->ctx, depth * 2, NULL, NULL, 0) : NULL;
	s->buf = calloc(1, buf_len);
	s->mr = s->cq && s->buf ? ibv_reg_mr(s->pd, s->buf, buf_len, 0) : NULL;
	if (!s->mr)
		fail("pd/cq/mr", dev);
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = ibv_create_qp(s->pd, &init);
	if (!s->qp)
		fail("ibv_create_qp", dev);
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x1234;	/* ours: nobody should send to us */
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		fail("QP to INIT", dev);
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE))
		fail("QP to RTR", dev);
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		fail("QP to RTS", dev);

	s->gid_index = find_gid(s->ctx, &gid);
	if (s->gid_index < 0) {
		errno = ENOENT;
		fail("no RoCEv2 IPv4 GID", dev);
	}
	aa.is_global = 1;
	aa.port_num = 1;
	aa.grh.sgid_index = s->gid_index;
	aa.grh.hop_limit = 64;
	aa.grh.traffic_class = tos;	/* the IPv4 TOS (RoCEv2) */
	aa.grh.dgid.raw[10] = 0xff;
	aa.grh.dgid.raw[11] = 0xff;
	memcpy(aa.grh.dgid.raw + 12, &target, 4);
	s->ah = ibv_create_ah(s->pd, &aa);
	if (!s->ah)
		fail("ibv_create_ah", dev);
}

int ud_post(struct ud_sender *s, size_t off, uint32_t len, uint32_t qpn,
	    uint32_t qkey)
{
	struct ud_msg m = { .off = off, .len = len, .qpn = qpn };

	return ud_post_n(s, &m, 1, qkey);
}

int ud_post_n(struct ud_sender *s, const struct ud_msg *m, unsigned int n,
	      uint32_t qkey)
{
	struct ibv_send_wr wr[32], *bad;
	struct ibv_sge sge[32];
	unsigned int i;

	if (!n || n > 32)
		return EINVAL;
	for (i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)(s->buf + m[i].off),
			.length = m[i].len, .lkey = s->mr->lkey,
		};
		wr[i] = (struct ibv_send_wr){
			.sg_list = &sge[i], .num_sge = 1,
			.opcode = IBV_WR_SEND,
			.next = i + 1 < n ? &wr[i + 1] : NULL,
		};
		wr[i].wr.ud.ah = s->ah;
		wr[i].wr.ud.remote_qpn = m[i].qpn;
		wr[i].wr.ud.remote_qkey = qkey;
	}
	return ibv_post_send(s->qp, wr, &bad);
}

int ud_reap(struct ud_sender *s, int max)
{
	struct ibv_wc wc[32];
	int n, i, got = 0;

	while (got < max) {
		n = ibv_poll_cq(s->cq, max - got < 32 ? max - got : 32, wc);
		if (n < 0) {
			fprintf(stderr, "udsend: ibv_poll_cq failed\n");
			exit(1);
		}
		for (i = 0; i < n; i++)
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "udsend: send completion: %s\n",
					ibv_wc_status_str(wc[i].status));
				exit(1);
			}
		got += n;
		if (n == 0)
			break;
	}
	return got;
}

uint32_t ud_parse_qpns(const char *s, uint32_t *l, uint32_t max)
{
	uint32_t n = 0;
	char *end;

	while (*s && n < max) {
		l[n++] = strtoul(s, &end, 0);
		if (end == s) {
			fprintf(stderr, "udsend: bad number list: %s\n", s);
			exit(2);
		}
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}
