#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 64 MiB HTTP upload through pasta (curl -T, i.e. PUT with Content-Length),
# plus a 1 MiB chunked upload, over IPv4 and over IPv6: the server's stored
# copy and the sha256 it returns must both match the original.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((1 + 4 * NFAM))

SIZE_MIB=64
PORT=8000
mkdir -p "$DOCS"
src=$WORK/u/up.bin
make_random "$src" "$SIZE_MIB"
want=$(sha "$src")
# Chunked transfer coding: curl -T - reads stdin and cannot know the length.
small=$WORK/u/chunked.bin
make_random "$small" 1
want_small=$(sha "$small")

topo_create; ok $? "topology created" || done_testing

for fam in $FAMILIES; do
	use_family "$fam"
	serve_fam "$PORT" "$DOCS" || { not_run 3 "$FAMNAME: upload"; continue; }

	start=$(date +%s.%N)
	pasta_run "up$FAM" 120 -- curl "$IPV" -sS --fail --connect-timeout 10 \
		--max-time 100 -T "$src" "$SRV_URL:$PORT/up$FAM.bin"
	rc=$?
	end=$(date +%s.%N)
	reply=$(tr -d '\r\n' <"$WORK/up$FAM.out")
	stored=$(sha "$DOCS/up$FAM.bin" 2>/dev/null)
	if is "$reply" "$want" "$FAMNAME: $SIZE_MIB MiB upload: sha256 returned by the server matches"; then
		diag "$(awk -v s="$start" -v e="$end" -v m="$SIZE_MIB" \
			'BEGIN { printf "%.2f s, %.0f Mbit/s", e - s, m * 8 * 1.048576 / (e - s) }')"
	else
		diag "curl exit status $rc"
		diag_file "$WORK/up$FAM.err"
	fi
	is "$stored" "$want" "$FAMNAME: $SIZE_MIB MiB upload: stored file matches"
	rm -f "$DOCS/up$FAM.bin"

	pasta_run "chunked$FAM" 60 -- sh -c "curl $IPV -sS --fail --connect-timeout 10 \
		--max-time 50 -T - '$SRV_URL:$PORT/chunked$FAM.bin' <'$small'"
	rc=$?
	reply=$(tr -d '\r\n' <"$WORK/chunked$FAM.out")
	[ "$reply" = "$want_small" ] &&
		[ "$(sha "$DOCS/chunked$FAM.bin" 2>/dev/null)" = "$want_small" ]
	if ! ok $? "$FAMNAME: 1 MiB chunked upload: returned and stored sha256 match"; then
		diag "curl exit status $rc, reply '$reply'"
		diag_file "$WORK/chunked$FAM.err"
	fi
done
done_testing
