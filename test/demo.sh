#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/demo.sh - what `make demo` runs: iperf3 throughput through ./pasta
# and Debian's pasta (package passt, if installed) versus directly from
# their host namespace.
#
# Builds the test topology (see test/lib.sh), starts an iperf3 server on
# 198.51.100.1 in R, then runs iperf3 -t 5 upload and download (-R) three
# ways: directly from H, through ./pasta and through Debian's pasta, both
# as the unprivileged test user.  Prints Mbit/s and the ratios to the host,
# then removes everything.  Needs root.
#
# Environment: DEMO_SECS (default 5), plus lib.sh's PASTA and PASTA_OPTS.

. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || { echo "demo.sh: must run as root (creates network namespaces)" >&2; exit 1; }
lib_init >/dev/null
SECS=${DEMO_SECS:-5}
DEBIAN_PASTA=${DEBIAN_PASTA:-/usr/bin/pasta}
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
	elif [ "$mode" = debian ]; then
		[ -x "$DEBIAN_PASTA" ] || { echo n/a; return; }
		PASTA=$DEBIAN_PASTA pasta_run "$mode-$dir" $((SECS + 30)) -- sh -c "$cmd"
	else
		as_user_h $((SECS + 30)) sh -c "$cmd" >/dev/null 2>"$WORK/$mode-$dir.err"
	fi
	mbps "$json"
}

echo "iperf3 -t $SECS to $SRV_ADDR (remote namespace), TCP, 1 stream"
[ -x "$PASTA" ] || echo "($PASTA not built: pasta column is n/a)"
status=0
[ -x "$DEBIAN_PASTA" ] || echo "($DEBIAN_PASTA not installed: apt-get install passt)"
# ratio P H - P/H with two decimals, or n/a
ratio() {
	awk -v p="$1" -v h="$2" 'BEGIN {
		if (p ~ /^[0-9.]+$/ && h ~ /^[0-9.]+$/ && h > 0) printf "%.2f", p / h
		else print "n/a" }'
}
printf '%-10s %12s %12s %12s %10s %10s\n' direction "host Mbit/s" \
	"pasta" "Debian's" "pasta/host" "Debian/host"
for dir in upload download; do
	h=$(run_iperf host "$dir")
	p=$(run_iperf pasta "$dir")
	d=$(run_iperf debian "$dir")
	printf '%-10s %12s %12s %12s %10s %10s\n' "$dir" "$h" "$p" "$d" \
		"$(ratio "$p" "$h")" "$(ratio "$d" "$h")"
	if [ "$p" = n/a ] && [ -x "$PASTA" ]; then
		echo "  pasta $dir failed:" >&2
		tail -n 5 "$WORK/pasta-$dir.err" >&2
		status=1
	fi
done
exit $status
