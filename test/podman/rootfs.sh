#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/podman/rootfs.sh - build (once) the Debian 13 "trixie" root file
# system in which test/97-podman.t runs a real rootless Podman 5.
#
# Usage (as root): test/podman/rootfs.sh [--force]
#
# The tree is cached outside the git tree, in $PODMAN_ROOTFS (default
# /var/cache/pasta-test/trixie-rootfs), so that it survives fresh clones on
# the same machine.  A stamp ($PODMAN_ROOTFS/.pasta-test-stamp) holds the
# sha256 of the inputs (suite, architecture, package list and this script);
# the tree is rebuilt when they change, or with --force.  It is built
# beside the old one and swapped in only when complete, under a lock.
#
# What the tree holds, besides debootstrap's minbase and $PODMAN_PACKAGES:
#   - user $POD_USER (uid/gid $POD_UID) with /etc/subuid, /etc/subgid
#     ranges $POD_UID:100000:65536, home /home/$POD_USER
#   - ~/.config/containers/containers.conf: runc, cgroupfs, file events
#     logger, helper_binaries_dir starting with $POD_PASTA_DIR (an empty
#     directory here: lib.sh bind-mounts the pasta under test on it,
#     read-only), default_rootless_network_cmd "pasta"
#   - $POD_IMAGE_TAR: the test image as a tar of the tree's own busybox
#     and socat (their libraries, applet links, /etc/passwd, /etc/group,
#     /www); lib.sh loads it with `podman import` into each run's storage
#   - empty mount points /srv/share (the run's work directory) and the
#     storage directory
#
# Needs: debootstrap (installed with apt-get if missing), the Debian
# mirror of /etc/apt/sources.list* (or $PODMAN_MIRROR).  Prints timings.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/podman/config.sh
. "$HERE/config.sh"

force=0
case ${1:-} in
--force) force=1 ;;
"") ;;
*) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac

[ "$(id -u)" = 0 ] || { echo "rootfs.sh: run as root" >&2; exit 1; }

t0=$SECONDS
now() { echo "$((SECONDS - t0)) s"; }
say() { echo "rootfs.sh: $*"; }

# The first plain Debian (not security) mirror in apt's sources
find_mirror() {
	local u
	u=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources 2>/dev/null |
	    grep -v '^[[:space:]]*#' |
	    grep -oE '(https?|ftp)://[^[:space:]]+/debian/?([[:space:]]|$)' |
	    grep -v security | head -n1 | tr -d '[:space:]') || true
	echo "${u:-http://deb.debian.org/debian}"
}
MIRROR=${PODMAN_MIRROR:-$(find_mirror)}
ARCH=$(dpkg --print-architecture)

stamp=$(
	{
		echo "suite=$POD_SUITE arch=$ARCH"
		echo "packages=$PODMAN_PACKAGES"
		cat "$HERE/rootfs.sh" "$HERE/config.sh"
	} | sha256sum | cut -d' ' -f1
)
STAMP_FILE=$PODMAN_ROOTFS/.pasta-test-stamp

parent=$(dirname "$PODMAN_ROOTFS")
mkdir -p "$parent"
exec 9>"$parent/.$(basename "$PODMAN_ROOTFS").lock"
if ! flock -w 900 9; then
	say "another build holds $parent/.$(basename "$PODMAN_ROOTFS").lock"
	exit 1
fi

if [ "$force" = 0 ] && [ -f "$STAMP_FILE" ] &&
   [ "$(cat "$STAMP_FILE")" = "$stamp" ]; then
	say "$PODMAN_ROOTFS is up to date (stamp $(cut -c1-12 "$STAMP_FILE"))"
	exit 0
fi

if ! command -v debootstrap >/dev/null ||
   [ ! -e "/usr/share/debootstrap/scripts/$POD_SUITE" ]; then
	say "installing debootstrap"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi

NEW=$PODMAN_ROOTFS.new.$$
OLD=$PODMAN_ROOTFS.old.$$
cleanup() {
	[ -d "$NEW" ] && rm -rf --one-file-system "$NEW"
	[ -d "$OLD" ] && rm -rf --one-file-system "$OLD"
	return 0
}
trap cleanup EXIT
# Leftovers of builds that were killed
rm -rf --one-file-system "$PODMAN_ROOTFS".new.* "$PODMAN_ROOTFS".old.* 2>/dev/null || true

