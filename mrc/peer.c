// SPDX-License-Identifier: GPL-2.0
/*
 * peer.c - peers, links and paths: configuration, resolution, probing.
 *
 * Design notes
 *
 * A peer is a node id plus one address per plane, configured by netlink.
 * Each address is a *link*: the local rail that reaches it (found by
 * routing, through rdma_cm) and the peer's rail behind it.  A link has one
 * *path* per entropy value: local UD QP i talks to the peer's UD QP i.
 *
 * Resolution (the HELLO of the protocol).  UD needs the remote QPNs.  mrc
 * learns them with an rdma_cm SIDR exchange in the UDP port space, port
 * MRC_CM_PORT: the request and the reply carry struct mrc_wire_cm (version,
 * node ids, rail id, every QPN of the rail).  rdma_cm also resolves the
 * route and the destination MAC, so the address handle it gives is right on
 * hardware RoCE NICs too.  Every node listens; each side resolves its own
 * links to its peers, retrying every second until it works.  cm ids are
 * created and destroyed only by peer->work; the cm handler never destroys
 * one, it records the result and queues the work.
 *
 * Probing.  Once a link is resolved its paths are PROBING; a PROBE goes out
 * on each (from local QP i to remote QP i) and the PROBE_REPLY makes the
 * path ACTIVE with an RTT sample (path.c decides every transition).  One
 * soft hrtimer per peer fires at the earliest path deadline (probe retry,
 * keepalive); rail state changes feed RAIL_DOWN / RAIL_UP events.
 *
 * Lifetime and locking.  mrc_peers is an RCU list (the receive path looks
 * peers up under RCU); writers hold mrc_peers_lock.  A peer is refcounted;
 * removal unlinks it, marks it dead (no more timer or work), then - still
 * under mrc_peers_lock, which no cm handler or peer work takes, so waiting
 * in rdma_destroy_id for a running handler is safe - destroys cm ids,
 * address handles and rail references, and drops the list's reference.
 * peer->lock (spin, BH) protects links and paths; sends happen under it,
 * so an address handle is never destroyed while in use.
 * Lock order: mrc_rails_lock -> mrc_peers_lock -> peer->lock -> QP locks.
 *
 * Tokens (wire version 3).  Nothing else in a UD datagram says which node
 * sent it: QPNs, node ids and addresses are easy to learn or guess.  So
 * every node draws, per configured peer, a random 64-bit rx_token (never
 * 0) and drops any packet from that peer whose header does not carry it
 * (bad_token), right after the peer lookup and before anything else
 * (msg.c mrc_msg_rx_peer(), mrc_peer_rx_ctl()).  The token travels
 * only in our SIDR *requests*, which go to the address the operator
 * configured for the peer; a SIDR reply goes back to wherever a request
 * came from, and requests are not authenticated, so a reply never
 * carries one: a node that asks in the peer's name learns nothing.  The
 * peer records the token from our request as its tx_token and puts it
 * in every packet to us; until it knows one it sends no PROBE, so no
 * path comes up and nothing else is sent.  Per peer, not per path: all
 * paths of a peer share the state a forged packet could corrupt, and a
 * per-path token would protect nothing more against an off-path node
 * (an on-path one sees every token anyway).  When to tell the peer
 * again (link->token_due): we drew a new token (the peer restarted: its
 * old incarnation's packets still in flight are then dropped), or its
 * request says it does not know ours (MRC_CM_F_NEED_TOKEN: it was added
 * after our requests went out, or was removed and added again).  Every
 * link is then resolved again once its current exchange ends.
 * Documentation/mrc/protocol.rst, "Tokens".
 *
 * Messages (msg.c) ride on the paths: their sender state is under
 * peer->lock too.  Whenever a path leaves ACTIVE or is about to be
 * re-initialised or cleared, mrc_msg_path_down() hands its in-flight
 * packets back for retransmission elsewhere (under peer->lock, before the
 * path's counters change).
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

static DEFINE_MUTEX(mrc_peers_lock);	/* writers of mrc_peers */
static LIST_HEAD(mrc_peers);		/* RCU */
static unsigned int mrc_npeers;		/* under mrc_peers_lock */
static struct rdma_cm_id *mrc_cm_listener;
static u32 mrc_incarnation;		/* ours, drawn at load; never 0 */
static struct dentry *mrc_tokens_debugfs;

#define MRC_PEERS_MAX		1024
#define MRC_RESOLVE_RETRY_NS	(1000ULL * NSEC_PER_MSEC)
#define MRC_CM_TIMEOUT_MS	2000

static void mrc_path_params(struct mrc_path_params *pp)
{
	mrc_path_params_default(pp);
	pp->keepalive_ns = mrc_knob(MRC_KNOB_probe_ms) * NSEC_PER_MSEC;
	pp->rtt.rto_max_ns = mrc_knob(MRC_KNOB_rto_max_ms) * NSEC_PER_MSEC;
}

static void mrc_peer_release(struct kref *ref)
{
	struct mrc_peer *peer = container_of(ref, struct mrc_peer, ref);

	kvfree_rcu(peer, rcu);
}

/**
 * mrc_peer_put() - drop a reference to a peer
 * @peer: the peer; freed after an RCU grace period with the last one
 */
