// SPDX-License-Identifier: GPL-2.0
/*
 * msg_rx.c - the message engine's receiver: reassembly admission,
 * placement, SACK and NACK generation, ordering per lane, epochs,
 * delivery and expiry.  Kernel-agnostic (msg.h); the host serialises
 * every call of this file with its rx lock, except mrc_msg_rx_answer()
 * (tx lock) and the allocation functions (no lock).
 *
 * Design notes
 *
 * Admission.  DATA -> the message's context (found by msg_id in the
 * peer's lists, or made, if admit() lets it) -> payload copied at its
 * offset -> reasm.c bookkeeping.  Contexts are allocated without the
 * lock: the first call says need_ctx, the host allocates and calls again.
 * A packet refused a context is dropped as no_memory and answered as
 * busy (Back-pressure below): its sender waits and asks again, without
 * blaming a path.  Dropped silently, it went lost on its path (an RTO
 * that takes the path out of the spray set), and a receiver whose
 * delivery lags (a slow reader, host work that runs late) turned into a
 * storm of RTOs and retired paths for the peer's other traffic.  The
 * bounds, per peer and for the node, count every
 * context on the peer's lists, the deliver list included, so a slow
 * reader holds back its own peer's traffic and nobody else's:
 *  - a peer holds at most rx_msgs_per_peer contexts, and at most its fair
 *    share of rx_buffer_mb in message bytes: rx_buffer_mb divided by the
 *    number of peers holding any (itself included), as the credit grants
 *    share the drain rate; all peers together at most rx_buffer_mb;
 *  - the message that blocks its lane's delivery (seq == rx_next) gets
 *    some room beyond those, or held messages could wait for it forever:
 *    MRC_MSG_LANES more contexts, one MRC_MSG_MAX_BYTES message beyond
 *    the peer's share and, node-wide, one beyond rx_buffer_mb.  Whatever
 *    the number of peers, the node's reassembly memory stays below
 *    rx_buffer_mb + MRC_MSG_MAX_BYTES.
 * Every such message completes (its sender is alive and it is admitted)
 * or expires, and the deliver list drains without new arrivals, so the
 * room comes back: no deadlock.
 *
 * Refusal.  A message to a port with nothing bound (ops->port) is
 * refused at its first packet, before any memory is taken: the answer is
 * a SACK of the whole message flagged MRC_WF_REFUSED, and its sender
 * fails it with -ECONNREFUSED instead of reporting it delivered.  The
 * receiver remembers the refusal, so that the message's other packets get
 * the same answer, resends included (a refusal whose SACK was lost must
 * not be answered later as "delivered already", which any sequence
 * number behind delivery is), and so that its lane skips its sequence
 * number when delivery gets there.  It is a bit per sequence number in
 * two windows of each lane that slide with its delivery:
 *  - behind delivery (the message its lane waited for, or one delivery
 *    has passed since), the last MRC_MSG_REFUSED_BEHIND; a resend of a
 *    refused message arrives within an RTO of the lost answer, long
 *    before 64 more messages of its lane could have been delivered
 *    behind it, as its sender sends them after it;
 *  - ahead of delivery (a predecessor is missing: the paths reordered
 *    the lane's first packets), the next MRC_MSG_REFUSED_AHEAD, moved
 *    behind when delivery passes them.  Its sender keeps a lane's sends
 *    within 64 sequence numbers of its oldest queued message (msg_tx.c
 *    push_lane()), which delivery has not passed, so every refusal fits;
 *    one beyond the window (a sender that lost count, a forgery) waits:
 *    answered as busy (rx_refuse_waits), its sender takes its packets out
 *    of flight without blaming a path and asks again after a wait.
 * A reader that closes with hundreds of messages queued for it has them
 * all refused at the rate they arrive, none waiting for room.
 * The port is
 * asked once, when the message starts; an endpoint closed after that
 * loses what arrives for it (rx_no_endpoint), as a closed socket does.
 *
 * Back-pressure.  An endpoint that cannot take more now (a /dev/mrc
 * reader's queue at its bound) makes ops->port say -EBUSY: the packet is
 * dropped without memory taken, and the answer is a SACK of nothing
 * flagged MRC_WF_BUSY, as RC's receiver-not-ready NAK: its sender stops
 * sending the message, then probes it with one packet after a wait that
 * doubles up to rto_max_ms, without blaming a path, and counts the answer
 * as the receiver's progress (so it never times out while the reader is
 * merely slow).  So nothing is acknowledged that the endpoint could not
 * take, and a slow reader holds back only the messages to itself and,
 * through its lane's order, those behind them in the same lane (same
 * peer, class and port bucket: msg.h), held within the peer's bounds
 * until it reads.  But a lane's next message whose successors are
 * already held (admitted while the endpoint had room, or arrived
 * first) is taken even from a busy endpoint (rx_busy_heads): refused, it
 * would keep them, and the peer's contexts they hold, until its sender's
 * next try, up to rto_max_ms later, while the peer's other lanes found no
 * room.  The endpoint's queue passes its bound by one message more.
 *
 * Answers.  A SACK goes back on the arrival path after so many new
 * packets (sack_by_count()), for LAST/ACK_NOW/RETRANS packets, on
 * completion, for duplicates and for the packet that closes a hole
 * behind more packets than a SACK can show (hole_closed()); a NACK lists
 * the holes that outlived the reordering allowance.  They are built here
 * and sent by mrc_msg_rx_answer() under the tx lock, after the rx lock is
 * released.
 * A host that takes arrivals in batches (a CQ poll) sets
 * node->batch_done: then the SACKs of the messages a batch completes go
 * as one, at its end (mrc_msg_rx_flush()), the last completion's with the
 * sequence numbers of the others in its done list (MRC_WF_DONE_MORE, up
 * to MRC_WIRE_DONE_MAX), each of which the sender takes as a SACK of all
 * of that message.  With small messages each packet completes one, and
 * one SACK per message is one packet back per packet received, the
 * receiver's largest cost after the copy (a cumulative ack covers what
 * arrived together, as in TCP).  The SACKs that steer the sender within a
 * message (by count, ACK_NOW, RETRANS, a closed hole, a duplicate)
 * wait for the batch's end too, one per message: a
 * later one of the same message replaces it (its state only grows), and
 * the message's completion answers for it (sacks_merged counts both).  A
 * batch is a CQ poll of at most 16 completions, so nothing waits for more
 * than that; the echo is of the last packet that asked, the freshest RTT
 * sample.  At most MRC_MSG_STEP_HELD messages' SACKs wait: one more sends
 * the oldest.  Those of refusals, back-pressure and given-up epochs go at
 * once.  If every completion held came flagged MRC_WF_ACK_LAZY (nothing
 * at the sender waits for it), the batch's end holds it on, for the next
 * DATA of ours to that peer to carry (mrc_msg_rx_done_on_data(), version
 * 7): a reply then acknowledges its request, as RC's responses do, and a
 * request/response exchange sends no SACK.  The sender's timer sends it
 * MRC_MSG_ACK_HOLD_NS after the oldest arrived if no DATA went
 * (mrc_msg_rx_ack_timer()), and any other SACK to the peer takes it
 * along: that SACK acks packets sent after the held message's, which
 * would make its sender find the held one's lost.  For the same reason a
 * message of which a SACK already went that showed a hole (a later
 * packet arrived first, and its sender saw it acked) is acknowledged at
 * the batch's end, lazy or not.  The sender of a lazy message allows the
 * hold in its RTO.  Every SACK and such DATA says how
 * long its acknowledgment waited (ack_delay), which the sender takes out
 * of its RTT samples.
 *
 * Order.  Complete messages are delivered in sequence order per lane:
 * seq == rx_next[lane] goes to the deliver list (and pulls the held ones
 * of its lane that follow), others wait in the held list.  A packet of a
 * message with seq < rx_next[lane] is a late duplicate: acked as
 * complete, not delivered again.  The host pops the deliver list one
 * message at a time (mrc_msg_rx_pop()) and frees each after its recv().
 *
 * Expiry.  If nothing new arrives from a peer for twice peer_timeout_ms
 * while messages wait for their missing packets or predecessors, the
 * sender has given them up (it fails what it cannot send within one
 * peer_timeout_ms): mrc_msg_rx_expire() frees the incomplete ones
 * (rx_expired) and delivers the complete held ones, whose sender was told
 * they arrived; ordering resumes after the last of them.  "New" is a
 * packet with new bytes, or one refused for memory (the sender is alive,
 * we are the bottleneck); duplicates are not, so a peer that drips a
 * duplicate every few seconds does not keep its contexts alive.  So a peer
 * that
 * vanishes for good, or drips, leaves no reassembly memory behind.  But a sender
 * whose paths answer probes gives up only after MRC_MSG_STALL_MULT peer
 * timeouts without progress: if its DATA was black-holed for more than
 * two and then gets through again, a message the receiver gave up on (or
 * never saw) would count as "delivered already" and be acked whole.  So
 * the expired epoch is gone (rx_epoch_gone): its DATA is dropped without
 * an ack (rx_gone_pkts) and answered with an empty SACK flagged
 * MRC_WF_GONE (rx_gone_sacks), on which the sender fails the messages of
 * that epoch it sent anything of with -ETIMEDOUT (instead of reporting 0)
 * and moves to a newer epoch (msg_tx.c mrc_msg_tx_epoch_gone()).  Its own
 * stall timeout would do the same, but only once nothing progressed for
 * MRC_MSG_STALL_MULT peer timeouts: a sender that keeps queueing new
 * messages keeps progressing (each first transmission counts) and would
 * send into the given-up epoch for as long as it does.
 */
