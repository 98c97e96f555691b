#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/fakepasst.py - a scripted passt for test/tapsock.py's relay alone.

Usage: fakepasst.py SOCKET_PATH TAP_NAME   (as root, in a namespace)

Listens at SOCKET_PATH, starts tapsock.py (beside this file) with --tap
TAP_NAME --mtu 1500 on it, and, once connected, sends it frames of an
ethertype no stack takes (0x88b5), each filled with a letter: A with its
length prefix cut after 2 bytes, B cut in the middle of the frame (a
pause between the two writes), then C, D (1515 bytes: longer than the
MTU allows) and E in one write. A packet socket on the tap must see A, B,
C and E, whole and in order, and not D. Then F goes out of the tap
through the packet socket and must come back whole on the stream. Last, a
length prefix of 0: tapsock.py must exit 1, saying the stream is out of
step, with one frame dropped in its summary. Prints one line per check,
"0 description" for a pass, "1 description" for a failure: the caller
turns them into TAP.
"""

import os
import socket
import struct
import subprocess
import sys
import time

from framing import read_frame

ETYPE = 0x88B5		# IEEE 802 local experimental
ETH = b"\xff" * 6 + bytes.fromhex("020000000064") + struct.pack("!H", ETYPE)


def frame(mark, size):
    return ETH + mark.encode() * (size - len(ETH))


def framed(f):
    return struct.pack("!I", len(f)) + f


def ok(cond, desc):
    print("%d %s" % (0 if cond else 1, desc), flush=True)


def tap_marks(cap):
    """Letters of our frames the packet socket sees until E, '?' if mangled."""
    seen = []
    try:
        while "E" not in seen:
            f = cap.recv(65536)
            mark = chr(f[len(ETH)])
            seen.append(mark if f == frame(mark, len(f)) else "?")
    except socket.timeout:
        pass
    return seen


def stream_frame(s):
    """The next frame of our ethertype from the stream, None if none in 5 s."""
    end = time.monotonic() + 5
    try:
        while time.monotonic() < end:
            f = read_frame(s)
            if f is None or f[:len(ETH)] == ETH:
                return f
    except socket.timeout:
        pass
    return None


def main():
    path, tap = sys.argv[1], sys.argv[2]
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)
    srv.settimeout(10)
    tapsock = os.path.join(os.path.dirname(__file__), "tapsock.py")
    ts = subprocess.Popen([sys.executable, tapsock, "--sock", path,
                           "--tap", tap, "--mtu", "1500"],
                          stderr=subprocess.PIPE)
    try:
        s, _ = srv.accept()
        s.settimeout(5)
        cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                            socket.htons(ETYPE))
        cap.bind((tap, ETYPE))		# the tap is up before tapsock connects
        cap.settimeout(1)

        a, b = framed(frame("A", 1514)), framed(frame("B", 1000))
        s.sendall(a[:2])
        time.sleep(0.1)
        s.sendall(a[2:])
        s.sendall(b[:700])
        time.sleep(0.1)
        s.sendall(b[700:])
        s.sendall(framed(frame("C", 60)) + framed(frame("D", 1515)) +
                  framed(frame("E", 1514)))
        seen = " ".join(tap_marks(cap))
        ok(seen == "A B C E", "split and batched frames reach the tap whole, "
           "in order, one over the MTU dropped: %s" % seen)

        cap.send(frame("F", 1514))
        ok(stream_frame(s) == frame("F", 1514), "a frame from the tap reaches "
           "the stream whole")

        s.sendall(struct.pack("!I", 0))
        rc = ts.wait(10)
    except (OSError, subprocess.TimeoutExpired) as e:
        ok(False, "scripted exchange: %s" % e)
        ts.kill()
        rc = ts.wait()
    err = ts.stderr.read().decode().strip()
    good = (rc == 1 and "out of step" in err and
            "dropped: 1 longer than the MTU from passt" in err)
    ok(good, "a zero length prefix: exit 1, out of step; the drop counted" +
       ("" if good else " (status %d: %s)" % (rc, err.replace("\n", " / "))))


if __name__ == "__main__":
    main()
