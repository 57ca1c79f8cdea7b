// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_echo - example consumer of mrc's kernel API (mrc_api.h), used by
 * selftests/mrc/transfer.sh.
 *
 * Opens port `port` (module parameter, default 7).  Commands written to
 * /sys/kernel/debug/mrc_echo/ctl:
 *
 *   send NODE PORT COUNT MAXLEN SEED [FIXED]
 *                                      queue COUNT messages of random
 *                                      sizes 1..MAXLEN (all MAXLEN if
 *                                      FIXED is 1; at most `window`
 *                                      (module parameter, 1..16, default
 *                                      16) and 96 MiB in flight) from a
 *                                      work item;
 *                                      message i goes from our endpoint
 *                                      i % nports to port PORT + i % nports
 *   reset                              zero the counters and forget
 *                                      the last sequence number seen
 *                                      from each node (soak.sh restarts
 *                                      a peer, whose numbers start over)
 *   stop                               end the running send job after
 *                                      its current message (teardown.sh)
 *   hold 1|0                           admit() turns every new message
 *                                      away (-EBUSY: its sender waits)
 *                                      or takes them again (transfer.sh;
 *                                      stats: held counts the refusals)
 *
 * With the module parameter reply_ms set (0 or more; -1, the default, is
 * off), recv() waits that long, or until the module starts to unload,
 * and then sends the message back to its sender's endpoint from inside
 * recv(), as the API allows: teardown.sh closes such an endpoint (rmmod)
 * while deliveries wait, so that they reply during the close (replied,
 * reply_err, reply_ok, reply_failed count it; recv_calls counts the
 * calls of recv() as they start).  reply_node sends the
 * replies to port 7 of that node instead (teardown.sh: a configured
 * peer that is not there, so that a reply's done() comes seconds later).
 *
 * /sys/kernel/debug/mrc_echo/stats prints the counters, among them the
 * receiver's delivery timeline since the last reset: rx_gap_max_us is
 * the longest time between two deliveries (rx_gap_at_bytes: bytes
 * delivered before it), rx_span_us the time from the first to the last
 * delivery; done_ehostunreach counts sends that failed with
 * -EHOSTUNREACH, done_err_last_status is the last failure's status.
 * /sys/kernel/debug/mrc_echo/lat lists the completion time (mrc_send()
 * to done(), us) of each of the first ECHO_LAT_MAX sends completed
 * since the last reset, one per line (used by bench/credit).
 *
 * Every message's content is a function of its length and a per-message
 * seed, so the
 * receiver recomputes it independently: a message of at least 16 bytes
 * starts with {magic, seq, seed, crc32 of the rest}; a shorter one is a
 * pattern of its length only.  The receiver checks content, CRC and that
 * the sequence numbers from each source node to each of our endpoints
 * only go up (in-order delivery per pair of endpoints).
 */
#include <linux/completion.h>
#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "mrc_api.h"

static ushort port = 7;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "first mrc port to open");

static uint nports = 1;
module_param(nports, uint, 0444);
MODULE_PARM_DESC(nports, "endpoints to open: port .. port + nports - 1 (1..8)");

#define ECHO_MAGIC	0x6d726345	/* "mrcE" */
#define ECHO_WINDOW	16

static int reply_ms = -1;
module_param(reply_ms, int, 0444);
MODULE_PARM_DESC(reply_ms, "recv() waits this long (ms) or until the unload, then sends the message back (-1: no reply)");

static uint reply_node;
module_param(reply_node, uint, 0444);
MODULE_PARM_DESC(reply_node, "node the replies go to, port 7 (0: the sender's node and port)");

static uint seq_base;
module_param(seq_base, uint, 0444);
MODULE_PARM_DESC(seq_base, "sequence number before our first message (a reloaded instance continues where the last one stopped, so its peer's order check holds)");

static uint window = ECHO_WINDOW;
module_param(window, uint, 0644);
MODULE_PARM_DESC(window, "sends in flight at most (1..16; 1: closed loop)");
#define ECHO_WINDOW_BYTES	(96U << 20)	/* beyond one message */
#define ECHO_MAX_PORTS	8
#define ECHO_MAX_NODES	64
#define ECHO_LAT_MAX	4096

struct echo_hdr {
	__le32 magic, seq, seed, crc;
};

static struct mrc_ep *echo_ep[ECHO_MAX_PORTS];
static struct dentry *echo_dir;
static DECLARE_WAIT_QUEUE_HEAD(echo_wq);
static atomic_t echo_inflight;
static atomic64_t echo_inflight_bytes;

