/* SPDX-License-Identifier: GPL-2.0 */
/*
 * trace.h - mrc's trace events: one per stage of a message's way
 * through sender and receiver, so that perf, ftrace or bpftrace can see
 * where the time of a message goes (bench/profile counts them):
 *
 *   mrc_send       a send accepted (mrc_msg_send)
 *   mrc_data_tx    a DATA packet posted on a path
 *   mrc_data_rx    a DATA packet received, before the engine sees it
 *   mrc_sack_tx    a SACK posted;          mrc_sack_rx  one received
 *   mrc_nack_tx    a NACK posted;          mrc_nack_rx  one received
 *   mrc_complete   a send completed (its done() is about to be called)
 *   mrc_deliver    a whole message handed to its endpoint
 *   mrc_ep_read    a message read from /dev/mrc
 *
 * Included once with CREATE_TRACE_POINTS (events.c).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mrc

#if !defined(_MRC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MRC_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(mrc_send,
	TP_PROTO(u32 node, u16 port, u8 cls, u32 len),
	TP_ARGS(node, port, cls, len),
	TP_STRUCT__entry(
		__field(u32, node)
		__field(u16, port)
		__field(u8, cls)
		__field(u32, len)
	),
	TP_fast_assign(
		__entry->node = node;
		__entry->port = port;
		__entry->cls = cls;
		__entry->len = len;
	),
	TP_printk("node=%u port=%u class=%u len=%u", __entry->node,
		  __entry->port, __entry->cls, __entry->len)
);

/* A packet of the message engine: @node is the peer, @pi the path. */
DECLARE_EVENT_CLASS(mrc_pkt_class,
	TP_PROTO(u32 node, unsigned int pi, u64 msg_id, u32 offset, u16 len),
	TP_ARGS(node, pi, msg_id, offset, len),
	TP_STRUCT__entry(
		__field(u64, msg_id)
		__field(u32, node)
		__field(u32, pi)
		__field(u32, offset)
		__field(u16, len)
	),
	TP_fast_assign(
		__entry->msg_id = msg_id;
		__entry->node = node;
		__entry->pi = pi;
		__entry->offset = offset;
		__entry->len = len;
	),
	TP_printk("node=%u path=%u msg=%llu off=%u len=%u", __entry->node,
		  __entry->pi, __entry->msg_id, __entry->offset, __entry->len)
);

#define MRC_DEFINE_PKT_EVENT(name)					\
DEFINE_EVENT(mrc_pkt_class, name,					\
	TP_PROTO(u32 node, unsigned int pi, u64 msg_id, u32 offset,	\
		 u16 len),						\
	TP_ARGS(node, pi, msg_id, offset, len))

MRC_DEFINE_PKT_EVENT(mrc_data_tx);
MRC_DEFINE_PKT_EVENT(mrc_data_rx);
MRC_DEFINE_PKT_EVENT(mrc_sack_tx);
MRC_DEFINE_PKT_EVENT(mrc_sack_rx);
MRC_DEFINE_PKT_EVENT(mrc_nack_tx);
MRC_DEFINE_PKT_EVENT(mrc_nack_rx);

/* A send completed: @port is its destination port. */
TRACE_EVENT(mrc_complete,
	TP_PROTO(u16 port, u64 msg_id, u32 len, int status),
	TP_ARGS(port, msg_id, len, status),
	TP_STRUCT__entry(
		__field(u64, msg_id)
		__field(u32, len)
		__field(int, status)
		__field(u16, port)
	),
	TP_fast_assign(
		__entry->msg_id = msg_id;
		__entry->len = len;
		__entry->status = status;
		__entry->port = port;
	),
	TP_printk("port=%u msg=%llu len=%u status=%d", __entry->port,
		  __entry->msg_id, __entry->len, __entry->status)
);

TRACE_EVENT(mrc_deliver,
	TP_PROTO(u32 src_node, u16 src_port, u16 dst_port, u32 len),
	TP_ARGS(src_node, src_port, dst_port, len),
	TP_STRUCT__entry(
		__field(u32, src_node)
		__field(u16, src_port)
		__field(u16, dst_port)
		__field(u32, len)
	),
	TP_fast_assign(
		__entry->src_node = src_node;
		__entry->src_port = src_port;
		__entry->dst_port = dst_port;
		__entry->len = len;
	),
	TP_printk("from=%u:%u port=%u len=%u", __entry->src_node,
		  __entry->src_port, __entry->dst_port, __entry->len)
);

TRACE_EVENT(mrc_ep_read,
	TP_PROTO(u16 port, u32 src_node, u32 len),
	TP_ARGS(port, src_node, len),
	TP_STRUCT__entry(
		__field(u32, src_node)
		__field(u32, len)
		__field(u16, port)
	),
	TP_fast_assign(
		__entry->src_node = src_node;
		__entry->len = len;
		__entry->port = port;
	),
	TP_printk("port=%u from=%u len=%u", __entry->port, __entry->src_node,
		  __entry->len)
);

#endif /* _MRC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
