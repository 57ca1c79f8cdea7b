// SPDX-License-Identifier: GPL-2.0
/*
 * msg.c - reliable messages: segmentation, spraying, SACK, retransmission
 * (sender) and reassembly, ordering, delivery (receiver).
 *
 * Design notes
 *
 * Sender.  mrc_send() copies the caller's buffer into a kvmalloc'd
 * message (with its scoreboard, txsb.c) and appends it to the peer's
 * queue.  The peer's tx_work walks the queue in order and, per packet,
 * asks the scheduler (sched.c) for an ACTIVE path and sends one DATA
 * datagram on it with mrc_ud_send() under peer->lock (the lock that keeps
 * address handles alive).  A packet is seg = 4096 - 64 bytes (less if a
 * rail's MTU is smaller; such rails are skipped for larger segments), all
 * of one message carry the same seg.  At most cwnd packets of a peer are
 * in flight: a congestion window with additive increase (one packet per
 * window of acks) and multiplicative decrease (halved on a loss of a
 * packet sent after the previous decrease), between MRC_MSG_CWND_MIN and
 * MRC_MSG_CWND_MAX, starting at MRC_MSG_WINDOW.  It keeps the queues of a
 * bottleneck (and the UD receive queues) from overflowing, where packets
 * declared lost but still queued would otherwise be sent again on top.
 * When a send ring is full (-EAGAIN) the work stops and the peer's
 * hrtimer retries soon.
 *
 * Acknowledgment.  SACKs come back on the path of the packet that
 * triggered them and echo its tstamp: one ACK event (with an RTT sample)
 * on that path; every acked packet leaves its path's inflight.  A packet
 * still in flight on a path on which a later-sent packet of the same
 * message was just acked is lost: LOSS event, resent elsewhere.  The
 * peer's hrtimer ticks while anything is queued: packets in flight longer
 * than their path's RTO become LOST (RTO event), and so do packets older
 * than their path's srtt plus a reordering margin once a packet sent
 * after them, on any path, was acked (LOSS event, mrc_msg_loss_scan()).
 * A path whose state
 * leaves ACTIVE (LOSS, RTO, keepalive timeout, rail down or removed,
 * re-resolution) gives back all its in-flight packets at once
 * (mrc_msg_path_down()); they go out again on the remaining paths.  If no
 * path is usable for the peer_timeout_ms knob while packets wait, every
 * queued message fails with -EHOSTUNREACH and its memory is freed; if
 * paths are usable but nothing new is acked, granted or sent for
 * MRC_MSG_STALL_MULT times that, with -ETIMEDOUT (tx_timeout).  done()
 * is called from tx_work, in process context, without locks.
 *
 * Message ids.  msg_id = epoch << 32 | seq, seq = lane << 30 | n: the
 * lane is the message's traffic class, n counts the lane's messages to
 * the peer from 0 (msg.h); the epoch is the sender's wall-clock second
 * when the peer was added, and goes up whenever the sender gives messages
 * up.  A receiver orders each lane on its own, so a latency message never
 * waits behind a bulk one, and the sender serves latency first and
 * background last (mrc_msg_push()).  A receiver that sees a newer epoch
 * restarts every lane at n = 0, so a failed message never blocks its
 * successors.
 *
 * Receiver.  DATA -> the message's context (found by msg_id in the peer's
 * list, or made: bounded by the rx_msgs_per_peer knob's contexts per peer
 * and rx_buffer_mb of buffers overall; past that the packet is
 * dropped as no_memory and the sender retransmits - except for the
 * message that blocks delivery, which is always admitted, so held
 * messages cannot deadlock the peer) -> payload copied at its offset ->
 * reasm.c bookkeeping.  A SACK goes back on the arrival path every
 * MRC_MSG_SACK_EVERY new packets, for LAST/ACK_NOW/RETRANS packets, on
 * completion and for duplicates.  Complete messages are delivered in
 * sequence order per lane: seq == rx_next[lane] goes to the deliver list
 * (and pulls the held ones of its lane that follow), others wait in the
 * held list.  A packet of a message with seq < rx_next[lane] is a late
 * duplicate: acked as complete, not delivered again.  rx_work calls the
 * endpoint's recv() in process context, one message at a time, then frees
 * the message.
 *
 * Expiry.  If nothing new arrives from a peer for twice peer_timeout_ms
 * while messages wait for their missing packets or predecessors, the
 * sender has given them up (it fails what it cannot send within one
 * peer_timeout_ms): the peer's rx_gc work frees the incomplete ones
 * (rx_expired) and delivers the complete held ones, whose sender was told
 * they arrived; ordering resumes after the last of them.  So a peer that
 * vanishes for good leaves no reassembly memory behind.  But a sender
 * whose paths answer probes gives up only after MRC_MSG_STALL_MULT peer
 * timeouts without progress: if its DATA was black-holed for more than
 * two and then gets through again, a message the receiver gave up on (or
 * never saw) would count as "delivered already" and be acked whole.  So
 * the expired epoch is gone (rx_epoch_gone): its DATA is dropped without
 * an ack (rx_gone_pkts) until the sender gives up too and moves to a newer
 * epoch, and those messages fail with -ETIMEDOUT instead of reporting 0.
 *
 * Locking.  Sender state under peer->lock (BH spin); receiver state under
 * mp->rx_lock (BH spin).  They never nest: a SACK is built under rx_lock
 * and sent under peer->lock after rx_lock is released.  Memory of
 * messages is never allocated under a lock.  Lock order (peer.c):
 * mrc_rails_lock -> mrc_peers_lock -> peer->lock -> QP locks;
 * mp->rx_lock -> QP locks is not used (no send under rx_lock).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "mrc.h"
#include "mrc_api.h"
#include "credit_peer.h"
#include "msg.h"
#include "peer.h"
#include "core/reasm.h"
#include "schedcfg.h"
#include "core/txsb.h"
#include "ud.h"

#define MRC_MSG_WINDOW		64	/* initial cwnd, packets per peer */
#define MRC_MSG_CWND_MIN	8
#define MRC_MSG_CWND_MAX	128
#define MRC_MSG_BUDGET		128	/* packets per tx_work run */
#define MRC_MSG_TICK_NS		(2 * NSEC_PER_MSEC)
#define MRC_MSG_RETRY_NS	(250 * NSEC_PER_USEC)
#define MRC_MSG_SACK_EVERY	8
/*
 * Reordering margin of the loss scan: at least this, beyond a path's
 * srtt.  Under TCG a receiver handles one QP's completions in batches, so
 * packets of different paths overtake each other by several ms, and two
 * planes' bottleneck queues differ by tens of ms; 2 ms made ~10% of
 * packets spurious retransmissions there, 10 ms still ~4%.
 */
#define MRC_MSG_REO_MIN_NS	(20 * NSEC_PER_MSEC)
#define MRC_MSG_REO_STRIKES	3
/* No progress for this many peer_timeout_ms with paths usable: ETIMEDOUT. */
#define MRC_MSG_STALL_MULT	4
/* A receiver NACKs holes older than max(2 * srtt, this), at most as often. */
#define MRC_MSG_NACK_MIN_NS	(20 * NSEC_PER_MSEC)
/* Bulk and background yield this long after a latency message. */
#define MRC_MSG_YIELD_NS	(20 * NSEC_PER_MSEC)

/* ---- counters (debugfs mrc/msg) ---- */

enum {
	MS_TX_MSGS, MS_TX_BYTES, MS_TX_DONE, MS_TX_FAILED, MS_TX_PKTS,
	MS_TX_RETRANS, MS_TX_RING_FULL, MS_RTO_PKTS, MS_LOSS_PKTS,
	MS_PATH_DOWN_PKTS, MS_SACKS_RX, MS_SACKS_STALE, MS_SACKS_TX,
	MS_RX_PKTS, MS_RX_DUP, MS_RX_NO_MEM, MS_RX_MSGS, MS_RX_BYTES,
	MS_RX_HELD, MS_RX_NO_EP, MS_RX_DISCARDED, MS_RX_EXPIRED,
	MS_REO_LOSS_PKTS, MS_NACKS_TX, MS_NACKS_RX, MS_PEER_RESTARTS,
	MS_CWND_CUTS, MS_TX_TIMEOUT, MS_BG_YIELDS, MS_BULK_YIELDS,
	MS_RX_GONE_PKTS, MS_CTL_TX_ERRORS, MS_NR
};

static const char * const mrc_msg_stat_names[MS_NR] = {
	"tx_msgs", "tx_bytes", "tx_done", "tx_failed", "tx_pkts",
	"tx_retrans", "tx_ring_full", "rto_pkts", "loss_pkts",
	"path_down_pkts", "sacks_rx", "sacks_stale", "sacks_tx",
	"rx_pkts", "rx_dup_pkts", "rx_no_mem", "rx_msgs", "rx_bytes",
	"rx_held", "rx_no_endpoint", "rx_discarded", "rx_expired",
	"reo_loss_pkts", "nacks_tx", "nacks_rx", "peer_restarts",
	"cwnd_cuts", "tx_timeout", "bg_yields", "bulk_yields",
	"rx_gone_pkts", "ctl_tx_errors",
};

static atomic64_t mrc_msg_stats[MS_NR];

/*
 * When a latency-class message was last queued for sending or delivered
 * on this node (ns, ktime_get_ns()); 0 = never.  Lockless: written and
 * read with WRITE_ONCE/READ_ONCE, a stale value only moves the end of a
 * bulk or background yield by one message.  Per node, not per peer: under
 * Soft-RoCE the node's CPU is as much a shared resource as the fabric.
 */
static u64 mrc_msg_lat_ns;

