#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 64-host-follow.t - pasta follows H's addresses and default routes at run
# time (follow.c), both families at once:
#   1. pasta -i veth0 --outbound-if4 veth0 --outbound-if6 veth0 (Podman's
#      and libvirt's options; 1-3 run on it, 4-6 without -i):
#      H's default route moves to another router (R's second address):
#      the namespace's follows within 1 s, and a download running through
#      pasta continues;
#   2. H gets a second address: the namespace keeps the one it has; 50
#      quick rounds of address added, route moved and back, address
#      removed: the namespace ends up as H is, the downloads run on;
#   3. H moves to another network (new address and router, old address
#      deleted): within 1 s the namespace has the new address and route;
#      the download from the old address is reset (curl fails promptly,
#      nothing hangs), then the old address leaves the namespace (250 ms
#      later, so that it still takes our resets); a new connection comes
#      from the new address (R's /peer), and R reaches the namespace's
#      server through -t at H's new address; a UDP flow from the old
#      address (one socket, a datagram every 50 ms) gets echoes again
#      within 1 s of H losing it, from a new flow;
#   4. pasta started while H has no default route: link-local addresses
#      (169.254.2.1/16 via 169.254.2.2, IPv6 via fe80::1), and H's address
#      and route within 1 s of H getting a default route, then a download
#      works;
#   5. pasta started while H has no IPv6 default route: no IPv6 in the
#      namespace, then H's IPv6 address and route within 1 s of H getting
#      a route; IPv6 works both ways (the -t listener took both families);
#   6. --no-follow-host: a route change is not followed.
# Times from H's change to the namespace's are comments.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "PASTA_DIRECT=1: no namespace of pasta's"
plan 49

PORT=8080		# httpd.py in R
NS_PORT=8090		# httpd.py in pasta's namespace, forwarded with -t
LO_PORT=8070		# httpd.py on H's loopback
UDP_PORT=7777		# udpecho.py in R: one per address, so that the
			# echo comes from the address the flow is to
R2_ADDR=203.0.113.3	# R's second address, H's second router
R2_ADDR6=2001:db8:1::3
NEW_H=192.0.2.10	# H on the network it moves to ...
NEW_R=192.0.2.2		# ... whose router is R
NEW_R2=192.0.2.3	# R's second address there
NEW_H6=2001:db8:5::10
NEW_R6=2001:db8:5::2
RATE=1M			# curl --limit-rate: the download runs ~60 s

topo_create; ok $? "topology created" || done_testing
in_r ip addr add "$R2_ADDR/24" dev veth0 &&
in_r ip addr add "$R2_ADDR6/64" dev veth0 nodad &&
in_r ip addr add "$NEW_R/24" dev veth0 &&
in_r ip addr add "$NEW_R6/64" dev veth0 nodad
ok $? "R's second router addresses"
mkdir -p "$DOCS" && make_random "$DOCS/big.bin" 64
echo "on H's loopback" >"$DOCS/h.txt"
start_httpd "$NS_R" :: "$PORT" "$DOCS" httpd &&
	start_httpd "$NS_H" 127.0.0.1 "$LO_PORT" "$DOCS" hlo &&
	start_udpecho "$NS_R" "$SRV_ADDR" "$UDP_PORT" udpecho4 &&
	start_udpecho "$NS_R" "$SRV_ADDR6" "$UDP_PORT" udpecho6
ok $? "servers in R (HTTP, UDP echo) and on H's loopback" || done_testing

# udpping.py TO PORT SECS LOG: a datagram every 50 ms from one socket, the
# time (ms) of each echo a line of LOG
cat >"$WORK/udpping.py" <<'EOF'
import socket, sys, time
fam = socket.AF_INET6 if ":" in sys.argv[1] else socket.AF_INET
s = socket.socket(fam, socket.SOCK_DGRAM)
s.settimeout(0.05)
end, n = time.time() + float(sys.argv[3]), 0
with open(sys.argv[4], "w", buffering=1) as log:
    while time.time() < end:
        n += 1
        s.sendto(b"%d" % n, (sys.argv[1], int(sys.argv[2])))
        try:
            while True:
                s.recv(64)
                log.write("%d\n" % int(time.time() * 1000))
        except socket.timeout:
            pass
EOF

# echo_after LOG T0 - print how long after T0 (ms) the first echo came
echo_after() {
	awk -v t0="$2" '$1 > t0 { print $1 - t0; f = 1; exit } END { exit !f }' "$1"
}


# follow_ms SECS CMD... - poll CMD every 20 ms: print the milliseconds it
# took to succeed, fail after SECS
follow_ms() {
	local secs=$1 t0 end
	shift
	t0=$(now_ms)
	end=$((t0 + secs * 1000))
	until "$@"; do
		[ "$(now_ms)" -ge "$end" ] && return 1
		sleep 0.02
	done
	echo $(($(now_ms) - t0))
}

