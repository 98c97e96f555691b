#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The guest reaches the host's loopback only through the address that
# stands for it (the gateway): a stand-in passt guest (test/rawguest.py)
# sends a TCP SYN and UDP datagrams straight to 127.0.0.1, to 0.0.0.0, to
# multicast and broadcast addresses, and to port 0; none reaches the TCP
# and UDP servers on H's 127.0.0.1, each is counted under its reason
# (SIGUSR1), while the same datagram to the gateway gets through.

. "$(dirname "$0")/lib.sh"
lib_init
PASST=${PASST:-$(dirname "$PASTA")/passt}
[ -x "$PASST" ] || skip_all "no passt binary at $PASST"
plan 6

topo_create; ok $? "topology created" || done_testing

SEEN=$WORK/seen
bg_h lo "$PY" -c "
import select, socket, sys
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(('127.0.0.1', 8099)); t.listen(8)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(('127.0.0.1', 8099))
open('$SEEN.ready', 'w').close()
while True:
    for s in select.select([t, u], [], [], 30)[0]:
        with open('$SEEN', 'a') as f:
            if s is t:
                s.accept(); f.write('tcp\n')
            else:
                f.write('udp %s\n' % s.recv(100).decode())"
_poll 10 test -e "$SEEN.ready"; ok $? "TCP and UDP servers on H's 127.0.0.1:8099"

SOCK=$WORK/passt.sock
bg_h passt "$PASST" -f -s "$SOCK" -l "$WORK/passt.log.file"
PASST_PID=$BG_PID
_poll 10 test -S "$SOCK"

in_h "$PY" "$TESTDIR/rawguest.py" "$SOCK" tcp:127.0.0.1:8099 \
	udp:127.0.0.1:8099 udp:127.255.255.254:8099 udp:0.0.0.0:8099 \
	udp:224.0.0.251:5353 udp:255.255.255.255:8099 \
	udp:203.0.113.255:8099 udp:203.0.113.2:0 tcp:203.0.113.2:0 \
	udp:203.0.113.2:8099
ok $? "the guest sent its ten frames"
sleep 0.5
is "$(cat "$SEEN" 2>/dev/null)" "udp rawguest" \
	"only the datagram to the gateway reached H's loopback"

kill -USR1 "$PASST_PID"
_poll 5 grep -q "^drop port_zero" "$WORK/passt.log.file"
drops=$(grep -E "^drop (destination_address|multicast_or_broadcast_destination|port_zero)" \
	"$WORK/passt.log.file" | tail -3 | tr '\n' ' ')
is "$drops" "drop destination_address: 4 drop multicast_or_broadcast_destination: 3 drop port_zero: 2 " \
	"each refused frame counted under its reason" || diag_file "$WORK/passt.log.file"
kill -0 "$PASST_PID"; ok $? "passt still running"
done_testing
