#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""passt's side of the repair protocol, for test/79-passt-repair.t.

Usage: repairpeer.py PATH [--pidfile FILE] [--expect-refusal | --just-one]

Listens on the UNIX socket PATH (the pidfile is written once it does),
opens three TCP connections on loopback, takes one connection from a
passt-repair helper (within 20 s), and prints one line per check, "ok NAME"
or "fail NAME DETAIL":
  repair_on, repair_off, repair_off_no_wp: the byte 1, 0 or -1 with the
      three client sockets: echoed, and TCP_REPAIR reads back 1, 0, 0;
  fds_253: repair on, then off, with 253 descriptors (SCM_MAX_FD) at once;
  bad_request_closes: the byte 5 with one socket: the helper closes the
      connection, nothing echoed.
With --expect-refusal (a helper without CAP_NET_ADMIN): repair on is
refused: the connection closes, nothing echoed (refused_closes). With
--just-one: repair on, then off, then we close the connection (the helper
should exit 0).
"""

import argparse
import os
import socket
import struct
import sys

TCP_REPAIR = 19


def report(name, good, detail=""):
    print("%s %s%s" % ("ok" if good else "fail", name,
                       " " + detail if detail and not good else ""))
    sys.stdout.flush()


def request(conn, cmd, fds):
    """Send one request; the echoed byte, or None if the helper closed."""
    socket.send_fds(conn, [struct.pack("b", cmd)], fds)
    try:
        b = conn.recv(1)
    except OSError:
        return None
    return struct.unpack("b", b)[0] if b else None


def repair_state(socks):
    return [s.getsockopt(socket.IPPROTO_TCP, TCP_REPAIR) for s in socks]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("path")
    p.add_argument("--pidfile")
    p.add_argument("--expect-refusal", action="store_true")
    p.add_argument("--just-one", action="store_true")
    a = p.parse_args()

    lsn = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsn.bind(("127.0.0.1", 0))
    lsn.listen(4)
    socks, peers = [], []
    for _ in range(3):
        c = socket.create_connection(lsn.getsockname())
        peers.append(lsn.accept()[0])
        socks.append(c)

    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(a.path)
    srv.listen(1)
    if a.pidfile:
        with open(a.pidfile + ".tmp", "w") as f:
            f.write("%d\n" % os.getpid())
        os.rename(a.pidfile + ".tmp", a.pidfile)
    srv.settimeout(20)
    try:
        conn = srv.accept()[0]
    except OSError as e:
        report("helper_connected", False, str(e))
        return
    conn.settimeout(10)
    fds = [s.fileno() for s in socks]

    if a.expect_refusal:
        got = request(conn, 1, fds)
        report("refused_closes", got is None and repair_state(socks) ==
               [0, 0, 0], "echoed %s, TCP_REPAIR %s" % (got,
                                                       repair_state(socks)))
        return

    steps = (("repair_on", 1, 1), ("repair_off", 0, 0),
             ("repair_off_no_wp", -1, 0))
    for name, cmd, want in steps[:2] if a.just_one else steps:
        got = request(conn, cmd, fds)
        state = repair_state(socks)
        report(name, got == cmd and state == [want] * 3,
               "echoed %s, TCP_REPAIR %s" % (got, state))
    if a.just_one:
        conn.close()
        return

    many = [fds[i % 3] for i in range(253)]
    on = request(conn, 1, many)
    state_on = repair_state(socks)
    off = request(conn, 0, many)
    report("fds_253", on == 1 and off == 0 and state_on == [1] * 3 and
           repair_state(socks) == [0] * 3,
           "echoed %s, %s; TCP_REPAIR %s" % (on, off, state_on))

    got = request(conn, 5, fds[:1])
    report("bad_request_closes", got is None, "echoed %s" % got)


if __name__ == "__main__":
    main()
