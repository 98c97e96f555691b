# SPDX-License-Identifier: GPL-2.0-or-later
"""test/pidfile.py - what the test servers share: the ready signal.

A server writes its PID file once its sockets are bound: the tests wait
for the file. It appears whole (written aside, then renamed), so a reader
never sees it half-written.
"""

import os


def write_pidfile(path):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(tmp, path)
