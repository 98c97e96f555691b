#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/podman/bats-layer.sh - build (once) what test/97-podman-bats.t adds
# to the cached Debian 13 tree of rootfs.sh, and fetch Podman's own system
# tests for the Podman version in that tree.
#
# Usage (as root, after rootfs.sh): test/podman/bats-layer.sh [--force]
#
# Two caches outside the git tree, beside $PODMAN_ROOTFS:
#
#   $PODMAN_BATS_LAYER (default /var/cache/pasta-test/podman-bats-layer)
#       root/   an overlay layer that holder.sh stacks on the tree:
#               Debian's bats, jq, nftables and aardvark-dns, with the
#               libraries the tree lacks, unpacked with dpkg -x (not
#               configured: none needs it), and $POD_TESTIMAGE_TAR, the
#               stand-in for Podman's
#               test image: the tree's busybox with socat, iproute2's ip and
#               ss, getent and /home/podman/bytecheck (size and sha256 of
#               its input), all with their libraries
#       .stamp  sha256 of this script and of the tree's stamp: rebuilt when
#               either changes, or with --force.  A separate layer, not
#               more packages in rootfs.sh, so that branches with and
#               without this file share one tree without rebuilding it
#   $PODMAN_BATS_SRC (default /var/cache/pasta-test/podman-VERSION-system,
#       VERSION the tree's podman, e.g. 5.4.2+ds1-2)
#               test/system/*.bats and helpers*.bash of that Podman, from
#               Debian's source package (`apt-get source`, deb-src of the
#               mirror); kept once present.  Where the mirror serves no
#               source packages, put the files there by hand (see
#               test/podman/README.md); then the test uses them as they are.
#               A mirror that had none is asked again a day later (or
#               with --force): PODMAN_BATS_SRC.missing holds its address
#
# Nothing of Podman's is in the git tree.  Prints what it did; exits 1 when
# the layer could not be built, 3 when only Podman's sources are missing.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=test/podman/config.sh
. "$HERE/config.sh"

PODMAN_BATS_LAYER=${PODMAN_BATS_LAYER:-$(dirname "$PODMAN_ROOTFS")/podman-bats-layer}
POD_TESTIMAGE_TAR=/opt/pasta-test/testimage.tar
# bats and jq for the file; nft and aardvark-dns for its one bridge
# network (netavark's firewall driver runs nft); their dependencies that
# the tree lacks come along
LAYER_PKGS="bats jq nftables aardvark-dns"

force=0
case ${1:-} in
--force) force=1 ;;
"") ;;
*) echo "usage: $0 [--force]" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "bats-layer.sh: run as root" >&2; exit 1; }
say() { echo "bats-layer.sh: $*"; }

