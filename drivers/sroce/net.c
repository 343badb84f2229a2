// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 UDP sockets.
 *
 * One IPv4 and one IPv6-only socket bound to UDP 4791 in the initial
 * network namespace, as RoCEv2 NICs do. Binding the port is also how
 * sroce and the in-tree rdma_rxe exclude each other: both claim the RXE
 * driver id and this port, and whichever module loads second cannot bind
 * it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/skbuff.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/net_namespace.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "sroce.h"
#include "counters.h"
#include "fault.h"
#include "icrc.h"
#include "net.h"
#include "wire.h"

static struct socket *sroce_sock4;
static struct socket *sroce_sock6;
static const struct sroce_net_handlers *sroce_rcv_handlers;

static int sroce_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	sroce_rcv_handlers->rcv(skb);
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
 * @h: handlers for every received RoCEv2 datagram (kept, not copied)
 *
 * Context: process context (module init).
 * Return: 0, -EADDRINUSE when another driver owns the port, or another
 * negative errno.
 */
int sroce_net_init(const struct sroce_net_handlers *h)
{
	struct socket *sock;

	sroce_rcv_handlers = h;

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

/*
 * Transmit.
 *
 * The transport builds BTH, extended headers, payload and pad; this layer
 * routes, adds UDP and IP headers, computes the ICRC over the finished
 * packet and either hands it to the IP stack or, when the destination is
 * one of this host's own addresses, loops it straight back to the receive
 * handler without touching the IP stack.
 */

static unsigned int sroce_net_hdr_room(const struct rxe_av *av)
{
	return (av->network_type == RXE_NETWORK_TYPE_IPV4 ?
		sizeof(struct iphdr) : sizeof(struct ipv6hdr)) +
	       sizeof(struct udphdr);
}

/**
 * sroce_net_alloc - allocate a packet for @av
 * @sdev: the device
 * @av: where it goes
 * @len: bytes of BTH, extended headers, payload and pad
 *
 * Context: any.
 * Return: an skb whose data is @len bytes at the BTH, or NULL.
 */
struct sk_buff *sroce_net_alloc(struct sroce_dev *sdev,
				const struct rxe_av *av, unsigned int len)
{
	struct net_device *ndev = sdev->ndev;
	unsigned int room = LL_RESERVED_SPACE(ndev) + sroce_net_hdr_room(av);
	struct sk_buff *skb;

	skb = sroce_fault() ? NULL :
	      alloc_skb(room + len + SROCE_ICRC_LEN, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, room);
	skb_put(skb, len);
	skb->dev = ndev;
	skb->protocol = av->network_type == RXE_NETWORK_TYPE_IPV4 ?
			htons(ETH_P_IP) : htons(ETH_P_IPV6);
	return skb;
}

static struct dst_entry *sroce_route4(struct sroce_dev *sdev,
				      const struct rxe_av *av)
{
	struct flowi4 fl = {
		.flowi4_oif = sdev->ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.saddr = av->sgid_addr._sockaddr_in.sin_addr.s_addr,
		.daddr = av->dgid_addr._sockaddr_in.sin_addr.s_addr,
	};
	struct rtable *rt;

	sroce_counter_inc(sdev, SROCE_CNT_ROUTE_LOOKUPS);
	rt = ip_route_output_key(&init_net, &fl);
	return IS_ERR(rt) ? NULL : &rt->dst;
}

static bool route_cache = true;
module_param(route_cache, bool, 0644);
MODULE_PARM_DESC(route_cache,
		 "Keep the IPv4 route of an RC/UC flow until the routing tables change (default: on)");

/*
 * An RC or UC QP sends every packet to one destination, from one source:
 * its flow keeps the route in its socket's route cache (sk_dst_cache,
 * RCU-managed and reference-counted by the socket layer), and each
 * packet takes a reference instead of walking the FIB. The route is
 * looked up again once it is no longer valid: any change to the routing
 * tables or addresses makes every IPv4 route obsolete (rt_genid), and an
 * unregistering netdev makes the routes through it so.
 */
static struct dst_entry *sroce_route4_cached(struct sroce_dev *sdev,
					     const struct rxe_av *av,
					     struct sock *route)
{
	struct dst_entry *dst;

	if (!route || !READ_ONCE(route_cache))
		return sroce_route4(sdev, av);
	dst = sk_dst_check(route, 0);
	if (dst)
		return dst;
	dst = sroce_route4(sdev, av);
	if (dst) {
		dst_hold(dst);		/* the cache's reference */
		sk_dst_set(route, dst);
	}
	return dst;
}

static struct dst_entry *sroce_route6(struct sroce_dev *sdev,
				      const struct rxe_av *av)
{
	struct flowi6 fl = {
		.flowi6_oif = sdev->ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.saddr = av->sgid_addr._sockaddr_in6.sin6_addr,
		.daddr = av->dgid_addr._sockaddr_in6.sin6_addr,
	};
	struct dst_entry *dst;

	if (!sroce_sock6)
		return NULL;
	/*
	 * Not cached: an IPv6 route is valid only with the cookie of its
	 * lookup, and the two would have to change together under
	 * concurrent senders.
	 */
	sroce_counter_inc(sdev, SROCE_CNT_ROUTE_LOOKUPS);
	dst = ipv6_stub->ipv6_dst_lookup_flow(&init_net, sroce_sock6->sk, &fl,
					      NULL);
	return IS_ERR(dst) ? NULL : dst;
}

static void sroce_push_udp(struct sk_buff *skb, u16 src_port)
{
	struct udphdr *uh;

	skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(src_port);
	uh->dest = htons(ROCE_V2_UDP_DPORT);
	uh->len = htons(skb->len);
	uh->check = 0;	/* RoCEv2: the ICRC protects the payload */
}

static void sroce_push_ip4(struct sk_buff *skb, const struct rxe_av *av)
{
	struct iphdr *iph;

	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = av->grh.traffic_class;
	iph->tot_len = htons(skb->len);
	iph->frag_off = htons(IP_DF);
	iph->ttl = av->grh.hop_limit ? av->grh.hop_limit : 64;
	iph->protocol = IPPROTO_UDP;
	iph->saddr = av->sgid_addr._sockaddr_in.sin_addr.s_addr;
	iph->daddr = av->dgid_addr._sockaddr_in.sin_addr.s_addr;
	/* The ID is covered by the ICRC: choose it before computing that. */
	__ip_select_ident(&init_net, iph, 1);
	ip_send_check(iph);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
}

static void sroce_push_ip6(struct sk_buff *skb, const struct rxe_av *av)
{
	struct ipv6hdr *ip6h;

	skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, av->grh.traffic_class, 0);
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = av->grh.hop_limit ? av->grh.hop_limit : 64;
	ip6h->saddr = av->sgid_addr._sockaddr_in6.sin6_addr;
	ip6h->daddr = av->dgid_addr._sockaddr_in6.sin6_addr;
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
}

