#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# passt's stream socket, from a stand-in guest (test/framing.py): framing,
# one guest at a time, a malformed length prefix, a new guest after the
# previous one left, and -1 (--one-off) exiting when the guest goes.

. "$(dirname "$0")/lib.sh"
lib_init
PASST=${PASST:-$(dirname "$PASTA")/passt}
[ -x "$PASST" ] || skip_all "no passt binary at $PASST"
plan 10

topo_create; ok $? "topology created" || done_testing

SOCK=$WORK/passt.sock
bg_h passt "$PASST" -f -s "$SOCK"
PASST_PID=$BG_PID
_poll 10 test -S "$SOCK"; ok $? "passt listens on $SOCK" || done_testing

while read -r rc desc; do
	ok "$rc" "$desc"
done < <(in_h "$PY" "$TESTDIR/framing.py" "$SOCK")

out=$(in_h "$PY" -c "
import socket, sys
sys.path.insert(0, '$TESTDIR')
import framing
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.settimeout(5)
s.connect('$SOCK'); s.sendall(framing.arp_request(framing.GW))
print(framing.is_arp_reply(framing.read_frame(s), framing.GW))")
is "$out" True "a new guest is served after the previous one left"
kill -0 "$PASST_PID" 2>/dev/null; ok $? "passt without -1 is still running"

SOCK1=$WORK/passt1.sock
bg_h passt1 "$PASST" -f -1 -s "$SOCK1"
P1=$BG_PID
_poll 10 test -S "$SOCK1" || diag "no socket $SOCK1"
in_h "$PY" -c "
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect('$SOCK1'); s.close()"
wait_gone "$P1" 10; ok $? "passt -1 exits when its guest disconnects"
done_testing
