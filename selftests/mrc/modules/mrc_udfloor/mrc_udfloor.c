// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_udfloor - the fabric's floor: UD datagrams between two nodes as fast
 * as the RDMA devices move them, with no reliability (no acks, no
 * retransmission, no credits).  It does not use mrc.ko: it measures the
 * fabric mrc runs on, so that bench/run can report mrc as a fraction of
 * it.  Used by bench/run (the "floor" step) and selftests/mrc/udfloor.sh.
 *
 * Every RDMA device (or those named in the `devs` module parameter, e.g.
 * devs=rxe0,rxe1) is a plane.  On load (ib_client.add) each plane gets a
 * PD, a receiving UD QP with `rx_depth` (default 512) receive buffers of
 * 40 + 4096 bytes (GRH + the largest datagram) posted, and a sending UD QP
 * with `tx_depth` (default 128) send slots.  The receiver counts datagrams,
 * payload bytes (GRH excluded), their smallest and largest size and the
 * first and last arrival (ktime_get_ns()), and reposts each buffer.  A
 * receiving QP that goes to ERROR (rxe does that on an oversized datagram)
 * is recovered: RESET, INIT, RTR, RTS, all buffers posted again.
 *
 * Commands written to /sys/kernel/debug/mrc_udfloor/ctl:
 *
 *   start SECS SIZE DEV IPV4 QPN QKEY [DEV IPV4 QPN QKEY ...]
 *	send datagrams of SIZE payload bytes (0..4096, at most the port's
 *	active MTU) for SECS seconds (1..3600) from a kthread: per plane,
 *	local device DEV to the receiving QP QPN (Q_Key QKEY, hex with 0x
 *	or decimal) at IPV4 (the destination GID is the IPv4-mapped RoCEv2
 *	GID; the source GID is DEV's RoCEv2 IPv4-mapped one).  Chains of 16
 *	sends, the last one signalled, go to the planes in turn, each plane
 *	kept at `tx_depth` sends outstanding; a plane is skipped while its
 *	ring is full.  A send error retires the plane for the rest of the
 *	run.  A running send is stopped first.
 *   stop
 *	end the run now (the sender waits for its outstanding sends).
 *   reset
 *	zero the receiver's counters.
 *
 * /sys/kernel/debug/mrc_udfloor/stats prints "key value" lines: qkey,
 * planes; per plane DEV_qpn (its receiving QP), DEV_mtu (active MTU),
 * DEV_rx_packets, DEV_rx_errors, DEV_rx_recovered, DEV_tx_ok; the
 * receiver's totals rx_packets, rx_bytes, rx_len_min, rx_len_max,
 * rx_span_ns (first to last arrival), rx_pps, rx_Bps ((packets - 1) and
 * their bytes over the span); the sender's tx_running, tx_planes,
 * tx_size, tx_posted, tx_ok, tx_errors (completed in error or flushed),
 * tx_ns (start to the last completion) and tx_pps.
 *
 * Every allocation is bounded by the module parameters; unloading stops
 * the sender and waits for its sends, then moves each receiving QP to
 * ERROR and waits for its buffers before anything is freed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#define UDF_MAX_PLANES	4
#define UDF_GRH		40
#define UDF_MAX_SIZE	4096
#define UDF_RX_LEN	(UDF_GRH + UDF_MAX_SIZE)
#define UDF_CHAIN	16		/* sends per post, the last signalled */
#define UDF_POLL	16		/* completions per ib_poll_cq() */
#define UDF_CTL_MAX	256		/* bytes of one command */
#define UDF_WAIT_MS	2000		/* bound of every wait for completions */

static char *devs = "";
module_param(devs, charp, 0444);
MODULE_PARM_DESC(devs, "comma-separated RDMA devices to use (default: all, at most 4)");

static uint qkey = 0x75646600;
module_param(qkey, uint, 0444);
MODULE_PARM_DESC(qkey, "Q_Key of the receiving QPs");

static uint rx_depth = 512;
module_param(rx_depth, uint, 0444);
MODULE_PARM_DESC(rx_depth, "receive buffers per plane (16..4096, default 512)");

static uint tx_depth = 128;
module_param(tx_depth, uint, 0444);
MODULE_PARM_DESC(tx_depth, "sends outstanding per plane (32..1024, default 128)");

struct udf_plane;

struct udf_rx {
	struct ib_cqe cqe;
	struct udf_plane *pl;
	void *buf;
	u64 dma;
};

struct udf_plane {
	struct list_head node;		/* udf_planes, under udf_lock */
	struct ib_device *dev;
	char name[IB_DEVICE_NAME_MAX];
	u32 port;
	struct ib_pd *pd;

	/* receiver */
	struct ib_cq *rcq;
	struct ib_qp *rqp;
	struct udf_rx *rx;		/* rx_depth of them */
	atomic_t rx_posted;		/* receives not completed yet */
	bool rx_stopping;
	struct work_struct recover;
	spinlock_t lock;		/* the rx_ counters below */
	u64 rx_packets, rx_bytes, rx_first_ns, rx_last_ns;
	u32 rx_len_min, rx_len_max;
	u64 rx_errors, rx_recovered;

	/* sender; the run's fields belong to the sender kthread */
	struct ib_cq *scq;
	struct ib_qp *sqp;
	void *tx_buf;
	u64 tx_dma;
	bool tx_broken;			/* sqp went to ERROR: reset first */
	struct ib_ah *ah;
	u32 dst_qpn, dst_qkey;
	bool tx_dead;			/* retired for this run */
	u64 tx_seq;			/* sends posted in this run */
	u64 tx_done;			/* of them, completed */
	u64 tx_ok;
	struct ib_ud_wr wr[UDF_CHAIN];
	struct ib_sge sge;
	struct ib_wc wc[UDF_POLL];
};

static struct ib_client udf_client;
static LIST_HEAD(udf_planes);
static unsigned int udf_nplanes;
static DEFINE_MUTEX(udf_lock);		/* planes, the sender's state */
static struct kmem_cache *udf_rx_cache;
static struct dentry *udf_dir;

/* The sender: under udf_lock, except what the kthread updates. */
static struct {
	struct task_struct *task;
	struct udf_plane *pl[UDF_MAX_PLANES];
	unsigned int npl;
	u32 size, secs;
	bool running;
	u64 start_ns, end_ns;
	u64 posted, ok, err;
} udf_tx;
static DECLARE_WAIT_QUEUE_HEAD(udf_tx_wq);
static atomic_t udf_tx_kick;

static int udf_qp_to_rts(struct udf_plane *pl, struct ib_qp *qp)
{
	struct ib_qp_attr attr = {
		.qp_state	= IB_QPS_INIT,
		.pkey_index	= 0,
		.port_num	= pl->port,
		.qkey		= qkey,
	};
	int err;

	err = ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (err)
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	err = ib_modify_qp(qp, &attr, IB_QP_STATE);
	if (err)
		return err;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static int udf_qp_set_state(struct ib_qp *qp, enum ib_qp_state state)
{
	struct ib_qp_attr attr = { .qp_state = state };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/* ---------------------------------------------------------------- receiver */

static void udf_rx_done(struct ib_cq *cq, struct ib_wc *wc);

static int udf_rx_post(struct udf_plane *pl, struct udf_rx *rx)
{
	struct ib_sge sge = {
		.addr	= rx->dma,
		.length	= UDF_RX_LEN,
		.lkey	= pl->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &rx->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	return ib_post_recv(pl->rqp, &wr, NULL);
}

/* Posts every buffer (none is posted).  Returns how many failed. */
static unsigned int udf_rx_fill(struct udf_plane *pl)
{
	unsigned int i, failed = 0;

	for (i = 0; i < rx_depth; i++) {
		atomic_inc(&pl->rx_posted);
		if (udf_rx_post(pl, &pl->rx[i])) {
			atomic_dec(&pl->rx_posted);
			failed++;
		}
	}
	return failed;
}

/* Waits until no receive is outstanding; false after UDF_WAIT_MS. */
static bool udf_rx_wait_idle(struct udf_plane *pl)
{
	unsigned long limit = jiffies + msecs_to_jiffies(UDF_WAIT_MS);

	while (atomic_read(&pl->rx_posted)) {
		if (time_after(jiffies, limit))
			return false;
		usleep_range(2000, 5000);
	}
	return true;
}

/*
 * The receiving QP completed a receive in error (not a flush): it is in
 * ERROR and every later datagram is dropped.  Bring it back.
 */
static void udf_rx_recover(struct work_struct *work)
{
	struct udf_plane *pl = container_of(work, struct udf_plane, recover);
	int err;

	if (READ_ONCE(pl->rx_stopping))
		return;
	udf_qp_set_state(pl->rqp, IB_QPS_ERR);
	if (!udf_rx_wait_idle(pl)) {
		pr_warn("%s: receives not flushed, not recovered\n", pl->name);
		return;
	}
	if (READ_ONCE(pl->rx_stopping))
		return;
	err = udf_qp_set_state(pl->rqp, IB_QPS_RESET);
	if (!err)
		err = udf_qp_to_rts(pl, pl->rqp);
	if (err) {
		pr_warn("%s: receiving QP not recovered: %d\n", pl->name, err);
		return;
	}
	udf_rx_fill(pl);
	spin_lock_bh(&pl->lock);
	pl->rx_recovered++;
	spin_unlock_bh(&pl->lock);
}

static void udf_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct udf_rx *rx = container_of(wc->wr_cqe, struct udf_rx, cqe);
	struct udf_plane *pl = rx->pl;
	u64 now;
	u32 len;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			spin_lock(&pl->lock);
			pl->rx_errors++;
			spin_unlock(&pl->lock);
			if (!READ_ONCE(pl->rx_stopping))
				queue_work(system_wq, &pl->recover);
		}
		/* The last touch of pl: teardown waits for rx_posted 0. */
		atomic_dec(&pl->rx_posted);
		return;
	}
	now = ktime_get_ns();
	len = wc->byte_len > UDF_GRH ? wc->byte_len - UDF_GRH : 0;
	spin_lock(&pl->lock);
	if (!pl->rx_packets || len < pl->rx_len_min)
		pl->rx_len_min = len;
	if (len > pl->rx_len_max)
		pl->rx_len_max = len;
	if (!pl->rx_packets)
		pl->rx_first_ns = now;
	pl->rx_last_ns = now;
	pl->rx_packets++;
	pl->rx_bytes += len;
	spin_unlock(&pl->lock);
	/* Reposted: still outstanding, rx_posted unchanged. */
	if (!READ_ONCE(pl->rx_stopping) && !udf_rx_post(pl, rx))
		return;
	atomic_dec(&pl->rx_posted);
}

/* ------------------------------------------------------------------ sender */

static void udf_tx_comp(struct ib_cq *cq, void *ctx)
{
	atomic_set(&udf_tx_kick, 1);
	wake_up(&udf_tx_wq);
}

/*
 * Every send's wr_id is its number in the run; a completion of send n
 * means sends 0..n completed (in order on a QP; a send in error moves the
 * QP to ERROR, which completes every later send as flushed).
 */
static void udf_tx_reap(struct udf_plane *pl)
{
	int n, i;

	while ((n = ib_poll_cq(pl->scq, UDF_POLL, pl->wc)) > 0) {
		for (i = 0; i < n; i++) {
			struct ib_wc *wc = &pl->wc[i];
			u64 done = wc->wr_id + 1, d;

			if (done <= pl->tx_done)
				continue;
			d = done - pl->tx_done;
			pl->tx_done = done;
			if (wc->status == IB_WC_SUCCESS) {
				pl->tx_ok += d;
				udf_tx.ok += d;
				continue;
			}
			udf_tx.err += d;
			if (!pl->tx_dead && wc->status != IB_WC_WR_FLUSH_ERR)
				pr_warn("%s: send completed with %s\n",
					pl->name, ib_wc_status_msg(wc->status));
			pl->tx_dead = true;
			pl->tx_broken = true;
		}
	}
}

/* Posts one chain of n sends on pl; false if the post failed. */
static bool udf_tx_post(struct udf_plane *pl, unsigned int n)
{
	const struct ib_send_wr *bad = NULL;
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		struct ib_ud_wr *wr = &pl->wr[i];

		wr->wr.next = i + 1 < n ? &pl->wr[i + 1].wr : NULL;
		wr->wr.wr_id = pl->tx_seq + i;
		wr->wr.send_flags = i + 1 < n ? 0 : IB_SEND_SIGNALED;
	}
	err = ib_post_send(pl->sqp, &pl->wr[0].wr, &bad);
	if (!err) {
		pl->tx_seq += n;
		udf_tx.posted += n;
		return true;
	}
	/*
	 * Those before bad went out, unsignalled: ERROR flushes them (and
	 * completes them with their numbers) so that the count stays whole.
	 */
	for (i = 0; i < n && bad != &pl->wr[i].wr; i++)
		;
	pl->tx_seq += i;
	udf_tx.posted += i;
	pr_warn("%s: post_send failed: %d\n", pl->name, err);
	udf_qp_set_state(pl->sqp, IB_QPS_ERR);
	pl->tx_dead = true;
	pl->tx_broken = true;
	return false;
}

