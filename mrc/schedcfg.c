// SPDX-License-Identifier: GPL-2.0
/*
 * schedcfg.c - module-wide path scheduling configuration.
 *
 * Design notes
 *
 * One struct mrc_sched_params (sched.h) holds the per-rail weights and
 * the rail set of each traffic class; netlink (CLASS_SET, RAIL_SET) and
 * sysfs (rails/<name>/weight) change it, every change is validated as a
 * whole by mrc_sched_params_check() before it is applied, so the data
 * path never sees a configuration sched.c would refuse.  The data path
 * (msg.c, under peer->lock) copies it once per tx_work run: a change
 * applies from the next run on, and since the per-path inflight counts
 * do not depend on the policy, weights or classes (sched.h), a change
 * with packets in flight cannot unbalance them.
 *
 * Rail ids are reused after a rail goes (rail.c's IDA): when the last
 * reference of a rail drops, its weight goes back to the default and it
 * leaves every class's set (mrc_schedcfg_rail_gone()), so a new rail
 * never inherits an old one's place.  A class whose set becomes empty
 * that way falls back to every rail (sched.c), and says so (event).
 *
 * Counters: DATA packets sent per (rail id, class), for the isolation
 * tests and operators (debugfs mrc/sched); rails with ids at or above
 * MRC_SCHED_MAX_RAILS are counted in the last row.
 *
 * Locking: mrc_schedcfg_lock (BH spin) guards mrc_schedcfg; it is taken
 * inside peer->lock (innermost: nothing is called under it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/seq_file.h>
#include <linux/spinlock.h>

#include "mrc.h"
#include "schedcfg.h"

static DEFINE_SPINLOCK(mrc_schedcfg_lock);
static struct mrc_sched_params mrc_schedcfg;	/* under the lock */
static atomic64_t mrc_schedcfg_tx[MRC_SCHED_MAX_RAILS][MRC_SCHED_CLASS_NR];
/* Per policy tag: [0] sent, [1 + enum mrc_path_done] acked/lost/released */
static atomic64_t mrc_schedcfg_pol[MRC_SCHED_POLICY_NR][1 + MRC_PATH_DONE_NR];

static_assert((int)MRC_SCHED_ROUND_ROBIN ==
	      (int)MRC_SCHED_POLICY_ROUND_ROBIN);
static_assert((int)MRC_SCHED_MIN_INFLIGHT ==
	      (int)MRC_SCHED_POLICY_MIN_INFLIGHT);
static_assert((int)MRC_SCHED_MIN_LATENCY ==
	      (int)MRC_SCHED_POLICY_MIN_LATENCY);
static_assert((int)MRC_SCHED_LOAD_AWARE ==
	      (int)MRC_SCHED_POLICY_LOAD_AWARE);
static_assert((int)MRC_SCHED_CLASS_LATENCY ==
	      (int)MRC_CLASS_LATENCY);
static_assert((int)MRC_SCHED_CLASS_BULK ==
	      (int)MRC_CLASS_BULK);
static_assert((int)MRC_SCHED_CLASS_BACKGROUND ==
	      (int)MRC_CLASS_BACKGROUND);

/**
 * mrc_schedcfg_params() - the scheduling parameters for one push
 * @sp: filled with a copy of the weights and classes and the policy
 * @peer_policy: the peer's policy, or MRC_SCHEDCFG_POLICY_GLOBAL for the
 *	sched_policy knob
 */
void mrc_schedcfg_params(struct mrc_sched_params *sp, u8 peer_policy)
{
	spin_lock_bh(&mrc_schedcfg_lock);
	*sp = mrc_schedcfg;
	spin_unlock_bh(&mrc_schedcfg_lock);
	sp->policy = peer_policy < MRC_SCHED_POLICY_NR ? peer_policy :
		     mrc_knob(MRC_KNOB_sched_policy);
	/*
	 * A class whose rails still have live paths (assumed bad after a
	 * loss or a timeout, probed) waits a quarter of the peer_timeout_ms
	 * knob (750 ms by default, at most 4 s) for one of them to answer
	 * before it falls back (sched.h); a loaded rail answers far sooner
	 * (figures: "Timer defaults" in Documentation/mrc/design-decisions.rst).
	 * Exploration (sched.h) only for paths that their keepalive (a
	 * probe every probe_ms on an idle ACTIVE path, which refreshes the
	 * RTT) has not refreshed for two intervals: 500 ms by default.
	 * Data sent to measure a path that probes already measure only
	 * waits on it (what the library's 50 ms cost a request/response:
	 * Documentation/mrc/sched.rst).
	 */
	mrc_sched_params_knobs(sp, mrc_knob(MRC_KNOB_peer_timeout_ms),
			       mrc_knob(MRC_KNOB_probe_ms));
}

