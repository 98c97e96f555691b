#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/bench-mtu.sh - throughput against the MTU of the translator's
# namespace: iperf3 at MTU 1500, 9000 and 65520, at 0 and 50 ms RTT
#
# Usage, as root from the top directory after `make` and
# `make test/delayline`:
#
#   test/bench-mtu.sh          full table on stdout and in $BENCH_MTU_OUT
#   test/bench-mtu.sh --quick  RTT 0 only, one run of 2 s per measurement;
#                              TAP output, asserts only that every
#                              measurement produced a rate at the MTU it
#                              asked for; writes no file unless
#                              BENCH_MTU_OUT is set (about 50 s on 2 vCPUs)
#
# Why: pasta's tap device does TCP segmentation offload both ways (tap.c),
# so a namespace at MTU 1500 should move data as fast as one at 65520.
# Target: at RTT 0, ours at MTU 1500 at least 0.9 of ours at 65520, both
# directions (the report says whether this run met it).
#
# Topology: bench-lib.sh's H and R, joined by a veth at RTT 0 or by
# test/delayline at RTT > 0 (RTT/2 each way, BENCH_RATE_MBIT cap, 1 Gbit/s
# by default), as bench.sh.  The link between H and R stays at MTU 1500 at
# every RTT and for every row (the veth's default; the delay line's, which
# bench-lib.sh sets: its buffers would take frames of up to 64 KiB, but a
# larger link MTU would change the reference, not the translator): what
# changes is only the translator's -m, the MTU of the link between its tap
# and its namespace, which is what we measure.
# Beyond the translator it is the host's own TCP over that same link, and
# host (no translator, iperf3 in H: the reference) has no MTU knob, so it
# has one figure per RTT and direction, repeated in each MTU row.  At 50 ms
# every tool is held by the rate cap and by the host side's window growth,
# which no -m changes: those rows show that a small MTU costs nothing there
# either, not the translator's top speed.
#
# For each RTT of BENCH_MTU_RTTS (fresh H and R), each run, each direction
# (upload; download: iperf3 -R): host once, then for each MTU of
# BENCH_MTU_MTUS each translator of BENCH_MTU_TOOLS (ours: ./pasta -m MTU,
# measured from a copy; debian-pasta: /usr/bin/pasta -m MTU; trixie-pasta:
# Debian 13's, test/trixie-pasta -m MTU), so the tools
# of one row are measured side by side.  Each measurement: `iperf3 -c
# 198.51.100.1 -t SECS -J` to a fresh `iperf3 -s -1` in R, bounded by
# timeout(1), through bench-inner.sh (congestion control and buffers in
# the namespace, the translator's CPU time); the namespace's MTU is read
# (the device of its route to the server) just before iperf3 starts, and a
# run at another MTU than the one asked for counts as failed.  Reported:
# median receiver Mbit/s over the runs, its ratio to the host's median
# (same RTT and direction, this invocation), to the same translator's own
# median at the largest MTU, and the translator's CPU time per GB moved.
#
# Environment (defaults in brackets; --quick changes the ones marked *):
#   BENCH_MTU_RTTS*   RTTs in ms ["0 50"]; --quick: 0
#   BENCH_MTU_MTUS    MTUs of the translator's namespace ["1500 9000 65520"]
#   BENCH_MTU_TOOLS   ["host ours ours-bypass debian-pasta trixie-pasta"];
#                     --quick: "host ours debian-pasta"
#   BENCH_MTU_SECS*   iperf3 duration, s [10]; --quick: 2
#   BENCH_MTU_RUNS*   runs per measurement, median [3]; --quick: 1
#   BENCH_MTU_CC      congestion control in H, R and the namespace [cubic];
#                     loaded and allowed in non-initial namespaces for the
#                     run if it is not (the allowed list is restored on exit)
#   BENCH_MTU_OUT*    Markdown report [doc/benchmarks-mtu.md at the top
#                     level]; --quick: none unless set
#   BENCH_RATE_MBIT   delay line rate cap [1000]
#   BENCH_DL_OPTS     extra delay line options, e.g. "--queue-bytes N"
#   BENCH_RMEM, BENCH_WMEM  tcp_rmem / tcp_wmem for every namespace
#                     [those of a fresh namespace: the kernel's defaults]
#   PASTA             our binary [./pasta]; DEBIAN_PASTA [/usr/bin/pasta];
#   DELAYLINE         [test/delayline]
#   BENCH_LOCK        lock file: one bench at a time [/tmp/pasta-bench.lock]
#   BENCH_LOCK_WAIT   seconds to wait for it before giving up [5400]
#   KEEP_WORK=1       keep the work directory (every JSON, log, result)
#
# Exit status: 0 if every measurement of host and ours produced a rate
# (--quick: the number of failed TAP lines).

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

