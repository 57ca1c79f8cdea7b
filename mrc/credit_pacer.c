// SPDX-License-Identifier: GPL-2.0
/*
 * credit_pacer.c - receiver-driven credits, the receiver: its table of
 * senders, the pacing hrtimer and work, CREDIT_REQs taken, arrivals
 * charged, debugfs mrc/credit.
 *
 * Design notes
 *
 * Receiver.  One table (credit.c's struct mrc_credit_rx) for the node,
 * MRC_CREDIT_TABLE entries, keyed by peer node id, allocated at load:
 * peers are configured by the operator and CREDIT_REQs are taken only
 * from a configured peer's paths, so no remote input makes the table
 * grow; a CREDIT_REQ that finds it full is refused and repeated by its
 * sender.  A soft hrtimer fires every pace period while a sender waits
 * or credit is outstanding, and paces in its softirq (in its work when
 * the rails' speed is to be read again, which takes a mutex).  A pace
 * turns the elapsed time into bytes at the drain rate (credit_rate_kbps,
 * or the sum of the active rails' speeds), charges the unscheduled bytes
 * that arrived, reclaims credit unused for credit_grant_timeout_ms and
 * sends the GRANTs the policy (credit_policy) hands out.  Data arriving
 * when a pace is due (the timer is late: on a loaded or virtual host a
 * pace can come periods after the timer was armed, see "Timer defaults"
 * in Documentation/mrc/design-decisions.rst), or after
 * MRC_CREDIT_PACE_DATA_UNITS grant units arrived since the last pace,
 * runs the pace itself, from the receive path, so arrivals clock the
 * grants: at a fast drain a period's grants at once would arrive as one
 * burst at the last hop.  Credit packets to a peer always take its first
 * usable path, so they arrive in order (a reordered GRANT would be
 * refused as stale).
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

DEFINE_SPINLOCK(mrc_credit_lock);
/* Under mrc_credit_lock: */
struct mrc_credit_rx *mrc_credit_rx_tab;
static u64 mrc_credit_last_pace;	/* ns of the last pace, 0: idle */
static u64 mrc_credit_speed_bps;	/* rails' speed, bytes/s; 0 none */
static u64 mrc_credit_speed_at;
static bool mrc_credit_stopping;
static bool mrc_credit_pacing;		/* a pace is sending its GRANTs */
/* Time between two paces while busy, log2 buckets: MRC_CREDIT_PACE_HIST. */
u64 mrc_credit_pace_hist[MRC_CREDIT_PACE_HIST];
u64 mrc_credit_pace_ns;	/* the period of the last pace */
u64 mrc_credit_data_paces;	/* paces run by a data arrival */
static u64 mrc_credit_work_paces;	/* ... by the work (speed re-read) */
/* GRANTs and CREDIT_REQs that could not be sent (ring full, no path). */
atomic64_t mrc_credit_tx_errs;

/* Owned by the pace running (mrc_credit_pacing set by it). */
static struct mrc_credit_grant *mrc_credit_grants;
static u32 *mrc_credit_lens;		/* msg_len of each grant */

static struct hrtimer mrc_credit_timer;
static struct work_struct mrc_credit_work;

/* ---- receiver ---- */

/* Under mrc_credit_lock: the pacer runs (again) soon. */
static void mrc_credit_arm_locked(u64 delay_ns)
{
	lockdep_assert_held(&mrc_credit_lock);
	/*
	 * Queued, not active: a pace run by the timer's own callback arms
	 * it again from there.
	 */
	if (mrc_credit_stopping || hrtimer_is_queued(&mrc_credit_timer))
		return;
	if (!mrc_credit_last_pace)
		mrc_credit_last_pace = ktime_get_ns();
	hrtimer_start(&mrc_credit_timer, ns_to_ktime(delay_ns),
		      HRTIMER_MODE_REL_SOFT);
}

/*
 * The rails' speed for a pace, bytes/s, in @bps (0: none known).  False
 * if the work must re-read it first (that takes a mutex):
 * credit_rate_kbps unset and the last reading older than
 * MRC_CREDIT_SPEED_NS, or none yet.
 */
