#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send hand-made RoCEv2 packets to a local sroce device over IPv6.

Over IPv6 every header field the ICRC covers is known in advance (there is
no IP ID), so a valid ICRC can be computed here, independently of sroce's
own code: CRC-32 over 8 bytes of 0xff, the IPv6 header with traffic class,
flow label and hop limit set to ones, the UDP header with its checksum set
to ones, the BTH with byte 4 set to ones, then the rest of the packet.

Usage: roce_inject.py SRC DST KIND COUNT   (KIND: see PACKETS below)
SRC is a local IPv6 address to send from, DST the sroce device's.
"""
import socket
import struct
import sys
import zlib

ROCE_PORT = 4791


def bth(opcode, qpn, psn, pad=0, pkey=0xffff):
    return struct.pack(">BBHII", opcode, pad << 4, pkey, qpn & 0xffffff,
                       psn & 0xffffff)


def icrc(src, dst, sport, roce):
    """ICRC of a packet whose UDP payload is roce + 4 ICRC bytes."""
    udp_len = 8 + len(roce) + 4
    ip6 = struct.pack(">IHBB", 0x6fffffff, udp_len, 17, 0xff) + src + dst
    udp = struct.pack(">HHHH", sport, ROCE_PORT, udp_len, 0xffff)
    masked_bth = roce[:4] + b"\xff" + roce[5:12]
    data = b"\xff" * 8 + ip6 + udp + masked_bth + roce[12:]
    return struct.pack("<I", zlib.crc32(data) & 0xffffffff)


def send_only(qpn, payload=b"x" * 32, opcode=0x04):
    pad = (-len(payload)) & 3
    return bth(opcode, qpn, 0, pad) + payload + b"\0" * pad


# Each builder returns (roce bytes without ICRC, whether to append a good ICRC).
PACKETS = {
    "runt": lambda: (b"\x04\x00\xff", False),
    "bad_opcode": lambda: (bth(0x1f, 0x11, 0) + b"\0" * 32, True),
    "bad_icrc": lambda: (send_only(0x11) + b"\xde\xad\xbe\xef", False),
    "unknown_qpn": lambda: (send_only(0xabcde), True),
    "bad_pad": lambda: (bth(0x04, 0x11, 0, pad=3)[:12], True),
    "gsi_wrong_type": lambda: (send_only(1), True),
    "bad_tver": lambda: (struct.pack(">BBHII", 0x04, 0x01, 0xffff, 0x11, 0)
                         + b"\0" * 32, True),
}


def main():
    saddr, daddr, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    count = int(sys.argv[4])
    sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    sock.bind((saddr, 0))
    src = socket.inet_pton(socket.AF_INET6, saddr)
    dst = socket.inet_pton(socket.AF_INET6, daddr)
    sport = sock.getsockname()[1]
    roce, good = PACKETS[kind]()
    if good:
        roce += icrc(src, dst, sport, roce)
    for _ in range(count):
        sock.sendto(roce, (daddr, ROCE_PORT))


if __name__ == "__main__":
    main()
