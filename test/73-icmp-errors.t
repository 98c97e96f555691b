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
#    the server's address, its datagram quoted whole;
#  - the guest's TTL / hop limit is its datagram's on the way out: a
#    server in R (IP_RECVTTL, IPV6_RECVHOPLIMIT) sees 7 for the first
#    datagram sent with 7, then 64 for one sent with the default.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((1 + 3 * NFAM))

CLOSED=7999
TTLPORT=7998

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

	# The TTLs R's server sees, in order, for two datagrams
	bg_r "ttlsrv$FAM" timeout 30 "$PY" -c "
import socket
v6 = ':' in '$SRV'
s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET,
                  socket.SOCK_DGRAM)
# IPV6_RECVHOPLIMIT (51), IP_RECVTTL (12)
s.setsockopt(socket.IPPROTO_IPV6 if v6 else socket.IPPROTO_IP,
             51 if v6 else 12, 1)
s.bind(('$SRV', $TTLPORT))
seen = []
for i in range(2):
    _, anc, _, _ = s.recvmsg(100, 64)
    seen += [str(c[0]) for _, _, c in anc]
open('$WORK/ttl$FAM', 'w').write(' '.join(seen))"
	wait_udp "$NS_R" "$TTLPORT" 10 "$SRV"
	pasta_run "ttl$FAM" 30 -- "$PY" -c "
import socket
v6 = ':' in '$SRV'
s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET,
                  socket.SOCK_DGRAM)
s.connect(('$SRV', $TTLPORT))
level = socket.IPPROTO_IPV6 if v6 else socket.IPPROTO_IP
opt = socket.IPV6_UNICAST_HOPS if v6 else socket.IP_TTL
s.setsockopt(level, opt, 7)
s.send(b'seven')
s.setsockopt(level, opt, 64)
s.send(b'default')"
	_poll 10 test -s "$WORK/ttl$FAM"
	is "$(cat "$WORK/ttl$FAM" 2>/dev/null)" "7 64" \
		"$FAMNAME: the guest's TTL goes out with its datagrams (7, then 64)" ||
		diag_file "$WORK/ttl$FAM.err"
done
done_testing
