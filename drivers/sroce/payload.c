// SPDX-License-Identifier: GPL-2.0
/*
 * Payloads by reference, and payloads placed from a received packet
 * (see payload.h).
 */
#include <linux/module.h>
#include <linux/skbuff.h>
#include <uapi/rdma/rdma_user_rxe.h>

#include "mr.h"
#include "net.h"
#include "opcode.h"
#include "payload.h"
#include "pkt.h"
#include "wire.h"

static bool zero_copy = true;
module_param(zero_copy, bool, 0644);
MODULE_PARM_DESC(zero_copy,
		 "Packets a device sends to itself carry user payloads by page reference, not as a copy (default: on)");

/*
 * Below this a copy is cheaper than a page reference taken and dropped,
 * and a fragment walked on receive.
 */
#define SROCE_BY_REF_MIN	256

/**
 * sroce_payload_walkable - may a packet with @opcode keep its payload in
 * page fragments until the transport places it?
 * @opcode: a known BTH opcode
 *
 * True for the payloads that sroce_payload_to_mr() and
 * sroce_payload_to_sge() place: RC and UC SEND and RDMA WRITE, and RDMA
 * READ responses. Datagrams (their GRH goes first), atomics and ATOMIC
 * WRITE read their payload in place.
 *
 * Context: any.
 */
bool sroce_payload_walkable(u8 opcode)
{
	u32 flags = sroce_opcode_info(opcode)->flags;

	if (!(flags & SROCE_OPF_PAYLOAD) || (flags & SROCE_OPF_DETH))
		return false;
	return flags & (SROCE_OPF_SEND | SROCE_OPF_WRITE | SROCE_OPF_RESP);
}

/**
 * sroce_payload_by_ref - should a packet's payload go by reference?
 * @av: where the packet goes
 * @opcode: its BTH opcode
 * @paylen: its payload bytes
 *
 * Only to the device itself (the pages never meet a NIC or the ICRC), only
 * for a walkable opcode, only without pad (a fragment cannot be followed by
 * linear bytes) and only when the payload is large enough to gain. The
 * caller still falls back to a copy when the memory is not a user MR's.
 *
 * Context: any.
 */
bool sroce_payload_by_ref(const struct rxe_av *av, u8 opcode, u32 paylen)
{
	return READ_ONCE(zero_copy) && paylen >= SROCE_BY_REF_MIN &&
	       !sroce_pad_count(paylen) && sroce_payload_walkable(opcode) &&
	       sroce_net_av_self(av);
}

typedef int (*sroce_piece_fn)(void *ctx, void *data, u32 n);

/*
 * Call @fn on each contiguous piece of the payload of a received packet:
 * the rest of the linear part, then each page fragment.
 */
static int sroce_payload_walk(struct sk_buff *skb, sroce_piece_fn fn,
			      void *ctx)
{
	const struct sroce_pkt *pkt = sroce_pkt(skb);
	u32 off = pkt->hdr_len, len = pkt->paylen, head = skb_headlen(skb);
	int i, err;

	if (off < head) {
		u32 n = min(len, head - off);

		err = fn(ctx, skb->data + off, n);
		if (err)
			return err;
		len -= n;
		off = head;
	}
	off -= head;
	for (i = 0; len && i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		u32 size = skb_frag_size(frag), n;

		if (off >= size) {
			off -= size;
			continue;
		}
		n = min(size - off, len);
		err = fn(ctx, skb_frag_address(frag) + off, n);
		if (err)
			return err;
		len -= n;
		off = 0;
	}
	return len ? -EMSGSIZE : 0;
}

struct sroce_to_mr {
	struct sroce_mr *mr;
	u64 iova;
};

static int sroce_piece_to_mr(void *ctx, void *data, u32 n)
{
	struct sroce_to_mr *t = ctx;
	int err = sroce_mr_copy(t->mr, t->iova, data, n, SROCE_TO_MR);

	t->iova += n;
	return err;
}

/**
 * sroce_payload_to_mr - place a received packet's payload in an MR
 * @skb: the packet, checked by recv.c
 * @mr: a referenced MR on which sroce_mr_check() passed for the payload
 * @iova: where the payload goes
 *
 * Context: as sroce_mr_copy().
 * Return: 0, or an error of sroce_mr_copy().
 */
int sroce_payload_to_mr(struct sk_buff *skb, struct sroce_mr *mr, u64 iova)
{
	struct sroce_to_mr t = { .mr = mr, .iova = iova };

	return sroce_payload_walk(skb, sroce_piece_to_mr, &t);
}

struct sroce_to_sge {
	struct sroce_dev *sdev;
	struct ib_pd *pd;
	const struct rxe_sge *sge;
	u32 num_sge;
	u32 offset;
};

static int sroce_piece_to_sge(void *ctx, void *data, u32 n)
{
	struct sroce_to_sge *t = ctx;
	int err = sroce_sge_copy(t->sdev, t->pd, t->sge, t->num_sge,
				 t->offset, data, n, SROCE_TO_MR);

	t->offset += n;
	return err;
}

/**
 * sroce_payload_to_sge - place a received packet's payload in a list
 * @skb: the packet, checked by recv.c
 * @sdev: the device
 * @pd: the PD of the QP that owns the list
 * @sge: the list, in kernel memory
 * @num_sge: its length
 * @offset: where in the list the payload goes
 *
 * Context: any.
 * Return: 0, or an error of sroce_sge_copy() (the pieces before the one
 * that failed have been placed).
 */
int sroce_payload_to_sge(struct sk_buff *skb, struct sroce_dev *sdev,
			 struct ib_pd *pd, const struct rxe_sge *sge,
			 u32 num_sge, u32 offset)
{
	struct sroce_to_sge t = {
		.sdev = sdev, .pd = pd, .sge = sge, .num_sge = num_sge,
		.offset = offset,
	};

	return sroce_payload_walk(skb, sroce_piece_to_sge, &t);
}
