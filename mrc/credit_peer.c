// SPDX-License-Identifier: GPL-2.0
/*
 * credit_peer.c - receiver-driven credits in the data path, the kernel
 * glue around core/credit_*.c: the sender's side, credit packets in and
 * out, per-peer counters (the receiver's pacer: credit_pacer.c).
 *
 * Design notes
 *
 * Sender.  Each peer has one struct mrc_credit_tx: the message towards
 * that peer whose new bytes are being sent.  msg.c asks
 * mrc_credit_tx_may() before it sends a packet never sent before;
 * retransmissions need no credit (their bytes were charged when first
 * sent).  The first credit_unsched_bytes of a message go at once; a
 * longer message sends a CREDIT_REQ with its first packet and then only
 * bytes below the offset of the latest GRANT (at 0, every message sends
 * its CREDIT_REQ alone and waits for a GRANT).  Messages are scheduled
 * one at a time per peer, in the order the sender serves them (msg.h's
 * lanes, each in queue order): the next message starts (and
 * sends its unscheduled window) only once every byte of the previous
 * one was sent, which bounds what one sender puts on the receiver's
 * last hop without permission to one window.  A message whose receiving
 * endpoint answers busy gives the schedule up (core/msg_ack.c busy()),
 * so that a slow reader does not hold back the messages to the peer's
 * other endpoints, and a message never takes it while an earlier one of
 * its lane has bytes to send (core/msg_tx.c push_lane()).  Starved of
 * credit for credit_grant_timeout_ms, the sender repeats its CREDIT_REQ
 * (msg.c's peer timer ticks every 2 ms while messages wait); the receiver
 * answers with its current offset, so a lost GRANT costs one timeout.
 * A GRANT that is taken sends the granted bytes from the receive path
 * (mrc_msg_push_now()), and the packet that uses the credit up asks
 * for an immediate SACK (MRC_WF_ACK_NOW): credit-paced packets come a
 * grant apart, and the receiver's usual one SACK per 8 packets would
 * leave them unacked past the RTO.
 *
 * Switched off (credit 0): senders send at once; a receiver answers any
 * CREDIT_REQ with a GRANT of the whole message (sequence 2^31 - 1, newer
 * than any grant of the pacer) so that senders with credits on do not
 * wait for a pacer that is not running; messages already in the table
 * are still paced to their end.
 *
 * Trust.  Credit packets pass mrc_wire_parse() (fixed size, offsets
 * within the message) and are accepted only from one of the peer's paths
 * (mrc_msg_rx_peer()).  credit.c refuses grants for another message,
 * with an older sequence, beyond the message or inconsistent with the
 * last one, so neither a duplicate nor a forged GRANT lets a sender send
 * more than the message; DATA beyond what was granted is counted
 * (over_credit) but still taken, since a sender whose credit knob is off
 * does not ask.
 *
 * Locking.  Sender state under peer->lock (msg.c's).  The receiver's
 * table, pacing state and the receiver counters of every peer under
 * mrc_credit_lock (BH spin), which nests inside nothing and takes
 * nothing: GRANTs are sent after it is released, under peer->lock, by
 * the one pace that set mrc_credit_pacing (it owns the grant arrays
 * until it clears it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>

#include "mrc.h"
#include "credit_peer.h"
#include "mrc_api.h"
#include "msg.h"
#include "core/names.h"
#include "peer.h"
#include "ud.h"
#include "credit_int.h"

/* ---- parameters ---- */

/**
 * mrc_credit_rails_bps() - the active rails' total speed
 *
 * Context: process, no locks held.
 *
 * Return: bytes/s; 0 if no rail is active.
 */
u64 mrc_credit_rails_bps(void)
{
	struct mrc_rail *rail;
	u64 mbps = 0;

	mutex_lock(&mrc_rails_lock);
	list_for_each_entry(rail, &mrc_rails, node) {
		struct mrc_rail_info info;

		mrc_rail_get_info(rail, &info);
		if (info.state == MRC_RAIL_STATE_ACTIVE)
			mbps += info.speed;
	}
	mutex_unlock(&mrc_rails_lock);
	return mbps * 125000;
}

