#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/hostile.py - malformed frames of every kind, from inside pasta's
namespace, straight onto its tap device.

Usage: hostile.py IFNAME COUNT [SEED]

Builds one template per category (test/fuzz/seeds.py's real-shaped frames
broken in a known way: truncated headers, wrong lengths, bad checksums,
flags and options, fragments, extension header chains, addresses the
guest may not use, port 0, malformed DHCP, DHCPv6 and NDP), then sends
COUNT frames through an AF_PACKET socket on IFNAME, round-robin over the
categories, each with a few random bytes in its payload so that no two are
alike. None of them may open a flow. Prints the number of categories, of
frames sent, and of those the tap device itself dropped (its queue full:
pasta never saw them).
"""

import os
import random
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "fuzz"))
import seeds  # noqa: E402


def patch(f, off, data):
    return f[:off] + data + f[off + len(data):]


def ip4_bad(f, **kw):
    """Rewrite IPv4 header fields of a frame, then its checksum."""
    ih = bytearray(f[14:34])
    for k, v in kw.items():
        off, fmt = {"ihl": (0, "!B"), "tot": (2, "!H"), "frag": (6, "!H"),
                    "proto": (9, "!B"), "src": (12, "4s"),
                    "dst": (16, "4s")}[k]
        ih[off:off + struct.calcsize(fmt)] = struct.pack(fmt, v)
    ih[10:12] = b"\0\0"
    ih[10:12] = struct.pack("!H", seeds.csum(bytes(ih)))
    return f[:14] + bytes(ih) + f[34:]


def categories():
    fr = seeds.frames()
    syn4, syn6 = fr["tcp4_syn"], fr["tcp6_syn_hbh"]
    udp4, dhcp, dhcpv6 = fr["udp4_dns"], fr["dhcp"], fr["dhcpv6"]
    a = socket.inet_aton
    tcp_off = 34
    c = {
        "eth_type": patch(syn4, 12, b"\x88\xb5"),
        "arp_short": fr["arp"][:30],
        "ip4_short": syn4[:30],
        "ip4_ihl": ip4_bad(syn4, ihl=0x44),
        "ip4_totlen": ip4_bad(syn4, tot=len(syn4)),
        "ip4_csum": patch(syn4, 24, b"\xde\xad"),
        "ip4_frag": ip4_bad(syn4, frag=0x2000),
        "ip4_proto": ip4_bad(syn4, proto=132),
        "ip4_to_loopback": ip4_bad(syn4, dst=a("127.0.0.1")),
        "ip4_from_zero": ip4_bad(udp4, src=a("0.0.0.0")),
        "ip4_to_multicast": ip4_bad(udp4, dst=a("224.0.0.251")),
        "ip4_to_broadcast": ip4_bad(udp4, dst=a("255.255.255.255")),
        "tcp_port_zero": patch(syn4, tcp_off + 2, b"\0\0"),
        "tcp_short": ip4_bad(syn4[:tcp_off + 10], tot=30),
        "tcp_doff": patch(syn4, tcp_off + 12, b"\x40"),
        "tcp_syn_fin": patch(syn4, tcp_off + 13, b"\x03"),
        "tcp_no_flags": patch(syn4, tcp_off + 13, b"\x00"),
        "tcp_opt_len0": patch(syn4, tcp_off + 20, b"\x02\x00"),
        "tcp_ack_noflow": patch(syn4, tcp_off + 13, b"\x10"),
        "udp_len_long": patch(udp4, tcp_off + 4, b"\xff\xff"),
        "udp_len_short": patch(udp4, tcp_off + 4, b"\x00\x04"),
        "icmp_short": ip4_bad(fr["icmp4_echo"][:37], tot=23),
        "dhcp_short": ip4_bad(dhcp[:34 + 8 + 100], tot=20 + 8 + 100),
        "ip6_short": syn6[:40],
        "ip6_plen": patch(syn6, 18, b"\xff\xf0"),
        "ip6_jumbo": patch(syn6, 18, b"\x00\x00"),
        "ip6_frag": patch(syn6, 20, b"\x2c"),
        "ip6_proto": patch(syn6, 20, b"\x84"),
        "ip6_from_multicast": patch(syn6, 22, socket.inet_pton(
            socket.AF_INET6, "ff02::1")),
        "ip6_from_v4mapped": patch(syn6, 22, socket.inet_pton(
            socket.AF_INET6, "::ffff:192.0.2.1")),
        "ip6_to_loopback": patch(syn6, 38, socket.inet_pton(
            socket.AF_INET6, "::1")),
        "ip6_hbh_long": patch(syn6, 55, b"\x20"),
        "ndp_short": fr["ndp_ns"][:54 + 10],
        "dhcpv6_short": dhcpv6[:54 + 8 + 3],
    }
    # Truncated frames keep their stated lengths: a length past the end
    return c


def tx_dropped(ifname):
    """The device's transmit drops, from this namespace's /proc/net/dev"""
    with open("/proc/net/dev") as f:
        for line in f:
            name, _, stats = line.partition(":")
            if name.strip() == ifname:
                return int(stats.split()[11])
    return 0


def main():
    ifname, count = sys.argv[1], int(sys.argv[2])
    rnd = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)
    cats = list(categories().values())
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((ifname, 0))
    sent, dropped = 0, tx_dropped(ifname)
    for i in range(count):
        f = cats[i % len(cats)]
        if len(f) > 60:		# vary a byte past the headers we break
            j = 60 + rnd.randrange(len(f) - 60)
            f = f[:j] + bytes([rnd.randrange(256)]) + f[j + 1:]
        s.send(f)
        sent += 1
    print(len(cats), sent, tx_dropped(ifname) - dropped)


if __name__ == "__main__":
    main()
