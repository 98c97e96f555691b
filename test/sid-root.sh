#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/sid-root.sh - a Debian unstable root with its QEMU (11.x) and libvirt
# (12.x), for the tests that need a newer QEMU than this machine's 7.2
# (vhost-user with MSI-X under TCG, and what QEMU 10+ sends over
# vhost-user) and a libvirt that knows <backend type='passt'/> for
# vhost-user (11.1+): debootstrap's minimal variant, cached for a week;
# nothing is installed on the machine. test/sid-chroot runs its programs
# (test/qemu11: its QEMU).
#
# Usage: sid-root.sh		build unless cached, print the root
# Exit status: 0, or 1 if it can't be built (no network, no debootstrap)

ROOT=${SID_ROOT:-/var/cache/pasta-test/sid-root}
parent=$(dirname "$ROOT")
mkdir -p "$parent" || exit 1

exec 9>"$parent/.sid-root.lock"
flock -w 600 9 || { echo "sid-root: $parent/.sid-root.lock is held" >&2; exit 1; }


# libvirt_add ROOT - libvirt's daemon, its QEMU driver and virsh, by apt in
# the root, once (debootstrap can't: the systemd they pull in fails to
# configure there); the snapshot's Release file may be past its date. A
# root without them still serves QEMU: test/84 skips.
libvirt_add() {
	[ -x "$1/usr/bin/virsh" ] || [ -e "$1/.libvirt-failed" ] && return
	opt=-oAcquire::Check-Valid-Until=false
	timeout 900 chroot "$1" sh -c "apt-get $opt -qq update &&
		DEBIAN_FRONTEND=noninteractive apt-get $opt -y -qq \
		--no-install-recommends install libvirt-daemon \
		libvirt-daemon-driver-qemu libvirt-clients" \
		>>"$parent/sid-root.log" 2>&1 || touch "$1/.libvirt-failed"
	rm -rf "$1/var/cache/apt/archives/"*.deb "$1/var/lib/apt/lists/"*
}

if [ -x "$ROOT/usr/bin/qemu-system-x86_64" ] &&
   [ -n "$(find "$ROOT/.stamp" -mtime -7 2>/dev/null)" ]; then
	libvirt_add "$ROOT"
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
libvirt_add "$new"
rm -rf "$ROOT" && mv "$new" "$ROOT" && touch "$ROOT/.stamp"
echo "$ROOT"
