#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/demo.sh - what `make demo` runs: iperf3 throughput through ./pasta
# versus directly from its host namespace.
#
# Builds the test topology (see test/lib.sh), starts an iperf3 server on
# 198.51.100.1 in R, then runs iperf3 -t 5 upload and download (-R) twice:
# through pasta as the unprivileged test user, and directly from H.  Prints
# Mbit/s and the pasta/host ratio, then removes everything.  Needs root.
#
# Environment: DEMO_SECS (default 5), plus lib.sh's PASTA and PASTA_OPTS.

. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "demo.sh: must run as root (creates network namespaces)" >&2; exit 1; }
lib_init >/dev/null
SECS=${DEMO_SECS:-5}
PORT=5201
PASTA_DIRECT=0

topo_create || { echo "demo.sh: cannot create the topology" >&2; exit 1; }
bg_r iperf3-server iperf3 -s -B "$SRV_ADDR" -p "$PORT"
wait_tcp "$NS_R" "$PORT" 10 || { echo "demo.sh: iperf3 server did not start" >&2; exit 1; }

# run_iperf MODE DIR - print Mbit/s (or n/a)
run_iperf() {
	local mode=$1 dir=$2 flag='' json=$WORK/u/$1-$2.json
	[ "$dir" = download ] && flag=-R
	local cmd="iperf3 -c $SRV_ADDR -p $PORT -t $SECS $flag -J --connect-timeout 5000 >'$json'"
	if [ "$mode" = pasta ]; then
		[ -x "$PASTA" ] || { echo n/a; return; }
		pasta_run "$mode-$dir" $((SECS + 30)) -- sh -c "$cmd"
	else
		as_user_h $((SECS + 30)) sh -c "$cmd" >/dev/null 2>"$WORK/$mode-$dir.err"
	fi
	mbps "$json"
}

echo "iperf3 -t $SECS to $SRV_ADDR (remote namespace), TCP, 1 stream"
[ -x "$PASTA" ] || echo "($PASTA not built: pasta column is n/a)"
status=0
printf '%-10s %14s %14s %12s\n' direction "pasta Mbit/s" "host Mbit/s" pasta/host
for dir in upload download; do
	p=$(run_iperf pasta "$dir")
	h=$(run_iperf host "$dir")
	ratio=$(awk -v p="$p" -v h="$h" 'BEGIN {
		if (p ~ /^[0-9.]+$/ && h ~ /^[0-9.]+$/ && h > 0) printf "%.2f", p / h
		else print "n/a" }')
	printf '%-10s %14s %14s %12s\n' "$dir" "$p" "$h" "$ratio"
	if [ "$p" = n/a ] && [ -x "$PASTA" ]; then
		echo "  pasta $dir failed:" >&2
		tail -n 5 "$WORK/pasta-$dir.err" >&2
		status=1
	fi
done
exit $status
