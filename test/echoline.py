#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One TCP connection to an echo server, kept open while something happens.

Usage: echoline.py ADDR PORT WORD_FILE OUT_FILE
  Connects, sends "before\\n" and waits for it to come back; then waits
  until WORD_FILE exists and does the same with "after\\n". Writes
  "before ok" / "after ok" (or what came instead) to OUT_FILE, a line each.
  Bounded: 20 s for the connection and each echo, 300 s for the word.
"""

import os
import socket
import sys
import time


def echo(sock, line):
    """Send line, read until its newline comes back; "ok" or what came."""
    want = line.encode() + b"\n"
    sock.sendall(want)
    got = b""
    while not got.endswith(b"\n"):
        chunk = sock.recv(100)
        if not chunk:
            break
        got += chunk
    return "ok" if got == want else "got %r" % got


def main():
    addr, port, word, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], \
        sys.argv[4]
    with open(out, "w") as f:
        sock = socket.create_connection((addr, port), timeout=20)
        f.write("before %s\n" % echo(sock, "before"))
        f.flush()
        end = time.monotonic() + 300
        while not os.path.exists(word) and time.monotonic() < end:
            time.sleep(0.1)
        f.write("after %s\n" % echo(sock, "after"))


if __name__ == "__main__":
    main()
