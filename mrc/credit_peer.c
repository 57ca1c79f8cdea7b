// SPDX-License-Identifier: GPL-2.0
/*
 * credit_peer.c - receiver-driven credits in the data path: the kernel
 * glue around the kernel-agnostic logic of credit.c.
 *
 * Design notes
 *
 * Sender.  Each peer has one struct mrc_credit_tx: the message towards
 * that peer whose new bytes are being sent.  msg.c asks
 * mrc_credit_tx_may() before it sends a packet never sent before;
 * retransmissions need no credit (their bytes were charged when first
 * sent).  The first credit_unsched_bytes of a message go at once; a
 * longer message sends a CREDIT_REQ with its first packet and then only
 * bytes below the offset of the latest GRANT.  Messages are scheduled
 * one at a time per peer, in queue order: the next message starts (and
 * sends its unscheduled window) only once every byte of the previous
 * one was sent, which bounds what one sender puts on the receiver's
 * last hop without permission to one window.  Starved of credit for
 * credit_grant_timeout_ms, the sender repeats its CREDIT_REQ (msg.c's
 * peer timer ticks every 2 ms while messages wait); the receiver
 * answers with its current offset, so a lost GRANT costs one timeout.
 * A GRANT that is taken sends the granted bytes from the receive path
 * (mrc_msg_push_now()), and the packet that uses the credit up asks
 * for an immediate SACK (MRC_WF_ACK_NOW): credit-paced packets come a
 * grant apart, and the receiver's usual one SACK per 8 packets would
 * leave them unacked past the RTO.
 *
 * Receiver.  One table (credit.c's struct mrc_credit_rx) for the node,
 * MRC_CREDIT_TABLE entries, keyed by peer node id, allocated at load:
 * peers are configured by the operator and CREDIT_REQs are taken only
 * from a configured peer's paths, so no remote input makes the table
 * grow; a CREDIT_REQ that finds it full is refused and repeated by its
 * sender.  A soft hrtimer fires every pace period while a sender waits
 * or credit is outstanding; its work turns the elapsed time into bytes
 * at the drain rate (credit_rate_kbps, or the sum of the active rails'
 * speeds), charges the unscheduled bytes that arrived, reclaims credit
 * unused for credit_grant_timeout_ms and sends the GRANTs the policy
 * (credit_policy) hands out.  Data arriving when a pace is due (the
 * timer or its worker is late: on a loaded or virtual host a pace can
 * come periods after the timer was armed, see "Timer defaults" in
 * Documentation/mrc/design-decisions.rst) runs the pace itself,
 * from the receive path, so arrivals clock the grants.  Credit packets
 * to a peer always take its first usable path, so they arrive in order
 * (a reordered GRANT would be refused as stale).
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

static DEFINE_SPINLOCK(mrc_credit_lock);
/* Under mrc_credit_lock: */
static struct mrc_credit_rx *mrc_credit_rx_tab;
static u64 mrc_credit_last_pace;	/* ns of the last pace, 0: idle */
static u64 mrc_credit_speed_bps;	/* rails' speed, bytes/s; 0 none */
static u64 mrc_credit_speed_at;
static bool mrc_credit_stopping;
static bool mrc_credit_pacing;		/* a pace is sending its GRANTs */
/*
 * Time between two paces while busy, log2 buckets from 250 us (the
 * last one open-ended): late hrtimers and workers under load show here.
 */
#define MRC_CREDIT_PACE_HIST	9
static u64 mrc_credit_pace_hist[MRC_CREDIT_PACE_HIST];
static u64 mrc_credit_pace_ns;	/* the period of the last pace */
static u64 mrc_credit_data_paces;	/* paces run by a data arrival */
/* GRANTs and CREDIT_REQs that could not be sent (ring full, no path). */
static atomic64_t mrc_credit_tx_errs;

/* Owned by the pace running (mrc_credit_pacing set by it). */
static struct mrc_credit_grant *mrc_credit_grants;
static u32 *mrc_credit_lens;		/* msg_len of each grant */

static struct hrtimer mrc_credit_timer;
static struct work_struct mrc_credit_work;

/* ---- parameters ---- */

/* Rails' total speed in bytes/s; process context, no locks held. */
static u64 mrc_credit_rails_bps(void)
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

