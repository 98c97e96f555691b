#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# TCP port forwarding (-t): pasta listens on H's port 8080 and forwards to
# an HTTP server inside its namespace.  Clients in R connect to
# 203.0.113.1:8080; the server must see each client's real address: R's
# 203.0.113.2 by default, and 198.51.100.1 when the client binds that one
# (which cannot be confused with a gateway/loopback mapping).  A 4 MiB
# download over the forwarded port checks the data path too.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 7

PORT=8080
D=$WORK/u/fwd; mkdir -m 0777 "$D"
head -c $((4 * 1024 * 1024)) /dev/urandom >"$D/file.bin"
chmod 0644 "$D/file.bin"
want=$(sha "$D/file.bin")

topo_create; ok $? "topology created" || done_testing

pasta_bg fwd 60 -t "$PORT" -- "$TESTDIR/ns-server.sh" "$D" 45 \
	"$PY" "$TESTDIR/httpd.py" --bind 0.0.0.0 --port "$PORT" --dir "$D" \
	--pidfile "$D/server.pid"
pasta=$BG_PID

wait_file "$D/ready" 15
if ! ok $? "server inside pasta's namespace is ready"; then
	diag_file "$WORK/fwd.err"
	done_testing
fi
wait_tcp "$NS_H" "$PORT" 10
ok $? "port $PORT listening in H" || diag "$(in_h ss -Htlnp)"

curl_r() { in_r timeout -k 2 20 curl -sS --max-time 15 "$@"; }

peer=$(curl_r "http://$H_ADDR:$PORT/peer" 2>"$WORK/c1.err" | tr -d '\r\n')
is "$peer" "$R_ADDR" "forwarded connection from R shows source $R_ADDR" ||
	diag_file "$WORK/c1.err"

peer=$(curl_r --interface "$SRV_ADDR" "http://$H_ADDR:$PORT/peer" \
	2>"$WORK/c2.err" | tr -d '\r\n')
is "$peer" "$SRV_ADDR" "forwarded connection bound to $SRV_ADDR shows source $SRV_ADDR" ||
	diag_file "$WORK/c2.err"

curl_r -o "$WORK/file.bin" "http://$H_ADDR:$PORT/file.bin" 2>"$WORK/c3.err"
rc=$?
is "$(sha "$WORK/file.bin" 2>/dev/null)" "$want" \
	"4 MiB over the forwarded port, sha256 matches" ||
	{ diag "curl exit status $rc"; diag_file "$WORK/c3.err"; }

touch "$D/done"
if wait_gone "$pasta" 15; then
	wait "$pasta"
	rc=$?
else
	rc="still running 15 s after the command was told to finish"
fi
is "$rc" 0 "pasta exits 0 after the command finishes" || diag_file "$WORK/fwd.err"
done_testing
