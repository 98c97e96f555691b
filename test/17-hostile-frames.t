#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A million malformed frames of 34 kinds (test/hostile.py: broken headers,
# lengths, checksums, flags, options, fragments, extension headers,
# addresses the guest may not use, port 0, malformed DHCP, DHCPv6, NDP)
# sent onto pasta's tap from inside its namespace while a 32 MiB download
# and a 32 MiB upload run: both arrive intact, the frames are dropped and
# counted, no flow is left, and pasta's descriptors and memory are back
# where they were.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 10

FRAMES=${HOSTILE_FRAMES:-1000000}
topo_create; ok $? "topology created" || done_testing
use_family 4
D=$WORK/srv; mkdir -p "$D"
make_random "$D/big.bin" 32
want=$(sha "$D/big.bin")
U=$WORK/u
cp "$D/big.bin" "$U/up.bin"
serve_fam 8098 "$D"

# The command warms up (a first transfer touches every buffer), waits for
# "go" (after our baseline), then transfers while it injects, then waits
# for "measured" (after our second look). The flood overflows the tap
# device's queue, the transfers' segments with it (5,000 to 250,000 frames
# of the million, the busier the machine the more): the namespace's TCP
# retransmits at least every second (tcp_rto_max_ms, Linux 6.15), not
# after a back-off of up to 120 s that would outlast curl's --max-time
pasta_bg hf 240 -P "$U/hf.pid" -T none -U none -- sh -c "
	sysctl -qw net.ipv4.tcp_rto_max_ms=1000 2>/dev/null
	curl -sS --max-time 60 -o /dev/null http://$SRV:8098/big.bin
	curl -sS --max-time 60 -T $U/up.bin http://$SRV:8098/warm.bin >/dev/null
	echo >$U/ready
	while [ ! -e $U/go ]; do sleep 0.1; done
	ifname=\$(ip -o link show | awk -F': ' '\$2 != \"lo\" { print \$2; exit }')
	curl -sS --max-time 120 -o $U/dl.bin http://$SRV:8098/big.bin & d=\$!
	curl -sS --max-time 120 -T $U/up.bin http://$SRV:8098/up.bin \
		>/dev/null & u=\$!
	$PY $TESTDIR/hostile.py \"\$ifname\" $FRAMES >$U/hostile.out
	wait \$d; echo dl=\$?; wait \$u; echo up=\$?
	echo >$U/phase1
	for i in \$(seq 300); do [ -e $U/measured ] && break; sleep 0.1; done"
pasta=$BG_PID
wait_file "$U/ready" 60 || { diag_file "$WORK/hf.err"; done_testing; }
sleep 1		# the warm-up's flows close
pid=$(cat "$U/hf.pid")
fds0=$(ls "/proc/$pid/fd" | wc -l)
rss0=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
echo >"$U/go"

_poll 200 test -s "$U/phase1"
out=$(cat "$WORK/hf.out")
read -r cats sent tapdrop < "$U/hostile.out"
diag "hostile.py: $sent frames of $cats kinds sent, $tapdrop dropped by the tap device's queue"
is "${sent:-0}" "$FRAMES" "$FRAMES malformed frames sent"
echo "$out" | grep -qx "dl=0" && [ "$(sha "$U/dl.bin")" = "$want" ]
ok $? "the download meanwhile: 32 MiB, sha256 intact" || diag "$out"
echo "$out" | grep -qx "up=0" && [ "$(sha "$D/up.bin" 2>/dev/null)" = "$want" ]
ok $? "the upload meanwhile: 32 MiB, sha256 intact"

# The transfers' flows close as their connections end: our FIN, its ACK
# lost in the flood, goes again after 0.2, 0.4, ... 12.8 s (pasta's back-off)
_poll 40 sh -c "[ \$(ls /proc/$pid/fd | wc -l) -le $fds0 ]"
fds1=$(ls "/proc/$pid/fd" | wc -l)
rss1=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
is "$fds1" "$fds0" "pasta's descriptors back to $fds0"
[ $((rss1 - rss0)) -lt 2048 ]
ok $? "pasta's resident memory grew by $((rss1 - rss0)) KiB (< 2 MiB)"
kill -USR1 "$pid"
_poll 5 grep -q "^drop port_zero" "$WORK/hf.err"
dropped=$(awk '/^drop [a-z0-9_]*: [0-9]+$/ { n += $3 } END { print n + 0 }' \
	"$WORK/hf.err")
[ "$dropped" -ge $(((sent - tapdrop) * 9 / 10)) ]
ok $? "$dropped frames dropped and counted by reason (of $((sent - tapdrop)) that reached pasta)" ||
	diag_file "$WORK/hf.err"
grep -q "^flows: 0 in use" "$WORK/hf.err"
ok $? "no flow left" || diag_file "$WORK/hf.err"
echo >"$U/measured"
wait "$pasta"
is "$?" 0 "pasta and its command exit 0"
done_testing
