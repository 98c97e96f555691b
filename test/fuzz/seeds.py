#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/fuzz/seeds.py - a seed corpus of real-shaped frames and messages.

Usage: seeds.py DIR

Writes DIR/frame/, DIR/stream/, DIR/dhcp/, DIR/rules/ and DIR/virtq/: one
file per seed, in the input format of fuzz_frame, fuzz_stream, fuzz_dhcp,
fuzz_rules and fuzz_virtq (see their headers).
"""

import os
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from framing import csum  # noqa: E402

GUEST_MAC = bytes.fromhex("525400123456")
OUR_MAC = bytes.fromhex("027061737461")


def eth(proto, payload, dst=OUR_MAC):
    return dst + GUEST_MAC + struct.pack("!H", proto) + payload


def ip4(proto, payload, src="203.0.113.1", dst="203.0.113.2", frag=0x4000):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 1,
                      frag, 64, proto, 0, socket.inet_aton(src),
                      socket.inet_aton(dst))
    hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
    return eth(0x0800, hdr + payload)


def ip6(nexthdr, payload, src="2001:db8::1", dst="2001:db8::2", hlim=64,
        dst_mac=OUR_MAC):
    hdr = struct.pack("!IHBB16s16s", 6 << 28, len(payload), nexthdr, hlim,
                      socket.inet_pton(socket.AF_INET6, src),
                      socket.inet_pton(socket.AF_INET6, dst))
    return eth(0x86dd, hdr + payload, dst_mac)


def tcp_syn(sport=40000, dport=80):
    opts = bytes([2, 4, 0x05, 0xb4, 1, 3, 3, 7, 4, 2, 1, 1])
    return struct.pack("!HHIIBBHHH", sport, dport, 1000, 0,
                       (5 + len(opts) // 4) << 4, 0x02, 65535, 0, 0) + opts


def udp(sport, dport, payload):
    return struct.pack("!HHHH", sport, dport, 8 + len(payload), 0) + payload


def dhcp_discover():
    bootp = struct.pack("!BBBBIHH4s4s4s4s16s64s128s", 1, 1, 6, 0,
                        0x11223344, 0, 0x8000, b"\0" * 4, b"\0" * 4,
                        b"\0" * 4, b"\0" * 4, GUEST_MAC + b"\0" * 10,
                        b"\0" * 64, b"\0" * 128)
    opts = (b"\x63\x82\x53\x63" + b"\x35\x01\x01" +
            b"\x37\x05\x01\x03\x06\x1a\x77" + b"\x0c\x05guest" +
            b"\x51\x03\x00\x00\x00" + b"\x32\x04\xcb\x00\x71\x01" + b"\xff")
    return bootp + opts


def dhcpv6_solicit():
    duid = b"\x00\x03\x00\x01" + GUEST_MAC
    return (b"\x01\xab\xcd\xef" +
            struct.pack("!HH", 1, len(duid)) + duid +
            struct.pack("!HHIII", 3, 12, 0x5e005301, 0, 0) +
            struct.pack("!HHHHH", 6, 6, 23, 24, 39) +
            struct.pack("!HHH", 8, 2, 0) +
            struct.pack("!HHB", 39, 7, 1) + b"\x05guest")


def ndp_ns(target="2001:db8::2"):
    return (struct.pack("!BBHI", 135, 0, 0, 0) +
            socket.inet_pton(socket.AF_INET6, target) +
            b"\x01\x01" + GUEST_MAC)


def ndp_rs():
    return struct.pack("!BBHI", 133, 0, 0, 0) + b"\x01\x01" + GUEST_MAC


def arp_request():
    body = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1)
    body += GUEST_MAC + socket.inet_aton("203.0.113.1") + b"\0" * 6
    body += socket.inet_aton("203.0.113.2")
    return eth(0x0806, body, b"\xff" * 6)


def frames():
    hbh = bytes([6, 0, 1, 4, 0, 0, 0, 0])     # hop-by-hop, PadN, then TCP
    frag6 = bytes([17, 0, 0, 1, 0, 0, 0, 9])  # fragment: UDP, at 0, more
    return {
        "arp": arp_request(),
        "tcp4_syn": ip4(6, tcp_syn()),
        "udp4_dns": ip4(17, udp(40001, 53, b"\x12\x34\x01\x00\0\x01\0\0\0\0"
                                b"\0\0\x07example\x03org\0\0\x01\0\x01")),
        "icmp4_echo": ip4(1, b"\x08\x00\xf7\xff\x00\x00\x00\x00"),
        "udp4_frag": ip4(17, udp(40002, 7, b"x" * 40)[:24], frag=0x2000),
        "udp6_frag": ip6(44, frag6 + udp(40002, 7, b"x" * 40)[:24]),
        "dhcp": ip4(17, udp(68, 67, dhcp_discover()), "0.0.0.0",
                    "255.255.255.255"),
        "tcp6_syn_hbh": ip6(0, hbh + tcp_syn()),
        "icmp6_echo": ip6(58, b"\x80\x00\x00\x00\x00\x01\x00\x01"),
        "ndp_ns": ip6(58, ndp_ns(), "fe80::5054:ff:fe12:3456",
                      "ff02::1:ff00:2", 255, b"\x33\x33\xff\x00\x00\x02"),
        "ndp_rs": ip6(58, ndp_rs(), "fe80::5054:ff:fe12:3456", "ff02::2",
                      255, b"\x33\x33\x00\x00\x00\x02"),
        "dhcpv6": ip6(17, udp(546, 547, dhcpv6_solicit()),
                      "fe80::5054:ff:fe12:3456", "ff02::1:2", 1,
                      b"\x33\x33\x00\x01\x00\x02"),
    }


SPECS = [b"8080", b"0.0.0.0/8080:10.88.0.2/80", b"[::]/9000-9002",
         b"9090:[2001:db8::2]/80", b"192.0.2.1%eth0/5", b"%lo/22:23",
         b"all", b"auto", b"~22,~80-90", b"1-1024,~100-200", b"none",
         b"22-80:32-90", b"2001:db8::1/8080-8081:80-81"]


def wire_rule(addr, taddr, ifname, first, last, to, proto, flags):
    """One rule in the control protocol's form (fwd_rule_encode())."""
    def a16(a):
        if not a:
            return bytes(16)
        if ":" in a:
            return socket.inet_pton(socket.AF_INET6, a)
        return bytes(10) + b"\xff\xff" + socket.inet_aton(a)
    return (a16(addr) + a16(taddr) + ifname.ljust(16, b"\0") +
            struct.pack("!HHHBB", first, last, to, proto, flags))


