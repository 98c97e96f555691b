#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/load.py - many TCP connections at once, or many a second.

Usage:
  load.py server ADDR PORT PIDFILE
  load.py hold ADDR PORT COUNT READY GO [TIMEOUT]
  load.py rate ADDR PORT RATE SECS

server: for each connection, read one byte and answer it with one byte;
  after b"q", close, after b"h", keep the connection until the client
  sends another byte or closes, then close. The server closes first: its
  side keeps the TIME_WAIT, not the client's nor pasta's, whose ephemeral
  ports would run out. Writes PIDFILE once listening.
hold: open COUNT connections (at most 500 handshakes at a time), each
  sends b"h" and must get its byte back; then write "held N failed F" to
  READY, wait (at most TIMEOUT s, default 120) until the file GO exists,
  check that every connection is still open (no EOF, no error), have
  the server close them all (a byte each, then EOF), and print "held N failed F open_at_go O seconds S".
rate: start RATE connections a second for SECS seconds, each: connect,
  send b"q", read the byte, read EOF, close; print "started N ok K failed
  F rate R offered O p50_ms M p99_ms L": R completed connections a second
  from the first start to the last completion, O started a second (the
  schedule kept), M and L the median and 99th percentile of the time from
  start to close, as the client sees it (its own scheduling included).

Every wait is bounded: a connection gets 10 s for its exchange.
"""

import asyncio
import os
import sys
import time

EXCHANGE_S = 10


async def serve_conn(reader, writer):
    try:
        b = await asyncio.wait_for(reader.read(1), 60)
        if b:
            writer.write(b)
            await writer.drain()
            if b == b"h":
                await reader.read(1)	# until the client closes
    except (OSError, asyncio.TimeoutError):
        pass
    finally:
        writer.close()


async def server(addr, port, pidfile):
    srv = await asyncio.start_server(serve_conn, addr, port, backlog=4096,
                                     reuse_address=True)
    with open(pidfile + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(pidfile + ".tmp", pidfile)
    async with srv:
        await srv.serve_forever()


async def exchange(addr, port, what):
    r, w = await asyncio.wait_for(asyncio.open_connection(addr, port),
                                  EXCHANGE_S)
    try:
        w.write(what)
        b = await asyncio.wait_for(r.readexactly(1), EXCHANGE_S)
        if b != what:
            raise OSError("wrong byte back")
    except BaseException:
        w.close()
        raise
    return r, w


async def hold(addr, port, count, ready, go, timeout):
    sem = asyncio.Semaphore(500)
    conns, failed = [], 0

    async def one():
        nonlocal failed
        async with sem:
            try:
                conns.append(await exchange(addr, port, b"h"))
            except (OSError, asyncio.TimeoutError,
                    asyncio.IncompleteReadError):
                failed += 1

    t0 = time.monotonic()
    await asyncio.gather(*(one() for _ in range(count)))
    with open(ready + ".tmp", "w") as f:
        f.write("held %d failed %d\n" % (len(conns), failed))
    os.rename(ready + ".tmp", ready)
    end = time.monotonic() + timeout
    while not os.path.exists(go) and time.monotonic() < end:
        await asyncio.sleep(0.1)
    # Still open: nothing to read yet, no EOF
    still = sum(1 for r, _ in conns if not r.at_eof() and
                r.exception() is None)

    async def close(r, w):
        async with sem:
            try:
                w.write(b"c")
                await asyncio.wait_for(r.read(1), EXCHANGE_S)
            except (OSError, asyncio.TimeoutError):
                pass
            w.close()

    await asyncio.gather(*(close(r, w) for r, w in conns))
    print("held %d failed %d open_at_go %d seconds %.1f" %
          (len(conns), failed, still, time.monotonic() - t0))


async def rate(addr, port, per_s, secs):
    ok = failed = 0
    lat = []
    tasks = []

    async def one():
        nonlocal ok, failed
        t = time.monotonic()
        try:
            r, w = await exchange(addr, port, b"q")
            try:
                if await asyncio.wait_for(r.read(1), EXCHANGE_S):
                    raise OSError("no EOF")
            finally:
                w.close()
            ok += 1
            lat.append(time.monotonic() - t)
        except (OSError, asyncio.TimeoutError,
                asyncio.IncompleteReadError):
            failed += 1

    t0 = time.monotonic()
    n = per_s * secs
    for i in range(n):
        delay = t0 + i / per_s - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.ensure_future(one()))
        if len(tasks) >= 1000:		# keep the list short
            tasks = [t for t in tasks if not t.done()]
    offered = n / (time.monotonic() - t0 + 1 / per_s)
    await asyncio.gather(*tasks)
    dt = time.monotonic() - t0
    lat.sort()
    p50 = lat[len(lat) // 2] * 1000 if lat else 0
    p99 = lat[int(len(lat) * 0.99)] * 1000 if lat else 0
    print("started %d ok %d failed %d rate %.0f offered %.0f p50_ms %.1f "
          "p99_ms %.1f" % (n, ok, failed, ok / dt, offered, p50, p99))


def main():
    mode, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if mode == "server":
        asyncio.run(server(addr, port, sys.argv[4]))
    elif mode == "hold":
        timeout = float(sys.argv[7]) if len(sys.argv) > 7 else 120
        asyncio.run(hold(addr, port, int(sys.argv[4]), sys.argv[5],
                         sys.argv[6], timeout))
    elif mode == "rate":
        asyncio.run(rate(addr, port, int(sys.argv[4]), int(sys.argv[5])))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