void mrc_peer_put(struct mrc_peer *peer)
{
	kref_put(&peer->ref, mrc_peer_release);
}

/**
 * mrc_peer_get() - look a configured peer up
 * @node: its node id
 *
 * Return: the peer with a reference (mrc_peer_put()), or NULL.
 */
struct mrc_peer *mrc_peer_get(u32 node)
{
	struct mrc_peer *peer, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(peer, &mrc_peers, node) {
		if (peer->node_id == node && kref_get_unless_zero(&peer->ref)) {
			found = peer;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/**
 * mrc_peer_get_nth() - walk the peers, for a netlink dump
 * @idx: the position in the list
 *
 * Return: the @idx-th peer with a reference, or NULL.
 */
struct mrc_peer *mrc_peer_get_nth(unsigned long idx)
{
	struct mrc_peer *peer, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(peer, &mrc_peers, node) {
		if (idx--)
			continue;
		if (kref_get_unless_zero(&peer->ref))
			found = peer;
		break;
	}
	rcu_read_unlock();
	return found;
}

/* ---- timer ---- */

/* Re-arms the peer's timer at its earliest path deadline.  Under lock. */
static void mrc_peer_arm(struct mrc_peer *peer)
{
	struct mrc_path_params pp;
	u64 next = MRC_PATH_NEVER, now = ktime_get_ns();
	unsigned int l, i;

	lockdep_assert_held(&peer->lock);
	if (peer->dead)
		return;
	mrc_path_params(&pp);
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

static enum hrtimer_restart mrc_peer_timer(struct hrtimer *t)
{
	struct mrc_peer *peer = container_of(t, struct mrc_peer, timer);
	struct mrc_path_params pp;
	unsigned int l, i;
	u64 now;

	mrc_path_params(&pp);
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

/* ---- resolution ---- */

static void mrc_peer_kick(struct mrc_peer *peer)
{
	spin_lock_bh(&peer->lock);
	if (!peer->dead)
		queue_work(system_wq, &peer->work);
	spin_unlock_bh(&peer->lock);
}

/* A token: random, never 0 nor @old. */
static u64 mrc_token_draw(u64 old)
{
	u64 t;

	do
		get_random_bytes(&t, sizeof(t));
	while (!t || t == old);
	return t;
}

/*
 * Under peer->lock: the peer must hear our rx_token (again) in a request:
 * every link is resolved again once its current exchange, if any, ends.
 */
static void mrc_peer_token_due(struct mrc_peer *peer)
{
	unsigned int l;

	lockdep_assert_held(&peer->lock);
	for (l = 0; l < peer->nlinks; l++) {
		peer->links[l].token_due = true;
		peer->links[l].stale = true;
	}
}

/*
 * Fills the CM private data for @rail.  @token: our rx_token for the
 * peer in a request (and @flags), 0 in a reply.
 */
static void mrc_cm_fill(struct mrc_wire_cm *cm, struct mrc_rail *rail,
			u32 dst_node, u64 token, u16 flags)
{
	unsigned int i, n = min_t(unsigned int, rail->ud->nqp, MRC_CM_MAX_QPS);

	memset(cm, 0, sizeof(*cm));
	cm->version = MRC_WIRE_VERSION;
	cm->nqp = n;
	cm->src_node = cpu_to_be32(mrc_knob(MRC_KNOB_node_id));
	cm->dst_node = cpu_to_be32(dst_node);
	cm->rail_id = cpu_to_be32(rail->id);
	for (i = 0; i < n; i++)
		cm->qpn[i] = cpu_to_be32(mrc_ud_qpn(rail->ud, i));
	cm->incarnation = cpu_to_be32(mrc_incarnation);
	cm->token = cpu_to_be64(token);
	cm->flags = cpu_to_be16(flags);
}

/*
 * Under peer->lock: records the peer's incarnation from a HELLO.  If it
 * changed, the peer restarted: every link but @fresh (just resolved from
 * this HELLO; NULL if none) holds the old incarnation's QPNs and is marked
 * stale for peer->work to re-resolve, our rx_token is drawn again (every
 * link then tells the peer, @fresh too), and true is returned: the caller
 * then calls mrc_msg_peer_restarted() without the lock.
 */
static bool mrc_peer_note_inc(struct mrc_peer *peer, u32 inc,
			      struct mrc_peer_link *fresh)
{
	bool restarted = peer->remote_inc && inc != peer->remote_inc;
	unsigned int l;

	lockdep_assert_held(&peer->lock);
	peer->remote_inc = inc;
	if (!restarted)
		return false;
	for (l = 0; l < peer->nlinks; l++)
		if (&peer->links[l] != fresh)
			peer->links[l].stale = true;
	/*
	 * A new token for the new incarnation: what the old one still has
	 * in flight is dropped (bad_token).  Every link, @fresh too, tells
	 * the peer in a new request.
	 */
	peer->rx_token = mrc_token_draw(peer->rx_token);
	mrc_peer_token_due(peer);
	pr_info("peer %u restarted (new incarnation): its links are resolved again, queued messages start over\n",
		peer->node_id);
	return true;
}

/*
 * Under peer->lock: a HELLO (SIDR request) of @peer, same incarnation,
 * arrived on our @rail.  If the link on that rail knows other QPNs or
 * another rail id of the peer than @req carries, the peer's rail behind it
 * was replaced (its RDMA device deleted and added again: new QPNs) and
 * our paths would keep probing QPs that are gone while dropping the
 * peer's probes as coming from the wrong path, for ever.  The link is
 * marked stale for peer->work to resolve again; returns true if so.
 */
static bool mrc_peer_note_rail(struct mrc_peer *peer, struct mrc_rail *rail,
			       const struct mrc_wire_cm *req)
{
	bool changed = false;
	unsigned int l, i;

	lockdep_assert_held(&peer->lock);
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];
		bool same;

		if (link->rail != rail || !link->ah || link->stale)
			continue;
		same = link->remote_rail_id == be32_to_cpu(req->rail_id) &&
		       link->npaths <= req->nqp;
		for (i = 0; same && i < link->npaths; i++)
			same = link->paths[i].remote_qpn ==
			       be32_to_cpu(req->qpn[i]);
		if (same)
			continue;
		link->stale = true;
		changed = true;
		pr_info("peer %u plane %u: its rail was replaced (new QPNs): resolving again\n",
			peer->node_id, link->plane);
	}
	return changed;
}

/* Checks a received CM private data; returns nqp or -EPROTO. */
static int mrc_cm_check(const void *data, u8 len, u32 src_node, u32 dst_node)
{
	const struct mrc_wire_cm *cm = data;

	if (!data || len < sizeof(*cm) || cm->version != MRC_WIRE_VERSION ||
	    !cm->nqp || cm->nqp > MRC_CM_MAX_QPS || !cm->incarnation)
		return -EPROTO;
	if (src_node && be32_to_cpu(cm->src_node) != src_node)
		return -EPROTO;
	if (be32_to_cpu(cm->dst_node) != dst_node)
		return -EPROTO;
	return cm->nqp;
}

/* The rail of a cm id's device and port, referenced; NULL if none. */
static struct mrc_rail *mrc_cm_rail(struct rdma_cm_id *id)
{
	struct mrc_rail *rail, *found = NULL;

	if (!id->device)
		return NULL;
	mutex_lock(&mrc_rails_lock);
	list_for_each_entry(rail, &mrc_rails, node) {
		if (rail->ibdev == id->device && rail->port == id->port_num &&
		    rail->ud) {
			kobject_get(&rail->kobj);
			found = rail;
			break;
		}
	}
	mutex_unlock(&mrc_rails_lock);
	return found;
}

/* Client side: the link's SIDR exchange. */
static int mrc_cm_client_handler(struct rdma_cm_id *id,
				 struct rdma_cm_event *ev)
{
	struct mrc_peer_link *link = id->context;
	struct mrc_peer *peer = link->peer;
	struct rdma_conn_param param = {};
	struct mrc_path_params pp;
	struct mrc_wire_cm cm;
	struct mrc_rail *rail;
	struct ib_ah *ah, *old_ah = NULL;
	struct mrc_rail *old_rail = NULL;
	bool restarted = false;
	unsigned int i, n;
	int nqp, err = 0;
	u64 now, token;
	u16 flags;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		err = rdma_resolve_route(id, MRC_CM_TIMEOUT_MS);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rail = mrc_cm_rail(id);
		if (!rail) {
			err = -ENODEV;
			break;
		}
		spin_lock_bh(&peer->lock);
		token = peer->rx_token;
		flags = peer->tx_token ? 0 : MRC_CM_F_NEED_TOKEN;
		link->token_due = false;	/* this request tells it */
		spin_unlock_bh(&peer->lock);
		mrc_cm_fill(&cm, rail, peer->node_id, token, flags);
		kobject_put(&rail->kobj);
		param.private_data = &cm;
		param.private_data_len = sizeof(cm);
		param.qkey = MRC_UD_QKEY;
		err = rdma_connect_locked(id, &param);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		nqp = mrc_cm_check(ev->param.ud.private_data,
				   ev->param.ud.private_data_len,
				   peer->node_id, mrc_knob(MRC_KNOB_node_id));
		if (nqp < 0) {
			err = nqp;
			break;
		}
		rail = mrc_cm_rail(id);
		if (!rail) {
			err = -ENODEV;
			break;
		}
		ah = rdma_create_ah(rail->ud->pd, &ev->param.ud.ah_attr,
				    RDMA_CREATE_AH_SLEEPABLE);
		if (IS_ERR(ah)) {
			kobject_put(&rail->kobj);
			err = PTR_ERR(ah);
			break;
		}
		memcpy(&cm, ev->param.ud.private_data, sizeof(cm));
		n = min_t(unsigned int, nqp, rail->ud->nqp);
		mrc_path_params(&pp);
		now = ktime_get_ns();

		spin_lock_bh(&peer->lock);
		if (link->ah)
			for (i = 0; i < link->npaths; i++)
				mrc_msg_path_down(peer, link - peer->links, i,
						  true);
		old_ah = link->ah;
		old_rail = link->rail;
		link->ah = ah;
		link->rail = rail;
		link->remote_rail_id = be32_to_cpu(cm.rail_id);
		link->npaths = n;
		for (i = 0; i < n; i++) {
			mrc_path_init(&link->paths[i].p, rail->id,
				      link->remote_rail_id, i, now);
			link->paths[i].remote_qpn = be32_to_cpu(cm.qpn[i]);
		}
		link->cm_result = 1;
		/*
		 * Fresh QPNs; but if our token changed or was asked for
		 * after our request was filled, tell the peer again.
		 */
		link->stale = link->token_due;
		restarted = mrc_peer_note_inc(peer, be32_to_cpu(cm.incarnation),
					      link);
		mrc_peer_arm(peer);
		spin_unlock_bh(&peer->lock);
		if (restarted)
			mrc_msg_peer_restarted(peer);
		pr_info("peer %u plane %u resolved: %s, %u paths\n",
			peer->node_id, link->plane, rail->name, n);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		err = -EHOSTUNREACH;
		break;
	default:
		return 0;
	}

	if (err) {
		spin_lock_bh(&peer->lock);
		link->cm_result = err;
		spin_unlock_bh(&peer->lock);
	}
	if (err || ev->event == RDMA_CM_EVENT_ESTABLISHED)
		mrc_peer_kick(peer);	/* the work destroys the id */
	if (old_ah)
		rdma_destroy_ah(old_ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (old_rail)
		kobject_put(&old_rail->kobj);
	return 0;
}

/*
 * Starts resolving @link.  Process context, no lock held.  Returns an error
 * when the attempt failed at once (no route while the plane's netdev is
 * down, no memory): no CM event will follow, so the caller must run the
 * work again for it to schedule the retry.
 */
static int mrc_link_resolve(struct mrc_peer_link *link)
{
	struct rdma_cm_id *id;
	int err;

	id = rdma_create_id(&init_net, mrc_cm_client_handler, link,
			    RDMA_PS_UDP, IB_QPT_UD);
	if (IS_ERR(id)) {
		spin_lock_bh(&link->peer->lock);
		link->retry_ns = ktime_get_ns() + MRC_RESOLVE_RETRY_NS;
		spin_unlock_bh(&link->peer->lock);
		return PTR_ERR(id);
	}
	spin_lock_bh(&link->peer->lock);
	link->cm_id = id;
	link->cm_result = 0;
	spin_unlock_bh(&link->peer->lock);
	err = rdma_resolve_addr(id, NULL, (struct sockaddr *)&link->dst,
				MRC_CM_TIMEOUT_MS);
	if (err) {
		spin_lock_bh(&link->peer->lock);
		link->cm_result = err;
		spin_unlock_bh(&link->peer->lock);
	}
	return err;
}

static void mrc_peer_workfn(struct work_struct *work)
{
	struct mrc_peer *peer = container_of(work, struct mrc_peer, work);
	u64 now = ktime_get_ns(), next = U64_MAX;
	bool again = false;
	unsigned int l;

	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];
		struct rdma_cm_id *done = NULL;
		struct mrc_rail *old_rail = NULL;
		struct ib_ah *old_ah = NULL;
		bool start = false;
		unsigned int i;

		spin_lock_bh(&peer->lock);
		/* An exchange ended: reap its id (first: it may leave stale). */
		if (link->cm_id && link->cm_result) {
			done = link->cm_id;
			link->cm_id = NULL;
			if (link->cm_result < 0)
				link->retry_ns = now + MRC_RESOLVE_RETRY_NS;
		}
		/*
		 * Resolved before the peer restarted or before our token
		 * changed (token_due): forget, resolve again.
		 */
		if (link->stale && !link->cm_id) {
			link->stale = false;
			for (i = 0; link->ah && i < link->npaths; i++) {
				u8 prev = link->paths[i].p.state;

				mrc_msg_path_down(peer, l, i, true);
				link->paths[i].p.state = MRC_PATH_DEAD;
				if (prev != MRC_PATH_DEAD)
					mrc_nl_path_event(peer, link, i, prev);
			}
			old_ah = link->ah;
			old_rail = link->rail;
			link->ah = NULL;
			link->rail = NULL;
			link->npaths = 0;
			link->retry_ns = 0;
		}
		if (!link->cm_id && !link->ah && !peer->dead) {
			if (link->retry_ns <= now)
				start = true;
			else
				next = min(next, link->retry_ns);
		}
		spin_unlock_bh(&peer->lock);

		if (done)
			rdma_destroy_id(done);
		if (old_ah) {
			rdma_destroy_ah(old_ah, RDMA_DESTROY_AH_SLEEPABLE);
			kobject_put(&old_rail->kobj);
		}
		if (start && mrc_link_resolve(link))
			again = true;
	}
	/* An attempt failed before any CM event: reap it and set its retry. */
	if (again) {
		mrc_peer_kick(peer);
		return;
	}
	/* Retry later: a delayed kick through the timer would do; keep simple. */
	if (next != U64_MAX) {
		spin_lock_bh(&peer->lock);
		if (!peer->dead)
			queue_delayed_work(system_wq, &peer->retry,
					   nsecs_to_jiffies(next - now) + 1);
		spin_unlock_bh(&peer->lock);
	}
}

static void mrc_peer_retry_fn(struct work_struct *work)
{
	struct mrc_peer *peer = container_of(to_delayed_work(work),
					     struct mrc_peer, retry);

	mrc_peer_kick(peer);
}

/* Server side: answer a SIDR request with our QPNs on that rail. */
static int mrc_cm_listen_handler(struct rdma_cm_id *id,
				 struct rdma_cm_event *ev)
{
	const struct mrc_wire_cm *req = ev->param.ud.private_data;
	u32 node = mrc_knob(MRC_KNOB_node_id);
	struct rdma_conn_param param = {};
	struct mrc_peer *peer;
	struct mrc_wire_cm cm;
	struct mrc_rail *rail;
	bool restarted, moved;
	u64 token;

	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 0;
	if (!node || mrc_cm_check(req, ev->param.ud.private_data_len, 0,
				  node) < 0)
		goto reject;
	rail = mrc_cm_rail(id);
	if (!rail)
		goto reject;
	/* A HELLO from a restarted peer: start over with it. */
	peer = mrc_peer_get(be32_to_cpu(req->src_node));
	if (peer) {
		spin_lock_bh(&peer->lock);
		restarted = mrc_peer_note_inc(peer,
					      be32_to_cpu(req->incarnation),
					      NULL);
		/* Or only its rail behind this one was replaced. */
		moved = !restarted && mrc_peer_note_rail(peer, rail, req);
		/* The token to put in our packets to it (requests only). */
		token = be64_to_cpu(req->token);
		if (token)
			peer->tx_token = token;
		if (be16_to_cpu(req->flags) & MRC_CM_F_NEED_TOKEN) {
			mrc_peer_token_due(peer);
			moved = true;
		}
		spin_unlock_bh(&peer->lock);
		if (restarted)
			mrc_msg_peer_restarted(peer);
		if (restarted || moved)
			mrc_peer_kick(peer);
		mrc_peer_put(peer);
	}
	/* A reply goes wherever the request came from: no token in it. */
	mrc_cm_fill(&cm, rail, be32_to_cpu(req->src_node), 0, 0);
	param.qp_num = mrc_ud_qpn(rail->ud, 0);
	param.qkey = MRC_UD_QKEY;
	param.private_data = &cm;
	param.private_data_len = sizeof(cm);
	if (rdma_accept(id, &param))
		pr_info_ratelimited("%s: SIDR reply to node %u failed\n",
				    rail->name, be32_to_cpu(req->src_node));
	kobject_put(&rail->kobj);
	return 1;	/* the core destroys this request's id */

reject:
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return 1;
}

/* ---- configuration ---- */

/**
 * mrc_peer_add() - configure a peer (netlink)
 * @node: its node id
 * @addrs: one address per plane
 * @naddrs: how many
 * @extack: netlink extended ack, for the reason of a refusal
 *
 * The peer's links start resolving at once.
 *
 * Context: process.
 *
 * Return: 0 or -errno (with a message in @extack).
 */
int mrc_peer_add(u32 node, const struct sockaddr_storage *addrs,
		 unsigned int naddrs, struct netlink_ext_ack *extack)
{
	struct mrc_peer *peer, *p;
	unsigned int i;
	int err = 0;

	if (!mrc_knob(MRC_KNOB_node_id)) {
		NL_SET_ERR_MSG(extack, "set this node's node_id first");
		return -EINVAL;
	}
	if (node == mrc_knob(MRC_KNOB_node_id)) {
		NL_SET_ERR_MSG(extack, "peer node id is this node's own");
		return -EINVAL;
	}
	peer = kvzalloc(sizeof(*peer), GFP_KERNEL);
	if (!peer)
		return -ENOMEM;
	kref_init(&peer->ref);
	peer->node_id = node;
	peer->nlinks = naddrs;
	peer->rx_token = mrc_token_draw(0);	/* told in our requests */
	spin_lock_init(&peer->lock);
	hrtimer_init(&peer->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	peer->timer.function = mrc_peer_timer;
	INIT_WORK(&peer->work, mrc_peer_workfn);
	INIT_DELAYED_WORK(&peer->retry, mrc_peer_retry_fn);
	mrc_msg_peer_init(peer);
	for (i = 0; i < naddrs; i++) {
		peer->links[i].peer = peer;
		peer->links[i].plane = i;
		peer->links[i].dst = addrs[i];
	}

	mutex_lock(&mrc_peers_lock);
	list_for_each_entry(p, &mrc_peers, node) {
		if (p->node_id == node) {
			NL_SET_ERR_MSG(extack, "peer already exists");
			err = -EEXIST;
			goto unlock;
		}
	}
	if (mrc_npeers >= MRC_PEERS_MAX) {
		NL_SET_ERR_MSG(extack, "too many peers");
		err = -ENOSPC;
		goto unlock;
	}
	list_add_tail_rcu(&peer->node, &mrc_peers);
	mrc_npeers++;
unlock:
	mutex_unlock(&mrc_peers_lock);
	if (err) {
		kvfree(peer);
		return err;
	}
	pr_info("peer %u added (%u planes)\n", node, naddrs);
	mrc_nl_peer_event(peer, MRC_CMD_PEER_ADDED);
	mrc_peer_kick(peer);
	return 0;
}

/* Tears a peer down; it is already off the list.  No lock held. */
static void mrc_peer_destroy(struct mrc_peer *peer)
{
	unsigned int l;

	spin_lock_bh(&peer->lock);
	peer->dead = true;
	spin_unlock_bh(&peer->lock);
	hrtimer_cancel(&peer->timer);
	cancel_delayed_work_sync(&peer->retry);
	cancel_work_sync(&peer->work);
	/* rdma_destroy_id waits for a running handler of that id. */
	for (l = 0; l < peer->nlinks; l++)
		if (peer->links[l].cm_id) {
			rdma_destroy_id(peer->links[l].cm_id);
			peer->links[l].cm_id = NULL;
		}
	cancel_work_sync(&peer->work);
	hrtimer_cancel(&peer->timer);
	mrc_msg_peer_stop(peer);	/* fails its messages, frees buffers */
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];

		if (link->ah)
			rdma_destroy_ah(link->ah, RDMA_DESTROY_AH_SLEEPABLE);
		if (link->rail)
			kobject_put(&link->rail->kobj);
		link->ah = NULL;
		link->rail = NULL;
	}
	mrc_peer_put(peer);
}

