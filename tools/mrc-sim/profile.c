// SPDX-License-Identifier: GPL-2.0
/*
 * profile.c - where a fault's time goes: the JSON's "fault_profile" and
 * "ring_chain" objects (Documentation/mrc/sim.rst, Outputs).
 *
 *  - the packets lost at a faulty port, by kind (DATA, SACK/NACK,
 *    probes), the first and the last DATA one, and the DATA ones whose
 *    path was out of the spray set when they died;
 *  - per flow (an engine that sent DATA): how many of its paths cross a
 *    faulty port one way or the other (the fabric's ECMP, recomputed), how
 *    many of its DATA packets died there, its paths' timeouts (RTO'd
 *    packets and unanswered keepalives), and which paths are out of the
 *    spray set at the end, faulty or not;
 *  - the paths leaving and re-entering the spray set, and the last time
 *    one left;
 *  - ring: the critical chain, walked back from the last delivery (a
 *    host's step k + 1 starts at the delivery of its predecessor's step
 *    k), with the chunks on it that took over PROF_STALL_PS.
 */
#include "sim.h"

/* A chunk of the ring's chain this slow is a stall. */
#define PROF_STALL_PS	(100ULL * 1000 * 1000)
#define PROF_STALLS_MAX	16
#define PROF_HIST	5	/* 0, 1, 2, 3, 4 or more */

/**
 * prof_fault_drop() - a packet died at a faulty port
 * @p: the packet, still intact
 */
void prof_fault_drop(const struct spkt *p)
{
	const struct mrc_wire_hdr *h = (const void *)p->buf;
	struct sim_peer *sp;
	struct mrc_path *path;

	switch (p->type) {
	case MRC_PKT_DATA:
		g->st.fault_drops_data++;
		if (!g->st.fault_drop_first_ps)
			g->st.fault_drop_first_ps = g->now;
		g->st.fault_drop_last_ps = g->now;
		if (!p->to || !p->to->rev)
			break;
		sp = p->to->rev;
		sp->fault_data_drops++;
		/*
		 * Sent on a path already out of the spray set (a resend):
		 * out of it now, and since before the packet's tstamp (it
		 * may have left while the packet was on its way).
		 */
		path = &sp->path[p->plane * g->c.entropy + p->entropy];
		if (!mrc_path_in_spray_set(path) &&
		    path->since_ns <= be64_to_cpu(h->tstamp))
			g->st.fault_drops_retired++;
		break;
	case MRC_PKT_SACK:
	case MRC_PKT_NACK:
		g->st.fault_drops_ack++;
		break;
	case MRC_PKT_PROBE:
	case MRC_PKT_PROBE_REPLY:
		g->st.fault_drops_probe++;
		break;
	default:
		break;
	}
}

/**
 * prof_path() - a path of @sp changed state
 * @sp: the engine
 * @i: the path, in @sp->path[]
 * @prev: its state before
 * @state: its state now
 */
void prof_path(struct sim_peer *sp, unsigned int i, unsigned int prev,
	       unsigned int state)
{
	bool bad = g->c.nfaults &&
		   (fabric_route_faulty(sp->h->id, sp->peer_id,
					i / g->c.entropy, i % g->c.entropy) ||
		    fabric_route_faulty(sp->peer_id, sp->h->id,
					i / g->c.entropy, i % g->c.entropy));

	if (prev == MRC_PATH_ACTIVE && state != MRC_PATH_ACTIVE) {
		g->st.paths_left[bad]++;
		g->st.path_left_last_ps = g->now;
	} else if (prev != MRC_PATH_ACTIVE && state == MRC_PATH_ACTIVE) {
		g->st.paths_back[bad]++;
	}
}

struct prof_flows {
	uint64_t flows, hit;		/* senders; with a faulty path */
	uint64_t bad_fwd, bad_rev;	/* faulty paths, each way */
	uint64_t out_bad, out_good;	/* out of the spray set at the end */
	uint64_t bad_active;		/* faulty and still in it */
	uint64_t timeouts, drops;	/* of the flows hit */
	uint32_t max_timeouts, max_drops;
	uint64_t h_drops[PROF_HIST], h_timeouts[PROF_HIST];
};

static void prof_flow(const struct sim_peer *sp, struct prof_flows *pf)
{
	unsigned int i, n = g->c.planes * g->c.entropy, bad = 0;
	uint64_t tx = 0, to = 0;

	for (i = 0; i < n; i++)
		tx += sp->path[i].stats.tx_pkts;
	if (!tx)
		return;
	pf->flows++;
	for (i = 0; i < n; i++) {
		const struct mrc_path *p = &sp->path[i];
		unsigned int pl = i / g->c.entropy, ev = i % g->c.entropy;
		bool fwd = fabric_route_faulty(sp->h->id, sp->peer_id, pl, ev);
		bool rev = fabric_route_faulty(sp->peer_id, sp->h->id, pl, ev);
		bool in = mrc_path_in_spray_set(p);

		pf->bad_fwd += fwd;
		pf->bad_rev += rev;
		bad += fwd || rev;
		if (!in && (fwd || rev))
			pf->out_bad++;
		else if (!in)
			pf->out_good++;
		else if (fwd || rev)
			pf->bad_active++;
		to += p->stats.timeouts;
	}
	if (!bad)
		return;
	pf->hit++;
	pf->timeouts += to;
	pf->drops += sp->fault_data_drops;
	if (to > pf->max_timeouts)
		pf->max_timeouts = to;
	if (sp->fault_data_drops > pf->max_drops)
		pf->max_drops = sp->fault_data_drops;
	pf->h_timeouts[to < PROF_HIST ? to : PROF_HIST - 1]++;
	pf->h_drops[sp->fault_data_drops < PROF_HIST ?
		    sp->fault_data_drops : PROF_HIST - 1]++;
}

