// SPDX-License-Identifier: GPL-2.0
/*
 * host.c - a simulated host: what mrc/msg.c and mrc/peer_probe.c are in
 * the module, around the same engine (mrc/core/msg.h).  Each host is one
 * struct mrc_msg_node; a peer's engine (struct mrc_msg_peer and its
 * paths, planes x entropy values, all ACTIVE from the start as after the
 * handshake) is created the first time the host sends to or hears from
 * that peer.  The glue supplies the engine's clock (sim time in ns),
 * timers and kicks (events), packet I/O (the header through
 * mrc_wire_put_hdr() into the fabric, mrc_wire_parse() on arrival),
 * memory (counted) and the probes that bring a retired path back.
 *
 * Payloads are not carried: a DATA packet keeps its 64-byte header, its
 * done list (acknowledgments it carries, version 7) and its length;
 * message buffers come from ops->buf_alloc, two shared areas (send,
 * receive) that nobody reads.  Node ids on the wire are host + 1 (0 is
 * "not set" for the engine).
 *
 * As the module's CQ handler, a host takes its arrivals in batches
 * (node.batch_done): here every arrival is a batch of one, whose end
 * (mrc_msg_rx_flush()) sends the SACKs it held back; a reply's (a
 * message flagged MRC_WF_ACK_LAZY) waits past it for a DATA of ours to
 * carry it, or for the end of its hold.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

/* Engine memory: a size word in front of every block. */
static uint64_t eng_bytes, eng_peak;

static void *op_alloc(struct mrc_msg_node *node, size_t bytes)
{
	uint64_t *p = malloc(bytes + sizeof(*p));

	if (!p)
		return NULL;
	*p = bytes;
	eng_bytes += bytes;
	if (eng_bytes > eng_peak)
		eng_peak = eng_bytes;
	return p + 1;
}

static void op_free(struct mrc_msg_node *node, void *ptr)
{
	uint64_t *p = (uint64_t *)ptr - 1;

	eng_bytes -= *p;
	free(p);
}

static void *op_buf_alloc(struct mrc_msg_node *node, size_t bytes, bool rx)
{
	return rx ? g->rxbuf : g->txbuf;
}

static void op_buf_free(struct mrc_msg_node *node, void *p, size_t bytes,
			bool rx)
{
}

static struct sim_host *host_of_node(struct mrc_msg_node *node)
{
	return container_of(node, struct sim_host, node);
}

static struct sim_peer *peer_of(struct mrc_msg_peer *mp)
{
	return container_of(mp, struct sim_peer, mp);
}

static u64 op_knob(struct mrc_msg_node *node, unsigned int id)
{
	if (id == MRC_KNOB_node_id)
		return host_of_node(node)->id + 1;
	return id < MRC_KNOB_NR ? g->knob[id] : 0;
}

static u32 op_wall(struct mrc_msg_node *node)
{
	return 1000000 + (u32)(g->now / (PS_PER_NS * NSEC_PER_SEC));
}

static void op_count(struct mrc_msg_node *node, unsigned int stat, u64 n)
{
	if (stat < MRC_MS_NR)
		g->st.ms[stat] += n;
}

static unsigned int op_paths(struct mrc_msg_peer *mp, u16 seg,
			     struct mrc_path **out)
{
	struct sim_peer *sp = peer_of(mp);
	unsigned int l, i;

	for (l = 0; l < g->c.planes; l++)
		for (i = 0; i < MRC_MSG_LINK_PATHS; i++)
			out[l * MRC_MSG_LINK_PATHS + i] = i < g->c.entropy ?
				&sp->path[l * g->c.entropy + i] : NULL;
	return g->c.planes * MRC_MSG_LINK_PATHS;
}

/* A packet of @sp's host to its peer on plane @plane, entropy @ev. */
int host_post(struct sim_peer *sp, unsigned int plane, unsigned int ev,
	      struct mrc_pkt *pkt, bool data)
{
	uint32_t src = sp->h->id, dst = sp->peer_id;
	struct spkt *p;

