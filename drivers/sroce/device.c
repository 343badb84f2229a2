// SPDX-License-Identifier: GPL-2.0
/*
 * Device lifecycle.
 *
 * A device is created by "rdma link add NAME type sroce netdev DEV" and is
 * removed by whichever comes first of "rdma link delete", the netdev going
 * away and module unload. ib_core serialises the unregistrations of one
 * device with its per-device unregistration_lock and calls dealloc_driver
 * exactly once.
 *
 * The module keeps its own list of devices, each entry holding a reference
 * on the struct device embedded in the ib_device. The list exists so that
 * module unload can fence every unregistration, including ones that ib_core
 * queued on its own workqueue for a netdev removal: ib_unregister_device()
 * on an entry blocks until any concurrent unregistration of it, including
 * its call into our dealloc_driver, has returned. A reaper does the same
 * for devices that went away at run time, so the list does not grow.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>

#include <sroce/params.h>

#include "sroce.h"
#include "device.h"
#include "counters.h"
#include "mcast.h"
#include "qp.h"
#include "qp_verbs.h"
#include "recv.h"
#include "txflow.h"
#include "verbs.h"

/*
 * sroce_devices_lock protects sroce_devices and every sdev->list and
 * sdev->unregistered. Process context only. Never held while calling
 * into ib_core, because ib_core calls sroce_dealloc_driver() with its
 * own locks held.
 */
static DEFINE_MUTEX(sroce_devices_lock);
static LIST_HEAD(sroce_devices);

/*
 * Serialises newlink so that the "one device per netdev" check and the
 * registration are atomic. Taken before any ib_core or RTNL lock, and
 * the netdev notifier never takes it.
 */
static DEFINE_MUTEX(sroce_newlink_lock);

static void sroce_reap(struct work_struct *work);
static DECLARE_WORK(sroce_reap_work, sroce_reap);

enum ib_mtu sroce_mtu_from_netdev(unsigned int ndev_mtu)
{
	int room = (int)ndev_mtu - SROCE_MAX_HDR_LENGTH;

	if (room >= 4096)
		return IB_MTU_4096;
	if (room >= 2048)
		return IB_MTU_2048;
	if (room >= 1024)
		return IB_MTU_1024;
	if (room >= 512)
		return IB_MTU_512;
	if (room >= 256)
		return IB_MTU_256;
	return 0;	/* no IB MTU fits: the port cannot be active */
}

static enum ib_port_state sroce_netdev_port_state(struct net_device *ndev,
						  enum ib_mtu mtu)
{
	if (netif_running(ndev) && netif_carrier_ok(ndev) && mtu)
		return IB_PORT_ACTIVE;
	return IB_PORT_DOWN;
}

static void sroce_port_event(struct sroce_dev *sdev, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
		.event = type,
	};

	ib_dispatch_event(&ev);
}

/*
 * Re-read carrier, admin state and MTU from the netdev. Called from the
 * netdev notifier, under RTNL, so the netdev fields are stable.
 */
static void sroce_port_update(struct sroce_dev *sdev)
{
	enum ib_port_state old_state, new_state;
	enum ib_mtu mtu = sroce_mtu_from_netdev(READ_ONCE(sdev->ndev->mtu));

	new_state = sroce_netdev_port_state(sdev->ndev, mtu);

	spin_lock_bh(&sdev->port_lock);
	old_state = sdev->port_state;
	sdev->port_state = new_state;
	if (mtu)
		sdev->active_mtu = mtu;
	spin_unlock_bh(&sdev->port_lock);

	if (old_state == new_state)
		return;
	ibdev_info(&sdev->ibdev, "port %s\n",
		   new_state == IB_PORT_ACTIVE ? "active" : "down");
	sroce_port_event(sdev, new_state == IB_PORT_ACTIVE ?
			 IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR);
}

static int sroce_check_netdev(const char *ibdev_name, struct net_device *ndev)
{
	struct ib_device *other;

	if (ndev->type != ARPHRD_ETHER) {
		pr_err("%s: netdev %s is not an Ethernet device (type %u)\n",
		       ibdev_name, netdev_name(ndev), ndev->type);
		return -EINVAL;
	}
	if (is_vlan_dev(ndev)) {
		pr_err("%s: netdev %s is a VLAN device; attach to %s instead\n",
		       ibdev_name, netdev_name(ndev),
		       netdev_name(vlan_dev_real_dev(ndev)));
		return -EOPNOTSUPP;
	}
	other = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
	if (other) {
		pr_err("%s: netdev %s already has RDMA device %s\n",
		       ibdev_name, netdev_name(ndev), dev_name(&other->dev));
		ib_device_put(other);
		return -EEXIST;
	}
	other = ib_device_get_by_name(ibdev_name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		pr_err("%s: an RDMA device of that name already exists\n",
		       ibdev_name);
		ib_device_put(other);
		return -EEXIST;
	}
	return 0;
}

