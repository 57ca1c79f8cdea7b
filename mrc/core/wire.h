/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wire.h - mrc's on-the-wire format, in one place.  Kernel-agnostic.
 *
 * Every mrc packet is one UD datagram: a fixed 64-byte header, then a body
 * whose meaning depends on the type.  All multi-byte fields are big-endian.
 * Field-by-field description and the version rule:
 * Documentation/mrc/protocol.rst.
 *
 *  0      1      2             4                           8
 *  +------+------+-------------+---------------------------+
 *  | ver  | type |   flags     |         src_node          |
 *  +------+------+-------------+---------------------------+
 *  |         dst_node          |  src_port   |  dst_port   |  16
 *  +---------------------------+-------------+-------------+
 *  |                        msg_id                         |  24
 *  +---------------------------+---------------------------+
 *  |          offset           |          msg_len          |  32
 *  +-------------+-------------+-------------+-------------+
 *  |     len     |     seg     |   entropy   |  ack_delay  |  40
 *  +-------------+-------------+-------------+-------------+
 *  |         path_seq          |         credit            |  48
 *  +---------------------------+---------------------------+
 *  |                        tstamp                         |  56
 *  +-------------------------------------------------------+
 *  |                  token (version 3)                    |  64
 *  +-------------------------------------------------------+
 *
 * Version rule: a receiver drops (and counts) any packet whose version it
 * does not implement.  Within one version, new types and new flags may be
 * added; a receiver drops unknown types and ignores unknown flags.  Any
 * change to the size or meaning of an existing field needs a new version.
 */
#ifndef _MRC_WIRE_H
#define _MRC_WIRE_H

#include "compat.h"
#include "../../uapi/linux/mrc.h"

/*
 * 2: msg_id lanes (msg.h).  3: the header grows to 64 bytes with the
 * per-peer token, struct mrc_wire_cm carries it.  4: struct mrc_wire_cm
 * is authenticated (ts, nonce, mac; 24-bit QPNs); packets unchanged.
 * 6: a SACK may carry a done list (MRC_WF_DONE_MORE).  7: so may DATA
 * (before its payload), with its epoch in credit; SACK and such a DATA
 * say their ack delay in ack_delay (the old reserved); DATA may say
 * MRC_WF_ACK_LAZY.
 */
#define MRC_WIRE_VERSION	7
#define MRC_WIRE_HDR_LEN	64
/* The largest datagram mrc sends or accepts (RDMA MTU 4096). */
#define MRC_WIRE_MAX_PKT	4096
#define MRC_WIRE_MAX_PAYLOAD	(MRC_WIRE_MAX_PKT - MRC_WIRE_HDR_LEN)
/* Smallest segment size a sender may use (RDMA MTU 256 minus header). */
#define MRC_WIRE_MIN_SEG	(256 - MRC_WIRE_HDR_LEN)
/* Bits of packet state a SACK carries beyond its cumulative point. */
#define MRC_WIRE_SACK_BITS	256

enum mrc_wire_type {
	MRC_PKT_DATA		= 1,	/* payload at offset of msg_id */
	MRC_PKT_SACK		= 2,	/* cumulative + bitmap ack of msg_id */
	MRC_PKT_NACK		= 3,	/* holes of msg_id to resend now */
	MRC_PKT_HELLO		= 4,	/* path setup: who I am, my QPN */
	MRC_PKT_HELLO_REPLY	= 5,
	MRC_PKT_PROBE		= 6,	/* liveness/RTT of one path */
	MRC_PKT_PROBE_REPLY	= 7,
	/* receiver-driven credits (credit_peer.c) */
	MRC_PKT_CREDIT_REQ	= 8,	/* sender: may I send msg_id beyond unsched? */
	MRC_PKT_GRANT		= 9,	/* receiver: send msg_id up to granted */
	/* a rail of the sender went down (peer.c): stop using paths to it */
	MRC_PKT_RAIL_DOWN	= 10,
	MRC_PKT_TYPE_MAX	= MRC_PKT_RAIL_DOWN,
};

/* flags */
#define MRC_WF_LAST		0x0001	/* DATA: last packet of the message */
#define MRC_WF_RETRANS		0x0002	/* DATA: a retransmission */
#define MRC_WF_ACK_NOW		0x0004	/* DATA: ask for an immediate SACK */
#define MRC_WF_REFUSED		0x0008	/* SACK: no endpoint on the port */
#define MRC_WF_BUSY		0x0010	/* SACK: the endpoint is full: later */
#define MRC_WF_GONE		0x0020	/* SACK: its epoch was given up here */
#define MRC_WF_DONE_MORE	0x0040	/* SACK: a done list follows the body;
					 * DATA (v7): one precedes the payload
					 */
