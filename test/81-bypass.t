#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pasta --bypass: the command's TCP connect() calls made on the host and
# handed over (seccomp user notification). The namespace gets addresses of
# its own (-a), so that a program tells a handed-over socket by its local
# address: H's. test/connprobe.py makes the calls, rootless as every pasta
# test, and once as root; R's server answers each connection with the
# address it came from.
#  - handed over, both families: blocking, non-blocking (EINPROGRESS),
#    refused (ECONNREFUSED either way), options the program set (TCP_NODELAY,
#    keepalive, TCP_KEEPIDLE, SO_RCVBUF), FD_CLOEXEC kept either way, a
#    wildcard bind's port kept, a connect() from a second thread;
#  - no hole (test/14's policy, through --bypass, with -T none): the
#    namespace's loopback, 0.0.0.0, multicast, broadcast, port 0 (which
#    the tap drops: SO_SNDTIMEO 300 ms), its own
#    address: each gets what it gets without --bypass, and nothing reaches
#    H's loopback but what the gateway stands for (with --no-map-gw: not
#    even that); UDP stays on the tap;
#  - --bypass=SPEC: a port not named, an address not named, stay on the tap;
#  - a blocking connect() that takes 1 s (R drops the first SYN): a
#    SIGALRM handler every 50 ms interrupts it, the program waits on its
#    socket (Python does) and gets a connected one; with SO_SNDTIMEO 300 ms,
#    EINPROGRESS after 300 ms;
#  - SIGUSR1's stats count what was handed over and what wasn't;
#  - --bypass-agent PATH (test/97 has runc sending it a container's
#    listener): a pipe, nothing, garbage sent there are dropped, logged.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 34

NS4=203.0.113.77
NS6=2001:db8:1::77
PROBE=("$PY" "$TESTDIR/connprobe.py")
U=$WORK/u

topo_create; ok $? "topology created" || done_testing
topo_far 1500; ok $? "F behind R" || done_testing

# peer_server NS NAME ADDR... - on ports 8093 and 8094 of each ADDR: each
# connection gets "peer=ADDRESS" and is closed
peer_server() {
	local ns=$1 name=$2
	shift 2
	_bg_ns "$ns" "$name" "$PY" -c "
import select, socket, sys
ls = []
for a in sys.argv[1:]:
    for p in (8093, 8094):
        s = socket.socket(socket.AF_INET6 if ':' in a else socket.AF_INET)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((a, p)); s.listen(64); ls.append(s)
while True:
    for s in select.select(ls, [], [], 60)[0]:
        c, peer = s.accept()
        c.sendall(('peer=%s\n' % peer[0]).encode()); c.close()" "$@"
}
peer_server "$NS_R" peer "$SRV_ADDR" "$SRV_ADDR6"
peer_server "$NS_F" peerf "$F_ADDR"
SEEN=$WORK/seen
bg_h lo "$PY" -c "
import select, socket
ls = []
for fam, a in ((socket.AF_INET, '127.0.0.1'), (socket.AF_INET6, '::1')):
    s = socket.socket(fam); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((a, 8099)); s.listen(8); ls.append(s)
while True:
    for s in select.select(ls, [], [], 60)[0]:
        c, peer = s.accept()
        with open('$SEEN', 'a') as f:
            f.write('%s\n' % peer[0])"
wait_tcp "$NS_R" 8094 10 && wait_tcp "$NS_F" 8094 10 && wait_tcp "$NS_H" 8099 10
ok $? "servers: R's and F's answer with the peer's address, H's loopback counts" ||
	done_testing

# probe NAME [PASTA OPTS...] -- PROBES... - connprobe.py in pasta's namespace,
# rootless, with the namespace's own addresses, -T none; its output in
# $U/NAME.json, pasta's SIGUSR1 stats in $WORK/NAME.err
probe() {
	local name=$1 opts=()
	shift
	while [ "$1" != "--" ]; do opts+=("$1"); shift; done
	shift
	pasta_run "$name" 60 -a "$NS4" -a "$NS6" -T none -U none "${opts[@]}" \
		-- sh -c '"$0" "$@" >"'"$U/$name.json"'"; kill -USR1 $PPID; sleep 0.3' \
		"${PROBE[@]}" "$@"
}

# field NAME PROBE KEY - a value of one probe's line
field() {
	"$PY" -c "
import json, sys
for l in open(sys.argv[1]):
    d = json.loads(l)
    if d['name'] == sys.argv[2]:
        print(d.get(sys.argv[3], ''))" "$U/$1.json" "$2" "$3" 2>/dev/null
}

