/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peer.h - peers, their links (one per plane) and paths (one per entropy
 * value of a link).  See peer.c for the design notes.
 */
#ifndef _MRC_PEER_H
#define _MRC_PEER_H

#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/socket.h>
#include <rdma/rdma_cm.h>

#include "credit_peer.h"
#include "msg.h"
#include "core/path.h"
#include "core/wire.h"

struct mrc_peer;
struct mrc_rail;

/* One path: local QP ev of the link's rail <-> remote QP ev. */
struct mrc_peer_path {
	struct mrc_path p;		/* state machine, under peer->lock */
	u32 remote_qpn;			/* valid while link->ah */
};

/* One plane of a peer: a local rail and the peer's address on it. */
struct mrc_peer_link {
	struct mrc_peer *peer;
	unsigned int plane;
	struct sockaddr_storage dst;	/* the peer's address, port set */

	/*
	 * Resolution: the link's rdma_cm id, created and destroyed only by
	 * peer->work (never in the cm handler), under peer->lock for the
	 * pointer.  cm_result is set by the handler: 0 in progress, 1 done,
	 * <0 failed.
	 */
	struct rdma_cm_id *cm_id;
	int cm_result;
	u64 retry_ns;			/* next resolution attempt */

	/*
	 * Under peer->lock; ah/rail set together, cleared together.  The
	 * receive path's path check (msg_rx.c mrc_msg_rx_peer()) reads ah,
	 * rail, npaths and the paths' remote_qpn without the lock, so their
	 * writers use WRITE_ONCE().
	 */
	struct ib_ah *ah;
	struct mrc_rail *rail;		/* kobject reference held */
	u32 remote_rail_id;
	bool stale;			/* resolved before the peer restarted:
					 * peer->work re-resolves it; under
					 * peer->lock
					 */
	unsigned int npaths;		/* min(local, remote QPs) */
	bool token_due;			/* the peer must hear our rx_token in
					 * a request filled after this was
					 * set; under peer->lock
					 */
	u64 cm_nonce;			/* of our request in flight: its reply
					 * must echo it; under peer->lock
					 */
	u64 rd_ts;			/* header tstamp (the peer's clock) of
					 * the last RAIL_DOWN taken for this
					 * link's remote rail; a later one
					 * must be newer.  0 when the peer
					 * restarts; under peer->lock
					 */
	struct mrc_peer_path paths[MRC_CM_MAX_QPS];
};

struct mrc_peer {
	struct list_head node;		/* on mrc_peers (RCU, writers under
					 * mrc_peers_lock)
					 */
	struct rcu_head rcu;
	struct kref ref;
	u32 node_id;
	unsigned int nlinks;

	spinlock_t lock;		/* links' paths, ah, rail, cm_id */
	bool dead;			/* being removed: no new work/timer */
	struct hrtimer timer;		/* next path deadline (softirq) */
	struct work_struct work;	/* resolution and cleanup, sleeps */
	struct delayed_work retry;	/* queues work when a retry is due */

	struct mrc_msg_peer mp;		/* message engine (core/msg.h) */
	struct mrc_msg_kpeer mk;	/* its kernel binding (msg.c) */
	u32 remote_inc;			/* peer's incarnation, 0 = unknown;
					 * under lock
					 */
	u32 local_inc;			/* the incarnation this peer sees of
					 * us (peer_cm.c "Incarnations"); set
					 * at add, never 0, constant
					 */
	/*
	 * Path authentication (wire version 3, peer.c "Tokens"), written
	 * under lock (rx_token with WRITE_ONCE(): the receive path reads it
	 * without the lock, mrc_peer_token_ok()): rx_token is the random
	 * secret this node expects in every packet from the peer (never 0;
	 * drawn again when the peer restarts), tx_token the one the peer
	 * expects from us, learned from its SIDR requests (0: not known; no
	 * PROBE goes out).
	 * Secrets: never logged; debugfs mrc/tokens (root only) shows
	 * tx_token as a test hook.
	 */
	u64 rx_token;
	u64 tx_token;
	/*
	 * The key shared with the peer (peer_auth.c): HMAC-SHA256 keyed at
	 * peer add, NULL without a key; set before the peer is published and
	 * never changed, so read without a lock; freed at destroy.  cm_ts,
	 * under lock: the highest ts (the peer's clock) of an authenticated
	 * request taken from it (core/handshake.h).
	 */
	struct crypto_shash *key;
	u64 cm_ts;
	struct mrc_credit_peer credit;	/* credits (credit_peer.c; locking
					 * there)
					 */

	struct mrc_peer_link links[MRC_PEER_MAX_ADDRS];
};

int mrc_peer_init(void);
void mrc_peer_exit(void);

/* debugfs mrc/tokens (debugfs.c). */
struct seq_file;
int mrc_tokens_show(struct seq_file *m);
int mrc_cm_request_show(struct seq_file *m);

/* Netlink handlers' helpers (netlink.c). */
int mrc_peer_add(u32 node, const struct sockaddr_storage *addrs,
		 unsigned int naddrs, const void *key, unsigned int keylen,
		 struct netlink_ext_ack *extack);
int mrc_peer_del(u32 node, struct netlink_ext_ack *extack);
/*
 * Setting the node_id knob (main.c): never a configured peer's id, nor
 * while the node is its own peer.
 */
int mrc_peer_node_id_lock(u32 node, const char **why);
void mrc_peer_node_id_unlock(void);
/* The cluster's default key (peer_auth.c). */
int mrc_key_default_set(const void *key, unsigned int len,
			struct netlink_ext_ack *extack);
bool mrc_key_default_isset(void);
struct mrc_peer *mrc_peer_get(u32 node);
void mrc_peer_put(struct mrc_peer *peer);
int mrc_peer_fill(struct sk_buff *skb, struct mrc_peer *peer);
int mrc_peer_fill_path(struct sk_buff *skb, struct mrc_peer_link *link,
		       unsigned int i, int prev);
struct mrc_peer *mrc_peer_get_nth(unsigned long idx);

void mrc_peers_rail_changed(struct mrc_rail *rail, bool active);
unsigned int mrc_peers_rail_removed(struct mrc_rail *rail);

/*
 * Does @pkt carry the token this node gave @peer?  Called right after the
 * peer lookup, before anything else looks at the packet, without
 * peer->lock: rx_token is one 64-bit word written with WRITE_ONCE() under
 * the lock, so a packet racing a new token is judged by the old or the
 * new one, as if it had come a moment earlier or later.  A plain compare:
 * one word has no data-dependent timing to leak a prefix through
 * (crypto_memneq() guards byte-wise compares), and rx_token is never 0,
 * so a packet from a sender that does not know it yet never passes.
 */
static inline bool mrc_peer_token_ok(const struct mrc_peer *peer,
				     const struct mrc_pkt *pkt)
{
	return pkt->token == READ_ONCE(peer->rx_token);
}

struct mrc_ud_qp;
enum mrc_drop_reason mrc_peer_rx_ctl(struct mrc_ud_qp *uqp, u32 src_qp,
				     const struct mrc_pkt *pkt);

#endif /* _MRC_PEER_H */
