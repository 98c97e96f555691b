#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pasta -c and pesto: forwarding rules changed at run time, through the
# control socket, in upstream's protocol (version 2). Our pesto and
# upstream's (Debian unstable's, test/sid-passt.sh) against our pasta, and
# ours against upstream's pasta: each shows the tables, adds Podman 6's
# rules (both wildcard addresses), traffic from R follows them, deletes
# them. Then what we do better: a client hammering a forwarded port sees
# no refused connection while 100 updates change other rules (upstream's
# pasta: measured beside, as a figure); adding a rule again is no error; a
# client that connects and goes silent stalls neither a transfer nor, past
# 5 s, the next client; another user can't change the rules; garbage on
# the socket changes nothing; passt serves the socket before a guest is
# there.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
pesto_init
PASST=${PASST:-$(dirname "$PASTA")/passt}
plan 28

NS_PORT=9000		# the server in the namespace
FWD_PORT=19000		# forwarded to it by the rules under test
STEADY_PORT=19001	# forwarded all along, hammered during updates

topo_create; ok $? "topology created" || done_testing

# start_ctl NAME PASTA [OPTS...] - pasta with -c $S/ctl.sock and httpd.py
# in its namespace on NS_PORT; sets S, SPID_PASTA
start_ctl() {
	local name=$1 bin=$2
	shift 2
	S=$WORK/u/$name
	mkdir -m 0777 "$S"
	echo "$name" >"$S/ns.txt"
	PASTA=$bin pasta_bg "$name" 300 -P "$S/pasta.pid" -c "$S/ctl.sock" \
		-t "$STEADY_PORT:$NS_PORT" -u none -T none -U none "$@" -- \
		"$TESTDIR/ns-server.sh" "$S" 290 "$PY" "$TESTDIR/httpd.py" \
		--bind :: --port "$NS_PORT" --dir "$S" \
		--pidfile "$S/server.pid"
	SPID_PASTA=$BG_PID
	wait_file "$S/ready" 15 && wait_file "$S/pasta.pid" 5 &&
		[ -S "$S/ctl.sock" ]
}

# fetch ADDR PORT - what R gets from H:PORT, "" if nothing
fetch() {
	in_r curl -sS -g --max-time 5 "http://$(url_host "$1"):$2/ns.txt" \
		2>/dev/null
}

# pairing CLIENT SERVER - one client against the pasta in $S
pairing() {
	local cl=$1 srv=$2 sock=$S/ctl.sock out want

	out=$(pesto_as "$cl" "$sock" 2>&1)
	want=$(printf '%s\n' "passt/pasta configuration ($sock)" "  HOST" \
		"    TCP [*]:$STEADY_PORT  =>  $NS_PORT " "  SPLICE")
	is "$out" "$want" "$cl pesto, $srv pasta: shows the tables in upstream's layout"

	pesto_as "$cl" --add -t "0.0.0.0/$FWD_PORT:$NS_PORT" \
		-t "[::]/$FWD_PORT:$NS_PORT" "$sock" >"$WORK/add.out" 2>&1 &&
		[ "$(fetch "$H_ADDR" "$FWD_PORT")" = "$srv" ] &&
		[ "$(fetch "$H_ADDR6" "$FWD_PORT")" = "$srv" ]
	ok $? "$cl pesto, $srv pasta: --add -t 0.0.0.0/$FWD_PORT -t [::]/$FWD_PORT (Podman 6): R reaches the namespace on both families" ||
		{ diag_file "$WORK/add.out"; diag_file "$WORK/$srv.err"; }

	out=$(pesto_as "$cl" "$sock" 2>&1 | grep -c "$FWD_PORT  =>  $NS_PORT")
	is "$out" 2 "$cl pesto, $srv pasta: both rules shown"

	pesto_as "$cl" -D -t "0.0.0.0/$FWD_PORT:$NS_PORT" \
		-t "[::]/$FWD_PORT:$NS_PORT" "$sock" >"$WORK/del.out" 2>&1 &&
		[ -z "$(fetch "$H_ADDR" "$FWD_PORT")" ] &&
		[ "$(fetch "$H_ADDR" "$STEADY_PORT")" = "$srv" ]
	ok $? "$cl pesto, $srv pasta: -D removes them, port $STEADY_PORT stays" ||
		diag_file "$WORK/del.out"
}

# hammer ADDR PORT SECS STOPFILE - connect to ADDR:PORT from R again and
# again until STOPFILE appears (at most SECS): prints "ok refused"
hammer() {
	in_r timeout 60 "$PY" - "$@" <<'EOF'
import os, socket, sys, time
addr, port, secs, stop = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
good = bad = 0
end = time.time() + secs
while time.time() < end and not os.path.exists(stop):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(2)
    try:
        s.connect((addr, port))
        good += 1
    except OSError:
        bad += 1
    s.close()
print(good, bad)
EOF
}

