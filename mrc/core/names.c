// SPDX-License-Identifier: GPL-2.0
/*
 * names.c - printable names of uapi enums (kernel-agnostic).
 */
#include "../../uapi/linux/mrc.h"
#include "names.h"

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
