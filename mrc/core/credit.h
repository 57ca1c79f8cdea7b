/* SPDX-License-Identifier: GPL-2.0 */
/*
 * credit.h - receiver-driven credits (Homa-style grants).  Kernel-agnostic.
 *
 * A sender may send the first unsched bytes of a message without
 * permission; the rest only up to the offset the receiver granted.  The
 * receiver keeps one entry per sender in a fixed table, and a pacing
 * function (called from the caller's hrtimer) hands out grants so that
 * the bytes it lets in per interval match its drain rate, split among the
 * waiting senders by a policy (fair share or SRPT).
 *
 * Offsets, not increments: a GRANT says "you may send message msg_id up
 * to byte granted" with a sequence number that grows with every new
 * grant.  A duplicate or reordered GRANT is therefore idempotent, and
 * neither a duplicate nor a forged one can move a sender beyond the
 * message's length.  A lost GRANT is recovered by the sender's
 * re-REQUEST, which the receiver answers with its current offset.
 *
 * Unscheduled bytes are charged to the receiver's pacing budget when they
 * arrive, so the total of scheduled and unscheduled arrivals tracks the
 * drain rate.  Granted bytes that have not arrived are "outstanding";
 * their total is capped, and if a sender's data stops arriving for
 * grant_timeout the outstanding credit is reclaimed (returned to the
 * pool).
 *
 * The cap on outstanding credit is max_outstanding, or, with loop_mult
 * set, what the drain rate delivers in loop_mult times the credit loop:
 * the least time from a grant to the arrival of the first byte it
 * allowed, over the last one to two MRC_CREDIT_LOOP_WIN_NS, once they
 * hold MRC_CREDIT_LOOP_SAMPLES samples (at least two unscheduled windows
 * and four units, at most max_outstanding; the least of these before).
 * One sample could be a grant whose first packet was dropped and resent
 * after a timeout.  Credit
 * beyond what the loop needs only builds the last hop's queue; and when
 * that queue drops, the sender's resends come on top of the grants that
 * keep arriving, so the queue stays full.  Credit bounded by the loop is
 * conserved: a lost packet's resend takes the place of new credit.  But
 * a sender whose granted packets were lost holds its credit until its
 * retransmission timer, which may be milliseconds: the credit of a
 * sender that neither got a grant nor delivered granted bytes while the
 * others delivered MRC_CREDIT_STALL_CAPS times the cap (a full cap
 * cycles through the senders between two arrivals of one), or while
 * nothing at all arrived for MRC_CREDIT_STALL_LOOPS credit loops (every
 * sender that holds credit lost it; grant_timeout / MRC_CREDIT_STALL_LOOPS
 * before the loop is known), does not count against the cap, and
 * the sender gets no more until its bytes come (the credit still counts
 * as outstanding, and is reclaimed after grant_timeout).
 *
 * Arrivals clock the pacer: the caller runs a pace that is due by time
 * (its period) or once MRC_CREDIT_PACE_DATA_UNITS grant units arrived
 * since the last one (mrc_credit_rx_data_due()), so that at a fast drain
 * grants go out a few packets at a time rather than a period's worth at
 * once.
 *
 * Times are u64 ns of the caller's monotonic clock; nothing here
 * allocates, and the arithmetic is integer with no 64-bit division (so no
 * div_u64() on 32-bit kernels).  Not thread-safe: the caller serialises
 * access to a table (the receiver's credit lock) and to a sender's state
 * (the peer's lock).
 */
#ifndef _MRC_CREDIT_H
#define _MRC_CREDIT_H

#include "compat.h"

/* Most senders one receiver's table may be sized for. */
#define MRC_CREDIT_MAX_SENDERS		4096
/* Cap of the drain rate: 1 Tbit/s in bytes/s. */
#define MRC_CREDIT_MAX_RATE		125000000000ULL
/*
 * Longest elapsed time one pacing call accounts for: 100 ms.  What a
 * late pace grants at once is still bounded by max_outstanding.
 */
