/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msg.h - the message engine: reliable messages over a peer's paths, as a
 * sans-I/O state machine.  Kernel-agnostic: the module (mrc/msg.c), the
 * unit tests and the fuzzers drive the same code.
 *
 * Events in: a send request (mrc_msg_tx_queue()), DATA / SACK / NACK
 * received on a path (mrc_msg_rx_packet(), mrc_msg_tx_sack(),
 * mrc_msg_tx_nack()), a path leaving the spray set (mrc_msg_tx_path_down()),
 * the peer restarting (mrc_msg_tx_restarted(), mrc_msg_rx_restarted()),
 * the timer or a kick coming due (mrc_msg_tx_run()), the expiry clock
 * (mrc_msg_rx_expire()), the endpoint ready for the next message
 * (mrc_msg_rx_pop()).  Time comes from the caller with every event.
 *
 * Actions out, through the node's struct mrc_msg_ops: post this packet on
 * this path, run the sender again now (kick) or at T (arm), deliver (a
 * message is ready to pop), arm the expiry clock, complete a send with a
 * status (the messages on mp->done), allocate and free memory, count.
 *
 * The engine owns no locks.  Its two halves have one lock each in the
 * host, and never nest: the sender (every mrc_msg_tx_*() and
 * mrc_msg_tx_path_down(), and mrc_msg_rx_answer(), which sends) under the
 * "tx lock", the receiver (every other mrc_msg_rx_*()) under the "rx
 * lock".  Memory is taken only in mrc_msg_tx_alloc() and
 * mrc_msg_rx_alloc(), called without either lock; every allocation is
 * bounded by the knobs (tx_msgs_per_peer, rx_msgs_per_peer, rx_buffer_mb)
 * and by MRC_MSG_MAX_BYTES, never by what a remote packet claims alone.
 *
 * See msg_tx.c (sender) and msg_rx.c (receiver) for the design notes.
 */
#ifndef _MRC_CORE_MSG_H
#define _MRC_CORE_MSG_H

#include "compat.h"
#include "bitmap.h"
#include "path.h"
#include "reasm.h"
#include "sched.h"
#include "txsb.h"
#include "wire.h"

/* Path index in a peer: link * MRC_MSG_LINK_PATHS + entropy value (a u8). */
#define MRC_MSG_LINK_PATHS	MRC_CM_MAX_QPS
#define MRC_MSG_NPATHS		(MRC_PEER_MAX_ADDRS * MRC_MSG_LINK_PATHS)
#define MRC_MSG_NPATHS_WORDS	((MRC_MSG_NPATHS + 63) / 64)
#define MRC_MSG_NO_PATH		(~0U)
/*
 * A receiver's SACK within a message goes after this many new packets
 * (msg_rx.c, Answers: sack_by_count()), besides those its sender asks for
 * (MRC_WF_ACK_NOW: its window or credit is used up, a resend) and the
 * message's completion; after MRC_MSG_SACK_EVERY_HOLE while a packet is
 * missing behind more than that many later ones.
 */
#define MRC_MSG_SACK_EVERY	16
#define MRC_MSG_SACK_EVERY_HOLE	8
/*
 * Messages whose SACKs a receiver holds to the end of a batch of
 * arrivals at most (msg_rx.c, Answers); one more sends the oldest.
 */
#define MRC_MSG_STEP_HELD	4
/*
 * How long a receiver holds the acknowledgment of a message flagged
 * MRC_WF_ACK_LAZY for its own next DATA to the sender, from the message's
 * arrival (msg_rx.c, Answers): above a request's turnaround into its
 * reply on the VMs (a few hundred us).  The RTO floor can be below it (a
 * learned one on a fast fabric, or the data_rto_min_ms knob at 1), so the
 * sender of such a message adds it to its packets' RTO
 * (mrc_msg_loss_scan()).
 */
#define MRC_MSG_ACK_HOLD_NS	(1000 * NSEC_PER_USEC)

/*
 * Refused messages a receiver remembers per lane (msg_rx.c, Refusal):
 * the MRC_MSG_REFUSED_BEHIND sequence numbers behind its delivery, and
 * the MRC_MSG_REFUSED_AHEAD from it on.  A sender keeps a lane's sends
 * within MRC_MSG_REFUSED_BEHIND of its oldest queued message, which is
 * never ahead of its receiver's delivery: they fall in one or the other.
 */
#define MRC_MSG_REFUSED_BEHIND	64
#define MRC_MSG_REFUSED_AHEAD	64

/* The largest message (the module's MRC_MSG_MAX_LEN). */
#define MRC_MSG_MAX_BYTES	(64U << 20)

