/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sim.h - mrc-sim: a discrete-event simulator of multi-plane Clos fabrics
 * whose hosts run mrc's protocol engine (mrc/core/, compiled unchanged).
 *
 * Time is kept in picoseconds (a 4096-byte packet at 100 Gbit/s is
 * 327.68 ns); the engine sees nanoseconds.  Everything here is
 * single-threaded and deterministic: one seed, one run.
 */
#ifndef MRC_SIM_H
#define MRC_SIM_H

#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>

#include "../../mrc/core/msg.h"
#include "../../mrc/core/credit.h"
#include "../../mrc/core/config.h"
#include "../../mrc/core/path.h"
#include "evq.h"
#include "rng.h"

#define PS_PER_NS	1000ULL
#define SIM_MAX_PLANES	MRC_PEER_MAX_ADDRS
#define SIM_MAX_EV	MRC_MSG_LINK_PATHS	/* entropy values per plane */
#define SIM_MAX_FAULTS	16

enum sim_ev_type {
	EV_ARRIVE = 1,		/* a packet reaches the far end of a link */
	EV_TX_RUN,		/* engine kick (mrc_msg_tx_run()) or timer */
	EV_EXPIRE,		/* engine expiry clock */
	EV_PROBE,		/* the peer's path timers (probes) */
	EV_MSG_START,		/* a traffic message is queued */
	EV_FAULT,		/* a fault starts or ends */
	EV_PACE,		/* a receiver's credit pacer (its hrtimer) */
};

enum sim_tier {
	TIER_NIC, TIER_LEAF_UP, TIER_SPINE_DOWN, TIER_LEAF_DOWN, TIER_NR
};

enum sim_pattern {
	PAT_PERM, PAT_INCAST, PAT_SINGLE, PAT_A2A, PAT_RING, PAT_RPC
};

enum sim_fault_kind { FAULT_LINK, FAULT_SPINE, FAULT_DEGRADE };

struct sim_fault {
	enum sim_fault_kind kind;
	unsigned int plane, leaf, spine;
	double frac;		/* FAULT_DEGRADE: rate fraction kept */
	uint64_t t_down, t_up;	/* ps; t_up 0 = never */
};

struct sim_cfg {
	unsigned int hosts, planes, leaf_hosts, spines, entropy;
	double rate_gbps;
	uint64_t hop_ps;
	uint32_t buf_bytes, ecn_bytes;	/* ecn 0 = off */
	uint32_t nic_ring;		/* NIC backlog, in 4096-byte packets */
	uint64_t seed;
	enum sim_pattern pattern;
	uint32_t msg_bytes;
	unsigned int msgs;		/* per sender */
	unsigned int incast_n;
	uint64_t jitter_ps;
	uint64_t until_ps;		/* stop; 0 = when traffic is done */
	unsigned int policy;		/* sched_policy knob */
	unsigned int credit;		/* credit knob (--credits) */
	/*
	 * --probe-rearm timer: the engine's path changes do not re-arm the
	 * peer's probe timer (mrc/msg.c's path_changed today)
	 */
	bool probe_rearm_timer;
	/*
	 * --ctl-prio: every output port serves control packets (SACK,
	 * NACK, credit: fabric.c, pkt_ctl_lane()) before the data waiting
	 * there, as htsim's composite queues serve header-only packets
	 * (acks, nacks, pulls); probes travel with the data
	 */
	bool ctl_prio;
	unsigned int nfaults;
	struct sim_fault fault[SIM_MAX_FAULTS];
	unsigned int nknobs;		/* --knob NAME=VALUE */
	struct { unsigned int id; uint64_t val; } knob[MRC_KNOB_NR];
	const char *json, *md;
	const char *fct_file;		/* --fct: one line per message */
	const char *series_file;	/* --series: goodput per bin */
	uint64_t bin_ps;		/* --bin-us */
	bool quiet, progress;
};

