#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Unit tests of the -t/-u forwarding grammar (test/unit_fwd.c, built with
# ASan/UBSan): accepted specs by their meaning, rejected specs
bin="$(dirname "$0")/unit_fwd"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built (make test/unit_fwd)"
	exit 0
fi
exec "$bin"
