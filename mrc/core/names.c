// SPDX-License-Identifier: GPL-2.0
/*
 * names.c - printable names of uapi enums (kernel-agnostic).
 */
#include "../../uapi/linux/mrc.h"
#include "names.h"
#include "sched.h"

static const char * const mrc_rail_state_names[] = {
	[MRC_RAIL_STATE_DOWN]		= "down",
	[MRC_RAIL_STATE_ACTIVE]		= "active",
	[MRC_RAIL_STATE_NO_GID]		= "no-gid",
	[MRC_RAIL_STATE_MTU_LOW]	= "mtu-low",
	[MRC_RAIL_STATE_ERROR]		= "error",
};

static const char * const mrc_link_layer_names[] = {
	[MRC_LINK_LAYER_UNSPEC]		= "unknown",
	[MRC_LINK_LAYER_ETHERNET]	= "ethernet",
	[MRC_LINK_LAYER_INFINIBAND]	= "infiniband",
};

static const char * const mrc_rail_stat_names[] = {
	[MRC_RAIL_STAT_TX_PACKETS]	= "tx_packets",
	[MRC_RAIL_STAT_TX_BYTES]	= "tx_bytes",
	[MRC_RAIL_STAT_RX_PACKETS]	= "rx_packets",
	[MRC_RAIL_STAT_RX_BYTES]	= "rx_bytes",
	[MRC_RAIL_STAT_TX_ERRORS]	= "tx_errors",
	[MRC_RAIL_STAT_DROP_RAIL_DOWN]	= "drop_rail_down",
	[MRC_RAIL_STAT_DROP_MALFORMED]	= "drop_malformed",
	[MRC_RAIL_STAT_DROP_NO_BUFFER]	= "drop_no_buffer",
	[MRC_RAIL_STAT_STATE_CHANGES]	= "state_changes",
	[MRC_RAIL_STAT_PORT_EVENTS]	= "port_events",
	[MRC_RAIL_STAT_RX_ERRORS]	= "rx_errors",
	[MRC_RAIL_STAT_QP_ERRORS]	= "qp_errors",
	[MRC_RAIL_STAT_QP_RECOVERIES]	= "qp_recoveries",
	[MRC_RAIL_STAT_DOWN_NOTICES_TX]	= "down_notices_tx",
	[MRC_RAIL_STAT_DOWN_NOTICES_RX]	= "down_notices_rx",
};

static const char * const mrc_path_state_uapi_names[] = {
	[MRC_PATH_STATE_PROBING]	= "probing",
	[MRC_PATH_STATE_ACTIVE]		= "active",
	[MRC_PATH_STATE_ASSUMED_BAD]	= "assumed-bad",
	[MRC_PATH_STATE_DEAD]		= "dead",
	[MRC_PATH_STATE_DENIED]		= "denied",
	[MRC_PATH_STATE_UNRESOLVED]	= "unresolved",
};

/**
 * mrc_rail_state_name() - the name of a rail state
 * @state: an enum mrc_rail_state
 *
 * Return: "down", "active", "no-gid", "mtu-low", "error"; "unknown" when
 * out of range.
 */
const char *mrc_rail_state_name(unsigned int state)
{
	if (state < ARRAY_SIZE(mrc_rail_state_names) &&
	    mrc_rail_state_names[state])
		return mrc_rail_state_names[state];
	return "unknown";
}

/**
 * mrc_link_layer_name() - the name of a link layer
 * @ll: an enum mrc_link_layer
 *
 * Return: "ethernet", "infiniband"; "unknown" when out of range.
 */
const char *mrc_link_layer_name(unsigned int ll)
{
	if (ll < ARRAY_SIZE(mrc_link_layer_names) && mrc_link_layer_names[ll])
		return mrc_link_layer_names[ll];
	return "unknown";
}

/**
 * mrc_rail_stat_name() - the file and JSON name of a rail counter
 * @stat: an enum mrc_rail_stat
 *
 * Return: the name, e.g. "tx_packets"; NULL if none.
 */
const char *mrc_rail_stat_name(unsigned int stat)
{
	if (stat < ARRAY_SIZE(mrc_rail_stat_names))
		return mrc_rail_stat_names[stat];
	return NULL;
}

/**
 * mrc_path_state_uapi_name() - the name of a path state
 * @state: an enum mrc_path_state_uapi
 *
 * Return: "probing", "active", "assumed-bad", "dead", "denied",
 * "unresolved"; "unknown" when out of range.
 */
const char *mrc_path_state_uapi_name(unsigned int state)
{
	if (state < ARRAY_SIZE(mrc_path_state_uapi_names) &&
	    mrc_path_state_uapi_names[state])
		return mrc_path_state_uapi_names[state];
	return "unknown";
}

