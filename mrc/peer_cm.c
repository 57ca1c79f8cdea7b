// SPDX-License-Identifier: GPL-2.0
/*
 * peer_cm.c - resolution of a peer's links: the rdma_cm SIDR client (our
 * requests) and server (the listener), and the tokens they carry.
 *
 * Design notes
 *
 * Resolution (the HELLO of the protocol).  UD needs the remote QPNs.  mrc
 * learns them with an rdma_cm SIDR exchange in the UDP port space, port
 * MRC_CM_PORT: the request and the reply carry struct mrc_wire_cm (version,
 * node ids, rail id, every QPN of the rail).  rdma_cm also resolves the
 * route and the destination MAC, so the address handle it gives is right on
 * hardware RoCE NICs too.  Every node listens; each side resolves its own
 * links to its peers, retrying every second until it works.  cm ids are
 * created and destroyed only by peer->work; the cm handler never destroys
 * one, it records the result and queues the work.  That includes the
 * removal of the id's device (DEVICE_REMOVAL, -ENODEV): rdma_cm's removal
 * waits until every id on the device is destroyed, so an id kept there
 * would hold `rdma link delete` (or the device's driver unload) for ever.
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
 * Incarnations.  The incarnation a HELLO carries tells the receiver
 * whether the sender still holds what it knew of the receiver: a new one
 * means it does not (it restarted), and the receiver starts its queued
 * messages to it over under a new epoch and forgets its partial ones
 * (mrc_peer_note_inc()).  Deleting and adding a peer again wipes that
 * state as surely as a reload, while the module's incarnation stays: the
 * other side kept sending its old sequence numbers to a receiver that
 * started from the beginning, which held them for ever (acknowledged,
 * never delivered) until it refused any more.  So the incarnation is per
 * peer object (peer->local_inc, mrc_peer_inc_draw()), in our requests to
 * it and in our replies to its requests.  A request from a node that is
 * not a peer is rejected (stats/cm_not_peer): an answer would have to
 * carry an incarnation no later peer object of that node has, and the
 * other side would count a restart twice; nothing can use a link to a
 * node that drops everything it sends anyway.  It retries every second.
 *
 * Keys (wire version 4).  A request naming a configured peer can reset
 * its state (incarnation, token, resolution), so between two nodes
 * configured with a key for each other (peer_auth.c) every request and
 * reply carries an HMAC of all its fields, checked before anything is
 * looked at beyond the node ids: a request without it, or with a wrong
 * one, is rejected and counted (stats/cm_no_auth, cm_bad_auth) and
 * changes nothing.  A recorded request stays valid, so requests carry
 * the sender's clock and change state only when newer than the last
 * one taken from that peer and within a minute of ours
 * (core/handshake.h; cm_stale, cm_expired); a reply must echo the nonce
 * of our request in flight.  A peer configured without a key is
 * resolved as before version 4, unauthenticated: protocol.rst, "Keys".
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
#include "core/handshake.h"
#include "peer_int.h"

static struct rdma_cm_id *mrc_cm_listener;

/*
 * The last SIDR request this node sent, for debugfs mrc/cm_request (root
 * only): a test hook that lets selftests/mrc/auth.sh replay a real
 * request.  It holds the peer's token, a secret like debugfs mrc/tokens.
 */
static DEFINE_SPINLOCK(mrc_cm_last_lock);
static u8 mrc_cm_last[sizeof(struct mrc_wire_cm)];
static u32 mrc_cm_last_node;		/* 0: none sent yet */

#define MRC_RESOLVE_RETRY_NS	(1000ULL * NSEC_PER_MSEC)
#define MRC_CM_TIMEOUT_MS	2000

/* ---- resolution ---- */

/**
 * mrc_peer_kick() - run the peer's work (resolution) soon
 * @peer: the peer, no lock held
 */
