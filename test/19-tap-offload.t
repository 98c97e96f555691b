#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The tap device's offloads (tap.c, pasta.c): the namespace hands pasta TCP
# frames of up to 64 KiB whatever its MTU (TSO), and pasta hands it frames
# of up to 64 KiB that the kernel takes as segments of the connection's MSS.
# At MTU 1500 and 9000, for each family, a 16 MiB download and upload
# through pasta arrive intact (sha256); at 1500 with --pcap, every frame
# captured either way is at most 1514 bytes (the large ones were captured as
# the segments they stand for) and every TCP segment pasta built has a valid
# checksum (test/pcapcheck.py); with the namespace's offloads switched off
# (ethtool -K: no TSO, no checksum offload), the transfers still work.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
command -v ethtool >/dev/null || skip_all "no ethtool (test/setup.sh installs it)"
plan $((1 + 6 * NFAM))

SIZE_MIB=16
PORT=8001
mkdir -p "$DOCS"
make_random "$DOCS/dl.bin" "$SIZE_MIB"
src=$WORK/u/up.bin
cp "$DOCS/dl.bin" "$src"
want=$(sha "$src")

topo_create; ok $? "topology created" || done_testing

# In the namespace: pasta's tap device, its offloads off
OFFLOADS_OFF='ethtool -K "$(ip -o link show type tun | awk -F": " "NR == 1 { print \$2 }")" tso off tx off'

# transfer NAME MTU [PASTA OPTS...] [-- PRE] - download then upload through
# pasta at that MTU, PRE run first in the namespace; true if both intact
transfer() {
	local name=$1 mtu=$2 pre=true
	shift 2
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ "${1:-}" = -- ] && pre=$2
	rm -f "$DOCS/up-$name.bin"
	pasta_run "$name" 120 -m "$mtu" "${opts[@]}" -- sh -c "
		$pre &&
		curl $IPV -sS --fail --connect-timeout 10 --max-time 50 \
			-o '$WORK/u/dl-$name.bin' '$SRV_URL:$PORT/dl.bin' &&
		curl $IPV -sS --fail --connect-timeout 10 --max-time 50 \
			-T '$src' '$SRV_URL:$PORT/up-$name.bin'" || {
		diag_file "$WORK/$name.err"
		return 1
	}
	[ "$(sha "$WORK/u/dl-$name.bin")" = "$want" ] &&
		[ "$(sha "$DOCS/up-$name.bin" 2>/dev/null)" = "$want" ]
}

for fam in $FAMILIES; do
	use_family "$fam"
	serve_fam "$PORT" "$DOCS" || { not_run 5 "$FAMNAME: offloads"; continue; }

	cap=$WORK/u/gso$FAM.pcap
	transfer "gso$FAM-1500" 1500 --pcap "$cap"
	ok $? "$FAMNAME: MTU 1500 with --pcap: $SIZE_MIB MiB down and up, sha256 intact"
	res=$("$PY" "$TESTDIR/pcapcheck.py" "$cap" "$SRV" 1514 2>&1)
	ok $? "$FAMNAME: captured frames at most 1514 bytes either way, pasta's segments' checksums valid" ||
		diag "$res"
	diag "$FAMNAME: $res"
	rm -f "$cap"

	transfer "gso$FAM-9000" 9000
	ok $? "$FAMNAME: MTU 9000: $SIZE_MIB MiB down and up, sha256 intact"
	transfer "gso$FAM-1500n" 1500
	ok $? "$FAMNAME: MTU 1500: $SIZE_MIB MiB down and up, sha256 intact"
	transfer "nooff$FAM" 1500 -- "$OFFLOADS_OFF"
	ok $? "$FAMNAME: MTU 1500, the namespace's TSO and checksum offload off: down and up intact"
done
done_testing