/* Arms the send CQs; true if completions came meanwhile. */
static bool udf_tx_arm(void)
{
	bool missed = false;
	unsigned int i;

	for (i = 0; i < udf_tx.npl; i++) {
		struct udf_plane *pl = udf_tx.pl[i];

		if (pl->tx_seq != pl->tx_done &&
		    ib_req_notify_cq(pl->scq, IB_CQ_NEXT_COMP |
				     IB_CQ_REPORT_MISSED_EVENTS) > 0)
			missed = true;
	}
	return missed;
}

static bool udf_tx_outstanding(void)
{
	unsigned int i;

	for (i = 0; i < udf_tx.npl; i++)
		if (udf_tx.pl[i]->tx_seq != udf_tx.pl[i]->tx_done)
			return true;
	return false;
}

static void udf_tx_reap_all(void)
{
	unsigned int i;

	for (i = 0; i < udf_tx.npl; i++)
		udf_tx_reap(udf_tx.pl[i]);
}

/* Waits for every outstanding send; flushes a QP that does not finish. */
static void udf_tx_drain(void)
{
	u64 limit = ktime_get_ns() + (u64)UDF_WAIT_MS * NSEC_PER_MSEC;
	bool flushed = false;
	unsigned int i;

	for (;;) {
		udf_tx_reap_all();
		if (!udf_tx_outstanding())
			return;
		if (ktime_get_ns() > limit) {
			if (flushed) {
				pr_warn("sends still outstanding after a flush\n");
				return;
			}
			for (i = 0; i < udf_tx.npl; i++) {
				struct udf_plane *pl = udf_tx.pl[i];

				if (pl->tx_seq == pl->tx_done)
					continue;
				udf_qp_set_state(pl->sqp, IB_QPS_ERR);
				pl->tx_dead = true;
				pl->tx_broken = true;
			}
			flushed = true;
			limit = ktime_get_ns() + (u64)UDF_WAIT_MS * NSEC_PER_MSEC;
		}
		usleep_range(200, 500);
	}
}