#define MRC_WF_ACK_LAZY		0x0080	/* DATA (v7): the sender waits for no
					 * other ack: a receiver may hold this
					 * message's for its own next DATA
					 */

/* On-wire header.  Use the accessors in wire.c; never cast a buffer. */
struct mrc_wire_hdr {
	u8	version;
	u8	type;
	__be16	flags;
	__be32	src_node;
	__be32	dst_node;
	__be16	src_port;
	__be16	dst_port;
	__be64	msg_id;
	__be32	offset;		/* DATA: byte offset of the payload */
	__be32	msg_len;	/* DATA: total message length */
	__be16	len;		/* bytes of body after the header */
	__be16	seg;		/* DATA: bytes per packet (all but the last) */
	__be16	entropy;	/* path's entropy value; echoed in replies */
	__be16	ack_delay;	/* SACK, DATA with a done list: how long
				 * the acknowledgment waited, us; else 0
				 */
	__be32	path_seq;	/* per-path sequence number */
	__be32	credit;		/* 0; meaningful only with a flag for it
				 * (DATA with a done list: its epoch)
				 */
	__be64	tstamp;		/* sender's clock, ns; echoed in replies */
	/*
	 * Version 3: the token the receiver drew for the sender and told it
	 * in the SIDR exchange (struct mrc_wire_cm).  Not checked by the
	 * parser; the receive path drops a packet whose token is not the
	 * one it expects from that peer (MRC_DROP_BAD_TOKEN).
	 */
	__be64	token;
} __packed;

/* SACK body.  Acknowledges packets (not bytes) of msg_id. */
struct mrc_wire_sack {
	__be32	cum;		/* every packet index < cum has arrived */
	__be32	nbits;		/* valid bits in bitmap, <= SACK_BITS */
	__be64	bitmap[MRC_WIRE_SACK_BITS / 64]; /* bit i: packet cum+1+i */
	__be16	echo_entropy;	/* of the packet that triggered this SACK */
	__be16	reserved;
	__be32	echo_path_seq;
	__be64	echo_tstamp;
} __packed;

/*
 * Done list (version 6): a SACK flagged MRC_WF_DONE_MORE is followed by 1
 * to MRC_WIRE_DONE_MAX big-endian 32-bit sequence numbers (msg_id bits
 * 31..0; bits 63..32 are the header's), one per other message of the
 * sender's that arrived whole: each is a SACK of all of that message.  A
 * receiver answers the messages a batch of arrivals completed with one
 * SACK (msg_rx.c, Answers).  Never with REFUSED, BUSY or GONE.
 */
#define MRC_WIRE_DONE_MAX	64
/*
 * Version 7: a DATA packet flagged MRC_WF_DONE_MORE carries a done list
 * of 1 to MRC_WIRE_DONE_MAX entries between the header and the payload
 * (len counts both); credit is their epoch (msg_id bits 63..32) and
 * ack_delay how long the newest entry's message waited for this packet
 * after it arrived, in microseconds, which the sender takes out of its
 * RTT samples.  The receiver of a message flagged MRC_WF_ACK_LAZY holds
 * its acknowledgment for such a packet, for a while (msg_rx.c, Answers).
 */

/* NACK body: up to MRC_WIRE_NACK_MAX holes [first, first+count). */
#define MRC_WIRE_NACK_MAX	32
struct mrc_wire_nack_range {
	__be32	first;
	__be32	count;
} __packed;

/* HELLO / HELLO_REPLY / PROBE / PROBE_REPLY body. */
struct mrc_wire_hello {
	__be32	qpn;		/* sender's UD QPN for this entropy value */
	__be32	qkey;
	__be32	rail_id;	/* sender's rail */
	__be32	echo_path_seq;	/* replies: the request's path_seq */
	__be64	echo_tstamp;	/* replies: the request's tstamp */
} __packed;

/*
 * CREDIT_REQ / GRANT body (msg_id in the header).  CREDIT_REQ: msg_len is
 * the message's length (its demand), granted the offset the sender holds
 * credit for: for a new message, the bytes it sends unscheduled (0: a
 * chained message, credit.h).  GRANT: the sender may send msg_id up to byte
 * granted; seq grows with every new grant of the message (1..), so a
 * duplicate or reordered GRANT is idempotent (see credit.h).
 */