/*
 * Lanes.  Messages are numbered and delivered in order per lane: a lane
 * is a traffic class (sched.h) and a bucket of destination ports
 * (dst_port % MRC_MSG_PORT_BUCKETS), its number (class * buckets +
 * bucket) in msg_id bits 31..26, so that a latency message never waits
 * at the receiver behind a bulk or background one, and a message to one
 * endpoint does not wait behind one to another endpoint whose port falls
 * in another bucket (one whose reader is slow: msg_rx.c,
 * Back-pressure).  Messages between two endpoints in one class share a
 * lane: they arrive in order.  Sequence numbers count in the low 26 bits.
 * Ranks: the order in which the sender serves the classes (latency
 * first, background last: it takes what is left of the window).
 */
#define MRC_MSG_PORT_BUCKETS	16
#define MRC_MSG_LANES		(MRC_SCHED_CLASS_NR * MRC_MSG_PORT_BUCKETS)
#define MRC_MSG_LANE_SHIFT	26
#define MRC_MSG_SEQ_MASK	((1U << MRC_MSG_LANE_SHIFT) - 1)
#define MRC_MSG_RANKS		3

/* Classes whose packets in flight are capped while latency traffic runs. */
static inline bool mrc_msg_yielding(u8 cls)
{
	return cls == MRC_SCHED_CLASS_BULK || cls == MRC_SCHED_CLASS_BACKGROUND;
}

/* The lane of a message of class @cls to port @dst_port. */
static inline unsigned int mrc_msg_lane(u8 cls, u16 dst_port)
{
	return cls * MRC_MSG_PORT_BUCKETS + dst_port % MRC_MSG_PORT_BUCKETS;
}

/* The traffic class of lane @lane. */
static inline unsigned int mrc_msg_lane_class(unsigned int lane)
{
	return lane / MRC_MSG_PORT_BUCKETS;
}

/* The lane of a message id. */
static inline unsigned int mrc_msg_id_lane(u64 msg_id)
{
	return (u32)msg_id >> MRC_MSG_LANE_SHIFT;
}

/* The traffic class of a message id. */
static inline unsigned int mrc_msg_id_class(u64 msg_id)
{
	return mrc_msg_lane_class(mrc_msg_id_lane(msg_id));
}

/* The lane of a sequence number (the low 32 bits of a message id). */
static inline unsigned int mrc_msg_seq_lane(u32 seq)
{
	return seq >> MRC_MSG_LANE_SHIFT;
}

/* a - b for two sequence numbers of one lane, wrap-safe. */
static inline s32 mrc_msg_seq_diff(u32 a, u32 b)
{
	return (s32)((a - b) << (32 - MRC_MSG_LANE_SHIFT)) >>
	       (32 - MRC_MSG_LANE_SHIFT);
}

/* The sequence number after @seq, in the same lane. */
static inline u32 mrc_msg_seq_inc(u32 seq)
{
	return (seq & ~MRC_MSG_SEQ_MASK) | ((seq + 1) & MRC_MSG_SEQ_MASK);
}

/* Counters (debugfs mrc/msg), in the order they are listed there. */
enum mrc_msg_stat {
	MRC_MS_TX_MSGS, MRC_MS_TX_BYTES, MRC_MS_TX_DONE, MRC_MS_TX_FAILED,
	MRC_MS_TX_PKTS, MRC_MS_TX_RETRANS, MRC_MS_TX_RING_FULL,
	MRC_MS_RTO_PKTS, MRC_MS_LOSS_PKTS, MRC_MS_PATH_DOWN_PKTS,
	MRC_MS_SACKS_RX, MRC_MS_SACKS_STALE, MRC_MS_SACKS_TX, MRC_MS_RX_PKTS,
	MRC_MS_RX_DUP, MRC_MS_RX_NO_MEM, MRC_MS_RX_MSGS, MRC_MS_RX_BYTES,
	MRC_MS_RX_HELD, MRC_MS_RX_NO_EP, MRC_MS_RX_DISCARDED,
	MRC_MS_RX_EXPIRED, MRC_MS_REO_LOSS_PKTS, MRC_MS_NACKS_TX,
	MRC_MS_NACKS_RX, MRC_MS_PEER_RESTARTS, MRC_MS_CWND_CUTS,
	MRC_MS_TX_TIMEOUT, MRC_MS_BG_YIELDS, MRC_MS_BULK_YIELDS,
	MRC_MS_RX_GONE_PKTS, MRC_MS_CTL_TX_ERRORS, MRC_MS_PARAMS_REFUSED,
	MRC_MS_NACKS_REPLAYED, MRC_MS_RX_REFUSED, MRC_MS_TX_REFUSED,
	MRC_MS_RX_BUSY, MRC_MS_TX_BUSY, MRC_MS_RX_GONE_SACKS,
	MRC_MS_TX_EPOCH_GONE, MRC_MS_RX_REFUSE_WAITS, MRC_MS_STUCK_LOSS_PKTS,
	MRC_MS_RX_BUSY_HEADS, MRC_MS_RTO_QUEUE_PKTS, MRC_MS_DONE_BATCHED,
	MRC_MS_DONE_ACKED, MRC_MS_NACK_EARLY_PKTS, MRC_MS_SACKS_MERGED,
	MRC_MS_DONE_ON_DATA, MRC_MS_ACK_HOLDS, MRC_MS_ACK_HOLDS_EXPIRED,
	MRC_MS_TIMER_RUNS, MRC_MS_TIMER_IDLE, MRC_MS_TIMER_MOVED,
	MRC_MS_SACKS_BY_COUNT, MRC_MS_SACKS_BY_HOLE, MRC_MS_SACKS_ASKED,
	MRC_MS_SACKS_HOLE_CLOSED, MRC_MS_FILL_ACKS,
	MRC_MS_NR
};

