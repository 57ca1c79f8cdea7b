/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msg_host.h - a user-space host for the message engine (mrc/core/msg.h):
 * what mrc/msg.c is in the module, for the unit tests and the engine
 * fuzzer.  One struct host is one node's view of one peer: the engine,
 * its paths, its knobs, its memory (every allocation counted), and the
 * actions it asked for (packets sent, kicks, timers, deliveries,
 * completions).  host_link() pairs two of them; host_pump() carries
 * packets between them through the real wire code (mrc_wire_put_hdr() on
 * the way out, mrc_wire_parse() on the way in).
 *
 * Single-threaded: every call is its own "lock", as the kernel's
 * peer->lock and rx_lock are.
 */
#ifndef MRC_UNIT_MSG_HOST_H
#define MRC_UNIT_MSG_HOST_H

#include <stdio.h>
#include <stdlib.h>

/* The host's stubs ignore most of what the engine tells them. */
#pragma GCC diagnostic ignored "-Wunused-parameter"

#include "../../../mrc/core/config.h"
#include "../../../mrc/core/msg.h"
#include "../../../mrc/core/wire.h"

#define HOST_MAX_LINKS		MRC_PEER_MAX_ADDRS
#define HOST_OUT_MAX		1024	/* packets queued towards the peer */
#define HOST_DGRAM_MAX		(MRC_WIRE_HDR_LEN + MRC_WIRE_MAX_PAYLOAD)

struct host_pkt {
	unsigned int pi;		/* the path it was sent on */
	u32 len;
	u8 buf[HOST_DGRAM_MAX];
};

struct host;

/* What a test or fuzzer wants to hear of. */
struct host_hooks {
	/* A message was delivered (the engine frees it afterwards). */
	void (*delivered)(struct host *h, const struct mrc_msg_rx *rm);
	/* A send completed with m->status (before its free). */
	void (*completed)(struct host *h, const struct mrc_msg_tx *m);
};

struct host {
	struct mrc_msg_node node;
	struct mrc_msg_peer mp;
	struct mrc_path path[MRC_MSG_NPATHS];
	struct host *peer;		/* host_link() */
	const struct host_hooks *hooks;
	void *priv;			/* the test's */
	void *owner;			/* host_send_msg()'s messages' owner */
	u32 node_id;
	u64 knob[MRC_KNOB_NR];
	u32 wall;			/* wall-clock seconds */
	u64 now;			/* the host's clock, ns */
	u64 stats[MRC_MS_NR];
	unsigned int nlinks, nqps;	/* paths: nlinks x nqps */
	u32 mtu;			/* of every rail */
	u16 closed_port;		/* messages to it are refused (0: none) */
	u16 busy_port;			/* its endpoint is full (0: none) */
	u16 dst_port;			/* host_send_msg()'s (0: port 9) */

	/* memory */
	long allocs;			/* live allocations */
	u64 alloc_bytes;		/* live bytes */
	long alloc_fail;		/* fail the allocation after this many;
					 * < 0: never
					 */
	long rx_allocs;			/* of them, receive memory */
	long rx_free_bad;		/* rx_free with another size */

	/* actions */
	struct host_pkt *out;		/* FIFO towards the peer */
	unsigned int out_head, nout;
	int send_err;			/* the next sends fail with this */
	unsigned int send_err_n;	/* ... this many of them */
	unsigned int sent, sent_data;	/* packets posted */
	unsigned int staged;		/* DATA sent since the last flush */
	unsigned int flushes;		/* flushes that ended a run of them */
	unsigned int kicks;		/* pending kick */
	unsigned int timer_runs;	/* timer expiries (mrc_msg_tx_timer()) */
	bool armed;
	u64 arm_at;
	unsigned int arms;
	unsigned int disarms;
	bool expire_armed;
	u64 expire_at;
	bool deliver_due;
	unsigned int ndelivered, ncompleted;
	unsigned int path_changes, fallbacks, credit_resets, stalls;
	unsigned int credit_gones;
	u64 credit_gone_id;
	u32 credit_stop;	/* != 0: new bytes only below it (a window) */
	bool ack_held;		/* node.batch_done: a flush is due */
};