/*
 * Delivery trace (debugfs mrc/deliveries): time and running byte count of
 * the last MRC_MSG_TRACE_N messages delivered, so that stalls can be
 * measured in the kernel's clock (CLOCK_MONOTONIC) instead of by a
 * sampler that the loaded vCPU schedules late.  Under mrc_msg_trace_lock.
 */
#define MRC_MSG_TRACE_N		4096
static struct mrc_msg_trace {
	u64 ns;
	u64 bytes;
} mrc_msg_trace[MRC_MSG_TRACE_N];
static unsigned int mrc_msg_trace_n;	/* entries written, wraps */
static u64 mrc_msg_trace_bytes;
static DEFINE_SPINLOCK(mrc_msg_trace_lock);
static atomic64_t mrc_rx_bytes_used;
static atomic64_t mrc_tx_bytes_used;	/* queued messages and scoreboards */
static struct dentry *mrc_msg_debugfs;

static void ms_add(int s, u64 v)
{
	atomic64_add(v, &mrc_msg_stats[s]);
}

static void ms_inc(int s)
{
	atomic64_inc(&mrc_msg_stats[s]);
}

/* ---- lanes (msg.h): one sequence space per traffic class ---- */

static unsigned int mrc_seq_lane(u32 seq)
{
	return seq >> MRC_MSG_LANE_SHIFT;
}

/* a - b for two sequence numbers of one lane, wrap-safe. */
static s32 mrc_seq_diff(u32 a, u32 b)
{
	return (s32)((a - b) << (32 - MRC_MSG_LANE_SHIFT)) >>
	       (32 - MRC_MSG_LANE_SHIFT);
}

static u32 mrc_seq_inc(u32 seq)
{
	return (seq & ~MRC_MSG_SEQ_MASK) | ((seq + 1) & MRC_MSG_SEQ_MASK);
}

/* Every lane back to its first sequence number. */
static void mrc_seq_reset(u32 *next)
{
	unsigned int lane;

	BUILD_BUG_ON(MRC_MSG_LANES != 1U << (32 - MRC_MSG_LANE_SHIFT));
	for (lane = 0; lane < MRC_MSG_LANES; lane++)
		next[lane] = lane << MRC_MSG_LANE_SHIFT;
}

/* The sender serves latency first and background last. */
static unsigned int mrc_msg_rank(u8 cls)
{
	switch (cls) {
	case MRC_SCHED_CLASS_LATENCY:
		return 0;
	case MRC_SCHED_CLASS_BACKGROUND:
		return 2;
	default:
		return 1;
	}
}

/* The id of the next message of class @cls.  Under peer->lock. */
static u64 mrc_msg_next_id(struct mrc_msg_peer *mp, u8 cls)
{
	u32 seq = mp->next_seq[cls];

	mp->next_seq[cls] = mrc_seq_inc(seq);
	return (u64)mp->epoch << 32 | seq;
}

/* ---- messages ---- */

struct mrc_tx_msg {
	struct list_head node;		/* on mp->txq or mp->done */
	struct mrc_ep *ep;		/* pending count held */
	void (*done)(void *ctx, int status);
	void *ctx;
	int status;
	u64 msg_id;
	u32 len;
	u16 seg;
	u16 src_port, dst_port;
	u8 cls;				/* sched: traffic class */
	void *buf;			/* kvmalloc, len bytes */
	void *sb_mem;			/* kvmalloc, txsb storage */
	size_t mem;			/* counted in mrc_tx_bytes_used */
	struct mrc_txsb sb;
};

struct mrc_rx_msg {
	struct list_head node;		/* rxq, held or deliver */
	u64 msg_id;
	u32 seq;
	u32 src_node;
	u16 src_port, dst_port;
	u32 since_sack;			/* new packets since the last SACK */
	u64 hole_ns;			/* holes below hi seen since, or 0 */
	u64 nack_ns;			/* last NACK sent */
	void *buf;			/* kvmalloc, msg_len bytes */
	struct mrc_reasm r;		/* bm: kvmalloc */
};

static void mrc_tx_msg_free(struct mrc_tx_msg *m)
{
	atomic64_sub(m->mem, &mrc_tx_bytes_used);
	kvfree(m->buf);
	kvfree(m->sb_mem);
	kfree(m);
}

static void mrc_rx_msg_free(struct mrc_rx_msg *rm)
{
	atomic64_sub(rm->r.msg_len, &mrc_rx_bytes_used);
	kvfree(rm->buf);
	kvfree(rm->r.bm);
	kfree(rm);
}

static u32 mrc_now_us(u64 now_ns)
{
	return (u32)div_u64(now_ns, NSEC_PER_USEC);
}

static u64 mrc_msg_peer_timeout_ns(void)
{
	return (u64)mrc_knob(MRC_KNOB_peer_timeout_ms) * NSEC_PER_MSEC;
}

/* The same parameters as peer.c's: the data path obeys rto_max_ms too. */
static void mrc_msg_path_params(struct mrc_path_params *pp)
{
	mrc_path_params_default(pp);
	pp->keepalive_ns = mrc_knob(MRC_KNOB_probe_ms) * NSEC_PER_MSEC;
	pp->rtt.rto_max_ns = mrc_knob(MRC_KNOB_rto_max_ms) * NSEC_PER_MSEC;
	/*
	 * Data packets wait behind queues (a bottleneck's, the receiver's
	 * vCPU): an RTO shorter than those waits only resends what is still
	 * on its way (measured under TCG: every such resend was a
	 * duplicate).  Knob data_rto_min_ms, at most rto_max_ms.
	 */
	pp->rtt.rto_min_ns = min_t(u64, (u64)mrc_knob(MRC_KNOB_data_rto_min_ms) *
					NSEC_PER_MSEC, pp->rtt.rto_max_ns);
	pp->rtt.rto_init_ns = max(pp->rtt.rto_init_ns, pp->rtt.rto_min_ns);
}

static struct mrc_peer_path *mrc_msg_ppath(struct mrc_peer *peer,
					   unsigned int pi)
{
	return &peer->links[pi / MRC_CM_MAX_QPS].paths[pi % MRC_CM_MAX_QPS];
}

static u32 mrc_msg_pkt_len(const struct mrc_tx_msg *m, u32 idx)
{
	u32 off = idx * m->seg;

	return min_t(u32, m->seg, m->len - off);
}

/* ---- sender ---- */

static void mrc_msg_arm(struct mrc_peer *peer, u64 delay_ns)
{
	struct mrc_msg_peer *mp = &peer->mp;

	lockdep_assert_held(&peer->lock);
	if (peer->dead)
		return;
	if (hrtimer_active(&mp->timer) &&
	    ktime_to_ns(hrtimer_get_remaining(&mp->timer)) <= (s64)delay_ns)
		return;
	hrtimer_start(&mp->timer, ns_to_ktime(delay_ns),
		      HRTIMER_MODE_REL_SOFT);
}

static void mrc_msg_kick_locked(struct mrc_peer *peer)
{
	lockdep_assert_held(&peer->lock);
	if (!peer->dead)
		queue_work(system_wq, &peer->mp.tx_work);
}

static enum hrtimer_restart mrc_msg_timer(struct hrtimer *t)
{
	struct mrc_msg_peer *mp = container_of(t, struct mrc_msg_peer, timer);
	struct mrc_peer *peer = container_of(mp, struct mrc_peer, mp);

	spin_lock_bh(&peer->lock);
	mrc_msg_kick_locked(peer);
	spin_unlock_bh(&peer->lock);
	return HRTIMER_NORESTART;
}

/* What the txsb callbacks need; lives on the stack of one call. */
struct mrc_msg_cb {
	struct mrc_peer *peer;
	struct mrc_tx_msg *m;
	struct mrc_path_params pp;
	u64 now;
	int how;			/* enum mrc_path_done */
	int ev;				/* path event to raise, or 0 */
	bool congestion;		/* LOST by queue drop evidence */
};

/* Send time in ns of a packet sent at @sent_us (u32 us clock). */
static u64 mrc_msg_sent_ns(u64 now, u32 sent_us)
{
	u32 age_us = mrc_now_us(now) - sent_us;

	return now - min_t(u64, now, (u64)age_us * NSEC_PER_USEC);
}