/* A packet in the fabric: its wire header (and body) as mrc wrote it. */
struct spkt {
	struct spkt *next;
	uint32_t src, dst;	/* hosts */
	uint16_t wire_len;	/* bytes on the wire */
	uint16_t buf_len;	/* bytes kept in buf (payload is not) */
	uint8_t plane, entropy;
	uint8_t ecn;
	uint8_t type;
	uint8_t sched;		/* DATA beyond its unscheduled window */
	struct sim_peer *to;	/* the engine it is for, at dst */
	uint32_t port;		/* the port it is leaving */
	uint32_t epoch;		/* that port's epoch when it was queued */
	uint32_t downs;		/* g->port_downs when it was queued */
	uint8_t buf[];
};

struct port {
	uint64_t busy_until;	/* ps: the end of its backlog */
	uint64_t ctl_until;	/* ps: --ctl-prio: the end of its control lane */
	uint32_t epoch;		/* + 1 each time it goes down */
	uint16_t rate_pm;	/* rate in per mille of the link rate */
	uint8_t down, tier;
};

/* One traffic message. */
struct smsg {
	uint32_t src, dst, len;
	uint64_t start_ps;	/* queued */
	uint64_t done_ps;	/* delivered at dst (0: not yet) */
	uint64_t acked_ps;	/* sender's completion */
	uint64_t ideal_ps;
	int status;
	uint16_t delivered;	/* times delivered: must end at 1 */
	uint16_t completed;
};

struct sim_peer;

struct sim_host {
	struct mrc_msg_node node;
	uint32_t id;
	uint32_t npeers, peer_cap;	/* open addressing, by peer id */
	struct sim_peer **peers;
	/* receiver's credits (credit.c): table made by the first request */
	struct mrc_credit_rx *crx;
	uint64_t last_pace, pace_ns, pace_at;	/* engine ns */
	bool pace_armed;
};

struct sim_peer {
	struct mrc_msg_peer mp;
	struct sim_host *h;
	struct sim_peer *rev;	/* the peer's engine for this host */
	uint32_t peer_id;
	bool kick_due, armed, expire_armed, probe_armed;
	uint64_t arm_at, expire_at, probe_at;	/* ns */
	/* sender's credit for the message being scheduled (credit.c) */
	struct mrc_credit_tx ctx;
	bool ctx_on;
	/* messages queued to this peer, by sequence number (msg id) */
	uint32_t *txmsg;
	uint32_t ntxmsg, txmsg_cap;
	/* profile.c: its DATA packets lost at a faulty port */
	uint32_t fault_data_drops;
	struct mrc_path path[];	/* planes x entropy values */
};

struct sim_stats {
	uint64_t events;
	uint64_t drops[TIER_NR];
	uint64_t fault_drops;
	uint64_t ecn_marks;
	uint32_t maxq[TIER_NR];		/* bytes */
	uint64_t data_pkts, ctl_pkts, probes;
	uint64_t rx_bad;		/* parse or engine refusals */
	uint64_t delivered_bytes;
	uint64_t ms[MRC_MS_NR];		/* the engine's counters */
	uint64_t peers, peak_pkts, live_pkts;
	uint64_t digest;		/* of every delivery */
	uint64_t eagain;
	/* credits (credit.c) */
	uint64_t sched_drops[TIER_NR];	/* DATA beyond the window dropped */
	uint64_t msgs_sched, requests_tx, grants_tx, requests_bad;
	uint64_t grants_bad, over_credit, data_paces, credit_tx_errs;
	/* profile.c: what a fault costs */
	uint64_t fault_drops_data, fault_drops_ack, fault_drops_probe;
	uint64_t fault_drops_retired;	/* DATA on a path out of the spray */
	uint64_t fault_drop_first_ps, fault_drop_last_ps;	/* DATA */
	/* paths leaving and re-entering the spray set: [sound, faulty] */
	uint64_t paths_left[2], paths_back[2];
	uint64_t path_left_last_ps;
};

struct sim {
	struct sim_cfg c;
	struct evq q;
	struct rng rng;
	uint64_t now;			/* ps */
	unsigned int leaves;
	uint64_t ser_ps_per_byte_x1k;	/* ps per byte x 1000 */
	/* ports: per plane [nic H][leaf down H][leaf up L*S][spine down S*L] */
	struct port *ports;
	uint64_t ports_per_plane;
	uint32_t port_downs;		/* times any port went down */
	struct sim_host *hosts;
	struct smsg *msg;
	uint32_t nmsg, nmsg_done, nmsg_acked;
	uint64_t knob[MRC_KNOB_NR];
	struct mrc_path_params pp;
	struct sim_stats st;
	struct spkt *free_small, *free_big;
	uint8_t scratch[MRC_WIRE_MAX_PKT];
	uint8_t *txbuf, *rxbuf;		/* shared payload memory */
	uint64_t first_start, last_done;
	/* new payload bytes at the receivers per bin_ps (report.c) */
	uint64_t *series;
	uint64_t nbins;
};

