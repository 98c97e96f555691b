#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run one QMP command on QEMU's monitor socket, print its result as JSON.

Usage: qmp.py SOCKET COMMAND [ARGUMENTS-AS-JSON]
  Exit status 0 with the "return" value printed, 1 with the error printed.
  Events that come meanwhile are skipped. Bounded: 10 s in all.
"""

import json
import socket
import sys


def reply(f):
    """The next line that isn't an event."""
    while True:
        line = f.readline()
        if not line:
            raise EOFError("QMP: connection closed")
        msg = json.loads(line)
        if "event" not in msg:
            return msg


def main():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(10)
    s.connect(sys.argv[1])
    f = s.makefile("rw")
    reply(f)                                    # the greeting
    for cmd, args in (("qmp_capabilities", {}),
                      (sys.argv[2], json.loads(sys.argv[3])
                       if len(sys.argv) > 3 else {})):
        f.write(json.dumps({"execute": cmd, "arguments": args}) + "\n")
        f.flush()
        msg = reply(f)
    print(json.dumps(msg.get("return", msg.get("error"))))
    sys.exit(0 if "return" in msg else 1)


if __name__ == "__main__":
    main()
