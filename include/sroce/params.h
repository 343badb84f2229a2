/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device limits of an sroce device.
 *
 * Shared by the module (which reports them through query_device and
 * query_port and enforces them) and the selftests (which check that the
 * device reports them and that requests beyond them fail). Pure constants:
 * this header must build in user space and in the kernel.
 *
 * Every limit is at least as generous as rdma_rxe's in Linux 6.1, so that
 * software written against rxe keeps working.
 */
#ifndef SROCE_PARAMS_H
#define SROCE_PARAMS_H

/* IEEE OUI-less vendor id used by software RDMA devices (IBTA A3.3.1). */
#define SROCE_VENDOR_ID			0xffffff
#define SROCE_VENDOR_PART_ID		0x5352	/* "SR" */
#define SROCE_HW_VERSION		1

#define SROCE_MAX_QP			(1 << 20)
#define SROCE_MAX_QP_WR			(1 << 20)
#define SROCE_MAX_SGE			32
#define SROCE_MAX_SGE_RD		32
#define SROCE_MAX_CQ			(1 << 20)
#define SROCE_MAX_CQE			((1 << 20) - 1)
#define SROCE_MAX_MR			(1 << 19)
#define SROCE_MAX_MW			(1 << 19)
#define SROCE_MAX_PD			(1 << 20)
#define SROCE_MAX_UCONTEXT		(1 << 20)
#define SROCE_MAX_AH			((1 << 15) - 1)
#define SROCE_MAX_SRQ			(1 << 20)
#define SROCE_MAX_SRQ_WR		(1 << 20)
#define SROCE_MAX_SRQ_SGE		27
#define SROCE_MAX_QP_RD_ATOM		128
#define SROCE_MAX_QP_INIT_RD_ATOM	128
#define SROCE_MAX_RES_RD_ATOM		0x3f000
#define SROCE_MAX_MCAST_GRP		8192
#define SROCE_MAX_MCAST_QP_ATTACH	56
#define SROCE_MAX_TOT_MCAST_QP_ATTACH	0x70000
#define SROCE_MAX_FAST_REG_PAGES	512
#define SROCE_MAX_PKEYS			64
#define SROCE_LOCAL_CA_ACK_DELAY	15
#define SROCE_MAX_MR_SIZE		(~0ULL)
#define SROCE_MAX_MSG_SIZE		(1u << 31)

#define SROCE_PORT_GID_TBL_LEN		1024
#define SROCE_PORT_PKEY_TBL_LEN		1

/*
 * Bytes of a RoCEv2 packet beyond the IB payload that must fit in the
 * netdev MTU: IPv6 (40) + UDP (8) + BTH (12) + the largest extended
 * headers (RETH 16 + ImmDt 4) + ICRC (4), rounded up. The same budget
 * as rdma_rxe, so both ends derive the same active MTU.
 */
#define SROCE_MAX_HDR_LENGTH		80

#endif /* SROCE_PARAMS_H */