static atomic64_t st_sent, st_done_ok, st_done_err, st_send_err, st_rx,
	st_rx_bytes, st_rx_bad, st_rx_order, st_tx_bytes, st_done_unreach,
	st_replied, st_reply_err, st_reply_ok, st_reply_failed, st_recv_calls;
static atomic_t st_err_last;

/* Delivery timeline since the last reset, under seq_lock (ns). */
static u64 rx_first_ns, rx_last_ns, rx_gap_max_ns, rx_gap_at;
/*
 * Per source node and our endpoint (mrc orders a node's messages per
 * receiving port: mrc_api.h), under seq_lock.
 */
static u32 last_seq[ECHO_MAX_NODES][ECHO_MAX_PORTS];
/* Completion times of sends since the last reset (us), under seq_lock. */
static u32 lat_us[ECHO_LAT_MAX];
static unsigned int lat_n;
static DEFINE_SPINLOCK(seq_lock);
static u32 tx_seq;

static struct {
	struct work_struct work;
	u32 node, count, maxlen, seed;
	u16 port;
	bool fixed;
	bool busy;
	bool stop;
} echo_job;

static u32 echo_rand(u32 *s)
{
	/* xorshift32: the same sequence on both sides */
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void echo_fill(u8 *p, u32 len, u32 seed)
{
	u32 s = seed ? seed : 1, i;

	for (i = 0; i + 4 <= len; i += 4) {
		u32 v = echo_rand(&s);

		memcpy(p + i, &v, 4);
	}
	for (; i < len; i++)
		p[i] = echo_rand(&s);
}

static void echo_make(u8 *buf, u32 len, u32 seq, u32 seed)
{
	struct echo_hdr h;
	u32 i;

	if (len < sizeof(h)) {
		for (i = 0; i < len; i++)
			buf[i] = (u8)(len * 31 + i * 7);
		return;
	}
	echo_fill(buf + sizeof(h), len - sizeof(h), seed);
	h.magic = cpu_to_le32(ECHO_MAGIC);
	h.seq = cpu_to_le32(seq);
	h.seed = cpu_to_le32(seed);
	h.crc = cpu_to_le32(crc32_le(~0, buf + sizeof(h), len - sizeof(h)));
	memcpy(buf, &h, sizeof(h));
}

/* Returns 0 if @data is what its sender made, else -EBADMSG. */
static int echo_check(const u8 *data, u32 len, u32 *seq)
{
	struct echo_hdr h;
	u8 *want;
	u32 i, seed;
	int ok;

	*seq = 0;
	if (len < sizeof(h)) {
		for (i = 0; i < len; i++)
			if (data[i] != (u8)(len * 31 + i * 7))
				return -EBADMSG;
		return 0;
	}
	memcpy(&h, data, sizeof(h));
	if (le32_to_cpu(h.magic) != ECHO_MAGIC ||
	    crc32_le(~0, data + sizeof(h), len - sizeof(h)) !=
	    le32_to_cpu(h.crc))
		return -EBADMSG;
	*seq = le32_to_cpu(h.seq);
	seed = le32_to_cpu(h.seed);
	want = kvmalloc(len - sizeof(h) + 1, GFP_KERNEL);
	if (!want)
		return 0;	/* CRC checked; skip the full compare */
	echo_fill(want, len - sizeof(h), seed);
	ok = !memcmp(want, data + sizeof(h), len - sizeof(h));
	kvfree(want);
	return ok ? 0 : -EBADMSG;
}

/* done() of a reply sent from recv(). */
static void echo_reply_done(void *ctx, int status)
{
	atomic64_inc(status ? &st_reply_failed : &st_reply_ok);
}

/* Opened when the module starts to unload: recv()s waiting to reply go. */
static DECLARE_COMPLETION(reply_gate);

/*
 * reply_ms: wait in recv() (interruptibly: a kworker gets no signal, and
 * a long wait is not a hung task), then send the message back from there.
 */
static void echo_reply(struct mrc_ep *ep, u32 src_node, u16 src_port,
		       const void *data, u32 len)
{
	wait_for_completion_interruptible_timeout(&reply_gate,
						  msecs_to_jiffies(reply_ms));
	if (reply_node) {
		src_node = reply_node;
		src_port = 7;
	}
	if (mrc_send(ep, src_node, src_port, data, len, echo_reply_done, NULL))
		atomic64_inc(&st_reply_err);
	else
		atomic64_inc(&st_replied);
}

static void echo_recv(struct mrc_ep *ep, void *ctx, u32 src_node,
		      u16 src_port, const void *data, u32 len)
{
	u64 now = ktime_get_ns();
	u32 seq, *last;

	atomic64_inc(&st_recv_calls);
	if (reply_ms >= 0)
		echo_reply(ep, src_node, src_port, data, len);

	spin_lock(&seq_lock);
	if (!rx_first_ns)
		rx_first_ns = now;
	if (rx_last_ns && now - rx_last_ns > rx_gap_max_ns) {
		rx_gap_max_ns = now - rx_last_ns;
		rx_gap_at = atomic64_read(&st_rx_bytes);
	}
	rx_last_ns = now;
	spin_unlock(&seq_lock);
	atomic64_inc(&st_rx);
	atomic64_add(len, &st_rx_bytes);
	/* Sender's endpoint i talks to our endpoint i. */
	if (src_port != (u16)(uintptr_t)ctx) {
		atomic64_inc(&st_rx_bad);
		pr_err("mrc_echo: port %u got a message from port %u\n",
		       (u16)(uintptr_t)ctx, src_port);
		return;
	}
	if (echo_check(data, len, &seq)) {
		atomic64_inc(&st_rx_bad);
		pr_err("mrc_echo: bad message from %u:%u, %u bytes\n",
		       src_node, src_port, len);
		return;
	}
	if (!seq)
		return;
	spin_lock(&seq_lock);
	last = &last_seq[src_node % ECHO_MAX_NODES]
			[((u16)(uintptr_t)ctx - port) % ECHO_MAX_PORTS];
	if (seq <= *last) {
		atomic64_inc(&st_rx_order);
		pr_err("mrc_echo: from %u to port %u: seq %u after %u\n",
		       src_node, (u16)(uintptr_t)ctx, seq, *last);
	}
	*last = seq;
	spin_unlock(&seq_lock);
}

/* "hold 1": admit() turns new messages away (-EBUSY) until "hold 0". */
static bool echo_hold;
static atomic64_t st_held;

static int echo_admit(struct mrc_ep *ep, void *ctx, u32 len)
{
	if (!READ_ONCE(echo_hold))
		return 0;
	atomic64_inc(&st_held);
	return -EBUSY;
}

static const struct mrc_ep_ops echo_ops = {
	.recv = echo_recv,
	.admit = echo_admit,
};

/* One send in flight: its length (the byte window) and start time. */
struct echo_tx {
	u64 t0;
	u32 len;
};

static void echo_done(void *ctx, int status)
{
	struct echo_tx *tx = ctx;
	u64 us = div_u64(ktime_get_ns() - tx->t0, 1000);

	spin_lock(&seq_lock);
	if (lat_n < ECHO_LAT_MAX)
		lat_us[lat_n++] = (u32)min_t(u64, us, U32_MAX);
	spin_unlock(&seq_lock);
	if (status) {
		atomic64_inc(&st_done_err);
		atomic_set(&st_err_last, status);
		if (status == -EHOSTUNREACH)
			atomic64_inc(&st_done_unreach);
		pr_err_ratelimited("mrc_echo: send failed: %d\n", status);
	} else {
		atomic64_inc(&st_done_ok);
	}
	atomic64_sub(tx->len, &echo_inflight_bytes);
	kfree(tx);
	atomic_dec(&echo_inflight);
	wake_up(&echo_wq);
}

/* Room for one more message of @len: a window of messages and bytes. */
static bool echo_room(u32 len)
{
	s64 b = atomic64_read(&echo_inflight_bytes);

	return atomic_read(&echo_inflight) <
	       clamp_t(int, READ_ONCE(window), 1, ECHO_WINDOW) &&
	       (!b || b + len <= ECHO_WINDOW_BYTES);
}

static void echo_workfn(struct work_struct *work)
{
	u32 s = echo_job.seed ? echo_job.seed : 1, i;
	u8 *buf = kvmalloc(echo_job.maxlen, GFP_KERNEL);

	if (!buf)
		goto out;
	if (!tx_seq)
		tx_seq = seq_base;
	for (i = 0; i < echo_job.count && !READ_ONCE(echo_job.stop); i++) {
		u32 len = echo_rand(&s) % echo_job.maxlen + 1;
		u32 seed = echo_rand(&s);
		struct echo_tx *tx;
		int err;

		/* Mostly spread sizes, some tiny and some maximal. */
		if (echo_job.fixed)
			len = echo_job.maxlen;
		else if (i % 10 == 1)
			len = len % 64 + 1;
		else if (i % 10 == 2)
			len = echo_job.maxlen;
		echo_make(buf, len, ++tx_seq, seed);
		tx = kmalloc(sizeof(*tx), GFP_KERNEL);
		if (!tx) {
			atomic64_inc(&st_send_err);
			continue;
		}
		/*
		 * Idle, not uninterruptible: the window frees as fast as
		 * the transfer goes, which on a debug kernel under TCG can
		 * be slower than the hung-task timeout the lane sets (30 s).
		 */
		wait_event_idle(echo_wq, echo_room(len));
		atomic_inc(&echo_inflight);
		atomic64_add(len, &echo_inflight_bytes);
		tx->len = len;
		tx->t0 = ktime_get_ns();
		/* Message i: from our endpoint i % nports to theirs. */
		err = mrc_send(echo_ep[i % nports], echo_job.node,
			       echo_job.port + i % nports, buf, len, echo_done,
			       tx);
		if (err) {
			kfree(tx);
			atomic64_sub(len, &echo_inflight_bytes);
			atomic_dec(&echo_inflight);
			atomic64_inc(&st_send_err);
			pr_err_ratelimited("mrc_echo: mrc_send: %d\n", err);
			/*
			 * Sleep: a work item that never does keeps the other
			 * work of its CPU's pool (mrc's deliveries) from
			 * running, and so a `peer del` waiting for them.
			 */
			usleep_range(1000, 2000);
			continue;
		}
		atomic64_inc(&st_sent);
		atomic64_add(len, &st_tx_bytes);
	}
	kvfree(buf);
out:
	WRITE_ONCE(echo_job.busy, false);
}

static ssize_t echo_ctl_write(struct file *f, const char __user *ubuf,
			      size_t n, loff_t *ppos)
{
	char cmd[96];
	u32 node, p, count, maxlen, seed, fixed = 0;
	int n_args;

	if (n >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, n))
		return -EFAULT;
	cmd[n] = 0;
	if (!strncmp(cmd, "reset", 5)) {
		atomic64_set(&st_sent, 0);
		atomic64_set(&st_done_ok, 0);
		atomic64_set(&st_done_err, 0);
		atomic64_set(&st_send_err, 0);
		atomic64_set(&st_rx, 0);
		atomic64_set(&st_rx_bytes, 0);
		atomic64_set(&st_rx_bad, 0);
		atomic64_set(&st_rx_order, 0);
		atomic64_set(&st_tx_bytes, 0);
		atomic64_set(&st_done_unreach, 0);
		atomic64_set(&st_replied, 0);
		atomic64_set(&st_reply_err, 0);
		atomic64_set(&st_reply_ok, 0);
		atomic64_set(&st_reply_failed, 0);
		atomic64_set(&st_recv_calls, 0);
		atomic64_set(&st_held, 0);
		atomic_set(&st_err_last, 0);
		spin_lock(&seq_lock);
		rx_first_ns = 0;
		rx_last_ns = 0;
		rx_gap_max_ns = 0;
		rx_gap_at = 0;
		lat_n = 0;
		/* A restarted peer numbers its messages from 1 again. */
		memset(last_seq, 0, sizeof(last_seq));
		spin_unlock(&seq_lock);
		return n;
	}
	if (!strncmp(cmd, "stop", 4)) {
		WRITE_ONCE(echo_job.stop, true);
		return n;
	}
	if (!strncmp(cmd, "hold ", 5)) {
		WRITE_ONCE(echo_hold, cmd[5] == '1');
		return n;
	}
	n_args = sscanf(cmd, "send %u %u %u %u %u %u", &node, &p, &count,
			&maxlen, &seed, &fixed);
	if (n_args < 5 || !maxlen || maxlen > MRC_MSG_MAX_LEN ||
	    p + nports - 1 > 0xffff || fixed > 1)
		return -EINVAL;
	if (READ_ONCE(echo_job.busy))
		return -EBUSY;
	echo_job.busy = true;
	echo_job.stop = false;
	echo_job.node = node;
	echo_job.port = p;
	echo_job.count = count;
	echo_job.maxlen = maxlen;
	echo_job.seed = seed;
	echo_job.fixed = fixed;
	schedule_work(&echo_job.work);
	return n;
}

