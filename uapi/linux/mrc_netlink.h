/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/mrc.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_MRC_NETLINK_H
#define _UAPI_LINUX_MRC_NETLINK_H

#define MRC_GENL_NAME		"mrc"
#define MRC_GENL_VERSION	2

#define MRC_RAIL_NAME_MAX	76

/**
 * enum mrc_rail_state - State of a rail. Only an active rail may carry
 *   traffic; the other states say why not. When several apply, the first in
 *   the order down, no-gid, mtu-low is reported.
 * @MRC_RAIL_STATE_DOWN: The port could not be queried or is not ACTIVE, or
 *   (RoCE) its netdev is known and is not running or has no carrier.
 * @MRC_RAIL_STATE_ACTIVE: Usable.
 * @MRC_RAIL_STATE_NO_GID: No usable GID: RoCE needs a RoCEv2 GID that is
 *   IPv4-mapped or a non-link-local, non-loopback IPv6 address; InfiniBand
 *   uses GID index 0.
 * @MRC_RAIL_STATE_MTU_LOW: The active RDMA MTU is below the min-mtu knob.
 * @MRC_RAIL_STATE_ERROR: The rail's UD queue pairs could not be set up
 *   (counted in the module counter ud_create_failed); the rail cannot carry
 *   traffic.
 */
enum mrc_rail_state {
	MRC_RAIL_STATE_DOWN,
	MRC_RAIL_STATE_ACTIVE,
	MRC_RAIL_STATE_NO_GID,
	MRC_RAIL_STATE_MTU_LOW,
	MRC_RAIL_STATE_ERROR,

	/* private: */
	__MRC_RAIL_STATE_MAX,
	MRC_RAIL_STATE_MAX = (__MRC_RAIL_STATE_MAX - 1)
};

/**
 * enum mrc_link_layer
 * @MRC_LINK_LAYER_UNSPEC: Not reported by the module today.
 * @MRC_LINK_LAYER_ETHERNET: RoCE.
 */
enum mrc_link_layer {
	MRC_LINK_LAYER_UNSPEC,
	MRC_LINK_LAYER_ETHERNET,
	MRC_LINK_LAYER_INFINIBAND,
};

#define MRC_PEER_MAX_ADDRS	8

/**
 * enum mrc_path_state_uapi - State of a path. Only active paths are in the
 *   spray set (the set of paths that carry data); the names follow MRC 1.0,
 *   whose GOOD is active here.
 * @MRC_PATH_STATE_PROBING: Remote QPs known, but the path has not answered a
 *   probe yet (since it was made, or since its rail came back). Probed.
 * @MRC_PATH_STATE_ACTIVE: Answered; in the spray set.
 * @MRC_PATH_STATE_ASSUMED_BAD: Left the spray set after a lost packet or a
 *   timeout (including an unanswered keepalive probe). Probed until a probe
 *   sent after it left is answered.
 * @MRC_PATH_STATE_DEAD: Its local rail is down. Not probed until the rail is
 *   back.
 * @MRC_PATH_STATE_DENIED: Taken out by the operator or a policy. Not probed,
 *   not used.
 * @MRC_PATH_STATE_UNRESOLVED: The peer's QP numbers for this plane are not
 *   known yet (the SIDR exchange has not been answered). Retried.
 */
enum mrc_path_state_uapi {
	MRC_PATH_STATE_PROBING,
	MRC_PATH_STATE_ACTIVE,
	MRC_PATH_STATE_ASSUMED_BAD,
	MRC_PATH_STATE_DEAD,
	MRC_PATH_STATE_DENIED,
	MRC_PATH_STATE_UNRESOLVED,
};

/**
 * enum mrc_sched_policy_uapi - Path scheduling policy
 *   (Documentation/mrc/sched.rst): which of a peer's active paths carries the
 *   next packet.
 * @MRC_SCHED_POLICY_ROUND_ROBIN: Weighted spray over the paths.
 * @MRC_SCHED_POLICY_MIN_INFLIGHT: The path with the fewest bytes in flight per
 *   weight.
 * @MRC_SCHED_POLICY_MIN_LATENCY: The path with the lowest RTT.
 * @MRC_SCHED_POLICY_LOAD_AWARE: The default: least (bytes in flight x (1 +
 *   recent losses)) per weight, equal loads by the lower RTT; slow or
 *   congested paths drain slowly and so get less traffic, idle paths go by
 *   RTT.
 */
