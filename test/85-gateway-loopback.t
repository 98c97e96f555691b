#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The gateway address in pasta's namespace (203.0.113.2 and 2001:db8:1::2,
# copied from H by --config-net) stands for H's loopback, as upstream
# does: a server bound to 127.0.0.1 (::1) in H must be reachable from
# pasta's namespace at http://203.0.113.2:PORT/ (http://[2001:db8:1::2]:PORT/)
# and see the connection come from 127.0.0.1 (::1).  (R also owns the
# gateway address but runs no server on that port, so reaching R instead
# fails.)  With PASTA_DIRECT=1 the client uses 127.0.0.1 (::1) directly.
# With --no-map-gw (rootlesskit's --disable-host-loopback) neither the
# gateway nor the namespace's own loopback (no -T auto) reaches it.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((1 + 4 * NFAM))

PORT=8081
want=$(docs_random gw.bin 1M)

topo_create; ok $? "topology created" || done_testing

for fam in $FAMILIES; do
	use_family "$fam"
	start_httpd "$NS_H" "$LO" "$PORT" "$DOCS" "httpd-lo$FAM"
	ok $? "$FAMNAME: server listening on $(url_host "$LO"):$PORT in H" ||
		{ not_run 3 "$FAMNAME: H's loopback via $GW"; continue; }

	out=$WORK/u/gw$FAM.bin
	pasta_run "gw$FAM" 40 -- curl "$IPV" -sS --fail --connect-timeout 10 \
		--max-time 30 -o "$out" "$GW_URL:$PORT/gw.bin"
	rc=$?
	is "$(sha "$out" 2>/dev/null)" "$want" \
		"$FAMNAME: 1 MiB from H's $(url_host "$LO"):$PORT via $GW_URL:$PORT/" ||
		{ diag "curl exit status $rc"; diag_file "$WORK/gw$FAM.err"; }

	pasta_run "gwpeer$FAM" 40 -- curl "$IPV" -sS --fail --connect-timeout 10 \
		--max-time 30 "$GW_URL:$PORT/peer"
	rc=$?
	is "$(tr -d '\r\n' <"$WORK/gwpeer$FAM.out")" "$LO" \
		"$FAMNAME: H's loopback server sees the connection from $LO" ||
		{ diag "curl exit status $rc"; diag_file "$WORK/gwpeer$FAM.err"; }

	if [ "$PASTA_DIRECT" = 1 ]; then
		skip "$FAMNAME: --no-map-gw" "PASTA_DIRECT=1: no pasta"
		continue
	fi
	pasta_run "nomap$FAM" 40 --no-map-gw -- sh -c '
		for url in "$@"; do
			curl -sS --connect-timeout 3 --max-time 5 -o /dev/null \
				"$url" 2>/dev/null && echo "reached $url"
		done; true' - "$GW_URL:$PORT/gw.bin" \
		"http://$(url_host "$LO"):$PORT/gw.bin"
	is "$(cat "$WORK/nomap$FAM.out")" "" \
		"$FAMNAME: --no-map-gw: H's loopback server reached neither via $GW nor via the namespace's $LO" ||
		diag_file "$WORK/nomap$FAM.err"
done
done_testing
