/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msg.h - reliable messages over a peer's paths: the kernel binding of
 * the message engine (core/msg.h: its state machine, core/msg_tx.c and
 * core/msg_rx.c: its design notes).  See msg.c for the locking.
 */
#ifndef _MRC_MSG_H
#define _MRC_MSG_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "core/msg.h"

struct mrc_peer;
struct mrc_ud_qp;

/*
 * The engine's kernel binding, one per peer (beside its struct
 * mrc_msg_peer, peer->mp): the sender runs under peer->lock, from
 * tx_work (kicked), the end of a batch of completions (kicked by the
 * answers in it) and the hrtimer (armed); the receiver under rx_lock,
 * its deliveries where the DATA arrived (at most a few per packet) or
 * from rx_work, and its expiry from rx_gc.
 */
struct mrc_msg_kpeer {
	struct hrtimer timer;		/* RTO and retry tick (soft) */
	struct work_struct tx_work;	/* runs the sender, completions */
	spinlock_t rx_lock;		/* the receiver half of peer->mp */
	struct work_struct rx_work;	/* calls the endpoints' recv */
	struct delayed_work rx_gc;	/* expires stalled messages */
	unsigned long gc_at;		/* jiffies rx_gc is due, if pending
					 * (under rx_lock)
					 */
	/*
	 * MRC_MK_DELIVERING: someone pops and delivers (msg_rx.c); one at a
	 * time, so that messages reach their endpoints in order.
	 * MRC_MK_ACK_HELD: the peer is on mrc_msg_acks, completion SACKs
	 * held for the end of a batch of completions (msg_rx.c).
	 * MRC_MK_KICK_HELD: the peer is on mrc_msg_kicks, its sender to run
	 * at the end of such a batch (msg.c).
	 */
	unsigned long flags;
	struct llist_node ack_node;	/* on mrc_msg_acks (a reference) */
	struct llist_node kick_node;	/* on mrc_msg_kicks (a reference) */
	/*
	 * Under peer->lock: the engine is taking an answer (SACK, NACK, the
	 * acknowledgments on a DATA) that arrived in a batch of completions,
	 * so a kick is the batch end's, not tx_work's (msg.c).
	 */
	bool in_batch;
	/*
	 * Under rx_lock: the caller of the engine delivers what becomes
	 * ready itself (rx_direct), and something did (rx_due).
	 */
	bool rx_direct;
	bool rx_due;
	/*
	 * Under peer->lock: the paths whose QPs got DATA packets staged
	 * (mrc_ud_stage()) since the engine's last flush.
	 */
	DECLARE_BITMAP(staged, MRC_MSG_NPATHS);
};

#define MRC_MK_DELIVERING	0
#define MRC_MK_ACK_HELD		1
#define MRC_MK_KICK_HELD	2

void mrc_msg_exit(void);
void mrc_msg_timeouts_changed(void);

/* debugfs.c */
struct seq_file;
int mrc_msg_stats_show(struct seq_file *s);
/* msg_show.c */
int mrc_msg_queues_show(struct seq_file *s);
int mrc_msg_trace_show(struct seq_file *s);

/* Peer lifetime (peer.c): init at add; stop after peer->dead is set. */
void mrc_msg_peer_init(struct mrc_peer *peer);
void mrc_msg_peer_stop(struct mrc_peer *peer);

/*
 * Under peer->lock: path @i of link @l left the spray set, or is about to
 * be torn down (@release): every packet in flight on it is resent
 * elsewhere.  Call before a path is re-initialised or its link cleared.
 */
unsigned int mrc_msg_path_down(struct mrc_peer *peer, unsigned int l,
			       unsigned int i, bool release);
void mrc_msg_peer_restarted(struct mrc_peer *peer);

/*
 * Under peer->lock, not peer->dead: send what may go now, right here
 * (one workqueue hop less; tx_work gets what one push leaves).
 */
void mrc_msg_push_now(struct mrc_peer *peer);

/*
 * From cq.c, after every batch of completions (process context, no lock
 * held): the completion SACKs its DATA held back go out.
 */
void mrc_msg_rx_batch_end(void);

/* From proto.c (process context): accepted DATA, SACK, NACK packets. */
enum mrc_drop_reason mrc_msg_rx_data(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt);
enum mrc_drop_reason mrc_msg_rx_sack(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt);
enum mrc_drop_reason mrc_msg_rx_nack(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt);
/* From mrc_msg_rx_data(): the done list a DATA carried (no lock held). */
void mrc_msg_rx_data_done(struct mrc_peer *peer, const struct mrc_pkt *pkt);

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
int mrc_ep_admit(u16 port, u32 len);
bool mrc_ep_inline(u16 port);
void mrc_ep_put(struct mrc_ep *ep);
void mrc_ep_deliver(struct mrc_ep *ep, u32 src_node, u16 src_port,
		    void **data, u32 len);
void mrc_ep_sent_done(struct mrc_ep *ep);
struct iov_iter;
int mrc_msg_send(struct mrc_ep *ep, u16 src_port, u32 node, u16 port,
		 u8 cls, struct iov_iter *from, u32 len,
		 void (*done)(void *ctx, int status), void *ctx);
int mrc_ep_send_iter(struct mrc_ep *ep, unsigned int cls, u32 node,
		     u16 port, struct iov_iter *from, u32 len,
		     void (*done)(void *ctx, int status), void *ctx);
void mrc_ep_exit(void);

#endif /* _MRC_MSG_H */