/**
 * mrc_peer_del() - remove a configured peer (netlink)
 * @node: its node id
 * @extack: netlink extended ack, for the reason of a refusal
 *
 * A peer is destroyed under mrc_peers_lock, so that a rail going away
 * (mrc_peers_rail_removed(), same lock) never misses a dying peer's
 * address handles on its PD.  Safe: no cm handler or work of a peer
 * takes mrc_peers_lock.
 *
 * Context: process.
 *
 * Return: 0, or -ENOENT if there is no such peer.
 */
int mrc_peer_del(u32 node, struct netlink_ext_ack *extack)
{
	struct mrc_peer *peer, *found = NULL;

	mutex_lock(&mrc_peers_lock);
	list_for_each_entry(peer, &mrc_peers, node) {
		if (peer->node_id == node) {
			found = peer;
			list_del_rcu(&peer->node);
			mrc_npeers--;
			break;
		}
	}
	if (found) {
		mrc_nl_peer_event(found, MRC_CMD_PEER_REMOVED);
		mrc_peer_destroy(found);
	}
	mutex_unlock(&mrc_peers_lock);
	if (!found) {
		NL_SET_ERR_MSG(extack, "no such peer");
		return -ENOENT;
	}
	pr_info("peer %u removed\n", node);
	return 0;
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

	mrc_path_params(&pp);
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
 * PD goes, and tells the peer (RAIL_DOWN).  From rail.c.
 *
 * Context: process.
 */
void mrc_peers_rail_removed(struct mrc_rail *rail)
{
	struct mrc_peer *peer;
	unsigned int l, i;

	mutex_lock(&mrc_peers_lock);
	list_for_each_entry(peer, &mrc_peers, node) {
		for (l = 0; l < peer->nlinks; l++) {
			struct mrc_peer_link *link = &peer->links[l];
			struct ib_ah *ah = NULL;

			spin_lock_bh(&peer->lock);
			if (link->rail == rail) {
				for (i = 0; i < link->npaths; i++) {
					u8 prev = link->paths[i].p.state;

					mrc_msg_path_down(peer, l, i, true);
					link->paths[i].p.state = MRC_PATH_DEAD;
					if (prev != MRC_PATH_DEAD)
						mrc_nl_path_event(peer, link, i,
								  prev);
				}
				ah = link->ah;
				link->ah = NULL;
				link->rail = NULL;
				link->npaths = 0;
				link->retry_ns = 0;
				if (ah)
					mrc_peer_send_rail_down(peer, rail->id);
			}
			spin_unlock_bh(&peer->lock);
			if (ah) {
				rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
				kobject_put(&rail->kobj);
				mrc_peer_kick(peer);
			}
		}
	}
	mutex_unlock(&mrc_peers_lock);
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
 * Under peer->lock.
 */
static void mrc_peer_rx_rail_down(struct mrc_peer *peer,
				  struct mrc_ud_qp *uqp,
				  const struct mrc_pkt *pkt, u64 now)
{
	u32 rail_id = mrc_wire_get_rail_down(pkt);
	struct mrc_path_params pp;
	unsigned int l, i;

	lockdep_assert_held(&peer->lock);
	mrc_path_params(&pp);
	mrc_rail_stat_inc(uqp->ud->rail, MRC_RAIL_STAT_DOWN_NOTICES_RX);
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];

		if (!link->ah || link->remote_rail_id != rail_id)
			continue;
		for (i = 0; i < link->npaths; i++) {
			struct mrc_path *p = &link->paths[i].p;
			u8 prev = p->state;

			if (mrc_path_event(p, &pp, MRC_PATH_EV_PEER_DOWN, now,
					   now) > 0)
				mrc_nl_path_event(peer, link, i, prev);
			mrc_msg_path_down(peer, l, i, false);
		}
	}
	mrc_peer_arm(peer);
}