const char *mrc_msg_stat_name(unsigned int stat);

struct mrc_msg_node;
struct mrc_msg_peer;
struct mrc_msg_tx;

/*
 * The host's side of the engine: one table per node.  @mp is the peer an
 * action is for.  Called with the lock of the half that raised them (see
 * above), except alloc, free and complete, which are called without.
 */
struct mrc_msg_ops {
	/* @bytes of memory (not zeroed), or NULL; may sleep. */
	void *(*alloc)(struct mrc_msg_node *node, size_t bytes);
	void (*free)(struct mrc_msg_node *node, void *p);
	/*
	 * Receive memory, optional (NULL: alloc and free): a reassembly
	 * context or a message buffer of @bytes (not zeroed; the host may
	 * hand out a recycled one).  rx_free gets the @bytes the memory was
	 * taken with.  Called without locks but for rx_free, which may run
	 * under the rx lock.
	 */
	void *(*rx_alloc)(struct mrc_msg_node *node, size_t bytes);
	void (*rx_free)(struct mrc_msg_node *node, void *p, size_t bytes);
	/*
	 * Message payload memory, optional (NULL: alloc and free for a
	 * send, rx_alloc and rx_free for a receive): the @bytes of a
	 * message's payload, @rx for a message being received.  For a host
	 * that never reads payloads (a simulator), which may hand out
	 * shared memory.  buf_free gets the @bytes and @rx of the alloc;
	 * called as alloc, free, rx_alloc and rx_free are.
	 */
	void *(*buf_alloc)(struct mrc_msg_node *node, size_t bytes, bool rx);
	void (*buf_free)(struct mrc_msg_node *node, void *p, size_t bytes,
			 bool rx);
	/* A knob's value (config.h, MRC_KNOB_*). */
	u64 (*knob)(struct mrc_msg_node *node, unsigned int id);
	/* Wall-clock seconds: the base of a new epoch. */
	u32 (*wall_seconds)(struct mrc_msg_node *node);
	void (*count)(struct mrc_msg_node *node, unsigned int stat, u64 n);

