// SPDX-License-Identifier: GPL-2.0
/*
 * msg_show.c - debugfs mrc/queues: every peer's messages as the engine
 * holds them, for whoever must tell why a send does not complete.
 *
 * Per peer, the sender: its queue (the first MRC_SHOW_TX messages, each
 * with its packets' states, and whether its receiver said busy), the
 * window, the credit of the scheduled message, how long ago anything
 * progressed; the receiver: its epoch, the messages in reassembly, held
 * (complete, waiting for a predecessor) and ready to deliver, and the
 * next sequence number of each lane that has seen one.
 *
 * Locking: each half is printed under its own lock (peer->lock for the
 * sender, mk.rx_lock for the receiver), one after the other, never
 * nested; the seq_file buffer is written under them, which allocates
 * nothing (seq_printf() into the page seq_read() gave it; an overflow
 * makes seq_read() retry with a larger buffer).
 */
#include <linux/bitops.h>
#include <linux/seq_file.h>
#include <linux/timekeeping.h>

#include "mrc.h"
#include "credit_peer.h"
#include "msg.h"
#include "peer.h"

/* Messages listed per peer and direction; the rest are counted. */
#define MRC_SHOW_TX	16
#define MRC_SHOW_RX	16

static u64 mrc_show_ms_ago(u64 now, u64 t)
{
	return t && now >= t ? div_u64(now - t, NSEC_PER_MSEC) : 0;
}

static void mrc_show_tx(struct seq_file *s, struct mrc_peer *peer, u64 now)
{
	const struct mrc_credit_tx *ct = &peer->credit.tx;
	struct mrc_msg_peer *mp = &peer->mp;
	const struct mrc_msg_tx *m;
	unsigned int n = 0, pi;
	u64 sb_inflight = 0;

	spin_lock_bh(&peer->lock);
	seq_printf(s, " tx: %u queued, cwnd %u, %u in flight, progress %llu ms ago, %s%s\n",
		   mp->ntx, mp->cwnd, mp->inflight,
		   mrc_show_ms_ago(now, mp->progress_ns),
		   mp->stuck_ns ? "no usable path" : "paths usable",
		   mp->ring_full ? ", send ring full" : "");
	if (peer->credit.tx_on)
		seq_printf(s, " tx credit: scheduled %#llx %u B, sent %u, granted %u (seq %u), %s\n",
			   ct->msg_id, ct->msg_len, ct->sent, ct->granted,
			   ct->seq, ct->starved ? "starved" : "not starved");
	if (peer->credit.tx_on) {
		list_for_each_entry(m, &mp->txq, node)
			if (m->msg_id == ct->msg_id)
				break;
		if (list_entry_is_head(m, &mp->txq, node))
			seq_puts(s, " tx credit: the scheduled message is not queued\n");
		else
			seq_printf(s, " tx credit: the scheduled message has %u/%u acked, %u in flight, %u lost, next new %u%s\n",
				   mrc_txsb_acked(&m->sb), m->sb.npkts,
				   mrc_txsb_inflight(&m->sb),
				   mrc_txsb_lost(&m->sb), m->sb.next_new,
				   m->busy_ns ? ", receiver busy" : "");
	}
	list_for_each_entry(m, &mp->txq, node) {
		if (n++ == MRC_SHOW_TX)
			break;
		seq_printf(s, "  tx %#llx lane %u class %u port %u->%u %u B: %u/%u acked (cum %u), %u in flight, %u lost, next new %u%s\n",
			   m->msg_id, mrc_msg_id_lane(m->msg_id), m->cls,
			   m->src_port, m->dst_port, m->len,
			   mrc_txsb_acked(&m->sb), m->sb.npkts,
			   mrc_txsb_cum(&m->sb), mrc_txsb_inflight(&m->sb),
			   mrc_txsb_lost(&m->sb), m->sb.next_new,
			   m->busy_ns ? ", receiver busy" : "");
	}
	if (mp->ntx > MRC_SHOW_TX)
		seq_printf(s, "  tx ... %u more\n", mp->ntx - MRC_SHOW_TX);
	/* The books: the messages' packets in flight against the paths'. */
	list_for_each_entry(m, &mp->txq, node)
		sb_inflight += mrc_txsb_inflight(&m->sb);
	seq_printf(s, "  tx books: %llu packets in flight in the queue; paths in use (index:state/in flight):",
		   sb_inflight);
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++) {
		const struct mrc_path *p = mp->path[pi];

		if (p && (p->inflight_pkts || mrc_path_in_spray_set(p)))
			seq_printf(s, " %u:%s/%u", pi,
				   mrc_path_state_name(p->state),
				   p->inflight_pkts);
	}
	seq_putc(s, '\n');
	spin_unlock_bh(&peer->lock);
}