/* PROBE: answer it; PROBE_REPLY: the path is alive.  Under peer->lock. */
static void mrc_peer_rx_probe(struct mrc_peer *peer,
			      struct mrc_peer_link *link, unsigned int ev,
			      const struct mrc_pkt *pkt, u64 now)
{
	struct mrc_path_params pp;
	struct mrc_pkt_hello hello;
	struct mrc_path *p = &link->paths[ev].p;
	u8 prev = p->state;

	lockdep_assert_held(&peer->lock);
	if (pkt->type == MRC_PKT_PROBE) {
		mrc_peer_send_probe(link, ev, MRC_PKT_PROBE_REPLY,
				    pkt->path_seq, pkt->tstamp);
		return;
	}
	mrc_path_params(&pp);
	mrc_wire_get_hello(pkt, &hello);
	if (mrc_path_event(p, &pp, MRC_PATH_EV_REPLY, now,
			   hello.echo_tstamp) > 0)
		mrc_nl_path_event(peer, link, ev, prev);
	mrc_peer_arm(peer);
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
		mrc_peer_rx_rail_down(peer, uqp, pkt, now);
	else
		mrc_peer_rx_probe(peer, link, uqp->ev, pkt, now);
out:
	spin_unlock_bh(&peer->lock);
out_rcu:
	rcu_read_unlock();
	return why;
}