bench_args "$@"

if [ $QUICK = 1 ]; then
	BENCH_MTU_RTTS=${BENCH_MTU_RTTS:-0}
	BENCH_MTU_SECS=${BENCH_MTU_SECS:-2}
	BENCH_MTU_RUNS=${BENCH_MTU_RUNS:-1}
	BENCH_MTU_TOOLS=${BENCH_MTU_TOOLS:-host ours debian-pasta}
	OUT=${BENCH_MTU_OUT:-}
else
	OUT=${BENCH_MTU_OUT:-$TOPDIR/doc/benchmarks-mtu.md}
fi
RTTS=${BENCH_MTU_RTTS:-0 50}
MTUS=${BENCH_MTU_MTUS:-1500 9000 65520}
TOOLS=${BENCH_MTU_TOOLS:-host ours ours-bypass debian-pasta trixie-pasta}
SECS=${BENCH_MTU_SECS:-10}
RUNS=${BENCH_MTU_RUNS:-3}
CC=${BENCH_MTU_CC:-cubic}

IPERF_PORT=5201
IPERF_MARGIN=15		# s beyond -t before an iperf3 run counts as stalled
TARGET=0.9		# ours at the smallest MTU over ours at the largest, RTT 0
ALLOWED_CC_ORIG=	# net.ipv4.tcp_allowed_congestion_control before the run

# --- output ------------------------------------------------------------------------

# in_list WORD LIST - WORD is one of the words of LIST
in_list() {
	local x
	for x in $2; do
		[ "$x" = "$1" ] && return 0
	done
	return 1
}

# --- measurements --------------------------------------------------------------------

# _res NAME KEY - a value from bench-inner.sh's result file
_res() {
	sed -n "s/^$2=//p" "$WORK/u/$1.res" 2>/dev/null
}

