#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Out of descriptors, no busy loop: pasta runs with a limit of 96 open
# files, and a client in R holds 200 connections to a -t port, more than
# pasta can take. pasta pauses its listeners instead of spinning on EMFILE
# (CPU time over 2 s stays low), and once the client lets go, a new
# connection gets through.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 5

PORT=8096
topo_create; ok $? "topology created" || done_testing
use_family 4

S=$WORK/u/ef; mkdir -m 0777 "$S"; echo "still here" >"$S/f.txt"
_user_prefix
timeout -k 5 90 "${_UP[@]}" prlimit --nofile=96:96 "$PASTA" --config-net \
	-t "$PORT" -T none -U none -u none -P "$S/pasta.pid" -- \
	"$TESTDIR/ns-server.sh" "$S" 80 "$PY" "$TESTDIR/httpd.py" \
	--bind 0.0.0.0 --port "$PORT" --dir "$S" --pidfile "$S/server.pid" \
	>"$WORK/ef.out" 2>"$WORK/ef.err" </dev/null &
bg=$!
_PGIDS+=("$bg")
wait_file "$S/ready" 15
ok $? "pasta with 96 descriptors, a server behind -t $PORT" ||
	{ diag_file "$WORK/ef.err"; done_testing; }
pid=$(cat "$S/pasta.pid")

# cpu_ticks PID - utime + stime of a process, in clock ticks
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

bg_r hold "$PY" -c "
import socket, time
held = []
for i in range(200):
    s = socket.socket(); s.settimeout(2)
    try:
        s.connect(('$H', $PORT)); held.append(s)
    except OSError:
        pass
open('$WORK/held', 'w').write('%d\n' % len(held))
time.sleep(6)"
hold=$BG_PID
_poll 15 test -s "$WORK/held"
sleep 1
t0=$(cpu_ticks "$pid")
sleep 2
t1=$(cpu_ticks "$pid")
ticks=$((t1 - t0)) hz=$(getconf CLK_TCK)
[ "$ticks" -lt $((hz / 5)) ]
ok $? "out of descriptors with $(cat "$WORK/held") connections held: pasta used $ticks of $((2 * hz)) ticks in 2 s (no busy loop)" ||
	diag_file "$WORK/ef.err"
grep -q "pausing forwarded ports" "$WORK/ef.err"
ok $? "the pause is logged" || diag_file "$WORK/ef.err"

wait "$hold" 2>/dev/null
got=$(in_r curl -sS --max-time 10 "http://$H:$PORT/f.txt" 2>&1)
is "$got" "still here" "once the connections are gone, a new one gets through"
touch "$S/done"
wait "$bg"
done_testing
