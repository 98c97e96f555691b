#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pasta -T: a port inside the namespace reaches the host's loopback, socket
# to socket (splice), no tap: 32 MiB down and up with sha256 over IPv4
# (127.0.0.1) and IPv6 (::1), 20 requests at once, a host port nobody
# listens on resets the client at once.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 8

D=$WORK/srv; mkdir -p "$D"
make_random "$D/big.bin" 32
want=$(sha "$D/big.bin")
U=$WORK/u
cp "$D/big.bin" "$U/up.bin"

topo_create; ok $? "topology created" || done_testing
start_httpd "$NS_H" :: 8090 "$D" httpd
ok $? "server on H's loopback, both families (port 8090)" || done_testing

c="curl -sS --fail --max-time 60"
pasta_run ns 120 -T 18100:8090 -T 18101 -- sh -c "
	$c -o $U/dl4.bin http://127.0.0.1:18100/big.bin; echo dl4=\$?
	$c -o $U/dl6.bin 'http://[::1]:18100/big.bin'; echo dl6=\$?
	$c -T $U/up.bin http://127.0.0.1:18100/up4.bin >/dev/null; echo up4=\$?
	$c -T $U/up.bin 'http://[::1]:18100/up6.bin' >/dev/null; echo up6=\$?
	for i in \$(seq 20); do
		$c -o $U/many\$i.txt http://127.0.0.1:18100/big.bin &
	done; wait
	t0=\$(date +%s%N)
	curl -sS --max-time 5 http://127.0.0.1:18101/ >/dev/null 2>&1
	echo refused=\$? ms=\$(( (\$(date +%s%N) - t0) / 1000000 ))"
out=$(cat "$WORK/ns.out")
is "$(sha "$U/dl4.bin" 2>/dev/null)" "$want" "-T over IPv4: 32 MiB from H's 127.0.0.1, sha256" ||
	{ diag "$out"; diag_file "$WORK/ns.err"; }
is "$(sha "$U/dl6.bin" 2>/dev/null)" "$want" "-T over IPv6: 32 MiB from H's ::1, sha256"
is "$(sha "$D/up4.bin" 2>/dev/null)" "$want" "-T over IPv4: 32 MiB up, sha256 on H"
is "$(sha "$D/up6.bin" 2>/dev/null)" "$want" "-T over IPv6: 32 MiB up, sha256 on H"
n=0
for i in $(seq 20); do
	[ "$(sha "$U/many$i.txt" 2>/dev/null)" = "$want" ] && n=$((n + 1))
done
is "$n" 20 "20 downloads at once through -T, all intact"
# The namespace's side was accepted before the host refused: a reset
ms=$(echo "$out" | sed -n 's/^refused=\(7\|52\|55\|56\) ms=//p')
[ -n "$ms" ] && [ "$ms" -lt 2000 ]
ok $? "a -T port with nobody on the host's side fails within 2 s (${ms:-?} ms)" ||
	diag "$out"
done_testing