# updates WHICH N - N updates through WHICH pesto, other rules than the
# hammered one: prints the milliseconds they took
updates() {
	local which=$1 n=$2 i t0
	t0=$(now_ms)
	for i in $(seq 1 $((n / 2))); do
		pesto_as "$which" -A -t "0.0.0.0/$((FWD_PORT + 100))" "$S/ctl.sock" &&
			pesto_as "$which" -D -t "0.0.0.0/$((FWD_PORT + 100))" \
				"$S/ctl.sock" || return 1
	done >/dev/null 2>&1
	echo "$(( ($(now_ms) - t0) ))"
}

# hammered_updates WHICH - 100 updates through WHICH pesto while R connects
# to STEADY_PORT again and again: sets MS, GOOD (connections accepted) and
# BAD (refused)
hammered_updates() {
	local hpid
	rm -f "$WORK/stop"
	hammer "$H_ADDR" "$STEADY_PORT" 50 "$WORK/stop" >"$WORK/hammer.out" &
	hpid=$!
	sleep 0.5
	MS=$(updates "$1" 100)
	touch "$WORK/stop"; wait "$hpid"
	read -r GOOD BAD <"$WORK/hammer.out"
}

# --- 1. our pasta, both pestos ----------------------------------------------
start_ctl ours "$PASTA"
ok $? "our pasta -c $S/ctl.sock running" || { diag_file "$WORK/ours.err"; done_testing; }
OURS=$S
pairing ours ours
if [ -n "$UP_ROOT" ]; then
	pairing upstream ours
else
	not_run 4 "upstream's pesto against our pasta"
fi

# --- 2. what we do better ---------------------------------------------------
hammered_updates ours
[ -n "$MS" ] && [ "${BAD:-1}" = 0 ] && [ "${GOOD:-0}" -gt 0 ]
ok $? "100 updates of other rules in ${MS:-?} ms: connections to port $STEADY_PORT meanwhile: ${GOOD:-?} accepted, ${BAD:-?} refused (want 0)"

pesto_as ours -A -t "$STEADY_PORT:$NS_PORT" "$OURS/ctl.sock" >"$WORK/again.out" 2>&1
ok $? "adding a rule that exists: no error" || diag_file "$WORK/again.out"
if [ -n "$UP_ROOT" ]; then
	pesto_as upstream -A -t "$STEADY_PORT:$NS_PORT" "$OURS/ctl.sock" >/dev/null 2>&1
	diag "upstream's pesto, the same: exit status $? (it refuses it, podman issue 29032)"
fi

out=$(pesto_as ours -A -t "0.0.0.0/$STEADY_PORT" "$OURS/ctl.sock" 2>&1)
[ $? = 1 ] && echo "$out" | grep -q "Forwarding configuration conflict: TCP \[0.0.0.0\]:$STEADY_PORT  =>  $STEADY_PORT  versus TCP \[\*\]:$STEADY_PORT  =>  $NS_PORT "
ok $? "a conflicting rule: refused by pesto, in upstream's words" || diag "$out"

out=$(pesto_as ours -A -T "127.0.0.1/$FWD_PORT:192.0.2.9/80" "$OURS/ctl.sock" 2>&1)
[ $? = 1 ] && echo "$out" | grep -q "refused the update: Target address not supported for -T and -U"
ok $? "a target address for -T: refused by pasta with its reason" || diag "$out"

# A client that connects and says nothing: a transfer goes on, the next
# client waits until it is dropped (5 s), then is served
docs_random big.bin 64M >/dev/null
cp "$DOCS/big.bin" "$OURS/big.bin"
grep -c "Accepted configuration client" "$WORK/ours.err" >"$WORK/accepted.n"
in_h timeout 20 "$PY" -c "
import socket, time
s = socket.socket(socket.AF_UNIX); s.connect('$OURS/ctl.sock'); time.sleep(8)" &
silent=$!
accepted_more() {
	[ "$(grep -c "Accepted configuration client" "$WORK/ours.err")" -gt \
	  "$(cat "$WORK/accepted.n")" ]
}
_poll 5 accepted_more
t0=$(now_ms)
in_r curl -sS --max-time 20 -o "$WORK/dl.bin" "http://$H_ADDR:$STEADY_PORT/big.bin"
rc=$?; t=$(($(now_ms) - t0))
[ $rc = 0 ] && cmp -s "$WORK/dl.bin" "$DOCS/big.bin"
ok $? "a silent control client: a 64 MiB download meanwhile is intact (${t} ms)"
t0=$(now_ms)
out=$(pesto_as ours "$OURS/ctl.sock" 2>&1)
rc=$?; t=$(($(now_ms) - t0))
[ $rc = 0 ] && [ "$t" -lt 8000 ]
ok $? "the next client is served once the silent one is dropped (${t} ms, < 8 s)" || diag "$out"
kill "$silent" 2>/dev/null; wait "$silent" 2>/dev/null

