#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/guest/build.sh - kernel and initramfs of the QEMU guest that the passt
# tests boot (test/95-passt-qemu.t); see doc/passt-guest.md
#
# Usage: test/guest/build.sh [-f]     (-f: rebuild even if up to date)
#
# Inputs, all from Debian packages on this machine or its package mirror:
#   - the kernel: the linux-image-6.x package that linux-image-amd64 depends
#     on, fetched with apt-get download into the cache (or GUEST_KERNEL_DEB=
#     path of a .deb), from which we take vmlinuz and the modules virtio-net
#     needs, with their dependencies read from each module's .modinfo,
#     decompressed if the package ships them compressed;
#   - /bin/busybox from busybox-static (shell, udhcpc, wget, httpd, nc...);
#   - /usr/bin/iperf3 and the shared libraries ldd lists;
#   - /sbin/dhclient from isc-dhcp-client (the DHCPv6 client: busybox 1.35
#     in Debian 12 has no udhcpc6; or GUEST_DHCLIENT= path of a binary),
#     with its libraries;
#   - traceroute.db (traceroute) and tracepath (iputils-tracepath), where
#     installed, for tests/trace.sh (which says so when they're missing);
#   - init, udhcpc.script, dhclient.conf, dhclient.script and tests/*.sh
#     beside this script.
#
# Outputs, in $GUEST_CACHE (default: as root /var/cache/pasta-test/guest,
# which test/sid-chroot shows too, else test/guest/cache, git-ignored):
#   vmlinuz, initramfs.gz (cpio newc, gzip); vmlinux, the kernel unpacked
#   from vmlinuz where it has a PVH entry (vmlinux.py): under TCG it boots
#   in 2.6 s of CPU where vmlinuz takes 5.5 (its own xz decompression)
# They are rebuilt only when an input changed (stamp files: the kernel
# package's name, and a sha256 over every initramfs input and this script).
# Prints the two paths on the last two lines: the kernel (vmlinux where
# there is one, else vmlinuz) and the initramfs. Exits non-zero, with a message
# naming what is missing, if it can't build.

set -euo pipefail

GUEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# As root (the tests), one cache for every checkout on the machine, as the
# Podman root filesystem's: a clean clone (CI) doesn't download the kernel
# and build again; the stamps tell when an input changed
if [ -z "${GUEST_CACHE:-}" ] && [ "$(id -u)" = 0 ]; then
	GUEST_CACHE=/var/cache/pasta-test/guest
fi
CACHE=${GUEST_CACHE:-$GUEST_DIR/cache}
BUSYBOX=${GUEST_BUSYBOX:-/bin/busybox}
IPERF3=${GUEST_IPERF3:-/usr/bin/iperf3}
DHCLIENT=${GUEST_DHCLIENT:-}
TRACE_TOOLS="/usr/bin/traceroute.db /usr/bin/tracepath"
# Modules that bring up eth0 on virtio-net-pci, with what they depend on
WANT_MODULES="virtio_pci virtio_net"
FORCE=0
[ "${1:-}" = "-f" ] && FORCE=1

die() { echo "build.sh: $*" >&2; exit 1; }
note() { echo "build.sh: $*" >&2; }

mkdir -p "$CACHE"
exec 9>"$CACHE/.lock"
flock -w 300 9 || die "another build holds $CACHE/.lock"

# --- the kernel package ------------------------------------------------------

# kernel_pkg - name of the package linux-image-amd64 depends on
kernel_pkg() {
	apt-cache depends linux-image-amd64 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }'
}

# kernel_deb - print the path of the kernel .deb, downloading it if needed
kernel_deb() {
	local pkg deb

	if [ -n "${GUEST_KERNEL_DEB:-}" ]; then
		[ -f "$GUEST_KERNEL_DEB" ] || die "GUEST_KERNEL_DEB=$GUEST_KERNEL_DEB: no such file"
		echo "$GUEST_KERNEL_DEB"
		return
	fi
	pkg=$(kernel_pkg)
	# No package lists yet (a fresh machine) and nothing cached: fetch them
	if [ -z "$pkg" ] && [ "$(id -u)" = 0 ] &&
	   ! find "$CACHE" -maxdepth 1 -name 'linux-image-[0-9]*.deb' | grep -q .; then
		note "apt-get update"
		apt-get update -qq >&2 || true
		pkg=$(kernel_pkg)
	fi
	if [ -n "$pkg" ]; then
		deb=$(find "$CACHE" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n1)
		if [ -z "$deb" ]; then
			note "downloading $pkg"
			(cd "$CACHE" && apt-get download -q -o APT::Sandbox::User=root "$pkg" >&2) ||
				note "apt-get download $pkg failed"
			deb=$(find "$CACHE" -maxdepth 1 -name "${pkg}_*.deb" | sort | tail -n1)
			# The kernels it replaces
			[ -n "$deb" ] && find "$CACHE" -maxdepth 1 \
				-name 'linux-image-[0-9]*.deb' ! -name "$(basename "$deb")" -delete
		fi
	else
		note "apt-cache knows no linux-image-amd64 (run apt-get update?)"
	fi
	# Offline: whatever kernel package we fetched before
	[ -n "${deb:-}" ] ||
		deb=$(find "$CACHE" -maxdepth 1 -name 'linux-image-[0-9]*.deb' | sort | tail -n1)
	[ -n "$deb" ] || die "no kernel package: apt-get update, then retry"
	echo "$deb"
}

