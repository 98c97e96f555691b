#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Through the delay line (test/delayline, 1 Gbit/s), over IPv4 and over
# IPv6: 64 MiB downloads and uploads at 50 ms RTT arrive intact; a receiver
# that stops reading for 5 s loses nothing and the rest follows; with 1%
# random loss on the line a transfer still completes intact. Speeds are
# the benchmark's business (make bench): here only completion, within
# generous bounds, and data.  The delay line forwards Ethernet frames of
# any protocol (its segment splitting knows IPv6), so both families share
# one line.

. "$(dirname "$0")/lib.sh"
. "$TESTDIR/bench-lib.sh"
lib_init
need_pasta
[ -x "$DL" ] || skip_all "test/delayline not built"
plan $((2 + 7 * NFAM))

PORT=8000
SINK=9000
want=$(docs_random big.bin 64M)
cp "$DOCS/big.bin" "$WORK/u/big.bin"
head -c $((16 << 20)) "$DOCS/big.bin" >"$DOCS/mid.bin"
cp "$DOCS/mid.bin" "$WORK/u/mid.bin"
want_mid=$(sha "$DOCS/mid.bin")

# get_put NAME FILE WANT SIZE HOW - download FILE into $WORK/u, upload
# $WORK/u/FILE: two tests ("SIZE download HOW"), both sha256 must be WANT
get_put() {
	local name=$1 file=$2 want=$3 size="$FAMNAME: $4" how=$5
	pasta_run "$name-dl$FAM" 120 -- curl "$IPV" -sS --max-time 100 \
		-o "$WORK/u/$name$FAM.bin" "$SRV_URL:$PORT/$file"
	is "$(sha "$WORK/u/$name$FAM.bin" 2>/dev/null)" "$want" \
		"$size download $how, sha256 matches" || diag_file "$WORK/$name-dl$FAM.err"
	rm -f "$WORK/u/$name$FAM.bin"

	pasta_run "$name-up$FAM" 120 -- curl "$IPV" -sS --max-time 100 \
		-T "$WORK/u/$file" "$SRV_URL:$PORT/$name-up$FAM.bin"
	is "$(sha "$DOCS/$name-up$FAM.bin" 2>/dev/null)" "$want" \
		"$size upload $how, sha256 matches" || diag_file "$WORK/$name-up$FAM.err"
	rm -f "$DOCS/$name-up$FAM.bin"
}

bench_topo_create 50; ok $? "H and R joined by the delay line, 50 ms" ||
	done_testing
for fam in $FAMILIES; do
	use_family "$fam"
	serve_fam "$PORT" "$DOCS" || { not_run 3 "$FAMNAME: 50 ms"; continue; }
	get_put big big.bin "$want" "64 MiB" "at 50 ms"

	# The receiver stops for 5 s after 4 MiB: the host socket and then our
	# window to the guest fill up; nothing may be lost when it resumes.
	bg_r "sink$FAM" "$PY" "$TESTDIR/slowsink.py" --bind "$SRV" --port "$SINK" \
		--first $((4 << 20)) --pause 5 --pidfile "$WORK/sink$FAM.pid"
	wait_file "$WORK/sink$FAM.pid" 10 || diag "slow sink did not start"
	pasta_run "slow$FAM" 120 -- "$PY" "$TESTDIR/slowsink.py" \
		--send "$WORK/u/big.bin" --to "$SRV" --port "$SINK" --timeout 100
	got_sha='' got_len='' rest_s=''
	read -r got_sha got_len rest_s _ < "$WORK/slow$FAM.out"
	is "$got_sha $got_len" "$want $((64 << 20))" \
		"$FAMNAME: a receiver pausing 5 s loses nothing" ||
		diag_file "$WORK/slow$FAM.err"
	diag "after the pause, the remaining 60 MiB took ${rest_s:-?} s"
done

bench_topo_destroy
BENCH_DL_OPTS="--loss-permille 10 --seed 7" bench_topo_create 50
ok $? "delay line again, 50 ms, 1% random loss" || done_testing
for fam in $FAMILIES; do
	use_family "$fam"
	serve_fam "$PORT" "$DOCS" -loss ||
		{ not_run 2 "$FAMNAME: 1% loss"; continue; }
	get_put mid mid.bin "$want_mid" "16 MiB" "with 1% loss"
done
done_testing
