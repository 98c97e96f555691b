#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pasta exits with its COMMAND's exit status and leaves nothing behind; the
# command starts with default signal dispositions (SIGPIPE not ignored):
# after it returns, its PID is gone and no process of the test user from
# this run is left (read with pgrep, each one checked for this run's
# environment marker, see our_procs in lib.sh; nothing is killed by name).

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 11

topo_create; ok $? "topology created" || done_testing

no_leftovers() { [ -z "$(our_procs)" ]; }

pasta_run exit7 20 -- sh -c 'exit 7'
is "$?" 7 "-- sh -c 'exit 7' gives exit status 7" || diag_file "$WORK/exit7.err"

pasta_run exit0 20 -- true
is "$?" 0 "-- true gives exit status 0" || diag_file "$WORK/exit0.err"

# A writer to a closed pipe dies of SIGPIPE (141), unless it was ignored
pasta_run pipe 20 -- bash -c 'yes | head -c 1 >/dev/null; echo ${PIPESTATUS[0]}'
is "$(cat "$WORK/pipe.out")" 141 "the command's SIGPIPE is not ignored" ||
	diag_file "$WORK/pipe.err"

# A command that waits for our signal, so that pasta's PID can be read
# while it runs; then the same checks after it ends.
D=$WORK/u/ex; mkdir -m 0777 "$D"
pidfile=$D/pasta.pid
opts=(); [ "$PASTA_DIRECT" = 1 ] || opts=(-P "$pidfile")
pasta_bg exit3 30 "${opts[@]}" -- sh -c \
	'echo $$ >"$1/cmd.tmp" && mv "$1/cmd.tmp" "$1/cmd.pid"
	 i=0; while [ ! -e "$1/go" ] && [ $i -lt 200 ]; do i=$((i+1)); sleep 0.1; done
	 exit 3' sh "$D"
bg=$BG_PID
wait_file "$D/cmd.pid" 15
ok $? "command started" || diag_file "$WORK/exit3.err"
pid=$(pgrep -P "$bg" | head -n1)	# timeout's child: pasta itself
if [ "$PASTA_DIRECT" = 1 ]; then
	ok 0 "pasta wrote its PID with -P # SKIP PASTA_DIRECT=1"
else
	wait_file "$pidfile" 5
	is "$(tr -d ' \n' <"$pidfile" 2>/dev/null)" "$pid" "pasta wrote its PID ($pid) with -P"
fi
running=$(our_procs)
[ -n "$running" ]
ok $? "processes of this run are visible while it runs" || diag "$(pgrep -u "$TEST_USER" -a)"
diag "while running:" "$running"

touch "$D/go"
if wait_gone "$bg" 15; then
	wait "$bg"
	rc=$?
else
	rc="still running 15 s after the command ended"
fi
is "$rc" 3 "exit status 3 of a longer-running command propagates" ||
	diag_file "$WORK/exit3.err"

[ -n "$pid" ] && wait_gone "$pid" 5
ok $? "pasta's PID ${pid:-?} is gone"

wait_gone "$(cat "$D/cmd.pid" 2>/dev/null || echo 0)" 5 2>/dev/null
ok $? "the command's process is gone"

_poll 5 no_leftovers
if ! ok $? "no process of $TEST_USER from this run is left"; then
	diag "$(our_procs)"
fi
done_testing
