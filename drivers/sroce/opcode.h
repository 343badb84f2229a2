/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What each BTH opcode means: which QP types may use it, its place in a
 * message, which extended transport headers (ETHs) follow the BTH and at
 * which offsets, and what the receiver has to do with it.
 *
 * L0: pure. The table has one entry for each of the 256 opcode values, so
 * looking up any byte taken from a packet is safe; opcodes sroce does not
 * know have no QP type, no flags and a header length of 0.
 */
#ifndef SROCE_OPCODE_H
#define SROCE_OPCODE_H

#include "l0_compat.h"
#include "wire.h"

/* Extended transport headers, in the order they follow the BTH. */
enum sroce_eth {
	SROCE_ETH_RDETH,
	SROCE_ETH_DETH,
	SROCE_ETH_RETH,
	SROCE_ETH_ATMETH,
	SROCE_ETH_AETH,
	SROCE_ETH_ATMACK,
	SROCE_ETH_IMMDT,
	SROCE_ETH_IETH,
	SROCE_NUM_ETHS
};

/* QP types, as a bit mask of the types an opcode is valid for. */
enum sroce_qpt {
	SROCE_QPT_RC = BIT(0),
	SROCE_QPT_UC = BIT(1),
	SROCE_QPT_UD = BIT(2),
};

/*
 * Opcode flags. The low bits say which ETHs are present: bit n is
 * SROCE_OPF_ETH(n) for n in enum sroce_eth.
 */
#define SROCE_OPF_ETH(eth)	BIT(eth)
#define SROCE_OPF_RDETH		SROCE_OPF_ETH(SROCE_ETH_RDETH)
#define SROCE_OPF_DETH		SROCE_OPF_ETH(SROCE_ETH_DETH)
#define SROCE_OPF_RETH		SROCE_OPF_ETH(SROCE_ETH_RETH)
#define SROCE_OPF_ATMETH	SROCE_OPF_ETH(SROCE_ETH_ATMETH)
#define SROCE_OPF_AETH		SROCE_OPF_ETH(SROCE_ETH_AETH)
#define SROCE_OPF_ATMACK	SROCE_OPF_ETH(SROCE_ETH_ATMACK)
#define SROCE_OPF_IMMDT		SROCE_OPF_ETH(SROCE_ETH_IMMDT)
#define SROCE_OPF_IETH		SROCE_OPF_ETH(SROCE_ETH_IETH)
#define SROCE_OPF_ETH_MASK	GENMASK(SROCE_NUM_ETHS - 1, 0)

/* Place in the message. An ONLY packet is both FIRST and LAST. */
#define SROCE_OPF_FIRST		BIT(8)
#define SROCE_OPF_MIDDLE	BIT(9)
#define SROCE_OPF_LAST		BIT(10)
#define SROCE_OPF_ONLY		(SROCE_OPF_FIRST | SROCE_OPF_LAST)

/* Direction: requester to responder, or responder to requester. */
#define SROCE_OPF_REQ		BIT(11)
#define SROCE_OPF_RESP		BIT(12)	/* read responses and ACKs */
#define SROCE_OPF_ACK		BIT(13)	/* ACKNOWLEDGE, ATOMIC ACKNOWLEDGE */

/* Carries payload after the headers (possibly 0 bytes, then padded). */
#define SROCE_OPF_PAYLOAD	BIT(14)
/* An RC request: the requester keeps it until it is acknowledged. */
#define SROCE_OPF_ACK_REQUIRED	BIT(15)

/* What the responder does. */
#define SROCE_OPF_SEND		BIT(16)	/* consumes a receive WQE */
#define SROCE_OPF_WRITE		BIT(17)	/* RDMA WRITE, any variant */
#define SROCE_OPF_READ		BIT(18)	/* RDMA READ request */
#define SROCE_OPF_ATOMIC	BIT(19)	/* COMPARE_SWAP, FETCH_ADD */
/*
 * ATOMIC WRITE: RETH plus an 8-byte payload written as one unit. Neither
 * SROCE_OPF_WRITE (its payload must not be placed like a write's) nor
 * SROCE_OPF_ATOMIC (it has no AtomicETH and is answered with a plain ACK).
 */
