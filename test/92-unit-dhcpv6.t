#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Unit tests of the DHCPv6 server (test/unit_dhcpv6.c, built with ASan/UBSan):
# replies, real clients' messages, invalid and malformed messages
bin="$(dirname "$0")/unit_dhcpv6"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built (make test/unit_dhcpv6)"
	exit 0
fi
exec "$bin"
