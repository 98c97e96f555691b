#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/bench-conn.sh - new TCP connections per second and the round trip
# of a 1-byte ping-pong, through each translator and without one
#
# Usage, as root from the top directory after `make` and `make test/tcprr`:
#
#   test/bench-conn.sh          full table on stdout and in $BENCH_CONN_OUT
#   test/bench-conn.sh --quick  one run of 2 s per measurement, 32
#                               concurrent connections and the ping-pong;
#                               TAP output, asserts only that every
#                               measurement produced a number above 0;
#                               writes no file unless BENCH_CONN_OUT is set
#                               (about 70 s on 2 vCPUs; the full run about
#                               14 minutes)
#
# Why (issue 13): a container that opens many short connections, or talks
# in small requests and answers, pays the translator's cost per connection
# and per round trip rather than per byte.  Targets, against host in the
# same run (the report says whether this run met them): ours at least 0.8
# of the host's new connections a second; ours' ping-pong p50 within 30 us
# of the host's.
#
# test/tcprr (one binary, our own, libc only): `tcprr server` echoes every
# read on every connection (epoll); `tcprr crr HOST PORT -c N -d SECS`
# keeps N connections going, each: connect, 1 byte out, 1 byte back, close
# (the client closes first), and again, for SECS: completed connections a
# second, latency from connect() to the answer (p50, p99), failed attempts
# by kind; `tcprr rr HOST PORT -d SECS`: one connection, TCP_NODELAY both
# sides, 1 byte out and back as fast as it goes for SECS, each round trip
# timed (p50, p99, mean).  Nothing is pinned to a CPU: on a virtual
# machine, a ping-pong between two CPUs pays a slow wake-up each way that
# one CPU does not (tcprr rr on a loopback here: p50 16 us on one CPU, 80
# us on two), so rr's p50 follows the scheduler's placement, which the
# report shows run by run.
#
# Topology: bench-lib.sh's H and R joined by a veth (RTT 0, no delay
# line), as bench-rr.sh.  The translators run in H as the test user
# (bench-lib.sh's tool_run and lib.sh's pasta_bg: --config-net).  Cases:
#   outbound  the client in the tool's namespace -> tcprr server in R on
#             198.51.100.1 (host: the client in H, across the veth)
#   hostaddr  tcprr server in the tool's namespace, forwarded with -t PORT;
#             the client in H -> H's own address 203.0.113.1:PORT, which
#             pasta sends through the tap (host: server and client in H)
#   spliced   the same, the client in H -> 127.0.0.1:PORT, which pasta
#             splices socket to socket (host: server and client in H)
# Tools (BENCH_CONN_TOOLS): host (no translator: the reference), ours
# (./pasta, measured from a copy), debian-pasta (/usr/bin/pasta),
# trixie-pasta (Debian 13's, test/trixie-pasta).  The server runs as
# root, in the translator's namespace joined to that network namespace
# only (nsenter -n); the clients run as the test user.  Each
# measurement is bounded by timeout(1); the translator and the server are
# started afresh for each inbound one.  Order: for each run, each case,
# each measurement (crr at each of BENCH_CONN_CONNS, then rr), each tool,
# so the tools of one row are measured side by side.  Reported: the median
# over the runs (connections a second, and latency percentiles) and its
# ratio to, or difference from, the host's median in this same invocation.
#
# Ports: a client that closes first keeps each connection in TIME_WAIT for
# 60 s, and a new connection to the same server needs a local port with no
# TIME_WAIT of its own to that server: at thousands of connections a
# second, the 28,000 ports of the default range run out within seconds.
# net.ipv4.tcp_tw_reuse=1 lets connect() take such a port again after a
# second, but only if the connection had TCP timestamps, which neither
# pasta offers on its tap: in the translator's namespace, outbound, the
# rate collapsed from about 10,000 to about 80 connections a second once
# some 32,000 ports were taken, with no error at all: connect() tries the
# even ports first, and once they were all taken it went through every one
# of them each time before it took an odd one.  So wherever a client or
# the translator's connecting side runs (H; the tool's namespace, from
# inside for outbound, through nsenter for inbound), the same settings for
# every tool: ip_local_port_range
# BENCH_CONN_PORTS, tcp_tw_reuse 1, and tcp_max_tw_buckets
# BENCH_CONN_TW_BUCKETS, 0 by default: a connection closed first by this
# side skips TIME_WAIT (on a veth and a tap, with no old duplicate segments
# to guard against) and its port is free at once.  A client that still
# finds no port fails with EADDRNOTAVAIL, counted as "noaddr" and shown in
# the report.  The servers' ports are reserved there too
# (ip_local_reserved_ports): a connection's TIME_WAIT on one of them would
# keep the next server, or the translator's -t, from binding it.
#
# Environment (defaults in brackets; --quick changes the ones marked *):
#   BENCH_CONN_SECS*   duration of each measurement, s [10]; --quick: 2
#   BENCH_CONN_RUNS*   runs per measurement, median [3]; --quick: 1
#   BENCH_CONN_CONNS*  concurrent connections of crr ["1 32"]; --quick: 32
#   BENCH_CONN_CASES   ["outbound hostaddr spliced"]
#   BENCH_CONN_TOOLS   ["host ours ours-bypass debian-pasta trixie-pasta"];
#                      --quick: "host ours debian-pasta"
#   BENCH_CONN_OUT*    Markdown report [doc/benchmarks-conn.md at the top
#                      level]; --quick: none unless set
#   BENCH_CONN_THREADS threads of the crr client and of the server (-T) [1]
#   BENCH_CONN_PORTS   ip_local_port_range for the clients ["1024 65535"]
#   BENCH_CONN_TW_BUCKETS  tcp_max_tw_buckets for the clients [0]; the
#                      kernel's default (131072 in a new namespace on the
#                      machine this was written on) shows the collapse
#                      described above
#   BENCH_CONN_PORT_OUT the server's port in R [9000]
#   BENCH_CONN_PORT_IN forwarded port (-t), the server's port in H and in
#                      the translator's namespace [19000]
#   BENCH_CONN_LISTEN6 1: the server in H and in the translator's namespace
#                      listens on [::]:PORT, dual stack [1]; 0: on
#                      0.0.0.0:PORT only
#   PASTA              our binary [./pasta]; DEBIAN_PASTA [/usr/bin/pasta];
#   TCPRR              [test/tcprr]
#   BENCH_LOCK         lock file: one bench at a time [/tmp/pasta-bench.lock]
#   BENCH_LOCK_WAIT    seconds to wait for it before giving up [5400]
#   KEEP_WORK=1        keep the work directory (every client's and server's
#                      output)
#
# Exit status: 0 if every measurement of host and ours produced a number
# (--quick: the number of failed TAP lines).

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

