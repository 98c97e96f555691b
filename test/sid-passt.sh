#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/sid-passt.sh - upstream's newest pasta, passt and pesto (Debian
# unstable's passt package) and the C library they need (glibc 2.38+, newer
# than this machine's), unpacked into one cached root with a private apt
# state: nothing is installed on the machine. The tests run them through
# that root's dynamic loader (test/upstream).
#
# Usage: sid-passt.sh		fetch unless cached today, print the root
# Exit status: 0, or 1 if the packages can't be fetched (no network)

ROOT=${SID_PASST_ROOT:-/var/cache/pasta-test/sid-passt}
parent=$(dirname "$ROOT")
mkdir -p "$parent" || exit 1

exec 9>"$parent/.sid-passt.lock"
flock -w 300 9 || { echo "sid-passt: $parent/.sid-passt.lock is held" >&2; exit 1; }

# A day's cache: sid moves, but not within a test run
if [ -x "$ROOT/usr/bin/pesto" ] &&
   [ -n "$(find "$ROOT/.stamp" -mtime -1 2>/dev/null)" ]; then
	echo "$ROOT"
	exit 0
fi

apt=$(mktemp -d) || exit 1
trap 'rm -rf "$apt"' EXIT
mkdir -p "$apt/etc/apt/sources.list.d" "$apt/etc/apt/preferences.d" \
	"$apt/var/lib/apt/lists/partial" "$apt/var/cache/apt/archives/partial" \
	"$apt/debs"
: >"$apt/status"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian sid main" \
	>"$apt/etc/apt/sources.list"
set -- -o Dir="$apt" -o Dir::State::status="$apt/status" \
	-o Dir::Etc::trusted.d="$apt/none" -o APT::Sandbox::User=root \
	-o APT::Architecture=amd64 -o Debug::NoLocking=1 -q

if ! timeout 300 apt-get "$@" update >"$apt/update.log" 2>&1; then
	echo "sid-passt: apt-get update for sid failed:" >&2
	tail -3 "$apt/update.log" >&2
	[ -x "$ROOT/usr/bin/pesto" ] && { echo "$ROOT"; exit 0; }
	exit 1
fi
if ! (cd "$apt/debs" && timeout 300 apt-get "$@" download passt libc6) \
	>"$apt/download.log" 2>&1; then
	echo "sid-passt: apt-get download passt libc6 failed:" >&2
	tail -3 "$apt/download.log" >&2
	[ -x "$ROOT/usr/bin/pesto" ] && { echo "$ROOT"; exit 0; }
	exit 1
fi

new="$ROOT.new"
rm -rf "$new" && mkdir -p "$new" || exit 1
for deb in "$apt"/debs/*.deb; do
	dpkg-deb -x "$deb" "$new" || exit 1
done
dpkg-deb -f "$apt"/debs/passt_*.deb Version >"$new/.version"
[ -x "$new/usr/bin/pesto" ] || { echo "sid-passt: no pesto in sid's passt" >&2; exit 1; }
rm -rf "$ROOT" && mv "$new" "$ROOT" && touch "$ROOT/.stamp"
echo "$ROOT"
