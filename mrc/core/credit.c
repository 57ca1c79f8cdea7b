// SPDX-License-Identifier: GPL-2.0
/*
 * credit.c - receiver-driven credits (kernel-agnostic): parameters and
 * names.  The receiver's grant pacer is credit_rx.c, the sender's credit
 * balance credit_tx.c.
 */
#include "credit.h"

/**
 * mrc_credit_params_default() - fill in the default credit parameters
 * @p: the parameters to set
 */
void mrc_credit_params_default(struct mrc_credit_params *p)
{
	p->rate = MRC_CREDIT_DEF_RATE;
	p->policy = MRC_CREDIT_DEF_POLICY;
	p->unsched = MRC_CREDIT_DEF_UNSCHED;
	p->grant_unit = MRC_CREDIT_DEF_GRANT_UNIT;
	p->burst = MRC_CREDIT_DEF_BURST;
	p->max_outstanding = MRC_CREDIT_DEF_MAX_OUTSTANDING;
	p->loop_mult = 0;
	p->max_msg = MRC_CREDIT_DEF_MAX_MSG;
	p->grant_timeout_ns = MRC_CREDIT_DEF_GRANT_TIMEOUT_NS;
	p->request_timeout_ns = MRC_CREDIT_DEF_REQUEST_TIMEOUT_NS;
	p->rerequest_ns = 0;
	p->stale_ns = MRC_CREDIT_DEF_STALE_NS;
}

/**
 * mrc_credit_params_check() - check credit parameters
 * @p: the parameters
 * @why: set to a static reason when @p is refused
 *
 * Return: 0 if @p is usable; else -EINVAL with *@why set.
 */
int mrc_credit_params_check(const struct mrc_credit_params *p,
			    const char **why)
{
	if (!p->rate || p->rate > MRC_CREDIT_MAX_RATE) {
		*why = "rate must be 1 .. 125e9 bytes/s";
		return -EINVAL;
	}
	if (p->policy >= MRC_CREDIT_POLICY_NR) {
		*why = "unknown policy";
		return -EINVAL;
	}
	if (!p->grant_unit) {
		*why = "grant_unit must be above 0";
		return -EINVAL;
	}
	if (p->burst < p->grant_unit) {
		*why = "burst below grant_unit";
		return -EINVAL;
	}
	if (p->max_outstanding < p->grant_unit) {
		*why = "max_outstanding below grant_unit";
		return -EINVAL;
	}
	if (p->loop_mult > MRC_CREDIT_LOOP_MULT_MAX) {
		*why = "loop_mult above 64";
		return -EINVAL;
	}
	if (!p->max_msg) {
		*why = "max_msg must be above 0";
		return -EINVAL;
	}
	if (!p->grant_timeout_ns || !p->request_timeout_ns ||
	    p->grant_timeout_ns > MRC_CREDIT_TIMEOUT_MAX_NS ||
	    p->request_timeout_ns > MRC_CREDIT_TIMEOUT_MAX_NS ||
	    p->rerequest_ns > MRC_CREDIT_TIMEOUT_MAX_NS) {
		*why = "timeouts must be 1 ns .. 4 s";
		return -EINVAL;
	}
	return 0;
}

static const char *const mrc_credit_policy_names[] = {
	[MRC_CREDIT_FAIR]	= "fair",
	[MRC_CREDIT_SRPT]	= "srpt",
};

/**
 * mrc_credit_policy_name() - the name of a grant policy
 * @policy: an enum mrc_credit_policy value
 *
 * Return: "fair", "srpt"; NULL if out of range.
 */
const char *mrc_credit_policy_name(unsigned int policy)
{
	return policy < ARRAY_SIZE(mrc_credit_policy_names) ?
	       mrc_credit_policy_names[policy] : NULL;
}