	if (!sp->rev) {
		sp->rev = host_peer(&g->hosts[dst], src);
		sp->rev->rev = sp;
	}
	pkt->src_node = src + 1;
	pkt->dst_node = dst + 1;
	pkt->token = 0;
	p = pkt_alloc(MRC_WIRE_HDR_LEN +
		      (data ? pkt->ndone * sizeof(__be32) : pkt->len));
	p->src = src;
	p->dst = dst;
	p->to = sp->rev;
	p->plane = plane;
	p->entropy = ev;
	p->type = pkt->type;
	p->sched = data && credit_sched(sp, pkt);
	p->wire_len = MRC_WIRE_HDR_LEN + pkt->len;
	mrc_wire_put_hdr(p->buf, pkt);
	if (!data) {
		memcpy(p->buf + MRC_WIRE_HDR_LEN, pkt->body, pkt->len);
	} else if (pkt->ndone) {	/* the done list, before the payload */
		memcpy(p->buf + MRC_WIRE_HDR_LEN, pkt->done,
		       pkt->ndone * sizeof(__be32));
		p->wire_len += pkt->ndone * sizeof(__be32);
	}
	if (!fabric_send(p)) {
		pkt_free(p);
		g->st.eagain++;
		return -EAGAIN;
	}
	if (data)
		g->st.data_pkts++;
	else
		g->st.ctl_pkts++;
	return 0;
}

static int op_send(struct mrc_msg_peer *mp, unsigned int pi,
		   struct mrc_pkt *pkt, const void *payload)
{
	struct sim_peer *sp = peer_of(mp);
	unsigned int plane = pi / MRC_MSG_LINK_PATHS;
	unsigned int ev = pi % MRC_MSG_LINK_PATHS;

	if (plane >= g->c.planes || ev >= g->c.entropy)
		return -ENETDOWN;
	return host_post(sp, plane, ev, pkt, pkt->type == MRC_PKT_DATA);
}

static void op_kick(struct mrc_msg_peer *mp)
{
	struct sim_peer *sp = peer_of(mp);

	if (sp->kick_due)
		return;
	sp->kick_due = true;
	evq_push(&g->q, g->now, EV_TX_RUN, sp, 1);
}

static void op_arm(struct mrc_msg_peer *mp, u64 delay_ns)
{
	struct sim_peer *sp = peer_of(mp);
	uint64_t at = sim_now_ns() + delay_ns;

	/* in place of the deadline before: its event is stale (arm_at) */
	sp->armed = true;
	sp->arm_at = at;
	evq_push(&g->q, sim_ps(at), EV_TX_RUN, sp, 0);
}

static void op_disarm(struct mrc_msg_peer *mp)
{
	peer_of(mp)->armed = false;
}

static void probe_rearm(struct sim_peer *sp);

/*
 * A path the engine retired (RTO, loss) is due for a probe at once
 * (path.h): the peer's timer is re-armed for it, unless --probe-rearm
 * timer asks for what mrc/msg.c's path_changed did before (a netlink
 * event only): then the probe waits for the timer's next deadline, up to
 * a keepalive (probe_ms) away.
 */
static void op_path_changed(struct mrc_msg_peer *mp, unsigned int pi,
			    u8 prev)
{
	prof_path(peer_of(mp), pi / MRC_MSG_LINK_PATHS * g->c.entropy +
		  pi % MRC_MSG_LINK_PATHS, prev, mp->path[pi]->state);
	if (!g->c.probe_rearm_timer)
		probe_rearm(peer_of(mp));
}

static void op_fallback(struct mrc_msg_peer *mp, u8 cls, bool on)
{
}

static void op_sched_params(struct mrc_msg_peer *mp,
			    struct mrc_sched_params *sp)
{
	mrc_sched_params_default(sp);
	mrc_sched_params_knobs(sp, g->knob[MRC_KNOB_peer_timeout_ms],
			       g->knob[MRC_KNOB_probe_ms]);
	sp->policy = mp->policy != MRC_SCHED_POLICY_GLOBAL ? mp->policy :
		     g->knob[MRC_KNOB_sched_policy];
}