static void write_hist(FILE *f, const char *name, const uint64_t *h)
{
	unsigned int i;

	fprintf(f, "\"%s\": [", name);
	for (i = 0; i < PROF_HIST; i++)
		fprintf(f, "%llu%s", (unsigned long long)h[i],
			i + 1 < PROF_HIST ? ", " : "]");
}

/* us after the first fault's start (negative: before it). */
static double after_fault_us(uint64_t ps)
{
	return ((double)ps - (double)g->c.fault[0].t_down) / 1e6;
}

static void write_faults(FILE *f)
{
	struct prof_flows pf = { 0 };
	uint32_t h, k;

	for (h = 0; h < g->c.hosts; h++)
		for (k = 0; k < g->hosts[h].peer_cap; k++)
			if (g->hosts[h].peers[k])
				prof_flow(g->hosts[h].peers[k], &pf);
	fprintf(f, "  \"fault_profile\": {\"drops_data\": %llu, "
		"\"drops_ack\": %llu, \"drops_probe\": %llu, "
		"\"drops_data_retired\": %llu, "
		"\"first_data_drop_us\": %.3f, \"last_data_drop_us\": %.3f, "
		"\"paths_left\": [%llu, %llu], \"paths_back\": [%llu, %llu], "
		"\"last_left_us\": %.3f,\n",
		(unsigned long long)g->st.fault_drops_data,
		(unsigned long long)g->st.fault_drops_ack,
		(unsigned long long)g->st.fault_drops_probe,
		(unsigned long long)g->st.fault_drops_retired,
		g->st.fault_drops_data ?
		after_fault_us(g->st.fault_drop_first_ps) : 0,
		g->st.fault_drops_data ?
		after_fault_us(g->st.fault_drop_last_ps) : 0,
		(unsigned long long)g->st.paths_left[0],
		(unsigned long long)g->st.paths_left[1],
		(unsigned long long)g->st.paths_back[0],
		(unsigned long long)g->st.paths_back[1],
		g->st.path_left_last_ps ?
		after_fault_us(g->st.path_left_last_ps) : 0);
	fprintf(f, "    \"flows\": %llu, \"flows_hit\": %llu, "
		"\"faulty_paths_fwd\": %llu, \"faulty_paths_rev\": %llu, "
		"\"out_faulty\": %llu, \"out_sound\": %llu, "
		"\"faulty_in_spray\": %llu,\n",
		(unsigned long long)pf.flows, (unsigned long long)pf.hit,
		(unsigned long long)pf.bad_fwd, (unsigned long long)pf.bad_rev,
		(unsigned long long)pf.out_bad,
		(unsigned long long)pf.out_good,
		(unsigned long long)pf.bad_active);
	fprintf(f, "    \"hit_data_drops\": %llu, \"hit_timeouts\": %llu, "
		"\"max_data_drops\": %u, \"max_timeouts\": %u, ",
		(unsigned long long)pf.drops, (unsigned long long)pf.timeouts,
		pf.max_drops, pf.max_timeouts);
	write_hist(f, "hist_data_drops", pf.h_drops);
	fprintf(f, ", ");
	write_hist(f, "hist_timeouts", pf.h_timeouts);
	fprintf(f, "},\n");
}

static void write_chain(FILE *f)
{
	uint32_t mi, last = UINT32_MAX, n = 0, nstall = 0;
	uint64_t stall_ps = 0, max_ps = 0;

	for (mi = 0; mi < g->nmsg; mi++) {
		if (!g->msg[mi].done_ps)
			return;	/* no chain to walk */
		if (last == UINT32_MAX ||
		    g->msg[mi].done_ps > g->msg[last].done_ps)
			last = mi;
	}
	fprintf(f, "  \"ring_chain\": {\"stalls\": [");
	for (mi = last; mi != UINT32_MAX; mi = traffic_ring_pred(mi)) {
		const struct smsg *m = &g->msg[mi];
		uint64_t fct = m->done_ps - m->start_ps;

		n++;
		if (fct > max_ps)
			max_ps = fct;
		if (fct <= PROF_STALL_PS)
			continue;
		stall_ps += fct;
		if (nstall++ >= PROF_STALLS_MAX)
			continue;
		fprintf(f, "%s{\"step\": %u, \"src\": %u, \"dst\": %u, "
			"\"start_us\": %.3f, \"fct_us\": %.3f, "
			"\"flow_data_drops\": %u}",
			nstall > 1 ? ", " : "", mi / g->c.hosts, m->src, m->dst,
			m->start_ps / 1e6, fct / 1e6,
			host_peer(&g->hosts[m->src], m->dst)->fault_data_drops);
	}
	fprintf(f, "],\n    \"steps\": %u, \"n_stalls\": %u, "
		"\"stall_us\": %.3f, \"max_chunk_us\": %.3f},\n",
		n, nstall, stall_ps / 1e6, max_ps / 1e6);
}

/**
 * prof_json() - the profile's lines of the JSON
 * @f: the JSON file
 */
void prof_json(FILE *f)
{
	if (g->c.nfaults)
		write_faults(f);
	if (g->c.pattern == PAT_RING)
		write_chain(f);
}
