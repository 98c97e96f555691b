#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# UDP both ways through pasta, with datagrams of 4 to 8000 bytes:
#  - outbound: a client in pasta's namespace talks to an echo server in R;
#  - inbound: with -u 5353, a client in R sends to 203.0.113.1:5353 and an
#    echo server inside pasta's namespace answers: once from R's own address
#    203.0.113.2 (which is also the gateway address in pasta's namespace, so
#    the echo must follow the flow, not the gateway-to-loopback mapping),
#    once from 198.51.100.1.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 7

PORT=7777
FWD=5353
COUNT=100

topo_create; ok $? "topology created" || done_testing
start_udpecho "$NS_R" "$SRV_ADDR" "$PORT" udpecho
ok $? "echo server bound to $SRV_ADDR:$PORT in R" || done_testing

pasta_run out 60 -- "$PY" "$TESTDIR/udpecho.py" --client --to "$SRV_ADDR" \
	--port "$PORT" --count "$COUNT" --timeout 40
rc=$?
ok $rc "outbound: $COUNT datagrams echoed by $SRV_ADDR:$PORT" ||
	{ diag "exit status $rc"; diag_file "$WORK/out.out" 3; diag_file "$WORK/out.err"; }

D=$WORK/u/fwd; mkdir -m 0777 "$D"
pasta_bg fwd 110 -u "$FWD" -- "$TESTDIR/ns-server.sh" "$D" 80 \
	"$PY" "$TESTDIR/udpecho.py" --bind 0.0.0.0 --port "$FWD" \
	--pidfile "$D/server.pid"
pasta=$BG_PID
wait_file "$D/ready" 15
if ! ok $? "echo server inside pasta's namespace is ready"; then
	diag_file "$WORK/fwd.err"
	done_testing
fi
wait_udp "$NS_H" "$FWD" 10 || diag "nothing bound to UDP $FWD in H: $(in_h ss -Hulnp)"

for src in "$R_ADDR" "$SRV_ADDR"; do
	in_r timeout -k 2 30 "$PY" "$TESTDIR/udpecho.py" --client --to "$H_ADDR" \
		--port "$FWD" --source "$src" --count "$COUNT" --timeout 20 \
		>"$WORK/in.out" 2>"$WORK/in.err"
	rc=$?
	ok $rc "inbound from $src: $COUNT datagrams to forwarded port $H_ADDR:$FWD echoed" ||
		{ diag "exit status $rc"; diag_file "$WORK/in.out" 3; diag_file "$WORK/in.err" 3; diag_file "$WORK/fwd.err" 10; }
done

touch "$D/done"
if wait_gone "$pasta" 15; then
	wait "$pasta"
	rc=$?
else
	rc="still running 15 s after the command was told to finish"
fi
is "$rc" 0 "pasta exits 0 after the command finishes" || diag_file "$WORK/fwd.err"
done_testing
