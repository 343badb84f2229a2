#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# qemu-monitor.py SOCKET COMMAND...: run human-monitor COMMANDs on a live
# guest's QEMU (scripts/vm-lib.sh gives every guest one on
# DIR/monitor.sock) and print their output; this machine has no socat.
#   scripts/qemu-monitor.py /tmp/soak/b/monitor.sock "info virtio" \
#	"info virtio-queue-status /machine/peripheral-anon/device[4]/virtio-backend 1"
import re
import socket
import sys

PROMPT = b'(qemu) '


def read_reply(sock):
    out = b''
    while not out.endswith(PROMPT):
        data = sock.recv(65536)
        if not data:
            break
        out += data
    text = out.decode(errors='replace')[:-len(PROMPT)]
    # The monitor echoes each command with cursor escapes; drop the echo.
    return re.sub(r'^.*\x1b\[K', '', text, flags=re.S).lstrip('\r\n')


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: qemu-monitor.py SOCKET COMMAND...')
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(10)
        sock.connect(sys.argv[1])
        read_reply(sock)			# the greeting
        for cmd in sys.argv[2:]:
            sock.sendall(cmd.encode() + b'\n')
            print(read_reply(sock), end='')


if __name__ == '__main__':
    main()
