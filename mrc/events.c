// SPDX-License-Identifier: GPL-2.0
/*
 * events.c - the data path's per-CPU event counters (events.h) and its
 * trace events (trace.h, created here).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/seq_file.h>

#include "events.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

DEFINE_PER_CPU(struct mrc_ev_counts, mrc_ev_pcpu);

/* debugfs names, in enum mrc_ev's order. */
static const char *const mrc_ev_names[MRC_EV_NR] = {
	[MRC_EV_SEND] = "send",
	[MRC_EV_TX_POST] = "tx_post",
	[MRC_EV_TX_SIGNALED] = "tx_signaled",
	[MRC_EV_TX_DATA] = "tx_data",
	[MRC_EV_TX_SACK] = "tx_sack",
	[MRC_EV_TX_NACK] = "tx_nack",
	[MRC_EV_TX_CQE] = "tx_cqe",
	[MRC_EV_RX_CQE] = "rx_cqe",
	[MRC_EV_RX_DATA] = "rx_data",
	[MRC_EV_RX_SACK] = "rx_sack",
	[MRC_EV_RX_NACK] = "rx_nack",
	[MRC_EV_TX_KICK] = "tx_kick",
	[MRC_EV_TX_WORK] = "tx_work",
	[MRC_EV_TX_BATCH_RUN] = "tx_batch_run",
	[MRC_EV_TIMER] = "timer",
	[MRC_EV_RX_KICK] = "rx_kick",
	[MRC_EV_RX_WORK] = "rx_work",
	[MRC_EV_COMPLETE] = "complete",
	[MRC_EV_DELIVER] = "deliver",
	[MRC_EV_EP_READ] = "ep_read",
	[MRC_EV_ALLOC] = "alloc",
	[MRC_EV_RXPOOL_HIT] = "rxpool_hit",
	[MRC_EV_RXPOOL_MISS] = "rxpool_miss",
	[MRC_EV_RXPOOL_RECYCLED] = "rxpool_recycled",
	[MRC_EV_RXPOOL_FREED] = "rxpool_freed",
	[MRC_EV_COPY_TX] = "copy_tx_bytes",
	[MRC_EV_COPY_RX] = "copy_rx_bytes",
	[MRC_EV_CQ_WORK] = "cq_work",
	[MRC_EV_TX_REAP] = "tx_reap",
	[MRC_EV_BUSY_POLL] = "busy_poll",
	[MRC_EV_BUSY_CQE] = "busy_cqe",
	[MRC_EV_BUSY_HIT] = "busy_hit",
	[MRC_EV_RX_DIRECT] = "rx_direct",
	[MRC_EV_QP_RECOVER_DEFERRED] = "qp_recover_deferred",
	[MRC_EV_DEV_MEM_FULL] = "dev_mem_full",
	[MRC_EV_DEV_CLOSE_DEFERRED] = "dev_close_deferred",
	[MRC_EV_TX_INPLACE] = "tx_inplace",
	[MRC_EV_TXPOOL_HIT] = "txpool_hit",
	[MRC_EV_TXPOOL_MISS] = "txpool_miss",
	[MRC_EV_TXPOOL_RECYCLED] = "txpool_recycled",
	[MRC_EV_TXPOOL_BUSY] = "txpool_busy",
	[MRC_EV_TXPOOL_FREED] = "txpool_freed",
};

/**
 * mrc_ev_show() - debugfs mrc/events: every counter, summed over the CPUs
 * @s: the seq_file
 *
 * One "name value" line each.  The counters only grow (from module load):
 * a benchmark reads them before and after a run and takes the difference.
 *
 * Return: 0.
 */
int mrc_ev_show(struct seq_file *s)
{
	unsigned int ev;
	int cpu;

	BUILD_BUG_ON(ARRAY_SIZE(mrc_ev_names) != MRC_EV_NR);
	for (ev = 0; ev < MRC_EV_NR; ev++) {
		u64 sum = 0;

		for_each_possible_cpu(cpu)
			sum += per_cpu(mrc_ev_pcpu, cpu).c[ev];
		seq_printf(s, "%s %llu\n", mrc_ev_names[ev], sum);
	}
	return 0;
}
