// SPDX-License-Identifier: GPL-2.0
/*
 * credit.c - receiver-driven credits in the simulator: what the module's
 * mrc/credit_peer.c (sender, credit packets) and mrc/credit_pacer.c (the
 * receiver's pacer) are around mrc/core/credit_*.c, which run here
 * unchanged.  Those two files hold kernel glue (locks, hrtimer, rails,
 * netlink counters) and cannot be built in user space; this file makes
 * the same calls into core, in the same order, from simulator events:
 *
 * - sender: one struct mrc_credit_tx per peer; ops->credit_may asks
 *   mrc_credit_tx_start()/may_send()/sent() before new bytes go, sends a
 *   CREDIT_REQ with a message's first packet and repeats it once the
 *   request timeout, or the peer's RTO floor if sooner, passed while
 *   starved; a GRANT is taken by
 *   mrc_credit_tx_grant() and sends the granted bytes at once
 *   (mrc_msg_tx_push_now(), as mrc_msg_push_now());
 * - receiver: one struct mrc_credit_rx per host (256 senders, as
 *   MRC_CREDIT_TABLE), created with the first CREDIT_REQ; new DATA
 *   payload is charged by mrc_credit_rx_data(); the pacer is one event
 *   per host (the hrtimer), with the module's period (two grant units'
 *   drain, 100 us .. 2 ms) and data arrivals running a pace that is due
 *   (by time, or by MRC_CREDIT_PACE_DATA_UNITS units arrived);
 * - with the credit knob off, a receiver grants a whole message at once
 *   (sequence 2^31 - 1) and a sender sends without asking.
 *
 * The parameters are mrc_credit_params()'s, from the same knobs, with
 * the host's drain rate taken from its planes' rate as the module takes
 * it from its rails' speed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

/* mrc/credit_int.h's constants (that header is kernel-only). */
#define CREDIT_TABLE		256
#define CREDIT_UNIT		MRC_WIRE_MAX_PAYLOAD
#define CREDIT_PACE_MIN_NS	(100 * NSEC_PER_USEC)
#define CREDIT_PACE_MAX_NS	(2 * NSEC_PER_MSEC)
#define CREDIT_SEQ_ALL		0x7fffffffU
/* credit_peer.c's MRC_CREDIT_WIRE_OVERHEAD: mrc's header and RoCEv2's. */
#define CREDIT_WIRE_OVERHEAD	(MRC_WIRE_HDR_LEN + 66)

static u32 credit_unsched(void)
{
	u32 u = g->knob[MRC_KNOB_credit_unsched_bytes];

	if (!u)
		return 0;
	return max_t(u32, CREDIT_UNIT, u - u % CREDIT_UNIT);
}

/* The host's drain rate in payload bytes/s (mrc_credit_rate()). */
static u64 credit_rate(void)
{
	u64 r = g->knob[MRC_KNOB_credit_rate_kbps] * 125;

	if (!r)
		r = (u64)(g->c.rate_gbps * 1e9 / 8 * g->c.planes);
	r = min_t(u64, r, MRC_CREDIT_MAX_RATE);
	return r * CREDIT_UNIT / (CREDIT_UNIT + CREDIT_WIRE_OVERHEAD);
}

static u64 credit_period(u64 rate)
{
	u64 ns = 2ULL * CREDIT_UNIT * NSEC_PER_SEC / rate;

	return clamp_t(u64, ns, CREDIT_PACE_MIN_NS, CREDIT_PACE_MAX_NS);
}

/* mrc_credit_params(): the knobs as core's parameters. */
static void credit_params(struct mrc_credit_params *p)
{
	u64 burst, out;

	mrc_credit_params_default(p);
	p->rate = credit_rate();
	p->policy = g->knob[MRC_KNOB_credit_policy];
	p->unsched = credit_unsched();
	p->grant_unit = CREDIT_UNIT;
	burst = p->rate * 2 * credit_period(p->rate) / NSEC_PER_SEC;
	p->burst = clamp_t(u64, burst, 2 * CREDIT_UNIT, 64U << 20);
	p->max_msg = MRC_MSG_MAX_BYTES;
	p->grant_timeout_ns = g->knob[MRC_KNOB_credit_grant_timeout_ms] *
			      NSEC_PER_MSEC;
	out = p->rate / 1000 * (p->grant_timeout_ns / NSEC_PER_USEC) / 2000;
	out = max3(out, 2ULL * p->unsched, 4ULL * CREDIT_UNIT);
	p->max_outstanding = min_t(u64, max_t(u64, out, p->burst), 64U << 20);
	p->loop_mult = MRC_CREDIT_DEF_LOOP_MULT;
	out = g->knob[MRC_KNOB_credit_max_outstanding_bytes];
	if (out) {
		p->max_outstanding = max_t(u32, out, CREDIT_UNIT);
		p->loop_mult = 0;
	}
	p->request_timeout_ns = p->grant_timeout_ns;
	p->stale_ns = 2ULL * g->knob[MRC_KNOB_peer_timeout_ms] * NSEC_PER_MSEC;
}

