// SPDX-License-Identifier: GPL-2.0
/*
 * User-space unit tests of sroce's L0 wire code: drivers/sroce/wire.h,
 * opcode.[ch], psn.h, window.h and icrc.[ch], compiled here unchanged.
 *
 * The expectations are written independently of the code under test: the
 * opcode list below is transcribed from the IBTA opcode table, and the ICRC
 * known answers come from icrc_vectors.h, which gen_icrc_vectors.py builds
 * with Python's zlib (plus a packet captured from a ConnectX-4 Lx).
 *
 * Prints TAP version 13; exits 1 if any test failed.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire.h"
#include "opcode.h"
#include "psn.h"
#include "window.h"
#include "icrc.h"

#include "icrc_vectors.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- the CRC-32 the kernel provides as crc32_le() ---- */

u32 crc32_le(u32 crc, const unsigned char *p, size_t len)
{
	static u32 table[256];
	static bool ready;

	if (!ready) {
		for (u32 i = 0; i < 256; i++) {
			u32 c = i;

			for (int k = 0; k < 8; k++)
				c = (c >> 1) ^ (c & 1 ? 0xedb88320 : 0);
			table[i] = c;
		}
		ready = true;
	}
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

/* ---- TAP ---- */

static unsigned int tap_num, tap_failed;
static bool cur_ok;
static unsigned int cur_diags;

static void diag(const char *fmt, ...)
{
	va_list ap;

	/* Keep a broken loop from flooding the log. */
	if (++cur_diags > 20) {
		if (cur_diags == 21)
			printf("# (more failures not shown)\n");
		return;
	}
	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		cur_ok = false;						\
		diag("%s:%d: %s", __FILE__, __LINE__, #cond);		\
	}								\
} while (0)

#define CHECK_EQ(a, b) do {						\
	long long _a = (long long)(a), _b = (long long)(b);		\
									\
	if (_a != _b) {							\
		cur_ok = false;						\
		diag("%s:%d: %s == %s: got %#llx, want %#llx",		\
		     __FILE__, __LINE__, #a, #b, _a, _b);		\
	}								\
} while (0)

static void tap_begin(void)
{
	cur_ok = true;
	cur_diags = 0;
}

static void tap_end(const char *fmt, ...)
{
	va_list ap;

	tap_num++;
	if (!cur_ok)
		tap_failed++;
	printf("%s %u - ", cur_ok ? "ok" : "not ok", tap_num);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* ---- opcodes: the IBTA list, transcribed ---- */

enum kind { K_SEND, K_WRITE, K_READ, K_ATOMIC, K_ATOMIC_WRITE, K_READ_RESP,
	    K_ACK };
enum pos { P_FIRST, P_MIDDLE, P_LAST, P_ONLY };

/* Extended headers, with the sizes of IBTA Vol. 1 section 9.3. */
#define E_RDETH		0x01
#define E_DETH		0x02
#define E_RETH		0x04
#define E_ATMETH	0x08
#define E_AETH		0x10
#define E_ATMACK	0x20
#define E_IMMDT		0x40
#define E_IETH		0x80

static const struct {
	unsigned int bit;
	enum sroce_eth eth;
	unsigned int len;
} eth_sizes[] = {
	{ E_RDETH, SROCE_ETH_RDETH, 4 },
	{ E_DETH, SROCE_ETH_DETH, 8 },
	{ E_RETH, SROCE_ETH_RETH, 16 },
	{ E_ATMETH, SROCE_ETH_ATMETH, 28 },
	{ E_AETH, SROCE_ETH_AETH, 4 },
	{ E_ATMACK, SROCE_ETH_ATMACK, 8 },
	{ E_IMMDT, SROCE_ETH_IMMDT, 4 },
	{ E_IETH, SROCE_ETH_IETH, 4 },
};

#define NUM_ETHS ARRAY_SIZE(eth_sizes)

struct expect {
	u8 op;
	u8 qpt;
	enum kind kind;
	enum pos pos;
	unsigned int eths;
	unsigned int hdr_len;	/* written out, not computed */
};

static const struct expect expected_ops[] = {
	{ 0x00, SROCE_QPT_RC, K_SEND, P_FIRST, 0, 12 },
	{ 0x01, SROCE_QPT_RC, K_SEND, P_MIDDLE, 0, 12 },
	{ 0x02, SROCE_QPT_RC, K_SEND, P_LAST, 0, 12 },
	{ 0x03, SROCE_QPT_RC, K_SEND, P_LAST, E_IMMDT, 16 },
	{ 0x04, SROCE_QPT_RC, K_SEND, P_ONLY, 0, 12 },
	{ 0x05, SROCE_QPT_RC, K_SEND, P_ONLY, E_IMMDT, 16 },
	{ 0x06, SROCE_QPT_RC, K_WRITE, P_FIRST, E_RETH, 28 },
	{ 0x07, SROCE_QPT_RC, K_WRITE, P_MIDDLE, 0, 12 },
	{ 0x08, SROCE_QPT_RC, K_WRITE, P_LAST, 0, 12 },
	{ 0x09, SROCE_QPT_RC, K_WRITE, P_LAST, E_IMMDT, 16 },
	{ 0x0a, SROCE_QPT_RC, K_WRITE, P_ONLY, E_RETH, 28 },
	{ 0x0b, SROCE_QPT_RC, K_WRITE, P_ONLY, E_RETH | E_IMMDT, 32 },
	{ 0x0c, SROCE_QPT_RC, K_READ, P_ONLY, E_RETH, 28 },
	{ 0x0d, SROCE_QPT_RC, K_READ_RESP, P_FIRST, E_AETH, 16 },
	{ 0x0e, SROCE_QPT_RC, K_READ_RESP, P_MIDDLE, 0, 12 },
	{ 0x0f, SROCE_QPT_RC, K_READ_RESP, P_LAST, E_AETH, 16 },
	{ 0x10, SROCE_QPT_RC, K_READ_RESP, P_ONLY, E_AETH, 16 },
	{ 0x11, SROCE_QPT_RC, K_ACK, P_ONLY, E_AETH, 16 },
	{ 0x12, SROCE_QPT_RC, K_ACK, P_ONLY, E_AETH | E_ATMACK, 24 },
	{ 0x13, SROCE_QPT_RC, K_ATOMIC, P_ONLY, E_ATMETH, 40 },
	{ 0x14, SROCE_QPT_RC, K_ATOMIC, P_ONLY, E_ATMETH, 40 },
	{ 0x16, SROCE_QPT_RC, K_SEND, P_LAST, E_IETH, 16 },
	{ 0x17, SROCE_QPT_RC, K_SEND, P_ONLY, E_IETH, 16 },
	{ 0x1d, SROCE_QPT_RC, K_ATOMIC_WRITE, P_ONLY, E_RETH, 28 },
	{ 0x20, SROCE_QPT_UC, K_SEND, P_FIRST, 0, 12 },
	{ 0x21, SROCE_QPT_UC, K_SEND, P_MIDDLE, 0, 12 },
	{ 0x22, SROCE_QPT_UC, K_SEND, P_LAST, 0, 12 },
	{ 0x23, SROCE_QPT_UC, K_SEND, P_LAST, E_IMMDT, 16 },
	{ 0x24, SROCE_QPT_UC, K_SEND, P_ONLY, 0, 12 },
	{ 0x25, SROCE_QPT_UC, K_SEND, P_ONLY, E_IMMDT, 16 },
	{ 0x26, SROCE_QPT_UC, K_WRITE, P_FIRST, E_RETH, 28 },
	{ 0x27, SROCE_QPT_UC, K_WRITE, P_MIDDLE, 0, 12 },
	{ 0x28, SROCE_QPT_UC, K_WRITE, P_LAST, 0, 12 },
	{ 0x29, SROCE_QPT_UC, K_WRITE, P_LAST, E_IMMDT, 16 },
	{ 0x2a, SROCE_QPT_UC, K_WRITE, P_ONLY, E_RETH, 28 },
	{ 0x2b, SROCE_QPT_UC, K_WRITE, P_ONLY, E_RETH | E_IMMDT, 32 },
	{ 0x64, SROCE_QPT_UD, K_SEND, P_ONLY, E_DETH, 20 },
	{ 0x65, SROCE_QPT_UD, K_SEND, P_ONLY, E_DETH | E_IMMDT, 24 },
};

#define NUM_EXPECTED ARRAY_SIZE(expected_ops)

static const struct expect *expected(unsigned int op)
{
	for (size_t i = 0; i < NUM_EXPECTED; i++)
		if (expected_ops[i].op == op)
			return &expected_ops[i];
	return NULL;
}

static u32 kind_flag(enum kind kind)
{
	switch (kind) {
	case K_SEND:
		return SROCE_OPF_SEND;
	case K_WRITE:
		return SROCE_OPF_WRITE;
	case K_READ:
		return SROCE_OPF_READ;
	case K_ATOMIC:
		return SROCE_OPF_ATOMIC;
	case K_ATOMIC_WRITE:
		return SROCE_OPF_ATOMIC_WRITE;
	case K_READ_RESP:
	case K_ACK:
		return 0;
	}
	return 0;
}

static u32 pos_flags(enum pos pos)
{
	switch (pos) {
	case P_FIRST:
		return SROCE_OPF_FIRST;
	case P_MIDDLE:
		return SROCE_OPF_MIDDLE;
	case P_LAST:
		return SROCE_OPF_LAST;
	case P_ONLY:
		return SROCE_OPF_FIRST | SROCE_OPF_LAST;
	}
	return 0;
}

#define POS_MASK (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE | SROCE_OPF_LAST)
#define KIND_MASK (SROCE_OPF_SEND | SROCE_OPF_WRITE | SROCE_OPF_READ | \
		   SROCE_OPF_ATOMIC | SROCE_OPF_ATOMIC_WRITE)

static void test_opcode_membership(void)
{
	unsigned int known = 0;

	for (unsigned int op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_info(op);
		const struct expect *e = expected(op);

		if (!e) {
			CHECK_EQ(info->qp_types, 0);
			continue;
		}
		known++;
		CHECK_EQ(info->qp_types, e->qpt);
		CHECK(sroce_opcode_valid_for(op, e->qpt));
		/* The transport bits of the opcode name the QP type. */
		switch (op & 0xe0) {
		case 0x00:
			CHECK_EQ(e->qpt, SROCE_QPT_RC);
			break;
		case 0x20:
			CHECK_EQ(e->qpt, SROCE_QPT_UC);
			break;
		case 0x60:
			CHECK_EQ(e->qpt, SROCE_QPT_UD);
			break;
		default:
			CHECK(0);
		}
	}
	CHECK_EQ(known, NUM_EXPECTED);
	CHECK_EQ(NUM_EXPECTED, 38);
}

static void test_opcode_hdr_len(void)
{
	for (size_t i = 0; i < NUM_EXPECTED; i++) {
		const struct expect *e = &expected_ops[i];
		const struct sroce_opcode_info *info = sroce_opcode_info(e->op);
		unsigned int sum = SROCE_BTH_LEN;

		for (size_t k = 0; k < NUM_ETHS; k++)
			if (e->eths & eth_sizes[k].bit)
				sum += eth_sizes[k].len;
		CHECK_EQ(sum, e->hdr_len);
		CHECK_EQ(info->hdr_len, e->hdr_len);
		CHECK(sroce_opcode_known(e->op));
	}
}

static void test_opcode_eths(void)
{
	for (size_t i = 0; i < NUM_EXPECTED; i++) {
		const struct expect *e = &expected_ops[i];
		const struct sroce_opcode_info *info = sroce_opcode_info(e->op);
		unsigned int next = SROCE_BTH_LEN;

		CHECK_EQ(info->flags & ~SROCE_OPF_ETH_MASK & 0xff, 0);
		/* In IBTA order, back to back, from the end of the BTH. */
		for (size_t k = 0; k < NUM_ETHS; k++) {
			enum sroce_eth eth = eth_sizes[k].eth;
			bool want = e->eths & eth_sizes[k].bit;

			CHECK_EQ(!!(info->flags & SROCE_OPF_ETH(eth)), want);
			CHECK_EQ(sroce_eth_len[eth], eth_sizes[k].len);
			if (!want) {
				CHECK_EQ(info->offset[eth], 0);
				continue;
			}
			CHECK_EQ(info->offset[eth], next);
			next += eth_sizes[k].len;
		}
		CHECK_EQ(next, info->hdr_len);
	}
}

static void test_opcode_flags(void)
{
	for (size_t i = 0; i < NUM_EXPECTED; i++) {
		const struct expect *e = &expected_ops[i];
		const struct sroce_opcode_info *info = sroce_opcode_info(e->op);
		u32 f = info->flags;
		bool req = e->kind != K_READ_RESP && e->kind != K_ACK;
		bool payload = e->kind == K_SEND || e->kind == K_WRITE ||
			       e->kind == K_READ_RESP ||
			       e->kind == K_ATOMIC_WRITE;

		CHECK_EQ(f & POS_MASK, pos_flags(e->pos));
		CHECK_EQ(f & KIND_MASK, kind_flag(e->kind));
		CHECK_EQ(!!(f & SROCE_OPF_REQ), req);
		CHECK_EQ(!!(f & SROCE_OPF_RESP), !req);
		CHECK_EQ(!!(f & SROCE_OPF_ACK), e->kind == K_ACK);
		CHECK_EQ(!!(f & SROCE_OPF_PAYLOAD), payload);
		CHECK_EQ(!!(f & SROCE_OPF_ACK_REQUIRED),
			 req && e->qpt == SROCE_QPT_RC);
		CHECK(sroce_opcode_name(e->op));
		CHECK(strcmp(sroce_opcode_name(e->op), "UNKNOWN") != 0);

		/* Structural rules of IBTA 9.3-9.5. */
		if (f & (SROCE_OPF_RETH | SROCE_OPF_DETH))
			CHECK(f & SROCE_OPF_FIRST);
		if (f & (SROCE_OPF_IMMDT | SROCE_OPF_IETH))
			CHECK(f & SROCE_OPF_LAST);
		if (e->qpt == SROCE_QPT_UD)
			CHECK(f & SROCE_OPF_DETH);
		else
			CHECK(!(f & SROCE_OPF_DETH));
		CHECK(!(f & SROCE_OPF_RDETH));
		if (e->kind == K_READ_RESP && e->pos != P_MIDDLE)
			CHECK(f & SROCE_OPF_AETH);
		CHECK_EQ(sroce_opcode_has(info, SROCE_OPF_ONLY),
			 e->pos == P_ONLY);
	}
}

static void test_opcode_unknown(void)
{
	u8 hdr[64] = { 0 };

	for (unsigned int op = 0; op < 256; op++) {
		const struct sroce_opcode_info *info = sroce_opcode_info(op);

		if (expected(op))
			continue;
		CHECK_EQ(info->hdr_len, 0);
		CHECK_EQ(info->flags, 0);
		CHECK_EQ(info->qp_types, 0);
		CHECK(!sroce_opcode_known(op));
		CHECK(!sroce_opcode_valid_for(op, SROCE_QPT_RC));
		CHECK(!sroce_opcode_valid_for(op, SROCE_QPT_UC));
		CHECK(!sroce_opcode_valid_for(op, SROCE_QPT_UD));
		CHECK(strcmp(sroce_opcode_name(op), "UNKNOWN") == 0);
		for (int eth = 0; eth < SROCE_NUM_ETHS; eth++) {
			CHECK(!sroce_opcode_eth(info, hdr, eth));
			CHECK_EQ(info->offset[eth], 0);
		}
	}
	CHECK(!sroce_opcode_known(0x15));
	CHECK(!sroce_opcode_known(0x1c));	/* FLUSH: not supported */
	CHECK(!sroce_opcode_known(0x81));	/* CNP */
	CHECK(!sroce_opcode_known(0xff));
}

static void test_opcode_eth_ptr(void)
{
	u8 pkt[64];
	const struct sroce_opcode_info *info;

	info = sroce_opcode_info(SROCE_OP_RC_WRITE_ONLY_IMM);
	CHECK(sroce_opcode_eth(info, pkt, SROCE_ETH_RETH) == pkt + 12);
	CHECK(sroce_opcode_eth(info, pkt, SROCE_ETH_IMMDT) == pkt + 28);
	CHECK(!sroce_opcode_eth(info, pkt, SROCE_ETH_AETH));

	info = sroce_opcode_info(SROCE_OP_RC_ATOMIC_ACKNOWLEDGE);
	CHECK(sroce_opcode_eth(info, pkt, SROCE_ETH_AETH) == pkt + 12);
	CHECK(sroce_opcode_eth(info, pkt, SROCE_ETH_ATMACK) == pkt + 16);

	info = sroce_opcode_info(SROCE_OP_UD_SEND_ONLY_IMM);
	CHECK(sroce_opcode_eth(info, pkt, SROCE_ETH_DETH) == pkt + 12);
	CHECK(sroce_opcode_eth(info, pkt, SROCE_ETH_IMMDT) == pkt + 20);
}

/* Which work request kind each SROCE_WR_* value is. */
static const struct {
	enum sroce_wr_op op;
	enum kind kind;
	u32 needs;		/* ETH the chosen opcode must (eventually) carry */
	bool single;
} wr_ops[] = {
	{ SROCE_WR_SEND, K_SEND, 0, false },
	{ SROCE_WR_SEND_WITH_IMM, K_SEND, SROCE_OPF_IMMDT, false },
	{ SROCE_WR_SEND_WITH_INV, K_SEND, SROCE_OPF_IETH, false },
	{ SROCE_WR_RDMA_WRITE, K_WRITE, 0, false },
	{ SROCE_WR_RDMA_WRITE_WITH_IMM, K_WRITE, SROCE_OPF_IMMDT, false },
	{ SROCE_WR_RDMA_READ, K_READ, SROCE_OPF_RETH, true },
	{ SROCE_WR_ATOMIC_CMP_AND_SWP, K_ATOMIC, SROCE_OPF_ATMETH, true },
	{ SROCE_WR_ATOMIC_FETCH_AND_ADD, K_ATOMIC, SROCE_OPF_ATMETH, true },
	{ SROCE_WR_ATOMIC_WRITE, K_ATOMIC_WRITE, SROCE_OPF_RETH, true },
	{ SROCE_WR_READ_RESP, K_READ_RESP, 0, false },
};

#define NUM_WR_OPS ARRAY_SIZE(wr_ops)

static void test_opcode_select(void)
{
	static const enum sroce_qpt qpts[] = {
		SROCE_QPT_RC, SROCE_QPT_UC, SROCE_QPT_UD
	};
	bool produced[256] = { false };

	CHECK_EQ(NUM_WR_OPS, SROCE_NUM_WR_OPS);
	for (size_t q = 0; q < 3; q++) {
		for (size_t w = 0; w < NUM_WR_OPS; w++) {
			for (int fl = 0; fl < 4; fl++) {
				bool first = fl & 1, last = fl & 2;
				int op = sroce_opcode_select(qpts[q],
							     wr_ops[w].op,
							     first, last);
				const struct expect *e;
				u32 f;

				if (op < 0) {
					CHECK_EQ(op, -EINVAL);
					continue;
				}
				CHECK(op < 256);
				e = expected(op);
				CHECK(e);
				if (!e)
					continue;
				produced[op] = true;
				f = sroce_opcode_info(op)->flags;
				CHECK_EQ(e->qpt, qpts[q]);
				CHECK_EQ(e->kind, wr_ops[w].kind);
				CHECK_EQ(!!(f & SROCE_OPF_FIRST), first);
				CHECK_EQ(!!(f & SROCE_OPF_LAST), last);
				if (last || wr_ops[w].single)
					CHECK_EQ(f & wr_ops[w].needs,
						 wr_ops[w].needs);
				if (first && wr_ops[w].kind == K_WRITE)
					CHECK(f & SROCE_OPF_RETH);
			}
		}
	}
	/* Every opcode but the ACKs is reachable. */
	for (size_t i = 0; i < NUM_EXPECTED; i++)
		CHECK_EQ(produced[expected_ops[i].op],
			 expected_ops[i].kind != K_ACK);

	/* Spot checks. */
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_SEND, 1, 0), 0x00);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_SEND, 0, 0), 0x01);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_SEND, 0, 1), 0x02);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_SEND, 1, 1), 0x04);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_UC, SROCE_WR_RDMA_WRITE_WITH_IMM,
				     1, 1), 0x2b);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_UD, SROCE_WR_SEND, 1, 1), 0x64);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_UD, SROCE_WR_SEND_WITH_IMM,
				     1, 1), 0x65);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_UD, SROCE_WR_SEND, 1, 0),
		 -EINVAL);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_UD, SROCE_WR_RDMA_WRITE, 1, 1),
		 -EINVAL);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_UC, SROCE_WR_SEND_WITH_INV,
				     1, 1), -EINVAL);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_UC, SROCE_WR_RDMA_READ, 1, 1),
		 -EINVAL);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_RDMA_READ, 1, 0),
		 -EINVAL);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_SEND_WITH_INV,
				     0, 1), 0x16);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_ATOMIC_WRITE, 1, 1),
		 0x1d);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_READ_RESP, 1, 0),
		 0x0d);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_READ_RESP, 0, 0),
		 0x0e);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_READ_RESP, 0, 1),
		 0x0f);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_READ_RESP, 1, 1),
		 0x10);
	CHECK_EQ(sroce_opcode_select(0, SROCE_WR_SEND, 1, 1), -EINVAL);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC | SROCE_QPT_UC,
				     SROCE_WR_SEND, 1, 1), -EINVAL);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, SROCE_NUM_WR_OPS, 1, 1),
		 -EINVAL);
	CHECK_EQ(sroce_opcode_select(SROCE_QPT_RC, (enum sroce_wr_op)-1, 1, 1),
		 -EINVAL);
}

