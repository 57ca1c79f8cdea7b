// SPDX-License-Identifier: GPL-2.0
/*
 * peer_probe.c - a peer's paths kept alive: the per-peer hrtimer, PROBEs
 * and their replies, RAIL_DOWN to and from peers, rail state changes.
 *
 * Design notes
 *
 * Probing.  Once a link is resolved its paths are PROBING; a PROBE goes out
 * on each (from local QP i to remote QP i) and the PROBE_REPLY makes the
 * path ACTIVE with an RTT sample (path.c decides every transition).  One
 * soft hrtimer per peer fires at the earliest path deadline (probe retry,
 * keepalive); rail state changes feed RAIL_DOWN / RAIL_UP events.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#include "mrc.h"
#include "peer.h"
#include "schedcfg.h"
#include "ud.h"
#include "peer_int.h"

/**
 * mrc_peer_path_params() - the path parameters of the knobs
 * @pp: filled in: keepalive probe_ms, RTO bound rto_max_ms
 *
 * Built and checked by mrc_path_params_knobs(); should the check refuse
 * them (the knob ranges make that impossible) the defaults are used and
 * stats/params_refused counts it.
 */
void mrc_peer_path_params(struct mrc_path_params *pp)
{
	const char *why;

	if (mrc_path_params_knobs(pp, mrc_knob(MRC_KNOB_probe_ms),
				  mrc_knob(MRC_KNOB_rto_max_ms), 0, &why)) {
		mrc_mod_stat_inc(MRC_MOD_STAT_PARAMS_REFUSED);
		pr_warn_ratelimited("path parameters refused (%s); defaults used\n",
				    why);
	}
}

/* ---- timer ---- */

/**
 * mrc_peer_arm() - re-arm the peer's timer at its earliest path deadline
 * @peer: the peer, peer->lock held
 */
void mrc_peer_arm(struct mrc_peer *peer)
{
	struct mrc_path_params pp;
	u64 next = MRC_PATH_NEVER, now = ktime_get_ns();
	unsigned int l, i;

	lockdep_assert_held(&peer->lock);
	if (peer->dead)
		return;
	mrc_peer_path_params(&pp);
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];

		if (!link->ah)
			continue;
		for (i = 0; i < link->npaths; i++)
			next = min(next, mrc_path_deadline(&link->paths[i].p,
							   &pp));
	}
	if (next == MRC_PATH_NEVER)
		return;
	next = next > now ? next - now : 0;
	hrtimer_start(&peer->timer, ns_to_ktime(next), HRTIMER_MODE_REL_SOFT);
}

/*
 * Sends a PROBE or PROBE_REPLY on path @i of @link.  Under peer->lock.
 * Not before the peer told us its token (-ENOKEY): it would drop them.
 */
static int mrc_peer_send_probe(struct mrc_peer_link *link, unsigned int i,
			       u8 type, u32 echo_seq, u64 echo_ts)
{
	struct mrc_peer_path *pp = &link->paths[i];
	u8 buf[MRC_WIRE_HDR_LEN + sizeof(struct mrc_wire_hello)];
	struct mrc_pkt_hello hello = {
		.qpn = mrc_ud_qpn(link->rail->ud, i),
		.qkey = MRC_UD_QKEY,
		.rail_id = link->rail->id,
		.echo_path_seq = echo_seq,
		.echo_tstamp = echo_ts,
	};
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.type = type,
		.src_node = mrc_knob(MRC_KNOB_node_id),
		.dst_node = link->peer->node_id,
		.entropy = i,
		.path_seq = mrc_path_next_seq(&pp->p),
		.tstamp = ktime_get_ns(),
	};

	lockdep_assert_held(&link->peer->lock);
	if (!link->peer->tx_token)
		return -ENOKEY;
	pkt.token = link->peer->tx_token;
	pkt.len = mrc_wire_put_hello(buf + MRC_WIRE_HDR_LEN, &hello);
	mrc_wire_put_hdr(buf, &pkt);
	return mrc_ud_send(link->rail->ud, i, link->ah, pp->remote_qpn, buf,
			   MRC_WIRE_HDR_LEN + pkt.len, NULL, 0);
}

/**
 * mrc_peer_timer() - the peer's hrtimer: probes and keepalives due
 * @t: peer->timer
 *
 * Return: HRTIMER_NORESTART (it is armed again for the next deadline).
 */
enum hrtimer_restart mrc_peer_timer(struct hrtimer *t)
{
	struct mrc_peer *peer = container_of(t, struct mrc_peer, timer);
	struct mrc_path_params pp;
	unsigned int l, i;
	u64 now;

