// SPDX-License-Identifier: GPL-2.0
/*
 * rail.c - rail discovery and state.
 *
 * Design notes
 *
 * Every port of every RDMA device whose link layer is RoCE or InfiniBand
 * becomes a rail when the device is added (ib_client.add, which the RDMA core
 * calls for devices present at load time and for every device registered
 * later).  A rail is usable only in state ACTIVE; other states say why not
 * (port or netdev down, no usable GID, MTU below the min_mtu knob), so an
 * operator sees a port mrc knows about but cannot use, and why.
 *
 * State is kept true by one function, mrc_rail_refresh(), that re-reads
 * everything about a rail (port attributes, best GID, netdev state) and
 * emits an event if the state changed.  Every source of change (ib events:
 * PORT_ACTIVE/PORT_ERR/GID_CHANGE/...; netdev notifier events; the min_mtu
 * knob) only schedules mrc_refresh_work, which refreshes all rails.  Rails
 * are few, a refresh is cheap, and one path for all changes cannot miss one.
 *
 * GID choice: a RoCEv2 GID holding an IPv4-mapped address first, then a
 * RoCEv2 global IPv6 GID, then (InfiniBand) GID index 0.  Link-local and
 * RoCEv1 GIDs are not routable across an L3 fabric and are not used.
 *
 * Teardown: ib_client.remove unlinks the device's rails under mrc_rails_lock
 * (so the refresh work no longer sees them), unregisters the event handler,
 * sends the REMOVED events and drops the rails' kobjects.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/idr.h>
#include <linux/inetdevice.h>
#include <linux/percpu.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>

#include "mrc.h"
#include "core/names.h"
#include "peer.h"
#include "schedcfg.h"
#include "ud.h"

/* Protects mrc_rails, mrc_rails_gen, mrc_rails_count and rail info updates. */
DEFINE_MUTEX(mrc_rails_lock);
LIST_HEAD(mrc_rails);
unsigned int mrc_rails_gen = 1;	/* 0 would disable dump checks */

static unsigned int mrc_rails_count;	/* under mrc_rails_lock */
static DEFINE_IDA(mrc_rail_ida);

/* One per RDMA device we have rails on; ib_client data. */
struct mrc_dev {
	struct ib_device *ibdev;
	struct ib_event_handler event_handler;
	u32 nports;
	struct mrc_rail *rails[];	/* by port - rdma_start_port(); may be NULL */
};

static struct ib_client mrc_ib_client;

static void mrc_refresh_workfn(struct work_struct *work);
static DECLARE_WORK(mrc_refresh_work, mrc_refresh_workfn);

/* Set once teardown has begun: no more refresh scheduling. */
static bool mrc_rails_closing;

/**
 * mrc_rails_refresh_async() - refresh every rail soon
 *
 * Schedules the one work item that re-reads every rail's information
 * (nothing once teardown has begun).  Any context.
 */
void mrc_rails_refresh_async(void)
{
	if (!READ_ONCE(mrc_rails_closing))
		schedule_work(&mrc_refresh_work);
}

/**
 * mrc_rail_stat_read() - read a rail counter
 * @rail: the rail
 * @s: the counter
 *
 * Return: the counter summed over every CPU.
 */
u64 mrc_rail_stat_read(const struct mrc_rail *rail, enum mrc_rail_stat s)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(rail->pcpu, cpu)->c[s]);
	return sum;
}

/**
 * mrc_rail_drops_read() - read a rail's drop counter
 * @rail: the rail
 * @why: the drop reason
 *
 * Return: the received packets dropped for @why, summed over every CPU.
 */
u64 mrc_rail_drops_read(const struct mrc_rail *rail,
			enum mrc_drop_reason why)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(rail->pcpu, cpu)->drops[why]);
	return sum;
}

/**
 * mrc_rail_get_info() - a consistent copy of a rail's information
 * @rail: the rail
 * @info: filled with the snapshot, taken under rail->info_lock
 */
void mrc_rail_get_info(struct mrc_rail *rail, struct mrc_rail_info *info)
{
	spin_lock_bh(&rail->info_lock);
	*info = rail->info;
	spin_unlock_bh(&rail->info_lock);
}

