// SPDX-License-Identifier: GPL-2.0
/*
 * credit_fuzz.c - libFuzzer target for mrc/core/credit*.c (receiver-driven
 * credits: the receiver's grant pacer and the senders' credit balance).
 *
 * The input is a script run on one receiver table (struct mrc_credit_rx,
 * malloc()ed with exactly mrc_credit_rx_size() bytes) and NSENDERS
 * senders (struct mrc_credit_tx each), glued as credit_peer.c glues them:
 * GRANTs the pacer emits queue per sender (lost, delivered in order,
 * swapped or replayed by ops), DATA chunks a sender sends queue likewise
 * (delivered in any order, or lost), REQUESTs go straight in (or are
 * lost).  NGHOSTS more keys have no sender state: they fill the table.
 *
 *   byte 0      bits 0-2: a table of 1 + (b & 7) entries; bits 3-4: the
 *               params set (0 defaults, 1 small, 2 tiny: 1-byte units and
 *               no unscheduled window, 3 from the next 36 bytes within
 *               mrc_credit_params_check()'s bounds); bit 5: SRPT;
 *               bit 6: the bound on outstanding follows the credit loop
 *               (loop_mult 4, as the hosts set it); bit 7: a starved
 *               sender asks again after a quarter of the request
 *               timeout (rerequest_ns, the hosts' RTO floor)
 *   bytes 1-4   the clock's start, ns (u32, little endian)
 *   then ops    one op byte and its arguments each, until the input ends
 *               (missing argument bytes read as 0); bits 0-4 pick the op
 *               (op_of[]), bits 5-7 advance the clock that many us
 *
 * Ops: start a message (any length, lane, epoch, or the one given up
 * by a reset again, with its own id; its REQUEST lost or not; -EBUSY
 * answered by forget + request as credit_peer.c does), send
 * (may_send + sent, and raw sent()s over credit), deliver or lose DATA,
 * hostile DATA (any key, message, offset), pace (the clock's elapsed,
 * 0, any u64, too small an output array), clock jumps (ns to hours),
 * deliver / lose / swap / replay GRANTs, forged GRANTs (newer seq
 * granting no more, beyond the message, same seq other offset, the
 * previous message's, anything), re-REQUESTs when request_due() (or
 * forced; the RESEND answer delivered), odd REQUESTs (repeated, other
 * length, earlier and later ids, other lane and epoch, oversized, raw),
 * ghost REQUESTs and DATA, forget, set_low, sender reset (active = 0, as
 * credit_peer.c's mrc_credit_tx_reset()), and params retuned (policy,
 * rate, unit/burst/max_outstanding, grant and stale timeouts).
 *
 * Oracles, besides ASan/UBSan, from credit.h's contracts:
 *  - receiver, after every op: an entry's key, msg_id, requested,
 *    granted and seq are the shadow's (set by REQUESTs that returned 0,
 *    moved only by paces); the window its REQUEST announced (at most
 *    unsched) <= granted <= requested <= max_msg;
 *    no two entries of one key; entries in use <= the table size;
 *    total_outstanding == the sum of the entries' outstanding;
 *    mrc_credit_rx_waiting() counts the entries with grants to give;
 *  - REQUEST: the return code is the one the header's rules give for the
 *    entry's state, an id compared with the newest the entry took in
 *    its lane (that one again if it left the entry before its last
 *    byte arrived; where serial numbers half the space apart
 *    leave it open, one of those that fit), the matching stats counter moves by one and no other; a
 *    refusal changes nothing but that counter; RESEND's grant is the
 *    entry's; 0 takes the key's entry, else a free or idle one;
 *  - DATA: -EPERM exactly when the bytes lie beyond the granted offset
 *    of the message being scheduled (or beyond the unscheduled window of
 *    a sender with no entry) and then changes nothing but
 *    data_over_credit; else the unscheduled part is charged (stats and
 *    tokens) and the scheduled part settles the key's outstanding;
 *  - pace: at most one grant per entry, each for the entry's key and the
 *    requested message, seq and offset strictly growing, offset <= the
 *    message's length, the increment whole units or the message's tail;
 *    credit is reclaimed exactly from the entries past their expiry;
 *    granted bytes <= the budget before the pace (> 0) plus what @elapsed
 *    (capped at 100 ms) drains, and <= burst plus that; once it granted,
 *    total_outstanding <= max_outstanding; no whole unit of budget and
 *    room is left while a sender waits; capped_bytes stays put unless a
 *    sender waited, and then grows by the drain of the elapsed time
 *    beyond 100 ms (at least 100 ms of it) plus at most what was saved
 *    beyond burst; a short output array is -EINVAL and changes nothing;
 *  - sender, after every op: sent <= granted <= msg_len, and msg_id,
 *    msg_len, sent, granted, seq, active are the shadow's (granted never
 *    decreases within a message); start() resets them (granted 0 for a
 *    chained message: one that asks, after one that asked and took a
 *    grant within request_timeout) and keeps the previous scheduled
 *    message as prev_*; may_send() is min(want,
 *    granted - sent) while active; sent() is -EPERM over credit;
 *    request_due() is true exactly when starved with request_timeout
 *    passed since the last REQUEST, start or grant taken;
 *  - GRANT: the return code is one of 1/0/-ESTALE/-ENOENT/-ERANGE/-EINVAL
 *    and the one the header's rules give; exactly one of grants,
 *    grants_dup, grants_stale, grants_bad moves, by one, matching it; a
 *    refusal (<= 0) leaves the credit unchanged; a grant the pacer issued
 *    for the sender's active message, delivered in order (not older than
 *    the grants taken, all of the same REQUEST), is taken (1) or a
 *    duplicate (0); a newer seq of the current message that grants no
 *    more is never taken;
 *  - every input: mrc_credit_params_check() refuses each bound (with a
 *    reason), the sizes of 0 and MAX_SENDERS + 1 entries are refused,
 *    and init() clears a table filled with garbage.
 *
 *   make -C selftests/mrc/fuzz run FUZZ_SECONDS=10
 */
#include "../../../mrc/core/credit.h"

#define FUZZ_NAME "credit_fuzz"
#include "fuzz.h"

#define MAX_ENTRIES	8
#define NSENDERS	4
#define NGHOSTS		12	/* more than a table: they fill it */
#define CHAN_MAX	32	/* GRANTs in flight to one sender */
#define HIST_MAX	8	/* GRANTs delivered, kept for replays */
#define DATA_MAX	32	/* DATA chunks in flight from one sender */
#define MAX_OPS		2048
#define KEY_SENDER(s)	(0x100U + (s))
#define KEY_GHOST(g)	(0x200U + (g))
#define SEQ_MASK	((1U << MRC_CREDIT_LANE_SHIFT) - 1)
#define NS_PER_S	1000000000ULL
/* Incarnation of the grants a sender took from a forged GRANT. */
#define TAKEN_FORGED	U32_MAX

/* A GRANT on its way to a sender. */
struct grant {
	u64	msg_id;
	u32	msg_len;
	u32	granted;
	u32	seq;
	u32	inc;		/* the REQUEST it answers; 0: forged */
};

/* DATA on its way to the receiver. */
struct chunk {
	u64	msg_id;
	u32	msg_len;
	u32	offset;
	u32	len;
};

struct sender {
	struct mrc_credit_tx tx;
	/* shadow of tx */
	u64	msg_id;
	u32	msg_len, sent, granted, seq;
	bool	active;
	bool	asked;		/* the message needed a REQUEST */
	bool	prev_valid;
	u64	prev_id;
	u32	prev_len, prev_seq, prev_granted;
	u64	req_last;	/* last start, REQUEST or grant taken */
	u64	grant_last;	/* last grant taken */
	u32	taken_inc;	/* inc of the last grant taken; 0 none */
	u64	gave_id;	/* a message given up by a reset; 0 none */
	u32	gave_len;
	/* msg_id generator, msg.h's layout */
	u32	epoch;
	u32	next[4];
	struct grant chan[CHAN_MAX];
	u32	nchan;
	struct grant hist[HIST_MAX];
	u32	nhist;
	struct chunk data[DATA_MAX];
	u32	ndata;
};

/* The receiver's entries as the REQUESTs and paces made them. */
struct rshadow {
	bool	valid;
	u32	key;
	u64	msg_id;
	u32	len;
	u32	inc;		/* which REQUEST created it */
	u32	seq;
	u32	granted;
	u32	unsched;	/* the window its REQUEST announced */
	/* per lane, the newest n taken in lane_epoch (credit.h lane_n) */
	u32	lane_epoch;
	bool	lane_seen[MRC_CREDIT_LANES];
	u32	lane_n[MRC_CREDIT_LANES];
	/* that n left the entry unfinished: it may ask once more */
	bool	lane_open[MRC_CREDIT_LANES];
	u32	end_seen;	/* the end of msg_id's furthest bytes that
				 * arrived (accepted by DATA)
				 */
};

