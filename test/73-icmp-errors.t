#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ICMP errors reach the guest (issue 25, UDP first): from pasta's
# namespace, a datagram to a port of R where nobody listens draws R's port
# unreachable, and the namespace's socket hears of it as from R itself:
#  - a connected UDP socket gets ECONNREFUSED on its next call, at once,
#    not after its own timeout;
#  - an unconnected one with IP_RECVERR / IPV6_RECVERR reads the error
#    from its queue: port unreachable (ICMP 3/3, ICMPv6 1/4), reported by
#    the server's address, its datagram quoted whole.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((1 + 2 * NFAM))

CLOSED=7999

topo_create; ok $? "topology created" || done_testing

for fam in $FAMILIES; do
	use_family "$fam"
	pasta_run "refused$FAM" 30 -- "$PY" -c "
import socket, time
s = socket.socket(socket.AF_INET6 if ':' in '$SRV' else socket.AF_INET,
                  socket.SOCK_DGRAM)
s.settimeout(5)
s.connect(('$SRV', $CLOSED))
t = time.monotonic()
s.send(b'anyone there?')
try:
    s.recv(100)
    print('answered')
except ConnectionRefusedError:
    print('refused after %.0f ms' % ((time.monotonic() - t) * 1000))
except socket.timeout:
    print('no error in 5 s')"
	out=$(cat "$WORK/refused$FAM.out" 2>/dev/null)
	is "${out%% *}" refused \
		"$FAMNAME: a connected UDP socket to a closed port of R: ECONNREFUSED ($out)" ||
		diag_file "$WORK/refused$FAM.err"

	pasta_run "errq$FAM" 30 -- "$PY" -c "
import select, socket, struct
v6 = ':' in '$SRV'
s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET,
                  socket.SOCK_DGRAM)
# IP_RECVERR (11), IPV6_RECVERR (25): this Python may not name them
s.setsockopt(socket.IPPROTO_IPV6 if v6 else socket.IPPROTO_IP,
             25 if v6 else 11, 1)
msg = b'quote me, please' * 4
s.sendto(msg, ('$SRV', $CLOSED))
if not select.select([s], [], [], 5)[0]:
    print('nothing'); raise SystemExit
data, anc, flags, _ = s.recvmsg(2048, 512, 0x2000)	# MSG_ERRQUEUE
for level, kind, c in anc:
    errno_, origin, type_, code = struct.unpack('=IBBB', c[:7])
    off = c[16:]
    addr = socket.inet_ntop(socket.AF_INET6, off[8:24]) if v6 else \
           socket.inet_ntop(socket.AF_INET, off[4:8])
    print(origin, type_, code, addr, data == msg)"
	want="2 3 3 $SRV True"
	[ "$fam" = 6 ] && want="3 1 4 $SRV True"
	is "$(cat "$WORK/errq$FAM.out" 2>/dev/null)" "$want" \
		"$FAMNAME: the error in the socket's queue: port unreachable, from $SRV, the datagram quoted whole" ||
		diag_file "$WORK/errq$FAM.err"
done
done_testing
