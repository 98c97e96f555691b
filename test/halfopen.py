#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A half-closed TCP connection, kept while something happens.

Usage: halfopen.py ADDR PORT OUT_FILE
  Connects, sends "hello\\n" and closes its sending side (FIN); the server
  answers later, after its own pause, with "done\\n" and closes. Writes
  "ok" to OUT_FILE if exactly that came before the end of the stream, or
  what came instead. Bounded: 20 s to connect, 120 s for the answer.
"""

import socket
import sys
import time


def main():
    addr, port, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    got = b""
    try:
        sock = socket.create_connection((addr, port), timeout=20)
        sock.sendall(b"hello\n")
        sock.shutdown(socket.SHUT_WR)
        end = time.monotonic() + 120
        while time.monotonic() < end:
            sock.settimeout(max(end - time.monotonic(), 0.1))
            chunk = sock.recv(100)
            if not chunk:
                break
            got += chunk
        result = "ok" if got == b"done\n" else "got %r" % got
    except OSError as e:
        result = "got %r, then %s" % (got, e)
    with open(out, "w") as f:
        f.write(result + "\n")


if __name__ == "__main__":
    main()