static u32 mrc_credit_unsched(void)
{
	u32 u = mrc_knob(MRC_KNOB_credit_unsched_bytes);

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

/* Pace period for @rate bytes/s: two grant units, within bounds. */
static u64 mrc_credit_period(u64 rate)
{
	u64 ns = div64_u64(2ULL * MRC_CREDIT_UNIT * NSEC_PER_SEC, rate);

	return clamp_t(u64, ns, MRC_CREDIT_PACE_MIN_NS,
		       MRC_CREDIT_PACE_MAX_NS);
}

/* The knobs as credit.c parameters; @bps as for mrc_credit_rate(). */
static void mrc_credit_params(struct mrc_credit_params *p, u64 bps)
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
	 * Granted, not arrived: what the drain rate delivers in half a
	 * grant timeout (the timeout is meant to exceed the RTT, and a cap
	 * below rate x RTT would cap the throughput), at least two windows
	 * and four units, at most 64 MiB.
	 */
	out = div_u64(div_u64(p->rate, 1000) *
		      (p->grant_timeout_ns / NSEC_PER_USEC), 2000);
	out = max3(out, 2ULL * p->unsched, 4ULL * MRC_CREDIT_UNIT);
	p->max_outstanding = clamp_t(u64, max_t(u64, out, p->burst), 0,
				     64U << 20);
	/* The operator's bound (e.g. the last hop's buffer), one unit min. */
	out = mrc_knob(MRC_KNOB_credit_max_outstanding_bytes);
	if (out)
		p->max_outstanding = max_t(u32, out, MRC_CREDIT_UNIT);
	p->request_timeout_ns = p->grant_timeout_ns;
	/*
	 * A request for an earlier message than the sender's entry's is
	 * refused until the entry was quiet for as long as msg.c gives a
	 * silent sender's messages (twice peer_timeout_ms).
	 */
	p->stale_ns = 2ULL * mrc_knob(MRC_KNOB_peer_timeout_ms) * NSEC_PER_MSEC;
}

/* ---- sending credit packets ---- */

/*
 * Sends a CREDIT_REQ or GRANT to @peer on its first usable path (one
 * in the spray set, else any resolved one), so that credit packets to a
 * peer stay in order.  Under peer->lock.  0 or -errno.
 */
