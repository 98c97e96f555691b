#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/framing.py - a stand-in guest for passt's stream socket.

Checks the 32-bit big-endian length framing from the guest's side: an ARP
request split across two writes, two frames in one write, a second client
refused while the first is attached, and a zero length prefix that makes
passt drop the connection. Prints one line per check, "0 description" for
a pass, "1 description" for a failure: the caller turns them into TAP.

Usage: framing.py SOCKET_PATH
"""

import socket
import struct
import sys
import time

MAC = bytes.fromhex("020000000007")
GUEST = "203.0.113.1"
GW = "203.0.113.2"


def csum(data):
    """The Internet checksum (RFC 1071) of data."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def arp_request(target):
    body = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1)
    body += MAC + socket.inet_aton(GUEST) + b"\0" * 6 + socket.inet_aton(target)
    frame = b"\xff" * 6 + MAC + b"\x08\x06" + body
    return struct.pack("!I", len(frame)) + frame


def read_frame(s):
    hdr = s.recv(4, socket.MSG_WAITALL)
    if len(hdr) < 4:
        return None
    (n,) = struct.unpack("!I", hdr)
    return s.recv(n, socket.MSG_WAITALL)


def is_arp_reply(f, target):
    return (f is not None and len(f) >= 42 and f[12:14] == b"\x08\x06"
            and f[20:22] == b"\x00\x02" and f[28:32] == socket.inet_aton(target))


def main():
    path = sys.argv[1]

    def ok(cond, desc):
        print("%d %s" % (0 if cond else 1, desc), flush=True)

    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    msg = arp_request(GW)
    s.sendall(msg[:7])
    time.sleep(0.2)
    s.sendall(msg[7:])
    ok(is_arp_reply(read_frame(s), GW), "a frame split across two writes is answered")

    s.sendall(arp_request(GW) + arp_request("203.0.113.9"))
    ok(is_arp_reply(read_frame(s), GW) and is_arp_reply(read_frame(s), "203.0.113.9"),
       "two frames in one write are both answered")

    s2 = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s2.settimeout(5)
    s2.connect(path)
    try:
        refused = s2.recv(1) == b""
    except OSError:
        refused = True
    ok(refused, "a second concurrent guest is refused")
    s2.close()

    s.sendall(arp_request(GW))
    ok(is_arp_reply(read_frame(s), GW), "the first guest is still served")

    s.sendall(struct.pack("!I", 0))
    try:
        dropped = s.recv(1) == b""
    except OSError:
        dropped = True
    ok(dropped, "a zero length prefix drops the guest's connection")
    s.close()


if __name__ == "__main__":
    main()
