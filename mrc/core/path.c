// SPDX-License-Identifier: GPL-2.0
/*
 * path.c - path state machine, probe schedule and inflight accounting
 * (kernel-agnostic).
 *
 * Design notes
 *
 * A path leaves the spray set on the first sign of trouble (one loss, one
 * timeout) and comes back only when a probe sent after it left is
 * answered.  Leaving is cheap: the packet is resent on another path and
 * the probe goes out at once, so a path that merely dropped one packet is
 * back after one RTT; a path that is really broken stops receiving data
 * within one RTO instead of eating a share of every message.
 *
 * Freshness.  Every event about a packet carries the packet's send time.
 * News about a packet sent before the path entered its current state is
 * stale and cannot change the state: a reply to a probe sent before a
 * loss does not prove the path healed; a loss report about a packet sent
 * before the path came back does not prove it broke again.  This keeps a
 * burst of late SACKs from flapping a path.
 *
 * ACKs never change the state.  They clear the loss run, update the RTT
 * and the "last success" time (which the scheduler's floor may use), but
 * the way back into the spray set is a probe: an ACK that arrives after
 * the path left is always about data sent before it left.
 *
 * Probes.  Entering PROBING or ASSUMED_BAD makes one due at once; retries
 * follow at probe_ns, doubling up to probe_max_ns, but never sooner than
 * the path's RTO: a probe is not repeated before its reply could have
 * come.  On a path whose RTT is longer than probe_ns (an overloaded
 * receiver) the fixed schedule would send several probes per round trip,
 * each answered, and the extra load on the receiver makes its RTT longer
 * still; the RTO floor sends one per RTO.  DEAD and DENIED paths
 * are not probed (the rail layer says when a rail returns).  An ACTIVE
 * path is probed only after keepalive_ns without news; if that probe is
 * not answered within the path's RTO the path is treated as timed out.
 * mrc_path_timer() counts a probe and schedules the next before the caller
 * sends it, so a send failure cannot make the timer spin.
 *
 * Inflight.  Packets and bytes are added when sent and subtracted, with a
 * reason, when acked, declared lost or released.  The accounting belongs to
 * the path, not to the scheduling policy, so changing the policy live
 * cannot unbalance it; a subtraction that would go negative is refused.
 */
#include "path.h"

static inline u64 mrc_path_add_sat(u64 a, u64 b)
{
	return a > U64_MAX - b ? U64_MAX : a + b;
}

/**
 * mrc_path_params_default() - fill in the default path parameters
 * @pp: the parameters to set (MRC_PATH_DEF_* and the RTT defaults)
 */
void mrc_path_params_default(struct mrc_path_params *pp)
{
	mrc_rtt_params_default(&pp->rtt);
	pp->probe_ns = MRC_PATH_DEF_PROBE_NS;
	pp->probe_max_ns = MRC_PATH_DEF_PROBE_MAX_NS;
	pp->keepalive_ns = MRC_PATH_DEF_KEEPALIVE_NS;
}

/**
 * mrc_path_params_check() - check path parameters
 * @pp: the parameters
 * @why: set to a static reason when @pp is refused
 *
 * Return: 0 if @pp is usable; else -EINVAL with *@why set.
 */
int mrc_path_params_check(const struct mrc_path_params *pp, const char **why)
{
	int err = mrc_rtt_params_check(&pp->rtt, why);

	if (err)
		return err;
	if (!pp->probe_ns) {
		*why = "probe interval must be above 0";
		return -EINVAL;
	}
	if (pp->probe_ns > pp->probe_max_ns) {
		*why = "probe interval above its maximum";
		return -EINVAL;
	}
	if (pp->probe_max_ns > MRC_PATH_INTERVAL_MAX_NS) {
		*why = "probe interval above 4 s";
		return -EINVAL;
	}
	if (pp->keepalive_ns > MRC_PATH_KEEPALIVE_MAX_NS) {
		*why = "keepalive interval above 60 s";
		return -EINVAL;
	}
	return 0;
}

