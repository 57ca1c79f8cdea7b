// SPDX-License-Identifier: GPL-2.0
/*
 * rtt.c - per-path RTT estimator and RTO (kernel-agnostic).
 *
 * Design notes
 *
 * RFC 6298 with the usual gains (alpha 1/8, beta 1/4, K 4), computed with
 * shifts only: no division, so nothing here needs div_u64() on 32-bit
 * kernels.  Values are kept unscaled in ns; truncation loses < 8 ns per
 * step, far below the clock's real resolution, so Linux TCP's "srtt << 3"
 * fixed point buys nothing here.  Intermediates are u64: with every input
 * capped at MRC_RTT_MAX_NS (~2^30) nothing can overflow.
 *
 * The RTO is not stored: it is computed from srtt/rttvar and the current
 * parameters on every call, so a knob change applies at once.
 *
 * A timeout doubles the RTO (up to max_backoff times, never above
 * rto_max); a valid sample ends the backoff, as RFC 6298 5.7 allows once
 * an ambiguity-free sample arrives (ours always are: see rtt.h).
 */
#include "rtt.h"

/**
 * mrc_rtt_params_default() - fill in the default estimator parameters
 * @p: the parameters to set (MRC_RTT_DEF_*, see rtt.h)
 */
void mrc_rtt_params_default(struct mrc_rtt_params *p)
{
	p->rto_init_ns = MRC_RTT_DEF_RTO_INIT_NS;
	p->rto_min_ns = MRC_RTT_DEF_RTO_MIN_NS;
	p->rto_max_ns = MRC_RTT_DEF_RTO_MAX_NS;
	p->var_floor_ns = MRC_RTT_DEF_VAR_FLOOR_NS;
	p->max_backoff = MRC_RTT_DEF_MAX_BACKOFF;
}

/**
 * mrc_rtt_params_check() - check estimator parameters
 * @p: the parameters
 * @why: set to a static reason when @p is refused
 *
 * Return: 0 if @p is usable; else -EINVAL with *@why set.
 */
int mrc_rtt_params_check(const struct mrc_rtt_params *p, const char **why)
{
	if (!p->rto_min_ns) {
		*why = "rto_min must be above 0";
		return -EINVAL;
	}
	if (p->rto_max_ns > MRC_RTT_RTO_LIMIT_NS) {
		*why = "rto_max above 4 s";
		return -EINVAL;
	}
	if (p->rto_min_ns > p->rto_max_ns) {
		*why = "rto_min above rto_max";
		return -EINVAL;
	}
	if (p->rto_init_ns < p->rto_min_ns || p->rto_init_ns > p->rto_max_ns) {
		*why = "rto_init outside [rto_min, rto_max]";
		return -EINVAL;
	}
	if (p->var_floor_ns > p->rto_max_ns) {
		*why = "var_floor above rto_max";
		return -EINVAL;
	}
	if (p->max_backoff > MRC_RTT_BACKOFF_LIMIT) {
		*why = "max_backoff above 16";
		return -EINVAL;
	}
	return 0;
}

/**
 * mrc_rtt_init() - reset an estimator to "no sample yet"
 * @r: the estimator (all-zero afterwards)
 */
void mrc_rtt_init(struct mrc_rtt *r)
{
	memset(r, 0, sizeof(*r));
}

/**
 * mrc_rtt_update() - take one RTT sample
 * @r: the estimator
 * @rtt_ns: the sample, ns
 *
 * Updates srtt/rttvar (alpha 1/8, beta 1/4; the first sample sets
 * srtt = R, rttvar = R/2) and clears the backoff.
 *
 * Return: 0, or -ERANGE (sample above MRC_RTT_MAX_NS: a corrupt echo or a
 * reply too stale to mean anything) leaving @r untouched.
 */