/* A packet leaves INFLIGHT (acked, lost, released). */
static void mrc_msg_cb_fn(void *arg, const struct mrc_txsb_event *ev)
{
	struct mrc_msg_cb *cb = arg;
	struct mrc_peer *peer = cb->peer;
	struct mrc_msg_peer *mp = &peer->mp;
	struct mrc_path *p;

	if (!ev->inflight)
		return;
	p = &mrc_msg_ppath(peer, ev->path)->p;
	WARN_ON_ONCE(mrc_path_inflight_sub(p, 1,
					   mrc_msg_pkt_len(cb->m, ev->idx),
					   cb->how));
	/* sched: charged to the policy that sent it, not the current one */
	mrc_schedcfg_count_done(ev->tag, cb->how);
	if (!WARN_ON_ONCE(!mp->inflight))
		mp->inflight--;
	if (mrc_msg_yielding(cb->m->cls) &&
	    !WARN_ON_ONCE(!mp->cls_inflight[cb->m->cls]))
		mp->cls_inflight[cb->m->cls]--;
	if (cb->how == MRC_PATH_DONE_LOST && cb->congestion &&
	    (!mp->recover_valid || (s32)(ev->sent_us - mp->recover_us) > 0)) {
		/*
		 * First drop since the last decrease: halve the window.  Only
		 * drops proven by a later packet of the same path acked first
		 * (a path is FIFO: a queue dropped it) count; time-based
		 * losses and RTOs, mostly stalls of the VM under TCG, resend
		 * without a cut.
		 */
		mp->cwnd = max_t(u32, mp->cwnd / 2, MRC_MSG_CWND_MIN);
		mp->cwnd_acc = 0;
		mp->recover_us = mrc_now_us(cb->now);
		mp->recover_valid = true;
		ms_inc(MS_CWND_CUTS);
	}
	if (cb->how == MRC_PATH_DONE_ACKED) {
		if (++mp->cwnd_acc >= mp->cwnd && mp->cwnd < MRC_MSG_CWND_MAX) {
			mp->cwnd++;
			mp->cwnd_acc = 0;
		}
		if (!mp->rack_valid || (s32)(ev->sent_us - mp->rack_us) > 0)
			mp->rack_us = ev->sent_us;
		mp->rack_valid = true;
		mp->reo_strikes[ev->path] = 0;
		if (!test_bit(ev->path, mp->ack_seen) ||
		    (s32)(ev->sent_us - mp->ack_hi_us[ev->path]) > 0)
			mp->ack_hi_us[ev->path] = ev->sent_us;
		__set_bit(ev->path, mp->ack_seen);
		return;
	}
	if (cb->ev) {
		u8 prev = p->state;

		if (mrc_path_event(p, &cb->pp, cb->ev, cb->now,
				   mrc_msg_sent_ns(cb->now, ev->sent_us)) > 0) {
			__set_bit(ev->path, mp->left);
			mrc_nl_path_event(peer,
					  &peer->links[ev->path / MRC_CM_MAX_QPS],
					  ev->path % MRC_CM_MAX_QPS, prev);
		}
	}
}

/* Gives back every packet in flight on a path in mp->left. */
static void mrc_msg_drain_left(struct mrc_peer *peer, struct mrc_msg_cb *cb)
{
	struct mrc_msg_peer *mp = &peer->mp;
	struct mrc_tx_msg *m;
	unsigned int pi;
	u32 n;

	cb->how = MRC_PATH_DONE_LOST;
	cb->ev = 0;
	for_each_set_bit(pi, mp->left, MRC_MSG_NPATHS) {
		list_for_each_entry(m, &mp->txq, node) {
			cb->m = m;
			n = mrc_txsb_lose_path(&m->sb, pi, mrc_msg_cb_fn, cb);
			ms_add(MS_PATH_DOWN_PKTS, n);
		}
	}
	bitmap_zero(mp->left, MRC_MSG_NPATHS);
}

void mrc_msg_path_down(struct mrc_peer *peer, unsigned int l, unsigned int i,
		       bool release)
{
	struct mrc_msg_peer *mp = &peer->mp;
	unsigned int pi = l * MRC_CM_MAX_QPS + i;
	struct mrc_msg_cb cb = { .peer = peer, .now = ktime_get_ns() };
	struct mrc_tx_msg *m;

	lockdep_assert_held(&peer->lock);
	if (!peer->links[l].paths[i].p.inflight_pkts)
		return;
	mrc_msg_path_params(&cb.pp);
	cb.how = release ? MRC_PATH_DONE_RELEASED : MRC_PATH_DONE_LOST;
	list_for_each_entry(m, &mp->txq, node) {
		cb.m = m;
		ms_add(MS_PATH_DOWN_PKTS,
		       mrc_txsb_lose_path(&m->sb, pi, mrc_msg_cb_fn, &cb));
	}
	mrc_msg_kick_locked(peer);
}

/* Fills mp->paths with the usable paths for segments of @seg bytes. */
static unsigned int mrc_msg_paths(struct mrc_peer *peer, u16 seg)
{
	struct mrc_msg_peer *mp = &peer->mp;
	unsigned int l, i, n = peer->nlinks * MRC_CM_MAX_QPS;

	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];
		bool ok = link->ah && link->rail &&
			  READ_ONCE(link->rail->info.mtu) >=
			  seg + MRC_WIRE_HDR_LEN;

		for (i = 0; i < MRC_CM_MAX_QPS; i++)
			mp->paths[l * MRC_CM_MAX_QPS + i] =
				ok && i < link->npaths ?
				&link->paths[i].p : NULL;
	}
	return n;
}

/*
 * @ack_now: the last packet the sender may send for now (its credit ran
 * out), so the receiver acks it at once and not MRC_MSG_SACK_EVERY later.
 */
static int mrc_msg_send_data(struct mrc_peer *peer, struct mrc_tx_msg *m,
			     u32 idx, unsigned int pi, bool retrans,
			     bool ack_now, u64 now)
{
	struct mrc_peer_link *link = &peer->links[pi / MRC_CM_MAX_QPS];
	unsigned int ev = pi % MRC_CM_MAX_QPS;
	struct mrc_peer_path *pp = &link->paths[ev];
	u8 hdr[MRC_WIRE_HDR_LEN];
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.type = MRC_PKT_DATA,
		.src_node = mrc_knob(MRC_KNOB_node_id),
		.dst_node = peer->node_id,
		.src_port = m->src_port,
		.dst_port = m->dst_port,
		.msg_id = m->msg_id,
		.offset = idx * m->seg,
		.msg_len = m->len,
		.len = mrc_msg_pkt_len(m, idx),
		.seg = m->seg,
		.entropy = ev,
		.tstamp = now,
		.token = peer->tx_token,	/* token branch */
	};

	if (idx == m->sb.npkts - 1)
		pkt.flags |= MRC_WF_LAST | MRC_WF_ACK_NOW;
	if (retrans)
		pkt.flags |= MRC_WF_RETRANS | MRC_WF_ACK_NOW;
	if (ack_now || peer->mp.inflight + 1 >= peer->mp.cwnd)
		pkt.flags |= MRC_WF_ACK_NOW;
	pkt.path_seq = mrc_path_next_seq(&pp->p);
	mrc_wire_put_hdr(hdr, &pkt);
	return mrc_ud_send(link->rail->ud, ev, link->ah, pp->remote_qpn, hdr,
			   sizeof(hdr), m->buf + pkt.offset, pkt.len);
}

/*
 * Loss scan, every tick: a packet in flight on path P is lost if
 *  - it is older than P's RTO (RTO event), or
 *  - a packet sent after it (on any path) has been acked and it is older
 *    than P's srtt + max(4 * rttvar, srtt, MRC_MSG_REO_MIN_NS)
 *    (LOSS event):
 *    time-based loss detection across paths, as RACK (RFC 8985) does
 *    across a flow's packets.  When a plane dies, its packets are found
 *    lost about one RTT after the first later packet on another plane is
 *    acked, instead of after an RTO; the path leaves the spray set and is
 *    probed back.
 */
static void mrc_msg_loss_scan(struct mrc_peer *peer, struct mrc_msg_cb *cb)
{
	struct mrc_msg_peer *mp = &peer->mp;
	u32 now_us = mrc_now_us(cb->now);
	unsigned int l, i, pi;
	struct mrc_tx_msg *m;
	bool any = false;

	if (!mp->inflight)
		return;
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];

		for (i = 0; i < link->npaths && i < MRC_CM_MAX_QPS; i++) {
			struct mrc_path *p = &link->paths[i].p;
			u64 rto, reo;

			if (!p->inflight_pkts)
				continue;
			pi = l * MRC_CM_MAX_QPS + i;
			rto = mrc_path_rto(p, &cb->pp);
			reo = p->rtt.srtt_ns ?
			      (u64)p->rtt.srtt_ns +
			      max3(4ULL * p->rtt.rttvar_ns,
				   (u64)p->rtt.srtt_ns,
				   (u64)MRC_MSG_REO_MIN_NS) : rto;
			mp->rto_cut_us[pi] = now_us -
					     (u32)div_u64(rto, NSEC_PER_USEC);
			mp->reo_cut_us[pi] = now_us -
					     (u32)div_u64(min(reo, rto),
							  NSEC_PER_USEC);
			any = true;
		}
	}
	if (!any)
		return;
	cb->how = MRC_PATH_DONE_LOST;
	list_for_each_entry(m, &mp->txq, node) {
		struct mrc_txsb *sb = &m->sb;
		u32 idx;

		cb->m = m;
		for (idx = mrc_txsb_cum(sb);
		     idx < sb->hi_sent && mrc_txsb_inflight(sb); idx++) {
			u32 sent = sb->sent_us[idx];

			if (mrc_txsb_state(sb, idx) != MRC_TXSB_INFLIGHT)
				continue;
			pi = sb->path[idx];
			if ((s32)(sent - mp->rto_cut_us[pi]) < 0) {
				cb->ev = MRC_PATH_EV_RTO;
				ms_inc(MS_RTO_PKTS);
			} else if (mp->rack_valid &&
				   (s32)(mp->rack_us - sent) > 0 &&
				   (s32)(sent - mp->reo_cut_us[pi]) < 0) {
				/*
				 * Resend it; the path leaves the spray set
				 * only at MRC_MSG_REO_STRIKES such losses
				 * without an ack in between (a dead plane
				 * gets there within one scan, a reordered
				 * packet does not).
				 */
				if (mp->reo_strikes[pi] < U8_MAX)
					mp->reo_strikes[pi]++;
				cb->ev = mp->reo_strikes[pi] >=
					 MRC_MSG_REO_STRIKES ?
					 MRC_PATH_EV_LOSS : 0;
				ms_inc(MS_REO_LOSS_PKTS);
			} else {
				continue;
			}
			mrc_txsb_nack(sb, idx, 1, mrc_msg_cb_fn, cb);
		}
	}
	mrc_msg_drain_left(peer, cb);
}

/* Whether any of the @n paths in mp->paths is in the spray set. */
static bool mrc_msg_any_usable(struct mrc_msg_peer *mp, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (mp->paths[i] && mrc_path_in_spray_set(mp->paths[i]))
			return true;
	return false;
}

