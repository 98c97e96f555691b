#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A server that aborts the connection (RST) in the middle of a transfer:
# curl in pasta's namespace must fail (non-zero exit) promptly, not hang and
# not report success.  The server announces 64 MiB and sends 4 MiB first.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 4

PORT=8000
BOUND=30
SRV=$WORK/srv; mkdir -p "$SRV"

topo_create; ok $? "topology created" || done_testing
start_httpd "$NS_R" "$SRV_ADDR" "$PORT" "$SRV" httpd
ok $? "server listening on $SRV_ADDR:$PORT in R" || done_testing

# Sanity check of the server itself, from H without pasta: it must reset.
in_h timeout -k 2 20 curl -sS -o /dev/null "http://$SRV_ADDR:$PORT/reset?bytes=4194304" \
	2>"$WORK/direct.err"
direct=$?
[ $direct != 0 ] && [ $direct != 124 ]
ok $? "reference: curl directly from H fails too (exit status $direct)" ||
	diag_file "$WORK/direct.err"

# No --max-time: only the outer bound, so a hang shows up as 124/137.
start=$(date +%s)
pasta_run reset "$BOUND" -- curl -sS --connect-timeout 10 -o /dev/null \
	"http://$SRV_ADDR:$PORT/reset?bytes=4194304"
rc=$?
took=$(( $(date +%s) - start ))
case $rc in
0)	ok 1 "curl through pasta fails on a reset mid-transfer"
	diag "curl reported success"; diag_file "$WORK/reset.err" ;;
124|137)
	ok 1 "curl through pasta fails on a reset mid-transfer"
	diag "hung: still running after $BOUND s"; diag_file "$WORK/reset.err" ;;
*)	ok 0 "curl through pasta fails on a reset mid-transfer"
	# 56 (recv failure: connection reset) is the faithful outcome; 18
	# (partial file) means the reset reached the client as a clean FIN.
	diag "curl exit status $rc after ${took} s (directly from H: $direct)"
	diag "curl: $(head -n 2 "$WORK/reset.err")" ;;
esac
done_testing