# measure TOOL MTU DIR RUN - one iperf3 run at $CUR_RTT (MTU: "-" for
# host); a line of $RESULTS
measure() {
	local tool=$1 mtu=$2 dir=$3 run=$4 name json flag='' rc srv status
	local mbps bytes zero seen note='' inner popts=${PASTA_OPTS:-}
	name=$tool-$CUR_RTT-$mtu-$dir-$run
	json=$WORK/u/$name.json
	[ "$dir" = download ] && flag=-R

	bg_r "$name-srv" iperf3 -s -1 -B "$SRV_ADDR" -p "$IPERF_PORT"
	srv=$BG_PID
	wait_tcp "$NS_R" "$IPERF_PORT" 10 "$SRV_ADDR" ||
		note="iperf3 server did not start"

	inner=(-r "$WORK/u/$name.res")
	if [ "$tool" != host ]; then
		inner+=(-p "$WORK/u/$name.tpid" -c "$CC" -m "$BENCH_RMEM"
			-w "$BENCH_WMEM")
		popts="$popts -m $mtu"
	fi
	# The MTU of the device toward the server, then iperf3 in its place.
	# By netlink: /sys/class/net is H's, where sysfs was mounted
	# shellcheck disable=SC2016  # for the inner shell
	PASTA_OPTS=$popts tool_run "$tool" "$name" $((SECS + IPERF_MARGIN)) -- \
		sh "$INNER" "${inner[@]}" -o "$json" -- \
		sh -c 'd=$(ip -o route get "$1" | sed -n "s/.* dev \([^ ]*\).*/\1/p")
		       ip -o link show dev "$d" |
			sed -n "s/.* mtu \([0-9]*\).*/\1/p" >"$2"
		       shift 2; exec "$@"' \
		sh "$SRV_ADDR" "$WORK/u/$name.mtu" \
		iperf3 -c "$SRV_ADDR" -p "$IPERF_PORT" -t "$SECS" $flag -J \
		--connect-timeout 5000
	rc=$?
	stop_child "$srv"

	read -r mbps bytes zero < <("$PY" "$TESTDIR/bench-report.py" iperf "$json")
	seen=$(cat "$WORK/u/$name.mtu" 2>/dev/null)
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		status=stall note="killed after $((SECS + IPERF_MARGIN)) s"
	elif [ "$rc" != 0 ] || [ "$mbps" = - ]; then
		status=fail
		note="exit $rc: $("$PY" "$TESTDIR/bench-report.py" iperf-error \
			"$json" "$WORK/$name.err" | tr '\t\n' '  ' | cut -c1-100)"
	elif [ "$tool" != host ] && [ "$seen" != "$mtu" ]; then
		status=fail note="the namespace had MTU ${seen:-unknown}, not $mtu"
	else
		status=ok
	fi
	[ "$status" = ok ] || { mbps=0; bytes=0; }
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$tool" \
		"$CUR_RTT" "$mtu" "$dir" "$run" "$status" "$mbps" "$bytes" \
		"$(_res "$name" cpu_ticks)" "${zero:-0}" "${seen:--}" \
		"${note//$'\t'/ }" >>"$RESULTS"
	LAST_STATUS=$status LAST_NAME=$name
	LAST_DESC="$(printf '%3s ms %-12s MTU %5s %-8s run %s: %7s Mbit/s%s' \
		"$CUR_RTT" "$tool" "$mtu" "$dir" "$run" "$mbps" \
		"${note:+ ($status: $note)}")"
}

# check TOOL - the TAP line (--quick) or the progress line of the last run
check() {
	if [ $QUICK = 0 ]; then
		say "$LAST_DESC"
	elif [ "$LAST_STATUS" = ok ]; then
		ok 0 "$LAST_DESC"
	else
		ok 1 "$LAST_DESC"
		diag_file "$WORK/$LAST_NAME.err" 10
	fi
	if [ "$LAST_STATUS" != ok ] && ! tool_is_peer "$1"; then
		FAILED=1
	fi
}

# --- set-up ------------------------------------------------------------------------

# cc_prepare - $CC available, and allowed in non-initial namespaces (as
# bench.sh's); mtu_cleanup restores the allowed list
cc_prepare() {
	local avail allowed
	ALLOWED_CC_ORIG=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
	avail=$(sysctl -n net.ipv4.tcp_available_congestion_control)
	if ! grep -qw "$CC" <<<"$avail"; then
		modprobe "tcp_$CC" 2>/dev/null
		avail=$(sysctl -n net.ipv4.tcp_available_congestion_control)
		grep -qw "$CC" <<<"$avail" ||
			die "congestion control $CC not available ($avail)"
	fi
	grep -qw "$CC" <<<"$ALLOWED_CC_ORIG" && return 0
	allowed="$ALLOWED_CC_ORIG $CC"
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed" ||
		die "cannot allow congestion controls: $allowed"
}

# shellcheck disable=SC2317  # the EXIT trap
mtu_cleanup() {
	local rc=$?
	if [ -n "$ALLOWED_CC_ORIG" ]; then
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$ALLOWED_CC_ORIG"
	fi
	# lib.sh's _cleanup exits with the status it finds in $?
	(exit "$rc")
	_cleanup
}

# topology RTT - fresh H and R joined for this RTT; the measured RTT
topology() {
	local rtt=$1 p
	bench_topo_destroy
	bench_topo_create "$rtt" && bench_sysctls "$CC" || return 1
	p=$(in_h ping -c 5 -i 0.2 -q "$SRV_ADDR" 2>/dev/null |
		sed -n 's|^rtt [^=]*= [^/]*/\([^/]*\)/.*|\1|p')
	printf 'measured RTT %s ms\t%s ms (ping H to server)\n' "$rtt" \
		"${p:-?}" >>"$WORK/facts"
	say "topology at $rtt ms up, ping H -> $SRV_ADDR: ${p:-?} ms"
}

# --- report --------------------------------------------------------------------------

# facts - the machine and the tools, key<TAB>value
facts() {
	bench_facts_machine "$TOOLS"
	printf 'version iperf3\t%s\n' "$(iperf3 --version 2>&1 | head -n 1)"
	printf 'secs\t%s\n' "$SECS"
	printf 'runs\t%s\n' "$RUNS"
	printf 'cc\t%s\n' "$CC"
	printf 'rate_mbit\t%s\n' "$BENCH_RATE_MBIT"
	printf 'tcp_rmem\t%s\n' "$BENCH_RMEM"
	printf 'tcp_wmem\t%s\n' "$BENCH_WMEM"
	printf 'dl_opts\t%s\n' "${BENCH_DL_OPTS:-}"
	printf 'clk_tck\t%s\n' "$(getconf CLK_TCK)"
	bench_facts_run
}

# report RESULTS FACTS - the Markdown report on stdout
report() {
	"$PY" - "$@" "$TOOLS" "$RTTS" "$MTUS" "$TARGET" <<'EOF'
import statistics, sys

results, facts_path, tools, rtts, mtus, target = sys.argv[1:7]
tools, rtts, mtus = tools.split(), rtts.split(), mtus.split()
target = float(target)
facts = {}
for line in open(facts_path):
    k, _, v = line.rstrip("\n").partition("\t")
    facts[k] = v
clk = float(facts.get("clk_tck") or 100)
rows = {}
for line in open(results):
    f = line.rstrip("\n").split("\t")
    # tool rtt mtu dir run status mbps bytes cpu_ticks zero seen note
    rows.setdefault((f[0], f[1], f[2], f[3]), []).append(f[4:])
trans = [t for t in tools if t != "host"]
big = max(mtus, key=int)
small = min(mtus, key=int)
DIRS = ("upload", "download")

def num(v):
    try:
        return float(v)
    except ValueError:
        return None

def cell(tool, rtt, mtu, d):
    """median Mbit/s (a failed run counts as 0), CPU s/GB, ok, runs"""
    r = rows.get((tool, rtt, "-" if tool == "host" else mtu, d), [])
    ok = [x for x in r if x[1] == "ok"]
    vals = [num(x[2]) or 0.0 for x in r]
    mbps = statistics.median(vals) if vals else None
    # Whole runs summed: one clock tick is noise on a small transfer
    tick = [x for x in ok if num(x[4]) is not None]
    moved = sum(num(x[3]) or 0 for x in tick)
    cpu = (sum(num(x[4]) for x in tick) / clk / (moved / 1e9)
           if moved >= 20e6 else None)
    return mbps, cpu, len(ok), len(r)

def rate(c):
    mbps, _, nok, n = c
    if mbps is None:
        return "–"
    s = "%.0f" % mbps if mbps >= 10 else "%.1f" % mbps
    return s + (" (%d/%d ok)" % (nok, n) if nok < n else "")

def ratio(a, b):
    return "%.2f" % (a / b) if a is not None and b else "–"

rtt_words = ", ".join("%s ms" % r for r in rtts)
print("## Throughput against the namespace's MTU: iperf3\n")
print("Command: `%s`  " % facts.get("command", "?"))
print("Date: %s; machine: %s CPUs (nproc), %s, kernel %s, %s; "
      "%s s of iperf3 per measurement, %s run(s), medians.\n" % (
          facts.get("date"), facts.get("nproc"), facts.get("cpu"),
          facts.get("kernel"), facts.get("os"), facts.get("secs"),
          facts.get("runs")))
print("`iperf3 -c 198.51.100.1 -t %s -J` (download: `-R`), %s in every "
      "namespace, from the translator's namespace (or from H for host) to "
      "`iperf3 -s` in R; Mbit/s: the receiver's, median over the runs; "
      "x host: over the host's median at the same RTT and direction, in "
      "this same invocation; x own %s: over the same translator's median "
      "at MTU %s; CPU s/GB: the translator's user + system time per GB "
      "received (test/bench-inner.sh). RTTs: %s. MTU is the translator's "
      "`-m`, the MTU of its namespace's link to its tap (checked in the "
      "namespace before each run). H and R are joined by a veth at 0 ms "
      "and by test/delayline (half the RTT each way, %s Mbit/s cap) "
      "otherwise, both at MTU 1500 for every row: beyond the translator "
      "it is the host's own TCP over that link whatever the `-m`, so "
      "host, the reference with no translator, has one figure per RTT and "
      "direction, repeated in each MTU row. Order: for each run and "
      "direction, host, then each MTU, each translator "
      "(`test/bench-mtu.sh`).\n" % (
          facts.get("secs"), facts.get("cc"), big, big, rtt_words,
          facts.get("rate_mbit")))

hdr = ["RTT ms", "direction", "MTU", "host Mbit/s"]
align = ["--:", "---", "--:", "--:"]
for t in trans:
    hdr += ["%s Mbit/s" % t, "x host", "x own %s" % big, "%s CPU s/GB" % t]
    align += ["--:"] * 4
print("| " + " | ".join(hdr) + " |")
print("|" + "|".join(align) + "|")
for rtt in rtts:
    for d in DIRS:
        host = cell("host", rtt, "-", d)
        for m in mtus:
            cells = [rtt, d, m, rate(host)]
            for t in trans:
                c = cell(t, rtt, m, d)
                own = cell(t, rtt, big, d)[0]
                cells += [rate(c), ratio(c[0], host[0]), ratio(c[0], own),
                          "%.1f" % c[1] if c[1] is not None else "–"]
            print("| " + " | ".join(cells) + " |")
print()

if "ours" in trans and "0" in rtts and small != big:
    print("Target: at 0 ms, ours at MTU %s at least %.1f of ours at MTU %s, "
          "both directions:\n" % (small, target, big))
    for d in DIRS:
        a = cell("ours", "0", small, d)[0]
        b = cell("ours", "0", big, d)[0]
        if a is None or not b:
            verdict = "no figure"
        else:
            verdict = "%.0f / %.0f Mbit/s = %.2f: %s" % (
                a, b, a / b, "met" if a / b >= target else "NOT met")
        print("- %s: %s" % (d, verdict))
    print()

notes = []
for (tool, rtt, mtu, d), r in rows.items():
    for x in r:
        run, status, mbps, _, _, zero, seen, note = x[:8]
        bits = []
        if status != "ok":
            bits.append("%s%s" % (status, ": " + note if note else ""))
        if zero not in ("0", ""):
            bits.append("%s one-second intervals with nothing received" % zero)
        if bits:
            notes.append("- %s ms, %s, MTU %s, %s, run %s: %s" % (
                rtt, tool, mtu, d, run, "; ".join(bits)))
print("Failures and stalls:\n")
print("\n".join(notes) if notes else "- none")
print()

nruns = int(facts.get("runs", "1"))
print("Every run, Mbit/s (namespace MTU as seen before the run):\n")
print("| RTT ms | direction | tool | MTU | " + " | ".join(
    "run %d" % (i + 1) for i in range(nruns)) + " |")
print("|--:|---|---|--:|" + "--:|" * nruns)
for rtt in rtts:
    for d in DIRS:
        for t in tools:
            for m in (["-"] if t == "host" else mtus):
                r = rows.get((t, rtt, m, d), [])
                print("| %s | %s | %s | %s | %s |" % (
                    rtt, d, t, m if t != "host" else "(link: %s)" % (
                        r[0][6] if r else "?"),
                    " | ".join(("%s (%s)" % (x[2], x[6]) if t != "host"
                                else x[2]) if x[1] == "ok" else x[1]
                               for x in r)))
print()

print("Versions and conditions:\n")
for k, v in facts.items():
    if k.startswith("version ") or k.startswith("measured RTT") or k in (
            "ours binary", "tcp_rmem", "tcp_wmem", "dl_opts", "duration",
            "load average at start / end", "CPU steal time during the run"):
        print("- %s: %s" % (k, v if v else "(none)"))
EOF
}

# --- main ----------------------------------------------------------------------------

[ "$(id -u)" = 0 ] || { [ $QUICK = 1 ] && skip_all "must run as root"; die "must run as root"; }
for t in ip iperf3 nsenter setpriv timeout flock ss; do
	command -v "$t" >/dev/null || die "$t not installed"
done
[ -x "$PY" ] || die "$PY not installed"
for t in $TOOLS; do
	case $t in
	host|ours|ours-bypass|ours-ref|debian-pasta|trixie-pasta) ;;
	*) die "BENCH_MTU_TOOLS: host, ours, ours-bypass, ours-ref, debian-pasta and/or trixie-pasta, not $t" ;;
	esac
