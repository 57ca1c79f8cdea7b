// SPDX-License-Identifier: GPL-2.0
/*
 * msg_tx_test.c - user-space unit tests of mrc/core/msg_tx.c, the message
 * engine's sender, driven through msg_host.h (the module's mrc/msg.c in
 * miniature) and, where a receiver is needed, a second engine on a
 * perfect or scripted wire.
 */
#include <stdio.h>
#include <stdlib.h>

#include "msg_pair.h"
#include "../../../mrc/core/msg_int.h"	/* MRC_MSG_PUSH_NOW_MAX */

/* Drops every packet @h has queued towards its peer; returns how many. */
static unsigned int drop_all(struct host *h)
{
	unsigned int n = 0;

	while (host_take(h))
		n++;
	return n;
}

/* Runs @h's sender at @t (its loss scan, then what may go). */
static void run_at(struct host *h, u64 t)
{
	h->now = t;
	h->kicks++;
	host_run(h);
}

static void tx_alloc__bounds(void)
{
	struct host *h = host_new(1, 1, 1, 4096, T0);
	struct mrc_msg_tx *m;

	CHECK(!mrc_msg_tx_alloc(&h->node, 0, SEG, 0), "len 0");
	CHECK(!mrc_msg_tx_alloc(&h->node, MRC_MSG_MAX_BYTES + 1, SEG, 0),
	      "len above the max");
	CHECK(!mrc_msg_tx_alloc(&h->node, 100, MRC_WIRE_MIN_SEG - 1, 0),
	      "seg below the min");
	CHECK(!mrc_msg_tx_alloc(&h->node, 100, MRC_WIRE_MAX_PAYLOAD + 1, 0),
	      "seg above the max");
	CHECK(h->allocs == 0, "refusals allocate nothing: %ld", h->allocs);
	m = mrc_msg_tx_alloc(&h->node, 10000, SEG, 77);
	CHECK(m && m->cls == MRC_SCHED_CLASS_DEFAULT,
	      "an unknown class is the default one");
	CHECK(m && m->sb.npkts == 3, "10000 bytes are 3 packets");
	CHECK(atomic64_read(&h->node.tx_bytes) >= 10000, "counted");
	mrc_msg_tx_free(&h->node, m);
	CHECK(h->allocs == 0 && atomic64_read(&h->node.tx_bytes) == 0,
	      "freed and uncounted");
	host_destroy(h);
}

static void tx_alloc__no_memory(void)
{
	struct host *h = host_new(1, 1, 1, 4096, T0);
	long k;

	for (k = 0; k < 3; k++) {
		h->alloc_fail = k;
		CHECK(!mrc_msg_tx_alloc(&h->node, 5000, SEG, 0),
		      "allocation %ld fails", k);
		CHECK(h->allocs == 0, "nothing left after failure %ld", k);
	}
	CHECK(atomic64_read(&h->node.tx_bytes) == 0, "nothing counted");
	host_destroy(h);
}

static void tx_queue__ids_per_lane(void)
{
	struct mrc_msg_tx *m[4];
	u8 cls[4] = { MRC_SCHED_CLASS_LATENCY, MRC_SCHED_CLASS_BULK,
		      MRC_SCHED_CLASS_LATENCY, MRC_SCHED_CLASS_DEFAULT };
	int i, err;

	pair();
	for (i = 0; i < 4; i++)
		m[i] = host_send_msg(A, NULL, 100, cls[i], NULL, NULL, &err);
	for (i = 0; i < 4; i++)
		CHECK(m[i] && m[i]->msg_id >> 32 == A->mp.epoch,
		      "message %d: epoch", i);
	/* host_send_msg() sends to port 9: lane class * 16 + 9 */
	CHECK(m[0] && (u32)m[0]->msg_id == 25U << MRC_MSG_LANE_SHIFT,
	      "first latency message: lane 25, n 0");
	CHECK(m[2] && (u32)m[2]->msg_id == (25U << MRC_MSG_LANE_SHIFT | 1),
	      "second latency message: n 1");
	CHECK(m[1] && (u32)m[1]->msg_id == 41U << MRC_MSG_LANE_SHIFT,
	      "bulk lane counts on its own");
	CHECK(m[3] && (u32)m[3]->msg_id == 9U << MRC_MSG_LANE_SHIFT,
	      "default class, port 9: lane 9, n 0");
	CHECK(A->stats[MRC_MS_TX_MSGS] == 4 && A->stats[MRC_MS_TX_BYTES] == 400,
	      "counted: %llu msgs, %llu bytes",
	      (unsigned long long)A->stats[MRC_MS_TX_MSGS],
	      (unsigned long long)A->stats[MRC_MS_TX_BYTES]);
	unpair();
}

static void tx_queue__enobufs(void)
{
	struct mrc_msg_tx *m;
	int err;

	pair();
	A->knob[MRC_KNOB_tx_msgs_per_peer] = 2;
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	m = host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	CHECK(!m && err == -ENOBUFS, "third message: %d", err);
	CHECK(A->mp.ntx == 2, "two queued: %u", A->mp.ntx);
	unpair();
}

/*
 * tx_msgs_per_peer is shared fairly among the endpoints sending to the
 * peer: one that filled the queue alone is refused once another shows
 * up, and the newcomer gets the slots the first one's completions free.
 */
static void tx_queue__fair_share_per_owner(void)
{
	int a = 1, b = 2, err, n;

	pair();
	A->knob[MRC_KNOB_tx_msgs_per_peer] = 8;
	A->owner = &a;
	for (n = 0; n < 8; n++)
		host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	CHECK(A->mp.ntx == 8, "a alone takes the whole queue: %u", A->mp.ntx);
	A->owner = &b;
	CHECK(!host_send_msg(A, NULL, 100, 0, NULL, NULL, &err) &&
	      err == -ENOBUFS, "the queue is full: %d", err);
	/* a's messages complete: b gets slots, a stops at half. */
	host_settle(A, B, A->now + 1000 * MS);
	CHECK(A->mp.ntx == 0, "%u left", A->mp.ntx);
	for (n = 0; n < 3; n++)
		host_send_msg(A, NULL, 100 * SEG, 0, NULL, NULL, &err);
	A->owner = &a;
	for (n = 0; n < 8; n++)
		if (!host_send_msg(A, NULL, 100 * SEG, 0, NULL, NULL, &err))
			break;
	CHECK(n == 4 && err == -ENOBUFS,
	      "a holds its share, 8 / 2 owners: %d (%d)", n, err);
	A->owner = &b;
	CHECK(host_send_msg(A, NULL, 100 * SEG, 0, NULL, NULL, &err),
	      "b below its share still sends: %d", err);
	CHECK(!host_send_msg(A, NULL, 100 * SEG, 0, NULL, NULL, &err) &&
	      err == -ENOBUFS, "and not beyond: %d", err);
	A->owner = NULL;
	unpair();
}

static void tx_queue__idle_sends_window_at_once(void)
{
	int err;

	pair();
	host_send_msg(A, NULL, 100 * SEG, 0, NULL, NULL, &err);
	CHECK(err == 0, "queued: %d", err);
	CHECK(A->sent_data == A->mp.cwnd && A->mp.inflight == A->mp.cwnd,
	      "the first window went out in the send call: %u of cwnd %u",
	      A->sent_data, A->mp.cwnd);
	CHECK(A->armed, "the timer takes over loss detection");
	unpair();
}

/*
 * Behind a short queue (earlier messages sent, waiting for their SACKs)
 * a send still goes out in the call; behind a longer one it is left to
 * the sender's run (a kick), so a bulk sender does not walk its queue
 * once per message.
 */
static void tx_queue__short_queue_sends_at_once(void)
{
	unsigned int i, sent, kicks;
	int err;

	pair();
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	CHECK(err == 0 && A->sent_data == 1, "first: %d, sent %u", err,
	      A->sent_data);
	for (i = 2; i <= MRC_MSG_PUSH_NOW_MAX; i++) {
		kicks = A->kicks;
		host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
		CHECK(err == 0 && A->sent_data == i && A->kicks == kicks,
		      "message %u of a short queue sent in the call: sent %u, kicks %u -> %u",
		      i, A->sent_data, kicks, A->kicks);
	}
	sent = A->sent_data;
	kicks = A->kicks;
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	CHECK(err == 0 && A->sent_data == sent && A->kicks > kicks,
	      "behind %u queued: left to the run (sent %u -> %u, kicks %u -> %u)",
	      MRC_MSG_PUSH_NOW_MAX, sent, A->sent_data, kicks, A->kicks);
	host_settle(A, B, T0 + 100 * MS);
	CHECK(B->ndelivered == MRC_MSG_PUSH_NOW_MAX + 1, "all delivered: %u",
	      B->ndelivered);
	unpair();
}

/*
 * The timer of a short queue runs the sender in the timer itself (a loss
 * scan while the message is in flight, a resend once it is lost): no
 * kick, no hop to the host's work item.  A longer queue's timer kicks.
 */
static void tx_timer__short_queue_runs_in_timer(void)
{
	unsigned int i, timers = 0, sent;
	int err;

	pair();
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	CHECK(err == 0 && A->sent_data == 1 && drop_all(A) == 1,
	      "sent and lost: %d, %u", err, A->sent_data);
	for (i = 0; i < 50 && A->sent_data == 1 && A->armed; i++) {
		A->now = A->arm_at;
		host_run(A);
		timers++;
		CHECK(A->kicks == 0, "timer %u: no kick (%u)", timers, A->kicks);
	}
	CHECK(A->timer_runs == timers && timers >= 1,
	      "timer runs %u of %u", A->timer_runs, timers);
	CHECK(A->sent_data == 2 && A->stats[MRC_MS_TX_RETRANS] == 1,
	      "resent from the timer: sent %u, retrans %llu", A->sent_data,
	      (unsigned long long)A->stats[MRC_MS_TX_RETRANS]);
	host_settle(A, B, A->now + 100 * MS);
	CHECK(B->ndelivered == 1, "delivered %u", B->ndelivered);
	unpair();

	pair();
	for (i = 0; i <= MRC_MSG_PUSH_NOW_MAX + 1; i++)
		host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	host_run(A);		/* the kick of the long queue */
	drop_all(A);
	sent = A->sent_data;
	CHECK(A->armed && !A->kicks, "long queue sent (%u), timer armed",
	      sent);
	A->now = A->arm_at;
	host_run(A);
	CHECK(A->kicks == 1 && A->sent_data == sent,
	      "long queue: the timer kicks (%u), sends nothing itself (%u)",
	      A->kicks, A->sent_data);
	unpair();
}

static void tx_sack__completes_and_frees(void)
{
	struct done_rec d[3] = { 0 };
	int i, err;

	pair();
	for (i = 0; i < 3; i++)
		host_send_msg(A, NULL, 1 + i * 20000, 0, done_fn, &d[i], &err);
	host_settle(A, B, T0 + 100 * MS);
	for (i = 0; i < 3; i++)
		CHECK(d[i].calls == 1 && d[i].status == 0,
		      "message %d: %d calls, status %d", i, d[i].calls,
		      d[i].status);
	CHECK(B->ndelivered == 3, "delivered %u", B->ndelivered);
	CHECK(A->mp.ntx == 0 && A->mp.inflight == 0, "queue empty");
	CHECK(atomic64_read(&A->node.tx_bytes) == 0, "sender memory freed");
	CHECK(A->stats[MRC_MS_TX_DONE] == 3, "tx_done %llu",
	      (unsigned long long)A->stats[MRC_MS_TX_DONE]);
	CHECK(A->stats[MRC_MS_TX_RETRANS] == 0, "no retransmission");
	unpair();
}

/*
 * A message the receiver refuses (nothing bound on its port) fails with
 * -ECONNREFUSED, counted on both sides, and is not delivered; the next
 * one, once the port is bound, completes.
 */