static void sroce_init_port(struct sroce_dev *sdev)
{
	spin_lock_init(&sdev->port_lock);
	sdev->active_mtu = sroce_mtu_from_netdev(sdev->ndev->mtu);
	if (!sdev->active_mtu)
		sdev->active_mtu = IB_MTU_256;
	sdev->port_state =
		sroce_netdev_port_state(sdev->ndev,
					sroce_mtu_from_netdev(sdev->ndev->mtu));
}

static void sroce_dealloc_driver(struct ib_device *ibdev);

/* dealloc_driver ends the lifetime this file owns; the verbs are verbs.c's. */
static const struct ib_device_ops sroce_device_ops = {
	.dealloc_driver = sroce_dealloc_driver,
};

static void sroce_init_ibdev(struct sroce_dev *sdev)
{
	struct ib_device *ibdev = &sdev->ibdev;

	addrconf_addr_eui48((unsigned char *)&ibdev->node_guid,
			    sdev->ndev->dev_addr);
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = 1;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	/* Lets rdma_cm and sysfs users find the netdev's bus device. */
	ibdev->dev.parent = sdev->ndev->dev.parent;
	strscpy(ibdev->node_desc, "sroce", sizeof(ibdev->node_desc));
	/* The rxe provider rings the send doorbell with the legacy command. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);
	sroce_verbs_init_attr(sdev);
	sroce_verbs_set_ops(ibdev);
	ib_set_device_ops(ibdev, &sroce_device_ops);
}

/* The numbered objects and their limits. */
static void sroce_init_objects(struct sroce_dev *sdev)
{
	sroce_pool_init(&sdev->qp_pool, "qp", SROCE_MIN_QPN, SROCE_MAX_QPN,
			SROCE_MAX_QP);
	sroce_pool_init(&sdev->key_pool, "mr/mw", 1, 0xffffff,
			SROCE_MAX_MR + SROCE_MAX_MW);
	sroce_pool_init(&sdev->srq_pool, "srq", 1, 0xffffff, SROCE_MAX_SRQ);
	sroce_pool_init(&sdev->ah_pool, "ah", 1, SROCE_MAX_AH, SROCE_MAX_AH);
	sroce_mcast_init(&sdev->mcast);
	sroce_txflow_table_init(&sdev->txflows);
}

static void sroce_destroy_objects(struct sroce_dev *sdev)
{
	sroce_pool_destroy(&sdev->ah_pool);
	sroce_pool_destroy(&sdev->srq_pool);
	sroce_pool_destroy(&sdev->key_pool);
	sroce_pool_destroy(&sdev->qp_pool);
	free_percpu(sdev->counters);
}

static int sroce_register(struct sroce_dev *sdev, const char *ibdev_name)
{
	int err;

	err = ib_device_set_netdev(&sdev->ibdev, sdev->ndev, 1);
	if (err)
		return err;
	return ib_register_device(&sdev->ibdev, ibdev_name, NULL);
}

static int sroce_dev_create(const char *ibdev_name, struct net_device *ndev)
{
	struct sroce_dev *sdev;
	int err;

	sdev = ib_alloc_device(sroce_dev, ibdev);
	if (!sdev)
		return -ENOMEM;
	sdev->counters = alloc_percpu(struct sroce_counters);
	if (!sdev->counters) {
		ib_dealloc_device(&sdev->ibdev);
		return -ENOMEM;
	}

	INIT_LIST_HEAD(&sdev->list);
	netdev_hold(ndev, &sdev->ndev_tracker, GFP_KERNEL);
	sdev->ndev = ndev;
	sroce_init_port(sdev);
	sroce_init_objects(sdev);
	sroce_init_ibdev(sdev);

	err = sroce_register(sdev, ibdev_name);
	if (err)
		goto err_put_ndev;

	/* From here on ib_core owns the device: only unregister frees it. */
	get_device(&sdev->ibdev.dev);
	mutex_lock(&sroce_devices_lock);
	list_add_tail(&sdev->list, &sroce_devices);
	mutex_unlock(&sroce_devices_lock);

	ibdev_info(&sdev->ibdev, "added on %s, active MTU %d\n",
		   netdev_name(ndev), ib_mtu_enum_to_int(sdev->active_mtu));
	return 0;

err_put_ndev:
	sroce_destroy_objects(sdev);
	netdev_put(ndev, &sdev->ndev_tracker);
	ib_dealloc_device(&sdev->ibdev);
	return err;
}

/**
 * sroce_newlink - rdma_link_ops.newlink: create a device on a netdev
 * @ibdev_name: name requested by the user
 * @ndev: the netdev, held by the caller for the duration of the call
 *
 * Context: process context, ib_core's link_ops_rwsem held for read.
 * Return: 0 or a negative errno; on error nothing was created.
 */
int sroce_newlink(const char *ibdev_name, struct net_device *ndev)
{
	int err;

	mutex_lock(&sroce_newlink_lock);
	err = sroce_check_netdev(ibdev_name, ndev);
	if (!err)
		err = sroce_dev_create(ibdev_name, ndev);
	mutex_unlock(&sroce_newlink_lock);
	if (err)
		pr_err("%s: cannot add device on %s: %d\n", ibdev_name,
		       netdev_name(ndev), err);
	return err;
}

/**
 * sroce_dealloc_driver - ib_device_ops.dealloc_driver
 * @ibdev: the device being unregistered
 *
 * Called once by ib_core when the device has been unregistered and no
 * verbs call can reach it any more. Releases the netdev and hands the
 * memory to the reaper.
 *
 * Context: process context, ib_core's unregistration_lock held.
 */
static void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	ibdev_info(ibdev, "removed from %s\n", netdev_name(sdev->ndev));
	sroce_destroy_objects(sdev);
	netdev_put(sdev->ndev, &sdev->ndev_tracker);

	mutex_lock(&sroce_devices_lock);
	sdev->unregistered = true;
	mutex_unlock(&sroce_devices_lock);
	queue_work(system_unbound_wq, &sroce_reap_work);
}