	/* ---- sender, tx lock held ---- */
	/*
	 * Fills @out[0..MRC_MSG_NPATHS) with the paths that can carry
	 * packets of @seg payload bytes (NULL where none); returns how many
	 * entries count (the peer's links times MRC_MSG_LINK_PATHS).
	 */
	unsigned int (*paths)(struct mrc_msg_peer *mp, u16 seg,
			      struct mrc_path **out);
	/*
	 * Posts @pkt (the engine filled all but the node ids and the token)
	 * with @payload on path @pi.  0, -EAGAIN (the send ring is full: the
	 * packet was not sent), -ENETDOWN (the path is gone: try another) or
	 * another error (counted as sent and lost).
	 */
	int (*send)(struct mrc_msg_peer *mp, unsigned int pi,
		    struct mrc_pkt *pkt, const void *payload);
	/*
	 * Optional.  The end of a run of DATA sends: a host that holds the
	 * packets send() took, to post them together, posts them now.
	 * Called before the engine returns from every run that may have
	 * sent, with the host's lock still held.
	 */
	void (*flush)(struct mrc_msg_peer *mp);
	/* Run mrc_msg_tx_run() soon, in the host's own context. */
	void (*kick)(struct mrc_msg_peer *mp);
	/*
	 * The peer's timer: run mrc_msg_tx_timer() at @delay_ns from now,
	 * in place of any deadline queued before (arm), or at no time
	 * (disarm).  The engine decides which deadline stands (msg_tx.c,
	 * Timer); the host only keeps the last one it was given.
	 */
	void (*arm)(struct mrc_msg_peer *mp, u64 delay_ns);
	void (*disarm)(struct mrc_msg_peer *mp);
	/* Path @pi changed state (it was @prev); class @cls fell back. */
	void (*path_changed)(struct mrc_msg_peer *mp, unsigned int pi, u8 prev);
	void (*class_fallback)(struct mrc_msg_peer *mp, u8 cls, bool on);
	/* The scheduler's live parameters for this peer's policy. */
	void (*sched_params)(struct mrc_msg_peer *mp,
			     struct mrc_sched_params *sp);
	/* A DATA packet went out on @pi; one tagged @tag left its path. */
	void (*sched_sent)(struct mrc_msg_peer *mp, unsigned int pi, u8 cls,
			   u8 policy);
	void (*sched_done)(struct mrc_msg_peer *mp, u8 tag, int how);
	/*
	 * Credits (credit_peer.h): may new bytes [@off, @off + @len) of
	 * message @id go now; does its credit stop it short of its end; the
	 * queue was given up; message @id was (refused before all of it
	 * went: its credit, if it is the scheduled one, is forgotten).
	 */
	bool (*credit_may)(struct mrc_msg_peer *mp, u64 id, u32 msg_len,
			   u32 off, u32 len, bool urgent, u64 now);
	bool (*credit_stops)(struct mrc_msg_peer *mp, u64 id, u16 seg);
	void (*credit_reset)(struct mrc_msg_peer *mp);
	void (*credit_gone)(struct mrc_msg_peer *mp, u64 id);
	/* No progress for @idle_ns: the queue of @ntx messages fails. */
	void (*stalled)(struct mrc_msg_peer *mp, u64 idle_ns, unsigned int ntx);
	/* A send is finished (m->status); without locks, before the free. */
	void (*complete)(struct mrc_msg_node *node, struct mrc_msg_tx *m);

	/* ---- receiver, rx lock held ---- */
	/* Messages are ready for mrc_msg_rx_pop(). */
	void (*deliver)(struct mrc_msg_peer *mp);
	/* Call mrc_msg_rx_expire() in @delay_ns (no-op if already due). */
	void (*expire_arm)(struct mrc_msg_peer *mp, u64 delay_ns);
	/*
	 * Optional (NULL: every port is open): whether a new message of
	 * @len bytes to @port may start: 0; -ECONNREFUSED if nothing is
	 * bound there; -EBUSY if its endpoint cannot take it now (msg_rx.c,
	 * Refusal).
	 */
	int (*port)(struct mrc_msg_node *node, u16 port, u32 len);
};

/* What a node's engines share; lockless. */
struct mrc_msg_node {
	const struct mrc_msg_ops *ops;
	void *host;			/* the host's, untouched */
	atomic64_t rx_bytes;		/* reassembly buffers, all peers */
	atomic64_t rx_peers;		/* peers with rx_mem > 0 (msg_rx.c,
					 * Admission: the fair share)
					 */
	atomic64_t tx_bytes;		/* queued messages and scoreboards */
	/*
	 * When a latency-class message was last queued or delivered on this
	 * node (the callers' clock, ns); 0 = never.  READ_ONCE/WRITE_ONCE: a
	 * stale value only moves the end of a bulk or background yield by
	 * one message.  Per node, not per peer: the node's CPU is as much a
	 * shared resource as the fabric.
	 */
	u64 lat_ns;
	/*
	 * Set by a host that calls mrc_msg_rx_flush() at the end of each
	 * batch of arrivals: the SACKs of the messages a batch completes
	 * then go as one (msg_rx.c, Answers).  Else each goes at once.
	 */
	bool batch_done;
};

/*
 * Owners (endpoints) counted apart for the fair share of tx_msgs_per_peer
 * (msg_tx.c); more owners than this share the last slot.
 */
#define MRC_MSG_TX_OWNERS	16

/*
 * One message being sent.  The host fills it before mrc_msg_tx_queue();
 * from then on its fields are the sender's, under the tx lock.
 */