/**
 * mrc_schedcfg_class() - the rail set of a class
 * @cls: the class
 *
 * Return: the rail set of @cls (a bit per rail id; MRC_SCHED_RAILS_ALL =
 * all), or 0 for a class out of range.
 */
u64 mrc_schedcfg_class(u32 cls)
{
	u64 m;

	if (cls >= MRC_SCHED_CLASS_NR)
		return 0;
	spin_lock_bh(&mrc_schedcfg_lock);
	m = mrc_schedcfg.class_rails[cls];
	spin_unlock_bh(&mrc_schedcfg_lock);
	return m;
}

/* Applies @sp if sched.c accepts it.  Under the lock. */
static int mrc_schedcfg_apply(const struct mrc_sched_params *sp,
			      const char **why)
{
	int err;

	lockdep_assert_held(&mrc_schedcfg_lock);
	err = mrc_sched_params_check(sp, why);
	if (!err)
		mrc_schedcfg = *sp;
	return err;
}

/**
 * mrc_schedcfg_set_class() - set the rail set of a class
 * @cls: the class
 * @rails: its rail set (a bit per rail id); the caller checked the rails
 * @why: set to a static reason on error
 *
 * Return: 0, or -EINVAL with *@why set (class out of range, empty set, or
 * a set whose rails all have weight 0).
 */
int mrc_schedcfg_set_class(u32 cls, u64 rails, const char **why)
{
	struct mrc_sched_params sp;
	int err;

	if (cls >= MRC_SCHED_CLASS_NR) {
		*why = "unknown traffic class";
		return -EINVAL;
	}
	spin_lock_bh(&mrc_schedcfg_lock);
	sp = mrc_schedcfg;
	sp.class_rails[cls] = rails;
	err = mrc_schedcfg_apply(&sp, why);
	spin_unlock_bh(&mrc_schedcfg_lock);
	return err;
}

/**
 * mrc_schedcfg_weight() - the weight of a rail
 * @id: the rail id
 *
 * Return: the weight of rail @id (ids >= MRC_SCHED_MAX_RAILS: the
 * default).
 */
u32 mrc_schedcfg_weight(u32 id)
{
	u32 w;

	if (id >= MRC_SCHED_MAX_RAILS)
		return MRC_SCHED_WEIGHT_DEF;
	spin_lock_bh(&mrc_schedcfg_lock);
	w = mrc_schedcfg.weight[id];
	spin_unlock_bh(&mrc_schedcfg_lock);
	return w;
}

/**
 * mrc_schedcfg_set_weight() - set the weight of a rail
 * @id: the rail id
 * @weight: 0..100
 * @why: set to a static reason on error
 *
 * Return: 0, or -EINVAL / -ERANGE with *@why set: above 100, rail id too
 * large to weigh, or it would leave a class only rails of weight 0.
 */
int mrc_schedcfg_set_weight(u32 id, u32 weight, const char **why)
{
	struct mrc_sched_params sp;
	int err;

	if (weight > MRC_SCHED_WEIGHT_MAX) {
		*why = "rail weight above 100";
		return -ERANGE;
	}
	if (id >= MRC_SCHED_MAX_RAILS) {
		*why = "rail id above 63: its weight cannot be changed";
		return -EINVAL;
	}
	spin_lock_bh(&mrc_schedcfg_lock);
	sp = mrc_schedcfg;
	sp.weight[id] = weight;
	err = mrc_schedcfg_apply(&sp, why);
	spin_unlock_bh(&mrc_schedcfg_lock);
	return err;
}

/**
 * mrc_schedcfg_rail_gone() - forget a rail that is gone
 * @id: the rail id
 *
 * The rail gets the default weight, leaves every class's set and its
 * counters are cleared, before its id can be reused.
 */
void mrc_schedcfg_rail_gone(u32 id)
{
	unsigned int c;

	if (id >= MRC_SCHED_MAX_RAILS)
		return;
	spin_lock_bh(&mrc_schedcfg_lock);
	mrc_schedcfg.weight[id] = MRC_SCHED_WEIGHT_DEF;
	/*
	 * Not through mrc_sched_params_check(): a set may become empty
	 * (the class then falls back to every rail, sched.c).
	 */
	for (c = 0; c < MRC_SCHED_CLASS_NR; c++)
		if (mrc_schedcfg.class_rails[c] != MRC_SCHED_RAILS_ALL)
			mrc_schedcfg.class_rails[c] &= ~BIT_ULL(id);
	spin_unlock_bh(&mrc_schedcfg_lock);
	for (c = 0; c < MRC_SCHED_CLASS_NR; c++)
		atomic64_set(&mrc_schedcfg_tx[id][c], 0);
}