/* ---- netlink ---- */

static u8 mrc_uapi_path_state(const struct mrc_peer_link *link,
			      unsigned int i)
{
	if (!link->ah)
		return MRC_PATH_STATE_UNRESOLVED;
	return link->paths[i].p.state;
}

/**
 * mrc_peer_fill_path() - put one PATH nest
 * @skb: the netlink message
 * @link: the path's link
 * @i: the path's index in @link
 * @prev: its previous state for an event, or < 0 for none
 *
 * Context: peer->lock held.
 *
 * Return: 0, or -EMSGSIZE if @skb is full.
 */
int mrc_peer_fill_path(struct sk_buff *skb, struct mrc_peer_link *link,
		       unsigned int i, int prev)
{
	const struct mrc_path *p = &link->paths[i].p;
	struct mrc_path_params pp;
	struct nlattr *nest;

	lockdep_assert_held(&link->peer->lock);
	mrc_path_params(&pp);
	nest = nla_nest_start(skb, MRC_PEER_A_PATH);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MRC_PATH_A_PLANE, link->plane) ||
	    nla_put_u32(skb, MRC_PATH_A_ENTROPY, i) ||
	    nla_put_u8(skb, MRC_PATH_A_STATE, mrc_uapi_path_state(link, i)))
		goto cancel;
	if (prev >= 0 && nla_put_u8(skb, MRC_PATH_A_PREV_STATE, prev))
		goto cancel;
	if (link->ah &&
	    (nla_put_string(skb, MRC_PATH_A_RAIL, link->rail->name) ||
	     nla_put_u32(skb, MRC_PATH_A_LOCAL_QPN,
			 mrc_ud_qpn(link->rail->ud, i)) ||
	     nla_put_u32(skb, MRC_PATH_A_REMOTE_QPN,
			 link->paths[i].remote_qpn) ||
	     nla_put_u32(skb, MRC_PATH_A_RTO_US,
			 div_u64(mrc_path_rto(p, &pp), NSEC_PER_USEC)) ||
	     nla_put_u32(skb, MRC_PATH_A_INFLIGHT, p->inflight_pkts) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_TX_PKTS, p->stats.tx_pkts,
			       MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_ACKED_PKTS,
			       p->stats.acked_pkts, MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_LOST_PKTS, p->stats.lost_pkts,
			       MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_PROBES, p->stats.probes,
			       MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_REPLIES, p->stats.replies,
			       MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_TIMEOUTS, p->stats.timeouts,
			       MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_STATE_CHANGES,
			       p->stats.state_changes, MRC_PATH_A_PAD)))
		goto cancel;
	if (link->ah && mrc_rtt_valid(&p->rtt) &&
	    nla_put_u32(skb, MRC_PATH_A_SRTT_US,
			div_u64(p->rtt.srtt_ns, NSEC_PER_USEC)))
		goto cancel;
	/* sched: load and weight of the path */
	if (link->ah &&
	    (nla_put_u64_64bit(skb, MRC_PATH_A_INFLIGHT_BYTES,
			       p->inflight_bytes, MRC_PATH_A_PAD) ||
	     nla_put_u64_64bit(skb, MRC_PATH_A_TX_BYTES, p->stats.tx_bytes,
			       MRC_PATH_A_PAD) ||
	     nla_put_u32(skb, MRC_PATH_A_WEIGHT,
			 mrc_schedcfg_weight(p->local_rail))))
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/**
 * mrc_peer_fill() - put a PEER nest
 * @skb: the netlink message
 * @peer: the peer; the caller holds a reference
 *
 * Return: 0, or -EMSGSIZE if @skb is full.
 */
