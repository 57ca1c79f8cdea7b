/* SPDX-License-Identifier: GPL-2.0 */
/*
 * path.h - one path to a peer: (local rail, remote rail, entropy value),
 * its state machine, probe schedule, RTT, inflight accounting and
 * counters.  Kernel-agnostic: no allocation, no locking, no clock; the
 * caller passes "now" (ns, monotonic) and serialises calls per peer.
 *
 * States (MRC 1.0's words where they fit):
 *
 *   PROBING      not in the spray set; has not answered since it was
 *                created or since its rail came back.  Probed.
 *   ACTIVE       in the spray set (MRC 1.0: GOOD).
 *   ASSUMED_BAD  left the spray set after a loss or a timeout.  Probed
 *                until a probe sent after it left is answered.
 *   DEAD         its local rail is down.  Not probed; RAIL_UP -> PROBING.
 *   DENIED       taken out by the operator or a policy.  Not probed, not
 *                used; ALLOW -> PROBING (DEAD if the rail went down).
 *
 * Events (mrc_path_event(); @sent is the send time of the packet the
 * event is about, as echoed by the peer or remembered by the sender):
 *
 *               PROBING   ACTIVE       ASSUMED_BAD  DEAD     DENIED
 *   REPLY       ACTIVE*   ACTIVE       ACTIVE*      -        -
 *   ACK         -         -            -            -        -
 *   LOSS        -         ASSUMED_BAD* -            -        -
 *   RTO         -         ASSUMED_BAD* -            -        -
 *   RAIL_DOWN   DEAD      DEAD         DEAD         -        - (noted)
 *   RAIL_UP     -         -            -            PROBING  - (noted)
 *   DENY        DENIED    DENIED       DENIED       DENIED   -
 *   ALLOW       -         -            -            -        PROBING/DEAD
 *   PEER_DOWN   -         ASSUMED_BAD  -            -        -
 *
 *   "-" stays.  PEER_DOWN is always fresh news (the peer's rail is down
 *   now; the probes bring the path back once it answers again).
 *   "*" only if @sent >= the time the path entered its
 *   current state; an older packet's news is stale (a reply to a probe
 *   sent before the loss, a loss report for a packet sent before the path
 *   last came back) and is counted in stats.ignored instead.
 *
 * REPLY and ACK feed the RTT estimator (REPLY not in DEAD or DENIED); ACK
 * clears the loss run (consec_loss) but never changes the state: only a
 * probe answered after the path left brings it back.  A fresh RTO also
 * backs the path's RTO off.  Entering PROBING or ASSUMED_BAD makes a
 * probe due at once.
 */
#ifndef _MRC_PATH_H
#define _MRC_PATH_H

#include "compat.h"
#include "rtt.h"

/* Values are stable: they may be exported (netlink, sysfs). */
enum mrc_path_state {
	MRC_PATH_PROBING	= 0,
	MRC_PATH_ACTIVE		= 1,
	MRC_PATH_ASSUMED_BAD	= 2,
	MRC_PATH_DEAD		= 3,
	MRC_PATH_DENIED		= 4,
	MRC_PATH_STATE_NR
};

enum mrc_path_event {
	MRC_PATH_EV_NONE	= 0,	/* not an event; reason of a new path */
	MRC_PATH_EV_REPLY	= 1,	/* HELLO_REPLY/PROBE_REPLY; @sent echoed */
	MRC_PATH_EV_ACK		= 2,	/* SACK acked data sent on this path */
	MRC_PATH_EV_LOSS	= 3,	/* a packet sent on it was lost (SACK
					 * hole, NACK, per-path seq gap)
					 */
	MRC_PATH_EV_RTO		= 4,	/* retransmission timeout on it */
	MRC_PATH_EV_RAIL_DOWN	= 5,	/* its local rail went down */
	MRC_PATH_EV_RAIL_UP	= 6,	/* its local rail is usable again */
	MRC_PATH_EV_DENY	= 7,	/* operator/policy: do not use */
	MRC_PATH_EV_ALLOW	= 8,	/* operator/policy: may use again */
	MRC_PATH_EV_PEER_DOWN	= 9,	/* the peer says (RAIL_DOWN packet) its
					 * rail behind this path went down
					 */
	MRC_PATH_EV_NR
};

/* Why a packet stopped being in flight on a path. */
enum mrc_path_done {
	MRC_PATH_DONE_ACKED	= 0,	/* the peer has it */
	MRC_PATH_DONE_LOST	= 1,	/* declared lost (resent elsewhere) */
	MRC_PATH_DONE_RELEASED	= 2,	/* given up: rail down, message
					 * cancelled, peer removed
					 */
	MRC_PATH_DONE_NR
};

/* Upper bound of the probe retry intervals: 4 s (fits a u32). */
#define MRC_PATH_INTERVAL_MAX_NS	4000000000U
/*
 * Upper bound of the keepalive interval: 60 s, above the probe_ms knob's
 * 10 s.  A u64: the knob's range crosses 2^32 ns (4295 ms).
 */
#define MRC_PATH_KEEPALIVE_MAX_NS	60000000000ULL
/* mrc_path_deadline() when no timer is needed. */
#define MRC_PATH_NEVER			U64_MAX

struct mrc_path_params {
	struct mrc_rtt_params rtt;
	u32 probe_ns;		/* first probe retry interval */
	u32 probe_max_ns;	/* cap of the doubling retry interval */
	u64 keepalive_ns;	/* probe an idle ACTIVE path; 0 = never */
};