# start_pasta NAME [OPTS...] - pasta with httpd.py in its namespace;
# sets SPID (the server's PID, for nsenter) and PPID_PASTA
start_pasta() {
	local name=$1
	shift
	S=$WORK/u/$name
	mkdir -m 0777 "$S"
	echo "in the namespace" >"$S/ns.txt"
	pasta_bg "$name" 120 -P "$S/pasta.pid" -t "$NS_PORT" "$@" -- \
		"$TESTDIR/ns-server.sh" "$S" 110 "$PY" "$TESTDIR/httpd.py" \
		--bind :: --port "$NS_PORT" --dir "$S" --pidfile "$S/server.pid"
	PASTA_BG=$BG_PID
	wait_file "$S/ready" 15 && wait_file "$S/pasta.pid" 5 &&
		SPID=$(cat "$S/server.pid")
}
in_ns() { nsenter -t "$SPID" -n "$@"; }

# ns_addr FAMILY ADDR/PLEN - the namespace's tap ($IFN) has it
IFN=veth0	# named after H's interface; tap0 if there was none
ns_addr() { in_ns ip "-$1" -o addr show dev "$IFN" | grep -q " $2 "; }
ns_no_addr() { ! ns_addr "$@"; }
# ns_via FAMILY GW - the namespace's default route goes through GW
ns_via() { in_ns ip "-$1" route show default | grep -q "via $2 "; }
# ns_both4 ADDR/PLEN GW, ns_both6 ... - address and route together
ns_both() { ns_addr "$1" "$2" && ns_via "$1" "$3"; }

# bg_curl NAME URL - a rate-limited download in the namespace; PID in CPID
bg_curl() {
	in_ns curl -sS -g --limit-rate "$RATE" --max-time 100 -o "$WORK/$1.bin" \
		"$2" >"$WORK/$1.log" 2>&1 &
	CPID=$!
	_PIDS+=("$CPID")
}

# --- 1. default route moves -------------------------------------------------
start_pasta follow -i veth0 --outbound-if4 veth0 --outbound-if6 veth0
ok $? "pasta -i veth0 --outbound-if4/6 veth0 running" || { diag_file "$WORK/follow.err"; done_testing; }
ns_both 4 "$H_ADDR/24" "$R_ADDR" && ns_both 6 "$H_ADDR6/64" "$R_ADDR6"
ok $? "namespace starts with H's addresses and routes" ||
	in_ns ip addr show "$IFN" >&2

# A small receive buffer: curl's rate limit, which sleeps off what it read
# in one go, then writes (and notices a reset) every fraction of a second
in_ns sysctl -qw net.ipv4.tcp_rmem="4096 131072 262144"
bg_curl dl4 "http://$SRV_ADDR:$PORT/big.bin"; C4=$CPID
bg_curl dl6 "http://[$SRV_ADDR6]:$PORT/big.bin"; C6=$CPID
grows "$WORK/dl4.bin" && grows "$WORK/dl6.bin"
ok $? "downloads running from H's first address"

in_h ip route replace default via "$R2_ADDR" dev veth0 &&
	in_h ip -6 route replace default via "$R2_ADDR6" dev veth0
t=$(follow_ms 5 ns_via 4 "$R2_ADDR") && [ "$t" -le 1000 ]
ok $? "IPv4 default route follows H's to $R2_ADDR within 1 s (${t:-no} ms)"
t=$(follow_ms 5 ns_via 6 "$R2_ADDR6") && [ "$t" -le 1000 ]
ok $? "IPv6 default route follows H's to $R2_ADDR6 within 1 s (${t:-no} ms)"
grows "$WORK/dl4.bin" && grows "$WORK/dl6.bin"
ok $? "both downloads continue: their address is still H's"

# --- 2. a second address ----------------------------------------------------
in_h ip addr add 203.0.113.7/24 dev veth0 &&
	in_h ip addr add 2001:db8:1::7/64 dev veth0 nodad
sleep 0.5	# nothing to wait for: the namespace must not change
ns_addr 4 "$H_ADDR/24" && ns_no_addr 4 203.0.113.7/24 &&
	ns_addr 6 "$H_ADDR6/64" && ns_no_addr 6 2001:db8:1::7/64
ok $? "a second address on H leaves the namespace's as it is"

# 50 changes in a row, as fast as ip(8) goes: the namespace ends up as H
nflaps() { grep -c "Host's IPv4 changed" "$WORK/follow.err"; }
before=$(nflaps)
for i in $(seq 1 50); do
	in_h ip addr add "203.0.113.$((100 + i))/24" dev veth0 &&
		in_h ip route replace default via "$R_ADDR" dev veth0 &&
		in_h ip route replace default via "$R2_ADDR" dev veth0 &&
		in_h ip addr del "203.0.113.$((100 + i))/24" dev veth0 || break
