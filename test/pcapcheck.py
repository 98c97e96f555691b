#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/pcapcheck.py - check the L4 checksums of captured frames.

Reads a pcap file (Ethernet link type) and verifies the TCP and UDP
checksum (and for IPv6 the ICMPv6 one) of every IPv4 or IPv6 frame whose
source address is SRC: the frames that pasta built for its guest. With
MAXLEN, every frame of that IP version, either way, must also be at most
MAXLEN bytes long: large frames of the tap's segmentation offload must be
captured as the segments they stand for. Prints "checked N bad M long L"
and exits 0 only if at least one frame was checked and none was bad or
too long.

Usage: pcapcheck.py FILE SRC [MAXLEN]
"""

import socket
import struct
import sys

L4 = (socket.IPPROTO_TCP, socket.IPPROTO_UDP)


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def l4_ok(proto, pseudo, l4):
    if proto == socket.IPPROTO_UDP and l4[6:8] == b"\0\0":
        return False  # no checksum at all: not what we promise
    return csum(pseudo + l4) == 0xFFFF


def ip4_l4(ip, src):
    """(proto, pseudo-header, L4) of an IPv4 packet from src, or None"""
    if len(ip) < 20 or ip[12:16] != src or ip[9] not in L4:
        return None
    ihl = (ip[0] & 0xF) * 4
    tot = struct.unpack("!H", ip[2:4])[0]
    l4 = ip[ihl:tot]
    return ip[9], ip[12:20] + struct.pack("!BBH", 0, ip[9], len(l4)), l4


def ip6_l4(ip, src):
    """The same for IPv6 (ours carry no extension headers)"""
    if len(ip) < 40 or ip[8:24] != src or \
       ip[6] not in L4 + (socket.IPPROTO_ICMPV6,):
        return None
    plen = struct.unpack("!H", ip[4:6])[0]
    l4 = ip[40:40 + plen]
    return ip[6], ip[8:40] + struct.pack("!IxxxB", len(l4), ip[6]), l4


def main():
    path, src = sys.argv[1], sys.argv[2]
    maxlen = int(sys.argv[3]) if len(sys.argv) > 3 else None
    v6 = ":" in src
    src = socket.inet_pton(socket.AF_INET6 if v6 else socket.AF_INET, src)
    ethertype, parse = (b"\x86\xdd", ip6_l4) if v6 else (b"\x08\x00", ip4_l4)
    checked = bad = long = 0
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
            if maxlen and frame[12:14] == ethertype and caplen > maxlen:
                long += 1
            found = frame[12:14] == ethertype and parse(frame[14:], src)
            if not found:
                continue
            checked += 1
            bad += not l4_ok(*found)
    print("checked %d bad %d long %d" % (checked, bad, long))
    return 0 if checked and not bad and not long else 1


if __name__ == "__main__":
    sys.exit(main())
