#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/synflood.py - a SYN flood from inside pasta's namespace.

Usage: synflood.py SRC DST PORT COUNT [FIRST_SPORT [RATE]]

Sends COUNT TCP SYNs from SRC to DST:PORT (IPv4), each from its own source
port (FIRST_SPORT, default 10000, upwards, wrapping below 65536), RATE a
second (default 20000; 0: as fast as the socket takes them, and the
namespace's tap queue, 500 frames, drops most of them), through a
raw socket with our own IP header (IP_HDRINCL): no connection exists in the
namespace's kernel. With SRC the namespace's own address, its kernel answers
pasta's SYN-ACK with a reset; with an address of the subnet it does not
own, the SYN-ACK is dropped unanswered. Needs CAP_NET_RAW. Prints the
number of SYNs sent and the seconds it took.
"""

import socket
import struct
import sys
import time

from framing import csum


def syn(src, dst, sport, dport):
    """An IPv4 packet with a TCP SYN (MSS option), checksums filled in."""
    tcp = struct.pack("!HHIIBBHHH", sport, dport, sport * 7919, 0, 6 << 4,
                      0x02, 64240, 0, 0) + struct.pack("!BBH", 2, 4, 1460)
    pseudo = src + dst + struct.pack("!BBH", 0, socket.IPPROTO_TCP, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", csum(pseudo + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0x4000, 64,
                     socket.IPPROTO_TCP, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return ip + tcp


def main():
    src, dst = socket.inet_aton(sys.argv[1]), socket.inet_aton(sys.argv[2])
    dport, count = int(sys.argv[3]), int(sys.argv[4])
    first = int(sys.argv[5]) if len(sys.argv) > 5 else 10000
    rate = int(sys.argv[6]) if len(sys.argv) > 6 else 20000
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    to = (sys.argv[2], 0)
    sent, t0 = 0, time.monotonic()
    for i in range(count):
        if rate and i % 50 == 0:	# in bursts of 50, on schedule
            late = t0 + i / rate - time.monotonic()
            if late > 0:
                time.sleep(late)
        sport = 1024 + (first - 1024 + i) % (65536 - 1024)
        pkt = syn(src, dst, sport, dport)
        for _ in range(100):	# a full socket buffer: let the tap drain
            try:
                s.sendto(pkt, to)
                sent += 1
                break
            except (BlockingIOError, OSError):
                time.sleep(0.001)
    print(sent, "%.2f" % (time.monotonic() - t0))


if __name__ == "__main__":
    main()