/* ---- wire.h ---- */

static void test_wire_layout(void)
{
	CHECK_EQ(sizeof(struct sroce_bth), 12);
	CHECK_EQ(sizeof(struct sroce_rdeth), 4);
	CHECK_EQ(sizeof(struct sroce_deth), 8);
	CHECK_EQ(sizeof(struct sroce_reth), 16);
	CHECK_EQ(sizeof(struct sroce_atmeth), 28);
	CHECK_EQ(sizeof(struct sroce_aeth), 4);
	CHECK_EQ(sizeof(struct sroce_atmack), 8);
	CHECK_EQ(sizeof(struct sroce_immdt), 4);
	CHECK_EQ(sizeof(struct sroce_ieth), 4);
	CHECK_EQ(offsetof(struct sroce_atmeth, rkey), 8);
	CHECK_EQ(offsetof(struct sroce_atmeth, swap_add), 12);
	CHECK_EQ(offsetof(struct sroce_atmeth, compare), 20);
	CHECK_EQ(offsetof(struct sroce_reth, len), 12);
	CHECK_EQ(offsetof(struct sroce_bth, apsn), 8);
}

static void test_wire_bth(void)
{
	static const u8 want[12] = {
		0x0b, 0xa0, 0x12, 0x34, 0x00, 0xab, 0xcd, 0xef,
		0x80, 0xfe, 0xdc, 0xba,
	};
	struct sroce_bth bth;
	u8 raw[12];

	memset(&bth, 0x5a, sizeof(bth));
	sroce_bth_init(&bth, 0x0b, true, 2, 0x1234, 0xabcdef, true, 0xfedcba);
	memcpy(raw, &bth, sizeof(raw));
	CHECK(memcmp(raw, want, sizeof(want)) == 0);
	CHECK_EQ(sroce_bth_opcode(&bth), 0x0b);
	CHECK(sroce_bth_se(&bth));
	CHECK(!sroce_bth_mig(&bth));
	CHECK_EQ(sroce_bth_pad(&bth), 2);
	CHECK_EQ(sroce_bth_tver(&bth), 0);
	CHECK_EQ(sroce_bth_pkey(&bth), 0x1234);
	CHECK(!sroce_bth_fecn(&bth));
	CHECK(!sroce_bth_becn(&bth));
	CHECK_EQ(sroce_bth_qpn(&bth), 0xabcdef);
	CHECK(sroce_bth_ackreq(&bth));
	CHECK_EQ(sroce_bth_psn(&bth), 0xfedcba);

	/* Setters touch only their own bits. */
	sroce_bth_set_fecn(&bth, true);
	sroce_bth_set_becn(&bth, true);
	CHECK_EQ(sroce_bth_qpn(&bth), 0xabcdef);
	sroce_bth_set_qpn(&bth, 0xff000001);	/* high bits dropped */
	CHECK_EQ(sroce_bth_qpn(&bth), 0x000001);
	CHECK(sroce_bth_fecn(&bth) && sroce_bth_becn(&bth));
	memcpy(raw, &bth, sizeof(raw));
	CHECK_EQ(raw[4], 0xc0);
	sroce_bth_set_fecn(&bth, false);
	CHECK(!sroce_bth_fecn(&bth) && sroce_bth_becn(&bth));
	sroce_bth_set_becn(&bth, false);
	memcpy(raw, &bth, sizeof(raw));
	CHECK_EQ(raw[4], 0x00);

	sroce_bth_set_psn(&bth, 0x1ffffff);
	CHECK_EQ(sroce_bth_psn(&bth), 0xffffff);
	CHECK(sroce_bth_ackreq(&bth));
	sroce_bth_set_ackreq(&bth, false);
	CHECK_EQ(sroce_bth_psn(&bth), 0xffffff);
	CHECK(!sroce_bth_ackreq(&bth));

	sroce_bth_set_pad(&bth, 7);		/* 2 bits: 3 */
	CHECK_EQ(sroce_bth_pad(&bth), 3);
	CHECK(sroce_bth_se(&bth));
	sroce_bth_set_mig(&bth, true);
	sroce_bth_set_se(&bth, false);
	CHECK(sroce_bth_mig(&bth) && !sroce_bth_se(&bth));
	CHECK_EQ(sroce_bth_pad(&bth), 3);
	CHECK_EQ(sroce_bth_tver(&bth), 0);
	bth.flags |= 0x0f;
	CHECK_EQ(sroce_bth_tver(&bth), 0xf);
	CHECK_EQ(sroce_bth_pad(&bth), 3);
	sroce_bth_set_pkey(&bth, 0xffff);
	sroce_bth_set_opcode(&bth, 0x64);
	memcpy(raw, &bth, sizeof(raw));
	CHECK_EQ(raw[0], 0x64);
	CHECK_EQ(raw[1], 0x7f);
	CHECK_EQ(raw[2], 0xff);
	CHECK_EQ(raw[3], 0xff);
}