static void tx_sack__refused_fails_econnrefused(void)
{
	struct done_rec d[2] = { 0 };
	int err;

	pair();
	B->closed_port = 9;
	host_send_msg(A, NULL, 5 * SEG, 0, done_fn, &d[0], &err);
	host_settle(A, B, T0 + 100 * MS);
	CHECK(d[0].calls == 1 && d[0].status == -ECONNREFUSED,
	      "%d calls, status %d", d[0].calls, d[0].status);
	CHECK(B->ndelivered == 0, "not delivered");
	CHECK(A->stats[MRC_MS_TX_REFUSED] == 1 &&
	      A->stats[MRC_MS_TX_FAILED] == 1 &&
	      B->stats[MRC_MS_RX_REFUSED] == 1,
	      "tx_refused %llu, tx_failed %llu, rx_refused %llu",
	      (unsigned long long)A->stats[MRC_MS_TX_REFUSED],
	      (unsigned long long)A->stats[MRC_MS_TX_FAILED],
	      (unsigned long long)B->stats[MRC_MS_RX_REFUSED]);
	B->closed_port = 0;
	host_send_msg(A, NULL, 5 * SEG, 0, done_fn, &d[1], &err);
	host_settle(A, B, A->now + 100 * MS);
	CHECK(d[1].calls == 1 && d[1].status == 0 && B->ndelivered == 1,
	      "then delivered: status %d", d[1].status);
	CHECK(A->mp.ntx == 0 && A->mp.inflight == 0, "queue empty");
	unpair();
}

/*
 * A message refused when only part of it went (a scheduled one, its
 * unscheduled window sent, the rest waiting for a GRANT): the refusal
 * SACK says "all of it", packets never sent included, and still fails it
 * at once with -ECONNREFUSED; its credit is given up and the next
 * message goes.  (It was once dropped as bad_sack, and the sender stalled
 * until its queue timed out.)
 */
static void tx_sack__refused_before_all_went(void)
{
	struct done_rec d[2] = { 0 };
	u64 id;
	int err;

	pair();
	B->closed_port = 9;
	A->credit_stop = 2 * SEG;
	host_send_msg(A, NULL, 8 * SEG, 0, done_fn, &d[0], &err);
	id = list_first_entry(&A->mp.txq, struct mrc_msg_tx, node)->msg_id;
	host_settle(A, B, T0 + 100 * MS);
	CHECK(d[0].calls == 1 && d[0].status == -ECONNREFUSED,
	      "%d calls, status %d", d[0].calls, d[0].status);
	CHECK(A->stats[MRC_MS_TX_REFUSED] == 1 &&
	      A->stats[MRC_MS_TX_FAILED] == 1 &&
	      A->stats[MRC_MS_TX_TIMEOUT] == 0,
	      "tx_refused %llu, tx_failed %llu, tx_timeout %llu",
	      (unsigned long long)A->stats[MRC_MS_TX_REFUSED],
	      (unsigned long long)A->stats[MRC_MS_TX_FAILED],
	      (unsigned long long)A->stats[MRC_MS_TX_TIMEOUT]);
	CHECK(A->credit_gones == 1 && A->credit_gone_id == id,
	      "its credit given up (%u calls)", A->credit_gones);
	CHECK(A->mp.ntx == 0 && A->mp.inflight == 0, "queue empty");
	B->closed_port = 0;
	A->credit_stop = 0;
	host_send_msg(A, NULL, 8 * SEG, 0, done_fn, &d[1], &err);
	host_settle(A, B, A->now + 100 * MS);
	CHECK(d[1].calls == 1 && d[1].status == 0 && B->ndelivered == 1,
	      "then delivered: status %d", d[1].status);
	unpair();
}

/*
 * A receiver whose endpoint is full answers "busy": the sender stops
 * sending the message, probes it with one packet after a wait that
 * doubles up to rto_max_ms, blames no path, cuts no window and does not
 * time out however long the reader takes; once there is room the
 * message completes.
 */
static void tx_sack__busy_waits_probes_never_times_out(void)
{
	struct done_rec d = { 0 };
	unsigned int sent;
	int err;

	pair();
	B->busy_port = 9;
	host_send_msg(A, NULL, 10 * SEG, 0, done_fn, &d, &err);
	host_settle(A, B, T0 + 100 * MS);
	CHECK(d.calls == 0, "waits: %d calls, status %d", d.calls, d.status);
	CHECK(A->stats[MRC_MS_TX_BUSY] >= 1 && B->stats[MRC_MS_RX_BUSY] >= 1,
	      "tx_busy %llu, rx_busy %llu",
	      (unsigned long long)A->stats[MRC_MS_TX_BUSY],
	      (unsigned long long)B->stats[MRC_MS_RX_BUSY]);
	sent = A->sent_data;
	/* 20 s: five times the stall limit (4 x peer_timeout_ms 3 s) */
	host_settle(A, B, A->now + 20000 * MS);
	CHECK(d.calls == 0 && A->stats[MRC_MS_TX_TIMEOUT] == 0,
	      "no timeout: %d calls, status %d", d.calls, d.status);
	/* waits of rto_max_ms (200 ms) by then: about 100 probes */
	CHECK(A->sent_data - sent >= 90 && A->sent_data - sent <= 110,
	      "one probe per wait: %u packets in 20 s", A->sent_data - sent);
	CHECK(A->stats[MRC_MS_RTO_PKTS] == 0 &&
	      A->stats[MRC_MS_CWND_CUTS] == 0 && A->path_changes == 0,
	      "no path blamed: rto %llu, cuts %llu, path changes %u",
	      (unsigned long long)A->stats[MRC_MS_RTO_PKTS],
	      (unsigned long long)A->stats[MRC_MS_CWND_CUTS],
	      A->path_changes);
	CHECK(B->ndelivered == 0 && B->allocs == 0, "the receiver holds nothing");
	B->busy_port = 0;
	host_settle(A, B, A->now + 1000 * MS);
	CHECK(d.calls == 1 && d.status == 0 && B->ndelivered == 1,
	      "then delivered: %d calls, status %d", d.calls, d.status);
	CHECK(A->mp.ntx == 0 && A->mp.inflight == 0, "queue empty");
	unpair();
}

/*
 * A busy answer makes the message give up the peer's credit schedule
 * (credit_peer.c: one message at a time), so that messages to other
 * endpoints do not wait for a slow reader.
 */
static void tx_sack__busy_gives_up_credit_schedule(void)
{
	struct mrc_msg_tx *m;
	int err;

	pair();
	B->busy_port = 9;
	m = host_send_msg(A, NULL, 2 * SEG, 0, NULL, NULL, &err);
	host_settle(A, B, T0 + 10 * MS);
	CHECK(m && A->stats[MRC_MS_TX_BUSY] >= 1 && A->credit_gones >= 1 &&
	      A->credit_gone_id == m->msg_id,
	      "busy, and its credit is given up: %u, id %#llx",
	      A->credit_gones, (unsigned long long)A->credit_gone_id);
	B->busy_port = 0;
	host_settle(A, B, A->now + 1000 * MS);
	CHECK(A->mp.ntx == 0 && B->ndelivered == 1, "then delivered");
	unpair();
}

/*
 * New bytes go in lane order: while the first message of a lane has
 * packets it may not send yet (here its credit stops it), the next one
 * of the lane sends none, though its own bytes would be allowed; the
 * credit schedule is not taken from the message the receiver needs
 * first.
 */
static void tx_push__new_bytes_in_lane_order(void)
{
	struct mrc_msg_tx *m1, *m2;
	int err;

	pair();
	A->credit_stop = 2 * SEG;	/* new bytes only below 2 packets */
	m1 = host_send_msg(A, NULL, 4 * SEG, 0, NULL, NULL, &err);
	m2 = host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	CHECK(m1 && m2 && m1->sb.next_new == 2 && m2->sb.next_new == 0,
	      "m1 sent 2 of 4, m2 none: %u, %u",
	      m1 ? m1->sb.next_new : 0, m2 ? m2->sb.next_new : 0);
	A->credit_stop = 0;
	host_settle(A, B, T0 + 100 * MS);
	CHECK(A->mp.ntx == 0 && B->ndelivered == 2, "then both, in order");
	unpair();
}

/*
 * Several messages to one full endpoint (one lane): only the first
 * probes, the later ones wait behind it; once there is room all of them
 * complete, in order.
 */
static void tx_sack__busy_one_probe_per_lane(void)
{
	struct done_rec d[5] = { 0 };
	unsigned int sent;
	int i, err;

	pair();
	B->busy_port = 9;
	for (i = 0; i < 5; i++)
		host_send_msg(A, NULL, 2 * SEG, 0, done_fn, &d[i], &err);
	host_settle(A, B, T0 + 100 * MS);
	sent = A->sent_data;
	host_settle(A, B, A->now + 20000 * MS);
	CHECK(A->sent_data - sent >= 90 && A->sent_data - sent <= 110,
	      "one probe per wait for the lane: %u packets in 20 s",
	      A->sent_data - sent);
	B->busy_port = 0;
	host_settle(A, B, A->now + 2000 * MS);
	for (i = 0; i < 5; i++)
		CHECK(d[i].calls == 1 && d[i].status == 0,
		      "message %d: %d calls, status %d", i, d[i].calls,
		      d[i].status);
	CHECK(B->ndelivered == 5, "all delivered: %u", B->ndelivered);
	unpair();
}

/*
 * The SACK that completes the last queued message leaves nothing to run:
 * no kick (a request/response exchange paid a workqueue hop for it).
 * One that leaves a message to send still kicks.
 */
static void tx_sack__last_ack_no_kick(void)
{
	struct done_rec d = { 0 };
	int err;

	pair();
	host_send_msg(A, NULL, 100, 0, done_fn, &d, &err);
	CHECK(err == 0 && A->sent_data == 1, "sent in the call");
	host_pump(A);			/* DATA to B, B answers */
	A->kicks = 0;
	host_pump(B);			/* the SACK to A */
	CHECK(d.calls == 1 && d.status == 0, "completed: %d %d", d.calls,
	      d.status);
	CHECK(A->kicks == 0, "no run asked for with nothing queued: %u",
	      A->kicks);

	/* two messages: the first one's SACK leaves one to run */
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	A->send_err = -EAGAIN;		/* the second waits in the queue */
	A->send_err_n = 1;
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	host_pump(A);
	A->kicks = 0;
	host_pump(B);
	CHECK(A->mp.ntx == 1 && A->kicks > 0,
	      "one left queued (%u): a run is asked for (%u)", A->mp.ntx,
	      A->kicks);
	host_settle(A, B, A->now + 100 * MS);
	CHECK(A->mp.ntx == 0 && B->ndelivered == 3, "then all done: %u, %u",
	      A->mp.ntx, B->ndelivered);
	unpair();
}

/*
 * Sends B's SACK of @id to A on path 0 through the wire code, with a done
 * list of the @n entries @seq if @n.
 */
static enum mrc_drop_reason done_to_a(u64 id, u32 cum, const u32 *seq,
				      unsigned int n)
{
	u8 buf[MRC_WIRE_HDR_LEN + sizeof(struct mrc_wire_sack) +
	       MRC_WIRE_DONE_MAX * 4];
	struct mrc_pkt_sack sack = { .cum = cum };
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.type = MRC_PKT_SACK,
		.src_node = 2,
		.dst_node = 1,
		.msg_id = id,
	};

	pkt.len = mrc_wire_put_sack(buf + MRC_WIRE_HDR_LEN, &sack);
	if (n) {
		pkt.flags = MRC_WF_DONE_MORE;
		pkt.len += mrc_wire_put_done(buf + MRC_WIRE_HDR_LEN + pkt.len,
					     seq, n);
	}
	mrc_wire_put_hdr(buf, &pkt);
	return host_input(A, 0, buf, MRC_WIRE_HDR_LEN + pkt.len);
}

/* Sends a SACK for @id on path 0 from B to A through the wire code. */
static enum mrc_drop_reason sack_to_a(u64 id, u32 cum)
{
	return done_to_a(id, cum, NULL, 0);
}

/*
 * Messages completed in one batch at B are acked by one SACK: its done
 * list completes all but the last, whose packets leave flight too.
 */
