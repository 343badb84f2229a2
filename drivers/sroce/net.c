// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 UDP sockets.
 *
 * One IPv4 and one IPv6-only socket bound to UDP 4791 in the initial
 * network namespace, as RoCEv2 NICs and rdma_rxe do. Binding the port is
 * also how sroce and the in-tree rdma_rxe exclude each other: both claim
 * the RXE driver id and this port, and whichever module loads second
 * cannot bind it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/skbuff.h>
#include <net/net_namespace.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>

#include "net.h"

static struct socket *sroce_sock4;
static struct socket *sroce_sock6;
static sroce_rcv_fn sroce_rcv_handler;

static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	sroce_rcv_handler(skb);
	return 0;
}

static struct socket *sroce_udp_open(int family)
{
	struct udp_tunnel_sock_cfg tnl_cfg = {
		.encap_type = 1,
		.encap_rcv = sroce_udp_encap_recv,
	};
	struct udp_port_cfg port_cfg = {
		.family = family,
		.local_udp_port = htons(ROCE_V2_UDP_DPORT),
		.ipv6_v6only = family == AF_INET6,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(&init_net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(&init_net, sock, &tnl_cfg);
	return sock;
}

static void sroce_udp_close(struct socket **sockp)
{
	if (*sockp)
		udp_tunnel_sock_release(*sockp);
	*sockp = NULL;
}

static int sroce_udp_open_err(int family, struct socket *sock)
{
	int err = PTR_ERR(sock);

	if (err == -EADDRINUSE)
		pr_err("UDP port %u (%s) is already in use; is rdma_rxe loaded? sroce and rdma_rxe cannot be loaded together\n",
		       ROCE_V2_UDP_DPORT, family == AF_INET ? "IPv4" : "IPv6");
	else
		pr_err("cannot open the %s RoCEv2 UDP socket: %d\n",
		       family == AF_INET ? "IPv4" : "IPv6", err);
	return err;
}

/**
 * sroce_net_init - bind the RoCEv2 UDP port
 * @rcv: handler for every received RoCEv2 datagram
 *
 * Context: process context (module init).
 * Return: 0, -EADDRINUSE when another driver owns the port, or another
 * negative errno.
 */
int sroce_net_init(sroce_rcv_fn rcv)
{
	struct socket *sock;

	sroce_rcv_handler = rcv;

	sock = sroce_udp_open(AF_INET);
	if (IS_ERR(sock))
		return sroce_udp_open_err(AF_INET, sock);
	sroce_sock4 = sock;

	sock = sroce_udp_open(AF_INET6);
	if (IS_ERR(sock)) {
		/* A kernel booted with ipv6.disable=1 still serves IPv4. */
		if (PTR_ERR(sock) == -EAFNOSUPPORT)
			return 0;
		sroce_udp_close(&sroce_sock4);
		return sroce_udp_open_err(AF_INET6, sock);
	}
	sroce_sock6 = sock;
	return 0;
}

void sroce_net_exit(void)
{
	sroce_udp_close(&sroce_sock6);
	sroce_udp_close(&sroce_sock4);
}