#include "config.h"
#include "msg.h"

/* A receiver NACKs holes older than max(2 * srtt, this), at most as often. */
#define MRC_MSG_NACK_MIN_NS	(20 * NSEC_PER_MSEC)

static void count(struct mrc_msg_peer *mp, unsigned int stat, u64 n)
{
	mp->node->ops->count(mp->node, stat, n);
}

static u64 idle_ns(struct mrc_msg_peer *mp)
{
	return 2 * mp->node->ops->knob(mp->node, MRC_KNOB_peer_timeout_ms) *
	       NSEC_PER_MSEC;
}

static void seq_reset(u32 *next)
{
	unsigned int lane;

	for (lane = 0; lane < MRC_MSG_LANES; lane++)
		next[lane] = lane << MRC_MSG_LANE_SHIFT;
}

/*
 * @rm joins the peer's lists (charge) or leaves them (uncharge): the
 * peer's context count and bytes, and the node's count of peers holding
 * any (the fair share's divisor).
 */
static void rx_charge(struct mrc_msg_peer *mp, struct mrc_msg_rx *rm)
{
	if (!mp->rx_mem)
		atomic64_add(1, &mp->node->rx_peers);
	mp->rx_mem += rm->r.msg_len;
	mp->nrx++;
}

static void rx_uncharge(struct mrc_msg_peer *mp, struct mrc_msg_rx *rm)
{
	if (WARN_ON_ONCE(!mp->nrx || mp->rx_mem < rm->r.msg_len))
		return;
	mp->nrx--;
	mp->rx_mem -= rm->r.msg_len;
	if (!mp->rx_mem)
		atomic64_sub(1, &mp->node->rx_peers);
}

/* A context: the struct, then its reassembly bitmap (8-byte aligned). */
#define RX_CTX_HDR	((sizeof(struct mrc_msg_rx) + 7) & ~(size_t)7)

static size_t ctx_bytes(u32 msg_len, u16 seg)
{
	return RX_CTX_HDR + mrc_reasm_storage_bytes(msg_len, seg);
}

static void *rx_mem(struct mrc_msg_node *node, size_t bytes)
{
	if (node->ops->rx_alloc)
		return node->ops->rx_alloc(node, bytes);
	return node->ops->alloc(node, bytes);
}

static void rx_mem_free(struct mrc_msg_node *node, void *p, size_t bytes)
{
	if (node->ops->rx_free)
		node->ops->rx_free(node, p, bytes);
	else
		node->ops->free(node, p);
}

/* A received message's payload buffer (ops->buf_alloc if the host has it). */
static void *rx_buf(struct mrc_msg_node *node, size_t bytes)
{
	if (node->ops->buf_alloc)
		return node->ops->buf_alloc(node, bytes, true);
	return rx_mem(node, bytes);
}

static void rx_buf_free(struct mrc_msg_node *node, void *p, size_t bytes)
{
	if (node->ops->buf_free)
		node->ops->buf_free(node, p, bytes, true);
	else
		rx_mem_free(node, p, bytes);
}

/**
 * mrc_msg_rx_alloc() - a reassembly context for a DATA packet's message
 * @node: the node
 * @pkt: the DATA packet, parsed by mrc_wire_parse() (valid geometry)
 *
 * No lock held (it may sleep).  Two pieces of receive memory
 * (ops->rx_alloc): the context with its reassembly bitmap, and the
 * message's buffer (ops->buf_alloc instead, if the host has it), which
 * is not cleared (every byte of it is written by a packet before the
 * message is complete).  The message's bytes are counted in
 * node->rx_bytes.
 *
 * Return: the context, or NULL if memory is short.
 */
struct mrc_msg_rx *mrc_msg_rx_alloc(struct mrc_msg_node *node,
				    const struct mrc_pkt *pkt)
{
	size_t cb = ctx_bytes(pkt->msg_len, pkt->seg);
	struct mrc_msg_rx *rm;

	if (!pkt->msg_len || pkt->msg_len > MRC_MSG_MAX_BYTES || !pkt->seg)
		return NULL;
	rm = rx_mem(node, cb);
	if (!rm)
		return NULL;
	memset(rm, 0, sizeof(*rm));
	rm->buf = rx_buf(node, pkt->msg_len);
	if (!rm->buf ||
	    mrc_reasm_init(&rm->r, pkt->msg_id, pkt->msg_len, pkt->seg,
			   (u8 *)rm + RX_CTX_HDR)) {
		if (rm->buf)
			rx_buf_free(node, rm->buf, pkt->msg_len);
		rx_mem_free(node, rm, cb);
		return NULL;
	}
	rm->msg_id = pkt->msg_id;
	rm->seq = (u32)pkt->msg_id;
	rm->src_node = pkt->src_node;
	rm->src_port = pkt->src_port;
	rm->dst_port = pkt->dst_port;
	atomic64_add(pkt->msg_len, &node->rx_bytes);
	return rm;
}

/**
 * mrc_msg_rx_free() - free a reassembly context
 * @node: the node
 * @rm: a context off every list
 *
 * May be called with the rx lock held (ops->rx_free does not sleep).
 */
void mrc_msg_rx_free(struct mrc_msg_node *node, struct mrc_msg_rx *rm)
{
	atomic64_sub(rm->r.msg_len, &node->rx_bytes);
	if (rm->buf)
		rx_buf_free(node, rm->buf, rm->r.msg_len);
	rx_mem_free(node, rm, ctx_bytes(rm->r.msg_len, rm->r.seg));
}

