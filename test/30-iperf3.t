#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# iperf3 through pasta: a 3 s upload and a 3 s download (-R) to an iperf3
# server in R complete; the throughput is reported as TAP comments.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 4

PORT=5201
SECS=3

topo_create; ok $? "topology created" || done_testing
bg_r iperf3-server iperf3 -s -B "$SRV_ADDR" -p "$PORT"
wait_tcp "$NS_R" "$PORT" 10
ok $? "iperf3 server listening on $SRV_ADDR:$PORT in R" || done_testing

for dir in upload download; do
	flag=; [ $dir = download ] && flag=-R
	json=$WORK/u/iperf3-$dir.json
	pasta_run "iperf3-$dir" $((SECS + 30)) -- sh -c \
		"iperf3 -c $SRV_ADDR -p $PORT -t $SECS $flag -J --connect-timeout 5000 >'$json'"
	rc=$?
	rate=$(mbps "$json")
	if [ $rc = 0 ] && [ "$rate" != n/a ]; then
		ok 0 "iperf3 $dir completes"
		diag "$dir: $rate Mbit/s"
	else
		ok 1 "iperf3 $dir completes"
		diag "exit status $rc"
		diag_file "$json" 10
		diag_file "$WORK/iperf3-$dir.err"
	fi
done
done_testing
