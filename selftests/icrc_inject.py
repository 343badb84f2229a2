#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send RC SEND ONLY packets of chosen payload sizes to an unknown QPN.

Each size in turn, COUNT packets of it, with random payload bytes and an
ICRC computed here by roce_inject.icrc() (Python's zlib, none of sroce's
code); with "bad" the ICRC's last byte is flipped. A device whose ICRC
computation is right drops the good ones as unknown QPN and the bad ones
for their ICRC; sizes from a few bytes to a full 1500-byte frame reach
both the byte loop and the folding of a PCLMULQDQ implementation.

Usage: icrc_inject.py SRC DST good|bad COUNT SIZE...
SRC is a local IPv6 address to send from, DST the sroce device's.
"""
import os
import socket
import sys

from roce_inject import ROCE_PORT, icrc, send_only

UNKNOWN_QPN = 0xabcde


def main():
    saddr, daddr, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    count, sizes = int(sys.argv[4]), [int(s) for s in sys.argv[5:]]
    sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    sock.bind((saddr, 0))
    src = socket.inet_pton(socket.AF_INET6, saddr)
    dst = socket.inet_pton(socket.AF_INET6, daddr)
    sport = sock.getsockname()[1]
    for size in sizes:
        for _ in range(count):
            roce = send_only(UNKNOWN_QPN, os.urandom(size))
            crc = icrc(src, dst, sport, roce)
            if kind == "bad":
                crc = crc[:3] + bytes([crc[3] ^ 0x80])
            sock.sendto(roce + crc, (daddr, ROCE_PORT))


if __name__ == "__main__":
    main()