/* Whole grant units, at least one; 0 (no window) stays 0. */
static u32 mrc_credit_unsched(void)
{
	u32 u = mrc_knob(MRC_KNOB_credit_unsched_bytes);

	if (!u)
		return 0;
	return max_t(u32, MRC_CREDIT_UNIT, u - u % MRC_CREDIT_UNIT);
}

/*
 * Wire bytes of a full packet beyond its payload: mrc's header and
 * RoCEv2's (Ethernet 14, IPv4 20, UDP 8, BTH 12, DETH 8, ICRC 4).
 */
#define MRC_CREDIT_WIRE_OVERHEAD	(MRC_WIRE_HDR_LEN + 66)

/*
 * Drain rate in payload bytes/s; @bps: the rails' speed (0: unknown).
 * The knob and the rails' speed are wire rates: grants are payload, so
 * the rate is scaled by payload / wire bytes of a full packet (96.8%).
 */
static u64 mrc_credit_rate(u64 bps)
{
	u64 r = (u64)mrc_knob(MRC_KNOB_credit_rate_kbps) * 125;

	if (!r)
		r = bps ? bps : MRC_CREDIT_DEF_RATE;
	r = min_t(u64, r, MRC_CREDIT_MAX_RATE);
	/* <= 1.25e11 * 4032: no overflow */
	return div64_u64(r * MRC_CREDIT_UNIT,
			 MRC_CREDIT_UNIT + MRC_CREDIT_WIRE_OVERHEAD);
}

/**
 * mrc_credit_period() - the pace period for a drain rate
 * @rate: bytes/s
 *
 * Return: two grant units' drain time, within the period bounds, in ns.
 */
u64 mrc_credit_period(u64 rate)
{
	u64 ns = div64_u64(2ULL * MRC_CREDIT_UNIT * NSEC_PER_SEC, rate);

	return clamp_t(u64, ns, MRC_CREDIT_PACE_MIN_NS,
		       MRC_CREDIT_PACE_MAX_NS);
}

/**
 * mrc_credit_params() - the knobs as credit.c parameters
 * @p: filled in
 * @bps: the rails' speed, as for mrc_credit_rate()
 */
void mrc_credit_params(struct mrc_credit_params *p, u64 bps)
{
	u64 burst, out;

	mrc_credit_params_default(p);
	p->rate = mrc_credit_rate(bps);
	p->policy = mrc_knob(MRC_KNOB_credit_policy);
	p->unsched = mrc_credit_unsched();
	p->grant_unit = MRC_CREDIT_UNIT;
	/* Two periods' worth of drain may be saved while idle. */
	burst = div64_u64(p->rate * 2 * mrc_credit_period(p->rate),
			  NSEC_PER_SEC);
	p->burst = clamp_t(u64, burst, 2 * MRC_CREDIT_UNIT, 64U << 20);
	p->max_msg = MRC_MSG_MAX_LEN;
	p->grant_timeout_ns = mrc_knob(MRC_KNOB_credit_grant_timeout_ms) *
			      NSEC_PER_MSEC;
	/*
	 * Granted, not arrived, at most: what the drain rate delivers in
	 * half a grant timeout (the timeout is meant to exceed the RTT, and
	 * a cap below rate x RTT would cap the throughput), at least two
	 * windows and four units, at most 64 MiB.  Below that the pacer
	 * bounds it by MRC_CREDIT_DEF_LOOP_MULT credit loops, two windows
	 * before the loop is known (credit.h).
	 */
	out = div_u64(div_u64(p->rate, 1000) *
		      (p->grant_timeout_ns / NSEC_PER_USEC), 2000);
	out = max3(out, 2ULL * p->unsched, 4ULL * MRC_CREDIT_UNIT);
	p->max_outstanding = clamp_t(u64, max_t(u64, out, p->burst), 0,
				     64U << 20);
	p->loop_mult = MRC_CREDIT_DEF_LOOP_MULT;
	/* The operator's bound (e.g. the last hop's buffer), one unit min. */
	out = mrc_knob(MRC_KNOB_credit_max_outstanding_bytes);
	if (out) {
		p->max_outstanding = max_t(u32, out, MRC_CREDIT_UNIT);
		p->loop_mult = 0;
	}
	p->request_timeout_ns = p->grant_timeout_ns;
	/*
	 * A request for an earlier message than the sender's entry's is
	 * refused until the entry was quiet for as long as msg.c gives a
	 * silent sender's messages (twice peer_timeout_ms).
	 */
	p->stale_ns = 2ULL * mrc_knob(MRC_KNOB_peer_timeout_ms) * NSEC_PER_MSEC;
}

