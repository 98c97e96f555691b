#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# passt's stream socket, from a stand-in guest (test/framing.py): framing,
# one guest at a time, a malformed length prefix, a new guest after the
# previous one left, and -1 (--one-off) exiting when the guest goes; the
# start-up banner in upstream's format (what DHCP assigns), and -q silent;
# another user's file at the -s path in a sticky directory is a prompt error;
# a guest that stops reading for 60 s, while passt has 8 MB of replies for
# it, keeps its connection, and the stream it then reads is whole frames; a
# guest that leaves while passt writes replies to it (EPIPE or ECONNRESET
# mid-batch) ends only its own connection: passt serves the next one.

. "$(dirname "$0")/lib.sh"
lib_init
PASST=${PASST:-$(dirname "$PASTA")/passt}
[ -x "$PASST" ] || skip_all "no passt binary at $PASST"
plan 15

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

STALL=${PASST_STALL:-60}
out=$(in_h timeout $((STALL + 60)) "$PY" -c "
import socket, sys, time
sys.path.insert(0, '$TESTDIR')
import framing
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.settimeout(10)
s.connect('$SOCK')
req = framing.arp_request(framing.GW)
s.sendall(req * 300000)		# some 13.8 MB of replies owed to us
time.sleep($STALL)		# not reading: passt's socket is full
s.settimeout(1)
n = bad = 0
try:
    while True:
        f = framing.read_frame(s)
        if f is None:
            break
        n += 1
        bad += not framing.is_arp_reply(f, framing.GW)
except socket.timeout:
    pass
s.settimeout(5); s.sendall(req)
alive = framing.is_arp_reply(framing.read_frame(s), framing.GW)
print(n > 1000, bad, alive, file=sys.stdout); print(n, file=sys.stderr)" 2>"$WORK/stall.err")
is "$out" "True 0 True" \
	"a guest that doesn't read for $STALL s keeps its connection; whole frames after" ||
	diag_file "$WORK/stall.err"
diag "replies read after the pause: $(tail -1 "$WORK/stall.err")"

# 20000 requests, then gone without reading: passt's writes of the replies
# fail in the middle of its read batch
out=$(in_h timeout 30 "$PY" -c "
import socket, sys, time
sys.path.insert(0, '$TESTDIR')
import framing
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.settimeout(10)
s.connect('$SOCK'); s.sendall(framing.arp_request(framing.GW) * 20000)
s.close()
for i in range(10):
    time.sleep(0.1 * bool(i))
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.settimeout(5)
    s.connect('$SOCK'); s.sendall(framing.arp_request(framing.GW))
    try:
        ok = framing.is_arp_reply(framing.read_frame(s), framing.GW)
    except (socket.timeout, ConnectionError):
        ok = False	# refused: the one before was still attached
    s.close()
    if ok:
        break
print(ok, i + 1)")
kill -0 "$PASST_PID" 2>/dev/null
is "$? ${out% *}" "0 True" \
	"a guest leaving while passt writes to it: passt runs on, serves the next" ||
	diag_file "$WORK/passt.log"
diag "the next guest answered at attempt ${out#* } (of at most 10)"

SOCK1=$WORK/passt1.sock
bg_h passt1 "$PASST" -f -1 -s "$SOCK1"
P1=$BG_PID
_poll 10 test -S "$SOCK1" || diag "no socket $SOCK1"
in_h "$PY" -c "
import socket
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.connect('$SOCK1'); s.close()"
wait_gone "$P1" 10; ok $? "passt -1 exits when its guest disconnects"

# banner NAME [OPTS...] - start passt, wait for its socket, stop it
banner() {
	local name=$1; shift
	bg_h "$name" "$PASST" -f -s "$WORK/$name.sock" -a 192.0.2.10 -n 24 \
		-g 192.0.2.1 -D 192.0.2.53 -S example.org "$@"
	_poll 10 test -S "$WORK/$name.sock" || diag "no socket for $name"
	kill_pid "$BG_PID"
}
banner b4 -4
want="Template interface: veth0 (IPv4)
MAC:
    host: 9a:55:9a:55:9a:55
DHCP:
    assign: 192.0.2.10
    mask: 255.255.255.0
    router: 192.0.2.1
DNS:
    192.0.2.53
DNS search list:
    example.org"
got=$(sed -n '1,/example.org/p' "$WORK/b4.log" | sed 's/host: .*/host: 9a:55:9a:55:9a:55/')
is "$got" "$want" "start-up banner: interface, MAC, DHCP assignment, DNS, search list" ||
	diag_file "$WORK/b4.log"
banner bq -q
[ ! -s "$WORK/bq.log" ]; ok $? "-q: nothing printed, the QEMU hint included" ||
	diag_file "$WORK/bq.log"

# As /tmp: sticky and world-writable; root's file there, mode 0666
ST=$WORK/u/sticky; mkdir -m 1777 "$ST"
touch "$ST/passt.socket"; chmod 0666 "$ST/passt.socket"
t0=$(date +%s%N)
as_user_h 10 "$PASST" -f -s "$ST/passt.socket" >"$WORK/st.out" 2>&1
rc=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$rc" = 1 ] && [ "$ms" -lt 5000 ] && grep -q "passt.socket" "$WORK/st.out"
ok $? "another user's file at the -s path: exit 1 naming it, in $ms ms (no loop)" ||
	{ diag "exit status $rc"; diag_file "$WORK/st.out"; }
done_testing