struct mrc_msg_tx {
	struct list_head node;		/* on mp->txq or mp->done */
	struct list_head lane_node;	/* on mp->laneq[its lane] while queued */
	struct list_head sent_node;	/* on mp->sentq once a packet went,
					 * while queued (empty: not on it)
					 */
	void *owner;			/* the host's (its endpoint) */
	u8 own;				/* its slot in mp->tx_own[] */
	void (*done)(void *ctx, int status);
	void *ctx;
	int status;
	u64 msg_id;
	u32 len;
	u16 seg;
	u16 src_port, dst_port;
	u8 cls;				/* sched: traffic class */
	bool reply;			/* queued after a message of the peer
					 * arrived: it may say
					 * MRC_WF_ACK_LAZY (msg_tx.c)
					 */
	bool lazy;			/* a packet of it said so: the loss
					 * scan's RTO allows for the hold
					 * (set in send_data(), tx lock)
					 */
	void *buf;			/* len bytes, the host fills them */
	void *sb_mem;			/* txsb storage */
	size_t mem;			/* counted in node->tx_bytes */
	u64 nack_ts;			/* tstamp (the receiver's clock) of
					 * the last NACK taken: a NACK must
					 * be newer (0 after a restart)
					 */
	/*
	 * The receiver's endpoint was full (a SACK said MRC_WF_BUSY): one
	 * packet may go at busy_ns, then none until the answer; 0 = not
	 * busy.  busy_wait_ns: the current wait, doubled per answer.
	 * busy_ts: answers to packets sent at or before it are stale.
	 */
	u64 busy_ns;
	u64 busy_wait_ns;
	u64 busy_ts;
	struct mrc_txsb sb;
};

/* One message being received. */
struct mrc_msg_rx {
	struct list_head node;		/* rxq, held or deliver */
	u64 msg_id;
	u32 seq;
	u32 src_node;
	u16 src_port, dst_port;
	u32 since_sack;			/* new packets since the last SACK */
	bool hole_sacked;		/* a SACK of it showed a hole: its
					 * completion's is not held (msg_rx.c,
					 * Answers)
					 */
	u64 hole_ns;			/* holes below hi seen since, or 0 */
	u64 nack_ns;			/* last NACK sent */
	void *buf;			/* msg_len bytes (ops->rx_alloc) */
	struct mrc_reasm r;		/* its bitmap follows the struct, in
					 * the same ops->rx_alloc memory
					 */
};

struct mrc_msg_peer {
	struct mrc_msg_node *node;
	/*
	 * The peer's paths, by index; set by the host at init, the storage
	 * lives as long as the peer.  Read by both halves (the receiver only
	 * reads srtt, with READ_ONCE).
	 */
	struct mrc_path *path[MRC_MSG_NPATHS];

	/* ---- sender: everything here under the tx lock ---- */
	struct list_head txq;		/* struct mrc_msg_tx, by msg id */
	/*
	 * The same messages by lane (each in queue order: push() serves
	 * the lanes in turn and skips the rest of a lane that cannot send,
	 * a SACK finds its message in its lane), and those of them of
	 * which a packet was sent (the loss scan's and a lost path's walk):
	 * the work per packet does not grow with the queue.
	 */
	struct list_head laneq[MRC_MSG_LANES];
	struct list_head sentq;
	u8 lane_next[MRC_MSG_RANKS];	/* push(): the rank's lane to serve
					 * first (index into its lanes)
					 */
	unsigned int ntx;
	u32 epoch;			/* msg_id bits 63..32 */
	u32 next_seq[MRC_MSG_LANES];	/* msg_id bits 31..0 of the next
					 * message of each lane (class)
					 */
	u32 ntx_rank[MRC_MSG_RANKS];	/* queued messages per send rank */
	/*
	 * Messages of the peer that arrived whole (counted as they are
	 * answered), and that count when our last message was queued: a
	 * message queued after one arrived is a reply (m->reply).  Under
	 * the tx lock (mrc_msg_rx_answer(), mrc_msg_tx_queue()).
	 */
	u32 rx_done_n;
	u32 rx_done_seen;
	struct {
		const void *owner;	/* valid while n > 0 */
		u32 n;			/* its messages queued */
	} tx_own[MRC_MSG_TX_OWNERS];
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
	bool ring_full;			/* a send said -EAGAIN */
	/*
	 * The timer (msg_tx.c, Timer): the deadline last given to
	 * ops->arm() (0: none queued, or it came due); the sender's own
	 * need, from the last run's scan or a push since (0: a run is
	 * due, which sets it); a reason for the queued deadline is gone
	 * (held acknowledgments left on a DATA): the end of the push moves
	 * the timer.
	 */
	u64 timer_ns;
	u64 tx_due_ns;
	bool timer_stale;
	struct list_head done;		/* finished: the host takes them */
	/* scratch for one SACK or scan */
	struct mrc_path *paths[MRC_MSG_NPATHS];
	u32 ack_hi_us[MRC_MSG_NPATHS];	/* newest first send acked */
	u64 ack_seen[MRC_MSG_NPATHS_WORDS];	/* ... on these paths */
	u64 left[MRC_MSG_NPATHS_WORDS];
	u32 rto_cut_us[MRC_MSG_NPATHS];	/* loss scan: RTO cut-off */
	u32 reo_cut_us[MRC_MSG_NPATHS];	/* loss scan: reordering cut-off */
	/* loss evidence, kept across SACKs and scans */
	u8 reo_strikes[MRC_MSG_NPATHS];	/* loss scan: losses since an ack */
	/* newest first send acked since the path's in-flight count was 0 */
	u32 path_ack_us[MRC_MSG_NPATHS];
	u64 path_acked[MRC_MSG_NPATHS_WORDS];	/* ... on these paths */
	u32 rack_us;			/* latest send time of an acked pkt */
	u8 rack_path;			/* ... its path */
	bool rack_valid;
	u32 rack_idx;			/* ... its index */
	u64 rack_id;			/* ... its message */
	u32 scan_due_us;		/* loss scan: until the next packet
					 * could be found lost (U32_MAX: none)
					 */
	/*
	 * Learned floor of the RTO and the reordering allowance (msg_ack.c,
	 * Floors): the largest data RTT sample of the current window and
	 * of the one before, and how many samples each took.
	 */
	u64 rtt_win_ns;			/* when the current window began */
	u32 rtt_hi_ns[2];		/* [0] current window, [1] previous */
	u32 rtt_n[2];
	/*
	 * The receiver's completion SACKs waiting for the end of the batch
	 * of arrivals (msg_rx.c, Answers): the last one's answer, the
	 * others' sequence numbers (its epoch).  Messages flagged
	 * MRC_WF_ACK_LAZY may wait past it for a DATA of ours to carry them
	 * (held), until since_ns + MRC_MSG_ACK_HOLD_NS.  Under the tx lock,
	 * as every answer is sent under it.
	 */
	struct {
		bool valid;		/* last is set */
		bool lazy;		/* every one flagged MRC_WF_ACK_LAZY */
		bool held;		/* past a batch's end, for a DATA */
		u64 since_ns;		/* the oldest one's arrival */
		u64 last_ns;		/* last's arrival (ack delay) */
		unsigned int pi;	/* the path last's DATA came on */
		struct mrc_pkt last;	/* its DATA's header (no body) */
		u32 npkts;		/* its packet count: the SACK's cum */
		unsigned int n;		/* entries in seq[] */
		u32 seq[MRC_WIRE_DONE_MAX];
	} done_ack;
	/*
	 * The receiver's SACKs within messages (every MRC_MSG_SACK_EVERY
	 * packets, ACK_NOW, ...) waiting for the end of the batch too
	 * (msg_rx.c, Answers): one per message, its newest state, in answer
	 * to the last DATA that asked.  Under the tx lock.
	 */
	struct {
		unsigned int n;		/* entries in e[] */
		struct {
			unsigned int pi;	/* the path data came on */
			struct mrc_pkt data;	/* its header (no body) */
			struct mrc_reasm_sack rs;
		} e[MRC_MSG_STEP_HELD];
	} step_ack;