done
for m in $MTUS; do
	if ! [ "$m" -ge 576 ] 2>/dev/null || [ "$m" -gt 65520 ]; then
		die "BENCH_MTU_MTUS: MTUs from 576 to 65520, not $m"
	fi
done
for r in $RTTS; do
	[ "$r" -ge 0 ] 2>/dev/null || die "BENCH_MTU_RTTS: milliseconds, not $r"
	[ "$r" = 0 ] || [ -x "$DL" ] || die "$DL not built (make test/delayline)"
done
for n in $SECS $RUNS; do
	[ "$n" -ge 1 ] 2>/dev/null ||
		die "BENCH_MTU_SECS, BENCH_MTU_RUNS: positive numbers, not $n"
done

bench_begin mtu_cleanup -mtu
cc_prepare

bench_tools_present

bench_ours_copy

# Measurements per RTT: host once per run and direction, each translator
# at each MTU
n_rtt=0 per_rtt=0
for r in $RTTS; do
	n_rtt=$((n_rtt + 1))
done
for t in $TOOLS; do
	if [ "$t" = host ]; then
		per_rtt=$((per_rtt + 2 * RUNS))
	else
		for m in $MTUS; do
			per_rtt=$((per_rtt + 2 * RUNS))
		done
	fi
done
[ $QUICK = 1 ] && plan $((n_rtt * (1 + per_rtt)))

