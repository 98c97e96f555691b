#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A flood of inbound UDP can't lock anything else out: R sends one
# datagram from each of 20000 source ports to a -u port (20000 new flows,
# more than inbound UDP's share, an eighth of the table's 128k), then the
# namespace still opens TCP connections at once, and a new UDP client
# still gets its echoes (the oldest idle flood flows make room).

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 6

FWD=5354
topo_create; ok $? "topology created" || done_testing
use_family 4
D=$WORK/srv; mkdir -p "$D"; echo "from R" >"$D/f.txt"
serve_fam 8097 "$D"

S=$WORK/u/uf; mkdir -m 0777 "$S"
pasta_bg uf 120 -u "$FWD" -T none -U none -- "$TESTDIR/ns-server.sh" "$S" \
	100 "$PY" "$TESTDIR/udpecho.py" --bind 0.0.0.0 --port "$FWD" \
	--pidfile "$S/server.pid"
pasta=$BG_PID
wait_file "$S/ready" 15
wait_udp "$NS_H" "$FWD" 10
ok $? "echo server behind -u $FWD" || { diag_file "$WORK/uf.err"; done_testing; }

# Paced a little, so that the port's socket buffer doesn't drop them
in_r timeout 60 "$PY" -c "
import socket, time
n = 0
for port in range(20000, 40000):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.bind(('$R', port)); s.sendto(b'x', ('$H', $FWD)); n += 1
    except OSError:
        pass
    s.close()
    if port % 50 == 0:
        time.sleep(0.005)
print(n)" >"$WORK/flood.out" 2>&1
diag "datagrams sent from distinct ports: $(cat "$WORK/flood.out")"

# The namespace, right after the flood: TCP to R, then a new UDP client
got=$(timeout 20 nsenter -t "$(cat "$S/server.pid")" -n \
	curl -sS --max-time 5 "http://$SRV:8097/f.txt" 2>&1)
is "$got" "from R" "a TCP connection from the namespace right after the flood"
in_r timeout -k 2 30 "$PY" "$TESTDIR/udpecho.py" --client --to "$H" \
	--port "$FWD" --source "$R" --count 5 --timeout 20 \
	>"$WORK/late.out" 2>"$WORK/late.err"
ok $? "a new UDP client after the flood gets its echoes" ||
	{ diag_file "$WORK/late.out"; diag_file "$WORK/late.err"; }
kill -0 "$pasta"; ok $? "pasta still running"
touch "$S/done"
wait "$pasta"
done_testing
