#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/tcphold.py - one TCP connection that follows a script of steps.

Server: listens on --bind ADDR --port P, writes --pidfile once bound,
accepts one connection and runs the steps on it. Client (--to ADDR): the
same on a connection it opens. Addresses are IPv4 or IPv6.

Steps, comma-separated, run in order:
  send:TEXT   send TEXT and a newline
  line        read one line (prints "line TEXT", or "line EOF")
  echo        send back every line read, until the peer's FIN
  trickle:N   send N lines, one a second
  drain       read until the peer's FIN (prints "lines N")
  shut        shutdown(SHUT_WR): our FIN
  sleep:S     wait S seconds
  flag:FILE   write a line to FILE (tells the test where the script got to)
  mark        restart the clock that "end" reports
  end         wait until the connection ends: prints "end reset SECS"
              (an error, e.g. the peer's RST), "end closed SECS" (both
              FINs) or "end timeout SECS", counting from the connection's
              start or the last "mark"; data that comes meanwhile is read
              and thrown away
  close       close the socket

Every blocking step gives up after --timeout seconds (a failed step prints
"error STEP: REASON" and exits 1).

Usage: tcphold.py --bind ADDR --port P [--pidfile F] [--timeout S] STEPS
       tcphold.py --to ADDR --port P [--timeout S] STEPS
"""

import argparse
import select
import socket
import sys
import time

from pidfile import write_pidfile


def end(s, t0, deadline):
    """Wait for an error or a hang-up, reading whatever comes meanwhile."""
    p = select.poll()
    events = select.POLLIN
    p.register(s, events)
    while time.monotonic() < deadline:
        for _, ev in p.poll(100):
            if ev & (select.POLLERR | select.POLLHUP):
                err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                how = "reset" if err else "closed"
                return "end %s %.2f" % (how, time.monotonic() - t0)
            try:
                if not s.recv(1 << 16):
                    p.modify(s, 0)  # EOF: only errors and hang-ups now
            except OSError:
                return "end reset %.2f" % (time.monotonic() - t0)
    return "end timeout %.2f" % (time.monotonic() - t0)


def run(s, steps, timeout):
    """Run the steps; return 0, or 1 after printing the failed one."""
    f = s.makefile("rb")
    t0 = time.monotonic()
    for step in steps:
        try:
            t0 = run_step(s, f, step, t0, timeout)
        except (OSError, ValueError) as e:
            print("error %s: %s" % (step, e))
            return 1
    return 0


def run_step(s, f, step, t0, timeout):
    """Run one step; return the clock's start, which "mark" restarts."""
    name, _, arg = step.partition(":")
    s.settimeout(timeout)
    if name == "send":
        s.sendall(arg.encode() + b"\n")
    elif name == "line":
        line = f.readline()
        print("line " + (line.decode().strip() if line else "EOF"))
    elif name == "echo":
        for line in f:
            s.sendall(line)
    elif name == "trickle":
        for i in range(int(arg)):
            s.sendall(b"line %d\n" % i)
            time.sleep(1)
    elif name == "drain":
        print("lines %d" % sum(1 for _ in f))
    elif name == "shut":
        s.shutdown(socket.SHUT_WR)
    elif name == "sleep":
        time.sleep(float(arg))
    elif name == "flag":
        with open(arg, "w") as flag:
            flag.write("%s\n" % step)
    elif name == "mark":
        t0 = time.monotonic()
    elif name == "end":
        print(end(s, t0, time.monotonic() + timeout))
    elif name == "close":
        s.close()
    else:
        raise ValueError("unknown step " + step)
    sys.stdout.flush()
    return t0


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bind")
    p.add_argument("--to")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--pidfile")
    p.add_argument("--timeout", type=float, default=30.0)
    p.add_argument("steps")
    args = p.parse_args()
    addr = args.bind or args.to
    family = socket.AF_INET6 if ":" in addr else socket.AF_INET
    if args.bind:
        ls = socket.socket(family, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((addr, args.port))
        ls.listen(1)
        if args.pidfile:
            write_pidfile(args.pidfile)
        ls.settimeout(args.timeout)
        s, _ = ls.accept()
    else:
        s = socket.create_connection((addr, args.port), timeout=args.timeout)
    return run(s, args.steps.split(","), args.timeout)


if __name__ == "__main__":
    sys.exit(main())