	mrc_peer_path_params(&pp);
	spin_lock_bh(&peer->lock);
	now = ktime_get_ns();
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];

		if (!link->ah)
			continue;
		for (i = 0; i < link->npaths; i++) {
			struct mrc_path *p = &link->paths[i].p;
			bool was = mrc_path_in_spray_set(p);
			u8 prev = p->state;

			if (mrc_path_timer(p, &pp, now))
				mrc_peer_send_probe(link, i, MRC_PKT_PROBE,
						    0, 0);
			if (p->state != prev)	/* a keepalive timed out */
				mrc_nl_path_event(peer, link, i, prev);
			if (was && !mrc_path_in_spray_set(p))
				mrc_msg_path_down(peer, l, i, false);
		}
	}
	mrc_peer_arm(peer);
	spin_unlock_bh(&peer->lock);
	return HRTIMER_NORESTART;
}

/* ---- rails ---- */

/* Paths of each surviving link a RAIL_DOWN goes out on (copies). */
#define MRC_RAIL_DOWN_COPIES	2

/*
 * Our rail @rail_id is down or gone: tells @peer over every other
 * resolved link, on up to MRC_RAIL_DOWN_COPIES of its paths (ACTIVE ones
 * first), so that the peer stops spraying into the dead rail now instead
 * of finding out packet by packet (RTO, loss scan: several round trips,
 * and every packet sent meanwhile is lost).  Advisory: nothing waits for
 * it, and a lost notice costs only that time.  Under peer->lock.
 */
static void mrc_peer_send_rail_down(struct mrc_peer *peer, u32 rail_id)
{
	u8 buf[MRC_WIRE_HDR_LEN + sizeof(struct mrc_wire_rail_down)];
	struct mrc_pkt pkt = {
		.version = MRC_WIRE_VERSION,
		.type = MRC_PKT_RAIL_DOWN,
		.src_node = mrc_knob(MRC_KNOB_node_id),
		.dst_node = peer->node_id,
	};
	unsigned int l, i, sent;

	lockdep_assert_held(&peer->lock);
	if (!peer->tx_token)	/* it would drop them (bad_token) */
		return;
	pkt.token = peer->tx_token;
	pkt.len = mrc_wire_put_rail_down(buf + MRC_WIRE_HDR_LEN, rail_id);
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];

		if (!link->ah || !link->rail || link->rail->id == rail_id)
			continue;
		/*
		 * ACTIVE paths first, then the others but DEAD ones: under a
		 * bulk transfer on a slow fabric every path of the link can
		 * be out of the spray set for a moment (spurious RTOs), and
		 * a notice sent on ACTIVE paths only would go nowhere.
		 */
		for (i = 0, sent = 0; i < 2 * link->npaths &&
		     sent < MRC_RAIL_DOWN_COPIES; i++) {
			unsigned int e = i % link->npaths;
			struct mrc_peer_path *pp = &link->paths[e];
			bool active = pp->p.state == MRC_PATH_ACTIVE;
			bool first = i < link->npaths;

			if (active != first || pp->p.state == MRC_PATH_DEAD)
				continue;
			pkt.entropy = e;
			pkt.path_seq = mrc_path_next_seq(&pp->p);
			pkt.tstamp = ktime_get_ns();
			mrc_wire_put_hdr(buf, &pkt);
			if (mrc_ud_send(link->rail->ud, e, link->ah,
					pp->remote_qpn, buf, sizeof(buf),
					NULL, 0))
				continue;
			mrc_rail_stat_inc(link->rail,
					  MRC_RAIL_STAT_DOWN_NOTICES_TX);
			sent++;
		}
	}
}

/**
 * mrc_peers_rail_changed() - a rail changed state
 * @rail: the rail
 * @active: whether it is active now
 *
 * Every path on the rail gets RAIL_UP or RAIL_DOWN; when it went down,
 * what was in flight on it goes out again elsewhere and its peers are
 * told (RAIL_DOWN).  From rail.c.
 *
 * Context: process.
 */