VQ_GPA = 0x100000       # fuzz_virtq.c: FUZZ_GPA, regions of 64 KiB


def vq_ring(num, descs, heads, event_idx=False, log=False):
    """Guest memory for fuzz_virtq: descriptors (addr, len, flags, next),
    then the available ring offering the chains at heads; log: what we
    write logged, as while migrating."""
    table = b"".join(struct.pack("<QIHH", *d) for d in descs)
    table = table.ljust(num * 16, b"\0")
    avail = struct.pack("<HH", 0, len(heads)) + \
        b"".join(struct.pack("<H", h) for h in heads)
    log2 = num.bit_length() - 1
    return bytes([log2 | (0x10 if event_idx else 0) |
                  (0x60 if log else 0)]) + table + avail


def mig_state(sections):
    """A migration state for fuzz_migrate: header, (type, bytes) sections,
    the end mark."""
    out = b"pt-mig\r\n" + struct.pack("!II", 1, 0)
    for kind, data in sections + [(0, b"")]:
        out += struct.pack("!HHI", kind, 0, len(data)) + data
    return out


def mig_guest():
    """The guest section: MAC, padding, IPv4, IPv6, link-local IPv6."""
    return bytes.fromhex("525400123456") + b"\0\0" + \
        socket.inet_pton(socket.AF_INET, "192.0.2.10") + \
        socket.inet_pton(socket.AF_INET6, "2001:db8::10") + \
        socket.inet_pton(socket.AF_INET6, "fe80::10")


def mig_tcp():
    """A TCP section: guest 192.0.2.10:40000 to 198.51.100.1:80, established,
    its socket at position 0 of a handover that never came."""
    def v4(a):
        return b"\0" * 10 + b"\xff\xff" + socket.inet_pton(socket.AF_INET, a)
    return v4("192.0.2.10") + v4("198.51.100.1") + \
        struct.pack("!HHBBBBHHI", 40000, 80, 4, 0, 7, 7, 1460, 0, 0x80000005) + \
        struct.pack("!10I", 1000, 1000, 1000, 5000, 5000, 65535, 65535, 200,
                    0, 0) + v4("198.51.100.1") + struct.pack("!HH", 80, 0)


def mig_tcp_repair():
    """The socket's state after a TCP section (TCP_REPAIR): local address
    and port, flags (SACK, timestamps, scaling), scales, MSS, queue start
    sequences, lengths (send 50, 20 not sent; receive 100), timestamp,
    window; then the receive queue and the send queue."""
    local = b"\0" * 10 + b"\xff\xff" + socket.inet_pton(socket.AF_INET,
                                                       "203.0.113.1")
    return local + struct.pack("!HBBBBH", 40000, 7, 7, 7, 0, 1460) + \
        struct.pack("!11I", 7000, 9000, 50, 20, 100, 123456, 9000, 65535,
                    65535, 65535, 9000) + b"r" * 100 + b"s" * 50