done
ok $? "H: 50 times an address added and removed, the route moved and back"
sleep 0.5	# the last change settles in 0.1 s: nothing must follow it
ns_both 4 "$H_ADDR/24" "$R2_ADDR" && ns_no_addr 4 203.0.113.150/24 &&
	kill -0 "$(cat "$S/pasta.pid")"
ok $? "the namespace ends up as H is: $H_ADDR/24 via $R2_ADDR" ||
	in_ns ip addr show "$IFN" >&2
diag "pasta followed $(( $(nflaps) - before )) IPv4 changes for those 200"
kill -0 "$C4" 2>/dev/null && kill -0 "$C6" 2>/dev/null
ok $? "both downloads still running"

# --- 3. H moves to another network ------------------------------------------
# A UDP flow from the old address: datagrams every 50 ms from one socket,
# the time of each echo in a file, both families
for fam in 4 6; do
	case $fam in 4) to=$SRV_ADDR ;; 6) to=$SRV_ADDR6 ;; esac
	in_ns "$PY" "$WORK/udpping.py" "$to" "$UDP_PORT" 30 \
		"$WORK/udp$fam.log" 2>"$WORK/udpping$fam.err" &
	_PIDS+=("$!")
done
_poll 5 test -s "$WORK/udp4.log" && _poll 5 test -s "$WORK/udp6.log"
ok $? "UDP echoes from R through the namespace's old addresses"

# One ip(8) for the whole move, as one network manager's change (see
# test/67: separate commands came apart under load)
t0=$(now_ms)
in_h ip -batch - <<EOF
addr add $NEW_H/24 dev veth0
addr add $NEW_H6/64 dev veth0 nodad
route replace default via $NEW_R dev veth0
route replace default via $NEW_R6 dev veth0
addr del 203.0.113.7/24 dev veth0
addr del $H_ADDR/24 dev veth0
addr del $H_ADDR6/64 dev veth0
addr del 2001:db8:1::7/64 dev veth0
EOF
ok $? "H: new addresses $NEW_H, $NEW_H6 through $NEW_R, $NEW_R6; old ones deleted"
t1=$(now_ms)	# the old addresses are gone: a datagram from there is lost
t=$(follow_ms 5 ns_both 4 "$NEW_H/24" "$NEW_R") && [ "$t" -le 1000 ]
ok $? "IPv4: namespace has $NEW_H/24 via $NEW_R within 1 s (${t:-no} ms)"
t=$(follow_ms 5 ns_both 6 "$NEW_H6/64" "$NEW_R6") && [ "$t" -le 1000 ]
ok $? "IPv6: namespace has $NEW_H6/64 via $NEW_R6 within 1 s (${t:-no} ms)"
old_gone() { ns_no_addr 4 "$H_ADDR/24" && ns_no_addr 6 "$H_ADDR6/64"; }
t=$(follow_ms 5 old_gone) && [ "$t" -le 1000 ]
ok $? "the old addresses leave the namespace within 1 s more (${t:-no} ms)" ||
	in_ns ip addr show "$IFN" >&2

for fam in 4 6; do
	eval "pid=\$C$fam"
	if wait_gone "$pid" 5; then
		wait "$pid"; rc=$?
		t=$(($(now_ms) - t0))
		[ "$rc" != 0 ]
		ok $? "IPv$fam: the download from the old address ends with an error ($rc) within 5 s (${t} ms)"
		diag "IPv$fam: $(tr '\n' ' ' <"$WORK/dl$fam.log")"
	else
		ok 1 "IPv$fam: the download from the old address is still running 5 s after it went" ||
			diag_file "$WORK/follow.err"
	fi
done

for fam in 4 6; do
	t=$(follow_ms 5 echo_after "$WORK/udp$fam.log" "$t1") &&
		t=$(echo_after "$WORK/udp$fam.log" "$t1") && [ "$t" -le 1000 ]
	ok $? "IPv$fam: the UDP flow's echoes resume ${t:-never} ms after H lost the old address"
done

peer=$(in_ns curl -sS --max-time 10 "http://$SRV_ADDR:$PORT/peer")
is "$peer" "$NEW_H" "IPv4: a new connection comes from H's new address"
peer=$(in_ns curl -sS -g --max-time 10 "http://[$SRV_ADDR6]:$PORT/peer")
is "$peer" "$NEW_H6" "IPv6: a new connection comes from H's new address"
got=$(in_r curl -sS --max-time 10 "http://$NEW_H:$NS_PORT/ns.txt")
is "$got" "in the namespace" "IPv4: R reaches -t $NS_PORT at H's new address"
got=$(in_r curl -sS -g --max-time 10 "http://[$NEW_H6]:$NS_PORT/ns.txt")
is "$got" "in the namespace" "IPv6: R reaches -t $NS_PORT at H's new address"
grep -q "Host's IPv4 changed" "$WORK/follow.err" &&
	grep -q "Host's IPv6 changed" "$WORK/follow.err"
