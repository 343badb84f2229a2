/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The network side: the RoCEv2 UDP sockets (port 4791).
 *
 * Received packets go up through the handlers given to sroce_net_init(),
 * so this layer includes no engine header.
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

struct sk_buff;
struct sock;

struct rxe_av;
struct sroce_dev;

struct sroce_net_handlers {
	/* A datagram from the network, data at the UDP header. */
	void (*rcv)(struct sk_buff *skb);
	/*
	 * A packet @sdev sent to its own address: headers built here, no
	 * ICRC (it never left memory). Data at the UDP header.
	 */
	void (*rcv_self)(struct sroce_dev *sdev, struct sk_buff *skb);
};

/* The handlers consume @skb. Context: softirq or BH disabled. */
int sroce_net_init(const struct sroce_net_handlers *h);
void sroce_net_exit(void);

bool sroce_net_av_self(const struct rxe_av *av);

/* Room the transport fills from skb->data: BTH, extended headers, payload, pad. */
struct sk_buff *sroce_net_alloc(struct sroce_dev *sdev,
				const struct rxe_av *av, unsigned int len);
/*
 * @route: a socket whose route cache (sk_dst_cache) holds the IPv4 route
 * from @av's source to its destination, or NULL to look it up for this
 * packet alone.
 */
int sroce_net_xmit(struct sroce_dev *sdev, const struct rxe_av *av,
		   u16 src_port, struct sk_buff *skb, struct sock *route);

#endif /* SROCE_NET_H */
