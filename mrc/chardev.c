// SPDX-License-Identifier: GPL-2.0
/*
 * chardev.c - /dev/mrc: one open file is one endpoint of the kernel API
 * (mrc_api.h), for user space.  The ABI is the "/dev/mrc" section of
 * uapi/linux/mrc.h; Documentation/mrc/devmrc.rst describes it.
 *
 * Design notes
 *
 * A file starts unbound; MRC_IOC_BIND opens the endpoint (mrc_ep_open)
 * and publishes it with smp_store_release, so write() and poll() read it
 * locklessly.  Sending: write() copies the header from user space,
 * reserves one of SNDWIN slots (waits, or EAGAIN), and hands the payload
 * to mrc_ep_send_iter() as an iov_iter, which copies it from user space
 * straight into the message's buffer, the send side's only copy before
 * the send ring; write() returns when the message is queued.  The payload bytes
 * accepted but not completed are bounded too, by the dev_sndbuf_mb knob
 * (one message always fits when none is outstanding): with SNDWIN alone
 * one endpoint could pin 1024 x 64 MiB of kernel memory.  done() releases
 * the slot and counts the result; a failed send is also kept as the
 * file's pending error, returned (once) by the next write() or by
 * MRC_IOC_FLUSH, and shown as POLLERR until then.
 *
 * Receiving: the endpoint's recv_buf() callback (process context) takes
 * the message's reassembly buffer itself, without a copy, onto the file's
 * queue (buffer and queue entry are recycled memory, rxpool.c: read()
 * gives them back).  RCVBUF bounds what mrc admits: the endpoint's
 * admit() says -EBUSY to a new message once the queue holds RCVBUF bytes
 * (a message is always admitted when the queue is empty), and its sender
 * waits and asks again (core/msg_rx.c, Back-pressure), so nothing the
 * peer was told we have is dropped.  What was admitted is always queued:
 * the messages in reassembly when the queue filled may take it past
 * RCVBUF, by at most the reassembly memory mrc gives their peers
 * (rx_buffer_mb).  Only a released file (nobody will read) refuses new
 * messages (ECONNREFUSED at their senders) and drops what still arrives
 * (rx_dropped); so does a failed queue-entry allocation.  read()
 * takes readers one at a time (rd_lock), looks at the head under the
 * queue lock, copies to user space without it and only then unlinks the
 * entry: a short buffer (EMSGSIZE) or a fault leaves it queued.
 *
 * Lifetime: the file's state is referenced by the file and by each
 * accepted send (f->ref).  release() waits for the sends interruptibly
 * and at most peer_timeout_ms, then drops the file's reference and
 * returns, whatever is still queued (a send may take up to 4 x
 * peer_timeout_ms, or longer while a peer keeps acking slowly: waiting
 * for that uninterruptibly made processes unkillable and tripped
 * hung-task reports).  Whoever drops the last reference closes the endpoint and
 * frees the state: release() itself, or the last done() through a work
 * item (mrc_dev_wq: done() may not sleep).  mrc_ep_close() then waits for
 * that done() to return and for any recv(), after which nothing refers to
 * the state.  Until then the port stays bound and what arrives for it is
 * dropped (rx_dropped); a released file with sends left holds a module
 * reference, so mrc cannot be unloaded under it.  Only the file's own
 * endpoint delivers to its queue, so no process can read another
 * endpoint's messages.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/prandom.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/uio.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "mrc.h"
#include "mrc_api.h"
#include "chardev.h"
#include "cq.h"
#include "events.h"
#include "msg.h"
#include "rxpool.h"
#include "trace.h"

struct mrc_dev_msg {
	struct list_head node;
	u32 src_node;
	u16 src_port;
	u32 len;
	void *data;		/* mrc's reassembly buffer (rxpool.c) */
};

struct mrc_dev_file {
	struct mrc_ep *ep;		/* NULL until bound; then constant */
	struct mutex lock;		/* bind, options */
	struct mutex rd_lock;		/* one reader at a time */
	wait_queue_head_t wq;		/* rx queued, tx slot free, done */