bench_args "$@"

if [ $QUICK = 1 ]; then
	BENCH_CONN_SECS=${BENCH_CONN_SECS:-2}
	BENCH_CONN_RUNS=${BENCH_CONN_RUNS:-1}
	BENCH_CONN_CONNS=${BENCH_CONN_CONNS:-32}
	BENCH_CONN_TOOLS=${BENCH_CONN_TOOLS:-host ours debian-pasta}
	OUT=${BENCH_CONN_OUT:-}
else
	OUT=${BENCH_CONN_OUT:-$TOPDIR/doc/benchmarks-conn.md}
fi
SECS=${BENCH_CONN_SECS:-10}
RUNS=${BENCH_CONN_RUNS:-3}
CONNS=${BENCH_CONN_CONNS:-1 32}
CASES=${BENCH_CONN_CASES:-outbound hostaddr spliced}
TOOLS=${BENCH_CONN_TOOLS:-host ours ours-bypass debian-pasta trixie-pasta}
THREADS=${BENCH_CONN_THREADS:-1}
PORTS=${BENCH_CONN_PORTS:-1024 65535}
TW_BUCKETS=${BENCH_CONN_TW_BUCKETS:-0}
PORT_OUT=${BENCH_CONN_PORT_OUT:-9000}
PORT_IN=${BENCH_CONN_PORT_IN:-19000}
LISTEN6=${BENCH_CONN_LISTEN6:-1}
TCPRR=${TCPRR:-$TESTDIR/tcprr}