struct mrc_wire_credit {
	__be32	msg_len;
	__be32	granted;
	__be32	seq;		/* GRANT: 1..; CREDIT_REQ: 0 */
	__be32	reserved;	/* 0 on send, ignored on receive */
} __packed;

/*
 * RAIL_DOWN body.  Sent over the sender's other rails when one of its
 * rails goes down (port error, link down, device removed): the receiver
 * takes every path to that rail out of the spray set at once, resends
 * what was in flight on them and probes them back, instead of finding
 * the loss packet by packet (RTO, loss scan).  Advisory: a lost RAIL_DOWN
 * costs only that time.
 */
struct mrc_wire_rail_down {
	__be32	rail_id;	/* the sender's rail that went down */
	__be32	reserved;	/* 0 on send, ignored on receive */
} __packed;

/* Drop reasons: enum mrc_drop_reason in uapi/linux/mrc.h. */

/*
 * The HELLO exchange that establishes paths rides in the private data of an
 * rdma_cm SIDR request/reply (RDMA_PS_UDP, port MRC_CM_PORT): it tells the
 * other side our protocol version, node id, rail and the QPN of each of the
 * rail's entropy values, and its incarnation (a random value drawn when
 * mrc loads: a new value means the node restarted and lost its state).
 * Requests carry the sender's token for the receiver (version 3): the
 * random value the sender expects in the header of every packet the
 * receiver sends it; replies never do.  Version 4 authenticates the
 * exchange: between two nodes configured with a key for each other, mac
 * is HMAC-SHA256 (first 16 bytes) of the 120 bytes before it under that
 * key; ts (the sender's CLOCK_REALTIME) and nonce make every request and
 * reply unique, and a reply echoes its request's nonce, so that neither
 * can be replayed (core/handshake.h, protocol.rst "Keys").  QPNs are 24
 * bits: three bytes each, so that the whole fits the 136 bytes a SIDR
 * reply holds.  Use mrc_wire_cm_put() / mrc_wire_cm_parse(), never a cast.
 */
#define MRC_CM_PORT		0x4d52
#define MRC_CM_MAX_QPS		24
#define MRC_CM_MAC_LEN		16
struct mrc_wire_cm {
	u8	version;	/* MRC_WIRE_VERSION */
	u8	nqp;		/* valid entries in qpn[], 1..MRC_CM_MAX_QPS */
	__be16	flags;		/* MRC_CM_F_* */
	__be32	src_node;	/* sender's node id */
	__be32	dst_node;	/* node it means to reach */
	__be32	rail_id;	/* sender's rail */
	__be32	incarnation;	/* sender's module instance: random, not 0 */
	__be32	reserved;	/* 0 on send, ignored on receive (MACed) */
	__be64	ts;		/* v4: sender's CLOCK_REALTIME, ns */
	__be64	nonce;		/* v4: request: random; reply: the request's */
	__be64	token;		/* requests: put this in every packet to me
				 * (replies: 0)
				 */
	u8	qpn[MRC_CM_MAX_QPS][3];	/* v4: 24-bit QPNs, big-endian */
	u8	mac[MRC_CM_MAC_LEN];	/* v4: see above; 0 without a key */
} __packed;

/* The bytes the MAC covers: everything before it. */
#define MRC_CM_MAC_OFF		offsetof(struct mrc_wire_cm, mac)

/* mrc_wire_cm flags */
#define MRC_CM_F_NEED_TOKEN	0x0001	/* request: I do not know the token
					 * you expect from me: send me a
					 * request of your own
					 */
#define MRC_CM_F_REPLY		0x0002	/* v4: a reply (a request must not
					 * pass for one, nor the reverse)
					 */
#define MRC_CM_F_MAC		0x0004	/* v4: mac is set (the sender has a
					 * key for the receiver)
					 */

/* struct mrc_wire_cm, parsed: host byte order. */
struct mrc_cm {
	u8	nqp;
	u16	flags;
	u32	src_node;
	u32	dst_node;
	u32	rail_id;
	u32	incarnation;
	u64	ts;
	u64	nonce;
	u64	token;
	u32	qpn[MRC_CM_MAX_QPS];
	u8	mac[MRC_CM_MAC_LEN];
};

void mrc_wire_cm_put(void *buf, const struct mrc_cm *cm);
int mrc_wire_cm_parse(const void *buf, u32 len, struct mrc_cm *cm);