static struct mrc_credit_params p;
static struct mrc_credit_rx *rx;
static struct mrc_credit_rx *snap;	/* rx before the call under test */
static size_t rx_bytes;
static u32 nent;
static struct mrc_credit_grant *out;	/* exactly nent entries */
static struct rshadow rs[MAX_ENTRIES];
static u32 inc_next;
static struct sender snd[NSENDERS];
static u32 ghost_n[NGHOSTS];		/* ghost message counters */
static u64 ghost_msg[NGHOSTS];		/* message its DATA is for */
static u32 ghost_recv[NGHOSTS];		/* its next byte to deliver */
static u64 now, last_pace;

static u32 min32(u32 a, u32 b)
{
	return a < b ? a : b;
}

static void snap_rx(void)
{
	memcpy(snap, rx, rx_bytes);
}

/* Everything of rx but the stats as in snap (stats compared apart). */
static void check_rx_unchanged(const char *what, int rc)
{
	snap->stats = rx->stats;
	if (memcmp(snap, rx, rx_bytes))
		FAIL("%s refused (%d) but changed the table", what, rc);
}

/*
 * After an accepted request or a forget: the hash index (chains, bucket
 * heads) and the waiting count may change anywhere; check_rx() checks
 * them against the entries, so they are taken over before the others
 * are compared.
 */
static void take_index(void)
{
	size_t heads = sizeof(*rx) + nent * sizeof(rx->e[0]);
	u32 i;

	snap->nwaiting = rx->nwaiting;
	for (i = 0; i < nent; i++)
		snap->e[i].hnext = rx->e[i].hnext;
	memcpy((u8 *)snap + heads, (u8 *)rx + heads, rx_bytes - heads);
}

static int find_idx(u32 key)
{
	u32 i;

	for (i = 0; i < nent; i++)
		if (rx->e[i].in_use && rx->e[i].key == key)
			return (int)i;
	return -1;
}

static bool waits(const struct mrc_credit_rx_entry *e)
{
	return e->in_use && e->granted < e->requested;
}

/* credit.h: busy = grants to give or in flight. */
static bool idle(const struct mrc_credit_rx_entry *e)
{
	return !e->in_use || (!waits(e) && !e->outstanding);
}

static void check_rx(void)
{
	u64 sum = 0;
	u32 i, j, used = 0, nwait = 0;

	ASSERT(rx->nentries == nent);
	for (i = 0; i < nent; i++) {
		const struct mrc_credit_rx_entry *e = &rx->e[i];
		const struct rshadow *s = &rs[i];

		sum += e->outstanding;
		if (!e->in_use) {
			if (s->valid)
				FAIL("entry %u of key %#x gone", i, s->key);
			continue;
		}
		if (!s->valid)
			FAIL("entry %u in use, never requested", i);
		used++;
		nwait += e->granted < e->requested;
		if (e->key != s->key || e->msg_id != s->msg_id ||
		    e->requested != s->len || e->seq != s->seq ||
		    e->granted != s->granted || e->unsched != s->unsched)
			FAIL("entry %u: %#x %#llx len %u seq %u at %u, shadow %#x %#llx %u %u %u",
			     i, e->key, (unsigned long long)e->msg_id,
			     e->requested, e->seq, e->granted, s->key,
			     (unsigned long long)s->msg_id, s->len, s->seq,
			     s->granted);
		ASSERT(e->unsched <= p.unsched && e->granted >= e->unsched);
		ASSERT(e->granted <= e->requested);
		ASSERT(e->requested > p.unsched && e->requested <= p.max_msg);
		for (j = 0; j < i; j++)
			if (rx->e[j].in_use && rx->e[j].key == e->key)
				FAIL("entries %u and %u of key %#x", j, i,
				     e->key);
	}
	ASSERT(used <= rx->nentries);
	/* the hash index: every entry in use found by its key, no other */
	for (i = 0; i < nent; i++) {
		const struct mrc_credit_rx_entry *e = &rx->e[i];

		if (e->in_use && mrc_credit_rx_lookup(rx, e->key) != e)
			FAIL("entry %u of key %#x not found by its key", i,
			     e->key);
		if (!e->in_use && e->hnext)
			FAIL("free entry %u still chained", i);
	}
	if (rx->total_outstanding != sum)
		FAIL("total_outstanding %llu, entries' sum %llu",
		     (unsigned long long)rx->total_outstanding,
		     (unsigned long long)sum);
	ASSERT(mrc_credit_rx_waiting(rx) == nwait);
}

/* --- ids ------------------------------------------------------------ */

/*
 * Whether message id @id comes after every request entry @i took in its
 * lane (1), not (-1), or credit.h leaves it open (0: serial numbers
 * exactly half the space apart).  A lane the entry took nothing of in
 * the epoch has nothing earlier.
 */
static int lane_order(int i, u64 id)
{
	u32 de = (u32)(id >> 32) - rs[i].lane_epoch;
	u32 lane = (u32)id >> MRC_CREDIT_LANE_SHIFT, d;

	if (de)
		return de == 1U << 31 ? 0 : (s32)de > 0 ? 1 : -1;
	if (!rs[i].lane_seen[lane])
		return 1;
	d = ((u32)id - rs[i].lane_n[lane]) & SEQ_MASK;
	if (!d)
		return rs[i].lane_open[lane] ? 1 : -1;
	if (d == 1U << (MRC_CREDIT_LANE_SHIFT - 1))
		return 0;
	return d < 1U << (MRC_CREDIT_LANE_SHIFT - 1) ? 1 : -1;
}

/*
 * Entry @i took the request for @id; @fresh: it was free or idle before.
 * The message it replaces, if the newest of its lane, left unfinished
 * unless its last byte arrived: its lane is open for it once more.
 */
static void lane_take(int i, u64 id, bool fresh)
{
	u32 lane = (u32)id >> MRC_CREDIT_LANE_SHIFT;
	u64 old = rs[i].msg_id;
	u32 ol = (u32)old >> MRC_CREDIT_LANE_SHIFT;

	if (!fresh && (u32)(old >> 32) == rs[i].lane_epoch &&
	    rs[i].lane_seen[ol] &&
	    rs[i].lane_n[ol] == ((u32)old & SEQ_MASK) &&
	    rs[i].end_seen < rs[i].len)
		rs[i].lane_open[ol] = true;
	if (fresh || (u32)(id >> 32) != rs[i].lane_epoch) {
		memset(rs[i].lane_seen, 0, sizeof(rs[i].lane_seen));
		memset(rs[i].lane_open, 0, sizeof(rs[i].lane_open));
		rs[i].lane_epoch = (u32)(id >> 32);
	}
	rs[i].lane_seen[lane] = true;
	rs[i].lane_open[lane] = false;
	rs[i].lane_n[lane] = (u32)id & SEQ_MASK;
	rs[i].end_seen = 0;
}

static u64 make_id(u32 epoch, u32 lane, u32 n)
{
	return (u64)epoch << 32 | (u64)(lane & 3) << MRC_CREDIT_LANE_SHIFT |
	       (n & SEQ_MASK);
}

/* --- receiver: REQUEST ---------------------------------------------- */

enum {
	R_NEW, R_RESEND, R_MSGSIZE, R_INVAL, R_STALE, R_BUSY, R_NOSPC, R_NR
};

static const int req_rc[R_NR] = {
	[R_NEW] = 0, [R_RESEND] = MRC_CREDIT_REQ_RESEND,
	[R_MSGSIZE] = -EMSGSIZE, [R_INVAL] = -EINVAL, [R_STALE] = -ESTALE,
	[R_BUSY] = -EBUSY, [R_NOSPC] = -ENOSPC,
};

static u64 *req_counter(struct mrc_credit_rx_stats *st, int r)
{
	switch (r) {
	case R_NEW:
		return &st->req_new;
	case R_RESEND:
		return &st->req_dup;
	case R_MSGSIZE:
		return &st->req_oversize;
	case R_INVAL:
		return &st->req_bad;
	case R_STALE:
		return &st->req_stale;
	case R_BUSY:
		return &st->req_busy;
	default:
		return &st->req_full;
	}
}

/* What credit.h allows for a new msg_id of a key that has entry @i. */
static unsigned int allow_known(int i, u64 id)
{
	const struct mrc_credit_rx_entry *e = &rx->e[i];
	int ord = lane_order(i, id);

	if (ord < 0) {
		if (!idle(e))
			return 1U << R_STALE;
		/* "an entry quiet for longer takes any message" */
		if (now >= e->expiry + p.stale_ns)
			return 1U << R_NEW;
		return 1U << R_NEW | 1U << R_STALE;
	}
	if (ord > 0)
		return 1U << (waits(e) ? R_BUSY : R_NEW);
	return 1U << R_STALE | 1U << (waits(e) ? R_BUSY : R_NEW);
}

static bool free_or_idle(void)
{
	u32 i;

	for (i = 0; i < nent; i++)
		if (idle(&rx->e[i]))
			return true;
	return false;
}