void mrc_peer_kick(struct mrc_peer *peer)
{
	spin_lock_bh(&peer->lock);
	if (!peer->dead)
		queue_work(system_wq, &peer->work);
	spin_unlock_bh(&peer->lock);
}

/**
 * mrc_token_draw() - a new token
 * @old: the token it replaces (0: none)
 *
 * Return: a random token, never 0 nor @old.
 */
u64 mrc_token_draw(u64 old)
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
 * Writes the CM private data for @rail into @buf: a request (@token our
 * rx_token for the peer, @flags, @nonce a fresh random value) or a reply
 * (@token 0, MRC_CM_F_REPLY, @nonce the request's).  @inc: the
 * incarnation the receiver sees of us ("Incarnations").  With @key it is
 * signed (MRC_CM_F_MAC).  Returns 0 or -errno (nothing to send).
 */
static int mrc_cm_fill(u8 *buf, struct mrc_rail *rail,
		       struct crypto_shash *key, u32 dst_node, u32 inc,
		       u64 token, u16 flags, u64 nonce)
{
	unsigned int i, n = min_t(unsigned int, rail->ud->nqp, MRC_CM_MAX_QPS);
	struct mrc_cm cm = {
		.nqp = n,
		.flags = flags | (key ? MRC_CM_F_MAC : 0),
		.src_node = mrc_knob(MRC_KNOB_node_id),
		.dst_node = dst_node,
		.rail_id = rail->id,
		.incarnation = inc,
		.ts = ktime_get_real_ns(),
		.nonce = nonce,
		.token = token,
	};

	for (i = 0; i < n; i++)
		cm.qpn[i] = mrc_ud_qpn(rail->ud, i);
	mrc_wire_cm_put(buf, &cm);
	return key ? mrc_cm_sign(key, buf) : 0;
}

/*
 * The authentication a SIDR request or reply from @peer needs: with a
 * key, its MAC; without one, no MAC (a MAC we cannot check means the
 * two nodes are configured differently).  Counts and returns -EACCES on
 * a refusal.  No lock: the key never changes.
 */
static int mrc_cm_auth(struct mrc_peer *peer, const u8 *buf,
		       const struct mrc_cm *cm)
{
	bool has_mac = cm->flags & MRC_CM_F_MAC;

	if (peer->key && !has_mac) {
		mrc_mod_stat_inc(MRC_MOD_STAT_CM_NO_AUTH);
		pr_info_ratelimited("peer %u: SIDR %s without a MAC refused (the peer is configured with a key)\n",
				    peer->node_id, cm->flags & MRC_CM_F_REPLY ?
				    "reply" : "request");
		return -EACCES;
	}
	if (has_mac && (!peer->key || !mrc_cm_mac_ok(peer->key, buf))) {
		mrc_mod_stat_inc(MRC_MOD_STAT_CM_BAD_AUTH);
		pr_info_ratelimited("peer %u: SIDR %s with a wrong MAC refused (%s)\n",
				    peer->node_id, cm->flags & MRC_CM_F_REPLY ?
				    "reply" : "request", peer->key ?
				    "another key" : "no key configured here");
		return -EACCES;
	}
	return 0;
}

/* Keeps a copy of the request just sent, for debugfs mrc/cm_request. */
static void mrc_cm_note_request(const u8 *buf, u32 dst_node)
{
	spin_lock_bh(&mrc_cm_last_lock);
	memcpy(mrc_cm_last, buf, sizeof(mrc_cm_last));
	mrc_cm_last_node = dst_node;
	spin_unlock_bh(&mrc_cm_last_lock);
}

/**
 * mrc_cm_request_show() - debugfs mrc/cm_request (root only)
 * @m: the file
 *
 * "node NODE HEX": the last SIDR request's private data this node sent
 * and the node it went to, or nothing before the first.  A test hook
 * (auth.sh replays it); it holds a token, so the file is root-only.
 *
 * Return: 0.
 */
int mrc_cm_request_show(struct seq_file *m)
{
	u8 buf[sizeof(mrc_cm_last)];
	unsigned int i;
	u32 node;

	spin_lock_bh(&mrc_cm_last_lock);
	memcpy(buf, mrc_cm_last, sizeof(buf));
	node = mrc_cm_last_node;
	spin_unlock_bh(&mrc_cm_last_lock);
	if (!node)
		return 0;
	seq_printf(m, "node %u ", node);
	/* %*ph prints at most 64 bytes at a time */
	for (i = 0; i < sizeof(buf); i += 64)
		seq_printf(m, "%*phN", (int)min_t(size_t, 64, sizeof(buf) - i),
			   buf + i);
	seq_putc(m, '\n');
	return 0;
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
	for (l = 0; l < peer->nlinks; l++) {
		if (&peer->links[l] != fresh)
			peer->links[l].stale = true;
		/* Its clock (RAIL_DOWN tstamps) may have started over. */
		peer->links[l].rd_ts = 0;
	}
	/*
	 * A new token for the new incarnation: what the old one still has
	 * in flight is dropped (bad_token).  Every link, @fresh too, tells
	 * the peer in a new request.
	 */
	WRITE_ONCE(peer->rx_token, mrc_token_draw(peer->rx_token));
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
			       const struct mrc_cm *req)
{
	bool changed = false;
	unsigned int l, i;

	lockdep_assert_held(&peer->lock);
	for (l = 0; l < peer->nlinks; l++) {
		struct mrc_peer_link *link = &peer->links[l];
		bool same;

		if (link->rail != rail || !link->ah || link->stale)
			continue;
		same = link->remote_rail_id == req->rail_id &&
		       link->npaths <= req->nqp;
		for (i = 0; same && i < link->npaths; i++)
			same = link->paths[i].remote_qpn == req->qpn[i];
		if (same)
			continue;
		link->stale = true;
		changed = true;
		pr_info("peer %u plane %u: its rail was replaced (new QPNs): resolving again\n",
			peer->node_id, link->plane);
	}
	return changed;
}

/*
 * Parses a received CM private data into @cm and checks what needs no
 * key: the layout, the node ids (@src_node 0: any) and the direction.
 * Counts and returns -EPROTO on a refusal.
 */
static int mrc_cm_check(const void *data, u8 len, u32 src_node, u32 dst_node,
			bool reply, struct mrc_cm *cm)
{
	if (mrc_wire_cm_parse(data, len, cm) ||
	    (src_node && cm->src_node != src_node) ||
	    cm->dst_node != dst_node ||
	    !!(cm->flags & MRC_CM_F_REPLY) != reply) {
		mrc_mod_stat_inc(MRC_MOD_STAT_CM_MALFORMED);
		return -EPROTO;
	}
	return 0;
}

/*
 * The listed rail with QPs of a cm id's device and port; NULL if none.
 * Under mrc_rails_lock, held for as long as the caller uses rail->ud: a
 * rail being removed (rail.c mrc_ib_remove()) leaves the list under this
 * lock before its QPs and PD go, and before its links are let go of, so
 * nothing read here or attached to a link under the lock outlives them
 * unseen (ah.c).
 */
static struct mrc_rail *mrc_cm_rail_locked(struct rdma_cm_id *id)
{
	struct mrc_rail *rail;

	lockdep_assert_held(&mrc_rails_lock);
	if (!id->device)
		return NULL;
	list_for_each_entry(rail, &mrc_rails, node)
		if (rail->ibdev == id->device && rail->port == id->port_num &&
		    rail->ud)
			return rail;
	return NULL;
}

/*
 * Client side: checks the reply to @link's request (parsed into @cm):
 * from the peer, to us, a reply, echoing the nonce of our request in
 * flight (else it answers another request: a replay, counted stale),
 * authenticated as the peer's key says.  Returns 0 or -errno (counted).
 */
static int mrc_cm_check_reply(struct mrc_peer_link *link,
			      const struct rdma_cm_event *ev,
			      struct mrc_cm *cm)
{
	struct mrc_peer *peer = link->peer;
	u64 nonce;
	int err;

	err = mrc_cm_check(ev->param.ud.private_data,
			   ev->param.ud.private_data_len, peer->node_id,
			   mrc_knob(MRC_KNOB_node_id), true, cm);
	if (err)
		return err;
	err = mrc_cm_auth(peer, ev->param.ud.private_data, cm);
	if (err)
		return err;
	spin_lock_bh(&peer->lock);
	nonce = link->cm_nonce;
	spin_unlock_bh(&peer->lock);
	if (cm->nonce != nonce) {
		mrc_mod_stat_inc(MRC_MOD_STAT_CM_STALE);
		return -EPROTO;
	}
	return 0;
}

/* Client side: the link's SIDR exchange. */
static int mrc_cm_client_handler(struct rdma_cm_id *id,
				 struct rdma_cm_event *ev)
{
	struct mrc_peer_link *link = id->context;
	struct mrc_peer *peer = link->peer;
	struct rdma_conn_param param = {};
	u8 buf[sizeof(struct mrc_wire_cm)];
	struct mrc_path_params pp;
	struct mrc_cm cm;
	struct mrc_rail *rail;
	struct ib_ah *ah, *old_ah = NULL;
	struct mrc_rail *old_rail = NULL;
	bool restarted = false;
	unsigned int i, n;
	u64 now, token, nonce;
	int err = 0;
	u16 flags;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		err = rdma_resolve_route(id, MRC_CM_TIMEOUT_MS);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		mutex_lock(&mrc_rails_lock);
		rail = mrc_cm_rail_locked(id);
		if (!rail) {
			mutex_unlock(&mrc_rails_lock);
			err = -ENODEV;
			break;
		}
		do			/* 0 stands for "answered" */
			nonce = get_random_u64();
		while (!nonce);
		spin_lock_bh(&peer->lock);
		token = peer->rx_token;
		flags = peer->tx_token ? 0 : MRC_CM_F_NEED_TOKEN;
		link->token_due = false;	/* this request tells it */
		link->cm_nonce = nonce;		/* its reply echoes it */
		spin_unlock_bh(&peer->lock);
		err = mrc_cm_fill(buf, rail, peer->key, peer->node_id,
				  peer->local_inc, token, flags, nonce);
		mutex_unlock(&mrc_rails_lock);
		if (err)
			break;
		mrc_cm_note_request(buf, peer->node_id);
		param.private_data = buf;
		param.private_data_len = sizeof(buf);
		param.qkey = MRC_UD_QKEY;
		err = rdma_connect_locked(id, &param);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		err = mrc_cm_check_reply(link, ev, &cm);
		if (err)
			break;
		/*
		 * The rail lock until the AH is on the link: a rail removed
		 * meanwhile either is not found here or finds the link
		 * (mrc_peers_rail_removed()).
		 */
		mutex_lock(&mrc_rails_lock);
		rail = mrc_cm_rail_locked(id);
		if (!rail) {
			mutex_unlock(&mrc_rails_lock);
			err = -ENODEV;
			break;
		}
		ah = mrc_ah_create(rail, &ev->param.ud.ah_attr);
		if (IS_ERR(ah)) {
			mutex_unlock(&mrc_rails_lock);
			err = PTR_ERR(ah);
			break;
		}
		n = min_t(unsigned int, cm.nqp, rail->ud->nqp);
		mrc_peer_path_params(&pp);
		now = ktime_get_ns();

		spin_lock_bh(&peer->lock);
		if (link->ah)
			for (i = 0; i < link->npaths; i++)
				mrc_msg_path_down(peer, link - peer->links, i,
						  true);
		old_ah = link->ah;
		old_rail = link->rail;
		WRITE_ONCE(link->ah, ah);
		WRITE_ONCE(link->rail, rail);
		link->remote_rail_id = cm.rail_id;
		WRITE_ONCE(link->npaths, n);
		for (i = 0; i < n; i++) {
			mrc_path_init(&link->paths[i].p, rail->id,
				      link->remote_rail_id, i, now);
			WRITE_ONCE(link->paths[i].remote_qpn, cm.qpn[i]);
		}
		link->cm_result = 1;
		/*
		 * Answered: no second reply taken.  The reply's ts does not
		 * move cm_ts: a request the peer sent before it may still be
		 * on its way with news (its new token) that must be taken.
		 */
		link->cm_nonce = 0;
		/*
		 * Fresh QPNs; but if our token changed or was asked for
		 * after our request was filled, tell the peer again.
		 */
		link->stale = link->token_due;
		restarted = mrc_peer_note_inc(peer, cm.incarnation, link);
		mrc_peer_arm(peer);
		spin_unlock_bh(&peer->lock);
		mutex_unlock(&mrc_rails_lock);
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
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		/*
		 * The device of an exchange in flight goes: no event comes
		 * after this one, and the removal waits until the id is
		 * destroyed.  An ended exchange: the work destroys it.
		 */
		err = -ENODEV;
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
		mrc_ah_release(old_rail, old_ah);
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

/**
 * mrc_peer_workfn() - peer->work: resolve the links that need it
 * @work: the peer's work
 *
 * Creates and destroys the links' cm ids (only here, never in a cm
 * handler), takes the results the handler recorded, arms the retry.
 */
void mrc_peer_workfn(struct work_struct *work)
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
			WRITE_ONCE(link->ah, NULL);
			WRITE_ONCE(link->rail, NULL);
			WRITE_ONCE(link->npaths, 0);
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
		if (old_ah)
			mrc_ah_release(old_rail, old_ah);
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

/**
 * mrc_peer_retry_fn() - peer->retry: a failed resolution is due again
 * @work: the peer's delayed work
 */
void mrc_peer_retry_fn(struct work_struct *work)
{
	struct mrc_peer *peer = container_of(to_delayed_work(work),
					     struct mrc_peer, retry);

	mrc_peer_kick(peer);
}

/*
 * Server side: a request of a configured @peer, parsed into @req (raw
 * bytes @buf), arrived on our @rail.  Authenticated first; then, with a
 * key, taken only if newer than the last one taken and within the
 * window (core/handshake.h): an older one is answered but changes
 * nothing.  Returns 0 (answer it) or -errno (reject it; counted).
 */
static int mrc_cm_rx_request(struct mrc_peer *peer, struct mrc_rail *rail,
			     const u8 *buf, const struct mrc_cm *req)
{
	enum mrc_cm_fresh fresh = MRC_CM_TAKE;
	bool restarted = false, moved = false;
	int err;

	err = mrc_cm_auth(peer, buf, req);
	if (err)
		return err;
	spin_lock_bh(&peer->lock);
	if (peer->key) {
		fresh = mrc_cm_request_fresh(peer->cm_ts, req->ts,
					     ktime_get_real_ns());
		if (fresh == MRC_CM_TAKE)
			peer->cm_ts = req->ts;
	}
	if (fresh == MRC_CM_TAKE) {
		/* A HELLO from a restarted peer: start over with it. */
		restarted = mrc_peer_note_inc(peer, req->incarnation, NULL);
		/* Or only its rail behind this one was replaced. */
		moved = !restarted && mrc_peer_note_rail(peer, rail, req);
		/* The token to put in our packets to it (requests only). */
		if (req->token)
			peer->tx_token = req->token;
		if (req->flags & MRC_CM_F_NEED_TOKEN) {
			mrc_peer_token_due(peer);
			moved = true;
		}
	}
	spin_unlock_bh(&peer->lock);
	if (fresh == MRC_CM_EXPIRED) {
		mrc_mod_stat_inc(MRC_MOD_STAT_CM_EXPIRED);
		pr_info_ratelimited("peer %u: SIDR request refused: its clock is more than 60 s from ours (or a replay)\n",
				    peer->node_id);
		return -ETIME;
	}
	if (fresh == MRC_CM_OLD)
		mrc_mod_stat_inc(MRC_MOD_STAT_CM_STALE);
	if (restarted)
		mrc_msg_peer_restarted(peer);
	if (restarted || moved)
		mrc_peer_kick(peer);
	return 0;
}

/* Server side: answer a SIDR request with our QPNs on that rail. */
static int mrc_cm_listen_handler(struct rdma_cm_id *id,
				 struct rdma_cm_event *ev)
{
	const u8 *data = ev->param.ud.private_data;
	u32 node = mrc_knob(MRC_KNOB_node_id);
	struct rdma_conn_param param = {};
	u8 buf[sizeof(struct mrc_wire_cm)];
	struct mrc_peer *peer;
	struct mrc_rail *rail;
	struct mrc_cm req;
	int err;

	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST)
		return 0;
	if (!node || mrc_cm_check(data, ev->param.ud.private_data_len, 0,
				  node, false, &req))
		goto reject;
	peer = mrc_peer_get(req.src_node);
	if (!peer) {
		mrc_mod_stat_inc(MRC_MOD_STAT_CM_NOT_PEER);
		goto reject;
	}
	/*
	 * The rail's reference is for mrc_cm_rx_request()'s compare and the
	 * log line below; rail->ud is used only under the rail lock
	 * (mrc_cm_rail_locked()).
	 */
	mutex_lock(&mrc_rails_lock);
	rail = mrc_cm_rail_locked(id);
	if (rail)
		kobject_get(&rail->kobj);
	mutex_unlock(&mrc_rails_lock);
	if (!rail) {
		mrc_peer_put(peer);
		goto reject;
	}
	err = mrc_cm_rx_request(peer, rail, data, &req);
	if (err) {
		mrc_peer_put(peer);
		kobject_put(&rail->kobj);
		goto reject;
	}
	/*
	 * A reply goes wherever the request came from: no token in it.
	 * Signed for a keyed peer.  Filled while the rail lock keeps
	 * rail->ud alive, if the rail is still listed.
	 */
	mutex_lock(&mrc_rails_lock);
	if (mrc_cm_rail_locked(id) != rail) {
		err = -ENODEV;
	} else {
		err = mrc_cm_fill(buf, rail, peer->key, req.src_node,
				  peer->local_inc, 0, MRC_CM_F_REPLY,
				  req.nonce);
		param.qp_num = mrc_ud_qpn(rail->ud, 0);
	}
	mutex_unlock(&mrc_rails_lock);
	mrc_peer_put(peer);
	if (err) {
		kobject_put(&rail->kobj);
		goto reject;
	}
	param.qkey = MRC_UD_QKEY;
	param.private_data = buf;
	param.private_data_len = sizeof(buf);
	if (rdma_accept(id, &param))
		pr_info_ratelimited("%s: SIDR reply to node %u failed\n",
				    rail->name, req.src_node);
	kobject_put(&rail->kobj);
	return 1;	/* the core destroys this request's id */

reject:
	rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
	return 1;
}

/**
 * mrc_peer_cm_listen() - the SIDR server: listen on MRC_CM_PORT
 *
 * Return: 0 or -errno (logged).
 */
int mrc_peer_cm_listen(void)
{
	struct sockaddr_in any = {
		.sin_family = AF_INET,
		.sin_port = htons(MRC_CM_PORT),
	};
	struct rdma_cm_id *id;
	int err;

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
	return 0;
}

/**
 * mrc_peer_cm_unlisten() - the SIDR server stops (its handler has
 * returned when this does)
 */
void mrc_peer_cm_unlisten(void)
{
	rdma_destroy_id(mrc_cm_listener);
}
