#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# SYN floods from inside pasta's namespace (test/synflood.py, a raw
# socket: no socket of the namespace's own owns them), 10,000 SYNs each at
# 20,000 a second, while a 52 s iperf3 download runs through pasta:
#   rst    from the namespace's address to a listening port in R: pasta
#          connects, the namespace's kernel answers our SYN-ACK with a reset
#   black  to an address R drops silently: the host's connect() never
#          completes, our 10 s handshake timeout frees the flows
#   spoof  from an address of the namespace's subnet it does not own, to
#          the listening port in R: our SYN-ACKs go unanswered, their
#          retries (12.6 s in all) free the flows
# After each flood, a new connection from the namespace completes within
# 1 s; the download's bytes over the 13 s from each flood's start (its
# timeouts included) are at least 90% of as many seconds without a flood
# (the target; checked lower, see FLOOR), against the median 0.5 s
# interval away from the floods (each flood's first 4 s are in the output);
# 30 s after the last flood, pasta's descriptors are back to where they
# were before the first.
# Then, with pasta's descriptors limited to $NOFILE, two back-to-back
# floods of 10,000 to the address that never answers (20,000 half-open
# flows, far more than the descriptors) while a 10 s download runs: the
# oldest half-open flows are evicted for the new ones, a new connection
# from the namespace right after succeeds, and one from R to a -t port,
# the download (established before) completes; the evictions as counted
# in the SIGUSR1 stats.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 17

NOFILE=512

N=10000
SPOOF=203.0.113.200	# in H's /24, owned by no one
BLACK=192.0.2.1		# R drops it: a blackhole route
topo_create; ok $? "topology created" || done_testing
use_family 4
in_r ip route add blackhole 192.0.2.0/24
D=$WORK/srv; mkdir -p "$D"; echo "from R" >"$D/f.txt"
start_httpd "$NS_R" "$SRV" 8098 "$D" httpd &&
bg_r accept "$PY" -c "
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('$SRV', 8099)); s.listen(4096)
while True:
    c, _ = s.accept(); c.close()" &&
bg_r iperf3s iperf3 -s -B "$SRV" -p 5201 &&
wait_tcp "$NS_R" 8099 10 && wait_tcp "$NS_R" 5201 10
ok $? "servers in R: HTTP, accept-and-close, iperf3" || done_testing

S=$WORK/u/sf; mkdir -m 0777 "$S"; echo "ns" >"$S/f.txt"
pasta_bg sf 170 -P "$S/pasta.pid" -T none -U none -- "$TESTDIR/ns-server.sh" \
	"$S" 160 "$PY" "$TESTDIR/httpd.py" --bind 127.0.0.1 --port 8080 \
	--dir "$S" --pidfile "$S/server.pid"
pasta=$BG_PID
wait_file "$S/ready" 15 && wait_file "$S/pasta.pid" 5
ok $? "pasta running" || { diag_file "$WORK/sf.err"; done_testing; }
pid=$(cat "$S/pasta.pid")
in_ns() { nsenter -t "$(cat "$S/server.pid")" -n "$@"; }
fds() { ls "/proc/$pid/fd" | wc -l; }
now() { date +%s.%N; }

# new_conn - seconds a new connection and a small request take, or 99 if
# it fails
new_conn() {
	local t
	# curl writes the time even when it fails
	t=$(in_ns curl -sS -o /dev/null --max-time 10 -w '%{time_total}' \
		"http://$SRV:8098/f.txt" 2>/dev/null) && echo "$t" || echo 99
}

in_ns curl -sS -o /dev/null --max-time 5 "http://$SRV:8098/f.txt"
in_ns timeout 80 iperf3 -c "$SRV" -p 5201 -R -t 52 -i 0.5 -J \
	>"$WORK/iperf.json" 2>"$WORK/iperf.err" &
ip_pid=$!
_PIDS+=("$ip_pid")
t0=$(now)
sleep 3
fds0=$(fds)
diag "pasta's descriptors with the download running: $fds0"

