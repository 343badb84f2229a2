/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCEv2 transport headers as they are on the wire (IBTA Vol. 1, chapter 9
 * "Transport Layer"; RoCEv2 encapsulation per Annex A17).
 *
 * L0: pure. Every field is big endian, every struct is __packed (headers
 * follow the 12-byte BTH, so an 8-byte field is rarely 8-byte aligned) and
 * no struct has bitfields: sub-byte fields are read and written through the
 * accessors below, with GENMASK() masks applied to the CPU-order value.
 * Accessors take the header by pointer and never look past its size.
 */
#ifndef SROCE_WIRE_H
#define SROCE_WIRE_H

#include "l0_compat.h"

/* Sizes of the headers below, in bytes. */
#define SROCE_BTH_LEN		12
#define SROCE_RDETH_LEN		4
#define SROCE_DETH_LEN		8
#define SROCE_RETH_LEN		16
#define SROCE_ATMETH_LEN	28
#define SROCE_AETH_LEN		4
#define SROCE_ATMACK_LEN	8
#define SROCE_IMMDT_LEN		4
#define SROCE_IETH_LEN		4
#define SROCE_ICRC_LEN		4

/* Payload of an RC ATOMIC WRITE request (after its RETH). */
#define SROCE_ATOMIC_WRITE_LEN	8

/* P_Key every RoCEv2 port has in its table (full member, default). */
#define SROCE_DEFAULT_PKEY	0xffff
/* Destination QPN of multicast packets. */
#define SROCE_MULTICAST_QPN	0xffffff
/* Q_Key of the GSI QP (QP1). */
#define SROCE_GSI_QKEY		0x80010000

/*
 * Opcodes: the upper 3 bits name the transport, the lower 5 the operation.
 * Only the codes sroce sends or accepts are listed (RC, UC and UD; RD and
 * CNP are not supported).
 */
#define SROCE_OP_TRANSPORT_MASK	GENMASK(7, 5)
#define SROCE_OP_RC		0x00
#define SROCE_OP_UC		0x20
#define SROCE_OP_UD		0x60

enum sroce_opcode {
	SROCE_OP_RC_SEND_FIRST			= 0x00,
	SROCE_OP_RC_SEND_MIDDLE			= 0x01,
	SROCE_OP_RC_SEND_LAST			= 0x02,
	SROCE_OP_RC_SEND_LAST_IMM		= 0x03,
	SROCE_OP_RC_SEND_ONLY			= 0x04,
	SROCE_OP_RC_SEND_ONLY_IMM		= 0x05,
	SROCE_OP_RC_WRITE_FIRST			= 0x06,
	SROCE_OP_RC_WRITE_MIDDLE		= 0x07,
	SROCE_OP_RC_WRITE_LAST			= 0x08,
	SROCE_OP_RC_WRITE_LAST_IMM		= 0x09,
	SROCE_OP_RC_WRITE_ONLY			= 0x0a,
	SROCE_OP_RC_WRITE_ONLY_IMM		= 0x0b,
	SROCE_OP_RC_READ_REQUEST		= 0x0c,
	SROCE_OP_RC_READ_RESPONSE_FIRST		= 0x0d,
	SROCE_OP_RC_READ_RESPONSE_MIDDLE	= 0x0e,
	SROCE_OP_RC_READ_RESPONSE_LAST		= 0x0f,
	SROCE_OP_RC_READ_RESPONSE_ONLY		= 0x10,
	SROCE_OP_RC_ACKNOWLEDGE			= 0x11,
	SROCE_OP_RC_ATOMIC_ACKNOWLEDGE		= 0x12,
	SROCE_OP_RC_COMPARE_SWAP		= 0x13,
	SROCE_OP_RC_FETCH_ADD			= 0x14,
	/* 0x15 is reserved */
	SROCE_OP_RC_SEND_LAST_INV		= 0x16,
	SROCE_OP_RC_SEND_ONLY_INV		= 0x17,
	/* 0x18-0x1c: not supported (0x1c is FLUSH) */
	SROCE_OP_RC_ATOMIC_WRITE		= 0x1d,

