/* SPDX-License-Identifier: GPL-2.0 */
/* The receive entry of the transport: every RoCEv2 datagram starts here. */
#ifndef SROCE_RECV_H
#define SROCE_RECV_H

struct sk_buff;
struct sroce_dev;

void sroce_rcv(struct sroce_dev *sdev, struct sk_buff *skb);
void sroce_rcv_self(struct sroce_dev *sdev, struct sk_buff *skb);

#endif /* SROCE_RECV_H */
