/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config_knobs.h - the list of mrc's module-wide knobs, in one place.
 *
 * X(name, netlink attribute, min, max, default, flags, unit, help)
 *
 * The name is at once the module parameter, the file in /sys/kernel/mrc/
 * and the key of "mrcctl config set".  Every entry must be documented in
 * Documentation/ABI/testing/sysfs-kernel-mrc and have a test that shows it
 * has an effect.  Append only; see uapi/linux/mrc.h for the rule.
 */
#ifndef _MRC_CONFIG_KNOBS_H
#define _MRC_CONFIG_KNOBS_H

/* flags */
#define MRC_KNOB_POW2	0x1	/* value must be a power of two */

#define MRC_CONFIG_KNOBS(X)						\
	X(max_rails, MRC_CONFIG_A_MAX_RAILS, 1, 1024, 64, 0, "rails",	\
	  "most rails (device ports) mrc takes; later ones are refused")\
	X(min_mtu, MRC_CONFIG_A_MIN_MTU, 256, 4096, 1024, MRC_KNOB_POW2,\
	  "bytes",							\
	  "smallest active RDMA MTU for a rail to be usable")	\
	X(entropy, MRC_CONFIG_A_ENTROPY, 1, 24, 8, 0, "QPs",		\
	  "UD QPs (entropy values) per rail, for rails created later")	\
	X(node_id, MRC_CONFIG_A_NODE_ID, 0, 0x7fffffff, 0, 0, "",	\
	  "this node's id on the wire; 0 = not set (no peers)")	\
	X(probe_ms, MRC_CONFIG_A_PROBE_MS, 10, 10000, 250, 0, "ms",	\
	  "keepalive probe interval of an idle active path")		\
	X(rto_max_ms, MRC_CONFIG_A_RTO_MAX_MS, 10, 2000, 200, 0, "ms",	\
	  "upper bound of a path's retransmission timeout")		\
	X(peer_timeout_ms, MRC_CONFIG_A_PEER_TIMEOUT_MS, 100, 600000,	\
	  3000, 0, "ms",						\
	  "no usable path this long: a peer's queued sends fail")	\
	X(tx_msgs_per_peer, MRC_CONFIG_A_TX_MSGS_PER_PEER, 1, 65536,	\
	  4096, 0, "messages",						\
	  "messages queued to one peer; more sends fail with ENOBUFS")	\
	X(rx_msgs_per_peer, MRC_CONFIG_A_RX_MSGS_PER_PEER, 1, 4096, 64,\
	  0, "messages",						\
	  "messages one peer may have in reassembly or waiting here")	\
	X(rx_buffer_mb, MRC_CONFIG_A_RX_BUFFER_MB, 1, 65536, 256, 0,	\
	  "MiB",							\
	  "reassembly buffer memory for all peers together")	\
	/* privilege.sh: bounds one /dev/mrc endpoint's send memory */	\
	X(dev_sndbuf_mb, MRC_CONFIG_A_DEV_SNDBUF_MB, 1, 65536, 256, 0,	\
	  "MiB",							\
	  "most payload bytes one /dev/mrc endpoint has sent but not completed")	\
	X(sched_policy, MRC_CONFIG_A_SCHED_POLICY, 0, 3, 3, 0, "",	\
	  "path scheduling policy: 0 round-robin, 1 min-inflight, "	\
	  "2 min-latency, 3 load-aware")	\
	/* receiver-driven credits (credit_peer.c) */			\
	X(credit, MRC_CONFIG_A_CREDIT, 0, 1, 1, 0, "",			\
	  "1: receiver-driven credits on; 0: off (send at once)")	\
	X(credit_unsched_bytes, MRC_CONFIG_A_CREDIT_UNSCHED_BYTES, 0,	\
	  67108864, 131072, 0, "bytes",					\
	  "bytes of a message sent without a grant (same on all nodes); " \
	  "0 = every message waits for one")				\
	X(credit_rate_kbps, MRC_CONFIG_A_CREDIT_RATE_KBPS, 0, 1000000000, \
	  0, 0, "kbit/s",						\
	  "receiver's drain rate for grants; 0 = sum of its rails' speed") \
	X(credit_policy, MRC_CONFIG_A_CREDIT_POLICY, 0, 1, 0, 0, "",	\
	  "grant policy: 0 = fair share, 1 = shortest remaining first")	\
	X(credit_grant_timeout_ms, MRC_CONFIG_A_CREDIT_GRANT_TIMEOUT_MS, \
	  1, 4000, 10, 0, "ms",						\
	  "re-request after / reclaim unused credit after this long")	\
	/* traffic classes (msg.c): background yields to latency */	\
	X(bg_yield_pkts, MRC_CONFIG_A_BG_YIELD_PKTS, 0, 65536, 4, 0,	\
	  "packets",							\
	  "background packets in flight per peer while latency "	\
	  "traffic runs; 0 = no limit")					\
	X(bulk_yield_pkts, MRC_CONFIG_A_BULK_YIELD_PKTS, 0, 65536, 4, \
	  0, "packets",							\
	  "bulk packets in flight per peer while latency traffic "	\
	  "runs; 0 = no limit")						\
	/* receiver-driven credits, appended */				\
	X(credit_max_outstanding_bytes, MRC_CONFIG_A_CREDIT_MAX_OUTSTANDING_BYTES, 0, 67108864, \
	  0, 0, "bytes",						\
	  "most granted, not yet arrived bytes, all senders; "		\
	  "0 = 4 x the drain of the credit loop (grant to data)")	\
	X(data_rto_min_ms, MRC_CONFIG_A_DATA_RTO_MIN_MS, 0, 2000, 0, 0, \
	  "ms",								\
	  "least retransmission timeout of a DATA packet (capped by "	\
	  "rto_max_ms); 0 = learned per peer, 0.1 to 20 ms or "	\
	  "twice its slowest recent RTT")				\
	/* /dev/mrc: every endpoint's messages together (chardev.c) */	\
	X(dev_mem_mb, MRC_CONFIG_A_DEV_MEM_MB, 64, 1048576, 1024, 0,	\
	  "MiB",							\
	  "most payload all /dev/mrc endpoints hold together: "	\
	  "unfinished sends and queued receives")

#endif /* _MRC_CONFIG_KNOBS_H */