MARGIN=15		# s beyond -d before a client is killed
# Where clients connect from (see the header): four, as run_client says
CLIENT_SYSCTLS=(net.ipv4.ip_local_port_range="$PORTS" net.ipv4.tcp_tw_reuse=1
		net.ipv4.tcp_max_tw_buckets="$TW_BUCKETS"
		net.ipv4.ip_local_reserved_ports="$PORT_OUT,$PORT_IN")
SRV_V6=()		# the inbound server's -6, with LISTEN6=1
[ "$LISTEN6" = 1 ] && SRV_V6=(-6)
R_SRV=			# the server in R
IN_SRV=			# the inbound server (in H or in T_HOLD's namespace)
MEAS=			# the measurements of a case: crr-N..., rr

# --- processes -----------------------------------------------------------------------

# server_start NAME PORT LIFE V6 NSPREFIX... - tcprr server on PORT (V6:
# -6 or "") for LIFE seconds at most, in the namespace NSPREFIX enters (ip
# netns exec NS, or nsenter -t PID -n --); waits (bounded) until it
# listens.  SERVER_PID: its PID (ip netns exec and nsenter exec it)
server_start() {
	local name=$1 port=$2 life=$3 v6=$4
	shift 4
	# shellcheck disable=SC2086  # V6: no word at all when empty
	"$@" "$TCPRR" server $v6 -t "$life" -T "$THREADS" "$port" \
		>"$WORK/$name.srv" 2>&1 </dev/null &
	SERVER_PID=$!
	_PIDS+=("$SERVER_PID")
	if ! _poll 10 ns_listening "$port" "$@"; then
		echo "tcprr server $name did not start:" >>"$WORK/$name.err"
		cat "$WORK/$name.srv" >>"$WORK/$name.err"
		return 1
	fi
}

# client_sysctls NSPREFIX... - CLIENT_SYSCTLS in the namespace NSPREFIX
# enters
client_sysctls() {
	"$@" sysctl -qw "${CLIENT_SYSCTLS[@]}" >/dev/null
}

# inbound_start TOOL NAME - the server on PORT_IN in TOOL's namespace, the
# translator forwarding H's PORT_IN to it (-t); waits until H listens there
inbound_start() {
	local tool=$1 name=$2 life=$((SECS + MARGIN + 40))
	T_PID='' T_HOLD='' IN_SRV=''
	if [ "$tool" = host ]; then
		server_start "$name" "$PORT_IN" "$life" "${SRV_V6[*]}" \
			ip netns exec "$NS_H" || return 1
		IN_SRV=$SERVER_PID
		return 0
	fi
	# The command only holds the namespace; the server joins it from here
	bench_t_start "$tool" "$name" "$PORT_IN" $((life + 10)) || return 1
	if ! client_sysctls nsenter -t "$T_HOLD" -n -- 2>>"$WORK/$name.err"; then
		echo "$tool: cannot set the namespace's sysctls" >>"$WORK/$name.err"
		return 1
	fi
	server_start "$name" "$PORT_IN" "$life" "${SRV_V6[*]}" \
		nsenter -t "$T_HOLD" -n -- || return 1
	IN_SRV=$SERVER_PID
	bench_t_forwarded "$tool" "$name" "$PORT_IN"
}

# inbound_stop - the server (its counters go to NAME.srv), the translator
inbound_stop() {
	[ -n "$IN_SRV" ] && stop_child "$IN_SRV"
	IN_SRV=
	bench_t_stop "$PORT_IN"
}

