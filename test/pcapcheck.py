#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/pcapcheck.py - check the L4 checksums of captured frames.

Reads a pcap file (Ethernet link type) and verifies the TCP and UDP
checksum of every IPv4 frame whose source address is SRC: the frames that
pasta built for its guest. Prints "checked N bad M" and exits 0 only if
at least one frame was checked and none was bad.

Usage: pcapcheck.py FILE SRC
"""

import socket
import struct
import sys


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def l4_ok(ip):
    ihl = (ip[0] & 0xF) * 4
    tot = struct.unpack("!H", ip[2:4])[0]
    proto = ip[9]
    l4 = ip[ihl:tot]
    pseudo = ip[12:20] + struct.pack("!BBH", 0, proto, len(l4))
    if proto == socket.IPPROTO_UDP and l4[6:8] == b"\0\0":
        return False  # no checksum at all: not what we promise
    return csum(pseudo + l4) == 0xFFFF


def main():
    path, src = sys.argv[1], socket.inet_aton(sys.argv[2])
    checked = bad = 0
    with open(path, "rb") as f:
        magic = f.read(24)[:4]
        if magic != struct.pack("<I", 0xA1B2C3D4):
            print("not a little-endian pcap file")
            return 1
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                break
            caplen = struct.unpack("<IIII", rec)[2]
            frame = f.read(caplen)
            ip = frame[14:]
            if (frame[12:14] != b"\x08\x00" or len(ip) < 20
                    or ip[12:16] != src
                    or ip[9] not in (socket.IPPROTO_TCP, socket.IPPROTO_UDP)):
                continue
            checked += 1
            bad += not l4_ok(ip)
    print("checked %d bad %d" % (checked, bad))
    return 0 if checked and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