int mrc_peer_fill(struct sk_buff *skb, struct mrc_peer *peer)
{
	struct nlattr *nest, *addrs;
	unsigned int l, i, active = 0;
	u64 fallbacks, explores;
	u8 policy;
	int err = -EMSGSIZE;

	nest = nla_nest_start(skb, MRC_A_PEER);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, MRC_PEER_A_NODE, peer->node_id))
		goto cancel;
	/* sched: the peer's policy and scheduler counters */
	spin_lock_bh(&peer->lock);
	policy = peer->mp.policy;
	fallbacks = peer->mp.sched.fallbacks;
	explores = peer->mp.sched.explores;
	spin_unlock_bh(&peer->lock);
	if ((policy != MRC_SCHED_POLICY_GLOBAL &&
	     nla_put_u32(skb, MRC_PEER_A_POLICY, policy)) ||
	    nla_put_u32(skb, MRC_PEER_A_POLICY_NOW,
			policy < MRC_SCHED_POLICY_NR ? policy :
			mrc_knob(MRC_KNOB_sched_policy)) ||
	    nla_put_u64_64bit(skb, MRC_PEER_A_FALLBACKS, fallbacks,
			      MRC_PEER_A_PAD) ||
	    nla_put_u64_64bit(skb, MRC_PEER_A_EXPLORES, explores,
			      MRC_PEER_A_PAD))
		goto cancel;
	addrs = nla_nest_start(skb, MRC_PEER_A_ADDRS);
	if (!addrs)
		goto cancel;
	for (l = 0; l < peer->nlinks; l++) {
		const struct sockaddr_storage *ss = &peer->links[l].dst;

		if (ss->ss_family == AF_INET ?
		    nla_put_in_addr(skb, MRC_PEER_A_ADDR,
				    ((struct sockaddr_in *)ss)->sin_addr.s_addr) :
		    nla_put_in6_addr(skb, MRC_PEER_A_ADDR,
				     &((struct sockaddr_in6 *)ss)->sin6_addr))
			goto cancel;
	}
	nla_nest_end(skb, addrs);

	spin_lock_bh(&peer->lock);
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];
		unsigned int n = link->ah ? link->npaths : 1;

		for (i = 0; i < n; i++) {
			if (link->ah && mrc_path_in_spray_set(&link->paths[i].p))
				active++;
			if (mrc_peer_fill_path(skb, link, i, -1))
				goto unlock;
		}
	}
	err = 0;
