// SPDX-License-Identifier: GPL-2.0
/*
 * Multicast groups.
 *
 * Groups are few and attach/detach is rare, so a list under one lock is
 * enough. The netdev's multicast filter is changed outside that lock,
 * since dev_mc_add() takes a BH lock of its own.
 */
#include <linux/etherdevice.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <rdma/ib_addr.h>
#include <sroce/params.h>

#include "sroce.h"
#include "counters.h"
#include "fault.h"
#include "mcast.h"
#include "qp.h"

struct sroce_mcast_group {
	struct list_head node;		/* in table->groups */
	union ib_gid mgid;
	struct list_head members;
	u32 num_members;
};

struct sroce_mcast_member {
	struct list_head group_node;	/* in group->members */
	struct list_head qp_node;	/* in qp->mcast_list */
	struct sroce_mcast_group *group;
	struct sroce_qp *qp;
};

void sroce_mcast_init(struct sroce_mcast_table *t)
{
	spin_lock_init(&t->lock);
	INIT_LIST_HEAD(&t->groups);
	t->num_groups = 0;
	t->num_attach = 0;
}

/* The Ethernet multicast address frames for @mgid are sent to. */
static void sroce_mgid_to_mac(const union ib_gid *mgid, u8 *mac)
{
	if (ipv6_addr_v4mapped((const struct in6_addr *)mgid->raw))
		ip_eth_mc_map(((const struct in6_addr *)mgid->raw)->s6_addr32[3],
			      mac);
	else
		ipv6_eth_mc_map((const struct in6_addr *)mgid->raw, mac);
}

static void sroce_mcast_filter(struct sroce_dev *sdev,
			       const union ib_gid *mgid, bool add)
{
	u8 mac[ETH_ALEN];

	sroce_mgid_to_mac(mgid, mac);
	if (add)
		dev_mc_add(sdev->ndev, mac);
	else
		dev_mc_del(sdev->ndev, mac);
}

static struct sroce_mcast_group *
sroce_mcast_find(struct sroce_mcast_table *t, const union ib_gid *mgid)
{
	struct sroce_mcast_group *g;

	lockdep_assert_held(&t->lock);
	list_for_each_entry(g, &t->groups, node)
		if (!memcmp(g->mgid.raw, mgid->raw, sizeof(mgid->raw)))
			return g;
	return NULL;
}

static bool sroce_mcast_is_member(struct sroce_mcast_group *g,
				  struct sroce_qp *qp)
{
	struct sroce_mcast_member *m;

	list_for_each_entry(m, &g->members, group_node)
		if (m->qp == qp)
			return true;
	return false;
}

/*
 * Link @m into @g (or into @new_group, which then joins the table).
 * Return: 1 when @new_group was used, 0 when @m was, -errno otherwise.
 */
static int sroce_mcast_link(struct sroce_mcast_table *t, struct sroce_qp *qp,
			    const union ib_gid *mgid,
			    struct sroce_mcast_group *new_group,
			    struct sroce_mcast_member *m)
{
	struct sroce_mcast_group *g = sroce_mcast_find(t, mgid);
	int used_group = 0;

	if (g && sroce_mcast_is_member(g, qp))
		return -EALREADY;
	if (t->num_attach >= SROCE_MAX_TOT_MCAST_QP_ATTACH)
		return -ENOMEM;
	if (!g) {
		if (t->num_groups >= SROCE_MAX_MCAST_GRP)
			return -ENOMEM;
		g = new_group;
		list_add_tail(&g->node, &t->groups);
		t->num_groups++;
		used_group = 1;
	} else if (g->num_members >= SROCE_MAX_MCAST_QP_ATTACH) {
		return -ENOMEM;
	}
	m->group = g;
	m->qp = qp;
	list_add_tail(&m->group_node, &g->members);
	list_add_tail(&m->qp_node, &qp->mcast_list);
	g->num_members++;
	t->num_attach++;
	return used_group;
}

static int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mcast_table *t = &sdev->mcast;
	struct sroce_mcast_member *m;
	struct sroce_mcast_group *g;
	unsigned long flags;
	int ret;

	if (ibqp->qp_type != IB_QPT_UD ||
	    !rdma_is_multicast_addr((struct in6_addr *)mgid->raw))
		return -EINVAL;
	g = sroce_kzalloc(sizeof(*g), GFP_KERNEL);
	m = sroce_kzalloc(sizeof(*m), GFP_KERNEL);
	if (!g || !m) {
		ret = -ENOMEM;
		goto out_free;
	}
	g->mgid = *mgid;
	INIT_LIST_HEAD(&g->members);

	spin_lock_irqsave(&t->lock, flags);
	ret = sroce_mcast_link(t, to_sqp(ibqp), mgid, g, m);
	spin_unlock_irqrestore(&t->lock, flags);
	if (ret < 0)
		goto out_free;
	if (ret == 1)
		sroce_mcast_filter(sdev, mgid, true);
	else
		kfree(g);
	return 0;

