// SPDX-License-Identifier: GPL-2.0
/*
 * peer.c - peers: the table, their lifetime and configuration (links and
 * paths are resolved in peer_cm.c, probed in peer_probe.c).
 *
 * Design notes
 *
 * A peer is a node id plus one address per plane, configured by netlink.
 * Each address is a *link*: the local rail that reaches it (found by
 * routing, through rdma_cm) and the peer's rail behind it.  A link has one
 * *path* per entropy value: local UD QP i talks to the peer's UD QP i.
 *
 * Lifetime and locking.  mrc_peers is an RCU list, and mrc_peer_ids the
 * same peers by node id (the receive path looks a peer up there under
 * RCU, in O(1)); writers of both hold mrc_peers_lock.  A peer is refcounted;
 * removal unlinks it, marks it dead (no more timer or work), then - still
 * under mrc_peers_lock, which no cm handler or peer work takes, so waiting
 * in rdma_destroy_id for a running handler is safe - destroys cm ids,
 * takes each address handle off its link under peer->lock, releases it
 * (ah.c: after the sends posted with it) with its rail reference, and
 * drops the list's reference.  peer->lock (spin, BH) protects links and
 * paths; every send checks link->ah under it, so an address handle is
 * never destroyed while a sender can still take it.
 * Lock order: mrc_rails_lock -> mrc_peers_lock -> peer->lock -> QP locks.
 *
 * Messages (msg.c) ride on the paths: their sender state is under
 * peer->lock too.  Whenever a path leaves ACTIVE or is about to be
 * re-initialised or cleared, mrc_msg_path_down() hands its in-flight
 * packets back for retransmission elsewhere (under peer->lock, before the
 * path's counters change).

 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/addrconf.h>
#include <net/genetlink.h>
#include <net/route.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#include "mrc.h"
#include "peer.h"
#include "schedcfg.h"
#include "ud.h"
#include "peer_int.h"

DEFINE_MUTEX(mrc_peers_lock);	/* writers of mrc_peers */
LIST_HEAD(mrc_peers);		/* RCU */
/*
 * The same peers by node id: every received packet looks its sender up
 * here, in O(1) whatever the number of peers.  RCU readers; changed under
 * mrc_peers_lock together with mrc_peers.
 */
static DEFINE_XARRAY(mrc_peer_ids);
static unsigned int mrc_npeers;		/* under mrc_peers_lock */
u32 mrc_incarnation;			/* ours, drawn at load; never 0 */
static atomic_t mrc_peer_incs;		/* peers added since load */

/**
 * mrc_peer_inc_draw() - the incarnation a newly added peer sees of us
 *
 * Description: different for every peer object made since load
 * (peer_cm.c, "Incarnations"), and after a reload as random as
 * mrc_incarnation.
 *
 * Return: a non-zero incarnation.
 */
u32 mrc_peer_inc_draw(void)
{
	u32 inc;

	do
		inc = mrc_incarnation + atomic_inc_return(&mrc_peer_incs);
	while (!inc);
	return inc;
}

#define MRC_PEERS_MAX		1024

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
	struct mrc_peer *peer;

	rcu_read_lock();
	peer = xa_load(&mrc_peer_ids, node);
	if (peer && !kref_get_unless_zero(&peer->ref))
		peer = NULL;
	rcu_read_unlock();
	return peer;
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

/* ---- configuration ---- */

/* Whether @ss is an address of this host (init_net, where mrc's rails are). */
static bool mrc_addr_is_local(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return inet_addr_type(&init_net,
				      ((const struct sockaddr_in *)ss)->sin_addr.s_addr) ==
		       RTN_LOCAL;
#if IS_ENABLED(CONFIG_IPV6)
	if (ss->ss_family == AF_INET6)
		return ipv6_chk_addr(&init_net,
				     &((const struct sockaddr_in6 *)ss)->sin6_addr,
				     NULL, 0);
#endif
	return false;
}

/**
 * mrc_peer_add() - configure a peer (netlink)
 * @node: its node id; this node's own id makes the node its own peer
 *	(@addrs its own): its endpoints reach each other the way they reach
 *	other nodes', through the engine and the rails, whose RDMA devices
 *	loop the datagrams back (rxe does; so do NICs)
 * @addrs: one address per plane
 * @naddrs: how many
 * @key: the key shared with the peer (peer_auth.c), or NULL: the
 *	cluster's default key if one is set, else none
 * @keylen: its length
 * @extack: netlink extended ack, for the reason of a refusal
 *
 * The peer's links start resolving at once; with @key, only through
 * authenticated SIDR exchanges (peer_cm.c).
 *
 * Context: process.
 *
 * Return: 0 or -errno (with a message in @extack).
 */
int mrc_peer_add(u32 node, const struct sockaddr_storage *addrs,
		 unsigned int naddrs, const void *key, unsigned int keylen,
		 struct netlink_ext_ack *extack)
{
	struct mrc_peer *peer;
	unsigned int i;
	int err = 0;

	peer = kvzalloc(sizeof(*peer), GFP_KERNEL);
	if (!peer)
		return -ENOMEM;
	err = key ? mrc_peer_key_set(peer, key, keylen, extack) :
		    mrc_peer_key_default(peer, extack);
	if (err) {
		kvfree(peer);
		return err;
	}
	kref_init(&peer->ref);
	peer->node_id = node;
	peer->nlinks = naddrs;
	peer->rx_token = mrc_token_draw(0);	/* told in our requests */
	peer->local_inc = mrc_peer_inc_draw();	/* a new one of us */
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

