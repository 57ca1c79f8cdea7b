/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mrc: multipath, receiver-driven-credit transport for RDMA clusters.
 *
 * User-space ABI: the generic netlink family "mrc".
 *
 * Versioning rule: MRC_GENL_VERSION is bumped when the meaning of an existing
 * command or attribute changes.  New commands, attributes, enum values and
 * statistics are only ever appended; numbers are never reused or reordered.
 * A client must ignore attributes it does not know.  The kernel validates
 * requests strictly: unknown attributes in a request are refused.
 *
 * The family is described in Documentation/netlink/specs/mrc.yaml.
 *
 * Versions:
 *  1	the first
 *  2	MRC_CREDIT_STAT_GRANTS_BAD no longer counts stale grants (an older
 *	sequence overtaken, a grant after its message ended): they are
 *	MRC_CREDIT_STAT_GRANTS_STALE, and grants_bad stays 0 without a
 *	forger
 */
#ifndef _UAPI_LINUX_MRC_H
#define _UAPI_LINUX_MRC_H

#include <linux/types.h>

#define MRC_GENL_NAME		"mrc"
#define MRC_GENL_VERSION	2
#define MRC_GENL_MCGRP_EVENTS	"events"

/* Longest rail name, "<ibdev>:<port>", including the NUL. */
#define MRC_RAIL_NAME_MAX	(64 + 1 + 10 + 1)

enum mrc_cmd {
	MRC_CMD_UNSPEC,
	/*
	 * Get one rail (request carries MRC_A_RAIL with MRC_RAIL_A_ID or
	 * MRC_RAIL_A_NAME) or, with NLM_F_DUMP, all rails.  Reply: MRC_A_RAIL.
	 */
	MRC_CMD_RAIL_GET,
	/* Get all module knobs.  Reply: MRC_A_CONFIG with every knob. */
	MRC_CMD_CONFIG_GET,
	/* Set one or more knobs (MRC_A_CONFIG).  Needs CAP_NET_ADMIN. */
	MRC_CMD_CONFIG_SET,
	/*
	 * Notifications on the "events" multicast group.  Each carries
	 * MRC_A_RAIL (RAIL_*) or MRC_A_CONFIG (CONFIG_CHANGED: only the
	 * knobs that changed, with their new values).
	 */
	MRC_CMD_RAIL_ADDED,
	MRC_CMD_RAIL_REMOVED,
	MRC_CMD_RAIL_STATE,	/* MRC_RAIL_A_STATE + MRC_RAIL_A_PREV_STATE */
	MRC_CMD_CONFIG_CHANGED,
	/*
	 * Peers.  PEER_ADD (CAP_NET_ADMIN): MRC_A_PEER with MRC_PEER_A_NODE
	 * and MRC_PEER_A_ADDRS (one address per plane).  PEER_DEL
	 * (CAP_NET_ADMIN): MRC_A_PEER with MRC_PEER_A_NODE.  PEER_GET: doit
	 * by MRC_PEER_A_NODE, or dump; reply MRC_A_PEER with its paths.
	 */
	MRC_CMD_PEER_ADD,
	MRC_CMD_PEER_DEL,
	MRC_CMD_PEER_GET,
	/* Events: MRC_A_PEER (PEER_*), or MRC_A_PEER with one path. */
	MRC_CMD_PEER_ADDED,
	MRC_CMD_PEER_REMOVED,
	MRC_CMD_PATH_STATE,
	/*
	 * Scheduling: rail weights and classes.  CLASS_GET: doit by
	 * MRC_CLASS_A_ID, or dump of every class; reply MRC_A_CLASS. CLASS_SET
	 * (CAP_NET_ADMIN): MRC_A_CLASS with MRC_CLASS_A_ID and
	 * MRC_CLASS_A_RAILS (rail names) or MRC_CLASS_A_ALL.  RAIL_SET
	 * (CAP_NET_ADMIN): MRC_A_RAIL with the rail's id or name and
	 * MRC_RAIL_A_WEIGHT.  PEER_SET (CAP_NET_ADMIN): MRC_A_PEER with
	 * MRC_PEER_A_NODE and MRC_PEER_A_POLICY. CLASS_FALLBACK (event):
	 * MRC_A_CLASS with MRC_CLASS_A_ID, MRC_CLASS_A_NODE and
	 * MRC_CLASS_A_FALLBACK.
	 */
	MRC_CMD_CLASS_GET,
	MRC_CMD_CLASS_SET,
	MRC_CMD_RAIL_SET,
	MRC_CMD_PEER_SET,
	MRC_CMD_CLASS_FALLBACK,