int mrc_rtt_update(struct mrc_rtt *r, u64 rtt_ns)
{
	u64 srtt = r->srtt_ns, var = r->rttvar_ns, err;

	if (rtt_ns > MRC_RTT_MAX_NS)
		return -ERANGE;

	if (!r->samples) {
		srtt = rtt_ns;
		var = rtt_ns >> 1;
		r->min_ns = (u32)rtt_ns;
	} else {
		/* rttvar first, from the old srtt (RFC 6298 2.3). */
		err = srtt > rtt_ns ? srtt - rtt_ns : rtt_ns - srtt;
		var = (3 * var + err) >> 2;
		if (rtt_ns >= srtt)
			srtt += (rtt_ns - srtt) >> 3;
		else
			srtt -= (srtt - rtt_ns) >> 3;
		if (rtt_ns < r->min_ns)
			r->min_ns = (u32)rtt_ns;
	}
	r->srtt_ns = (u32)srtt;
	r->rttvar_ns = (u32)var;
	r->last_ns = (u32)rtt_ns;
	if (r->samples != U32_MAX)
		r->samples++;
	r->backoff = 0;
	return 0;
}

/**
 * mrc_rtt_update_idle() - take one RTT sample of a path that carried nothing
 * @r: the estimator
 * @rtt_ns: the sample, ns (a keepalive's or a probe's reply)
 *
 * As mrc_rtt_update(), except that a sample under half of srtt sets srtt
 * to it.  A path that carries traffic is sampled by every ACK and its
 * EWMA follows a drop within a round trip or two; an idle one is sampled
 * only at its keepalive, so a delay it had and lost (a queue drained, a
 * detour ended) would stay in its srtt for seconds, and the scheduler,
 * which weighs paths by min(srtt, latest sample) (sched.h, R_i), would
 * give it traffic back only on lucky samples.  rttvar takes the drop as
 * usual, so the RTO stays clear of the noise.
 *
 * Return: mrc_rtt_update()'s result.
 */
int mrc_rtt_update_idle(struct mrc_rtt *r, u64 rtt_ns)
{
	u32 srtt = r->srtt_ns;
	int err;

	err = mrc_rtt_update(r, rtt_ns);
	if (!err && r->samples > 1 && rtt_ns < srtt >> 1)
		r->srtt_ns = (u32)rtt_ns;
	return err;
}

/**
 * mrc_rtt_sample() - take the sample of an answered packet
 * @r: the estimator
 * @now_ns: when the answer came (the caller's clock)
 * @sent_ns: when the packet was sent (its echoed timestamp)
 * @idle: the packet was a probe of a path that carried nothing
 *	(mrc_rtt_update_idle())
 *
 * Return: mrc_rtt_update()'s result, or -EINVAL if @sent_ns is later than
 * @now_ns (an echo we never sent), leaving @r untouched.
 */
int mrc_rtt_sample(struct mrc_rtt *r, u64 now_ns, u64 sent_ns, bool idle)
{
	if (sent_ns > now_ns)
		return -EINVAL;
	if (idle)
		return mrc_rtt_update_idle(r, now_ns - sent_ns);
	return mrc_rtt_update(r, now_ns - sent_ns);
}

/**
 * mrc_rtt_rto() - the retransmission timeout to arm now
 * @r: the estimator
 * @p: the parameters
 *
 * Return: the RTO in ns: clamp(srtt + max(4 * rttvar, var_floor),
 * rto_min, rto_max) (rto_init before any sample), doubled once per
 * timeout up to max_backoff times, never above rto_max.
 */
u64 mrc_rtt_rto(const struct mrc_rtt *r, const struct mrc_rtt_params *p)
{
	u64 rto;
	u32 shift;

	if (r->samples)
		rto = (u64)r->srtt_ns +
		      max_t(u64, 4 * (u64)r->rttvar_ns, p->var_floor_ns);
	else
		rto = p->rto_init_ns;
	rto = max_t(u64, rto, p->rto_min_ns);
	rto = min_t(u64, rto, p->rto_max_ns);

	/* rto <= 2^32 and shift <= 16: no overflow. */
	shift = min(r->backoff, p->max_backoff);
	shift = min_t(u32, shift, MRC_RTT_BACKOFF_LIMIT);
	return min_t(u64, rto << shift, p->rto_max_ns);
}

/**
 * mrc_rtt_timeout() - a timeout fired: back the RTO off
 * @r: the estimator
 * @p: the parameters
 *
 * Return: the new mrc_rtt_rto().
 */
u64 mrc_rtt_timeout(struct mrc_rtt *r, const struct mrc_rtt_params *p)
{
	if (r->backoff < MRC_RTT_BACKOFF_LIMIT)
		r->backoff++;
	return mrc_rtt_rto(r, p);
}