/*
 * A REQUEST of @key for @id (@len bytes) that says the sender sends @un
 * bytes unscheduled, checked against the header's rules.  A RESEND with
 * @with_out fills *@resend (inc 0 otherwise).
 */
static int do_request(u32 key, u64 id, u32 len, u32 un, bool with_out,
		      struct grant *resend)
{
	struct mrc_credit_rx_stats st;
	struct mrc_credit_grant g;
	const struct mrc_credit_rx_entry *e;
	unsigned int allow;
	int i = find_idx(key), j, rc, r;

	resend->inc = 0;
	e = i >= 0 ? &rx->e[i] : NULL;
	if (len > p.max_msg)
		allow = 1U << R_MSGSIZE;
	else if (e && e->msg_id == id)
		allow = 1U << (len == e->requested ? R_RESEND : R_INVAL);
	else if (len <= p.unsched)
		allow = 1U << R_INVAL;
	else if (e)
		allow = allow_known(i, id);
	else
		allow = 1U << (free_or_idle() ? R_NEW : R_NOSPC);

	snap_rx();
	memset(&g, 0xa5, sizeof(g));
	rc = mrc_credit_rx_request_unsched(rx, &p, key, id, len, un, now,
					   with_out ? &g : NULL);
	for (r = 0; r < R_NR && req_rc[r] != rc; r++)
		;
	if (r == R_NR || !(allow & 1U << r)) {
		if (e)
			fprintf(stderr, "entry %d: %#llx len %u at %u outstanding %u\n",
				i, (unsigned long long)snap->e[i].msg_id,
				snap->e[i].requested, snap->e[i].granted,
				snap->e[i].outstanding);
		FAIL("request(%#x, %#llx, len %u): %d, allowed %#x", key,
		     (unsigned long long)id, len, rc, allow);
	}
	st = snap->stats;
	(*req_counter(&st, r))++;
	if (memcmp(&st, &rx->stats, sizeof(st)))
		FAIL("request %d: stats moved wrong", rc);

	if (rc < 0) {
		check_rx_unchanged("request", rc);
		return rc;
	}
	if (rc == MRC_CREDIT_REQ_RESEND) {
		ASSERT(rx->total_outstanding == snap->total_outstanding);
		ASSERT(rx->e[i].outstanding == snap->e[i].outstanding);
		if (!with_out)
			return rc;
		ASSERT(g.idx == (u32)i && g.key == key && g.msg_id == id);
		ASSERT(g.granted == rs[i].granted && g.seq == rs[i].seq);
		resend->msg_id = id;
		resend->msg_len = len;
		resend->granted = g.granted;
		resend->seq = g.seq;
		resend->inc = rs[i].inc;
		return rc;
	}

	/* 0: a new message scheduled in the key's entry, or a free/idle one */
	j = find_idx(key);
	ASSERT(j >= 0);
	if (i >= 0) {
		ASSERT(j == i);
		/* outstanding credit of the previous message carries over */
		ASSERT(rx->e[j].outstanding == snap->e[j].outstanding);
	} else {
		ASSERT(idle(&snap->e[j]));
		ASSERT(rx->e[j].outstanding == 0);
	}
	ASSERT(rx->e[j].msg_id == id && rx->e[j].requested == len);
	/* more than the window is not believed */
	un = min32(un, p.unsched);
	ASSERT(rx->e[j].granted == un && rx->e[j].unsched == un);
	ASSERT(rx->e[j].seq == 0);
	ASSERT(!rx->e[j].low);
	ASSERT(rx->total_outstanding == snap->total_outstanding);
	/* the other entries are untouched */
	memcpy(&snap->e[j], &rx->e[j], sizeof(rx->e[j]));
	take_index();
	check_rx_unchanged("request (others)", rc);
	lane_take(j, id, i < 0);
	rs[j].valid = true;
	rs[j].key = key;
	rs[j].msg_id = id;
	rs[j].len = len;
	rs[j].inc = ++inc_next;
	rs[j].seq = 0;
	rs[j].granted = un;
	rs[j].unsched = un;
	return rc;
}

static void do_forget(u32 key)
{
	int i = find_idx(key);

	snap_rx();
	mrc_credit_rx_forget(rx, key);
	ASSERT(find_idx(key) < 0);
	if (i >= 0) {
		ASSERT(rx->total_outstanding == snap->total_outstanding -
		       snap->e[i].outstanding);
		ASSERT(!rx->e[i].in_use);
		memcpy(&snap->e[i], &rx->e[i], sizeof(rx->e[i]));
		snap->total_outstanding = rx->total_outstanding;
		rs[i].valid = false;
	}
	ASSERT(!memcmp(&snap->stats, &rx->stats, sizeof(rx->stats)));
	take_index();
	check_rx_unchanged("forget (others)", 0);
}

static void do_set_low(u32 key, bool low)
{
	int i = find_idx(key);

	snap_rx();
	mrc_credit_rx_set_low(rx, key, low);
	if (i >= 0) {
		ASSERT(rx->e[i].low == low);
		snap->e[i].low = low;
	}
	ASSERT(!memcmp(&snap->stats, &rx->stats, sizeof(rx->stats)));
	check_rx_unchanged("set_low", 0);
}

/* --- receiver: DATA --------------------------------------------------- */

static void do_data(u32 key, u64 id, u32 msg_len, u32 off, u32 len)
{
	struct mrc_credit_rx_stats st;
	u64 end = (u64)off + len, part = 0, settled, loop_ns = 0;
	int i = find_idx(key), want = 1, rc;
	u32 loop_from = 0;
	/* the window the entry's REQUEST announced; others' the whole */
	u32 un = i >= 0 && rx->e[i].msg_id == id ? rs[i].unsched :
		 min32(p.unsched, msg_len);

	if (off < un)
		part = (end < un ? end : un) - off;
	if (i >= 0 && rx->e[i].msg_id == id)
		want = end > rx->e[i].granted ? -EPERM : 0;
	else if (i < 0)
		want = end > un ? -EPERM : 0;

	snap_rx();
	if (i >= 0 && rx->e[i].msg_id == id) {
		loop_ns = rx->e[i].loop_ns;
		loop_from = rx->e[i].loop_from;
	}
	rc = mrc_credit_rx_data(rx, &p, key, id, msg_len, off, len, now);
	if (rc != 0 && rc != -EPERM)
		FAIL("data: %d", rc);
	if (want != 1 && rc != want)
		FAIL("data(%#x, %#llx len %u, [%u +%u]): %d, not %d (at %u)",
		     key, (unsigned long long)id, msg_len, off, len, rc, want,
		     i >= 0 ? snap->e[i].granted : 0);
	st = snap->stats;
	if (rc)
		st.data_over_credit++;
	else
		st.unsched_bytes += part;
	if (memcmp(&st, &rx->stats, sizeof(st)))
		FAIL("data %d: stats moved wrong", rc);
	if (rc) {
		check_rx_unchanged("data", rc);
		return;
	}
	/* unscheduled bytes are charged to the budget */
	ASSERT(rx->tokens <= snap->tokens);
	ASSERT(rx->tokens >= snap->tokens - (s64)part);
	/* scheduled ones settle the key's outstanding credit */
	ASSERT(rx->total_outstanding <= snap->total_outstanding);
	settled = snap->total_outstanding - rx->total_outstanding;
	if (i >= 0) {
		u64 sched = len - part;

		ASSERT(settled == (sched < snap->e[i].outstanding ?
				   sched : snap->e[i].outstanding));
		ASSERT(rx->e[i].outstanding ==
		       snap->e[i].outstanding - settled);
		memcpy(&snap->e[i], &rx->e[i], sizeof(rx->e[i]));
	} else {
		ASSERT(!settled);
	}
	/* the entry's own message: how far its bytes came */
	if (i >= 0 && rs[i].valid && rs[i].msg_id == id && end > rs[i].end_seen)
		rs[i].end_seen = (u32)end;
	snap->tokens = rx->tokens;
	snap->total_outstanding = rx->total_outstanding;
	/* arrivals are counted; they clock the pacer */
	ASSERT(rx->since_pace == (u32)min_t(u64, (u64)snap->since_pace + len,
					    U32_MAX));
	ASSERT(rx->arrived == snap->arrived + len && rx->arrived_ns == now);
	snap->since_pace = rx->since_pace;
	snap->arrived = rx->arrived;
	snap->arrived_ns = rx->arrived_ns;
	/*
	 * The first byte of the key's timed grant's credit is a credit loop
	 * sample: one more in the current window (or a new one), no less
	 * than a ns, no more than the time since the grant.
	 */
	if (rx->loop_n[0] != snap->loop_n[0] ||
	    rx->loop_win_ns != snap->loop_win_ns) {
		ASSERT(loop_ns && end > loop_from && !rx->e[i].loop_ns);
		ASSERT(rx->loop_min_ns[0] >= 1 &&
		       rx->loop_min_ns[0] <= now - loop_ns);
		ASSERT(rx->loop_win_ns == snap->loop_win_ns ?
		       rx->loop_n[0] == snap->loop_n[0] + 1 :
		       rx->loop_n[0] == 1 && rx->loop_win_ns == now);
		memcpy(snap->loop_min_ns, rx->loop_min_ns,
		       sizeof(snap->loop_min_ns));
		memcpy(snap->loop_n, rx->loop_n, sizeof(snap->loop_n));
		snap->loop_win_ns = rx->loop_win_ns;
	}
	check_rx_unchanged("data (others)", 0);
}