static const struct file_operations echo_ctl_fops = {
	.owner = THIS_MODULE,
	.write = echo_ctl_write,
};

static int echo_stats_show(struct seq_file *s, void *unused)
{
	u64 first, last, gap, at;

	seq_printf(s, "busy %d\n", READ_ONCE(echo_job.busy));
	seq_printf(s, "sent %lld\n", atomic64_read(&st_sent));
	seq_printf(s, "tx_bytes %lld\n", atomic64_read(&st_tx_bytes));
	seq_printf(s, "done_ok %lld\n", atomic64_read(&st_done_ok));
	seq_printf(s, "done_err %lld\n", atomic64_read(&st_done_err));
	seq_printf(s, "send_err %lld\n", atomic64_read(&st_send_err));
	seq_printf(s, "rx %lld\n", atomic64_read(&st_rx));
	seq_printf(s, "rx_bytes %lld\n", atomic64_read(&st_rx_bytes));
	seq_printf(s, "rx_bad %lld\n", atomic64_read(&st_rx_bad));
	seq_printf(s, "rx_order %lld\n", atomic64_read(&st_rx_order));
	seq_printf(s, "done_ehostunreach %lld\n",
		   atomic64_read(&st_done_unreach));
	seq_printf(s, "done_err_last_status %d\n", atomic_read(&st_err_last));
	seq_printf(s, "replied %lld\n", atomic64_read(&st_replied));
	seq_printf(s, "reply_err %lld\n", atomic64_read(&st_reply_err));
	seq_printf(s, "reply_ok %lld\n", atomic64_read(&st_reply_ok));
	seq_printf(s, "reply_failed %lld\n", atomic64_read(&st_reply_failed));
	seq_printf(s, "recv_calls %lld\n", atomic64_read(&st_recv_calls));
	seq_printf(s, "held %lld\n", atomic64_read(&st_held));
	spin_lock(&seq_lock);
	first = rx_first_ns;
	last = rx_last_ns;
	gap = rx_gap_max_ns;
	at = rx_gap_at;
	spin_unlock(&seq_lock);
	seq_printf(s, "rx_span_us %llu\n", div_u64(last - first, 1000));
	seq_printf(s, "rx_gap_max_us %llu\n", div_u64(gap, 1000));
	seq_printf(s, "rx_gap_at_bytes %llu\n", at);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(echo_stats);

static int echo_lat_show(struct seq_file *s, void *unused)
{
	unsigned int i, n;
	u32 *v = kvmalloc_array(ECHO_LAT_MAX, sizeof(*v), GFP_KERNEL);

	if (!v)
		return -ENOMEM;
	spin_lock(&seq_lock);
	n = lat_n;
	memcpy(v, lat_us, n * sizeof(*v));
	spin_unlock(&seq_lock);
	for (i = 0; i < n; i++)
		seq_printf(s, "%u\n", v[i]);
	kvfree(v);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(echo_lat);

static int __init echo_init(void)
{
	unsigned int i;

	if (!nports || nports > ECHO_MAX_PORTS || port + nports - 1 > 0xffff)
		return -EINVAL;
	INIT_WORK(&echo_job.work, echo_workfn);
	for (i = 0; i < nports; i++) {
		echo_ep[i] = mrc_ep_open(port + i, &echo_ops,
					 (void *)(uintptr_t)(port + i));
		if (IS_ERR(echo_ep[i])) {
			int err = PTR_ERR(echo_ep[i]);

			while (i--)
				mrc_ep_close(echo_ep[i]);
			return err;
		}
	}
	echo_dir = debugfs_create_dir("mrc_echo", NULL);
	debugfs_create_file("ctl", 0200, echo_dir, NULL, &echo_ctl_fops);
	debugfs_create_file("stats", 0444, echo_dir, NULL, &echo_stats_fops);
	debugfs_create_file("lat", 0444, echo_dir, NULL, &echo_lat_fops);
	return 0;
}

static void __exit echo_exit(void)
{
	unsigned int i;

	debugfs_remove_recursive(echo_dir);
	cancel_work_sync(&echo_job.work);
	complete_all(&reply_gate);	/* waiting recv()s reply, as we close */
	for (i = 0; i < nports; i++)
		mrc_ep_close(echo_ep[i]);	/* waits for every done() */
}

module_init(echo_init);
module_exit(echo_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mrc example consumer: checked random-size transfers");