static bool mrc_credit_speed_fresh(u64 now, u64 *bps)
{
	u64 age;

	spin_lock_bh(&mrc_credit_lock);
	*bps = mrc_credit_speed_bps;
	age = now - mrc_credit_speed_at;
	spin_unlock_bh(&mrc_credit_lock);
	return mrc_knob(MRC_KNOB_credit_rate_kbps) ||
	       (*bps && age <= MRC_CREDIT_SPEED_NS);
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
	u64 now = ktime_get_ns(), bps;

	/* The rails' speed, re-read once a second (takes a mutex). */
	if (!mrc_credit_speed_fresh(now, &bps)) {
		bps = mrc_credit_rails_bps();
		spin_lock_bh(&mrc_credit_lock);
		mrc_credit_speed_bps = bps;
		mrc_credit_speed_at = now;
		spin_unlock_bh(&mrc_credit_lock);
	}
	spin_lock_bh(&mrc_credit_lock);
	mrc_credit_work_paces++;
	spin_unlock_bh(&mrc_credit_lock);
	mrc_credit_pace(bps);
}

/*
 * Paces in the timer's softirq, as the arrival of data does in the
 * receive path: a hop to a worker would put a context switch, and the
 * wait for a vCPU busy with the receive path, into every timed pace
 * (each is part of the credit loop).  Only a re-read of the rails'
 * speed goes to the work.
 */
static enum hrtimer_restart mrc_credit_timer_fn(struct hrtimer *t)
{
	u64 bps;

	if (mrc_credit_speed_fresh(ktime_get_ns(), &bps))
		mrc_credit_pace(bps);
	else
		queue_work(system_highpri_wq, &mrc_credit_work);
	return HRTIMER_NORESTART;
}

/**
 * mrc_credit_entry_granted() - bytes granted so far to a sender's entry
 * @key: its node id
 *
 * Context: mrc_credit_lock held.
 *
 * Return: the bytes, 0 if it has no entry.
 */
u64 mrc_credit_entry_granted(u32 key)
{
	const struct mrc_credit_rx_entry *e;

	lockdep_assert_held(&mrc_credit_lock);
	e = mrc_credit_rx_lookup(mrc_credit_rx_tab, key);
	return e ? e->granted_bytes : 0;
}

/**
 * mrc_credit_on_request() - a CREDIT_REQ arrived from a peer
 * @peer: the peer (from one of its paths)
 * @pkt: the packet, parsed
 *
 * Return: MRC_DROP_NONE, or why it was refused.
 */
enum mrc_drop_reason mrc_credit_on_request(struct mrc_peer *peer,
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
					      mrc_msg_id_class(pkt->msg_id) ==
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
 * clock the grants).  From mrc_msg_rx_data(), for every new payload: O(1)
 * (credit_rx.c, "Lookup"), and only the parameters the accounting reads
 * are computed (mrc_credit_params_data()).
 *
 * Context: no locks held.
 */
void mrc_credit_rx_data_hook(struct mrc_peer *peer, const struct mrc_pkt *pkt)
{
	struct mrc_credit_peer *cp = &peer->credit;
	struct mrc_credit_params p;
	u64 now = ktime_get_ns(), period;
	u32 unsched, in_win;
	bool due;

	mrc_credit_params_data(&p);
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
	/*
	 * Unscheduled arrivals are debt the pacer must see: within the
	 * period of the last pace (the rate's, before the first).
	 */
	if (in_win && mrc_credit_rx_waiting(mrc_credit_rx_tab)) {
		period = mrc_credit_pace_ns;
		if (!period) {
			mrc_credit_params(&p, mrc_credit_speed_bps);
			period = mrc_credit_period(p.rate);
		}
		mrc_credit_arm_locked(period);
	}
	/*
	 * A pace is due (its timer is late, or enough arrived since the
	 * last one): the arrival runs it.  Not before the timer's first
	 * pace, which reads the rails' speed.
	 */
	due = mrc_credit_last_pace && mrc_credit_pace_ns &&
	      !mrc_credit_pacing &&
	      (now - mrc_credit_last_pace >= mrc_credit_pace_ns ||
	       mrc_credit_rx_data_due(mrc_credit_rx_tab, MRC_CREDIT_UNIT));
	if (due)
		mrc_credit_data_paces++;
	spin_unlock_bh(&mrc_credit_lock);
	if (due)
		mrc_credit_pace(READ_ONCE(mrc_credit_speed_bps));
}