/**
 * mrc_msg_rx_take_buf() - take the buffer of a popped message
 * @rm: a context from mrc_msg_rx_pop(), off every list
 *
 * Hands a delivered message's bytes to their reader without a copy: the
 * caller owns the buffer from now on and frees it with
 * mrc_msg_rx_buf_free(); mrc_msg_rx_free() then frees only the context.
 * The buffer leaves node->rx_bytes when the context is freed, as it
 * would have: it is no longer reassembly memory, the reader's own bounds
 * count it.
 *
 * Return: the buffer, rm->r.msg_len bytes, or NULL if already taken.
 */
void *mrc_msg_rx_take_buf(struct mrc_msg_rx *rm)
{
	void *buf = rm->buf;

	rm->buf = NULL;
	return buf;
}

/**
 * mrc_msg_rx_buf_free() - free a buffer taken from a delivered message
 * @node: the node
 * @buf: from mrc_msg_rx_take_buf(), or NULL
 * @len: the message's length (rm->r.msg_len)
 */
void mrc_msg_rx_buf_free(struct mrc_msg_node *node, void *buf, u32 len)
{
	if (buf)
		rx_buf_free(node, buf, len);
}

/*
 * After a new packet of @rm: holes below the highest packet received that
 * are older than the NACK delay go into @holes (returns how many; 0 = no
 * NACK now).  The delay is twice the arrival path's srtt, at least
 * MRC_MSG_NACK_MIN_NS, so that packets merely overtaken on a faster path
 * are not NACKed; one NACK per delay per message.
 */
static unsigned int nack_due(struct mrc_msg_peer *mp, unsigned int pi,
			     struct mrc_msg_rx *rm, u64 now,
			     struct mrc_reasm_range *holes)
{
	u64 delay = MRC_MSG_NACK_MIN_NS;

	if (rm->r.hi <= rm->r.cum + 1 || rm->r.cum >= rm->r.npkts) {
		rm->hole_ns = 0;
		return 0;
	}
	if (!rm->hole_ns) {
		rm->hole_ns = now;
		return 0;
	}
	if (pi < MRC_MSG_NPATHS && mp->path[pi])
		delay = max_t(u64, delay,
			      2ULL * READ_ONCE(mp->path[pi]->rtt.srtt_ns));
	if (now - rm->hole_ns < delay || now - rm->nack_ns < delay)
		return 0;
	rm->nack_ns = now;
	return mrc_reasm_holes(&rm->r, holes, MRC_WIRE_NACK_MAX);
}

/*
 * Whether @rm has a packet missing behind more than MRC_MSG_SACK_EVERY_HOLE
 * later ones, for at least the srtt of @pi, the path the last came on.
 * A host that takes each rail's arrivals in batches of its own sees one
 * rail's packets a batch ahead of the other's: such a hole is younger
 * than a round trip, and fills with the other rail's next batch.
 */
static bool deep_hole(struct mrc_msg_peer *mp, const struct mrc_msg_rx *rm,
		      unsigned int pi, u64 now)
{
	const struct mrc_path *p = pi < MRC_MSG_NPATHS ? mp->path[pi] : NULL;

	if (rm->r.hi - rm->r.cum <= MRC_MSG_SACK_EVERY_HOLE || !rm->hole_ns)
		return false;
	return !p || now - rm->hole_ns >= READ_ONCE(p->rtt.srtt_ns);
}

/*
 * Whether @rm's new packets since its last SACK ask for one by their count
 * (Answers): MRC_MSG_SACK_EVERY of them, as RC's responder acks a long
 * message every so many packets; but MRC_MSG_SACK_EVERY_HOLE while a deep
 * hole is open (deep_hole()), since its sender finds a packet stuck in a
 * slow queue only from later packets acked (msg_ack.c, Stuck packets);
 * and none while the rest of the message is within half a count, whose
 * completion's SACK follows: a message of up to MRC_MSG_SACK_EVERY * 3 / 2
 * packets is answered once, as RC answers a message.
 */
static bool sack_by_count(struct mrc_msg_peer *mp, const struct mrc_msg_rx *rm,
			  unsigned int pi, u64 now)
{
	const struct mrc_reasm *r = &rm->r;

	if (deep_hole(mp, rm, pi, now))
		return rm->since_sack >= MRC_MSG_SACK_EVERY_HOLE;
	return rm->since_sack >= MRC_MSG_SACK_EVERY &&
	       r->npkts - r->nrecv > MRC_MSG_SACK_EVERY / 2;
}

/*
 * Whether the packet just marked in @r moved its cumulative point from
 * @cum while packets beyond what a SACK from @cum can show had arrived
 * (@hi: 1 + the highest index received before it).  A SACK describes
 * MRC_WIRE_SACK_BITS packets past its cumulative point; those beyond
 * stay unacknowledged at the sender while the hole at @cum is open, and
 * once they fill its window it sends nothing more.  So the packet that
 * closes the hole is answered at once, whatever MRC_MSG_SACK_EVERY says,
 * or the sender waits for an RTO with nothing lost (as TCP acks a segment
 * that fills a gap at once, RFC 5681).
 */
static bool hole_closed(const struct mrc_reasm *r, u32 cum, u32 hi)
{
	return r->cum != cum && hi > cum + 1 + MRC_WIRE_SACK_BITS;
}

/*
 * Whether new packet @pkt of @rm, which did not complete it, asks for a
 * SACK (Answers), counted by why (before batches merge them): because its
 * sender asked (ACK_NOW, RETRANS), because it closed a hole a SACK could
 * not show (@cum, @hi: @rm's before it), by count, or by the count behind
 * a deep hole.  A LAST packet asks only with ACK_NOW: its sender says it
 * on the last message of a burst, whose tail is lost unseen otherwise;
 * a message with more behind it is answered by its completion, and the
 * SACKs of the messages behind it show its losses to the sender.
 */
static bool sack_why(struct mrc_msg_peer *mp, const struct mrc_msg_rx *rm,
		     const struct mrc_pkt *pkt, unsigned int pi, u32 cum,
		     u32 hi, u64 now)
{
	if (pkt->flags & (MRC_WF_ACK_NOW | MRC_WF_RETRANS)) {
		count(mp, MRC_MS_SACKS_ASKED, 1);
		return true;
	}
	if (hole_closed(&rm->r, cum, hi)) {
		count(mp, MRC_MS_SACKS_HOLE_CLOSED, 1);
		return true;
	}
	if (sack_by_count(mp, rm, pi, now)) {
		count(mp, deep_hole(mp, rm, pi, now) ? MRC_MS_SACKS_BY_HOLE :
			  MRC_MS_SACKS_BY_COUNT, 1);
		return true;
	}
	return false;
}

/* A SACK saying "all of it" for a message of @pkt's geometry. */
static void full_sack(const struct mrc_pkt *pkt, struct mrc_reasm_sack *rs)
{
	memset(rs, 0, sizeof(*rs));
	rs->cum = mrc_wire_npkts(pkt->msg_len, pkt->seg);
}

/*
 * Refusals behind delivery: bit i of rx_refused_bm[lane] says that
 * sequence number rx_next[lane] - 1 - i was refused.
 */
static int refused_bit(const struct mrc_msg_peer *mp, u32 seq)
{
	BUILD_BUG_ON(MRC_MSG_REFUSED_BEHIND != 64);	/* a u64 per lane */
	unsigned int lane = mrc_msg_seq_lane(seq);
	s32 d = mrc_msg_seq_diff(mp->rx_next[lane], seq) - 1;

	return d >= 0 && d < MRC_MSG_REFUSED_BEHIND ? d : -1;
}

