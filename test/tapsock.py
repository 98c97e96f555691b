#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/tapsock.py - a tap device in a namespace, wired to passt's socket.

Usage: tapsock.py --sock PATH --tap NAME [--mtu N] [--mac MAC]
                  [--pidfile FILE]

A stand-in for QEMU in passt-mode tests: run as root in a network
namespace, it creates the tap device NAME there (IFF_TAP | IFF_NO_PI on
/dev/net/tun), sets its MTU (default 65520, passt's largest; 68 to 65520)
and, with --mac, its MAC address (else the kernel's random one stays),
brings it up, connects to passt's UNIX stream socket at PATH and relays
Ethernet frames both ways. The namespace's own stack, with busybox
udhcpc, the kernel's SLAAC, curl..., then is passt's guest.

On the socket, each frame is preceded by its length, a 32-bit big-endian
integer (passt's tap.c, and test/framing.py for a reader). The stream is
read 256 KiB at a time, whatever frame boundaries fall where: a frame cut
across reads waits in the buffer for its rest, several in one read are
all written to the tap, one write() each. From the tap, one read() is one
frame; the frames a poll() finds waiting (up to TAP_BATCH of them) go to
the socket in one sendall(). A frame longer than the tap's MTU plus the
Ethernet header, either way, is dropped and counted, as a NIC drops what
its MTU doesn't allow (the tap itself would take it); this also keeps
what we send passt within its own limit (65534 bytes), past which it
disconnects its guest. A length prefix of 0, or longer than any Ethernet
frame, means the stream is out of step: an error.

The socket is blocking: sendall() waits for passt to take the frames,
which it always does, since passt never waits for us to read (what we
leave unread it drops, as on a full link). The tap is not: reads go
until EAGAIN. Between events the process sleeps in poll(), no timeout.

The pidfile is written (atomically, test/pidfile.py) once the tap is up
and the socket connected. Exit status: 0 when passt closes the socket,
and on SIGTERM or SIGINT; 1 on any error, with a message naming what
failed. On exit, one line on stderr counts the frames and bytes each way
and the drops, the time since the relay started and the CPU time it took.
"""

import argparse
import errno
import fcntl
import os
import select
import signal
import socket
import struct
import sys
import time

from pidfile import write_pidfile

TUNSETIFF = 0x400454CA		# _IOW('T', 202, int), linux/if_tun.h
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
SIOCGIFFLAGS = 0x8913		# linux/sockios.h
SIOCSIFFLAGS = 0x8914
SIOCSIFMTU = 0x8922
SIOCSIFHWADDR = 0x8924
IFF_UP = 0x1
ARPHRD_ETHER = 1
IFNAMSIZ = 16
IFREQ_SIZE = 40			# struct ifreq: name, then a 24-byte union

ETH_HLEN = 14
MTU_MIN = 68			# IPv4's minimum, RFC 791
MTU_MAX = 65520			# passt's (passt.h): frames up to 65534 bytes
LEN_MAX = ETH_HLEN + 65535	# no Ethernet frame is longer: out of step
PREFIX = struct.Struct("!I")
RECV_SIZE = 256 * 1024
TAP_READ = 65536 + ETH_HLEN	# above any frame the tap can hold
TAP_BATCH = 64


class Fatal(Exception):
    """An error that ends the relay with exit status 1."""


class Stop(Exception):
    """SIGTERM or SIGINT: end the relay, exit status 0."""


def ifreq(name, fmt="", *args):
    """A struct ifreq for NAME, the union packed from FMT and ARGS."""
    req = struct.pack("%ds" % IFNAMSIZ, name.encode())
    return (req + struct.pack(fmt, *args)).ljust(IFREQ_SIZE, b"\0")


def tap_create(name):
    """Open /dev/net/tun as the tap NAME (created if missing), non-blocking."""
    try:
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as e:
        raise Fatal("cannot open /dev/net/tun: %s" % e.strerror)
    try:
        fcntl.ioctl(fd, TUNSETIFF, ifreq(name, "H", IFF_TAP | IFF_NO_PI))
    except OSError as e:
        os.close(fd)
        raise Fatal("cannot create tap %s (TUNSETIFF): %s" %
                    (name, e.strerror))
    return fd


def tap_setup(name, mtu, mac):
    """Set NAME's MTU, its MAC address if MAC, and bring it up."""
    ctl = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        what = "MTU %d" % mtu
        fcntl.ioctl(ctl, SIOCSIFMTU, ifreq(name, "i", mtu))
        if mac:
            what = "MAC address %s" % mac.hex(":")
            fcntl.ioctl(ctl, SIOCSIFHWADDR,
                        ifreq(name, "H6s", ARPHRD_ETHER, mac))
        what = "it up"
        req = fcntl.ioctl(ctl, SIOCGIFFLAGS, ifreq(name, "H", 0))
        (flags,) = struct.unpack_from("H", req, IFNAMSIZ)
        fcntl.ioctl(ctl, SIOCSIFFLAGS, ifreq(name, "H", flags | IFF_UP))
    except OSError as e:
        raise Fatal("cannot set %s on %s: %s" % (what, name, e.strerror))
    finally:
        ctl.close()


def sock_connect(path):
    """A blocking connection to passt's UNIX stream socket at PATH."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
    except OSError as e:
        s.close()
        raise Fatal("cannot connect to %s: %s" % (path, e.strerror))
    return s


class Relay:
    """Frames between the tap (fd) and passt's socket, with counters."""

    def __init__(self, tapfd, sock, mtu):
        self.tapfd = tapfd
        self.sock = sock
        self.frame_max = mtu + ETH_HLEN
        self.buf = bytearray(RECV_SIZE + PREFIX.size + LEN_MAX)
        self.view = memoryview(self.buf)
        self.have = 0			# bytes of the stream in buf
        self.to_tap = self.to_tap_bytes = 0
        self.from_tap = self.from_tap_bytes = 0
        self.long_to_tap = self.long_from_tap = 0
        self.tap_write_errors = 0
        self.start = time.monotonic()
        self.cpu = time.process_time()

    def sock_readable(self):
        """Read from passt, write whole frames to the tap.

        Return: False once passt closed the socket
        """
        try:
            n = self.sock.recv_into(self.view[self.have:])
        except ConnectionResetError:
            return False
        if not n:
            return False
        self.have += n

        off = 0
        while self.have - off >= PREFIX.size:
            (n,) = PREFIX.unpack_from(self.buf, off)
            if not n or n > LEN_MAX:
                raise Fatal("length prefix %d from passt at stream offset "
                            "%d: out of step" % (n, off))
            if self.have - off - PREFIX.size < n:
                break			# the rest comes with a later read
            off += PREFIX.size
            self.tap_write(self.view[off:off + n])
            off += n
        if off:
            self.buf[:self.have - off] = self.buf[off:self.have]
            self.have -= off
        return True

    def tap_write(self, frame):
        """Write one frame to the tap, or count why not."""
        if len(frame) > self.frame_max:
            self.long_to_tap += 1
            return
        try:
            os.write(self.tapfd, frame)
        except OSError as e:
            # Short frames, a full backlog: that frame is lost, as on a
            # link; anything else means the tap is gone
            if e.errno not in (errno.EINVAL, errno.EAGAIN, errno.ENOBUFS,
                               errno.ENOMEM):
                raise Fatal("tap write: %s" % e.strerror)
            self.tap_write_errors += 1
            return
        self.to_tap += 1
        self.to_tap_bytes += len(frame)

    def tap_readable(self):
        """Read the frames waiting on the tap, send them to passt at once.

        Return: False once passt closed the socket
        """
        out = []
        for _ in range(TAP_BATCH):
            try:
                frame = os.read(self.tapfd, TAP_READ)
            except BlockingIOError:
                break
            except OSError as e:
                raise Fatal("tap read: %s" % e.strerror)
            if len(frame) > self.frame_max:
                self.long_from_tap += 1
                continue
            out += (PREFIX.pack(len(frame)), frame)
            self.from_tap += 1
            self.from_tap_bytes += len(frame)
        if out:
            try:
                self.sock.sendall(b"".join(out))
            except (BrokenPipeError, ConnectionResetError):
                return False
        return True

    def run(self):
        """Relay until passt closes the socket (or an exception)."""
        p = select.poll()
        p.register(self.tapfd, select.POLLIN)
        p.register(self.sock, select.POLLIN)
        sockfd = self.sock.fileno()
        while True:
            for fd, ev in p.poll():
                if fd == sockfd:
                    if not self.sock_readable():
                        return
                elif ev & (select.POLLERR | select.POLLHUP | select.POLLNVAL):
                    raise Fatal("tap: poll() events 0x%x" % ev)
                elif not self.tap_readable():
                    return

    def summary(self):
        """The counters, in one line."""
        cpu = time.process_time()
        return ("to the tap %d frames (%d bytes), from the tap %d frames "
                "(%d bytes); dropped: %d longer than the MTU from passt, %d "
                "from the tap, %d tap write errors; %.1f s, %.3f s CPU" %
                (self.to_tap, self.to_tap_bytes, self.from_tap,
                 self.from_tap_bytes, self.long_to_tap, self.long_from_tap,
                 self.tap_write_errors, time.monotonic() - self.start,
                 cpu - self.cpu))


def parse_mac(text):
    """MAC bytes from aa:bb:cc:dd:ee:ff: unicast, else argparse's error."""
    try:
        mac = bytes.fromhex(text.replace(":", ""))
    except ValueError:
        mac = b""
    if len(mac) != 6 or text.count(":") != 5 or mac[0] & 1:
        raise argparse.ArgumentTypeError("not a unicast MAC address: '%s'"
                                         % text)
    return mac


def parse_mtu(text):
    """An MTU from MTU_MIN to MTU_MAX, else argparse's error."""
    try:
        mtu = int(text)
    except ValueError:
        mtu = 0
    if not MTU_MIN <= mtu <= MTU_MAX:
        raise argparse.ArgumentTypeError("MTU '%s' not from %d to %d" %
                                         (text, MTU_MIN, MTU_MAX))
    return mtu


def parse_tap(text):
    """An interface name that fits IFNAMSIZ, else argparse's error."""
    if (not 0 < len(text.encode()) < IFNAMSIZ or "/" in text
            or text.split() != [text]):
        raise argparse.ArgumentTypeError("not an interface name: '%s'" % text)
    return text


def on_signal(signum, frame):
    raise Stop(signal.Signals(signum).name)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sock", required=True, help="passt's socket (-s PATH)")
    p.add_argument("--tap", required=True, type=parse_tap,
                   help="tap device name")
    p.add_argument("--mtu", type=parse_mtu, default=MTU_MAX)
    p.add_argument("--mac", type=parse_mac, help="else the kernel's")
    p.add_argument("--pidfile")
    a = p.parse_args()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    relay = None
    why = "passt closed the socket"
    try:
        tapfd = tap_create(a.tap)
        tap_setup(a.tap, a.mtu, a.mac)
        relay = Relay(tapfd, sock_connect(a.sock), a.mtu)
        if a.pidfile:
            try:
                write_pidfile(a.pidfile)
            except OSError as e:
                raise Fatal("cannot write %s: %s" % (a.pidfile, e.strerror))
        relay.run()
    except Fatal as e:
        print("tapsock: %s" % e, file=sys.stderr)
        if relay:
            print("tapsock: %s" % relay.summary(), file=sys.stderr)
        return 1
    except Stop as e:
        why = e.args[0]
    if relay:
        print("tapsock: %s: %s" % (why, relay.summary()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