/*
 * A CREDIT_REQ or GRANT from @sp's host to its peer, on the first path
 * in the spray set (else any): credit packets to a peer stay in order.
 */
static void credit_send(struct sim_peer *sp, u8 type, u64 msg_id,
			const struct mrc_pkt_credit *c)
{
	unsigned int n = g->c.planes * g->c.entropy, i, pass;
	u8 body[sizeof(struct mrc_wire_credit)];
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.type = type,
		.msg_id = msg_id,
		.tstamp = sim_now_ns(),
		.body = body,
	};

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if (pass || mrc_path_in_spray_set(&sp->path[i]))
				goto found;
	g->st.credit_tx_errs++;
	return;
found:
	pkt.entropy = i % g->c.entropy;
	pkt.path_seq = mrc_path_next_seq(&sp->path[i]);
	pkt.len = mrc_wire_put_credit(body, c);
	if (host_post(sp, i / g->c.entropy, i % g->c.entropy, &pkt, false))
		g->st.credit_tx_errs++;
	else if (type == MRC_PKT_GRANT)
		g->st.grants_tx++;
	else
		g->st.requests_tx++;
}

static void credit_send_grant(struct sim_peer *sp, u64 msg_id, u32 msg_len,
			      u32 granted, u32 seq)
{
	struct mrc_pkt_credit c = {
		.msg_len = msg_len, .granted = granted, .seq = seq,
	};

	credit_send(sp, MRC_PKT_GRANT, msg_id, &c);
}

/* ---- sender ---- */

static void credit_tx_request(struct sim_peer *sp,
			      const struct mrc_credit_params *p)
{
	struct mrc_credit_tx *tx = &sp->ctx;
	struct mrc_pkt_credit c = {
		.msg_len = tx->msg_len, .granted = tx->granted,
	};

	credit_send(sp, MRC_PKT_CREDIT_REQ, tx->msg_id, &c);
	mrc_credit_tx_requested(tx, p, sim_now_ns());
}

/**
 * credit_may() - ops->credit_may: may new bytes of a message go now
 * @sp: the sending host's engine for the receiver
 * @msg_id: the message
 * @msg_len: its length
 * @off: its first new byte
 * @len: new bytes [@off, @off + @len)
 * @urgent: a latency class, whose window does not wait for another
 *	message's grants
 * @now: the engine's clock, ns
 *
 * mrc_credit_tx_may(): one scheduled message at a time, in queue order.
 *
 * Return: true if the bytes may go (and are charged).
 */
bool credit_may(struct sim_peer *sp, u64 msg_id, u32 msg_len, u32 off,
		u32 len, bool urgent, u64 now)
{
	struct mrc_credit_tx *tx = &sp->ctx;
	struct mrc_credit_params p;
	u32 end = off + len, need;

	if (!sp->ctx_on || tx->msg_id != msg_id) {
		if (sp->ctx_on && !mrc_credit_tx_done(tx)) {
			if (urgent && end <= min(credit_unsched(), msg_len)) {
				tx->unsched_bytes += len;
				return true;
			}
			return false;
		}
		if (!g->knob[MRC_KNOB_credit]) {
			credit_reset(sp);
			return true;
		}
		credit_params(&p);
		p.rerequest_ns = mrc_msg_loss_floor_ns(&sp->mp, now);
		sp->ctx_on = true;
		if (mrc_credit_tx_start(tx, &p, msg_id, msg_len, now)) {
			g->st.msgs_sched++;
			credit_tx_request(sp, &p);
		}
	}
	if (end <= tx->sent)
		return true;
	need = end - tx->sent;
	if (mrc_credit_tx_may_send(tx, need, now) >= need)
		return !mrc_credit_tx_sent(tx, need);
	if (now >= tx->request_at) {
		credit_params(&p);
		p.rerequest_ns = mrc_msg_loss_floor_ns(&sp->mp, now);
		credit_tx_request(sp, &p);
	}
	return false;
}

/**
 * credit_stops() - ops->credit_stops: credit stops a message short of its end
 * @sp: the sending host's engine for the receiver
 * @msg_id: the message
 * @seg: its packets' payload
 *
 * Return: true if the packet just let go is the last until a GRANT.
 */
