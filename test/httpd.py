#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Small threaded HTTP/1.1 server for the pasta integration tests.

Usage: httpd.py --bind ADDR --port PORT --dir DIR [--pidfile FILE]

  GET  /NAME          serve DIR/NAME (Content-Length, streamed with sendfile)
  PUT  /NAME          store the request body in DIR/NAME (Content-Length or
  POST /NAME          chunked), reply 201 with the body's sha256 in hex
  GET  /NAME?rate=R   the same, paced to R bytes a second
  PUT  /NAME?rate=R   the same, the body read at R bytes a second (the
                      client's data waits, windows close: long enough for
                      something to happen to the connection meanwhile)
  GET  /reset?bytes=N announce 64 MiB, send N bytes, then abort the
                      connection with SO_LINGER {1, 0} so the client sees
                      an RST in the middle of the transfer
  GET  /peer          reply with the client's address as text (an IPv4
                      client of a dual-stack socket as plain IPv4)
  GET  /local         the same for the address the client connected to

--bind takes an IPv4 or IPv6 address; "::" is dual-stack (IPv6 and IPv4
clients alike).  The pidfile is written (atomically) only once the socket
is listening, so a harness can poll for it instead of sleeping.  Logging
is quiet.
"""

import argparse
import hashlib
import http.server
import os
import socket
import socketserver
import struct
import sys
import time
import urllib.parse

from pidfile import write_pidfile

CHUNK = 256 * 1024
RESET_ANNOUNCED = 64 * 1024 * 1024


def plain_addr(addr):
    """An IPv4-mapped IPv6 address (::ffff:a.b.c.d) as a.b.c.d."""
    if addr.lower().startswith("::ffff:") and "." in addr:
        return addr[7:]
    return addr


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "pastatest-httpd/1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def _name(self):
        """Return the file name under --dir for this request, or None."""
        path = urllib.parse.urlsplit(self.path).path
        name = urllib.parse.unquote(path.lstrip("/"))
        if not name or "/" in name or name in (".", ".."):
            return None
        return os.path.join(self.server.dir, name)

    def _rate(self):
        """Bytes a second the request asks for (?rate=R), 0 for no pacing."""
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
        try:
            return max(int(query.get("rate", ["0"])[0]), 0)
        except ValueError:
            return 0

    def _pace(self, start, done, rate):
        """Sleep until done bytes are due at rate since start."""
        if rate:
            ahead = start + done / rate - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)

    def _reply_text(self, code, text):
        body = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/peer":
            self._reply_text(200, plain_addr(self.client_address[0]) + "\n")
            return
        if url.path == "/local":
            local = self.connection.getsockname()[0]
            self._reply_text(200, plain_addr(local) + "\n")
            return
        if url.path == "/reset":
            self._reset(urllib.parse.parse_qs(url.query))
            return
        path = self._name()
        if path is None or not os.path.isfile(path):
            self._reply_text(404, "not found\n")
            return
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(size))
            self.end_headers()
            self.wfile.flush()
            rate = self._rate()
            if size and not rate:
                self.connection.sendfile(f)
            start, done = time.monotonic(), 0
            while rate and done < size:
                data = f.read(CHUNK // 4)
                self.connection.sendall(data)
                done += len(data)
                self._pace(start, done, rate)

    def _reset(self, query):
        try:
            n = int(query.get("bytes", ["0"])[0])
        except ValueError:
            self._reply_text(400, "bad bytes\n")
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Length", str(RESET_ANNOUNCED))
        self.end_headers()
        self.wfile.flush()
        block = b"\xa5" * CHUNK
        while n > 0:
            k = min(n, CHUNK)
            self.connection.sendall(block[:k])
            n -= k
        # Abortive close: with SO_LINGER {on, 0}, close() sends an RST
        # instead of a FIN.  Detach the fd so that nothing in socketserver
        # can shutdown(SHUT_WR) (that would send a FIN first).
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                   struct.pack("ii", 1, 0))
        os.close(self.connection.detach())
        self.close_connection = True

    def _body_chunks(self):
        """Yield the request body, from Content-Length or chunked coding."""
        te = self.headers.get("Transfer-Encoding", "").lower()
        if "chunked" in te:
            while True:
                line = self.rfile.readline(1024)
                if not line:
                    raise ConnectionError("truncated chunked body")
                size = int(line.split(b";", 1)[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n",
                                                            b""):
                        pass  # trailers
                    return
                while size > 0:
                    data = self.rfile.read(min(size, CHUNK))
                    if not data:
                        raise ConnectionError("truncated chunk")
                    size -= len(data)
                    yield data
                self.rfile.readline(16)  # CRLF after the chunk
            return
        left = int(self.headers.get("Content-Length", "0"))
        while left > 0:
            data = self.rfile.read(min(left, CHUNK))
            if not data:
                raise ConnectionError("truncated body")
            left -= len(data)
            yield data

    def do_PUT(self):
        path = self._name()
        if path is None:
            self._reply_text(400, "bad name\n")
            return
        tmp = path + ".part.%d" % os.getpid()
        h = hashlib.sha256()
        rate, start, done = self._rate(), time.monotonic(), 0
        try:
            with open(tmp, "wb") as f:
                for data in self._body_chunks():
                    h.update(data)
                    f.write(data)
                    done += len(data)
                    self._pace(start, done, rate)
        except (ConnectionError, ValueError):
            os.unlink(tmp)
            self.close_connection = True
            return
        os.rename(tmp, path)
        self._reply_text(201, h.hexdigest() + "\n")

    do_POST = do_PUT


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 1024  # many concurrent short connections

    def __init__(self, addr, handler, family):
        self.address_family = family
        super().__init__(addr, handler)

    def server_bind(self):
        # IPv6 sockets take IPv4 clients too, whatever bindv6only says; no
        # getfqdn() of the address (a reverse lookup that may wait on DNS)
        if self.address_family == socket.AF_INET6:
            self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]

    def handle_error(self, request, client_address):
        pass  # clients that go away are expected (reset test, timeouts)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bind", default="0.0.0.0")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--dir", required=True)
    p.add_argument("--pidfile")
    a = p.parse_args()

    family = socket.AF_INET6 if ":" in a.bind else socket.AF_INET
    srv = Server((a.bind, a.port), Handler, family)
    srv.dir = a.dir
    if a.pidfile:
        write_pidfile(a.pidfile)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