static void op_sched_sent(struct mrc_msg_peer *mp, unsigned int pi, u8 cls,
			  u8 policy)
{
}

static void op_sched_done(struct mrc_msg_peer *mp, u8 tag, int how)
{
}

/* Credits: credit.c, as the module's credit_peer.c. */
static bool op_credit_may(struct mrc_msg_peer *mp, u64 id, u32 msg_len,
			  u32 off, u32 len, bool urgent, u64 now)
{
	return credit_may(peer_of(mp), id, msg_len, off, len, urgent, now);
}

static bool op_credit_stops(struct mrc_msg_peer *mp, u64 id, u16 seg)
{
	return credit_stops(peer_of(mp), id, seg);
}

static void op_credit_reset(struct mrc_msg_peer *mp)
{
	credit_reset(peer_of(mp));
}

static void op_credit_gone(struct mrc_msg_peer *mp, u64 id)
{
	credit_gone(peer_of(mp), id);
}

static void op_stalled(struct mrc_msg_peer *mp, u64 idle_ns,
		       unsigned int ntx)
{
	fprintf(stderr, "mrc-sim: host %u peer %u stalled (%u messages)\n",
		peer_of(mp)->h->id, peer_of(mp)->peer_id, ntx);
}

static void op_complete(struct mrc_msg_node *node, struct mrc_msg_tx *m)
{
	struct smsg *sm = &g->msg[(uintptr_t)m->ctx];

	if (!sm->completed++)
		g->nmsg_acked++;
	sm->status = m->status;
	sm->acked_ps = g->now;
}

static void op_deliver(struct mrc_msg_peer *mp)
{
}

static void op_expire_arm(struct mrc_msg_peer *mp, u64 delay_ns)
{
	struct sim_peer *sp = peer_of(mp);

	if (sp->expire_armed)
		return;
	sp->expire_armed = true;
	sp->expire_at = sim_now_ns() + delay_ns;
	evq_push(&g->q, sim_ps(sp->expire_at), EV_EXPIRE, sp, 0);
}

static const struct mrc_msg_ops sim_ops = {
	.alloc = op_alloc,
	.free = op_free,
	.buf_alloc = op_buf_alloc,
	.buf_free = op_buf_free,
	.knob = op_knob,
	.wall_seconds = op_wall,
	.count = op_count,
	.paths = op_paths,
	.send = op_send,
	.kick = op_kick,
	.arm = op_arm,
	.disarm = op_disarm,
	.path_changed = op_path_changed,
	.class_fallback = op_fallback,
	.sched_params = op_sched_params,
	.sched_sent = op_sched_sent,
	.sched_done = op_sched_done,
	.credit_may = op_credit_may,
	.credit_stops = op_credit_stops,
	.credit_reset = op_credit_reset,
	.credit_gone = op_credit_gone,
	.stalled = op_stalled,
	.complete = op_complete,
	.deliver = op_deliver,
	.expire_arm = op_expire_arm,
};

size_t host_peer_bytes(void)
{
	return sizeof(struct sim_peer) +
	       g->c.planes * g->c.entropy * sizeof(struct mrc_path);
}

void hosts_init(void)
{
	const char *why = NULL;
	unsigned int i, k;

	for (k = 0; k < MRC_KNOB_NR; k++)
		g->knob[k] = mrc_knobs[k].def;
	g->knob[MRC_KNOB_sched_policy] = g->c.policy;
	g->knob[MRC_KNOB_credit] = g->c.credit;
	for (k = 0; k < g->c.nknobs; k++)
		g->knob[g->c.knob[k].id] = g->c.knob[k].val;
	/* The probes' parameters, as mrc_peer_path_params() makes them. */
	if (mrc_path_params_knobs(&g->pp, g->knob[MRC_KNOB_probe_ms],
				  g->knob[MRC_KNOB_rto_max_ms], 0, &why))
		fprintf(stderr, "mrc-sim: path parameters refused (%s)\n",
			why);
	g->hosts = calloc(g->c.hosts, sizeof(*g->hosts));
	if (!g->hosts) {
		perror("hosts");
		exit(2);
	}
	for (i = 0; i < g->c.hosts; i++) {
		g->hosts[i].node.ops = &sim_ops;
		g->hosts[i].node.batch_done = true;
		g->hosts[i].id = i;
	}
}