	spinlock_t rxq_lock;		/* rxq, rx counters */
	struct list_head rxq;
	u64 rxq_bytes;
	u64 rxq_msgs;
	u64 rx_msgs, rx_bytes, rx_dropped, rx_dropped_bytes;
	u64 rx_busy;			/* new messages held back: queue full */

	u64 rcvbuf;			/* READ_ONCE */
	u32 sndwin;			/* READ_ONCE */
	u32 cls;			/* READ_ONCE: MRC_OPT_CLASS */
	u32 busy_poll_us;		/* READ_ONCE: MRC_OPT_BUSY_POLL */
	atomic_t outstanding;		/* sends accepted, done() not run */
	atomic64_t tx_queued;		/* their payload bytes (dev_sndbuf_mb) */
	atomic_t err;			/* pending send error (-errno) or 0 */
	atomic_t last_err;
	atomic64_t tx_msgs, tx_bytes, tx_done, tx_failed;

	refcount_t ref;			/* the file + one per accepted send */
	bool released;			/* READ_ONCE: release() ran */
	struct work_struct close_work;	/* the last done() after release() */
};

/* Runs the close of released files whose last send just completed. */
static struct workqueue_struct *mrc_dev_wq;

/*
 * Payload bytes all files hold together, bounded by the dev_mem_mb knob:
 * sends accepted and not completed, messages queued for read().  A send
 * takes its bytes or fails (ENOBUFS); a new message for an endpoint is
 * admitted only while they fit (busy: it waits at its sender), and once
 * admitted is always queued, so the total may pass the knob by what was
 * being reassembled when it was reached.
 */
static atomic64_t mrc_dev_mem;

static u64 mrc_dev_mem_cap(void)
{
	return (u64)mrc_knob(MRC_KNOB_dev_mem_mb) << 20;
}

/* Takes @len bytes of the node's budget; false if they do not fit. */
static bool mrc_dev_mem_take(u32 len)
{
	if (atomic64_add_return(len, &mrc_dev_mem) <= mrc_dev_mem_cap())
		return true;
	atomic64_sub(len, &mrc_dev_mem);
	mrc_ev_inc(MRC_EV_DEV_MEM_FULL);
	return false;
}

/* ---- receive ---- */

/* A queued message leaves: its memory and its share of mrc_dev_mem. */
static void mrc_dev_msg_free(struct mrc_dev_msg *m)
{
	atomic64_sub(m->len, &mrc_dev_mem);
	mrc_rxpool_put(m->data, m->len);
	mrc_rxpool_put(m, sizeof(*m));
}

/*
 * A message for this file: its buffer (mrc's reassembly buffer, handed
 * over without a copy) is queued if it fits.  Return: true if taken.
 */
static bool mrc_dev_recv_buf(struct mrc_ep *ep, void *ctx, u32 src_node,
			     u16 src_port, void *data, u32 len)
{
	struct mrc_dev_file *f = ctx;
	struct mrc_dev_msg *m = NULL;

	/* Nobody will read it: the file was closed, its sends linger. */
	if (!READ_ONCE(f->released)) {
		m = mrc_rxpool_get(sizeof(*m));
		if (m) {
			m->src_node = src_node;
			m->src_port = src_port;
			m->len = len;
			m->data = data;
		}
	}

	spin_lock_bh(&f->rxq_lock);
	if (m) {
		atomic64_add(len, &mrc_dev_mem);	/* admitted: kept */
		list_add_tail(&m->node, &f->rxq);
		f->rxq_bytes += len;
		f->rxq_msgs++;
		f->rx_msgs++;
		f->rx_bytes += len;
	} else {
		f->rx_dropped++;
		f->rx_dropped_bytes += len;
	}
	spin_unlock_bh(&f->rxq_lock);
	if (m)
		wake_up_interruptible_poll(&f->wq, EPOLLIN | EPOLLRDNORM);
	else
		pr_info_ratelimited("/dev/mrc port %u: %s, message of %u B from node %u port %u dropped\n",
				    mrc_ep_port(ep),
				    READ_ONCE(f->released) ? "file closed" :
				    "no memory", len, src_node, src_port);
	return m;
}