/*
 * ICRC over IP header .. pad, little-endian, into the last 4 bytes, which
 * were added before the UDP and IP lengths were set (they include it).
 */
static int sroce_write_icrc(struct sk_buff *skb)
{
	__le32 icrc;
	int err;

	err = sroce_icrc_calc(skb_network_header(skb),
			      skb_tail_pointer(skb) - skb_network_header(skb),
			      &icrc);
	if (err)
		return err;
	memcpy(skb_tail_pointer(skb) - SROCE_ICRC_LEN, &icrc, SROCE_ICRC_LEN);
	return 0;
}

/*
 * The packet is for this host: hand it to the receive handler as if the
 * UDP socket had received it (data at the UDP header), in BH context as
 * the socket would.
 */
static void sroce_loopback(struct sroce_dev *sdev, struct sk_buff *skb,
			   bool self)
{
	/*
	 * The sender's transmit budget (txflow.c) is for the network's
	 * queues; a looped-back packet has left them already.
	 */
	skb_orphan(skb);
	skb_dst_drop(skb);
	skb->pkt_type = PACKET_HOST;
	skb_pull(skb, skb_transport_offset(skb));
	local_bh_disable();
	if (self)
		sroce_rcv_handlers->rcv_self(sdev, skb);
	else
		sroce_rcv_handlers->rcv(skb);
	local_bh_enable();
}