static void peer_free(struct sim_peer *sp)
{
	struct sim_host *h = sp->h;
	LIST_HEAD(gone);

	mrc_msg_tx_fail_all(&sp->mp, -EHOSTUNREACH, sim_now_ns());
	list_splice_init(&sp->mp.done, &gone);
	mrc_msg_tx_finish(&h->node, &gone);
	mrc_msg_rx_close(&sp->mp);
	for (;;) {
		struct mrc_msg_rx *rm = mrc_msg_rx_pop(&sp->mp);

		if (!rm)
			break;
		mrc_msg_rx_free(&h->node, rm);
	}
	INIT_LIST_HEAD(&gone);
	mrc_msg_rx_drain(&sp->mp, &gone);
	while (!list_empty(&gone)) {
		struct mrc_msg_rx *rm = list_first_entry(&gone,
							 struct mrc_msg_rx,
							 node);

		list_del(&rm->node);
		mrc_msg_rx_free(&h->node, rm);
	}
	free(sp->txmsg);
	free(sp);
}

void hosts_free(void)
{
	unsigned int i, k;

	for (i = 0; i < g->c.hosts; i++) {
		for (k = 0; k < g->hosts[i].peer_cap; k++)
			if (g->hosts[i].peers[k])
				peer_free(g->hosts[i].peers[k]);
		free(g->hosts[i].peers);
		free(g->hosts[i].crx);
	}
	free(g->hosts);
}

static struct sim_peer *peer_find(struct sim_host *h, uint32_t id)
{
	uint32_t k;

	if (!h->peer_cap)
		return NULL;
	for (k = (uint32_t)mix64(id, 0) & (h->peer_cap - 1); h->peers[k];
	     k = (k + 1) & (h->peer_cap - 1))
		if (h->peers[k]->peer_id == id)
			return h->peers[k];
	return NULL;
}

static void peer_insert(struct sim_host *h, struct sim_peer *sp)
{
	uint32_t k;

	if (2 * (h->npeers + 1) > h->peer_cap) {
		struct sim_peer **old = h->peers;
		uint32_t ocap = h->peer_cap, i;

		h->peer_cap = ocap ? 2 * ocap : 4;
		h->peers = calloc(h->peer_cap, sizeof(*h->peers));
		if (!h->peers) {
			perror("peers");
			exit(2);
		}
		h->npeers = 0;
		for (i = 0; i < ocap; i++)
			if (old[i])
				peer_insert(h, old[i]);
		free(old);
	}
	for (k = (uint32_t)mix64(sp->peer_id, 0) & (h->peer_cap - 1);
	     h->peers[k]; k = (k + 1) & (h->peer_cap - 1))
		;
	h->peers[k] = sp;
	h->npeers++;
}

/* The earliest deadline of the peer's path timers, as peer_probe.c. */
static void probe_rearm(struct sim_peer *sp)
{
	uint64_t d = MRC_PATH_NEVER, now = sim_now_ns();
	unsigned int i, n = g->c.planes * g->c.entropy;

	for (i = 0; i < n; i++) {
		uint64_t t = mrc_path_deadline(&sp->path[i], &g->pp);

		if (t < d)
			d = t;
	}
	if (d == MRC_PATH_NEVER)
		return;
	if (d < now)
		d = now;
	if (sp->probe_armed && sp->probe_at <= d)
		return;
	sp->probe_armed = true;
	sp->probe_at = d;
	evq_push(&g->q, sim_ps(d), EV_PROBE, sp, 0);
}

/*
 * What the probe that brought a path up measured in the module (the
 * HELLO's, then a keepalive's): a probe's round trip over the four links
 * each way of the idle fabric.
 */