	SROCE_OP_UC_SEND_FIRST			= 0x20,
	SROCE_OP_UC_SEND_MIDDLE			= 0x21,
	SROCE_OP_UC_SEND_LAST			= 0x22,
	SROCE_OP_UC_SEND_LAST_IMM		= 0x23,
	SROCE_OP_UC_SEND_ONLY			= 0x24,
	SROCE_OP_UC_SEND_ONLY_IMM		= 0x25,
	SROCE_OP_UC_WRITE_FIRST			= 0x26,
	SROCE_OP_UC_WRITE_MIDDLE		= 0x27,
	SROCE_OP_UC_WRITE_LAST			= 0x28,
	SROCE_OP_UC_WRITE_LAST_IMM		= 0x29,
	SROCE_OP_UC_WRITE_ONLY			= 0x2a,
	SROCE_OP_UC_WRITE_ONLY_IMM		= 0x2b,

	SROCE_OP_UD_SEND_ONLY			= 0x64,
	SROCE_OP_UD_SEND_ONLY_IMM		= 0x65,
};

/* Number of opcode values (the BTH opcode is one byte). */
#define SROCE_NUM_OPCODES	256

/* ---- BTH: Base Transport Header (12 bytes) ---- */

struct sroce_bth {
	u8 opcode;
	u8 flags;		/* SE | M | PadCnt | TVer */
	__be16 pkey;
	__be32 qpn;		/* FECN | BECN | Resv6 | DestQP */
	__be32 apsn;		/* AckReq | Resv7 | PSN */
} __packed;

#define SROCE_BTH_SE		BIT(7)
#define SROCE_BTH_MIG		BIT(6)
#define SROCE_BTH_PAD		GENMASK(5, 4)
#define SROCE_BTH_TVER		GENMASK(3, 0)

#define SROCE_BTH_FECN		BIT(31)
#define SROCE_BTH_BECN		BIT(30)
#define SROCE_BTH_RESV6		GENMASK(29, 24)
#define SROCE_BTH_QPN		GENMASK(23, 0)

#define SROCE_BTH_ACKREQ	BIT(31)
#define SROCE_BTH_RESV7		GENMASK(30, 24)
#define SROCE_BTH_PSN		GENMASK(23, 0)

/* Byte of the BTH that the ICRC treats as all ones (FECN|BECN|Resv6). */
#define SROCE_BTH_ICRC_MASKED_BYTE	4

/* The only transport header version. */
#define SROCE_BTH_TVER_0	0

static inline u8 sroce_bth_opcode(const struct sroce_bth *bth)
{
	return bth->opcode;
}

static inline bool sroce_bth_se(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_SE;
}

static inline bool sroce_bth_mig(const struct sroce_bth *bth)
{
	return bth->flags & SROCE_BTH_MIG;
}

static inline u8 sroce_bth_pad(const struct sroce_bth *bth)
{
	return FIELD_GET(SROCE_BTH_PAD, bth->flags);
}

static inline u8 sroce_bth_tver(const struct sroce_bth *bth)
{
	return FIELD_GET(SROCE_BTH_TVER, bth->flags);
}

static inline u16 sroce_bth_pkey(const struct sroce_bth *bth)
{
	return be16_to_cpu(bth->pkey);
}

static inline bool sroce_bth_fecn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_FECN;
}

static inline bool sroce_bth_becn(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->qpn) & SROCE_BTH_BECN;
}

static inline u32 sroce_bth_qpn(const struct sroce_bth *bth)
{
	return FIELD_GET(SROCE_BTH_QPN, be32_to_cpu(bth->qpn));
}

static inline bool sroce_bth_ackreq(const struct sroce_bth *bth)
{
	return be32_to_cpu(bth->apsn) & SROCE_BTH_ACKREQ;
}

static inline u32 sroce_bth_psn(const struct sroce_bth *bth)
{
	return FIELD_GET(SROCE_BTH_PSN, be32_to_cpu(bth->apsn));
}

static inline void sroce_bth_set_opcode(struct sroce_bth *bth, u8 opcode)
{
	bth->opcode = opcode;
}

static inline void sroce_bth_set_se(struct sroce_bth *bth, bool se)
{
	if (se)
		bth->flags |= SROCE_BTH_SE;
	else
		bth->flags &= ~SROCE_BTH_SE;
}