/* A parsed header, host byte order. */
struct mrc_pkt {
	u8	version;
	u8	type;
	u16	flags;
	u32	src_node;
	u32	dst_node;
	u16	src_port;
	u16	dst_port;
	u64	msg_id;
	u32	offset;
	u32	msg_len;
	u16	len;
	u16	seg;
	u16	entropy;
	u32	path_seq;
	u32	credit;
	u64	tstamp;
	u64	token;		/* v3: the receiver's secret for the sender */
	const u8 *body;		/* points into the buffer, len bytes */
	/*
	 * The done list (MRC_WF_DONE_MORE): ndone big-endian entries.  A
	 * parsed SACK's points into its body; a parsed DATA's precedes
	 * body, and len counts only the payload.  A DATA to send carries
	 * them the same way: mrc_wire_put_hdr() counts them in len, the
	 * host writes them right after the header, the payload after.
	 */
	const u8 *done;
	u8	ndone;
	u16	ack_delay_us;	/* SACK, DATA with a done list (v7) */
};

/* Receiver's limits for validation. */
struct mrc_wire_limits {
	u32	max_msg_len;	/* the max_msg_size knob */
	u32	local_node;	/* dst_node must match */
};

enum mrc_drop_reason mrc_wire_parse(const void *buf, u32 buflen,
				    const struct mrc_wire_limits *lim,
				    struct mrc_pkt *pkt);

void mrc_wire_put_hdr(void *buf, const struct mrc_pkt *pkt);

/* Packets of a message of @msg_len bytes cut in @seg-byte segments. */
static inline u32 mrc_wire_npkts(u32 msg_len, u16 seg)
{
	return msg_len ? msg_len / seg + !!(msg_len % seg) : 1;
}

/*
 * Helpers (wire.c).  The parsed bodies below are host byte order; the
 * get_* functions may only be called on a packet mrc_wire_parse()
 * accepted with the matching type, the put_* functions write a body and
 * return its length for mrc_pkt.len.
 */

/*
 * SACK body, parsed.  Bit i of the bitmap (word i / 64, bit i % 64) stands
 * for packet cum + 1 + i; bits at or above nbits are always 0 here.
 */
struct mrc_pkt_sack {
	u32	cum;
	u32	nbits;
	u64	bitmap[MRC_WIRE_SACK_BITS / 64];
	u16	echo_entropy;
	u32	echo_path_seq;
	u64	echo_tstamp;
};

/* One NACK hole: packets [first, first + count). */
struct mrc_pkt_nack_range {
	u32	first;
	u32	count;
};

/* HELLO / HELLO_REPLY / PROBE / PROBE_REPLY body, parsed. */
struct mrc_pkt_hello {
	u32	qpn;
	u32	qkey;
	u32	rail_id;
	u32	echo_path_seq;
	u64	echo_tstamp;
};

void mrc_wire_get_sack(const struct mrc_pkt *pkt, struct mrc_pkt_sack *sack);
u16 mrc_wire_put_sack(void *body, const struct mrc_pkt_sack *sack);

unsigned int mrc_wire_done_n(const struct mrc_pkt *pkt);
u32 mrc_wire_get_done(const struct mrc_pkt *pkt, unsigned int i);
u16 mrc_wire_put_done(void *body, const u32 *seq, unsigned int n);
u32 mrc_wire_done_epoch(const struct mrc_pkt *pkt);

unsigned int mrc_wire_nack_nranges(const struct mrc_pkt *pkt);
void mrc_wire_get_nack_range(const struct mrc_pkt *pkt, unsigned int i,
			     struct mrc_pkt_nack_range *range);
u16 mrc_wire_put_nack(void *body, const struct mrc_pkt_nack_range *ranges,
		      unsigned int n);

void mrc_wire_get_hello(const struct mrc_pkt *pkt, struct mrc_pkt_hello *hello);
u16 mrc_wire_put_hello(void *body, const struct mrc_pkt_hello *hello);

u32 mrc_wire_get_rail_down(const struct mrc_pkt *pkt);
u16 mrc_wire_put_rail_down(void *body, u32 rail_id);

/* CREDIT_REQ / GRANT body, parsed. */
struct mrc_pkt_credit {
	u32	msg_len;
	u32	granted;
	u32	seq;
};

void mrc_wire_get_credit(const struct mrc_pkt *pkt,
			 struct mrc_pkt_credit *credit);
u16 mrc_wire_put_credit(void *body, const struct mrc_pkt_credit *credit);

const char *mrc_wire_type_name(unsigned int type);
const char *mrc_drop_reason_name(unsigned int reason);

#endif /* _MRC_WIRE_H */
