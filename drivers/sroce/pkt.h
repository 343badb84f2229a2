/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the transport knows about a RoCEv2 packet, kept in skb->cb from the
 * moment recv.c has validated it until the engine has consumed it.
 */
#ifndef SROCE_PKT_H
#define SROCE_PKT_H

#include <linux/skbuff.h>

#include "opcode.h"
#include "wire.h"

struct sroce_qp;

struct sroce_pkt {
	struct sroce_qp *qp;		/* referenced while the skb is queued */
	const struct sroce_opcode_info *info;
	u32 psn;
	u32 paylen;			/* payload bytes, without pad and ICRC */
	u16 hdr_len;			/* BTH and extended headers */
	u8 opcode;
	u8 net_type;			/* RDMA_NETWORK_IPV4 or _IPV6 */
};

static_assert(sizeof(struct sroce_pkt) <= sizeof_field(struct sk_buff, cb));

static inline struct sroce_pkt *sroce_pkt(struct sk_buff *skb)
{
	return (struct sroce_pkt *)skb->cb;
}

/* The BTH: recv.c leaves skb->data pointing at it. */
static inline struct sroce_bth *sroce_pkt_bth(struct sk_buff *skb)
{
	return (struct sroce_bth *)skb->data;
}

/* The BTH of a packet being built (skb->data at the BTH). */
static inline struct sroce_bth *sroce_pkt_bth_raw(struct sk_buff *skb)
{
	return (struct sroce_bth *)skb->data;
}

static inline void *sroce_pkt_eth(struct sk_buff *skb, enum sroce_eth eth)
{
	return sroce_opcode_eth(sroce_pkt(skb)->info, skb->data, eth);
}

static inline void *sroce_pkt_payload(struct sk_buff *skb)
{
	return skb->data + sroce_pkt(skb)->hdr_len;
}

#endif /* SROCE_PKT_H */