out_free:
	kfree(m);
	kfree(g);
	/* Attaching a QP twice is harmless, as on hardware. */
	return ret == -EALREADY ? 0 : ret;
}

/* Unlink @m; return its group if that became empty (caller frees). */
static struct sroce_mcast_group *
sroce_mcast_unlink(struct sroce_mcast_table *t, struct sroce_mcast_member *m)
{
	struct sroce_mcast_group *g = m->group;

	lockdep_assert_held(&t->lock);
	list_del(&m->group_node);
	list_del(&m->qp_node);
	g->num_members--;
	t->num_attach--;
	if (g->num_members)
		return NULL;
	list_del(&g->node);
	t->num_groups--;
	return g;
}

static void sroce_mcast_release(struct sroce_dev *sdev,
				struct sroce_mcast_member *m,
				struct sroce_mcast_group *empty)
{
	kfree(m);
	if (empty) {
		sroce_mcast_filter(sdev, &empty->mgid, false);
		kfree(empty);
	}
}

static int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *mgid, u16 lid)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mcast_table *t = &sdev->mcast;
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_mcast_group *empty = NULL;
	struct sroce_mcast_member *m, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	list_for_each_entry(m, &qp->mcast_list, qp_node) {
		if (!memcmp(m->group->mgid.raw, mgid->raw, sizeof(mgid->raw))) {
			found = m;
			empty = sroce_mcast_unlink(t, m);
			break;
		}
	}
	spin_unlock_irqrestore(&t->lock, flags);
	if (!found)
		return -EINVAL;
	sroce_mcast_release(sdev, found, empty);
	return 0;
}

/* Detach a QP that is being destroyed from every group it joined. */
void sroce_mcast_detach_all(struct sroce_dev *sdev, struct sroce_qp *qp)
{
	struct sroce_mcast_table *t = &sdev->mcast;
	struct sroce_mcast_group *empty;
	struct sroce_mcast_member *m;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&t->lock, flags);
		m = list_first_entry_or_null(&qp->mcast_list,
					     struct sroce_mcast_member, qp_node);
		empty = m ? sroce_mcast_unlink(t, m) : NULL;
		spin_unlock_irqrestore(&t->lock, flags);
		if (!m)
			return;
		sroce_mcast_release(sdev, m, empty);
	}
}

/**
 * sroce_mcast_deliver - give a multicast datagram to every attached QP
 * @sdev: the device
 * @mgid: the destination group
 * @skb: the checked packet, consumed when some QP is attached
 * @deliver: called with a referenced QP and a copy of the packet each
 *
 * Context: softirq.
 * Return: false when no QP is attached (@skb is left to the caller).
 */
bool sroce_mcast_deliver(struct sroce_dev *sdev, const union ib_gid *mgid,
			 struct sk_buff *skb, sroce_deliver_fn deliver)
{
	struct sroce_qp *qps[SROCE_MAX_MCAST_QP_ATTACH];
	struct sroce_mcast_table *t = &sdev->mcast;
	struct sroce_mcast_member *m;
	struct sroce_mcast_group *g;
	unsigned long flags;
	int n = 0, i;

	spin_lock_irqsave(&t->lock, flags);
	g = sroce_mcast_find(t, mgid);
	if (g) {
		list_for_each_entry(m, &g->members, group_node) {
			if (n == ARRAY_SIZE(qps))
				break;
			sroce_pool_elem_get(&m->qp->elem);
			qps[n++] = m->qp;
		}
	}
	spin_unlock_irqrestore(&t->lock, flags);

	for (i = 0; i < n; i++) {
		struct sk_buff *copy = i == n - 1 ? skb : skb_clone(skb, GFP_ATOMIC);

		if (copy) {
			deliver(sdev, qps[i], copy);
		} else {
			sroce_counter_inc(sdev, SROCE_CNT_DROP_NOMEM);
			sroce_qp_put(qps[i]);
		}
	}
	return n;
}

const struct ib_device_ops sroce_mcast_ops = {
	.attach_mcast = sroce_attach_mcast,
	.detach_mcast = sroce_detach_mcast,
};
