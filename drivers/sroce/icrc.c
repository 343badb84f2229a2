// SPDX-License-Identifier: GPL-2.0
/*
 * RoCEv2 ICRC (IBTA Annex A17, "RoCEv2"; algorithm summarised in
 * Documentation/wire.rst).
 *
 * The CRC-32 (reflected, polynomial 0x04c11db7) starts from the state left
 * by 8 bytes of all ones, runs over the IP header, the UDP header and the
 * BTH with their variant fields set to all ones, then over the rest of the
 * IB transport packet up to the ICRC field, and is sent inverted and least
 * significant byte first.
 *
 * Only the IP + UDP + BTH prefix (at most 60 bytes) is copied, to a buffer
 * on the stack, to mask it; everything after is fed to the CRC in place.
 */
#include "icrc.h"
#include "wire.h"

/* Byte offsets of the fields read or masked here. */
#define SROCE_IPV4_TOS		1
#define SROCE_IPV4_TOT_LEN	2
#define SROCE_IPV4_TTL		8
#define SROCE_IPV4_PROTOCOL	9
#define SROCE_IPV4_CHECK	10
#define SROCE_IPV6_PAYLOAD_LEN	4
#define SROCE_IPV6_NEXTHDR	6
#define SROCE_IPV6_HOP_LIMIT	7
#define SROCE_UDP_LEN		4
#define SROCE_UDP_CHECK		6

#define SROCE_IPV4_IHL_NO_OPTIONS	(SROCE_IPV4_HDR_LEN / 4)
#define SROCE_IP_PROTO_UDP		17

/* The masked prefix: IP header, UDP header, BTH. */
#define SROCE_ICRC_MAX_PREFIX \
	(SROCE_IPV6_HDR_LEN + SROCE_UDP_HDR_LEN + SROCE_BTH_LEN)
#define SROCE_ICRC_MIN_PREFIX \
	(SROCE_IPV4_HDR_LEN + SROCE_UDP_HDR_LEN + SROCE_BTH_LEN)

static u16 sroce_get_be16(const u8 *p)
{
	return (u16)p[0] << 8 | p[1];
}

/* Copy the first @len bytes of @frags to @dst; false if they are fewer. */
static bool sroce_frags_read(const struct sroce_icrc_frag *frags,
			     unsigned int nr_frags, u8 *dst, size_t len)
{
	unsigned int i;

	for (i = 0; i < nr_frags && len; i++) {
		size_t n = frags[i].len < len ? frags[i].len : len;

		if (!n)
			continue;
		memcpy(dst, frags[i].data, n);
		dst += n;
		len -= n;
	}
	return !len;
}

/* Continue @crc over every byte of @frags after the first @skip. */
static u32 sroce_frags_crc(u32 crc, const struct sroce_icrc_frag *frags,
			   unsigned int nr_frags, size_t skip)
{
	unsigned int i;

	for (i = 0; i < nr_frags; i++) {
		const u8 *data = frags[i].data;
		size_t len = frags[i].len;

		if (skip >= len) {
			skip -= len;
			continue;
		}
		crc = sroce_crc32(crc, data + skip, len - skip);
		skip = 0;
	}
	return crc;
}

/*
 * Check the IP and UDP headers at the start of @hdr (of which @avail bytes
 * are valid) against the length @pkt_len of the whole packet, ICRC
 * included, and return the IP header length, or 0 if the packet is not a
 * well-formed IPv4 or IPv6 UDP datagram of exactly that length.
 */
static size_t sroce_icrc_ip_hdr_len(const u8 *hdr, size_t avail,
				    size_t pkt_len)
{
	size_t ip_len;

	switch (hdr[0] >> 4) {
	case 4:
		ip_len = SROCE_IPV4_HDR_LEN;
		if ((hdr[0] & 0xf) != SROCE_IPV4_IHL_NO_OPTIONS ||
		    hdr[SROCE_IPV4_PROTOCOL] != SROCE_IP_PROTO_UDP ||
		    sroce_get_be16(hdr + SROCE_IPV4_TOT_LEN) != pkt_len)
			return 0;
		break;
	case 6:
		ip_len = SROCE_IPV6_HDR_LEN;
		if (avail < ip_len + SROCE_UDP_HDR_LEN + SROCE_BTH_LEN ||
		    hdr[SROCE_IPV6_NEXTHDR] != SROCE_IP_PROTO_UDP ||
		    sroce_get_be16(hdr + SROCE_IPV6_PAYLOAD_LEN) !=
		    pkt_len - ip_len)
			return 0;
		break;
	default:
		return 0;
	}

	if (sroce_get_be16(hdr + ip_len + SROCE_UDP_LEN) != pkt_len - ip_len)
		return 0;
	return ip_len;
}

