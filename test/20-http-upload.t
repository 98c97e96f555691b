#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 64 MiB HTTP upload through pasta (curl -T, i.e. PUT with Content-Length),
# plus a 1 MiB chunked upload: the server's stored copy and the sha256 it
# returns must both match the original.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 5

SIZE_MIB=64
PORT=8000
SRV=$WORK/srv; mkdir -p "$SRV"
src=$WORK/u/up.bin
make_random "$src" "$SIZE_MIB"
want=$(sha "$src")

topo_create; ok $? "topology created" || done_testing
start_httpd "$NS_R" "$SRV_ADDR" "$PORT" "$SRV" httpd
ok $? "server listening on $SRV_ADDR:$PORT in R" || done_testing

start=$(date +%s.%N)
pasta_run up 120 -- curl -sS --fail --connect-timeout 10 --max-time 100 \
	-T "$src" "http://$SRV_ADDR:$PORT/up.bin"
rc=$?
end=$(date +%s.%N)
reply=$(tr -d '\r\n' <"$WORK/up.out")
stored=$(sha "$SRV/up.bin" 2>/dev/null)
if is "$reply" "$want" "$SIZE_MIB MiB upload: sha256 returned by the server matches"; then
	diag "$(awk -v s="$start" -v e="$end" -v m="$SIZE_MIB" \
		'BEGIN { printf "%.2f s, %.0f Mbit/s", e - s, m * 8 * 1.048576 / (e - s) }')"
else
	diag "curl exit status $rc"
	diag_file "$WORK/up.err"
fi
is "$stored" "$want" "$SIZE_MIB MiB upload: stored file matches"

# Chunked transfer coding: curl -T - reads stdin and cannot know the length.
small=$WORK/u/chunked.bin
make_random "$small" 1
want=$(sha "$small")
pasta_run chunked 60 -- sh -c "curl -sS --fail --connect-timeout 10 --max-time 50 \
	-T - http://$SRV_ADDR:$PORT/chunked.bin <'$small'"
rc=$?
reply=$(tr -d '\r\n' <"$WORK/chunked.out")
[ "$reply" = "$want" ] && [ "$(sha "$SRV/chunked.bin" 2>/dev/null)" = "$want" ]
if ! ok $? "1 MiB chunked upload: returned and stored sha256 match"; then
	diag "curl exit status $rc, reply '$reply'"
	diag_file "$WORK/chunked.err"
fi
done_testing