static void tx_sack__done_list_completes(void)
{
	struct done_rec d[5] = { 0 };
	unsigned int i, p, inflight = 0;
	int err;

	pair();
	for (i = 0; i < ARRAY_SIZE(d); i++)
		host_send_msg(A, NULL, 100, 0, done_fn, &d[i], &err);
	host_settle(A, B, T0 + 100 * MS);
	for (i = 0; i < ARRAY_SIZE(d); i++)
		CHECK(d[i].calls == 1 && d[i].status == 0, "message %u: %d %d",
		      i, d[i].calls, d[i].status);
	CHECK(B->stats[MRC_MS_SACKS_TX] == 1 &&
	      B->stats[MRC_MS_DONE_BATCHED] == 4,
	      "B answered with one SACK (%llu), 4 in its done list (%llu)",
	      (unsigned long long)B->stats[MRC_MS_SACKS_TX],
	      (unsigned long long)B->stats[MRC_MS_DONE_BATCHED]);
	CHECK(A->stats[MRC_MS_SACKS_RX] == 1 &&
	      A->stats[MRC_MS_DONE_ACKED] == 4,
	      "sacks_rx %llu done_acked %llu",
	      (unsigned long long)A->stats[MRC_MS_SACKS_RX],
	      (unsigned long long)A->stats[MRC_MS_DONE_ACKED]);
	for (p = 0; p < MRC_MSG_NPATHS; p++)
		inflight += A->path[p].inflight_pkts;
	CHECK(A->mp.inflight == 0 && inflight == 0 && A->mp.ntx == 0,
	      "nothing left in flight: %u, paths %u, queued %u",
	      A->mp.inflight, inflight, A->mp.ntx);
	unpair();
}

/*
 * A done list's entries stand apart: a message no longer queued is late
 * (sacks_stale), one with packets never sent is not completed (a SACK
 * may not name them), and neither keeps the others or the header's
 * message from being taken.
 */
static void tx_sack__done_list_forged(void)
{
	struct mrc_msg_tx *done_m, *unsent, *sent;
	u32 seq[3];
	int err;

	pair();
	done_m = host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	CHECK(done_m, "queued");
	if (!done_m)
		goto out;
	seq[0] = (u32)done_m->msg_id;		/* completed: freed below */
	host_settle(A, B, T0 + 100 * MS);
	A->credit_stop = SEG;		/* the first packet of each only */
	sent = host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	unsent = host_send_msg(A, NULL, 3 * SEG, 0, NULL, NULL, &err);
	CHECK(sent && unsent, "queued");
	if (!sent || !unsent)
		goto out;
	drop_all(A);
	CHECK(unsent->sb.hi_sent < unsent->sb.npkts, "the second not all sent");
	seq[1] = (u32)unsent->msg_id;
	seq[2] = (u32)sent->msg_id;
	CHECK(done_to_a(unsent->msg_id, 1, seq, 3) == MRC_DROP_NONE,
	      "taken, with its header's SACK of what was sent");
	CHECK(mrc_txsb_acked(&unsent->sb) == 1,
	      "the header's SACK acked the first packet");
	CHECK(A->stats[MRC_MS_SACKS_STALE] == 1 &&
	      A->stats[MRC_MS_DONE_ACKED] == 1 && A->mp.ntx == 1,
	      "one stale (%llu), one completed (%llu), one left (%u)",
	      (unsigned long long)A->stats[MRC_MS_SACKS_STALE],
	      (unsigned long long)A->stats[MRC_MS_DONE_ACKED], A->mp.ntx);
	host_finish(A);
out:
	A->credit_stop = 0;
	A->kicks++;
	host_settle(A, B, A->now + 1000 * MS);
	CHECK(A->mp.ntx == 0, "then the rest completes: %u", A->mp.ntx);
	unpair();
}

static void tx_sack__stale_and_forged(void)
{
	/* host_send_msg()'s lane: the default class, port 9 */
	const u64 lane = (u64)mrc_msg_lane(0, 9) << MRC_MSG_LANE_SHIFT;
	u64 epoch;
	int err;

	pair();
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	host_settle(A, B, T0 + 100 * MS);
	epoch = A->mp.epoch;
	CHECK(sack_to_a(epoch << 32 | lane, 1) == MRC_DROP_DUPLICATE,
	      "a late SACK of a completed message is a duplicate");
	CHECK(sack_to_a(epoch << 32 | lane | 5, 1) == MRC_DROP_BAD_SACK,
	      "a SACK of an id never handed out is bad");
	CHECK(sack_to_a((epoch + 1) << 32, 1) == MRC_DROP_BAD_SACK,
	      "a SACK of a future epoch is bad");
	CHECK(sack_to_a((epoch - 1) << 32, 1) == MRC_DROP_DUPLICATE,
	      "a SACK of a past epoch is late");
	CHECK(A->stats[MRC_MS_SACKS_STALE] == 4, "sacks_stale %llu",
	      (unsigned long long)A->stats[MRC_MS_SACKS_STALE]);
	host_send_msg(A, NULL, 3 * SEG, 0, NULL, NULL, &err);
	drop_all(A);
	CHECK(sack_to_a(epoch << 32 | lane | 1, 9) == MRC_DROP_BAD_SACK,
	      "a SACK beyond the message's packets is bad");
	CHECK(A->mp.ntx == 1, "and changes nothing");
	unpair();
}

/*
 * A SACK acknowledges packets sprayed over many paths: each of those
 * paths gets an RTT sample, the age of its packet, not only the path the
 * SACK came back on; so every path's RTO follows what its packets wait.
 * A packet sent again gives none (Karn), its first send may be the one
 * acked.
 */
static void tx_sack__every_acked_path_sampled(void)
{
	unsigned int pi, used = 0, sampled = 0, bad = 0, sacks = 0;
	u32 before[MRC_MSG_NPATHS];
	struct host_pkt *hp;
	int err;

	pair();
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
		before[pi] = A->path[pi].rtt.samples;
	host_send_msg(A, NULL, 8 * SEG, 0, NULL, NULL, &err);
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
		if (A->path[pi].inflight_pkts)
			used++;
	CHECK(used >= 4, "8 packets sprayed over %u paths", used);
	A->now = B->now = T0 + 3 * MS;
	host_pump(A);
	A->now = B->now = T0 + 5 * MS;
	while ((hp = host_take(B))) {
		sacks++;
		host_input(A, hp->pi, hp->buf, hp->len);
	}
	CHECK(A->mp.ntx == 0, "acked whole by %u SACKs", sacks);
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++) {
		if (A->path[pi].rtt.samples == before[pi])
			continue;
		sampled++;
		if (A->path[pi].rtt.last_ns != 5 * MS)
			bad++;
	}
	CHECK(sacks < used && sampled == used && !bad,
	      "%u SACKs: %u of %u paths sampled, %u not with the 5 ms age",
	      sacks, sampled, used, bad);

	/*
	 * Sent twice (on the paths the RTOs left): the SACK's echo samples
	 * its own path, no other.
	 */
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
		before[pi] = A->path[pi].rtt.samples;
	host_send_msg(A, NULL, 4 * SEG, 0, NULL, NULL, &err);
	drop_all(A);
	A->now = B->now = A->now + 300 * MS;	/* past any RTO */
	A->kicks++;
	host_run(A);
	CHECK(A->stats[MRC_MS_TX_RETRANS] == 4, "resent: %llu",
	      (unsigned long long)A->stats[MRC_MS_TX_RETRANS]);
	host_pump(A);
	sampled = sacks = 0;
	while ((hp = host_take(B))) {
		sacks++;
		host_input(A, hp->pi, hp->buf, hp->len);
	}
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
		sampled += A->path[pi].rtt.samples - before[pi];
	CHECK(A->mp.ntx == 0 && sampled <= sacks,
	      "resent packets: %u samples from %u SACKs", sampled, sacks);
	unpair();
}

static void tx_run__rto_resends(void)
{
	struct done_rec d = { 0 };
	int err;

	pair();
	host_send_msg(A, NULL, 4 * SEG, 0, done_fn, &d, &err);
	CHECK(drop_all(A) == 4, "four packets, all lost");
	A->now = B->now = T0 + 300 * MS;	/* past any RTO */
	A->kicks++;
	host_run(A);
	CHECK(A->stats[MRC_MS_RTO_PKTS] == 4, "rto_pkts %llu",
	      (unsigned long long)A->stats[MRC_MS_RTO_PKTS]);
	CHECK(A->stats[MRC_MS_TX_RETRANS] == 4, "tx_retrans %llu",
	      (unsigned long long)A->stats[MRC_MS_TX_RETRANS]);
	CHECK(A->stats[MRC_MS_RTO_QUEUE_PKTS] == 0 && A->path_changes > 0,
	      "their paths delivered nothing later: they leave (%u changes)",
	      A->path_changes);
	host_settle(A, B, T0 + 2000 * MS);
	CHECK(d.calls == 1 && d.status == 0, "then it completes: %d %d",
	      d.calls, d.status);
	CHECK(B->ndelivered == 1, "delivered once: %u", B->ndelivered);
	unpair();
}

/*
 * The send times are a u32 us clock that wraps every 71.6 minutes: a
 * peer idle for more than half of that must not see its last acked
 * packet as sent after the next one (which the loss scan would then
 * resend within the reordering allowance, long before its RTO).
 */
static void tx_run__old_ack_not_later(void)
{
	struct done_rec d1 = { 0 }, d2 = { 0 };
	int err;

	pair();
	A->knob[MRC_KNOB_rto_max_ms] = 2000;
	A->knob[MRC_KNOB_data_rto_min_ms] = 1000;
	/* 16 packets: every path gets an RTT sample (1 ms) */
	host_send_msg(A, NULL, 16 * SEG, 0, done_fn, &d1, &err);
	A->now = T0 + MS;
	B->now = A->now;
	host_settle(A, B, T0 + 10 * MS);
	CHECK(d1.calls == 1 && d1.status == 0, "the first completes: %d %d",
	      d1.calls, d1.status);
	/* idle for 2^31 us and a minute */
	A->now = T0 + (1ULL << 31) * 1000 + 60000 * MS;
	B->now = A->now;
	host_send_msg(A, NULL, SEG, 0, done_fn, &d2, &err);
	CHECK(drop_all(A) == 1, "the second's packet is lost");
	run_at(A, A->now + 100 * MS);	/* past the allowance, not the RTO */
	CHECK(A->stats[MRC_MS_REO_LOSS_PKTS] == 0 &&
	      A->stats[MRC_MS_TX_RETRANS] == 0,
	      "not taken for reordered: reo_loss %llu, resent %llu",
	      (unsigned long long)A->stats[MRC_MS_REO_LOSS_PKTS],
	      (unsigned long long)A->stats[MRC_MS_TX_RETRANS]);
	run_at(A, A->now + 1000 * MS);
	B->now = A->now;
	CHECK(A->stats[MRC_MS_RTO_PKTS] == 1, "its RTO finds it: rto %llu",
	      (unsigned long long)A->stats[MRC_MS_RTO_PKTS]);
	host_settle(A, B, A->now + 2000 * MS);
	CHECK(d2.calls == 1 && d2.status == 0, "then it completes: %d %d",
	      d2.calls, d2.status);
	unpair();
}

/*
 * Carries what @h sent to its peer, but drops the first packet of the
 * first path that carries two.  Returns the number dropped.
 */
static unsigned int pump_drop_one(struct host *h)
{
	unsigned int seen[MRC_MSG_NPATHS] = { 0 };
	unsigned int i, n = h->nout, at = h->out_head, drop = U32_MAX;
	struct host_pkt *hp;

	for (i = 0; i < n; i++) {
		hp = &h->out[(at + i) % HOST_OUT_MAX];
		if (hp->pi < MRC_MSG_NPATHS && ++seen[hp->pi] == 2) {
			drop = hp->pi;
			break;
		}
	}
	for (i = 0; (hp = host_take(h)); i++) {
		if (hp->pi == drop) {
			drop = U32_MAX;
			continue;
		}
		host_input(h->peer, hp->pi, hp->buf, hp->len);
	}
	return drop == U32_MAX && i ? 1 : 0;
}

/*
 * A congestion drop (a later packet of its path acked first) halves the
 * window once per episode: a drop of a packet sent before the last cut
 * does not cut again.  That send time is on the same u32 us clock as the
 * RACK time: after an idle half-wrap the next episode's drops must still
 * cut.  Each message is two windows: the first window's drop is proven
 * by the second's packets, sent 1 ms later.
 */
