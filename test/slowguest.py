#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A stand-in passt guest that downloads over TCP and reads its socket slowly.

Usage: slowguest.py SOCKET DST PORT N

Connects to passt's UNIX socket, opens N TCP connections from the guest's
address (framing.GUEST, ports 40000 and up) to DST:PORT with a 24 MiB
window each, and reads the server's streams, in pauses: 5 ms every 64 frames, so that passt's socket to
us fills and its writes find no room. Every 16 segments, after 40 ms without
a frame, and at the FIN, it acknowledges what it has in order; a segment past that (a hole: something
was lost on the way) is counted and dropped, as a guest without SACK would
do; one it has already draws an ACK at once, as RFC 9293 asks; of one that
starts before what it has, only the new part is taken (a retransmission
needn't repeat the first one's boundaries). Ends at the server's FINs, or after 60 s. Prints one line for each
connection: "bytes=N holes=N sha256=HEX fin=0|1".
"""

import hashlib
import select
import socket
import struct
import sys
import time

import framing
from framing import csum

ISN = 1000
WSCALE = 9
WINDOW = 24 << 20


def tcp_frame(mac_to, src, dst, sport, dport, seq, ack, flags, opts=b""):
    """One Ethernet frame with a TCP segment without payload."""
    off = (20 + len(opts)) // 4
    wnd = 65535 if flags & 0x02 else WINDOW >> WSCALE
    seg = struct.pack("!HHIIBBHHH", sport, dport, seq, ack, off << 4, flags,
                      wnd, 0, 0) + opts
    pseudo = src + dst + struct.pack("!BBH", 0, socket.IPPROTO_TCP, len(seg))
    seg = seg[:16] + struct.pack("!H", csum(pseudo + seg)) + seg[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(seg), 0, 0x4000, 64,
                     socket.IPPROTO_TCP, 0, src, dst)
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    frame = mac_to + framing.MAC + b"\x08\x00" + ip + seg
    return struct.pack("!I", len(frame)) + frame


class Conn:
    """One download: what we expect next, what we have."""

    def __init__(self, sport):
        self.sport = sport
        self.expect = None
        self.got = self.holes = self.unacked = 0
        self.fin = False
        self.digest = hashlib.sha256()


def main():
    path, dst, port, n = (sys.argv[1], sys.argv[2], int(sys.argv[3]),
                          int(sys.argv[4]))
    src, dsta = socket.inet_aton(framing.GUEST), socket.inet_aton(dst)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    s.settimeout(5)
    s.connect(path)

    s.sendall(framing.arp_request(framing.GW))
    f = framing.read_frame(s)
    while f is not None and not framing.is_arp_reply(f, framing.GW):
        f = framing.read_frame(s)
    mac = f[6:12]

    def send(c, seq, ack, flags, opts=b""):
        s.sendall(tcp_frame(mac, src, dsta, c.sport, port, seq, ack, flags,
                            opts))

    conns = {40000 + i: Conn(40000 + i) for i in range(n)}
    opts = struct.pack("!BBH", 2, 4, 1460) + struct.pack("!BBBB", 1, 3, 3,
                                                         WSCALE)
    for c in conns.values():
        send(c, ISN, 0, 0x02, opts)
    frames = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and \
            not all(c.fin for c in conns.values()):
        if not select.select([s], [], [], 0.04)[0]:
            for c in conns.values():	# a delayed ACK's timer
                if c.unacked:
                    send(c, ISN + 1, c.expect, 0x10)
                    c.unacked = 0
            continue
        f = framing.read_frame(s)
        if f is None:
            break
        frames += 1
        if frames % 64 == 0:
            time.sleep(0.005)
        if len(f) < 54 or f[12:14] != b"\x08\x00" or f[23] != 6:
            continue
        ihl = (f[14] & 0x0f) * 4
        tcp = f[14 + ihl:]
        tot = struct.unpack("!H", f[16:18])[0]
        sp, dp, seq, _, offf, flags = struct.unpack("!HHIIBB", tcp[:14])
        c = conns.get(dp)
        if sp != port or c is None:
            continue
        payload = tcp[(offf >> 4) * 4:tot - ihl]
        if flags & 0x02:			# SYN-ACK
            c.expect = (seq + 1) & 0xffffffff
            send(c, ISN + 1, c.expect, 0x10)
            continue
        if c.expect is None:
            continue
        behind = (c.expect - seq) & 0xffffffff
        if behind < (1 << 31) and behind < len(payload):
            payload, seq = payload[behind:], c.expect	# partly old
        if seq != c.expect:
            if payload and ((seq - c.expect) & 0xffffffff) < (1 << 31):
                c.holes += 1
            elif payload:		# old: say what we have, at once
                send(c, ISN + 1, c.expect, 0x10 | (0x01 if c.fin else 0))
            continue
        if payload:
            c.digest.update(payload)
            c.got += len(payload)
            c.expect = (c.expect + len(payload)) & 0xffffffff
            c.unacked += 1
        if flags & 0x01:
            c.expect = (c.expect + 1) & 0xffffffff
            c.fin = True
        if c.unacked >= 16 or c.fin:
            send(c, ISN + 1, c.expect, 0x10 | (0x01 if c.fin else 0))
            c.unacked = 0
    for c in conns.values():
        print("bytes=%d holes=%d sha256=%s fin=%d" %
              (c.got, c.holes, c.digest.hexdigest(), c.fin))


if __name__ == "__main__":
    main()
