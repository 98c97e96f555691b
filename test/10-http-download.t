#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 64 MiB HTTP download through pasta, over IPv4 and over IPv6: curl in
# pasta's namespace fetches a random file from the remote server
# (198.51.100.1, 2001:db8:2::1 in R); sha256 must match.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((1 + 2 * NFAM))

SIZE_MIB=64
PORT=8000
want=$(docs_random big.bin "${SIZE_MIB}M")

topo_create; ok $? "topology created" || done_testing

for fam in $FAMILIES; do
	use_family "$fam"
	desc="$FAMNAME: $SIZE_MIB MiB download, sha256 matches"
	serve_fam "$PORT" "$DOCS" || { not_run 1 "$desc"; continue; }

	out=$WORK/u/big$FAM.bin
	start=$(date +%s.%N)
	pasta_run "dl$FAM" 120 -- curl "$IPV" -sS --fail --connect-timeout 10 \
		--max-time 100 -o "$out" "$SRV_URL:$PORT/big.bin"
	rc=$?
	end=$(date +%s.%N)
	got=$(sha "$out" 2>/dev/null)
	if [ $rc = 0 ] && [ "$got" = "$want" ]; then
		ok 0 "$desc"
		diag "$(awk -v s="$start" -v e="$end" -v m="$SIZE_MIB" \
			'BEGIN { printf "%.2f s, %.0f Mbit/s", e - s, m * 8 * 1.048576 / (e - s) }')"
	else
		ok 1 "$desc"
		diag "exit status $rc; got $(stat -c %s "$out" 2>/dev/null || echo 0) bytes, sha256 '$got'"
		diag_file "$WORK/dl$FAM.err"
	fi
	rm -f "$out"
done
done_testing
