#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/connprobe.py - connect() calls of every kind, one JSON line each:
# what a program sees of the socket it connected (test/81-bypass.t)
#
# Usage: connprobe.py PROBE...
#   PROBE: NAME=ADDR:PORT[/FLAG...]  (IPv6: NAME=[ADDR]:PORT[/FLAG...])
#   FLAG:  nb          non-blocking: connect_ex(), then wait for it (5 s)
#          udp         a UDP socket
#          cloexec     SOCK_CLOEXEC
#          opts        TCP_NODELAY, SO_KEEPALIVE, TCP_KEEPIDLE 77,
#                      SO_RCVBUF 65536 set before connect()
#          bind=PORT   bound to PORT on the wildcard address first, with
#                      SO_REUSEADDR (read back)
#          thread      connect() from a second thread
#          timeo=MS    SO_SNDTIMEO, blocking
#          alarm       SIGALRM every 50 ms during a blocking connect()
#                      (a handler that returns: the call restarts)
#          mark=PATH   create PATH just before connect() (the last flag:
#                      PATH may have slashes)
#
# Output per probe: name, err (0 or the errno of connect(), or of the
# connection for nb), errname, ms (how long connect() took), local and
# lport (getsockname()), reply (the first line the peer sent, TCP), and
# with opts or cloexec what the socket has afterwards.

import errno
import fcntl
import json
import os
import select
import signal
import socket
import sys
import threading
import time


def parse(probe):
    name, rest = probe.split("=", 1)
    rest, _, mark = rest.partition("/mark=")
    parts = rest.split("/")
    hostport, flags = parts[0], parts[1:]
    if mark:
        flags.append("mark=" + mark)
    if hostport.startswith("["):
        host, port = hostport[1:].split("]:")
    else:
        host, port = hostport.rsplit(":", 1)
    return name, host, int(port), flags


def make_sock(host, flags):
    fam = socket.AF_INET6 if ":" in host else socket.AF_INET
    typ = socket.SOCK_DGRAM if "udp" in flags else socket.SOCK_STREAM
    if "cloexec" not in flags:
        s = socket.socket(fam, typ)
        os.set_inheritable(s.fileno(), True)
    else:
        s = socket.socket(fam, typ | socket.SOCK_CLOEXEC)
    if "opts" in flags:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE, 77)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    for f in flags:
        if f.startswith("bind="):
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0",
                    int(f[5:])))
        if f.startswith("timeo="):
            ms = int(f[6:])
            tv = (ms // 1000).to_bytes(8, "little") + \
                 (ms % 1000 * 1000).to_bytes(8, "little")
            s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)
    return s


def do_connect(s, host, port, flags):
    if "nb" in flags:
        s.setblocking(False)
        err = s.connect_ex((host, port))
        if err == errno.EINPROGRESS:
            select.select([], [s], [], 5)
            err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        s.setblocking(True)
        return err
    try:
        s.connect((host, port))
        return 0
    except OSError as e:
        return e.errno


def probe(spec):
    name, host, port, flags = parse(spec)
    out = {"name": name}
    s = make_sock(host, flags)
    res = {}
    if "alarm" in flags:
        signal.signal(signal.SIGALRM, lambda *_: None)
        signal.setitimer(signal.ITIMER_REAL, 0.05, 0.05)
    for f in flags:
        if f.startswith("mark="):
            open(f[5:], "w").close()
    t0 = time.monotonic()
    if "thread" in flags:
        th = threading.Thread(
            target=lambda: res.update(err=do_connect(s, host, port, flags)))
        th.start()
        th.join()
        err = res["err"]
    else:
        err = do_connect(s, host, port, flags)
    out["ms"] = int((time.monotonic() - t0) * 1000)
    if "alarm" in flags:
        signal.setitimer(signal.ITIMER_REAL, 0, 0)
    out["err"] = err
    out["errname"] = errno.errorcode.get(err, "0") if err else "0"
    try:
        loc = s.getsockname()
        out["local"], out["lport"] = loc[0], loc[1]
    except OSError:
        pass
    if not err and "udp" not in flags:
        s.settimeout(5)
        try:
            out["reply"] = s.recv(200).decode(errors="replace").split("\n")[0]
        except OSError as e:
            out["reply_error"] = e.errno
    if "opts" in flags:
        out["nodelay"] = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        out["keepalive"] = s.getsockopt(socket.SOL_SOCKET,
                                        socket.SO_KEEPALIVE)
        out["keepidle"] = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE)
        out["rcvbuf"] = s.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    if any(f.startswith("bind=") for f in flags):
        out["reuseaddr"] = s.getsockopt(socket.SOL_SOCKET,
                                        socket.SO_REUSEADDR)
    out["cloexec"] = bool(fcntl.fcntl(s.fileno(), fcntl.F_GETFD) &
                          fcntl.FD_CLOEXEC)
    s.close()
    return out


def main():
    for spec in sys.argv[1:]:
        print(json.dumps(probe(spec)), flush=True)


if __name__ == "__main__":
    main()