bool credit_stops(struct sim_peer *sp, u64 msg_id, u16 seg)
{
	return sp->ctx_on && sp->ctx.msg_id == msg_id &&
	       mrc_credit_tx_limited(&sp->ctx, seg);
}

/**
 * credit_reset() - ops->credit_reset: the queue was given up
 * @sp: the sending host's engine for the receiver
 */
void credit_reset(struct sim_peer *sp)
{
	if (sp->ctx_on && sp->ctx.starved)
		sp->ctx.wait_ns += sim_now_ns() - sp->ctx.starved_since;
	sp->ctx.starved = 0;
	sp->ctx.active = 0;
	sp->ctx_on = false;
}

/**
 * credit_gone() - ops->credit_gone: message @msg_id was given up
 * @sp: the sending host's engine for the receiver
 * @msg_id: the message
 */
void credit_gone(struct sim_peer *sp, u64 msg_id)
{
	if (sp->ctx_on && sp->ctx.msg_id == msg_id)
		credit_reset(sp);
}

/**
 * credit_sched() - whether a DATA packet needed a grant
 * @sp: the sending host's engine for the receiver
 * @pkt: the packet
 *
 * Return: true if some of its bytes lie beyond its message's unscheduled
 * window (counted apart when a switch drops it).
 */
bool credit_sched(const struct sim_peer *sp, const struct mrc_pkt *pkt)
{
	return sp->ctx_on && sp->ctx.msg_id == pkt->msg_id &&
	       pkt->offset + pkt->len > sp->ctx.unsched_end;
}

static void on_grant(struct sim_peer *sp, const struct mrc_pkt *pkt)
{
	struct mrc_credit_params p;
	struct mrc_pkt_credit c;
	u64 now = sim_now_ns();
	int rc;

	mrc_wire_get_credit(pkt, &c);
	credit_params(&p);
	p.rerequest_ns = mrc_msg_loss_floor_ns(&sp->mp, now);
	rc = mrc_credit_tx_grant(&sp->ctx, &p, pkt->msg_id, c.msg_len,
				 c.granted, c.seq, now);
	if (rc > 0)
		mrc_msg_tx_push_now(&sp->mp, now);
	else if (rc && rc != -ESTALE)
		g->st.grants_bad++;
}

/* ---- receiver ---- */

static struct mrc_credit_rx *rx_tab(struct sim_host *h)
{
	struct mrc_credit_params p;

	if (!h->crx) {
		credit_params(&p);
		h->crx = calloc(1, mrc_credit_rx_size(CREDIT_TABLE));
		if (!h->crx) {
			perror("credit table");
			exit(2);
		}
		mrc_credit_rx_init(h->crx, CREDIT_TABLE, &p);
	}
	return h->crx;
}

/* mrc_credit_arm_locked(): the pacer runs (again) in @delay_ns. */
static void pace_arm(struct sim_host *h, u64 delay_ns)
{
	u64 now = sim_now_ns();

	if (h->pace_armed)
		return;
	if (!h->last_pace)
		h->last_pace = now;
	h->pace_armed = true;
	h->pace_at = now + delay_ns;
	evq_push(&g->q, sim_ps(h->pace_at), EV_PACE, h, 0);
}

/* mrc_credit_pace(): grants the drain since the last pace. */
static void pace(struct sim_host *h)
{
	struct mrc_credit_grant out[CREDIT_TABLE];
	struct mrc_credit_rx *rx = rx_tab(h);
	struct mrc_credit_params p;
	u64 now = sim_now_ns(), elapsed;
	int n, i;

	credit_params(&p);
	elapsed = h->last_pace ? now - h->last_pace : 0;
	h->last_pace = now;
	n = mrc_credit_rx_pace(rx, &p, now, elapsed, out, CREDIT_TABLE);
	h->pace_ns = credit_period(p.rate);
	if (mrc_credit_rx_waiting(rx) || rx->total_outstanding)
		pace_arm(h, h->pace_ns);
	else
		h->last_pace = 0;
	for (i = 0; i < n; i++)
		credit_send_grant(host_peer(h, out[i].key - 1), out[i].msg_id,
				  rx->e[out[i].idx].requested, out[i].granted,
				  out[i].seq);
}

/**
 * credit_pace_ev() - the pacer's timer came due
 * @h: the receiving host
 * @t: the event's time, ps (a stale one is ignored)
 */
void credit_pace_ev(struct sim_host *h, uint64_t t)
{
	if (!h->pace_armed || sim_ps(h->pace_at) != t)
		return;
	h->pace_armed = false;
	pace(h);
}