/*
 * Defaults (see rtt.h for the RTT ones):
 *  - probe 10 ms: the first probe goes out at once when a path leaves the
 *    spray set; a retry waits 10 ms, twice the slowest typical RTT of a
 *    software fabric (rtt.h), so there is rarely more than one probe in
 *    flight.
 *  - probe_max 200 ms: retries double 10, 20, 40, 80, 160, 200, 200...
 *    A path whose plane comes back is in service again within 200 ms plus
 *    one RTT, well inside the second a recovered path may take to carry
 *    traffic again (Documentation/mrc/sched.rst); a path that stays
 *    broken costs at most 5 probes/s.  A retry never comes sooner than
 *    the path's RTO (mrc_path_timer()), which on real fabrics is below
 *    10 ms and changes nothing; on a software fabric or an overloaded
 *    node it keeps probes to about one per round trip.
 *  - keepalive 250 ms: a path that carries traffic is never probed (its
 *    ACKs prove it); an idle ACTIVE path gets a probe after 250 ms without
 *    news, which refreshes its RTT (for latency-aware scheduling) and
 *    finds a silently broken path before data is sprayed into it.  An
 *    unanswered keepalive times out after the path's RTO (ASSUMED_BAD).
 */
#define MRC_PATH_DEF_PROBE_NS		10000000U
#define MRC_PATH_DEF_PROBE_MAX_NS	200000000U
#define MRC_PATH_DEF_KEEPALIVE_NS	250000000U

/*
 * Counters: u64, never reset by the state machine.  Invariants:
 * tx_pkts == inflight_pkts + acked_pkts + lost_pkts + released_pkts, and
 * the same for bytes.
 */
struct mrc_path_stats {
	u64 tx_pkts;		/* packets counted in flight on this path */
	u64 tx_bytes;
	u64 acked_pkts;
	u64 acked_bytes;
	u64 lost_pkts;
	u64 lost_bytes;
	u64 released_pkts;
	u64 released_bytes;
	u64 acks;		/* ACK events */
	u64 losses;		/* LOSS events */
	u64 timeouts;		/* RTO events and unanswered keepalives */
	u64 probes;		/* probes the timer asked for */
	u64 replies;		/* REPLY events that were accepted */
	u64 ignored;		/* stale REPLY/LOSS/RTO, REPLY while down */
	u64 replayed;		/* REPLY events refused: not newer than the last
				 * accepted (replays, reordered replies)
				 */
	u64 rtt_bad;		/* samples refused (echo from the future,
				 * or above MRC_RTT_MAX_NS)
				 */
	u64 state_changes;
	u64 inflight_errors;	/* refused mrc_path_inflight_add/sub */
};

struct mrc_path {
	u32 local_rail;		/* rail ids (mrc_rail.id, peer's rail_id) */
	u32 remote_rail;
	u16 entropy;
	u8 state;		/* enum mrc_path_state */
	u8 reason;		/* enum mrc_path_event of the last change */
	u8 rail_down;		/* local rail down (remembered if DENIED) */
	u8 ok_seen;		/* last_ok_ns is valid */
	u8 probe_out;		/* ACTIVE: a keepalive probe is unanswered */
	u8 probe_backoff;	/* probes sent in this PROBING/ASSUMED_BAD */
	u32 consec_loss;	/* LOSS events since the last ACK */
	u32 tx_seq;		/* next per-path sequence number */
	u32 inflight_pkts;
	u64 inflight_bytes;
	u64 since_ns;		/* entered the current state */
	u64 last_ok_ns;		/* last accepted REPLY or ACK */
	u64 probe_next_ns;	/* PROBING/ASSUMED_BAD: next probe due */
	u64 probe_sent_ns;	/* last probe asked for */
	u64 reply_echo;		/* echoed tstamp of the last accepted REPLY:
				 * a REPLY must echo a later one
				 */
	struct mrc_rtt rtt;
	struct mrc_path_stats stats;
};

void mrc_path_params_default(struct mrc_path_params *pp);
int mrc_path_params_check(const struct mrc_path_params *pp, const char **why);
int mrc_path_params_knobs(struct mrc_path_params *pp, u64 probe_ms,
			  u64 rto_max_ms, u64 rto_min_ms, const char **why);

void mrc_path_init(struct mrc_path *p, u32 local_rail, u32 remote_rail,
		   u16 entropy, u64 now);

int mrc_path_event(struct mrc_path *p, const struct mrc_path_params *pp,
		   enum mrc_path_event ev, u64 now, u64 sent);

u64 mrc_path_deadline(const struct mrc_path *p,
		      const struct mrc_path_params *pp);

bool mrc_path_timer(struct mrc_path *p, const struct mrc_path_params *pp,
		    u64 now);

u64 mrc_path_probe_interval(const struct mrc_path_params *pp, u32 nprobes);

/* The RTO to arm for a packet sent on this path now, in ns. */
static inline u64 mrc_path_rto(const struct mrc_path *p,
			       const struct mrc_path_params *pp)
{
	return mrc_rtt_rto(&p->rtt, &pp->rtt);
}

static inline bool mrc_path_in_spray_set(const struct mrc_path *p)
{
	return p->state == MRC_PATH_ACTIVE;
}

/* The per-path sequence number for the next packet sent on @p. */
static inline u32 mrc_path_next_seq(struct mrc_path *p)
{
	return p->tx_seq++;
}

int mrc_path_inflight_add(struct mrc_path *p, u32 pkts, u64 bytes);

int mrc_path_inflight_sub(struct mrc_path *p, u32 pkts, u64 bytes,
			  enum mrc_path_done how);

const char *mrc_path_state_name(unsigned int state);
const char *mrc_path_event_name(unsigned int ev);

#endif /* _MRC_PATH_H */