void mrc_peers_rail_changed(struct mrc_rail *rail, bool active)
{
	struct mrc_path_params pp;
	struct mrc_peer *peer;
	unsigned int l, i;
	u64 now = ktime_get_ns();

	mrc_peer_path_params(&pp);
	rcu_read_lock();
	list_for_each_entry_rcu(peer, &mrc_peers, node) {
		bool had = false;

		spin_lock_bh(&peer->lock);
		for (l = 0; l < peer->nlinks; l++) {
			struct mrc_peer_link *link = &peer->links[l];

			if (link->rail != rail || !link->ah)
				continue;
			had = true;
			for (i = 0; i < link->npaths; i++) {
				struct mrc_path *p = &link->paths[i].p;
				u8 prev = p->state;

				if (mrc_path_event(p, &pp, active ?
						   MRC_PATH_EV_RAIL_UP :
						   MRC_PATH_EV_RAIL_DOWN,
						   now, now) > 0)
					mrc_nl_path_event(peer, link, i, prev);
				if (!active)
					mrc_msg_path_down(peer, l, i, false);
			}
		}
		if (had && !active)
			mrc_peer_send_rail_down(peer, rail->id);
		mrc_peer_arm(peer);
		spin_unlock_bh(&peer->lock);
	}
	rcu_read_unlock();
}

/**
 * mrc_peers_rail_removed() - a rail goes away
 * @rail: the rail
 *
 * Every path on the rail gives back what it has in flight and is DEAD;
 * its link lets go of its address handle and the rail before the rail's
 * PD goes (the caller then waits for AHs released elsewhere, ah.c), and
 * tells the peer (RAIL_DOWN).  From rail.c, after the rail left mrc_rails:
 * no link is attached to it after this (peer_cm.c attaches under
 * mrc_rails_lock to listed rails only).
 *
 * Context: process.
 *
 * Return: the packets that were in flight on its paths (sent again on
 * the others).
 */
unsigned int mrc_peers_rail_removed(struct mrc_rail *rail)
{
	struct mrc_peer *peer;
	unsigned int l, i, n = 0;

	mutex_lock(&mrc_peers_lock);
	list_for_each_entry(peer, &mrc_peers, node) {
		for (l = 0; l < peer->nlinks; l++) {
			struct mrc_peer_link *link = &peer->links[l];
			struct ib_ah *ah = NULL;

			spin_lock_bh(&peer->lock);
			if (link->rail == rail) {
				for (i = 0; i < link->npaths; i++) {
					u8 prev = link->paths[i].p.state;

					n += mrc_msg_path_down(peer, l, i, true);
					link->paths[i].p.state = MRC_PATH_DEAD;
					if (prev != MRC_PATH_DEAD)
						mrc_nl_path_event(peer, link, i,
								  prev);
				}
				ah = link->ah;
				WRITE_ONCE(link->ah, NULL);
				WRITE_ONCE(link->rail, NULL);
				WRITE_ONCE(link->npaths, 0);
				link->retry_ns = 0;
				if (ah)
					mrc_peer_send_rail_down(peer, rail->id);
			}
			spin_unlock_bh(&peer->lock);
			if (ah) {
				mrc_ah_release(rail, ah);
				mrc_peer_kick(peer);
			}
		}
	}
	mutex_unlock(&mrc_peers_lock);
	return n;
}

/* ---- receive ---- */

/* The configured peer a packet names as its sender.  Under RCU. */
static struct mrc_peer *mrc_peer_rx_find(const struct mrc_pkt *pkt)
{
	struct mrc_peer *peer;

	list_for_each_entry_rcu(peer, &mrc_peers, node)
		if (peer->node_id == pkt->src_node)
			return peer;
	return NULL;
}

/*
 * The link of @peer a PROBE or RAIL_DOWN arrived on, if it came on one of
 * its paths (the entropy value of the QP it reached, from the QPN that
 * path talks to).  Under peer->lock.
 */
static enum mrc_drop_reason mrc_peer_rx_link(struct mrc_peer *peer,
					     struct mrc_ud_qp *uqp,
					     u32 src_qp,
					     const struct mrc_pkt *pkt,
					     struct mrc_peer_link **linkp)
{
	struct mrc_rail *rail = uqp->ud->rail;
	struct mrc_peer_link *link = NULL;
	unsigned int l, ev = uqp->ev;

	lockdep_assert_held(&peer->lock);
	for (l = 0; l < peer->nlinks; l++)
		if (peer->links[l].rail == rail && peer->links[l].ah) {
			link = &peer->links[l];
			break;
		}
	if (!link)
		return MRC_DROP_UNRESOLVED;
	if (ev >= link->npaths || pkt->entropy != ev ||
	    link->paths[ev].remote_qpn != src_qp)
		return MRC_DROP_WRONG_PATH;
	*linkp = link;
	return MRC_DROP_NONE;
}

/*
 * RAIL_DOWN: the peer's rail (its id) is down.  Every path to it leaves
 * the spray set (PEER_DOWN: ASSUMED_BAD, probed back once the rail
 * answers again) and what was in flight on it is resent elsewhere now.
 * Freshness: a link takes a notice only if its tstamp (the peer's clock;
 * each copy has its own) is later than the last one it took, so one
 * recorded notice cannot take the rail's paths down again and again
 * (MRC_DROP_REPLAYED when no link took it).  Under peer->lock.
 */