/**
 * mrc_rail_find_locked() - look a rail up
 * @id: the rail id, used when @name is NULL
 * @name: the rail's name ("ibdev:port"), or NULL
 *
 * Context: mrc_rails_lock held.
 *
 * Return: the rail, or NULL.
 */
struct mrc_rail *mrc_rail_find_locked(u32 id, const char *name)
{
	struct mrc_rail *rail;

	lockdep_assert_held(&mrc_rails_lock);
	list_for_each_entry(rail, &mrc_rails, node) {
		if (name && !strcmp(rail->name, name))
			return rail;
		if (!name && rail->id == id)
			return rail;
	}
	return NULL;
}

/* Mbit/s per lane of an IB speed, and lanes of an IB width. */
static u32 mrc_lane_mbps(u16 speed)
{
	switch (speed) {
	case IB_SPEED_SDR:	return 2500;
	case IB_SPEED_DDR:	return 5000;
	case IB_SPEED_QDR:	return 10000;
	case IB_SPEED_FDR10:	return 10000;
	case IB_SPEED_FDR:	return 14000;
	case IB_SPEED_EDR:	return 25000;
	case IB_SPEED_HDR:	return 50000;
	case IB_SPEED_NDR:	return 100000;
	default:		return 0;
	}
}

static u32 mrc_width_lanes(u8 width)
{
	switch (width) {
	case IB_WIDTH_1X:	return 1;
	case IB_WIDTH_2X:	return 2;
	case IB_WIDTH_4X:	return 4;
	case IB_WIDTH_8X:	return 8;
	case IB_WIDTH_12X:	return 12;
	default:		return 0;
	}
}