static inline struct host *host_of_node(struct mrc_msg_node *node)
{
	return container_of(node, struct host, node);
}

static inline struct host *host_of(struct mrc_msg_peer *mp)
{
	return container_of(mp, struct host, mp);
}

/* ---- memory: a size header in front of every block ---- */

static void *host_alloc(struct mrc_msg_node *node, size_t bytes)
{
	struct host *h = host_of_node(node);
	size_t *p;

	if (h->alloc_fail == 0)
		return NULL;
	if (h->alloc_fail > 0)
		h->alloc_fail--;
	p = malloc(sizeof(size_t) * 2 + bytes);
	if (!p)
		return NULL;
	p[0] = bytes;
	h->allocs++;
	h->alloc_bytes += bytes;
	/* not zeroed, as kvmalloc(): the engine must not rely on it */
	memset(p + 2, 0xa5, bytes);
	return p + 2;
}

static void host_free(struct mrc_msg_node *node, void *ptr)
{
	struct host *h = host_of_node(node);
	size_t *p = (size_t *)ptr - 2;

	h->allocs--;
	h->alloc_bytes -= p[0];
	free(p);
}

/* Receive memory: freed with the size it was taken with. */
static void *host_rx_alloc(struct mrc_msg_node *node, size_t bytes)
{
	void *p = host_alloc(node, bytes);

	if (p)
		host_of_node(node)->rx_allocs++;
	return p;
}

static void host_rx_free(struct mrc_msg_node *node, void *ptr, size_t bytes)
{
	struct host *h = host_of_node(node);

	if (((size_t *)ptr)[-2] != bytes)
		h->rx_free_bad++;
	h->rx_allocs--;
	host_free(node, ptr);
}

static u64 host_knob(struct mrc_msg_node *node, unsigned int id)
{
	return id < MRC_KNOB_NR ? host_of_node(node)->knob[id] : 0;
}

static u32 host_wall(struct mrc_msg_node *node)
{
	return host_of_node(node)->wall;
}

static void host_count(struct mrc_msg_node *node, unsigned int stat, u64 n)
{
	if (stat < MRC_MS_NR)
		host_of_node(node)->stats[stat] += n;
}

/* ---- sender ---- */

static unsigned int host_paths(struct mrc_msg_peer *mp, u16 seg,
			       struct mrc_path **out)
{
	struct host *h = host_of(mp);
	unsigned int l, i;

	for (l = 0; l < h->nlinks; l++)
		for (i = 0; i < MRC_MSG_LINK_PATHS; i++)
			out[l * MRC_MSG_LINK_PATHS + i] =
				i < h->nqps && h->mtu >= (u32)seg + MRC_WIRE_HDR_LEN ?
				&h->path[l * MRC_MSG_LINK_PATHS + i] : NULL;
	return h->nlinks * MRC_MSG_LINK_PATHS;
}

static int host_send(struct mrc_msg_peer *mp, unsigned int pi,
		     struct mrc_pkt *pkt, const void *payload)
{
	struct host *h = host_of(mp);
	struct host_pkt *hp;
	unsigned int list = 0;

	if (pi >= h->nlinks * MRC_MSG_LINK_PATHS ||
	    pi % MRC_MSG_LINK_PATHS >= h->nqps)
		return -ENETDOWN;
	if (h->send_err_n) {
		h->send_err_n--;
		return h->send_err;
	}
	if (h->nout == HOST_OUT_MAX)
		return -EAGAIN;		/* the send ring is full */
	/* a DATA's done list goes between its header and its payload */
	if (pkt->type == MRC_PKT_DATA && (pkt->flags & MRC_WF_DONE_MORE))
		list = pkt->ndone * 4;
	if (MRC_WIRE_HDR_LEN + list + pkt->len > HOST_DGRAM_MAX)
		__builtin_trap();
	hp = &h->out[(h->out_head + h->nout++) % HOST_OUT_MAX];
	pkt->src_node = h->node_id;
	pkt->dst_node = h->peer ? h->peer->node_id : 0;
	pkt->token = 0;
	mrc_wire_put_hdr(hp->buf, pkt);
	if (list)
		memcpy(hp->buf + MRC_WIRE_HDR_LEN, pkt->done, list);
	memcpy(hp->buf + MRC_WIRE_HDR_LEN + list,
	       payload ? payload : pkt->body, pkt->len);
	hp->len = MRC_WIRE_HDR_LEN + list + pkt->len;
	hp->pi = pi;
	h->sent++;
	if (pkt->type == MRC_PKT_DATA) {
		h->sent_data++;
		h->staged++;
	}
	return 0;
}