static enum mrc_drop_reason mrc_peer_rx_rail_down(struct mrc_peer *peer,
						  struct mrc_ud_qp *uqp,
						  const struct mrc_pkt *pkt,
						  u64 now)
{
	u32 rail_id = mrc_wire_get_rail_down(pkt);
	bool replayed = false, taken = false;
	struct mrc_path_params pp;
	unsigned int l, i;

	lockdep_assert_held(&peer->lock);
	mrc_peer_path_params(&pp);
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];

		if (!link->ah || link->remote_rail_id != rail_id)
			continue;
		if (pkt->tstamp <= link->rd_ts) {
			replayed = true;
			continue;
		}
		link->rd_ts = pkt->tstamp;
		taken = true;
		for (i = 0; i < link->npaths; i++) {
			struct mrc_path *p = &link->paths[i].p;
			u8 prev = p->state;

			if (mrc_path_event(p, &pp, MRC_PATH_EV_PEER_DOWN, now,
					   now) > 0)
				mrc_nl_path_event(peer, link, i, prev);
			mrc_msg_path_down(peer, l, i, false);
		}
	}
	if (replayed && !taken)
		return MRC_DROP_REPLAYED;
	mrc_rail_stat_inc(uqp->ud->rail, MRC_RAIL_STAT_DOWN_NOTICES_RX);
	mrc_peer_arm(peer);
	return MRC_DROP_NONE;
}

/*
 * PROBE: answer it; PROBE_REPLY: the path is alive, unless the reply
 * echoes a probe not later than the last answered one (a replay:
 * MRC_DROP_REPLAYED, core/path.c).  Under peer->lock.
 */
static enum mrc_drop_reason mrc_peer_rx_probe(struct mrc_peer *peer,
					      struct mrc_peer_link *link,
					      unsigned int ev,
					      const struct mrc_pkt *pkt,
					      u64 now)
{
	struct mrc_path_params pp;
	struct mrc_pkt_hello hello;
	struct mrc_path *p = &link->paths[ev].p;
	u8 prev = p->state;
	int ret;

	lockdep_assert_held(&peer->lock);
	if (pkt->type == MRC_PKT_PROBE) {
		mrc_peer_send_probe(link, ev, MRC_PKT_PROBE_REPLY,
				    pkt->path_seq, pkt->tstamp);
		return MRC_DROP_NONE;
	}
	mrc_peer_path_params(&pp);
	mrc_wire_get_hello(pkt, &hello);
	ret = mrc_path_event(p, &pp, MRC_PATH_EV_REPLY, now,
			     hello.echo_tstamp);
	if (ret == -EALREADY)
		return MRC_DROP_REPLAYED;
	if (ret > 0)
		mrc_nl_path_event(peer, link, ev, prev);
	mrc_peer_arm(peer);
	return MRC_DROP_NONE;
}

/**
 * mrc_peer_rx_ctl() - take a PROBE, PROBE_REPLY or RAIL_DOWN that parsed
 * @uqp: the QP it arrived on
 * @src_qp: its source QPN
 * @pkt: the packet
 *
 * From proto.c.
 *
 * Return: MRC_DROP_NONE, or the reason it was dropped.
 */
enum mrc_drop_reason mrc_peer_rx_ctl(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt)
{
	struct mrc_peer_link *link;
	enum mrc_drop_reason why;
	struct mrc_peer *peer;
	u64 now = ktime_get_ns();

	rcu_read_lock();
	peer = mrc_peer_rx_find(pkt);
	if (!peer) {
		why = MRC_DROP_UNKNOWN_PEER;
		goto out_rcu;
	}
	spin_lock_bh(&peer->lock);
	if (!mrc_peer_token_ok(peer, pkt)) {	/* token branch */
		why = MRC_DROP_BAD_TOKEN;
		goto out;
	}
	why = mrc_peer_rx_link(peer, uqp, src_qp, pkt, &link);
	if (why != MRC_DROP_NONE)
		goto out;
	if (pkt->type == MRC_PKT_RAIL_DOWN)
		why = mrc_peer_rx_rail_down(peer, uqp, pkt, now);
	else
		why = mrc_peer_rx_probe(peer, link, uqp->ev, pkt, now);
out:
	spin_unlock_bh(&peer->lock);
out_rcu:
	rcu_read_unlock();
	return why;
}