#define MRC_CREDIT_MAX_ELAPSED_NS	100000000ULL

/* Values are stable: they may be exported (netlink, sysfs). */
enum mrc_credit_policy {
	MRC_CREDIT_FAIR		= 0,	/* equal share, round-robin units */
	MRC_CREDIT_SRPT		= 1,	/* fewest bytes left to grant first */
	MRC_CREDIT_POLICY_NR
};

/*
 * Tunables, normally fed from knobs.  Read on every call.  Byte values
 * are u32; rate is bytes per second.
 */
struct mrc_credit_params {
	u64 rate;		/* receiver's drain rate, bytes/s */
	u32 policy;		/* enum mrc_credit_policy */
	u32 unsched;		/* unscheduled window per message, bytes;
				 * 0: every message asks from byte 0
				 */
	u32 grant_unit;		/* grants are whole units (not the tail) */
	u32 burst;		/* most pacing budget saved while idle */
	u32 max_outstanding;	/* granted, not yet arrived, all senders */
	u32 loop_mult;		/* 0: max_outstanding is the cap; else the
				 * cap follows the credit loop (above)
				 */
	u32 max_msg;		/* largest message a REQUEST may announce */
	u32 grant_timeout_ns;	/* reclaim a silent sender's credit after */
	u32 request_timeout_ns;	/* sender: re-REQUEST while starved after;
				 * a grant within it chains the next message
				 */
	u32 rerequest_ns;	/* sender: re-REQUEST after this instead,
				 * if below (0: request_timeout_ns)
				 */
	u64 stale_ns;		/* an entry quiet this long takes any msg */
};

/*
 * Defaults for one 100 Gbit/s rail and ~10 us fabric RTT (BDP 125 KB),
 * rounded to 4 KB packets; the kernel side derives rate from the rails'
 * speed and scales the byte values with the BDP.
 */
#define MRC_CREDIT_DEF_RATE		12500000000ULL	/* 100 Gbit/s */
#define MRC_CREDIT_DEF_POLICY		MRC_CREDIT_FAIR
#define MRC_CREDIT_DEF_UNSCHED		131072U		/* ~1 BDP */
#define MRC_CREDIT_DEF_GRANT_UNIT	4096U		/* one packet */
#define MRC_CREDIT_DEF_BURST		32768U
#define MRC_CREDIT_DEF_MAX_OUTSTANDING	262144U		/* ~2 BDP */
#define MRC_CREDIT_DEF_MAX_MSG		1073741824U	/* 1 GiB */
#define MRC_CREDIT_DEF_GRANT_TIMEOUT_NS	10000000U	/* 10 ms */
#define MRC_CREDIT_DEF_REQUEST_TIMEOUT_NS 10000000U	/* 10 ms */
#define MRC_CREDIT_DEF_STALE_NS		6000000000ULL	/* 6 s */
/* Bounds enforced by mrc_credit_params_check(). */
#define MRC_CREDIT_TIMEOUT_MAX_NS	4000000000U
#define MRC_CREDIT_LOOP_MULT_MAX	64
/* The loop_mult hosts use when the operator sets no fixed cap. */
#define MRC_CREDIT_DEF_LOOP_MULT	4
/* The credit loop is the least sample of the last one to two of these, */
#define MRC_CREDIT_LOOP_WIN_NS		1000000000ULL
/* once they hold this many. */
#define MRC_CREDIT_LOOP_SAMPLES		8
/* A sender silent while this many caps arrived holds credit outside it, */
#define MRC_CREDIT_STALL_CAPS		4
/* or silent for this many credit loops. */
#define MRC_CREDIT_STALL_LOOPS		16
/* Arrivals since the last pace, in grant units, that make one due. */
#define MRC_CREDIT_PACE_DATA_UNITS	4

void mrc_credit_params_default(struct mrc_credit_params *p);
int mrc_credit_params_check(const struct mrc_credit_params *p,
			    const char **why);