/* Rank of a GID for mrc's use; 0 means unusable. */
static int mrc_gid_rank(const struct ib_gid_attr *attr, bool roce)
{
	const struct in6_addr *a = (const struct in6_addr *)attr->gid.raw;

	if (!roce)
		return attr->index == 0 ? 1 : 0;
	if (attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return 0;
	if (ipv6_addr_v4mapped(a))
		return 3;
	if (ipv6_addr_type(a) & (IPV6_ADDR_LINKLOCAL | IPV6_ADDR_LOOPBACK))
		return 0;
	return 2;
}

/* Finds the netdev of a RoCE port that has no GID at all (single port). */
static void mrc_find_netdev_by_scan(struct ib_device *ibdev,
				    struct mrc_rail_info *info)
{
	struct net_device *ndev;

	if (rdma_end_port(ibdev) != rdma_start_port(ibdev))
		return;
	rcu_read_lock();
	for_each_netdev_rcu(&init_net, ndev) {
		struct ib_device *found;

		found = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
		if (!found)
			continue;
		if (found == ibdev) {
			info->ifindex = ndev->ifindex;
			strscpy(info->netdev, ndev->name, sizeof(info->netdev));
		}
		ib_device_put(found);
		if (info->ifindex)
			break;
	}
	rcu_read_unlock();
}

/* Reads the port's GID table: best GID and the netdev behind it. */
static void mrc_read_gids(struct ib_device *ibdev, u32 port, int tbl_len,
			  struct mrc_rail_info *info)
{
	bool roce = rdma_protocol_roce(ibdev, port);
	int best = 0, i;

	for (i = 0; i < tbl_len; i++) {
		const struct ib_gid_attr *attr;
		struct net_device *ndev;
		int rank;

		attr = rdma_get_gid_attr(ibdev, port, i);
		if (IS_ERR(attr))
			continue;
		if (roce && !info->ifindex) {
			rcu_read_lock();
			ndev = rdma_read_gid_attr_ndev_rcu(attr);
			if (!IS_ERR(ndev)) {
				info->ifindex = ndev->ifindex;
				strscpy(info->netdev, ndev->name,
					sizeof(info->netdev));
			}
			rcu_read_unlock();
		}
		rank = mrc_gid_rank(attr, roce);
		if (rank > best) {
			best = rank;
			info->gid = attr->gid;
			info->gid_index = attr->index;
			info->has_gid = true;
		}
		rdma_put_gid_attr(attr);
	}
	if (roce && !info->ifindex)
		mrc_find_netdev_by_scan(ibdev, info);
}

static bool mrc_netdev_up(int ifindex)
{
	struct net_device *ndev;
	bool up = false;

	rcu_read_lock();
	ndev = dev_get_by_index_rcu(&init_net, ifindex);
	if (ndev)
		up = netif_running(ndev) && netif_carrier_ok(ndev);
	rcu_read_unlock();
	return up;
}

/* Reads everything about (ibdev, port) into @info.  Process context. */
static void mrc_rail_probe(struct ib_device *ibdev, u32 port,
			   struct mrc_rail_info *info)
{
	struct ib_port_attr pattr;
	bool port_up = false;
	int mtu;

	memset(info, 0, sizeof(*info));
	info->link_layer = rdma_protocol_roce(ibdev, port) ?
		MRC_LINK_LAYER_ETHERNET : MRC_LINK_LAYER_INFINIBAND;

	if (!ib_query_port(ibdev, port, &pattr)) {
		port_up = pattr.state == IB_PORT_ACTIVE;
		mtu = ib_mtu_enum_to_int(pattr.active_mtu);
		info->mtu = max(mtu, 0);
		info->speed = mrc_lane_mbps(pattr.active_speed) *
			      mrc_width_lanes(pattr.active_width);
		mrc_read_gids(ibdev, port, pattr.gid_tbl_len, info);
	}

	if (info->ifindex && !mrc_netdev_up(info->ifindex))
		port_up = false;

	if (!port_up)
		info->state = MRC_RAIL_STATE_DOWN;
	else if (!info->has_gid)
		info->state = MRC_RAIL_STATE_NO_GID;
	else if (info->mtu < mrc_knob(MRC_KNOB_min_mtu))
		info->state = MRC_RAIL_STATE_MTU_LOW;
	else
		info->state = MRC_RAIL_STATE_ACTIVE;
}

/* Re-reads a listed rail; emits a STATE event on change. */
static void mrc_rail_refresh(struct mrc_rail *rail)
{
	struct mrc_rail_info info;
	u8 prev;

	lockdep_assert_held(&mrc_rails_lock);
	mrc_rail_probe(rail->ibdev, rail->port, &info);
	if (!rail->ud)
		info.state = MRC_RAIL_STATE_ERROR;

	spin_lock_bh(&rail->info_lock);
	prev = rail->info.state;
	rail->info = info;
	spin_unlock_bh(&rail->info_lock);

	if (prev != info.state) {
		mrc_rail_stat_inc(rail, MRC_RAIL_STAT_STATE_CHANGES);
		pr_info("rail %s: %s -> %s\n", rail->name,
			mrc_rail_state_name(prev),
			mrc_rail_state_name(info.state));
		mrc_nl_rail_event(rail, MRC_CMD_RAIL_STATE, prev);
		if (prev == MRC_RAIL_STATE_ACTIVE ||
		    info.state == MRC_RAIL_STATE_ACTIVE)
			mrc_peers_rail_changed(rail, info.state ==
					       MRC_RAIL_STATE_ACTIVE);
	}
}

static void mrc_refresh_workfn(struct work_struct *work)
{
	struct mrc_rail *rail;

	mutex_lock(&mrc_rails_lock);
	mrc_mod_stat_inc(MRC_MOD_STAT_REFRESHES);
	list_for_each_entry(rail, &mrc_rails, node)
		mrc_rail_refresh(rail);
	mutex_unlock(&mrc_rails_lock);
}

/**
 * mrc_rail_release() - kobject release of a rail: frees it
 * @kobj: the rail's kobject
 *
 * Also drops the rail's scheduling configuration before its id can be
 * reused.
 */
void mrc_rail_release(struct kobject *kobj)
{
	struct mrc_rail *rail = container_of(kobj, struct mrc_rail, kobj);

	free_percpu(rail->pcpu);
	mrc_schedcfg_rail_gone(rail->id);	/* before the id is reused */
	ida_free(&mrc_rail_ida, rail->id);
	kfree(rail);
}

/* Makes a rail for (ibdev, port) and lists it.  Under mrc_rails_lock. */
static struct mrc_rail *mrc_rail_create(struct ib_device *ibdev, u32 port)
{
	struct mrc_rail *rail;
	int id;

	lockdep_assert_held(&mrc_rails_lock);
	if (mrc_rails_count >= mrc_knob(MRC_KNOB_max_rails)) {
		mrc_mod_stat_inc(MRC_MOD_STAT_RAILS_REFUSED);
		pr_warn("%s:%u not taken as a rail: max_rails (%u) reached\n",
			dev_name(&ibdev->dev), port,
			mrc_knob(MRC_KNOB_max_rails));
		return NULL;
	}

	rail = kzalloc(sizeof(*rail), GFP_KERNEL);
	if (!rail)
		goto err_count;
	rail->pcpu = alloc_percpu(struct mrc_rail_pcpu);
	if (!rail->pcpu)
		goto err_free;
	id = ida_alloc_max(&mrc_rail_ida, U16_MAX, GFP_KERNEL);
	if (id < 0)
		goto err_pcpu;
	rail->id = id;
	rail->ibdev = ibdev;
	rail->port = port;
	strscpy(rail->ibdev_name, dev_name(&ibdev->dev),
		sizeof(rail->ibdev_name));
	snprintf(rail->name, sizeof(rail->name), "%s:%u", rail->ibdev_name,
		 port);
	spin_lock_init(&rail->info_lock);
	INIT_LIST_HEAD(&rail->node);
	mrc_sysfs_rail_init(rail);	/* from here on, kobject_put frees */

	rail->ud = mrc_ud_create(rail, mrc_knob(MRC_KNOB_entropy));
	if (IS_ERR(rail->ud)) {
		pr_warn("%s: queue pairs not created (%ld): rail unusable\n",
			rail->name, PTR_ERR(rail->ud));
		rail->ud = NULL;
		mrc_mod_stat_inc(MRC_MOD_STAT_UD_CREATE_FAILED);
	}
	mrc_rail_probe(ibdev, port, &rail->info);
	if (!rail->ud)
		rail->info.state = MRC_RAIL_STATE_ERROR;
	if (mrc_sysfs_rail_add(rail)) {
		pr_warn("%s: sysfs directory not created\n", rail->name);
		mrc_ud_destroy(rail->ud);
		kobject_put(&rail->kobj);
		goto err_count;
	}

	list_add_tail(&rail->node, &mrc_rails);
	mrc_rails_count++;
	mrc_rails_gen++;
	pr_info("rail %s added (netdev %s, state %s)\n", rail->name,
		rail->info.ifindex ? rail->info.netdev : "-",
		mrc_rail_state_name(rail->info.state));
	mrc_nl_rail_event(rail, MRC_CMD_RAIL_ADDED, rail->info.state);
	return rail;

err_pcpu:
	free_percpu(rail->pcpu);
err_free:
	kfree(rail);
err_count:
	mrc_mod_stat_inc(MRC_MOD_STAT_RAIL_ALLOC_FAILED);
	return NULL;
}

/* Unlists a rail and sends its REMOVED event.  Under mrc_rails_lock. */
static void mrc_rail_unlist(struct mrc_rail *rail)
{
	lockdep_assert_held(&mrc_rails_lock);
	list_del_init(&rail->node);
	mrc_rails_count--;
	mrc_rails_gen++;
	pr_info("rail %s removed\n", rail->name);
	mrc_nl_rail_event(rail, MRC_CMD_RAIL_REMOVED, rail->info.state);
}

/* May run in interrupt context: count it and defer the work. */
static void mrc_ib_event(struct ib_event_handler *handler,
			 struct ib_event *event)
{
	struct mrc_dev *mdev = container_of(handler, struct mrc_dev,
					    event_handler);
	u32 port;

	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
	case IB_EVENT_PKEY_CHANGE:
	case IB_EVENT_GID_CHANGE:
	case IB_EVENT_CLIENT_REREGISTER:
		port = event->element.port_num;
		if (port >= rdma_start_port(mdev->ibdev) &&
		    port <= rdma_end_port(mdev->ibdev) &&
		    mdev->rails[port - rdma_start_port(mdev->ibdev)])
			mrc_rail_stat_inc(mdev->rails[port -
					  rdma_start_port(mdev->ibdev)],
					  MRC_RAIL_STAT_PORT_EVENTS);
		mrc_rails_refresh_async();
		break;
	case IB_EVENT_DEVICE_FATAL:	/* element is the device, not a port */
		mrc_rails_refresh_async();
		break;
	default:
		break;
	}
}