/*
 * Whether a packet of class @cls must wait (knobs bulk_yield_pkts,
 * bg_yield_pkts): a latency-class message was seen on this node within
 * MRC_MSG_YIELD_NS and the peer already has the class's allowed packets
 * in flight.  The packets in flight come back (acked, lost, released) and
 * kick the queue again, so a held message always moves on.  Under lock.
 */
static bool mrc_msg_yields(struct mrc_msg_peer *mp, u8 cls, u64 now)
{
	u32 cap = cls == MRC_SCHED_CLASS_BULK ?
		  mrc_knob(MRC_KNOB_bulk_yield_pkts) :
		  mrc_knob(MRC_KNOB_bg_yield_pkts);
	u64 lat = READ_ONCE(mrc_msg_lat_ns);

	return cap && mp->cls_inflight[cls] >= cap && lat &&
	       now - lat < MRC_MSG_YIELD_NS;
}

/* One mrc_msg_push() run: what every message of the run shares. */
struct mrc_msg_run {
	struct mrc_sched_params sp;	/* sched: the live configuration */
	struct mrc_sched_res res;
	unsigned int budget;		/* packets left in this run */
	unsigned int n;			/* paths for seg */
	u16 seg;
	bool no_path;
	bool more;			/* budget ran out */
	u32 blocked;			/* sched: classes with no path */
};

/*
 * Sends what the window, the rings and the paths allow of message @m.
 * Returns false when the run must stop (window full, ring full, budget
 * spent), true to go on with the next message.  Under lock.
 */
static bool mrc_msg_push_msg(struct mrc_peer *peer, struct mrc_msg_cb *cb,
			     struct mrc_tx_msg *m, struct mrc_msg_run *run)
{
	struct mrc_msg_peer *mp = &peer->mp;
	struct mrc_sched_res *res = &run->res;
	u32 idx;

	/* sched: a class waiting for its rails blocks only itself */
	if (run->blocked & BIT(m->cls))
		return true;
	if (m->seg != run->seg) {
		run->seg = m->seg;
		run->n = mrc_msg_paths(peer, run->seg);
	}
	while ((idx = mrc_txsb_next(&m->sb)) != MRC_TXSB_NONE) {
		u32 plen = mrc_msg_pkt_len(m, idx);
		int pi, err = 0, tries;
		bool retrans, ack_now;

		if (mp->inflight >= mp->cwnd)
			return false;
		if (mrc_msg_yielding(m->cls) &&
		    mrc_msg_yields(mp, m->cls, cb->now)) {
			ms_inc(m->cls == MRC_SCHED_CLASS_BULK ? MS_BULK_YIELDS :
			       MS_BG_YIELDS);
			return true;
		}
		if (!run->budget) {
			run->more = true;
			return false;
		}
		run->budget--;
		retrans = mrc_txsb_state(&m->sb, idx) == MRC_TXSB_LOST;
		/* credit_peer.c: new bytes may wait for a GRANT. */
		if (!retrans &&
		    !mrc_credit_tx_may(peer, m->msg_id, m->len, idx * m->seg,
				       plen, m->cls == MRC_SCHED_CLASS_LATENCY,
				       cb->now)) {
			/*
			 * Waiting for a GRANT counts as stuck when no path is
			 * usable: a receiver that cannot be reached never
			 * grants (unreachable.sh).
			 */
			if (!mrc_msg_any_usable(mp, run->n))
				run->no_path = true;
			return true;
		}
		ack_now = !retrans &&
			  mrc_credit_tx_stops(peer, m->msg_id, m->seg);
		for (tries = 0; tries < 4; tries++) {
			/* sched: the message's class, this packet's length */
			pi = mrc_sched_select(&mp->sched, &run->sp, mp->paths,
					      run->n, m->cls, plen, cb->now,
					      res);
			if (pi < 0)
				break;
			if (res->flags & MRC_SCHED_F_FALLBACK_CHANGED)
				mrc_nl_class_event(peer->node_id, m->cls,
						   res->flags &
						   MRC_SCHED_F_FALLBACK);
			err = mrc_msg_send_data(peer, m, idx, pi, retrans,
						ack_now, cb->now);
			if (err != -ENETDOWN)
				break;
		}
		if (pi < 0) {
			run->no_path = true;
			run->blocked |= BIT(m->cls);
			return true;
		}
		if (err == -EAGAIN) {
			mp->ring_full = true;
			ms_inc(MS_TX_RING_FULL);
			return false;
		}
		if (err)	/* QPs recovering: like a lost send */
			pr_debug("mrc: send to %u: %d\n", peer->node_id, err);
		mrc_txsb_sent(&m->sb, idx, pi, mrc_now_us(cb->now));
		/* sched: the policy tag, for per-policy counters */
		mrc_txsb_set_tag(&m->sb, idx, res->policy);
		mrc_schedcfg_count_tx(mp->paths[pi]->local_rail, m->cls,
				      res->policy);
		mrc_path_inflight_add(mp->paths[pi], 1, plen);
		mp->inflight++;
		if (mrc_msg_yielding(m->cls))
			mp->cls_inflight[m->cls]++;
		mp->stuck_ns = 0;
		ms_inc(MS_TX_PKTS);
		if (retrans)
			ms_inc(MS_TX_RETRANS);
		else
			mp->progress_ns = cb->now;
	}
	return true;
}

/*
 * Sends what the window, the rings and the paths allow, lane by rank
 * (msg.h): latency messages first, background ones with what is left of
 * the window; in queue order within a rank.  Under lock.
 */
static void mrc_msg_push(struct mrc_peer *peer, struct mrc_msg_cb *cb,
			 bool *more)
{
	struct mrc_msg_peer *mp = &peer->mp;
	struct mrc_msg_run run = { .budget = MRC_MSG_BUDGET };
	struct mrc_tx_msg *m;
	unsigned int rank;

	mrc_schedcfg_params(&run.sp, mp->policy);
	mp->ring_full = false;
	for (rank = 0; rank < MRC_MSG_RANKS; rank++) {
		if (!mp->ntx_rank[rank])
			continue;
		list_for_each_entry(m, &mp->txq, node)
			if (mrc_msg_rank(m->cls) == rank &&
			    !mrc_msg_push_msg(peer, cb, m, &run)) {
				*more = run.more;
				return;
			}
	}
	if (run.no_path && !mp->stuck_ns)
		mp->stuck_ns = cb->now ? cb->now : 1;
}

/* Fails every queued message (no path for too long).  Under lock. */
static void mrc_msg_fail_all(struct mrc_peer *peer, struct mrc_msg_cb *cb,
			     int status)
{
	struct mrc_msg_peer *mp = &peer->mp;
	struct mrc_tx_msg *m, *tmp;

	cb->how = MRC_PATH_DONE_RELEASED;
	cb->ev = 0;
	list_for_each_entry_safe(m, tmp, &mp->txq, node) {
		unsigned int pi;

		cb->m = m;
		for (pi = 0; pi < MRC_MSG_NPATHS && mrc_txsb_inflight(&m->sb);
		     pi++)
			mrc_txsb_lose_path(&m->sb, pi, mrc_msg_cb_fn, cb);
		m->status = status;
		list_move_tail(&m->node, &mp->done);
		mp->ntx--;
		mp->ntx_rank[mrc_msg_rank(m->cls)]--;
	}
	mrc_credit_tx_reset(peer);	/* credit_peer.c */
	/* Successors must not wait for what was given up. */
	mp->epoch = max_t(u32, mp->epoch + 1, (u32)ktime_get_real_seconds());
	mrc_seq_reset(mp->next_seq);
	mp->stuck_ns = 0;
}

static void mrc_msg_complete(struct list_head *list)
{
	struct mrc_tx_msg *m, *tmp;

	list_for_each_entry_safe(m, tmp, list, node) {
		list_del(&m->node);
		ms_inc(m->status ? MS_TX_FAILED : MS_TX_DONE);
		m->done(m->ctx, m->status);
		mrc_ep_sent_done(m->ep);
		mrc_tx_msg_free(m);
	}
}

static void mrc_msg_tx_workfn(struct work_struct *work)
{
	struct mrc_msg_peer *mp = container_of(work, struct mrc_msg_peer,
					       tx_work);
	struct mrc_peer *peer = container_of(mp, struct mrc_peer, mp);
	struct mrc_msg_cb cb = { .peer = peer };
	bool more = false;
	LIST_HEAD(done);

	mrc_msg_path_params(&cb.pp);
	spin_lock_bh(&peer->lock);
	cb.now = ktime_get_ns();
	if (!peer->dead) {
		mrc_msg_loss_scan(peer, &cb);
		mrc_msg_push(peer, &cb, &more);
		if (mp->stuck_ns &&
		    cb.now - mp->stuck_ns > mrc_msg_peer_timeout_ns())
			mrc_msg_fail_all(peer, &cb, -EHOSTUNREACH);
		/*
		 * Paths usable but no progress at all (nothing new acked,
		 * sent or granted): a broken or hostile receiver.  Nothing
		 * may wait forever (mrc_ep_close() waits for every send).
		 */
		if (!list_empty(&mp->txq) &&
		    cb.now - mp->progress_ns > MRC_MSG_STALL_MULT *
					       mrc_msg_peer_timeout_ns()) {
			ms_inc(MS_TX_TIMEOUT);
			pr_warn_ratelimited("mrc: peer %u: no progress for %llu ms, its %u messages fail with ETIMEDOUT\n",
					    peer->node_id,
					    div_u64(cb.now - mp->progress_ns,
						    NSEC_PER_MSEC), mp->ntx);
			mrc_msg_fail_all(peer, &cb, -ETIMEDOUT);
		}
		if (more)
			mrc_msg_kick_locked(peer);
		else if (mp->ring_full)
			mrc_msg_arm(peer, MRC_MSG_RETRY_NS);
		else if (!list_empty(&mp->txq))
			mrc_msg_arm(peer, MRC_MSG_TICK_NS);
	}
	list_splice_init(&mp->done, &done);
	spin_unlock_bh(&peer->lock);
	mrc_msg_complete(&done);
}