/*
 * The table's senders, one line each: the message scheduled, its grant,
 * what is outstanding, when its credit expires, and the newest request
 * taken per lane (o: it left the entry unfinished and may ask again).
 * Printed under the lock, into the seq_file's page (nothing allocated).
 */
static void mrc_credit_show_entries(struct seq_file *s)
{
	const struct mrc_credit_rx_entry *e;
	u64 now = ktime_get_ns();
	unsigned int i, l;

	spin_lock_bh(&mrc_credit_lock);
	for (i = 0; i < mrc_credit_rx_tab->nentries; i++) {
		e = &mrc_credit_rx_tab->e[i];
		if (!e->in_use)
			continue;
		seq_printf(s, "entry %u key %u msg %#llx requested %u granted %u (seq %u) unsched %u arrived to %u outstanding %u expiry %lld ms lanes",
			   i, e->key, e->msg_id, e->requested, e->granted,
			   e->seq, e->unsched, e->end_seen, e->outstanding,
			   div_s64((s64)(e->expiry - now), NSEC_PER_MSEC));
		for (l = 0; l < MRC_CREDIT_LANES; l++)
			if (e->lane_n[l] & MRC_CREDIT_LANE_SEEN)
				seq_printf(s, " %u:%u%s", l,
					   e->lane_n[l] & MRC_CREDIT_SEQ_MASK,
					   e->lane_n[l] & MRC_CREDIT_LANE_OPEN ?
					   "o" : "");
		seq_putc(s, '\n');
	}
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
	u64 hist[MRC_CREDIT_PACE_HIST], period, data_paces, work_paces;
	u64 out_cap;
	u32 waiting, loop;
	unsigned int i;

	spin_lock_bh(&mrc_credit_lock);
	st = mrc_credit_rx_tab->stats;
	outstanding = mrc_credit_rx_tab->total_outstanding;
	tokens = mrc_credit_rx_tab->tokens;
	waiting = mrc_credit_rx_waiting(mrc_credit_rx_tab);
	memcpy(hist, mrc_credit_pace_hist, sizeof(hist));
	period = mrc_credit_pace_ns;
	data_paces = mrc_credit_data_paces;
	work_paces = mrc_credit_work_paces;
	loop = mrc_credit_rx_loop_ns(mrc_credit_rx_tab);
	out_cap = mrc_credit_rx_tab->out_cap;
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
		   "paces %llu\npaces_by_data %llu\npaces_by_work %llu\n"
		   "paces_no_tokens %llu\n"
		   "paces_out_full %llu\ncapped_bytes %llu\n"
		   "pace_period_us %llu\ntx_errors %lld\n"
		   "loop_us %u\noutstanding_cap %llu\n",
		   st.outstanding_max,
		   st.paces, data_paces, work_paces, st.paces_no_tokens,
		   st.paces_out_full, st.capped_bytes,
		   div_u64(period, NSEC_PER_USEC),
		   (s64)atomic64_read(&mrc_credit_tx_errs),
		   (u32)(loop / NSEC_PER_USEC), out_cap);
	/* pace_lt_<bound>us: intervals below the bound; pace_ge_...: above */
	for (i = 0; i < MRC_CREDIT_PACE_HIST; i++)
		seq_printf(s, "pace_%s_%lluus %llu\n",
			   i < MRC_CREDIT_PACE_HIST - 1 ? "lt" : "ge",
			   250ULL << (i < MRC_CREDIT_PACE_HIST - 1 ? i : i - 1),
			   hist[i]);
	mrc_credit_show_entries(s);
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
	mrc_credit_work_paces = 0;
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