static int udf_tx_thread(void *arg)
{
	u64 end = udf_tx.start_ns + (u64)udf_tx.secs * NSEC_PER_SEC;
	unsigned int rr = 0, i;

	while (!kthread_should_stop() && ktime_get_ns() < end) {
		bool progress = false, live = false;

		udf_tx_reap_all();
		for (i = 0; i < udf_tx.npl; i++) {
			struct udf_plane *pl = udf_tx.pl[(rr + i) % udf_tx.npl];

			if (pl->tx_dead)
				continue;
			live = true;
			if (tx_depth - (pl->tx_seq - pl->tx_done) < UDF_CHAIN)
				continue;
			if (udf_tx_post(pl, UDF_CHAIN))
				progress = true;
		}
		rr++;
		if (!live)
			break;
		if (progress) {
			cond_resched();
			continue;
		}
		/* Every ring full: sleep until a send completes. */
		atomic_set(&udf_tx_kick, 0);
		if (udf_tx_arm())
			continue;
		wait_event_interruptible_timeout(udf_tx_wq,
						 atomic_read(&udf_tx_kick) ||
						 kthread_should_stop(),
						 msecs_to_jiffies(20));
	}
	udf_tx_drain();
	udf_tx.end_ns = ktime_get_ns();
	WRITE_ONCE(udf_tx.running, false);

	/* Done; kthread_stop() ends the thread. */
	set_current_state(TASK_INTERRUPTIBLE);
	while (!kthread_should_stop()) {
		schedule();
		set_current_state(TASK_INTERRUPTIBLE);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Stops the sender (waiting for its sends) and frees the run's AHs. */
static void udf_tx_stop_locked(void)
{
	unsigned int i;

	lockdep_assert_held(&udf_lock);
	if (udf_tx.task) {
		kthread_stop(udf_tx.task);
		udf_tx.task = NULL;
	}
	for (i = 0; i < udf_tx.npl; i++) {
		struct udf_plane *pl = udf_tx.pl[i];

		if (pl->ah)
			rdma_destroy_ah(pl->ah, RDMA_DESTROY_AH_SLEEPABLE);
		pl->ah = NULL;
		udf_tx.pl[i] = NULL;
	}
	udf_tx.npl = 0;
}

/* The port's RoCEv2 GID holding an IPv4-mapped address, or -1. */
static int udf_sgid_index(struct udf_plane *pl, int tbl_len)
{
	int i, found = -1;

	for (i = 0; i < tbl_len && found < 0; i++) {
		const struct ib_gid_attr *attr;

		attr = rdma_get_gid_attr(pl->dev, pl->port, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((const struct in6_addr *)attr->gid.raw))
			found = attr->index;
		rdma_put_gid_attr(attr);
	}
	return found;
}

/* Makes pl ready to send SIZE-byte datagrams to dst. */
static int udf_tx_prepare(struct udf_plane *pl, __be32 dst, u32 qpn,
			  u32 dst_qkey, u32 size)
{
	struct rdma_ah_attr ah_attr = {};
	struct ib_port_attr pattr;
	union ib_gid dgid = {};
	struct ib_ah *ah;
	unsigned int i;
	int err, sgid, mtu;

	err = ib_query_port(pl->dev, pl->port, &pattr);
	if (err)
		return err;
	if (pattr.state != IB_PORT_ACTIVE)
		return -ENETDOWN;
	mtu = ib_mtu_enum_to_int(pattr.active_mtu);
	if (mtu < 0 || size > (u32)mtu)
		return -EMSGSIZE;
	sgid = udf_sgid_index(pl, pattr.gid_tbl_len);
	if (sgid < 0)
		return -EADDRNOTAVAIL;
	if (pl->tx_broken) {
		err = udf_qp_set_state(pl->sqp, IB_QPS_RESET);
		if (!err)
			err = udf_qp_to_rts(pl, pl->sqp);
		if (err)
			return err;
		pl->tx_broken = false;
	}
	ipv6_addr_set_v4mapped(dst, (struct in6_addr *)dgid.raw);
	ah_attr.type = rdma_ah_find_type(pl->dev, pl->port);
	rdma_ah_set_port_num(&ah_attr, pl->port);
	rdma_ah_set_grh(&ah_attr, &dgid, 0, sgid, 64, 0);
	ah = rdma_create_ah(pl->pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	pl->ah = ah;
	pl->dst_qpn = qpn;
	pl->dst_qkey = dst_qkey;
	pl->tx_dead = false;
	pl->tx_seq = 0;
	pl->tx_done = 0;
	pl->tx_ok = 0;
	pl->sge.addr = pl->tx_dma;
	pl->sge.length = size;
	pl->sge.lkey = pl->pd->local_dma_lkey;
	for (i = 0; i < UDF_CHAIN; i++) {
		struct ib_ud_wr *wr = &pl->wr[i];

		memset(wr, 0, sizeof(*wr));
		wr->wr.sg_list = &pl->sge;
		wr->wr.num_sge = size ? 1 : 0;
		wr->wr.opcode = IB_WR_SEND;
		wr->ah = ah;
		wr->remote_qpn = qpn;
		wr->remote_qkey = dst_qkey;
	}
	return 0;
}

static struct udf_plane *udf_find_locked(const char *name)
{
	struct udf_plane *pl;

	list_for_each_entry(pl, &udf_planes, node)
		if (!strcmp(pl->name, name))
			return pl;
	return NULL;
}

/* "start SECS SIZE DEV IPV4 QPN QKEY ..." after "start" (in args). */
static int udf_tx_start_locked(char *args)
{
	struct udf_plane *pl;
	struct task_struct *t;
	u32 secs, size, qpn, dq;
	unsigned int i;
	char *tok[2 + 4 * UDF_MAX_PLANES];
	unsigned int n = 0;
	__be32 ip;
	int err;

	udf_tx_stop_locked();
	while (args && n < ARRAY_SIZE(tok)) {
		char *s = strsep(&args, " \t");

		if (*s)
			tok[n++] = s;
	}
	if ((args && *skip_spaces(args)) || n < 6 || (n - 2) % 4)
		return -EINVAL;
	if (kstrtou32(tok[0], 0, &secs) || !secs || secs > 3600 ||
	    kstrtou32(tok[1], 0, &size) || size > UDF_MAX_SIZE)
		return -EINVAL;
	udf_tx.size = size;
	udf_tx.secs = secs;
	for (i = 0; 2 + 4 * i < n; i++) {
		char **t4 = &tok[2 + 4 * i];

		pl = udf_find_locked(t4[0]);
		if (!pl || pl->ah)		/* unknown or named twice */
			err = -ENODEV;
		else if (!in4_pton(t4[1], -1, (u8 *)&ip, -1, NULL) ||
			 kstrtou32(t4[2], 0, &qpn) || qpn > 0xffffff ||
			 kstrtou32(t4[3], 0, &dq))
			err = -EINVAL;
		else
			err = udf_tx_prepare(pl, ip, qpn, dq, size);
		if (err) {
			pr_warn("start: plane %s: %d\n", t4[0], err);
			udf_tx_stop_locked();
			return err;
		}
		udf_tx.pl[udf_tx.npl++] = pl;
	}
	udf_tx.posted = 0;
	udf_tx.ok = 0;
	udf_tx.err = 0;
	udf_tx.end_ns = 0;
	udf_tx.start_ns = ktime_get_ns();
	WRITE_ONCE(udf_tx.running, true);
	t = kthread_run(udf_tx_thread, NULL, "mrc_udfloor");
	if (IS_ERR(t)) {
		WRITE_ONCE(udf_tx.running, false);
		udf_tx_stop_locked();
		return PTR_ERR(t);
	}
	udf_tx.task = t;
	return 0;
}

/* ------------------------------------------------------------------ planes */

static void udf_plane_destroy(struct udf_plane *pl)
{
	unsigned int i;

	WRITE_ONCE(pl->rx_stopping, true);
	cancel_work_sync(&pl->recover);
	if (pl->rqp) {
		udf_qp_set_state(pl->rqp, IB_QPS_ERR);
		if (!udf_rx_wait_idle(pl))
			pr_warn("%s: %d receives not flushed\n", pl->name,
				atomic_read(&pl->rx_posted));
		/* An error completion may have queued it meanwhile. */
		cancel_work_sync(&pl->recover);
		ib_destroy_qp(pl->rqp);
	}
	if (pl->sqp)
		ib_destroy_qp(pl->sqp);
	if (pl->rcq)
		ib_free_cq(pl->rcq);
	if (pl->scq)
		ib_destroy_cq(pl->scq);
	if (pl->rx) {
		for (i = 0; i < rx_depth; i++) {
			struct udf_rx *rx = &pl->rx[i];

			if (rx->dma)
				ib_dma_unmap_single(pl->dev, rx->dma,
						    UDF_RX_LEN, DMA_FROM_DEVICE);
			if (rx->buf)
				kmem_cache_free(udf_rx_cache, rx->buf);
		}
		kvfree(pl->rx);
	}
	if (pl->tx_dma)
		ib_dma_unmap_single(pl->dev, pl->tx_dma, UDF_MAX_SIZE,
				    DMA_TO_DEVICE);
	kfree(pl->tx_buf);
	if (pl->pd)
		ib_dealloc_pd(pl->pd);
	kfree(pl);
}

static int udf_plane_bufs(struct udf_plane *pl)
{
	unsigned int i;
	u64 dma;

	pl->rx = kvcalloc(rx_depth, sizeof(*pl->rx), GFP_KERNEL);
	if (!pl->rx)
		return -ENOMEM;
	for (i = 0; i < rx_depth; i++) {
		struct udf_rx *rx = &pl->rx[i];

		rx->pl = pl;
		rx->cqe.done = udf_rx_done;
		rx->buf = kmem_cache_alloc(udf_rx_cache, GFP_KERNEL);
		if (!rx->buf)
			return -ENOMEM;
		dma = ib_dma_map_single(pl->dev, rx->buf, UDF_RX_LEN,
					DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(pl->dev, dma))
			return -ENOMEM;
		rx->dma = dma;
	}
	pl->tx_buf = kmalloc(UDF_MAX_SIZE, GFP_KERNEL);
	if (!pl->tx_buf)
		return -ENOMEM;
	memset(pl->tx_buf, 0x5a, UDF_MAX_SIZE);
	dma = ib_dma_map_single(pl->dev, pl->tx_buf, UDF_MAX_SIZE,
				DMA_TO_DEVICE);
	if (ib_dma_mapping_error(pl->dev, dma))
		return -ENOMEM;
	pl->tx_dma = dma;
	return 0;
}

static struct ib_qp *udf_plane_qp(struct udf_plane *pl, struct ib_cq *cq,
				  u32 send_wr, u32 recv_wr)
{
	struct ib_qp_init_attr init = {
		.send_cq	= cq,
		.recv_cq	= cq,
		.cap = {
			.max_send_wr	= send_wr,
			.max_recv_wr	= recv_wr,
			.max_send_sge	= 1,
			.max_recv_sge	= 1,
		},
		.sq_sig_type	= IB_SIGNAL_REQ_WR,
		.qp_type	= IB_QPT_UD,
		.port_num	= pl->port,
	};
	struct ib_qp *qp;
	int err;

	qp = ib_create_qp(pl->pd, &init);
	if (IS_ERR(qp))
		return qp;
	err = udf_qp_to_rts(pl, qp);
	if (err) {
		ib_destroy_qp(qp);
		return ERR_PTR(err);
	}
	return qp;
}

static int udf_plane_init(struct udf_plane *pl)
{
	struct ib_cq_init_attr cq_attr = { .cqe = tx_depth + 1 };
	int err;

	err = udf_plane_bufs(pl);
	if (err)
		return err;
	pl->pd = ib_alloc_pd(pl->dev, 0);
	if (IS_ERR(pl->pd)) {
		err = PTR_ERR(pl->pd);
		pl->pd = NULL;
		return err;
	}
	pl->rcq = ib_alloc_cq(pl->dev, pl, rx_depth + 1, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(pl->rcq)) {
		err = PTR_ERR(pl->rcq);
		pl->rcq = NULL;
		return err;
	}
	pl->scq = ib_create_cq(pl->dev, udf_tx_comp, NULL, pl, &cq_attr);
	if (IS_ERR(pl->scq)) {
		err = PTR_ERR(pl->scq);
		pl->scq = NULL;
		return err;
	}
	pl->rqp = udf_plane_qp(pl, pl->rcq, 1, rx_depth);
	if (IS_ERR(pl->rqp)) {
		err = PTR_ERR(pl->rqp);
		pl->rqp = NULL;
		return err;
	}
	pl->sqp = udf_plane_qp(pl, pl->scq, tx_depth, 1);
	if (IS_ERR(pl->sqp)) {
		err = PTR_ERR(pl->sqp);
		pl->sqp = NULL;
		return err;
	}
	if (udf_rx_fill(pl))
		return -ENOMEM;
	return 0;
}

static bool udf_dev_wanted(const char *name)
{
	size_t len = strlen(name);
	const char *p = devs;

	if (!p || !*p)
		return true;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, n))
			return true;
		p += n;
		if (*p)
			p++;
	}
	return false;
}

