// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - a run's results: a JSON file and a markdown table.  Every
 * figure but the "cost" line (the simulator's own wall and CPU time,
 * events per CPU second, memory) depends only on the configuration and
 * the seed.  Rates are per CPU second: the machine is shared, wall time
 * says more about the neighbours than about the simulator.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

static const char *const tier_name[TIER_NR] = {
	"nic", "leaf_up", "spine_down", "leaf_down"
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct dist {
	double p50, p99, max, min;
};

static struct dist dist_of(double *v, uint32_t n)
{
	struct dist d = { 0 };

	if (!n)
		return d;
	qsort(v, n, sizeof(*v), cmp_double);
	d.min = v[0];
	d.p50 = v[(n - 1) / 2];
	d.p99 = v[(uint32_t)((n - 1) * 0.99 + 0.5)];
	d.max = v[n - 1];
	return d;
}

/* Size buckets of the slowdown: up to 4 KiB, 64 KiB, 1 MiB, 16 MiB, above. */
#define NBUCKETS	5
static const uint32_t bucket_max[NBUCKETS - 1] = {
	4096, 65536, 1 << 20, 16 << 20
};
static const char *const bucket_name[NBUCKETS] = {
	"le_4k", "le_64k", "le_1m", "le_16m", "gt_16m"
};

static unsigned int bucket_of(uint32_t len)
{
	unsigned int b;

	for (b = 0; b < NBUCKETS - 1; b++)
		if (len <= bucket_max[b])
			break;
	return b;
}

struct summary {
	uint32_t delivered, dup, missing, bad_status, below_ideal, unacked;
	struct dist slow, fct_us;
	double goodput_gbps, span_us;
	uint32_t nb[NBUCKETS];
	struct dist bslow[NBUCKETS];
	double jain;		/* of the messages' rates, len / fct */
	double recover_us;	/* after the first fault; -1: never */
	double dip;		/* lowest goodput after it / before it */
};

/*
 * Goodput over time, bins of --bin-us: new payload bytes arriving at the
 * receivers (the engine's new_bytes), at the time of their arrival.
 */
void report_bytes(uint32_t bytes)
{
	uint64_t b = g->now / g->c.bin_ps;

	if (b >= g->nbins) {
		uint64_t n = g->nbins ? g->nbins : 1024, i;

		while (n <= b)
			n *= 2;
		g->series = realloc(g->series, n * sizeof(*g->series));
		if (!g->series) {
			perror("series");
			exit(2);
		}
		for (i = g->nbins; i < n; i++)
			g->series[i] = 0;
		g->nbins = n;
	}
	g->series[b] += bytes;
}

/* Moving average of 5 bins ending with bin @b, bytes per bin. */
static double series_avg(uint64_t b)
{
	uint64_t i, lo = b >= 4 ? b - 4 : 0;
	double sum = 0;

	for (i = lo; i <= b; i++)
		sum += i < g->nbins ? g->series[i] : 0;
	return sum / (b - lo + 1);
}

/*
 * Time to recover from the first fault: its goodput before (the mean
 * of the 20 bins before it, which must hold traffic) against the 5-bin
 * moving average after it; recovered when that is back to 90% after
 * having fallen below.  0 if it never fell below; -1 if it never came
 * back before the traffic ended.
 */
static void recovery(struct summary *s)
{
	uint64_t t0, b0, b, last = g->last_done / g->c.bin_ps, lo;
	double pre = 0, low = -1;
	bool fell = false;

	s->recover_us = 0;
	s->dip = 1;
	if (!g->c.nfaults || !g->nbins)
		return;
	t0 = g->c.fault[0].t_down;
	b0 = t0 / g->c.bin_ps;
	lo = b0 >= 20 ? b0 - 20 : 0;
	for (b = lo; b < b0; b++)
		pre += g->series[b < g->nbins ? b : 0];
	if (b0 <= lo || pre == 0)
		return;
	pre /= b0 - lo;
	for (b = b0; b <= last && b < g->nbins; b++) {
		double a = series_avg(b);

		if (low < 0 || a < low)
			low = a;
		if (a < 0.9 * pre) {
			fell = true;
		} else if (fell) {
			s->recover_us = ((b + 1) * g->c.bin_ps - t0) / 1e6;
			break;
		}
	}
	if (fell && !s->recover_us)
		s->recover_us = -1;
	s->dip = low >= 0 ? low / pre : 1;
}

static void summarise(struct summary *s)
{
	double *slow = malloc((g->nmsg + 1) * sizeof(double));
	double *fct = malloc((g->nmsg + 1) * sizeof(double));
	double *bs = malloc((g->nmsg + 1) * sizeof(double));
	double rsum = 0, rsq = 0;
	uint32_t i, n = 0, b, k;

	if (!slow || !fct || !bs) {
		perror("report");
		exit(2);
	}
	for (i = 0; i < g->nmsg; i++) {
		const struct smsg *m = &g->msg[i];
		uint64_t t;

		if (!m->delivered) {
			s->missing++;
			continue;
		}
		s->delivered++;
		if (m->delivered > 1)
			s->dup++;
		if (m->completed != 1 || m->status)
			s->bad_status += m->completed > 0 && m->status;
		if (!m->completed)
			s->unacked++;
		t = m->done_ps - m->start_ps;
		if (t < m->ideal_ps)
			s->below_ideal++;
		slow[n] = (double)t / m->ideal_ps;
		fct[n] = t / 1e6;
		s->nb[bucket_of(m->len)]++;
		if (t) {
			double r = (double)m->len / t;

			rsum += r;
			rsq += r * r;
		}
		n++;
	}
	s->jain = rsq > 0 ? rsum * rsum / (n * rsq) : 0;
	for (b = 0; b < NBUCKETS; b++) {
		if (!s->nb[b])
			continue;
		for (i = 0, k = 0; i < g->nmsg; i++) {
			const struct smsg *m = &g->msg[i];

			if (m->delivered && bucket_of(m->len) == b)
				bs[k++] = (double)(m->done_ps - m->start_ps) /
					  m->ideal_ps;
		}
		s->bslow[b] = dist_of(bs, k);
	}
	free(bs);
	recovery(s);
	s->slow = dist_of(slow, n);
	s->fct_us = dist_of(fct, n);
	s->span_us = (g->last_done - g->first_start) / 1e6;
	s->goodput_gbps = s->span_us > 0 ?
			  g->st.delivered_bytes * 8.0 / (s->span_us * 1e3) : 0;
	free(slow);
	free(fct);
}


/* The credit counters: senders' (glue), receivers' tables (core). */
static void write_credit(FILE *f)
{
	struct mrc_credit_rx_stats rs;

	credit_stats(&rs);
	fprintf(f, "  \"credit\": {\"msgs_sched\": %llu, \"requests\": %llu, "
		"\"grants\": %llu, \"requests_bad\": %llu, "
		"\"grants_bad\": %llu, \"over_credit\": %llu, "
		"\"data_paces\": %llu, \"tx_errors\": %llu, "
		"\"rx_req_new\": %llu, \"rx_req_dup\": %llu, "
		"\"rx_req_full\": %llu, \"rx_grants\": %llu, "
		"\"rx_granted_bytes\": %llu, \"rx_unsched_bytes\": %llu, "
		"\"rx_reclaimed_bytes\": %llu, \"rx_paces\": %llu, "
		"\"rx_outstanding_max\": %llu},\n",
		(unsigned long long)g->st.msgs_sched,
		(unsigned long long)g->st.requests_tx,
		(unsigned long long)g->st.grants_tx,
		(unsigned long long)g->st.requests_bad,
		(unsigned long long)g->st.grants_bad,
		(unsigned long long)g->st.over_credit,
		(unsigned long long)g->st.data_paces,
		(unsigned long long)g->st.credit_tx_errs,
		(unsigned long long)rs.req_new,
		(unsigned long long)rs.req_dup,
		(unsigned long long)rs.req_full,
		(unsigned long long)rs.grants,
		(unsigned long long)rs.granted_bytes,
		(unsigned long long)rs.unsched_bytes,
		(unsigned long long)rs.reclaimed_bytes,
		(unsigned long long)rs.paces,
		(unsigned long long)rs.outstanding_max);
}

static void write_json(FILE *f, const struct summary *s, double wall_s,
		       double cpu_s, long rss_kb)
{
	uint64_t coll, coll_ideal = 0;
	unsigned int t, nb = 0;

	fprintf(f, "{\n");
	fprintf(f, "  \"config\": {\"hosts\": %u, \"planes\": %u, "
		"\"leaf_hosts\": %u, \"leaves\": %u, \"spines\": %u, "
		"\"entropy\": %u, \"rate_gbps\": %g, \"hop_ns\": %g, "
		"\"buf_kb\": %u, \"ecn_kb\": %u, \"seed\": %llu, "
		"\"pattern\": \"%s\", \"size\": %u, \"msgs\": %u, "
		"\"incast_n\": %u, \"jitter_ns\": %g, \"policy\": %u, "
		"\"credit\": %llu, \"faults\": %u, \"probe_rearm\": \"%s\", "
		"\"ctl_prio\": %u},\n",
		g->c.hosts, g->c.planes, g->c.leaf_hosts, g->leaves,
		g->c.spines, g->c.entropy, g->c.rate_gbps,
		g->c.hop_ps / 1e3, g->c.buf_bytes / 1024,
		g->c.ecn_bytes / 1024, (unsigned long long)g->c.seed,
		traffic_name(), g->c.msg_bytes, g->c.msgs, g->c.incast_n,
		g->c.jitter_ps / 1e3, g->c.policy,
		(unsigned long long)g->knob[MRC_KNOB_credit], g->c.nfaults,
		g->c.probe_rearm_timer ? "timer" : "now", g->c.ctl_prio);
	fprintf(f, "  \"knobs\": {");
	for (t = 0; t < g->c.nknobs; t++)
		fprintf(f, "%s\"%s\": %llu", t ? ", " : "",
			mrc_knobs[g->c.knob[t].id].name,
			(unsigned long long)g->c.knob[t].val);
	fprintf(f, "},\n");
	fprintf(f, "  \"messages\": %u, \"delivered\": %u, \"duplicates\": %u, "
		"\"missing\": %u, \"unacked\": %u, \"failed\": %u, "
		"\"below_ideal\": %u, \"rx_bad\": %llu,\n",
		g->nmsg, s->delivered, s->dup, s->missing, s->unacked,
		s->bad_status, s->below_ideal,
		(unsigned long long)g->st.rx_bad);
	fprintf(f, "  \"slowdown\": {\"min\": %.4f, \"p50\": %.4f, "
		"\"p99\": %.4f, \"max\": %.4f},\n",
		s->slow.min, s->slow.p50, s->slow.p99, s->slow.max);
	fprintf(f, "  \"fct_us\": {\"min\": %.3f, \"p50\": %.3f, "
		"\"p99\": %.3f, \"max\": %.3f},\n",
		s->fct_us.min, s->fct_us.p50, s->fct_us.p99, s->fct_us.max);
	coll = traffic_coll_ps(&coll_ideal);
	if (coll)
		fprintf(f, "  \"collective_us\": %.3f, "
			"\"collective_ideal_us\": %.3f, "
			"\"collective_slowdown\": %.4f,\n", coll / 1e6,
			coll_ideal / 1e6, (double)coll / coll_ideal);
	fprintf(f, "  \"buckets\": {");
	for (t = 0; t < NBUCKETS; t++) {
		if (!s->nb[t])
			continue;
		fprintf(f, "%s\"%s\": {\"n\": %u, \"p50\": %.4f, "
			"\"p99\": %.4f, \"max\": %.4f}", nb++ ? ", " : "",
			bucket_name[t], s->nb[t], s->bslow[t].p50,
			s->bslow[t].p99, s->bslow[t].max);
	}
	fprintf(f, "},\n  \"jain\": %.4f, \"recover_us\": %.3f, "
		"\"dip\": %.4f,\n", s->jain, s->recover_us, s->dip);
	fprintf(f, "  \"goodput_gbps\": %.3f, \"span_us\": %.3f, "
		"\"sim_end_us\": %.3f,\n", s->goodput_gbps, s->span_us,
		g->now / 1e6);
	fprintf(f, "  \"drops\": {");
	for (t = 0; t < TIER_NR; t++)
		fprintf(f, "\"%s\": %llu, ", tier_name[t],
			(unsigned long long)g->st.drops[t]);
	fprintf(f, "\"fault\": %llu},\n",
		(unsigned long long)g->st.fault_drops);
	fprintf(f, "  \"sched_drops\": {");
	for (t = 0; t < TIER_NR; t++)
		fprintf(f, "\"%s\": %llu%s", tier_name[t],
			(unsigned long long)g->st.sched_drops[t],
			t + 1 < TIER_NR ? ", " : "},\n");
	write_credit(f);
	fprintf(f, "  \"max_queue_bytes\": {");
	for (t = 0; t < TIER_NR; t++)
		fprintf(f, "\"%s\": %u%s", tier_name[t], g->st.maxq[t],
			t + 1 < TIER_NR ? ", " : "},\n");
	fprintf(f, "  \"ecn_marks\": %llu, \"nic_eagain\": %llu, "
		"\"data_pkts\": %llu, \"ctl_pkts\": %llu, \"probes\": %llu, "
		"\"peers\": %llu, \"peak_pkts\": %llu,\n",
		(unsigned long long)g->st.ecn_marks,
		(unsigned long long)g->st.eagain,
		(unsigned long long)g->st.data_pkts,
		(unsigned long long)g->st.ctl_pkts,
		(unsigned long long)g->st.probes,
		(unsigned long long)g->st.peers,
		(unsigned long long)g->st.peak_pkts);
	prof_json(f);
	fprintf(f, "  \"engine\": {");
	for (t = 0; t < MRC_MS_NR; t++)
		fprintf(f, "\"%s\": %llu%s", mrc_msg_stat_name(t),
			(unsigned long long)g->st.ms[t],
			t + 1 < MRC_MS_NR ? ", " : "},\n");
	fprintf(f, "  \"events\": %llu, \"digest\": \"%016llx\",\n",
		(unsigned long long)g->st.events,
		(unsigned long long)g->st.digest);
	fprintf(f, "  \"cost\": {\"wall_s\": %.3f, \"cpu_s\": %.3f, "
		"\"events_per_cpu_s\": %.0f, \"data_pkts_per_cpu_s\": %.0f, "
		"\"peak_rss_kb\": %ld, "
		"\"rss_per_host_kb\": %.1f, \"peer_bytes\": %zu, "
		"\"engine_peak_bytes\": %llu}\n",
		wall_s, cpu_s, cpu_s > 0 ? g->st.events / cpu_s : 0,
		cpu_s > 0 ? g->st.data_pkts / cpu_s : 0, rss_kb,
		(double)rss_kb / g->c.hosts, host_peer_bytes(),
		(unsigned long long)host_engine_peak_bytes());
	fprintf(f, "}\n");
}

static void write_md(FILE *f, const struct summary *s, double cpu_s,
		     long rss_kb)
{
	fprintf(f, "| pattern | hosts x planes | size | msgs | delivered | "
		"slowdown p50 / p99 / max | FCT p99 (us) | goodput (Gb/s) | "
		"drops (nic/leaf-up/spine-down/leaf-down/fault) | retrans | "
		"max queue KiB (leaf-up/spine-down/leaf-down) | events/CPU-s | "
		"CPU (s) | RSS (MiB) |\n");
	fprintf(f, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
	fprintf(f, "| %s | %u x %u | %u | %u | %u | %.3f / %.3f / %.3f | "
		"%.1f | %.1f | %llu/%llu/%llu/%llu/%llu | %llu | "
		"%.1f/%.1f/%.1f | %.0f | %.2f | %.1f |\n",
		traffic_name(), g->c.hosts, g->c.planes, g->c.msg_bytes,
		g->nmsg, s->delivered, s->slow.p50, s->slow.p99, s->slow.max,
		s->fct_us.p99, s->goodput_gbps,
		(unsigned long long)g->st.drops[TIER_NIC],
		(unsigned long long)g->st.drops[TIER_LEAF_UP],
		(unsigned long long)g->st.drops[TIER_SPINE_DOWN],
		(unsigned long long)g->st.drops[TIER_LEAF_DOWN],
		(unsigned long long)g->st.fault_drops,
		(unsigned long long)g->st.ms[MRC_MS_TX_RETRANS],
		g->st.maxq[TIER_LEAF_UP] / 1024.0,
		g->st.maxq[TIER_SPINE_DOWN] / 1024.0,
		g->st.maxq[TIER_LEAF_DOWN] / 1024.0,
		cpu_s > 0 ? g->st.events / cpu_s : 0, cpu_s,
		rss_kb / 1024.0);
}

static int write_fct(const char *path)
{
	FILE *f = fopen(path, "w");
	uint32_t i;

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "# src dst bytes start_us fct_us slowdown\n");
	for (i = 0; i < g->nmsg; i++) {
		const struct smsg *m = &g->msg[i];

		if (!m->delivered)
			continue;
		fprintf(f, "%u %u %u %.3f %.3f %.4f\n", m->src, m->dst, m->len,
			m->start_ps / 1e6, (m->done_ps - m->start_ps) / 1e6,
			(double)(m->done_ps - m->start_ps) / m->ideal_ps);
	}
	return fclose(f);
}

static int write_series(const char *path)
{
	FILE *f = fopen(path, "w");
	uint64_t b, last = g->last_done / g->c.bin_ps;

	if (!f) {
		perror(path);
		return -1;
	}
	fprintf(f, "# bin_end_us goodput_gbps (new payload at receivers)\n");
	for (b = 0; b <= last && b < g->nbins; b++)
		fprintf(f, "%.3f %.3f\n", (b + 1) * g->c.bin_ps / 1e6,
			g->series[b] * 8.0 / (g->c.bin_ps / 1e3));
	return fclose(f);
}

int report_write(double wall_s, double cpu_s, long rss_kb)
{
	struct summary s = { 0 };
	FILE *f;

	summarise(&s);
	if (g->c.fct_file && write_fct(g->c.fct_file))
		return -1;
	if (g->c.series_file && write_series(g->c.series_file))
		return -1;
	if (g->c.json) {
		f = fopen(g->c.json, "w");
		if (!f) {
			perror(g->c.json);
			return -1;
		}
		write_json(f, &s, wall_s, cpu_s, rss_kb);
		fclose(f);
	}
	if (g->c.md) {
		f = fopen(g->c.md, "w");
		if (!f) {
			perror(g->c.md);
			return -1;
		}
		write_md(f, &s, cpu_s, rss_kb);
		fclose(f);
	}
	if (!g->c.quiet)
		write_md(stdout, &s, cpu_s, rss_kb);
	return s.missing || s.dup || s.bad_status ? 1 : 0;
}
