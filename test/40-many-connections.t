#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 200 concurrent short TCP connections through pasta: 200 backgrounded curl
# requests for a small file, all started at once from pasta's namespace;
# every one must return 200 with the full, correct content.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 3

N=200
PORT=8000
SRV=$WORK/srv; mkdir -p "$SRV"
head -c 16384 /dev/urandom >"$SRV/small.bin"
want=$(sha "$SRV/small.bin")

topo_create; ok $? "topology created" || done_testing
start_httpd "$NS_R" "$SRV_ADDR" "$PORT" "$SRV" httpd
ok $? "server listening on $SRV_ADDR:$PORT in R" || done_testing

D=$WORK/u/many; mkdir -m 0777 "$D"
# Inside the namespace: start N curls, each bounded, then wait for all.
pasta_run many 90 -- bash -c '
	n=$1 url=$2 d=$3
	for i in $(seq "$n"); do
		curl -sS --connect-timeout 20 --max-time 40 -o "$d/$i.body" \
			-w "%{http_code}\n" "$url" >"$d/$i.code" 2>"$d/$i.err" &
	done
	wait
' many "$N" "http://$SRV_ADDR:$PORT/small.bin" "$D"
rc=$?

good=0; failures=
for i in $(seq "$N"); do
	if [ "$(cat "$D/$i.code" 2>/dev/null)" = 200 ] &&
	   [ "$(sha "$D/$i.body" 2>/dev/null)" = "$want" ]; then
		good=$((good + 1))
	elif [ -z "$failures" ]; then
		failures="request $i: code '$(cat "$D/$i.code" 2>/dev/null)' $(head -c 200 "$D/$i.err" 2>/dev/null)"
	fi
done
if ! is "$good" "$N" "$N concurrent connections all succeed"; then
	diag "runner exit status $rc; first failure: $failures"
	diag_file "$WORK/many.err"
fi
done_testing