static void test_wire_eths(void)
{
	struct sroce_reth reth;
	struct sroce_deth deth;
	struct sroce_atmeth atm;
	struct sroce_atmack ack;
	struct sroce_ieth ieth;
	static const u8 reth_raw[16] = {
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		0xca, 0xfe, 0xf0, 0x0d, 0x00, 0x01, 0x00, 0x00,
	};
	static const u8 deth_raw[8] = {
		0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
	};
	static const u8 atm_raw[28] = {
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x08,
		0x11, 0x22, 0x33, 0x44,
		0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
		0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8,
	};

	sroce_reth_set(&reth, 0x0123456789abcdefULL, 0xcafef00d, 0x10000);
	CHECK(memcmp(&reth, reth_raw, sizeof(reth_raw)) == 0);
	CHECK_EQ(sroce_reth_va(&reth), 0x0123456789abcdefULL);
	CHECK_EQ(sroce_reth_rkey(&reth), 0xcafef00d);
	CHECK_EQ(sroce_reth_len(&reth), 0x10000);

	sroce_deth_set(&deth, SROCE_GSI_QKEY, 0xff000001);
	CHECK(memcmp(&deth, deth_raw, sizeof(deth_raw)) == 0);
	CHECK_EQ(sroce_deth_qkey(&deth), 0x80010000);
	CHECK_EQ(sroce_deth_sqp(&deth), 1);

	sroce_atmeth_set(&atm, 0x1008, 0x11223344, 0x0102030405060708ULL,
			 0xf1f2f3f4f5f6f7f8ULL);
	CHECK(memcmp(&atm, atm_raw, sizeof(atm_raw)) == 0);
	CHECK_EQ(sroce_atmeth_va(&atm), 0x1008);
	CHECK_EQ(sroce_atmeth_rkey(&atm), 0x11223344);
	CHECK_EQ(sroce_atmeth_swap_add(&atm), 0x0102030405060708ULL);
	CHECK_EQ((u64)sroce_atmeth_compare(&atm), 0xf1f2f3f4f5f6f7f8ULL);

	sroce_atmack_set(&ack, 0x8000000000000001ULL);
	CHECK_EQ(((u8 *)&ack)[0], 0x80);
	CHECK_EQ(((u8 *)&ack)[7], 0x01);
	CHECK_EQ((u64)sroce_atmack_orig(&ack), 0x8000000000000001ULL);

	sroce_ieth_set(&ieth, 0x12345678);
	CHECK_EQ(((u8 *)&ieth)[0], 0x12);
	CHECK_EQ(sroce_ieth_rkey(&ieth), 0x12345678);
}