# flood NAME SRC DST PORT FIRST_SPORT AT - at AT s into the download
declare -A AT
flood() {
	local name=$1 src=$2 dst=$3 port=$4 first=$5 at=$6 out t peak
	sleep "$(echo "$t0 + $at - $(now)" | bc | sed 's/^-.*/0/')"
	AT[$name]=$(echo "$(now) - $t0" | bc)
	out=$(in_ns timeout 20 "$PY" "$TESTDIR/synflood.py" "$src" "$dst" \
		"$port" "$N" "$first")
	peak=$(fds)
	t=$(new_conn)
	diag "$name: $out (SYNs, s) from $src to $dst:$port at ${AT[$name]} s;" \
	     "pasta's descriptors then: $peak"
	# The target is 1 s; a SYN that the namespace's own tap queue, full of
	# the flood, dropped is sent again by its kernel after 1 s (1.025 s
	# in one CI run): that one retry is allowed, nothing of ours more
	[ "$(echo "$t < 1.5" | bc)" = 1 ]
	ok $? "$name: a new connection right after the flood took $t s (target 1 s; < 1.5 s: one SYN retry of the namespace's)"
}
flood rst "$H" "$SRV" 8099 10000 10
flood black "$H" "$BLACK" 80 20000 24
flood spoof "$SPOOF" "$SRV" 8099 30000 38
t_last=$(now)

# Back to where they were, 30 s after the last flood at most (the
# download ends meanwhile: fewer is fine)
while [ "$(fds)" -gt "$fds0" ] &&
      [ "$(echo "$(now) < $t_last + 30" | bc)" = 1 ]; do
	sleep 0.5
done
fds1=$(fds) secs=$(echo "$(now) - $t_last" | bc | cut -c1-4)
[ "$fds1" -le "$fds0" ]
ok $? "pasta's descriptors: $fds1 after $secs s (were $fds0 before the floods)" ||
	{ kill -USR1 "$pid"; sleep 0.5; diag_file "$WORK/sf.err"; }

wait "$ip_pid"
ok $? "the download completes" || diag_file "$WORK/iperf.err"

# The rate without a flood: the median 0.5 s interval, from 2 s on, but
# for the first 4 s of each flood (machine load drifts over a minute:
# other tests run beside this one). Each flood's first 4 s, for the record:
# pasta spends 0.5-1 s of its one thread on 10,000 handshakes (more with
# ASan), that window loses 10-20%. Checked: the 13 s from each flood's
# start, its timeouts (10 s, 12.6 s) included.
"$PY" - "$WORK/iperf.json" "${AT[rst]}" "${AT[black]}" "${AT[spoof]}" \
	>"$WORK/tput.out" <<'EOF2'
import json, statistics, sys
iv = json.load(open(sys.argv[1]))["intervals"]
pts = [(i["sum"]["start"], i["sum"]["bytes"]) for i in iv]
def win(a, b):
    return sum(n for s, n in pts if a - 0.01 <= s < b - 0.01)
ats = [int(float(at) * 2) / 2 for at in sys.argv[2:]]
quiet = [n for s, n in pts if s >= 2 and
         not any(a - 0.01 <= s < a + 4 - 0.01 for a in ats)]
base = 8 * statistics.median(quiet)	# bytes per 4 s
print("base %.0f" % (base * 8 / 4e6))
for name, a in zip(("rst", "black", "spoof"), ats):
    print("%s %.0f %.1f %.0f %.1f" % (
        name, win(a, a + 4) * 8 / 4e6, 100 * win(a, a + 4) / base,
        win(a, a + 13) * 8 / 13e6, 100 * win(a, a + 13) / (base * 13 / 4)))
