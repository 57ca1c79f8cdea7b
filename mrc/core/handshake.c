// SPDX-License-Identifier: GPL-2.0
/*
 * handshake.c - when an authenticated SIDR request may change a peer's
 * state (handshake.h).  Kernel-agnostic.
 */
#include "handshake.h"

/**
 * mrc_cm_request_fresh() - may this authenticated request change state?
 * @mark: the highest ts taken from the peer so far (0: none)
 * @ts: the request's ts (the sender's CLOCK_REALTIME, ns)
 * @now: our CLOCK_REALTIME, ns
 *
 * Only for a request whose MAC was checked: without one, ts is whatever
 * the sender chose.  The caller raises @mark to @ts when it takes the
 * request.
 *
 * Return: MRC_CM_EXPIRED if @ts is more than MRC_CM_MAX_SKEW_NS away from
 * @now (either way), else MRC_CM_OLD if @ts is not above @mark, else
 * MRC_CM_TAKE.
 */
enum mrc_cm_fresh mrc_cm_request_fresh(u64 mark, u64 ts, u64 now)
{
	u64 dist = ts > now ? ts - now : now - ts;

	if (dist > MRC_CM_MAX_SKEW_NS)
		return MRC_CM_EXPIRED;
	if (ts <= mark)
		return MRC_CM_OLD;
	return MRC_CM_TAKE;
}