static int mrc_ib_add(struct ib_device *ibdev)
{
	struct mrc_dev *mdev;
	u32 port, nports;

	nports = rdma_end_port(ibdev) - rdma_start_port(ibdev) + 1;
	mdev = kzalloc(struct_size(mdev, rails, nports), GFP_KERNEL);
	if (!mdev)
		return -ENOMEM;
	mdev->ibdev = ibdev;
	mdev->nports = nports;

	mutex_lock(&mrc_rails_lock);
	rdma_for_each_port(ibdev, port) {
		if (!rdma_protocol_roce(ibdev, port) &&
		    !rdma_protocol_ib(ibdev, port))
			continue;
		mdev->rails[port - rdma_start_port(ibdev)] =
			mrc_rail_create(ibdev, port);
	}
	mutex_unlock(&mrc_rails_lock);

	ib_set_client_data(ibdev, &mrc_ib_client, mdev);
	INIT_IB_EVENT_HANDLER(&mdev->event_handler, ibdev, mrc_ib_event);
	ib_register_event_handler(&mdev->event_handler);
	/* Catch what changed between the probe above and the handler. */
	mrc_rails_refresh_async();
	return 0;
}

static void mrc_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct mrc_dev *mdev = client_data;
	unsigned int n;
	u32 i;

	ib_unregister_event_handler(&mdev->event_handler);

	mutex_lock(&mrc_rails_lock);
	for (i = 0; i < mdev->nports; i++)
		if (mdev->rails[i])
			mrc_rail_unlist(mdev->rails[i]);
	mutex_unlock(&mrc_rails_lock);

	/*
	 * Outside the lock: kobject_del waits for sysfs readers (after it,
	 * nobody reaches the QPs through sysfs), then the QPs go.
	 */
	for (i = 0; i < mdev->nports; i++) {
		if (!mdev->rails[i])
			continue;
		mrc_sysfs_rail_del(mdev->rails[i]);
		n = mrc_peers_rail_removed(mdev->rails[i]);
		pr_info("rail %s: %u packets in flight on its paths, sent again on the others\n",
			mdev->rails[i]->name, n);
		mrc_ah_wait_all(mdev->rails[i]);	/* before the PD (ah.c) */
		mrc_ud_destroy(mdev->rails[i]->ud);
		mdev->rails[i]->ud = NULL;
		kobject_put(&mdev->rails[i]->kobj);
	}
	kfree(mdev);
}