	/* ---- receiver: everything here under the rx lock ---- */
	bool rx_dead;			/* peer going away: nothing new */
	bool rx_epoch_valid;
	bool rx_epoch_gone;		/* expiry gave up on rx_epoch's gaps:
					 * its DATA is dropped unacked until
					 * a newer epoch (msg_rx.c, Expiry)
					 */
	u32 rx_epoch;			/* sender's epoch being received */
	u32 rx_next[MRC_MSG_LANES];	/* next sequence number to deliver,
					 * per lane (class)
					 */
	u64 rx_last_ns;			/* last progress from the peer, ns */
	unsigned int nrx;		/* contexts: rxq + held + deliver */
	u64 rx_mem;			/* their message bytes */
	struct list_head rxq;		/* struct mrc_msg_rx, incomplete */
	struct list_head held;		/* complete, predecessors missing */
	struct list_head deliver;	/* complete, in order, to deliver */
	/*
	 * Messages refused (msg_rx.c, Refusal), a bit each, answered as
	 * refused: bit i of rx_refused_bm[lane] is sequence number
	 * rx_next[lane] - 1 - i, bit i of rx_refused_ahead[lane] is
	 * rx_next[lane] + i (skipped when delivery gets there).
	 */
	u64 rx_refused_bm[MRC_MSG_LANES];
	u64 rx_refused_ahead[MRC_MSG_LANES];
};

/* What one received DATA packet asks of the host (mrc_msg_rx_packet()). */
struct mrc_msg_rx_out {
	/* in: a context from mrc_msg_rx_alloc() for this packet, or NULL;
	 * out: NULL if the engine took it, else the host frees it
	 */
	struct mrc_msg_rx *fresh;
	bool need_ctx;			/* allocate one and call again */
	bool sack;			/* answer with rs */
	bool new_bytes;			/* the payload was new here */
	bool refused;			/* the SACK says MRC_WF_REFUSED */
	bool busy;			/* the SACK says MRC_WF_BUSY */
	bool gone;			/* the SACK says MRC_WF_GONE */
	bool done;			/* the packet completed its message */
	bool hole_sacked;		/* ... of which a SACK showed a hole */
	unsigned int nholes;		/* answer with a NACK of holes[] */
	struct mrc_reasm_sack rs;
	struct mrc_reasm_range holes[MRC_WIRE_NACK_MAX];
};

