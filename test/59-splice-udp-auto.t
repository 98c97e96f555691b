#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pasta's loopback paths that carry no frames: -U (UDP from the namespace to
# the host's loopback), -u from the host's loopback to servers bound to the
# namespace's loopback only (--host-lo-to-ns-lo), datagrams of up to 60000
# bytes (no MTU on these paths), both families; and -T/-U auto, the default: a TCP and a UDP
# server on the host's side are reachable on the namespace's loopback at
# once, and one started later within seconds.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 11

D=$WORK/srv; mkdir -p "$D"
echo "from H" >"$D/f.txt"
U=$WORK/u
echo="$PY $TESTDIR/udpecho.py --client --count 40 --max-size 60000"

topo_create; ok $? "topology created" || done_testing
start_udpecho "$NS_H" :: 5300 udpecho &&
	start_httpd "$NS_H" :: 8095 "$D" httpd
ok $? "UDP echo (5300) and HTTP (8095) servers in H, both families" ||
	done_testing

# The namespace's command starts the second server's clock: H's 8096 comes
# up once $U/started exists, and the command tries it for up to 6 s.
pasta_bg ns 90 -U 15300:5300 -- sh -c "
	$echo --to 127.0.0.1 --port 15300 --timeout 20; echo u4=\$?
	$echo --to ::1 --port 15300 --timeout 20; echo u6=\$?
	curl -sS --max-time 10 http://127.0.0.1:8095/f.txt; echo t4=\$?
	curl -sS --max-time 10 'http://[::1]:8095/f.txt'; echo t6=\$?
	echo go >$U/started; t0=\$(date +%s%N)
	rc=1
	for i in \$(seq 60); do
		curl -sS --max-time 1 http://127.0.0.1:8096/f.txt 2>/dev/null &&
			rc=0 && break
		sleep 0.1
	done
	echo later=\$rc ms=\$(( (\$(date +%s%N) - t0) / 1000000 ))"
pasta=$BG_PID
wait_file "$U/started" 60
start_httpd "$NS_H" 127.0.0.1 8096 "$D" httpd2
wait "$pasta"
out=$(cat "$WORK/ns.out")
echo "$out" | grep -qx "u4=0"
ok $? "-U 15300:5300: 40 datagrams up to 60000 bytes from the namespace's 127.0.0.1 echoed by H's loopback" ||
	{ diag "$out"; diag_file "$WORK/ns.err"; }
echo "$out" | grep -qx "u6=0"
ok $? "-U 15300:5300: the same from the namespace's ::1"
echo "$out" | grep -qx "t4=0" && [ "$(echo "$out" | grep -c "^from H$")" -ge 1 ]
ok $? "-T auto (default): H's TCP server on 8095 from the namespace's 127.0.0.1"
echo "$out" | grep -qx "t6=0" && [ "$(echo "$out" | grep -c "^from H$")" -ge 2 ]
ok $? "-T auto: the same from ::1"
ms=$(echo "$out" | sed -n 's/^later=0 ms=//p')
[ -n "$ms" ]
ok $? "-T auto: H's server started later reachable after ${ms:-?} ms" ||
	diag "$out"

pasta_run ua 60 -- $echo --to 127.0.0.1 --port 5300 --count 5 --timeout 20
ok $? "-U auto (default): H's UDP echo server on 5300 from the namespace's 127.0.0.1" ||
	{ diag_file "$WORK/ua.out"; diag_file "$WORK/ua.err"; }

# -u from H's loopback, --host-lo-to-ns-lo: servers bound to the
# namespace's loopback only
S=$WORK/u/us; mkdir -m 0777 "$S"
pasta_bg us 90 -u 5301 -u 5302 --host-lo-to-ns-lo -- \
	"$TESTDIR/ns-server.sh" "$S" 60 sh -c "
	$PY $TESTDIR/udpecho.py --bind ::1 --port 5302 &
	exec $PY $TESTDIR/udpecho.py --bind 127.0.0.1 --port 5301 \
		--pidfile $S/server.pid"
pasta=$BG_PID
wait_file "$S/ready" 15
wait_udp "$NS_H" 5302 10
in_h timeout -k 2 30 $echo --to 127.0.0.1 --port 5301 --timeout 20 \
	>"$WORK/us4.out" 2>&1
ok $? "-u 5301 --host-lo-to-ns-lo from H's 127.0.0.1: spliced to a server on the namespace's 127.0.0.1 only" ||
	{ diag_file "$WORK/us4.out"; diag_file "$WORK/us.err"; }
in_h timeout -k 2 30 $echo --to ::1 --port 5302 --timeout 20 \
	>"$WORK/us6.out" 2>&1
ok $? "-u 5302 --host-lo-to-ns-lo from H's ::1: spliced to a server on the namespace's ::1 only" ||
	diag_file "$WORK/us6.out"
finish_ns_server "$pasta" "$S" us
done_testing