static void mrc_show_rx_list(struct seq_file *s, const char *what,
			     struct list_head *head, unsigned int *n)
{
	const struct mrc_msg_rx *r;

	list_for_each_entry(r, head, node) {
		if ((*n)++ >= MRC_SHOW_RX)
			continue;
		seq_printf(s, "  rx %s %#llx lane %u port %u->%u %u B: %u/%u packets\n",
			   what, r->msg_id, mrc_msg_id_lane(r->msg_id),
			   r->src_port, r->dst_port, r->r.msg_len, r->r.nrecv,
			   r->r.npkts);
	}
}

static void mrc_show_rx(struct seq_file *s, struct mrc_peer *peer, u64 now)
{
	struct mrc_msg_peer *mp = &peer->mp;
	unsigned int lane, n = 0, ahead = 0;

	spin_lock_bh(&peer->mk.rx_lock);
	for (lane = 0; lane < MRC_MSG_LANES; lane++)
		ahead += hweight64(mp->rx_refused_ahead[lane]);
	seq_printf(s, " rx: epoch %#x%s%s, %u contexts, %llu B, last news %llu ms ago, %u refusals ahead of delivery\n",
		   mp->rx_epoch, mp->rx_epoch_valid ? "" : " (none yet)",
		   mp->rx_epoch_gone ? " (given up: its DATA dropped)" : "",
		   mp->nrx, mp->rx_mem, mrc_show_ms_ago(now, mp->rx_last_ns),
		   ahead);
	mrc_show_rx_list(s, "partial", &mp->rxq, &n);
	mrc_show_rx_list(s, "held", &mp->held, &n);
	mrc_show_rx_list(s, "ready", &mp->deliver, &n);
	if (n > MRC_SHOW_RX)
		seq_printf(s, "  rx ... %u more\n", n - MRC_SHOW_RX);
	seq_puts(s, "  rx next:");
	for (lane = 0; lane < MRC_MSG_LANES; lane++)
		if (mp->rx_next[lane] & MRC_MSG_SEQ_MASK)
			seq_printf(s, " %u:%u", lane,
				   mp->rx_next[lane] & MRC_MSG_SEQ_MASK);
	seq_putc(s, '\n');
	spin_unlock_bh(&peer->mk.rx_lock);
}

/**
 * mrc_msg_queues_show() - debugfs mrc/queues
 * @s: the seq_file
 *
 * Context: process, no locks held.
 *
 * Return: 0.
 */
int mrc_msg_queues_show(struct seq_file *s)
{
	struct mrc_peer *peer;
	unsigned long i;
	u64 now = ktime_get_ns();

	for (i = 0; (peer = mrc_peer_get_nth(i)); i++) {
		seq_printf(s, "peer %u%s\n", peer->node_id,
			   READ_ONCE(peer->dead) ? " (going away)" : "");
		mrc_show_tx(s, peer, now);
		mrc_show_rx(s, peer, now);
		mrc_peer_put(peer);
	}
	return 0;
}