/*
 * Refusals ahead of delivery: bit i of rx_refused_ahead[lane] says that
 * sequence number rx_next[lane] + i was refused.
 */
static int ahead_bit(const struct mrc_msg_peer *mp, u32 seq)
{
	BUILD_BUG_ON(MRC_MSG_REFUSED_AHEAD != 64);	/* a u64 per lane */
	s32 d = mrc_msg_seq_diff(seq, mp->rx_next[mrc_msg_seq_lane(seq)]);

	return d >= 0 && d < MRC_MSG_REFUSED_AHEAD ? d : -1;
}

/*
 * Lane @lane's delivery moves on to @next, a sequence number after it:
 * both windows slide, and the refusals ahead that delivery passes become
 * refusals behind it.
 */
static void lane_set_next(struct mrc_msg_peer *mp, unsigned int lane,
			  u32 next)
{
	s32 k = mrc_msg_seq_diff(next, mp->rx_next[lane]);
	u64 passed, behind;
	u32 d;

	if (k <= 0)
		return;
	if (k >= MRC_MSG_REFUSED_AHEAD) {
		passed = mp->rx_refused_ahead[lane];
		mp->rx_refused_ahead[lane] = 0;
	} else {
		passed = mp->rx_refused_ahead[lane] & (BIT_ULL(k) - 1);
		mp->rx_refused_ahead[lane] >>= k;
	}
	behind = k >= MRC_MSG_REFUSED_BEHIND ? 0 :
		 mp->rx_refused_bm[lane] << k;
	/* Ahead bit j, sequence number rx_next + j, is k - 1 - j behind. */
	for (; passed; passed &= passed - 1) {
		d = (u32)k - 1 - (u32)__builtin_ctzll(passed);
		if (d < MRC_MSG_REFUSED_BEHIND)
			behind |= BIT_ULL(d);
	}
	mp->rx_refused_bm[lane] = behind;
	mp->rx_next[lane] = next;
}

/* Sequence number @seq, now behind its lane's delivery, was refused. */
static void refused_behind(struct mrc_msg_peer *mp, u32 seq)
{
	int d = refused_bit(mp, seq);

	if (d >= 0)
		mp->rx_refused_bm[mrc_msg_seq_lane(seq)] |= 1ULL << d;
}

/* Whether message @id (of the current epoch) was refused. */
static bool is_refused(const struct mrc_msg_peer *mp, u64 id)
{
	u32 seq = (u32)id;
	unsigned int lane = mrc_msg_seq_lane(seq);
	int d = refused_bit(mp, seq);

	if (d >= 0)
		return mp->rx_refused_bm[lane] & (1ULL << d);
	d = ahead_bit(mp, seq);
	return d >= 0 && (mp->rx_refused_ahead[lane] & (1ULL << d));
}

/*
 * Remembers message @id, ahead of its lane's delivery, as refused.
 * Returns false if it is beyond the window (its sender keeps a lane's
 * sends within it: a forgery, or a sender that lost count).
 */
static bool refuse_ahead(struct mrc_msg_peer *mp, u64 id)
{
	u32 seq = (u32)id;
	int d = ahead_bit(mp, seq);

	if (d < 0)
		return false;
	mp->rx_refused_ahead[mrc_msg_seq_lane(seq)] |= 1ULL << d;
	return true;
}

/*
 * Lane @lane's delivery moves on from rx_next: the held messages that
 * follow go to the deliver list, refused ones are skipped.
 */
static void lane_advance(struct mrc_msg_peer *mp, unsigned int lane)
{
	struct mrc_msg_rx *h;
	bool moved;

	do {
		u32 next = mp->rx_next[lane];

		moved = false;
		if (mp->rx_refused_ahead[lane] & 1) {	/* next was refused */
			lane_set_next(mp, lane, mrc_msg_seq_inc(next));
			moved = true;
			continue;
		}
		/* Held is sorted by seq within a lane: its first one. */
		list_for_each_entry(h, &mp->held, node) {
			if (mrc_msg_seq_lane(h->seq) != lane)
				continue;
			if (h->seq == next) {
				list_move_tail(&h->node, &mp->deliver);
				lane_set_next(mp, lane, mrc_msg_seq_inc(next));
				moved = true;
			}
			break;
		}
	} while (moved);
}

/* Complete message @rm leaves rxq: to deliver (in order) or held. */
static void completed(struct mrc_msg_peer *mp, struct mrc_msg_rx *rm,
		      u64 now)
{
	unsigned int lane = mrc_msg_seq_lane(rm->seq);
	struct mrc_msg_rx *h;

	if (mrc_msg_lane_class(lane) == MRC_SCHED_CLASS_LATENCY) /* yield */
		WRITE_ONCE(mp->node->lat_ns, now);
	if (rm->seq != mp->rx_next[lane]) {
		/* Held, sorted by seq within its lane (wrap-safe). */
		list_for_each_entry(h, &mp->held, node)
			if (mrc_msg_seq_lane(h->seq) == lane &&
			    mrc_msg_seq_diff(h->seq, rm->seq) > 0)
				break;
		list_move_tail(&rm->node, &h->node);
		count(mp, MRC_MS_RX_HELD, 1);
		return;
	}
	list_move_tail(&rm->node, &mp->deliver);
	lane_set_next(mp, lane, mrc_msg_seq_inc(rm->seq));
	lane_advance(mp, lane);
}

/* A newer epoch: deliver what is whole, forget the rest. */
static void new_epoch(struct mrc_msg_peer *mp, u32 epoch)
{
	struct mrc_msg_rx *rm, *tmp;

	list_splice_tail_init(&mp->held, &mp->deliver);
	list_for_each_entry_safe(rm, tmp, &mp->rxq, node) {
		list_del(&rm->node);
		rx_uncharge(mp, rm);
		count(mp, MRC_MS_RX_DISCARDED, 1);
		mrc_msg_rx_free(mp->node, rm);
	}
	mp->rx_epoch = epoch;
	mp->rx_epoch_valid = true;
	mp->rx_epoch_gone = false;
	memset(mp->rx_refused_bm, 0, sizeof(mp->rx_refused_bm));
	memset(mp->rx_refused_ahead, 0, sizeof(mp->rx_refused_ahead));
	seq_reset(mp->rx_next);
	if (!list_empty(&mp->deliver))
		mp->node->ops->deliver(mp);
}