/* --- receiver: pace ------------------------------------------------- */

static void chan_push(u32 s, const struct grant *g)
{
	struct sender *S = &snd[s];

	if (S->nchan == CHAN_MAX) {	/* the oldest is lost */
		memmove(&S->chan[0], &S->chan[1],
			(CHAN_MAX - 1) * sizeof(S->chan[0]));
		S->nchan--;
	}
	S->chan[S->nchan++] = *g;
}

static void do_pace(u64 elapsed, bool short_out)
{
	static bool seen[MAX_ENTRIES];
	u64 el, over, add_max, sum = 0, reclaimed = 0, capped, lost_min, extra;
	s64 left;
	u32 was_waiting, i, k;
	int n;

	if (short_out) {
		snap_rx();
		n = mrc_credit_rx_pace(rx, &p, now, elapsed, out, nent - 1);
		if (n != -EINVAL)
			FAIL("pace with nout %u < %u: %d", nent - 1, nent, n);
		ASSERT(!memcmp(snap, rx, rx_bytes));
		return;
	}
	was_waiting = mrc_credit_rx_waiting(rx);
	snap_rx();
	memset(out, 0xa5, nent * sizeof(*out));
	n = mrc_credit_rx_pace(rx, &p, now, elapsed, out, nent);
	if (n < 0 || (u32)n > nent)
		FAIL("pace: %d grants, table of %u", n, nent);
	ASSERT(rx->stats.paces == snap->stats.paces + 1);
	el = elapsed < MRC_CREDIT_MAX_ELAPSED_NS ? elapsed :
	     MRC_CREDIT_MAX_ELAPSED_NS;
	over = elapsed - el;
	/* what @el drains, plus one byte of carried remainder */
	add_max = p.rate * el / NS_PER_S + 1;

	/* reclaimed exactly from the entries past their expiry */
	for (i = 0; i < nent; i++) {
		const struct mrc_credit_rx_entry *e0 = &snap->e[i];
		u64 r = rx->e[i].reclaimed_bytes - e0->reclaimed_bytes;
		bool due = e0->in_use && e0->outstanding && now >= e0->expiry;

		if (r != (due ? e0->outstanding : 0))
			FAIL("entry %u: reclaimed %llu of %u, expiry %llu now %llu",
			     i, (unsigned long long)r, e0->outstanding,
			     (unsigned long long)e0->expiry,
			     (unsigned long long)now);
		reclaimed += r;
		seen[i] = false;
	}
	ASSERT(rx->stats.reclaimed_bytes - snap->stats.reclaimed_bytes ==
	       reclaimed);

	for (k = 0; k < (u32)n; k++) {
		const struct mrc_credit_grant *g = &out[k];
		const struct mrc_credit_rx_entry *e0, *e1;
		struct rshadow *s;
		struct grant cg;
		u32 inc;

		if (g->idx >= nent)
			FAIL("grant %u: idx %u of %u", k, g->idx, nent);
		if (seen[g->idx])
			FAIL("two grants for entry %u in one pace", g->idx);
		seen[g->idx] = true;
		s = &rs[g->idx];
		e0 = &snap->e[g->idx];
		e1 = &rx->e[g->idx];
		if (!s->valid || g->key != s->key || g->msg_id != s->msg_id)
			FAIL("grant for %#x %#llx never requested (%u: %d %#x %#llx)",
			     g->key, (unsigned long long)g->msg_id, g->idx,
			     s->valid, s->key, (unsigned long long)s->msg_id);
		if ((s32)(g->seq - s->seq) <= 0 || g->granted <= s->granted ||
		    g->granted > s->len)
			FAIL("entry %u: grant seq %u at %u after seq %u at %u, len %u",
			     g->idx, g->seq, g->granted, s->seq, s->granted,
			     s->len);
		inc = g->granted - s->granted;
		if (inc % p.grant_unit && g->granted != s->len)
			FAIL("grant of %u bytes: not %u-byte units, nor the tail (%u of %u)",
			     inc, p.grant_unit, g->granted, s->len);
		ASSERT(e1->in_use && e1->key == g->key);
		ASSERT(e1->granted == g->granted && e1->seq == g->seq);
		ASSERT(e1->outstanding == e0->outstanding -
		       (rx->e[g->idx].reclaimed_bytes - e0->reclaimed_bytes) +
		       inc);
		ASSERT(e1->granted_bytes == e0->granted_bytes + inc);
		ASSERT(e1->grants == e0->grants + 1);
		ASSERT(e1->expiry > now);	/* not reclaimed at once */
		sum += inc;
		s->seq = g->seq;
		s->granted = g->granted;
		if (g->key - KEY_SENDER(0) < NSENDERS) {
			cg.msg_id = g->msg_id;
			cg.msg_len = s->len;
			cg.granted = g->granted;
			cg.seq = g->seq;
			cg.inc = s->inc;
			chan_push(g->key - KEY_SENDER(0), &cg);
		}
	}
	for (i = 0; i < nent; i++) {
		if (seen[i])
			continue;
		ASSERT(rx->e[i].outstanding == snap->e[i].outstanding -
		       (rx->e[i].reclaimed_bytes - snap->e[i].reclaimed_bytes));
		ASSERT(rx->e[i].granted_bytes == snap->e[i].granted_bytes);
		ASSERT(rx->e[i].grants == snap->e[i].grants);
	}
	ASSERT(rx->stats.grants == snap->stats.grants + (u32)n);
	ASSERT(rx->stats.granted_bytes == snap->stats.granted_bytes + sum);
	ASSERT(rx->total_outstanding ==
	       snap->total_outstanding - reclaimed + sum);

	/* the budget: what was saved (capped at burst) plus the drain */
	if (sum > (u64)(snap->tokens > 0 ? snap->tokens : 0) + add_max ||
	    sum > p.burst + add_max)
		FAIL("pace granted %llu: budget %lld burst %u, %llu ns drain <= %llu",
		     (unsigned long long)sum,
		     (long long)snap->tokens, p.burst,
		     (unsigned long long)elapsed,
		     (unsigned long long)add_max);
	ASSERT(rx->tokens <= (s64)(p.burst + add_max));
	/*
	 * The room under the cap: max_outstanding, or with loop_mult what
	 * the credit loop sets (within two windows or four units and
	 * max_outstanding), beside the credit of stalled senders, which get
	 * no more.
	 */
	if (!p.loop_mult) {
		ASSERT(rx->out_cap == p.max_outstanding && !rx->out_stalled);
	} else {
		u64 fl = 2ULL * p.unsched > 4ULL * p.grant_unit ?
			 2ULL * p.unsched : 4ULL * p.grant_unit;

		ASSERT(rx->out_cap <= p.max_outstanding);
		ASSERT(rx->out_cap >= (fl < p.max_outstanding ?
				       fl : p.max_outstanding));
		ASSERT(rx->out_stalled <= snap->total_outstanding);
		for (i = 0; i < nent; i++)
			if (rx->e[i].stalled)
				ASSERT(rx->e[i].granted == snap->e[i].granted);
	}
	if (sum && rx->total_outstanding > rx->out_cap + rx->out_stalled)
		FAIL("pace granted %llu: outstanding %llu > cap %llu + stalled %llu",
		     (unsigned long long)sum,
		     (unsigned long long)rx->total_outstanding,
		     (unsigned long long)rx->out_cap,
		     (unsigned long long)rx->out_stalled);
	/* no whole unit of budget and room left while a sender waits */
	left = (s64)(rx->out_cap + rx->out_stalled) -
	       (s64)rx->total_outstanding;
	if (rx->tokens < left)
		left = rx->tokens;
	if (mrc_credit_rx_waiting(rx) && !rx->out_stalled &&
	    left >= (s64)p.grant_unit)
		FAIL("pace left %lld (unit %u) with %u senders waiting",
		     (long long)left, p.grant_unit, mrc_credit_rx_waiting(rx));
	/*
	 * capped_bytes: the budget lost while a sender waited (the drain
	 * of elapsed beyond 100 ms, what was saved beyond burst); at least
	 * the drain of 100 ms of it, since credit.c may cap what one pace
	 * counts.
	 */
	capped = rx->stats.capped_bytes - snap->stats.capped_bytes;
	if (!was_waiting) {
		ASSERT(!capped);
		return;
	}
	/* <= 1.25e11 * 1e8: no overflow */
	lost_min = p.rate * (over < el ? over : el) / NS_PER_S;
	extra = snap->tokens > (s64)p.burst ? snap->tokens - p.burst : 0;
	if (capped < lost_min ||
	    capped > (__uint128_t)p.rate * over / NS_PER_S + extra)
		FAIL("%llu ns late at %llu B/s, budget %lld: capped +%llu, lost >= %llu",
		     (unsigned long long)over, (unsigned long long)p.rate,
		     (long long)snap->tokens, (unsigned long long)capped,
		     (unsigned long long)lost_min);
}

