/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device lifecycle: creation from "rdma link add", the port following its
 * netdev, and removal by "rdma link delete", netdev removal or unload.
 */
#ifndef SROCE_DEVICE_H
#define SROCE_DEVICE_H

#include <rdma/ib_verbs.h>

struct net_device;
struct sk_buff;
struct sroce_dev;

int sroce_newlink(const char *ibdev_name, struct net_device *ndev);

enum ib_mtu sroce_mtu_from_netdev(unsigned int ndev_mtu);

void sroce_dev_rcv(struct sk_buff *skb);

int sroce_devices_init(void);
void sroce_devices_exit(void);

#endif /* SROCE_DEVICE_H */
