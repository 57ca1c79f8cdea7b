// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs.c - /sys/kernel/debug/mrc/: every debugfs file of the module,
 * made and removed here; what each shows comes from its concern's file.
 *
 *   msg         message engine counters, buffer bytes (msg.c)
 *   deliveries  time and running bytes of the last deliveries (msg.c)
 *   events      the data path's per-CPU event counters, summed (events.c)
 *   sched       scheduling configuration and per-rail counters
 *               (schedcfg.c)
 *   credit      the credit pacer and per-peer credit counters; "reset"
 *               written to it zeroes the pacer's own (credit_peer.c)
 *   tokens      root only: each peer's tx token, a test hook (peer.c)
 *   cm_request  root only: the last SIDR request sent, a test hook for
 *               replaying it (peer_cm.c)
 *
 * Made last at load and removed first at unload, so a file never shows
 * state that is not there.  debugfs is not an ABI: tests read these, the
 * operator's interfaces are netlink and sysfs.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "mrc.h"
#include "credit_peer.h"
#include "events.h"
#include "msg.h"
#include "peer.h"
#include "schedcfg.h"

static struct dentry *mrc_debugfs_dir;

#define MRC_DEBUGFS_SHOW(name, fn)					\
static int name##_show(struct seq_file *s, void *unused)		\
{									\
	return fn(s);							\
}									\
DEFINE_SHOW_ATTRIBUTE(name)

MRC_DEBUGFS_SHOW(mrc_dbg_msg, mrc_msg_stats_show);
MRC_DEBUGFS_SHOW(mrc_dbg_queues, mrc_msg_queues_show);
MRC_DEBUGFS_SHOW(mrc_dbg_deliveries, mrc_msg_trace_show);
MRC_DEBUGFS_SHOW(mrc_dbg_events, mrc_ev_show);
MRC_DEBUGFS_SHOW(mrc_dbg_sched, mrc_schedcfg_show);
MRC_DEBUGFS_SHOW(mrc_dbg_tokens, mrc_tokens_show);
MRC_DEBUGFS_SHOW(mrc_dbg_cm_request, mrc_cm_request_show);

static int mrc_dbg_credit_show(struct seq_file *s, void *unused)
{
	return mrc_credit_show(s);
}

static int mrc_dbg_credit_open(struct inode *inode, struct file *file)
{
	return single_open(file, mrc_dbg_credit_show, inode->i_private);
}

/* "reset": zero the pacer's own counters, to measure one run. */
static ssize_t mrc_dbg_credit_write(struct file *file,
				    const char __user *ubuf, size_t len,
				    loff_t *ppos)
{
	char buf[8] = {};

	if (len > sizeof(buf) - 1 || copy_from_user(buf, ubuf, len))
		return -EINVAL;
	if (strcmp(strim(buf), "reset"))
		return -EINVAL;
	mrc_credit_stats_reset();
	return len;
}

static const struct file_operations mrc_dbg_credit_fops = {
	.owner = THIS_MODULE,
	.open = mrc_dbg_credit_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = mrc_dbg_credit_write,
};

/**
 * mrc_debugfs_init() - module init: /sys/kernel/debug/mrc/ and its files
 *
 * Return: 0: debugfs failures are not errors (the module works without).
 */
int mrc_debugfs_init(void)
{
	struct dentry *d = debugfs_create_dir("mrc", NULL);

	mrc_debugfs_dir = d;
	debugfs_create_file("msg", 0444, d, NULL, &mrc_dbg_msg_fops);
	debugfs_create_file("queues", 0400, d, NULL, &mrc_dbg_queues_fops);
	debugfs_create_file("deliveries", 0444, d, NULL,
			    &mrc_dbg_deliveries_fops);
	debugfs_create_file("events", 0444, d, NULL, &mrc_dbg_events_fops);
	debugfs_create_file("sched", 0444, d, NULL, &mrc_dbg_sched_fops);
	debugfs_create_file("credit", 0644, d, NULL, &mrc_dbg_credit_fops);
	debugfs_create_file("tokens", 0400, d, NULL, &mrc_dbg_tokens_fops);
	debugfs_create_file("cm_request", 0400, d, NULL,
			    &mrc_dbg_cm_request_fops);
	return 0;
}

/**
 * mrc_debugfs_exit() - module exit: the directory and its files go
 *
 * Context: waits for readers inside a file's show (debugfs removal does).
 */
void mrc_debugfs_exit(void)
{
	debugfs_remove_recursive(mrc_debugfs_dir);
	mrc_debugfs_dir = NULL;
}