	__MRC_CMD_MAX,
	MRC_CMD_MAX = __MRC_CMD_MAX - 1,
};

enum mrc_attr {
	MRC_A_UNSPEC,
	MRC_A_RAIL,		/* nest, enum mrc_rail_attr */
	MRC_A_CONFIG,		/* nest, enum mrc_config_attr */
	MRC_A_PEER,		/* nest, enum mrc_peer_attr */
	MRC_A_CLASS,		/* nest, enum mrc_class_attr */

	__MRC_A_MAX,
	MRC_A_MAX = __MRC_A_MAX - 1,
};

/*
 * A rail is one port of one RDMA device.  It is usable for traffic only in
 * state MRC_RAIL_STATE_ACTIVE; the other states say why not.
 */
enum mrc_rail_state {
	MRC_RAIL_STATE_DOWN,	/* port not ACTIVE, or netdev down/no carrier */
	MRC_RAIL_STATE_ACTIVE,	/* usable */
	MRC_RAIL_STATE_NO_GID,	/* no usable RoCEv2 (or IB) GID */
	MRC_RAIL_STATE_MTU_LOW,	/* active MTU below the min_mtu knob */
	MRC_RAIL_STATE_ERROR,	/* queue pairs could not be set up */

	__MRC_RAIL_STATE_MAX,
	MRC_RAIL_STATE_MAX = __MRC_RAIL_STATE_MAX - 1,
};

enum mrc_link_layer {
	MRC_LINK_LAYER_UNSPEC,
	MRC_LINK_LAYER_ETHERNET,	/* RoCE */
	MRC_LINK_LAYER_INFINIBAND,
};

enum mrc_rail_attr {
	MRC_RAIL_A_UNSPEC,
	MRC_RAIL_A_ID,		/* u32: stable while the rail exists */
	MRC_RAIL_A_NAME,	/* string: "<ibdev>:<port>", e.g. "rxe0:1" */
	MRC_RAIL_A_IBDEV,	/* string */
	MRC_RAIL_A_PORT,	/* u32 */
	MRC_RAIL_A_NETDEV,	/* string, absent if unknown */
	MRC_RAIL_A_IFINDEX,	/* u32, absent if unknown */
	MRC_RAIL_A_LINK_LAYER,	/* u8, enum mrc_link_layer */
	MRC_RAIL_A_GID,		/* binary, 16 bytes; absent without a GID */
	MRC_RAIL_A_GID_INDEX,	/* u32; absent without a GID */
	MRC_RAIL_A_MTU,		/* u32: active RDMA MTU in bytes */
	MRC_RAIL_A_SPEED,	/* u32: Mbit/s, 0 if unknown */
	MRC_RAIL_A_STATE,	/* u8, enum mrc_rail_state */
	MRC_RAIL_A_PREV_STATE,	/* u8, enum mrc_rail_state; events only */
	MRC_RAIL_A_STATS,	/* nest, enum mrc_rail_stat */
	MRC_RAIL_A_PAD,
	MRC_RAIL_A_QPS,		/* u32: UD QPs (entropy values) */
	MRC_RAIL_A_DROPS,	/* nest: u64 per enum mrc_drop_reason;
				 * type 0 (MRC_DROP_NONE) is padding
				 */
	MRC_RAIL_A_WEIGHT,	/* u32: scheduling weight, 0 (never) .. 100
				 * (default 100)
				 */

	__MRC_RAIL_A_MAX,
	MRC_RAIL_A_MAX = __MRC_RAIL_A_MAX - 1,
};

/*
 * Per-rail counters, all u64, nested in MRC_RAIL_A_STATS.  New counters are
 * appended after MRC_RAIL_STAT_PAD (which is not a counter).
 */
