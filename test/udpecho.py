#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""UDP echo server and checking client for the pasta integration tests.

Server: udpecho.py --bind ADDR --port PORT [--pidfile FILE] [--log FILE]
    Echoes every datagram back to its sender, except "peer?", which is
    answered with the sender's address as text (an IPv4 sender of a
    dual-stack socket as plain IPv4).  ADDR is IPv4 or IPv6; "::" is
    dual-stack (IPv4 senders too).  The pidfile is written
    (atomically) once the socket is bound.  With --log, a line for each
    datagram: the sender's port, then the datagram's text.

Client: udpecho.py --client --to ADDR[%ZONE] --port PORT [--source ADDR]
                   [--count K] [--max-size N] [--timeout SECONDS]
    Sends K datagrams of varying sizes (1 .. N bytes), one at a time, each
    with a sequence number and a pattern; waits up to 1 s for each echo
    and retries a lost one at most 3 times.  Exits 0 if every datagram
    came back intact, 1 otherwise; the whole run is bounded by --timeout.
"""

import argparse
import socket
import struct
import sys
import time

from pidfile import write_pidfile


def family_of(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def server(a):
    s = socket.socket(family_of(a.bind), socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if s.family == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind((a.bind, a.port))
    if a.pidfile:
        write_pidfile(a.pidfile)
    log = open(a.log, "a", buffering=1) if a.log else None
    while True:
        data, peer = s.recvfrom(65536)
        if log:
            log.write("%d %s\n" % (peer[1], data.decode(errors="replace")
                                    .strip().replace("\n", " ")))
        if data == b"peer?":
            addr = peer[0]
            data = (addr[7:] if addr.startswith("::ffff:") else addr).encode()
        try:
            s.sendto(data, peer)
        except OSError:
            pass


def payload(seq, size):
    head = struct.pack("!I", seq)
    body = bytes((seq + i) & 0xff for i in range(max(size - 4, 0)))
    return (head + body)[:max(size, 4)]


def client(a):
    s = socket.socket(family_of(a.to), socket.SOCK_DGRAM)
    if a.source:
        s.bind((a.source, 0))
    # getaddrinfo() takes a zone (fe80::1%veth0), which a plain tuple can't
    s.connect(socket.getaddrinfo(a.to, a.port, s.family,
                                 socket.SOCK_DGRAM)[0][4])
    deadline = time.monotonic() + a.timeout
    sizes = [4, 64, 512, 1200, 1400, 1472, 3000, 8000, a.max_size]
    ok = 0
    for seq in range(a.count):
        size = min(sizes[seq % len(sizes)], a.max_size)
        msg = payload(seq, size)
        got = False
        for _ in range(4):
            if time.monotonic() > deadline:
                break
            try:
                s.send(msg)
            except OSError as e:  # e.g. ECONNREFUSED from an earlier ICMP
                print("send %d: %s" % (seq, e), file=sys.stderr)
                time.sleep(0.1)
                continue
            end = min(time.monotonic() + 1.0, deadline)
            while time.monotonic() < end:
                s.settimeout(max(end - time.monotonic(), 0.001))
                try:
                    data = s.recv(65536)
                except socket.timeout:
                    break
                except OSError as e:
                    print("recv %d: %s" % (seq, e), file=sys.stderr)
                    break
                if data == msg:
                    got = True
                    break
                # a late echo of an earlier retry: keep waiting
            if got:
                break
        if got:
            ok += 1
        else:
            print("datagram %d (%d bytes) not echoed" % (seq, len(msg)),
                  file=sys.stderr)
    print("%d/%d datagrams echoed" % (ok, a.count))
    return 0 if ok == a.count else 1


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--client", action="store_true")
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--to")
    p.add_argument("--source", help="client: bind to this source address")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--pidfile")
    p.add_argument("--log", help="server: the sender's port of each datagram")
    p.add_argument("--count", type=int, default=100)
    p.add_argument("--max-size", type=int, default=8000)
    p.add_argument("--timeout", type=float, default=20.0)
    a = p.parse_args()
    if a.client:
        if not a.to:
            p.error("--client needs --to")
        return client(a)
    server(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