# shellcheck disable=SC2317  # the EXIT trap
conn_cleanup() {
	local rc=$?
	{
		[ -n "$IN_SRV" ] || [ -n "$T_PID" ] && inbound_stop
		[ -n "$R_SRV" ] && stop_child "$R_SRV"
	} 2>/dev/null
	(exit "$rc")
	_cleanup
}

# --- measurements --------------------------------------------------------------------

# tcprr_parse FILE - "value p50 p99 mean count errors" from tcprr's line:
# value is connections (crr) or round trips (rr) a second; errors
# "refused,reset,timeout,noaddr,other" (crr) or "-"; "-" for what is missing
tcprr_parse() {
	awk '
	$1 == "crr" || $1 == "rr" {
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			v[kv[1]] = kv[2]
		}
		kind = $1
	}
	function g(k) { return (k in v) && v[k] != "" ? v[k] : "-" }
	END {
		if (kind == "crr") {
			sub("/s$", "", v["rate"])
			printf "%s %s %s %s %s %s,%s,%s,%s,%s\n", g("rate"),
				g("p50_us"), g("p99_us"), g("mean_us"),
				g("completed"), g("refused"), g("reset"),
				g("timeout"), g("noaddr"), g("other")
		} else if (kind == "rr" && g("secs") > 0) {
			printf "%.0f %s %s %s %s -\n", g("count") / g("secs"),
				g("p50_us"), g("p99_us"), g("mean_us"), g("count")
		} else {
			print "- - - - - -"
		}
	}' "$1" 2>/dev/null
}

# client_argv WHAT ADDR PORT - CLIENT: the tcprr command line of a
# measurement (crr-N or rr) against ADDR:PORT
client_argv() {
	case $1 in
	rr)	CLIENT=("$TCPRR" rr "$2" "$3" -d "$SECS") ;;
	crr-*)	CLIENT=("$TCPRR" crr "$2" "$3" -c "${1#crr-}" -d "$SECS"
			-T "$THREADS") ;;
	esac
}

# run_client CASE TOOL NAME - the client of one measurement (CLIENT), its
# output in $WORK/NAME.out and .err; the server and translator it needs
# started and stopped around it.  Returns the client's status, 125 if the
# set-up failed
run_client() {
	local kase=$1 tool=$2 name=$3 secs=$((SECS + MARGIN)) rc
	case $kase in
	outbound)
		if [ "$tool" = host ]; then
			tool_run host "$name" "$secs" -- "${CLIENT[@]}"
			return
		fi
		# Root of the translator's user namespace: the sysctls first
		# shellcheck disable=SC2016  # for the inner shell
		tool_run "$tool" "$name" "$secs" -- sh -c \
			'sysctl -qw "$1" "$2" "$3" "$4" >/dev/null || exit 125
			 shift 4; exec "$@"' sh "${CLIENT_SYSCTLS[@]}" "${CLIENT[@]}"
		return
		;;
	esac
	if inbound_start "$tool" "$name"; then
		as_user_h "$secs" "${CLIENT[@]}" >"$WORK/$name.out" \
			2>>"$WORK/$name.err" </dev/null
		rc=$?
	else
		rc=125
		: >"$WORK/$name.out"
	fi
	inbound_stop
	return $rc
}