/**
 * mrc_path_params_knobs() - the path parameters of the module's knobs
 * @pp: filled in: the defaults with the knobs' values over them
 * @probe_ms: keepalive interval of an idle ACTIVE path (probe_ms knob)
 * @rto_max_ms: upper bound of the RTO (rto_max_ms knob)
 * @rto_min_ms: lower bound of the RTO, capped at @rto_max_ms (and the
 *	initial RTO raised to it); 0 keeps the default
 * @why: set to a static reason when the result is refused
 *
 * The one place where knob values in ms become path parameters in ns, so
 * that the products are computed in u64 and checked before they are
 * narrowed: the knobs' ranges cross 2^32 ns (probe_ms 4295), where a u32
 * product would wrap to a tiny interval.  The result goes through
 * mrc_path_params_check(); a refused one is replaced by the defaults, so
 * the caller always gets usable parameters.
 *
 * Return: 0, or -EINVAL with *@why set and @pp the defaults.
 */
int mrc_path_params_knobs(struct mrc_path_params *pp, u64 probe_ms,
			  u64 rto_max_ms, u64 rto_min_ms, const char **why)
{
	u64 ka_ns, max_ns, min_ns;
	int err;

	mrc_path_params_default(pp);
	/* Above these a product could wrap even in u64. */
	if (probe_ms > U32_MAX || rto_max_ms > U32_MAX || rto_min_ms > U32_MAX) {
		*why = "knob value out of range";
		return -EINVAL;
	}
	ka_ns = probe_ms * NSEC_PER_MSEC;
	max_ns = rto_max_ms * NSEC_PER_MSEC;
	min_ns = min_t(u64, rto_min_ms * NSEC_PER_MSEC, max_ns);
	if (max_ns > MRC_RTT_RTO_LIMIT_NS) {
		*why = "rto_max above 4 s";
		return -EINVAL;
	}
	pp->keepalive_ns = ka_ns;
	pp->rtt.rto_max_ns = (u32)max_ns;
	if (min_ns) {
		pp->rtt.rto_min_ns = (u32)min_ns;
		pp->rtt.rto_init_ns = max_t(u32, pp->rtt.rto_init_ns,
					    pp->rtt.rto_min_ns);
	}
	/* A small rto_max bounds the defaults below it too. */
	pp->rtt.rto_min_ns = min_t(u32, pp->rtt.rto_min_ns, pp->rtt.rto_max_ns);
	pp->rtt.rto_init_ns = min_t(u32, pp->rtt.rto_init_ns,
				    pp->rtt.rto_max_ns);
	pp->rtt.var_floor_ns = min_t(u32, pp->rtt.var_floor_ns,
				     pp->rtt.rto_max_ns);
	err = mrc_path_params_check(pp, why);
	if (err)
		mrc_path_params_default(pp);
	return err;
}

/**
 * mrc_path_init() - set up a new path
 * @p: the path
 * @local_rail: our rail's id
 * @remote_rail: the peer's rail's id
 * @entropy: the path's entropy value (UD QP index)
 * @now: the caller's clock, ns
 *
 * The path is PROBING since @now, with a probe due at once and its
 * counters zero.
 */
void mrc_path_init(struct mrc_path *p, u32 local_rail, u32 remote_rail,
		   u16 entropy, u64 now)
{
	memset(p, 0, sizeof(*p));
	p->local_rail = local_rail;
	p->remote_rail = remote_rail;
	p->entropy = entropy;
	p->state = MRC_PATH_PROBING;
	p->reason = MRC_PATH_EV_NONE;
	p->since_ns = now;
	p->probe_next_ns = now;
	mrc_rtt_init(&p->rtt);
}

/* Returns 1 if the state changed. */
static int mrc_path_set_state(struct mrc_path *p, enum mrc_path_state st,
			      enum mrc_path_event why, u64 now)
{
	if (p->state == st)
		return 0;
	p->state = st;
	p->reason = why;
	p->since_ns = now;
	p->probe_out = 0;
	p->stats.state_changes++;
	if (st == MRC_PATH_PROBING || st == MRC_PATH_ASSUMED_BAD) {
		p->probe_next_ns = now;
		p->probe_backoff = 0;
	}
	return 1;
}

static void mrc_path_ok(struct mrc_path *p, u64 now)
{
	p->last_ok_ns = now;
	p->ok_seen = 1;
	p->probe_out = 0;
}

