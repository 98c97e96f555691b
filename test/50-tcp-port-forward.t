#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# TCP port forwarding (-t), over IPv4 and over IPv6: pasta listens on H's
# port 8080 and forwards to a dual-stack HTTP server ([::]:8080) inside its
# namespace.  Clients in R connect to 203.0.113.1:8080 and
# [2001:db8:1::1]:8080; the server must see each client's real address:
# R's 203.0.113.2 / 2001:db8:1::2 by default, and 198.51.100.1 /
# 2001:db8:2::1 when the client binds that one (which cannot be confused
# with a gateway/loopback mapping).  A 4 MiB download over the forwarded
# port checks the data path too.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((4 + 3 * NFAM))

PORT=8080
D=$WORK/u/fwd; mkdir -m 0777 "$D"
head -c $((4 * 1024 * 1024)) /dev/urandom >"$D/file.bin"
chmod 0644 "$D/file.bin"
want=$(sha "$D/file.bin")

topo_create; ok $? "topology created" || done_testing

# Bounds: every curl below may take 20 s
pasta_bg fwd 160 -t "$PORT" -- "$TESTDIR/ns-server.sh" "$D" 140 \
	"$PY" "$TESTDIR/httpd.py" --bind :: --port "$PORT" --dir "$D" \
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

for fam in $FAMILIES; do
	use_family "$fam"
	peer=$(curl_r "$H_URL:$PORT/peer" 2>"$WORK/c1-$FAM.err" | tr -d '\r\n')
	is "$peer" "$R" "$FAMNAME: forwarded connection from R shows source $R" ||
		diag_file "$WORK/c1-$FAM.err"

	peer=$(curl_r --interface "$SRV" "$H_URL:$PORT/peer" \
		2>"$WORK/c2-$FAM.err" | tr -d '\r\n')
	is "$peer" "$SRV" "$FAMNAME: forwarded connection bound to $SRV shows source $SRV" ||
		diag_file "$WORK/c2-$FAM.err"

	curl_r -o "$WORK/file$FAM.bin" "$H_URL:$PORT/file.bin" 2>"$WORK/c3-$FAM.err"
	rc=$?
	is "$(sha "$WORK/file$FAM.bin" 2>/dev/null)" "$want" \
		"$FAMNAME: 4 MiB over the forwarded port, sha256 matches" ||
		{ diag "curl exit status $rc"; diag_file "$WORK/c3-$FAM.err"; }
done

finish_ns_server "$pasta" "$D" fwd
done_testing