chmod 0777 "$OURS/ctl.sock"
out=$(ip netns exec "$NS_H" setpriv --reuid=nobody --regid=nogroup --clear-groups \
	timeout 10 "$PESTO" -A -t 19500 "$OURS/ctl.sock" 2>&1)
rc=$?
[ $rc = 1 ] && ! pesto_as ours "$OURS/ctl.sock" | grep -q 19500 &&
	grep -q "refused: UID" "$WORK/ours.err"
ok $? "another user (nobody) can't change the rules (exit $rc), pasta logs it" || diag "$out"

# Garbage after the greeting: a table we don't have, a rule with protocol 1
hostile() {
	as_user_h 10 "$PY" - "$OURS/ctl.sock" "$1" <<'EOF'
import socket, struct, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.settimeout(3)
data = b''
while not data.endswith(b'\0') or len(data) < 21:
    d = s.recv(65536)
    if not d: break
    data += d
rule = bytes(48) + struct.pack('>HHH', 1, 1, 1) + bytes([1, 0])
msg = {'table': b'\x07\x00\x00\x00\x01' + rule + b'\0',
       'proto': b'\x01\x00\x00\x00\x01' + rule + b'\0',
       'count': b'\x01\xff\xff\xff\xff'}[sys.argv[2]]
s.sendall(msg)
try:
    print(s.recv(1000).decode().strip())
except OSError as e:
    print(e)
EOF
}
before=$(pesto_as ours "$OURS/ctl.sock")
replies=
for k in table proto count; do
	replies="$replies | $(hostile $k 2>&1)"
done
[ "$(pesto_as ours "$OURS/ctl.sock")" = "$before" ] && kill -0 "$SPID_PASTA" &&
	[ "$replies" = " | no forwarding table 7 | rule with protocol 1 | HOST table with too many rules" ]
ok $? "garbage on the control socket: refused with a reason each, rules unchanged, pasta running" ||
	diag "$replies"
n=$(grep -c "Forwarding rule" "$WORK/ours.err")
diag "pasta logged $n rule changes"
finish_ns_server "$SPID_PASTA" "$OURS" ours

# --- 3. upstream's pasta: our pesto, and the figure beside ours -------------
if [ -n "$UP_ROOT" ]; then
	start_ctl upstream "$UP_PASTA"
	ok $? "upstream's pasta -c running" || diag_file "$WORK/upstream.err"
	pairing ours upstream
	hammered_updates upstream
	diag "upstream's pasta, 100 updates in ${MS:-?} ms: connections to port $STEADY_PORT meanwhile: ${GOOD:-?} accepted, ${BAD:-?} refused"
	finish_ns_server "$SPID_PASTA" "$S" upstream
else
	not_run 6 "upstream's pasta"
fi

# --- 4. passt: the control socket before a guest is there -------------------
P=$WORK/u/passt; mkdir -m 0777 "$P"
_user_prefix
timeout -k 5 30 "${_UP[@]}" "$PASST" -f -s "$P/q.sock" -c "$P/ctl.sock" \
	-t none >"$WORK/passt.out" 2>&1 </dev/null &
ppid=$!
_PGIDS+=("$ppid")
_poll 5 test -S "$P/ctl.sock"
out=$(pesto_as ours -A -t "$((FWD_PORT + 2))" "$P/ctl.sock" 2>&1) &&
	out=$(pesto_as ours "$P/ctl.sock" 2>&1) &&
	echo "$out" | grep -q "TCP \[\*\]:$((FWD_PORT + 2))  =>  $((FWD_PORT + 2)) " &&
	! echo "$out" | grep -q SPLICE && wait_tcp "$NS_H" "$((FWD_PORT + 2))" 5
ok $? "passt -c: rules added and listening before any guest connects, no SPLICE table" ||
	{ diag "$out"; diag_file "$WORK/passt.out"; }
out=$(pesto_as ours -A -t 30000-30010,auto "$P/ctl.sock" 2>&1)
[ $? = 1 ] && echo "$out" | grep -q "for pasta only"
ok $? "passt refuses \"auto\" rules: no other side to scan" || diag "$out"
kill_pid "$ppid"
[ ! -e "$P/ctl.sock" ]
ok $? "passt removes its control socket at exit"
done_testing
