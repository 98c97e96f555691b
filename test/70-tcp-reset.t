#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A server that aborts the connection (RST) in the middle of a transfer,
# over IPv4 and over IPv6: curl in pasta's namespace must fail (non-zero
# exit) promptly, after some data, not hang and not report success.  The
# server announces 64 MiB and sends 4 MiB first.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((1 + 3 * NFAM))

PORT=8000
BOUND=30
mkdir -p "$DOCS"

topo_create; ok $? "topology created" || done_testing

for fam in $FAMILIES; do
	use_family "$fam"
	desc="$FAMNAME: curl through pasta fails on a reset mid-transfer"
	serve_fam "$PORT" "$DOCS" || { not_run 2 "$desc"; continue; }
	url="$SRV_URL:$PORT/reset?bytes=4194304"

	# Sanity check of the server itself, from H without pasta: it must reset.
	in_h timeout -k 2 20 curl "$IPV" -sS -o /dev/null "$url" \
		2>"$WORK/direct$FAM.err"
	direct=$?
	[ $direct != 0 ] && [ $direct != 124 ]
	ok $? "$FAMNAME: reference: curl directly from H fails too (exit status $direct)" ||
		diag_file "$WORK/direct$FAM.err"

	# No --max-time: only the outer bound, so a hang shows up as 124/137.
	# Some data must have come first: a connection that never opened
	# fails too, but is no reset mid-transfer.
	start=$(date +%s)
	pasta_run "reset$FAM" "$BOUND" -- curl "$IPV" -sS --connect-timeout 10 \
		-o /dev/null -w '%{size_download}\n' "$url"
	rc=$?
	took=$(( $(date +%s) - start ))
	got=$(tr -dc 0-9 <"$WORK/reset$FAM.out")
	case $rc in
	0)	ok 1 "$desc"
		diag "curl reported success"; diag_file "$WORK/reset$FAM.err" ;;
	124|137)
		ok 1 "$desc"
		diag "hung: still running after $BOUND s"
		diag_file "$WORK/reset$FAM.err" ;;
	*)	[ "${got:-0}" -gt 0 ]
		ok $? "$desc" || diag "no data before the failure"
		# 56 (recv failure: connection reset) is the faithful outcome;
		# 18 (partial file) means the reset reached the client as a
		# clean FIN.
		diag "curl exit status $rc after ${took} s, $got bytes (directly from H: $direct)"
		diag "curl: $(head -n 2 "$WORK/reset$FAM.err")" ;;
	esac
done
done_testing