# summary NAME PROBE... - errname and local address of each, one line
summary() {
	local name=$1 p out=
	shift
	for p in "$@"; do
		out="$out$p:$(field "$name" "$p" errname)/$(field "$name" "$p" local) "
	done
	echo "$out"
}

S4="$SRV_ADDR:8093"
S6="[$SRV_ADDR6]:8093"
POLICY=(lo=127.0.0.1:8099 any=0.0.0.0:8099 mc=224.0.0.251:8099
	bc=255.255.255.255:8099 p0="$SRV_ADDR:0/timeo=300" self="$NS4:8099"
	lo6=[::1]:8099 any6=[::]:8099 mc6=[ff02::1]:8099 self6="[$NS6]:8099"
	gw="$R_ADDR:8099")

probe all --bypass -- b4="$S4" b6="$S6" nb4="$S4/nb" nb6="$S6/nb" \
	ref4="$SRV_ADDR:8095" nbref4="$SRV_ADDR:8095/nb" ref6="[$SRV_ADDR6]:8095" \
	opt4="$S4/opts" opt6="$S6/opts" cx4="$S4/cloexec" bind4="$S4/bind=40123" \
	th4="$S4/thread" udp4="$SRV_ADDR:5514/udp" "${POLICY[@]}"
ok $? "pasta --bypass ran the probes" || diag_file "$WORK/all.err"

is "$(summary all b4 b6)" "b4:0/$H_ADDR b6:0/$H_ADDR6 " \
	"blocking connect(), both families: handed over (local address H's)"
is "$(field all b4 reply) $(field all b6 reply)" "peer=$H_ADDR peer=$H_ADDR6" \
	"... R sees H's address, the data flows"
is "$(summary all nb4 nb6)" "nb4:0/$H_ADDR nb6:0/$H_ADDR6 " \
	"non-blocking connect(): EINPROGRESS, then connected, handed over"
is "$(summary all ref4 nbref4 ref6 | sed 's|/[^ ]*||g')" \
	"ref4:ECONNREFUSED nbref4:ECONNREFUSED ref6:ECONNREFUSED " \
	"a closed port: ECONNREFUSED, blocking or not"
is "$(field all opt4 nodelay)$(field all opt4 keepalive) $(field all opt4 keepidle) $(field all opt6 keepidle) $(field all opt4 local)" \
	"11 77 77 $H_ADDR" "TCP_NODELAY, SO_KEEPALIVE, TCP_KEEPIDLE as the program set them"
rcvbuf=$(field all opt4 rcvbuf)
[ "${rcvbuf:-0}" -ge 65536 ] && [ "$rcvbuf" -le 131072 ]
ok $? "SO_RCVBUF 65536 as set (reads $rcvbuf)"
is "$(field all cx4 cloexec) $(field all b4 cloexec) $(field all cx4 local)" \
	"True False $H_ADDR" "FD_CLOEXEC kept, set or not"
is "$(field all bind4 lport) $(field all bind4 local) $(field all bind4 reuseaddr)" \
	"40123 $H_ADDR 1" "a wildcard bind's port kept on the host, SO_REUSEADDR too"
is "$(summary all th4)" "th4:0/$H_ADDR " "connect() from a second thread: handed over"
is "$(field all udp4 local)" "$NS4" "UDP connect(): on the tap (the namespace's address)"
is "$(summary all gw)" "gw:0/$NS4 " \
	"the gateway: H's loopback through the tap, as without --bypass"

probe none -- "${POLICY[@]}" b4="$S4"
ok $? "pasta without --bypass ran the same probes" || diag_file "$WORK/none.err"
is "$(summary all "${POLICY[@]%%=*}")" "$(summary none "${POLICY[@]%%=*}")" \
	"each refused or local destination: what it gets without --bypass"
is "$(summary none b4)" "b4:0/$NS4 " "without --bypass: on the tap"
is "$(sort "$SEEN" 2>/dev/null | tr '\n' ' ')" "127.0.0.1 127.0.0.1 " \
	"H's loopback reached only through the gateway, once each run"

probe nomapgw --bypass --no-map-gw -- gw="$R_ADDR:8099" lo=127.0.0.1:8099
is "$(summary nomapgw gw) $(field nomapgw lo errname)" "gw:ECONNREFUSED/$H_ADDR  ECONNREFUSED" \
	"--no-map-gw: the gateway is R, handed over (nothing on R's 8099)"
