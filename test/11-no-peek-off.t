#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Kernels before 6.10 have no SO_PEEK_OFF for TCP: pasta then peeks the data
# in flight to the guest again each time. PASST_TEST_NO_PEEK_OFF=1 makes it
# take that path here: a 64 MiB download must still arrive intact.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself"
plan 4

PORT=8000
SRV=$WORK/srv; mkdir -p "$SRV"
make_random "$SRV/big.bin" 64
want=$(sha "$SRV/big.bin")

topo_create; ok $? "topology created" || done_testing
start_httpd "$NS_R" "$SRV_ADDR" "$PORT" "$SRV" httpd
ok $? "server listening on $SRV_ADDR:$PORT in R" || done_testing

out=$WORK/u/big.bin
as_user_h 120 env PASST_TEST_NO_PEEK_OFF=1 "$PASTA" --config-net -- \
	curl -sS --max-time 100 -o "$out" "http://$SRV_ADDR:$PORT/big.bin" \
	>"$WORK/dl.out" 2>"$WORK/dl.err"
rc=$?
is "$(sha "$out" 2>/dev/null)" "$want" "64 MiB download without SO_PEEK_OFF, sha256 matches" ||
	{ diag "exit status $rc"; diag_file "$WORK/dl.err"; }
grep -q "no SO_PEEK_OFF" "$WORK/dl.err"
ok $? "pasta says it runs without SO_PEEK_OFF" || diag_file "$WORK/dl.err"
done_testing
