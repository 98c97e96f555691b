#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 79-passt-repair.t - passt-repair, migration's privileged helper, against
# passt's side of its protocol (test/repairpeer.py), in H: the byte 1, 0
# and -1 with three TCP sockets, echoed, TCP_REPAIR set and cleared on
# them; 253 sockets at once; a bad request closes the connection (exit 1);
# passt closing it ends the helper (exit 0); a PATH that is a directory: it
# waits for a *.repair socket there (ours: one moved there, listening); without CAP_NET_ADMIN (as the test
# user) the first request closes the connection, nothing set, exit 1. The
# same for upstream's passt-repair (Debian unstable's, test/upstream), where cached:
# the two speak one protocol.

. "$(dirname "$0")/lib.sh"
lib_init
REPAIR=${REPAIR:-$TOPDIR/passt-repair}
[ -x "$REPAIR" ] || skip_all "$REPAIR not built"
helpers=(ours)
test/upstream passt-repair 2>/dev/null; [ $? -ne 127 ] && helpers+=(upstream)
plan $((1 + 12 * ${#helpers[@]}))

topo_create; ok $? "topology created" || done_testing

# helper NAME ARGS... - run NAME's passt-repair in H, bounded
helper() {
	local name=$1
	shift
	if [ "$name" = ours ]; then
		in_h timeout 30 "$REPAIR" "$@"
	else
		in_h timeout 30 "$TESTDIR/upstream" passt-repair "$@"
	fi
}

# peer NAME SOCK [OPTS...] - repairpeer.py on SOCK in the background
peer() {
	local name=$1 sock=$2
	shift 2
	rm -f "$WORK/$name.pid"
	bg_h "$name" "$PY" "$TESTDIR/repairpeer.py" "$sock" \
		--pidfile "$WORK/$name.pid" "$@"
	PEER_PID=$BG_PID
}

# checks NAME FILE - one test per "ok|fail NAME DETAIL" line of FILE
checks() {
	local h=$1 res name detail
	while read -r res name detail; do
		case $res in
		ok|fail) ok "$([ "$res" = ok ] && echo 0 || echo 1)" \
			    "$h: $name${detail:+: $detail}" ;;
		esac
	done <"$2"
}

for h in "${helpers[@]}"; do
	peer "peer-$h" "$WORK/$h.repair"
	wait_file "$WORK/peer-$h.pid" 10
	helper "$h" "$WORK/$h.repair" 2>"$WORK/$h.err"
	is "$?" 1 "$h: a bad request: the helper exits 1" || diag_file "$WORK/$h.err"
	wait "$PEER_PID"
	checks "$h" "$WORK/peer-$h.log"

	peer "one-$h" "$WORK/$h-one.repair" --just-one
	wait_file "$WORK/one-$h.pid" 10
	helper "$h" "$WORK/$h-one.repair" 2>"$WORK/$h-one.err"
	is "$?" 0 "$h: passt closes the connection: the helper exits 0" ||
		diag_file "$WORK/$h-one.err"
	wait "$PEER_PID"
	checks "$h" "$WORK/one-$h.log"

	mkdir -p "$WORK/dir-$h"
	helper "$h" "$WORK/dir-$h" 2>"$WORK/$h-dir.err" &
	hpid=$!
	sleep 0.5
	if [ "$h" = ours ]; then
		# Listening before it appears there: moved in (upstream's
		# watches for files created there only)
		peer "dir-$h" "$WORK/dir-$h.sock" --just-one
		wait_file "$WORK/dir-$h.pid" 10
		mv "$WORK/dir-$h.sock" "$WORK/dir-$h/passt.sock.repair"
	else
		peer "dir-$h" "$WORK/dir-$h/passt.sock.repair" --just-one
	fi
	wait "$hpid"
	is "$?" 0 "$h: a directory: it waits for the *.repair socket, then serves it" ||
		diag_file "$WORK/$h-dir.err"
	wait "$PEER_PID"

	peer "user-$h" "$WORK/user-$h.repair" --expect-refusal
	wait_file "$WORK/user-$h.pid" 10
	chmod 777 "$WORK/user-$h.repair"
	if [ "$h" = ours ]; then
		as_user_h 30 "$REPAIR" "$WORK/user-$h.repair" 2>"$WORK/$h-user.err"
	else
		as_user_h 30 "$TESTDIR/upstream" passt-repair \
			"$WORK/user-$h.repair" 2>"$WORK/$h-user.err"
	fi
	rc=$?
	# Upstream's (2026-10-02) is killed by its own seccomp filter there
	# (SIGSYS, 159): a failure all the same
	if [ "$h" = ours ]; then
		is "$rc" 1 "$h: without CAP_NET_ADMIN: exits 1"
	else
		[ "$rc" -ne 0 ]
		ok $? "$h: without CAP_NET_ADMIN: fails (exit status $rc)"
	fi || diag_file "$WORK/$h-user.err"
	wait "$PEER_PID"
	checks "$h" "$WORK/user-$h.log"
done
done_testing
