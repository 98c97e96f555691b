#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pasta -t auto -u auto: a port a server in the namespace starts listening
# on is forwarded from the same host port within about a second (TCP and
# UDP, from R, both families through one dual-stack socket), and released
# once the server is gone.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 7

D=$WORK/u/auto; mkdir -m 0777 "$D"
echo hello >"$D/hello.txt"
chmod 0644 "$D/hello.txt"

topo_create; ok $? "topology created" || done_testing

# The servers start only after pasta runs, so that "auto" has to see them
pasta_bg auto 60 -t auto -u auto -- sh -c "sleep 1
	$PY $TESTDIR/httpd.py --bind :: --port 8085 --dir $D \
		--pidfile $D/http.pid & h=\$!
	$PY $TESTDIR/udpecho.py --bind :: --port 5385 --pidfile $D/udp.pid & u=\$!
	touch $D/started
	i=0; while [ ! -e $D/stop ] && [ \$i -lt 400 ]; do sleep 0.1; i=\$((i + 1)); done
	kill \$h \$u; sleep 5"
pasta=$BG_PID
wait_file "$D/started" 15
wait_tcp "$NS_H" 8085 5
ok $? "TCP port 8085 forwarded once the namespace listens on it" ||
	{ diag "$(in_h ss -Htln)"; diag_file "$WORK/auto.err"; }
wait_udp "$NS_H" 5385 5
ok $? "UDP port 5385 forwarded once the namespace binds it" ||
	diag "$(in_h ss -Huln)"

is "$(in_r timeout -k 2 10 curl -sS --max-time 5 "http://$H_ADDR:8085/hello.txt" 2>&1)" \
	hello "R fetches through the port auto forwarded, IPv4"
is "$(in_r timeout -k 2 10 curl -sS --max-time 5 "http://[$H_ADDR6]:8085/hello.txt" 2>&1)" \
	hello "R fetches through the port auto forwarded, IPv6"
in_r timeout -k 2 20 "$PY" "$TESTDIR/udpecho.py" --client --to "$H_ADDR" \
	--port 5385 --count 10 --timeout 15 >"$WORK/udp.out" 2>&1
ok $? "UDP echo from R through the port auto forwarded" ||
	diag_file "$WORK/udp.out"

touch "$D/stop"
gone() { [ -z "$(in_h ss -Htln 'sport = :8085')" ]; }
_poll 4 gone
ok $? "port 8085 released once the server in the namespace is gone"
kill_pid "$pasta"
done_testing
