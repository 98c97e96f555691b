#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iperf3 through pasta, over IPv4 and over IPv6: a 3 s upload and a 3 s
# download (-R) to an iperf3 server in R complete; the throughput is
# reported as TAP comments.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((1 + 3 * NFAM))

PORT=5201
SECS=3

topo_create; ok $? "topology created" || done_testing

for fam in $FAMILIES; do
	use_family "$fam"
	bg_r "iperf3-server$FAM" iperf3 -s -B "$SRV" -p "$PORT"
	wait_tcp "$NS_R" "$PORT" 10 "$SRV"
	ok $? "$FAMNAME: iperf3 server listening on $(url_host "$SRV"):$PORT in R" ||
		{ not_run 2 "$FAMNAME: iperf3"; continue; }

	for dir in upload download; do
		flag=; [ $dir = download ] && flag=-R
		name=iperf3-$dir$FAM
		json=$WORK/u/$name.json
		pasta_run "$name" $((SECS + 30)) -- sh -c \
			"iperf3 $IPV -c $SRV -p $PORT -t $SECS $flag -J --connect-timeout 5000 >'$json'"
		rc=$?
		rate=$(mbps "$json")
		if [ $rc = 0 ] && [ "$rate" != n/a ]; then
			ok 0 "$FAMNAME: iperf3 $dir completes"
			diag "$dir: $rate Mbit/s"
		else
			ok 1 "$FAMNAME: iperf3 $dir completes"
			diag "exit status $rc"
			diag_file "$json" 10
			diag_file "$WORK/$name.err"
		fi
	done
done
done_testing