/*
 * Initialises a peer's engine (both halves), zeroed but for mp->path[],
 * which the host sets (before or after: init leaves it alone).
 */
void mrc_msg_engine_init(struct mrc_msg_peer *mp, struct mrc_msg_node *node,
			 u64 now);

/* ---- sender (msg_tx.c), tx lock held unless said ---- */

/*
 * A message of @len bytes (1..MRC_MSG_MAX_BYTES) cut in packets of @seg
 * payload bytes, class @cls: its memory, counted in node->tx_bytes; NULL
 * if @len or @seg is out of range or memory is short.  No lock held.  The
 * host fills m->buf, the ports and the completion, then queues it.
 */
struct mrc_msg_tx *mrc_msg_tx_alloc(struct mrc_msg_node *node, u32 len,
				    u16 seg, u8 cls);
/* Frees a message that was never queued, or was taken off mp->done. */
void mrc_msg_tx_free(struct mrc_msg_node *node, struct mrc_msg_tx *m);
/*
 * Queues @m (its id is given here) and sends what may go at once.
 * 0, or -ENOBUFS: the peer has tx_msgs_per_peer messages queued (@m is
 * still the caller's).
 */
int mrc_msg_tx_queue(struct mrc_msg_peer *mp, struct mrc_msg_tx *m, u64 now);
/* Nothing queued: a run would have nothing to send, scan or time out. */
bool mrc_msg_tx_idle(const struct mrc_msg_peer *mp);
/*
 * The timer or a kick came due: find losses, send what may go, fail the
 * queue if the peer is unreachable or stalled, arm the timer again.
 */
void mrc_msg_tx_run(struct mrc_msg_peer *mp, u64 now);
void mrc_msg_tx_timer(struct mrc_msg_peer *mp, u64 now);
/*
 * Tx lock held, both halves: the engine needs a run of the timer at
 * @delay_ns from @now at the latest (need); what it still needs is
 * recomputed after a reason for the queued deadline went away (settle).
 */
void mrc_msg_timer_need(struct mrc_msg_peer *mp, u64 now, u64 delay_ns);
void mrc_msg_timer_settle(struct mrc_msg_peer *mp, u64 now);
/* Something may go now (a GRANT came, a send is queued): send it here. */
void mrc_msg_tx_push_now(struct mrc_msg_peer *mp, u64 now);
/*
 * A SACK for message pkt->msg_id arrived on path @pi (MRC_MSG_NO_PATH if
 * that path is gone).  Returns the drop reason (MRC_DROP_NONE if used).
 */
enum mrc_drop_reason mrc_msg_tx_sack(struct mrc_msg_peer *mp, unsigned int pi,
				     const struct mrc_pkt *pkt, u64 now);
/*
 * Tx lock held: DATA packet @pkt from the peer carried a done list (the
 * acknowledgments of our messages, version 7): take it, as a SACK's.
 * Call before the packet's own arrival (mrc_msg_rx_packet()).
 */
void mrc_msg_tx_data_done(struct mrc_msg_peer *mp, const struct mrc_pkt *pkt,
			  u64 now);
/* A NACK arrived. */
enum mrc_drop_reason mrc_msg_tx_nack(struct mrc_msg_peer *mp,
				     const struct mrc_pkt *pkt, u64 now);
/* The learned floor of the RTO and the reordering allowance, ns. */
u32 mrc_msg_floor_ns(const struct mrc_msg_peer *mp, u64 now);
/* The floor of the DATA RTO in use now (knob or learned), ns. */
u32 mrc_msg_loss_floor_ns(struct mrc_msg_peer *mp, u64 now);
/*
 * Path @pi left the spray set (@release: or is about to be torn down):
 * every packet in flight on it is given back, to go out elsewhere.
 * Returns how many.
 */
unsigned int mrc_msg_tx_path_down(struct mrc_msg_peer *mp, unsigned int pi,
				  bool release, u64 now);
/*
 * The peer restarted: every queued message starts over under a new epoch,
 * renumbered from 0 in queue order, with all its packets unsent.
 */
void mrc_msg_tx_restarted(struct mrc_msg_peer *mp, u64 now);
/* The peer goes away: every queued message fails with @status. */
void mrc_msg_tx_fail_all(struct mrc_msg_peer *mp, int status, u64 now);
/*
 * Without locks: completes (ops->complete) and frees every message of
 * @done, a list the host took off mp->done under the tx lock.
 */
