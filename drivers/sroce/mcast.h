/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Multicast groups: which UD QPs receive the datagrams sent to a multicast
 * GID, and the netdev's multicast filter that lets those frames in.
 */
#ifndef SROCE_MCAST_H
#define SROCE_MCAST_H

#include <linux/list.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

struct sroce_dev;
struct sroce_qp;

struct sroce_mcast_table {
	/* lock protects everything below and every group; any context */
	spinlock_t lock;
	struct list_head groups;
	u32 num_groups;
	u32 num_attach;
};

void sroce_mcast_init(struct sroce_mcast_table *t);
void sroce_mcast_detach_all(struct sroce_dev *sdev, struct sroce_qp *qp);

struct sk_buff;
typedef void (*sroce_deliver_fn)(struct sroce_dev *sdev, struct sroce_qp *qp,
				 struct sk_buff *skb);
bool sroce_mcast_deliver(struct sroce_dev *sdev, const union ib_gid *mgid,
			 struct sk_buff *skb, sroce_deliver_fn deliver);

extern const struct ib_device_ops sroce_mcast_ops;

#endif /* SROCE_MCAST_H */
