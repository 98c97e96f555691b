#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A tiny authoritative DNS responder (UDP) for the Podman tests.

Usage: dnsd.py --bind ADDR [--bind ADDR...] [--port 53]
               --name NAME [--name NAME...] --a ADDR4 --aaaa ADDR6
               [--pidfile FILE]

Answers A and AAAA queries for each NAME (case-insensitive) with the given
addresses; any other name gets NXDOMAIN, any other type of a NAME an empty
NOERROR answer.  Every query is logged to stdout, one line each:
"QNAME TYPE from ADDR", so a test can see that a query arrived and from
where.  The pidfile is written (atomically) once every socket is bound.
"""

import argparse
import ipaddress
import os
import select
import socket
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from pidfile import write_pidfile  # noqa: E402

TYPES = {1: "A", 28: "AAAA"}


def parse_qname(msg, off):
    labels = []
    while True:
        if off >= len(msg):
            raise ValueError("truncated name")
        n = msg[off]
        off += 1
        if n == 0:
            break
        if n & 0xC0:
            raise ValueError("compression in question")
        labels.append(msg[off:off + n].decode("ascii", "replace"))
        off += n
    return ".".join(labels), off


def answer(msg, names, a4, a6):
    if len(msg) < 12:
        return None, None
    qid, flags, qd = struct.unpack("!HHH", msg[:6])
    if flags & 0x8000 or qd != 1:
        return None, None
    qname, off = parse_qname(msg, 12)
    if off + 4 > len(msg):
        return None, None
    qtype, qclass = struct.unpack("!HH", msg[off:off + 4])
    question = msg[12:off + 4]
    rd = flags & 0x0100
    rcode = 0
    answers = []
    if qname.rstrip(".").lower() not in names:
        rcode = 3
    elif qclass == 1 and qtype == 1:
        answers.append((1, a4.packed))
    elif qclass == 1 and qtype == 28:
        answers.append((28, a6.packed))
    out = struct.pack("!HHHHHH", qid, 0x8000 | 0x0400 | rd | 0x0080 | rcode,
                      1, len(answers), 0, 0) + question
    for rtype, rdata in answers:
        out += struct.pack("!HHHIH", 0xC00C, rtype, 1, 60, len(rdata)) + rdata
    return out, "%s %s" % (qname, TYPES.get(qtype, str(qtype)))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bind", action="append", required=True)
    p.add_argument("--port", type=int, default=53)
    p.add_argument("--name", action="append", required=True)
    p.add_argument("--a", required=True)
    p.add_argument("--aaaa", required=True)
    p.add_argument("--pidfile")
    a = p.parse_args()

    names = {n.rstrip(".").lower() for n in a.name}
    a4 = ipaddress.IPv4Address(a.a)
    a6 = ipaddress.IPv6Address(a.aaaa)
    socks = []
    for addr in a.bind:
        fam = socket.AF_INET6 if ":" in addr else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_DGRAM)
        if fam == socket.AF_INET6:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        s.bind((addr, a.port))
        socks.append(s)
    if a.pidfile:
        write_pidfile(a.pidfile)

    while True:
        ready, _, _ = select.select(socks, [], [])
        for s in ready:
            msg, peer = s.recvfrom(4096)
            try:
                out, what = answer(msg, names, a4, a6)
            except ValueError:
                continue
            if out is None:
                continue
            s.sendto(out, peer)
            print("%s from %s" % (what, peer[0]), flush=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(0)