static void test_wire_aeth(void)
{
	struct sroce_aeth aeth;
	u8 raw[4];

	sroce_aeth_set(&aeth, sroce_aeth_syn_ack(SROCE_AETH_CREDIT_UNLIMITED),
		       0x1abcdef);
	memcpy(raw, &aeth, 4);
	CHECK_EQ(raw[0], 0x1f);
	CHECK_EQ(raw[1], 0xab);
	CHECK_EQ(raw[3], 0xef);
	CHECK_EQ(sroce_aeth_syn(&aeth), 0x1f);
	CHECK_EQ(sroce_aeth_msn(&aeth), 0xabcdef);

	CHECK_EQ(sroce_aeth_syn_ack(0), 0x00);
	CHECK_EQ(sroce_aeth_syn_rnr(14), 0x2e);
	CHECK_EQ(sroce_aeth_syn_rnr(0x3f), 0x3f);	/* 5-bit timer */
	CHECK(sroce_aeth_syn_is_rnr(0x2e));
	CHECK_EQ(sroce_aeth_syn_value(0x2e), 14);
	CHECK_EQ(SROCE_AETH_NAK_PSN_SEQ_ERR, 0x60);
	CHECK_EQ(SROCE_AETH_NAK_INVALID_REQ, 0x61);
	CHECK_EQ(SROCE_AETH_NAK_REM_ACCESS_ERR, 0x62);
	CHECK_EQ(SROCE_AETH_NAK_REM_OP_ERR, 0x63);
	CHECK_EQ(SROCE_AETH_NAK_INVALID_RD_REQ, 0x64);
	for (unsigned int s = 0; s < 256; s++) {
		bool ack = s < 0x20;
		bool rnr = s >= 0x20 && s < 0x40;
		bool nak = s >= 0x60 && s < 0x80;

		CHECK_EQ(sroce_aeth_syn_is_ack(s), ack);
		CHECK_EQ(sroce_aeth_syn_is_rnr(s), rnr);
		CHECK_EQ(sroce_aeth_syn_is_nak(s), nak);
		CHECK_EQ(sroce_aeth_syn_value(s), s & 0x1f);
	}
}

static void test_wire_pad(void)
{
	for (u32 len = 0; len < 64; len++) {
		u8 pad = sroce_pad_count(len);

		CHECK(pad < 4);
		CHECK_EQ((len + pad) % 4, 0);
	}
	CHECK_EQ(sroce_pad_count(0xffffffff), 1);
	CHECK_EQ(sroce_pad_count(0x80000000), 0);
}