ok $? "pasta logged the changes" || diag_file "$WORK/follow.err"
finish_ns_server "$PASTA_BG" "$S" follow

# --- 4. offline start -------------------------------------------------------
in_h ip route del default && in_h ip -6 route del default
ok $? "H without default routes"
IFN=tap0
start_pasta offline
ok $? "pasta starts without a default route on H" ||
	{ diag_file "$WORK/offline.err"; done_testing; }
ns_both 4 169.254.2.1/16 169.254.2.2 && ns_via 6 fe80::1
ok $? "namespace has 169.254.2.1/16 via 169.254.2.2, IPv6 via fe80::1" ||
	in_ns ip addr show "$IFN" >&2
in_ns ip -6 -o addr show dev veth0 scope global | grep -q .
ok $((! $?)) "no global IPv6 address yet"
got=$(in_ns curl -sS --max-time 10 "http://169.254.2.2:$LO_PORT/h.txt")
is "$got" "on H's loopback" "the gateway 169.254.2.2 reaches H's loopback"

in_h ip route add default via "$NEW_R" dev veth0 &&
	in_h ip -6 route add default via "$NEW_R6" dev veth0
t=$(follow_ms 5 ns_both 4 "$NEW_H/24" "$NEW_R") && [ "$t" -le 1000 ]
ok $? "IPv4: H's address and route within 1 s of H's route (${t:-no} ms)"
t=$(follow_ms 5 ns_both 6 "$NEW_H6/64" "$NEW_R6") && [ "$t" -le 1000 ]
ok $? "IPv6: H's address and route within 1 s of H's route (${t:-no} ms)"
t=$(follow_ms 5 ns_no_addr 4 169.254.2.1/16) && [ "$t" -le 1000 ]
ok $? "169.254.2.1 leaves within 1 s more (${t:-no} ms)"
in_ns curl -sS --max-time 20 -o "$WORK/off4.bin" \
	"http://$SRV_ADDR:$PORT/big.bin" &&
	in_ns curl -sS -g --max-time 20 -o "$WORK/off6.bin" \
	"http://[$SRV_ADDR6]:$PORT/big.bin" &&
	cmp -s "$WORK/off4.bin" "$DOCS/big.bin" &&
	cmp -s "$WORK/off6.bin" "$DOCS/big.bin"
ok $? "64 MiB downloads both ways after that, intact"
finish_ns_server "$PASTA_BG" "$S" offline

# --- 5. IPv6 comes later ----------------------------------------------------
IFN=veth0
in_h ip -6 route del default
ok $? "H without an IPv6 default route"
start_pasta late6
ok $? "pasta running" || { diag_file "$WORK/late6.err"; done_testing; }
! in_ns ip -6 -o addr show dev "$IFN" scope global | grep -q . &&
	! in_ns ip -6 route show default | grep -q .
ok $? "IPv4 only: no global IPv6 address, no IPv6 default route"
in_h ip -6 route add default via "$NEW_R6" dev veth0
t=$(follow_ms 5 ns_both 6 "$NEW_H6/64" "$NEW_R6") && [ "$t" -le 1000 ]
ok $? "IPv6 on once H has a route: $NEW_H6/64 via $NEW_R6 within 1 s (${t:-no} ms)"
peer=$(in_ns curl -sS -g --max-time 10 "http://[$SRV_ADDR6]:$PORT/peer")
is "$peer" "$NEW_H6" "IPv6 works out of the namespace"
got=$(in_r curl -sS -g --max-time 10 "http://[$NEW_H6]:$NS_PORT/ns.txt")
is "$got" "in the namespace" "R reaches -t $NS_PORT over IPv6 (the listener took both families)"
finish_ns_server "$PASTA_BG" "$S" late6

# --- 6. --no-follow-host ----------------------------------------------------
start_pasta nofollow --no-follow-host
ok $? "pasta --no-follow-host running" ||
	{ diag_file "$WORK/nofollow.err"; done_testing; }
in_r ip addr add "$NEW_R2/24" dev veth0 &&
	in_h ip route replace default via "$NEW_R2" dev veth0
ok $? "H's default route moves to $NEW_R2"
sleep 1		# nothing to wait for: the namespace must not change
ns_via 4 "$NEW_R"
ok $? "--no-follow-host: the namespace keeps its route"
finish_ns_server "$PASTA_BG" "$S" nofollow

done_testing