static uint64_t probe_rtt_ns(void)
{
	double ser_ns = (MRC_WIRE_HDR_LEN + sizeof(struct mrc_wire_hello)) *
			8 / g->c.rate_gbps;

	return (uint64_t)(2 * 4 * (g->c.hop_ps / 1000.0 + ser_ns)) + 1;
}

struct sim_peer *host_peer(struct sim_host *h, uint32_t id)
{
	struct sim_peer *sp = peer_find(h, id);
	uint64_t now = sim_now_ns(), rtt = probe_rtt_ns();
	unsigned int l, i;

	if (sp)
		return sp;
	sp = calloc(1, host_peer_bytes());
	if (!sp) {
		perror("peer");
		exit(2);
	}
	sp->h = h;
	sp->peer_id = id;
	for (l = 0; l < g->c.planes; l++)
		for (i = 0; i < g->c.entropy; i++) {
			struct mrc_path *p = &sp->path[l * g->c.entropy + i];

			/* up since its probe went, with that probe's RTT */
			mrc_path_init(p, l, l, i, now - rtt);
			mrc_path_event(p, &g->pp, MRC_PATH_EV_REPLY, now,
				       now - rtt);
			sp->mp.path[l * MRC_MSG_LINK_PATHS + i] = p;
		}
	mrc_msg_engine_init(&sp->mp, &h->node, now);
	peer_insert(h, sp);
	g->st.peers++;
	probe_rearm(sp);
	return sp;
}

/* Completions the engine left on mp->done (the module's tx_work tail). */
static void peer_finish(struct sim_peer *sp)
{
	LIST_HEAD(done);

	if (list_empty(&sp->mp.done))
		return;
	list_splice_init(&sp->mp.done, &done);
	mrc_msg_tx_finish(&sp->h->node, &done);
}

void host_start_msg(uint32_t mi)
{
	struct smsg *sm = &g->msg[mi];
	struct sim_host *h = &g->hosts[sm->src];
	struct sim_peer *sp = host_peer(h, sm->dst);
	struct mrc_msg_tx *m;
	uint32_t seq;
	int err;

	sm->start_ps = g->now;
	m = mrc_msg_tx_alloc(&h->node, sm->len, MRC_WIRE_MAX_PAYLOAD,
			     MRC_SCHED_CLASS_DEFAULT);
	if (!m) {
		sm->status = -ENOMEM;
		return;
	}
	m->ctx = (void *)(uintptr_t)mi;
	m->owner = h;
	m->src_port = 7;
	m->dst_port = 9;
	/* the sequence number mrc_msg_tx_queue() will give it: its lane's */
	seq = sp->mp.next_seq[mrc_msg_lane(m->cls, m->dst_port)] &
	      MRC_MSG_SEQ_MASK;
	if (seq >= sp->txmsg_cap) {
		sp->txmsg_cap = sp->txmsg_cap ? 2 * sp->txmsg_cap : 4;
		while (sp->txmsg_cap <= seq)
			sp->txmsg_cap *= 2;
		sp->txmsg = realloc(sp->txmsg,
				    sp->txmsg_cap * sizeof(*sp->txmsg));
		if (!sp->txmsg) {
			perror("txmsg");
			exit(2);
		}
	}
	sp->txmsg[seq] = mi;
	err = mrc_msg_tx_queue(&sp->mp, m, sim_now_ns());
	if (err) {
		sm->status = err;
		mrc_msg_tx_free(&h->node, m);
	}
	peer_finish(sp);
}