static int mrc_path_reply(struct mrc_path *p, u64 now, u64 sent)
{
	/*
	 * Each probe has its own send time, so a reply echoing one not
	 * later than the last accepted is a replay (or overtaken by a reply
	 * to a later probe): it must neither give an RTT sample (a replay's
	 * would be as old as the capture) nor count as the path answering.
	 */
	if (sent <= p->reply_echo) {
		p->stats.replayed++;
		return -EALREADY;
	}
	if (p->state == MRC_PATH_DEAD || p->state == MRC_PATH_DENIED) {
		p->stats.ignored++;
		return 0;
	}
	/* A probe goes only on a path without traffic (its keepalive). */
	if (mrc_rtt_sample(&p->rtt, now, sent, true)) {
		p->stats.rtt_bad++;
		return 0;
	}
	if (p->state != MRC_PATH_ACTIVE && sent < p->since_ns) {
		p->stats.ignored++;
		return 0;
	}
	p->stats.replies++;
	p->reply_echo = sent;
	mrc_path_ok(p, now);
	return mrc_path_set_state(p, MRC_PATH_ACTIVE, MRC_PATH_EV_REPLY, now);
}

static void mrc_path_ack(struct mrc_path *p, u64 now, u64 sent)
{
	p->stats.acks++;
	p->consec_loss = 0;
	if (mrc_rtt_sample(&p->rtt, now, sent, false))
		p->stats.rtt_bad++;
	mrc_path_ok(p, now);
}

/* LOSS or RTO: leaves the spray set if the news is fresh. */
static int mrc_path_trouble(struct mrc_path *p, const struct mrc_path_params *pp,
			    enum mrc_path_event ev, u64 now, u64 sent)
{
	bool fresh = sent >= p->since_ns;

	if (ev == MRC_PATH_EV_LOSS) {
		p->stats.losses++;
		if (p->consec_loss != U32_MAX)
			p->consec_loss++;
	} else {
		p->stats.timeouts++;
		if (fresh)
			mrc_rtt_timeout(&p->rtt, &pp->rtt);
	}
	if (p->state != MRC_PATH_ACTIVE)
		return 0;
	if (!fresh) {
		p->stats.ignored++;
		return 0;
	}
	return mrc_path_set_state(p, MRC_PATH_ASSUMED_BAD, ev, now);
}

/**
 * mrc_path_event() - apply an event to a path
 * @p: the path
 * @pp: the parameters
 * @ev: the event
 * @now: the caller's clock, ns
 * @sent: the send time of the packet concerned (REPLY, ACK: the echoed
 *	tstamp; LOSS, RTO: the lost packet's; pass @now if unknown, which
 *	always counts as fresh; other events ignore it)
 *
 * Return: 1 if the state changed, 0 if not, -EALREADY for a REPLY that
 * echoes a send time not later than the last accepted one's (a replay:
 * nothing changed, counted in stats.replayed), -EINVAL for an unknown
 * event.
 */
int mrc_path_event(struct mrc_path *p, const struct mrc_path_params *pp,
		   enum mrc_path_event ev, u64 now, u64 sent)
{
	switch (ev) {
	case MRC_PATH_EV_REPLY:
		return mrc_path_reply(p, now, sent);
	case MRC_PATH_EV_ACK:
		mrc_path_ack(p, now, sent);
		return 0;
	case MRC_PATH_EV_LOSS:
	case MRC_PATH_EV_RTO:
		return mrc_path_trouble(p, pp, ev, now, sent);
	case MRC_PATH_EV_RAIL_DOWN:
		p->rail_down = 1;
		if (p->state == MRC_PATH_DENIED)
			return 0;
		return mrc_path_set_state(p, MRC_PATH_DEAD, ev, now);
	case MRC_PATH_EV_RAIL_UP:
		p->rail_down = 0;
		if (p->state != MRC_PATH_DEAD)
			return 0;
		return mrc_path_set_state(p, MRC_PATH_PROBING, ev, now);
	case MRC_PATH_EV_DENY:
		return mrc_path_set_state(p, MRC_PATH_DENIED, ev, now);
	case MRC_PATH_EV_PEER_DOWN:
		if (p->state != MRC_PATH_ACTIVE)
			return 0;
		return mrc_path_set_state(p, MRC_PATH_ASSUMED_BAD, ev, now);
	case MRC_PATH_EV_ALLOW:
		if (p->state != MRC_PATH_DENIED)
			return 0;
		return mrc_path_set_state(p, p->rail_down ? MRC_PATH_DEAD :
					  MRC_PATH_PROBING, ev, now);
	default:
		return -EINVAL;
	}
}

