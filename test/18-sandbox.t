#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The sandbox, as the loop runs, in every way we get started: passt as root
# and as a user, pasta as root and rootless. Each has its own mount, IPC and
# UTS namespaces, an empty read-only tmpfs for a root, no_new_privs, and the
# seccomp filter on (Seccomp: 2); what still needs a path works through the
# directories opened before: passt still removes its socket file at exit
# (test/56: pasta still exits when its --netns file goes). That
# every path of the loop runs under the release filter is shown by the
# other tests, which make check runs against ./pasta and ./passt (the table
# in test/README.md names each path's): a system call outside the list ends
# the daemon with its number logged.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
PASST=${PASST:-$(dirname "$PASTA")/passt}
[ -x "$PASST" ] || skip_all "no passt binary at $PASST"
plan 10

topo_create; ok $? "topology created" || done_testing

# status_of PID FIELD - a field of /proc/PID/status
status_of() { sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status"; }
# filtered PID - once the filter is on, set-up is over
filtered() { _poll 10 sh -c "grep -q '^Seccomp:[[:space:]]*2' /proc/$1/status"; }

# sandboxed NAME PID - one test: the state of the sandbox of PID
sandboxed() {
	local name=$1 pid=$2 ns bad=""

	filtered "$pid" || bad="$bad seccomp:$(status_of "$pid" Seccomp)"
	[ "$(status_of "$pid" NoNewPrivs)" = 1 ] || bad="$bad no_new_privs"
	for ns in mnt ipc uts; do
		[ "$(readlink "/proc/$pid/ns/$ns")" != "$(readlink "/proc/self/ns/$ns")" ] ||
			bad="$bad same-$ns"
	done
	[ -z "$(ls -A "/proc/$pid/root/" 2>&1)" ] || bad="$bad root-not-empty"
	[ "$(stat -f -c %T "/proc/$pid/root/")" = tmpfs ] || bad="$bad root-not-tmpfs"
	touch "/proc/$pid/root/x" 2>/dev/null && bad="$bad root-writable"
	[ -z "$bad" ]
	ok $? "$name: own mount/IPC/UTS namespaces, empty read-only root, no_new_privs, seccomp filter${bad:+ (wrong:$bad)}"
}

bg_h passt-root "$PASST" -f -s "$WORK/p.sock"
sandboxed "passt as root" "$BG_PID"
kill_pid "$BG_PID"

_user_prefix
"${_UP[@]}" "$PASST" -f -s "$WORK/u/p.sock" >"$WORK/passt-user.log" 2>&1 &
pu=$!
_PGIDS+=("$pu")
_poll 10 test -S "$WORK/u/p.sock"
sandboxed "passt as $TEST_USER" "$pu"
kill "$pu"
wait_gone "$pu" 5
ok $? "passt as $TEST_USER: exits on SIGTERM" || diag_file "$WORK/passt-user.log"
[ ! -e "$WORK/u/p.sock" ]
ok $? "passt as $TEST_USER: its socket file removed at exit, from inside the sandbox"

S=$WORK/u/srv; mkdir -m 0777 "$S"
bg_h pasta-root timeout -k 5 60 "$PASTA" --config-net --runas "$TEST_USER" \
	-P "$WORK/pasta.pid" -- sleep 30
_poll 10 test -s "$WORK/pasta.pid"
pid=$(cat "$WORK/pasta.pid")
sandboxed "pasta as root" "$pid"
kill_pid "$BG_PID"

R=$WORK/u/rl; mkdir -m 0777 "$R"
echo "in the namespace" >"$R/f.txt"
pasta_bg rl 40 -t 8098 -T none -U none -u none --host-lo-to-ns-lo \
	-P "$R/pasta.pid" -- \
	"$TESTDIR/ns-server.sh" "$R" 30 "$PY" "$TESTDIR/httpd.py" \
	--bind 127.0.0.1 --port 8098 --dir "$R" --pidfile "$R/server.pid"
rl=$BG_PID
wait_file "$R/ready" 15
pid=$(cat "$R/pasta.pid")
sandboxed "rootless pasta" "$pid"
got=$(in_h curl -sS --max-time 10 http://127.0.0.1:8098/f.txt 2>&1)
is "$got" "in the namespace" "rootless pasta, sandboxed: H's loopback spliced to the namespace's (setns() under the filter)"
finish_ns_server "$rl" "$R" rl

! grep -q "seccomp" "$WORK"/*.log "$WORK"/*.err 2>/dev/null
ok $? "no system call refused by the filter in any of these runs" ||
	grep -h "seccomp" "$WORK"/*.log "$WORK"/*.err | head -5 | while read -r l; do diag "$l"; done

done_testing
