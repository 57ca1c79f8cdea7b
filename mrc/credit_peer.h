/* SPDX-License-Identifier: GPL-2.0 */
/*
 * credit_peer.h - receiver-driven credits in the data path: the kernel
 * glue around credit.c (per-peer sender state, the receiver's credit
 * table and its pacing hrtimer, CREDIT_REQ/GRANT packets).  See
 * credit_peer.c for the design notes.
 */
#ifndef _MRC_CREDIT_PEER_H
#define _MRC_CREDIT_PEER_H

#include "../uapi/linux/mrc.h"
#include "core/credit.h"

struct mrc_peer;
struct mrc_pkt;
struct mrc_ud_qp;

/* One peer's credit state; lives in struct mrc_peer. */
struct mrc_credit_peer {
	/* ---- sender: under peer->lock ---- */
	struct mrc_credit_tx tx;	/* the message being scheduled */
	bool tx_on;			/* tx holds a message (credits on) */
	u64 msgs_sched;			/* messages that needed a grant */

	/* ---- receiver: under mrc_credit_lock (credit_peer.c) ---- */
	u64 rx_requests;		/* CREDIT_REQs accepted */
	u64 rx_requests_bad;		/* refused (forged, oversized, full) */
	u64 rx_requests_stale;		/* for an earlier message: replayed
					 * or reordered (harmless)
					 */
	u64 grants_tx;			/* GRANTs sent by the pacer */
	u64 grants_resent;		/* answers to repeated CREDIT_REQs */
	u64 granted_bytes;		/* scheduled bytes granted */
	u64 rx_unsched_bytes;		/* new bytes within the window */
	u64 rx_sched_bytes;		/* new bytes beyond it */
	u64 over_credit;		/* DATA packets beyond the grant */
};

int mrc_credit_init(void);
void mrc_credit_exit(void);

/* debugfs mrc/credit (debugfs.c): show, and "reset" its pacer counters. */
struct seq_file;
int mrc_credit_show(struct seq_file *s);
void mrc_credit_stats_reset(void);

void mrc_credit_peer_stop(struct mrc_peer *peer);

bool mrc_credit_tx_may(struct mrc_peer *peer, u64 msg_id, u32 msg_len,
		       u32 off, u32 len, bool urgent, u64 now);

bool mrc_credit_tx_stops(struct mrc_peer *peer, u64 msg_id, u32 seg);

void mrc_credit_tx_reset(struct mrc_peer *peer);
void mrc_credit_tx_gone(struct mrc_peer *peer, u64 msg_id);

void mrc_credit_rx_data_hook(struct mrc_peer *peer, const struct mrc_pkt *pkt);

enum mrc_drop_reason mrc_credit_rx_pkt(struct mrc_ud_qp *uqp, u32 src_qp,
				       const struct mrc_pkt *pkt);

void mrc_credit_peer_stats(struct mrc_peer *peer,
			   u64 v[__MRC_CREDIT_STAT_MAX]);

#endif /* _MRC_CREDIT_PEER_H */
