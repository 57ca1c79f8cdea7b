/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msg_int.h - what the message engine's two binding files share: msg.c
 * (the node, the sender's half, the peers' engine lifetime) and msg_rx.c
 * (the receiver's half).
 */
#ifndef _MRC_MSG_INT_H
#define _MRC_MSG_INT_H

#include <linux/atomic.h>

#include "core/msg.h"

struct list_head;
struct work_struct;

/* This node's engines (msg.c). */
extern struct mrc_msg_node mrc_msg_node;

/* debugfs mrc/msg's counters, by enum mrc_msg_stat (msg.c). */
extern atomic64_t mrc_msg_stats[MRC_MS_NR];

static inline void ms_inc(int s)
{
	atomic64_inc(&mrc_msg_stats[s]);
}

/* msg.c */
void mrc_msg_tx_batch_end(void);

/* msg_rx.c */
void mrc_msg_rx_workfn(struct work_struct *work);
void mrc_msg_deliver_all(struct mrc_peer *peer);
void mrc_msg_rx_gc_workfn(struct work_struct *work);
void mrc_msg_free_list(struct list_head *list);

#endif /* _MRC_MSG_INT_H */