static int mrc_credit_send(struct mrc_peer *peer, u8 type, u64 msg_id,
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

/*
 * Sends a GRANT to node @node; no locks held.  Counts it if the peer
 * still exists: as a new grant of the pacer, or as @resent (an answer
 * to a repeated CREDIT_REQ, or a whole message while credits are off).
 */
static void mrc_credit_send_grant(u32 node, u64 msg_id, u32 msg_len,
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
		mrc_credit_params(&p, 0);
		/* One scheduled message at a time, in queue order. */
		if (cp->tx_on && !mrc_credit_tx_done(tx)) {
			/* ... but latency does not wait behind it. */
			if (urgent && end <= min(p.unsched, msg_len)) {
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

static enum mrc_drop_reason mrc_credit_on_grant(struct mrc_peer *peer,
						const struct mrc_pkt *pkt)
{
	struct mrc_credit_tx *tx = &peer->credit.tx;
	enum mrc_drop_reason why = MRC_DROP_NONE;
	struct mrc_credit_params p;
	struct mrc_pkt_credit c;
	int rc;

	mrc_wire_get_credit(pkt, &c);
	mrc_credit_params(&p, 0);
	spin_lock_bh(&peer->lock);
	/* tx is active only while tx_on (see mrc_credit_tx_reset()) */
	rc = mrc_credit_tx_grant(tx, &p, pkt->msg_id, c.msg_len, c.granted,
				 c.seq, ktime_get_ns());
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

/* ---- receiver ---- */

/* Under mrc_credit_lock: the pacer runs (again) soon. */
static void mrc_credit_arm_locked(u64 delay_ns)
{
	lockdep_assert_held(&mrc_credit_lock);
	if (mrc_credit_stopping || hrtimer_active(&mrc_credit_timer))
		return;
	if (!mrc_credit_last_pace)
		mrc_credit_last_pace = ktime_get_ns();
	hrtimer_start(&mrc_credit_timer, ns_to_ktime(delay_ns),
		      HRTIMER_MODE_REL_SOFT);
}

static enum hrtimer_restart mrc_credit_timer_fn(struct hrtimer *t)
{
	queue_work(system_highpri_wq, &mrc_credit_work);
	return HRTIMER_NORESTART;
}

/* Histogram bucket of a pace interval: < 250 us << i, last open. */
static unsigned int mrc_credit_hist_bucket(u64 ns)
{
	unsigned int i;

	for (i = 0; i < MRC_CREDIT_PACE_HIST - 1; i++)
		if (ns < (250ULL * NSEC_PER_USEC) << i)
			break;
	return i;
}

/*
 * The pacer: grants the drain since the last pace, sends the GRANTs.
 * Runs from the timer's work and, when a pace is due, from the arrival
 * of data (mrc_credit_rx_data_hook(): the data clocks the pacer, so a
 * timer that fires late does not hold the grants back); one at a time
 * (mrc_credit_pacing: it owns mrc_credit_grants/lens while set).  A
 * pace that finds another running re-arms the timer and leaves.
 */
static void mrc_credit_pace(u64 bps)
{
	struct mrc_credit_params p;
	u64 now, elapsed;
	int n, i;

	mrc_credit_params(&p, bps);
	spin_lock_bh(&mrc_credit_lock);
	if (mrc_credit_stopping) {
		spin_unlock_bh(&mrc_credit_lock);
		return;
	}
	if (mrc_credit_pacing) {
		mrc_credit_arm_locked(mrc_credit_period(p.rate));
		spin_unlock_bh(&mrc_credit_lock);
		return;
	}
	now = ktime_get_ns();
	elapsed = mrc_credit_last_pace ? now - mrc_credit_last_pace : 0;
	mrc_credit_last_pace = now;
	if (elapsed)
		mrc_credit_pace_hist[mrc_credit_hist_bucket(elapsed)]++;
	n = mrc_credit_rx_pace(mrc_credit_rx_tab, &p, now, elapsed,
			       mrc_credit_grants, MRC_CREDIT_TABLE);
	/* An entry may change hands once the lock is dropped. */
	for (i = 0; i < n; i++)
		mrc_credit_lens[i] =
			mrc_credit_rx_tab->e[mrc_credit_grants[i].idx].requested;
	mrc_credit_pace_ns = mrc_credit_period(p.rate);
	if (mrc_credit_rx_waiting(mrc_credit_rx_tab) ||
	    mrc_credit_rx_tab->total_outstanding)
		mrc_credit_arm_locked(mrc_credit_pace_ns);
	else
		mrc_credit_last_pace = 0;	/* idle: no budget saved up */
	mrc_credit_pacing = n > 0;
	spin_unlock_bh(&mrc_credit_lock);
	if (n <= 0)
		return;

	for (i = 0; i < n; i++) {
		const struct mrc_credit_grant *g = &mrc_credit_grants[i];

		mrc_credit_send_grant(g->key, g->msg_id, mrc_credit_lens[i],
				      g->granted, g->seq,
				      false);
	}
	spin_lock_bh(&mrc_credit_lock);
	mrc_credit_pacing = false;
	spin_unlock_bh(&mrc_credit_lock);
}

/* The timer's work: re-reads the rails' speed if due, then paces. */
static void mrc_credit_pace_workfn(struct work_struct *work)
{
	u64 now = ktime_get_ns(), bps, age;

	/* The rails' speed, re-read once a second (takes a mutex). */
	spin_lock_bh(&mrc_credit_lock);
	bps = mrc_credit_speed_bps;
	age = now - mrc_credit_speed_at;
	spin_unlock_bh(&mrc_credit_lock);
	if (!mrc_knob(MRC_KNOB_credit_rate_kbps) &&
	    (!bps || age > MRC_CREDIT_SPEED_NS)) {
		bps = mrc_credit_rails_bps();
		spin_lock_bh(&mrc_credit_lock);
		mrc_credit_speed_bps = bps;
		mrc_credit_speed_at = now;
		spin_unlock_bh(&mrc_credit_lock);
	}
	mrc_credit_pace(bps);
}

/* Under mrc_credit_lock: bytes granted to @key's entry so far. */
static u64 mrc_credit_entry_granted(u32 key)
{
	u32 i;

	lockdep_assert_held(&mrc_credit_lock);
	for (i = 0; i < mrc_credit_rx_tab->nentries; i++)
		if (mrc_credit_rx_tab->e[i].in_use &&
		    mrc_credit_rx_tab->e[i].key == key)
			return mrc_credit_rx_tab->e[i].granted_bytes;
	return 0;
}

static enum mrc_drop_reason mrc_credit_on_request(struct mrc_peer *peer,
						  const struct mrc_pkt *pkt)
{
	struct mrc_credit_peer *cp = &peer->credit;
	struct mrc_credit_grant g = {};
	struct mrc_credit_params p;
	struct mrc_pkt_credit c;
	u64 now = ktime_get_ns(), before;
	int rc;

	mrc_wire_get_credit(pkt, &c);
	if (!mrc_knob(MRC_KNOB_credit)) {
		/* Off: the whole message at once (see the design notes). */
		mrc_credit_send_grant(peer->node_id, pkt->msg_id, c.msg_len,
				      c.msg_len, MRC_CREDIT_SEQ_ALL,
				      true);
		return MRC_DROP_NONE;
	}
	mrc_credit_params(&p, READ_ONCE(mrc_credit_speed_bps));
	spin_lock_bh(&mrc_credit_lock);
	rc = mrc_credit_rx_request_unsched(mrc_credit_rx_tab, &p,
					   peer->node_id, pkt->msg_id,
					   c.msg_len, c.granted, now, &g);
	if (rc == -EBUSY) {
		/*
		 * A sender asks for a later message only once it sent all
		 * of the previous one: it gave that one up (its messages
		 * failed), so the old entry goes.  A request for an earlier
		 * message (replayed, reordered) got -ESTALE and never
		 * takes an entry over.
		 */
		before = mrc_credit_entry_granted(peer->node_id);
		mrc_credit_rx_forget(mrc_credit_rx_tab, peer->node_id);
		cp->granted_bytes += before;
		rc = mrc_credit_rx_request_unsched(mrc_credit_rx_tab, &p,
						   peer->node_id, pkt->msg_id,
						   c.msg_len, c.granted, now,
						   &g);
	}
	if (rc >= 0) {
		cp->rx_requests++;
		/* sched: background messages take what the others leave */
		BUILD_BUG_ON(MRC_CREDIT_LANE_SHIFT != MRC_MSG_LANE_SHIFT);
		if (!rc)
			mrc_credit_rx_set_low(mrc_credit_rx_tab, peer->node_id,
					      mrc_msg_id_lane(pkt->msg_id) ==
					      MRC_SCHED_CLASS_BACKGROUND);
		mrc_credit_arm_locked(0);
	} else if (rc == -ESTALE) {
		cp->rx_requests_stale++;
	} else {
		cp->rx_requests_bad++;
	}
	spin_unlock_bh(&mrc_credit_lock);

	switch (rc) {
	case 0:
		return MRC_DROP_NONE;
	case MRC_CREDIT_REQ_RESEND:
		/* A lost GRANT: the current offset again. */
		if (g.seq)
			mrc_credit_send_grant(peer->node_id, g.msg_id,
					      c.msg_len, g.granted, g.seq,
					      true);
		return MRC_DROP_NONE;
	case -ENOSPC:
		return MRC_DROP_NO_MEMORY;
	case -ESTALE:
		/* replayed or reordered: what a late real one looks like */
		return MRC_DROP_DUPLICATE;
	default:
		return MRC_DROP_BAD_CREDIT;
	}
}

/**
 * mrc_credit_rx_data_hook() - account a new DATA payload at the receiver
 * @peer: the sending peer
 * @pkt: the DATA packet, whose payload was new (not a duplicate) at this
 *	node
 *
 * Charges or settles the bytes, and runs a pace that is due (arrivals
 * clock the grants).  From mrc_msg_rx_data().
 *
 * Context: no locks held.
 */
void mrc_credit_rx_data_hook(struct mrc_peer *peer, const struct mrc_pkt *pkt)
{
	struct mrc_credit_peer *cp = &peer->credit;
	struct mrc_credit_params p;
	u64 now = ktime_get_ns();
	u32 unsched, in_win;
	bool due;

	mrc_credit_params(&p, READ_ONCE(mrc_credit_speed_bps));
	spin_lock_bh(&mrc_credit_lock);
	/* The window its request announced (0: a chained message). */
	unsched = mrc_credit_rx_unsched(mrc_credit_rx_tab, &p, peer->node_id,
					pkt->msg_id, pkt->msg_len);
	in_win = pkt->offset < unsched ?
		 min_t(u32, pkt->len, unsched - pkt->offset) : 0;
	/* Counted with credits off too: per-sender bytes for comparison. */
	cp->rx_unsched_bytes += in_win;
	cp->rx_sched_bytes += pkt->len - in_win;
	if (!mrc_knob(MRC_KNOB_credit)) {
		spin_unlock_bh(&mrc_credit_lock);
		return;
	}
	if (mrc_credit_rx_data(mrc_credit_rx_tab, &p, peer->node_id,
			       pkt->msg_id, pkt->msg_len, pkt->offset,
			       pkt->len, now))
		cp->over_credit++;
	/* Unscheduled arrivals are debt the pacer must see. */
	if (in_win && mrc_credit_rx_waiting(mrc_credit_rx_tab))
		mrc_credit_arm_locked(mrc_credit_period(p.rate));
	/*
	 * A pace is due (its timer is late): the arrival runs it.  Not
	 * before the timer's first pace, which reads the rails' speed.
	 */
	due = mrc_credit_last_pace && mrc_credit_pace_ns &&
	      !mrc_credit_pacing &&
	      now - mrc_credit_last_pace >= mrc_credit_pace_ns;
	if (due)
		mrc_credit_data_paces++;
	spin_unlock_bh(&mrc_credit_lock);
	if (due)
		mrc_credit_pace(READ_ONCE(mrc_credit_speed_bps));
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

/**
 * mrc_credit_show() - debugfs mrc/credit
 * @s: the file
 *
 * The table's counters, then one line per peer.
 *
 * Return: 0.
 */
int mrc_credit_show(struct seq_file *s)
{
	struct mrc_credit_rx_stats st;
	struct mrc_peer *peer;
	u64 v[__MRC_CREDIT_STAT_MAX];
	unsigned long idx;
	u64 outstanding;
	s64 tokens;
	u64 hist[MRC_CREDIT_PACE_HIST], period, data_paces;
	u32 waiting;
	unsigned int i;

	spin_lock_bh(&mrc_credit_lock);
	st = mrc_credit_rx_tab->stats;
	outstanding = mrc_credit_rx_tab->total_outstanding;
	tokens = mrc_credit_rx_tab->tokens;
	waiting = mrc_credit_rx_waiting(mrc_credit_rx_tab);
	memcpy(hist, mrc_credit_pace_hist, sizeof(hist));
	period = mrc_credit_pace_ns;
	data_paces = mrc_credit_data_paces;
	spin_unlock_bh(&mrc_credit_lock);
	seq_printf(s, "req_new %llu\nreq_dup %llu\nreq_bad %llu\n"
		   "req_oversize %llu\nreq_busy %llu\nreq_full %llu\n"
		   "req_stale %llu\n"
		   "data_over_credit %llu\ngrants %llu\ngranted_bytes %llu\n"
		   "unsched_bytes %llu\nreclaimed_bytes %llu\n"
		   "outstanding %llu\ntokens %lld\nwaiting %u\n",
		   st.req_new, st.req_dup, st.req_bad, st.req_oversize,
		   st.req_busy, st.req_full, st.req_stale,
		   st.data_over_credit, st.grants,
		   st.granted_bytes, st.unsched_bytes, st.reclaimed_bytes,
		   outstanding, tokens, waiting);
	seq_printf(s, "outstanding_max %llu\n"
		   "paces %llu\npaces_by_data %llu\npaces_no_tokens %llu\n"
		   "paces_out_full %llu\ncapped_bytes %llu\n"
		   "pace_period_us %llu\ntx_errors %lld\n",
		   st.outstanding_max,
		   st.paces, data_paces, st.paces_no_tokens,
		   st.paces_out_full, st.capped_bytes,
		   div_u64(period, NSEC_PER_USEC),
		   (s64)atomic64_read(&mrc_credit_tx_errs));
	/* pace_lt_<bound>us: intervals below the bound; pace_ge_...: above */
	for (i = 0; i < MRC_CREDIT_PACE_HIST; i++)
		seq_printf(s, "pace_%s_%lluus %llu\n",
			   i < MRC_CREDIT_PACE_HIST - 1 ? "lt" : "ge",
			   250ULL << (i < MRC_CREDIT_PACE_HIST - 1 ? i : i - 1),
			   hist[i]);
	for (idx = 0; (peer = mrc_peer_get_nth(idx)); idx++) {
		memset(v, 0, sizeof(v));
		mrc_credit_peer_stats(peer, v);
		seq_printf(s, "peer %u", peer->node_id);
		for (i = MRC_CREDIT_STAT_PAD + 1; i < __MRC_CREDIT_STAT_MAX; i++)
			seq_printf(s, " %s %llu", mrc_credit_stat_name(i), v[i]);
		seq_putc(s, '\n');
		mrc_peer_put(peer);
	}
	return 0;
}

/**
 * mrc_credit_stats_reset() - zero the pacer's own counters
 *
 * outstanding_max, paces..., capped_bytes and the interval histogram, to
 * measure one run (debugfs mrc/credit: "reset").  The table's
 * request/grant counters and the per-peer ones stay.
 */
void mrc_credit_stats_reset(void)
{
	struct mrc_credit_rx_stats *st;

	spin_lock_bh(&mrc_credit_lock);
	st = &mrc_credit_rx_tab->stats;
	st->outstanding_max = mrc_credit_rx_tab->total_outstanding;
	st->paces = 0;
	st->paces_no_tokens = 0;
	st->paces_out_full = 0;
	st->capped_bytes = 0;
	mrc_credit_data_paces = 0;
	memset(mrc_credit_pace_hist, 0, sizeof(mrc_credit_pace_hist));
	spin_unlock_bh(&mrc_credit_lock);
}

/* ---- init ---- */

/**
 * mrc_credit_init() - module init: the receiver's table and pacer
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_credit_init(void)
{
	struct mrc_credit_params p;

	mrc_credit_params(&p, 0);
	mrc_credit_rx_tab = kvzalloc(mrc_credit_rx_size(MRC_CREDIT_TABLE),
				     GFP_KERNEL);
	mrc_credit_grants = kvcalloc(MRC_CREDIT_TABLE,
				     sizeof(*mrc_credit_grants), GFP_KERNEL);
	mrc_credit_lens = kvcalloc(MRC_CREDIT_TABLE, sizeof(u32), GFP_KERNEL);
	if (!mrc_credit_rx_tab || !mrc_credit_grants || !mrc_credit_lens) {
		kvfree(mrc_credit_rx_tab);
		kvfree(mrc_credit_grants);
		kvfree(mrc_credit_lens);
		mrc_credit_rx_tab = NULL;
		mrc_credit_grants = NULL;
		mrc_credit_lens = NULL;
		return -ENOMEM;
	}
	mrc_credit_rx_init(mrc_credit_rx_tab, MRC_CREDIT_TABLE, &p);
	hrtimer_init(&mrc_credit_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	mrc_credit_timer.function = mrc_credit_timer_fn;
	INIT_WORK(&mrc_credit_work, mrc_credit_pace_workfn);
	mrc_credit_stopping = false;
	return 0;
}

/**
 * mrc_credit_exit() - module exit: stops the pacer and frees its state
 */
void mrc_credit_exit(void)
{
	spin_lock_bh(&mrc_credit_lock);
	mrc_credit_stopping = true;
	spin_unlock_bh(&mrc_credit_lock);
	/* A pace run by a data arrival may still be sending its GRANTs. */
	while (READ_ONCE(mrc_credit_pacing))
		usleep_range(100, 200);
	hrtimer_cancel(&mrc_credit_timer);
	cancel_work_sync(&mrc_credit_work);
	hrtimer_cancel(&mrc_credit_timer);
	spin_lock_bh(&mrc_credit_lock);
	kvfree(mrc_credit_rx_tab);
	mrc_credit_rx_tab = NULL;
	spin_unlock_bh(&mrc_credit_lock);
	kvfree(mrc_credit_grants);
	kvfree(mrc_credit_lens);
	mrc_credit_grants = NULL;
	mrc_credit_lens = NULL;
}
