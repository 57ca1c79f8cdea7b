/* SPDX-License-Identifier: GPL-2.0 */
/*
 * handshake.h - the rules of the authenticated SIDR handshake (wire
 * version 4) that need no crypto and no kernel: how long a key is, and
 * when a request that passed its MAC check may change a peer's state.
 * Kernel-agnostic.  The private data's layout and codec are in wire.h;
 * the MAC is computed by the kernel glue (mrc/peer_auth.c).
 *
 * Why a timestamp and a high-water mark.  A SIDR request is answered in
 * one round trip, so the receiver cannot hand the sender a challenge
 * first; a recorded request with a valid MAC stays valid.  Every request
 * therefore carries its sender's CLOCK_REALTIME (ts), and the receiver
 * keeps, per peer, the highest ts of a request it took from that peer.
 * A request is taken (may change state)
 * only if its ts is above that mark: a replay, or a request overtaken by
 * a later one, is answered (its sender's link may need the reply) but
 * changes nothing.  The mark is per peer and lives as long as the peer's
 * configuration; a peer added again, or this node restarted, starts with
 * no mark, so a request is also refused when its ts is further than
 * MRC_CM_MAX_SKEW_NS from this node's clock: a recorded request can be
 * replayed into fresh state only within that window, and then only as
 * what the peer said within it.  The sender's clock need not be
 * monotonic across its restarts for its new incarnation to be taken, but
 * it must not step back past the last request we took from it.
 * Documentation/mrc/protocol.rst, "Keys".
 */
#ifndef _MRC_HANDSHAKE_H
#define _MRC_HANDSHAKE_H

#include "compat.h"

/* An operator's key: 16 to 64 bytes (HMAC-SHA256 takes up to its block). */
#define MRC_KEY_MIN_LEN		16
#define MRC_KEY_MAX_LEN		64

/* How far a request's ts may be from our clock (either way), ns. */
#define MRC_CM_MAX_SKEW_NS	(60ULL * 1000000000ULL)

/* What mrc_cm_request_fresh() decides. */
enum mrc_cm_fresh {
	MRC_CM_TAKE	= 0,	/* newer than any taken: may change state */
	MRC_CM_OLD	= 1,	/* in the window, not newer: answer only */
	MRC_CM_EXPIRED	= 2,	/* outside the window: refuse */
};

enum mrc_cm_fresh mrc_cm_request_fresh(u64 mark, u64 ts, u64 now);

#endif /* _MRC_HANDSHAKE_H */
