#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in passt guest that sends hand-made IPv4 frames.

Usage: rawguest.py SOCKET PROTO:DST:PORT [PROTO:DST:PORT...]

Connects to passt's UNIX socket and sends, for each argument, one frame
from the guest's address (framing.GUEST, port 40000 + its index): PROTO
is "tcp" (a SYN) or "udp" (a datagram of 8 bytes), DST an IPv4 address.
Then waits half a second for passt to act and exits 0.
"""

import socket
import struct
import sys
import time

import framing
from framing import csum


def ip4(proto, src, dst, l4):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 0, 0x4000,
                      64, proto, 0, src, dst)
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return hdr + l4


def l4(proto, src, dst, sport, dport):
    pseudo = src + dst + struct.pack("!BBH", 0, proto, 0)
    if proto == socket.IPPROTO_TCP:
        seg = struct.pack("!HHIIBBHHH", sport, dport, 1000, 0, 5 << 4, 0x02,
                          65535, 0, 0)
        off = 16
    else:
        seg = struct.pack("!HHHH", sport, dport, 16, 0) + b"rawguest"
        off = 6
    pseudo = pseudo[:10] + struct.pack("!H", len(seg))
    c = csum(pseudo + seg) or 0xffff
    return seg[:off] + struct.pack("!H", c) + seg[off + 2:]


def frame(proto, dst, port, sport):
    src = socket.inet_aton(framing.GUEST)
    dst = socket.inet_aton(dst)
    pkt = ip4(proto, src, dst, l4(proto, src, dst, sport, port))
    eth = b"\x02\x70\x61\x73\x74\x61" + framing.MAC + b"\x08\x00"
    return struct.pack("!I", len(eth) + len(pkt)) + eth + pkt


def main():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(sys.argv[1])
    for i, spec in enumerate(sys.argv[2:]):
        proto, dst, port = spec.split(":")
        p = socket.IPPROTO_TCP if proto == "tcp" else socket.IPPROTO_UDP
        s.sendall(frame(p, dst, int(port), 40000 + i))
    time.sleep(0.5)
    s.close()


if __name__ == "__main__":
    main()