/* The engine's end of a run of sends: what a host held goes now. */
static void host_flush(struct mrc_msg_peer *mp)
{
	struct host *h = host_of(mp);

	if (h->staged)
		h->flushes++;
	h->staged = 0;
}

static void host_kick(struct mrc_msg_peer *mp)
{
	host_of(mp)->kicks++;
}

static void host_arm(struct mrc_msg_peer *mp, u64 delay_ns)
{
	struct host *h = host_of(mp);

	h->arms++;
	h->armed = true;	/* in place of the one before, as hrtimer_start */
	h->arm_at = h->now + delay_ns;
}

static void host_disarm(struct mrc_msg_peer *mp)
{
	struct host *h = host_of(mp);

	h->disarms++;
	h->armed = false;
}

static void host_path_changed(struct mrc_msg_peer *mp, unsigned int pi,
			      u8 prev)
{
	host_of(mp)->path_changes++;
}

static void host_fallback(struct mrc_msg_peer *mp, u8 cls, bool on)
{
	host_of(mp)->fallbacks++;
}

static void host_sched_params(struct mrc_msg_peer *mp,
			      struct mrc_sched_params *sp)
{
	mrc_sched_params_default(sp);
	if (mp->policy != MRC_SCHED_POLICY_GLOBAL)
		sp->policy = mp->policy;
}

static void host_sched_sent(struct mrc_msg_peer *mp, unsigned int pi, u8 cls,
			    u8 policy)
{
}

static void host_sched_done(struct mrc_msg_peer *mp, u8 tag, int how)
{
}

static bool host_credit_may(struct mrc_msg_peer *mp, u64 id, u32 msg_len,
			    u32 off, u32 len, bool urgent, u64 now)
{
	/* credits off (the credit glue is not here), or a window only */
	return !host_of(mp)->credit_stop ||
	       off + len <= host_of(mp)->credit_stop;
}

static bool host_credit_stops(struct mrc_msg_peer *mp, u64 id, u16 seg)
{
	return false;
}

static void host_credit_reset(struct mrc_msg_peer *mp)
{
	host_of(mp)->credit_resets++;
}

static void host_credit_gone(struct mrc_msg_peer *mp, u64 id)
{
	host_of(mp)->credit_gones++;
	host_of(mp)->credit_gone_id = id;
}

static void host_stalled(struct mrc_msg_peer *mp, u64 idle_ns,
			 unsigned int ntx)
{
	host_of(mp)->stalls++;
}

static void host_complete(struct mrc_msg_node *node, struct mrc_msg_tx *m)
{
	struct host *h = host_of_node(node);

	h->ncompleted++;
	if (m->done)
		m->done(m->ctx, m->status);
	if (h->hooks && h->hooks->completed)
		h->hooks->completed(h, m);
}

/* ---- receiver ---- */

static void host_deliver(struct mrc_msg_peer *mp)
{
	host_of(mp)->deliver_due = true;
}

static void host_expire_arm(struct mrc_msg_peer *mp, u64 delay_ns)
{
	struct host *h = host_of(mp);

	if (h->expire_armed)	/* no-op while pending, as a delayed work */
		return;
	h->expire_armed = true;
	h->expire_at = h->now + delay_ns;
}

static int host_port(struct mrc_msg_node *node, u16 port, u32 len)
{
	struct host *h = host_of_node(node);

	if (h->closed_port && port == h->closed_port)
		return -ECONNREFUSED;
	return h->busy_port && port == h->busy_port ? -EBUSY : 0;
}