/**
 * mrc_credit_params_data() - the parameters DATA accounting reads
 * @p: filled in: unsched and grant_timeout_ns, the rest the defaults
 *
 * For every new payload at the receiver (mrc_credit_rx_data_hook()):
 * what mrc_credit_rx_unsched() and mrc_credit_rx_data() read, without
 * the rate and the values derived from it (64-bit divisions).
 */
void mrc_credit_params_data(struct mrc_credit_params *p)
{
	mrc_credit_params_default(p);
	p->unsched = mrc_credit_unsched();
	p->grant_timeout_ns = mrc_knob(MRC_KNOB_credit_grant_timeout_ms) *
			      NSEC_PER_MSEC;
}

/* ---- sending credit packets ---- */

/**
 * mrc_credit_send() - send a CREDIT_REQ or GRANT to a peer
 * @peer: the peer, peer->lock held
 * @type: MRC_PKT_CREDIT_REQ or MRC_PKT_GRANT
 * @msg_id: the message it is about
 * @c: its body
 * @now: the caller's clock, ns
 *
 * On the peer's first usable path (one in the spray set, else any
 * resolved one), so that credit packets to a peer stay in order.
 *
 * Return: 0 or -errno.
 */
int mrc_credit_send(struct mrc_peer *peer, u8 type, u64 msg_id,
		    const struct mrc_pkt_credit *c, u64 now)
{
	u8 buf[MRC_WIRE_HDR_LEN + sizeof(struct mrc_wire_credit)];
	struct mrc_peer_link *link = NULL;
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.type = type,
		.src_node = mrc_knob(MRC_KNOB_node_id),
		.dst_node = peer->node_id,
		.msg_id = msg_id,
		.tstamp = now,
		.token = peer->tx_token,	/* token branch */
	};
	unsigned int l, ev = 0, pass;
	int err;

	lockdep_assert_held(&peer->lock);
	for (pass = 0; pass < 2 && !link; pass++) {
		for (l = 0; l < peer->nlinks && !link; l++) {
			struct mrc_peer_link *k = &peer->links[l];

			if (!k->ah || !k->rail)
				continue;
			for (ev = 0; ev < k->npaths; ev++)
				if (pass || mrc_path_in_spray_set(&k->paths[ev].p)) {
					link = k;
					break;
				}
		}
	}
	if (!link) {
		atomic64_inc(&mrc_credit_tx_errs);
		return -ENETUNREACH;
	}
	pkt.entropy = ev;
	pkt.path_seq = mrc_path_next_seq(&link->paths[ev].p);
	pkt.len = mrc_wire_put_credit(buf + MRC_WIRE_HDR_LEN, c);
	mrc_wire_put_hdr(buf, &pkt);
	err = mrc_ud_send(link->rail->ud, ev, link->ah,
			  link->paths[ev].remote_qpn, buf,
			  MRC_WIRE_HDR_LEN + pkt.len, NULL, 0);
	if (err)
		atomic64_inc(&mrc_credit_tx_errs);
	return err;
}

/**
 * mrc_credit_send_grant() - send a GRANT to a node
 * @node: the peer's node id
 * @msg_id: the message
 * @msg_len: its length
 * @granted: the offset granted up to
 * @seq: the grant's sequence number
 * @resent: an answer to a repeated CREDIT_REQ, or a whole message while
 *	credits are off (counted apart from the pacer's new grants)
 *
 * Context: no locks held.  Counted if the peer still exists.
 */