/* ---- window.h ---- */

static void test_window_open(void)
{
	struct sroce_window w;

	sroce_window_reset(&w);
	CHECK_EQ(w.size, SROCE_WINDOW_MAX);
	CHECK(sroce_window_open(&w, 100, 100));
	CHECK(sroce_window_open(&w, 100 + SROCE_WINDOW_MAX - 1, 100));
	CHECK(!sroce_window_open(&w, 100 + SROCE_WINDOW_MAX, 100));
	/* across the PSN wrap */
	CHECK(sroce_window_open(&w, 5, 0xfffff0));
	CHECK(!sroce_window_open(&w, sroce_psn_add(0xfffff0, SROCE_WINDOW_MAX),
				 0xfffff0));
	/* acknowledgements while never lost keep it at its maximum */
	sroce_window_acked(&w, 100000);
	CHECK_EQ(w.size, SROCE_WINDOW_MAX);
	CHECK_EQ(w.acked, 0);
}

static void test_window_cut(void)
{
	struct sroce_window w;

	sroce_window_reset(&w);
	/* PSN 1000 lost while 1100 was next: halve, remember 1100 */
	CHECK(sroce_window_loss(&w, 1000, 1100));
	CHECK_EQ(w.size, SROCE_WINDOW_MAX / 2);
	/* more losses among what was in flight then: the same event */
	CHECK(!sroce_window_loss(&w, 1000, 1100));
	CHECK(!sroce_window_loss(&w, 1099, 1120));
	CHECK(!sroce_window_loss(&w, 1100 - SROCE_WINDOW_MAX, 1120));
	CHECK_EQ(w.size, SROCE_WINDOW_MAX / 2);
	/* a loss of a packet sent after the cut is a new event */
	CHECK(sroce_window_loss(&w, 1100, 1150));
	CHECK_EQ(w.size, SROCE_WINDOW_MAX / 4);
	/* never below the minimum */
	for (u32 psn = 2000; psn < 2100; psn += 10)
		sroce_window_loss(&w, psn, psn + 1);
	CHECK_EQ(w.size, SROCE_WINDOW_MIN);
	/* a stale mark far behind (PSNs wrapped on) does not hide a loss */
	CHECK(sroce_window_loss(&w, sroce_psn_add(2091, 0x900000), 0));
	/* the mark works across the PSN wrap */
	sroce_window_reset(&w);
	CHECK(sroce_window_loss(&w, 0xfffff0, 0x10));
	CHECK(!sroce_window_loss(&w, 0xfffffe, 0x20));
	CHECK(sroce_window_loss(&w, 0x10, 0x20));
	CHECK_EQ(w.size, SROCE_WINDOW_MAX / 4);
}

static void test_window_grow(void)
{
	struct sroce_window w;
	u32 total = 0;

	CHECK_EQ(SROCE_WINDOW_MAX, 128);	/* the sums below */
	sroce_window_reset(&w);
	sroce_window_loss(&w, 0, 1);
	CHECK_EQ(w.size, SROCE_WINDOW_MAX / 2);
	/* one more per window's worth of acknowledged PSNs */
	sroce_window_acked(&w, SROCE_WINDOW_MAX / 2 - 1);
	CHECK_EQ(w.size, SROCE_WINDOW_MAX / 2);
	sroce_window_acked(&w, 1);
	CHECK_EQ(w.size, SROCE_WINDOW_MAX / 2 + 1);
	CHECK_EQ(w.acked, 0);
	/* a big acknowledgement grows it step by step: 65 + ... + 69 <= 384 */
	sroce_window_acked(&w, 3 * SROCE_WINDOW_MAX);
	CHECK_EQ(w.size, SROCE_WINDOW_MAX / 2 + 6);
	CHECK_EQ(w.acked, 3 * SROCE_WINDOW_MAX - (65 + 66 + 67 + 68 + 69));
	for (u32 s = SROCE_WINDOW_MAX / 2; s < SROCE_WINDOW_MAX; s++)
		total += s;
	sroce_window_reset(&w);
	sroce_window_loss(&w, 0, 1);
	sroce_window_acked(&w, total - 1);
	CHECK_EQ(w.size, SROCE_WINDOW_MAX - 1);
	sroce_window_acked(&w, 1);
	CHECK_EQ(w.size, SROCE_WINDOW_MAX);
	sroce_window_acked(&w, 1000000);
	CHECK_EQ(w.size, SROCE_WINDOW_MAX);
	CHECK_EQ(w.acked, 0);
	/* a cut forgets the acknowledgements counted towards growth */
	sroce_window_loss(&w, 5000, 5001);
	sroce_window_acked(&w, 10);
	sroce_window_loss(&w, 5001, 5002);
	CHECK_EQ(w.acked, 0);
}

/*
 * A requester whose oldest unacknowledged PSN does not move (nothing came
 * back yet) fills the window: at every size the window can take, at least
 * two of those packets ask for an ACK, so the first answer arrives while
 * half the window is still open. At the full window exactly two do: each
 * ACK more is a frame the receiver sends for nothing (benchmarks.rst).
 */
static void test_window_ackreq(void)
{
	struct sroce_window w;
	u32 size, psn;

	CHECK_EQ(sroce_window_ack_every(&(struct sroce_window){
			.size = SROCE_WINDOW_MAX }), SROCE_WINDOW_MAX / 2);
	for (size = SROCE_WINDOW_MIN; size <= SROCE_WINDOW_MAX; size++) {
		u32 asked = 0, noack = 0, first_ask = 0;

		sroce_window_reset(&w);
		w.size = size;
		for (psn = 0x10; sroce_window_open(&w, psn, 0x10); psn++) {
			if (++noack >= sroce_window_ack_every(&w)) {
				noack = 0;
				if (!asked++)
					first_ask = psn - 0x10 + 1;
			}
		}
		CHECK_EQ(psn - 0x10, size);
		CHECK(asked >= 2);
		CHECK(first_ask <= size / 2);
	}
	/* every size a cut can leave: the halving sequence from the top */
	sroce_window_reset(&w);
	for (psn = 0; psn < 8; psn++) {
		sroce_window_loss(&w, psn * 1000, psn * 1000 + 1);
		CHECK(sroce_window_ack_every(&w) >= 1);
		CHECK(2 * sroce_window_ack_every(&w) <= w.size);
	}
	CHECK_EQ(w.size, SROCE_WINDOW_MIN);
}

/* ---- psn.h ---- */

static void test_psn_arith(void)
{
	CHECK_EQ(SROCE_PSN_MASK, 0xffffff);
	CHECK_EQ(sroce_psn_add(0xffffff, 1), 0);
	CHECK_EQ(sroce_psn_next(0xffffff), 0);
	CHECK_EQ(sroce_psn_add(0xfffffe, 3), 1);
	CHECK_EQ(sroce_psn_add(0, 0xffffff), 0xffffff);
	CHECK_EQ(sroce_psn_add(1, 0xffffff), 0);
	CHECK_EQ(sroce_psn_add(0x123456, 0x1000000), 0x123456);
	CHECK_EQ(sroce_psn_add(0xff000005, 1), 6);
	CHECK_EQ(sroce_psn_sub(0, 1), 0xffffff);
	CHECK_EQ(sroce_psn_sub(5, 10), 0xfffffb);
	CHECK_EQ(sroce_psn(0xdeadbeef), 0xadbeef);
}

