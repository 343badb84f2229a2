/* SPDX-License-Identifier: GPL-2.0 */
/*
 * struct sroce_dev: one software RoCEv2 device bound to one Ethernet netdev.
 *
 * Lifetime (see Documentation/lifetime.rst):
 *  - created by the rdma link "newlink" op, published by ib_register_device();
 *  - unregistered by "rdma link delete", by the netdev going away
 *    (NETDEV_UNREGISTER) or by module unload; ib_core then calls
 *    sroce_dealloc_driver() exactly once, which releases the netdev;
 *  - the memory (embedded struct ib_device) stays pinned by the reference
 *    that sroce's device list holds until the reaper has fenced the
 *    unregistration, so module unload can never race a late unregister.
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "mcast.h"
#include "pool.h"

#define SROCE_VERSION "0.1.0"
#define SROCE_FW_MAJOR 0
#define SROCE_FW_MINOR 1
#define SROCE_FW_SUB 0

struct sroce_counters;

#define SROCE_TXFLOW_BUCKETS	16

/*
 * A device's shared transmit flows (txflow.c), one per source and
 * destination GID pair its RC/UC QPs use.
 */
struct sroce_txflow_table {
	struct mutex lock;	/* the lists and every flow's @users */
	struct hlist_head buckets[SROCE_TXFLOW_BUCKETS];
	atomic_t next_id;	/* the last flow's id */
};

struct sroce_dev {
	struct ib_device ibdev;

	/* Held from creation until sroce_dealloc_driver(). */
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;

	/* Immutable after creation: what query_device reports. */
	struct ib_device_attr attr;

	/*
	 * port_lock protects the port fields below. Taken in process
	 * context (netdev notifier, query_port) and, later, from the
	 * packet path (softirq), hence the _bh variants.
	 */
	spinlock_t port_lock;
	enum ib_port_state port_state;
	enum ib_mtu active_mtu;

	/*
	 * Entry on the module's device list, protected by
	 * sroce_devices_lock (process context only). @unregistered is set
	 * by dealloc_driver and read by the reaper under the same lock.
	 */
	struct list_head list;
	bool unregistered;

	/*
	 * Set (once) when the netdev is being unregistered: no packet will
	 * leave or arrive again, so no QP may become ready to send.
	 */
	bool netdev_gone;

	/*
	 * Numbered objects (pool.h). MRs and MWs share one pool so that an
	 * lkey/rkey names exactly one of them: key = index << 8 | variant.
	 */
	struct sroce_pool qp_pool;	/* QPN: 1 (GSI), then 16 .. 2^24-1 */
	struct sroce_pool key_pool;	/* MR and MW keys */
	struct sroce_pool srq_pool;
	struct sroce_pool ah_pool;	/* ah_num handed to the rxe provider */

	/* Objects nothing looks up by number: counted against the limits. */
	atomic_t num_pd;
	atomic_t num_cq;
	atomic_t num_ucontext;
	atomic_t num_mr;
	atomic_t num_mw;

	/* ODP MRs: while there is one, no QP engine runs in softirq (task.c) */
	atomic_t odp_mrs;

	/* Low byte of the next MR/MW key; any value is fine, it only varies. */
	atomic_t key_variant;

	struct sroce_mcast_table mcast;

	/* Transmit flows shared by the RC/UC QPs to one destination. */
	struct sroce_txflow_table txflows;

	struct sroce_counters __percpu *counters;
};

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

/* The user context a verb was called from, or NULL for kernel callers. */
static inline struct ib_ucontext *sroce_uctx(struct ib_udata *udata)
{
	return udata ? rdma_udata_to_uverbs_attr_bundle(udata)->context : NULL;
}

/* Take one unit of a counted resource, or fail at the device limit. */
static inline bool sroce_charge(atomic_t *count, int limit)
{
	if (atomic_inc_return(count) > limit) {
		atomic_dec(count);
		return false;
	}
	return true;
}

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

#endif /* SROCE_H */