/**
 * mrc_path_probe_interval() - the probe retry interval
 * @pp: the parameters
 * @nprobes: probes sent so far
 *
 * Return: the interval after @nprobes probes, ns: min(probe << n, max).
 */
u64 mrc_path_probe_interval(const struct mrc_path_params *pp, u32 nprobes)
{
	/* probe_ns < 2^32, shift <= 31: fits in a u64. */
	u64 iv = (u64)pp->probe_ns << min(nprobes, 31U);

	return min_t(u64, iv, pp->probe_max_ns);
}

/**
 * mrc_path_deadline() - when the path's timer must next run
 * @p: the path
 * @pp: the parameters
 *
 * Return: the next probe (PROBING, ASSUMED_BAD), the keepalive or its
 * timeout (ACTIVE), or MRC_PATH_NEVER.
 */
u64 mrc_path_deadline(const struct mrc_path *p,
		      const struct mrc_path_params *pp)
{
	u64 base;

	switch (p->state) {
	case MRC_PATH_PROBING:
	case MRC_PATH_ASSUMED_BAD:
		return p->probe_next_ns;
	case MRC_PATH_ACTIVE:
		if (p->probe_out)
			return mrc_path_add_sat(p->probe_sent_ns,
						mrc_path_rto(p, pp));
		if (!pp->keepalive_ns)
			return MRC_PATH_NEVER;
		base = max(p->since_ns, p->probe_sent_ns);
		if (p->ok_seen)
			base = max(base, p->last_ok_ns);
		return mrc_path_add_sat(base, pp->keepalive_ns);
	default:
		return MRC_PATH_NEVER;
	}
}

/**
 * mrc_path_timer() - run the path's timer
 * @p: the path
 * @pp: the parameters
 * @now: the caller's clock, ns (early calls are harmless)
 *
 * An ACTIVE path whose keepalive went unanswered for an RTO becomes
 * ASSUMED_BAD.
 *
 * Return: true if the caller must send a PROBE (tstamp = @now) on this
 * path now; the probe is already counted and the next one scheduled,
 * whether or not the send succeeds, so a failing send cannot spin.
 */
bool mrc_path_timer(struct mrc_path *p, const struct mrc_path_params *pp,
		    u64 now)
{
	u64 due = mrc_path_deadline(p, pp), iv;

	if (due == MRC_PATH_NEVER || now < due)
		return false;

	if (p->state == MRC_PATH_ACTIVE) {
		if (!p->probe_out) {
			/* Keepalive: idle for keepalive_ns. */
			p->probe_out = 1;
			p->probe_sent_ns = now;
			p->stats.probes++;
			return true;
		}
		/* The keepalive went unanswered for an RTO. */
		p->stats.timeouts++;
		mrc_rtt_timeout(&p->rtt, &pp->rtt);
		mrc_path_set_state(p, MRC_PATH_ASSUMED_BAD, MRC_PATH_EV_RTO,
				   now);
		/* ... and a probe is now due at once, below. */
	}
	if (p->state != MRC_PATH_PROBING && p->state != MRC_PATH_ASSUMED_BAD)
		return false;

	/* Not before this probe's reply could come (Design notes). */
	iv = max(mrc_path_probe_interval(pp, p->probe_backoff),
		 mrc_path_rto(p, pp));
	p->stats.probes++;
	p->probe_sent_ns = now;
	p->probe_next_ns = mrc_path_add_sat(now, iv);
	if (p->probe_backoff < 31)
		p->probe_backoff++;
	return true;
}

/**
 * mrc_path_inflight_add() - account packets sent on a path
 * @p: the path
 * @pkts: packets sent
 * @bytes: their bytes in all
 *
 * Return: 0, or -EOVERFLOW (a counter would wrap) / -EINVAL (bytes without
 * packets) leaving everything untouched and counting
 * stats.inflight_errors.
 */