enum mrc_rail_stat {
	MRC_RAIL_STAT_UNSPEC,
	MRC_RAIL_STAT_TX_PACKETS,
	MRC_RAIL_STAT_TX_BYTES,
	MRC_RAIL_STAT_RX_PACKETS,
	MRC_RAIL_STAT_RX_BYTES,
	MRC_RAIL_STAT_TX_ERRORS,	/* post_send failures, error completions */
	MRC_RAIL_STAT_DROP_RAIL_DOWN,	/* dropped: rail not active */
	MRC_RAIL_STAT_DROP_MALFORMED,	/* dropped: header failed validation */
	MRC_RAIL_STAT_DROP_NO_BUFFER,	/* dropped: no receive buffer/memory */
	MRC_RAIL_STAT_STATE_CHANGES,	/* state transitions */
	MRC_RAIL_STAT_PORT_EVENTS,	/* ib_event notifications seen */
	MRC_RAIL_STAT_PAD,
	MRC_RAIL_STAT_RX_ERRORS,	/* error receive completions */
	MRC_RAIL_STAT_QP_ERRORS,	/* a QP entered the ERROR state */
	MRC_RAIL_STAT_QP_RECOVERIES,	/* a QP was brought back to RTS */
	MRC_RAIL_STAT_DOWN_NOTICES_TX,	/* RAIL_DOWN packets sent on this rail
					 * (about another rail of ours)
					 */
	MRC_RAIL_STAT_DOWN_NOTICES_RX,	/* RAIL_DOWN packets accepted on it */

	__MRC_RAIL_STAT_MAX,
	MRC_RAIL_STAT_MAX = __MRC_RAIL_STAT_MAX - 1,
};

/*
 * Module knobs, all u32, nested in MRC_A_CONFIG.  Names, ranges, defaults
 * and units are listed in Documentation/ABI/testing/sysfs-kernel-mrc; the
 * same name is the module parameter, the file in /sys/kernel/mrc/ and the
 * key of "mrcctl config set".
 */
enum mrc_config_attr {
	MRC_CONFIG_A_UNSPEC,
	MRC_CONFIG_A_MAX_RAILS,	/* rails beyond this many are refused */
	MRC_CONFIG_A_MIN_MTU,	/* bytes: rails below are MTU_LOW */
	MRC_CONFIG_A_ENTROPY,	/* UD QPs (entropy values) per rail */
	MRC_CONFIG_A_NODE_ID,	/* this node's id; 0 = not set */
	MRC_CONFIG_A_PROBE_MS,	/* keepalive probe interval, ms */
	MRC_CONFIG_A_RTO_MAX_MS, /* upper bound of a path's RTO, ms */
	MRC_CONFIG_A_PEER_TIMEOUT_MS, /* no path this long: sends fail, ms */
	MRC_CONFIG_A_TX_MSGS_PER_PEER, /* queued sends per peer */
	MRC_CONFIG_A_RX_MSGS_PER_PEER, /* reassembly contexts per peer */
	MRC_CONFIG_A_RX_BUFFER_MB, /* reassembly memory, all peers, MiB */
	MRC_CONFIG_A_DEV_SNDBUF_MB, /* /dev/mrc: most unfinished send bytes
				     * per endpoint, MiB
				     */
	MRC_CONFIG_A_SCHED_POLICY, /* enum mrc_sched_policy_uapi: the path
				    * scheduling policy of peers without one
				    */
	MRC_CONFIG_A_CREDIT,	/* 1: receiver-driven credits on, 0: off */
	MRC_CONFIG_A_CREDIT_UNSCHED_BYTES, /* sent without a grant, bytes */
	MRC_CONFIG_A_CREDIT_RATE_KBPS, /* drain rate; 0 = rails' speed */
	MRC_CONFIG_A_CREDIT_POLICY, /* 0 fair share, 1 SRPT */
	MRC_CONFIG_A_CREDIT_GRANT_TIMEOUT_MS, /* re-request / reclaim, ms */
	MRC_CONFIG_A_BG_YIELD_PKTS,	/* background in flight next to
					 * latency traffic, packets
					 */
	MRC_CONFIG_A_BULK_YIELD_PKTS,	/* bulk in flight next to latency
					 * traffic, packets
					 */
	MRC_CONFIG_A_CREDIT_MAX_OUTSTANDING_BYTES, /* granted, not arrived,
						    * all senders; 0 = derived
						    */
	MRC_CONFIG_A_DATA_RTO_MIN_MS, /* least RTO of a DATA packet, ms */

