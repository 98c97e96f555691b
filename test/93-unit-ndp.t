#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Unit tests of NDP (test/unit_ndp.c, built with ASan/UBSan): neighbour and
# router advertisements, malformed messages, RA timing, kernel-captured frames
bin="$(dirname "$0")/unit_ndp"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built (make test/unit_ndp)"
	exit 0
fi
exec "$bin"
