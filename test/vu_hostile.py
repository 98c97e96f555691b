#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""A hostile vhost-user front-end, for test/86-vhost-user-hostile.t.

Usage: vu_hostile.py SOCKET

Connects to passt --vhost-user as QEMU would, and prints one line per
check, "ok NAME" or "fail NAME DETAIL":
  - requests that make no sense, each with reply-ack asked: a ring that
    doesn't exist, a ring size that isn't a power of two, a memory table of
    nine regions, or of one without its descriptor, ring addresses outside
    guest memory, features we weren't offered, an unknown request: each one
    refused (ack 1), the session going on;
  - then a real session on a memfd: a transmit ring whose chains loop, point
    outside guest memory, use indirect descriptors, or are too long, kicked:
    each given back unused (the used index moves past them);
  - with event indices: a kick for a ring's worth of chains, then one more
    chain, kicked only if passt asked for it (avail_event): taken too;
  - an available index that runs away: the ring is stopped, nothing else;
  - a message whose size field is absurd: the front-end is dropped, and a
    new one is served.
"""

import mmap
import os
import socket
import struct
import sys
import time

VERSION, REPLY, NEED_REPLY = 0x1, 0x4, 0x8
GET_FEATURES, SET_FEATURES, SET_OWNER = 1, 2, 3
SET_MEM_TABLE, SET_VRING_NUM, SET_VRING_ADDR = 5, 8, 9
SET_VRING_BASE, SET_VRING_KICK, SET_VRING_CALL = 10, 12, 13
GET_PROTOCOL_FEATURES, SET_PROTOCOL_FEATURES = 15, 16
SET_VRING_ENABLE = 18
REPLY_ACK = 1 << 3
F_PROTOCOL = 1 << 30
F_EVENT_IDX = 1 << 29

MEM = 1 << 20           # guest memory: one memfd region
GPA = 0x40000000        # where the guest sees it
UVA = 0x7f1234000000    # where the front-end maps it
NUM = 128               # ring size: a wake-up's reads (LINK_READS_MAX)
DESC, AVAIL, USED = 0x1000, 0x2000, 0x3000      # offsets in the region


def msg(sock, req, payload=b"", fds=(), ack=False):
    flags = VERSION | (NEED_REPLY if ack else 0)
    data = struct.pack("<III", req, flags, len(payload)) + payload
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.sendall(data)
    if not ack and req not in (GET_FEATURES, GET_PROTOCOL_FEATURES):
        return None
    hdr = sock.recv(12, socket.MSG_WAITALL)
    if len(hdr) < 12:
        return None
    _, rflags, size = struct.unpack("<III", hdr)
    body = sock.recv(size, socket.MSG_WAITALL)
    return struct.unpack("<Q", body)[0] if size == 8 else None


def report(name, good, detail=""):
    print(("ok %s" % name) if good else ("fail %s %s" % (name, detail)))
    sys.stdout.flush()


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    return s


def refusals(s):
    feats = msg(s, GET_FEATURES)
    report("features", feats is not None and feats & F_PROTOCOL and
           feats & (1 << 32), "0x%x" % (feats or 0))
    msg(s, GET_PROTOCOL_FEATURES)
    msg(s, SET_PROTOCOL_FEATURES, struct.pack("<Q", REPLY_ACK))
    bad = {
        "ring_index": (SET_VRING_NUM, struct.pack("<II", 7, 16), ()),
        "ring_size": (SET_VRING_NUM, struct.pack("<II", 0, 3), ()),
        "regions_9": (SET_MEM_TABLE, struct.pack("<II", 9, 0) +
                      bytes(32 * 9), ()),
        "region_no_fd": (SET_MEM_TABLE, struct.pack("<II", 1, 0) +
                         struct.pack("<QQQQ", GPA, MEM, UVA, 0), ()),
        "ring_outside": (SET_VRING_ADDR, struct.pack("<IIQQQQ", 0, 0,
                         0x1000, 0x2000, 0x3000, 0), ()),
        "features": (SET_FEATURES, struct.pack("<Q", 1 << 63), ()),
        "unknown": (99, b"", ()),
        "kick_index": (SET_VRING_KICK, struct.pack("<Q", 9), ()),
    }
    for name, (req, payload, fds) in bad.items():
        r = msg(s, req, payload, fds, ack=True)
        report("refused_" + name, r == 1, "ack %s" % r)


def ring_session(s):
    fd = os.memfd_create("guest")
    os.ftruncate(fd, MEM)
    m = mmap.mmap(fd, MEM)
    msg(s, SET_FEATURES, struct.pack("<Q", F_PROTOCOL | (1 << 32) | F_EVENT_IDX))
    r = msg(s, SET_MEM_TABLE, struct.pack("<II", 1, 0) +
            struct.pack("<QQQQ", GPA, MEM, UVA, 0), [fd], ack=True)
    report("mem_table", r == 0, "ack %s" % r)
    for q in (0, 1):
        msg(s, SET_VRING_NUM, struct.pack("<II", q, NUM))
        r = msg(s, SET_VRING_ADDR, struct.pack(
            "<IIQQQQ", q, 0, UVA + DESC + q * 0x10000, UVA + USED +
            q * 0x10000, UVA + AVAIL + q * 0x10000, 0), ack=True)
        report("ring_addr_%d" % q, r == 0, "ack %s" % r)
        msg(s, SET_VRING_BASE, struct.pack("<II", q, 0))
    kick = os.eventfd(0)
    call = os.eventfd(0)
    msg(s, SET_VRING_CALL, struct.pack("<Q", 1), [call])
    msg(s, SET_VRING_KICK, struct.pack("<Q", 1), [kick])
    msg(s, SET_VRING_ENABLE, struct.pack("<II", 1, 1))
    msg(s, SET_VRING_ENABLE, struct.pack("<II", 0, 1))

    base = 0x10000      # ring 1, the guest's transmit ring
    desc = [
        (GPA + 0x8000, 64, 1, 1), (GPA + 0x8000, 64, 1, 0),     # a loop
        (GPA + MEM - 16, 64, 0, 0),             # past guest memory
        (GPA + 0x8000, 64, 4, 0),               # indirect
        (0xffffffffffff0000, 0xffffffff, 0, 0),  # absurd
    ]
    for i, d in enumerate(desc):
        m[base + DESC + 16 * i:base + DESC + 16 * (i + 1)] = \
            struct.pack("<QIHH", *d)
    heads = [0, 2, 3, 4]
    for i, h in enumerate(heads):
        off = base + AVAIL + 4 + 2 * i
        m[off:off + 2] = struct.pack("<H", h)
    m[base + AVAIL + 2:base + AVAIL + 4] = struct.pack("<H", len(heads))
    os.eventfd_write(kick, 1)
    used = 0
    for _ in range(50):
        used = struct.unpack("<H", m[base + USED + 2:base + USED + 4])[0]
        if used == len(heads):
            break
        time.sleep(0.1)
    report("bad_chains_given_back", used == len(heads),
           "used index %d, want %d" % (used, len(heads)))

    event_idx_kick(m, base, kick, len(heads))

    m[base + AVAIL + 2:base + AVAIL + 4] = struct.pack("<H", 1000)
    os.eventfd_write(kick, 1)
    time.sleep(0.5)
    report("runaway_index_survived", msg(s, GET_FEATURES) is not None)


def event_idx_kick(m, base, kick, avail):
    """NUM chains at once, one kick: a wake-up's whole share of reads
    (LINK_READS_MAX) that empties the ring. Then one more chain, kicked as a
    driver with event indices does: only if the available index passes the
    one passt asked for (avail_event, after the used ring). Before, passt
    asked for none at the end of such a wake-up: the guest never kicked
    again, and its transmit ring was never read again."""
    def used_idx():
        return struct.unpack("<H", m[base + USED + 2:base + USED + 4])[0]

    def post(n):
        nonlocal avail
        for _ in range(n):
            off = base + AVAIL + 4 + 2 * (avail % NUM)
            m[off:off + 2] = struct.pack("<H", 2)   # past guest memory
            avail += 1
        m[base + AVAIL + 2:base + AVAIL + 4] = struct.pack("<H", avail & 0xffff)

    def wait_used(want):
        for _ in range(50):
            if used_idx() == want:
                return True
            time.sleep(0.1)
        return False

    post(NUM)
    os.eventfd_write(kick, 1)
    drained = wait_used(avail)
    old = avail
    post(1)
    event = struct.unpack("<H", m[base + USED + 4 + 8 * NUM:
                                  base + USED + 6 + 8 * NUM])[0]
    if ((avail - event - 1) & 0xffff) < ((avail - old) & 0xffff):
        os.eventfd_write(kick, 1)
    report("event_idx_kick", drained and wait_used(avail),
           "used index %d, want %d; avail_event %d" % (used_idx(), avail,
                                                      event))


def main():
    path = sys.argv[1]
    s = connect(path)
    refusals(s)
    ring_session(s)
    s.sendall(struct.pack("<III", GET_FEATURES, VERSION, 1 << 30))
    s.settimeout(3)
    try:
        gone = s.recv(12) == b""
    except OSError:
        gone = True
    report("absurd_size_dropped", gone)
    s.close()
    try:
        s = connect(path)
        report("next_front_end_served", msg(s, GET_FEATURES) is not None)
    except OSError as e:
        report("next_front_end_served", False, str(e))


if __name__ == "__main__":
    main()
