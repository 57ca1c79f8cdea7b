/* SPDX-License-Identifier: GPL-2.0 */
/*
 * peer_int.h - what the peer files (peer.c, peer_cm.c, peer_probe.c,
 * netlink_peer.c) share; internal to them.  The peers' interface is
 * peer.h.
 */
#ifndef _MRC_PEER_INT_H
#define _MRC_PEER_INT_H

#include <linux/mutex.h>

#include "peer.h"

extern struct mutex mrc_peers_lock;	/* writers of mrc_peers */
extern struct list_head mrc_peers;	/* RCU */
extern u32 mrc_incarnation;		/* ours, drawn at load; never 0 */
u32 mrc_peer_inc_draw(void);

/* peer_cm.c */
void mrc_peer_kick(struct mrc_peer *peer);
u64 mrc_token_draw(u64 old);
void mrc_peer_workfn(struct work_struct *work);
void mrc_peer_retry_fn(struct work_struct *work);
int mrc_peer_cm_listen(void);
void mrc_peer_cm_unlisten(void);

/* peer_auth.c */
int mrc_peer_key_set(struct mrc_peer *peer, const void *key,
		     unsigned int len, struct netlink_ext_ack *extack);
void mrc_peer_key_free(struct mrc_peer *peer);
int mrc_peer_key_default(struct mrc_peer *peer,
			 struct netlink_ext_ack *extack);
int mrc_cm_sign(struct crypto_shash *key, u8 *cm);
bool mrc_cm_mac_ok(struct crypto_shash *key, const u8 *cm);

/* peer_probe.c */
void mrc_peer_path_params(struct mrc_path_params *pp);
void mrc_peer_arm(struct mrc_peer *peer);
enum hrtimer_restart mrc_peer_timer(struct hrtimer *t);

#endif /* _MRC_PEER_INT_H */
