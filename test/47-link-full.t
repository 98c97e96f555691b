#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A guest slower than the host: passt's writes to its socket find no room.
# A stand-in guest (test/slowguest.py) downloads 8 MiB on each of 4
# connections from a server in R, with a 24 MiB window each, and reads its
# stream socket in pauses: together they fill passt's 8 MiB socket buffer.
# What the socket doesn't take is taken back and sent once it has room
# (EPOLLOUT), so the guest sees no hole in any stream, and the data arrives
# whole (sha256). Before, those frames were dropped: holes, each one
# waiting for the guest's duplicate ACKs or passt's RTO.

. "$(dirname "$0")/lib.sh"
lib_init
PASST=${PASST:-$(dirname "$PASTA")/passt}
[ -x "$PASST" ] || skip_all "no passt binary at $PASST"
plan 5

topo_create; ok $? "topology created" || done_testing

BYTES=$((8 << 20))
N=4
PORT=9047
bg_r server timeout 90 "$PY" -c "
import socket, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('$SRV_ADDR', $PORT)); s.listen($N); s.settimeout(60)
chunk = bytes(range(256)) * 256
def serve(c):
    for i in range($BYTES // len(chunk)):
        c.sendall(chunk)
    c.close()
for i in range($N):
    threading.Thread(target=serve, args=(s.accept()[0],)).start()"
wait_tcp "$NS_R" "$PORT"

SOCK=$WORK/passt.sock
bg_h passt "$PASST" -f -s "$SOCK" --stats 1
PASST_PID=$BG_PID
_poll 10 test -S "$SOCK"; ok $? "passt listens on $SOCK" || done_testing

want=$("$PY" -c "
import hashlib
h = hashlib.sha256(); chunk = bytes(range(256)) * 256
for i in range($BYTES // len(chunk)):
    h.update(chunk)
print(h.hexdigest())")
out=$(in_h timeout 90 "$PY" "$TESTDIR/slowguest.py" "$SOCK" "$SRV_ADDR" "$PORT" "$N")
diag "$out"
is "$(echo "$out" | grep -c "bytes=$BYTES holes=[0-9]* sha256=$want fin=1")" "$N" \
	"$N x 8 MiB arrive whole, each with the server's FIN"
is "$(echo "$out" | grep -c "holes=0 ")" "$N" \
	"no hole in what the guest read: nothing dropped" ||
	diag_file "$WORK/passt.log"
# Counters as they are now, all transfers done: SIGUSR1 logs them
stats_lines() { grep -c 'no room for' "$WORK/passt.log"; }
stats_after() { [ "$(stats_lines)" -gt "$1" ]; }
lines=$(stats_lines)
kill -USR1 "$PASST_PID"
_poll 5 stats_after "$lines"
kill_pid "$PASST_PID"
full=$(grep -E 'no room for' "$WORK/passt.log" | tail -1)
diag "$full"
ok "$(echo "$full" | grep -q "no room for [1-9]"; echo $?)" \
	"passt's socket was full at times (frames it had no room for, sent later)"
done_testing
