// SPDX-License-Identifier: GPL-2.0
/*
 * credit_tx.c - receiver-driven credits, the sender: its credit balance
 * for the message being scheduled, grants taken and refused, requests
 * (kernel-agnostic).
 *
 * Design notes
 *
 * Forgery.  The checks here refuse grants for another message, beyond
 * the message, with an old sequence, or inconsistent with the last one;
 * a grant that is in every respect the receiver's next one can only be
 * told from a real one by where it came from, which the caller checks
 * (known peer, on one of its paths) before calling in.
 */
#include "credit.h"

static void mrc_credit_tx_unstarve(struct mrc_credit_tx *tx, u64 now)
{
	if (tx->starved && now > tx->starved_since)
		tx->wait_ns += now - tx->starved_since;
	tx->starved = 0;
}

/* How long a starved sender waits before it asks again. */
static u64 mrc_credit_rerequest_ns(const struct mrc_credit_params *p)
{
	if (p->rerequest_ns && p->rerequest_ns < p->request_timeout_ns)
		return p->rerequest_ns;
	return p->request_timeout_ns;
}

/**
 * mrc_credit_tx_start() - start a message at the sender
 * @tx: the sender's state
 * @p: the parameters
 * @msg_id: the message
 * @msg_len: its length, bytes
 * @now: the caller's clock, ns
 *
 * Chaining.  A message that needs a REQUEST and starts while the sender
 * is still in the receiver's credit loop (its previous message asked
 * for credit and took a grant within request_timeout) sends nothing
 * unscheduled: tx->granted starts at 0 and the REQUEST says so.  The
 * window exists to fill the first round trip, before the receiver knows
 * the sender; back to back, the receiver's grants already keep its last
 * hop busy, and a window sent on top of them overfills its queue.
 *
 * Return: true if the message needs a REQUEST (longer than the
 * unscheduled window): the caller sends it with the first packet and
 * counts it via mrc_credit_tx_requested().
 */
bool mrc_credit_tx_start(struct mrc_credit_tx *tx,
			 const struct mrc_credit_params *p, u64 msg_id,
			 u32 msg_len, u64 now)
{
	bool chained = false;

	if (tx->msg_len > tx->unsched_end) {	/* it asked for credit */
		/* ... and is still in the receiver's credit loop */
		chained = tx->active && tx->seq &&
			  now - tx->last_grant_at < p->request_timeout_ns;
		tx->prev_msg_id = tx->msg_id;
		tx->prev_msg_len = tx->msg_len;
		tx->prev_seq = tx->seq;
		tx->prev_granted = tx->granted;
	}
	tx->msg_id = msg_id;
	tx->msg_len = msg_len;
	tx->sent = 0;
	tx->granted = min(p->unsched, msg_len);
	if (chained && msg_len > p->unsched) {
		tx->granted = 0;
		tx->msgs_chained++;
	}
	tx->unsched_end = tx->granted;
	tx->seq = 0;
	tx->active = 1;
	mrc_credit_tx_unstarve(tx, now);
	tx->request_at = now + mrc_credit_rerequest_ns(p);
	return msg_len > p->unsched;
}

/**
 * mrc_credit_tx_may_send() - new bytes the sender may send now
 * @tx: the sender's state
 * @want: bytes it would send
 * @now: the caller's clock, ns
 *
 * Never lets sent exceed granted (which includes the unscheduled window).
 * Retransmissions of bytes below tx->sent need no credit.
 *
 * Return: the bytes of new data (from tx->sent on) that may go now, at
 * most @want.
 */
u32 mrc_credit_tx_may_send(struct mrc_credit_tx *tx, u32 want, u64 now)
{
	u32 room;

	if (!tx->active || tx->sent >= tx->msg_len)
		return 0;
	room = tx->granted - tx->sent;
	if (!room && !tx->starved) {
		tx->starved = 1;
		tx->starved_since = now;
	}
	return min(want, room);
}

/**
 * mrc_credit_tx_sent() - record new bytes sent
 * @tx: the sender's state
 * @len: new bytes that were sent
 *
 * Return: 0, or -EPERM (nothing recorded) if over credit.
 */
int mrc_credit_tx_sent(struct mrc_credit_tx *tx, u32 len)
{
	u32 unsched;

	if (!tx->active || len > tx->granted - tx->sent)
		return -EPERM;
	unsched = tx->sent < tx->unsched_end ? tx->unsched_end - tx->sent : 0;
	if (unsched > len)
		unsched = len;
	tx->unsched_bytes += unsched;
	tx->sched_bytes += len - unsched;
	tx->sent += len;
	return 0;
}

/*
 * Whether a grant (@seq, @granted) fits one taken as (@ref_seq,
 * @ref_granted) by the same receiver for the same message: a newer
 * sequence grants more, an older one less, the same one as much.
 */