/* mrc_msg_send() to an idle peer, a GRANT (credit_peer.c): push inline. */
void mrc_msg_push_now(struct mrc_peer *peer)
{
	struct mrc_msg_cb cb = { .peer = peer, .now = ktime_get_ns() };
	struct mrc_msg_peer *mp = &peer->mp;
	bool more = false;

	lockdep_assert_held(&peer->lock);
	mrc_msg_path_params(&cb.pp);
	mrc_msg_push(peer, &cb, &more);
	if (more || mp->stuck_ns)
		mrc_msg_kick_locked(peer);
	else if (mp->ring_full)
		mrc_msg_arm(peer, MRC_MSG_RETRY_NS);
	else
		mrc_msg_arm(peer, MRC_MSG_TICK_NS);
}

int mrc_msg_send(struct mrc_ep *ep, u16 src_port, u32 node, u16 port,
		 u8 cls, const void *buf, u32 len,
		 void (*done)(void *ctx, int status), void *ctx)
{
	struct mrc_peer *peer;
	struct mrc_tx_msg *m;
	unsigned int l;
	size_t sbb;
	u16 seg = MRC_WIRE_MAX_PAYLOAD;
	u32 mtu = 0;
	int err = 0;

	if (!len || len > MRC_MSG_MAX_LEN || !done)
		return -EINVAL;
	peer = mrc_peer_get(node);
	if (!peer)
		return -EHOSTUNREACH;

	/* The segment: the smallest MTU among the resolved links. */
	spin_lock_bh(&peer->lock);
	for (l = 0; l < peer->nlinks; l++)
		if (peer->links[l].ah && peer->links[l].rail) {
			u32 x = READ_ONCE(peer->links[l].rail->info.mtu);

			if (x > MRC_WIRE_HDR_LEN + MRC_WIRE_MIN_SEG &&
			    (!mtu || x < mtu))
				mtu = x;
		}
	spin_unlock_bh(&peer->lock);
	if (mtu && mtu - MRC_WIRE_HDR_LEN < seg)
		seg = mtu - MRC_WIRE_HDR_LEN;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m) {
		err = -ENOMEM;
		goto out_put;
	}
	m->ep = ep;
	m->done = done;
	m->ctx = ctx;
	m->len = len;
	m->seg = seg;
	m->src_port = src_port;
	m->dst_port = port;
	m->cls = cls < MRC_SCHED_CLASS_NR ? cls : MRC_SCHED_CLASS_DEFAULT;
	sbb = mrc_txsb_storage_bytes(mrc_wire_npkts(len, seg));
	m->buf = kvmalloc(len, GFP_KERNEL);
	m->sb_mem = kvmalloc(sbb, GFP_KERNEL);
	if (!m->buf || !m->sb_mem) {
		err = -ENOMEM;
		goto out_free;
	}
	m->mem = len + sbb;
	atomic64_add(m->mem, &mrc_tx_bytes_used);
	memcpy(m->buf, buf, len);
	mrc_txsb_init(&m->sb, mrc_wire_npkts(len, seg), m->sb_mem);

	spin_lock_bh(&peer->lock);
	if (peer->dead) {
		err = -EHOSTUNREACH;
	} else if (peer->mp.ntx >= mrc_knob(MRC_KNOB_tx_msgs_per_peer)) {
		err = -ENOBUFS;
	} else {
		bool idle = list_empty(&peer->mp.txq);

		if (idle)	/* the stall clock starts now */
			peer->mp.progress_ns = ktime_get_ns();

		m->msg_id = mrc_msg_next_id(&peer->mp, m->cls);
		if (m->cls == MRC_SCHED_CLASS_LATENCY)	/* others yield */
			WRITE_ONCE(mrc_msg_lat_ns, ktime_get_ns());
		list_add_tail(&m->node, &peer->mp.txq);
		peer->mp.ntx++;
		peer->mp.ntx_rank[mrc_msg_rank(m->cls)]++;
		/*
		 * Nothing else queued: send the first window right here (one
		 * workqueue hop less on the latency path); tx_work does the
		 * rest and the tick takes over loss detection.
		 */
		if (idle)
			mrc_msg_push_now(peer);
		else
			mrc_msg_kick_locked(peer);
	}
	spin_unlock_bh(&peer->lock);
	if (err)
		goto out_free;
	ms_inc(MS_TX_MSGS);
	ms_add(MS_TX_BYTES, len);
	mrc_peer_put(peer);
	return 0;

out_free:
	mrc_tx_msg_free(m);
out_put:
	mrc_peer_put(peer);
	return err;
}

/* ---- receive: common ---- */

/*
 * The peer of a packet from (@uqp, @src_qp), referenced, with its link
 * index in *@lp; NULL and *@why set if the packet does not carry the
 * token this node gave the peer (checked first: token branch) or is not
 * from one of the peer's paths.
 */
struct mrc_peer *mrc_msg_rx_peer(struct mrc_ud_qp *uqp, u32 src_qp,
				 const struct mrc_pkt *pkt, unsigned int *lp,
				 enum mrc_drop_reason *why)
{
	struct mrc_peer *peer = mrc_peer_get(pkt->src_node);
	unsigned int l, ev = uqp->ev;

	if (!peer) {
		*why = MRC_DROP_UNKNOWN_PEER;
		return NULL;
	}
	spin_lock_bh(&peer->lock);
	/* token branch: before anything looks at the packet (peer.c) */
	if (!mrc_peer_token_ok(peer, pkt)) {
		spin_unlock_bh(&peer->lock);
		mrc_peer_put(peer);
		*why = MRC_DROP_BAD_TOKEN;
		return NULL;
	}
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];

		if (link->rail == uqp->ud->rail && link->ah &&
		    ev < link->npaths && pkt->entropy == ev &&
		    link->paths[ev].remote_qpn == src_qp)
			break;
	}
	spin_unlock_bh(&peer->lock);
	if (l == peer->nlinks) {
		mrc_peer_put(peer);
		*why = MRC_DROP_WRONG_PATH;
		return NULL;
	}
	*lp = l;
	return peer;
}

/* ---- receiver ---- */

/*
 * Sends a control packet (SACK or NACK) of @type whose body of @body_len
 * bytes is already at @buf + MRC_WIRE_HDR_LEN, in answer to DATA packet
 * @data, on the path it arrived on.  Returns 0 if it went out.
 */
static int mrc_msg_send_ctl(struct mrc_peer *peer, unsigned int l,
			    const struct mrc_pkt *data, u8 type, u8 *buf,
			    u16 body_len)
{
	struct mrc_peer_link *link = &peer->links[l];
	unsigned int ev = data->entropy;
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.type = type,
		.src_node = mrc_knob(MRC_KNOB_node_id),
		.dst_node = peer->node_id,
		.src_port = data->dst_port,
		.dst_port = data->src_port,
		.msg_id = data->msg_id,
		.entropy = ev,
		.len = body_len,
	};
	int err = -ENETDOWN;

	spin_lock_bh(&peer->lock);
	if (link->ah && ev < link->npaths) {
		pkt.token = peer->tx_token;	/* token branch */
		pkt.path_seq = mrc_path_next_seq(&link->paths[ev].p);
		pkt.tstamp = ktime_get_ns();
		mrc_wire_put_hdr(buf, &pkt);
		err = mrc_ud_send(link->rail->ud, ev, link->ah,
				  link->paths[ev].remote_qpn, buf,
				  MRC_WIRE_HDR_LEN + body_len, NULL, 0);
	}
	spin_unlock_bh(&peer->lock);
	return err;
}

static void mrc_msg_send_sack(struct mrc_peer *peer, unsigned int l,
			      const struct mrc_pkt *data,
			      const struct mrc_reasm_sack *rs)
{
	u8 buf[MRC_WIRE_HDR_LEN + sizeof(struct mrc_wire_sack)];
	struct mrc_pkt_sack sack = {
		.cum = rs->cum,
		.nbits = rs->nbits,
		.echo_entropy = data->entropy,
		.echo_path_seq = data->path_seq,
		.echo_tstamp = data->tstamp,
	};
	u16 len;

	memcpy(sack.bitmap, rs->bitmap, sizeof(sack.bitmap));
	len = mrc_wire_put_sack(buf + MRC_WIRE_HDR_LEN, &sack);
	if (!mrc_msg_send_ctl(peer, l, data, MRC_PKT_SACK, buf, len))
		ms_inc(MS_SACKS_TX);
	else
		ms_inc(MS_CTL_TX_ERRORS);
}

/*
 * NACK: the holes of a message that outlived the reordering allowance.
 * Sent on the arrival path of @data, like a SACK.
 */
static void mrc_msg_send_nack(struct mrc_peer *peer, unsigned int l,
			      const struct mrc_pkt *data,
			      const struct mrc_reasm_range *holes,
			      unsigned int n)
{
	u8 buf[MRC_WIRE_HDR_LEN +
	       MRC_WIRE_NACK_MAX * sizeof(struct mrc_wire_nack_range)];
	struct mrc_pkt_nack_range r[MRC_WIRE_NACK_MAX];
	unsigned int i;
	u16 len;

	for (i = 0; i < n; i++) {
		r[i].first = holes[i].first;
		r[i].count = holes[i].count;
	}
	len = mrc_wire_put_nack(buf + MRC_WIRE_HDR_LEN, r, n);
	if (!mrc_msg_send_ctl(peer, l, data, MRC_PKT_NACK, buf, len))
		ms_inc(MS_NACKS_TX);
	else
		ms_inc(MS_CTL_TX_ERRORS);
}