static void tx_sack__cut_after_idle_wrap(void)
{
	struct done_rec d1 = { 0 }, d2 = { 0 };
	int err;

	pair();
	host_send_msg(A, NULL, 128 * SEG, 0, done_fn, &d1, &err);
	CHECK(pump_drop_one(A) == 1, "one packet dropped");
	A->now = T0 + MS;
	B->now = A->now;
	host_settle(A, B, T0 + 2000 * MS);
	CHECK(d1.calls == 1 && d1.status == 0, "the first completes: %d %d",
	      d1.calls, d1.status);
	CHECK(A->stats[MRC_MS_CWND_CUTS] == 1, "one cut: %llu",
	      (unsigned long long)A->stats[MRC_MS_CWND_CUTS]);
	/* idle for 2^31 us and a minute */
	A->now = T0 + (1ULL << 31) * 1000 + 60000 * MS;
	B->now = A->now;
	host_send_msg(A, NULL, 128 * SEG, 0, done_fn, &d2, &err);
	CHECK(pump_drop_one(A) == 1, "one packet of the second dropped");
	A->now += MS;
	B->now = A->now;
	host_settle(A, B, A->now + 2000 * MS);
	CHECK(d2.calls == 1 && d2.status == 0, "the second completes: %d %d",
	      d2.calls, d2.status);
	CHECK(A->stats[MRC_MS_CWND_CUTS] == 2, "its drop cuts too: %llu",
	      (unsigned long long)A->stats[MRC_MS_CWND_CUTS]);
	unpair();
}

/* The path that carries a packet in flight (MRC_MSG_NO_PATH: none). */
static unsigned int busy_path(struct host *h)
{
	unsigned int pi;

	for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
		if (h->path[pi].inflight_pkts)
			return pi;
	return MRC_MSG_NO_PATH;
}

/*
 * An RTO of a packet whose path has since delivered a later packet (of
 * another message): a queue dropped it.  Resent, the window cut, its
 * path stays in the spray set.  One whose path delivered nothing later
 * takes its path out (tx_run__rto_resends).
 */
static void tx_run__rto_on_delivering_path(void)
{
	struct done_rec d1 = { 0 }, d2 = { 0 };
	unsigned int pi;
	int err;

	pair();
	A->knob[MRC_KNOB_rto_max_ms] = 2000;
	A->knob[MRC_KNOB_data_rto_min_ms] = 200;
	host_send_msg(A, NULL, SEG, 0, done_fn, &d1, &err);
	pi = busy_path(A);
	CHECK(drop_all(A) == 1 && pi != MRC_MSG_NO_PATH,
	      "the first message's packet is lost");
	if (pi == MRC_MSG_NO_PATH)
		goto out;
	A->now = T0 + MS;
	B->now = A->now;
	/* 32 packets: some go on the same path, later */
	host_send_msg(A, NULL, 32 * SEG, 0, done_fn, &d2, &err);
	CHECK(A->path[pi].inflight_pkts > 1, "the second uses that path too");
	host_settle(A, B, T0 + 50 * MS);
	CHECK(d2.calls == 1 && d2.status == 0 && d1.calls == 0,
	      "the second completes, the first waits: %d %d %d", d2.calls,
	      d2.status, d1.calls);
	run_at(A, T0 + 300 * MS);	/* past the first packet's RTO */
	B->now = A->now;
	CHECK(A->stats[MRC_MS_RTO_PKTS] == 1 &&
	      A->stats[MRC_MS_RTO_QUEUE_PKTS] == 1,
	      "an RTO, counted as a queue's drop: rto %llu, queue %llu",
	      (unsigned long long)A->stats[MRC_MS_RTO_PKTS],
	      (unsigned long long)A->stats[MRC_MS_RTO_QUEUE_PKTS]);
	CHECK(A->stats[MRC_MS_CWND_CUTS] == 1, "the window is cut: %llu",
	      (unsigned long long)A->stats[MRC_MS_CWND_CUTS]);
	CHECK(A->path[pi].state == MRC_PATH_ACTIVE && A->path_changes == 0,
	      "the path stays in the spray set: state %u, changes %u",
	      A->path[pi].state, A->path_changes);
	host_settle(A, B, A->now + 2000 * MS);
	CHECK(d1.calls == 1 && d1.status == 0, "then it completes: %d %d",
	      d1.calls, d1.status);
out:
	unpair();
}

static void tx_path_down__resends_elsewhere(void)
{
	unsigned int pi, down = MRC_MSG_NO_PATH;
	struct done_rec d = { 0 };
	struct mrc_path_params pp;
	int err;

	pair();
	host_send_msg(A, NULL, 16 * SEG, 0, done_fn, &d, &err);
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
		if (A->path[pi].inflight_pkts) {
			down = pi;
			break;
		}
	CHECK(down != MRC_MSG_NO_PATH, "some path carries packets");
	if (down == MRC_MSG_NO_PATH)
		goto out;
	/* The path leaves the spray set, as peer.c does on a rail down. */
	mrc_path_params_default(&pp);
	mrc_path_event(&A->path[down], &pp, MRC_PATH_EV_RAIL_DOWN, A->now,
		       A->now);
	mrc_msg_tx_path_down(&A->mp, down, false, A->now);
	CHECK(A->path[down].inflight_pkts == 0, "nothing left in flight on it");
	CHECK(A->stats[MRC_MS_PATH_DOWN_PKTS] > 0, "path_down_pkts %llu",
	      (unsigned long long)A->stats[MRC_MS_PATH_DOWN_PKTS]);
	CHECK(A->kicks > 0, "the sender is kicked to resend");
	host_settle(A, B, T0 + 1000 * MS);
	CHECK(d.calls == 1 && d.status == 0, "completes: %d %d", d.calls,
	      d.status);
	CHECK(A->path[down].stats.tx_pkts == A->path[down].stats.lost_pkts +
	      A->path[down].stats.acked_pkts +
	      A->path[down].stats.released_pkts,
	      "the path's books balance");
out:
	unpair();
}

static void tx_run__unreachable_fails_ehostunreach(void)
{
	struct done_rec d = { 0 };
	struct mrc_path_params pp;
	unsigned int pi;
	int err;

	pair();
	mrc_path_params_default(&pp);
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
		mrc_path_event(&A->path[pi], &pp, MRC_PATH_EV_RAIL_DOWN,
			       A->now, A->now);
	host_send_msg(A, NULL, 1000, 0, done_fn, &d, &err);
	CHECK(err == 0 && A->sent_data == 0, "queued, nothing sent");
	A->now += A->knob[MRC_KNOB_peer_timeout_ms] * MS / 2;
	A->kicks++;
	host_run(A);
	CHECK(d.calls == 0, "still waiting within peer_timeout_ms");
	A->now += A->knob[MRC_KNOB_peer_timeout_ms] * MS;
	A->kicks++;
	host_run(A);
	CHECK(d.calls == 1 && d.status == -EHOSTUNREACH,
	      "fails after peer_timeout_ms: %d %d", d.calls, d.status);
	CHECK(A->mp.ntx == 0, "queue empty");
	unpair();
}

static void tx_run__stall_fails_etimedout(void)
{
	struct done_rec d = { 0 };
	u32 epoch;
	u64 t;
	int err;

	pair();
	epoch = A->mp.epoch;
	host_send_msg(A, NULL, 1000, 0, done_fn, &d, &err);
	/* A black hole: nothing ever reaches B; the paths stay ACTIVE. */
	for (t = 0; t < 5 * A->knob[MRC_KNOB_peer_timeout_ms] && !d.calls;
	     t += 50) {
		drop_all(A);
		A->now = T0 + t * MS;
		A->kicks++;
		host_run(A);
		/* paths answer probes: keep them in the spray set */
		{
			struct mrc_path_params pp;
			unsigned int pi;

			mrc_path_params_default(&pp);
			for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
				mrc_path_event(&A->path[pi], &pp,
					       MRC_PATH_EV_REPLY, A->now,
					       A->now);
		}
	}
	CHECK(d.calls == 1 && d.status == -ETIMEDOUT,
	      "fails with ETIMEDOUT: %d %d", d.calls, d.status);
	CHECK(t >= 4 * A->knob[MRC_KNOB_peer_timeout_ms],
	      "after 4 x peer_timeout_ms: %llu ms", (unsigned long long)t);
	CHECK(A->stalls == 1 && A->stats[MRC_MS_TX_TIMEOUT] == 1,
	      "told and counted");
	CHECK(A->mp.epoch != epoch, "successors start a new epoch");
	unpair();
}

/*
 * B gives up A's epoch (its expiry: 2 x peer_timeout_ms without news
 * while a message waits) long before A's stall timeout (4 x): B's answer
 * to A's next packet of that epoch, a SACK flagged MRC_WF_GONE, fails
 * what A sent of it with -ETIMEDOUT at once, and a message of which
 * nothing went yet goes in a new epoch and arrives.
 */
static void tx_sack__epoch_gone_fails_sent_keeps_unsent(void)
{
	struct done_rec d1 = { 0 }, d2 = { 0 };
	struct host_pkt *hp, late;
	struct mrc_msg_tx *m2;
	u64 idle;
	u32 epoch;
	int err;

	pair();
	idle = 2 * B->knob[MRC_KNOB_peer_timeout_ms] * MS;
	epoch = A->mp.epoch;
	host_send_msg(A, NULL, 3 * SEG, 0, done_fn, &d1, &err);
	hp = host_take(A);		/* packet 0 reaches B ... */
	CHECK(hp && A->nout == 2, "m1's 3 packets went: %u", A->nout);
	if (!hp)
		goto out;
	host_input(B, hp->pi, hp->buf, hp->len);
	hp = host_take(A);		/* ... packet 1 comes late ... */
	late = *hp;
	drop_all(A);			/* ... packet 2 is lost */
	drop_all(B);			/* and so is B's answer */
	A->send_err = -EAGAIN;		/* m2: nothing of it goes yet */
	A->send_err_n = 1;
	m2 = host_send_msg(A, NULL, 100, 0, done_fn, &d2, &err);
	CHECK(m2 && m2->sb.hi_sent == 0, "m2 queued, not sent");
	B->now += idle;
	host_run(B);
	CHECK(B->mp.rx_epoch_gone && B->stats[MRC_MS_RX_EXPIRED] == 1,
	      "B gave A's epoch up");
	CHECK(host_input(B, late.pi, late.buf, late.len) ==
	      MRC_DROP_DUPLICATE && B->stats[MRC_MS_RX_GONE_SACKS] == 1,
	      "the late packet is dropped and answered MRC_WF_GONE");
	A->now = B->now;
	host_pump(B);
	CHECK(d1.calls == 1 && d1.status == -ETIMEDOUT,
	      "m1 fails with ETIMEDOUT at once: %d %d", d1.calls, d1.status);
	CHECK(A->stats[MRC_MS_TX_EPOCH_GONE] == 1 && A->stalls == 0,
	      "counted as tx_epoch_gone, not as a stall");
	CHECK(A->mp.epoch != epoch && m2 && d2.calls == 0 &&
	      m2->msg_id >> 32 == A->mp.epoch &&
	      (u32)m2->msg_id == 9U << MRC_MSG_LANE_SHIFT,
	      "m2 waits in the new epoch, renumbered from 0");
	CHECK(A->credit_resets >= 1, "the credit state is reset");
	host_settle(A, B, B->now + 100 * MS);
	CHECK(d2.calls == 1 && d2.status == 0 && B->ndelivered == 1,
	      "m2 arrives: %d %d, %u delivered", d2.calls, d2.status,
	      B->ndelivered);
out:
	unpair();
}

/*
 * Lane order holds new bytes back only while an earlier message of the
 * lane still has packets never sent: one run sends many small messages
 * of a lane, one after the other (a bug once let one per run go).
 */
static void tx_push__one_run_sends_a_lane(void)
{
	unsigned int i, n = 20, sent;
	int err;

	pair();
	A->send_err = -EAGAIN;		/* the first push finds the ring full */
	A->send_err_n = 1;
	for (i = 0; i < n; i++)
		host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	sent = A->sent_data;
	mrc_msg_tx_run(&A->mp, A->now);
	CHECK(A->sent_data - sent == n - sent, "one run sent the %u left: %u",
	      n - sent, A->sent_data - sent);
	host_settle(A, B, T0 + 1000 * MS);
	CHECK(A->mp.ntx == 0 && B->ndelivered == n, "all delivered: %u",
	      B->ndelivered);
	unpair();
}