/*
 * A new message for this file starts to arrive (softirq, under the
 * peer's rx_lock): taken while the queue has room, else its sender waits
 * (-EBUSY); a released file takes nothing new.
 */
static int mrc_dev_admit(struct mrc_ep *ep, void *ctx, u32 len)
{
	struct mrc_dev_file *f = ctx;
	u64 limit = READ_ONCE(f->rcvbuf);
	bool full;

	if (READ_ONCE(f->released))
		return -ECONNREFUSED;
	spin_lock_bh(&f->rxq_lock);
	full = f->rxq_bytes && f->rxq_bytes + len > limit;
	if (!full && atomic64_read(&mrc_dev_mem) + len > mrc_dev_mem_cap()) {
		mrc_ev_inc(MRC_EV_DEV_MEM_FULL);
		full = true;
	}
	if (full)
		f->rx_busy++;
	spin_unlock_bh(&f->rxq_lock);
	return full ? -EBUSY : 0;
}

static const struct mrc_ep_ops mrc_dev_ep_ops = {
	.recv_buf = mrc_dev_recv_buf,
	.admit = mrc_dev_admit,
};

static struct mrc_dev_msg *mrc_dev_rx_head(struct mrc_dev_file *f)
{
	struct mrc_dev_msg *m;

	spin_lock_bh(&f->rxq_lock);
	m = list_first_entry_or_null(&f->rxq, struct mrc_dev_msg, node);
	spin_unlock_bh(&f->rxq_lock);
	return m;
}

/*
 * Busy polling: a reader that would wait polls the CQs itself for up to
 * busy_poll_us.  Returns true as soon as a message is queued.  No lock
 * held: completion handlers run here.
 */
static bool mrc_dev_busy_poll(struct mrc_dev_file *f)
{
	u32 us = READ_ONCE(f->busy_poll_us);
	u64 end;

	if (!us)
		return false;
	end = local_clock() + (u64)us * NSEC_PER_USEC;
	mrc_cq_busy_begin();
	do {
		mrc_cq_busy_poll(MRC_CQ_BUSY_BUDGET);
		if (!list_empty_careful(&f->rxq)) {
			mrc_ev_inc(MRC_EV_BUSY_HIT);
			break;
		}
		if (signal_pending(current))
			break;
		cond_resched();
	} while (local_clock() < end);
	mrc_cq_busy_end();
	return !list_empty_careful(&f->rxq);
}

static ssize_t mrc_dev_read(struct file *file, char __user *buf, size_t count,
			    loff_t *ppos)
{
	struct mrc_dev_file *f = file->private_data;
	struct mrc_dev_recv_hdr h = {};
	struct mrc_dev_msg *m;
	size_t total;
	int err;

	if (mutex_lock_interruptible(&f->rd_lock))
		return -ERESTARTSYS;
	for (;;) {
		m = mrc_dev_rx_head(f);
		if (m)
			break;
		err = -EAGAIN;
		if (file->f_flags & O_NONBLOCK)
			goto out;
		mutex_unlock(&f->rd_lock);
		err = 0;
		if (!mrc_dev_busy_poll(f))
			err = wait_event_interruptible(f->wq,
						       !list_empty_careful(&f->rxq));
		if (err)
			return err;
		if (mutex_lock_interruptible(&f->rd_lock))
			return -ERESTARTSYS;
	}
	/* Only holders of rd_lock unlink entries: m stays ours. */
	total = sizeof(h) + m->len;
	err = -EMSGSIZE;
	if (count < total)
		goto out;
	h.src_node = m->src_node;
	h.src_port = m->src_port;
	h.len = m->len;
	err = -EFAULT;
	if (copy_to_user(buf, &h, sizeof(h)) ||
	    copy_to_user(buf + sizeof(h), m->data, m->len))
		goto out;
	spin_lock_bh(&f->rxq_lock);
	list_del(&m->node);
	f->rxq_bytes -= m->len;
	f->rxq_msgs--;
	spin_unlock_bh(&f->rxq_lock);
	mutex_unlock(&f->rd_lock);
	mrc_ev_inc(MRC_EV_EP_READ);
	mrc_ev_add(MRC_EV_COPY_RX, h.len);
	/* bound before its first message came: pairs with mrc_dev_bind() */
	trace_mrc_ep_read(mrc_ep_port(smp_load_acquire(&f->ep)), h.src_node,
			  h.len);
	mrc_dev_msg_free(m);
	return total;
out:
	mutex_unlock(&f->rd_lock);
	return err;
}