	__MRC_CONFIG_A_MAX,
	MRC_CONFIG_A_MAX = __MRC_CONFIG_A_MAX - 1,
};

/*
 * Why a received packet was dropped: the type of each counter in
 * MRC_RAIL_A_DROPS (MRC_DROP_NONE is not a counter).  Append only.
 */
enum mrc_drop_reason {
	MRC_DROP_NONE = 0,
	MRC_DROP_TRUNCATED,	/* shorter than header, or than header+len */
	MRC_DROP_BAD_VERSION,
	MRC_DROP_BAD_TYPE,
	MRC_DROP_BAD_LENGTH,	/* len wrong for the type / too long */
	MRC_DROP_BAD_OFFSET,	/* offset+len beyond msg_len, misaligned */
	MRC_DROP_MSG_TOO_BIG,	/* msg_len above the configured cap */
	MRC_DROP_BAD_SEG,	/* seg out of range */
	MRC_DROP_BAD_SACK,	/* SACK/NACK beyond what was sent */
	MRC_DROP_NOT_FOR_US,	/* dst_node is not this node */
	MRC_DROP_UNKNOWN_PEER,
	MRC_DROP_NO_MEMORY,	/* reassembly limits reached */
	MRC_DROP_DUPLICATE,	/* already received (counted, harmless) */
	MRC_DROP_BAD_FIELD,	/* a body field out of range */
	MRC_DROP_WRONG_PATH,	/* peer known, but not from its path's QP */
	MRC_DROP_UNEXPECTED,	/* a valid type this node does not take */
	MRC_DROP_UNRESOLVED,	/* peer known, its link not resolved yet */
	MRC_DROP_BAD_CREDIT,	/* CREDIT_REQ/GRANT malformed or refused:
				 * forged, stale, beyond the message
				 */
	MRC_DROP_BAD_TOKEN,	/* from a configured peer, but without the
				 * token this node gave it (wire version 3)
				 */
	MRC_DROP_NR
};

/* Most addresses (planes) a peer may have. */
#define MRC_PEER_MAX_ADDRS	8

enum mrc_peer_attr {
	MRC_PEER_A_UNSPEC,
	MRC_PEER_A_NODE,	/* u32: the peer's node_id, 1..2^31-1 */
	MRC_PEER_A_ADDRS,	/* nest of MRC_PEER_A_ADDR, one per plane */
	MRC_PEER_A_ADDR,	/* binary: IPv4 (4 bytes) or IPv6 (16) */
	MRC_PEER_A_PATH,	/* nest, enum mrc_path_attr; one per path */
	MRC_PEER_A_PATHS_ACTIVE, /* u32: paths in the spray set */
	MRC_PEER_A_PAD,
	MRC_PEER_A_POLICY,	/* u32: enum mrc_sched_policy_uapi, or
				 * MRC_SCHED_POLICY_GLOBAL (follow the
				 * sched_policy knob; the default)
				 */
	MRC_PEER_A_POLICY_NOW,	/* u32: the policy in force (replies) */
	MRC_PEER_A_FALLBACKS,	/* u64: picks outside a class's rails */
	MRC_PEER_A_EXPLORES,	/* u64: exploration picks */
	MRC_PEER_A_CREDIT,	/* nest, enum mrc_credit_stat: u64 each */

	__MRC_PEER_A_MAX,
	MRC_PEER_A_MAX = __MRC_PEER_A_MAX - 1,
};

/*
 * Receiver-driven credit counters of one peer, all u64, nested in
 * MRC_PEER_A_CREDIT; counted since the peer was added.  TX_* / sender
 * side: this node sending to the peer; RX_* / receiver side: the peer
 * sending to this node.  Append only.
 */
