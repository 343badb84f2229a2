/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The network side: the RoCEv2 UDP sockets (port 4791).
 *
 * Received packets go up through the single handler given to
 * sroce_net_init(), so this layer includes no engine header.
 */
#ifndef SROCE_NET_H
#define SROCE_NET_H

struct sk_buff;

/* Consumes @skb. Context: softirq. */
typedef void (*sroce_rcv_fn)(struct sk_buff *skb);

int sroce_net_init(sroce_rcv_fn rcv);
void sroce_net_exit(void);

struct rxe_av;
struct sroce_dev;

/* Room the transport fills from skb->data: BTH, extended headers, payload, pad. */
struct sk_buff *sroce_net_alloc(struct sroce_dev *sdev,
				const struct rxe_av *av, unsigned int len);
int sroce_net_xmit(struct sroce_dev *sdev, const struct rxe_av *av,
		   u16 src_port, struct sk_buff *skb);

#endif /* SROCE_NET_H */