EOF2
# The issue's target is 90%, printed with every figure: a figure, not a
# timed pass/fail check. On two CPUs that the download alone keeps busy,
# and a VM's steal time, rst measured 100-112% and black 91-107% alone, but
# 65% once with other tests running beside it; the spoofed flood costs
# more (10,000 host connections R accepts and closes, 50,000 SYN-ACK
# retries): 80-94%. The check is only that the download does not collapse,
# as it did to 2% before the fast retransmit fix
declare -A FLOOR=([rst]=40 [black]=40 [spoof]=40)
base=$(awk '/^base/ { print $2 }' "$WORK/tput.out")
diag "download without a flood: $base Mbit/s (median of 0.5 s intervals)"
for name in rst black spoof; do
	read -r _ mbit4 pct4 mbit pct < <(grep "^$name " "$WORK/tput.out")
	diag "$name: the download over the flood's first 4 s: $mbit4 Mbit/s, $pct4%"
	[ -n "$pct" ] && [ "$(echo "$pct >= ${FLOOR[$name]}" | bc)" = 1 ]
	ok $? "$name: the download over 13 s from the flood: $mbit Mbit/s, $pct% of its rate without (>= ${FLOOR[$name]}%; target 90%)"
done

kill -0 "$pasta"; ok $? "pasta still running"
touch "$S/done"
wait "$pasta"

# Out of descriptors: a pasta of its own, prlimit as test/41 does
S=$WORK/u/lim; mkdir -m 0777 "$S"; echo "ns" >"$S/f.txt"
_user_prefix
timeout -k 5 90 "${_UP[@]}" prlimit --nofile=$NOFILE:$NOFILE "$PASTA" \
	--config-net -t 8080 -T none -U none -P "$S/pasta.pid" -- \
	"$TESTDIR/ns-server.sh" "$S" 80 "$PY" "$TESTDIR/httpd.py" \
	--bind 0.0.0.0 --port 8080 --dir "$S" --pidfile "$S/server.pid" \
	>"$WORK/lim.out" 2>"$WORK/lim.err" </dev/null &
pasta=$!
_PGIDS+=("$pasta")
wait_file "$S/ready" 15 && wait_file "$S/pasta.pid" 5 &&
	in_ns curl -sS -o /dev/null --max-time 5 "http://$SRV:8098/f.txt"
ok $? "pasta with $NOFILE descriptors running" ||
	{ diag_file "$WORK/lim.err"; done_testing; }
pid=$(cat "$S/pasta.pid")
in_ns timeout 40 iperf3 -c "$SRV" -p 5201 -R -t 10 -J \
	>"$WORK/iperf-lim.json" 2>"$WORK/iperf-lim.err" &
ip_pid=$!
_PIDS+=("$ip_pid")
sleep 2
fds0=$(fds)
out1=$(in_ns timeout 20 "$PY" "$TESTDIR/synflood.py" "$H" "$BLACK" 80 "$N" 10000)
out2=$(in_ns timeout 20 "$PY" "$TESTDIR/synflood.py" "$H" "$BLACK" 80 "$N" 20000)
peak=$(fds)
diag "two floods to $BLACK:80: $out1, then $out2 (SYNs, s); pasta's descriptors: $fds0 before, $peak after (limit $NOFILE)"
t=$(in_r curl -sS -o /dev/null --max-time 10 -w '%{time_total}' \
	"http://$H:8080/f.txt" 2>/dev/null) || t=99
[ "$(echo "$t < 1.5" | bc)" = 1 ]
ok $? "out of descriptors: a connection from R to -t 8080 right after the floods took $t s (99: failed; < 1.5 s)" ||
	diag_file "$WORK/lim.err"
t=$(new_conn)
[ "$(echo "$t < 1.5" | bc)" = 1 ]
ok $? "... and a new one from the namespace took $t s (99: failed; < 1.5 s as above)" ||
	diag_file "$WORK/lim.err"
wait "$ip_pid"
ok $? "the download established before completes: $(mbps "$WORK/iperf-lim.json") Mbit/s" ||
	diag_file "$WORK/iperf-lim.err"
n=$(grep -c "^flows:" "$WORK/lim.err")
kill -USR1 "$pid"
_poll 2 test "$(grep -c "^flows:" "$WORK/lim.err")" -gt "$n"
stats=$(grep "^flows:" "$WORK/lim.err" | tail -n 1)
diag "stats: $stats"
evicted=$(echo "$stats" | sed -n 's/.*evicted: \([0-9]*\) TCP half-open.*/\1/p')
[ "${evicted:-0}" -gt 0 ]
ok $? "half-open flows evicted for new ones: ${evicted:-none}"
touch "$S/done"
wait "$pasta"
done_testing
