// SPDX-License-Identifier: GPL-2.0
/*
 * fabric.c - the fabric: P planes, each an independent two-tier leaf/spine
 * Clos.  Host h is on leaf h / leaf_hosts of every plane; every leaf has
 * one link to every spine.  Every link is a pair of output ports, each with
 * its own drop-tail buffer (ECN marking above a threshold, counted: the
 * engine does not read ECN yet; with --ctl-prio, a control lane served
 * first: pkt_ctl_lane(), port_ctl_depart()), serialising at the link rate
 * and handing the packet to the far end hop_ps later.  A port that goes
 * down loses what it holds and what is on its wire.  ECMP: a leaf sends a
 * packet for another leaf to spine hash(entropy, src, dst, leaf) mod S, so
 * one entropy value is one path; spines and the last leaf have one way
 * down.  No rerouting around a failed link: the paths through it black-hole
 * until the engine retires them, as with static ECMP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

#define PKT_SMALL	128	/* DATA (header only), PROBE */
#define PKT_BIG		400	/* SACK, NACK */

enum { NODE_LEAF, NODE_SPINE, NODE_HOST };
#define NODE(kind, id)	(((uint32_t)(kind) << 28) | (id))

struct sim *g;

static uint64_t port_nic(unsigned int pl, uint32_t h)
{
	return pl * g->ports_per_plane + h;
}

static uint64_t port_leaf_down(unsigned int pl, uint32_t h)
{
	return pl * g->ports_per_plane + g->c.hosts + h;
}

static uint64_t port_leaf_up(unsigned int pl, unsigned int l, unsigned int s)
{
	return pl * g->ports_per_plane + 2ULL * g->c.hosts +
	       (uint64_t)l * g->c.spines + s;
}

static uint64_t port_spine_down(unsigned int pl, unsigned int s,
				unsigned int l)
{
	return pl * g->ports_per_plane + 2ULL * g->c.hosts +
	       (uint64_t)g->leaves * g->c.spines + (uint64_t)s * g->leaves + l;
}

/* The node at the far end of port @pi. */
static uint32_t port_far(uint64_t pi)
{
	uint64_t i = pi % g->ports_per_plane, H = g->c.hosts;
	uint64_t ls = (uint64_t)g->leaves * g->c.spines;

	if (i < H)
		return NODE(NODE_LEAF, i / g->c.leaf_hosts);
	if (i < 2 * H)
		return NODE(NODE_HOST, i - H);
	if (i < 2 * H + ls)
		return NODE(NODE_SPINE, (i - 2 * H) % g->c.spines);
	return NODE(NODE_LEAF, (i - 2 * H - ls) % g->leaves);
}

uint64_t fabric_ser_ps(uint32_t bytes, uint16_t rate_pm)
{
	double ps = bytes * 8000.0 / g->c.rate_gbps;

	if (rate_pm != 1000)
		ps = ps * 1000.0 / rate_pm;
	return (uint64_t)(ps + 0.5);
}

void fabric_init(void)
{
	uint64_t i, n;

	g->leaves = (g->c.hosts + g->c.leaf_hosts - 1) / g->c.leaf_hosts;
	g->ports_per_plane = 2ULL * g->c.hosts +
			     2ULL * g->leaves * g->c.spines;
	n = g->ports_per_plane * g->c.planes;
	g->ports = calloc(n, sizeof(*g->ports));
	if (!g->ports) {
		perror("ports");
		exit(2);
	}
	for (i = 0; i < n; i++) {
		uint64_t k = i % g->ports_per_plane, H = g->c.hosts;

		g->ports[i].rate_pm = 1000;
		g->ports[i].tier = k < H ? TIER_NIC : k < 2 * H ?
				   TIER_LEAF_DOWN :
				   k < 2 * H + (uint64_t)g->leaves *
				   g->c.spines ? TIER_LEAF_UP :
				   TIER_SPINE_DOWN;
	}
}

static void free_list(struct spkt *p)
{
	while (p) {
		struct spkt *n = p->next;

		free(p);
		p = n;
	}
}

void fabric_free(void)
{
	free(g->ports);
	free_list(g->free_small);
	free_list(g->free_big);
}

struct spkt *pkt_alloc(uint16_t buf_len)
{
	struct spkt **fl = buf_len <= PKT_SMALL ? &g->free_small :
			   &g->free_big;
	struct spkt *p = *fl;

	if (buf_len > PKT_BIG) {
		fprintf(stderr, "mrc-sim: packet body of %u bytes\n", buf_len);
		exit(2);
	}
	if (p) {
		*fl = p->next;
	} else {
		p = malloc(sizeof(*p) +
			   (buf_len <= PKT_SMALL ? PKT_SMALL : PKT_BIG));
		if (!p) {
			perror("packet");
			exit(2);
		}
	}
	p->next = NULL;
	p->buf_len = buf_len;
	p->ecn = 0;
	if (++g->st.live_pkts > g->st.peak_pkts)
		g->st.peak_pkts = g->st.live_pkts;
	return p;
}