/* --- sender ---------------------------------------------------------- */

static void check_tx(u32 s)
{
	const struct sender *S = &snd[s];
	const struct mrc_credit_tx *tx = &S->tx;

	if (tx->msg_id != S->msg_id || tx->msg_len != S->msg_len ||
	    tx->sent != S->sent || tx->granted != S->granted ||
	    tx->seq != S->seq || !!tx->active != S->active)
		FAIL("sender %u: %#llx %u %u %u %u %u, shadow %#llx %u %u %u %u %u",
		     s, (unsigned long long)tx->msg_id, tx->msg_len, tx->sent,
		     tx->granted, tx->seq, tx->active,
		     (unsigned long long)S->msg_id, S->msg_len, S->sent,
		     S->granted, S->seq, S->active);
	ASSERT(tx->sent <= tx->granted);
	ASSERT(tx->granted <= tx->msg_len);
	ASSERT(mrc_credit_tx_done(tx) == (!S->active || S->sent >= S->msg_len));
}

static void do_start(u32 s, u64 id, u32 len)
{
	struct sender *S = &snd[s];
	bool r, chained = false;

	if (S->asked) {		/* asked for credit: it becomes prev */
		/* ... still in the credit loop: the next one chains */
		chained = S->active && S->seq &&
			  now - S->grant_last < p.request_timeout_ns;
		S->prev_valid = true;
		S->prev_id = S->msg_id;
		S->prev_len = S->msg_len;
		S->prev_seq = S->seq;
		S->prev_granted = S->granted;
	}
	r = mrc_credit_tx_start(&S->tx, &p, id, len, now);
	if (r != (len > p.unsched))
		FAIL("start(len %u), unsched %u: %d", len, p.unsched, r);
	S->msg_id = id;
	S->msg_len = len;
	S->sent = 0;
	S->granted = chained && len > p.unsched ? 0 : min32(p.unsched, len);
	S->seq = 0;
	S->active = true;
	S->asked = r;
	S->req_last = now;
	S->taken_inc = 0;
	check_tx(s);
	ASSERT(S->tx.unsched_end == S->granted);
	if (S->prev_valid) {
		ASSERT(S->tx.prev_msg_id == S->prev_id);
		ASSERT(S->tx.prev_msg_len == S->prev_len);
		ASSERT(S->tx.prev_seq == S->prev_seq);
		ASSERT(S->tx.prev_granted == S->prev_granted);
	} else {
		ASSERT(S->tx.prev_msg_len == 0);
	}
}

static void data_push(u32 s, u32 off, u32 len)
{
	struct sender *S = &snd[s];
	struct chunk *c;

	if (S->ndata == DATA_MAX) {	/* the oldest is lost */
		memmove(&S->data[0], &S->data[1],
			(DATA_MAX - 1) * sizeof(S->data[0]));
		S->ndata--;
	}
	c = &S->data[S->ndata++];
	c->msg_id = S->msg_id;
	c->msg_len = S->msg_len;
	c->offset = off;
	c->len = len;
}

static void do_send(u32 s, u32 want)
{
	struct sender *S = &snd[s];
	u32 n, room = S->granted - S->sent, exp = 0;

	if (S->active && S->sent < S->msg_len)
		exp = min32(want, room);
	n = mrc_credit_tx_may_send(&S->tx, want, now);
	if (n != exp)
		FAIL("may_send(%u): %u, expected %u (sent %u granted %u)",
		     want, n, exp, S->sent, S->granted);
	check_tx(s);
	if (!n)
		return;
	ASSERT(mrc_credit_tx_sent(&S->tx, n) == 0);
	data_push(s, S->sent, n);
	S->sent += n;
}

static void do_sent_raw(u32 s, u32 len)
{
	struct sender *S = &snd[s];
	struct mrc_credit_tx before = S->tx;
	int want, rc;

	want = S->active && len <= S->granted - S->sent ? 0 : -EPERM;
	rc = mrc_credit_tx_sent(&S->tx, len);
	if (rc != want)
		FAIL("sent(%u): %d, expected %d (sent %u granted %u active %d)",
		     len, rc, want, S->sent, S->granted, S->active);
	if (rc) {
		ASSERT(!memcmp(&before, &S->tx, sizeof(before)));
		return;
	}
	data_push(s, S->sent, len);
	S->sent += len;
}

/* credit.h: a newer sequence grants more, an older one less. */
static bool fits(u32 seq, u32 granted, u32 ref_seq, u32 ref_granted)
{
	s32 d = (s32)(seq - ref_seq);

	if (!d)
		return granted == ref_granted;
	return d > 0 ? granted > ref_granted : granted < ref_granted;
}

enum { G_TAKEN, G_DUP, G_STALE, G_NOENT, G_RANGE, G_INVAL, G_NR };
#define G_BAD	(1U << G_NOENT | 1U << G_RANGE | 1U << G_INVAL)

static const int grant_rc[G_NR] = {
	[G_TAKEN] = 1, [G_DUP] = 0, [G_STALE] = -ESTALE,
	[G_NOENT] = -ENOENT, [G_RANGE] = -ERANGE, [G_INVAL] = -EINVAL,
};

/* What credit.h allows for @g at sender @S. */
static unsigned int grant_allow(const struct sender *S,
				const struct grant *g)
{
	bool cur = S->msg_len && g->msg_id == S->msg_id &&
		   g->msg_len == S->msg_len;
	s32 d = (s32)(g->seq - S->seq);

	if (!cur) {
		if (!S->prev_valid || g->msg_id != S->prev_id ||
		    g->msg_len != S->prev_len)
			return 1U << G_NOENT;
		if (g->granted <= g->msg_len &&
		    fits(g->seq, g->granted, S->prev_seq, S->prev_granted))
			return 1U << G_STALE;
		return G_BAD;
	}
	if (!S->asked)		/* no credit asked: never taken */
		return 1U << G_DUP | 1U << G_STALE | G_BAD;
	if (g->granted > S->msg_len)
		return 1U << G_RANGE;
	/* none taken yet: within the window, of an earlier schedule */
	if (!S->seq && g->seq && g->granted <= S->granted)
		return 1U << G_STALE;
	if (!fits(g->seq, g->granted, S->seq, S->granted))
		return 1U << G_INVAL;
	if (!d)
		return 1U << G_DUP;
	if (d < 0 || !S->active)
		return 1U << G_STALE;
	return 1U << G_TAKEN;
}

static void do_grant(u32 s, const struct grant *g)
{
	struct sender *S = &snd[s];
	struct mrc_credit_tx before = S->tx, *tx = &S->tx;
	unsigned int allow = grant_allow(S, g);
	bool cur = S->msg_len && g->msg_id == S->msg_id &&
		   g->msg_len == S->msg_len;
	bool in_order;
	int rc, r;

	/*
	 * real, for the active message, not older than what was taken (and
	 * past the window if none was: else of the schedule a resumed
	 * message had before)
	 */
	in_order = g->inc && cur && S->active && S->asked &&
		   (s32)(g->seq - S->seq) >= 0 &&
		   (S->taken_inc ? S->taken_inc == g->inc :
				   !S->seq && g->granted > S->granted);

	rc = mrc_credit_tx_grant(tx, &p, g->msg_id, g->msg_len, g->granted,
				 g->seq, now);
	for (r = 0; r < G_NR && grant_rc[r] != rc; r++)
		;
	if (r == G_NR || !(allow & 1U << r)) {
		fprintf(stderr, "sender %u: %#llx %u at %u seq %u active %d, prev %#llx %u %u %u\n",
			s, (unsigned long long)S->msg_id, S->msg_len,
			S->granted, S->seq, S->active,
			(unsigned long long)S->prev_id, S->prev_len,
			S->prev_seq, S->prev_granted);
		FAIL("grant(%#llx len %u, at %u seq %u%s): %d, allowed %#x",
		     (unsigned long long)g->msg_id, g->msg_len, g->granted,
		     g->seq, g->inc ? ", real" : "", rc, allow);
	}
	if (in_order && rc != 1 && rc != 0)
		FAIL("sender %u: real grant seq %u at %u, in order: %d", s,
		     g->seq, g->granted, rc);
	if (in_order && (rc == 1) != (g->seq != S->seq))
		FAIL("sender %u: real grant seq %u after seq %u: %d", s,
		     g->seq, S->seq, rc);
	if (cur && (s32)(g->seq - S->seq) > 0 && g->granted <= S->granted)
		ASSERT(rc != 1);

	/* exactly one counter moves, by one */
	before.grants += rc == 1;
	before.grants_dup += rc == 0;
	before.grants_stale += rc == -ESTALE;
	before.grants_bad += rc < 0 && rc != -ESTALE;
	if (tx->grants != before.grants ||
	    tx->grants_dup != before.grants_dup ||
	    tx->grants_stale != before.grants_stale ||
	    tx->grants_bad != before.grants_bad)
		FAIL("sender %u: grant %d moved the counters wrong", s, rc);

	if (rc <= 0) {	/* the credit is unchanged */
		ASSERT(tx->msg_id == before.msg_id);
		ASSERT(tx->msg_len == before.msg_len);
		ASSERT(tx->sent == before.sent);
		ASSERT(tx->granted == before.granted);
		ASSERT(tx->seq == before.seq);
		ASSERT(tx->unsched_end == before.unsched_end);
		ASSERT(tx->active == before.active);
		ASSERT(tx->prev_msg_id == before.prev_msg_id);
		ASSERT(tx->prev_msg_len == before.prev_msg_len);
		ASSERT(tx->prev_seq == before.prev_seq);
		ASSERT(tx->prev_granted == before.prev_granted);
		return;
	}
	ASSERT(g->granted > S->granted && g->granted <= S->msg_len);
	ASSERT(tx->granted == g->granted && tx->seq == g->seq);
	S->granted = g->granted;
	S->seq = g->seq;
	S->req_last = now;
	S->grant_last = now;
	S->taken_inc = g->inc ? g->inc : TAKEN_FORGED;
}