enum mrc_sched_policy_uapi {
	MRC_SCHED_POLICY_ROUND_ROBIN,
	MRC_SCHED_POLICY_MIN_INFLIGHT,
	MRC_SCHED_POLICY_MIN_LATENCY,
	MRC_SCHED_POLICY_LOAD_AWARE,
};

#define MRC_SCHED_POLICY_GLOBAL	255

/**
 * enum mrc_class - Traffic classes. Each is mapped to a set of rails (all
 *   rails by default); endpoints pick one (/dev/mrc MRC_OPT_CLASS,
 *   mrc_ep_set_class(), mrc_send_class()).
 * @MRC_CLASS_DEFAULT: Traffic of endpoints that chose no class.
 */
enum mrc_class {
	MRC_CLASS_DEFAULT,
	MRC_CLASS_LATENCY,
	MRC_CLASS_BULK,
	MRC_CLASS_BACKGROUND,
};

enum mrc_attr {
	MRC_A_UNSPEC,
	MRC_A_RAIL,
	MRC_A_CONFIG,
	MRC_A_PEER,
	MRC_A_CLASS,
	MRC_A_KEY,
	MRC_A_KEYED,

	__MRC_A_MAX,
	MRC_A_MAX = (__MRC_A_MAX - 1)
};

enum mrc_rail_attr {
	MRC_RAIL_A_UNSPEC,
	MRC_RAIL_A_ID,
	MRC_RAIL_A_NAME,
	MRC_RAIL_A_IBDEV,
	MRC_RAIL_A_PORT,
	MRC_RAIL_A_NETDEV,
	MRC_RAIL_A_IFINDEX,
	MRC_RAIL_A_LINK_LAYER,
	MRC_RAIL_A_GID,
	MRC_RAIL_A_GID_INDEX,
	MRC_RAIL_A_MTU,
	MRC_RAIL_A_SPEED,
	MRC_RAIL_A_STATE,
	MRC_RAIL_A_PREV_STATE,
	MRC_RAIL_A_STATS,
	MRC_RAIL_A_PAD,
	MRC_RAIL_A_QPS,
	MRC_RAIL_A_DROPS,
	MRC_RAIL_A_WEIGHT,

	__MRC_RAIL_A_MAX,
	MRC_RAIL_A_MAX = (__MRC_RAIL_A_MAX - 1)
};

enum mrc_drop_reason {
	MRC_DROP_NONE,
	MRC_DROP_TRUNCATED,
	MRC_DROP_BAD_VERSION,
	MRC_DROP_BAD_TYPE,
	MRC_DROP_BAD_LENGTH,
	MRC_DROP_BAD_OFFSET,
	MRC_DROP_MSG_TOO_BIG,
	MRC_DROP_BAD_SEG,
	MRC_DROP_BAD_SACK,
	MRC_DROP_NOT_FOR_US,
	MRC_DROP_UNKNOWN_PEER,
	MRC_DROP_NO_MEMORY,
	MRC_DROP_DUPLICATE,
	MRC_DROP_BAD_FIELD,
	MRC_DROP_WRONG_PATH,
	MRC_DROP_UNEXPECTED,
	MRC_DROP_UNRESOLVED,
	MRC_DROP_BAD_CREDIT,
	MRC_DROP_BAD_TOKEN,
	MRC_DROP_REPLAYED,

	MRC_DROP_NR,
	MRC_DROP_MAX = (MRC_DROP_NR - 1)
};

