// SPDX-License-Identifier: GPL-2.0
/*
 * proto.c - what happens to a received datagram.
 *
 * Every datagram is parsed and validated by mrc_wire_parse() before any of
 * its fields is used; a bad one is dropped and counted.  PROBEs and
 * RAIL_DOWNs go to peer.c, DATA/SACK/NACK to msg.c, CREDIT_REQ/GRANT to
 * credit_peer.c.  Each looks the peer up first and checks the packet's
 * token right after (mrc_peer_token_ok(): bad_token), before any state
 * changes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "mrc.h"
#include "mrc_api.h"
#include "credit_peer.h"
#include "msg.h"
#include "peer.h"
#include "ud.h"

/* Largest message mrc accepts (until a knob sets it). */
#define MRC_MSG_MAX	MRC_MSG_MAX_LEN

/**
 * mrc_proto_rx() - take one good received datagram
 * @uqp: the QP it arrived on
 * @wc: its work completion
 * @grh: its GRH
 * @buf: the datagram, after the GRH
 * @len: its length, GRH excluded
 *
 * Called for every good datagram received, by ud.c.
 *
 * Context: process, from the CQ's work.
 */
void mrc_proto_rx(struct mrc_ud_qp *uqp, const struct ib_wc *wc,
		  const struct ib_grh *grh, const void *buf, u32 len)
{
	struct mrc_rail *rail = uqp->ud->rail;
	struct mrc_wire_limits lim = {
		.max_msg_len = MRC_MSG_MAX,
		.local_node = mrc_knob(MRC_KNOB_node_id),
	};
	enum mrc_drop_reason why;
	struct mrc_pkt pkt;

	why = mrc_wire_parse(buf, len, &lim, &pkt);
	if (why != MRC_DROP_NONE) {
		mrc_rail_stat_inc(rail, MRC_RAIL_STAT_DROP_MALFORMED);
	} else {
		switch (pkt.type) {
		case MRC_PKT_PROBE:
		case MRC_PKT_PROBE_REPLY:
		case MRC_PKT_RAIL_DOWN:
			why = mrc_peer_rx_ctl(uqp, wc->src_qp, &pkt);
			break;
		case MRC_PKT_DATA:
			why = mrc_msg_rx_data(uqp, wc->src_qp, &pkt);
			break;
		case MRC_PKT_SACK:
			why = mrc_msg_rx_sack(uqp, wc->src_qp, &pkt);
			break;
		case MRC_PKT_NACK:
			why = mrc_msg_rx_nack(uqp, wc->src_qp, &pkt);
			break;
		case MRC_PKT_CREDIT_REQ:
		case MRC_PKT_GRANT:
			why = mrc_credit_rx_pkt(uqp, wc->src_qp, &pkt);
			break;
		default:
			why = MRC_DROP_UNEXPECTED;
			break;
		}
	}
	if (why != MRC_DROP_NONE)
		mrc_rail_drop(rail, why);
}