static const struct mrc_msg_ops host_ops = {
	.alloc = host_alloc,
	.free = host_free,
	.rx_alloc = host_rx_alloc,
	.rx_free = host_rx_free,
	.knob = host_knob,
	.wall_seconds = host_wall,
	.count = host_count,
	.paths = host_paths,
	.send = host_send,
	.flush = host_flush,
	.kick = host_kick,
	.arm = host_arm,
	.disarm = host_disarm,
	.path_changed = host_path_changed,
	.class_fallback = host_fallback,
	.sched_params = host_sched_params,
	.sched_sent = host_sched_sent,
	.sched_done = host_sched_done,
	.credit_may = host_credit_may,
	.credit_stops = host_credit_stops,
	.credit_reset = host_credit_reset,
	.credit_gone = host_credit_gone,
	.stalled = host_stalled,
	.complete = host_complete,
	.deliver = host_deliver,
	.expire_arm = host_expire_arm,
	.port = host_port,
};

/* ---- setup and teardown ---- */

/*
 * Whether new hosts hold completion SACKs for the end of a batch
 * (node.batch_done), as the kernel's does; a test may clear it first.
 */
static bool host_batch_done = true;

/*
 * A host of node @node_id with @nlinks links of @nqps paths each, all
 * ACTIVE, rails of MTU @mtu, the knobs at their defaults; clock at @now.
 */
static inline struct host *host_new(u32 node_id, unsigned int nlinks,
				    unsigned int nqps, u32 mtu, u64 now)
{
	struct host *h = calloc(1, sizeof(*h));
	struct mrc_path_params pp;
	unsigned int k, l, i;

	if (!h)
		abort();
	h->out = calloc(HOST_OUT_MAX, sizeof(*h->out));
	if (!h->out)
		abort();
	h->node.ops = &host_ops;
	h->node.batch_done = host_batch_done;
	h->node_id = node_id;
	h->nlinks = nlinks;
	h->nqps = nqps;
	h->mtu = mtu;
	h->now = now;
	h->wall = 1000000;
	h->alloc_fail = -1;
	for (k = 0; k < MRC_KNOB_NR; k++)
		h->knob[k] = mrc_knobs[k].def;
	h->knob[MRC_KNOB_node_id] = node_id;
	mrc_path_params_default(&pp);
	for (l = 0; l < MRC_PEER_MAX_ADDRS; l++)
		for (i = 0; i < MRC_MSG_LINK_PATHS; i++) {
			unsigned int pi = l * MRC_MSG_LINK_PATHS + i;

			mrc_path_init(&h->path[pi], l, l, i, now);
			if (l < nlinks && i < nqps)
				mrc_path_event(&h->path[pi], &pp,
					       MRC_PATH_EV_REPLY, now, now);
			h->mp.path[pi] = &h->path[pi];
		}
	mrc_msg_engine_init(&h->mp, &h->node, now);
	return h;
}

static inline void host_link(struct host *a, struct host *b)
{
	a->peer = b;
	b->peer = a;
}

static inline void host_free_rx_list(struct host *h, struct list_head *list)
{
	struct mrc_msg_rx *rm, *tmp;

	list_for_each_entry_safe(rm, tmp, list, node) {
		list_del(&rm->node);
		mrc_msg_rx_free(&h->node, rm);
	}
}

/* Completes what is on mp->done (the host's tx_work tail). */
static inline void host_finish(struct host *h)
{
	LIST_HEAD(done);

	list_splice_init(&h->mp.done, &done);
	mrc_msg_tx_finish(&h->node, &done);
}

/* Pops and delivers every message that is ready (the host's rx_work). */
static inline void host_deliver_all(struct host *h)
{
	struct mrc_msg_rx *rm;

	h->deliver_due = false;
	while ((rm = mrc_msg_rx_pop(&h->mp))) {
		h->ndelivered++;
		if (h->hooks && h->hooks->delivered)
			h->hooks->delivered(h, rm);
		mrc_msg_rx_free(&h->node, rm);
	}
}

