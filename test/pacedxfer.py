#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Paced TCP download and upload, checked end to end, for the integration
tests: long enough for something to change on the path while they run.

Server: pacedxfer.py --serve PORT --pidfile FILE
    Per connection, one command byte: "D": sends the pattern, paced;
    "U": reads to the end, answers the sha256 of what came.  At most 4
    connections, then exits; every connection is bounded to 30 s.
Client: pacedxfer.py --to ADDR --port PORT [--size BYTES] [--secs S]
    Downloads and uploads SIZE bytes (default 8 MiB) at once, each paced
    over about S seconds (default 1.5), and prints "download OK" or
    "download BAD ...", then the same for the upload.
"""

import argparse
import hashlib
import socket
import sys
import threading
import time

from pidfile import write_pidfile

CHUNK = 65536


def pattern(size):
    """The bytes sent both ways: not all alike, so misplaced data shows."""
    block = bytes((i * 7 + i // 251) & 0xff for i in range(CHUNK))
    return (block * (size // CHUNK + 1))[:size]


def send_paced(sock, data, secs):
    """Send data in CHUNK pieces spread over secs seconds."""
    step = secs * CHUNK / max(len(data), 1)
    start = time.monotonic()
    for n, off in enumerate(range(0, len(data), CHUNK)):
        sock.sendall(data[off:off + CHUNK])
        ahead = start + (n + 1) * step - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)


def recv_all(sock):
    """Everything until the peer's FIN."""
    h, n = hashlib.sha256(), 0
    while True:
        b = sock.recv(1 << 20)
        if not b:
            return h.hexdigest(), n
        h.update(b)
        n += len(b)


def serve(port, pidfile, size, secs):
    srv = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("::", port))
    srv.listen(4)
    write_pidfile(pidfile)
    threads = []
    for _ in range(4):
        conn, _ = srv.accept()
        conn.settimeout(30)
        t = threading.Thread(target=serve_one, args=(conn, size, secs))
        t.start()
        threads.append(t)
    for t in threads:
        t.join()


def serve_one(conn, size, secs):
    try:
        cmd = conn.recv(1)
        if cmd == b"D":
            send_paced(conn, pattern(size), secs)
        elif cmd == b"U":
            digest, n = recv_all(conn)
            conn.sendall(f"{digest} {n}".encode())
    except OSError as e:
        print(f"server: {e}", file=sys.stderr)
    finally:
        conn.close()


def client(addr, port, size, secs):
    want = hashlib.sha256(pattern(size)).hexdigest()
    results = {}

    def download():
        with socket.create_connection((addr, port), timeout=30) as s:
            s.sendall(b"D")
            digest, n = recv_all(s)
        results["download"] = (digest == want and n == size, f"{n} bytes")

    def upload():
        with socket.create_connection((addr, port), timeout=30) as s:
            s.sendall(b"U")
            send_paced(s, pattern(size), secs)
            s.shutdown(socket.SHUT_WR)
            got = s.recv(200).decode()
        results["upload"] = (got == f"{want} {size}", got)

    threads = [threading.Thread(target=f) for f in (download, upload)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(40)
    for what in ("download", "upload"):
        good, detail = results.get(what, (False, "no result"))
        print(f"{what} OK" if good else f"{what} BAD {detail}")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--serve", type=int)
    p.add_argument("--pidfile")
    p.add_argument("--to")
    p.add_argument("--port", type=int)
    p.add_argument("--size", type=int, default=8 << 20)
    p.add_argument("--secs", type=float, default=1.5)
    a = p.parse_args()
    if a.serve:
        serve(a.serve, a.pidfile, a.size, a.secs)
    else:
        client(a.to, a.port, a.size, a.secs)


if __name__ == "__main__":
    main()
