#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/sid-root.sh - a Debian unstable root with its QEMU (11.x), for the
# tests that need a newer QEMU than this machine's 7.2 (vhost-user with
# MSI-X under TCG, and what QEMU 10+ sends over vhost-user): debootstrap's
# minimal variant, cached for a week; nothing is installed on the machine.
# test/qemu11 runs QEMU from it.
#
# Usage: sid-root.sh		build unless cached, print the root
# Exit status: 0, or 1 if it can't be built (no network, no debootstrap)

ROOT=${SID_ROOT:-/var/cache/pasta-test/sid-root}
parent=$(dirname "$ROOT")
mkdir -p "$parent" || exit 1

exec 9>"$parent/.sid-root.lock"
flock -w 600 9 || { echo "sid-root: $parent/.sid-root.lock is held" >&2; exit 1; }

if [ -x "$ROOT/usr/bin/qemu-system-x86_64" ] &&
   [ -n "$(find "$ROOT/.stamp" -mtime -7 2>/dev/null)" ]; then
	echo "$ROOT"
	exit 0
fi
command -v debootstrap >/dev/null || {
	echo "sid-root: no debootstrap (apt-get install debootstrap)" >&2
	exit 1
}

new="$ROOT.new"
rm -rf "$new"
if ! timeout 900 debootstrap --variant=minbase --include=qemu-system-x86 \
	sid "$new" http://deb.debian.org/debian >"$parent/sid-root.log" 2>&1 ||
   [ ! -x "$new/usr/bin/qemu-system-x86_64" ]; then
	echo "sid-root: debootstrap failed:" >&2
	tail -3 "$parent/sid-root.log" >&2
	rm -rf "$new"
	[ -x "$ROOT/usr/bin/qemu-system-x86_64" ] && { echo "$ROOT"; exit 0; }
	exit 1
fi
rm -rf "$ROOT" && mv "$new" "$ROOT" && touch "$ROOT/.stamp"
echo "$ROOT"