/* ---------------------------------------------------------------- */
/* receiver                                                          */
/* ---------------------------------------------------------------- */

/* One sender's credit state at the receiver.  Read-only to the caller. */
/* msg_id bits 31..26 are the lane (msg.h MRC_MSG_LANE_SHIFT). */
#define MRC_CREDIT_LANE_SHIFT	26
#define MRC_CREDIT_LANES	(1U << (32 - MRC_CREDIT_LANE_SHIFT))
#define MRC_CREDIT_LANE_SEEN	0x80000000U
#define MRC_CREDIT_LANE_OPEN	0x40000000U	/* n may ask again */
#define MRC_CREDIT_SEQ_MASK	((1U << MRC_CREDIT_LANE_SHIFT) - 1)

struct mrc_credit_rx_entry {
	u32 key;		/* caller's sender id (peer index, node) */
	u8 in_use;
	u8 pending;		/* internal: granted in the current pace */
	u8 low;			/* background: gets only what the others
				 * leave of a pace (mrc_credit_rx_set_low)
				 */
	u8 stalled;		/* internal: its credit is outside the cap
				 * and it gets no more (credit.h)
				 */
	u32 hnext;		/* internal: the next entry of its hash
				 * bucket, as index + 1; 0 ends the chain
				 */
	u64 msg_id;		/* message being scheduled */
	u32 requested;		/* its length: demand, fixed per msg_id */
	u32 granted;		/* offset granted so far (>= unsched part) */
	u32 outstanding;	/* scheduled bytes granted, not yet arrived */
	u32 seq;		/* of the latest grant; 1.. per message */
	u32 unsched;		/* bytes of msg_id sent without a grant:
				 * the window, or 0 for a chained message
				 */
	u32 end_seen;		/* internal: the end of msg_id's furthest
				 * bytes that arrived (its last byte came:
				 * requested)
				 */
	u64 expiry;		/* reclaim outstanding if nothing by then */
	u32 lane_epoch;		/* internal: epoch (msg_id >> 32) of lane_n */
	u32 lane_n[MRC_CREDIT_LANES];	/* internal: per lane, the sequence
					 * number (msg_id bits 25..0) of the
					 * newest request taken in lane_epoch,
					 * | MRC_CREDIT_LANE_SEEN, | _OPEN if
					 * it left the entry unfinished; 0: none
					 */
	u64 loop_ns;		/* internal: a grant being timed, 0: none */
	u64 mark;		/* internal: rx->arrived at its last grant
				 * or arrival of granted bytes
				 */
	u64 mark_ns;		/* internal: and when that was */
	u32 loop_from;		/* internal: the offset its credit starts at */
	u64 granted_bytes;	/* stats: scheduled bytes granted */
	u64 reclaimed_bytes;	/* stats: credit reclaimed after expiry */
	u64 grants;		/* stats: new grants issued */
};

/* Counters of the whole table; the same events are also return codes. */
struct mrc_credit_rx_stats {
	u64 req_new;		/* REQUEST for a new message accepted */
	u64 req_dup;		/* REQUEST repeated: grant re-sent */
	u64 req_bad;		/* forged: length changed, or unscheduled */
	u64 req_oversize;	/* length above max_msg */
	u64 req_busy;		/* new message while one still waits */
	u64 req_full;		/* new sender, table full: refused */
	u64 data_over_credit;	/* DATA beyond the granted offset */
	u64 grants;		/* new grants issued by the pacer */
	u64 granted_bytes;
	u64 unsched_bytes;	/* unscheduled bytes charged */
	u64 reclaimed_bytes;
	u64 req_stale;		/* earlier message than the busy entry's */
	u64 paces;		/* pacing calls */
	u64 paces_no_tokens;	/* ... that found the budget <= 0 (debt) */
	u64 paces_out_full;	/* ... that found no room for a unit under
				 * max_outstanding
				 */
	u64 outstanding_max;	/* highest total_outstanding seen */
	u64 capped_bytes;	/* budget lost while a sender waited:
				 * elapsed beyond 100 ms (late paces),
				 * saved beyond burst (grants held)
				 */
};