static int udf_ib_add(struct ib_device *dev)
{
	struct udf_plane *pl;
	int err;

	/* Not ours: no client data; remove() is then called with NULL. */
	if (!udf_dev_wanted(dev_name(&dev->dev)) ||
	    !rdma_protocol_roce(dev, rdma_start_port(dev)))
		return 0;
	mutex_lock(&udf_lock);
	if (udf_nplanes >= UDF_MAX_PLANES) {
		mutex_unlock(&udf_lock);
		pr_info("%s: not used, %d planes already\n", dev_name(&dev->dev),
			UDF_MAX_PLANES);
		return 0;
	}
	udf_nplanes++;
	mutex_unlock(&udf_lock);

	pl = kzalloc(sizeof(*pl), GFP_KERNEL);
	if (!pl) {
		err = -ENOMEM;
		goto err_count;
	}
	pl->dev = dev;
	pl->port = rdma_start_port(dev);
	strscpy(pl->name, dev_name(&dev->dev), sizeof(pl->name));
	spin_lock_init(&pl->lock);
	atomic_set(&pl->rx_posted, 0);
	INIT_WORK(&pl->recover, udf_rx_recover);
	err = udf_plane_init(pl);
	if (err) {
		udf_plane_destroy(pl);
		goto err_count;
	}
	mutex_lock(&udf_lock);
	list_add_tail(&pl->node, &udf_planes);
	mutex_unlock(&udf_lock);
	ib_set_client_data(dev, &udf_client, pl);
	return 0;

err_count:
	mutex_lock(&udf_lock);
	udf_nplanes--;
	mutex_unlock(&udf_lock);
	pr_warn("%s: not used: %d\n", dev_name(&dev->dev), err);
	return 0;
}