/**
 * sroce_net_av_self - does this address vector lead back to its own source?
 * @av: a validated address vector (its source GID is one of the device's)
 *
 * A packet from an address to the same address is for this host, and for
 * the very device that sends it: it needs no route, no netdev (it still
 * works while the netdev unregisters, so the device's kernel consumers can
 * shut down over it) and no ICRC.
 *
 * Context: any.
 */
bool sroce_net_av_self(const struct rxe_av *av)
{
	if (av->network_type == RXE_NETWORK_TYPE_IPV4)
		return av->sgid_addr._sockaddr_in.sin_addr.s_addr ==
		       av->dgid_addr._sockaddr_in.sin_addr.s_addr;
	return ipv6_addr_equal(&av->sgid_addr._sockaddr_in6.sin6_addr,
			       &av->dgid_addr._sockaddr_in6.sin6_addr);
}

/*
 * UDP and IP headers in front of the transport's; ICRC room at the end of
 * a packet that leaves the device (one to itself has none, and may end in
 * page fragments, payload.h).
 */
static void sroce_net_encap(struct sk_buff *skb, const struct rxe_av *av,
			    u16 src_port, bool icrc)
{
	if (icrc)
		memset(skb_put(skb, SROCE_ICRC_LEN), 0, SROCE_ICRC_LEN);
	sroce_push_udp(skb, src_port);
	if (av->network_type == RXE_NETWORK_TYPE_IPV4)
		sroce_push_ip4(skb, av);
	else
		sroce_push_ip6(skb, av);
}

static void sroce_net_count_sent(struct sroce_dev *sdev, unsigned int len)
{
	sroce_counter_inc(sdev, SROCE_CNT_SENT_PKTS);
	sroce_counter_add(sdev, SROCE_CNT_SENT_BYTES, len);
}

/**
 * sroce_net_xmit - route, encapsulate and send a packet built by the transport
 * @sdev: the device
 * @av: where it goes
 * @src_port: UDP source port (RoCEv2 flow entropy)
 * @skb: from sroce_net_alloc(), consumed in every case
 * @route: where @av's IPv4 route is cached (the QP's flow), or NULL
 *
 * Context: any.
 * Return: 0 when the packet left (or was looped back), a negative errno
 * when it was dropped here.
 */
int sroce_net_xmit(struct sroce_dev *sdev, const struct rxe_av *av,
		   u16 src_port, struct sk_buff *skb, struct sock *route)
{
	bool v4 = av->network_type == RXE_NETWORK_TYPE_IPV4;
	struct dst_entry *dst;
	unsigned int len = skb->len;
	int err;

	if (sroce_net_av_self(av)) {
		sroce_net_encap(skb, av, src_port, false);
		sroce_net_count_sent(sdev, len);
		sroce_loopback(sdev, skb, true);
		return 0;
	}
	dst = v4 ? sroce_route4_cached(sdev, av, route) :
		   sroce_route6(sdev, av);
	if (!dst) {
		sroce_counter_inc(sdev, SROCE_CNT_DROP_ROUTE);
		kfree_skb(skb);
		return -EHOSTUNREACH;
	}
	sroce_net_encap(skb, av, src_port, true);
	err = sroce_write_icrc(skb);
	if (err) {
		WARN_ONCE(1, "sroce: cannot compute the ICRC of a packet we built\n");
		dst_release(dst);
		kfree_skb(skb);
		return err;
	}
	sroce_net_count_sent(sdev, len);

	if (dst->dev->flags & IFF_LOOPBACK) {
		dst_release(dst);
		sroce_loopback(sdev, skb, false);
		return 0;
	}
	skb_dst_set(skb, dst);
	err = v4 ? ip_local_out(&init_net, NULL, skb) :
		   ip6_local_out(&init_net, NULL, skb);
	if (unlikely(net_xmit_eval(err))) {
		sroce_counter_inc(sdev, SROCE_CNT_SEND_ERR);
		return -EAGAIN;
	}
	return 0;
}
