// SPDX-License-Identifier: GPL-2.0
/*
 * proto.c - what happens to a received datagram.
 *
 * Every datagram is parsed and validated by mrc_wire_parse() before any of
 * its fields is used; a bad one is dropped and counted.  (Peers, paths and
 * messages build on this; until then every well-formed packet is dropped as
 * coming from an unknown peer.)
 */
#include "mrc.h"
#include "ud.h"

void mrc_proto_rx(struct mrc_ud_qp *uqp, const struct ib_wc *wc,
		  const struct ib_grh *grh, const void *buf, u32 len)
{
	struct mrc_rail *rail = uqp->ud->rail;
	struct mrc_wire_limits lim = {
		.max_msg_len = U32_MAX,
		.local_node = 0,
	};
	struct mrc_pkt pkt;

	if (mrc_wire_parse(buf, len, &lim, &pkt) != MRC_DROP_NONE)
		mrc_rail_stat_inc(rail, MRC_RAIL_STAT_DROP_MALFORMED);
}