static void udf_ib_remove(struct ib_device *dev, void *data)
{
	struct udf_plane *pl = data;
	unsigned int i;

	if (!pl)
		return;
	mutex_lock(&udf_lock);
	for (i = 0; i < udf_tx.npl; i++)
		if (udf_tx.pl[i] == pl)
			udf_tx_stop_locked();
	list_del(&pl->node);
	udf_nplanes--;
	mutex_unlock(&udf_lock);
	udf_plane_destroy(pl);
}

static struct ib_client udf_client = {
	.name	= "mrc_udfloor",
	.add	= udf_ib_add,
	.remove	= udf_ib_remove,
};

/* ----------------------------------------------------------------- debugfs */

static int udf_stats_show(struct seq_file *m, void *v)
{
	u64 pkts = 0, bytes = 0, first = 0, last = 0, errs = 0, span, pps;
	u32 lmin = 0, lmax = 0;
	struct udf_plane *pl;
	bool any = false;

	mutex_lock(&udf_lock);
	seq_printf(m, "qkey %#x\nplanes %u\n", qkey, udf_nplanes);
	list_for_each_entry(pl, &udf_planes, node) {
		struct ib_port_attr pattr;
		u64 p, e, r;

		if (ib_query_port(pl->dev, pl->port, &pattr))
			pattr.active_mtu = 0;
		spin_lock_bh(&pl->lock);
		p = pl->rx_packets;
		e = pl->rx_errors;
		r = pl->rx_recovered;
		if (p) {
			if (!any || pl->rx_len_min < lmin)
				lmin = pl->rx_len_min;
			lmax = max(lmax, pl->rx_len_max);
			if (!any || pl->rx_first_ns < first)
				first = pl->rx_first_ns;
			last = max(last, pl->rx_last_ns);
			bytes += pl->rx_bytes;
			any = true;
		}
		spin_unlock_bh(&pl->lock);
		pkts += p;
		errs += e;
		seq_printf(m, "%s_qpn %u\n%s_mtu %d\n%s_rx_packets %llu\n"
			   "%s_rx_errors %llu\n%s_rx_recovered %llu\n"
			   "%s_tx_ok %llu\n",
			   pl->name, pl->rqp->qp_num, pl->name,
			   pattr.active_mtu ?
			   ib_mtu_enum_to_int(pattr.active_mtu) : 0,
			   pl->name, p, pl->name, e, pl->name, r,
			   pl->name, pl->tx_ok);
	}
	span = last - first;
	pps = pkts > 1 && span ?
		mul_u64_u64_div_u64(pkts - 1, NSEC_PER_SEC, span) : 0;
	seq_printf(m, "rx_packets %llu\nrx_bytes %llu\nrx_len_min %u\n"
		   "rx_len_max %u\nrx_errors %llu\nrx_span_ns %llu\n"
		   "rx_pps %llu\nrx_Bps %llu\n",
		   pkts, bytes, lmin, lmax, errs, span, pps,
		   pkts ? div64_u64(pps * bytes, pkts) : 0);
	span = (udf_tx.end_ns ?: ktime_get_ns()) - udf_tx.start_ns;
	seq_printf(m, "tx_running %d\ntx_planes %u\ntx_size %u\n"
		   "tx_posted %llu\ntx_ok %llu\ntx_errors %llu\ntx_ns %llu\n"
		   "tx_pps %llu\n",
		   READ_ONCE(udf_tx.running), udf_tx.npl, udf_tx.size,
		   udf_tx.posted, udf_tx.ok, udf_tx.err,
		   udf_tx.start_ns ? span : 0,
		   udf_tx.start_ns && span ?
		   mul_u64_u64_div_u64(udf_tx.ok, NSEC_PER_SEC, span) : 0);
	mutex_unlock(&udf_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(udf_stats);

static void udf_rx_reset_locked(void)
{
	struct udf_plane *pl;

	list_for_each_entry(pl, &udf_planes, node) {
		spin_lock_bh(&pl->lock);
		pl->rx_packets = 0;
		pl->rx_bytes = 0;
		pl->rx_first_ns = 0;
		pl->rx_last_ns = 0;
		pl->rx_len_min = 0;
		pl->rx_len_max = 0;
		pl->rx_errors = 0;
		pl->rx_recovered = 0;
		spin_unlock_bh(&pl->lock);
	}
}

static ssize_t udf_ctl_write(struct file *f, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char buf[UDF_CTL_MAX], *cmd, *args;
	int err = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	args = strim(buf);
	cmd = strsep(&args, " \t");

	mutex_lock(&udf_lock);
	if (!strcmp(cmd, "start") && args)
		err = udf_tx_start_locked(args);
	else if (!strcmp(cmd, "stop") && !args)
		udf_tx_stop_locked();
	else if (!strcmp(cmd, "reset") && !args)
		udf_rx_reset_locked();
	else
		err = -EINVAL;
	mutex_unlock(&udf_lock);
	return err ? err : len;
}

static const struct file_operations udf_ctl_fops = {
	.owner	= THIS_MODULE,
	.write	= udf_ctl_write,
	.llseek	= noop_llseek,
};

static int __init udf_init(void)
{
	int err;

	if (rx_depth < 16 || rx_depth > 4096 || tx_depth < 2 * UDF_CHAIN ||
	    tx_depth > 1024)
		return -EINVAL;
	udf_rx_cache = kmem_cache_create("mrc_udfloor_rx", UDF_RX_LEN, 64, 0,
					 NULL);
	if (!udf_rx_cache)
		return -ENOMEM;
	err = ib_register_client(&udf_client);
	if (err) {
		kmem_cache_destroy(udf_rx_cache);
		return err;
	}
	udf_dir = debugfs_create_dir("mrc_udfloor", NULL);
	debugfs_create_file("stats", 0444, udf_dir, NULL, &udf_stats_fops);
	debugfs_create_file("ctl", 0200, udf_dir, NULL, &udf_ctl_fops);
	return 0;
}

static void __exit udf_exit(void)
{
	/* No command runs after this; then the sender, then the planes. */
	debugfs_remove_recursive(udf_dir);
	mutex_lock(&udf_lock);
	udf_tx_stop_locked();
	mutex_unlock(&udf_lock);
	ib_unregister_client(&udf_client);
	kmem_cache_destroy(udf_rx_cache);
}

module_init(udf_init);
module_exit(udf_exit);
MODULE_DESCRIPTION("mrc test: the fabric's UD datagram floor, no reliability");
MODULE_LICENSE("GPL");
