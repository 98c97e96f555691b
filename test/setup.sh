#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/setup.sh - install what the tests, the demo and the benchmarks need
# on a Debian machine, once: packages, the unprivileged test user, access
# to /dev/net/tun. Run as root by `make check`, `make demo`, `make bench`.
#
# Usage: test/setup.sh [PACKAGE...]	(extra packages on top of the base)

set -eu

[ "$(id -u)" = 0 ] || { echo "setup.sh: run as root" >&2; exit 1; }

pkgs="iproute2 iperf3 curl python3 perl util-linux procps passwd"
pkgs="$pkgs iputils-ping passt slirp4netns libasan8 libubsan1"
pkgs="$pkgs qemu-system-x86 busybox-static cpio isc-dhcp-client"	# 95-passt-qemu.t
pkgs="$pkgs man-db"	# 96-install.t: man -l (and groff-base, its dependency)
pkgs="$pkgs ethtool"	# 19-tap-offload.t: offloads off in the namespace
pkgs="$pkgs bc"	# 42-load.t, 62-syn-flood.t: times in fractions of a second
pkgs="$pkgs traceroute iputils-tracepath"	# 74-traceroute.t
pkgs="$pkgs debootstrap $*"	# 97-podman.t: its Debian 13 root filesystem

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "setup.sh: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

id pastatest >/dev/null 2>&1 || useradd -M -s /bin/sh pastatest
[ -c /dev/net/tun ] && chmod 0666 /dev/net/tun
exit 0
