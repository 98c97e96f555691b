#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Refused and unreachable destinations fail fast in pasta's namespace (an
# RST from pasta, not a hang), and pasta attaches to existing namespaces:
# by path (--netns, as root) and by PID (as the unprivileged user, whose
# user namespace pasta joins first). Attached, pasta goes to the background
# once ready and writes its PID file.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself"
plan 9

PORT=8000
SRV=$WORK/srv; mkdir -p "$SRV"
head -c 1048576 /dev/urandom >"$SRV/j.bin"
want=$(sha "$SRV/j.bin")

topo_create; ok $? "topology created" || done_testing
start_httpd "$NS_R" "$SRV_ADDR" "$PORT" "$SRV" httpd
ok $? "server listening on $SRV_ADDR:$PORT in R" || done_testing

# fails_fast NAME URL - curl must fail to connect (7) within 5 s
fails_fast() {
	local start=$SECONDS rc
	pasta_run "$1" 30 -- curl -sS --connect-timeout 20 -o /dev/null "$2"
	rc=$?
	[ "$rc" = 7 ] && [ $((SECONDS - start)) -le 5 ] && return 0
	diag "curl exit status $rc after $((SECONDS - start)) s"
	diag_file "$WORK/$1.err"
	return 1
}
fails_fast refused "http://$SRV_ADDR:9/"
ok $? "a refused connection fails at once (RST)"
# H has no way to 198.51.100.99: connect() fails with EHOSTUNREACH
in_h ip route add unreachable 198.51.100.99/32
fails_fast unreach "http://198.51.100.99:$PORT/"
ok $? "an unreachable destination fails at once (RST)"

# By path, as root: pasta daemonises once ready, PID file first
J=pt-j-$$
ip netns add "$J" && _NETNS+=("$J")
in_h timeout 20 "$PASTA" --config-net --netns "/run/netns/$J" -P "$WORK/j.pid"
ok $? "pasta --netns returns once ready"
jpid=$(cat "$WORK/j.pid" 2>/dev/null)
[ -n "$jpid" ] && _PIDS+=("$jpid")
out=$WORK/j.bin
timeout 30 ip netns exec "$J" curl -sS --max-time 20 -o "$out" \
	"http://$SRV_ADDR:$PORT/j.bin"
is "$(sha "$out" 2>/dev/null)" "$want" "namespace joined by path reaches the server"
kill -TERM "$jpid" 2>/dev/null
wait_gone "$jpid" 5
ok $? "pasta in the background exits on SIGTERM"
[ -n "$jpid" ] && kill_pid "$jpid"

# By PID, as the test user: a namespace of its own, then pasta PID
as_user_h 60 sh -c '
	unshare -rn sleep 30 & ns=$!
	i=0
	while [ "$(readlink /proc/$ns/ns/net)" = "$(readlink /proc/self/ns/net)" ] &&
	      [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	"$1" --config-net -P "$2/p.pid" "$ns" || exit 10
	nsenter -t "$ns" -U -n --preserve-credentials \
		curl -sS --max-time 20 -o "$2/p.bin" "$3"
	rc=$?
	kill "$(cat "$2/p.pid")" "$ns"
	exit $rc' sh "$PASTA" "$WORK/u" "http://$SRV_ADDR:$PORT/j.bin" \
	>"$WORK/pid.out" 2>"$WORK/pid.err"
rc=$?
ok $rc "pasta PID attaches to the user's namespace and runs in the background" ||
	diag_file "$WORK/pid.err"
is "$(sha "$WORK/u/p.bin" 2>/dev/null)" "$want" "namespace joined by PID reaches the server"
done_testing