unlock:
	spin_unlock_bh(&peer->lock);
	if (err || nla_put_u32(skb, MRC_PEER_A_PATHS_ACTIVE, active))
		goto cancel;
	if (mrc_credit_peer_fill(skb, peer))	/* credit_peer.c */
		goto cancel;
	nla_nest_end(skb, nest);
	return 0;
cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

/* ---- debugfs ---- */

/*
 * debugfs mrc/tokens, root only: "peer NODE tx TOKEN" per peer, TOKEN the
 * tx_token (16 hex digits; 0: not known yet).  A test hook: rogue.sh's
 * tool forges packets as this node with it to reach the checks after the
 * token's.  Nothing else shows a token (never logged).
 */
static int mrc_tokens_show(struct seq_file *m, void *v)
{
	struct mrc_peer *peer;
	u64 tx;

	rcu_read_lock();
	list_for_each_entry_rcu(peer, &mrc_peers, node) {
		spin_lock_bh(&peer->lock);
		tx = peer->tx_token;
		spin_unlock_bh(&peer->lock);
		seq_printf(m, "peer %u tx %016llx\n", peer->node_id, tx);
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mrc_tokens);

/* ---- init ---- */

/**
 * mrc_peer_init() - module init: listen for SIDR requests
 *
 * Description: draws this node's incarnation, listens on the rdma_cm UDP
 * port MRC_CM_PORT and creates debugfs mrc/tokens.
 *
 * Return: 0 or -errno.
 */
int mrc_peer_init(void)
{
	struct sockaddr_in any = {
		.sin_family = AF_INET,
		.sin_port = htons(MRC_CM_PORT),
	};
	struct rdma_cm_id *id;
	struct dentry *dir;
	int err;

	mrc_incarnation = get_random_u32() | 1;
	id = rdma_create_id(&init_net, mrc_cm_listen_handler, NULL,
			    RDMA_PS_UDP, IB_QPT_UD);
	if (IS_ERR(id))
		return PTR_ERR(id);
	err = rdma_bind_addr(id, (struct sockaddr *)&any);
	if (!err)
		err = rdma_listen(id, 16);
	if (err) {
		pr_err("cannot listen on rdma_cm UDP port %u: %d\n",
		       MRC_CM_PORT, err);
		rdma_destroy_id(id);
		return err;
	}
	mrc_cm_listener = id;
	/* msg.c made the "mrc" debugfs directory. */
	dir = debugfs_lookup("mrc", NULL);
	mrc_tokens_debugfs = debugfs_create_file("tokens", 0400, dir, NULL,
						 &mrc_tokens_fops);
	dput(dir);
	return 0;
}

/**
 * mrc_peer_exit() - module exit: every peer is destroyed
 */
void mrc_peer_exit(void)
{
	struct mrc_peer *peer;

	debugfs_remove(mrc_tokens_debugfs);
	rdma_destroy_id(mrc_cm_listener);
	mutex_lock(&mrc_peers_lock);
	while ((peer = list_first_entry_or_null(&mrc_peers,
						struct mrc_peer, node))) {
		list_del_rcu(&peer->node);
		mrc_npeers--;
		mrc_peer_destroy(peer);
	}
	mutex_unlock(&mrc_peers_lock);
	rcu_barrier();	/* kvfree_rcu callbacks run before the module goes */
}