enum mrc_rail_stat {
	MRC_RAIL_STAT_UNSPEC,
	MRC_RAIL_STAT_TX_PACKETS,
	MRC_RAIL_STAT_TX_BYTES,
	MRC_RAIL_STAT_RX_PACKETS,
	MRC_RAIL_STAT_RX_BYTES,
	MRC_RAIL_STAT_TX_ERRORS,
	MRC_RAIL_STAT_DROP_RAIL_DOWN,
	MRC_RAIL_STAT_DROP_MALFORMED,
	MRC_RAIL_STAT_DROP_NO_BUFFER,
	MRC_RAIL_STAT_STATE_CHANGES,
	MRC_RAIL_STAT_PORT_EVENTS,
	MRC_RAIL_STAT_PAD,
	MRC_RAIL_STAT_RX_ERRORS,
	MRC_RAIL_STAT_QP_ERRORS,
	MRC_RAIL_STAT_QP_RECOVERIES,
	MRC_RAIL_STAT_DOWN_NOTICES_TX,
	MRC_RAIL_STAT_DOWN_NOTICES_RX,

	__MRC_RAIL_STAT_MAX,
	MRC_RAIL_STAT_MAX = (__MRC_RAIL_STAT_MAX - 1)
};

enum mrc_config_attr {
	MRC_CONFIG_A_UNSPEC,
	MRC_CONFIG_A_MAX_RAILS,
	MRC_CONFIG_A_MIN_MTU,
	MRC_CONFIG_A_ENTROPY,
	MRC_CONFIG_A_NODE_ID,
	MRC_CONFIG_A_PROBE_MS,
	MRC_CONFIG_A_RTO_MAX_MS,
	MRC_CONFIG_A_PEER_TIMEOUT_MS,
	MRC_CONFIG_A_TX_MSGS_PER_PEER,
	MRC_CONFIG_A_RX_MSGS_PER_PEER,
	MRC_CONFIG_A_RX_BUFFER_MB,
	MRC_CONFIG_A_DEV_SNDBUF_MB,
	MRC_CONFIG_A_SCHED_POLICY,
	MRC_CONFIG_A_CREDIT,
	MRC_CONFIG_A_CREDIT_UNSCHED_BYTES,
	MRC_CONFIG_A_CREDIT_RATE_KBPS,
	MRC_CONFIG_A_CREDIT_POLICY,
	MRC_CONFIG_A_CREDIT_GRANT_TIMEOUT_MS,
	MRC_CONFIG_A_BG_YIELD_PKTS,
	MRC_CONFIG_A_BULK_YIELD_PKTS,
	MRC_CONFIG_A_CREDIT_MAX_OUTSTANDING_BYTES,
	MRC_CONFIG_A_DATA_RTO_MIN_MS,
	MRC_CONFIG_A_DEV_MEM_MB,

	__MRC_CONFIG_A_MAX,
	MRC_CONFIG_A_MAX = (__MRC_CONFIG_A_MAX - 1)
};

enum mrc_peer_attr {
	MRC_PEER_A_UNSPEC,
	MRC_PEER_A_NODE,
	MRC_PEER_A_ADDRS,
	MRC_PEER_A_ADDR,
	MRC_PEER_A_PATH,
	MRC_PEER_A_PATHS_ACTIVE,
	MRC_PEER_A_PAD,
	MRC_PEER_A_POLICY,
	MRC_PEER_A_POLICY_NOW,
	MRC_PEER_A_FALLBACKS,
	MRC_PEER_A_EXPLORES,
	MRC_PEER_A_CREDIT,
	MRC_PEER_A_KEY,
	MRC_PEER_A_KEYED,
	MRC_PEER_A_LOSS_FLOOR_US,

	__MRC_PEER_A_MAX,
	MRC_PEER_A_MAX = (__MRC_PEER_A_MAX - 1)
};