/*
 * A lane's first sends stay within MRC_MSG_REFUSED_BEHIND sequence
 * numbers of its oldest queued message: the receiver remembers that many
 * refusals behind delivery, so a resend of a message whose refusal was
 * lost is never answered as delivered (msg_rx.c, Refusal).
 */
static void tx_push__lane_window(void)
{
	unsigned int i, n = MRC_MSG_REFUSED_BEHIND + 6;
	int err, ok = 0;

	pair();
	A->mp.cwnd = 2 * MRC_MSG_REFUSED_BEHIND;	/* not the limit here */
	for (i = 0; i < n; i++)
		ok += !!host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	for (i = 0; i < 4; i++)		/* a run sends a budget: kicks */
		host_run(A);
	CHECK(ok == (int)n && A->sent_data == MRC_MSG_REFUSED_BEHIND,
	      "%d of %u queued, %u sent", ok, n, A->sent_data);
	host_settle(A, B, T0 + 1000 * MS);
	CHECK(A->mp.ntx == 0 && B->ndelivered == n, "then all: %u delivered",
	      B->ndelivered);
	unpair();
}

static unsigned int done_order;

static void order_fn(void *ctx, int status)
{
	*(unsigned int *)ctx = status ? 0 : ++done_order;
}

/*
 * The lanes of a rank take turns: a message to another endpoint (port
 * bucket) queued behind a long queue to one endpoint goes out within a
 * few windows, not after the whole queue.
 */
static void tx_push__lanes_take_turns(void)
{
	unsigned int i, n = 12, x[12] = { 0 }, y = 0;
	int err;

	pair();
	A->mp.cwnd = 8;
	done_order = 0;
	for (i = 0; i < n; i++)
		host_send_msg(A, NULL, 4 * SEG, 0, order_fn, &x[i], &err);
	A->dst_port = 10;
	host_send_msg(A, NULL, 100, 0, order_fn, &y, &err);
	A->dst_port = 0;
	host_settle(A, B, T0 + 1000 * MS);
	CHECK(B->ndelivered == n + 1, "all delivered: %u", B->ndelivered);
	CHECK(y && y < x[n / 2], "port 10's message done as number %u, port "
	      "9's %u-th as number %u", y, n / 2 + 1, x[n / 2]);
	unpair();
}

static void tx_push__ring_full_retries(void)
{
	struct done_rec d = { 0 };
	int err;

	pair();
	A->send_err = -EAGAIN;
	A->send_err_n = 1;
	host_send_msg(A, NULL, 2 * SEG, 0, done_fn, &d, &err);
	CHECK(A->mp.ring_full && A->sent_data == 0,
	      "a full ring stops the push");
	CHECK(A->stats[MRC_MS_TX_RING_FULL] == 1, "counted");
	CHECK(A->armed && A->arm_at - A->now <= 1 * MS,
	      "retried soon: in %llu ns",
	      (unsigned long long)(A->arm_at - A->now));
	host_settle(A, B, T0 + 100 * MS);
	CHECK(d.calls == 1 && d.status == 0, "then sent: %d %d", d.calls,
	      d.status);
	unpair();
}

/*
 * The host may hold the DATA packets of a run to post them together
 * (ops->flush): every run that sent ends with one flush, also a run the
 * full ring stopped.
 */
static void tx_push__run_ends_in_flush(void)
{
	struct done_rec d = { 0 };
	int err;

	pair();
	host_send_msg(A, NULL, 6 * SEG, 0, done_fn, &d, &err);
	CHECK(!err && A->sent_data == 6 && A->staged == 0 && A->flushes == 1,
	      "6 packets sent in one run, flushed once: sent %u, held %u, "
	      "flushes %u", A->sent_data, A->staged, A->flushes);
	A->send_err = -EAGAIN;
	A->send_err_n = 1;
	A->sent_data = 0;
	host_send_msg(A, NULL, 2 * SEG, 0, NULL, NULL, &err);
	CHECK(A->mp.ring_full && A->staged == 0,
	      "a run the full ring stopped is flushed too (held %u)",
	      A->staged);
	host_settle(A, B, T0 + 100 * MS);
	CHECK(d.calls == 1 && d.status == 0 && B->ndelivered == 2,
	      "both delivered: %d %d, %u", d.calls, d.status, B->ndelivered);
	unpair();
}

static void tx_push__latency_first(void)
{
	struct mrc_msg_tx *bulk, *lat;
	struct host_pkt *hp;
	struct mrc_pkt pkt;
	struct mrc_wire_limits lim = { MRC_MSG_MAX_BYTES, 2 };
	int err;

	pair();
	/* Full rings for both send calls' pushes (the second tries lat). */
	A->send_err = -EAGAIN;
	A->send_err_n = 2;
	bulk = host_send_msg(A, NULL, 8 * SEG, MRC_SCHED_CLASS_BULK, NULL,
			     NULL, &err);
	lat = host_send_msg(A, NULL, 100, MRC_SCHED_CLASS_LATENCY, NULL, NULL,
			    &err);
	CHECK(bulk && lat && A->sent_data == 0, "both wait");
	A->kicks++;
	host_run(A);
	hp = host_take(A);
	CHECK(hp && mrc_wire_parse(hp->buf, hp->len, &lim, &pkt) ==
	      MRC_DROP_NONE && lat && pkt.msg_id == lat->msg_id,
	      "the latency message goes first");
	unpair();
}

/* Parses packet @i of @h's queue (not taken) into @pkt. */
static bool peek_pkt(struct host *h, unsigned int i, struct mrc_pkt *pkt)
{
	struct mrc_wire_limits lim = { MRC_MSG_MAX_BYTES, h->peer->node_id };
	struct host_pkt *hp = &h->out[(h->out_head + i) % HOST_OUT_MAX];

	return i < h->nout &&
	       mrc_wire_parse(hp->buf, hp->len, &lim, pkt) == MRC_DROP_NONE;
}

/*
 * A send behind a long queue runs the sender (ops->kick) only if the
 * window has room: with the window full no run could send it, and the
 * SACK that opens the window runs the sender anyway.
 */
static void tx_queue__full_window_no_kick(void)
{
	unsigned int i, kicks;
	int err;

	pair();
	host_send_msg(A, NULL, (MRC_MSG_WINDOW + 6) * SEG, 0, NULL, NULL,
		      &err);
	CHECK(A->mp.inflight == A->mp.cwnd, "the window is full: %u of %u",
	      A->mp.inflight, A->mp.cwnd);
	kicks = A->kicks;
	for (i = 0; i < MRC_MSG_PUSH_NOW_MAX + 2; i++)
		host_send_msg(A, NULL, SEG, 0, NULL, NULL, &err);
	CHECK(A->mp.ntx == MRC_MSG_PUSH_NOW_MAX + 3 && A->kicks == kicks,
	      "%u queued behind a full window: no kick (%u)", A->mp.ntx,
	      A->kicks - kicks);
	host_pump(A);		/* B's SACKs open the window */
	host_pump(B);
	host_run(A);
	CHECK(A->nout > 0, "the SACKs' run sent the queue: %u packets",
	      A->nout);
	host_settle(A, B, A->now + 100 * MS);
	CHECK(A->mp.ntx == 0 && !A->stats[MRC_MS_TX_RETRANS],
	      "all done, nothing resent");
	/* with room in the window, a send behind a long queue kicks */
	A->mp.cwnd = MRC_MSG_WINDOW;
	for (i = 0; i < MRC_MSG_PUSH_NOW_MAX + 1; i++)
		host_send_msg(A, NULL, SEG, 0, NULL, NULL, &err);
	CHECK(A->kicks > kicks, "with room: kicked");
	host_settle(A, B, A->now + 100 * MS);
	CHECK(A->mp.ntx == 0, "all done");
	unpair();
}

/*
 * The last packet of a message says MRC_WF_ACK_NOW only if nothing is
 * queued behind it (the end of a burst, whose tail's loss nothing later
 * would show); a message with another behind it is answered by its
 * completion.  The first message is longer than the window, so its last
 * packet goes after the second message was queued.
 */
static void tx_data__ack_now_ends_a_burst(void)
{
	const u32 n1 = MRC_MSG_WINDOW + 6;
	u16 last1 = 0, last2 = 0;
	struct mrc_pkt pkt;
	unsigned int i;
	int err;

	pair();
	host_send_msg(A, NULL, n1 * SEG, 0, NULL, NULL, &err);
	CHECK(A->nout == MRC_MSG_WINDOW, "a window sent: %u packets", A->nout);
	host_send_msg(A, NULL, 2 * SEG, 0, NULL, NULL, &err);
	CHECK(A->nout == MRC_MSG_WINDOW, "the second message waits: %u",
	      A->nout);
	host_pump(A);		/* B's SACKs open A's window */
	host_pump(B);
	host_run(A);
	for (i = 0; peek_pkt(A, i, &pkt); i++) {
		if (pkt.type != MRC_PKT_DATA || !(pkt.flags & MRC_WF_LAST))
			continue;
		if (pkt.msg_len == n1 * SEG)
			last1 = pkt.flags | MRC_WF_LAST;
		else
			last2 = pkt.flags | MRC_WF_LAST;
	}
	CHECK(last1 && !(last1 & MRC_WF_ACK_NOW),
	      "the first message's last packet, the second queued: no ACK_NOW (flags %#x)",
	      last1);
	CHECK(last2 & MRC_WF_ACK_NOW,
	      "the second's, the last queued: ACK_NOW (flags %#x)", last2);
	host_settle(A, B, A->now + 100 * MS);
	CHECK(A->mp.ntx == 0 && !A->stats[MRC_MS_TX_RETRANS],
	      "both done, nothing resent");
	unpair();
}

/*
 * Version 7, a request and its replies.  A's first message is not a
 * reply (A has received nothing): B's SACK goes at its batch's end.  B's
 * answer is a reply, the only message B has queued: its packet says
 * MRC_WF_ACK_LAZY, and A holds its SACK past the batch's end
 * (ack_holds), the timer armed for the hold's end.  A's reply to that
 * carries the acknowledgment in its second packet (the first is full),
 * before the payload, with the 200 us it waited: B's message completes
 * with no SACK.  Nothing carries A's reply's: at the hold's end B's timer
 * sends it as a SACK (ack_holds_expired) that says it waited 1 ms, which
 * A takes out of its RTT samples.  Two messages queued say nothing:
 * their SACK goes at the batch's end.
 */
