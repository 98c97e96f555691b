#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# UDP both ways through pasta, over IPv4 and over IPv6, with datagrams of 4
# to 8000 bytes:
#  - outbound: a client in pasta's namespace talks to an echo server in R
#    (198.51.100.1, 2001:db8:2::1);
#  - inbound: with -u 5353, a client in R sends to 203.0.113.1:5353 and
#    [2001:db8:1::1]:5353 and a dual-stack echo server inside pasta's
#    namespace answers: once from R's own address 203.0.113.2 /
#    2001:db8:1::2 (which is also the gateway address in pasta's namespace,
#    so the echo must follow the flow, not the gateway-to-loopback mapping),
#    once from 198.51.100.1 / 2001:db8:2::1.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((3 + 4 * NFAM))

PORT=7777
FWD=5353
COUNT=100

topo_create; ok $? "topology created" || done_testing

for fam in $FAMILIES; do
	use_family "$fam"
	desc="$FAMNAME: outbound: $COUNT datagrams echoed by $(url_host "$SRV"):$PORT"
	start_udpecho "$NS_R" "$SRV" "$PORT" "udpecho$FAM"
	ok $? "$FAMNAME: echo server bound to $(url_host "$SRV"):$PORT in R" ||
		{ not_run 1 "$desc"; continue; }

	pasta_run "out$FAM" 60 -- "$PY" "$TESTDIR/udpecho.py" --client \
		--to "$SRV" --port "$PORT" --count "$COUNT" --timeout 40
	rc=$?
	ok $rc "$desc" || { diag "exit status $rc"; diag_file "$WORK/out$FAM.out" 3
			    diag_file "$WORK/out$FAM.err"; }
done

D=$WORK/u/fwd; mkdir -m 0777 "$D"
# Bounds: every client below may take 30 s
pasta_bg fwd 160 -u "$FWD" -- "$TESTDIR/ns-server.sh" "$D" 140 \
	"$PY" "$TESTDIR/udpecho.py" --bind :: --port "$FWD" \
	--pidfile "$D/server.pid"
pasta=$BG_PID
wait_file "$D/ready" 15
if ! ok $? "echo server inside pasta's namespace is ready"; then
	diag_file "$WORK/fwd.err"
	done_testing
fi
wait_udp "$NS_H" "$FWD" 10 || diag "nothing bound to UDP $FWD in H: $(in_h ss -Hulnp)"

for fam in $FAMILIES; do
	use_family "$fam"
	for src in "$R" "$SRV"; do
		in_r timeout -k 2 30 "$PY" "$TESTDIR/udpecho.py" --client --to "$H" \
			--port "$FWD" --source "$src" --count "$COUNT" --timeout 20 \
			>"$WORK/in.out" 2>"$WORK/in.err"
		rc=$?
		ok $rc "$FAMNAME: inbound from $src: $COUNT datagrams to forwarded port $(url_host "$H"):$FWD echoed" ||
			{ diag "exit status $rc"; diag_file "$WORK/in.out" 3; diag_file "$WORK/in.err" 3; diag_file "$WORK/fwd.err" 10; }
	done
done

finish_ns_server "$pasta" "$D" fwd
done_testing