static const char * const mrc_credit_stat_names[] = {
	[MRC_CREDIT_STAT_TX_UNSCHED_BYTES]	= "tx_unsched_bytes",
	[MRC_CREDIT_STAT_TX_SCHED_BYTES]	= "tx_sched_bytes",
	[MRC_CREDIT_STAT_TX_MSGS_SCHED]		= "tx_msgs_sched",
	[MRC_CREDIT_STAT_REQUESTS_TX]		= "requests_tx",
	[MRC_CREDIT_STAT_GRANTS_RX]		= "grants_rx",
	[MRC_CREDIT_STAT_GRANTS_DUP]		= "grants_dup",
	[MRC_CREDIT_STAT_GRANTS_BAD]		= "grants_bad",
	[MRC_CREDIT_STAT_WAIT_US]		= "wait_us",
	[MRC_CREDIT_STAT_RX_UNSCHED_BYTES]	= "rx_unsched_bytes",
	[MRC_CREDIT_STAT_RX_SCHED_BYTES]	= "rx_sched_bytes",
	[MRC_CREDIT_STAT_REQUESTS_RX]		= "requests_rx",
	[MRC_CREDIT_STAT_REQUESTS_BAD]		= "requests_bad",
	[MRC_CREDIT_STAT_GRANTS_TX]		= "grants_tx",
	[MRC_CREDIT_STAT_GRANTS_RESENT]		= "grants_resent",
	[MRC_CREDIT_STAT_GRANTED_BYTES]		= "granted_bytes",
	[MRC_CREDIT_STAT_OVER_CREDIT]		= "over_credit",
	[MRC_CREDIT_STAT_GRANTS_STALE]		= "grants_stale",
	[MRC_CREDIT_STAT_TX_MSGS_CHAINED]	= "tx_msgs_chained",
	[MRC_CREDIT_STAT_REQUESTS_STALE]	= "requests_stale",
};

/**
 * mrc_credit_stat_name() - the name of a credit counter
 * @stat: an enum mrc_credit_stat
 *
 * Return: the name, e.g. "grants_rx"; NULL if none.
 */
const char *mrc_credit_stat_name(unsigned int stat)
{
	if (stat < ARRAY_SIZE(mrc_credit_stat_names) &&
	    mrc_credit_stat_names[stat])
		return mrc_credit_stat_names[stat];
	return NULL;
}

static const char * const mrc_sched_policy_names[] = {
	[MRC_SCHED_POLICY_ROUND_ROBIN]	= "round-robin",
	[MRC_SCHED_POLICY_MIN_INFLIGHT]	= "min-inflight",
	[MRC_SCHED_POLICY_MIN_LATENCY]	= "min-latency",
	[MRC_SCHED_POLICY_LOAD_AWARE]	= "load-aware",
};

static const char * const mrc_sched_class_names[] = {
	[MRC_CLASS_DEFAULT]	= "default",
	[MRC_CLASS_LATENCY]	= "latency",
	[MRC_CLASS_BULK]	= "bulk",
	[MRC_CLASS_BACKGROUND]	= "background",
};

/**
 * mrc_sched_policy_name() - the name of a scheduling policy
 * @policy: an enum mrc_sched_policy
 *
 * Return: "round-robin", "min-inflight", ...; NULL if out of range.
 */
const char *mrc_sched_policy_name(unsigned int policy)
{
	/* The scheduler's own values are the uapi ones (differences 0). */
	BUILD_BUG_ON((int)MRC_SCHED_ROUND_ROBIN - MRC_SCHED_POLICY_ROUND_ROBIN);
	BUILD_BUG_ON((int)MRC_SCHED_MIN_INFLIGHT - MRC_SCHED_POLICY_MIN_INFLIGHT);
	BUILD_BUG_ON((int)MRC_SCHED_MIN_LATENCY - MRC_SCHED_POLICY_MIN_LATENCY);
	BUILD_BUG_ON((int)MRC_SCHED_LOAD_AWARE - MRC_SCHED_POLICY_LOAD_AWARE);
	BUILD_BUG_ON(ARRAY_SIZE(mrc_sched_policy_names) - MRC_SCHED_POLICY_NR);
	return policy < ARRAY_SIZE(mrc_sched_policy_names) ?
	       mrc_sched_policy_names[policy] : NULL;
}

/**
 * mrc_sched_class_name() - the name of a traffic class
 * @cls: an enum mrc_sched_class
 *
 * Return: "default", "latency", "bulk", "background"; NULL if out of
 * range.
 */
const char *mrc_sched_class_name(unsigned int cls)
{
	BUILD_BUG_ON((int)MRC_SCHED_CLASS_DEFAULT - MRC_CLASS_DEFAULT);
	BUILD_BUG_ON((int)MRC_SCHED_CLASS_LATENCY - MRC_CLASS_LATENCY);
	BUILD_BUG_ON((int)MRC_SCHED_CLASS_BULK - MRC_CLASS_BULK);
	BUILD_BUG_ON((int)MRC_SCHED_CLASS_BACKGROUND - MRC_CLASS_BACKGROUND);
	BUILD_BUG_ON(ARRAY_SIZE(mrc_sched_class_names) - MRC_SCHED_CLASS_NR);
	return cls < ARRAY_SIZE(mrc_sched_class_names) ?
	       mrc_sched_class_names[cls] : NULL;
}

static int mrc_sched_lookup(const char * const *names, unsigned int nr,
			    const char *name)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (!strcmp(names[i], name))
			return (int)i;
	return -EINVAL;
}

/**
 * mrc_sched_policy_parse() - the value of a policy name
 * @name: as mrc_sched_policy_name() gives it
 *
 * Return: the policy, or -EINVAL.
 */
int mrc_sched_policy_parse(const char *name)
{
	return mrc_sched_lookup(mrc_sched_policy_names,
				ARRAY_SIZE(mrc_sched_policy_names), name);
}

/**
 * mrc_sched_class_parse() - the value of a class name
 * @name: as mrc_sched_class_name() gives it
 *
 * Return: the class, or -EINVAL.
 */
int mrc_sched_class_parse(const char *name)
{
	return mrc_sched_lookup(mrc_sched_class_names,
				ARRAY_SIZE(mrc_sched_class_names), name);
}