enum mrc_credit_stat {
	MRC_CREDIT_STAT_UNSPEC,
	MRC_CREDIT_STAT_PAD,
	MRC_CREDIT_STAT_TX_UNSCHED_BYTES,	/* sent without a grant */
	MRC_CREDIT_STAT_TX_SCHED_BYTES,		/* sent against grants */
	MRC_CREDIT_STAT_TX_MSGS_SCHED,		/* messages that asked */
	MRC_CREDIT_STAT_REQUESTS_TX,		/* CREDIT_REQs sent */
	MRC_CREDIT_STAT_GRANTS_RX,		/* GRANTs that moved the offset */
	MRC_CREDIT_STAT_GRANTS_DUP,		/* duplicate GRANTs (harmless) */
	MRC_CREDIT_STAT_GRANTS_BAD,		/* refused: contradict a grant
						 * taken, or no such message
						 */
	MRC_CREDIT_STAT_WAIT_US,		/* time waiting for credit */
	MRC_CREDIT_STAT_RX_UNSCHED_BYTES,	/* received within the window
						 * its request announced (0
						 * for a chained message)
						 */
	MRC_CREDIT_STAT_RX_SCHED_BYTES,		/* received beyond it */
	MRC_CREDIT_STAT_REQUESTS_RX,		/* CREDIT_REQs accepted */
	MRC_CREDIT_STAT_REQUESTS_BAD,		/* CREDIT_REQs refused as
						 * forged (stale ones are
						 * REQUESTS_STALE)
						 */
	MRC_CREDIT_STAT_GRANTS_TX,		/* new GRANTs sent (pacer) */
	MRC_CREDIT_STAT_GRANTS_RESENT,		/* GRANTs repeated on request */
	MRC_CREDIT_STAT_GRANTED_BYTES,		/* scheduled bytes granted */
	MRC_CREDIT_STAT_OVER_CREDIT,		/* DATA beyond the grant */
	MRC_CREDIT_STAT_GRANTS_STALE,		/* GRANTs overtaken by a newer
						 * one, or late for a message
						 * that ended (harmless)
						 */
	MRC_CREDIT_STAT_TX_MSGS_CHAINED,	/* messages that asked from
						 * byte 0: started in the
						 * receiver's credit loop
						 */
	MRC_CREDIT_STAT_REQUESTS_STALE,		/* CREDIT_REQs for an earlier
						 * message: replayed or
						 * reordered (harmless)
						 */

	__MRC_CREDIT_STAT_MAX,
	MRC_CREDIT_STAT_MAX = __MRC_CREDIT_STAT_MAX - 1,
};

/* Path states; the names follow MRC 1.0 (GOOD is ACTIVE). */
enum mrc_path_state_uapi {
	MRC_PATH_STATE_PROBING,		/* not answered yet */
	MRC_PATH_STATE_ACTIVE,		/* in the spray set */
	MRC_PATH_STATE_ASSUMED_BAD,	/* lost a packet or timed out */
	MRC_PATH_STATE_DEAD,		/* its rail is down */
	MRC_PATH_STATE_DENIED,		/* taken out by the operator */
	MRC_PATH_STATE_UNRESOLVED,	/* remote QPs not known yet */
};

enum mrc_path_attr {
	MRC_PATH_A_UNSPEC,
	MRC_PATH_A_PLANE,	/* u32: index of the peer address */
	MRC_PATH_A_RAIL,	/* string: local rail name */
	MRC_PATH_A_ENTROPY,	/* u32: entropy value (local QP index) */
	MRC_PATH_A_LOCAL_QPN,	/* u32 */
	MRC_PATH_A_REMOTE_QPN,	/* u32, absent while unresolved */
	MRC_PATH_A_STATE,	/* u8, enum mrc_path_state_uapi */
	MRC_PATH_A_SRTT_US,	/* u32, absent before the first sample */
	MRC_PATH_A_RTO_US,	/* u32 */
	MRC_PATH_A_INFLIGHT,	/* u32: packets in flight */
	MRC_PATH_A_TX_PKTS,	/* u64 */
	MRC_PATH_A_ACKED_PKTS,	/* u64 */
	MRC_PATH_A_LOST_PKTS,	/* u64 */
	MRC_PATH_A_PROBES,	/* u64 */
	MRC_PATH_A_REPLIES,	/* u64 */
	MRC_PATH_A_TIMEOUTS,	/* u64 */
	MRC_PATH_A_STATE_CHANGES, /* u64 */
	MRC_PATH_A_PREV_STATE,	/* u8; PATH_STATE events only */
	MRC_PATH_A_PAD,
	MRC_PATH_A_INFLIGHT_BYTES, /* u64: bytes in flight */
	MRC_PATH_A_TX_BYTES,	/* u64: bytes sent (first sends and resends) */
	MRC_PATH_A_WEIGHT,	/* u32: its local rail's weight */