/* A message popped at host @h from peer @sp: which traffic message. */
static void delivered(struct sim_peer *sp, struct mrc_msg_rx *rm)
{
	struct sim_peer *tx = sp->rev;
	uint32_t seq = rm->seq & MRC_MSG_SEQ_MASK;
	struct smsg *sm;

	if (!tx || seq >= tx->txmsg_cap) {
		g->st.rx_bad++;
		return;
	}
	sm = &g->msg[tx->txmsg[seq]];
	if (sm->src != sp->peer_id || sm->dst != sp->h->id ||
	    sm->len != rm->r.msg_len) {
		g->st.rx_bad++;
		return;
	}
	if (!sm->delivered++) {
		sm->done_ps = g->now;
		g->nmsg_done++;
		if (g->now > g->last_done)
			g->last_done = g->now;
		traffic_delivered(tx->txmsg[seq]);
	}
	g->st.delivered_bytes += sm->len;
	g->st.digest = mix64(g->st.digest, g->now ^ ((uint64_t)sm->src << 40) ^
			     ((uint64_t)sm->dst << 16) ^ seq);
}

static void rx_data(struct sim_peer *sp, unsigned int pi,
		    const struct mrc_pkt *pkt)
{
	struct mrc_msg_rx_out out = { 0 };
	enum mrc_drop_reason why;
	struct mrc_msg_rx *rm;
	uint64_t now = sim_now_ns();

	for (;;) {
		why = mrc_msg_rx_packet(&sp->mp, pi, pkt, now, &out);
		if (!out.need_ctx)
			break;
		out.fresh = mrc_msg_rx_alloc(&sp->h->node, pkt);
		if (!out.fresh) {
			why = MRC_DROP_NO_MEMORY;
			break;
		}
	}
	if (why != MRC_DROP_NONE && why != MRC_DROP_DUPLICATE)
		g->st.rx_bad++;
	if (out.fresh)
		mrc_msg_rx_free(&sp->h->node, out.fresh);
	while ((rm = mrc_msg_rx_pop(&sp->mp))) {
		delivered(sp, rm);
		mrc_msg_rx_free(&sp->h->node, rm);
	}
	if (out.sack || out.nholes)
		mrc_msg_rx_answer(&sp->mp, pi, pkt, &out, now);
	mrc_msg_rx_flush(&sp->mp, now);		/* a batch of one */
	if (out.new_bytes) {
		report_bytes(pkt->len);
		credit_rx_data(sp, pkt);
	}
}

static void send_probe(struct sim_peer *sp, unsigned int i, u8 type,
		       u32 echo_seq, u64 echo_ts)
{
	struct mrc_pkt_hello hello = {
		.rail_id = i / g->c.entropy,
		.echo_path_seq = echo_seq,
		.echo_tstamp = echo_ts,
	};
	u8 body[sizeof(struct mrc_wire_hello)];
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.type = type,
		.entropy = i % g->c.entropy,
		.path_seq = mrc_path_next_seq(&sp->path[i]),
		.tstamp = sim_now_ns(),
		.body = body,
	};

	pkt.len = mrc_wire_put_hello(body, &hello);
	g->st.probes++;
	host_post(sp, i / g->c.entropy, i % g->c.entropy, &pkt, false);
}

static void rx_probe(struct sim_peer *sp, unsigned int i,
		     const struct mrc_pkt *pkt)
{
	struct mrc_pkt_hello hello;
	unsigned int prev;

	if (pkt->type == MRC_PKT_PROBE) {
		send_probe(sp, i, MRC_PKT_PROBE_REPLY, pkt->path_seq,
			   pkt->tstamp);
		return;
	}
	mrc_wire_get_hello(pkt, &hello);
	prev = sp->path[i].state;
	mrc_path_event(&sp->path[i], &g->pp, MRC_PATH_EV_REPLY, sim_now_ns(),
		       hello.echo_tstamp);
	prof_path(sp, i, prev, sp->path[i].state);
	probe_rearm(sp);
}