# measure CASE WHAT TOOL RUN - one tcprr run (WHAT: crr-N or rr); a line
# of $RESULTS
measure() {
	local kase=$1 what=$2 tool=$3 run=$4 name addr=$SRV_ADDR port=$PORT_OUT
	local rc status note='' value p50 p99 mean count errs unit persec
	name=$kase-$what-$tool-$run
	case $kase in
	hostaddr)	addr=$H_ADDR port=$PORT_IN ;;
	spliced)	addr=127.0.0.1 port=$PORT_IN ;;
	esac
	client_argv "$what" "$addr" "$port"
	: >"$WORK/$name.err"
	run_client "$kase" "$tool" "$name"
	rc=$?

	read -r value p50 p99 mean count errs < <(tcprr_parse "$WORK/$name.out")
	# crr's connections in each second, comma-separated ("-" for rr)
	persec=$(sed -n 's/^tcprr crr: completed per second: //p' \
		"$WORK/$name.err" | tr ' ' ',')
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		status=stall note="killed after $((SECS + MARGIN)) s"
	elif [ "$rc" != 0 ] || [ "$value" = - ] ||
	     ! awk -v r="$value" 'BEGIN { exit !(r > 0) }'; then
		status=fail
		[ "$rc" = 125 ] && note="set-up failed: "
		note="$note$(cat "$WORK/$name.out" "$WORK/$name.err" 2>/dev/null |
			grep -v -e '^ *$' -e 'completed per second' |
			tail -n 1 | cut -c1-100)"
		[ -n "$note" ] || note="exit $rc"
	else
		status=ok
	fi
	[ "$status" = ok ] || value=0
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kase" \
		"$what" "$tool" "$run" "$status" "$value" "$p50" "$p99" \
		"$mean" "$count" "$errs" "${persec:--}" "${note//$'\t'/ }" \
		>>"$RESULTS"
	unit="conn/s, errors r,r,t,n,o $errs"
	[ "$what" = rr ] && unit="round trips/s"
	LAST_STATUS=$status LAST_NAME=$name
	LAST_VALUE="$value $unit, p50 $p50 us, p99 $p99 us"
	LAST_DESC="$(printf '%-8s %-7s %-12s run %s: %8s %s, p50 %s us, p99 %s us%s' \
		"$kase" "$what" "$tool" "$run" "$value" "$unit" "$p50" "$p99" \
		"${note:+ ($note)}")"
}

# --- report --------------------------------------------------------------------------

# facts - the machine and the tools, key<TAB>value
facts() {
	bench_facts_machine "$TOOLS"
	printf 'tcprr\t%s\n' "$TCPRR_ID"
	printf 'secs\t%s\n' "$SECS"
	printf 'runs\t%s\n' "$RUNS"
	printf 'threads\t%s\n' "$THREADS"
	printf 'listen inbound\t%s\n' "$([ "$LISTEN6" = 1 ] &&
		echo "[::]:$PORT_IN, dual stack" || echo "0.0.0.0:$PORT_IN")"
	printf 'listen R\t%s\n' "0.0.0.0:$PORT_OUT"
	printf 'client sysctls\t%s\n' "$(printf '%s, ' "${CLIENT_SYSCTLS[@]}" |
		sed 's/, $//')"
	printf 'net.core.somaxconn in H\t%s\n' "$(in_h sysctl -n net.core.somaxconn)"
	bench_facts_run
}

