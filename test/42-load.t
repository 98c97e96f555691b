#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Load through pasta (test/load.py, asyncio client in pasta's namespace,
# server in R): twice, 10,000 TCP connections open at once, each
# exchanging a byte, held, then closed; then 500 new connections a second
# (connect, a byte each way, close) for 10 s. Every connection
# gets its byte; the rate is kept; after each run, pasta's descriptors
# are back to the baseline, and its resident memory does not grow from
# one run to the next (the first run touches the flow table's entries
# for good: they are static, not freed).
#
# Knobs: LOAD_CONNS (10000), LOAD_RATE (500), LOAD_SECS (10); `make load`
# runs it with the optimised build, 1,000 a second for 60 s, figures in
# doc/benchmarks.md. At 1,000 a second the Python client and server take
# most of the 2 CPUs here: latency is theirs more than pasta's.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 12

N=${LOAD_CONNS:-10000}
RATE=${LOAD_RATE:-500}
SECS=${LOAD_SECS:-10}
PORT=7000
NOFILE=$(ulimit -Hn)
[ "$NOFILE" = unlimited ] && NOFILE=1048576
[ "$NOFILE" -gt $((N + 200)) ] ||
	skip_all "hard limit of $NOFILE descriptors: $N connections need more"
topo_create; ok $? "topology created" || done_testing
use_family 4

bg_r server prlimit --nofile="$NOFILE:$NOFILE" "$PY" "$TESTDIR/load.py" \
	server "$SRV" "$PORT" "$WORK/server.pid"
wait_file "$WORK/server.pid" 10
ok $? "load.py server in R on $SRV:$PORT" ||
	{ diag_file "$WORK/server.log"; done_testing; }

S=$WORK/u/ld; mkdir -m 0777 "$S"
pasta_bg ld $((SECS + 300)) -P "$S/pasta.pid" -T none -U none -- \
	"$TESTDIR/ns-server.sh" "$S" $((SECS + 290)) "$PY" "$TESTDIR/httpd.py" \
	--bind 127.0.0.1 --port 8080 --dir "$S" --pidfile "$S/server.pid"
pasta=$BG_PID
wait_file "$S/ready" 15 && wait_file "$S/pasta.pid" 5
ok $? "pasta running" || { diag_file "$WORK/ld.err"; done_testing; }
pid=$(cat "$S/pasta.pid")
# Root in pasta's network namespace, with as many descriptors as allowed
in_ns() {
	nsenter -t "$(cat "$S/server.pid")" -n \
		prlimit --nofile="$NOFILE:$NOFILE" "$@"
}
fds() { ls "/proc/$pid/fd" | wc -l; }
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$pid/status"; }

# settle - wait (at most 30 s) until pasta's descriptors are back to $fds0
settle() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(fds)" -le "$fds0" ] && return 0
		sleep 0.1
	done
	return 1
}

# Warm-up: a few connections of each kind, then the baseline
in_ns timeout 30 "$PY" "$TESTDIR/load.py" rate "$SRV" "$PORT" 100 1 \
	>"$WORK/warm.out" 2>&1
sleep 1
fds0=$(fds) rss0=$(rss)
diag "baseline: $fds0 descriptors, VmRSS $rss0 KiB"

# hold_run I - N connections held, then closed; sets RSS_AFTER
hold_run() {
	local i=$1 t0 out held failed still peak rss_peak secs
	rm -f "$WORK/ready$i" "$WORK/go$i"
	t0=$(date +%s.%N)
	in_ns timeout 200 "$PY" "$TESTDIR/load.py" hold "$SRV" "$PORT" "$N" \
		"$WORK/ready$i" "$WORK/go$i" 60 >"$WORK/hold$i.out" \
		2>"$WORK/hold$i.err" &
	local client=$!
	_PIDS+=("$client")
	wait_file "$WORK/ready$i" 150
	secs=$(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5)
	peak=$(fds) rss_peak=$(rss)
	sleep 1
	touch "$WORK/go$i"
	wait "$client"
	out=$(cat "$WORK/hold$i.out")
	read -r _ held _ failed _ still _ <<<"$out"
	[ "$held" = "$N" ] && [ "$failed" = 0 ] && [ "$still" = "$N" ]
	ok $? "run $i: $N connections open at once, each got its byte, all still open when closed ($out; all up in $secs s)" ||
		{ diag_file "$WORK/hold$i.err"; diag_file "$WORK/ld.err"; }
	settle
	ok $? "run $i: pasta's descriptors back to $fds0 (peak $peak, now $(fds))"
	RSS_AFTER=$(rss)
	diag "run $i: VmRSS $rss_peak KiB with $held held, $RSS_AFTER KiB after"
}

hold_run 1
rss1=$RSS_AFTER
hold_run 2
rss2=$RSS_AFTER
[ $((rss2 - rss1)) -lt 1024 ]
ok $? "VmRSS after the second run: $rss2 KiB, after the first $rss1 KiB (grew by $((rss2 - rss1)), < 1 MiB; before them $rss0)"

# New connections at RATE a second for SECS seconds
peak=0
in_ns timeout $((SECS + 60)) "$PY" "$TESTDIR/load.py" rate "$SRV" "$PORT" \
	"$RATE" "$SECS" >"$WORK/rate.out" 2>"$WORK/rate.err" &
client=$!
_PIDS+=("$client")
cpu0=$(awk '{ print $14 + $15 }' "/proc/$pid/stat") t0=$(date +%s.%N)
while kill -0 "$client" 2>/dev/null; do
	f=$(fds); [ "$f" -gt "$peak" ] && peak=$f
	sleep 0.5
done
wait "$client"
cpu=$(echo "($(awk '{ print $14 + $15 }' "/proc/$pid/stat") - $cpu0) * 100 / \
	$(getconf CLK_TCK) / ($(date +%s.%N) - $t0)" | bc)
diag "pasta's CPU meanwhile: $cpu% of one CPU"
read -r _ started _ okc _ failed _ achieved _ offered _ p50 _ p99 \
	<"$WORK/rate.out"
[ "${okc:-0}" = "$((RATE * SECS))" ] && [ "${failed:-1}" = 0 ] &&
	[ "${offered:-0}" -ge $((RATE * 95 / 100)) ] &&
	[ "${achieved:-0}" -ge $((RATE * 90 / 100)) ]
ok $? "$started new connections at $RATE/s for $SECS s: $okc completed, $failed failed, started at $offered/s, completed at $achieved/s (>= 90%, the last ones' latency included), p50 $p50 ms, p99 $p99 ms" ||
	{ diag_file "$WORK/rate.err"; diag_file "$WORK/ld.err"; }
settle
ok $? "pasta's descriptors back to $fds0 (peak $peak, now $(fds))"
rss3=$(rss)
[ $((rss3 - rss2)) -lt 1024 ]
ok $? "VmRSS after the rate run: $rss3 KiB (grew by $((rss3 - rss2)) KiB, < 1 MiB)"

kill -0 "$pasta"; ok $? "pasta still running"
touch "$S/done"
wait "$pasta"
done_testing
