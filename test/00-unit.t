#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Unit tests: checksums, malformed frames, flow table (built with ASan/UBSan)
exec "$(dirname "$0")/unit"
