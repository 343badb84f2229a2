#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""List the RoCEv2 packets of a pcap (Ethernet link type, as tcpdump -w
writes on a guest's eth0), one per line: index, source, BTH opcode, length
from the IP header to the ICRC, and the bytes in hex.  Used to pick the
rdma_rxe packets kept as ICRC known-answer vectors in
gen_icrc_vectors.py (RXE_CAPTURES); see the note there.

Usage: pcap_pick.py FILE.pcap [MAXLEN]   (default MAXLEN 200 bytes)
Packets cut short by the capture's snap length are left out.
"""

import struct
import sys


def packets(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack_from('<I', data, 0)[0]
    endian = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    linktype = struct.unpack_from(endian + 'I', data, 20)[0]
    if linktype != 1:
        sys.exit('pcap_pick: link type %d, want Ethernet (1)' % linktype)
    off = 24
    while off + 16 <= len(data):
        _, _, incl, orig = struct.unpack_from(endian + 'IIII', data, off)
        off += 16
        frame = data[off:off + incl]
        off += incl
        if incl == orig:
            yield frame


def roce(frame):
    """(ip_packet, src) of a RoCEv2 frame, or None."""
    etype = struct.unpack_from('!H', frame, 12)[0]
    ip = frame[14:]
    if etype == 0x0800 and ip[9] == 17:
        ihl = (ip[0] & 15) * 4
        total = struct.unpack_from('!H', ip, 2)[0]
        udp = ip[ihl:]
        src = '.'.join(str(b) for b in ip[12:16])
    elif etype == 0x86dd and ip[6] == 17:
        total = 40 + struct.unpack_from('!H', ip, 4)[0]
        udp = ip[40:]
        src = ip[8:24].hex()
    else:
        return None
    if struct.unpack_from('!H', udp, 2)[0] != 4791:
        return None
    return ip[:total], src


def main():
    maxlen = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    for i, frame in enumerate(packets(sys.argv[1])):
        r = roce(frame)
        if not r or len(r[0]) > maxlen:
            continue
        pkt, src = r
        hl = 20 if pkt[0] >> 4 == 4 else 40
        opcode = pkt[hl + 8]
        print('%d %s op=0x%02x len=%d %s' % (i, src, opcode, len(pkt),
                                             pkt.hex()))


if __name__ == '__main__':
    main()
