#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""test/guest/passt_fd.py - start passt as QEMU's -netdev passt does, then QEMU.

QEMU 10.1's passt backend (net/passt.c) creates an empty temporary PID
file, a socketpair, and runs passt with its options, then "--pid TMPFILE
--fd 3", one end of the pair as file descriptor 3 and every other one
closed; it waits for that process to exit (passt goes to the background
once ready: the parent's exit says so), fails unless it exited with status
0, reads the PID of the daemon from the file, and talks to passt over the
other end, with passt's own framing (a 32-bit big-endian length before each
frame), as -netdev stream does.

QEMU 7.2 has no -netdev passt: this does the launching part in its place,
then execs QEMU with the other end of the pair as a stream netdev
(addr.type=fd: the socket address type QEMU 10.1 uses for it too).

Usage: passt_fd.py --status FILE --out FILE --err FILE [--tmpdir DIR]
                   [--wait SECS] -- PASST [OPTION]... -- QEMU [ARG]...

PASST's standard output and error go to --out and --err (QEMU would have
them go to its own: they are kept apart here, to be checked). The word
@FD@ in QEMU's arguments becomes the number of QEMU's end of the pair.
--status gets "key=value" lines, written whole (aside, then renamed) before
QEMU starts:
    cmdline=...        passt's command line, shell-quoted
    passt_rc=N         exit status of the process we started (or "timeout")
    parent_pid=N       its PID
    pid=N              the PID passt wrote to the temporary file (or "")
    alive=0|1          whether that process ran when we read the file
    pid_not_parent=0|1 it is not the process that exited
If passt fails (status non-zero, no PID), QEMU is not started and we exit 1.
"""

import argparse
import os
import shlex
import socket
import subprocess
import sys
import tempfile


def write_status(path, items):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        for k, v in items:
            f.write("%s=%s\n" % (k, v))
    os.rename(tmp, path)


def main():
    ap = argparse.ArgumentParser(
        usage="%(prog)s --status FILE --out FILE --err FILE [--tmpdir DIR] "
              "[--wait SECS] -- PASST [OPTION]... -- QEMU [ARG]...")
    ap.add_argument("--status", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--err", required=True)
    ap.add_argument("--tmpdir", default=None)
    ap.add_argument("--wait", type=float, default=20)
    args = sys.argv[1:]
    if args.count("--") < 2:
        ap.error("-- PASST ... -- QEMU ... expected")
    i = args.index("--")
    j = args.index("--", i + 1)
    a = ap.parse_args(args[:i])
    passt, qemu = args[i + 1:j], args[j + 1:]
    if not passt or not qemu:
        ap.error("-- PASST ... -- QEMU ... expected")

    # g_file_open_tmp("passt-XXXXXX.pid"): created, empty, closed
    fd, pidfile = tempfile.mkstemp(prefix="passt-", suffix=".pid",
                                   dir=a.tmpdir)
    os.close(fd)
    argv = passt + ["--pid", pidfile, "--fd", "3"]

    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    tfd = theirs.fileno()

    def as_fd3():
        # g_subprocess_launcher_take_fd(launcher, sock, 3)
        if tfd == 3:
            os.set_inheritable(3, True)
        else:
            os.dup2(tfd, 3, inheritable=True)

    status = [("cmdline", shlex.join(argv))]
    with open(a.out, "wb") as out, open(a.err, "wb") as err:
        p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                             stderr=err, close_fds=True, pass_fds=(3,),
                             preexec_fn=as_fd3)
    theirs.close()		# QEMU: close(sv[1]) once passt started
    try:
        rc = p.wait(timeout=a.wait)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        rc = "timeout"
    status += [("passt_rc", rc), ("parent_pid", p.pid)]

    try:
        with open(pidfile) as f:
            contents = f.read()
    except OSError as e:
        contents = ""
        status.append(("pidfile_error", str(e).replace("\n", " ")))
    try:
        pid = int(contents.strip())
    except ValueError:
        pid = 0
    alive = 0
    if pid > 0:
        try:
            os.kill(pid, 0)
            alive = 1
        except OSError:
            pass
    status += [("pid", pid if pid > 0 else ""), ("alive", alive),
               ("pid_not_parent", int(pid > 0 and pid != p.pid))]
    write_status(a.status, status)
    os.unlink(pidfile)	# QEMU removes it in its cleanup

    if rc != 0 or pid <= 0:
        print("passt_fd.py: passt failed (status %s, PID '%s'): QEMU not "
              "started" % (rc, contents.strip()), file=sys.stderr)
        return 1

    qfd = ours.detach()
    os.set_inheritable(qfd, True)
    qemu = [w.replace("@FD@", str(qfd)) for w in qemu]
    sys.stdout.flush()
    os.execvp(qemu[0], qemu)


if __name__ == "__main__":
    sys.exit(main())