/* Set the fields that the ICRC does not cover to all ones. */
static void sroce_icrc_mask(u8 *hdr, size_t ip_len)
{
	u8 *udp = hdr + ip_len;
	u8 *bth = udp + SROCE_UDP_HDR_LEN;

	if (ip_len == SROCE_IPV4_HDR_LEN) {
		hdr[SROCE_IPV4_TOS] = 0xff;
		hdr[SROCE_IPV4_TTL] = 0xff;
		hdr[SROCE_IPV4_CHECK] = 0xff;
		hdr[SROCE_IPV4_CHECK + 1] = 0xff;
	} else {
		/* Traffic class and flow label; the version stays. */
		hdr[0] |= 0x0f;
		hdr[1] = 0xff;
		hdr[2] = 0xff;
		hdr[3] = 0xff;
		hdr[SROCE_IPV6_HOP_LIMIT] = 0xff;
	}
	udp[SROCE_UDP_CHECK] = 0xff;
	udp[SROCE_UDP_CHECK + 1] = 0xff;
	bth[SROCE_BTH_ICRC_MASKED_BYTE] = 0xff;
}

/**
 * sroce_icrc_calc_frags() - ICRC of a packet given in pieces
 * @frags: the packet from the first byte of the IP header to the last byte
 *	before the ICRC field (the last pad byte), in order, in any number of
 *	pieces of any length
 * @nr_frags: number of entries in @frags
 * @icrc: where to store the ICRC, in the byte order it has on the wire
 *
 * The IP and UDP length fields must already be final: they must describe a
 * packet 4 bytes (the ICRC) longer than the pieces together. The ICRC field
 * itself is neither read nor written.
 *
 * Context: any.
 * Return: 0, or -EINVAL if the pieces are too short to hold IP, UDP and
 * BTH headers, the IP header is neither IPv4 without options nor IPv6
 * followed directly by UDP, or a length field disagrees with the pieces.
 */
int sroce_icrc_calc_frags(const struct sroce_icrc_frag *frags,
			  unsigned int nr_frags, __le32 *icrc)
{
	u8 hdr[SROCE_ICRC_MAX_PREFIX];
	size_t covered = 0, avail, ip_len, prefix;
	unsigned int i;
	u32 crc;

	for (i = 0; i < nr_frags; i++)
		covered += frags[i].len;
	if (covered < SROCE_ICRC_MIN_PREFIX)
		return -EINVAL;

	avail = covered < sizeof(hdr) ? covered : sizeof(hdr);
	if (!sroce_frags_read(frags, nr_frags, hdr, avail))
		return -EINVAL;

	ip_len = sroce_icrc_ip_hdr_len(hdr, avail, covered + SROCE_ICRC_LEN);
	if (!ip_len)
		return -EINVAL;
	prefix = ip_len + SROCE_UDP_HDR_LEN + SROCE_BTH_LEN;

	sroce_icrc_mask(hdr, ip_len);
	crc = sroce_crc32(SROCE_ICRC_SEED, hdr, prefix);
	crc = sroce_frags_crc(crc, frags, nr_frags, prefix);
	*icrc = cpu_to_le32(~crc);
	return 0;
}

/**
 * sroce_icrc_calc() - ICRC of a packet in one buffer
 * @pkt: first byte of the IP header
 * @len: bytes from @pkt to the end of the ICRC field, inclusive
 * @icrc: where to store the ICRC, in the byte order it has on the wire
 *
 * The ICRC field (the last 4 bytes) is not read, so this serves both to
 * fill it in on transmit and to recompute it on receive.
 *
 * Context: any.
 * Return: 0, or -EINVAL as for sroce_icrc_calc_frags().
 */
int sroce_icrc_calc(const void *pkt, size_t len, __le32 *icrc)
{
	struct sroce_icrc_frag frag = { .data = pkt };

	if (len < SROCE_ICRC_MIN_PREFIX + SROCE_ICRC_LEN)
		return -EINVAL;
	frag.len = len - SROCE_ICRC_LEN;
	return sroce_icrc_calc_frags(&frag, 1, icrc);
}

/**
 * sroce_icrc_check() - verify the ICRC of a received packet
 * @pkt: first byte of the IP header
 * @len: bytes from @pkt to the end of the ICRC field, inclusive
 *
 * Context: any.
 * Return: 0 if the ICRC field matches the packet, -EBADMSG if it does not,
 * -EINVAL if the packet is malformed (see sroce_icrc_calc_frags()).
 */
int sroce_icrc_check(const void *pkt, size_t len)
{
	const u8 *field;
	__le32 icrc;
	u32 sent;
	int err;

	err = sroce_icrc_calc(pkt, len, &icrc);
	if (err)
		return err;

	field = (const u8 *)pkt + len - SROCE_ICRC_LEN;
	sent = field[0] | field[1] << 8 | field[2] << 16 | (u32)field[3] << 24;
	return sent == le32_to_cpu(icrc) ? 0 : -EBADMSG;
}