/* Take the first entry matching @unregistered_only off the device list. */
static struct sroce_dev *sroce_devices_pop(bool unregistered_only)
{
	struct sroce_dev *sdev;

	mutex_lock(&sroce_devices_lock);
	list_for_each_entry(sdev, &sroce_devices, list) {
		if (unregistered_only && !sdev->unregistered)
			continue;
		list_del_init(&sdev->list);
		mutex_unlock(&sroce_devices_lock);
		return sdev;
	}
	mutex_unlock(&sroce_devices_lock);
	return NULL;
}

/*
 * Unregister (or wait for a concurrent unregistration to finish, which
 * ib_unregister_device() does when one is under way) and drop the list's
 * reference, which may free the memory.
 */
static void sroce_fence_and_put(struct sroce_dev *sdev)
{
	ib_unregister_device(&sdev->ibdev);
	put_device(&sdev->ibdev.dev);
}

static void sroce_reap(struct work_struct *work)
{
	struct sroce_dev *sdev;

	while ((sdev = sroce_devices_pop(true)))
		sroce_fence_and_put(sdev);
}

/**
 * sroce_dev_get_by_netdev - the sroce device on a netdev, referenced
 * @ndev: the netdev
 *
 * Context: any.
 * Return: the device (release with ib_device_put()) or NULL.
 */
static struct sroce_dev *sroce_dev_get_by_netdev(struct net_device *ndev)
{
	struct ib_device *ibdev;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE);
	if (!ibdev)
		return NULL;
	/* The driver id is shared with rdma_rxe: make sure it is ours. */
	if (ibdev->ops.dealloc_driver != sroce_dealloc_driver) {
		ib_device_put(ibdev);
		return NULL;
	}
	return to_sdev(ibdev);
}

/**
 * sroce_dev_rcv - receive handler given to net.c
 * @skb: a UDP datagram to port 4791, data at the UDP header
 *
 * Finds the device of the netdev the packet arrived on and hands the
 * packet to the transport.
 *
 * Context: softirq (or BH-disabled, for looped-back packets).
 */
void sroce_dev_rcv(struct sk_buff *skb)
{
	struct sroce_dev *sdev = sroce_dev_get_by_netdev(skb->dev);

	if (!sdev) {
		kfree_skb(skb);
		return;
	}
	sroce_rcv(sdev, skb);
	ib_device_put(&sdev->ibdev);
}

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_dev *sdev = sroce_dev_get_by_netdev(ndev);

	if (!sdev)
		return NOTIFY_DONE;

	switch (event) {
	case NETDEV_UNREGISTER:
		sroce_qp_fail_all(sdev);
		/* Under RTNL: ib_core finishes the job on its workqueue. */
		ib_unregister_device_queued(&sdev->ibdev);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		sroce_port_update(sdev);
		break;
	default:
		break;
	}
	ib_device_put(&sdev->ibdev);
	return NOTIFY_DONE;
}

static struct notifier_block sroce_netdev_notifier = {
	.notifier_call = sroce_netdev_event,
};

int sroce_devices_init(void)
{
	return register_netdevice_notifier(&sroce_netdev_notifier);
}

/*
 * Called after the link ops are gone, so no device can be created any
 * more. Removes every device and fences every unregistration, whoever
 * started it.
 */
void sroce_devices_exit(void)
{
	struct sroce_dev *sdev;

	unregister_netdevice_notifier(&sroce_netdev_notifier);
	while ((sdev = sroce_devices_pop(false)))
		sroce_fence_and_put(sdev);
	flush_work(&sroce_reap_work);
}