static struct mrc_msg_rx *rx_find(struct mrc_msg_peer *mp, u64 id,
				  bool *complete)
{
	struct mrc_msg_rx *rm;

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

/*
 * Whether a new context for @pkt fits the bounds (Admission above);
 * @head: it is the message its lane's delivery waits for; @counted: its
 * buffer is allocated already, in node->rx_bytes.
 */
static bool admit(struct mrc_msg_peer *mp, const struct mrc_pkt *pkt,
		  bool head, bool counted)
{
	const struct mrc_msg_ops *ops = mp->node->ops;
	u64 limit = ops->knob(mp->node, MRC_KNOB_rx_buffer_mb) << 20;
	u64 max_msgs = ops->knob(mp->node, MRC_KNOB_rx_msgs_per_peer);
	u64 node = (u64)atomic64_read(&mp->node->rx_bytes);
	s64 peers = atomic64_read(&mp->node->rx_peers);
	u64 extra = head ? MRC_MSG_MAX_BYTES : 0;
	u64 share;

	if (counted)
		node -= min_t(u64, node, pkt->msg_len);
	/* The fair share's divisor counts this peer, busy or not yet. */
	if (!mp->rx_mem)
		peers++;
	peers = clamp_t(s64, peers, 1, U32_MAX);
	share = div_u64(limit, (u32)peers);
	if (head)
		max_msgs += MRC_MSG_LANES;
	return mp->nrx < max_msgs &&
	       mp->rx_mem + pkt->msg_len <= share + extra &&
	       node + pkt->msg_len <= limit + extra;
}

/* Whether a message of @lane is held (complete, its predecessors not). */
static bool lane_held(const struct mrc_msg_peer *mp, unsigned int lane)
{
	const struct mrc_msg_rx *rm;

	list_for_each_entry(rm, &mp->held, node)
		if (mrc_msg_id_lane(rm->msg_id) == lane)
			return true;
	return false;
}

/*
 * A packet of a message without a context: whether its port takes it
 * (Refusal, Back-pressure).  -ECONNREFUSED: answered as refused (@out);
 * -EBUSY: answered as busy, to be dropped (the endpoint is full, or no
 * slot is free to remember a refusal: the sender asks again later); 0:
 * go on.
 */
static int rx_port(struct mrc_msg_peer *mp, const struct mrc_pkt *pkt,
		   u64 now, struct mrc_msg_rx_out *out)
{
	const struct mrc_msg_ops *ops = mp->node->ops;
	u32 seq = (u32)pkt->msg_id;
	unsigned int lane = mrc_msg_seq_lane(seq);

	if (!is_refused(mp, pkt->msg_id)) {
		int err = ops->port ? ops->port(mp->node, pkt->dst_port,
						pkt->msg_len) : 0;

		if (!err)
			return 0;
		if (err == -EBUSY && seq == mp->rx_next[lane] &&
		    lane_held(mp, lane)) {
			/* Back-pressure: its successors wait for it */
			count(mp, MRC_MS_RX_BUSY_HEADS, 1);
			return 0;
		}
		if (err != -EBUSY && seq != mp->rx_next[lane] &&
		    !refuse_ahead(mp, pkt->msg_id)) {
			count(mp, MRC_MS_RX_REFUSE_WAITS, 1);
			err = -EBUSY;
		}
		if (err == -EBUSY) {	/* Back-pressure */
			count(mp, MRC_MS_RX_BUSY, 1);
			mp->rx_last_ns = now;
			memset(&out->rs, 0, sizeof(out->rs));
			out->sack = true;
			out->busy = true;
			return -EBUSY;
		}
		count(mp, MRC_MS_RX_REFUSED, 1);
		mp->rx_last_ns = now;
		if (seq == mp->rx_next[lane]) {
			lane_set_next(mp, lane, mrc_msg_seq_inc(seq));
			refused_behind(mp, seq);
			lane_advance(mp, lane);
			if (!list_empty(&mp->deliver))
				mp->node->ops->deliver(mp);
		}
	}
	full_sack(pkt, &out->rs);
	out->sack = true;
	out->refused = true;
	return -ECONNREFUSED;
}

/**
 * mrc_msg_rx_packet() - a DATA packet arrived
 * @mp: the peer's engine
 * @pi: the path it came on
 * @pkt: the packet, parsed by mrc_wire_parse()
 * @now: the caller's clock, ns
 * @out: in: out->fresh, a context for it or NULL; out: what to do next
 *
 * If out->need_ctx, the host releases the rx lock, allocates out->fresh
 * with mrc_msg_rx_alloc() and calls again; afterwards it frees
 * out->fresh if it is still set, and calls mrc_msg_rx_answer() if
 * out->sack or out->nholes.
 *
 * Return: the drop reason, MRC_DROP_NONE if the packet was used.
 */
enum mrc_drop_reason mrc_msg_rx_packet(struct mrc_msg_peer *mp,
				       unsigned int pi,
				       const struct mrc_pkt *pkt, u64 now,
				       struct mrc_msg_rx_out *out)
{
	u32 epoch = pkt->msg_id >> 32, seq = (u32)pkt->msg_id, cum, hi;
	unsigned int lane = mrc_msg_seq_lane(seq);
	struct mrc_msg_rx *rm;
	bool complete;

	out->need_ctx = false;
	out->sack = false;
	out->new_bytes = false;
	out->refused = false;
	out->busy = false;
	out->gone = false;
	out->done = false;
	out->hole_sacked = false;
	out->nholes = 0;
	if (mp->rx_dead)
		return MRC_DROP_UNKNOWN_PEER;
	if (!mp->rx_epoch_valid || (s32)(epoch - mp->rx_epoch) > 0)
		new_epoch(mp, epoch);
	if (epoch != mp->rx_epoch)
		return MRC_DROP_DUPLICATE;	/* given up by its sender */
	if (mp->rx_epoch_gone) {	/* given up by us (see Expiry) */
		count(mp, MRC_MS_RX_GONE_PKTS, 1);
		memset(&out->rs, 0, sizeof(out->rs));
		out->sack = true;
		out->gone = true;
		return MRC_DROP_DUPLICATE;
	}
	if (mrc_msg_seq_diff(seq, mp->rx_next[lane]) < 0) {
		/* Delivered already: ack it whole, do not deliver again. */
		full_sack(pkt, &out->rs);
		out->sack = true;
		out->refused = is_refused(mp, pkt->msg_id);
		return MRC_DROP_DUPLICATE;
	}
	rm = rx_find(mp, pkt->msg_id, &complete);
	if (rm && complete) {
		full_sack(pkt, &out->rs);
		out->sack = true;
		return MRC_DROP_DUPLICATE;
	}
	if (!rm && out->fresh) {
		if (out->fresh->msg_id != pkt->msg_id ||
		    out->fresh->r.msg_len != pkt->msg_len ||
		    out->fresh->r.seg != pkt->seg)
			return MRC_DROP_BAD_FIELD;	/* host bug */
		/* Checked again: others may have taken memory meanwhile. */
		if (!admit(mp, pkt, seq == mp->rx_next[lane], true))
			goto no_memory;
		rm = out->fresh;
		out->fresh = NULL;
		list_add_tail(&rm->node, &mp->rxq);
		rx_charge(mp, rm);
		mp->node->ops->expire_arm(mp, idle_ns(mp));
	}
	if (!rm) {
		switch (rx_port(mp, pkt, now, out)) {
		case -ECONNREFUSED:
			return MRC_DROP_NONE;
		case -EBUSY:
			return MRC_DROP_NO_MEMORY;
		}
		if (!admit(mp, pkt, seq == mp->rx_next[lane], false))
			goto no_memory;
		out->need_ctx = true;
		return MRC_DROP_NONE;
	}
	if (rm->src_port != pkt->src_port || rm->dst_port != pkt->dst_port)
		return MRC_DROP_BAD_FIELD;
	cum = rm->r.cum;
	hi = rm->r.hi;
	switch (mrc_reasm_mark(&rm->r, pkt->msg_len, pkt->seg, pkt->offset,
			       pkt->len)) {
	case MRC_REASM_NEW:
		memcpy((u8 *)rm->buf + pkt->offset, pkt->body, pkt->len);
		mp->rx_last_ns = now;
		out->nholes = nack_due(mp, pi, rm, now, out->holes);
		out->new_bytes = true;
		rm->since_sack++;
		out->sack = sack_why(mp, rm, pkt, pi, cum, hi, now);
		break;
	case MRC_REASM_COMPLETE:
		memcpy((u8 *)rm->buf + pkt->offset, pkt->body, pkt->len);
		mp->rx_last_ns = now;
		out->new_bytes = true;
		out->sack = true;
		out->done = true;
		out->hole_sacked = rm->hole_sacked;
		/* the SACK is taken before rm may be popped and freed */
		rm->since_sack = 0;
		mrc_reasm_sack(&rm->r, &out->rs);
		completed(mp, rm, now);
		if (!list_empty(&mp->deliver))
			mp->node->ops->deliver(mp);
		return MRC_DROP_NONE;
	case MRC_REASM_DUPLICATE:
		out->sack = true;
		mrc_reasm_sack(&rm->r, &out->rs);
		rm->since_sack = 0;
		return MRC_DROP_DUPLICATE;
	default:
		return MRC_DROP_BAD_FIELD;
	}
	if (out->sack) {
		rm->since_sack = 0;
		mrc_reasm_sack(&rm->r, &out->rs);
		/* packets acked beyond one missing (Answers) */
		if (rm->r.cum < rm->r.hi)
			rm->hole_sacked = true;
	}
	return MRC_DROP_NONE;
no_memory:
	/* The sender is alive and will retry: that is news (Expiry). */
	mp->rx_last_ns = now;
	count(mp, MRC_MS_RX_NO_MEM, 1);
	/* Back-pressure (Admission): it waits, no path is to blame. */
	memset(&out->rs, 0, sizeof(out->rs));
	out->sack = true;
	out->busy = true;
	return MRC_DROP_NO_MEMORY;
}

/* The wait of an answer to a packet that arrived at @arrived, us. */
static u16 ack_delay_us(u64 arrived, u64 now)
{
	return min_t(u64, (now - arrived) / NSEC_PER_USEC, U16_MAX);
}

/* The header of an answer of @type to DATA packet @data (its header). */
static void answer_hdr(struct mrc_pkt *pkt, const struct mrc_pkt *data,
		       u8 type, u8 *body, u64 now)
{
	memset(pkt, 0, sizeof(*pkt));
	pkt->version = MRC_WIRE_VERSION;
	pkt->type = type;
	pkt->src_port = data->dst_port;
	pkt->dst_port = data->src_port;
	pkt->msg_id = data->msg_id;
	pkt->entropy = data->entropy;
	pkt->tstamp = now;
	pkt->body = body;
}

/*
 * Sends a SACK of @rs in answer to DATA packet @data (its header) on path
 * @pi, with @flags and the done list @seq of @n entries; @data arrived at
 * @arrived (its ack delay, which the sender takes out of its RTT samples).
 */
static void send_sack(struct mrc_msg_peer *mp, unsigned int pi,
		      const struct mrc_pkt *data,
		      const struct mrc_reasm_sack *rs, u16 flags,
		      const u32 *seq, unsigned int n, u64 arrived, u64 now)
{
	u8 body[sizeof(struct mrc_wire_sack) +
		MRC_WIRE_DONE_MAX * sizeof(__be32)];
	struct mrc_pkt_sack sack = {
		.cum = rs->cum,
		.nbits = rs->nbits,
		.echo_entropy = data->entropy,
		.echo_path_seq = data->path_seq,
		.echo_tstamp = data->tstamp,
	};
	struct mrc_pkt pkt;
	int err;

	answer_hdr(&pkt, data, MRC_PKT_SACK, body, now);
	pkt.flags = flags;
	pkt.ack_delay_us = ack_delay_us(arrived, now);
	memcpy(sack.bitmap, rs->bitmap, sizeof(sack.bitmap));
	pkt.len = mrc_wire_put_sack(body, &sack);
	if (n) {
		pkt.flags |= MRC_WF_DONE_MORE;
		pkt.len += mrc_wire_put_done(body + pkt.len, seq, n);
	}
	pkt.path_seq = mrc_path_next_seq(mp->path[pi]);
	err = mp->node->ops->send(mp, pi, &pkt, NULL);
	count(mp, err ? MRC_MS_CTL_TX_ERRORS : MRC_MS_SACKS_TX, 1);
	if (!err)
		count(mp, MRC_MS_DONE_BATCHED, n);
}

/* Sends a NACK of @out's holes in answer to DATA packet @data on path @pi. */
static void send_nack(struct mrc_msg_peer *mp, unsigned int pi,
		      const struct mrc_pkt *data,
		      const struct mrc_msg_rx_out *out, u64 now)
{
	u8 body[MRC_WIRE_NACK_MAX * sizeof(struct mrc_wire_nack_range)];
	struct mrc_pkt_nack_range r[MRC_WIRE_NACK_MAX];
	unsigned int i, n = min_t(unsigned int, out->nholes,
				  MRC_WIRE_NACK_MAX);
	struct mrc_pkt pkt;
	int err;

	for (i = 0; i < n; i++) {
		r[i].first = out->holes[i].first;
		r[i].count = out->holes[i].count;
	}
	answer_hdr(&pkt, data, MRC_PKT_NACK, body, now);
	pkt.len = mrc_wire_put_nack(body, r, n);
	pkt.path_seq = mrc_path_next_seq(mp->path[pi]);
	err = mp->node->ops->send(mp, pi, &pkt, NULL);
	count(mp, err ? MRC_MS_CTL_TX_ERRORS : MRC_MS_NACKS_TX, 1);
}

/*
 * Whether nothing waits for the end of the current batch of arrivals:
 * the host must then be told to call mrc_msg_rx_flush() at its end.  An
 * acknowledgment held for a DATA of ours waits for the timer instead.
 */
static bool batch_idle(const struct mrc_msg_peer *mp)
{
	return !mp->step_ack.n && (!mp->done_ack.valid || mp->done_ack.held);
}

/* Sends the completion SACK held in mp->done_ack, with its done list. */
static void send_done(struct mrc_msg_peer *mp, u64 now)
{
	struct mrc_reasm_sack rs;
	unsigned int pi = mp->done_ack.pi;
	bool held = mp->done_ack.held;

	mp->done_ack.valid = false;
	mp->done_ack.held = false;
	if (held)	/* the hold's deadline may be the timer's */
		mrc_msg_timer_settle(mp, now);
	if (pi >= MRC_MSG_NPATHS || !mp->path[pi]) {
		count(mp, MRC_MS_CTL_TX_ERRORS, 1);
	} else {
		memset(&rs, 0, sizeof(rs));
		rs.cum = mp->done_ack.npkts;
		send_sack(mp, pi, &mp->done_ack.last, &rs, 0,
			  mp->done_ack.seq, mp->done_ack.n,
			  mp->done_ack.last_ns, now);
	}
	mp->done_ack.n = 0;
}

/*
 * Holds back the SACK of a message @data completed, for
 * mrc_msg_rx_flush() (Answers): the last completion's answer goes with
 * the sequence numbers of the others held.  One of another epoch, or a
 * full list, sends what is held first.  Returns true if nothing waited
 * for the batch's end before.
 */
static bool hold_done(struct mrc_msg_peer *mp, unsigned int pi,
		      const struct mrc_pkt *data, u32 npkts, bool hole_sacked,
		      u64 now)
{
	bool first = batch_idle(mp);
	bool lazy = (data->flags & MRC_WF_ACK_LAZY) && !hole_sacked;

	if (mp->done_ack.valid) {
		if ((mp->done_ack.last.msg_id >> 32) != (data->msg_id >> 32) ||
		    mp->done_ack.n == MRC_WIRE_DONE_MAX)
			send_done(mp, now);
		else
			mp->done_ack.seq[mp->done_ack.n++] =
				(u32)mp->done_ack.last.msg_id;
	}
	if (!mp->done_ack.valid) {
		mp->done_ack.valid = true;
		mp->done_ack.lazy = lazy;
		mp->done_ack.since_ns = now;
	} else {
		mp->done_ack.lazy &= lazy;
	}
	mp->done_ack.held = false;
	mp->done_ack.last_ns = now;
	mp->done_ack.pi = pi;
	mp->done_ack.last = *data;
	mp->done_ack.last.body = NULL;
	mp->done_ack.last.done = NULL;
	mp->done_ack.npkts = npkts;
	return first;
}

/* Sends held SACK @i of mp->step_ack (still listed). */
static void send_step(struct mrc_msg_peer *mp, unsigned int i, u64 now)
{
	unsigned int pi = mp->step_ack.e[i].pi;

	if (!mp->path[pi]) {
		count(mp, MRC_MS_CTL_TX_ERRORS, 1);
		return;
	}
	send_sack(mp, pi, &mp->step_ack.e[i].data, &mp->step_ack.e[i].rs, 0,
		  NULL, 0, now, now);
}

/* Takes held SACK @i off mp->step_ack; the others keep their order. */
static void step_del(struct mrc_msg_peer *mp, unsigned int i)
{
	for (mp->step_ack.n--; i < mp->step_ack.n; i++)
		mp->step_ack.e[i] = mp->step_ack.e[i + 1];
}

/* Forgets the SACK held for @msg_id, if any: a newer answer covers it. */
static void drop_step(struct mrc_msg_peer *mp, u64 msg_id)
{
	unsigned int i;

	for (i = 0; i < mp->step_ack.n; i++) {
		if (mp->step_ack.e[i].data.msg_id == msg_id) {
			step_del(mp, i);
			count(mp, MRC_MS_SACKS_MERGED, 1);
			return;
		}
	}
}

/*
 * Holds back a SACK of @rs within @data's message, for
 * mrc_msg_rx_flush() (Answers): it replaces the one held for that
 * message (@rs is newer: the message's state only grows); with
 * MRC_MSG_STEP_HELD other messages held, the oldest goes first.
 * Returns true if nothing was held before.
 */
static bool hold_step(struct mrc_msg_peer *mp, unsigned int pi,
		      const struct mrc_pkt *data,
		      const struct mrc_reasm_sack *rs, u64 now)
{
	bool first = batch_idle(mp);
	unsigned int i;

	for (i = 0; i < mp->step_ack.n; i++)
		if (mp->step_ack.e[i].data.msg_id == data->msg_id)
			break;
	if (i < mp->step_ack.n) {
		count(mp, MRC_MS_SACKS_MERGED, 1);
	} else {
		if (i == MRC_MSG_STEP_HELD) {	/* the oldest goes now */
			send_step(mp, 0, now);
			step_del(mp, 0);
			i--;
		}
		mp->step_ack.n++;
	}
	mp->step_ack.e[i].pi = pi;
	mp->step_ack.e[i].data = *data;
	mp->step_ack.e[i].data.body = NULL;
	mp->step_ack.e[i].data.done = NULL;
	mp->step_ack.e[i].rs = *rs;
	return first;
}

/**
 * mrc_msg_rx_answer() - send the SACK and NACK a DATA packet asked for
 * @mp: the peer's engine
 * @pi: the path @data arrived on (the answers go back on it)
 * @data: the DATA packet
 * @out: what mrc_msg_rx_packet() said
 * @now: the caller's clock, ns
 *
 * With node->batch_done, the SACK of a message @data completed waits for
 * mrc_msg_rx_flush() (Answers).  Tx lock held (the answers use the path's
 * sequence numbers).
 *
 * Return: true if that SACK is the first to wait: the host calls
 * mrc_msg_rx_flush() at the end of its batch.
 */
bool mrc_msg_rx_answer(struct mrc_msg_peer *mp, unsigned int pi,
		       const struct mrc_pkt *data,
		       const struct mrc_msg_rx_out *out, u64 now)
{
	bool first = false;

	if (out->done)
		mp->rx_done_n++;	/* our next message is a reply */
	if (pi >= MRC_MSG_NPATHS || !mp->path[pi])
		return false;
	if (out->sack && out->done && mp->node->batch_done) {
		drop_step(mp, data->msg_id);
		first = hold_done(mp, pi, data, out->rs.cum, out->hole_sacked,
				  now);
	} else if (out->sack && mp->node->batch_done && !out->refused &&
		   !out->busy && !out->gone) {
		first = hold_step(mp, pi, data, &out->rs, now);
	} else if (out->sack) {
		u16 flags = 0;

		/* not past an answer to a later packet (flush, below) */
		if (mp->done_ack.held)
			send_done(mp, now);
		if (out->refused)
			flags |= MRC_WF_REFUSED;
		if (out->busy)
			flags |= MRC_WF_BUSY;
		if (out->gone) {
			flags |= MRC_WF_GONE;
			count(mp, MRC_MS_RX_GONE_SACKS, 1);
		}
		send_sack(mp, pi, data, &out->rs, flags, NULL, 0, now, now);
	}
	if (out->nholes)
		send_nack(mp, pi, data, out, now);
	return first;
}

/**
 * mrc_msg_rx_flush() - send the completion SACKs held back
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 *
 * At the end of the host's batch of arrivals (node->batch_done): one
 * SACK, of the last message completed, with the others' sequence numbers
 * in its done list (Answers).  If every one of them was flagged
 * MRC_WF_ACK_LAZY, they wait for a DATA of ours to the peer instead
 * (mrc_msg_rx_done_on_data()), or for the timer, armed for the end of
 * MRC_MSG_ACK_HOLD_NS (mrc_msg_rx_ack_timer()); but not past a SACK
 * within a message, sent now: that one acks packets sent after theirs,
 * and its sender would find theirs lost.  If the SACK's path went
 * away meanwhile, nothing goes (ctl_tx_errors): the sender resends, and
 * the duplicate is acked.  Tx lock held.
 */
void mrc_msg_rx_flush(struct mrc_msg_peer *mp, u64 now)
{
	unsigned int i;

	if (mp->step_ack.n && mp->done_ack.valid)
		send_done(mp, now);
	for (i = 0; i < mp->step_ack.n; i++)
		send_step(mp, i, now);
	mp->step_ack.n = 0;
	if (!mp->done_ack.valid || mp->done_ack.held)
		return;
	if (mp->done_ack.lazy &&
	    now - mp->done_ack.since_ns < MRC_MSG_ACK_HOLD_NS) {
		mp->done_ack.held = true;
		count(mp, MRC_MS_ACK_HOLDS, 1);
		mrc_msg_timer_need(mp, now, mp->done_ack.since_ns +
				   MRC_MSG_ACK_HOLD_NS - now);
		return;
	}
	send_done(mp, now);
}

/**
 * mrc_msg_rx_ack_timer() - the sender's timer came due: a held
 * acknowledgment may be too
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 *
 * Sends the acknowledgments mrc_msg_rx_flush() held for a DATA of ours
 * once MRC_MSG_ACK_HOLD_NS passed since the oldest arrived
 * (ack_holds_expired), else arms the timer for then.  Tx lock held.
 */
void mrc_msg_rx_ack_timer(struct mrc_msg_peer *mp, u64 now)
{
	u64 due;

	if (!mp->done_ack.valid || !mp->done_ack.held)
		return;
	due = mp->done_ack.since_ns + MRC_MSG_ACK_HOLD_NS;
	if ((s64)(now - due) >= 0) {
		count(mp, MRC_MS_ACK_HOLDS_EXPIRED, 1);
		send_done(mp, now);
	} else {
		mrc_msg_timer_need(mp, now, due - now);
	}
}

/**
 * mrc_msg_rx_done_on_data() - put the held acknowledgments on a DATA
 * @mp: the peer's engine
 * @pkt: the DATA packet about to go to the peer
 * @buf: room for MRC_WIRE_DONE_MAX entries, where its list is written
 * @room: the bytes the packet can carry beyond its payload
 * @now: the caller's clock, ns
 *
 * The completion SACKs waiting in mp->done_ack (held past a batch's end,
 * or not yet) ride on @pkt instead (version 7, Answers): every one as a
 * done list entry, its epoch in credit, the newest's wait in ack_delay.
 * Nothing happens if they do not fit.  They stay held until the caller
 * says the packet went (mrc_msg_rx_done_sent()): a send that fails must
 * not lose them.  Tx lock held.
 */
void mrc_msg_rx_done_on_data(struct mrc_msg_peer *mp, struct mrc_pkt *pkt,
			     u8 *buf, u32 room, u64 now)
{
	unsigned int n = mp->done_ack.n;
	u32 last = (u32)mp->done_ack.last.msg_id;
	u8 *b = buf;

	if (!mp->done_ack.valid || n + 1 > MRC_WIRE_DONE_MAX ||
	    (n + 1) * sizeof(__be32) > room)
		return;
	if (n)
		b += mrc_wire_put_done(b, mp->done_ack.seq, n);
	mrc_wire_put_done(b, &last, 1);
	pkt->flags |= MRC_WF_DONE_MORE;
	pkt->done = buf;
	pkt->ndone = n + 1;
	pkt->credit = mp->done_ack.last.msg_id >> 32;
	pkt->ack_delay_us = ack_delay_us(mp->done_ack.last_ns, now);
}

/**
 * mrc_msg_rx_done_sent() - a DATA carried the held acknowledgments
 * @mp: the peer's engine
 * @pkt: the DATA mrc_msg_rx_done_on_data() gave them to, sent
 *
 * Forgets them (done_on_data counts them).  Tx lock held.
 */
void mrc_msg_rx_done_sent(struct mrc_msg_peer *mp, const struct mrc_pkt *pkt)
{
	if (!(pkt->flags & MRC_WF_DONE_MORE))
		return;
	count(mp, MRC_MS_DONE_ON_DATA, pkt->ndone);
	/* the hold's deadline may be the timer's: the push's end moves it */
	if (mp->done_ack.held)
		mp->timer_stale = true;
	mp->done_ack.valid = false;
	mp->done_ack.held = false;
	mp->done_ack.n = 0;
}

/**
 * mrc_msg_rx_ready() - whether a message waits to be delivered
 * @mp: the peer's engine
 *
 * Return: true if mrc_msg_rx_pop() would return one.
 */
bool mrc_msg_rx_ready(const struct mrc_msg_peer *mp)
{
	return !list_empty(&mp->deliver);
}

/**
 * mrc_msg_rx_pop() - the next message to deliver
 * @mp: the peer's engine
 *
 * Return: the message, off every list (the host delivers it, then frees
 * it with mrc_msg_rx_free()), or NULL if none is ready.
 */
struct mrc_msg_rx *mrc_msg_rx_pop(struct mrc_msg_peer *mp)
{
	struct mrc_msg_rx *rm;

	rm = list_first_entry_or_null(&mp->deliver, struct mrc_msg_rx, node);
	if (rm) {
		list_del(&rm->node);
		rx_uncharge(mp, rm);
	}
	return rm;
}

/**
 * mrc_msg_rx_peek() - the next message to deliver, left where it is
 * @mp: the peer's engine
 *
 * Return: the message mrc_msg_rx_pop() would return, or NULL.
 */
const struct mrc_msg_rx *mrc_msg_rx_peek(struct mrc_msg_peer *mp)
{
	return list_first_entry_or_null(&mp->deliver, struct mrc_msg_rx, node);
}

/**
 * mrc_msg_rx_expire() - the expiry clock came due
 * @mp: the peer's engine
 * @now: the caller's clock, ns
 * @gone: where the expired contexts go (the host frees them unlocked)
 *
 * If nothing arrived for twice peer_timeout_ms while messages wait, the
 * incomplete ones expire and the complete held ones are delivered (see
 * Expiry above); else the clock is armed again for the rest.
 */
void mrc_msg_rx_expire(struct mrc_msg_peer *mp, u64 now,
		       struct list_head *gone)
{
	u64 idle = idle_ns(mp), age;
	struct mrc_msg_rx *rm, *tmp;
	bool kick = false;

	if (mp->rx_dead || (list_empty(&mp->rxq) && list_empty(&mp->held)))
		return;
	age = now - mp->rx_last_ns;
	if (age < idle) {
		mp->node->ops->expire_arm(mp, idle - age);
		return;
	}
	list_for_each_entry_safe(rm, tmp, &mp->held, node) {
		list_move_tail(&rm->node, &mp->deliver);
		lane_set_next(mp, mrc_msg_seq_lane(rm->seq),
			      mrc_msg_seq_inc(rm->seq));
		kick = true;
	}
	list_for_each_entry_safe(rm, tmp, &mp->rxq, node) {
		list_move_tail(&rm->node, gone);
		rx_uncharge(mp, rm);
		count(mp, MRC_MS_RX_EXPIRED, 1);
	}
	mp->rx_epoch_gone = true;	/* see Expiry */
	if (kick)
		mp->node->ops->deliver(mp);
}

/**
 * mrc_msg_rx_restarted() - the peer restarted
 * @mp: the peer's engine
 *
 * Of the peer's old messages, the complete ones are still delivered and
 * the partial ones discarded; its next messages open a new epoch.
 */
void mrc_msg_rx_restarted(struct mrc_msg_peer *mp)
{
	if (mp->rx_dead)
		return;
	new_epoch(mp, mp->rx_epoch);
	mp->rx_epoch_valid = false;
}

/**
 * mrc_msg_rx_close() - the peer goes away: take nothing new
 * @mp: the peer's engine
 *
 * What is ready to deliver may still be popped.
 */
void mrc_msg_rx_close(struct mrc_msg_peer *mp)
{
	mp->rx_dead = true;
}

/**
 * mrc_msg_rx_closed() - whether mrc_msg_rx_close() was called
 * @mp: the peer's engine
 *
 * Return: true once the receiver is closed.
 */
bool mrc_msg_rx_closed(const struct mrc_msg_peer *mp)
{
	return mp->rx_dead;
}

/**
 * mrc_msg_rx_drain() - after mrc_msg_rx_close(): every context left
 * @mp: the peer's engine
 * @gone: where they go (the host frees them unlocked)
 */
void mrc_msg_rx_drain(struct mrc_msg_peer *mp, struct list_head *gone)
{
	struct mrc_msg_rx *rm;

	list_for_each_entry(rm, &mp->rxq, node)
		count(mp, MRC_MS_RX_DISCARDED, 1);
	list_for_each_entry(rm, &mp->held, node)
		count(mp, MRC_MS_RX_DISCARDED, 1);
	list_for_each_entry(rm, &mp->deliver, node)
		count(mp, MRC_MS_RX_DISCARDED, 1);
	list_splice_init(&mp->rxq, gone);
	list_splice_init(&mp->held, gone);
	list_splice_init(&mp->deliver, gone);
	if (mp->rx_mem)
		atomic64_sub(1, &mp->node->rx_peers);
	mp->nrx = 0;
	mp->rx_mem = 0;
}