/*
 * Under rx_lock, after a new packet of @rm: holes below the highest packet
 * received that are older than the NACK delay go into @holes (returns how
 * many; 0 = no NACK now).  The delay is twice the arrival path's srtt, at
 * least MRC_MSG_NACK_MIN_NS, so that packets merely overtaken on a
 * faster path are not NACKed; one NACK per delay per message.
 */
static unsigned int mrc_msg_nack_due(struct mrc_peer *peer, unsigned int l,
				     const struct mrc_pkt *pkt,
				     struct mrc_rx_msg *rm,
				     struct mrc_reasm_range *holes)
{
	struct mrc_peer_link *link = &peer->links[l];
	u64 now, delay = MRC_MSG_NACK_MIN_NS;

	if (rm->r.hi <= rm->r.cum + 1 || rm->r.cum >= rm->r.npkts) {
		rm->hole_ns = 0;
		return 0;
	}
	now = ktime_get_ns();
	if (!rm->hole_ns) {
		rm->hole_ns = now;
		return 0;
	}
	if (pkt->entropy < MRC_CM_MAX_QPS)
		delay = max_t(u64, delay, 2ULL *
			      READ_ONCE(link->paths[pkt->entropy].p.rtt.srtt_ns));
	if (now - rm->hole_ns < delay || now - rm->nack_ns < delay)
		return 0;
	rm->nack_ns = now;
	return mrc_reasm_holes(&rm->r, holes, MRC_WIRE_NACK_MAX);
}

/* A SACK saying "all of it" for a message of @pkt's geometry. */
static void mrc_msg_full_sack(const struct mrc_pkt *pkt,
			      struct mrc_reasm_sack *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->cum = mrc_wire_npkts(pkt->msg_len, pkt->seg);
}

/* Complete message @rm leaves rxq: to deliver (in order) or held. */
static void mrc_msg_completed(struct mrc_msg_peer *mp, struct mrc_rx_msg *rm)
{
	unsigned int lane = mrc_seq_lane(rm->seq);
	struct mrc_rx_msg *h, *tmp;

	lockdep_assert_held(&mp->rx_lock);
	if (lane == MRC_SCHED_CLASS_LATENCY)	/* others yield */
		WRITE_ONCE(mrc_msg_lat_ns, ktime_get_ns());
	if (rm->seq != mp->rx_next[lane]) {
		/* Held, sorted by seq within its lane (wrap-safe). */
		list_for_each_entry(h, &mp->held, node)
			if (mrc_seq_lane(h->seq) == lane &&
			    mrc_seq_diff(h->seq, rm->seq) > 0)
				break;
		list_move_tail(&rm->node, &h->node);
		ms_inc(MS_RX_HELD);
		return;
	}
	list_move_tail(&rm->node, &mp->deliver);
	mp->rx_next[lane] = mrc_seq_inc(rm->seq);
	list_for_each_entry_safe(h, tmp, &mp->held, node) {
		if (mrc_seq_lane(h->seq) != lane)
			continue;
		if (h->seq != mp->rx_next[lane])
			break;
		list_move_tail(&h->node, &mp->deliver);
		mp->rx_next[lane] = mrc_seq_inc(h->seq);
	}
}

/* A newer epoch: deliver what is whole, forget the rest.  Under rx_lock. */
static void mrc_msg_new_epoch(struct mrc_msg_peer *mp, u32 epoch)
{
	struct mrc_rx_msg *rm, *tmp;

	list_splice_tail_init(&mp->held, &mp->deliver);
	list_for_each_entry_safe(rm, tmp, &mp->rxq, node) {
		list_del(&rm->node);
		mp->nrx--;
		ms_inc(MS_RX_DISCARDED);
		mrc_rx_msg_free(rm);
	}
	mp->rx_epoch = epoch;
	mp->rx_epoch_valid = true;
	mp->rx_epoch_gone = false;
	mrc_seq_reset(mp->rx_next);
}

static struct mrc_rx_msg *mrc_msg_rx_find(struct mrc_msg_peer *mp, u64 id,
					  bool *complete)
{
	struct mrc_rx_msg *rm;

	*complete = false;
	list_for_each_entry(rm, &mp->rxq, node)
		if (rm->msg_id == id)
			return rm;
	list_for_each_entry(rm, &mp->held, node)
		if (rm->msg_id == id)
			goto whole;
	list_for_each_entry(rm, &mp->deliver, node)
		if (rm->msg_id == id)
			goto whole;
	return NULL;
whole:
	*complete = true;
	return rm;
}

static struct mrc_rx_msg *mrc_rx_msg_alloc(const struct mrc_pkt *pkt)
{
	struct mrc_rx_msg *rm = kzalloc(sizeof(*rm), GFP_KERNEL);
	void *bm;

	if (!rm)
		return NULL;
	rm->buf = kvmalloc(pkt->msg_len, GFP_KERNEL);
	bm = kvmalloc(mrc_reasm_storage_bytes(pkt->msg_len, pkt->seg),
		      GFP_KERNEL);
	if (!rm->buf || !bm) {
		kvfree(rm->buf);
		kvfree(bm);
		kfree(rm);
		return NULL;
	}
	mrc_reasm_init(&rm->r, pkt->msg_id, pkt->msg_len, pkt->seg, bm);
	rm->msg_id = pkt->msg_id;
	rm->seq = (u32)pkt->msg_id;
	rm->src_node = pkt->src_node;
	rm->src_port = pkt->src_port;
	rm->dst_port = pkt->dst_port;
	atomic64_add(pkt->msg_len, &mrc_rx_bytes_used);
	return rm;
}

enum mrc_drop_reason mrc_msg_rx_data(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt)
{
	enum mrc_drop_reason why = MRC_DROP_NONE;
	u32 epoch = pkt->msg_id >> 32, seq = (u32)pkt->msg_id;
	unsigned int lane = mrc_seq_lane(seq);
	struct mrc_rx_msg *rm, *fresh = NULL;
	struct mrc_reasm_range holes[MRC_WIRE_NACK_MAX];
	struct mrc_reasm_sack rs;
	struct mrc_msg_peer *mp;
	struct mrc_peer *peer;
	bool sack = false, complete, kick = false, new_bytes = false;
	unsigned int l, nholes = 0;

	peer = mrc_msg_rx_peer(uqp, src_qp, pkt, &l, &why);
	if (!peer)
		return why;
	mp = &peer->mp;
	ms_inc(MS_RX_PKTS);
again:
	spin_lock_bh(&mp->rx_lock);
	if (mp->rx_dead) {
		why = MRC_DROP_UNKNOWN_PEER;
		goto unlock;
	}
	if (!mp->rx_epoch_valid || (s32)(epoch - mp->rx_epoch) > 0)
		mrc_msg_new_epoch(mp, epoch);
	mp->rx_last_ns = ktime_get_ns();
	if (epoch != mp->rx_epoch) {
		why = MRC_DROP_DUPLICATE;	/* given up by its sender */
		goto unlock;
	}
	if (mp->rx_epoch_gone) {	/* given up by us (see Expiry) */
		ms_inc(MS_RX_GONE_PKTS);
		why = MRC_DROP_DUPLICATE;
		goto unlock;
	}
	if (mrc_seq_diff(seq, mp->rx_next[lane]) < 0) {
		/* Delivered already: ack it whole, do not deliver again. */
		mrc_msg_full_sack(pkt, &rs);
		sack = true;
		why = MRC_DROP_DUPLICATE;
		goto unlock;
	}
	rm = mrc_msg_rx_find(mp, pkt->msg_id, &complete);
	if (rm && complete) {
		mrc_msg_full_sack(pkt, &rs);
		sack = true;
		why = MRC_DROP_DUPLICATE;
		goto unlock;
	}
	if (!rm && fresh) {
		rm = fresh;
		fresh = NULL;
		list_add_tail(&rm->node, &mp->rxq);
		mp->nrx++;
		/* No-op while pending; see mrc_msg_rx_gc_workfn(). */
		queue_delayed_work(system_wq, &mp->rx_gc,
				   nsecs_to_jiffies(2 * mrc_msg_peer_timeout_ns()));
	}
	if (!rm) {
		/* Bounded; the message that blocks delivery always fits. */
		if (seq != mp->rx_next[lane] &&
		    (mp->nrx >= mrc_knob(MRC_KNOB_rx_msgs_per_peer) ||
		     atomic64_read(&mrc_rx_bytes_used) + pkt->msg_len >
		     (s64)mrc_knob(MRC_KNOB_rx_buffer_mb) << 20)) {
			ms_inc(MS_RX_NO_MEM);
			why = MRC_DROP_NO_MEMORY;
			goto unlock;
		}
		spin_unlock_bh(&mp->rx_lock);
		fresh = mrc_rx_msg_alloc(pkt);
		if (!fresh) {
			ms_inc(MS_RX_NO_MEM);
			why = MRC_DROP_NO_MEMORY;
			goto out;
		}
		goto again;
	}
	if (rm->src_port != pkt->src_port || rm->dst_port != pkt->dst_port) {
		why = MRC_DROP_BAD_FIELD;
		goto unlock;
	}
	switch (mrc_reasm_mark(&rm->r, pkt->msg_len, pkt->seg, pkt->offset,
			       pkt->len)) {
	case MRC_REASM_NEW:
		memcpy(rm->buf + pkt->offset, pkt->body, pkt->len);
		nholes = mrc_msg_nack_due(peer, l, pkt, rm, holes);
		new_bytes = true;	/* credit_peer.c */
		if (++rm->since_sack >= MRC_MSG_SACK_EVERY ||
		    (pkt->flags & (MRC_WF_LAST | MRC_WF_ACK_NOW |
				   MRC_WF_RETRANS)))
			sack = true;
		break;
	case MRC_REASM_COMPLETE:
		memcpy(rm->buf + pkt->offset, pkt->body, pkt->len);
		new_bytes = true;
		mrc_msg_completed(mp, rm);
		kick = true;
		sack = true;
		break;
	case MRC_REASM_DUPLICATE:
		sack = true;
		why = MRC_DROP_DUPLICATE;
		break;
	default:
		why = MRC_DROP_BAD_FIELD;
		break;
	}
	if (sack) {
		rm->since_sack = 0;
		mrc_reasm_sack(&rm->r, &rs);
	}
unlock:
	if (kick)
		queue_work(system_wq, &mp->rx_work);
	spin_unlock_bh(&mp->rx_lock);
out:
	if (why == MRC_DROP_DUPLICATE)
		ms_inc(MS_RX_DUP);
	if (fresh)
		mrc_rx_msg_free(fresh);
	if (sack)
		mrc_msg_send_sack(peer, l, pkt, &rs);
	if (nholes)
		mrc_msg_send_nack(peer, l, pkt, holes, nholes);
	if (new_bytes)	/* charge the arrival to the credit pacer */
		mrc_credit_rx_data_hook(peer, pkt);
	mrc_peer_put(peer);
	return why;
}

