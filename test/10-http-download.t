#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 64 MiB HTTP download through pasta: curl in pasta's namespace fetches a
# random file from the remote server (198.51.100.1 in R); sha256 must match.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 3

SIZE_MIB=64
PORT=8000
SRV=$WORK/srv; mkdir -p "$SRV"
make_random "$SRV/big.bin" "$SIZE_MIB"
want=$(sha "$SRV/big.bin")

topo_create; ok $? "topology created" || done_testing
start_httpd "$NS_R" "$SRV_ADDR" "$PORT" "$SRV" httpd
ok $? "server listening on $SRV_ADDR:$PORT in R" || done_testing

out=$WORK/u/big.bin
start=$(date +%s.%N)
pasta_run dl 120 -- curl -sS --fail --connect-timeout 10 --max-time 100 \
	-o "$out" "http://$SRV_ADDR:$PORT/big.bin"
rc=$?
end=$(date +%s.%N)
got=$(sha "$out" 2>/dev/null)
if [ $rc = 0 ] && [ "$got" = "$want" ]; then
	ok 0 "$SIZE_MIB MiB download, sha256 matches"
	diag "$(awk -v s="$start" -v e="$end" -v m="$SIZE_MIB" \
		'BEGIN { printf "%.2f s, %.0f Mbit/s", e - s, m * 8 * 1.048576 / (e - s) }')"
else
	ok 1 "$SIZE_MIB MiB download, sha256 matches"
	diag "exit status $rc; got $(stat -c %s "$out" 2>/dev/null || echo 0) bytes, sha256 '$got'"
	diag_file "$WORK/dl.err"
fi
done_testing