static void tx_lazy__reply_carries_ack(void)
{
	struct done_rec d0 = { 0 }, d1 = { 0 }, d2 = { 0 };
	struct mrc_pkt pkt, p1;
	unsigned int pi, n;
	u64 b_id;
	int err;

	pair();
	host_send_msg(A, NULL, 100, 0, done_fn, &d0, &err);
	CHECK(peek_pkt(A, 0, &pkt) && !(pkt.flags & MRC_WF_ACK_LAZY),
	      "a first message is no reply: %#x", pkt.flags);
	host_pump(A);
	CHECK(B->nout == 1 && !B->stats[MRC_MS_ACK_HOLDS],
	      "its SACK at the batch's end: %u sent", B->nout);
	host_pump(B);
	CHECK(d0.calls == 1, "it completed");

	host_send_msg(B, NULL, 100, 0, done_fn, &d1, &err);
	b_id = list_first_entry(&B->mp.txq, struct mrc_msg_tx, node)->msg_id;
	CHECK(peek_pkt(B, 0, &pkt) && (pkt.flags & MRC_WF_ACK_LAZY),
	      "B's answer is a reply, alone: lazy (%#x)", pkt.flags);
	host_pump(B);
	CHECK(A->nout == 0 && A->mp.done_ack.held &&
	      A->stats[MRC_MS_ACK_HOLDS] == 1 && A->armed &&
	      A->arm_at == A->now + MRC_MSG_ACK_HOLD_NS,
	      "A holds the SACK: %u sent, holds %llu, timer in %lld ns",
	      A->nout, (unsigned long long)A->stats[MRC_MS_ACK_HOLDS],
	      (long long)(A->arm_at - A->now));
	A->now = B->now = A->now + 200 * 1000;
	host_send_msg(A, NULL, SEG + 100, 0, done_fn, &d2, &err);
	CHECK(peek_pkt(A, 0, &pkt) && !(pkt.flags & MRC_WF_DONE_MORE) &&
	      (pkt.flags & MRC_WF_ACK_LAZY) && pkt.len == SEG,
	      "A's reply: the first packet full, no list (%#x)", pkt.flags);
	CHECK(peek_pkt(A, 1, &p1) && (p1.flags & MRC_WF_DONE_MORE) &&
	      (p1.flags & MRC_WF_ACK_LAZY) && mrc_wire_done_n(&p1) == 1 &&
	      p1.len == 100 && p1.ack_delay_us == 200,
	      "the second carries the ack: flags %#x, %u entries, len %u, %u us",
	      p1.flags, mrc_wire_done_n(&p1), p1.len, p1.ack_delay_us);
	CHECK(mrc_wire_done_n(&p1) == 1 &&
	      mrc_wire_done_epoch(&p1) == (u32)(b_id >> 32) &&
	      mrc_wire_get_done(&p1, 0) == (u32)b_id, "of B's message");
	host_pump(A);
	CHECK(d1.calls == 1 && d1.status == 0 && B->mp.ntx == 0,
	      "B's message completed: %d calls", d1.calls);
	CHECK(!A->stats[MRC_MS_SACKS_TX] && !B->stats[MRC_MS_SACKS_RX] &&
	      A->stats[MRC_MS_DONE_ON_DATA] == 1 &&
	      B->stats[MRC_MS_DONE_ACKED] == 1,
	      "by the DATA: sacks %llu/%llu, done_on_data %llu, done_acked %llu",
	      (unsigned long long)A->stats[MRC_MS_SACKS_TX],
	      (unsigned long long)B->stats[MRC_MS_SACKS_RX],
	      (unsigned long long)A->stats[MRC_MS_DONE_ON_DATA],
	      (unsigned long long)B->stats[MRC_MS_DONE_ACKED]);
	CHECK(B->nout == 0 && B->mp.done_ack.held && d2.calls == 0,
	      "B holds the SACK of A's reply: %u sent", B->nout);
	hold_end(B);
	CHECK(B->stats[MRC_MS_ACK_HOLDS_EXPIRED] == 1 && B->nout == 1 &&
	      peek_pkt(B, 0, &pkt) && pkt.type == MRC_PKT_SACK &&
	      pkt.ack_delay_us == MRC_MSG_ACK_HOLD_NS / 1000,
	      "at the hold's end a SACK that waited %u us", pkt.ack_delay_us);
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
		A->path[pi].rtt.last_ns = U32_MAX;
	A->now = B->now = A->now + 50 * 1000;
	host_pump(B);
	CHECK(d2.calls == 1 && d2.status == 0, "A's reply completed");
	for (pi = 0, n = 0; pi < MRC_MSG_NPATHS; pi++) {
		if (A->path[pi].rtt.last_ns == U32_MAX)
			continue;
		n++;
		CHECK(A->path[pi].rtt.last_ns == 50 * 1000,
		      "path %u sampled %u ns, not the 50 us wire",
		      pi, A->path[pi].rtt.last_ns);
	}
	CHECK(n >= 1, "the SACK gave samples: %u paths", n);

	/* two messages queued: no hold */
	host_send_msg(B, NULL, 100, 0, NULL, NULL, &err);
	host_send_msg(B, NULL, 100, 0, NULL, NULL, &err);
	CHECK(peek_pkt(B, 1, &pkt) && !(pkt.flags & MRC_WF_ACK_LAZY),
	      "the second of two is not lazy: %#x", pkt.flags);
	host_pump(B);
	CHECK(A->nout == 1 && A->stats[MRC_MS_ACK_HOLDS] == 1,
	      "their SACK at the batch's end: %u sent, holds %llu", A->nout,
	      (unsigned long long)A->stats[MRC_MS_ACK_HOLDS]);
	host_settle(A, B, A->now + 100 * MS);
	CHECK(A->mp.ntx == 0 && B->mp.ntx == 0, "all done");
	unpair();
}

/*
 * A sends a message and B answers it with a reply, the only message it
 * has queued (lazy): A holds the reply's acknowledgment for a DATA of its
 * own.
 */
static void a_holds_reply(struct done_rec *d0, struct done_rec *d1)
{
	int err;

	host_send_msg(A, NULL, 100, 0, done_fn, d0, &err);
	host_pump(A);
	host_pump(B);
	host_send_msg(B, NULL, 100, 0, done_fn, d1, &err);
	host_pump(B);
	CHECK(d0->calls == 1 && A->mp.done_ack.held, "A holds B's ack");
}

/*
 * A DATA that would carry held acknowledgments but whose send fails (a
 * full ring) leaves them held: the resend carries them.
 */
static void tx_lazy__failed_send_keeps_ack(void)
{
	struct done_rec d0 = { 0 }, d1 = { 0 };
	struct mrc_pkt pkt;
	int err;

	pair();
	a_holds_reply(&d0, &d1);
	A->send_err = -EAGAIN;
	A->send_err_n = 1;
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	CHECK(A->nout == 0 && A->mp.done_ack.valid &&
	      !A->stats[MRC_MS_DONE_ON_DATA] && A->armed,
	      "the send failed: the ack still held (%d), done_on_data %llu",
	      A->mp.done_ack.valid,
	      (unsigned long long)A->stats[MRC_MS_DONE_ON_DATA]);
	A->now = B->now = A->arm_at;
	host_run(A);
	CHECK(peek_pkt(A, 0, &pkt) && pkt.type == MRC_PKT_DATA &&
	      mrc_wire_done_n(&pkt) == 1 &&
	      A->stats[MRC_MS_DONE_ON_DATA] == 1,
	      "the resend carries it: %u entries",
	      pkt.type == MRC_PKT_DATA ? mrc_wire_done_n(&pkt) : 0);
	host_pump(A);
	CHECK(d1.calls == 1 && d1.status == 0, "B's message completed");
	host_settle(A, B, A->now + 100 * MS);
	unpair();
}

/* Moves both clocks @us microseconds on. */
static void both_later(u32 us)
{
	A->now = B->now = A->now + (u64)us * 1000;
}

/* The RTO @h's loss scan would give a packet on its path @pi now. */
static u64 rto_now(struct host *h, unsigned int pi)
{
	struct mrc_msg_cb cb;

	mrc_msg_cb_init(&cb, &h->mp, h->now);
	return mrc_path_rto(h->mp.path[pi], &cb.pp);
}

/*
 * A fast fabric (a 20 us wire each way): the RTO floor B learns from its
 * SACKs is below MRC_MSG_ACK_HOLD_NS.  B's lazy reply, whose
 * acknowledgment A holds for the whole hold, is not taken for lost while
 * A's SACK is on the wire: its RTO counts the hold.  A lazy reply that
 * is lost is still resent, once the hold and the RTO have passed.
 */
static void tx_lazy__rto_allows_hold(void)
{
	struct done_rec da = { 0 }, db = { 0 }, dc = { 0 }, dd = { 0 };
	struct host_pkt *hp;
	unsigned int i, pi;
	u64 t, rto;
	int err;

	pair();
	for (i = 0; i < 2 * MRC_MSG_FLOOR_SAMPLES; i++) {
		host_send_msg(B, NULL, 100, 0, NULL, NULL, &err);
		both_later(20);
		host_pump(B);
		both_later(20);
		host_pump(A);
	}
	CHECK(B->mp.ntx == 0, "B's one-way messages completed");

	host_send_msg(A, NULL, 100, 0, done_fn, &da, &err);	/* a reply */
	both_later(20);
	host_pump(A);
	CHECK(B->mp.done_ack.held, "B holds A's ack");
	host_send_msg(B, NULL, 100, 0, done_fn, &db, &err);	/* a reply */
	t = B->now;
	pi = B->out[B->out_head].pi;
	rto = rto_now(B, pi);
	CHECK(rto + 100 * 1000 < MRC_MSG_ACK_HOLD_NS,
	      "a fast fabric: B's RTO %llu ns, below the hold",
	      (unsigned long long)rto);
	both_later(20);
	host_pump(B);
	CHECK(da.calls == 1 && A->mp.done_ack.held,
	      "B's reply carried the ack; A holds B's");
	hold_end(A);
	CHECK(A->nout == 1 && A->stats[MRC_MS_ACK_HOLDS_EXPIRED] == 1,
	      "A's SACK leaves at the hold's end");
	both_later(20);		/* on the wire: B's timer runs first */
	B->kicks++;
	host_run(B);
	CHECK(!B->stats[MRC_MS_RTO_PKTS] && !B->stats[MRC_MS_TX_RETRANS],
	      "%llu us after B's reply went: no RTO (rto_pkts %llu)",
	      (unsigned long long)(B->now - t) / 1000,
	      (unsigned long long)B->stats[MRC_MS_RTO_PKTS]);
	host_pump(A);
	CHECK(db.calls == 1 && db.status == 0, "A's SACK completed it");

	/* A lazy reply lost: found after the hold and the RTO */
	host_send_msg(A, NULL, 100, 0, done_fn, &dc, &err);
	both_later(20);
	host_pump(A);
	host_send_msg(B, NULL, 100, 0, done_fn, &dd, &err);
	t = B->now;
	hp = host_take(B);
	CHECK(hp && B->nout == 0, "B's reply is lost");
	pi = hp->pi;
	B->now = A->now = t + MRC_MSG_ACK_HOLD_NS + rto_now(B, pi) - 20000;
	B->kicks++;
	host_run(B);
	CHECK(!B->stats[MRC_MS_RTO_PKTS], "not yet, 20 us before");
	B->now = A->now = t + MRC_MSG_ACK_HOLD_NS + rto_now(B, pi) + 20000;
	B->kicks++;
	host_run(B);
	CHECK(B->stats[MRC_MS_RTO_PKTS] == 1 &&
	      B->stats[MRC_MS_TX_RETRANS] == 1,
	      "20 us after: lost and resent (rto_pkts %llu, retrans %llu)",
	      (unsigned long long)B->stats[MRC_MS_RTO_PKTS],
	      (unsigned long long)B->stats[MRC_MS_TX_RETRANS]);
	host_settle(A, B, A->now + 100 * MS);
	CHECK(dc.calls == 1 && !dc.status && dd.calls == 1 && !dd.status,
	      "both completed: %d/%d, %d/%d", dc.calls, dc.status,
	      dd.calls, dd.status);
	unpair();
}

/* The cumulative point of SACK @pkt: packets before it all arrived. */
static u32 sack_cum(const struct mrc_pkt *pkt)
{
	struct mrc_pkt_sack sack;

	mrc_wire_get_sack(pkt, &sack);
	return sack.cum;
}

/*
 * A lazy reply of two packets whose second arrives first, in a batch of
 * its own: that batch's end sends a SACK of it, which shows the first
 * missing.  Its sender has seen a later packet acked: the completion's
 * SACK, when the first arrives, is not held for a DATA (the sender would
 * find the first lost and resend it), but goes at the batch's end.  In
 * order, the same reply's is held.
 */
static void tx_lazy__hole_shown_not_held(void)
{
	struct host_pkt first, *hp;
	struct done_rec d0 = { 0 }, d1 = { 0 };
	struct mrc_pkt pkt;
	u64 holds;
	int err;

	pair();
	host_send_msg(A, NULL, 100, 0, done_fn, &d0, &err);
	host_pump(A);
	host_pump(B);
	CHECK(d0.calls == 1, "A's request acked");
	host_send_msg(B, NULL, SEG + 100, 0, done_fn, &d1, &err);
	CHECK(B->nout == 2 && peek_pkt(B, 1, &pkt) &&
	      (pkt.flags & MRC_WF_ACK_LAZY),
	      "B's reply: two packets, lazy (%u)", B->nout);
	holds = A->stats[MRC_MS_ACK_HOLDS];
	hp = host_take(B);
	first = *hp;		/* held back: the second overtakes it */
	hp = host_take(B);
	host_input(A, hp->pi, hp->buf, hp->len);
	host_batch_end(A);
	CHECK(A->nout == 1 && peek_pkt(A, 0, &pkt) &&
	      pkt.type == MRC_PKT_SACK && sack_cum(&pkt) == 0,
	      "the second's SACK shows the first missing");
	host_pump(A);
	host_input(A, first.pi, first.buf, first.len);
	host_batch_end(A);
	CHECK(A->stats[MRC_MS_ACK_HOLDS] == holds && !A->mp.done_ack.valid &&
	      A->nout == 1 && peek_pkt(A, 0, &pkt) &&
	      pkt.type == MRC_PKT_SACK,
	      "completed: its SACK at the batch's end, not held (holds %llu)",
	      (unsigned long long)(A->stats[MRC_MS_ACK_HOLDS] - holds));
	host_pump(A);
	CHECK(d1.calls == 1 && d1.status == 0 && !B->stats[MRC_MS_TX_RETRANS],
	      "B's reply completed, nothing resent");

	/* in order: held */
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	host_pump(A);
	host_send_msg(B, NULL, SEG + 100, 0, NULL, NULL, &err);
	host_pump(B);
	CHECK(A->stats[MRC_MS_ACK_HOLDS] == holds + 1 && A->mp.done_ack.held,
	      "in order, the same reply's SACK is held");
	host_settle(A, B, A->now + 100 * MS);
	unpair();
}