void pkt_free(struct spkt *p)
{
	struct spkt **fl = p->buf_len <= PKT_SMALL ? &g->free_small :
			   &g->free_big;

	g->st.live_pkts--;
	p->next = *fl;
	*fl = p;
}

/* Bytes port @pt sends from now until @until (ps) at its rate. */
static uint64_t port_bytes_until(const struct port *pt, uint64_t until)
{
	if (until <= g->now)
		return 0;
	return (uint64_t)((until - g->now) * g->c.rate_gbps * pt->rate_pm /
			  8e6);
}

/* Bytes waiting at port @pt: its backlog of serialisation time. */
static uint64_t port_backlog(const struct port *pt)
{
	return port_bytes_until(pt, pt->busy_until);
}

/*
 * --ctl-prio: which packets take the control lane.  Those that steer the
 * data (SACK, NACK, CREDIT_REQ, GRANT), as htsim's composite queues serve
 * acks, nacks and pulls first.  Probes and their replies travel with the
 * data: they tell the engine whether a path carries data and how fast,
 * and a probe that passed the data queued at a degraded link would bring
 * its path back at the RTT of an idle one.  (The simulator sends no
 * HELLO: its paths come up with a probe's RTT, host.c.)
 */
static bool pkt_ctl_lane(const struct spkt *p)
{
	return p->type != MRC_PKT_DATA && p->type != MRC_PKT_PROBE &&
	       p->type != MRC_PKT_PROBE_REPLY;
}

/*
 * --ctl-prio: control packet @p goes ahead of the data queued at @pt
 * (strict priority, not preemptive).  Which data packet is on the wire
 * is not kept, so it waits as if a whole one had just started (at most
 * the backlog): the longest it could wait.  Control packets queue among
 * themselves (ctl_until), at most a buffer's worth, and each delays the
 * data behind it by its own serialisation.  Returns its departure, or
 * 0 if the control lane is full (dropped, counted with the tier's).
 */
static uint64_t port_ctl_depart(struct port *pt, const struct spkt *p)
{
	uint64_t ser = fabric_ser_ps(p->wire_len, pt->rate_pm);
	uint64_t data = pt->busy_until > g->now ? pt->busy_until - g->now : 0;
	uint64_t mtu = fabric_ser_ps(MRC_WIRE_MAX_PKT, pt->rate_pm);
	uint64_t start = g->now + (data < mtu ? data : mtu);

	if (port_bytes_until(pt, pt->ctl_until) + p->wire_len >
	    g->c.buf_bytes)
		return 0;
	if (pt->ctl_until > start)
		start = pt->ctl_until;
	pt->ctl_until = start + ser;
	if (data)
		pt->busy_until += ser;
	if (pt->busy_until < pt->ctl_until)
		pt->busy_until = pt->ctl_until;
	return pt->ctl_until;
}

/*
 * Queues @p on port @pi, or drops it (down, or drop-tail).  A port is
 * a FIFO at a fixed rate, so a packet's departure is known when it is
 * queued: the end of the port's backlog plus its own serialisation.  Its
 * arrival at the far end is scheduled at once (one event per hop), and
 * what the port holds is its backlog of time at the link rate.
 */
static void port_enqueue(uint64_t pi, struct spkt *p)
{
	struct port *pt = &g->ports[pi];
	uint64_t q, start, depart;

	if (pt->down) {
		g->st.fault_drops++;
		prof_fault_drop(p);
		pkt_free(p);
		return;
	}
	if (g->c.ctl_prio && pkt_ctl_lane(p)) {
		depart = port_ctl_depart(pt, p);
		if (!depart) {
			g->st.drops[pt->tier]++;
			pkt_free(p);
			return;
		}
		goto send;
	}
	q = port_backlog(pt);
	if (pt->tier != TIER_NIC && q + p->wire_len > g->c.buf_bytes) {
		g->st.drops[pt->tier]++;
		if (p->sched)
			g->st.sched_drops[pt->tier]++;
		pkt_free(p);
		return;
	}
	if (g->c.ecn_bytes && q >= g->c.ecn_bytes && !p->ecn) {
		p->ecn = 1;
		g->st.ecn_marks++;
	}
	if (q + p->wire_len > g->st.maxq[pt->tier])
		g->st.maxq[pt->tier] = q + p->wire_len;
	start = pt->busy_until > g->now ? pt->busy_until : g->now;
	pt->busy_until = start + fabric_ser_ps(p->wire_len, pt->rate_pm);
	depart = pt->busy_until;
send:
	p->port = (uint32_t)pi;
	p->epoch = pt->epoch;
	p->downs = g->port_downs;
	evq_push(&g->q, depart + g->c.hop_ps, EV_ARRIVE, p, port_far(pi));
}