/* ---- send ---- */

/* One accepted send, the context of its done(): gives its bytes back. */
struct mrc_dev_tx {
	struct mrc_dev_file *f;
	u32 len;
};

static void mrc_dev_sent(void *ctx, int status)
{
	struct mrc_dev_tx *tx = ctx;
	struct mrc_dev_file *f = tx->f;

	if (status) {
		atomic64_inc(&f->tx_failed);
		atomic_set(&f->last_err, status);
		atomic_set(&f->err, status);
	} else {
		atomic64_inc(&f->tx_done);
	}
	/*
	 * Counted before its room is given back: a writer that sees the
	 * room (poll, EAGAIN gone) also sees the message done in STATS.
	 */
	smp_mb__before_atomic();
	atomic64_sub(tx->len, &f->tx_queued);
	atomic64_sub(tx->len, &mrc_dev_mem);
	kfree(tx);
	atomic_dec(&f->outstanding);
	wake_up_interruptible_poll(&f->wq, EPOLLOUT | EPOLLWRNORM |
				   (status ? EPOLLERR : 0));
	/* The last reference after release(): close in process context. */
	if (refcount_dec_and_test(&f->ref))
		queue_work(mrc_dev_wq, &f->close_work);
}

static u64 mrc_dev_sndbuf(void)
{
	return (u64)mrc_knob(MRC_KNOB_dev_sndbuf_mb) << 20;
}

/* @len more payload bytes fit (one message always fits alone). */
static bool mrc_dev_tx_fits(struct mrc_dev_file *f, u32 len)
{
	s64 q = atomic64_read(&f->tx_queued);

	return !q || q + len <= mrc_dev_sndbuf();
}

/* Takes a SNDWIN slot and @len bytes of the dev_sndbuf_mb budget. */
static bool mrc_dev_tx_reserve(struct mrc_dev_file *f, u32 len)
{
	int n = atomic_read(&f->outstanding);
	s64 q;

	do {
		if (n >= (int)READ_ONCE(f->sndwin))
			return false;
	} while (!atomic_try_cmpxchg(&f->outstanding, &n, n + 1));
	q = atomic64_add_return(len, &f->tx_queued);
	if (q == len || q <= mrc_dev_sndbuf())
		return true;
	atomic64_sub(len, &f->tx_queued);
	atomic_dec(&f->outstanding);
	/* A writer that saw our slot taken may wait for it. */
	wake_up_interruptible_poll(&f->wq, EPOLLOUT | EPOLLWRNORM);
	return false;
}

/* Room for @len more bytes (poll: 1). */
static bool mrc_dev_writable(struct mrc_dev_file *f, u32 len)
{
	return atomic_read(&f->outstanding) < (int)READ_ONCE(f->sndwin) &&
	       mrc_dev_tx_fits(f, len);
}

