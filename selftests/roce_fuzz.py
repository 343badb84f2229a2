#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""RoCEv2 packet fuzzer: hostile packets at the QPs and MRs of a live device.

Usage: roce_fuzz.py SRC DST MAPFILE COUNT SEED

MAPFILE is what sroce_fuzz_target wrote: its QPs (type, state, QPN, the
PSN it expects first, SRQ or not), its MRs (kind, rkey, address, length)
and the UD qkey.  Packets go from SRC to DST over IPv6 UDP port 4791; the
ICRC is computed here (roce_inject.icrc), independently of the device.

Each packet is one of: a well-formed-looking request for a target QP's
type with fields chosen at and around every boundary (PSN inside, behind
and beyond the window; RETH/ATMETH addresses at MR starts and ends, one
byte outside, wrapping past 2^64; lengths 0, 1, MTU +/- 1, the MR length
+/- 1, 2^31, 2^32 - 1; valid, stale, read-only, foreign and random rkeys;
good and bad qkeys; payloads of any length with right and wrong pad
counts), a response opcode the target never asked for, any of the 256
opcodes with random bytes after the BTH, or a runt; and then, for some,
a truncation, a wrong ICRC, a nonzero transport version or a foreign
P_Key.  Printed at the end: packets sent, by kind.
"""
import random
import socket
import struct
import sys

from roce_inject import ROCE_PORT, icrc

MTU = 1024

# RC/UC opcode (low 5 bits) -> extended headers after the BTH
RETH, AETH, ATMETH, ATMACK, DETH, IMMDT, IETH = range(7)
EXT_LEN = {RETH: 16, AETH: 4, ATMETH: 28, ATMACK: 8, DETH: 8, IMMDT: 4,
           IETH: 4}
RC_OPS = {
    0x00: [], 0x01: [], 0x02: [], 0x03: [IMMDT], 0x04: [], 0x05: [IMMDT],
    0x06: [RETH], 0x07: [], 0x08: [], 0x09: [IMMDT], 0x0a: [RETH],
    0x0b: [RETH, IMMDT], 0x0c: [RETH], 0x0d: [AETH], 0x0e: [],
    0x0f: [AETH], 0x10: [AETH], 0x11: [AETH], 0x12: [AETH, ATMACK],
    0x13: [ATMETH], 0x14: [ATMETH], 0x16: [IETH], 0x17: [IETH],
    0x1d: [RETH],
}
UC_OPS = [0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09,
          0x0a, 0x0b]
REQUESTS = [op for op in RC_OPS if op not in range(0x0d, 0x13)]
RESPONSES = list(range(0x0d, 0x13))


class Target:
    def __init__(self, path):
        self.qps, self.mrs, self.qkey = [], [], 0
        for line in open(path):
            f = line.split()
            if f[0] == "qp":
                self.qps.append({"type": f[1], "state": f[2],
                                 "qpn": int(f[3]), "psn": int(f[4]),
                                 "srq": f[5] == "1"})
            elif f[0] == "mr":
                self.mrs.append({"kind": f[1], "rkey": int(f[2], 16),
                                 "va": int(f[3], 16), "len": int(f[4])})
            elif f[0] == "qkey":
                self.qkey = int(f[1], 16)


class Fuzzer:
    def __init__(self, target, seed):
        self.t = target
        self.r = random.Random(seed)
        self.kinds = {}

    def count(self, kind):
        self.kinds[kind] = self.kinds.get(kind, 0) + 1

    def psn(self, qp):
        r, base = self.r.random(), qp["psn"]
        if r < 0.4:
            return base + self.r.randrange(0, 64)     # around the start
        if r < 0.6:
            return base - self.r.randrange(1, 2048)   # behind: duplicates
        if r < 0.8:
            return base + self.r.choice([1 << 22, (1 << 23) - 1, 1 << 23,
                                         (1 << 23) + 1])
        return self.r.getrandbits(24)

    def rkey(self):
        r = self.r.random()
        mrs = self.t.mrs
        if r < 0.6:
            return self.r.choice([m for m in mrs if m["kind"] == "rw"])["rkey"]
        if r < 0.7:
            return self.r.choice(mrs)["rkey"]          # ro / stale included
        if r < 0.8:
            return self.r.choice(mrs)["rkey"] ^ self.r.choice([1, 0x80, 0x100])
        return self.r.getrandbits(32)

    def addr_len(self, rkey):
        mr = next((m for m in self.t.mrs if m["rkey"] == rkey),
                  self.r.choice(self.t.mrs))
        va, n = mr["va"], mr["len"]
        ln = self.r.choice([0, 1, 7, 8, MTU - 1, MTU, MTU + 1, 2 * MTU,
                            n - 1, n, n + 1, 1 << 31, (1 << 32) - 1,
                            self.r.randrange(0, 3 * MTU)])
        a = self.r.choice([va, va + n - 1, va + n, va - 1, va + n - ln,
                           va + n - ln + 1, va + self.r.randrange(0, n),
                           (1 << 64) - 1, (1 << 64) - 16, 0,
                           self.r.getrandbits(64)])
        return a & ((1 << 64) - 1), ln & 0xffffffff

    def ext(self, kind, opcode):
        if kind == RETH:
            rkey = self.rkey()
            va, ln = self.addr_len(rkey)
            return struct.pack(">QII", va, rkey, ln)
        if kind == ATMETH:
            rkey = self.rkey()
            va, _ = self.addr_len(rkey)
            if self.r.random() < 0.6:
                va &= ~7
            return struct.pack(">QIQQ", va, rkey, self.r.getrandbits(64),
                               self.r.getrandbits(64))
        if kind == AETH:
            return struct.pack(">I", self.r.getrandbits(32))
        if kind == ATMACK:
            return struct.pack(">Q", self.r.getrandbits(64))
        if kind == DETH:
            qkey = self.t.qkey if self.r.random() < 0.7 else self.r.getrandbits(32)
            return struct.pack(">II", qkey, self.r.getrandbits(24))
        if kind == IETH:
            return struct.pack(">I", self.rkey())
        return struct.pack(">I", self.r.getrandbits(32))        # IMMDT

    def payload_len(self, opcode):
        if opcode & 0x1f == 0x1d:                                # ATOMIC_WRITE
            return self.r.choice([8, 8, 8, 0, 4, 16])
        return self.r.choice([0, 1, 3, 4, MTU - 1, MTU, MTU, MTU + 1,
                              MTU + 64, self.r.randrange(0, MTU + 1)])

    def bth(self, opcode, qpn, psn, pad, ackreq=None):
        flags = (pad & 3) << 4
        if self.r.random() < 0.03:
            flags |= self.r.randrange(1, 16)                     # TVer != 0
        if self.r.random() < 0.1:
            flags |= 0x80                                        # SE
        pkey = 0xffff if self.r.random() < 0.97 else self.r.getrandbits(16)
        ack = self.r.random() < 0.5 if ackreq is None else ackreq
        return struct.pack(">BBHII", opcode, flags, pkey, qpn & 0xffffff,
                           (ack << 31) | (psn & 0xffffff))

    def structured(self):
        qp = self.r.choice(self.t.qps)
        if qp["type"] == "ud":
            opcode = self.r.choice([0x64, 0x65, 0x64, 0x04])
            exts = [DETH] + ([IMMDT] if opcode == 0x65 else [])
            self.count("ud")
        elif self.r.random() < 0.1:
            opcode = self.r.choice(RESPONSES)
            exts = RC_OPS[opcode]
            self.count("unsolicited response")
        else:
            base = 0x00 if qp["type"] == "rc" else 0x20
            op5 = self.r.choice(REQUESTS if base == 0 else UC_OPS)
            opcode, exts = base | op5, RC_OPS[op5]
            self.count(qp["type"] + " request")
        n = self.payload_len(opcode)
        pad = (-n) & 3
        if self.r.random() < 0.15:
            pad = self.r.randrange(4)
        body = b"".join(self.ext(e, opcode) for e in exts)
        return (self.bth(opcode, qp["qpn"], self.psn(qp), pad) + body +
                self.r.randbytes(n) + b"\0" * pad)

    def raw(self):
        self.count("random opcode")
        qpn = self.r.choice([q["qpn"] for q in self.t.qps] +
                            [1, 0, 0xffffff, self.r.getrandbits(24)])
        return (self.bth(self.r.getrandbits(8), qpn, self.r.getrandbits(24),
                         self.r.randrange(4)) +
                self.r.randbytes(self.r.randrange(0, 80)))

    def packet(self, src, dst, sport):
        r = self.r.random()
        if r < 0.02:
            self.count("runt")
            return self.r.randbytes(self.r.randrange(0, 16))
        roce = self.raw() if r < 0.15 else self.structured()
        if self.r.random() < 0.05:
            self.count("truncated")
            roce = roce[:self.r.randrange(0, len(roce) + 1)]
        if self.r.random() < 0.05:
            self.count("bad icrc")
            return roce + self.r.randbytes(4)
        return roce + icrc(src, dst, sport, roce)


def main():
    saddr, daddr, mapfile = sys.argv[1], sys.argv[2], sys.argv[3]
    count, seed = int(sys.argv[4]), int(sys.argv[5], 0)
    sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
    sock.bind((saddr, 0))
    src = socket.inet_pton(socket.AF_INET6, saddr)
    dst = socket.inet_pton(socket.AF_INET6, daddr)
    sport = sock.getsockname()[1]
    fz = Fuzzer(Target(mapfile), seed)
    sent = 0
    for _ in range(count):
        sock.sendto(fz.packet(src, dst, sport), (daddr, ROCE_PORT))
        sent += 1
    print("sent %d packets (seed %#x): %s" % (sent, seed, ", ".join(
        "%s %d" % kv for kv in sorted(fz.kinds.items()))))


if __name__ == "__main__":
    main()