/* Delivers the grant at @k of the channel (removing it). */
static void deliver(u32 s, u32 k)
{
	struct sender *S = &snd[s];
	struct grant g = S->chan[k];

	memmove(&S->chan[k], &S->chan[k + 1],
		(S->nchan - k - 1) * sizeof(S->chan[0]));
	S->nchan--;
	do_grant(s, &g);
	if (S->nhist == HIST_MAX) {
		memmove(&S->hist[0], &S->hist[1],
			(HIST_MAX - 1) * sizeof(S->hist[0]));
		S->nhist--;
	}
	S->hist[S->nhist++] = g;
}

/* REQUEST for the sender's message (glued as credit_peer.c does). */
static void sender_request(u32 s, u64 id, u32 len, u32 un, u8 f)
{
	struct grant g;
	u32 key = KEY_SENDER(s);
	int rc;

	if (f & 0x08)		/* lost */
		return;
	/* it says what it sends unscheduled: its offset (credit_peer.c) */
	rc = do_request(key, id, len, un, !(f & 0x20), &g);
	if (rc == -EBUSY && !(f & 0x10)) {
		/* it gave the previous message up: the old entry goes */
		do_forget(key);
		rc = do_request(key, id, len, un, !(f & 0x20), &g);
	}
	if (rc == MRC_CREDIT_REQ_RESEND && g.inc && (g.seq || (f & 0x40)))
		chan_push(s, &g);
}

static u32 pick_len(u8 mode, u32 v)
{
	u64 span = p.max_msg - p.unsched, len;

	switch (mode) {
	case 0:			/* within the unscheduled window */
		return v % ((u64)p.unsched + 1);
	case 1:			/* just above it */
		len = (u64)p.unsched + 1 + v % 256;
		break;
	case 2:			/* anything */
		len = (u64)p.unsched + 1 + v % span;
		break;
	case 3:			/* oversized */
		return p.max_msg < U32_MAX - 256 ? p.max_msg + 1 + v % 256 :
		       U32_MAX;
	default:		/* a few units and a tail */
		len = (u64)p.unsched + (v % 16 + 1) * (u64)p.grant_unit +
		      (v >> 8) % p.grant_unit;
		break;
	}
	return len > p.max_msg ? p.max_msg : (u32)len;
}

static void op_start(struct input *in)
{
	u8 a = get8(in), f = get8(in);
	u32 v = get32(in), s = a & 3, lane = f & 3;
	struct sender *S = &snd[s];
	u64 id;
	u32 len;

	if ((f & 0x80) && S->gave_id) {
		/*
		 * A message given up (OP_RESET, as msg_ack.c busy() does)
		 * starts again with its own id when it may send new bytes,
		 * maybe after others of the sender took the entry.
		 */
		id = S->gave_id;
		len = S->gave_len;
		S->gave_id = 0;
	} else {
		if (f & 0x04)
			S->epoch++;
		id = make_id(S->epoch, lane, S->next[lane]++);
		len = pick_len((a >> 2) & 7, v);
	}
	do_start(s, id, len);
	if (!S->asked)
		return;
	mrc_credit_tx_requested(&S->tx, &p, now);
	S->req_last = now;
	sender_request(s, id, len, S->granted, f);
}

/* How long a starved sender waits before it asks again. */
static u64 rerequest(void)
{
	if (p.rerequest_ns && p.rerequest_ns < p.request_timeout_ns)
		return p.rerequest_ns;
	return p.request_timeout_ns;
}

static void op_rerequest(struct input *in)
{
	u8 a = get8(in);
	u32 s = a & 3;
	struct sender *S = &snd[s];
	bool due, exp;

	exp = S->active && S->sent < S->msg_len && S->sent >= S->granted &&
	      now >= S->req_last + rerequest();
	due = mrc_credit_tx_request_due(&S->tx, &p, now);
	if (due != exp)
		FAIL("sender %u: request_due %d (sent %u at %u of %u, %llu ns)",
		     s, due, S->sent, S->granted, S->msg_len,
		     (unsigned long long)(now - S->req_last));
	if (due)
		S->req_last = now;
	if (!due && !(a & 0x04))
		return;
	mrc_credit_tx_requested(&S->tx, &p, now);
	S->req_last = now;
	sender_request(s, S->msg_id, S->msg_len, S->granted, a);
}

/* Odd REQUESTs from a sender's key. */
static void op_request_odd(struct input *in)
{
	u8 a = get8(in);
	u32 v = get32(in), w = get32(in), s = a & 3, lane, n;
	struct sender *S = &snd[s];
	u64 id = S->msg_id;
	u32 len = S->msg_len;
	struct grant g;
	int rc;

	lane = (u32)id >> MRC_CREDIT_LANE_SHIFT;
	n = (u32)id & SEQ_MASK;
	switch ((a >> 2) & 7) {
	case 0:			/* repeated */
		break;
	case 1:			/* another length */
		len ^= v | 1;
		break;
	case 2:			/* an earlier id */
		id = make_id(S->epoch, lane, n - 1 - v % 8);
		break;
	case 3:			/* a later id */
		id = make_id(S->epoch, lane, n + 1 + v % 8);
		len = pick_len(w % 5, w >> 3);
		break;
	case 4:			/* another lane */
		id = make_id(S->epoch, lane + 1 + v % 3, n + (v >> 2) % 5);
		break;
	case 5:			/* the epoch before or after */
		id = make_id(S->epoch + (v & 1 ? 1 : -1), lane, v >> 1);
		break;
	case 6:			/* oversized */
		len = pick_len(3, v);
		break;
	default:
		id = (u64)v << 32 | w;
		len = get32(in);
		break;
	}
	/*
	 * The window the sender announces for its message (a replay), else
	 * the whole.  A forger that announces another window for a message
	 * makes the receiver grant from there, and its real grants look
	 * bad to the sender until they pass the sender's window: bounded
	 * (the window), and not what this oracle models.
	 */
	rc = do_request(KEY_SENDER(s), id, len,
			id == S->msg_id ? S->tx.unsched_end : p.unsched,
			!(a & 0x20), &g);
	if (rc == MRC_CREDIT_REQ_RESEND && g.inc && g.seq)
		chan_push(s, &g);
}

static void op_forged(struct input *in)
{
	u8 a = get8(in);
	u32 v = get32(in), w = get32(in), s = a & 3;
	struct sender *S = &snd[s];
	struct grant g = {
		.msg_id = S->msg_id, .msg_len = S->msg_len,
		.granted = S->granted, .seq = S->seq, .inc = 0,
	};

	switch ((a >> 2) & 7) {
	case 0:			/* newer seq, no more credit */
		g.seq += 1 + v % 4;
		g.granted -= w % (g.granted + 1);
		break;
	case 1:			/* newer seq, more (the next grant) */
		g.seq += 1 + v % 2;
		g.granted += 1 + w % 8192;
		break;
	case 2:			/* beyond the message */
		g.seq += v % 3;
		g.granted = S->msg_len + 1 + w % 4096;
		if (g.granted <= S->msg_len)
			g.granted = U32_MAX;
		break;
	case 3:			/* the same seq, another offset */
		g.granted += 1 + w % 16;
		if (v & 1)
			g.granted -= 2 + w % 16;
		break;
	case 4:			/* older seq, as much or more */
		g.seq -= 1 + v % 4;
		g.granted += w % 3;
		break;
	case 5:			/* the previous message's */
		g.msg_id = S->prev_id;
		g.msg_len = S->prev_len;
		g.seq = S->prev_seq + (s32)(v % 5) - 2;
		g.granted = S->prev_granted + (s32)(w % 9) - 4;
		break;
	case 6:			/* the message with another length */
		g.msg_len ^= 1U << (v % 32);
		g.seq += 1;
		g.granted = min32(g.granted + 1 + w % 64, g.msg_len);
		break;
	default:		/* anything */
		g.msg_id = (u64)v << 32 | w;
		g.msg_len = get32(in);
		g.granted = get32(in);
		g.seq = get32(in);
		break;
	}
	do_grant(s, &g);
}