	__MRC_PATH_A_MAX,
	MRC_PATH_A_MAX = __MRC_PATH_A_MAX - 1,
};

/* Path scheduling policies (Documentation/mrc/sched.rst). */
enum mrc_sched_policy_uapi {
	MRC_SCHED_POLICY_ROUND_ROBIN,	/* weighted spray */
	MRC_SCHED_POLICY_MIN_INFLIGHT,	/* least bytes in flight */
	MRC_SCHED_POLICY_MIN_LATENCY,	/* least RTT */
	MRC_SCHED_POLICY_LOAD_AWARE,	/* inflight x RTT x loss (default) */
};

/* MRC_PEER_A_POLICY: the peer follows the sched_policy knob. */
#define MRC_SCHED_POLICY_GLOBAL	255

/* Traffic classes; each is mapped to a set of rails (all by default). */
enum mrc_class {
	MRC_CLASS_DEFAULT,	/* endpoints that chose none */
	MRC_CLASS_LATENCY,
	MRC_CLASS_BULK,
	MRC_CLASS_BACKGROUND,
};

enum mrc_class_attr {
	MRC_CLASS_A_UNSPEC,
	MRC_CLASS_A_ID,		/* u32: enum mrc_class */
	MRC_CLASS_A_NAME,	/* string: "latency", ...; replies */
	MRC_CLASS_A_RAILS,	/* nest of MRC_CLASS_A_RAIL; absent = all */
	MRC_CLASS_A_RAIL,	/* string: a rail name */
	MRC_CLASS_A_ALL,	/* flag (CLASS_SET): every rail, the default */
	MRC_CLASS_A_NODE,	/* u32: peer of a CLASS_FALLBACK event */
	MRC_CLASS_A_FALLBACK,	/* u8: 1 = the class's rails are all
				 * unusable, its traffic uses the others;
				 * 0 = back on its own rails
				 */

	__MRC_CLASS_A_MAX,
	MRC_CLASS_A_MAX = __MRC_CLASS_A_MAX - 1,
};

/*
 * ======================================================================
 * /dev/mrc: the character device (Documentation/mrc/devmrc.rst)
 * ======================================================================
 *
 * One open file is one endpoint, unbound until MRC_IOC_BIND.  Send with
 * write(): a struct mrc_dev_send_hdr followed by exactly hdr.len bytes of
 * payload, in one call; write() returns once mrc has queued (copied) the
 * message.  read() returns one whole message: a struct mrc_dev_recv_hdr
 * followed by its payload; EMSGSIZE (message kept) if the buffer is too
 * short.  Every struct that goes through an ioctl starts with its size
 * (set it to sizeof(struct ...)); later versions only append fields, and
 * the kernel accepts older (shorter) and newer (longer, tail zero) sizes.
 */
#include <linux/ioctl.h>

#define MRC_DEV_NAME		"mrc"		/* /dev/mrc */
#define MRC_DEV_VERSION		1		/* mrc_dev_send_hdr.version */
#define MRC_DEV_MSG_MAX		(64U << 20)	/* largest message, bytes */
#define MRC_DEV_EPHEMERAL_MIN	49152		/* port 0 binds in this.. */
#define MRC_DEV_EPHEMERAL_MAX	65535		/* ..range */

/* write(): header, then hdr.len payload bytes; count = 16 + len. */
struct mrc_dev_send_hdr {
	__u32 version;		/* MRC_DEV_VERSION */
	__u32 dst_node;		/* 1..2^31-1 */
	__u16 dst_port;		/* 1..65535 */
	__u16 flags;		/* MRC_DEV_SEND_F_*, else 0 */
	__u32 len;		/* payload bytes, 1..MRC_DEV_MSG_MAX */
};

/*
 * mrc_dev_send_hdr.flags: MRC_DEV_SEND_F_CLASS sends this message in the
 * class (enum mrc_class) given in MRC_DEV_SEND_CLASS(flags) instead of
 * the endpoint's MRC_OPT_CLASS.  Other bits must be 0.
 */
#define MRC_DEV_SEND_F_CLASS		0x0001
#define MRC_DEV_SEND_CLASS_SHIFT	8
#define MRC_DEV_SEND_CLASS_MASK		0xff00
#define MRC_DEV_SEND_CLASS(flags) \
	(((flags) & MRC_DEV_SEND_CLASS_MASK) >> MRC_DEV_SEND_CLASS_SHIFT)
