#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 88-vhost-user-qemu11.t - test/87-vhost-user.t's guest on Debian
# unstable's QEMU (11.x, test/sid-root.sh, run by test/qemu11): the NIC
# with MSI-X, and whatever a QEMU of 2026 sends a vhost-user back-end.
# Skipped if that root can't be built (no network).

t=$(dirname "$0")
if ! "$t/sid-root.sh" >/dev/null 2>/tmp/sid-root.$$.err; then
	echo "1..0 # SKIP no Debian unstable root: $(tail -n 1 /tmp/sid-root.$$.err)"
	rm -f /tmp/sid-root.$$.err
	exit 0
fi
rm -f /tmp/sid-root.$$.err
QEMU=$(cd "$t" && pwd)/qemu11 PASST_LINK=vhost-user exec "$t/95-passt-qemu.t" "$@"