static bool mrc_credit_grant_fits(u32 seq, u32 granted, u32 ref_seq,
				  u32 ref_granted)
{
	s32 dseq = (s32)(seq - ref_seq);

	if (!dseq)
		return granted == ref_granted;
	return dseq > 0 ? granted > ref_granted : granted < ref_granted;
}

/**
 * mrc_credit_tx_grant() - take a GRANT
 * @tx: the sender's state
 * @p: the parameters
 * @msg_id: the message it grants
 * @msg_len: its length, bytes
 * @granted: the offset it grants up to
 * @seq: its sequence
 * @now: the caller's clock, ns
 *
 * A receiver's grants of one message only grow: a newer sequence grants
 * more.
 *
 * Return: 1 if it moved the offset, 0 for a duplicate of the grant taken
 * last (idempotent), or negative and leaves @tx's credit unchanged:
 *  -ESTALE	harmless, counted in grants_stale: what the receiver may
 *		really have sent, overtaken or late (an older sequence
 *		granting less; a grant of the message after it ended or
 *		was reset, or of the scheduled message before it; before
 *		any grant was taken, one within the unscheduled window:
 *		of the schedule a message had before it was given up
 *		and started again, see mrc_credit_tx_start())
 *  -ENOENT	not the current message (id and length), nor a grant
 *		that fits the scheduled message before it (grants_bad)
 *  -ERANGE	offset beyond the message (grants_bad)
 *  -EINVAL	contradicts a grant taken (grants_bad): same sequence,
 *		other offset; a newer sequence that grants no more; an
 *		older one that grants as much or more.  (A current
 *		message that asked no credit has its whole length
 *		"granted": any GRANT of it is -EINVAL or -ERANGE.)
 */
int mrc_credit_tx_grant(struct mrc_credit_tx *tx,
			const struct mrc_credit_params *p, u64 msg_id,
			u32 msg_len, u32 granted, u32 seq, u64 now)
{
	s32 dseq = (s32)(seq - tx->seq);

	if (!tx->msg_len || msg_id != tx->msg_id || msg_len != tx->msg_len) {
		if (tx->prev_msg_len && msg_id == tx->prev_msg_id &&
		    msg_len == tx->prev_msg_len && granted <= msg_len &&
		    mrc_credit_grant_fits(seq, granted, tx->prev_seq,
					  tx->prev_granted)) {
			tx->grants_stale++;
			return -ESTALE;
		}
		tx->grants_bad++;
		return -ENOENT;
	}
	if (granted > tx->msg_len) {
		tx->grants_bad++;
		return -ERANGE;
	}
	if (!tx->seq && seq && granted <= tx->granted) {
		/*
		 * A message given up (its receiver's endpoint was busy) and
		 * started again keeps its id; the receiver's entry may still
		 * be on its earlier schedule (a chained one, from 0), whose
		 * grants in flight grant nothing past this one's window.
		 */
		tx->grants_stale++;
		return -ESTALE;
	}
	if (!mrc_credit_grant_fits(seq, granted, tx->seq, tx->granted)) {
		tx->grants_bad++;
		return -EINVAL;
	}
	if (!dseq) {
		tx->grants_dup++;
		return 0;
	}
	if (dseq < 0 || !tx->active) {
		tx->grants_stale++;
		return -ESTALE;
	}
	tx->granted = granted;
	tx->seq = seq;
	tx->grants++;
	tx->last_grant_at = now;
	tx->request_at = now + mrc_credit_rerequest_ns(p);
	mrc_credit_tx_unstarve(tx, now);
	return 1;
}

/**
 * mrc_credit_tx_request_due() - whether a repeated REQUEST is due
 * @tx: the sender's state
 * @p: the parameters
 * @now: the caller's clock, ns
 *
 * True also arms the next one; the caller sends it.
 *
 * Return: true if the sender was starved of credit for
 * request_timeout_ns since the last REQUEST or grant.
 */
bool mrc_credit_tx_request_due(struct mrc_credit_tx *tx,
			       const struct mrc_credit_params *p, u64 now)
{
	if (!tx->active || tx->sent >= tx->msg_len ||
	    tx->sent < tx->granted || now < tx->request_at)
		return false;
	tx->request_at = now + mrc_credit_rerequest_ns(p);
	return true;
}

/**
 * mrc_credit_tx_requested() - record a REQUEST sent (first or repeat)
 * @tx: the sender's state
 * @p: the parameters
 * @now: when it was sent, the caller's clock, ns
 */
void mrc_credit_tx_requested(struct mrc_credit_tx *tx,
			     const struct mrc_credit_params *p, u64 now)
{
	tx->requests++;
	tx->request_at = now + mrc_credit_rerequest_ns(p);
}
