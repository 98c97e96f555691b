#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 200 concurrent short TCP connections through pasta, over IPv4 and over
# IPv6: 200 backgrounded curl requests for a small file, all started at
# once from pasta's namespace; every one must return 200 with the full,
# correct content.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((1 + 2 * NFAM))

N=200
PORT=8000
want=$(docs_random small.bin 16K)

topo_create; ok $? "topology created" || done_testing

for fam in $FAMILIES; do
	use_family "$fam"
	desc="$FAMNAME: $N concurrent connections all succeed"
	serve_fam "$PORT" "$DOCS" || { not_run 1 "$desc"; continue; }

	D=$WORK/u/many$FAM; mkdir -m 0777 "$D"
	# Inside the namespace: start N curls, each bounded, then wait for all.
	pasta_run "many$FAM" 90 -- bash -c '
		n=$1 url=$2 d=$3 ipv=$4
		for i in $(seq "$n"); do
			curl "$ipv" -sS --connect-timeout 20 --max-time 40 \
				-o "$d/$i.body" -w "%{http_code}\n" "$url" \
				>"$d/$i.code" 2>"$d/$i.err" &
		done
		wait
	' many "$N" "$SRV_URL:$PORT/small.bin" "$D" "$IPV"
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
	if ! is "$good" "$N" "$desc"; then
		diag "runner exit status $rc; first failure: $failures"
		diag_file "$WORK/many$FAM.err"
	fi
done
done_testing