static ssize_t mrc_dev_write(struct file *file, const char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct mrc_dev_file *f = file->private_data;
	struct mrc_dev_send_hdr h;
	struct mrc_dev_tx *tx;
	struct iov_iter from;
	struct mrc_ep *ep;
	u32 cls;
	int err;

	if (count < sizeof(h))
		return -EINVAL;
	if (copy_from_user(&h, buf, sizeof(h)))
		return -EFAULT;
	if (h.version != MRC_DEV_VERSION ||
	    h.flags & ~(MRC_DEV_SEND_F_CLASS | MRC_DEV_SEND_CLASS_MASK))
		return -EINVAL;
	cls = READ_ONCE(f->cls);
	if (h.flags & MRC_DEV_SEND_F_CLASS) {
		cls = MRC_DEV_SEND_CLASS(h.flags);
		if (cls > MRC_CLASS_BACKGROUND)
			return -EINVAL;
	} else if (h.flags) {
		return -EINVAL;		/* a class without its flag */
	}
	if (h.len > MRC_DEV_MSG_MAX)
		return -EMSGSIZE;
	if (!h.len || !h.dst_port || count != sizeof(h) + h.len)
		return -EINVAL;
	/* Pairs with the release in mrc_dev_bind(). */
	ep = smp_load_acquire(&f->ep);
	if (!ep)
		return -EDESTADDRREQ;
	err = atomic_xchg(&f->err, 0);
	if (err)
		return err;

	while (!mrc_dev_tx_reserve(f, h.len)) {
		if (file->f_flags & O_NONBLOCK)
			return -EAGAIN;
		err = wait_event_interruptible(f->wq,
					       mrc_dev_writable(f, h.len));
		if (err)
			return err;
	}
	if (!mrc_dev_mem_take(h.len)) {
		err = -ENOBUFS;		/* dev_mem_mb: the node's budget */
		goto unreserve;
	}
	tx = kmalloc(sizeof(*tx), GFP_KERNEL_ACCOUNT);
	if (!tx) {
		err = -ENOMEM;
		goto unmem;
	}
	tx->f = f;
	tx->len = h.len;
	refcount_inc(&f->ref);		/* dropped by mrc_dev_sent() */
	/* The payload goes from user space straight into the message. */
	iov_iter_ubuf(&from, ITER_SOURCE, (char __user *)buf + sizeof(h),
		      h.len);
	err = mrc_ep_send_iter(ep, cls, h.dst_node, h.dst_port, &from, h.len,
			       mrc_dev_sent, tx);
	if (err)
		goto free_tx;
	atomic64_inc(&f->tx_msgs);
	atomic64_add(h.len, &f->tx_bytes);
	return count;

free_tx:
	refcount_dec(&f->ref);		/* the file's own remains */
	kfree(tx);
unmem:
	atomic64_sub(h.len, &mrc_dev_mem);
unreserve:
	atomic64_sub(h.len, &f->tx_queued);
	atomic_dec(&f->outstanding);
	wake_up_interruptible_poll(&f->wq, EPOLLOUT | EPOLLWRNORM);
	return err;
}

/* ---- poll ---- */

static __poll_t mrc_dev_poll(struct file *file, poll_table *wait)
{
	struct mrc_dev_file *f = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &f->wq, wait);
	if (!list_empty_careful(&f->rxq))
		mask |= EPOLLIN | EPOLLRDNORM;
	/* Pairs with the release in mrc_dev_bind(). */
	if (smp_load_acquire(&f->ep) && mrc_dev_writable(f, 1))
		mask |= EPOLLOUT | EPOLLWRNORM;
	if (atomic_read(&f->err))
		mask |= EPOLLERR;
	/*
	 * A poll() that would wait for input busy polls first: only its
	 * first pass may (the later ones, after a wake-up, do not wait).
	 */
	if (!(mask & poll_requested_events(wait)) &&
	    (poll_requested_events(wait) & (EPOLLIN | EPOLLRDNORM)) &&
	    !poll_does_not_wait(wait) && mrc_dev_busy_poll(f))
		mask |= EPOLLIN | EPOLLRDNORM;
	return mask;
}

/* ---- ioctls ---- */

/*
 * Messages delivered to an endpoint whose bind was rolled back (between
 * mrc_ep_open() and mrc_ep_close()): dropped and counted.
 */
static void mrc_dev_rxq_purge(struct mrc_dev_file *f)
{
	struct mrc_dev_msg *m, *tmp;
	LIST_HEAD(gone);

	spin_lock_bh(&f->rxq_lock);
	list_splice_init(&f->rxq, &gone);
	f->rx_dropped += f->rxq_msgs;
	f->rx_dropped_bytes += f->rxq_bytes;
	f->rxq_msgs = 0;
	f->rxq_bytes = 0;
	spin_unlock_bh(&f->rxq_lock);
	list_for_each_entry_safe(m, tmp, &gone, node)
		mrc_dev_msg_free(m);
}