static void test_psn_compare(void)
{
	CHECK_EQ(sroce_psn_diff(0, 0xffffff), 1);
	CHECK_EQ(sroce_psn_diff(0xffffff, 0), -1);
	CHECK_EQ(sroce_psn_diff(5, 5), 0);
	CHECK_EQ(sroce_psn_diff(0x7fffff, 0), 0x7fffff);	/* farthest after */
	CHECK_EQ(sroce_psn_diff(0x800000, 0), -0x800000);	/* half-way */
	CHECK_EQ(sroce_psn_diff(0x800001, 1), -0x800000);
	CHECK_EQ(sroce_psn_diff(0x7ffffe, 0xffffff), 0x7fffff);
	CHECK_EQ(sroce_psn_diff(0xffffff, 0x7fffff), -0x800000);
	CHECK_EQ(sroce_psn_diff(0x01000003, 2), 1);		/* high bits */
	CHECK(sroce_psn_before(0xffffff, 0));
	CHECK(sroce_psn_after(0, 0xffffff));
	CHECK(sroce_psn_after(2, 0xfffffe));
	CHECK(!sroce_psn_before(7, 7) && !sroce_psn_after(7, 7));
	CHECK(sroce_psn_after(0x7fffff, 0));
	CHECK(sroce_psn_before(0x800000, 0));

	/* Antisymmetric everywhere the order is defined. */
	for (u32 a = 0; a < 0x1000000; a += 0x0fedc1) {
		for (u32 d = 1; d <= SROCE_PSN_MAX_DIST; d = d * 3 + 1) {
			u32 b = sroce_psn_add(a, d);

			CHECK_EQ(sroce_psn_diff(b, a), d);
			CHECK_EQ(sroce_psn_diff(a, b), -(s32)d);
			CHECK(sroce_psn_after(b, a) && sroce_psn_before(a, b));
		}
	}
}

static void test_psn_window(void)
{
	/* [0xfffffe, 0xfffffe + 4) = { fffffe, ffffff, 0, 1 } */
	CHECK(!sroce_psn_in_window(0xfffffd, 0xfffffe, 4));
	CHECK(sroce_psn_in_window(0xfffffe, 0xfffffe, 4));
	CHECK(sroce_psn_in_window(0xffffff, 0xfffffe, 4));
	CHECK(sroce_psn_in_window(0, 0xfffffe, 4));
	CHECK(sroce_psn_in_window(1, 0xfffffe, 4));
	CHECK(!sroce_psn_in_window(2, 0xfffffe, 4));
	CHECK(!sroce_psn_in_window(100, 100, 0));
	CHECK(sroce_psn_in_window(100, 100, 1));
	CHECK(!sroce_psn_in_window(101, 100, 1));
	CHECK(sroce_psn_in_window(99, 100, 0x1000000));	/* everything */
	CHECK(sroce_psn_in_window(0x01000064, 100, 1));	/* high bits */

	CHECK(sroce_psn_in_range(0xffffff, 0xfffff0, 0x10));
	CHECK(sroce_psn_in_range(0x10, 0xfffff0, 0x10));
	CHECK(!sroce_psn_in_range(0x11, 0xfffff0, 0x10));
	CHECK(!sroce_psn_in_range(0xffffef, 0xfffff0, 0x10));
	CHECK(sroce_psn_in_range(5, 5, 5));
	CHECK(!sroce_psn_in_range(6, 5, 5));
	CHECK(!sroce_psn_in_range(4, 5, 5));
}

static void test_psn_npkts(void)
{
	CHECK_EQ(sroce_psn_npkts(0, 1024), 1);
	CHECK_EQ(sroce_psn_npkts(1, 1024), 1);
	CHECK_EQ(sroce_psn_npkts(1024, 1024), 1);
	CHECK_EQ(sroce_psn_npkts(1025, 1024), 2);
	CHECK_EQ(sroce_psn_npkts(4096, 256), 16);
	CHECK_EQ(sroce_psn_npkts(4097, 256), 17);
	CHECK_EQ(sroce_psn_npkts(0x80000000, 4096), 0x80000);
	CHECK_EQ(sroce_psn_npkts(0xffffffff, 256), 0x1000000);
	CHECK_EQ(sroce_psn_npkts(100, 0), 0);
	CHECK_EQ(sroce_mtu_bytes(1), 256);
	CHECK_EQ(sroce_mtu_bytes(3), 1024);
	CHECK_EQ(sroce_mtu_bytes(5), 4096);
	CHECK_EQ(sroce_mtu_bytes(0), 0);
	CHECK_EQ(sroce_mtu_bytes(6), 0);
}

/* ---- ICRC ---- */

