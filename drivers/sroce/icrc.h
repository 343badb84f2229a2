/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The RoCEv2 invariant CRC (ICRC): a CRC-32 over the IP header, the UDP
 * header and the IB transport packet, with the fields that routers may
 * change replaced by all ones, carried in the last 4 bytes of the UDP
 * payload. See Documentation/wire.rst.
 *
 * L0: pure. The functions read only the bytes they are given, check the
 * lengths in the IP and UDP headers against them first, and never read
 * the ICRC field itself except in sroce_icrc_check().
 */
#ifndef SROCE_ICRC_H
#define SROCE_ICRC_H

#include "l0_compat.h"

#define SROCE_IPV4_HDR_LEN	20	/* no options: RoCEv2 sends none */
#define SROCE_IPV6_HDR_LEN	40	/* no extension headers */
#define SROCE_UDP_HDR_LEN	8

/*
 * CRC-32 state after the 8 bytes of all ones that stand for the masked IB
 * Local Route Header, which RoCEv2 does not send.
 */
#define SROCE_ICRC_SEED		0xdebb20e3

/**
 * struct sroce_icrc_frag - one piece of a packet
 * @data: first byte of the piece
 * @len: bytes in the piece (0 is allowed)
 */
struct sroce_icrc_frag {
	const void *data;
	size_t len;
};

int sroce_icrc_calc(const void *pkt, size_t len, __le32 *icrc);
int sroce_icrc_calc_frags(const struct sroce_icrc_frag *frags,
			  unsigned int nr_frags, __le32 *icrc);
int sroce_icrc_check(const void *pkt, size_t len);

#endif /* SROCE_ICRC_H */