int mrc_path_inflight_add(struct mrc_path *p, u32 pkts, u64 bytes)
{
	if (!pkts && bytes) {
		p->stats.inflight_errors++;
		return -EINVAL;
	}
	if (pkts > U32_MAX - p->inflight_pkts ||
	    bytes > U64_MAX - p->inflight_bytes) {
		p->stats.inflight_errors++;
		return -EOVERFLOW;
	}
	p->inflight_pkts += pkts;
	p->inflight_bytes += bytes;
	p->stats.tx_pkts += pkts;
	p->stats.tx_bytes += bytes;
	return 0;
}

/**
 * mrc_path_inflight_sub() - account packets no longer in flight on a path
 * @p: the path
 * @pkts: packets sent on @p that left flight
 * @bytes: their bytes in all
 * @how: why (acked, lost, released)
 *
 * Never goes negative.  Kernel callers WARN_ON_ONCE() an error.
 *
 * Return: 0; -ERANGE if that is more than is in flight (or would leave
 * bytes without packets), -EINVAL for a bad @how or bytes without
 * packets; then nothing changes and stats.inflight_errors counts it.
 */
int mrc_path_inflight_sub(struct mrc_path *p, u32 pkts, u64 bytes,
			  enum mrc_path_done how)
{
	u64 *cp, *cb;

	switch (how) {
	case MRC_PATH_DONE_ACKED:
		cp = &p->stats.acked_pkts;
		cb = &p->stats.acked_bytes;
		break;
	case MRC_PATH_DONE_LOST:
		cp = &p->stats.lost_pkts;
		cb = &p->stats.lost_bytes;
		break;
	case MRC_PATH_DONE_RELEASED:
		cp = &p->stats.released_pkts;
		cb = &p->stats.released_bytes;
		break;
	default:
		p->stats.inflight_errors++;
		return -EINVAL;
	}
	if (!pkts && bytes) {
		p->stats.inflight_errors++;
		return -EINVAL;
	}
	if (pkts > p->inflight_pkts || bytes > p->inflight_bytes ||
	    (pkts == p->inflight_pkts && bytes != p->inflight_bytes)) {
		p->stats.inflight_errors++;
		return -ERANGE;
	}
	p->inflight_pkts -= pkts;
	p->inflight_bytes -= bytes;
	*cp += pkts;
	*cb += bytes;
	return 0;
}

/**
 * mrc_path_state_name() - the name of a path state
 * @state: an enum mrc_path_state
 *
 * Return: "probing", "active", "assumed-bad", "dead", "denied"; else
 * "unknown".
 */
const char *mrc_path_state_name(unsigned int state)
{
	static const char * const names[MRC_PATH_STATE_NR] = {
		[MRC_PATH_PROBING]	= "probing",
		[MRC_PATH_ACTIVE]	= "active",
		[MRC_PATH_ASSUMED_BAD]	= "assumed-bad",
		[MRC_PATH_DEAD]		= "dead",
		[MRC_PATH_DENIED]	= "denied",
	};

	return state < MRC_PATH_STATE_NR ? names[state] : "unknown";
}

/**
 * mrc_path_event_name() - the name of a path event
 * @ev: an enum mrc_path_event
 *
 * Return: "reply", "ack", "loss", "rto", "rail-down", ...; else "unknown".
 */
const char *mrc_path_event_name(unsigned int ev)
{
	static const char * const names[MRC_PATH_EV_NR] = {
		[MRC_PATH_EV_NONE]	= "none",
		[MRC_PATH_EV_REPLY]	= "reply",
		[MRC_PATH_EV_ACK]	= "ack",
		[MRC_PATH_EV_LOSS]	= "loss",
		[MRC_PATH_EV_RTO]	= "rto",
		[MRC_PATH_EV_RAIL_DOWN]	= "rail-down",
		[MRC_PATH_EV_RAIL_UP]	= "rail-up",
		[MRC_PATH_EV_DENY]	= "deny",
		[MRC_PATH_EV_ALLOW]	= "allow",
		[MRC_PATH_EV_PEER_DOWN]	= "peer-rail-down",
	};

	return ev < MRC_PATH_EV_NR ? names[ev] : "unknown";
}
