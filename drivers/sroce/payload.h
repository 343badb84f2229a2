/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Payloads by reference, and payloads placed from a received packet.
 *
 * A packet a device sends to itself (net.c: sroce_net_av_self()) never
 * leaves the host: instead of a copy it can carry its payload as page
 * fragments of the sender's user MR, and the receiving side copies from
 * those pages straight into the target: one payload copy per packet
 * instead of two. Every other packet is linear by the time the transport
 * sees it (recv.c linearizes what the wire brings).
 */
#ifndef SROCE_PAYLOAD_H
#define SROCE_PAYLOAD_H

#include <linux/skbuff.h>
#include <linux/types.h>

struct ib_pd;
struct rxe_av;
struct rxe_sge;
struct sroce_dev;
struct sroce_mr;

bool sroce_payload_walkable(u8 opcode);
bool sroce_payload_by_ref(const struct rxe_av *av, u8 opcode, u32 paylen);
int sroce_payload_to_mr(struct sk_buff *skb, struct sroce_mr *mr, u64 iova);
int sroce_payload_to_sge(struct sk_buff *skb, struct sroce_dev *sdev,
			 struct ib_pd *pd, const struct rxe_sge *sge,
			 u32 num_sge, u32 offset);

#endif /* SROCE_PAYLOAD_H */
