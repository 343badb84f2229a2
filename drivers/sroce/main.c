// SPDX-License-Identifier: GPL-2.0
/*
 * sroce: a software RoCEv2 RDMA device.
 *
 * Module init and exit, and the "sroce" rdma link type:
 *   rdma link add sroce0 type sroce netdev eth0
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/skbuff.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"
#include "crc.h"
#include "device.h"
#include "fault.h"
#include "net.h"
#include "recv.h"
#include "task.h"

static struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_newlink,
};

static const struct sroce_net_handlers sroce_rcv_handlers = {
	.rcv = sroce_dev_rcv,
	.rcv_self = sroce_rcv_self,
};

static int __init sroce_init(void)
{
	int err;

	sroce_fault_init();
	sroce_crc_init();
	err = sroce_task_init();
	if (err)
		goto err_fault;

	err = sroce_net_init(&sroce_rcv_handlers);
	if (err)
		goto err_task;

	err = sroce_devices_init();
	if (err)
		goto err_net;

	rdma_link_register(&sroce_link_ops);
	pr_info("loaded, version %s\n", SROCE_VERSION);
	return 0;

err_net:
	sroce_net_exit();
err_task:
	sroce_task_exit();
err_fault:
	sroce_crc_exit();
	sroce_fault_exit();
	return err;
}

static void __exit sroce_exit(void)
{
	/* No new device after this: newlink runs under the link ops lock. */
	rdma_link_unregister(&sroce_link_ops);
	sroce_devices_exit();
	sroce_net_exit();
	sroce_task_exit();
	sroce_crc_exit();
	sroce_fault_exit();
	pr_info("unloaded\n");
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_DESCRIPTION("Software RoCEv2 RDMA device");
MODULE_AUTHOR("The sroce developers");
MODULE_LICENSE("GPL");
MODULE_VERSION(SROCE_VERSION);
MODULE_ALIAS_RDMA_LINK("sroce");
