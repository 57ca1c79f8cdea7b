/* SPDX-License-Identifier: GPL-2.0 */
/*
 * credit_int.h - what credit_peer.c (the sender's side, packets) and
 * credit_pacer.c (the receiver's pacer) share; internal to them.
 */
#ifndef _MRC_CREDIT_INT_H
#define _MRC_CREDIT_INT_H

#include <linux/spinlock.h>

#include "credit_peer.h"

/* Senders the receiver's table holds (peers with scheduled messages). */
#define MRC_CREDIT_TABLE	256
/* Grants are whole packets of the largest segment. */
#define MRC_CREDIT_UNIT		MRC_WIRE_MAX_PAYLOAD
/* Pace period bounds; the period is about two grant units of drain. */
#define MRC_CREDIT_PACE_MIN_NS	(100 * NSEC_PER_USEC)
#define MRC_CREDIT_PACE_MAX_NS	(2 * NSEC_PER_MSEC)
/* A receiver with credits off grants whole messages with this seq. */
#define MRC_CREDIT_SEQ_ALL	0x7fffffffU
/* Rails' speed is re-read at most this often. */
#define MRC_CREDIT_SPEED_NS	NSEC_PER_SEC

/*
 * Time between two paces while busy, log2 buckets from 250 us (the last
 * one open-ended): late hrtimers and workers under load show here.
 */
#define MRC_CREDIT_PACE_HIST	9

struct mrc_peer;

/* credit_pacer.c; under mrc_credit_lock but for the atomic */
extern spinlock_t mrc_credit_lock;
extern struct mrc_credit_rx *mrc_credit_rx_tab;
extern u64 mrc_credit_pace_hist[MRC_CREDIT_PACE_HIST];
extern u64 mrc_credit_pace_ns;
extern u64 mrc_credit_data_paces;
extern atomic64_t mrc_credit_tx_errs;	/* GRANTs, CREDIT_REQs not sent */

u64 mrc_credit_entry_granted(u32 key);
enum mrc_drop_reason mrc_credit_on_request(struct mrc_peer *peer,
					   const struct mrc_pkt *pkt);

/* credit_peer.c */
u64 mrc_credit_rails_bps(void);
u64 mrc_credit_period(u64 rate);
void mrc_credit_params(struct mrc_credit_params *p, u64 bps);
void mrc_credit_params_data(struct mrc_credit_params *p);
int mrc_credit_send(struct mrc_peer *peer, u8 type, u64 msg_id,
		    const struct mrc_pkt_credit *c, u64 now);
void mrc_credit_send_grant(u32 node, u64 msg_id, u32 msg_len, u32 granted,
			   u32 seq, bool resent);

#endif /* _MRC_CREDIT_INT_H */