void mrc_msg_tx_finish(struct mrc_msg_node *node, struct list_head *done);

/* ---- receiver (msg_rx.c), rx lock held unless said ---- */

/*
 * A reassembly context for the message of DATA packet @pkt (parsed by
 * mrc_wire_parse(), so its geometry is valid), counted in node->rx_bytes;
 * NULL if memory is short.  No lock held.
 */
struct mrc_msg_rx *mrc_msg_rx_alloc(struct mrc_msg_node *node,
				    const struct mrc_pkt *pkt);
/* Frees a context (unused, expired, or popped and delivered). */
void mrc_msg_rx_free(struct mrc_msg_node *node, struct mrc_msg_rx *rm);
void *mrc_msg_rx_take_buf(struct mrc_msg_rx *rm);
/* Frees a buffer taken with mrc_msg_rx_take_buf() (@len: msg_len). */
void mrc_msg_rx_buf_free(struct mrc_msg_node *node, void *buf, u32 len);
/*
 * DATA packet @pkt arrived on path @pi.  Returns its drop reason
 * (MRC_DROP_NONE if it was used); @out says what to do next: if
 * out->need_ctx, release the rx lock, allocate out->fresh with
 * mrc_msg_rx_alloc() and call again; then free out->fresh if it is still
 * set, and answer (mrc_msg_rx_answer()) if out->sack or out->nholes.
 */
enum mrc_drop_reason mrc_msg_rx_packet(struct mrc_msg_peer *mp,
				       unsigned int pi,
				       const struct mrc_pkt *pkt, u64 now,
				       struct mrc_msg_rx_out *out);
/*
 * Tx lock held: sends the SACK and NACK that @out asks for in answer to
 * DATA packet @data, on the path @pi it arrived on; with
 * node->batch_done, a completion's SACK waits for mrc_msg_rx_flush().
 * Returns true when such a SACK is the first to wait: the host must call
 * mrc_msg_rx_flush() for this peer at the end of its batch.
 */
bool mrc_msg_rx_answer(struct mrc_msg_peer *mp, unsigned int pi,
		       const struct mrc_pkt *data,
		       const struct mrc_msg_rx_out *out, u64 now);
/*
 * Tx lock held: the end of a batch of arrivals (node->batch_done): sends
 * the completion SACKs the batch held back, as one, or holds them for a
 * DATA of ours (MRC_WF_ACK_LAZY) and arms the timer.
 */
void mrc_msg_rx_flush(struct mrc_msg_peer *mp, u64 now);
/*
 * Tx lock held, from the sender's timer and runs: sends the
 * acknowledgments held for a DATA of ours once their hold ended.
 */
void mrc_msg_rx_ack_timer(struct mrc_msg_peer *mp, u64 now);
/*
 * Tx lock held, from the sender's DATA: puts the acknowledgments held on
 * @pkt as its done list (in @buf) if they fit in @room bytes; once @pkt
 * went, mrc_msg_rx_done_sent() forgets them.
 */
void mrc_msg_rx_done_on_data(struct mrc_msg_peer *mp, struct mrc_pkt *pkt,
			     u8 *buf, u32 room, u64 now);
void mrc_msg_rx_done_sent(struct mrc_msg_peer *mp, const struct mrc_pkt *pkt);
/* The next message to deliver, off every list (NULL: none). */
struct mrc_msg_rx *mrc_msg_rx_pop(struct mrc_msg_peer *mp);
const struct mrc_msg_rx *mrc_msg_rx_peek(struct mrc_msg_peer *mp);
/* Whether a message waits to be delivered (mrc_msg_rx_pop() has one). */
bool mrc_msg_rx_ready(const struct mrc_msg_peer *mp);
/*
 * The expiry clock came due: if nothing arrived for twice peer_timeout_ms,
 * the incomplete messages move to @gone (the host frees them without the
 * lock) and the complete held ones are delivered; else it is re-armed.
 */
void mrc_msg_rx_expire(struct mrc_msg_peer *mp, u64 now,
		       struct list_head *gone);
/* The peer restarted: deliver what is whole, forget the rest. */
void mrc_msg_rx_restarted(struct mrc_msg_peer *mp);
/* The peer goes away: nothing new is taken (what is ready may be popped). */
void mrc_msg_rx_close(struct mrc_msg_peer *mp);
/* Whether mrc_msg_rx_close() was called. */
bool mrc_msg_rx_closed(const struct mrc_msg_peer *mp);
/*
 * After mrc_msg_rx_close(): every context still held moves to @gone (to
 * be freed without the lock), counted as discarded.
 */
void mrc_msg_rx_drain(struct mrc_msg_peer *mp, struct list_head *gone);

#endif /* _MRC_CORE_MSG_H */