static struct ib_client mrc_ib_client = {
	.name	= "mrc",
	.add	= mrc_ib_add,
	.remove	= mrc_ib_remove,
};

static int mrc_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
	case NETDEV_CHANGENAME:
	case NETDEV_REGISTER:
	case NETDEV_UNREGISTER:
		mrc_rails_refresh_async();
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block mrc_netdev_nb = {
	.notifier_call = mrc_netdev_event,
};

/**
 * mrc_rail_init() - start tracking RDMA ports as rails
 *
 * Description: registers the netdev notifier and the IB client; the
 * client's add callback creates the rails of every device present.
 *
 * Return: 0 or -errno.
 */
int mrc_rail_init(void)
{
	int err;

	WRITE_ONCE(mrc_rails_closing, false);
	err = register_netdevice_notifier(&mrc_netdev_nb);
	if (err)
		return err;
	err = ib_register_client(&mrc_ib_client);
	if (err) {
		unregister_netdevice_notifier(&mrc_netdev_nb);
		return err;
	}
	return 0;
}

/**
 * mrc_rail_exit() - stop tracking rails and remove them all
 */
void mrc_rail_exit(void)
{
	WRITE_ONCE(mrc_rails_closing, true);
	unregister_netdevice_notifier(&mrc_netdev_nb);
	ib_unregister_client(&mrc_ib_client);	/* removes every rail */
	cancel_work_sync(&mrc_refresh_work);
	WARN_ON(!list_empty(&mrc_rails));
	ida_destroy(&mrc_rail_ida);
}