void mrc_credit_send_grant(u32 node, u64 msg_id, u32 msg_len,
			   u32 granted, u32 seq, bool resent)
{
	struct mrc_pkt_credit c = {
		.msg_len = msg_len, .granted = granted, .seq = seq,
	};
	struct mrc_peer *peer = mrc_peer_get(node);

	if (!peer)
		return;
	spin_lock_bh(&mrc_credit_lock);
	if (resent)
		peer->credit.grants_resent++;
	else
		peer->credit.grants_tx++;
	spin_unlock_bh(&mrc_credit_lock);
	spin_lock_bh(&peer->lock);
	if (!peer->dead)
		mrc_credit_send(peer, MRC_PKT_GRANT, msg_id, &c,
				ktime_get_ns());
	spin_unlock_bh(&peer->lock);
	mrc_peer_put(peer);
}

/* ---- sender ---- */

/*
 * A starved sender asks again after its RTO floor toward @peer, if that
 * is sooner than the request timeout: a lost CREDIT_REQ is found as a
 * lost packet is (on a fast fabric, about 1 ms instead of
 * credit_grant_timeout_ms).  Context: peer->lock held.
 */
static void mrc_credit_tx_rerequest(struct mrc_peer *peer,
				    struct mrc_credit_params *p, u64 now)
{
	lockdep_assert_held(&peer->lock);
	p->rerequest_ns = mrc_msg_loss_floor_ns(&peer->mp, now);
}

static void mrc_credit_tx_request(struct mrc_peer *peer,
				  const struct mrc_credit_params *p, u64 now)
{
	struct mrc_credit_tx *tx = &peer->credit.tx;
	struct mrc_pkt_credit c = {
		.msg_len = tx->msg_len, .granted = tx->granted,
	};

	/* Counted even if no path takes it: it is repeated all the same. */
	mrc_credit_send(peer, MRC_PKT_CREDIT_REQ, tx->msg_id, &c, now);
	mrc_credit_tx_requested(tx, p, now);
}

/**
 * mrc_credit_tx_may() - may new bytes of a message go out now
 * @peer: the receiving peer
 * @msg_id: the message
 * @msg_len: its length, bytes
 * @off: first new (never sent) byte
 * @len: new bytes [@off, @off + @len) to send
 * @urgent: latency class: may send its unscheduled window while another
 *	message is scheduled, so that it does not wait behind a bulk
 *	message's grants
 * @now: the caller's clock, ns
 *
 * Sender side, from mrc_msg_push().  One message at a time is scheduled.
 *
 * Context: peer->lock held.
 *
 * Return: true charges the bytes to the message's credit (asking again
 * for the same bytes is free, e.g. after a full send ring); false: wait
 * for a GRANT (a CREDIT_REQ is sent or repeated as needed).
 */
bool mrc_credit_tx_may(struct mrc_peer *peer, u64 msg_id, u32 msg_len,
		       u32 off, u32 len, bool urgent, u64 now)
{
	struct mrc_credit_peer *cp = &peer->credit;
	struct mrc_credit_tx *tx = &cp->tx;
	struct mrc_credit_params p;
	u32 end = off + len, need;

	lockdep_assert_held(&peer->lock);
	if (!cp->tx_on || tx->msg_id != msg_id) {
		/* One scheduled message at a time, in queue order. */
		if (cp->tx_on && !mrc_credit_tx_done(tx)) {
			/* ... but latency does not wait behind it. */
			if (urgent &&
			    end <= min(mrc_credit_unsched(), msg_len)) {
				/* (again after a full ring: counted twice) */
				tx->unsched_bytes += len;
				return true;
			}
			return false;
		}
		if (!mrc_knob(MRC_KNOB_credit)) {
			mrc_credit_tx_reset(peer);
			return true;
		}
		/*
		 * tx still holds the message that ended (if tx_on): start()
		 * keeps it as the previous one and chains after it.
		 */
		mrc_credit_params(&p, 0);
		mrc_credit_tx_rerequest(peer, &p, now);
		cp->tx_on = true;
		if (mrc_credit_tx_start(tx, &p, msg_id, msg_len, now)) {
			cp->msgs_sched++;
			mrc_credit_tx_request(peer, &p, now);
		}
	}
	if (end <= tx->sent)		/* charged already (ring was full) */
		return true;
	need = end - tx->sent;
	if (mrc_credit_tx_may_send(tx, need, now) >= need)
		return !mrc_credit_tx_sent(tx, need);
	/*
	 * Starved, or credit for part of the packet only: repeat the
	 * request once the timeout passed since the last request or grant
	 * (credit.c's request_due() wants no credit at all; a lost last
	 * grant may leave a partial packet's worth).
	 */
	if (now >= tx->request_at) {
		mrc_credit_params(&p, 0);
		mrc_credit_tx_rerequest(peer, &p, now);
		mrc_credit_tx_request(peer, &p, now);
	}
	return false;
}