/* The peer goes away, as mrc_msg_peer_stop() does it. */
static inline void host_stop(struct host *h)
{
	LIST_HEAD(gone);

	mrc_msg_tx_fail_all(&h->mp, -EHOSTUNREACH, h->now);
	host_finish(h);
	mrc_msg_rx_close(&h->mp);
	host_deliver_all(h);
	mrc_msg_rx_drain(&h->mp, &gone);
	host_free_rx_list(h, &gone);
}

static inline void host_destroy(struct host *h)
{
	free(h->out);
	free(h);
}

/* ---- events ---- */

/*
 * Queues a message of @len bytes of class @cls whose payload is @data
 * (or a pattern if NULL).  Returns the message (NULL: alloc failed) and
 * the queue's verdict in *@err.
 */
static inline struct mrc_msg_tx *host_send_msg(struct host *h, const void *data,
					       u32 len, u8 cls,
					       void (*done)(void *, int),
					       void *ctx, int *err)
{
	u16 seg = MRC_WIRE_MAX_PAYLOAD;
	struct mrc_msg_tx *m;
	u32 i;

	if (h->mtu - MRC_WIRE_HDR_LEN < (u32)seg)
		seg = h->mtu - MRC_WIRE_HDR_LEN;
	m = mrc_msg_tx_alloc(&h->node, len, seg, cls);
	if (!m) {
		*err = -ENOMEM;
		return NULL;
	}
	m->done = done;
	m->ctx = ctx;
	m->owner = h->owner;
	m->src_port = 7;
	m->dst_port = h->dst_port ? h->dst_port : 9;
	for (i = 0; i < len; i++)
		((u8 *)m->buf)[i] = data ? ((const u8 *)data)[i] : (u8)(i * 7);
	*err = mrc_msg_tx_queue(&h->mp, m, h->now);
	if (*err) {
		mrc_msg_tx_free(&h->node, m);
		return NULL;
	}
	host_finish(h);
	return m;
}

static inline void host_batch_end(struct host *h);

/*
 * Runs what is due at h->now: the end of its batch of arrivals (which
 * came first, as in host_take()), kicks, the timer, expiry, deliveries.
 */
static inline void host_run(struct host *h)
{
	host_batch_end(h);
	if (h->kicks) {
		h->kicks = 0;
		if (h->armed && h->now >= h->arm_at)
			h->armed = false;
		mrc_msg_tx_run(&h->mp, h->now);
		host_finish(h);
	} else if (h->armed && h->now >= h->arm_at) {
		/* as mrc/msg.c's timer: a short queue runs in it */
		h->armed = false;
		h->timer_runs++;
		mrc_msg_tx_timer(&h->mp, h->now);
		host_finish(h);
	}
	if (h->expire_armed && h->now >= h->expire_at) {
		LIST_HEAD(gone);

		h->expire_armed = false;
		mrc_msg_rx_expire(&h->mp, h->now, &gone);
		host_free_rx_list(h, &gone);
	}
	if (h->deliver_due)
		host_deliver_all(h);
}

/* The next time something is due (U64_MAX: nothing). */
static inline u64 host_next_due(const struct host *h)
{
	u64 t = U64_MAX;

	if (h->kicks || h->deliver_due)
		return h->now;
	if (h->armed)
		t = h->arm_at;
	if (h->expire_armed && h->expire_at < t)
		t = h->expire_at;
	return t;
}

/*
 * Hands datagram @buf of @len bytes, arrived on path @pi, to @h as the
 * module's proto.c would: parse, then the engine.  Returns the drop
 * reason.
 */