static u32 key_of(struct input *in, u8 a)
{
	if (a & 0x80)
		return get32(in);
	if (a & 0x40)
		return KEY_GHOST((a & 0xf) % NGHOSTS);
	return KEY_SENDER(a & 3);
}

static void op_ghost_request(struct input *in)
{
	u8 a = get8(in);
	u32 v = get32(in), g = (a & 0xf) % NGHOSTS, n;
	struct grant r;
	u64 id;

	switch ((a >> 4) & 3) {
	case 0:			/* a new message */
		n = ++ghost_n[g];
		break;
	case 1:			/* the same again */
		n = ghost_n[g];
		break;
	case 2:			/* an earlier one */
		n = ghost_n[g] - 1 - v % 4;
		break;
	default:		/* any */
		n = v;
		break;
	}
	id = make_id(0x7000 + g, a >> 6, n);
	do_request(KEY_GHOST(g), id, pick_len(a >> 6 == 3 ? 2 : 4, v),
		   v & 1 ? p.unsched : 0, true, &r);
}

/* The next scheduled bytes of a ghost's message arrive. */
static void op_ghost_data(struct input *in)
{
	u8 a = get8(in);
	u32 w = get16(in), g = (a & 0xf) % NGHOSTS, len;
	int i = find_idx(KEY_GHOST(g));

	if (i < 0)
		return;
	if (ghost_msg[g] != rs[i].msg_id) {
		ghost_msg[g] = rs[i].msg_id;
		ghost_recv[g] = 0;
	}
	len = min32(w + 1, rs[i].granted - ghost_recv[g]);
	if (!len)
		return;
	do_data(KEY_GHOST(g), rs[i].msg_id, rs[i].len, ghost_recv[g], len);
	ghost_recv[g] += len;
}

/* DATA nobody sent in order: any key, message and offset. */
static void op_data_hostile(struct input *in)
{
	u8 a = get8(in);
	u32 v = get32(in), w = get16(in), key, msg_len, off;
	struct sender *S = &snd[(a >> 2) & 3];
	u64 id;
	int i;

	if (w & 0x8000)		/* a long one */
		w = get32(in);

	switch (a & 3) {
	case 0:			/* the sender's message */
		key = KEY_SENDER((a >> 2) & 3);
		id = S->msg_id;
		msg_len = S->msg_len;
		break;
	case 1:			/* the sender's previous message */
		key = KEY_SENDER((a >> 2) & 3);
		id = S->prev_id;
		msg_len = S->prev_len;
		break;
	case 2:			/* what a ghost's entry schedules */
		key = KEY_GHOST((a >> 2) % NGHOSTS);
		i = find_idx(key);
		id = i >= 0 ? rs[i].msg_id : 0;
		msg_len = i >= 0 ? rs[i].len : p.unsched;
		break;
	default:
		key = get32(in);
		id = get64(in);
		msg_len = get32(in);
		break;
	}
	off = v % ((u64)msg_len + 1);
	do_data(key, id, msg_len, off, min32(w, msg_len - off));
}

static void op_retune(struct input *in)
{
	u8 a = get8(in);
	u32 v = get32(in), unit;
	const char *why = NULL;

	switch (a & 3) {
	case 0:
		p.policy = p.policy == MRC_CREDIT_FAIR ? MRC_CREDIT_SRPT :
			   MRC_CREDIT_FAIR;
		break;
	case 1:
		switch (v & 3) {
		case 0:
			p.rate = 1 + (v >> 2);
			break;
		case 1:
			p.rate = MRC_CREDIT_DEF_RATE;
			break;
		case 2:
			p.rate = MRC_CREDIT_MAX_RATE;
			break;
		default:
			p.rate = 1 + (u64)(v >> 2) * 1000 % MRC_CREDIT_MAX_RATE;
			break;
		}
		break;
	case 2:
		unit = 1 + (v & 0xffff) % 8192;
		p.grant_unit = unit;
		p.burst = unit * (1 + (v >> 16) % 16);
		p.max_outstanding = unit * (1 + (v >> 20) % 64);
		break;
	default:
		p.grant_timeout_ns = 1 + v % MRC_CREDIT_TIMEOUT_MAX_NS;
		p.stale_ns = v >> 4;
		break;
	}
	if (mrc_credit_params_check(&p, &why))
		FAIL("retuned params refused: %s", why);
}

/* --- setup ----------------------------------------------------------- */

static void params_set(struct input *in, u8 set)
{
	u32 unit, v;

	mrc_credit_params_default(&p);
	switch (set) {
	case 0:
		break;
	case 1:			/* 10 bytes/us, 100-byte units */
		p.rate = 10000000;
		p.unsched = 1000;
		p.grant_unit = 100;
		p.burst = 400;
		p.max_outstanding = 1000;
		p.max_msg = 20000;
		p.grant_timeout_ns = 100000;
		p.request_timeout_ns = 100000;
		p.stale_ns = 1000000;
		break;
	case 2:			/* 1 byte/ns, 1-byte units, no window */
		p.rate = 1000000000;
		p.unsched = 0;
		p.grant_unit = 1;
		p.burst = 3;
		p.max_outstanding = 5;
		p.max_msg = 64;
		p.grant_timeout_ns = 1000;
		p.request_timeout_ns = 2000;
		p.stale_ns = 5000;
		break;
	default:		/* from the input */
		unit = 1 + get16(in);
		p.grant_unit = unit;
		p.burst = unit * (1 + get8(in) % 16);
		p.burst += get16(in) % unit;
		p.max_outstanding = unit * (1 + get8(in) % 64);
		p.max_outstanding += get16(in) % unit;
		/* up to 2 MiB; or 2 GiB, whose charges reach the debt cap */
		v = get32(in);
		p.unsched = v & 0x80000000 ? v & 0x7fffffff : v % (1U << 21);
		p.max_msg = p.unsched + 1 + get32(in) % (1U << 30);
		p.rate = 1 + get64(in) % MRC_CREDIT_MAX_RATE;
		p.grant_timeout_ns = 1 + get32(in) % MRC_CREDIT_TIMEOUT_MAX_NS;
		p.request_timeout_ns = 1 + get32(in) %
				       MRC_CREDIT_TIMEOUT_MAX_NS;
		p.stale_ns = get32(in);
		break;
	}
}

/* Each bound of mrc_credit_params_check() refuses, with a reason. */
static void check_params(void)
{
	struct mrc_credit_params q;
	const char *why = NULL;
	int i;

	mrc_credit_params_default(&q);
	ASSERT(mrc_credit_params_check(&q, &why) == 0);
	ASSERT(q.rate == MRC_CREDIT_DEF_RATE);
	ASSERT(q.burst == MRC_CREDIT_DEF_BURST);
	for (i = 0; i < 11; i++) {
		q = p;
		switch (i) {
		case 0:
			q.rate = 0;
			break;
		case 1:
			q.rate = MRC_CREDIT_MAX_RATE + 1;
			break;
		case 2:
			q.policy = MRC_CREDIT_POLICY_NR;
			break;
		case 3:
			q.grant_unit = 0;
			break;
		case 4:
			q.burst = q.grant_unit - 1;
			break;
		case 5:
			q.max_outstanding = q.grant_unit - 1;
			break;
		case 6:
			q.max_msg = 0;
			break;
		case 7:
			q.grant_timeout_ns = 0;
			break;
		case 8:
			q.loop_mult = MRC_CREDIT_LOOP_MULT_MAX + 1;
			break;
		case 9:
			q.rerequest_ns = MRC_CREDIT_TIMEOUT_MAX_NS + 1;
			break;
		default:
			q.request_timeout_ns = MRC_CREDIT_TIMEOUT_MAX_NS + 1;
			break;
		}
		why = NULL;
		if (mrc_credit_params_check(&q, &why) != -EINVAL || !why)
			FAIL("params bound %d not refused", i);
	}
	ASSERT(!strcmp(mrc_credit_policy_name(MRC_CREDIT_FAIR), "fair"));
	ASSERT(!strcmp(mrc_credit_policy_name(MRC_CREDIT_SRPT), "srpt"));
	ASSERT(!mrc_credit_policy_name(MRC_CREDIT_POLICY_NR));
	ASSERT(!mrc_credit_policy_name(UINT_MAX));
}