is "$(wc -l <"$SEEN")" 2 "... and H's loopback saw nothing more"

probe spec "--bypass=8093,$SRV_ADDR/24" -- a="$S4" b="$SRV_ADDR:8094" c="$S6"
is "$(summary spec a b c)" "a:0/$H_ADDR b:0/$NS4 c:0/$NS6 " \
	"--bypass=8093,ADDR/24: only those (another port, IPv6: on the tap)"

# R drops F's first SYN: the connection takes a SYN retry, 1 s
in_r ip route add blackhole "$F_ADDR/32"
MARK=$U/connecting
( _poll 30 test -e "$MARK"; sleep 0.3; in_r ip route del blackhole "$F_ADDR/32" ) &
unblock=$!
probe slow --bypass -- alarm="$F_ADDR:8093/alarm/mark=$MARK"
is "$(summary slow alarm) $(field slow alarm reply)" \
	"alarm:0/$H_ADDR  peer=$H_ADDR" \
	"blocking, 1 s, SIGALRM every 50 ms: the program waits on its socket, connected"
ms=$(field slow alarm ms)
[ "${ms:-0}" -ge 800 ]; ok $? "... after the SYN retry ($ms ms)"
wait "$unblock"

in_r ip route add blackhole "$F_ADDR/32"
probe timeo --bypass -- to="$F_ADDR:8093/timeo=300"
in_r ip route del blackhole "$F_ADDR/32"
ms=$(field timeo to ms)
is "$(field timeo to errname)" EINPROGRESS "SO_SNDTIMEO 300 ms: EINPROGRESS"
[ "${ms:-0}" -ge 250 ] && [ "$ms" -lt 800 ]; ok $? "... after $ms ms"

stats=$(grep "bypass:" "$WORK/all.err" | tail -n 1)
case $stats in
*"10 handed over, 0 connecting, 2 failed"*"11 refused"*"1 not taken"*"0 callers gone; listeners: 1")
	ok 0 "stats: $stats" ;;
*) ok 1 "stats count the handed-over calls"; diag "$stats"; diag_file "$WORK/all.err" ;;
esac
grep -q "bypass:" "$WORK/none.err"
is $? 1 "without --bypass, no such stats"

# As root: pasta runs as nobody, the command as root
timeout 30 ip netns exec "$NS_H" "$PASTA" --config-net -a "$NS4" -T none -U none \
	--bypass -- "${PROBE[@]}" b4="$S4" >"$U/root.json" 2>"$WORK/root.err"
ok $? "as root" || diag_file "$WORK/root.err"
is "$(summary root b4)" "b4:0/$H_ADDR " "as root: handed over"

# --bypass-agent PATH takes only a seccomp listener, from our own user: a
# message naming a pipe "seccompFd", one with no descriptor, one with two
# and no "fds" list (crun's receiver sends one), are each logged and
# dropped; pasta serves on, its command's connection (no --bypass) going
# through the namespace
cat >"$U/agentsend.py" <<'PYEOF'
import os, socket, sys
def send(msg, nfds):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    fds = [os.pipe()[0] for _ in range(nfds)]
    socket.send_fds(s, [msg], fds)
    s.close()
send(b'{"ociVersion":"1.0.2","fds":["seccompFd"],"pid":1}', 1)
send(b'{"ociVersion":"1.0.2","fds":[],"pid":1}', 0)
send(b'garbage', 2)
PYEOF
chmod 0644 "$U/agentsend.py"
pasta_run agent 30 -a "$NS4" -T none -U none --bypass-agent "$U/agent.sock" \
	-- sh -c '"$0" "$1" "$2" && sleep 0.3 && "$0" "$3" "$4" >"$5"' \
	"$PY" "$U/agentsend.py" "$U/agent.sock" "$TESTDIR/connprobe.py" b4="$S4" \
	"$U/agent.json"
ok $? "--bypass-agent: pasta serves on after a pipe, nothing, and garbage" ||
	diag_file "$WORK/agent.err"
is "$(grep -c -e "isn't a seccomp listener" -e "sent no seccomp listener" \
	"$WORK/agent.err")" 3 "... each logged"
is "$(summary agent b4)" "b4:0/$NS4 " "... the command's connection through the namespace"

grep -E "ERROR|Bad system call|SIGSYS" "$WORK"/*.err
is $? 1 "no errors, no system call outside pasta's seccomp list"
done_testing