#define MRC_DEV_SEND_FLAGS(cls) \
	(MRC_DEV_SEND_F_CLASS | (cls) << MRC_DEV_SEND_CLASS_SHIFT)

/* read(): header, then hdr.len payload bytes; returns 16 + len. */
struct mrc_dev_recv_hdr {
	__u32 src_node;
	__u16 src_port;
	__u16 flags;		/* 0 */
	__u32 len;		/* payload bytes that follow */
	__u32 reserved;		/* 0 */
};

/* MRC_IOC_BIND: port 0 = any free port in the ephemeral range; the
 * kernel writes the bound port back.  Ports below 1024 need
 * CAP_NET_BIND_SERVICE.
 */
struct mrc_dev_bind {
	__u32 size;		/* sizeof(struct mrc_dev_bind) */
	__u16 port;
	__u16 reserved;		/* 0 */
};

/* MRC_IOC_SETOPT / MRC_IOC_GETOPT */
struct mrc_dev_opt {
	__u32 size;		/* sizeof(struct mrc_dev_opt) */
	__u32 opt;		/* enum mrc_dev_optname */
	__u64 value;
};

enum mrc_dev_optname {
	MRC_OPT_RCVBUF = 1,	/* rw: most bytes of received messages
				 * queued (4096..256 MiB, default 16 MiB);
				 * one message is always taken when none is
				 * queued; beyond, messages are dropped and
				 * counted (rx_dropped)
				 */
	MRC_OPT_SNDWIN = 2,	/* rw: most sends queued but not yet
				 * completed (1..1024, default 64); write()
				 * waits (or EAGAIN) beyond; their payload
				 * bytes are bounded by the dev_sndbuf_mb
				 * knob (one message always fits alone)
				 */
	MRC_OPT_PORT = 3,	/* ro: bound port, 0 if unbound */
	MRC_OPT_NODE = 4,	/* ro: this node's id (the node_id knob) */
	MRC_OPT_CLASS = 5,	/* rw: traffic class of the endpoint's sends
				 * (enum mrc_class, default 0); applies to
				 * later write()s
				 */
};

#define MRC_DEV_RCVBUF_MIN	4096ULL
#define MRC_DEV_RCVBUF_MAX	(256ULL << 20)
#define MRC_DEV_RCVBUF_DEF	(16ULL << 20)
#define MRC_DEV_SNDWIN_MAX	1024
#define MRC_DEV_SNDWIN_DEF	64

/* MRC_IOC_STATS: the endpoint's counters. */
struct mrc_dev_stats {
	__u32 size;		/* sizeof(struct mrc_dev_stats) */
	__s32 last_error;	/* last failed send's status (-errno), or 0 */
	__u64 tx_msgs;		/* sends accepted */
	__u64 tx_bytes;
	__u64 tx_done;		/* completed: the peer has the message */
	__u64 tx_failed;	/* completed with an error */
	__u64 tx_outstanding;	/* accepted, not yet completed */
	__u64 rx_msgs;		/* messages queued for read() */
	__u64 rx_bytes;
	__u64 rx_dropped;	/* dropped: receive queue full (RCVBUF) */
	__u64 rx_dropped_bytes;
	__u64 rx_queued_msgs;	/* in the receive queue now */
	__u64 rx_queued_bytes;
	__u64 rx_next_len;	/* payload bytes of the next message, or 0 */
};

#define MRC_IOC_MAGIC		0xF7
#define MRC_IOC_BIND		_IOWR(MRC_IOC_MAGIC, 1, struct mrc_dev_bind)
#define MRC_IOC_SETOPT		_IOW(MRC_IOC_MAGIC, 2, struct mrc_dev_opt)
#define MRC_IOC_GETOPT		_IOWR(MRC_IOC_MAGIC, 3, struct mrc_dev_opt)
#define MRC_IOC_STATS		_IOWR(MRC_IOC_MAGIC, 4, struct mrc_dev_stats)
/* Wait until every accepted send has completed; returns the pending
 * send error (see write()) or 0.
 */
#define MRC_IOC_FLUSH		_IO(MRC_IOC_MAGIC, 5)

#endif /* _UAPI_LINUX_MRC_H */