# report RESULTS FACTS - the Markdown report on stdout
report() {
	"$PY" - "$@" "$TOOLS" "$CASES" "$MEAS" <<'EOF'
import statistics, sys

results, facts_path, tools, cases, meas = sys.argv[1:6]
tools, cases, meas = tools.split(), cases.split(), meas.split()
RATE_TARGET, P50_TARGET = 0.8, 30
UNEVEN = 0.5	# a second under this share of the run's median is told
SPREAD = 2	# rr p50s of one path this many times apart are told
facts = dict(l.rstrip("\n").split("\t", 1) for l in open(facts_path))
runs = {}
for line in open(results):
    kase, what, tool, run, status, *vals = line.rstrip("\n").split("\t")
    runs.setdefault((kase, what, tool), []).append((status, vals))

CASE = {
    "outbound": ("outbound", "the client in the tool's namespace, tcprr "
                 "server in R (198.51.100.1)"),
    "hostaddr": ("inbound, H's address", "tcprr server in the tool's "
                 "namespace, its port forwarded with `-t`; the client in "
                 "H to H's own address 203.0.113.1:PORT (through the tap)"),
    "spliced": ("inbound, 127.0.0.1", "the same, the client in H to "
                "127.0.0.1:PORT (the translators splice it socket to "
                "socket)"),
}
crr = [m for m in meas if m.startswith("crr-")]


def medians(kase, what, tool):
    """medians of value, p50, p99 over the ok runs; ok runs; all runs"""
    r = runs.get((kase, what, tool), [])
    ok = [v for s, v in r if s == "ok"]
    med = []
    for i in range(3):
        xs = [float(v[i]) for v in ok if v[i] not in ("", "-")]
        med.append(statistics.median(xs) if xs else None)
    return med, len(ok), len(r)


def fmt(x, nok=1, n=1):
    s = "failed" if x is None else "%.0f" % x
    return s + (" (%d/%d ok)" % (nok, n) if n and nok < n else "")


def verdict(ok):
    return "met" if ok else "**NOT met**"


print("## New connections a second and 1-byte ping-pong: tcprr\n")
print("Command: `%s`  " % facts.get("command", "?"))
print("Date: %s; machine: %s CPUs (nproc), %s, kernel %s, %s; %s s per "
      "measurement, %s run(s), medians.\n" % (
          facts.get("date"), facts.get("nproc"), facts.get("cpu"),
          facts.get("kernel"), facts.get("os"), facts.get("secs"),
          facts.get("runs")))
print("test/tcprr: `tcprr crr ADDR PORT -c N -d %s -T %s` keeps N "
      "connections going, each: connect, 1 byte out, 1 byte back, close "
      "(the client first), and again; conn/s: completed connections a "
      "second, median over the runs; x host: that median over the host's "
      "for the same case and N, in this same invocation; p50 / p99: "
      "medians of the runs' percentiles of the time from connect() to the "
      "answer, in us. `tcprr rr ADDR PORT -d %s`: one connection, "
      "TCP_NODELAY, 1 byte out and back as fast as it goes; p50 / p99 of "
      "the round trips, in us, and the p50's difference from the host's. "
      "The server, `tcprr server` (%s in H and in the translator's "
      "namespace, %s in R), echoes every read (epoll, %s thread(s)). H and "
      "R joined by a veth, no delay line (test/bench-lib.sh). host is the "
      "reference with no translator: the client in H, the server in R "
      "(outbound) or in H (inbound). In a translator's namespace, the "
      "server runs as root joined to that network namespace alone "
      "(nsenter -n), the translator forwards the port with `-t`, and "
      "translator and server are started afresh for each inbound "
      "measurement; %s in H and in the translator's namespace: "
      "neither pasta offers TCP timestamps, without which tcp_tw_reuse "
      "cannot take a port in TIME_WAIT again, so with TIME_WAIT kept the "
      "ports of the translator's namespace run out within seconds and the "
      "rate collapses (`test/bench-conn.sh`, which says more).\n" % (
          facts.get("secs"), facts.get("threads"), facts.get("secs"),
          facts.get("listen inbound"), facts.get("listen R"),
          facts.get("threads"), facts.get("client sysctls")))
for c in cases:
    print("- **%s**: %s" % CASE.get(c, (c, c)))
print()

targets = []
if crr:
    print("New connections a second (crr):\n")
    hdr, align = ["case", "conns"], ["---", "--:"]
    for t in tools:
        hdr += ["%s conn/s" % t] + (["x host"] if t != "host" else []) + \
               ["%s p50 / p99 us" % t]
        align += ["--:"] * (3 if t != "host" else 2)
    print("| " + " | ".join(hdr) + " |")
    print("|" + "|".join(align) + "|")
    for c in cases:
        for m in crr:
            host = medians(c, m, "host")[0][0]
            cells = [CASE.get(c, (c,))[0], m[4:]]
            for t in tools:
                (v, p50, p99), nok, n = medians(c, m, t)
                cells.append(fmt(v, nok, n))
                if t != "host":
                    x = v / host if v is not None and host else None
                    cells.append("%.2f" % x if x is not None else "-")
                    if t == "ours":
                        targets.append(
                            "- %s, %s connection(s): ours %s of host: %s" % (
                                CASE.get(c, (c,))[0], m[4:],
                                "%.2f" % x if x is not None else "no figure",
                                verdict(x is not None and x >= RATE_TARGET)))
                cells.append("%s / %s" % (fmt(p50), fmt(p99)))
            print("| " + " | ".join(cells) + " |")
    print()

if "rr" in meas:
    print("1-byte ping-pong on one connection (rr), round trip in us:\n")
    hdr, align = ["case"], ["---"]
    for t in tools:
        hdr += ["%s p50 / p99" % t] + (["p50 - host"] if t != "host" else [])
        align += ["--:"] * (2 if t != "host" else 1)
    print("| " + " | ".join(hdr) + " |")
    print("|" + "|".join(align) + "|")
    spread = []
    for c in cases:
        host = medians(c, "rr", "host")[0][1]
        cells = [CASE.get(c, (c,))[0]]
        for t in tools:
            p = [float(v[1]) for s, v in runs.get((c, "rr", t), [])
                 if s == "ok" and v[1] not in ("", "-")]
            if p and min(p) > 0 and max(p) > SPREAD * min(p):
                spread.append("%s, %s: %s us" % (
                    CASE.get(c, (c,))[0], t, ", ".join("%.0f" % x for x in p)))
        for t in tools:
            (_, p50, p99), nok, n = medians(c, "rr", t)
            cells.append("%s / %s" % (fmt(p50, nok, n), fmt(p99)))
            if t != "host":
                d = p50 - host if p50 is not None and host is not None \
                    else None
                cells.append("%+.0f" % d if d is not None else "-")
                if t == "ours":
                    targets.append("- %s, ping-pong: ours' p50 %s us from "
                                   "host's: %s" % (
                                       CASE.get(c, (c,))[0],
                                       "%+.0f" % d if d is not None
                                       else "no figure",
                                       verdict(d is not None and
                                               d <= P50_TARGET)))
        print("| " + " | ".join(cells) + " |")
    print()
    print("Nothing is pinned to a CPU. A round trip whose two ends run on "
          "different CPUs pays a wake-up across CPUs each way, which is slow "
          "on a virtual machine, and one on a single CPU does not: where the "
          "scheduler puts them, which can change from one run to the next, "
          "moves p50 by tens of microseconds. Compare the tools within a run "
          "(every run, below) as well as the medians.%s\n" % (
              "" if not spread else " Runs of one path whose p50s differ by "
              "more than %d times: %s." % (SPREAD, "; ".join(spread))))

if targets:
    print("Targets (issue 13): ours at least %.1f of host's connections a "
          "second; ours' ping-pong p50 within %d us of host's:\n" % (
              RATE_TARGET, P50_TARGET))
    print("\n".join(targets))
    print()

notes = []
for (c, m, t), r in runs.items():
    for i, (status, v) in enumerate(r):
        value, p50, p99, mean, count, errs, persec, note = v
        bits = [] if status == "ok" else [
            "%s%s" % (status, ": " + note if note else "")]
        secs = [int(x) for x in persec.split(",") if x.isdigit()]
        if secs and min(secs) < UNEVEN * statistics.median(secs):
            bits.append("uneven: connections in each second %s" %
                        " ".join(map(str, secs)))
        e = [int(x) for x in errs.split(",")] if "," in errs else []
        if sum(e):
            bits.append("%s failed attempts (%s) beside %s completed" % (
                sum(e), ", ".join("%s %d" % (k, x) for k, x in zip(
                    ("refused", "reset", "timeout", "noaddr", "other"), e)
                    if x), count))
        if bits:
            notes.append("- %s, %s, %s, run %d: %s" % (
                CASE.get(c, (c,))[0], m, t, i + 1, "; ".join(bits)))
print("Failures, failed attempts, and runs with a second under %d%% of "
      "their median second:\n" % (UNEVEN * 100))
print("\n".join(notes) if notes else "- none")
print()

nruns = int(facts.get("runs", "1"))
print("Every run: conn/s (crr) or p50 us (rr):\n")
print("| case | measurement | tool | " + " | ".join(
    "run %d" % (i + 1) for i in range(nruns)) + " |")
print("|---|---|---|" + "--:|" * nruns)
for c in cases:
    for m in meas:
        for t in tools:
            print("| %s | %s | %s | %s |" % (
                CASE.get(c, (c,))[0], m, t, " | ".join(
                    (v[1] if m == "rr" else v[0]) if s == "ok" else s
                    for s, v in runs.get((c, m, t), []))))
print()

print("Versions and conditions:\n")
for k, v in facts.items():
    if k.startswith(("version ", "net.core.")) or k in (
            "ours binary", "tcprr", "client sysctls", "duration",
            "load average at start / end", "CPU steal time during the run"):
        print("- %s: %s" % (k, v))
EOF
}

