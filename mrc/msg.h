/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msg.h - reliable messages over a peer's paths: per-peer sender queue
 * and receiver reassembly.  See msg.c for the design notes.
 */
#ifndef _MRC_MSG_H
#define _MRC_MSG_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "core/sched.h"
#include "core/wire.h"

/* Path index in a peer: link * MRC_CM_MAX_QPS + entropy value (a u8). */
#define MRC_MSG_NPATHS	(MRC_PEER_MAX_ADDRS * MRC_CM_MAX_QPS)

struct mrc_peer;
struct mrc_ud_qp;

/*
 * Lanes.  Messages are numbered and delivered in order per lane: a lane
 * is a traffic class (sched.h), its number in msg_id bits 31..30, so that
 * a latency message never waits at the receiver behind a bulk or
 * background one.  Sequence numbers count in the low 30 bits.  Ranks: the
 * order in which the sender serves the lanes (latency first, background
 * last: it takes what is left of the window).
 */
#define MRC_MSG_LANES		MRC_SCHED_CLASS_NR
#define MRC_MSG_LANE_SHIFT	30
#define MRC_MSG_SEQ_MASK	((1U << MRC_MSG_LANE_SHIFT) - 1)
#define MRC_MSG_RANKS		3

/* Classes whose packets in flight are capped while latency traffic runs. */
static inline bool mrc_msg_yielding(u8 cls)
{
	return cls == MRC_SCHED_CLASS_BULK || cls == MRC_SCHED_CLASS_BACKGROUND;
}

/* The lane (class) of a message id. */
static inline unsigned int mrc_msg_id_lane(u64 msg_id)
{
	return (u32)msg_id >> MRC_MSG_LANE_SHIFT;
}

struct mrc_msg_peer {
	/* ---- sender: everything here under peer->lock ---- */
	struct list_head txq;		/* struct mrc_tx_msg, by msg id */
	unsigned int ntx;
	u32 epoch;			/* msg_id bits 63..32 */
	u32 next_seq[MRC_MSG_LANES];	/* msg_id bits 31..0 of the next
					 * message of each lane (class)
					 */
	u32 ntx_rank[MRC_MSG_RANKS];	/* queued messages per send rank */
	struct mrc_sched sched;
	u8 policy;			/* sched: the peer's own policy, or
					 * MRC_SCHED_POLICY_GLOBAL (the knob)
					 */
	u32 inflight;			/* packets in flight, all messages */
	/* Of them, per class: kept for the classes mrc_msg_yielding(). */
	u32 cls_inflight[MRC_SCHED_CLASS_NR];
	u32 cwnd;			/* congestion window, packets */
	u32 cwnd_acc;			/* acks towards the next increase */
	u32 recover_us;			/* when cwnd was last halved */
	bool recover_valid;
	u64 stuck_ns;			/* since when no path was usable */
	u64 progress_ns;		/* last new ack or first transmission
					 * (or the queue filled): a stall
					 * fails the queue with ETIMEDOUT
					 */
	bool ring_full;			/* a send ring said -EAGAIN */
	struct list_head done;		/* finished: done() to be called */
	struct hrtimer timer;		/* RTO and retry tick (soft) */
	struct work_struct tx_work;	/* sends, RTOs, completions */
	/* scratch for one SACK or scan, under peer->lock */
	struct mrc_path *paths[MRC_MSG_NPATHS];
	u32 ack_hi_us[MRC_MSG_NPATHS];
	DECLARE_BITMAP(ack_seen, MRC_MSG_NPATHS);
	DECLARE_BITMAP(left, MRC_MSG_NPATHS);
	u32 rto_cut_us[MRC_MSG_NPATHS];	/* loss scan: RTO cut-off */
	u32 reo_cut_us[MRC_MSG_NPATHS];	/* loss scan: reordering cut-off */
	u8 reo_strikes[MRC_MSG_NPATHS];	/* loss scan: losses since an ack */
	u32 rack_us;			/* latest send time of an acked pkt */
	bool rack_valid;

	/* ---- receiver: everything here under rx_lock ---- */
	spinlock_t rx_lock;
	bool rx_dead;			/* peer going away: nothing new */
	bool rx_epoch_valid;
	bool rx_epoch_gone;		/* rx_gc gave up on rx_epoch's gaps:
					 * its DATA is dropped unacked until
					 * a newer epoch (msg.c, Expiry)
					 */
	u32 rx_epoch;			/* sender's epoch being received */
	u32 rx_next[MRC_MSG_LANES];	/* next sequence number to deliver,
					 * per lane (class)
					 */
	u64 rx_last_ns;			/* last DATA from the peer, ns */
	unsigned int nrx;		/* contexts: rxq + held + deliver */
	struct list_head rxq;		/* struct mrc_rx_msg, incomplete */
	struct list_head held;		/* complete, predecessors missing */
	struct list_head deliver;	/* complete, in order, to deliver */
	struct work_struct rx_work;	/* calls the endpoints' recv */
	struct delayed_work rx_gc;	/* expires stalled messages */
};

int mrc_msg_init(void);
void mrc_msg_exit(void);

/* Peer lifetime (peer.c): init at add; stop after peer->dead is set. */
void mrc_msg_peer_init(struct mrc_peer *peer);
void mrc_msg_peer_stop(struct mrc_peer *peer);

/*
 * Under peer->lock: path @i of link @l left the spray set, or is about to
 * be torn down (@release): every packet in flight on it is resent
 * elsewhere.  Call before a path is re-initialised or its link cleared.
 */
void mrc_msg_path_down(struct mrc_peer *peer, unsigned int l, unsigned int i,
		       bool release);
void mrc_msg_peer_restarted(struct mrc_peer *peer);

/*
 * Under peer->lock, not peer->dead: send what may go now, right here
 * (one workqueue hop less; tx_work gets what one push leaves).
 */
void mrc_msg_push_now(struct mrc_peer *peer);

/* From proto.c (process context): accepted DATA, SACK, NACK packets. */
enum mrc_drop_reason mrc_msg_rx_data(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt);
enum mrc_drop_reason mrc_msg_rx_sack(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt);
enum mrc_drop_reason mrc_msg_rx_nack(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt);

/*
 * The peer of a packet from (@uqp, @src_qp), referenced, with its link
 * index in *@lp; NULL and *@why set if the packet is not from one of the
 * peer's paths.  (Also used by credit_peer.c.)
 */
enum mrc_drop_reason;
struct mrc_peer *mrc_msg_rx_peer(struct mrc_ud_qp *uqp, u32 src_qp,
				 const struct mrc_pkt *pkt, unsigned int *lp,
				 enum mrc_drop_reason *why);

/* ep.c */
struct mrc_ep;
struct mrc_ep *mrc_ep_get(u16 port);
void mrc_ep_put(struct mrc_ep *ep);
void mrc_ep_deliver(struct mrc_ep *ep, u32 src_node, u16 src_port,
		    const void *data, u32 len);
void mrc_ep_sent_done(struct mrc_ep *ep);
int mrc_msg_send(struct mrc_ep *ep, u16 src_port, u32 node, u16 port,
		 u8 cls, const void *buf, u32 len,
		 void (*done)(void *ctx, int status), void *ctx);
void mrc_ep_exit(void);

#endif /* _MRC_MSG_H */