static void mrc_msg_trace_add(u32 len)
{
	struct mrc_msg_trace *t;

	spin_lock_bh(&mrc_msg_trace_lock);
	mrc_msg_trace_bytes += len;
	t = &mrc_msg_trace[mrc_msg_trace_n++ % MRC_MSG_TRACE_N];
	t->ns = ktime_get_ns();
	t->bytes = mrc_msg_trace_bytes;
	spin_unlock_bh(&mrc_msg_trace_lock);
}

static void mrc_msg_rx_workfn(struct work_struct *work)
{
	struct mrc_msg_peer *mp = container_of(work, struct mrc_msg_peer,
					       rx_work);
	struct mrc_rx_msg *rm;

	for (;;) {
		struct mrc_ep *ep;

		spin_lock_bh(&mp->rx_lock);
		rm = list_first_entry_or_null(&mp->deliver, struct mrc_rx_msg,
					      node);
		if (rm) {
			list_del(&rm->node);
			mp->nrx--;
		}
		spin_unlock_bh(&mp->rx_lock);
		if (!rm)
			break;
		ep = mrc_ep_get(rm->dst_port);
		if (ep) {
			mrc_ep_deliver(ep, rm->src_node, rm->src_port,
				       rm->buf, rm->r.msg_len);
			mrc_ep_put(ep);
			ms_inc(MS_RX_MSGS);
			ms_add(MS_RX_BYTES, rm->r.msg_len);
			mrc_msg_trace_add(rm->r.msg_len);
		} else {
			ms_inc(MS_RX_NO_EP);
			pr_info_ratelimited("mrc: message from node %u to unbound port %u dropped\n",
					    rm->src_node, rm->dst_port);
		}
		mrc_rx_msg_free(rm);
		cond_resched();
	}
}

/*
 * Nothing new from the peer for 2 * peer_timeout_ms while messages wait:
 * free the incomplete ones, deliver the complete held ones (see Expiry).
 */
static void mrc_msg_rx_gc_workfn(struct work_struct *work)
{
	struct mrc_msg_peer *mp = container_of(to_delayed_work(work),
					       struct mrc_msg_peer, rx_gc);
	u64 idle = 2 * mrc_msg_peer_timeout_ns(), now = ktime_get_ns(), age;
	struct mrc_rx_msg *rm, *tmp;
	bool kick = false;
	LIST_HEAD(gone);

	spin_lock_bh(&mp->rx_lock);
	if (mp->rx_dead ||
	    (list_empty(&mp->rxq) && list_empty(&mp->held)))
		goto unlock;
	age = now - mp->rx_last_ns;
	if (age < idle) {
		queue_delayed_work(system_wq, &mp->rx_gc,
				   nsecs_to_jiffies(idle - age) + 1);
		goto unlock;
	}
	list_for_each_entry_safe(rm, tmp, &mp->held, node) {
		list_move_tail(&rm->node, &mp->deliver);
		mp->rx_next[mrc_seq_lane(rm->seq)] = mrc_seq_inc(rm->seq);
		kick = true;
	}
	list_for_each_entry_safe(rm, tmp, &mp->rxq, node) {
		list_move_tail(&rm->node, &gone);
		mp->nrx--;
	}
	mp->rx_epoch_gone = true;	/* see Expiry */
	if (kick)
		queue_work(system_wq, &mp->rx_work);
unlock:
	spin_unlock_bh(&mp->rx_lock);
	list_for_each_entry_safe(rm, tmp, &gone, node) {
		list_del(&rm->node);
		ms_inc(MS_RX_EXPIRED);
		mrc_rx_msg_free(rm);
	}
}

/* ---- SACK / NACK at the sender ---- */

static struct mrc_tx_msg *mrc_msg_tx_find(struct mrc_msg_peer *mp, u64 id)
{
	struct mrc_tx_msg *m;

	list_for_each_entry(m, &mp->txq, node)
		if (m->msg_id == id)
			return m;
	return NULL;
}

/*
 * A SACK/NACK whose message is not in the queue is normally late (the
 * message completed or was given up: DUPLICATE).  An id this node never
 * handed out (an epoch ahead of ours, or our epoch at or past next_seq) is
 * a forgery or a peer bug: BAD_SACK (selftests/mrc/rogue.sh sends those).
 * Caller holds peer->lock.
 */
static enum mrc_drop_reason mrc_msg_ack_stale(const struct mrc_msg_peer *mp,
					      u64 id)
{
	u32 epoch = id >> 32, seq = (u32)id;

	if (epoch == mp->epoch)
		return mrc_seq_diff(seq, mp->next_seq[mrc_seq_lane(seq)]) >= 0 ?
		       MRC_DROP_BAD_SACK : MRC_DROP_DUPLICATE;
	return (s32)(epoch - mp->epoch) > 0 ? MRC_DROP_BAD_SACK :
					      MRC_DROP_DUPLICATE;
}

/* After a SACK: in-flight packets sent before an acked one on their path. */
static void mrc_msg_sack_losses(struct mrc_peer *peer, struct mrc_tx_msg *m,
				struct mrc_msg_cb *cb, u32 end)
{
	struct mrc_msg_peer *mp = &peer->mp;
	struct mrc_txsb *sb = &m->sb;
	u32 idx;

	cb->how = MRC_PATH_DONE_LOST;
	cb->ev = MRC_PATH_EV_LOSS;
	cb->congestion = true;
	for (idx = mrc_txsb_cum(sb); idx < end && idx < sb->hi_sent; idx++) {
		u8 pi = sb->path[idx];

		if (mrc_txsb_state(sb, idx) != MRC_TXSB_INFLIGHT ||
		    !test_bit(pi, mp->ack_seen) ||
		    (s32)(sb->sent_us[idx] - mp->ack_hi_us[pi]) >= 0)
			continue;
		if (mrc_txsb_nack(sb, idx, 1, mrc_msg_cb_fn, cb) > 0)
			ms_inc(MS_LOSS_PKTS);
	}
}

enum mrc_drop_reason mrc_msg_rx_sack(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt)
{
	enum mrc_drop_reason why = MRC_DROP_NONE;
	struct mrc_msg_cb cb = {};
	struct mrc_pkt_sack sack;
	struct mrc_msg_peer *mp;
	struct mrc_peer *peer;
	struct mrc_tx_msg *m;
	unsigned int l, pi;
	LIST_HEAD(done);
	int n;

	peer = mrc_msg_rx_peer(uqp, src_qp, pkt, &l, &why);
	if (!peer)
		return why;
	mp = &peer->mp;
	ms_inc(MS_SACKS_RX);
	mrc_wire_get_sack(pkt, &sack);
	mrc_msg_path_params(&cb.pp);
	cb.peer = peer;
	pi = l * MRC_CM_MAX_QPS + pkt->entropy;

	spin_lock_bh(&peer->lock);
	cb.now = ktime_get_ns();
	m = mrc_msg_tx_find(mp, pkt->msg_id);
	if (!m || peer->dead) {
		ms_inc(MS_SACKS_STALE);
		why = peer->dead ? MRC_DROP_DUPLICATE :
			mrc_msg_ack_stale(mp, pkt->msg_id);
		goto unlock;
	}
	cb.m = m;
	cb.how = MRC_PATH_DONE_ACKED;
	bitmap_zero(mp->ack_seen, MRC_MSG_NPATHS);
	n = mrc_txsb_sack(&m->sb, sack.cum, sack.nbits, sack.bitmap,
			  mrc_msg_cb_fn, &cb);
	if (n < 0) {
		why = MRC_DROP_BAD_SACK;
		goto unlock;
	}
	if (n > 0)
		mp->progress_ns = cb.now;
	if (peer->links[l].ah && pkt->entropy < peer->links[l].npaths)
		mrc_path_event(&mrc_msg_ppath(peer, pi)->p, &cb.pp,
			       MRC_PATH_EV_ACK, cb.now, sack.echo_tstamp);
	if (mrc_txsb_done(&m->sb)) {
		list_move_tail(&m->node, &done);
		mp->ntx--;
		mp->ntx_rank[mrc_msg_rank(m->cls)]--;
	} else if (n > 0) {
		mrc_msg_sack_losses(peer, m, &cb,
				    sack.cum + 1 + sack.nbits);
		mrc_msg_drain_left(peer, &cb);
	}
	if (n > 0 || mrc_txsb_lost(&m->sb))
		mrc_msg_kick_locked(peer);
unlock:
	spin_unlock_bh(&peer->lock);
	mrc_msg_complete(&done);
	mrc_peer_put(peer);
	return why;
}

