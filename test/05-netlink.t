#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# netlink helpers, in a fresh user and network namespace (ASan/UBSan build)
exec unshare -rn "$(dirname "$0")/unit_netlink"