enum mrc_credit_stat {
	MRC_CREDIT_STAT_UNSPEC,
	MRC_CREDIT_STAT_PAD,
	MRC_CREDIT_STAT_TX_UNSCHED_BYTES,
	MRC_CREDIT_STAT_TX_SCHED_BYTES,
	MRC_CREDIT_STAT_TX_MSGS_SCHED,
	MRC_CREDIT_STAT_REQUESTS_TX,
	MRC_CREDIT_STAT_GRANTS_RX,
	MRC_CREDIT_STAT_GRANTS_DUP,
	MRC_CREDIT_STAT_GRANTS_BAD,
	MRC_CREDIT_STAT_WAIT_US,
	MRC_CREDIT_STAT_RX_UNSCHED_BYTES,
	MRC_CREDIT_STAT_RX_SCHED_BYTES,
	MRC_CREDIT_STAT_REQUESTS_RX,
	MRC_CREDIT_STAT_REQUESTS_BAD,
	MRC_CREDIT_STAT_GRANTS_TX,
	MRC_CREDIT_STAT_GRANTS_RESENT,
	MRC_CREDIT_STAT_GRANTED_BYTES,
	MRC_CREDIT_STAT_OVER_CREDIT,
	MRC_CREDIT_STAT_GRANTS_STALE,
	MRC_CREDIT_STAT_TX_MSGS_CHAINED,
	MRC_CREDIT_STAT_REQUESTS_STALE,

	__MRC_CREDIT_STAT_MAX,
	MRC_CREDIT_STAT_MAX = (__MRC_CREDIT_STAT_MAX - 1)
};

enum mrc_path_attr {
	MRC_PATH_A_UNSPEC,
	MRC_PATH_A_PLANE,
	MRC_PATH_A_RAIL,
	MRC_PATH_A_ENTROPY,
	MRC_PATH_A_LOCAL_QPN,
	MRC_PATH_A_REMOTE_QPN,
	MRC_PATH_A_STATE,
	MRC_PATH_A_SRTT_US,
	MRC_PATH_A_RTO_US,
	MRC_PATH_A_INFLIGHT,
	MRC_PATH_A_TX_PKTS,
	MRC_PATH_A_ACKED_PKTS,
	MRC_PATH_A_LOST_PKTS,
	MRC_PATH_A_PROBES,
	MRC_PATH_A_REPLIES,
	MRC_PATH_A_TIMEOUTS,
	MRC_PATH_A_STATE_CHANGES,
	MRC_PATH_A_PREV_STATE,
	MRC_PATH_A_PAD,
	MRC_PATH_A_INFLIGHT_BYTES,
	MRC_PATH_A_TX_BYTES,
	MRC_PATH_A_WEIGHT,

	__MRC_PATH_A_MAX,
	MRC_PATH_A_MAX = (__MRC_PATH_A_MAX - 1)
};

enum mrc_class_attr {
	MRC_CLASS_A_UNSPEC,
	MRC_CLASS_A_ID,
	MRC_CLASS_A_NAME,
	MRC_CLASS_A_RAILS,
	MRC_CLASS_A_RAIL,
	MRC_CLASS_A_ALL,
	MRC_CLASS_A_NODE,
	MRC_CLASS_A_FALLBACK,

	__MRC_CLASS_A_MAX,
	MRC_CLASS_A_MAX = (__MRC_CLASS_A_MAX - 1)
};

enum mrc_cmd {
	MRC_CMD_UNSPEC,
	MRC_CMD_RAIL_GET,
	MRC_CMD_CONFIG_GET,
	MRC_CMD_CONFIG_SET,
	MRC_CMD_RAIL_ADDED,
	MRC_CMD_RAIL_REMOVED,
	MRC_CMD_RAIL_STATE,
	MRC_CMD_CONFIG_CHANGED,
	MRC_CMD_PEER_ADD,
	MRC_CMD_PEER_DEL,
	MRC_CMD_PEER_GET,
	MRC_CMD_PEER_ADDED,
	MRC_CMD_PEER_REMOVED,
	MRC_CMD_PATH_STATE,
	MRC_CMD_CLASS_GET,
	MRC_CMD_CLASS_SET,
	MRC_CMD_RAIL_SET,
	MRC_CMD_PEER_SET,
	MRC_CMD_CLASS_FALLBACK,
	MRC_CMD_KEY_SET,
	MRC_CMD_KEY_GET,

	__MRC_CMD_MAX,
	MRC_CMD_MAX = (__MRC_CMD_MAX - 1)
};

#define MRC_GENL_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_MRC_NETLINK_H */