void host_rx(struct spkt *p)
{
	struct sim_host *h = &g->hosts[p->dst];
	struct mrc_wire_limits lim = {
		.max_msg_len = MRC_MSG_MAX_BYTES,
		.local_node = h->id + 1,
	};
	unsigned int pi = p->plane * MRC_MSG_LINK_PATHS + p->entropy;
	struct sim_peer *sp;
	struct mrc_pkt pkt;
	uint64_t now = sim_now_ns();

	memcpy(g->scratch, p->buf, p->buf_len);
	if (mrc_wire_parse(g->scratch, p->wire_len, &lim, &pkt) !=
	    MRC_DROP_NONE || pkt.src_node != p->src + 1) {
		g->st.rx_bad++;
		pkt_free(p);
		return;
	}
	sp = p->to;
	switch (pkt.type) {
	case MRC_PKT_DATA:
		/* acknowledgments it carries first, as mrc/msg_rx.c */
		if (mrc_wire_done_n(&pkt))
			mrc_msg_tx_data_done(&sp->mp, &pkt, now);
		rx_data(sp, pi, &pkt);
		break;
	case MRC_PKT_SACK:
		mrc_msg_tx_sack(&sp->mp, pi, &pkt, now);
		break;
	case MRC_PKT_NACK:
		mrc_msg_tx_nack(&sp->mp, &pkt, now);
		break;
	case MRC_PKT_CREDIT_REQ:
	case MRC_PKT_GRANT:
		credit_rx_pkt(sp, &pkt);
		break;
	case MRC_PKT_PROBE:
	case MRC_PKT_PROBE_REPLY:
		rx_probe(sp, p->plane * g->c.entropy + p->entropy, &pkt);
		break;
	default:
		g->st.rx_bad++;
		break;
	}
	peer_finish(sp);
	pkt_free(p);
}

static void free_rx_list(struct sim_peer *sp, struct list_head *list)
{
	while (!list_empty(list)) {
		struct mrc_msg_rx *rm = list_first_entry(list,
							 struct mrc_msg_rx,
							 node);

		list_del(&rm->node);
		mrc_msg_rx_free(&sp->h->node, rm);
	}
}

/* The peer timer of peer_probe.c: probes, keepalives, paths retired. */
static void run_probes(struct sim_peer *sp)
{
	unsigned int i, n = g->c.planes * g->c.entropy;
	uint64_t now = sim_now_ns();

	for (i = 0; i < n; i++) {
		struct mrc_path *p = &sp->path[i];
		bool was = mrc_path_in_spray_set(p);

		if (mrc_path_timer(p, &g->pp, now))
			send_probe(sp, i, MRC_PKT_PROBE, 0, 0);
		if (was && !mrc_path_in_spray_set(p)) {
			prof_path(sp, i, MRC_PATH_ACTIVE, p->state);
			mrc_msg_tx_path_down(&sp->mp,
					     (i / g->c.entropy) *
					     MRC_MSG_LINK_PATHS +
					     i % g->c.entropy, false, now);
		}
	}
	peer_finish(sp);
	probe_rearm(sp);
}

void host_ev(const struct sim_ev *ev)
{
	struct sim_peer *sp = ev->p;
	LIST_HEAD(gone);

	switch (ev->type) {
	case EV_TX_RUN:
		if (ev->arg) {
			if (!sp->kick_due)
				return;
			sp->kick_due = false;
		} else {
			if (!sp->armed || sim_ps(sp->arm_at) != ev->t)
				return;
			sp->armed = false;
		}
		if (ev->arg)
			mrc_msg_tx_run(&sp->mp, sim_now_ns());
		else	/* as mrc/msg.c's timer */
			mrc_msg_tx_timer(&sp->mp, sim_now_ns());
		peer_finish(sp);
		break;
	case EV_EXPIRE:
		if (!sp->expire_armed || sim_ps(sp->expire_at) != ev->t)
			return;
		sp->expire_armed = false;
		mrc_msg_rx_expire(&sp->mp, sim_now_ns(), &gone);
		free_rx_list(sp, &gone);
		break;
	case EV_PROBE:
		if (!sp->probe_armed || sim_ps(sp->probe_at) != ev->t)
			return;
		sp->probe_armed = false;
		run_probes(sp);
		break;
	case EV_PACE:
		credit_pace_ev(ev->p, ev->t);
		break;
	}
}

uint64_t host_engine_peak_bytes(void)
{
	return eng_peak;
}