extern struct sim *g;

/*
 * The engine's clock: sim time in ns plus SIM_T0_NS, so that no event of
 * the engine ever happens at time 0 (which it may take for "never").
 */
#define SIM_T0_NS	1000000000ULL

static inline uint64_t sim_now_ns(void)
{
	return SIM_T0_NS + g->now / PS_PER_NS;
}

/* Sim time (ps) of engine time @ns. */
static inline uint64_t sim_ps(uint64_t ns)
{
	return (ns - SIM_T0_NS) * PS_PER_NS;
}

/* fabric.c */
void fabric_init(void);
void fabric_free(void);
void fabric_drain(void);
/*
 * Sends @p from its source host; false (@p is still the caller's) if the
 * NIC queue is full.
 */
bool fabric_send(struct spkt *p);
void fabric_arrive(struct spkt *p, uint32_t arg);
void fabric_fault(unsigned int i, bool down);
struct spkt *pkt_alloc(uint16_t buf_len);
void pkt_free(struct spkt *p);
/* Ideal delivery time of a message of @len bytes from @src to @dst. */
uint64_t fabric_ideal_ps(uint32_t src, uint32_t dst, uint32_t len);
uint64_t fabric_ser_ps(uint32_t bytes, uint16_t rate_pm);
/* Whether @src's route to @dst on (@plane, @ev) crosses a faulty port. */
bool fabric_route_faulty(uint32_t src, uint32_t dst, unsigned int plane,
			 unsigned int ev);

/* host.c */
void hosts_init(void);
void hosts_free(void);
struct sim_peer *host_peer(struct sim_host *h, uint32_t peer_id);
void host_rx(struct spkt *p);
void host_start_msg(uint32_t mi);
void host_ev(const struct sim_ev *ev);
size_t host_peer_bytes(void);
uint64_t host_engine_peak_bytes(void);

int host_post(struct sim_peer *sp, unsigned int plane, unsigned int ev,
	      struct mrc_pkt *pkt, bool data);

/* credit.c: the module's credit_peer.c and credit_pacer.c, here */
bool credit_may(struct sim_peer *sp, u64 msg_id, u32 msg_len, u32 off,
		u32 len, bool urgent, u64 now);
bool credit_stops(struct sim_peer *sp, u64 msg_id, u16 seg);
void credit_reset(struct sim_peer *sp);
void credit_gone(struct sim_peer *sp, u64 msg_id);
bool credit_sched(const struct sim_peer *sp, const struct mrc_pkt *pkt);
void credit_pace_ev(struct sim_host *h, uint64_t t);
void credit_rx_pkt(struct sim_peer *sp, const struct mrc_pkt *pkt);
void credit_rx_data(struct sim_peer *sp, const struct mrc_pkt *pkt);
void credit_stats(struct mrc_credit_rx_stats *sum);

/* profile.c: where a fault's time goes (Documentation/mrc/sim.rst) */
void prof_fault_drop(const struct spkt *p);
void prof_path(struct sim_peer *sp, unsigned int i, unsigned int prev,
	       unsigned int state);
void prof_json(FILE *f);

/* traffic.c */
void traffic_init(void);
/* Message @mi was delivered (the first time): what follows from it. */
void traffic_delivered(uint32_t mi);
const char *traffic_name(void);
/* A collective's completion and its ideal, ps (0: not a collective). */
uint64_t traffic_coll_ps(uint64_t *ideal_ps);
/* Ring: the message whose delivery started message @mi (U32_MAX: none). */
uint32_t traffic_ring_pred(uint32_t mi);

/* report.c */
int report_write(double wall_s, double cpu_s, long rss_kb);
/* @bytes of new payload arrived at a receiver now. */
void report_bytes(uint32_t bytes);

#endif /* MRC_SIM_H */
