#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# With --pcap, frames to the guest carry complete TCP and UDP checksums
# (without it, pasta leaves them to the tap's checksum offload, see tap.c):
# a 1 MiB HTTP download and a UDP echo exchange, both intact, and every
# captured frame from 198.51.100.1 checks out (test/pcapcheck.py).

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 5

PORT=8000
UDP_PORT=7777
SRV=$WORK/srv; mkdir -p "$SRV"
make_random "$SRV/one.bin" 1
want=$(sha "$SRV/one.bin")

topo_create; ok $? "topology created" || done_testing
start_httpd "$NS_R" "$SRV_ADDR" "$PORT" "$SRV" httpd &&
	start_udpecho "$NS_R" "$SRV_ADDR" "$UDP_PORT" udpecho
ok $? "HTTP and UDP echo servers in R" || done_testing

cap=$WORK/u/cap.pcap
out=$WORK/u/one.bin
pasta_run cap 60 --pcap "$cap" -- sh -c "
	curl -sS --fail --connect-timeout 10 --max-time 30 -o '$out' \
		'http://$SRV_ADDR:$PORT/one.bin' &&
	'$PY' '$TESTDIR/udpecho.py' --client --to '$SRV_ADDR' \
		--port $UDP_PORT --count 10 --timeout 20"
rc=$?
ok $rc "download and UDP echo with --pcap" ||
	{ diag "exit status $rc"; diag_file "$WORK/cap.err"; }
is "$(sha "$out" 2>/dev/null)" "$want" "1 MiB download, sha256 matches"
res=$("$PY" "$TESTDIR/pcapcheck.py" "$cap" "$SRV_ADDR" 2>&1)
ok $? "captured TCP and UDP frames to the guest have valid checksums" ||
	diag "$res"
diag "$res"
done_testing