static void check_sizes(void)
{
	struct mrc_credit_rx dummy, copy;

	ASSERT(mrc_credit_rx_size(0) == 0);
	ASSERT(mrc_credit_rx_size(MRC_CREDIT_MAX_SENDERS + 1) == 0);
	ASSERT(mrc_credit_rx_size(U32_MAX) == 0);
	/* the entries, then a hash index of 2 x 4096 bucket heads */
	ASSERT(mrc_credit_rx_size(MRC_CREDIT_MAX_SENDERS) ==
	       sizeof(struct mrc_credit_rx) + MRC_CREDIT_MAX_SENDERS *
	       (sizeof(struct mrc_credit_rx_entry) + 2 * sizeof(u32)));
	/* refused sizes: nothing written */
	memset(&dummy, 0x5a, sizeof(dummy));
	memcpy(&copy, &dummy, sizeof(dummy));
	ASSERT(mrc_credit_rx_init(&dummy, 0, &p) == -EINVAL);
	ASSERT(mrc_credit_rx_init(&dummy, MRC_CREDIT_MAX_SENDERS + 1, &p) ==
	       -EINVAL);
	ASSERT(!memcmp(&dummy, &copy, sizeof(dummy)));
}

static void setup(struct input *in)
{
	u8 b = get8(in);
	const char *why = NULL;
	u32 s, i;

	nent = 1 + (b & 7);
	now = get32(in);
	params_set(in, (b >> 3) & 3);
	if (b & 0x20)
		p.policy = MRC_CREDIT_SRPT;
	if (b & 0x40)
		p.loop_mult = MRC_CREDIT_DEF_LOOP_MULT;
	if (b & 0x80)
		p.rerequest_ns = p.request_timeout_ns / 4 + 1;
	if (mrc_credit_params_check(&p, &why))
		FAIL("params refused: %s", why);
	check_params();
	check_sizes();

	rx_bytes = mrc_credit_rx_size(nent);
	/* the entries, then the hash index: a power of two >= 2 x nent */
	for (s = 2; s < 2 * nent; s <<= 1)
		;
	ASSERT(rx_bytes == sizeof(*rx) + nent * sizeof(rx->e[0]) +
	       s * sizeof(u32));
	rx = malloc(rx_bytes);
	snap = malloc(rx_bytes);
	out = malloc(nent * sizeof(*out));
	ASSERT(rx && snap && out);
	memset(rx, 0xa5, rx_bytes);		/* init must clear it */
	ASSERT(mrc_credit_rx_init(rx, nent, &p) == 0);
	ASSERT(rx->nentries == nent && rx->total_outstanding == 0);
	for (i = 0; i < nent; i++)
		ASSERT(!rx->e[i].in_use && !rx->e[i].outstanding);

	memset(rs, 0, sizeof(rs));
	inc_next = 0;
	memset(snd, 0, sizeof(snd));
	for (s = 0; s < NSENDERS; s++) {
		snd[s].epoch = 1 + s;
		/* odd senders' ids wrap within a few messages */
		for (i = 0; i < 4; i++)
			snd[s].next[i] = s & 1 ? SEQ_MASK - 3 : 0;
	}
	memset(ghost_n, 0, sizeof(ghost_n));
	memset(ghost_msg, 0, sizeof(ghost_msg));
	memset(ghost_recv, 0, sizeof(ghost_recv));
	last_pace = 0;
}

enum {
	OP_START, OP_SEND, OP_SENT_RAW, OP_DATA, OP_DATA_HOSTILE, OP_PACE,
	OP_PACE_ODD, OP_TICK, OP_GRANT, OP_GRANT_LOSE, OP_GRANT_SWAP,
	OP_GRANT_REPLAY, OP_GRANT_FORGED, OP_REREQUEST, OP_REQUEST_ODD,
	OP_GHOST_REQUEST, OP_FORGET, OP_SET_LOW, OP_RESET, OP_RETUNE,
	OP_GHOST_DATA,
};

/* Op byte bits 0-4; the common ops appear more than once. */
static const u8 op_of[32] = {
	OP_START, OP_SEND, OP_SENT_RAW, OP_DATA, OP_DATA_HOSTILE, OP_PACE,
	OP_PACE_ODD, OP_TICK, OP_GRANT, OP_GRANT_LOSE, OP_GRANT_SWAP,
	OP_GRANT_REPLAY, OP_GRANT_FORGED, OP_REREQUEST, OP_REQUEST_ODD,
	OP_GHOST_REQUEST, OP_FORGET, OP_SET_LOW, OP_RESET, OP_RETUNE,
	OP_GHOST_DATA, OP_PACE, OP_PACE, OP_GRANT, OP_GRANT, OP_SEND,
	OP_SEND, OP_DATA, OP_DATA, OP_TICK, OP_START, OP_REREQUEST,
};

static void pace_now(void)
{
	u64 elapsed = last_pace ? now - last_pace : 0;

	do_pace(elapsed, false);
	/* as credit_peer.c: idle, no budget saved up */
	last_pace = mrc_credit_rx_waiting(rx) || rx->total_outstanding ?
		    now : 0;
}

static void run_op(struct input *in, u8 op)
{
	static const u64 scale[4] = { 1, 1000, 1000000, 100000000 };
	struct sender *S;
	u8 a;

	now += (op >> 5) * 1000ULL;
	switch (op_of[op & 0x1f]) {
	case OP_START:
		op_start(in);
		break;
	case OP_SEND:
		a = get8(in);
		do_send(a & 3, a & 4 ? U32_MAX : get16(in));
		break;
	case OP_SENT_RAW: {
		u32 v;

		a = get8(in);
		v = get32(in);
		S = &snd[a & 3];
		do_sent_raw(a & 3, a & 4 ? v : S->granted - S->sent +
			    v % 4 - 1);
		break;
	}
	case OP_DATA: {
		struct chunk c;
		u32 k;

		a = get8(in);
		S = &snd[a & 3];
		if (!S->ndata)
			break;
		k = (a >> 3) % S->ndata;
		c = S->data[k];
		memmove(&S->data[k], &S->data[k + 1],
			(S->ndata - k - 1) * sizeof(S->data[0]));
		S->ndata--;
		if (!(a & 4))
			do_data(KEY_SENDER(a & 3), c.msg_id, c.msg_len,
				c.offset, c.len);
		break;
	}
	case OP_DATA_HOSTILE:
		op_data_hostile(in);
		break;
	case OP_PACE:
		pace_now();
		break;
	case OP_PACE_ODD:
		a = get8(in);
		switch (a & 3) {
		case 0:
			do_pace(0, false);
			break;
		case 1:
			do_pace(get64(in), false);
			break;
		case 2:
			do_pace(now - last_pace, true);
			break;
		default:
			do_pace(now - last_pace + get32(in), false);
			break;
		}
		break;
	case OP_TICK:
		a = get8(in);
		now += get16(in) * scale[a & 3];
		break;
	case OP_GRANT: {
		u32 lose;

		a = get8(in);
		S = &snd[a & 3];
		for (lose = (a >> 2) & 3; lose && S->nchan; lose--)
			memmove(&S->chan[0], &S->chan[1],
				--S->nchan * sizeof(S->chan[0]));
		if (S->nchan)
			deliver(a & 3, 0);
		break;
	}
	case OP_GRANT_LOSE:
		a = get8(in);
		S = &snd[a & 3];
		if (S->nchan)
			memmove(&S->chan[0], &S->chan[1],
				--S->nchan * sizeof(S->chan[0]));
		break;
	case OP_GRANT_SWAP:
		a = get8(in);
		S = &snd[a & 3];
		if (S->nchan >= 2) {
			deliver(a & 3, 1);
			deliver(a & 3, 0);
		}
		break;
	case OP_GRANT_REPLAY:
		a = get8(in);
		S = &snd[a & 3];
		if (S->nhist)
			do_grant(a & 3, &S->hist[(a >> 2) % S->nhist]);
		break;
	case OP_GRANT_FORGED:
		op_forged(in);
		break;
	case OP_REREQUEST:
		op_rerequest(in);
		break;
	case OP_REQUEST_ODD:
		op_request_odd(in);
		break;
	case OP_GHOST_REQUEST:
		op_ghost_request(in);
		break;
	case OP_FORGET:
		a = get8(in);
		do_forget(key_of(in, a));
		break;
	case OP_SET_LOW:
		a = get8(in);
		do_set_low(key_of(in, a), a & 0x20);
		break;
	case OP_RESET:	/* as credit_peer.c's mrc_credit_tx_reset() */
		a = get8(in);
		S = &snd[a & 3];
		if (S->active && S->asked) {
			S->gave_id = S->msg_id;
			S->gave_len = S->msg_len;
		}
		S->tx.starved = 0;
		S->tx.active = 0;
		S->active = false;
		break;
	case OP_RETUNE:
		op_retune(in);
		break;
	default:
		op_ghost_data(in);
		break;
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct input in = { data, size };
	unsigned int ops = 0;
	u32 s;

	setup(&in);
	check_rx();
	while (in.n && ops++ < MAX_OPS) {
		run_op(&in, get8(&in));
		check_rx();
		for (s = 0; s < NSENDERS; s++)
			check_tx(s);
	}
	free(rx);
	free(snap);
	free(out);
	return 0;
}
