#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Started as root: passt continues as nobody (or --runas USER) with no
# capabilities; pasta as the --runas user with only CAP_SYS_ADMIN,
# CAP_NET_ADMIN and CAP_NET_BIND_SERVICE, and splicing (which enters the
# namespace at run time) still works; rootless pasta keeps the same three
# in its user namespace; every one runs with no_new_privs; root of another
# user namespace ("unshare -r pasta --netns-only") stays as it is and works.
# -l: the log file
# starts with upstream's header line, "passt|pasta VERSION: EXE (PID)";
# --log-size: the file never grows past it, keeps that header (marked with
# the time of the cut) and whole lines after it; --stats DELAY logs the
# counters.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
PASST=${PASST:-$(dirname "$PASTA")/passt}
[ -x "$PASST" ] || skip_all "no passt binary at $PASST"
plan 15

topo_create; ok $? "topology created" || done_testing

# header_of NAME BINARY PID - the first line -l writes, as upstream's
header_of() { echo "$1 $("$2" --version | sed -n '1s/^[a-z]* //p'): $(readlink -f "$2") ($3)"; }
# status_of PID FIELD - a field of /proc/PID/status
status_of() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"; }
# wait_uid PID UID - until the process runs as UID (it switches after setup)
wait_uid() { _poll 10 sh -c "grep -q '^Uid:[[:space:]]*$2[[:space:]]' /proc/$1/status"; }

nobody=$(id -u nobody)
bg_h passt "$PASST" -f -s "$WORK/p.sock"
wait_uid "$BG_PID" "$nobody"
is "$(status_of "$BG_PID" Uid | cut -f1) $(status_of "$BG_PID" CapEff) $(status_of "$BG_PID" NoNewPrivs)" \
	"$nobody 0000000000000000 1" "passt as root: continues as nobody, no capabilities, no_new_privs"
kill_pid "$BG_PID"

uid=$(id -u "$TEST_USER") gid=$(id -g "$TEST_USER")
bg_h passt2 "$PASST" -f -s "$WORK/p2.sock" --runas "$TEST_USER" \
	-l "$WORK/p2.log" --stats 1
wait_uid "$BG_PID" "$uid"
is "$(status_of "$BG_PID" Uid | cut -f1) $(status_of "$BG_PID" Gid | cut -f1)" \
	"$uid $gid" "passt --runas $TEST_USER: that user and its group"
is "$(head -1 "$WORK/p2.log")" "$(header_of passt "$PASST" "$BG_PID")" \
	"passt -l: the first line names the program, version, path and PID"
_poll 5 grep -q "^flows: 0 in use" "$WORK/p2.log"
ok $? "--stats 1: the counters, logged within a few seconds" ||
	diag_file "$WORK/p2.log"
kill_pid "$BG_PID"

# pasta as root: a server on the namespace's loopback only, reached from
# H's loopback through -t with --host-lo-to-ns-lo, spliced (setns() at run
# time, as the new user)
S=$WORK/u/srv; mkdir -m 0777 "$S"; echo "in the namespace" >"$S/f.txt"
bg_h pasta timeout -k 5 60 "$PASTA" --config-net --runas "$TEST_USER" \
	-t 8097 -T none -U none -u none --host-lo-to-ns-lo \
	-P "$WORK/pasta.pid" -- \
	"$TESTDIR/ns-server.sh" "$S" 50 "$PY" "$TESTDIR/httpd.py" \
	--bind 127.0.0.1 --port 8097 --dir "$S" --pidfile "$S/server.pid"
wait_file "$S/ready" 15
pid=$(cat "$WORK/pasta.pid")
wait_uid "$pid" "$uid"
caps=$(status_of "$pid" CapEff)
is "$(status_of "$pid" Uid | cut -f1) $caps" "$uid 0000000000201400" \
	"pasta as root --runas: that user, CapEff only SYS_ADMIN, NET_ADMIN, NET_BIND_SERVICE"
got=$(in_h curl -sS --max-time 10 http://127.0.0.1:8097/f.txt 2>&1)
is "$got" "in the namespace" "pasta after the switch: H's loopback spliced to the namespace's"
finish_ns_server "$BG_PID" "$S" pasta

# Rootless pasta: root in its own user namespace only, three capabilities
R2=$WORK/u/rl; mkdir -m 0777 "$R2"
pasta_bg rl 30 -P "$R2/pasta.pid" -l "$R2/pasta.log" -- sleep 20
rl=$BG_PID
_poll 10 test -s "$R2/pasta.pid"
pid=$(cat "$R2/pasta.pid")
is "$(head -1 "$R2/pasta.log")" "$(header_of pasta "$PASTA" "$pid")" \
	"pasta -l: the first line names the program, version, path and PID"
_poll 10 sh -c "grep -q '^NoNewPrivs:[[:space:]]*1' /proc/$pid/status"
is "$(status_of "$pid" CapEff) $(status_of "$pid" NoNewPrivs)" \
	"0000000000201400 1" "rootless pasta: CapEff only SYS_ADMIN, NET_ADMIN, NET_BIND_SERVICE, no_new_privs"
kill_pid "$rl"

# Root of a user namespace that isn't the initial one ("unshare -r"): no
# switch to nobody (unmapped there), as upstream; it runs, a download
# through it works, and it exits with the command's status, 0
want=$(docs_random nsonly.bin 256K)
start_httpd "$NS_R" "$SRV_ADDR" 8098 "$DOCS" nsonly-httpd
t0=$(now_ms)
as_user_h 40 unshare -r "$PASTA" --netns-only --config-net -- \
	curl -sS --max-time 20 -o "$WORK/u/nsonly.bin" \
	"http://$SRV_ADDR:8098/nsonly.bin" >"$WORK/nsonly.out" 2>"$WORK/nsonly.err"
rc=$?
is "$rc $(sha "$WORK/u/nsonly.bin" 2>/dev/null)" "0 $want" \
	"unshare -r pasta --netns-only as $TEST_USER: a 256 KiB download, exit 0 ($(($(now_ms) - t0)) ms)" ||
	diag_file "$WORK/nsonly.err"

# --log-size: a small limit, a log that would be ten times larger
L=$WORK/passt.log.file
echo "an older run's line" >"$L"
bg_h passt3 "$PASST" -f -d -s "$WORK/p3.sock" -l "$L" --log-size 4096
p3=$BG_PID
_poll 10 test -S "$WORK/p3.sock"
# Each SIGUSR1 logs some 150 bytes; signals sent at once would merge
for i in $(seq 100); do kill -USR1 "$p3"; sleep 0.01; done
sleep 0.3
kill_pid "$p3"
size=$(stat -c %s "$L")
[ "$size" -le 4096 ] && [ "$size" -ge 1024 ] &&
	! grep -q "Template interface" "$L"
ok $? "--log-size 4096: the log holds $size bytes, its first lines gone" ||
	diag "$(head -c 300 "$L")"
first=$(head -1 "$L") want="$(header_of passt "$PASST" "$p3") - log truncated at "
[[ $first == "$want"* && ${first#"$want"} =~ ^[0-9]+\.[0-9]{4}$ ]] &&
	! grep -q "older run" "$L"
ok $? "the header stays first, with the time of the cut; the older run's line gone" ||
	diag "$(head -c 300 "$L")"
sed -n 2p "$L" | grep -Eq '^[0-9]+\.[0-9]{4}: '
ok $? "after it the log goes on at a whole line" || diag "$(head -c 300 "$L")"
tail -1 "$L" | grep -q "Signal 15: exiting"
ok $? "the newest line is kept" || diag "$(tail -c 200 "$L")"
done_testing
