#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/bench-slowreader.sh - a remote receiver that stops reading for 5 s:
# does each tool lose nothing, and how soon and how fast does it resume?
#
# Usage, as root from the top directory after `make` and make test/delayline:
#
#   test/bench-slowreader.sh     table on stdout and in $BENCH_SLOW_OUT
#
# Topology: bench-lib.sh's H and R through the delay line, BENCH_SLOW_RTT ms
# RTT, 1 Gbit/s, CUBIC in H and R.  For each run and each tool in
# BENCH_TOOLS (host = no translator): test/slowsink.py serves on
# 198.51.100.1 in R, reads 4 MiB, stops reading for 5 s (the host socket's
# buffer fills, then the tool's window to its guest closes), then reads the
# rest; the client in the tool's namespace sends a 64 MiB file with
# slowsink.py --send.  Recorded: whether the sha256 and length of what the
# server got match, the seconds the remaining 60 MiB took after the pause
# (queued data included; compared with the host's own TCP, it tells whether
# the transfer went on at full speed), and the seconds after the pause until
# the first byte beyond what had queued up during it (how soon the window
# to the client reopened).  Each transfer is bounded (slowsink's own 100 s
# timeout, the tool run 120 s).
#
# Environment (defaults in brackets):
#   BENCH_SLOW_RTT        RTT in ms [50]
#   BENCH_SLOW_RUNS       runs per tool [3]
#   BENCH_TOOLS           ["host ours ours-bypass debian-pasta slirp4netns"]
#   BENCH_SLOW_OUT        markdown report [/tmp/bench-slowreader.md]
#   BENCH_LOCK, BENCH_LOCK_WAIT  as bench.sh: one bench at a time
#   PASTA, DEBIAN_PASTA, SLIRP, DELAYLINE  as bench.sh
#
# Exit status: 0 if every transfer of ours arrived intact.

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

RTT=${BENCH_SLOW_RTT:-50}
RUNS=${BENCH_SLOW_RUNS:-3}
TOOLS=${BENCH_TOOLS:-host ours ours-bypass debian-pasta slirp4netns}
OUT=${BENCH_SLOW_OUT:-/tmp/bench-slowreader.md}
BENCH_LOCK=${BENCH_LOCK:-/tmp/pasta-bench.lock}
BENCH_LOCK_WAIT=${BENCH_LOCK_WAIT:-5400}
PORT=5301
FIRST=$((4 << 20))
PAUSE=5
SIZE_MIB=64

die() { echo "bench-slowreader.sh: $*" >&2; exit 1; }
say() { echo "# $*" >&2; }

[ "$(id -u)" = 0 ] || die "must run as root"
[ -x "$DL" ] || die "$DL not built (make test/delayline)"
exec 9>>"$BENCH_LOCK"
flock -w "$BENCH_LOCK_WAIT" 9 || die "another bench run holds $BENCH_LOCK"

lib_init >/dev/null
make_random "$WORK/u/up.bin" "$SIZE_MIB"
chmod 0644 "$WORK/u/up.bin"
want="$(sha "$WORK/u/up.bin") $((SIZE_MIB << 20))"

bench_topo_create "$RTT" || die "topology at $RTT ms"
bench_sysctls cubic || die "sysctls"

RESULTS=$WORK/slow.tsv
: >"$RESULTS"
for run in $(seq "$RUNS"); do
	for tool in $TOOLS; do
		tool_ok "$tool" || { [ "$run" = 1 ] && say "$tool not installed"; continue; }
		name=slow-$tool-$run
		rm -f "$WORK/$name.pid"
		bg_r "$name-sink" "$PY" "$TESTDIR/slowsink.py" --bind "$SRV_ADDR" \
			--port "$PORT" --first "$FIRST" --pause "$PAUSE" \
			--timeout 100 --pidfile "$WORK/$name.pid"
		sink=$BG_PID
		wait_file "$WORK/$name.pid" 10 || say "$name: sink did not start"
		tool_run "$tool" "$name" 120 -- "$PY" "$TESTDIR/slowsink.py" \
			--send "$WORK/u/up.bin" --to "$SRV_ADDR" --port "$PORT" \
			--timeout 100
		rc=$?
		stop_child "$sink"
		got_sha='' got_len='' rest='' resumed=''
		read -r got_sha got_len rest resumed <"$WORK/$name.out"
		if [ "$got_sha $got_len" = "$want" ]; then
			status=intact
		elif [ -n "$got_len" ]; then
			status="corrupt: $got_len bytes, sha256 differs"
		else
			status="failed: exit $rc, $(grep -v '^ *$' "$WORK/$name.err" |
				tail -n 1 | cut -c1-80)"
		fi
		printf '%s\t%s\t%s\t%s\t%s\n' "$tool" "$run" "$status" \
			"${rest:--}" "${resumed:--}" >>"$RESULTS"
		say "$(printf '%-12s run %s: %s, rest %s s, resumed after %s s' \
			"$tool" "$run" "$status" "${rest:--}" "${resumed:--}")"
	done
done

"$PY" - "$RESULTS" "$RTT" "$RUNS" >"$OUT" <<'EOF'
import statistics, sys
path, rtt, runs = sys.argv[1], sys.argv[2], sys.argv[3]
rows = {}
for line in open(path):
    tool, run, status, rest, fs = line.rstrip("\n").split("\t")
    rows.setdefault(tool, []).append((status, rest, fs))

def cell(vals):
    nums = [float(v) for v in vals if v != "-"]
    if not nums:
        return "never"
    s = "%.2f (%.2f-%.2f)" % (statistics.median(nums), min(nums), max(nums))
    if len(nums) < len(vals):
        s += ", %d never" % (len(vals) - len(nums))
    return s

print("## Slow reader at %s ms\n" % rtt)
print("The remote receiver reads 4 MiB of a 64 MiB upload, stops reading for "
      "5 s, then reads the rest; %s runs per tool, medians (min-max), and the "
      "ratio of the medians to the host's. Resumed: seconds after the pause "
      "until the first byte beyond what had queued up during it "
      "(`test/bench-slowreader.sh`).\n" % runs)
print("| tool | intact | remaining 60 MiB, s | x host | resumed after, s | notes |")
print("|---|---|--:|--:|--:|---|")

def median(tool, k):
    nums = [float(x[k]) for x in rows.get(tool, []) if x[0] == "intact" and x[k] != "-"]
    return statistics.median(nums) if nums else None

host = median("host", 1)
for tool, r in rows.items():
    ok = [x for x in r if x[0] == "intact"]
    notes = "; ".join(sorted(set(x[0] for x in r if x[0] != "intact")))
    m = median(tool, 1)
    ratio = "%.2f" % (m / host) if m is not None and host else "-"
    print("| %s | %d/%d | %s | %s | %s | %s |" % (tool, len(ok), len(r),
                                                   cell([x[1] for x in ok]),
                                                   ratio,
                                                   cell([x[2] for x in ok]),
                                                   notes))
EOF
cat "$OUT"
! grep -q "^ours	[0-9]*	[cf]" "$RESULTS"