/**
 * mrc_credit_tx_stops() - whether credit stops a message short of its end
 * @peer: the receiving peer
 * @msg_id: the message mrc_credit_tx_may() just let bytes of go
 * @seg: its packets' payload
 *
 * Sender side (credit.h's mrc_credit_tx_limited()).
 *
 * Context: peer->lock held.
 *
 * Return: true if the message's credit now stops it short of its end.
 */
bool mrc_credit_tx_stops(struct mrc_peer *peer, u64 msg_id, u32 seg)
{
	struct mrc_credit_peer *cp = &peer->credit;

	lockdep_assert_held(&peer->lock);
	return cp->tx_on && cp->tx.msg_id == msg_id &&
	       mrc_credit_tx_limited(&cp->tx, seg);
}

/**
 * mrc_credit_tx_reset() - the peer's queued messages were given up
 * @peer: the peer
 *
 * Sender side: the scheduled message, if any, is forgotten.
 *
 * Context: peer->lock held.
 */
void mrc_credit_tx_reset(struct mrc_peer *peer)
{
	struct mrc_credit_peer *cp = &peer->credit;

	lockdep_assert_held(&peer->lock);
	if (cp->tx_on && cp->tx.starved)
		cp->tx.wait_ns += ktime_get_ns() - cp->tx.starved_since;
	cp->tx.starved = 0;
	cp->tx.active = 0;
	cp->tx_on = false;
}

/**
 * mrc_credit_tx_gone() - a message was given up before all of it went
 * @peer: the peer
 * @msg_id: the message (refused by the receiver)
 *
 * Sender side: if it is the scheduled message, it is forgotten, so that
 * the next one may start (one scheduled message at a time).
 *
 * Context: peer->lock held.
 */
void mrc_credit_tx_gone(struct mrc_peer *peer, u64 msg_id)
{
	lockdep_assert_held(&peer->lock);
	if (peer->credit.tx_on && peer->credit.tx.msg_id == msg_id)
		mrc_credit_tx_reset(peer);
}

static enum mrc_drop_reason mrc_credit_on_grant(struct mrc_peer *peer,
						const struct mrc_pkt *pkt)
{
	struct mrc_credit_tx *tx = &peer->credit.tx;
	enum mrc_drop_reason why = MRC_DROP_NONE;
	struct mrc_credit_params p;
	struct mrc_pkt_credit c;
	u64 now;
	int rc;

	mrc_wire_get_credit(pkt, &c);
	mrc_credit_params(&p, 0);
	spin_lock_bh(&peer->lock);
	now = ktime_get_ns();
	mrc_credit_tx_rerequest(peer, &p, now);
	/* tx is active only while tx_on (see mrc_credit_tx_reset()) */
	rc = mrc_credit_tx_grant(tx, &p, pkt->msg_id, c.msg_len, c.granted,
				 c.seq, now);
	if (rc > 0) {
		/*
		 * Send the granted bytes from here, not from tx_work: one
		 * wakeup less in the credit loop (GRANT out, DATA back).
		 */
		if (!peer->dead)
			mrc_msg_push_now(peer);
	} else if (rc && rc != -ESTALE) {
		why = MRC_DROP_BAD_CREDIT;
	} else {
		/* a duplicate, overtaken or late: nothing new, harmless */
		why = MRC_DROP_DUPLICATE;
	}
	spin_unlock_bh(&peer->lock);
	return why;
}

/**
 * mrc_credit_rx_pkt() - take a CREDIT_REQ or GRANT that parsed
 * @uqp: the QP it arrived on
 * @src_qp: its source QPN
 * @pkt: the packet
 *
 * From proto.c.
 *
 * Return: MRC_DROP_NONE, or the reason it was dropped.
 */