static void on_request(struct sim_peer *sp, const struct mrc_pkt *pkt)
{
	struct sim_host *h = sp->h;
	struct mrc_credit_grant gr = { 0 };
	struct mrc_credit_params p;
	struct mrc_credit_rx *rx;
	struct mrc_pkt_credit c;
	u64 now = sim_now_ns();
	u32 key = sp->peer_id + 1;
	int rc;

	mrc_wire_get_credit(pkt, &c);
	if (!g->knob[MRC_KNOB_credit]) {
		credit_send_grant(sp, pkt->msg_id, c.msg_len, c.msg_len,
				  CREDIT_SEQ_ALL);
		return;
	}
	credit_params(&p);
	rx = rx_tab(h);
	rc = mrc_credit_rx_request_unsched(rx, &p, key, pkt->msg_id,
					   c.msg_len, c.granted, now, &gr);
	if (rc == -EBUSY) {
		mrc_credit_rx_forget(rx, key);
		rc = mrc_credit_rx_request_unsched(rx, &p, key, pkt->msg_id,
						   c.msg_len, c.granted, now,
						   &gr);
	}
	if (rc >= 0) {
		if (!rc)
			mrc_credit_rx_set_low(rx, key,
					      mrc_msg_id_class(pkt->msg_id) ==
					      MRC_SCHED_CLASS_BACKGROUND);
		pace_arm(h, 0);
	} else if (rc != -ESTALE) {
		g->st.requests_bad++;
	}
	if (rc == MRC_CREDIT_REQ_RESEND && gr.seq)
		credit_send_grant(sp, gr.msg_id, c.msg_len, gr.granted, gr.seq);
}

/**
 * credit_rx_pkt() - a CREDIT_REQ or GRANT arrived
 * @sp: the receiving host's engine for the sender
 * @pkt: the packet, parsed
 */
void credit_rx_pkt(struct sim_peer *sp, const struct mrc_pkt *pkt)
{
	if (pkt->type == MRC_PKT_GRANT)
		on_grant(sp, pkt);
	else
		on_request(sp, pkt);
}

/**
 * credit_rx_data() - a DATA packet's payload was new at the receiver
 * @sp: the receiving host's engine for the sender
 * @pkt: the packet
 *
 * mrc_credit_rx_data_hook(): charges the bytes, and runs a pace that is
 * due (arrivals clock the grants).
 */
void credit_rx_data(struct sim_peer *sp, const struct mrc_pkt *pkt)
{
	struct sim_host *h = sp->h;
	struct mrc_credit_params p;
	struct mrc_credit_rx *rx;
	u64 now = sim_now_ns();
	u32 unsched, in_win, key = sp->peer_id + 1;

	if (!g->knob[MRC_KNOB_credit])
		return;
	credit_params(&p);
	rx = rx_tab(h);
	unsched = mrc_credit_rx_unsched(rx, &p, key, pkt->msg_id,
					pkt->msg_len);
	in_win = pkt->offset < unsched ?
		 min_t(u32, pkt->len, unsched - pkt->offset) : 0;
	if (mrc_credit_rx_data(rx, &p, key, pkt->msg_id, pkt->msg_len,
			       pkt->offset, pkt->len, now))
		g->st.over_credit++;
	if (in_win && mrc_credit_rx_waiting(rx))
		pace_arm(h, h->pace_ns ? h->pace_ns : credit_period(p.rate));
	if (h->last_pace && h->pace_ns &&
	    (now - h->last_pace >= h->pace_ns ||
	     mrc_credit_rx_data_due(rx, CREDIT_UNIT))) {
		g->st.data_paces++;
		pace(h);
	}
}

/**
 * credit_stats() - the receivers' tables' counters, summed
 * @sum: filled in
 */
void credit_stats(struct mrc_credit_rx_stats *sum)
{
	unsigned int i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < g->c.hosts; i++) {
		const struct mrc_credit_rx_stats *s;

		if (!g->hosts[i].crx)
			continue;
		s = &g->hosts[i].crx->stats;
		sum->req_new += s->req_new;
		sum->req_dup += s->req_dup;
		sum->req_full += s->req_full;
		sum->data_over_credit += s->data_over_credit;
		sum->grants += s->grants;
		sum->granted_bytes += s->granted_bytes;
		sum->unsched_bytes += s->unsched_bytes;
		sum->reclaimed_bytes += s->reclaimed_bytes;
		sum->paces += s->paces;
		if (s->outstanding_max > sum->outstanding_max)
			sum->outstanding_max = s->outstanding_max;
	}
}