static inline void sroce_bth_set_mig(struct sroce_bth *bth, bool mig)
{
	if (mig)
		bth->flags |= SROCE_BTH_MIG;
	else
		bth->flags &= ~SROCE_BTH_MIG;
}

static inline void sroce_bth_set_pad(struct sroce_bth *bth, u8 pad)
{
	bth->flags = (bth->flags & ~SROCE_BTH_PAD) |
		     FIELD_PREP(SROCE_BTH_PAD, pad);
}

static inline void sroce_bth_set_pkey(struct sroce_bth *bth, u16 pkey)
{
	bth->pkey = cpu_to_be16(pkey);
}

static inline void sroce_bth_set_fecn(struct sroce_bth *bth, bool fecn)
{
	u32 v = be32_to_cpu(bth->qpn);

	if (fecn)
		v |= SROCE_BTH_FECN;
	else
		v &= ~SROCE_BTH_FECN;
	bth->qpn = cpu_to_be32(v);
}

static inline void sroce_bth_set_becn(struct sroce_bth *bth, bool becn)
{
	u32 v = be32_to_cpu(bth->qpn);

	if (becn)
		v |= SROCE_BTH_BECN;
	else
		v &= ~SROCE_BTH_BECN;
	bth->qpn = cpu_to_be32(v);
}

static inline void sroce_bth_set_qpn(struct sroce_bth *bth, u32 qpn)
{
	u32 v = be32_to_cpu(bth->qpn);

	v = (v & ~SROCE_BTH_QPN) | FIELD_PREP(SROCE_BTH_QPN, qpn);
	bth->qpn = cpu_to_be32(v);
}

static inline void sroce_bth_set_ackreq(struct sroce_bth *bth, bool ackreq)
{
	u32 v = be32_to_cpu(bth->apsn);

	if (ackreq)
		v |= SROCE_BTH_ACKREQ;
	else
		v &= ~SROCE_BTH_ACKREQ;
	bth->apsn = cpu_to_be32(v);
}

static inline void sroce_bth_set_psn(struct sroce_bth *bth, u32 psn)
{
	u32 v = be32_to_cpu(bth->apsn);

	v = (v & ~SROCE_BTH_PSN) | FIELD_PREP(SROCE_BTH_PSN, psn);
	bth->apsn = cpu_to_be32(v);
}

/*
 * Fill a whole BTH: TVer 0, MigReq 0, FECN/BECN and the reserved fields 0.
 * @pad is the number of pad bytes after the payload (sroce_pad_count()).
 */
static inline void sroce_bth_init(struct sroce_bth *bth, u8 opcode, bool se,
				  u8 pad, u16 pkey, u32 qpn, bool ackreq,
				  u32 psn)
{
	bth->opcode = opcode;
	bth->flags = (se ? SROCE_BTH_SE : 0) | FIELD_PREP(SROCE_BTH_PAD, pad);
	bth->pkey = cpu_to_be16(pkey);
	bth->qpn = cpu_to_be32(FIELD_PREP(SROCE_BTH_QPN, qpn));
	bth->apsn = cpu_to_be32((ackreq ? SROCE_BTH_ACKREQ : 0) |
				FIELD_PREP(SROCE_BTH_PSN, psn));
}

/* Pad bytes that bring a payload of @len bytes to a multiple of 4. */
static inline u8 sroce_pad_count(u32 len)
{
	return -len & 3;
}

/* ---- RDETH: Reliable Datagram ETH (4 bytes; RD only, never sent) ---- */

struct sroce_rdeth {
	__be32 een;		/* Resv8 | EE-Context */
} __packed;

#define SROCE_RDETH_EEN		GENMASK(23, 0)

static inline u32 sroce_rdeth_een(const struct sroce_rdeth *rdeth)
{
	return FIELD_GET(SROCE_RDETH_EEN, be32_to_cpu(rdeth->een));
}

/* ---- DETH: Datagram ETH (8 bytes; UD) ---- */

struct sroce_deth {
	__be32 qkey;
	__be32 sqp;		/* Resv8 | SrcQP */
} __packed;

