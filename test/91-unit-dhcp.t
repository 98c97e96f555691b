#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Unit tests of the DHCP server (test/unit_dhcp.c, built with ASan/UBSan):
# replies, malformed messages, resolv.conf parsing
bin="$(dirname "$0")/unit_dhcp"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built (make test/unit_dhcp)"
	exit 0
fi
exec "$bin"
