#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/slowsink.py - a TCP receiver that stops reading for a while.

Server: accepts one connection, reads --first bytes, stops reading for
--pause seconds (the sender's buffers fill up and its window closes), then
reads to the end of the stream and answers with the sha256 of everything
it got, the seconds the rest took after the pause, and the seconds after
the pause until the first byte beyond what had queued up during it ("-"
if none came).

Client (--send FILE): sends FILE, half-closes, prints the server's answer.

Addresses are IPv4 or IPv6.

Usage: slowsink.py --bind ADDR --port P [--first N] [--pause S] [--pidfile F]
       slowsink.py --send FILE --to ADDR --port P [--timeout S]
"""

import argparse
import fcntl
import hashlib
import socket
import struct
import sys
import termios
import time

from pidfile import write_pidfile


def serve(args):
    family = socket.AF_INET6 if ":" in args.bind else socket.AF_INET
    ls = socket.socket(family, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((args.bind, args.port))
    ls.listen(1)
    if args.pidfile:
        write_pidfile(args.pidfile)
    ls.settimeout(args.timeout)
    s, _ = ls.accept()
    s.settimeout(args.timeout)
    h = hashlib.sha256()
    got = 0
    while got < args.first:
        b = s.recv(min(1 << 16, args.first - got))
        if not b:
            break
        h.update(b)
        got += len(b)
    time.sleep(args.pause)
    start = time.monotonic()
    # What queued up during the pause is there at once: resuming means
    # data beyond it
    backlog = struct.unpack("i", fcntl.ioctl(s, termios.FIONREAD,
                                             b"\0" * 4))[0]
    while backlog > 0:
        b = s.recv(min(1 << 16, backlog))
        if not b:
            break
        h.update(b)
        got += len(b)
        backlog -= len(b)
    resumed = None
    while True:
        b = s.recv(1 << 16)
        if not b:
            break
        if resumed is None:
            resumed = "%.3f" % (time.monotonic() - start)
        h.update(b)
        got += len(b)
    s.sendall(("%s %d %.3f %s\n" % (h.hexdigest(), got,
                                    time.monotonic() - start,
                                    resumed or "-")).encode())
    s.close()


def send(args):
    s = socket.create_connection((args.to, args.port), timeout=args.timeout)
    with open(args.send, "rb") as f:
        while True:
            b = f.read(1 << 16)
            if not b:
                break
            s.sendall(b)
    s.shutdown(socket.SHUT_WR)
    print(s.makefile().readline().strip())


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bind")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--first", type=int, default=4 << 20)
    p.add_argument("--pause", type=float, default=5.0)
    p.add_argument("--pidfile")
    p.add_argument("--send")
    p.add_argument("--to")
    p.add_argument("--timeout", type=float, default=60.0)
    args = p.parse_args()
    if args.send:
        send(args)
    elif args.bind:
        serve(args)
    else:
        p.error("--bind or --send")
    return 0


if __name__ == "__main__":
    sys.exit(main())
