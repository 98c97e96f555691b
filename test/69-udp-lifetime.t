#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# UDP flow lifetimes, as conntrack's: a flow nobody answers lives 30 s, one
# with traffic both ways 180 s from its last datagram.
#  - A burst of 300 datagrams from 300 source ports in pasta's namespace to
#    a port of R where nothing listens, and 100 from 100 ports of R to a -u
#    port where nothing in the namespace listens: pasta's descriptors and
#    flows are back to where they were within 35 s (the time it took as a
#    comment), and the SIGUSR1 stats count them as expired unanswered.
#  - A flow answered by an echo server in R, then idle for 40 s, is still
#    there: its host socket is the same. H holds the guest's source port
#    when the flow starts, so that pasta's socket has another one; released
#    meanwhile, a new flow would get the guest's port instead.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 9

ECHO=7777 DEAD=7778 FWD=5355 GPORT=40000
topo_create; ok $? "topology created" || done_testing
use_family 4

# The echo server in R writes each sender's port to its log
bg_r echo "$PY" -u -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('$SRV', $ECHO))
open('$WORK/echo.pid', 'w').write('1\n')
while True:
    d, peer = s.recvfrom(2048)
    print(peer[1]); s.sendto(d, peer)"
bg_h hold "$PY" -c "
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('0.0.0.0', $GPORT))
open('$WORK/hold.pid', 'w').write('1\n')
time.sleep(120)"
hold=$BG_PID
wait_file "$WORK/echo.pid" 10 && wait_file "$WORK/hold.pid" 10
ok $? "echo server in R, UDP port $GPORT held in H" || done_testing

S=$WORK/u/ul; mkdir -m 0777 "$S"
pasta_bg ul 150 -P "$S/pasta.pid" -u "$FWD" -T none -U none -- \
	"$TESTDIR/ns-server.sh" "$S" 140 "$PY" "$TESTDIR/udpecho.py" \
	--bind 0.0.0.0 --port 5354 --pidfile "$S/server.pid"
pasta=$BG_PID
wait_file "$S/ready" 15 && wait_file "$S/pasta.pid" 5
ok $? "pasta running, -u $FWD with nothing behind it" ||
	{ diag_file "$WORK/ul.err"; done_testing; }
pid=$(cat "$S/pasta.pid")
in_ns() { nsenter -t "$(cat "$S/server.pid")" -n "$@"; }
fds() { ls "/proc/$pid/fd" | wc -l; }
now() { date +%s.%N; }
# flows - flows in use, from the stats SIGUSR1 logs
flows() {
	local n
	n=$(grep -c "^flows:" "$WORK/ul.err")
	kill -USR1 "$pid"
	_poll 2 test "$(grep -c "^flows:" "$WORK/ul.err")" -gt "$n"
	grep "^flows:" "$WORK/ul.err" | tail -n 1 | awk '{ print $2 }'
}

# The answered flow: from GPORT, once now, once 40 s later (on "go")
in_ns timeout 70 "$PY" -c "
import os, socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('0.0.0.0', $GPORT)); s.settimeout(2)
for msg in (b'first', b'second'):
    while msg == b'second' and not os.path.exists('$S/go'):
        time.sleep(0.1)
    s.sendto(msg, ('$SRV', $ECHO))
    print(s.recv(64).decode(), flush=True)
    open('$S/' + msg.decode(), 'w').write('1\n')" >"$WORK/answered.out" 2>&1 &
client=$!
_PIDS+=("$client")
wait_file "$S/first" 10
t_answered=$(now)
first=$(head -n 1 "$WORK/echo.log")
kill "$hold"
[ -n "$first" ] && [ "$first" != "$GPORT" ]
ok $? "an answered flow from port $GPORT, on host port $first (H holds $GPORT)" ||
	{ diag_file "$WORK/answered.out"; diag_file "$WORK/ul.err"; }

fds0=$(fds) flows0=$(flows)
t0=$(now)
in_ns timeout 20 "$PY" -c "
import socket
for port in range(41000, 41300):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('0.0.0.0', port)); s.sendto(b'x', ('$SRV', $DEAD)); s.close()"
in_r timeout 20 "$PY" -c "
import socket, time
for port in range(42000, 42100):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(('$R', port)); s.sendto(b'x', ('$H', $FWD)); s.close()
    time.sleep(0.001)"
fds1=$(fds) flows1=$(flows)
diag "before the bursts: $fds0 descriptors, $flows0 flows; right after: $fds1, $flows1"

# Back to where they were: polled, at most 40 s
while { [ "$(fds)" -gt "$fds0" ] || [ "$(flows)" -gt "$flows0" ]; } &&
      [ "$(echo "$(now) < $t0 + 40" | bc)" = 1 ]; do
	sleep 0.5
done
fds2=$(fds) flows2=$(flows) secs=$(echo "$(now) - $t0" | bc | cut -c1-5)
diag "back to $fds2 descriptors, $flows2 flows $secs s after the bursts"
[ "$fds2" -le "$fds0" ] && [ "$flows2" -le "$flows0" ] &&
	[ "$(echo "$secs < 35" | bc)" = 1 ]
ok $? "400 unanswered flows gone within 35 s ($secs s; conntrack: 30 s)"
stats=$(grep "^flows:" "$WORK/ul.err" | tail -n 1)
diag "stats: $stats"
unanswered=$(echo "$stats" | sed -n 's/.*expired: \([0-9]*\) unanswered.*/\1/p')
[ "${unanswered:-0}" -ge 400 ]
ok $? "the stats count them: ${unanswered:-none} expired unanswered"

# The answered flow, 40 s after its last datagram
sleep "$(echo "$t_answered + 40 - $(now)" | bc | sed 's/^-.*/0/')"
touch "$S/go"
wait_file "$S/second" 10
second=$(sed -n 2p "$WORK/echo.log")
is "$second" "$first" "the answered flow, idle 40 s, still has its socket: host port ${second:-none}" ||
	{ diag_file "$WORK/answered.out"; diag_file "$WORK/echo.log"; }
wait "$client"

kill -0 "$pasta"; ok $? "pasta still running"
finish_ns_server "$pasta" "$S" ul
done_testing
