#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# TCP on a virtual clock (test/unit_tcp.c, built with ASan/UBSan), in a fresh
# user and network namespace: handshake, retransmission and back-off, zero
# window probes, keepalive and FIN timeouts, the window from SO_MEMINFO
bin="$(dirname "$0")/unit_tcp"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built (make test/unit_tcp)"
	exit 0
fi
exec unshare -rn "$bin"