#define SROCE_DETH_SQP		GENMASK(23, 0)

static inline u32 sroce_deth_qkey(const struct sroce_deth *deth)
{
	return be32_to_cpu(deth->qkey);
}

static inline u32 sroce_deth_sqp(const struct sroce_deth *deth)
{
	return FIELD_GET(SROCE_DETH_SQP, be32_to_cpu(deth->sqp));
}

static inline void sroce_deth_set(struct sroce_deth *deth, u32 qkey, u32 sqp)
{
	deth->qkey = cpu_to_be32(qkey);
	deth->sqp = cpu_to_be32(FIELD_PREP(SROCE_DETH_SQP, sqp));
}

/* ---- RETH: RDMA ETH (16 bytes; WRITE first/only, READ request) ---- */

struct sroce_reth {
	__be64 va;
	__be32 rkey;
	__be32 len;		/* DMA length of the whole message */
} __packed;

static inline u64 sroce_reth_va(const struct sroce_reth *reth)
{
	return be64_to_cpu(reth->va);
}

static inline u32 sroce_reth_rkey(const struct sroce_reth *reth)
{
	return be32_to_cpu(reth->rkey);
}

static inline u32 sroce_reth_len(const struct sroce_reth *reth)
{
	return be32_to_cpu(reth->len);
}

static inline void sroce_reth_set(struct sroce_reth *reth, u64 va, u32 rkey,
				  u32 len)
{
	reth->va = cpu_to_be64(va);
	reth->rkey = cpu_to_be32(rkey);
	reth->len = cpu_to_be32(len);
}

/* ---- AtomicETH (28 bytes; COMPARE_SWAP, FETCH_ADD) ---- */

struct sroce_atmeth {
	__be64 va;
	__be32 rkey;
	__be64 swap_add;	/* swap value, or the value to add */
	__be64 compare;		/* ignored by FETCH_ADD */
} __packed;

static inline u64 sroce_atmeth_va(const struct sroce_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->va);
}

static inline u32 sroce_atmeth_rkey(const struct sroce_atmeth *atmeth)
{
	return be32_to_cpu(atmeth->rkey);
}

static inline u64 sroce_atmeth_swap_add(const struct sroce_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->swap_add);
}

static inline u64 sroce_atmeth_compare(const struct sroce_atmeth *atmeth)
{
	return be64_to_cpu(atmeth->compare);
}

static inline void sroce_atmeth_set(struct sroce_atmeth *atmeth, u64 va,
				    u32 rkey, u64 swap_add, u64 compare)
{
	atmeth->va = cpu_to_be64(va);
	atmeth->rkey = cpu_to_be32(rkey);
	atmeth->swap_add = cpu_to_be64(swap_add);
	atmeth->compare = cpu_to_be64(compare);
}

/* ---- AETH: ACK ETH (4 bytes) ---- */

struct sroce_aeth {
	__be32 smsn;		/* Syndrome | MSN */
} __packed;

#define SROCE_AETH_SYN		GENMASK(31, 24)
#define SROCE_AETH_MSN		GENMASK(23, 0)

/*
 * Syndrome: bits 7:5 say what the packet is, bits 4:0 carry the credit
 * count (ACK), the RNR timer code (RNR NAK) or the NAK code (NAK).
 */
#define SROCE_AETH_TYPE		GENMASK(7, 5)
#define SROCE_AETH_VALUE	GENMASK(4, 0)

#define SROCE_AETH_TYPE_ACK	0x00
#define SROCE_AETH_TYPE_RNR_NAK	0x20
#define SROCE_AETH_TYPE_NAK	0x60

/* ACK credit field value meaning "no end-to-end flow control". */
#define SROCE_AETH_CREDIT_UNLIMITED	0x1f

/* Complete NAK syndromes. */
#define SROCE_AETH_NAK_PSN_SEQ_ERR	0x60
#define SROCE_AETH_NAK_INVALID_REQ	0x61
#define SROCE_AETH_NAK_REM_ACCESS_ERR	0x62
#define SROCE_AETH_NAK_REM_OP_ERR	0x63
#define SROCE_AETH_NAK_INVALID_RD_REQ	0x64