bench_conditions_mark
RESULTS=$WORK/results.tsv
: >"$RESULTS"
: >"$WORK/facts"
FAILED=0
say "tools: $TOOLS; MTUs: $MTUS; RTTs: $RTTS ms; $RUNS run(s) of $SECS s"

for rtt in $RTTS; do
	CUR_RTT=$rtt
	if ! topology "$rtt"; then
		if [ $QUICK = 1 ]; then
			ok 1 "topology at $rtt ms"
			not_run "$per_rtt" "measurements at $rtt ms"
		fi
		say "topology at $rtt ms failed"
		FAILED=1
		continue
	fi
	[ $QUICK = 1 ] && ok 0 "topology at $rtt ms ($([ "$rtt" = 0 ] &&
		echo veth || echo delay line), link MTU 1500)"
	for run in $(seq "$RUNS"); do
		for dir in upload download; do
			if in_list host "$TOOLS"; then
				measure host - "$dir" "$run"
				check host
			fi
			for mtu in $MTUS; do
				for tool in $(in_turn "$TOOLS" "$run"); do
					[ "$tool" = host ] && continue
					measure "$tool" "$mtu" "$dir" "$run"
					check "$tool"
				done
			done
		done
	done
done
bench_topo_destroy

facts >>"$WORK/facts"
report "$RESULTS" "$WORK/facts" >"$WORK/report.md"
bench_publish $FAILED
