#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# traceroute -n, with UDP probes (-U), echo requests (-I) and TCP SYNs
# (-T, to port 80 of F, closed: F's RST is the last hop), from
# pasta's namespace to a far server F behind R (R routes between H and F:
# 192.0.2.0/24, 2001:db8:3::/64, MTU 1280): the guest's TTL goes out with
# each probe, R's time exceeded for the first hop (and F's port
# unreachable) come back as the guest's ICMP errors, so the trace lists
# R's address (the guest's gateway), then F's. Before, no error came
# back: stars only (-T: F at the first hop, reached with the host's TTL).
# tracepath -n finds the path MTU, 1280: its first probe, as large as the
# namespace's MTU, is larger than the host's path MTU (1500: IPv4 with DF,
# IPv6, the host may not fragment it), and we say so as a router would;
# then R's fragmentation needed / packet too big comes back for the next.
# And a UDP socket with path MTU discovery on (IP_PMTUDISC_DO) sending
# 1400 bytes to F learns the R-F link's MTU from the guest's copy of R's
# fragmentation needed / packet too big (or ours, once the host knows the
# path: tracepath taught it): its next send fails with EMSGSIZE, IP_MTU /
# IPV6_MTU 1280. Then a socket with the defaults fragments its 1400 and
# 6000 bytes for that path, and we put them back together: F echoes them.
# Last, a paced TCP download and upload (8 MiB each, 1.5 s) from F keep
# going when the R-F link's MTU drops from 1500 to 1280 under them: the
# host's TCP and F's shrink their segments (the guest's own TCP ends at
# us: its segments never see that path).

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
command -v traceroute >/dev/null || skip_all "no traceroute (apt-get install traceroute)"
command -v tracepath >/dev/null ||
	skip_all "no tracepath (apt-get install iputils-tracepath)"
plan $((3 + 7 * NFAM))

topo_create; ok $? "topology created" || done_testing

topo_far 1280 >/dev/null 2>&1
ok $? "F ($F_ADDR, $F_ADDR6) behind R, reached from H" || done_testing
start_udpecho "$NS_F" :: 7 udpecho &&
	_bg_ns "$NS_F" pacedxfer "$PY" "$TESTDIR/pacedxfer.py" --serve 9000 \
		--pidfile "$WORK/pacedxfer.pid" &&
	wait_file "$WORK/pacedxfer.pid" 10
ok $? "UDP echo (port 7) and paced TCP (port 9000) servers on F" || done_testing

# far_mtu() - set the R-F link's MTU, F's end first: what F sends fits
far_mtu() {
	ip -n "$NS_F" link set veth0 mtu "$1" &&
	ip -n "$NS_R" link set veth1 mtu "$1"
}

for fam in $FAMILIES; do
	use_family "$fam"
	far=$F_ADDR
	[ "$fam" = 6 ] && far=$F_ADDR6
	for how in U I T; do
		pasta_run "tr$how$FAM" 60 -- traceroute -"$fam" -n -"$how" \
			-q 1 -w 2 -m 4 "$far"
		hops=$(awk 'NR > 1 && $2 != "*" { printf "%s%s", sep, $2; sep = " " }' \
			"$WORK/tr$how$FAM.out" 2>/dev/null)
		is "$hops" "$R $far" \
			"$FAMNAME: traceroute -$how lists R ($R), then F ($far)" ||
			{ diag_file "$WORK/tr$how$FAM.out"
			  diag_file "$WORK/tr$how$FAM.err"; }
	done

	pasta_run "tp$FAM" 60 -- tracepath -"$fam" -n -m 4 "$far"
	is "$(sed -n 's/^ *Resume: //p' "$WORK/tp$FAM.out" 2>/dev/null)" \
		"pmtu 1280 hops 2 back 1 " \
		"$FAMNAME: tracepath finds the path MTU (1280), F 2 hops away" ||
		{ diag_file "$WORK/tp$FAM.out"; diag_file "$WORK/tp$FAM.err"; }

	pasta_run "pmtu$FAM" 30 -- "$PY" -c "
import errno, socket, time
v6 = ':' in '$far'
s = socket.socket(socket.AF_INET6 if v6 else socket.AF_INET,
                  socket.SOCK_DGRAM)
level = socket.IPPROTO_IPV6 if v6 else socket.IPPROTO_IP
# IPV6_MTU_DISCOVER (23) / IP_MTU_DISCOVER (10): DO (2); IPV6_MTU (24),
# IP_MTU (14)
s.setsockopt(level, 23 if v6 else 10, 2)
s.connect(('$far', 9))
s.send(b'x' * 1400)
got = 'no EMSGSIZE in 5 s'
for i in range(50):
    time.sleep(0.1)
    try:
        s.send(b'x' * 1400)
    except OSError as e:
        if e.errno == errno.EMSGSIZE:
            got = 'EMSGSIZE, MTU %d' % s.getsockopt(level, 24 if v6 else 14)
            break
print(got)
d = socket.socket(s.family, socket.SOCK_DGRAM)
d.settimeout(2)
d.connect(('$far', 7))
for size in 1400, 6000:
    data = bytes(range(256)) * (size // 256) + b'x' * (size % 256)
    d.send(data)
    try:
        print('echo %d %s' % (size, 'intact' if d.recv(65536) == data
                                 else 'corrupt'))
    except OSError as e:
        print('echo %d %s' % (size, e))"
	lines=$(cat "$WORK/pmtu$FAM.out" 2>/dev/null)
	is "${lines%%$'\n'*}" "EMSGSIZE, MTU 1280" \
		"$FAMNAME: a UDP socket with path MTU discovery learns F's link MTU (1280)" ||
		diag_file "$WORK/pmtu$FAM.err"
	is "$(echo "$lines" | tail -n +2 | tr '\n' ' ')" \
		"echo 1400 intact echo 6000 intact " \
		"$FAMNAME: the guest fragments for that MTU, F gets whole datagrams" ||
		diag_file "$WORK/pmtu$FAM.err"

	far_mtu 1500 && in_h ip route flush cache && in_h ip -6 route flush cache
	# The drop once both connections are up at F, not at a set time: a
	# connection made after it gets F's MSS for 1280 and never meets the
	# old path (on a busy machine pasta and the client took over 0.5 s)
	( _poll 15 sh -c "[ \$(ip netns exec $NS_F ss -Htn state established \
		'( sport = :9000 )' | wc -l) -ge 2 ]"; far_mtu 1280 ) &
	pasta_run "xfer$FAM" 60 -- "$PY" "$TESTDIR/pacedxfer.py" --to "$far" \
		--port 9000
	wait $!
	# The host's route to F learnt 1280 from R: the drop came mid-upload
	learnt=$(in_h ip route get "$far" | grep -o "mtu 1280")
	is "$(tr '\n' ' ' <"$WORK/xfer$FAM.out" 2>/dev/null)$learnt" \
		"download OK upload OK mtu 1280" \
		"$FAMNAME: a paced download and upload keep going when the path MTU drops to 1280" ||
		{ diag_file "$WORK/xfer$FAM.err"
		  diag "host's route to F: $(in_h ip route get "$far" | tr '\n' ' ')"; }
done
done_testing
