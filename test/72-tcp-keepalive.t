#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Keepalive and half-closed connections, with H's settings cut to seconds
# (net.ipv4.tcp_keepalive_time 2, _intvl 1, _probes 3, tcp_fin_timeout 3:
# pasta reads them at start-up, H's kernel keeps its sockets alive with
# them). Connections from pasta's namespace to tcphold.py in R:
#  - the guest falls silent (a blackhole route in the namespace eats its
#    answers): probed, and reset after 2 + 3 x 1 s, both sides;
#  - the host peer falls silent (the same in R): H's kernel gives up after
#    as long, and the guest gets a reset;
#  - an idle, live connection is kept for 20 s, probed all along, without
#    a retransmission, and carries data afterwards;
#  - half-closed either way, data still flowing the other way for 10 s, a
#    line a second: nothing is cut;
#  - half-closed either way, 8 s without data, both sides alive: kept (the
#    guest answers our probes after 3 s of silence), the late data arrives;
#  - half-closed by the guest, which then falls silent: reset after 3 s and
#    3 unanswered probes.
# IPv4. About a minute and a half.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 16

PORT=8072
HOLD=("$PY" "$TESTDIR/tcphold.py")
U=$WORK/u
topo_create; ok $? "topology created" || done_testing
in_h sysctl -qw net.ipv4.tcp_keepalive_time=2 net.ipv4.tcp_keepalive_intvl=1 \
	net.ipv4.tcp_keepalive_probes=3 net.ipv4.tcp_fin_timeout=3
ok $? "H: keepalive after 2 s, every 1 s, 3 probes; FIN timeout 3 s" ||
	done_testing

# serve NAME STEPS - tcphold.py in R on $SRV:$PORT, ready; PID in SRV_PID
serve() {
	bg_r "$1-srv" "${HOLD[@]}" --bind "$SRV" --port "$PORT" \
		--pidfile "$WORK/$1.pid" --timeout 40 "$2"
	SRV_PID=$BG_PID
	wait_file "$WORK/$1.pid" 10 || diag_file "$WORK/$1-srv.log"
}

# served NAME - wait (bounded) for the server to finish, print its output
served() {
	wait_gone "$SRV_PID" 45
	cat "$WORK/$1-srv.log"
}

# secs_in OUT WHAT MIN MAX - OUT has "end WHAT SECS" with MIN <= SECS <= MAX;
# SECS is set to those seconds, or "?"
secs_in() {
	SECS=$(echo "$1" | sed -n "s/^end $2 \([0-9.]*\)$/\1/p")
	[ -n "$SECS" ] || { SECS="?"; return 1; }
	awk -v s="$SECS" -v a="$3" -v b="$4" 'BEGIN { exit !(s >= a && s <= b) }'
}

# flow_line NAME - pasta's closing line for the connection to $PORT
flow_line() {
	grep -E "TCP.*:$PORT.*close 0x" "$WORK/$1.err" | tail -n 1
}