static u32 wire_icrc(const u8 *pkt, size_t len)
{
	const u8 *p = pkt + len - 4;

	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

/* A private copy of exactly @len bytes, so a sanitizer sees overreads. */
static u8 *dup_pkt(const u8 *pkt, size_t len)
{
	u8 *p = malloc(len ? len : 1);

	if (!p) {
		perror("malloc");
		exit(2);
	}
	memcpy(p, pkt, len);
	return p;
}

static int calc(const u8 *pkt, size_t len, u32 *icrc)
{
	__le32 v;
	int err = sroce_icrc_calc(pkt, len, &v);

	*icrc = le32_to_cpu(v);
	return err;
}

static void test_crc32_harness(void)
{
	static const u8 ff[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
	};

	/* The CRC-32 check value, and the ICRC seed. */
	CHECK_EQ(~crc32_le(~0U, (const u8 *)"123456789", 9), 0xcbf43926);
	CHECK_EQ(crc32_le(~0U, ff, 8), SROCE_ICRC_SEED);
}

static void test_vec_known_answer(const struct icrc_vector *v)
{
	u8 *pkt = dup_pkt(v->pkt, v->len);
	u32 icrc = 0;

	CHECK_EQ(calc(pkt, v->len, &icrc), 0);
	CHECK_EQ(icrc, wire_icrc(v->pkt, v->len));
	CHECK_EQ(sroce_icrc_check(pkt, v->len), 0);
	/* The function computes the ICRC, it does not read the field. */
	memset(pkt + v->len - 4, 0, 4);
	CHECK_EQ(calc(pkt, v->len, &icrc), 0);
	CHECK_EQ(icrc, wire_icrc(v->pkt, v->len));
	CHECK_EQ(sroce_icrc_check(pkt, v->len), -EBADMSG);
	free(pkt);
}

static int calc_frags(const struct sroce_icrc_frag *f, unsigned int n,
		      u32 *icrc)
{
	__le32 v;
	int err = sroce_icrc_calc_frags(f, n, &v);

	*icrc = le32_to_cpu(v);
	return err;
}

static void test_vec_frags(const struct icrc_vector *v)
{
	size_t covered = v->len - 4;
	u32 want = wire_icrc(v->pkt, v->len), got = 0;
	struct sroce_icrc_frag f[5];

	/* Every split in two. */
	for (size_t a = 0; a <= covered; a++) {
		u8 *p0 = dup_pkt(v->pkt, a);
		u8 *p1 = dup_pkt(v->pkt + a, covered - a);

		f[0] = (struct sroce_icrc_frag){ p0, a };
		f[1] = (struct sroce_icrc_frag){ p1, covered - a };
		CHECK_EQ(calc_frags(f, 2, &got), 0);
		CHECK_EQ(got, want);
		free(p0);
		free(p1);
	}
	/* Three pieces and empty pieces around the header/payload seams. */
	for (size_t a = 0; a < covered; a += 7) {
		size_t b = a + (covered - a) / 2;

		f[0] = (struct sroce_icrc_frag){ v->pkt, a };
		f[1] = (struct sroce_icrc_frag){ NULL, 0 };
		f[2] = (struct sroce_icrc_frag){ v->pkt + a, b - a };
		f[3] = (struct sroce_icrc_frag){ v->pkt + b, covered - b };
		f[4] = (struct sroce_icrc_frag){ NULL, 0 };
		CHECK_EQ(calc_frags(f, 5, &got), 0);
		CHECK_EQ(got, want);
	}
	/* The whole packet, ICRC included, is 4 bytes too many. */
	f[0] = (struct sroce_icrc_frag){ v->pkt, v->len };
	CHECK_EQ(calc_frags(f, 1, &got), -EINVAL);
	CHECK_EQ(calc_frags(f, 0, &got), -EINVAL);
}

/*
 * Flip every bit of every byte the ICRC covers: the ICRC must change (or
 * the packet be rejected as malformed when a length or type field was hit).
 * Flip the masked bits: the ICRC must stay the same.
 */
static void test_vec_flips(const struct icrc_vector *v)
{
	u32 want = wire_icrc(v->pkt, v->len);
	u8 *pkt = dup_pkt(v->pkt, v->len);
	unsigned int changed = 0, rejected = 0, masked = 0;

	for (size_t i = 0; i < v->len - 4; i++) {
		u8 keep = v->mask[i];
		u8 flip = ~keep;
		u32 got = 0;
		int err;

		if (flip) {
			pkt[i] ^= flip;
			err = calc(pkt, v->len, &got);
			if (err) {
				CHECK_EQ(err, -EINVAL);
				rejected++;
			} else {
				if (got == want)
					diag("byte %zu: ICRC unchanged", i);
				CHECK(got != want);
				CHECK_EQ(sroce_icrc_check(pkt, v->len),
					 -EBADMSG);
				changed++;
			}
			pkt[i] ^= flip;
		}
		if (keep) {
			pkt[i] ^= keep;
			err = calc(pkt, v->len, &got);
			CHECK_EQ(err, 0);
			if (!err && got != want)
				diag("masked byte %zu changes the ICRC", i);
			CHECK(!err && got == want);
			CHECK_EQ(sroce_icrc_check(pkt, v->len), 0);
			masked++;
			pkt[i] ^= keep;
		}
	}
	/* Also single-bit flips everywhere outside the masks. */
	for (size_t i = 0; i < v->len - 4; i++) {
		for (int bit = 0; bit < 8; bit++) {
			u8 m = 1 << bit;
			u32 got = 0;

			if (v->mask[i] & m)
				continue;
			pkt[i] ^= m;
			if (!calc(pkt, v->len, &got))
				CHECK(got != want);
			pkt[i] ^= m;
		}
	}
	CHECK(memcmp(pkt, v->pkt, v->len) == 0);
	/* 7 IPv4 / 8 IPv6 bytes have masked bits. */
	CHECK_EQ(masked, (v->pkt[0] >> 4) == 4 ? 7 : 8);
	CHECK(changed > rejected);
	free(pkt);
}

/* Any length but the packet's own is rejected without reading past it. */
static void test_vec_lengths(const struct icrc_vector *v)
{
	u32 got = 0;

	for (size_t len = 0; len < v->len; len++) {
		u8 *pkt = dup_pkt(v->pkt, len);

		CHECK_EQ(calc(pkt, len, &got), -EINVAL);
		CHECK_EQ(sroce_icrc_check(pkt, len), -EINVAL);
		free(pkt);
	}
	for (size_t extra = 1; extra <= 8; extra++) {
		u8 *pkt = malloc(v->len + extra);

		if (!pkt)
			exit(2);
		memcpy(pkt, v->pkt, v->len);
		memset(pkt + v->len, 0, extra);
		CHECK_EQ(calc(pkt, v->len + extra, &got), -EINVAL);
		free(pkt);
	}
}

static void test_icrc_malformed(void)
{
	const struct icrc_vector *v4 = &icrc_vectors[0];
	const struct icrc_vector *v6 = &icrc_vectors[2];
	u8 *pkt;
	u32 got;

	CHECK(v4->pkt[0] == 0x45 && v6->pkt[0] >> 4 == 6);

	pkt = dup_pkt(v4->pkt, v4->len);
	pkt[0] = 0x46;				/* IPv4 options */
	CHECK_EQ(calc(pkt, v4->len, &got), -EINVAL);
	pkt[0] = 0x55;				/* no such IP version */
	CHECK_EQ(calc(pkt, v4->len, &got), -EINVAL);
	pkt[0] = 0x65;				/* IPv6 header too long */
	CHECK_EQ(calc(pkt, v4->len, &got), -EINVAL);
	pkt[0] = 0x45;
	pkt[9] = 6;				/* TCP */
	CHECK_EQ(calc(pkt, v4->len, &got), -EINVAL);
	pkt[9] = 17;
	pkt[25]++;				/* UDP length */
	CHECK_EQ(calc(pkt, v4->len, &got), -EINVAL);
	pkt[25]--;
	CHECK_EQ(calc(pkt, v4->len, &got), 0);
	free(pkt);

	pkt = dup_pkt(v6->pkt, v6->len);
	pkt[6] = 0;				/* hop-by-hop options */
	CHECK_EQ(calc(pkt, v6->len, &got), -EINVAL);
	pkt[6] = 17;
	pkt[5]++;				/* payload length */
	CHECK_EQ(calc(pkt, v6->len, &got), -EINVAL);
	pkt[5]--;
	CHECK_EQ(calc(pkt, v6->len, &got), 0);
	free(pkt);

	/* Shorter than IP + UDP + BTH + ICRC, whatever the fields say. */
	for (size_t len = 0; len < 20 + 8 + 12 + 4; len++) {
		u8 buf[64];

		memset(buf, 0, sizeof(buf));
		memcpy(buf, v4->pkt, v4->len < sizeof(buf) ? v4->len : sizeof(buf));
		buf[2] = 0;
		buf[3] = len;
		buf[24] = 0;
		buf[25] = len >= 20 ? len - 20 : 0;
		pkt = dup_pkt(buf, len);
		CHECK_EQ(calc(pkt, len, &got), -EINVAL);
		free(pkt);
	}
	for (size_t len = 40 + 8 + 12; len < 40 + 8 + 12 + 4; len++) {
		u8 buf[64];

		memset(buf, 0, sizeof(buf));
		memcpy(buf, v6->pkt, v6->len < sizeof(buf) ? v6->len : sizeof(buf));
		buf[4] = 0;
		buf[5] = len - 40;
		buf[44] = 0;
		buf[45] = len - 40;
		pkt = dup_pkt(buf, len);
		CHECK_EQ(calc(pkt, len, &got), -EINVAL);
		free(pkt);
	}
}

/*
 * Build the first three vectors again here, with wire.h, from the same
 * parameters as gen_icrc_vectors.py: the bytes must match Python's, and so
 * must the ICRC computed over them.
 */
static size_t put_ipv4(u8 *p, const u8 src[4], const u8 dst[4], size_t l4,
		       u8 tos, u8 ttl, u16 id)
{
	u32 sum = 0;

	memset(p, 0, 20);
	p[0] = 0x45;
	p[1] = tos;
	p[2] = (20 + l4) >> 8;
	p[3] = (20 + l4) & 0xff;
	p[4] = id >> 8;
	p[5] = id & 0xff;
	p[6] = 0x40;				/* DF */
	p[8] = ttl;
	p[9] = 17;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
	for (int i = 0; i < 20; i += 2)
		sum += p[i] << 8 | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	p[10] = ~sum >> 8;
	p[11] = ~sum & 0xff;
	return 20;
}

static size_t put_ipv6(u8 *p, const u8 src[16], const u8 dst[16], size_t l4,
		       u8 tclass, u32 flow, u8 hop)
{
	u32 w0 = 6U << 28 | (u32)tclass << 20 | flow;

	p[0] = w0 >> 24;
	p[1] = w0 >> 16;
	p[2] = w0 >> 8;
	p[3] = w0;
	p[4] = l4 >> 8;
	p[5] = l4 & 0xff;
	p[6] = 17;
	p[7] = hop;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
	return 40;
}

static size_t put_udp(u8 *p, u16 sport, size_t len, u16 csum)
{
	p[0] = sport >> 8;
	p[1] = sport & 0xff;
	p[2] = 4791 >> 8;
	p[3] = 4791 & 0xff;
	p[4] = len >> 8;
	p[5] = len & 0xff;
	p[6] = csum >> 8;
	p[7] = csum & 0xff;
	return 8;
}

static void check_built(u8 *pkt, size_t len,
			const struct icrc_vector *v)
{
	__le32 icrc;

	CHECK_EQ(len, v->len);
	if (len != v->len)
		return;
	CHECK(memcmp(pkt, v->pkt, len - 4) == 0);
	for (size_t i = 0; i < len - 4; i++)
		if (pkt[i] != v->pkt[i])
			diag("byte %zu: built %#x, vector %#x", i, pkt[i],
			     v->pkt[i]);
	CHECK_EQ(sroce_icrc_calc(pkt, len, &icrc), 0);
	memcpy(pkt + len - 4, &icrc, 4);	/* as the transport will */
	CHECK(memcmp(pkt + len - 4, v->pkt + len - 4, 4) == 0);
}

static void test_build_v4_send_only(void)
{
	static const u8 src[4] = { 192, 0, 2, 1 }, dst[4] = { 192, 0, 2, 2 };
	static const char payload[] = "Hello, RoCEv2";
	size_t plen = sizeof(payload) - 1;
	u8 pad = sroce_pad_count(plen);
	size_t ib = SROCE_BTH_LEN + plen + pad + SROCE_ICRC_LEN;
	u8 pkt[256] = { 0 };
	struct sroce_bth *bth;
	size_t off;

	CHECK_EQ(pad, 3);
	off = put_ipv4(pkt, src, dst, 8 + ib, 0x02, 64, 0x1c46);
	off += put_udp(pkt + off, 0xc123, 8 + ib, 0);
	bth = (struct sroce_bth *)(pkt + off);
	sroce_bth_init(bth, sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_SEND,
						true, true),
		       true, pad, SROCE_DEFAULT_PKEY, 0x11, true, 0x123456);
	off += sroce_opcode_info(sroce_bth_opcode(bth))->hdr_len;
	memcpy(pkt + off, payload, plen);
	off += plen + pad + SROCE_ICRC_LEN;
	check_built(pkt, off, &icrc_vectors[0]);
}

