#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Address- and interface-bound forwarding, as Podman passes it:
# -t 127.0.0.1/18080:8080 and -t ::1/18081:8080 (H's loopback only, to a
# dual-stack server on port 8080 in pasta's namespace: spliced socket to
# socket to the namespace's own address, as upstream, whose server sees
# that address),
# and
# -t H's-address%veth0/18082:8080; each is reachable where it is bound and
# nowhere else. A host port already taken, and two rules on the same port,
# stop pasta with a message naming the port, and nothing is left running.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 13

D=$WORK/u/bound; mkdir -m 0777 "$D"
echo hello >"$D/hello.txt"
chmod 0644 "$D/hello.txt"

topo_create; ok $? "topology created" || done_testing

pasta_bg bound 60 -t 127.0.0.1/18080:8080 -t ::1/18081:8080 \
	-t "$H_ADDR%veth0/18082:8080" -- "$TESTDIR/ns-server.sh" "$D" 50 \
	"$PY" "$TESTDIR/httpd.py" --bind :: --port 8080 --dir "$D" \
	--pidfile "$D/server.pid"
pasta=$BG_PID
wait_file "$D/ready" 15
ok $? "server inside pasta's namespace is ready" ||
	{ diag_file "$WORK/bound.err"; done_testing; }

# get NS URL - the page, fetched in NS (H or R)
get() { "in_$1" timeout -k 2 10 curl -sS --max-time 5 "$2" 2>/dev/null; }

is "$(get h http://127.0.0.1:18080/hello.txt)" hello \
	"-t 127.0.0.1/18080:8080 reaches the namespace from H's 127.0.0.1"
is "$(get h 'http://[::1]:18081/hello.txt')" hello \
	"-t ::1/18081:8080 reaches the namespace from H's ::1"
is "$(get r "http://$H_ADDR:18082/hello.txt")" hello \
	"-t $H_ADDR%veth0/18082:8080 reaches the namespace from R"
is "$(get h http://127.0.0.1:18080/peer | tr -d '\r\n')" "$H_ADDR" \
	"a client on H's 127.0.0.1 is spliced to the namespace's own address, as upstream: the server sees $H_ADDR"
is "$(get h 'http://[::1]:18081/peer' | tr -d '\r\n')" "$H_ADDR6" \
	"a client on H's ::1 is spliced, the server sees $H_ADDR6"
is "$(get r "http://$H_ADDR:18080/hello.txt")" "" \
	"the loopback-bound port is not reachable from R"
is "$(get h "http://[::1]:18080/hello.txt")" "" \
	"127.0.0.1/18080 is not bound on ::1"
finish_ns_server "$pasta" "$D" bound

# A port already in use on the host: an error naming it, nothing left
bg_h busy "$PY" -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 18090)); s.listen(); time.sleep(30)'
busy=$BG_PID
wait_tcp "$NS_H" 18090 10
# refused NAME PORT DESC OPTS... - pasta OPTS exits non-zero, naming PORT
refused() {
	local name=$1 port=$2 desc=$3 rc
	shift 3
	pasta_run "$name" 20 "$@" -- true
	rc=$?
	[ $rc != 0 ] && grep -q "$port" "$WORK/$name.err"
	ok $? "$desc: pasta exits non-zero ($rc), naming port $port" ||
		diag_file "$WORK/$name.err"
	diag "$(head -n 1 "$WORK/$name.err")"
}

refused busy 18090 "a port in use on the host" -t 127.0.0.1/18090
kill_pid "$busy"
refused overlap 18091 "overlapping rules on one port" -t 18091 \
	-t 127.0.0.1/18091
is "$(our_procs)" "" "no process of the test user left behind"
done_testing