# --- main ----------------------------------------------------------------------------

bench_need ip nsenter setpriv timeout flock ss awk sysctl sha256sum
[ -x "$TCPRR" ] || die "$TCPRR not built (make test/tcprr)"
bench_words BENCH_CONN_TOOLS "$TOOLS" host ours ours-bypass ours-ref debian-pasta \
	trixie-pasta
bench_words BENCH_CONN_CASES "$CASES" outbound hostaddr spliced
for n in $CONNS; do
	{ [ "$n" -ge 1 ] && [ "$n" -le 4096 ]; } 2>/dev/null ||
		die "BENCH_CONN_CONNS: numbers from 1 to 4096, not $n"
	MEAS="$MEAS crr-$n"
done
MEAS="${MEAS# } rr"
for n in $SECS $RUNS $THREADS; do
	[ "$n" -ge 1 ] 2>/dev/null ||
		die "BENCH_CONN_SECS, _RUNS, _THREADS: positive numbers, not $n"
done

bench_begin conn_cleanup -conn

bench_tools_present

bench_ours_copy
# The client runs as the test user: a copy it can read, which a rebuild
# in the tree does not change under us
TCPRR_ID="$(readlink -f "$TCPRR"), sha256 $(sha256sum "$TCPRR" | cut -c1-12)"
{ mkdir -p "$WORK/bin" && chmod 0755 "$WORK/bin" &&
	cp "$TCPRR" "$WORK/bin/tcprr" && chmod 0755 "$WORK/bin/tcprr"; } ||
	die "cannot copy $TCPRR"
TCPRR=$WORK/bin/tcprr

bench_plan "$CASES" "$MEAS"

# The server in R outlives every measurement, but not by much
setup_ok=0
if bench_topo_create 0 && client_sysctls in_h 2>"$WORK/r.err" &&
   server_start r "$PORT_OUT" $((N_MEAS * RUNS * (SECS + MARGIN + 30) + 60)) \
	"" ip netns exec "$NS_R"; then
	setup_ok=1
	R_SRV=$SERVER_PID
fi
bench_setup_done $setup_ok "topology (veth) and tcprr server in R on $SRV_ADDR:$PORT_OUT"

while read -r -u 3 run kase what tool; do
	measure "$kase" "$what" "$tool" "$run"
	bench_tally "$tool" "$kase, $what, $tool" "$LAST_VALUE"
done 3< <(bench_rounds "$CASES" "$MEAS")

stop_child "$R_SRV"
R_SRV=
facts >"$WORK/facts"
report "$RESULTS" "$WORK/facts" >"$WORK/report.md"
bench_publish $FAILED
