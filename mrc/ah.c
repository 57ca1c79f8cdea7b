// SPDX-License-Identifier: GPL-2.0
/*
 * ah.c - the address handles of the peers' links: made on a listed rail,
 * destroyed only after the sends that may carry them, and always before
 * the rail's protection domain.
 *
 * Design notes
 *
 * An AH lives on its rail's PD (rail->ud).  Three things must hold:
 *
 * 1. No AH is made on a rail that is going away.  A rail leaves
 *    mrc_rails under mrc_rails_lock before mrc_ib_remove() lets go of
 *    the links on it (mrc_peers_rail_removed()); mrc_ah_create() runs
 *    under that lock on a listed rail, and its caller attaches the AH to
 *    a link before dropping the lock, so the removal either finds the
 *    link or the rdma_cm handler does not find the rail.
 * 2. No AH is destroyed while a posted send may still refer to it: the
 *    caller first unlinks it under peer->lock (no new send takes it, every
 *    sender checks link->ah under that lock), then mrc_ah_release() waits
 *    for the sends already posted on the rail (mrc_ud_tx_fence()).
 * 3. No PD goes before its AHs: an AH being released is no longer on any
 *    link, so the removal cannot see it; rail->nah counts every AH from
 *    mrc_ah_create() to the end of mrc_ah_release(), and mrc_ib_remove()
 *    waits for it to drop to zero (mrc_ah_wait_all()) before destroying
 *    the rail's QPs and PD.
 *
 * Each AH also holds a reference to its rail's kobject (link->rail).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/wait_bit.h>
#include <rdma/ib_verbs.h>

#include "mrc.h"
#include "ud.h"

/**
 * mrc_ah_create() - make an address handle on a listed rail
 * @rail: the rail, on mrc_rails, with QPs (rail->ud)
 * @attr: the destination
 *
 * Takes a reference to @rail for the AH; mrc_ah_release() drops it.
 *
 * Context: process, mrc_rails_lock held until the AH is on a link.
 *
 * Return: the AH, or an ERR_PTR().
 */
struct ib_ah *mrc_ah_create(struct mrc_rail *rail, struct rdma_ah_attr *attr)
{
	struct ib_ah *ah;

	lockdep_assert_held(&mrc_rails_lock);
	if (WARN_ON_ONCE(list_empty(&rail->node) || !rail->ud))
		return ERR_PTR(-ENODEV);
	ah = rdma_create_ah(rail->ud->pd, attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return ah;
	atomic_inc(&rail->nah);
	kobject_get(&rail->kobj);
	return ah;
}

/**
 * mrc_ah_release() - destroy an unlinked address handle
 * @rail: its rail (mrc_ah_create()'s)
 * @ah: the AH, on no link any more (taken off under peer->lock)
 *
 * Waits for the sends posted on the rail so far, which may carry @ah,
 * destroys it and drops its rail reference.
 *
 * Context: process, no spinlock held; sleeps.
 */
void mrc_ah_release(struct mrc_rail *rail, struct ib_ah *ah)
{
	mrc_ud_tx_fence(rail->ud);	/* alive: rail->nah holds it */
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	/* wake_up_var() does not touch the rail, which we still hold. */
	if (atomic_dec_and_test(&rail->nah))
		wake_up_var(&rail->nah);
	kobject_put(&rail->kobj);
}

/**
 * mrc_ah_wait_all() - wait until every AH of a removed rail is destroyed
 * @rail: the rail, off mrc_rails, its links let go
 *
 * Context: process; sleeps (each pending release waits for its rail's
 * posted sends, which the provider completes).
 */
void mrc_ah_wait_all(struct mrc_rail *rail)
{
	WARN_ON_ONCE(!list_empty(&rail->node));
	wait_var_event(&rail->nah, !atomic_read(&rail->nah));
}
