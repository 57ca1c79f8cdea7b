/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rtt.h - per-path round-trip time estimator and retransmission timeout
 * (RFC 6298 style, integer arithmetic).  Kernel-agnostic.
 *
 * Units: every time and duration here is in nanoseconds, the unit of the
 * wire's tstamp field.  Instants (now, sent) are u64 values of the caller's
 * monotonic clock (ktime_get_ns() in the kernel); durations are u32 (at
 * most MRC_RTT_MAX_NS, so they fit) and returned widened to u64 so that
 * "now + rto" needs no cast.
 *
 * Samples come from the echoed send timestamp of the packet that triggered
 * a SACK or a PROBE/HELLO reply.  Every transmission carries its own
 * timestamp, so a retransmission's sample is not ambiguous and Karn's rule
 * is not needed (as with TCP's timestamp option).
 *
 * Not thread-safe: the caller serialises access (the peer's lock).
 */
#ifndef _MRC_RTT_H
#define _MRC_RTT_H

#include "compat.h"

/* Upper bound of any RTT sample: 1 s. */
#define MRC_RTT_MAX_NS		1000000000U
/*
 * Upper bound of the RTO parameters (rto_max_ns and what it bounds): 4 s,
 * above the rto_max_ms knob's 2 s and within a u32; the RTO is computed
 * in u64, so a 4 s RTO shifted by MRC_RTT_BACKOFF_LIMIT cannot overflow.
 */
#define MRC_RTT_RTO_LIMIT_NS	4000000000U
/* Most doublings of the RTO that mrc_rtt_params.max_backoff may allow. */
#define MRC_RTT_BACKOFF_LIMIT	16

/*
 * Tunables, normally fed from knobs.  Read on every call, so a change
 * takes effect at once for every path.  All in ns except max_backoff.
 */
struct mrc_rtt_params {
	u32 rto_init_ns;	/* RTO before the first sample */
	u32 rto_min_ns;		/* lower clamp of the RTO */
	u32 rto_max_ns;		/* upper clamp, also of the backed-off RTO */
	u32 var_floor_ns;	/* RFC 6298's G: least margin above srtt */
	u32 max_backoff;	/* doublings of the RTO after timeouts */
};

/*
 * Defaults, chosen for a software RDMA fabric (rxe in virtual machines),
 * whose RTTs are milliseconds and noisy (the figures are in
 * Documentation/mrc/design-decisions.rst, "Timer defaults"), and for the
 * requirement that a failed path be noticed well under 50 ms:
 *  - rto_min 4 ms: above the typical RTT of such a fabric, so that
 *    scheduling noise on its fastest paths does not fire spurious
 *    timeouts.
 *  - var_floor 1 ms: with steady samples rttvar decays to ~0; the floor
 *    keeps RTO >= srtt + 1 ms so that jitter on a slower path does not.
 *  - rto_max 40 ms: a path that stops answering is declared timed out
 *    within 40 ms even if its estimate was inflated by outliers or backed
 *    off.  It is also the backoff cap: no multi-second RC-style retry.  If
 *    the real RTT exceeds it (long-haul links), raise the knob.
 *  - rto_init 10 ms: used only before a path's first sample (HELLO);
 *    twice the slowest typical RTT of such a fabric.
 *  - max_backoff 3: 4 -> 8 -> 16 -> 32 ms; rto_max caps it anyway.
 */
#define MRC_RTT_DEF_RTO_INIT_NS		10000000U
#define MRC_RTT_DEF_RTO_MIN_NS		4000000U
#define MRC_RTT_DEF_RTO_MAX_NS		40000000U
#define MRC_RTT_DEF_VAR_FLOOR_NS	1000000U
#define MRC_RTT_DEF_MAX_BACKOFF		3

/* One path's estimator.  All-zero is a valid "no sample yet" state. */
struct mrc_rtt {
	u32 srtt_ns;		/* smoothed RTT; 0 until the first sample */
	u32 rttvar_ns;		/* smoothed mean deviation */
	u32 last_ns;		/* latest sample */
	u32 min_ns;		/* smallest sample seen (base RTT) */
	u32 samples;		/* valid samples taken, saturating */
	u32 backoff;		/* timeouts since the last valid sample */
};

void mrc_rtt_params_default(struct mrc_rtt_params *p);
int mrc_rtt_params_check(const struct mrc_rtt_params *p, const char **why);

void mrc_rtt_init(struct mrc_rtt *r);

int mrc_rtt_update(struct mrc_rtt *r, u64 rtt_ns);

int mrc_rtt_update_idle(struct mrc_rtt *r, u64 rtt_ns);
int mrc_rtt_sample(struct mrc_rtt *r, u64 now_ns, u64 sent_ns, bool idle);

u64 mrc_rtt_rto(const struct mrc_rtt *r, const struct mrc_rtt_params *p);

u64 mrc_rtt_timeout(struct mrc_rtt *r, const struct mrc_rtt_params *p);

static inline bool mrc_rtt_valid(const struct mrc_rtt *r)
{
	return r->samples != 0;
}

#endif /* _MRC_RTT_H */
