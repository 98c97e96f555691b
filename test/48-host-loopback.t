#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Clients on H's loopback of pasta's -t and -u ports, as upstream (2026):
# by default they reach the namespace's own address (spliced), so that a
# server on the namespace's loopback alone stays private; with
# --host-lo-to-ns-lo they reach the loopback address they used (127.0.0.2
# stays 127.0.0.2), loopback-only servers included, and upstream's refusal
# of it with --no-splice. UDP answers come from the address the client sent
# to, so a connected socket of 127.0.0.2 hears them. An mDNS query to
# 224.0.0.251 on a -u port reaches the guest still addressed to the group
# (not rewritten to the guest's address).

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 13

topo_create; ok $? "topology created" || done_testing

# start_ns NAME [OPTS...] - pasta with servers in its namespace: httpd.py on
# every address, port 8080; on 127.0.0.1 alone, port 8082; udpecho.py on
# 8081; sets S, SPID_PASTA
start_ns() {
	local name=$1
	shift
	S=$WORK/u/$name
	mkdir -m 0777 "$S"
	echo "$name" >"$S/who.txt"
	pasta_bg "$name" 120 -t 8080,8082 -u 8081 -T none -U none "$@" -- \
		sh -c 'd=$1 py=$2 t=$3
		"$py" "$t/httpd.py" --bind :: --port 8080 --dir "$d" \
			--pidfile "$d/a.pid" &
		"$py" "$t/httpd.py" --bind 127.0.0.1 --port 8082 --dir "$d" \
			--pidfile "$d/b.pid" &
		"$py" "$t/udpecho.py" --bind :: --port 8081 --pidfile "$d/u.pid" &
		i=0
		while [ $i -lt 1100 ] && [ ! -e "$d/done" ]; do
			[ -s "$d/a.pid" ] && [ -s "$d/b.pid" ] && [ -s "$d/u.pid" ] &&
				[ ! -e "$d/ready" ] && echo >"$d/ready"
			i=$((i + 1)); sleep 0.1
		done
		kill $(cat "$d/a.pid" "$d/b.pid" "$d/u.pid")' - "$S" "$PY" "$TESTDIR"
	SPID_PASTA=$BG_PID
	wait_file "$S/ready" 15
}

# get ADDR PORT PATH - what a client on H gets, "-" if nothing
get() {
	local out
	out=$(in_h curl -sS -g --max-time 5 "http://$(url_host "$1"):$2/$3" \
		2>/dev/null) || out=-
	echo "$out"
}

# udp_peer ADDR - the sender's address udpecho.py saw through a socket
# connected to ADDR:8081 in H, "-" if no answer came to it
udp_peer() {
	in_h timeout 10 "$PY" - "$1" <<'EOF' 2>/dev/null || echo -
import socket, sys
s = socket.socket(socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET,
                  socket.SOCK_DGRAM)
s.settimeout(1)
s.connect((sys.argv[1], 8081))
for _ in range(3):
    s.send(b'peer?')
    try:
        print(s.recv(100).decode())
        sys.exit(0)
    except OSError:
        pass
sys.exit(1)
EOF
}

# --- by default -----------------------------------------------------------
start_ns plain
ok $? "pasta with servers in its namespace" ||
	{ diag_file "$WORK/plain.err"; done_testing; }
got="$(get 127.0.0.1 8080 local) $(get 127.0.0.1 8080 peer) $(get ::1 8080 local)"
is "$got" "$H_ADDR $H_ADDR $H_ADDR6" \
	"by default H's loopback reaches the namespace's own address (/local, /peer; ::1 too)"
is "$(get 127.0.0.1 8082 who.txt)" - \
	"by default a server on the namespace's loopback alone is private"
is "$(udp_peer 127.0.0.2)" "$H_ADDR" \
	"UDP to 127.0.0.2: a connected socket hears the answer, from 127.0.0.2"
finish_ns_server "$SPID_PASTA" "$S" plain

# --- --host-lo-to-ns-lo ---------------------------------------------------
start_ns lolo --host-lo-to-ns-lo
ok $? "pasta --host-lo-to-ns-lo" || { diag_file "$WORK/lolo.err"; done_testing; }
got="$(get 127.0.0.1 8080 local) $(get 127.0.0.2 8080 local) $(get ::1 8080 local)"
is "$got" "127.0.0.1 127.0.0.2 ::1" \
	"--host-lo-to-ns-lo: each loopback address reaches the same one in the namespace"
is "$(get 127.0.0.1 8082 who.txt)" lolo \
	"--host-lo-to-ns-lo: the namespace's loopback-only server is reached"
is "$(udp_peer ::1)" ::1 \
	"--host-lo-to-ns-lo: UDP to ::1 reaches the namespace's ::1, answered from it"
finish_ns_server "$SPID_PASTA" "$S" lolo

out=$(as_user_h 10 "$PASTA" --config-net --host-lo-to-ns-lo --no-splice \
	-- true 2>&1)
rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "incompatible with --no-splice"
ok $? "--host-lo-to-ns-lo with --no-splice: refused as upstream does (exit $rc)" ||
	diag "$out"

# --- mDNS: a query to the group stays addressed to it ------------------------
M=$WORK/u/mdns; mkdir -m 0777 "$M"
cat >"$M/listen.py" <<'EOF'
import socket, struct, sys, os
d = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
IP_PKTINFO = getattr(socket, "IP_PKTINFO", 8)  # not in every Python
s.setsockopt(socket.IPPROTO_IP, IP_PKTINFO, 1)
s.bind(("0.0.0.0", 5353))
mreq = struct.pack("4s4s", socket.inet_aton("224.0.0.251"),
                   socket.inet_aton("0.0.0.0"))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
open(d + "/ready", "w").write("1\n")
s.settimeout(30)
data, anc, flags, peer = s.recvmsg(512, 256)
for level, kind, val in anc:
    if level == socket.IPPROTO_IP and kind == IP_PKTINFO:
        open(d + "/dst", "w").write(socket.inet_ntoa(val[8:12]) + "\n")
EOF
pasta_bg mdns 60 -t none -u 0.0.0.0/5353 -T none -U none -- \
	"$PY" "$M/listen.py" "$M"
MPID=$BG_PID
wait_file "$M/ready" 15
in_h timeout 10 "$PY" - "$H_ADDR" <<'EOF'
import socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
mreq = struct.pack("4s4s", socket.inet_aton("224.0.0.251"),
                   socket.inet_aton(sys.argv[1]))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, mreq)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF,
             socket.inet_aton(sys.argv[1]))
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_LOOP, 1)
for _ in range(5):
    s.sendto(b"\0" * 12, ("224.0.0.251", 5353))
    time.sleep(0.2)
EOF
wait_file "$M/dst" 5
is "$(cat "$M/dst" 2>/dev/null)" 224.0.0.251 \
	"-u 0.0.0.0/5353: a query to 224.0.0.251 reaches the guest addressed to the group"
kill_pid "$MPID"
done_testing