/* NIC ports never go down (faults are on switch links). */
bool fabric_send(struct spkt *p)
{
	uint64_t pi = port_nic(p->plane, p->src);

	if (port_backlog(&g->ports[pi]) >=
	    (uint64_t)g->c.nic_ring * MRC_WIRE_MAX_PKT)
		return false;
	port_enqueue(pi, p);
	return true;
}

/* Frees the packets of the events still pending (end of a run). */
void fabric_drain(void)
{
	struct sim_ev ev;

	while (evq_pop(&g->q, &ev))
		if (ev.type == EV_ARRIVE)
			pkt_free(ev.p);
}

/* The spine that @src's leaf picks for @dst on (@plane, @ev): its ECMP. */
static unsigned int ecmp_spine(uint32_t src, uint32_t dst, unsigned int plane,
			       unsigned int ev, unsigned int leaf)
{
	uint64_t h = mix64(mix64(ev, ((uint64_t)src << 32) | dst),
			   ((uint64_t)plane << 32) | leaf);

	return h % g->c.spines;
}

bool fabric_route_faulty(uint32_t src, uint32_t dst, unsigned int plane,
			 unsigned int ev)
{
	unsigned int sl = src / g->c.leaf_hosts, dl = dst / g->c.leaf_hosts;
	unsigned int i, s;

	if (sl == dl)
		return false;
	s = ecmp_spine(src, dst, plane, ev, sl);
	for (i = 0; i < g->c.nfaults; i++) {
		const struct sim_fault *f = &g->c.fault[i];

		if (f->kind == FAULT_DEGRADE || f->plane != plane ||
		    f->spine != s)
			continue;
		if (f->kind == FAULT_SPINE || f->leaf == sl || f->leaf == dl)
			return true;
	}
	return false;
}

void fabric_arrive(struct spkt *p, uint32_t node)
{
	uint32_t id = node & ((1U << 28) - 1);
	unsigned int dl = p->dst / g->c.leaf_hosts;

	/*
	 * The port it left went down since: lost with what it held.  Only
	 * looked at if some port went down since it was queued (the port
	 * is a cache miss more per hop at scale).
	 */
	if (p->downs != g->port_downs && g->ports[p->port].epoch != p->epoch) {
		g->st.fault_drops++;
		prof_fault_drop(p);
		pkt_free(p);
		return;
	}
	switch (node >> 28) {
	case NODE_HOST:
		host_rx(p);
		return;
	case NODE_SPINE:
		port_enqueue(port_spine_down(p->plane, id, dl), p);
		return;
	default:
		break;
	}
	if (dl == id) {
		port_enqueue(port_leaf_down(p->plane, p->dst), p);
		return;
	}
	port_enqueue(port_leaf_up(p->plane, id,
				  ecmp_spine(p->src, p->dst, p->plane,
					     p->entropy, id)), p);
}

static void port_set(uint64_t pi, bool down, uint16_t rate_pm)
{
	struct port *pt = &g->ports[pi];

	pt->rate_pm = rate_pm;
	if (down && !pt->down) {
		pt->epoch++;	/* what it holds is lost */
		g->port_downs++;
		pt->busy_until = g->now;
		pt->ctl_until = g->now;
	}
	pt->down = down;
}

void fabric_fault(unsigned int i, bool down)
{
	const struct sim_fault *f = &g->c.fault[i];
	uint16_t pm = 1000;
	unsigned int l;

	if (f->kind == FAULT_DEGRADE && down) {
		pm = (uint16_t)(f->frac * 1000 + 0.5);
		if (!pm)
			pm = 1;
	}
	switch (f->kind) {
	case FAULT_LINK:
	case FAULT_DEGRADE:
		port_set(port_leaf_up(f->plane, f->leaf, f->spine),
			 f->kind == FAULT_LINK && down, pm);
		port_set(port_spine_down(f->plane, f->spine, f->leaf),
			 f->kind == FAULT_LINK && down, pm);
		break;
	case FAULT_SPINE:
		for (l = 0; l < g->leaves; l++) {
			port_set(port_leaf_up(f->plane, l, f->spine), down,
				 1000);
			port_set(port_spine_down(f->plane, f->spine, l), down,
				 1000);
		}
		break;
	}
}

uint64_t fabric_ideal_ps(uint32_t src, uint32_t dst, uint32_t len)
{
	uint32_t seg = MRC_WIRE_MAX_PAYLOAD;
	uint32_t npkts = mrc_wire_npkts(len, seg);
	uint32_t last = len - (npkts - 1) * seg + MRC_WIRE_HDR_LEN;
	uint64_t wire = (uint64_t)len + (uint64_t)npkts * MRC_WIRE_HDR_LEN;
	unsigned int links = src / g->c.leaf_hosts == dst / g->c.leaf_hosts ?
			     2 : 4;
	/* fluid bound: sprayed over every plane at once */
	double ps = wire * 8000.0 / (g->c.rate_gbps * g->c.planes);

	return (uint64_t)ps + (links - 1) * fabric_ser_ps(last, 1000) +
	       links * g->c.hop_ps;
}