# 1. The guest falls silent once connected
serve gone 'line,mark,end'
pasta_run gone 60 -d -- sh -c "
	${HOLD[*]} --to $SRV --port $PORT --timeout 40 'send:hello,flag:$U/sent,end' &
	i=0
	while [ ! -e $U/sent ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
	ip route add blackhole $SRV/32
	wait"
srv=$(served gone)
secs_in "$srv" reset 4 12
ok $? "silent guest: R's server is reset 2 + 3 x 1 s after the last data: $SECS s" ||
	{ diag "R: $srv" "guest: $(cat "$WORK/gone.out")"; diag_file "$WORK/gone.err"; }
grep -q "no answer to 3 keepalive probes, resetting" "$WORK/gone.err"
ok $? "silent guest: pasta logs the keepalive reset" ||
	diag_file "$WORK/gone.err"

# 2. The host peer falls silent once connected
serve hgone "line,flag:$WORK/hgone.hello,end"
pasta_bg hgone 60 -d -- "${HOLD[@]}" --to "$SRV" --port "$PORT" --timeout 40 \
	'send:hello,mark,end'
pasta=$BG_PID
wait_file "$WORK/hgone.hello" 10 && in_r ip route add blackhole "$H/32"
wait "$pasta"
out=$(cat "$WORK/hgone.out")
secs_in "$out" reset 4 12
ok $? "silent host peer: the guest is reset 2 + 3 x 1 s after the last data: $SECS s" ||
	{ diag "guest: $out"; diag_file "$WORK/hgone.err"; }
in_r ip route del blackhole "$H/32"
served hgone >/dev/null

# 3. Idle for 20 s, but alive
serve idle 'echo'
pasta_run idle 60 -d -- "${HOLD[@]}" --to "$SRV" --port "$PORT" --timeout 40 \
	'send:one,line,sleep:20,send:two,line,shut,drain,sleep:1'
out=$(cat "$WORK/idle.out")
is "$out" "line one
line two
lines 0" "idle 20 s: the connection still carries data both ways" ||
	diag_file "$WORK/idle.err"
line=$(flow_line idle)
n=$(echo "$line" | sed -n 's/.* keepalives \([0-9]*\),.*/\1/p')
[ "${n:-0}" -ge 5 ]
ok $? "idle 20 s: the guest was probed and answered (${n:-?} keepalives)" ||
	diag "$line"
echo "$line" | grep -q "retrans to guest 0,"
ok $? "idle 20 s: the answers to the probes made no retransmission" ||
	diag "$line"
served idle >/dev/null

# 4. Half-closed by the guest, downloading
serve dl 'drain,trickle:10,close'
pasta_run dl 60 -d -- "${HOLD[@]}" --to "$SRV" --port "$PORT" --timeout 40 \
	'send:hello,shut,drain'
out=$(cat "$WORK/dl.out")
is "$out" "lines 10" "half-closed by the guest: 10 s of download, one line a second, all there" ||
	diag_file "$WORK/dl.err"
is "$(served dl)" "lines 1" "half-closed by the guest: R got its line"

# 5. Half-closed by the host peer, uploading
serve ul 'shut,drain'
pasta_run ul 60 -d -- "${HOLD[@]}" --to "$SRV" --port "$PORT" --timeout 40 \
	'drain,trickle:10,close'
is "$(served ul)" "lines 10" "half-closed by the host peer: 10 s of upload, one line a second, all there" ||
	diag_file "$WORK/ul.err"

# 6. Half-closed by the guest, then 8 s of nothing, then the answer
serve gfin 'drain,sleep:8,send:late,close'
pasta_run gfin 60 -d -- "${HOLD[@]}" --to "$SRV" --port "$PORT" --timeout 40 \
	'shut,line,drain'
is "$(cat "$WORK/gfin.out")" "line late
lines 0" "half-closed by the guest, 8 s without data: kept, the late answer arrives" ||
	diag_file "$WORK/gfin.err"
n=$(flow_line gfin | sed -n 's/.* keepalives \([0-9]*\),.*/\1/p')
[ "${n:-0}" -ge 2 ]
ok $? "half-closed by the guest: probed after 3 s of silence, and answered (${n:-?} keepalives)" ||
	diag "$(flow_line gfin)"
is "$(served gfin)" "lines 0" "half-closed by the guest: R saw its FIN"

# 7. Half-closed by the host peer, then 8 s of nothing, then the guest's data
serve hfin 'shut,drain'
pasta_run hfin 60 -d -- "${HOLD[@]}" --to "$SRV" --port "$PORT" --timeout 40 \
	'drain,sleep:8,send:late,close'
is "$(served hfin)" "lines 1" "half-closed by the host peer, 8 s without data: kept, the late line arrives" ||
	diag_file "$WORK/hfin.err"

# 8. Half-closed by the guest, which then falls silent
serve gfin2 'drain,mark,end'
pasta_run gfin2 60 -d -- sh -c "
	${HOLD[*]} --to $SRV --port $PORT --timeout 40 'shut,flag:$U/shut,end' &
	i=0
	while [ ! -e $U/shut ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i + 1)); done
	ip route add blackhole $SRV/32
	wait"
srv=$(served gfin2)
secs_in "$srv" reset 4 14
ok $? "half-closed by the guest, then silent: R's server is reset 3 + 3 x 1 s after its FIN: $SECS s" ||
	{ diag "R: $srv"; diag_file "$WORK/gfin2.err"; }
done_testing