static int mrc_dev_bind(struct mrc_dev_file *f, void __user *arg)
{
	struct mrc_dev_bind b;
	struct mrc_ep *ep = ERR_PTR(-EADDRINUSE);
	u32 size, span, start, i;
	int err;

	if (get_user(size, (u32 __user *)arg))
		return -EFAULT;
	if (size > PAGE_SIZE)
		return -E2BIG;
	err = copy_struct_from_user(&b, sizeof(b), arg, size);
	if (err)
		return err;
	if (b.size < sizeof(b) || b.reserved)
		return -EINVAL;
	if (b.port && b.port < 1024 && !capable(CAP_NET_BIND_SERVICE))
		return -EACCES;

	mutex_lock(&f->lock);
	err = -EINVAL;
	if (f->ep)
		goto out;
	if (b.port) {
		ep = mrc_ep_open(b.port, &mrc_dev_ep_ops, f);
	} else {
		span = MRC_DEV_EPHEMERAL_MAX - MRC_DEV_EPHEMERAL_MIN + 1;
		start = get_random_u32() % span;
		for (i = 0; i < span; i++) {
			b.port = MRC_DEV_EPHEMERAL_MIN + (start + i) % span;
			ep = mrc_ep_open(b.port, &mrc_dev_ep_ops, f);
			if (!IS_ERR(ep) || PTR_ERR(ep) != -EADDRINUSE)
				break;
		}
	}
	err = PTR_ERR_OR_ZERO(ep);
	if (err)
		goto out;
	/*
	 * The port goes back to user space before the endpoint is
	 * published: a bind that fails with EFAULT leaves the file unbound
	 * and the port free, as if it had never been tried.
	 */
	if (put_user(b.port, (u16 __user *)(arg +
					    offsetof(struct mrc_dev_bind, port)))) {
		mrc_ep_close(ep);
		mrc_dev_rxq_purge(f);
		err = -EFAULT;
		goto out;
	}
	/* Published: write(), poll() and GETOPT read it locklessly. */
	smp_store_release(&f->ep, ep);
	wake_up_interruptible_poll(&f->wq, EPOLLOUT | EPOLLWRNORM);
out:
	mutex_unlock(&f->lock);
	return err;
}

static int mrc_dev_get_opt(void __user *arg, struct mrc_dev_opt *o)
{
	u32 size;
	int err;

	if (get_user(size, (u32 __user *)arg))
		return -EFAULT;
	if (size > PAGE_SIZE)
		return -E2BIG;
	err = copy_struct_from_user(o, sizeof(*o), arg, size);
	if (err)
		return err;
	if (o->size < sizeof(*o))
		return -EINVAL;
	return 0;
}

static int mrc_dev_setopt(struct mrc_dev_file *f, void __user *arg)
{
	struct mrc_dev_opt o;
	int err;

	err = mrc_dev_get_opt(arg, &o);
	if (err)
		return err;
	switch (o.opt) {
	case MRC_OPT_RCVBUF:
		if (o.value < MRC_DEV_RCVBUF_MIN || o.value > MRC_DEV_RCVBUF_MAX)
			return -EINVAL;
		WRITE_ONCE(f->rcvbuf, o.value);
		return 0;
	case MRC_OPT_SNDWIN:
		if (!o.value || o.value > MRC_DEV_SNDWIN_MAX)
			return -EINVAL;
		WRITE_ONCE(f->sndwin, o.value);
		wake_up_interruptible_poll(&f->wq, EPOLLOUT | EPOLLWRNORM);
		return 0;
	case MRC_OPT_CLASS:
		if (o.value > MRC_CLASS_BACKGROUND)
			return -EINVAL;
		WRITE_ONCE(f->cls, o.value);
		return 0;
	case MRC_OPT_BUSY_POLL:
		if (o.value > MRC_DEV_BUSY_POLL_MAX)
			return -EINVAL;
		/* it spends CPU on everyone's completions, as SO_BUSY_POLL */
		if (o.value > READ_ONCE(f->busy_poll_us) &&
		    !capable(CAP_NET_ADMIN))
			return -EPERM;
		WRITE_ONCE(f->busy_poll_us, o.value);
		return 0;
	case MRC_OPT_PORT:
	case MRC_OPT_NODE:
		return -EPERM;
	}
	return -ENOPROTOOPT;
}