static inline enum mrc_drop_reason host_input(struct host *h, unsigned int pi,
					      const u8 *buf, u32 len)
{
	struct mrc_wire_limits lim = {
		.max_msg_len = MRC_MSG_MAX_BYTES,
		.local_node = h->node_id,
	};
	struct mrc_msg_rx_out out = { 0 };
	enum mrc_drop_reason why;
	struct mrc_pkt pkt;

	why = mrc_wire_parse(buf, len, &lim, &pkt);
	if (why != MRC_DROP_NONE)
		return why;
	switch (pkt.type) {
	case MRC_PKT_DATA:
		h->stats[MRC_MS_RX_PKTS]++;
		/* as mrc/msg_rx.c: its done list first, under the tx lock */
		if (mrc_wire_done_n(&pkt)) {
			mrc_msg_tx_data_done(&h->mp, &pkt, h->now);
			host_finish(h);
		}
		for (;;) {
			why = mrc_msg_rx_packet(&h->mp, pi, &pkt, h->now, &out);
			if (!out.need_ctx)
				break;
			out.fresh = mrc_msg_rx_alloc(&h->node, &pkt);
			if (!out.fresh) {
				h->stats[MRC_MS_RX_NO_MEM]++;
				why = MRC_DROP_NO_MEMORY;
				break;
			}
		}
		if (why == MRC_DROP_DUPLICATE)
			h->stats[MRC_MS_RX_DUP]++;
		if (out.fresh)
			mrc_msg_rx_free(&h->node, out.fresh);
		if ((out.sack || out.nholes) &&
		    mrc_msg_rx_answer(&h->mp, pi, &pkt, &out, h->now))
			h->ack_held = true;
		break;
	case MRC_PKT_SACK:
		why = mrc_msg_tx_sack(&h->mp, pi, &pkt, h->now);
		host_finish(h);
		break;
	case MRC_PKT_NACK:
		why = mrc_msg_tx_nack(&h->mp, &pkt, h->now);
		break;
	default:
		why = MRC_DROP_UNEXPECTED;
		break;
	}
	return why;
}

/*
 * The oldest packet @h sent, off its queue (NULL: none).  @h's batch of
 * arrivals ends first, as the module's always does before anything else
 * happens: the answers it held go out.
 */
static inline struct host_pkt *host_take(struct host *h)
{
	struct host_pkt *hp;

	host_batch_end(h);
	if (!h->nout)
		return NULL;
	/* A run that sent DATA returned without ops->flush: a lost send. */
	if (h->staged)
		__builtin_trap();
	hp = &h->out[h->out_head];
	h->out_head = (h->out_head + 1) % HOST_OUT_MAX;
	h->nout--;
	return hp;
}

/*
 * The end of @h's batch of arrivals: with node.batch_done, the SACKs it
 * held go out (mrc_msg_rx_flush()).
 */
static inline void host_batch_end(struct host *h)
{
	if (!h->ack_held)
		return;
	h->ack_held = false;
	mrc_msg_rx_flush(&h->mp, h->now);
}

/* Whether @h holds SACKs (its batch's end would send them). */
static inline bool host_batch_end_flushes(const struct host *h)
{
	return h->mp.done_ack.valid || h->mp.step_ack.n;
}

/*
 * Carries every packet @from sent to its peer, in order, losslessly: one
 * batch of arrivals for the peer.
 */
static inline void host_pump(struct host *from)
{
	struct host_pkt *hp;

	while ((hp = host_take(from)))
		host_input(from->peer, hp->pi, hp->buf, hp->len);
	host_batch_end(from->peer);
}

/*
 * Runs two linked hosts on a perfect wire until nothing is due before
 * @until (ns): both clocks move together.  Returns the time reached.
 */
static inline u64 host_settle(struct host *a, struct host *b, u64 until)
{
	/* a test may have moved one clock alone: the later one holds */
	if (a->now < b->now)
		a->now = b->now;
	b->now = a->now;
	for (;;) {
		u64 t;

		host_run(a);
		host_run(b);
		if (a->nout || b->nout) {
			host_pump(a);
			host_pump(b);
			continue;
		}
		t = host_next_due(a);
		if (host_next_due(b) < t)
			t = host_next_due(b);
		if (t == U64_MAX || t > until)
			return a->now;
		if (t > a->now)
			a->now = b->now = t;
	}
}

#endif /* MRC_UNIT_MSG_HOST_H */