T=$PODMAN_ROOTFS
[ -f "$T/.pasta-test-stamp" ] || { say "no tree at $T (run rootfs.sh)"; exit 1; }
# shellcheck disable=SC2016
src_v=$(chroot "$T" dpkg-query -W -f='${source:Version}' podman)
PODMAN_BATS_SRC=${PODMAN_BATS_SRC:-$(dirname "$PODMAN_ROOTFS")/podman-$src_v-system}
MIRROR=${PODMAN_MIRROR:-http://deb.debian.org/debian}

mkdir -p "$(dirname "$PODMAN_BATS_LAYER")"
exec 9>"$PODMAN_BATS_LAYER.lock"
flock -w 600 9 || { say "another build holds $PODMAN_BATS_LAYER.lock"; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf --one-file-system "$TMP" "$PODMAN_BATS_LAYER.new"' EXIT

# apt-get with its own lists and cache in $TMP, for the tree's suite (the
# host's apt stays as it is)
APT=(apt-get -q -o Dir::Etc::SourceList="$TMP/sources.list"
     -o Dir::Etc::SourceParts=/dev/null
     -o Dir::State::Lists="$TMP/lists" -o Dir::Cache="$TMP/cache"
     -o Dir::State::status="$T/var/lib/dpkg/status"
     -o APT::Sandbox::User=root)
apt_tmp_init() {
	[ -d "$TMP/lists" ] && return 0
	mkdir -p "$TMP/lists/partial" "$TMP/cache/archives/partial"
	local k=/usr/share/keyrings/debian-archive-keyring.gpg
	{
		echo "deb [signed-by=$k] $MIRROR $POD_SUITE main"
		echo "deb-src [signed-by=$k] $MIRROR $POD_SUITE main"
	} >"$TMP/sources.list"
	timeout 300 "${APT[@]}" update >"$TMP/update.log" 2>&1 ||
		{ tail -n 5 "$TMP/update.log"; return 1; }
}

# make_image TAR DIR BINARY... - TAR of the tree's busybox with its applet
# links, each BINARY (a path in the tree, copied to the same path: PATH has
# /usr/bin before /bin, so it wins over an applet of the same name), the
# libraries of them all, /etc/passwd, /etc/group and the files of DIR
make_image() {
	local tar=$1 extra=$2 img bb bin lib applet
	shift 2
	img=$TMP/img
	mkdir -p "$img/bin" "$img/sbin" "$img/usr/bin" "$img/usr/sbin" \
		"$img/etc" "$img/tmp" "$img/root"
	chmod 0755 "$img"
	chmod 1777 "$img/tmp"
	bb=$(chroot "$T" sh -c 'command -v busybox')
	cp "$T$bb" "$img/bin/busybox"
	for bin in "$@"; do
		cp "$T$bin" "$img$bin"
	done
	for lib in $(chroot "$T" ldd "$bb" "$@" | grep -oE '/[^ :]+' | sort -u); do
		case " $bb $* " in *" $lib "*) continue ;; esac
		mkdir -p "$img$(dirname "$lib")"
		cp -L "$T$lib" "$img$lib"
	done
	for applet in $(chroot "$T" "$bb" --list-full); do
		[ -e "$img/$applet" ] || [ -L "$img/$applet" ] ||
			ln -s /bin/busybox "$img/$applet"
	done
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' \
		>"$img/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$img/etc/group"
	cp -a "$extra/." "$img/"
	mkdir -p "$(dirname "$tar")"
	tar -C "$img" --numeric-owner --owner=0 --group=0 -cf "$tar" .
	chmod 0644 "$tar"
}

build_layer() {
	local new=$PODMAN_BATS_LAYER.new deb extra=$TMP/extra
	rm -rf --one-file-system "$new"
	mkdir -p "$new/root"
	apt_tmp_init || return 1
	# shellcheck disable=SC2086
	timeout 300 "${APT[@]}" install -y --download-only \
		--no-install-recommends $LAYER_PKGS \
		>"$TMP/download.log" 2>&1 || { tail -n 5 "$TMP/download.log"; return 1; }
	for deb in "$TMP"/cache/archives/*.deb; do
		dpkg -x "$deb" "$new/root"
	done

	mkdir -p "$extra/home/podman"
	cat >"$extra/home/podman/bytecheck" <<'EOF'
#!/bin/sh
# bytecheck - size and sha256 of standard input
f=$(mktemp) || exit 1
cat >"$f"
echo "$(wc -c <"$f") bytes, sha256 $(sha256sum <"$f" | cut -d' ' -f1)"
rm -f "$f"
EOF
	chmod 0755 "$extra" "$extra/home" "$extra/home/podman" \
		"$extra/home/podman/bytecheck"
	make_image "$new/root$POD_TESTIMAGE_TAR" "$extra" /usr/bin/socat \
		/usr/bin/ip /usr/bin/ss /usr/bin/getent
	echo "$stamp" >"$new/.stamp"
	rm -rf --one-file-system "$PODMAN_BATS_LAYER"
	mv "$new" "$PODMAN_BATS_LAYER"
	say "built $PODMAN_BATS_LAYER:" \
	    "$(cd "$TMP/cache/archives" && echo *.deb)"
}

# fetch_src - Podman's test/system from Debian's source package
fetch_src() {
	local orig
	apt_tmp_init || return 1
	mkdir -p "$TMP/src"
	if ! (cd "$TMP/src" && timeout 600 "${APT[@]}" source --download-only \
		"podman=$src_v") >"$TMP/source.log" 2>&1; then
		grep -E '^(E|Err):' "$TMP/source.log" | head -n 3
		return 1
	fi
	orig=$(ls "$TMP"/src/podman_*.orig.tar.*)
	mkdir -p "$TMP/x"
	tar -C "$TMP/x" -xf "$orig" --wildcards --strip-components=1 \
		'*/test/system/*.bats' '*/test/system/*.bash'
	mkdir -p "$PODMAN_BATS_SRC.new"
	cp "$TMP"/x/test/system/* "$PODMAN_BATS_SRC.new/"
	mv "$PODMAN_BATS_SRC.new" "$PODMAN_BATS_SRC"
	say "fetched Podman $src_v's test/system into $PODMAN_BATS_SRC"
}

stamp=$({ cat "$HERE/bats-layer.sh" "$T/.pasta-test-stamp"; } | sha256sum | cut -d' ' -f1)
if [ "$force" = 0 ] && [ "$(cat "$PODMAN_BATS_LAYER/.stamp" 2>/dev/null)" = "$stamp" ]; then
	say "$PODMAN_BATS_LAYER is up to date"
else
	build_layer || { say "could not build the layer"; exit 1; }
fi

# A mirror without source packages is asked again only a day later: the
# lists alone take up to 90 s to fetch, on every run of make check
MISSING=$PODMAN_BATS_SRC.missing
if [ -f "$PODMAN_BATS_SRC/505-networking-pasta.bats" ]; then
	say "Podman's system tests: $PODMAN_BATS_SRC"
elif [ "$force" = 0 ] && [ "$(cat "$MISSING" 2>/dev/null)" = "$MIRROR" ] &&
     [ -n "$(find "$MISSING" -mmin -1440)" ]; then
	say "no source package of podman $src_v from $MIRROR (asked in the" \
	    "last day, $MISSING): put Podman's test/system files into" \
	    "$PODMAN_BATS_SRC"
	exit 3
elif ! fetch_src; then
	echo "$MIRROR" >"$MISSING"
	say "no source package of podman $src_v from $MIRROR:" \
	    "put Podman's test/system files into $PODMAN_BATS_SRC"
	exit 3
fi
rm -f "$MISSING"