static int mrc_dev_getopt(struct mrc_dev_file *f, void __user *arg)
{
	struct mrc_dev_opt o;
	struct mrc_ep *ep;
	int err;

	err = mrc_dev_get_opt(arg, &o);
	if (err)
		return err;
	switch (o.opt) {
	case MRC_OPT_RCVBUF:
		o.value = READ_ONCE(f->rcvbuf);
		break;
	case MRC_OPT_SNDWIN:
		o.value = READ_ONCE(f->sndwin);
		break;
	case MRC_OPT_PORT:
		/* Pairs with the release in mrc_dev_bind(). */
		ep = smp_load_acquire(&f->ep);
		o.value = ep ? mrc_ep_port(ep) : 0;
		break;
	case MRC_OPT_NODE:
		o.value = mrc_knob(MRC_KNOB_node_id);
		break;
	case MRC_OPT_CLASS:
		o.value = READ_ONCE(f->cls);
		break;
	case MRC_OPT_BUSY_POLL:
		o.value = READ_ONCE(f->busy_poll_us);
		break;
	default:
		return -ENOPROTOOPT;
	}
	if (put_user(o.value, (u64 __user *)(arg +
					     offsetof(struct mrc_dev_opt, value))))
		return -EFAULT;
	return 0;
}

static int mrc_dev_stats(struct mrc_dev_file *f, void __user *arg)
{
	struct mrc_dev_stats s = {};
	struct mrc_dev_msg *m;
	u32 size;

	if (get_user(size, (u32 __user *)arg))
		return -EFAULT;
	if (size < offsetofend(struct mrc_dev_stats, rx_next_len))
		return -EINVAL;
	s.size = sizeof(s);
	s.last_error = atomic_read(&f->last_err);
	s.tx_msgs = atomic64_read(&f->tx_msgs);
	s.tx_bytes = atomic64_read(&f->tx_bytes);
	s.tx_done = atomic64_read(&f->tx_done);
	s.tx_failed = atomic64_read(&f->tx_failed);
	s.tx_outstanding = atomic_read(&f->outstanding);
	spin_lock_bh(&f->rxq_lock);
	s.rx_msgs = f->rx_msgs;
	s.rx_bytes = f->rx_bytes;
	s.rx_dropped = f->rx_dropped;
	s.rx_dropped_bytes = f->rx_dropped_bytes;
	s.rx_queued_msgs = f->rxq_msgs;
	s.rx_queued_bytes = f->rxq_bytes;
	m = list_first_entry_or_null(&f->rxq, struct mrc_dev_msg, node);
	s.rx_next_len = m ? m->len : 0;
	s.rx_busy = f->rx_busy;
	spin_unlock_bh(&f->rxq_lock);
	/* A newer (longer) struct: its tail is left as user space set it. */
	if (copy_to_user(arg, &s, min_t(u32, size, sizeof(s))))
		return -EFAULT;
	return 0;
}

static int mrc_dev_flush(struct mrc_dev_file *f)
{
	int err;

	err = wait_event_interruptible(f->wq, !atomic_read(&f->outstanding));
	if (err)
		return err;
	return atomic_xchg(&f->err, 0);
}

/*
 * An ioctl number without its size field.  The structures carry their
 * own size (their first member) and grow at the end; a program built
 * against a newer, longer struct encodes a larger size in the number,
 * which must still reach the handler (copy_struct_from_user() then takes
 * what it knows and refuses a non-zero tail it does not), not -ENOTTY.
 */
#define MRC_IOC_NOSIZE(cmd)	((cmd) & ~(_IOC_SIZEMASK << _IOC_SIZESHIFT))

static long mrc_dev_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct mrc_dev_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (MRC_IOC_NOSIZE(cmd)) {
	case MRC_IOC_NOSIZE(MRC_IOC_BIND):
		return mrc_dev_bind(f, uarg);
	case MRC_IOC_NOSIZE(MRC_IOC_SETOPT):
		return mrc_dev_setopt(f, uarg);
	case MRC_IOC_NOSIZE(MRC_IOC_GETOPT):
		return mrc_dev_getopt(f, uarg);
	case MRC_IOC_NOSIZE(MRC_IOC_STATS):
		return mrc_dev_stats(f, uarg);
	case MRC_IOC_FLUSH:	/* no argument: its size must be 0 */
		return mrc_dev_flush(f);
	}
	return -ENOTTY;
}