enum mrc_drop_reason mrc_credit_rx_pkt(struct mrc_ud_qp *uqp, u32 src_qp,
				       const struct mrc_pkt *pkt)
{
	enum mrc_drop_reason why = MRC_DROP_NONE;
	struct mrc_peer *peer;
	unsigned int l;

	peer = mrc_msg_rx_peer(uqp, src_qp, pkt, &l, &why);
	if (!peer)
		return why;
	if (pkt->type == MRC_PKT_GRANT)
		why = mrc_credit_on_grant(peer, pkt);
	else
		why = mrc_credit_on_request(peer, pkt);
	mrc_peer_put(peer);
	return why;
}

/**
 * mrc_credit_peer_stop() - forget a peer that goes away
 * @peer: the peer; its receiver entry and outstanding credit are released
 *
 * A peer's credit state is zeroed with the peer; this ends it (from
 * msg.c).
 */
void mrc_credit_peer_stop(struct mrc_peer *peer)
{
	spin_lock_bh(&mrc_credit_lock);
	if (mrc_credit_rx_tab)
		mrc_credit_rx_forget(mrc_credit_rx_tab, peer->node_id);
	spin_unlock_bh(&mrc_credit_lock);
}

/* ---- counters ---- */

/**
 * mrc_credit_peer_stats() - a peer's credit counters, by uapi attribute
 * @peer: the peer
 * @v: filled in, indexed by MRC_CREDIT_STAT_* (netlink and debugfs)
 */
void mrc_credit_peer_stats(struct mrc_peer *peer,
			   u64 v[__MRC_CREDIT_STAT_MAX])
{
	struct mrc_credit_peer *cp = &peer->credit;
	struct mrc_credit_tx *tx = &cp->tx;
	u64 wait;

	spin_lock_bh(&peer->lock);
	wait = tx->wait_ns;
	if (cp->tx_on && tx->starved)
		wait += ktime_get_ns() - tx->starved_since;
	v[MRC_CREDIT_STAT_TX_UNSCHED_BYTES] = tx->unsched_bytes;
	v[MRC_CREDIT_STAT_TX_SCHED_BYTES] = tx->sched_bytes;
	v[MRC_CREDIT_STAT_TX_MSGS_SCHED] = cp->msgs_sched;
	v[MRC_CREDIT_STAT_REQUESTS_TX] = tx->requests;
	v[MRC_CREDIT_STAT_GRANTS_RX] = tx->grants;
	v[MRC_CREDIT_STAT_GRANTS_DUP] = tx->grants_dup;
	v[MRC_CREDIT_STAT_GRANTS_BAD] = tx->grants_bad;
	v[MRC_CREDIT_STAT_GRANTS_STALE] = tx->grants_stale;
	v[MRC_CREDIT_STAT_WAIT_US] = div_u64(wait, NSEC_PER_USEC);
	v[MRC_CREDIT_STAT_TX_MSGS_CHAINED] = tx->msgs_chained;
	spin_unlock_bh(&peer->lock);

	spin_lock_bh(&mrc_credit_lock);
	v[MRC_CREDIT_STAT_RX_UNSCHED_BYTES] = cp->rx_unsched_bytes;
	v[MRC_CREDIT_STAT_RX_SCHED_BYTES] = cp->rx_sched_bytes;
	v[MRC_CREDIT_STAT_REQUESTS_RX] = cp->rx_requests;
	v[MRC_CREDIT_STAT_REQUESTS_BAD] = cp->rx_requests_bad;
	v[MRC_CREDIT_STAT_REQUESTS_STALE] = cp->rx_requests_stale;
	v[MRC_CREDIT_STAT_GRANTS_TX] = cp->grants_tx;
	v[MRC_CREDIT_STAT_GRANTS_RESENT] = cp->grants_resent;
	v[MRC_CREDIT_STAT_GRANTED_BYTES] = cp->granted_bytes +
		(mrc_credit_rx_tab ? mrc_credit_entry_granted(peer->node_id) : 0);
	v[MRC_CREDIT_STAT_OVER_CREDIT] = cp->over_credit;
	spin_unlock_bh(&mrc_credit_lock);
}
