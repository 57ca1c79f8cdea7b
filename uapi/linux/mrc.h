/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mrc: multipath, receiver-driven-credit transport for RDMA clusters.
 *
 * User-space ABI: the generic netlink family "mrc" and the character
 * device /dev/mrc.
 *
 * The family's names and numbers (commands, attributes, enums, the family
 * name, version and multicast group) are generated from its spec,
 * Documentation/netlink/specs/mrc.yaml, into linux/mrc_netlink.h ("make
 * ynl-gen"; Documentation/mrc/ynl.rst): change the spec, never that
 * header.  The /dev/mrc part, which the spec does not describe, is kept
 * here by hand.
 *
 * Versioning rule: MRC_GENL_VERSION is bumped when the meaning of an existing
 * command or attribute changes.  New commands, attributes, enum values and
 * statistics are only ever appended; numbers are never reused or reordered.
 * A client must ignore attributes it does not know.  The kernel validates
 * requests strictly: unknown attributes in a request are refused.
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

/*
 * Quoted, not <linux/mrc_netlink.h>: mrc.ko is built out of tree, without
 * uapi/ on its include path, and a quoted name is looked up first next to
 * the file that includes it, wherever this header is.
 */
#include "mrc_netlink.h"

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
				 * queued; beyond, new messages wait at their
				 * senders until read() makes room (rx_busy)
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
	MRC_OPT_BUSY_POLL = 6,	/* rw: microseconds a read() or poll() that
				 * would wait first polls mrc's completion
				 * queues itself (0..10000, default 0: never),
				 * as SO_BUSY_POLL does; raising it needs
				 * CAP_NET_ADMIN
				 */
};

#define MRC_DEV_RCVBUF_MIN	4096ULL
#define MRC_DEV_RCVBUF_MAX	(256ULL << 20)
#define MRC_DEV_RCVBUF_DEF	(16ULL << 20)
#define MRC_DEV_SNDWIN_MAX	1024
#define MRC_DEV_SNDWIN_DEF	64
#define MRC_DEV_BUSY_POLL_MAX	10000

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
	__u64 rx_dropped;	/* dropped: arrived after the file closed */
	__u64 rx_dropped_bytes;
	__u64 rx_queued_msgs;	/* in the receive queue now */
	__u64 rx_queued_bytes;
	__u64 rx_next_len;	/* payload bytes of the next message, or 0 */
	/* since version 2 (size 112) */
	__u64 rx_busy;		/* new messages held back at their sender:
				 * the queue held RCVBUF bytes
				 */
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
