#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Generate selftests/unit/icrc_vectors.h: RoCEv2 packets and their ICRC.

The packets are built here byte by byte with struct, and their ICRC is
computed with zlib.crc32, following the algorithm as written in
Documentation/wire.rst (itself from the RoCEv2 annex as summarised in the
project's reference notes), not by calling any sroce code:

  1. the IP header, UDP header and BTH, copied, with these fields set to
     all ones: IPv4 TOS, TTL and header checksum; IPv6 traffic class, flow
     label and hop limit; UDP checksum; BTH byte 4 (FECN, BECN, Resv6);
  2. followed by the rest of the packet up to (not including) the ICRC;
  3. prefixed with 8 bytes of 0xff (the masked IB LRH that RoCEv2 omits);
  4. ICRC = zlib.crc32() of all that, sent least significant byte first.

Vectors from third parties anchor this script; it checks that it
reproduces their ICRCs before writing anything:
  - a RoCEv2 CNP captured on a Mellanox ConnectX-4 Lx, published as a hex
    dump in Scapy's test suite (test/contrib/roce.uts, "RoCE CNP captured
    on ConnectX-4 Lx"): a real NIC's ICRC;
  - the UC SEND ONLY packet of the same file's "RoCE layer" test, whose
    ICRC Scapy's own implementation gives as 0x78f353f3;
  - packets Linux's rdma_rxe sent in a guest (RXE_CAPTURES, with a note
    on how they were captured).