/* ---- open / release ---- */

/*
 * The last reference is gone: close the endpoint (waits for the done()
 * that dropped it to return, and for any recv()) and free the state.
 */
static void mrc_dev_free(struct mrc_dev_file *f)
{
	struct mrc_dev_msg *m, *tmp;

	if (f->ep)
		mrc_ep_close(f->ep);
	list_for_each_entry_safe(m, tmp, &f->rxq, node)
		mrc_dev_msg_free(m);
	mutex_destroy(&f->lock);
	mutex_destroy(&f->rd_lock);
	kfree(f);
}

static void mrc_dev_close_work(struct work_struct *work)
{
	mrc_dev_free(container_of(work, struct mrc_dev_file, close_work));
	/*
	 * Taken by release(); mrc_dev_exit() cannot run before this put and
	 * its destroy_workqueue() waits for this function to return.
	 */
	module_put(THIS_MODULE);
}

static int mrc_dev_open(struct inode *inode, struct file *file)
{
	struct mrc_dev_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL_ACCOUNT);
	if (!f)
		return -ENOMEM;
	mutex_init(&f->lock);
	mutex_init(&f->rd_lock);
	init_waitqueue_head(&f->wq);
	spin_lock_init(&f->rxq_lock);
	INIT_LIST_HEAD(&f->rxq);
	f->rcvbuf = MRC_DEV_RCVBUF_DEF;
	f->sndwin = MRC_DEV_SNDWIN_DEF;
	refcount_set(&f->ref, 1);
	INIT_WORK(&f->close_work, mrc_dev_close_work);
	file->private_data = f;
	return stream_open(inode, file);
}

static int mrc_dev_release(struct inode *inode, struct file *file)
{
	struct mrc_dev_file *f = file->private_data;

	/*
	 * Give the accepted sends a chance to complete first, as close()
	 * always did, but interruptibly (a signal, or a process being
	 * killed, stops the wait; no hung-task report) and for at most
	 * peer_timeout_ms; what is left completes after we return.
	 */
	wait_event_interruptible_timeout(f->wq, !atomic_read(&f->outstanding),
					 msecs_to_jiffies(mrc_knob(MRC_KNOB_peer_timeout_ms)));
	WRITE_ONCE(f->released, true);
	/* The file's own module reference holds until we return. */
	__module_get(THIS_MODULE);
	if (refcount_dec_and_test(&f->ref)) {
		mrc_dev_free(f);
		module_put(THIS_MODULE);
	} else {
		mrc_ev_inc(MRC_EV_DEV_CLOSE_DEFERRED);
	}
	return 0;
}

static const struct file_operations mrc_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= mrc_dev_open,
	.release	= mrc_dev_release,
	.read		= mrc_dev_read,
	.write		= mrc_dev_write,
	.poll		= mrc_dev_poll,
	.unlocked_ioctl	= mrc_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= no_llseek,
};

static struct miscdevice mrc_dev_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= MRC_DEV_NAME,
	.fops	= &mrc_dev_fops,
	.mode	= 0600,
};

/**
 * mrc_dev_init() - register /dev/mrc
 *
 * Return: 0 or misc_register()'s error.
 */
int mrc_dev_init(void)
{
	int err;

	mrc_dev_wq = alloc_workqueue("mrc_dev", 0, 0);
	if (!mrc_dev_wq)
		return -ENOMEM;
	err = misc_register(&mrc_dev_misc);
	if (err)
		destroy_workqueue(mrc_dev_wq);
	return err;
}

/**
 * mrc_dev_exit() - unregister /dev/mrc
 */
void mrc_dev_exit(void)
{
	misc_deregister(&mrc_dev_misc);
	/* Every released file's close has run (module references). */
	destroy_workqueue(mrc_dev_wq);
}
