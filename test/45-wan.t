#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Through the delay line (test/delayline, 1 Gbit/s): 64 MiB downloads and
# uploads at 50 ms RTT arrive intact; a receiver that stops reading for 5 s
# loses nothing and the rest follows; with 1% random loss on the line a
# transfer still completes intact. Speeds are the benchmark's business
# (make bench): here only completion, within generous bounds, and data.

. "$(dirname "$0")/lib.sh"
. "$TESTDIR/bench-lib.sh"
lib_init
need_pasta
[ -x "$DL" ] || skip_all "test/delayline not built"
plan 9

PORT=8000
SINK=9000
SRV=$WORK/srv; mkdir -p "$SRV"
make_random "$SRV/big.bin" 64
want=$(sha "$SRV/big.bin")
cp "$SRV/big.bin" "$WORK/u/up.bin"

bench_topo_create 50; ok $? "H and R joined by the delay line, 50 ms" ||
	done_testing
start_httpd "$NS_R" "$SRV_ADDR" "$PORT" "$SRV" httpd
ok $? "server listening on $SRV_ADDR:$PORT in R" || done_testing

pasta_run dl 120 -- curl -sS --max-time 100 -o "$WORK/u/dl.bin" \
	"http://$SRV_ADDR:$PORT/big.bin"
is "$(sha "$WORK/u/dl.bin" 2>/dev/null)" "$want" "64 MiB download at 50 ms, sha256 matches" ||
	diag_file "$WORK/dl.err"

pasta_run up 120 -- curl -sS --max-time 100 -T "$WORK/u/up.bin" \
	"http://$SRV_ADDR:$PORT/up.bin"
is "$(sha "$SRV/up.bin" 2>/dev/null)" "$want" "64 MiB upload at 50 ms, sha256 matches" ||
	diag_file "$WORK/up.err"

# The receiver stops for 5 s after 4 MiB: the host socket and then our
# window to the guest fill up; nothing may be lost when it resumes.
bg_r sink "$PY" "$TESTDIR/slowsink.py" --bind "$SRV_ADDR" --port "$SINK" \
	--first $((4 << 20)) --pause 5 --pidfile "$WORK/sink.pid"
wait_file "$WORK/sink.pid" 10 || diag "slow sink did not start"
pasta_run slow 120 -- "$PY" "$TESTDIR/slowsink.py" --send "$WORK/u/up.bin" \
	--to "$SRV_ADDR" --port "$SINK" --timeout 100
read -r got_sha got_len rest_s _ < "$WORK/slow.out"
is "$got_sha $got_len" "$want $((64 << 20))" \
	"a receiver pausing 5 s loses nothing" || diag_file "$WORK/slow.err"
diag "after the pause, the remaining 60 MiB took ${rest_s:-?} s"

bench_topo_destroy
BENCH_DL_OPTS="--loss-permille 10 --seed 7" bench_topo_create 50
ok $? "delay line again, 50 ms, 1% random loss" || done_testing
start_httpd "$NS_R" "$SRV_ADDR" "$PORT" "$SRV" httpd2
ok $? "server listening again" || done_testing

head -c $((16 << 20)) "$SRV/big.bin" >"$SRV/mid.bin"
pasta_run lossdl 120 -- curl -sS --max-time 100 -o "$WORK/u/mid.bin" \
	"http://$SRV_ADDR:$PORT/mid.bin"
is "$(sha "$WORK/u/mid.bin" 2>/dev/null)" "$(sha "$SRV/mid.bin")" \
	"16 MiB download with 1% loss, sha256 matches" || diag_file "$WORK/lossdl.err"

pasta_run lossup 120 -- curl -sS --max-time 100 -T "$WORK/u/mid.bin" \
	"http://$SRV_ADDR:$PORT/midup.bin"
is "$(sha "$SRV/midup.bin" 2>/dev/null)" "$(sha "$SRV/mid.bin")" \
	"16 MiB upload with 1% loss, sha256 matches" || diag_file "$WORK/lossup.err"
done_testing