/**
 * mrc_schedcfg_count_done() - count a packet that left its path's inflight
 * @tag: the policy that chose its path (its tag)
 * @how: why it left (enum mrc_path_done)
 *
 * Per policy, at rest: sent == acked + lost + released.
 */
void mrc_schedcfg_count_done(u32 tag, u32 how)
{
	if (tag < MRC_SCHED_POLICY_NR && how < MRC_PATH_DONE_NR)
		atomic64_inc(&mrc_schedcfg_pol[tag][1 + how]);
}

/**
 * mrc_schedcfg_count_tx() - count a DATA packet sent
 * @id: the rail it was sent on
 * @cls: its class
 * @policy: the policy that chose its path (its tag)
 *
 * Per policy, at rest: sent == acked + lost + released
 * (mrc_schedcfg_count_done()).
 */
void mrc_schedcfg_count_tx(u32 id, u32 cls, u32 policy)
{
	if (policy < MRC_SCHED_POLICY_NR)
		atomic64_inc(&mrc_schedcfg_pol[policy][0]);
	if (cls >= MRC_SCHED_CLASS_NR)
		return;
	if (id >= MRC_SCHED_MAX_RAILS)
		id = MRC_SCHED_MAX_RAILS - 1;
	atomic64_inc(&mrc_schedcfg_tx[id][cls]);
}

/**
 * mrc_schedcfg_show() - debugfs mrc/sched
 * @s: the file
 *
 * One line per rail id that has a weight other than
 * the default, a class, or traffic:
 *   rail <id> weight <w> tx_default <n> tx_latency <n> tx_bulk <n>
 *   tx_background <n>
 * then one line per class: class <name> rails <hex mask | all>.
 * Before those: "policy <knob>", and one line per policy tag:
 *   tag <policy> sent <n> acked <n> lost <n> released <n>
 *
 * Return: 0.
 */
int mrc_schedcfg_show(struct seq_file *s)
{
	struct mrc_sched_params sp;
	unsigned int r, c;

	mrc_schedcfg_params(&sp, MRC_SCHEDCFG_POLICY_GLOBAL);
	seq_printf(s, "policy %s\n", mrc_sched_policy_name(sp.policy));
	for (c = 0; c < MRC_SCHED_POLICY_NR; c++)
		seq_printf(s, "tag %s sent %lld acked %lld lost %lld released %lld\n",
			   mrc_sched_policy_name(c),
			   atomic64_read(&mrc_schedcfg_pol[c][0]),
			   atomic64_read(&mrc_schedcfg_pol[c][1]),
			   atomic64_read(&mrc_schedcfg_pol[c][2]),
			   atomic64_read(&mrc_schedcfg_pol[c][3]));
	for (r = 0; r < MRC_SCHED_MAX_RAILS; r++) {
		u64 n[MRC_SCHED_CLASS_NR], any = 0;

		for (c = 0; c < MRC_SCHED_CLASS_NR; c++) {
			n[c] = atomic64_read(&mrc_schedcfg_tx[r][c]);
			any |= n[c];
		}
		if (!any && sp.weight[r] == MRC_SCHED_WEIGHT_DEF)
			continue;
		seq_printf(s, "rail %u weight %u", r, sp.weight[r]);
		for (c = 0; c < MRC_SCHED_CLASS_NR; c++)
			seq_printf(s, " tx_%s %llu", mrc_sched_class_name(c),
				   n[c]);
		seq_putc(s, '\n');
	}
	for (c = 0; c < MRC_SCHED_CLASS_NR; c++) {
		if (sp.class_rails[c] == MRC_SCHED_RAILS_ALL)
			seq_printf(s, "class %s rails all\n",
				   mrc_sched_class_name(c));
		else
			seq_printf(s, "class %s rails 0x%llx\n",
				   mrc_sched_class_name(c), sp.class_rails[c]);
	}
	return 0;
}

/**
 * mrc_schedcfg_init() - module init: the default configuration
 *
 * Return: 0.
 */
int mrc_schedcfg_init(void)
{
	spin_lock_bh(&mrc_schedcfg_lock);
	mrc_sched_params_default(&mrc_schedcfg);
	spin_unlock_bh(&mrc_schedcfg_lock);
	return 0;
}