#define SROCE_OPF_ATOMIC_WRITE	BIT(20)

/**
 * struct sroce_opcode_info - what one BTH opcode means
 * @name: printable name, NULL for opcodes sroce does not support
 *	(sroce_opcode_name() never returns NULL)
 * @flags: SROCE_OPF_* bits
 * @qp_types: SROCE_QPT_* bits of the QP types that may use the opcode;
 *	0 for unknown opcodes
 * @hdr_len: bytes from the start of the BTH to the payload (BTH + ETHs);
 *	0 for unknown opcodes
 * @offset: offset of each present ETH from the start of the BTH, indexed
 *	by enum sroce_eth; 0 when the ETH is absent
 */
struct sroce_opcode_info {
	const char *name;
	u32 flags;
	u8 qp_types;
	u8 hdr_len;
	u8 offset[SROCE_NUM_ETHS];
};

extern const struct sroce_opcode_info sroce_opcode_table[SROCE_NUM_OPCODES];

/* Size in bytes of each ETH, indexed by enum sroce_eth. */
extern const u8 sroce_eth_len[SROCE_NUM_ETHS];

/* Information on @opcode; never NULL, any byte value is safe. */
static inline const struct sroce_opcode_info *sroce_opcode_info(u8 opcode)
{
	return &sroce_opcode_table[opcode];
}

static inline const char *sroce_opcode_name(u8 opcode)
{
	const char *name = sroce_opcode_info(opcode)->name;

	return name ? name : "UNKNOWN";
}

static inline bool sroce_opcode_known(u8 opcode)
{
	return sroce_opcode_info(opcode)->hdr_len != 0;
}

/* Whether a QP of type @qpt (one SROCE_QPT_* value) may use @opcode. */
static inline bool sroce_opcode_valid_for(u8 opcode, enum sroce_qpt qpt)
{
	return sroce_opcode_info(opcode)->qp_types & qpt;
}

/* Whether every bit of @flags is set for the opcode. */
static inline bool sroce_opcode_has(const struct sroce_opcode_info *info,
				    u32 flags)
{
	return (info->flags & flags) == flags;
}

/*
 * Pointer to ETH @eth of a packet whose BTH is at @bth, or NULL if the
 * opcode has no such header. The caller has checked that the packet holds
 * at least info->hdr_len bytes from @bth.
 */
static inline void *sroce_opcode_eth(const struct sroce_opcode_info *info,
				     void *bth, enum sroce_eth eth)
{
	if (!(info->flags & SROCE_OPF_ETH(eth)))
		return NULL;
	return (u8 *)bth + info->offset[eth];
}

/*
 * What a work request asks the requester to send. Besides the work request
 * opcodes, SROCE_WR_READ_RESP selects the responder's RDMA READ RESPONSE
 * packets.
 */
enum sroce_wr_op {
	SROCE_WR_SEND,
	SROCE_WR_SEND_WITH_IMM,
	SROCE_WR_SEND_WITH_INV,
	SROCE_WR_RDMA_WRITE,
	SROCE_WR_RDMA_WRITE_WITH_IMM,
	SROCE_WR_RDMA_READ,
	SROCE_WR_ATOMIC_CMP_AND_SWP,
	SROCE_WR_ATOMIC_FETCH_AND_ADD,
	SROCE_WR_ATOMIC_WRITE,
	SROCE_WR_READ_RESP,
	SROCE_NUM_WR_OPS
};

int sroce_opcode_select(enum sroce_qpt qpt, enum sroce_wr_op op, bool first,
			bool last);

#endif /* SROCE_OPCODE_H */