static void test_build_v4_write_only(void)
{
	static const u8 src[4] = { 198, 51, 100, 7 };
	static const u8 dst[4] = { 198, 51, 100, 9 };
	const struct sroce_opcode_info *info;
	size_t plen = 6;
	u8 pad = sroce_pad_count(plen);
	u8 pkt[256] = { 0 };
	struct sroce_bth *bth;
	struct sroce_reth *reth;
	size_t off, ib;
	int op;

	op = sroce_opcode_select(SROCE_QPT_RC, SROCE_WR_RDMA_WRITE, true, true);
	CHECK_EQ(op, 0x0a);
	info = sroce_opcode_info(op);
	ib = info->hdr_len + plen + pad + SROCE_ICRC_LEN;
	off = put_ipv4(pkt, src, dst, 8 + ib, 0xb8, 32, 0xbeef);
	off += put_udp(pkt + off, 0xd00d, 8 + ib, 0);
	bth = (struct sroce_bth *)(pkt + off);
	sroce_bth_init(bth, op, false, pad, SROCE_DEFAULT_PKEY, 0xabcd, true,
		       sroce_psn_sub(0, 2));
	sroce_bth_set_fecn(bth, true);
	reth = sroce_opcode_eth(info, bth, SROCE_ETH_RETH);
	CHECK(reth);
	if (!reth)
		return;
	sroce_reth_set(reth, 0x00007f0012345678ULL, 0xcafef00d, plen);
	off += info->hdr_len;
	for (size_t i = 0; i < plen; i++)
		pkt[off + i] = 0xa0 + i;
	off += plen + pad + SROCE_ICRC_LEN;
	check_built(pkt, off, &icrc_vectors[1]);
}

static void test_build_v6_ack(void)
{
	static const u8 src[16] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1
	};
	static const u8 dst[16] = {
		0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2
	};
	const struct sroce_opcode_info *info;
	u8 pkt[256] = { 0 };
	struct sroce_bth *bth;
	struct sroce_aeth *aeth;
	size_t off, ib;

	info = sroce_opcode_info(SROCE_OP_RC_ACKNOWLEDGE);
	ib = info->hdr_len + SROCE_ICRC_LEN;
	off = put_ipv6(pkt, src, dst, 8 + ib, 0x68, 0x12345, 64);
	off += put_udp(pkt + off, 0xe3a1, 8 + ib, 0x5a5a);
	bth = (struct sroce_bth *)(pkt + off);
	sroce_bth_init(bth, SROCE_OP_RC_ACKNOWLEDGE, false, 0,
		       SROCE_DEFAULT_PKEY, 0x102, false, 0);
	sroce_bth_set_becn(bth, true);
	aeth = sroce_opcode_eth(info, bth, SROCE_ETH_AETH);
	CHECK(aeth);
	if (!aeth)
		return;
	sroce_aeth_set(aeth, sroce_aeth_syn_ack(SROCE_AETH_CREDIT_UNLIMITED),
		       0xabcd);
	off += info->hdr_len + SROCE_ICRC_LEN;
	check_built(pkt, off, &icrc_vectors[2]);
}

/* ---- main ---- */

static const struct {
	const char *desc;
	void (*fn)(void);
} tests[] = {
	{ "opcode: RC/UC/UD membership of all 256 values matches IBTA",
	  test_opcode_membership },
	{ "opcode: header length == BTH + sum of ETH sizes",
	  test_opcode_hdr_len },
	{ "opcode: ETH set and offsets, in order, back to back",
	  test_opcode_eths },
	{ "opcode: position, direction and operation flags",
	  test_opcode_flags },
	{ "opcode: unknown opcodes are inert", test_opcode_unknown },
	{ "opcode: ETH pointers", test_opcode_eth_ptr },
	{ "opcode: select for every (QP type, WR, first, last)",
	  test_opcode_select },
	{ "wire: struct sizes and field offsets", test_wire_layout },
	{ "wire: BTH encoding and accessors", test_wire_bth },
	{ "wire: RETH, DETH, AtomicETH, AtomicAckETH, IETH encoding",
	  test_wire_eths },
	{ "wire: AETH syndromes", test_wire_aeth },
	{ "wire: pad count", test_wire_pad },
	{ "psn: add/sub wrap at 2^24", test_psn_arith },
	{ "psn: compare across the wrap", test_psn_compare },
	{ "psn: window and range edges", test_psn_window },
	{ "psn: packets per message", test_psn_npkts },
	{ "window: opens below its size, across the wrap", test_window_open },
	{ "window: halves once per loss event, down to its minimum",
	  test_window_cut },
	{ "window: grows by one per window acknowledged, up to its maximum",
	  test_window_grow },
	{ "window: asks for an ACK at least twice per window, at every size",
	  test_window_ackreq },
	{ "icrc: harness crc32_le and seed 0xdebb20e3", test_crc32_harness },
	{ "icrc: malformed and short packets are rejected",
	  test_icrc_malformed },
	{ "icrc: IPv4 RC SEND ONLY built with wire.h matches the vector",
	  test_build_v4_send_only },
	{ "icrc: IPv4 RC RDMA WRITE ONLY built with wire.h matches the vector",
	  test_build_v4_write_only },
	{ "icrc: IPv6 RC ACKNOWLEDGE built with wire.h matches the vector",
	  test_build_v6_ack },
};

static const struct {
	const char *desc;
	void (*fn)(const struct icrc_vector *v);
} vec_tests[] = {
	{ "known answer", test_vec_known_answer },
	{ "same ICRC from any fragmentation", test_vec_frags },
	{ "covered bits change it, masked bits do not", test_vec_flips },
	{ "any other length is rejected", test_vec_lengths },
};

int main(void)
{
	unsigned int plan = ARRAY_SIZE(tests) +
			    ARRAY_SIZE(vec_tests) * ICRC_NUM_VECTORS;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n1..%u\n", plan);
	for (size_t i = 0; i < ARRAY_SIZE(tests); i++) {
		tap_begin();
		tests[i].fn();
		tap_end("%s", tests[i].desc);
	}
	for (size_t v = 0; v < ICRC_NUM_VECTORS; v++) {
		for (size_t i = 0; i < ARRAY_SIZE(vec_tests); i++) {
			tap_begin();
			vec_tests[i].fn(&icrc_vectors[v]);
			tap_end("icrc %s: %s (%s)", icrc_vectors[v].name,
				vec_tests[i].desc, icrc_vectors[v].desc);
		}
	}
	printf("# %u passed, %u failed, 0 skipped\n", tap_num - tap_failed,
	       tap_failed);
	return tap_failed ? 1 : 0;
}