	/* Under the lock: the node id cannot change meanwhile. */
	mutex_lock(&mrc_peers_lock);
	err = -EINVAL;
	if (!mrc_knob(MRC_KNOB_node_id)) {
		NL_SET_ERR_MSG(extack, "set this node's node_id first");
		goto unlock;
	}
	/* Its own peer: with addresses of its own, or it would be another's. */
	if (node == mrc_knob(MRC_KNOB_node_id))
		for (i = 0; i < naddrs; i++)
			if (!mrc_addr_is_local(&addrs[i])) {
				NL_SET_ERR_MSG(extack,
					       "our own node id takes this host's own addresses: one is not local");
				goto unlock;
			}
	if (xa_load(&mrc_peer_ids, node)) {
		NL_SET_ERR_MSG(extack, "peer already exists");
		err = -EEXIST;
		goto unlock;
	}
	if (mrc_npeers >= MRC_PEERS_MAX) {
		NL_SET_ERR_MSG(extack, "too many peers");
		err = -ENOSPC;
		goto unlock;
	}
	err = xa_insert(&mrc_peer_ids, node, peer, GFP_KERNEL);
	if (err)
		goto unlock;
	list_add_tail_rcu(&peer->node, &mrc_peers);
	mrc_npeers++;
unlock:
	mutex_unlock(&mrc_peers_lock);
	if (err) {
		mrc_peer_key_free(peer);
		kvfree(peer);
		return err;
	}
	pr_info("peer %u added (%u planes%s)\n", node, naddrs,
		peer->key ? ", keyed" : "");
	mrc_nl_peer_event(peer, MRC_CMD_PEER_ADDED);
	mrc_peer_kick(peer);
	return 0;
}

/**
 * mrc_peer_node_id_lock() - hold peer adds while this node's id changes
 * @node: the node id about to be set
 * @why: set to the reason of a refusal
 *
 * The node id may not become that of a configured peer (another node's),
 * nor change while the node is its own peer (that peer would become a
 * stranger with our addresses).  The caller sets the node_id knob and
 * then calls mrc_peer_node_id_unlock().
 *
 * Context: process; takes mrc_peers_lock.
 *
 * Return: 0 with the lock held, or (lock not held) -EEXIST when a
 * configured peer has @node as its id, -EBUSY when the node is its own
 * peer.
 */
int mrc_peer_node_id_lock(u32 node, const char **why)
{
	u32 self = mrc_knob(MRC_KNOB_node_id);

	mutex_lock(&mrc_peers_lock);
	if (self && xa_load(&mrc_peer_ids, self)) {
		mutex_unlock(&mrc_peers_lock);
		*why = "this node is its own peer: delete that peer first";
		return -EBUSY;
	}
	if (node && xa_load(&mrc_peer_ids, node)) {
		mutex_unlock(&mrc_peers_lock);
		*why = "a configured peer has that node id";
		return -EEXIST;
	}
	return 0;
}

/**
 * mrc_peer_node_id_unlock() - the node id is set: peer adds go on
 */
void mrc_peer_node_id_unlock(void)
{
	mutex_unlock(&mrc_peers_lock);
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
		struct mrc_rail *rail;
		struct ib_ah *ah;

		/*
		 * Off the link under the lock first: a SACK, NACK, GRANT,
		 * PROBE_REPLY or RAIL_DOWN sender that found the peer before
		 * it left the list checks link->ah under this lock, and may
		 * still be about to post with it.
		 */
		spin_lock_bh(&peer->lock);
		ah = link->ah;
		rail = link->rail;
		WRITE_ONCE(link->ah, NULL);
		WRITE_ONCE(link->rail, NULL);
		WRITE_ONCE(link->npaths, 0);
		spin_unlock_bh(&peer->lock);
		if (ah)
			mrc_ah_release(rail, ah);
	}
	mrc_peer_key_free(peer);	/* no handler or work uses it now */
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
	struct mrc_peer *found;

	mutex_lock(&mrc_peers_lock);
	found = xa_erase(&mrc_peer_ids, node);
	if (found) {
		list_del_rcu(&found->node);
		mrc_npeers--;
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

/* ---- debugfs ---- */

/**
 * mrc_tokens_show() - debugfs mrc/tokens (root only)
 * @m: the file
 *
 * "peer NODE tx TOKEN" per peer, TOKEN the tx_token (16 hex digits; 0:
 * not known yet).  A test hook: rogue.sh's tool forges packets as this
 * node with it to reach the checks after the token's.  Nothing else shows
 * a token (never logged).
 *
 * Return: 0.
 */
int mrc_tokens_show(struct seq_file *m)
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

/* ---- init ---- */

/**
 * mrc_peer_init() - module init: listen for SIDR requests
 *
 * Description: draws this node's incarnation, listens on the rdma_cm UDP
 * port MRC_CM_PORT.
 *
 * Return: 0 or -errno.
 */
int mrc_peer_init(void)
{
	mrc_incarnation = get_random_u32() | 1;
	return mrc_peer_cm_listen();
}

/**
 * mrc_peer_exit() - module exit: every peer is destroyed
 */
void mrc_peer_exit(void)
{
	struct mrc_peer *peer;

	mrc_peer_cm_unlisten();
	mutex_lock(&mrc_peers_lock);
	while ((peer = list_first_entry_or_null(&mrc_peers,
						struct mrc_peer, node))) {
		xa_erase(&mrc_peer_ids, peer->node_id);
		list_del_rcu(&peer->node);
		mrc_npeers--;
		mrc_peer_destroy(peer);
	}
	mutex_unlock(&mrc_peers_lock);
	mrc_key_default_set(NULL, 0, NULL);	/* zeroes its bytes */
	rcu_barrier();	/* kvfree_rcu callbacks run before the module goes */
}