/*
 * The receiver's table.  The caller allocates mrc_credit_rx_size(n)
 * bytes (n <= MRC_CREDIT_MAX_SENDERS) and calls mrc_credit_rx_init();
 * peer input never allocates: a sender beyond n is refused (-ENOSPC)
 * and retries with its request timer.  Entries in use are found by key
 * through a hash index that follows e[] (1 << hbits bucket heads, at
 * least twice n), so that a DATA packet's accounting costs O(1), not a
 * scan of the table.
 */
struct mrc_credit_rx {
	u32 nentries;
	u32 hbits;		/* the index has 1 << hbits buckets */
	u32 nwaiting;		/* entries waiting for grants */
	u32 cursor;		/* fair share: next entry served first */
	s64 tokens;		/* pacing budget, bytes; < 0 is debt */
	u64 frac;		/* remainder of rate * elapsed, byte-ns */
	u64 total_outstanding;
	u32 since_pace;		/* new payload bytes since the last pace */
	u64 arrived;		/* new payload bytes, all senders */
	u64 arrived_ns;		/* when the last came */
	u32 loop_min_ns[2];	/* least credit loop: [0] this window,
				 * [1] the one before; 0: no sample
				 */
	u32 loop_n[2];		/* their samples */
	u64 loop_win_ns;	/* when the current window began */
	u64 out_cap;		/* the cap on outstanding at the last pace */
	u64 out_stalled;	/* outstanding of stalled senders, then */
	struct mrc_credit_rx_stats stats;
	struct mrc_credit_rx_entry e[];
};

/* What mrc_credit_rx_pace() asks the caller to send: one GRANT each. */
struct mrc_credit_grant {
	u32 idx;		/* entry index */
	u32 key;		/* its sender */
	u64 msg_id;
	u32 granted;		/* send msg_id up to this byte offset */
	u32 seq;
};

/* Return codes of mrc_credit_rx_request() beyond 0 (new message). */
#define MRC_CREDIT_REQ_RESEND	1	/* duplicate: re-send @out as GRANT */

size_t mrc_credit_rx_size(u32 n);
int mrc_credit_rx_init(struct mrc_credit_rx *rx, u32 n,
		       const struct mrc_credit_params *p);

int mrc_credit_rx_request_unsched(struct mrc_credit_rx *rx,
				  const struct mrc_credit_params *p, u32 key,
				  u64 msg_id, u32 msg_len, u32 unsched,
				  u64 now, struct mrc_credit_grant *out);

/* A REQUEST whose sender sends the whole unscheduled window. */
static inline int mrc_credit_rx_request(struct mrc_credit_rx *rx,
					const struct mrc_credit_params *p,
					u32 key, u64 msg_id, u32 msg_len,
					u64 now, struct mrc_credit_grant *out)
{
	return mrc_credit_rx_request_unsched(rx, p, key, msg_id, msg_len,
					     p->unsched, now, out);
}

u32 mrc_credit_rx_unsched(struct mrc_credit_rx *rx,
			  const struct mrc_credit_params *p, u32 key,
			  u64 msg_id, u32 msg_len);

int mrc_credit_rx_data(struct mrc_credit_rx *rx,
		       const struct mrc_credit_params *p, u32 key,
		       u64 msg_id, u32 msg_len, u32 offset, u32 len, u64 now);

int mrc_credit_rx_pace(struct mrc_credit_rx *rx,
		       const struct mrc_credit_params *p, u64 now,
		       u64 elapsed, struct mrc_credit_grant *out, u32 nout);

void mrc_credit_rx_forget(struct mrc_credit_rx *rx, u32 key);

const struct mrc_credit_rx_entry *
mrc_credit_rx_lookup(const struct mrc_credit_rx *rx, u32 key);

