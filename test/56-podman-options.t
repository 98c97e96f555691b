#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# What Podman and rootlesskit ask of pasta beyond addresses and ports:
# --dns-forward (queries to 169.254.1.1 reach --dns-host, a resolver in R,
# and the answer comes back from 169.254.1.1), --map-guest-addr (169.254.1.2
# reaches H's own address), --map-host-loopback (192.0.2.99 reaches H's
# loopback, the gateway no longer does), their exact command lines start,
# and --netns: pasta joined to a namespace exits, releasing its ports, once
# the namespace is deleted; UDP keeps the guest's source port. DHCP in the
# namespace (busybox udhcpc), as upstream: no name servers or search list
# by default nor with Podman's command line (a client there would rewrite
# the resolv.conf it shares), both with --dhcp-dns --dhcp-search, neither
# after -D none; --no-dhcp-dns is for passt only.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 18

D=$WORK/u/srv; mkdir -m 0777 "$D"
echo hello >"$D/hello.txt"
chmod 0644 "$D/hello.txt"

topo_create; ok $? "topology created" || done_testing

# A resolver in R, answering example.test with 192.0.2.80
bg_r dnsd "$PY" "$TESTDIR/podman/dnsd.py" --bind "$SRV_ADDR" --port 53 \
	--name example.test --a 192.0.2.80 --aaaa 2001:db8::80 \
	--pidfile "$WORK/dnsd.pid"
wait_file "$WORK/dnsd.pid" 10
# Servers in H: on its own address, and on its loopback
start_httpd "$NS_H" "$H_ADDR" 8081 "$D" httpd_addr &&
	start_httpd "$NS_H" 127.0.0.1 8082 "$D" httpd_lo
ok $? "resolver in R, HTTP servers on H's address and loopback" ||
	done_testing

# query.py: one A query for example.test to 169.254.1.1, prints the answer
# and the address it came from
cat >"$WORK/u/query.py" <<'EOF'
import socket, struct
q = struct.pack("!HHHHHH", 0x1234, 0x0100, 1, 0, 0, 0)
q += b"\x07example\x04test\x00" + struct.pack("!HH", 1, 1)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(5)
s.sendto(q, ("169.254.1.1", 53))
r, peer = s.recvfrom(512)
print(socket.inet_ntoa(r[-4:]), peer[0])
EOF