static inline u8 sroce_aeth_syn(const struct sroce_aeth *aeth)
{
	return FIELD_GET(SROCE_AETH_SYN, be32_to_cpu(aeth->smsn));
}

static inline u32 sroce_aeth_msn(const struct sroce_aeth *aeth)
{
	return FIELD_GET(SROCE_AETH_MSN, be32_to_cpu(aeth->smsn));
}

static inline void sroce_aeth_set(struct sroce_aeth *aeth, u8 syn, u32 msn)
{
	aeth->smsn = cpu_to_be32(FIELD_PREP(SROCE_AETH_SYN, syn) |
				 FIELD_PREP(SROCE_AETH_MSN, msn));
}

/* Syndrome of an ACK with @credit (SROCE_AETH_CREDIT_UNLIMITED: none). */
static inline u8 sroce_aeth_syn_ack(u8 credit)
{
	return SROCE_AETH_TYPE_ACK | FIELD_PREP(SROCE_AETH_VALUE, credit);
}

/* Syndrome of an RNR NAK asking to wait for RNR timer code @timer. */
static inline u8 sroce_aeth_syn_rnr(u8 timer)
{
	return SROCE_AETH_TYPE_RNR_NAK | FIELD_PREP(SROCE_AETH_VALUE, timer);
}

static inline bool sroce_aeth_syn_is_ack(u8 syn)
{
	return (syn & SROCE_AETH_TYPE) == SROCE_AETH_TYPE_ACK;
}

static inline bool sroce_aeth_syn_is_rnr(u8 syn)
{
	return (syn & SROCE_AETH_TYPE) == SROCE_AETH_TYPE_RNR_NAK;
}

static inline bool sroce_aeth_syn_is_nak(u8 syn)
{
	return (syn & SROCE_AETH_TYPE) == SROCE_AETH_TYPE_NAK;
}

/* Credit count, RNR timer code or NAK code, depending on the type. */
static inline u8 sroce_aeth_syn_value(u8 syn)
{
	return FIELD_GET(SROCE_AETH_VALUE, syn);
}

/* ---- AtomicAckETH (8 bytes) ---- */

struct sroce_atmack {
	__be64 orig;		/* remote data before the atomic operation */
} __packed;

static inline u64 sroce_atmack_orig(const struct sroce_atmack *atmack)
{
	return be64_to_cpu(atmack->orig);
}

static inline void sroce_atmack_set(struct sroce_atmack *atmack, u64 orig)
{
	atmack->orig = cpu_to_be64(orig);
}

/* ---- ImmDt: immediate data (4 bytes) ---- */

/*
 * The immediate value is opaque: it goes from the sender's work request to
 * the receiver's completion in network order, untouched, so it stays __be32.
 */
struct sroce_immdt {
	__be32 imm;
} __packed;

/* ---- IETH: invalidate ETH (4 bytes) ---- */

struct sroce_ieth {
	__be32 rkey;		/* R_Key to invalidate */
} __packed;

static inline u32 sroce_ieth_rkey(const struct sroce_ieth *ieth)
{
	return be32_to_cpu(ieth->rkey);
}

static inline void sroce_ieth_set(struct sroce_ieth *ieth, u32 rkey)
{
	ieth->rkey = cpu_to_be32(rkey);
}

static_assert(sizeof(struct sroce_bth) == SROCE_BTH_LEN);
static_assert(sizeof(struct sroce_rdeth) == SROCE_RDETH_LEN);
static_assert(sizeof(struct sroce_deth) == SROCE_DETH_LEN);
static_assert(sizeof(struct sroce_reth) == SROCE_RETH_LEN);
static_assert(sizeof(struct sroce_atmeth) == SROCE_ATMETH_LEN);
static_assert(sizeof(struct sroce_aeth) == SROCE_AETH_LEN);
static_assert(sizeof(struct sroce_atmack) == SROCE_ATMACK_LEN);
static_assert(sizeof(struct sroce_immdt) == SROCE_IMMDT_LEN);
static_assert(sizeof(struct sroce_ieth) == SROCE_IETH_LEN);

#endif /* SROCE_WIRE_H */