# ko_depends FILE - module names FILE depends on, from its .modinfo section
ko_depends() {
	tr '\0' '\n' <"$1" | sed -n 's/^depends=//p' | head -n1 | tr ',' ' '
}

# ko_find ROOT NAME - path of module NAME under ROOT ('-' and '_' alike)
ko_find() {
	local pat=${2//[-_]/[-_]}
	find "$1" -type f -regex ".*/$pat\.ko\(\.xz\|\.zst\|\.gz\)?" | head -n1
}

# ko_copy SRC DST - copy a module, decompressed: busybox insmod can't
ko_copy() {
	case "$1" in
	*.ko.xz)	xz -dc "$1" >"$2" ;;
	*.ko.zst)	zstd -qdc "$1" >"$2" ;;
	*.ko.gz)	gzip -dc "$1" >"$2" ;;
	*)		cp "$1" "$2" ;;
	esac
}

# kernel_extract DEB - vmlinuz and modules into $CACHE/kernel, if not there
kernel_extract() {
	local deb=$1 tmp kver moddir out order=() name path dep
	local -A seen=()

	if [ "$FORCE" = 0 ] && [ -f "$CACHE/kernel/stamp" ] &&
	   [ "$(cat "$CACHE/kernel/stamp")" = "$(basename "$deb")" ]; then
		return 0
	fi
	note "extracting $(basename "$deb")"
	tmp=$(mktemp -d "$CACHE/extract.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	dpkg-deb -x "$deb" "$tmp"
	moddir=$(find "$tmp" -maxdepth 4 -type d -path '*/modules/*' -name '[0-9]*' | head -n1)
	[ -n "$moddir" ] || die "no modules directory in $deb"
	kver=$(basename "$moddir")
	[ -f "$tmp/boot/vmlinuz-$kver" ] || die "no boot/vmlinuz-$kver in $deb"

	out="$CACHE/kernel.new"
	rm -rf "$out"
	mkdir -p "$out/modules"
	cp "$tmp/boot/vmlinuz-$kver" "$out/vmlinuz"

	# Depth-first over .modinfo dependencies: each module after its deps.
	# Built-in ones are in modules.builtin and have no file: skipped.
	visit() {
		local n=$1 p d
		[ -n "${seen[$n]:-}" ] && return 0
		seen[$n]=1
		p=$(ko_find "$moddir/kernel" "$n")
		if [ -z "$p" ]; then
			grep -q "/${n//[-_]/[-_]}\.ko" "$moddir/modules.builtin" 2>/dev/null ||
				die "module $n: neither a file nor built in"
			note "module $n: built in"
			return 0
		fi
		ko_copy "$p" "$out/modules/$n.ko"
		for d in $(ko_depends "$out/modules/$n.ko"); do
			visit "$d"
		done
		order+=("$n.ko")
	}
	for name in $WANT_MODULES; do
		visit "$name"
	done
	printf '%s\n' "${order[@]}" >"$out/modules/order"
	echo "$kver" >"$out/version"
	basename "$deb" >"$out/stamp"

	rm -rf "$CACHE/kernel" "$tmp"
	trap - EXIT
	mv "$out" "$CACHE/kernel"
	note "kernel $kver, modules: ${order[*]}"
}

# --- the DHCPv6 client ------------------------------------------------------------

# dhclient_path - print the path of the dhclient binary to ship:
# $GUEST_DHCLIENT, or the host's (test/setup.sh installs isc-dhcp-client)
dhclient_path() {
	local bin=${DHCLIENT:-/sbin/dhclient}

	[ -x "$bin" ] || die "no dhclient at $bin: apt-get install isc-dhcp-client (or set GUEST_DHCLIENT)"
	echo "$bin"
}

# --- the initramfs -------------------------------------------------------------

# trace_tools - those of TRACE_TOOLS installed here
trace_tools() {
	local f

	for f in $TRACE_TOOLS; do
		[ -x "$f" ] && echo "$f"
	done
	return 0
}

# lib_files - iperf3 and the trace tools, the shared libraries of those and
# dhclient, and the dynamic loader (dhclient itself goes to /sbin in the
# guest)
lib_files() {
	local f

	echo "$IPERF3"
	trace_tools
	for f in "$IPERF3" "$DHCLIENT" $(trace_tools); do
		ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
				$1 ~ /^\// { print $1 }'
	done | sort -u
}

# inputs_hash - sha256 over every input of the initramfs
inputs_hash() {
	{
		# Contents and names, not the paths we were called with
		(cd "$GUEST_DIR" && sha256sum build.sh init udhcpc.script \
			dhclient.conf dhclient.script tests/*.sh)
		# shellcheck disable=SC2046
		sha256sum "$BUSYBOX" "$DHCLIENT" $(lib_files | xargs readlink -f)
		cat "$CACHE/kernel/stamp"
	} | sha256sum | cut -d' ' -f1
}

initramfs_build() {
	local root f rel hash=$1

	root=$(mktemp -d "$CACHE/root.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$root'" EXIT
	mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,run,root,www,tests,modules}
	mkdir -p "$root/usr/bin" "$root/usr/sbin"
	cp "$BUSYBOX" "$root/bin/busybox"
	for f in $("$BUSYBOX" --list); do
		[ "$f" = busybox ] || ln -s busybox "$root/bin/$f"
	done

	# iperf3, trace tools: each file at the path ldd gave, content of its
	# target
	for f in $(lib_files); do
		rel=${f#/}
		mkdir -p "$root/$(dirname "$rel")"
		cp -L "$f" "$root/$rel"
	done

	cp -L "$DHCLIENT" "$root/sbin/dhclient"

	cp "$GUEST_DIR/init" "$root/init"
	cp "$GUEST_DIR/udhcpc.script" "$root/etc/udhcpc.script"
	cp "$GUEST_DIR/dhclient.conf" "$root/etc/dhclient.conf"
	cp "$GUEST_DIR/dhclient.script" "$root/etc/dhclient.script"
	cp "$GUEST_DIR"/tests/*.sh "$root/tests/"
	chmod 755 "$root/init" "$root/etc/udhcpc.script" \
		"$root/etc/dhclient.script" "$root/sbin/dhclient" "$root"/tests/*.sh
	cp "$CACHE"/kernel/modules/* "$root/modules/"
	echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
	echo "root:x:0:" >"$root/etc/group"

	(cd "$root" && find . | LC_ALL=C sort |
		cpio -o -H newc -R 0:0 --quiet) | gzip -6 >"$CACHE/initramfs.gz.new"
	mv "$CACHE/initramfs.gz.new" "$CACHE/initramfs.gz"
	echo "$hash" >"$CACHE/initramfs.stamp"
	rm -rf "$root"
	trap - EXIT
	note "initramfs: $(du -h "$CACHE/initramfs.gz" | cut -f1)"
}

# --- main -------------------------------------------------------------------------

for tool in dpkg-deb cpio gzip ldd sha256sum; do
	command -v "$tool" >/dev/null || die "$tool missing"
done
[ -x "$BUSYBOX" ] || die "$BUSYBOX missing: apt-get install busybox-static"
if ldd "$BUSYBOX" >/dev/null 2>&1; then
	die "$BUSYBOX is dynamically linked: apt-get install busybox-static"
fi
[ -x "$IPERF3" ] || die "$IPERF3 missing: apt-get install iperf3"
DHCLIENT=$(dhclient_path)

kernel_extract "$(kernel_deb)"
if ! cmp -s "$CACHE/kernel/vmlinuz" "$CACHE/vmlinuz"; then
	cp "$CACHE/kernel/vmlinuz" "$CACHE/vmlinuz.new"
	mv "$CACHE/vmlinuz.new" "$CACHE/vmlinuz"
	rm -f "$CACHE/vmlinux"
fi
kernel=$CACHE/vmlinuz
if [ -f "$CACHE/vmlinux" ] ||
   { python3 "$GUEST_DIR/vmlinux.py" "$CACHE/vmlinuz" "$CACHE/vmlinux.new" &&
     mv "$CACHE/vmlinux.new" "$CACHE/vmlinux"; }; then
	kernel=$CACHE/vmlinux
fi

hash=$(inputs_hash)
if [ "$FORCE" = 1 ] || [ ! -f "$CACHE/initramfs.gz" ] ||
   [ "$(cat "$CACHE/initramfs.stamp" 2>/dev/null)" != "$hash" ]; then
	initramfs_build "$hash"
fi

echo "$kernel"
echo "$CACHE/initramfs.gz"