/*
 * Timer (msg_tx.c).  A message alone, acknowledged: the deadline its
 * send queued (its RTO) has no reason left, and the SACK takes it back.
 */
static void tx_timer__acked_queue_disarms(void)
{
	int err;

	pair();
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	CHECK(A->armed && A->mp.timer_ns == A->arm_at,
	      "the send armed the timer for its RTO");
	both_later(50);
	host_pump(A);
	both_later(50);
	host_pump(B);
	CHECK(A->mp.ntx == 0 && !A->armed && A->disarms == 1 &&
	      A->stats[MRC_MS_TIMER_MOVED] == 1 && !A->mp.timer_ns,
	      "acked: the timer taken back (armed %d, %u disarms)",
	      A->armed, A->disarms);
	host_settle(A, B, A->now + 100 * MS);
	CHECK(!A->timer_runs && !A->stats[MRC_MS_TIMER_IDLE],
	      "no run of the timer: %u", A->timer_runs);
	unpair();
}

/*
 * A request and its reply, 200 times, 50 us a hop: each reply carries
 * the acknowledgment of the request it answers, and the next request
 * that of the reply (MRC_WF_ACK_LAZY).  Every deadline queued (a send's
 * RTO, a hold's end) loses its reason before it comes due: a SACK takes
 * back an RTO's, a held acknowledgment that leaves on a DATA moves the
 * timer to the send's own deadline.  No timer runs on either side.
 * After the last reply, A's timer stands for the end of its hold, and
 * B's for its reply; A's SACK at the hold's end leaves neither armed.
 */
static void tx_timer__exchange_runs_none(void)
{
	unsigned int i;
	int err;

	pair();
	for (i = 0; i < 200; i++) {
		host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
		both_later(50);
		host_pump(A);
		host_run(A);
		host_run(B);
		host_send_msg(B, NULL, 100, 0, NULL, NULL, &err);
		both_later(50);
		host_pump(B);
		host_run(A);
		host_run(B);
	}
	CHECK(A->ncompleted == 200 && B->ncompleted == 199 &&
	      A->stats[MRC_MS_DONE_ON_DATA] == 199 &&
	      B->stats[MRC_MS_DONE_ON_DATA] == 199,
	      "completed %u and %u, by a DATA %llu and %llu",
	      A->ncompleted, B->ncompleted,
	      (unsigned long long)A->stats[MRC_MS_DONE_ON_DATA],
	      (unsigned long long)B->stats[MRC_MS_DONE_ON_DATA]);
	CHECK(!A->timer_runs && !B->timer_runs,
	      "no timer ran: %u and %u", A->timer_runs, B->timer_runs);
	CHECK(A->stats[MRC_MS_TIMER_MOVED] >= 199 &&
	      B->stats[MRC_MS_TIMER_MOVED] >= 199,
	      "moved or taken back %llu and %llu times",
	      (unsigned long long)A->stats[MRC_MS_TIMER_MOVED],
	      (unsigned long long)B->stats[MRC_MS_TIMER_MOVED]);
	CHECK(A->mp.ntx == 0 && A->mp.done_ack.held && A->armed &&
	      A->arm_at == A->mp.done_ack.since_ns + MRC_MSG_ACK_HOLD_NS,
	      "A: nothing queued, the timer at its hold's end (in %lld ns)",
	      (long long)(A->arm_at - A->now));
	CHECK(B->mp.ntx == 1 && B->armed && B->arm_at == B->mp.tx_due_ns &&
	      B->arm_at > A->arm_at,
	      "B: its reply's deadline, after A's hold (%lld ns later)",
	      (long long)(B->arm_at - A->arm_at));
	hold_end(A);
	CHECK(A->stats[MRC_MS_ACK_HOLDS_EXPIRED] == 1 && !A->armed &&
	      A->timer_runs == 1 && !A->stats[MRC_MS_TIMER_IDLE],
	      "A's hold ended: a SACK, the timer not armed again");
	host_pump(A);
	CHECK(B->mp.ntx == 0 && !B->armed && !B->timer_runs,
	      "B's reply acked: its timer taken back (%d)", B->armed);
	host_settle(A, B, A->now + 100 * MS);
	CHECK(!B->timer_runs && !B->stats[MRC_MS_TIMER_IDLE] &&
	      !A->stats[MRC_MS_TIMER_IDLE], "no idle run");
	unpair();
}

/*
 * A deadline moved later still comes: A's request carries the
 * acknowledgment A held, and A's timer moves from the hold's end to the
 * request's RTO; B's reply carries the request's, and B's timer moves
 * from its hold's end to the reply's RTO.  The reply is lost: B resends
 * it when that RTO comes, and both end with no timer armed.
 */
static void tx_timer__moved_deadline_still_resends(void)
{
	struct done_rec d0 = { 0 }, d1 = { 0 }, d2 = { 0 };
	int err;

	pair();
	a_holds_reply(&d0, &d1);
	host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	CHECK(A->stats[MRC_MS_DONE_ON_DATA] == 1 && A->armed &&
	      A->arm_at == A->mp.tx_due_ns,
	      "the request carried the ack: the timer at its RTO");
	both_later(50);
	host_pump(A);
	host_run(B);
	host_send_msg(B, NULL, 100, 0, done_fn, &d2, &err);
	CHECK(B->armed && B->arm_at == B->mp.tx_due_ns &&
	      B->stats[MRC_MS_TIMER_MOVED] >= 1,
	      "B's reply carried its ack: B's timer moved to the reply's RTO");
	CHECK(drop_all(B) == 1, "the reply is lost");
	host_settle(A, B, A->now + 100 * MS);
	CHECK(B->stats[MRC_MS_TX_RETRANS] == 1 && B->timer_runs >= 1 &&
	      d2.calls == 1 && d2.status == 0,
	      "resent at its RTO (%llu) and completed",
	      (unsigned long long)B->stats[MRC_MS_TX_RETRANS]);
	CHECK(A->mp.ntx == 0 && B->mp.ntx == 0 && !A->armed && !B->armed,
	      "all done, no timer left armed");
	unpair();
}

/*
 * A holds B's lazy reply's acknowledgment, and B's next message (not
 * lazy: the reply is still queued) arrives in part: the SACK within it
 * acks packets sent after the reply's, so the held one goes with it,
 * else B would find its reply lost.  So does a SACK that goes at once,
 * a refusal's.
 */
static void tx_lazy__step_sack_takes_held(void)
{
	struct done_rec d0 = { 0 }, d1 = { 0 }, d2 = { 0 };
	struct host_pkt *hp;
	int err;

	pair();
	a_holds_reply(&d0, &d1);
	host_send_msg(B, NULL, 2 * MRC_MSG_SACK_EVERY * SEG, 0, NULL, NULL,
		      &err);
	while (!A->mp.step_ack.n && (hp = host_take(B)))
		host_input(A, hp->pi, hp->buf, hp->len);
	CHECK(A->mp.step_ack.n == 1 && B->nout > 0,
	      "a SACK within B's second message waits for the batch's end");
	host_batch_end(A);
	CHECK(!A->mp.done_ack.valid && A->nout == 2,
	      "the batch's end sends it and the held one: %u sent",
	      A->nout);
	host_pump(A);
	CHECK(d1.calls == 1 && d1.status == 0 &&
	      !B->stats[MRC_MS_TX_RETRANS], "B's reply completed");
	host_settle(A, B, A->now + 100 * MS);
	CHECK(A->mp.ntx == 0 && B->mp.ntx == 0, "all done");

	/* a refusal's SACK, sent at once, takes it along too */
	host_send_msg(A, NULL, 100, 0, done_fn, &d0, &err);
	host_pump(A);
	host_send_msg(B, NULL, 100, 0, done_fn, &d1, &err);	/* a reply */
	host_pump(B);
	CHECK(d0.calls == 2 && A->mp.done_ack.held, "A holds B's ack");
	A->closed_port = 11;
	B->dst_port = 11;
	host_send_msg(B, NULL, 100, 0, done_fn, &d2, &err);
	host_pump(B);
	CHECK(!A->mp.done_ack.valid && A->nout == 2,
	      "the refusal and the held ack went: %u sent", A->nout);
	host_pump(A);
	CHECK(d1.calls == 2 && d1.status == 0 && d2.calls == 1 &&
	      d2.status == -ECONNREFUSED && !B->stats[MRC_MS_TX_RETRANS],
	      "B's reply completed, its next refused (%d)", d2.status);
	unpair();
}

static void tx_push__bulk_yields_to_latency(void)
{
	int err;

	pair();
	/* A latency message was just seen on this node. */
	WRITE_ONCE(A->node.lat_ns, A->now);
	host_send_msg(A, NULL, 32 * SEG, MRC_SCHED_CLASS_BULK, NULL, NULL,
		      &err);
	CHECK(A->sent_data == A->knob[MRC_KNOB_bulk_yield_pkts],
	      "bulk keeps bulk_yield_pkts in flight: %u", A->sent_data);
	CHECK(A->stats[MRC_MS_BULK_YIELDS] > 0, "counted");
	A->now += 30 * MS;		/* the latency traffic is over */
	A->kicks++;
	host_run(A);
	CHECK(A->stats[MRC_MS_TX_PKTS] - A->stats[MRC_MS_TX_RETRANS] == 32,
	      "then the rest goes: %llu of 32 new packets",
	      (unsigned long long)(A->stats[MRC_MS_TX_PKTS] -
				   A->stats[MRC_MS_TX_RETRANS]));
	unpair();
}

/*
 * Pairs A and B, queues a 4-packet message on A whose packets are lost,
 * and writes into @buf a NACK for its packets 1 and 2 from B, header
 * time @tstamp (the receiver's clock, never 0).  Returns the message
 * (NULL if it could not be queued); *@len is the NACK's length.
 */
static struct mrc_msg_tx *nack_prep(u8 *buf, struct mrc_pkt *pkt,
				    u64 tstamp, u32 *len)
{
	struct mrc_pkt_nack_range r = { .first = 1, .count = 2 };
	struct mrc_msg_tx *m;
	int err;

	memset(pkt, 0, sizeof(*pkt));
	pkt->version = MRC_WIRE_VERSION;
	pkt->type = MRC_PKT_NACK;
	pkt->src_node = 2;
	pkt->dst_node = 1;
	pkt->tstamp = tstamp;
	pair();
	m = host_send_msg(A, NULL, 4 * SEG, 0, NULL, NULL, &err);
	drop_all(A);
	CHECK(m != NULL, "queued");
	if (!m)
		return NULL;
	pkt->msg_id = m->msg_id;
	pkt->len = mrc_wire_put_nack(buf + MRC_WIRE_HDR_LEN, &r, 1);
	mrc_wire_put_hdr(buf, pkt);
	*len = MRC_WIRE_HDR_LEN + pkt->len;
	return m;
}

static void tx_nack__resends_ranges(void)
{
	u8 buf[MRC_WIRE_HDR_LEN + 8 * MRC_WIRE_NACK_MAX];
	struct mrc_pkt pkt;
	u32 len;

	if (!nack_prep(buf, &pkt, 1000, &len))
		goto out;
	CHECK(host_input(A, 0, buf, len) == MRC_DROP_NONE, "taken");
	CHECK(A->kicks > 0, "kicked");
	A->kicks = 1;
	host_run(A);
	CHECK(A->stats[MRC_MS_TX_RETRANS] == 2, "packets 1 and 2 resent: %llu",
	      (unsigned long long)A->stats[MRC_MS_TX_RETRANS]);
out:
	unpair();
}