u32 mrc_credit_rx_bucket(const struct mrc_credit_rx *rx, u32 key);

void mrc_credit_rx_set_low(struct mrc_credit_rx *rx, u32 key, bool low);

u32 mrc_credit_rx_waiting(const struct mrc_credit_rx *rx);

u32 mrc_credit_rx_loop_ns(const struct mrc_credit_rx *rx);

/* Enough arrived since the last pace to run one (arrivals clock it). */
static inline bool mrc_credit_rx_data_due(const struct mrc_credit_rx *rx,
					  u32 unit)
{
	return rx->since_pace >= MRC_CREDIT_PACE_DATA_UNITS * unit;
}

/* ---------------------------------------------------------------- */
/* sender                                                            */
/* ---------------------------------------------------------------- */

/* A sender's credit for one message to one receiver. */
struct mrc_credit_tx {
	u64 msg_id;
	u32 msg_len;
	u32 sent;		/* next new byte to send (in order) */
	u32 granted;		/* may send up to here (>= unsched part) */
	u32 seq;		/* of the latest grant taken; 0: none */
	u32 unsched_end;	/* bytes below this need no grant */
	u8 active;
	u8 starved;		/* wants to send, no credit */
	u16 reserved;
	u64 request_at;		/* (re-)REQUEST due when starved */
	u64 starved_since;
	u64 last_grant_at;	/* when a grant last moved the offset */
	/* the scheduled message before this one, as it ended */
	u64 prev_msg_id;
	u32 prev_msg_len;	/* 0: none yet */
	u32 prev_seq;
	u32 prev_granted;
	/* stats */
	u64 unsched_bytes;
	u64 sched_bytes;
	u64 grants;		/* grants that moved the offset */
	u64 grants_dup;		/* duplicates (harmless, counted) */
	u64 grants_stale;	/* overtaken or late (harmless, counted) */
	u64 grants_bad;		/* forged: contradict what was taken */
	u64 requests;		/* REQUESTs sent, first and repeats */
	u64 msgs_chained;	/* scheduled messages started in the loop */
	u64 wait_ns;		/* time spent starved of credit */
};

bool mrc_credit_tx_start(struct mrc_credit_tx *tx,
			 const struct mrc_credit_params *p, u64 msg_id,
			 u32 msg_len, u64 now);

u32 mrc_credit_tx_may_send(struct mrc_credit_tx *tx, u32 want, u64 now);

int mrc_credit_tx_sent(struct mrc_credit_tx *tx, u32 len);

int mrc_credit_tx_grant(struct mrc_credit_tx *tx,
			const struct mrc_credit_params *p, u64 msg_id,
			u32 msg_len, u32 granted, u32 seq, u64 now);

bool mrc_credit_tx_request_due(struct mrc_credit_tx *tx,
			       const struct mrc_credit_params *p, u64 now);

void mrc_credit_tx_requested(struct mrc_credit_tx *tx,
			     const struct mrc_credit_params *p, u64 now);

/* Everything of the message was sent (the caller may start the next). */
static inline bool mrc_credit_tx_done(const struct mrc_credit_tx *tx)
{
	return !tx->active || tx->sent >= tx->msg_len;
}

/*
 * Whether the sender's credit runs out with what it sent so far: part of
 * the message is left and the credit does not cover the next @seg bytes
 * of it (or its shorter tail).  The packet just sent is the last one
 * until a GRANT comes, so it asks for an immediate SACK: the receiver
 * otherwise acks every few packets, and credit-paced packets come one
 * grant apart (tens of ms at a slow bottleneck, past the RTO).
 */
static inline bool mrc_credit_tx_limited(const struct mrc_credit_tx *tx,
					 u32 seg)
{
	u32 left;

	if (mrc_credit_tx_done(tx))
		return false;
	left = tx->msg_len - tx->sent;
	return tx->granted - tx->sent < min(seg, left);
}

const char *mrc_credit_policy_name(unsigned int policy);

#endif /* _MRC_CREDIT_H */
