#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The gateway address in pasta's namespace (203.0.113.2, copied from H by
# --config-net) stands for H's loopback, as upstream does: a server bound
# to 127.0.0.1 in H must be reachable from pasta's namespace at
# http://203.0.113.2:PORT/.  (R also owns 203.0.113.2 but runs no server on
# that port, so reaching R instead fails.)  With PASTA_DIRECT=1 the client
# uses 127.0.0.1 directly.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 4

PORT=8081
SRV=$WORK/srv; mkdir -p "$SRV"
head -c 1048576 /dev/urandom >"$SRV/gw.bin"
want=$(sha "$SRV/gw.bin")

topo_create; ok $? "topology created" || done_testing
start_httpd "$NS_H" 127.0.0.1 "$PORT" "$SRV" httpd-lo
ok $? "server listening on 127.0.0.1:$PORT in H" || done_testing

out=$WORK/u/gw.bin
pasta_run gw 40 -- curl -sS --fail --connect-timeout 10 --max-time 30 \
	-o "$out" "http://$GW:$PORT/gw.bin"
rc=$?
is "$(sha "$out" 2>/dev/null)" "$want" "1 MiB from H's 127.0.0.1:$PORT via http://$GW:$PORT/" ||
	{ diag "curl exit status $rc"; diag_file "$WORK/gw.err"; }

pasta_run gwpeer 40 -- curl -sS --fail --connect-timeout 10 --max-time 30 \
	"http://$GW:$PORT/peer"
rc=$?
is "$(tr -d '\r\n' <"$WORK/gwpeer.out")" 127.0.0.1 \
	"H's loopback server sees the connection from 127.0.0.1" ||
	{ diag "curl exit status $rc"; diag_file "$WORK/gwpeer.err"; }
done_testing