enum mrc_drop_reason mrc_msg_rx_nack(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt)
{
	enum mrc_drop_reason why = MRC_DROP_NONE;
	struct mrc_msg_cb cb = {};
	struct mrc_pkt_nack_range r;
	struct mrc_peer *peer;
	struct mrc_tx_msg *m;
	unsigned int l, i;

	peer = mrc_msg_rx_peer(uqp, src_qp, pkt, &l, &why);
	if (!peer)
		return why;
	ms_inc(MS_NACKS_RX);
	mrc_msg_path_params(&cb.pp);
	cb.peer = peer;
	cb.how = MRC_PATH_DONE_LOST;
	/*
	 * Resend what the receiver misses; which path is to blame is the
	 * sender's own evidence's call (loss scan, per-path SACK order).
	 */
	cb.ev = 0;
	spin_lock_bh(&peer->lock);
	cb.now = ktime_get_ns();
	m = mrc_msg_tx_find(&peer->mp, pkt->msg_id);
	if (!m || peer->dead) {
		why = peer->dead ? MRC_DROP_DUPLICATE :
			mrc_msg_ack_stale(&peer->mp, pkt->msg_id);
		goto unlock;
	}
	cb.m = m;
	for (i = 0; i < mrc_wire_nack_nranges(pkt); i++) {
		mrc_wire_get_nack_range(pkt, i, &r);
		if (mrc_txsb_nack(&m->sb, r.first, r.count, mrc_msg_cb_fn,
				  &cb) < 0) {
			why = MRC_DROP_BAD_SACK;
			break;
		}
	}
	mrc_msg_drain_left(peer, &cb);
	mrc_msg_kick_locked(peer);
unlock:
	spin_unlock_bh(&peer->lock);
	mrc_peer_put(peer);
	return why;
}

/* ---- peer lifetime ---- */

/*
 * The peer restarted (a new incarnation in its HELLO): what it had of our
 * messages is gone, and so is its sequence state.  Every queued message
 * starts over under a new epoch, renumbered from 0 in queue order, with
 * all its packets unsent.  Of the peer's old messages to us, the complete
 * ones are still delivered and the partial ones discarded; its next
 * messages open a new epoch.  No lock held.
 */
void mrc_msg_peer_restarted(struct mrc_peer *peer)
{
	struct mrc_msg_peer *mp = &peer->mp;
	struct mrc_msg_cb cb = { .peer = peer };
	struct mrc_tx_msg *m;
	unsigned int pi;

	ms_inc(MS_PEER_RESTARTS);
	mrc_msg_path_params(&cb.pp);
	spin_lock_bh(&peer->lock);
	cb.now = ktime_get_ns();
	cb.how = MRC_PATH_DONE_RELEASED;
	cb.ev = 0;
	mp->epoch = max_t(u32, mp->epoch + 1, (u32)ktime_get_real_seconds());
	mrc_seq_reset(mp->next_seq);
	mp->progress_ns = cb.now;
	list_for_each_entry(m, &mp->txq, node) {
		cb.m = m;
		for (pi = 0; pi < MRC_MSG_NPATHS && mrc_txsb_inflight(&m->sb);
		     pi++)
			mrc_txsb_lose_path(&m->sb, pi, mrc_msg_cb_fn, &cb);
		mrc_txsb_init(&m->sb, m->sb.npkts, m->sb_mem);
		m->msg_id = mrc_msg_next_id(mp, m->cls);
	}
	mp->rack_valid = false;
	mrc_credit_tx_reset(peer);	/* its grants were for the old ids */
	mrc_msg_kick_locked(peer);
	spin_unlock_bh(&peer->lock);
	mrc_credit_peer_stop(peer);	/* and our table's entry for it */

	spin_lock_bh(&mp->rx_lock);
	if (!mp->rx_dead) {
		mrc_msg_new_epoch(mp, mp->rx_epoch);
		mp->rx_epoch_valid = false;
		if (!list_empty(&mp->deliver))
			queue_work(system_wq, &mp->rx_work);
	}
	spin_unlock_bh(&mp->rx_lock);
}

void mrc_msg_peer_init(struct mrc_peer *peer)
{
	struct mrc_msg_peer *mp = &peer->mp;

	INIT_LIST_HEAD(&mp->txq);
	INIT_LIST_HEAD(&mp->done);
	mp->epoch = (u32)ktime_get_real_seconds();
	mrc_seq_reset(mp->next_seq);
	mrc_seq_reset(mp->rx_next);
	mp->cwnd = MRC_MSG_WINDOW;
	mrc_sched_init(&mp->sched);
	mp->policy = MRC_SCHED_POLICY_GLOBAL;
	hrtimer_init(&mp->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	mp->timer.function = mrc_msg_timer;
	INIT_WORK(&mp->tx_work, mrc_msg_tx_workfn);
	spin_lock_init(&mp->rx_lock);
	INIT_LIST_HEAD(&mp->rxq);
	INIT_LIST_HEAD(&mp->held);
	INIT_LIST_HEAD(&mp->deliver);
	INIT_WORK(&mp->rx_work, mrc_msg_rx_workfn);
	INIT_DELAYED_WORK(&mp->rx_gc, mrc_msg_rx_gc_workfn);
}

void mrc_msg_peer_stop(struct mrc_peer *peer)
{
	struct mrc_msg_peer *mp = &peer->mp;
	struct mrc_msg_cb cb = { .peer = peer };
	struct mrc_rx_msg *rm, *tmp;
	LIST_HEAD(done);
	LIST_HEAD(rx);

	mrc_credit_peer_stop(peer);	/* credit_peer.c: forget its credit */
	/* peer->dead is set: neither the timer nor the work re-arm. */
	hrtimer_cancel(&mp->timer);
	cancel_work_sync(&mp->tx_work);
	mrc_msg_path_params(&cb.pp);
	spin_lock_bh(&peer->lock);
	cb.now = ktime_get_ns();
	mrc_msg_fail_all(peer, &cb, -EHOSTUNREACH);
	list_splice_init(&mp->done, &done);
	spin_unlock_bh(&peer->lock);
	mrc_msg_complete(&done);

	spin_lock_bh(&mp->rx_lock);
	mp->rx_dead = true;
	spin_unlock_bh(&mp->rx_lock);
	cancel_delayed_work_sync(&mp->rx_gc);
	/* Messages already complete are still delivered. */
	flush_work(&mp->rx_work);
	cancel_work_sync(&mp->rx_work);
	spin_lock_bh(&mp->rx_lock);
	list_splice_init(&mp->rxq, &rx);
	list_splice_init(&mp->held, &rx);
	list_splice_init(&mp->deliver, &rx);
	mp->nrx = 0;
	spin_unlock_bh(&mp->rx_lock);
	list_for_each_entry_safe(rm, tmp, &rx, node) {
		list_del(&rm->node);
		ms_inc(MS_RX_DISCARDED);
		mrc_rx_msg_free(rm);
	}
}

/* ---- debugfs ---- */

static int mrc_msg_stats_show(struct seq_file *s, void *unused)
{
	int i;

	for (i = 0; i < MS_NR; i++)
		seq_printf(s, "%s %lld\n", mrc_msg_stat_names[i],
			   atomic64_read(&mrc_msg_stats[i]));
	seq_printf(s, "rx_buffer_bytes %lld\n",
		   atomic64_read(&mrc_rx_bytes_used));
	seq_printf(s, "tx_buffer_bytes %lld\n",
		   atomic64_read(&mrc_tx_bytes_used));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mrc_msg_stats);

/* "ns bytes" per delivered message, oldest first (a snapshot). */
static int mrc_msg_trace_show(struct seq_file *s, void *unused)
{
	struct mrc_msg_trace *t;
	unsigned int n, i, first;

	t = kvmalloc_array(MRC_MSG_TRACE_N, sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	spin_lock_bh(&mrc_msg_trace_lock);
	n = min_t(unsigned int, mrc_msg_trace_n, MRC_MSG_TRACE_N);
	first = mrc_msg_trace_n - n;
	for (i = 0; i < n; i++)
		t[i] = mrc_msg_trace[(first + i) % MRC_MSG_TRACE_N];
	spin_unlock_bh(&mrc_msg_trace_lock);
	for (i = 0; i < n; i++)
		seq_printf(s, "%llu %llu\n", t[i].ns, t[i].bytes);
	kvfree(t);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mrc_msg_trace);

int mrc_msg_init(void)
{
	mrc_msg_debugfs = debugfs_create_dir("mrc", NULL);
	debugfs_create_file("msg", 0444, mrc_msg_debugfs, NULL,
			    &mrc_msg_stats_fops);
	debugfs_create_file("deliveries", 0444, mrc_msg_debugfs, NULL,
			    &mrc_msg_trace_fops);
	mrc_schedcfg_init(mrc_msg_debugfs);	/* debugfs mrc/sched */
	return 0;
}

void mrc_msg_exit(void)
{
	debugfs_remove_recursive(mrc_msg_debugfs);
	WARN_ON(atomic64_read(&mrc_rx_bytes_used));
	WARN_ON(atomic64_read(&mrc_tx_bytes_used));
}