/*
 * A NACK of packets sent less than their own path's reordering allowance
 * ago (srtt 100 ms: a plane behind a deep queue, while the receiver timed
 * the holes by a fast plane) resends nothing: they may still be on their
 * way (nack_early_pkts).  The same holes NACKed once the allowance has
 * passed are lost.
 */
static void tx_nack__early_on_slow_path(void)
{
	u8 buf[MRC_WIRE_HDR_LEN + 8 * MRC_WIRE_NACK_MAX];
	struct mrc_msg_tx *m;
	struct mrc_pkt pkt;
	u32 len, i;

	m = nack_prep(buf, &pkt, 1000, &len);
	if (!m)
		goto out;
	for (i = 1; i <= 2; i++) {
		struct mrc_path *p = A->mp.path[m->sb.path[i]];

		p->rtt.srtt_ns = 100 * MS;
		p->rtt.rttvar_ns = 1 * MS;
	}
	A->now += 30 * MS;
	CHECK(host_input(A, 0, buf, len) == MRC_DROP_NONE, "taken");
	CHECK(mrc_txsb_state(&m->sb, 1) == MRC_TXSB_INFLIGHT &&
	      mrc_txsb_state(&m->sb, 2) == MRC_TXSB_INFLIGHT,
	      "30 ms after they went: still in flight");
	CHECK(A->stats[MRC_MS_NACK_EARLY_PKTS] == 2, "nack_early_pkts %llu",
	      (unsigned long long)A->stats[MRC_MS_NACK_EARLY_PKTS]);
	A->now += 200 * MS;
	pkt.tstamp = 2000;
	mrc_wire_put_hdr(buf, &pkt);
	CHECK(host_input(A, 0, buf, len) == MRC_DROP_NONE, "the next taken");
	CHECK(mrc_txsb_state(&m->sb, 1) == MRC_TXSB_LOST &&
	      mrc_txsb_state(&m->sb, 2) == MRC_TXSB_LOST,
	      "230 ms after they went: lost");
	CHECK(A->stats[MRC_MS_NACK_EARLY_PKTS] == 2, "not early: %llu",
	      (unsigned long long)A->stats[MRC_MS_NACK_EARLY_PKTS]);
out:
	unpair();
}

/*
 * The same NACK again (recorded and replayed), or an older one, resends
 * nothing (MRC_DROP_REPLAYED, nacks_replayed); a later one does.
 */
static void tx_nack__replay_dropped(void)
{
	u8 buf[MRC_WIRE_HDR_LEN + 8 * MRC_WIRE_NACK_MAX];
	struct mrc_pkt pkt;
	u64 retrans;
	u32 len;
	int i;

	if (!nack_prep(buf, &pkt, 5000, &len))
		goto out;
	CHECK(host_input(A, 0, buf, len) == MRC_DROP_NONE, "the first taken");
	A->kicks = 1;
	host_run(A);
	drop_all(A);
	retrans = A->stats[MRC_MS_TX_RETRANS];
	CHECK(retrans == 2, "resent: %llu", (unsigned long long)retrans);
	for (i = 0; i < 10; i++)
		CHECK(host_input(A, 0, buf, len) ==
		      MRC_DROP_REPLAYED, "replay %d", i);
	pkt.tstamp = 4999;
	mrc_wire_put_hdr(buf, &pkt);
	CHECK(host_input(A, 0, buf, len) ==
	      MRC_DROP_REPLAYED, "an older one");
	A->kicks = 1;
	host_run(A);
	drop_all(A);
	CHECK(A->stats[MRC_MS_TX_RETRANS] == retrans,
	      "replays resent %llu packets",
	      (unsigned long long)(A->stats[MRC_MS_TX_RETRANS] - retrans));
	CHECK(A->stats[MRC_MS_NACKS_REPLAYED] == 11, "nacks_replayed %llu",
	      (unsigned long long)A->stats[MRC_MS_NACKS_REPLAYED]);
	pkt.tstamp = 5001;
	mrc_wire_put_hdr(buf, &pkt);
	CHECK(host_input(A, 0, buf, len) ==
	      MRC_DROP_NONE, "a later one taken");
	A->kicks = 1;
	host_run(A);
	CHECK(A->stats[MRC_MS_TX_RETRANS] == retrans + 2, "resent again: %llu",
	      (unsigned long long)A->stats[MRC_MS_TX_RETRANS]);
out:
	unpair();
}

static void tx_restarted__renumbers_and_resends(void)
{
	struct host_pkt *hp;
	struct mrc_msg_tx *m1, *m2;
	struct done_rec d = { 0 };
	u32 epoch;
	int err;

	pair();
	m1 = host_send_msg(A, NULL, 3 * SEG, 0, done_fn, &d, &err);
	m2 = host_send_msg(A, NULL, 100, 0, NULL, NULL, &err);
	drop_all(A);
	/* A holds the answer to a message of B's, its batch not ended */
	host_send_msg(B, NULL, 100, 0, NULL, NULL, &err);
	hp = host_take(B);
	CHECK(hp && host_input(A, hp->pi, hp->buf, hp->len) ==
	      MRC_DROP_NONE && host_batch_end_flushes(A), "an answer held");
	A->ack_held = false;
	epoch = A->mp.epoch;
	mrc_msg_tx_restarted(&A->mp, A->now);
	CHECK(!host_batch_end_flushes(A), "the held answer dropped");
	CHECK(A->mp.epoch != epoch, "a new epoch");
	CHECK(m1 && m2 && (u32)m1->msg_id == 9U << MRC_MSG_LANE_SHIFT &&
	      (u32)m2->msg_id == (9U << MRC_MSG_LANE_SHIFT | 1),
	      "renumbered from 0 in queue order (lane 9: port 9)");
	CHECK(A->mp.inflight == 0 && mrc_txsb_inflight(&m1->sb) == 0,
	      "nothing in flight");
	CHECK(A->credit_resets == 1, "its credit state is reset");
	CHECK(A->stats[MRC_MS_PEER_RESTARTS] == 1, "counted");
	host_settle(A, B, T0 + 100 * MS);
	CHECK(d.calls == 1 && d.status == 0 && B->ndelivered == 2,
	      "both arrive: %d %d %u", d.calls, d.status, B->ndelivered);
	unpair();
}

static void tx_fail_all__releases_everything(void)
{
	struct done_rec d[2] = { 0 };
	unsigned int pi;
	u64 inflight = 0;
	int err;

	pair();
	host_send_msg(A, NULL, 10 * SEG, 0, done_fn, &d[0], &err);
	host_send_msg(A, NULL, 10 * SEG, 0, done_fn, &d[1], &err);
	mrc_msg_tx_fail_all(&A->mp, -EHOSTUNREACH, A->now);
	host_finish(A);
	CHECK(d[0].status == -EHOSTUNREACH && d[1].status == -EHOSTUNREACH,
	      "both fail");
	for (pi = 0; pi < MRC_MSG_NPATHS; pi++)
		inflight += A->path[pi].inflight_pkts;
	CHECK(inflight == 0 && A->mp.inflight == 0, "no path holds a packet");
	CHECK(A->stats[MRC_MS_TX_FAILED] == 2, "tx_failed %llu",
	      (unsigned long long)A->stats[MRC_MS_TX_FAILED]);
	unpair();
}

static const struct tap_test tests[] = {
	{ "tx_sack__refused_fails_econnrefused",
	  tx_sack__refused_fails_econnrefused },
	{ "tx_sack__refused_before_all_went",
	  tx_sack__refused_before_all_went },
	{ "tx_sack__busy_waits_probes_never_times_out",
	  tx_sack__busy_waits_probes_never_times_out },
	{ "tx_sack__busy_one_probe_per_lane", tx_sack__busy_one_probe_per_lane },
	{ "tx_alloc__bounds", tx_alloc__bounds },
	{ "tx_alloc__no_memory", tx_alloc__no_memory },
	{ "tx_queue__ids_per_lane", tx_queue__ids_per_lane },
	{ "tx_queue__enobufs", tx_queue__enobufs },
	{ "tx_queue__fair_share_per_owner", tx_queue__fair_share_per_owner },
	{ "tx_queue__idle_sends_window_at_once",
	  tx_queue__idle_sends_window_at_once },
	{ "tx_queue__short_queue_sends_at_once",
	  tx_queue__short_queue_sends_at_once },
	{ "tx_sack__last_ack_no_kick", tx_sack__last_ack_no_kick },
	{ "tx_sack__completes_and_frees", tx_sack__completes_and_frees },
	{ "tx_sack__stale_and_forged", tx_sack__stale_and_forged },
	{ "tx_sack__done_list_completes", tx_sack__done_list_completes },
	{ "tx_sack__done_list_forged", tx_sack__done_list_forged },
	{ "tx_sack__every_acked_path_sampled",
	  tx_sack__every_acked_path_sampled },
	{ "tx_run__rto_resends", tx_run__rto_resends },
	{ "tx_run__old_ack_not_later", tx_run__old_ack_not_later },
	{ "tx_run__rto_on_delivering_path", tx_run__rto_on_delivering_path },
	{ "tx_sack__cut_after_idle_wrap", tx_sack__cut_after_idle_wrap },
	{ "tx_path_down__resends_elsewhere", tx_path_down__resends_elsewhere },
	{ "tx_run__unreachable_fails_ehostunreach",
	  tx_run__unreachable_fails_ehostunreach },
	{ "tx_run__stall_fails_etimedout", tx_run__stall_fails_etimedout },
	{ "tx_sack__epoch_gone_fails_sent_keeps_unsent",
	  tx_sack__epoch_gone_fails_sent_keeps_unsent },
	{ "tx_sack__busy_gives_up_credit_schedule",
	  tx_sack__busy_gives_up_credit_schedule },
	{ "tx_push__new_bytes_in_lane_order", tx_push__new_bytes_in_lane_order },
	{ "tx_push__one_run_sends_a_lane", tx_push__one_run_sends_a_lane },
	{ "tx_push__lane_window", tx_push__lane_window },
	{ "tx_push__lanes_take_turns", tx_push__lanes_take_turns },
	{ "tx_push__ring_full_retries", tx_push__ring_full_retries },
	{ "tx_push__run_ends_in_flush", tx_push__run_ends_in_flush },
	{ "tx_push__latency_first", tx_push__latency_first },
	{ "tx_push__bulk_yields_to_latency", tx_push__bulk_yields_to_latency },
	{ "tx_nack__resends_ranges", tx_nack__resends_ranges },
	{ "tx_nack__replay_dropped", tx_nack__replay_dropped },
	{ "tx_nack__early_on_slow_path", tx_nack__early_on_slow_path },
	{ "tx_timer__short_queue_runs_in_timer",
	  tx_timer__short_queue_runs_in_timer },
	{ "tx_restarted__renumbers_and_resends",
	  tx_restarted__renumbers_and_resends },
	{ "tx_fail_all__releases_everything", tx_fail_all__releases_everything },
	{ "tx_data__ack_now_ends_a_burst", tx_data__ack_now_ends_a_burst },
	{ "tx_queue__full_window_no_kick", tx_queue__full_window_no_kick },
	{ "tx_lazy__reply_carries_ack", tx_lazy__reply_carries_ack },
	{ "tx_lazy__failed_send_keeps_ack", tx_lazy__failed_send_keeps_ack },
	{ "tx_lazy__rto_allows_hold", tx_lazy__rto_allows_hold },
	{ "tx_lazy__step_sack_takes_held", tx_lazy__step_sack_takes_held },
	{ "tx_lazy__hole_shown_not_held", tx_lazy__hole_shown_not_held },
	{ "tx_timer__acked_queue_disarms", tx_timer__acked_queue_disarms },
	{ "tx_timer__exchange_runs_none", tx_timer__exchange_runs_none },
	{ "tx_timer__moved_deadline_still_resends",
	  tx_timer__moved_deadline_still_resends },
};

int main(void)
{
	return tap_run(tests, ARRAY_SIZE(tests));
}