def mig_dgram(proto=17, gport=5353, pport=53, local=40000):
    """A datagram section: guest 192.0.2.10 to 198.51.100.1, UDP (host port
    40000) or an echo session (proto 1, identifier as ports), answered,
    its socket at position 1 of the handover."""
    def v4(a):
        return b"\0" * 10 + b"\xff\xff" + socket.inet_pton(socket.AF_INET, a)
    peer = v4("198.51.100.1") if proto == 17 else b"\0" * 16
    return v4("192.0.2.10") + v4("198.51.100.1") + \
        struct.pack("!HHHHI", gport, pport, local, 1, 1) + \
        peer + struct.pack("!HBB", pport, proto, 0)


def mig_fwd():
    """A forwarding section: one rule, TCP 8080 on every address."""
    return struct.pack("!I", 1) + b"\0" * 48 + \
        struct.pack("!HHHBB", 8080, 8080, 8080, 6, 1)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def main():
    top = sys.argv[1]
    for d in ("frame", "stream", "dhcp", "rules", "virtq", "migrate"):
        os.makedirs(os.path.join(top, d), exist_ok=True)
    fr = frames()
    for name, f in fr.items():
        for mode in (0, 1):
            write(os.path.join(top, "frame", "%s_%d" % (name, mode)),
                  bytes([mode]) + f)
    stream = b"".join(struct.pack("!I", len(f)) + f for f in fr.values())
    write(os.path.join(top, "stream", "all"), b"\x10\x07" + stream)
    write(os.path.join(top, "stream", "arp"),
          b"\x00\x00" + struct.pack("!I", len(fr["arp"])) + fr["arp"])
    write(os.path.join(top, "dhcp", "dhcp"), b"\x00" + dhcp_discover())
    write(os.path.join(top, "dhcp", "dhcpv6"), b"\x01" + dhcpv6_solicit())
    write(os.path.join(top, "dhcp", "ndp_ns"), b"\x02" + ndp_ns())
    write(os.path.join(top, "dhcp", "ndp_rs"), b"\x02" + ndp_rs())
    write(os.path.join(top, "rules", "specs_tcp"), b"\x00" + b"\n".join(SPECS))
    write(os.path.join(top, "rules", "specs_udp_all"),
          b"\x06" + b"\n".join(SPECS))
    write(os.path.join(top, "rules", "wire"), b"\x03" + b"".join([
        wire_rule(None, None, b"", 8080, 8080, 8080, 6, 1),
        wire_rule("0.0.0.0", "10.88.0.2", b"", 9090, 9091, 80, 6, 0),
        wire_rule("::", "2001:db8::2", b"eth0", 53, 53, 53, 17, 0),
        wire_rule(None, None, b"lo", 1, 32767, 1, 17, 7)]))
    # A frame in two buffers; a receive buffer; a chain across the two
    # regions; one that loops
    write(os.path.join(top, "virtq", "tx"), vq_ring(4, [
        (VQ_GPA + 0x1000, 12, 1, 1), (VQ_GPA + 0x1100, 1500, 0, 0)], [0]))
    write(os.path.join(top, "virtq", "rx"), vq_ring(8, [
        (VQ_GPA + 0x2000, 4096, 2, 0)], [0], True))
    write(os.path.join(top, "virtq", "across"), vq_ring(2, [
        (VQ_GPA + 0xff00, 0x200, 0, 0)], [0]))
    write(os.path.join(top, "virtq", "loop"), vq_ring(4, [
        (VQ_GPA + 0x1000, 64, 1, 1), (VQ_GPA + 0x1000, 64, 1, 0)], [0, 1]))
    write(os.path.join(top, "virtq", "rx_logged"), vq_ring(8, [
        (VQ_GPA + 0x2000, 8192, 2, 0)], [0], True, True))
    write(os.path.join(top, "migrate", "guest"), mig_state([(1, mig_guest())]))
    write(os.path.join(top, "migrate", "empty"), mig_state([]))
    write(os.path.join(top, "migrate", "tcp"),
          mig_state([(1, mig_guest()), (3, mig_tcp())]))
    write(os.path.join(top, "migrate", "fwd"),
          mig_state([(1, mig_guest()), (5, mig_fwd())]))
    write(os.path.join(top, "migrate", "udp"),
          mig_state([(1, mig_guest()), (3, mig_tcp()), (4, mig_dgram())]))
    write(os.path.join(top, "migrate", "echo"),
          mig_state([(1, mig_guest()), (4, mig_dgram(1, 0x1234, 0, 0x1234))]))
    write(os.path.join(top, "migrate", "tcp_repair"),
          mig_state([(1, mig_guest()), (3, mig_tcp() + mig_tcp_repair())]))


if __name__ == "__main__":
    main()
