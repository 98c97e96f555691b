#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A guest application that stops reading keeps its connection: a receiver
# in pasta's namespace reads 1 MiB of an 8 MiB upload from R (through -t)
# and then nothing for ZERO_WINDOW_PAUSE seconds, so our window to it stays
# closed and we probe it, with back-off; it answers every probe, so nothing
# is reset, and once it reads again the whole stream arrives intact.
#
# 30 s by default (seven probes): that the answered probes never count
# toward TCP_RETRIES_MAX, which takes about 222 s to reach, test/unit_tcp.c
# checks on a virtual clock. `make load` runs this with 300 s, well past
# the limit in real time: about five minutes.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 3

PAUSE=${ZERO_WINDOW_PAUSE:-30}
PORT=8093
topo_create; ok $? "topology created" || done_testing
use_family 4
make_random "$WORK/u/zw.bin" 8
want=$(sha "$WORK/u/zw.bin")

S=$WORK/u/zw; mkdir -m 0777 "$S"
pasta_bg zw $((PAUSE + 120)) -t "$PORT" -- "$TESTDIR/ns-server.sh" "$S" \
	$((PAUSE + 100)) "$PY" "$TESTDIR/slowsink.py" --bind 0.0.0.0 \
	--port "$PORT" --first $((1 << 20)) --pause "$PAUSE" \
	--pidfile "$S/server.pid"
pasta=$BG_PID
wait_file "$S/ready" 15
ok $? "receiver in the namespace, pausing ${PAUSE} s after 1 MiB" ||
	{ diag_file "$WORK/zw.err"; done_testing; }
wait_tcp "$NS_H" "$PORT" 10

in_r timeout -k 5 $((PAUSE + 60)) "$PY" "$TESTDIR/slowsink.py" \
	--send "$WORK/u/zw.bin" --to "$H" --port "$PORT" \
	--timeout $((PAUSE + 50)) >"$WORK/zw-send.out" 2>"$WORK/zw-send.err"
got_sha='' got_len=''
read -r got_sha got_len _ < "$WORK/zw-send.out"
is "$got_sha $got_len" "$want $((8 << 20))" \
	"after ${PAUSE} s of a closed window, all 8 MiB arrive intact" ||
	{ diag_file "$WORK/zw-send.err"; diag_file "$WORK/zw.err"; }
touch "$S/done"
wait "$pasta"
done_testing
