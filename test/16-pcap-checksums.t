#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# With --pcap, frames to the guest carry complete TCP and UDP checksums
# (without it, pasta leaves them to the tap's checksum offload, see tap.c):
# a 1 MiB HTTP download and a UDP echo exchange, both intact, and every
# captured frame from the server (198.51.100.1, 2001:db8:2::1) checks out
# (test/pcapcheck.py), for each family.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((1 + 4 * NFAM))

PORT=8000
UDP_PORT=7777
SRV_DIR=$WORK/srv; mkdir -p "$SRV_DIR"
make_random "$SRV_DIR/one.bin" 1
want=$(sha "$SRV_DIR/one.bin")

topo_create; ok $? "topology created" || done_testing

for fam in $FAMILIES; do
	use_family "$fam"
	start_httpd "$NS_R" "$SRV" "$PORT" "$SRV_DIR" "httpd$FAM" &&
		start_udpecho "$NS_R" "$SRV" "$UDP_PORT" "udpecho$FAM"
	ok $? "$FAMNAME: HTTP and UDP echo servers in R" || continue

	cap=$WORK/u/cap$FAM.pcap
	out=$WORK/u/one$FAM.bin
	pasta_run "cap$FAM" 60 --pcap "$cap" -- sh -c "
		curl -sS --fail --connect-timeout 10 --max-time 30 -o '$out' \
			'$SRV_URL:$PORT/one.bin' &&
		'$PY' '$TESTDIR/udpecho.py' --client --to '$SRV' \
			--port $UDP_PORT --count 10 --timeout 20"
	rc=$?
	ok $rc "$FAMNAME: download and UDP echo with --pcap" ||
		{ diag "exit status $rc"; diag_file "$WORK/cap$FAM.err"; }
	is "$(sha "$out" 2>/dev/null)" "$want" "$FAMNAME: 1 MiB download, sha256 matches"
	res=$("$PY" "$TESTDIR/pcapcheck.py" "$cap" "$SRV" 2>&1)
	ok $? "$FAMNAME: captured TCP and UDP frames to the guest have valid checksums" ||
		diag "$res"
	diag "$FAMNAME: $res"
done
done_testing