get() { echo "timeout -k 2 10 curl -sS --max-time 5 $1"; }
pasta_run dns 30 --dns-forward 169.254.1.1 --dns-host "$SRV_ADDR" \
	--map-guest-addr 169.254.1.2 --map-host-loopback 192.0.2.99 -- sh -c "
	$PY $WORK/u/query.py; $(get http://169.254.1.2:8081/hello.txt);
	$(get http://192.0.2.99:8082/hello.txt);
	$(get http://$GW4:8082/hello.txt) || echo gw-not-mapped"
out=$(cat "$WORK/dns.out")
is "$(echo "$out" | sed -n 1p)" "192.0.2.80 169.254.1.1" \
	"--dns-forward: the query reaches --dns-host, the answer comes from 169.254.1.1" ||
	diag_file "$WORK/dns.err"
is "$(echo "$out" | sed -n 2p)" hello \
	"--map-guest-addr 169.254.1.2 reaches H's own address"
is "$(echo "$out" | sed -n 3p)" hello \
	"--map-host-loopback 192.0.2.99 reaches H's loopback"
is "$(echo "$out" | sed -n 4p)" gw-not-mapped \
	"with --map-host-loopback, the gateway is not H's loopback"

# The command lines Podman 5 and rootlesskit build, exactly
pasta_run podman1 20 --dns-forward 169.254.1.1 -t none -u none -T none \
	-U none --no-map-gw --quiet --map-guest-addr 169.254.1.2 -- true
ok $? "Podman's command line without ports starts" || diag_file "$WORK/podman1.err"
pasta_run rootlesskit 20 --stderr --ns-ifname=tap0 --mtu=65520 \
	--address=10.0.2.100 --netmask=24 --gateway=10.0.2.2 \
	--dns-forward=10.0.2.3 --tcp-ports=none --udp-ports=none -- \
	sh -c 'ip -4 addr show tap0 | grep -q "10.0.2.100/24" &&
	       ip -4 route | grep -q "default via 10.0.2.2"'
ok $? "rootlesskit's command line starts, with its address and gateway" ||
	diag_file "$WORK/rootlesskit.err"

# UDP from the namespace keeps its source port where H has it free
bg_r portecho "$PY" -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("'"$SRV_ADDR"'", 9999)); s.settimeout(25)
while True:
    d, peer = s.recvfrom(64); s.sendto(str(peer[1]).encode(), peer)'
wait_udp "$NS_R" 9999 10
pasta_run sport 20 -- "$PY" -c 'import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 40124)); s.settimeout(5)
s.sendto(b"x", ("'"$SRV_ADDR"'", 9999)); print(s.recv(64).decode())'
is "$(cat "$WORK/sport.out")" 40124 \
	"UDP from source port 40124 leaves H from port 40124" ||
	diag_file "$WORK/sport.err"

# DHCP in the namespace: what udhcpc is handed. The script only reports
# the lease: the addresses are --config-net's already.
DH=$WORK/u/udhcpc.sh
cat >"$DH" <<'EOF'
#!/bin/sh
[ "$1" = bound ] && echo "lease: ip=$ip dns=[$dns] search=[$search]"
exit 0
EOF
chmod 0755 "$DH"
# dhcp_run NAME [OPTS...] - udhcpc through pasta; prints its lease line
dhcp_run() {
	local name=$1; shift
	# shellcheck disable=SC2016
	pasta_run "$name" 30 "$@" -- sh -c 'i=$(ip -o link show |
		awk -F": " "\$2 != \"lo\" { print \$2; exit }")
		busybox udhcpc -i "$i" -n -q -t 5 -s "$1"' sh "$DH"
	grep "^lease:" "$WORK/$name.out" || echo "no lease"
}
lease_of() { echo "lease: ip=$H_ADDR dns=[$1] search=[$2]"; }
DNS_OPTS=(-D 192.0.2.53 -S example.org)
is "$(dhcp_run dhcp0 "${DNS_OPTS[@]}")" "$(lease_of "" "")" \
	"DHCP in pasta's namespace, -D and -S given: by default no name server, no search list" ||
	diag_file "$WORK/dhcp0.err"
is "$(dhcp_run dhcp1 "${DNS_OPTS[@]}" --dhcp-dns --dhcp-search)" \
	"$(lease_of 192.0.2.53 example.org)" \
	"--dhcp-dns --dhcp-search: the name server and the search list" ||
	diag_file "$WORK/dhcp1.err"
is "$(dhcp_run dhcp2 "${DNS_OPTS[@]}" --dhcp-dns)" "$(lease_of 192.0.2.53 "")" \
	"--dhcp-dns alone: the name server only" || diag_file "$WORK/dhcp2.err"
is "$(dhcp_run dhcp3 --dhcp-dns -D none --dhcp-search -S none)" "$(lease_of "" "")" \
	"--dhcp-dns -D none, --dhcp-search -S none: neither" ||
	diag_file "$WORK/dhcp3.err"
is "$(dhcp_run dhcp4 --dns-forward 169.254.1.1 -t none -u none -T none \
	-U none --no-map-gw --quiet --map-guest-addr 169.254.1.2)" \
	"$(lease_of "" "")" \
	"Podman's command line: no name server handed out (its resolv.conf stays)" ||
	diag_file "$WORK/dhcp4.err"
pasta_run nodns 10 --no-dhcp-dns -- true
rc=$?
[ $rc = 1 ] && grep -q -- "--no-dhcp-dns is for passt only" "$WORK/nodns.err"
ok $? "pasta --no-dhcp-dns: refused, exit 1, as upstream" ||
	{ diag "status $rc"; diag_file "$WORK/nodns.err"; }

# --netns: exit when the namespace goes, releasing the port
NS_T=pt-t-$$
ip netns add "$NS_T" && _NETNS+=("$NS_T")
in_h "$PASTA" --config-net --netns "$NS_T" -t 18099 --quiet \
	-P "$WORK/nsq.pid" 2>"$WORK/nsq.err"
rc=$?
pid=$(cat "$WORK/nsq.pid" 2>/dev/null)
[ $rc = 0 ] && [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && wait_tcp "$NS_H" 18099 5
ok $? "pasta --netns $NS_T goes to the background, port 18099 bound" ||
	{ diag "status $rc, PID '$pid', alive: $(kill -0 "$pid" 2>&1 && echo yes)," \
	       "listening: $(in_h ss -Htln 'sport = :18099')"
	  diag_file "$WORK/nsq.err"; }
ip netns del "$NS_T"
released() { [ -z "$(in_h ss -Htln 'sport = :18099')" ]; }
_poll 2 released
ok $? "port 18099 released within 2 s of the namespace's deletion"
[ -n "$pid" ] && _poll 3 test ! -d "/proc/$pid/fd"
ok $? "pasta exited" || { [ -n "$pid" ] && kill "$pid" 2>/dev/null; }
done_testing