say "debootstrap $POD_SUITE from $MIRROR into $NEW"
t1=$SECONDS
if ! timeout 1200 debootstrap --variant=minbase \
	--include="$(echo "$PODMAN_PACKAGES" | tr ' ' ',')" \
	"$POD_SUITE" "$NEW" "$MIRROR" >"$parent/debootstrap.log" 2>&1; then
	say "debootstrap failed; last lines of $parent/debootstrap.log:"
	tail -n 20 "$parent/debootstrap.log" >&2
	exit 1
fi
say "debootstrap done in $((SECONDS - t1)) s"

in_new() { chroot "$NEW" "$@"; }	# build-time only (no user namespaces)

# --- the rootless user ------------------------------------------------------
in_new groupadd -g "$POD_UID" "$POD_USER"
in_new useradd -u "$POD_UID" -g "$POD_UID" -m -d "/home/$POD_USER" \
	-s /bin/sh "$POD_USER"
echo "$POD_USER:100000:65536" >"$NEW/etc/subuid"
echo "$POD_USER:100000:65536" >"$NEW/etc/subgid"

cfg=$NEW/home/$POD_USER/.config/containers
mkdir -p "$cfg" "$NEW/home/$POD_USER/.local/share/containers"
cat >"$cfg/containers.conf" <<EOF
# Written by test/podman/rootfs.sh for the pasta tests
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
helper_binaries_dir = ["$POD_PASTA_DIR", "/usr/lib/podman", "/usr/libexec/podman"]

[network]
default_rootless_network_cmd = "pasta"
EOF
chown -R "$POD_UID:$POD_UID" "$NEW/home/$POD_USER"

# Mount points for lib.sh; the pasta directory stays empty in the tree
mkdir -p "$NEW$POD_PASTA_DIR" "$NEW/srv/share"
# resolv.conf: lib.sh writes the run's own; nothing outside by default
rm -f "$NEW/etc/resolv.conf"
echo "# set by test/podman/lib.sh at run time" >"$NEW/etc/resolv.conf"
# minbase has no /etc/hosts: without one, "localhost" is asked of DNS
printf '127.0.0.1\tlocalhost\n::1\tlocalhost\n' >"$NEW/etc/hosts"

# --- the test image: busybox (and socat) with their libraries ------------
say "making the busybox image tar"
img=$(mktemp -d)
chmod 0755 "$img"
bb=$(in_new sh -c 'command -v busybox')
mkdir -p "$img/bin" "$img/sbin" "$img/usr/bin" "$img/usr/sbin" \
	"$img/etc" "$img/tmp" "$img/www" "$img/root"
chmod 1777 "$img/tmp"
cp "$NEW$bb" "$img/bin/busybox"
cp "$NEW/usr/bin/socat" "$img/usr/bin/socat"
# their shared libraries and the loader, at the same paths
for lib in $(in_new ldd "$bb" /usr/bin/socat | grep -oE '/[^ :]+' | sort -u); do
	case $lib in "$bb"|/usr/bin/socat) continue ;; esac
	mkdir -p "$img$(dirname "$lib")"
	cp -L "$NEW$lib" "$img$lib"
done
for applet in $(in_new "$bb" --list-full); do
	[ -e "$img/$applet" ] || [ -L "$img/$applet" ] ||
		ln -s /bin/busybox "$img/$applet"
done
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' \
	>"$img/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$img/etc/group"
echo "pastatest busybox image" >"$img/www/index.html"
mkdir -p "$(dirname "$NEW$POD_IMAGE_TAR")"
tar -C "$img" --numeric-owner --owner=0 --group=0 -cf "$NEW$POD_IMAGE_TAR" .
chmod 0644 "$NEW$POD_IMAGE_TAR"
rm -rf "$img"

# Versions, for the record
# shellcheck disable=SC2016
v='${Version}'
podman_v=$(in_new dpkg-query -W -f="$v" podman)
passt_v=$(in_new dpkg-query -W -f="$v" passt)
runc_v=$(in_new dpkg-query -W -f="$v" runc)
echo "podman $podman_v, passt $passt_v, runc $runc_v" >"$NEW/.pasta-test-versions"
echo "$stamp" >"$NEW/.pasta-test-stamp"

# --- swap in ------------------------------------------------------------------
if [ -d "$PODMAN_ROOTFS" ]; then
	mv "$PODMAN_ROOTFS" "$OLD"
fi
mv "$NEW" "$PODMAN_ROOTFS"
say "built $PODMAN_ROOTFS ($(cat "$PODMAN_ROOTFS/.pasta-test-versions"))" \
	"in $(now), $(du -sh --one-file-system "$PODMAN_ROOTFS" | cut -f1)"