Usage: gen_icrc_vectors.py [OUTPUT]   (default: icrc_vectors.h next to it)
The output is checked in; building the tests does not need Python.
"""

import ipaddress
import os
import struct
import sys
import zlib

UDP_PORT_ROCEV2 = 4791
IPPROTO_UDP = 17


def ipv4_checksum(hdr):
    total = 0
    for i in range(0, len(hdr), 2):
        total += (hdr[i] << 8) | hdr[i + 1]
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def ipv4(src, dst, l4_len, tos, ttl, ident, df=True):
    tot_len = 20 + l4_len
    flags_frag = 0x4000 if df else 0
    hdr = bytearray(struct.pack('!BBHHHBBH4s4s', 0x45, tos, tot_len, ident,
                                flags_frag, ttl, IPPROTO_UDP, 0,
                                ipaddress.IPv4Address(src).packed,
                                ipaddress.IPv4Address(dst).packed))
    struct.pack_into('!H', hdr, 10, ipv4_checksum(hdr))
    return bytes(hdr)


def ipv6(src, dst, l4_len, tclass, flow, hop):
    word0 = (6 << 28) | (tclass << 20) | flow
    return struct.pack('!IHBB16s16s', word0, l4_len, IPPROTO_UDP, hop,
                       ipaddress.IPv6Address(src).packed,
                       ipaddress.IPv6Address(dst).packed)


def udp(sport, length, csum=0):
    return struct.pack('!HHHH', sport, UDP_PORT_ROCEV2, length, csum)


def bth(opcode, qpn, psn, se=False, mig=False, pad=0, pkey=0xFFFF,
        fecn=False, becn=False, ackreq=False):
    flags = (se << 7) | (mig << 6) | (pad << 4)        # TVer 0
    word1 = (fecn << 31) | (becn << 30) | qpn
    word2 = (ackreq << 31) | psn
    return struct.pack('!BBHII', opcode, flags, pkey, word1, word2)


def reth(va, rkey, length):
    return struct.pack('!QII', va, rkey, length)


def aeth(syndrome, msn):
    return struct.pack('!I', (syndrome << 24) | msn)


def deth(qkey, src_qp):
    return struct.pack('!II', qkey, src_qp)


def atomic_eth(va, rkey, swap_add, compare):
    return struct.pack('!QIQQ', va, rkey, swap_add, compare)


def ib_packet(headers, payload):
    """IB transport packet: headers, payload, pad to 4; no ICRC."""
    pad = -len(payload) % 4
    return headers + payload + bytes(pad), pad


def masked_bits(pkt_len, version):
    """Per byte, the bits the ICRC does not cover (the mask of step 1)."""
    mask = bytearray(pkt_len)
    if version == 4:
        ip_len = 20
        mask[1] = 0xFF                  # TOS (DSCP + ECN)
        mask[8] = 0xFF                  # TTL
        mask[10] = mask[11] = 0xFF      # header checksum
    else:
        ip_len = 40
        mask[0] = 0x0F                  # traffic class, high nibble
        mask[1] = 0xFF                  # traffic class low, flow label high
        mask[2] = mask[3] = 0xFF        # flow label
        mask[7] = 0xFF                  # hop limit
    mask[ip_len + 6] = mask[ip_len + 7] = 0xFF      # UDP checksum
    mask[ip_len + 8 + 4] = 0xFF                     # BTH FECN/BECN/Resv6
    for i in range(pkt_len - 4, pkt_len):
        mask[i] = 0                     # the ICRC field is not an input
    return bytes(mask)


def icrc(pkt_without_icrc):
    version = pkt_without_icrc[0] >> 4
    mask = masked_bits(len(pkt_without_icrc) + 4, version)
    data = bytes(b | m for b, m in zip(pkt_without_icrc, mask))
    return struct.pack('<I', zlib.crc32(b'\xff' * 8 + data) & 0xFFFFFFFF)


def roce_v4(src, dst, tos, ttl, ident, sport, headers, payload, udp_csum=0):
    ibp, _ = ib_packet(headers, payload)
    l4_len = 8 + len(ibp) + 4
    pkt = ipv4(src, dst, l4_len, tos, ttl, ident) + \
        udp(sport, l4_len, udp_csum) + ibp
    return pkt + icrc(pkt)


def roce_v6(src, dst, tclass, flow, hop, sport, headers, payload,
            udp_csum=0):
    ibp, _ = ib_packet(headers, payload)
    l4_len = 8 + len(ibp) + 4
    pkt = ipv6(src, dst, l4_len, tclass, flow, hop) + \
        udp(sport, l4_len, udp_csum) + ibp
    return pkt + icrc(pkt)


# A RoCEv2 CNP captured on a ConnectX-4 Lx (Ethernet header dropped).
CX4_CNP = bytes.fromhex(
    '45c2003c718c400040119161'
    '0a0011010a001201'
    '000012b700280000'
    '8100ffff40000118'
    '0000000000000000000000000000000000000000'
    '82fd002a')


# Packets rdma_rxe sent, captured in a guest: Debian's 6.1 kernel
# (6.1.0-57-amd64), rdma_rxe on both guests of scripts/vm-pair.sh, with
#   SROCE_PAIR_FULL=1 SROCE_PAIR_CAPTURE=1 SROCE_PAIR_DRIVERS=rxe-rxe \
#   SROCE_PAIR_ONLY='rxe-client_rxe-server (rc_pingpong|read_bw|atomic_bw|
#     send_lat_rdmacm) ipv(4 mtu1500|6 mtu9000)' scripts/vm-pair.sh ...
#     --a selftests/pair/interop_matrix.sh --b selftests/pair/interop_matrix.sh
# (tcpdump on eth0 of guest A) and picked with pcap_pick.py: from the IP
# header to the ICRC, Ethernet header dropped.  Their ICRC is rdma_rxe's
# own; self_check() makes sure this script computes the same, and the unit
# test then checks sroce's ICRC code on them.
RXE_CAPTURES = [
    ('v4_rxe_read_req',
     'IPv4 RC RDMA READ REQUEST + RETH from rdma_rxe',
     '4500003c6870400040114e3dc0000201c0000202c14412b7002800000c00ffff'
     '00000012807f4dcf000055fc584170000000033b0001000071f0481a'),
    ('v4_rxe_ack',
     'IPv4 RC ACKNOWLEDGE + AETH from rdma_rxe',
     '450000305599400040116120c0000202c0000201c12112b7001c00001100ffff'
     '0000001100600cd31f000001cd24e4d6'),
    ('v4_rxe_fetch_add',
     'IPv4 RC FETCH ADD + AtomicETH from rdma_rxe',
     '450000487651400040114050c0000201c0000202c16912b7003400001400ffff'
     '00000013806e34ac00005612855940000000040a000000000000000100000000'
     '000000006a600124'),
    ('v4_rxe_atomic_ack',
     'IPv4 RC ATOMIC ACKNOWLEDGE + AtomicAckETH from rdma_rxe',
     '45000038603440004011567dc0000202c0000201c16912b7002400001200ffff'
     '00000013006e34ac1f0000010206307ae8bb71fe58fc388e'),
    ('v4_rxe_send_only',
     'IPv4 RC SEND ONLY, 8-byte payload, from rdma_rxe',
     '4500003c79ed400040113cc0c0000201c0000202cb9f12b7002800000400ffff'
     '0000001480709044362e3036000000000000000000000000d7f30935'),
    ('v4_rxe_ud_cm_mad',
     'IPv4 UD SEND ONLY + DETH to QP1 (CM MAD) from rdma_rxe',
     '4500013479da400040113bdbc0000201c0000202d87212b7012000006400ffff'
     '000000018000000080010000000000010107020300000000000000024fa76cb9'
     '0010000000000000b96ca74f000000000000000001064a3c505400fffe50000a'
     '00000000000000000000140000000000000000a0846aeea7ffff37f0ffffffff'
     '00000000000000000000ffffc000020100000000000000000000ffffc0000202'
     '84bbe00000400098000000000000000000000000000000000000000000000000'
     '00000000000000000000000000000000000000000040c63e0000000000000000'
     '00000000c0000201000000000000000000000000c00002020000000000000000'
     '0000000000000000000000000000000000000000000000000000000000000000'
     '00000000000000000000000000000000570b29ae'),
    ('v6_rxe_read_req',
     'IPv6 RC RDMA READ REQUEST + RETH from rdma_rxe',
     '600000000028114020010db800020000000000000000000120010db800020000'
     '0000000000000002c21112b7002800000c00ffff0000001780e1e410000055bf'
     '86b82000000008ff00010000c9ab480b'),
    ('v6_rxe_atomic_ack',
     'IPv6 RC ATOMIC ACKNOWLEDGE from rdma_rxe',
     '600000000024114020010db800020000000000000000000220010db800020000'
     '0000000000000001c24012b7002400001200ffff00000018001d195e1f000001'
     '7bac171d77615e21746cf939'),
]


def vectors():
    vecs = []

    # 1. IPv4 RC SEND ONLY, 13-byte payload (3 pad bytes), SE and AckReq,
    #    ECT(0) in the TOS byte.
    payload = b'Hello, RoCEv2'
    vecs.append(('v4_rc_send_only', 'IPv4 RC SEND ONLY, payload 13 + pad 3',
                 roce_v4('192.0.2.1', '192.0.2.2', tos=0x02, ttl=64,
                         ident=0x1c46, sport=0xc123,
                         headers=bth(0x04, qpn=0x000011, psn=0x123456,
                                     se=True, pad=3, ackreq=True),
                         payload=payload)))

    # 2. IPv4 RC RDMA WRITE ONLY with RETH, 6-byte payload (2 pad bytes),
    #    FECN set, PSN near the wrap.
    payload = bytes(range(0xa0, 0xa6))
    vecs.append(('v4_rc_write_only',
                 'IPv4 RC RDMA WRITE ONLY + RETH, payload 6 + pad 2, FECN',
                 roce_v4('198.51.100.7', '198.51.100.9', tos=0xb8, ttl=32,
                         ident=0xbeef, sport=0xd00d,
                         headers=bth(0x0a, qpn=0x00abcd, psn=0xfffffe,
                                     pad=2, fecn=True, ackreq=True) +
                         reth(0x00007f0012345678, 0xcafef00d, 6),
                         payload=payload)))

    # 3. IPv6 RC ACKNOWLEDGE, traffic class, flow label, a non-zero UDP
    #    checksum and BECN, all of which the ICRC ignores.
    vecs.append(('v6_rc_ack', 'IPv6 RC ACKNOWLEDGE + AETH, TC/flow/BECN',
                 roce_v6('2001:db8::1', '2001:db8::2', tclass=0x68,
                         flow=0x12345, hop=64, sport=0xe3a1, udp_csum=0x5a5a,
                         headers=bth(0x11, qpn=0x000102, psn=0x000000,
                                     becn=True) +
                         aeth(0x1f, 0x00abcd),
                         payload=b'')))

    # 4. IPv6 UD SEND ONLY WITH IMMEDIATE to the GSI QP: DETH + ImmDt.
    payload = bytes((7 * i + 3) & 0xff for i in range(40))
    vecs.append(('v6_ud_send_imm', 'IPv6 UD SEND ONLY IMM + DETH + ImmDt',
                 roce_v6('fe80::5054:ff:fe12:3456', 'fe80::5054:ff:fe65:4321',
                         tclass=0, flow=0, hop=255, sport=0xc001,
                         headers=bth(0x65, qpn=0x000001, psn=0x000042) +
                         deth(0x80010000, 0x000001) +
                         struct.pack('!I', 0xdeadbeef),
                         payload=payload)))

    # 5. IPv4 RC COMPARE SWAP: AtomicETH, no payload.
    vecs.append(('v4_rc_cmp_swap', 'IPv4 RC COMPARE SWAP + AtomicETH',
                 roce_v4('10.0.0.1', '10.0.0.2', tos=0, ttl=64, ident=1,
                         sport=0xc0de,
                         headers=bth(0x13, qpn=0x00beef, psn=0x800000,
                                     ackreq=True) +
                         atomic_eth(0x1000, 0x11223344, 0x0102030405060708,
                                    0x1112131415161718),
                         payload=b'')))

    # 6. IPv4 RC READ RESPONSE FIRST: AETH and a full 1024-byte payload.
    payload = bytes((i * 31 + 17) & 0xff for i in range(1024))
    vecs.append(('v4_rc_read_resp_first',
                 'IPv4 RC READ RESPONSE FIRST + AETH, payload 1024',
                 roce_v4('10.0.0.2', '10.0.0.1', tos=0x03, ttl=1, ident=2,
                         sport=0xc0de,
                         headers=bth(0x0d, qpn=0x00cafe, psn=0x7fffff) +
                         aeth(0x1f, 0x000007),
                         payload=payload)))

    # 7. Real hardware: ConnectX-4 Lx CNP (TOS 0xc2, BECN set).
    vecs.append(('v4_cx4_cnp', 'IPv4 CNP captured on ConnectX-4 Lx',
                 CX4_CNP))

    # 8. Scapy's example UC SEND ONLY (MigReq set, UDP checksum filled in).
    vecs.append(('v4_uc_send_only_mig', 'IPv4 UC SEND ONLY, MigReq (Scapy)',
                 scapy_uc_send_only()))

    # 9.. Real rdma_rxe packets.
    for name, desc, hexbytes in RXE_CAPTURES:
        vecs.append((name, desc, bytes.fromhex(hexbytes)))
    return vecs


def scapy_uc_send_only():
    """The UC packet of Scapy's "RoCE layer" test, whose ICRC Scapy's
    test expects to be 0x78f353f3 (and IP checksum 0xb4d5)."""
    payload = (b'F0\x81\x8b\xe2\x895\xd9\x0e\x9a\x95PT\x01\xbe\x88^P'
               b'\x00\x00')
    return roce_v4('192.168.0.7', '192.168.0.7', tos=0x01, ttl=64,
                   ident=1144, sport=49152, udp_csum=0xaca2,
                   headers=bth(0x24, qpn=211, psn=13571856, mig=True,
                               pad=2),
                   payload=payload[:18])


def self_check():
    seed = ~zlib.crc32(b'\xff' * 8) & 0xFFFFFFFF
    assert seed == 0xdebb20e3, hex(seed)
    assert icrc(CX4_CNP[:-4]) == CX4_CNP[-4:], 'CNP capture ICRC mismatch'
    uc = scapy_uc_send_only()
    assert uc[10:12] == bytes.fromhex('b4d5'), 'Scapy UC IP checksum'
    assert uc[-4:] == bytes.fromhex('78f353f3'), 'Scapy UC ICRC mismatch'
    for name, _, hexbytes in RXE_CAPTURES:
        pkt = bytes.fromhex(hexbytes)
        assert icrc(pkt[:-4]) == pkt[-4:], 'rdma_rxe capture %s ICRC' % name


def c_bytes(data, indent='\t'):
    lines = []
    for i in range(0, len(data), 12):
        chunk = data[i:i + 12]
        lines.append(indent + ' '.join('0x%02x,' % b for b in chunk))
    return '\n'.join(lines)


def emit(vecs):
    out = []
    out.append('/* SPDX-License-Identifier: GPL-2.0 */')
    out.append('/*')
    out.append(' * RoCEv2 ICRC known-answer vectors.')
    out.append(' *')
    out.append(' * Generated by selftests/unit/gen_icrc_vectors.py '
               '(Python zlib, no sroce code).')
    out.append(' * Do not edit; re-run the script instead.')
    out.append(' *')
    out.append(' * Each packet runs from the first byte of the IP header to '
               'the last byte of')
    out.append(' * the ICRC field; the mask gives, per byte, the bits the '
               'ICRC does not cover.')
    out.append(' */')
    out.append('#ifndef ICRC_VECTORS_H')
    out.append('#define ICRC_VECTORS_H')
    out.append('')
    out.append('struct icrc_vector {')
    out.append('\tconst char *name;')
    out.append('\tconst char *desc;')
    out.append('\tconst unsigned char *pkt;')
    out.append('\tconst unsigned char *mask;')
    out.append('\tunsigned int len;')
    out.append('};')
    for name, _, pkt in vecs:
        mask = masked_bits(len(pkt), pkt[0] >> 4)
        out.append('')
        out.append('/* ICRC on the wire: %s */' % pkt[-4:].hex(' '))
        out.append('static const unsigned char icrc_vec_%s[%d] = {'
                   % (name, len(pkt)))
        out.append(c_bytes(pkt))
        out.append('};')
        out.append('')
        out.append('static const unsigned char icrc_mask_%s[%d] = {'
                   % (name, len(pkt)))
        out.append(c_bytes(mask))
        out.append('};')
    out.append('')
    out.append('static const struct icrc_vector icrc_vectors[] = {')
    for name, desc, pkt in vecs:
        out.append('\t{ "%s", "%s",' % (name, desc))
        out.append('\t  icrc_vec_%s, icrc_mask_%s, %d },'
                   % (name, name, len(pkt)))
    out.append('};')
    out.append('')
    out.append('#define ICRC_NUM_VECTORS %d' % len(vecs))
    out.append('')
    out.append('#endif /* ICRC_VECTORS_H */')
    return '\n'.join(out) + '\n'


def main():
    self_check()
    here = os.path.dirname(os.path.abspath(__file__))
    path = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(here, 'icrc_vectors.h')
    with open(path, 'w') as f:
        f.write(emit(vectors()))


if __name__ == '__main__':
    main()
