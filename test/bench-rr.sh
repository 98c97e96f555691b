#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/bench-rr.sh - request rates: wrk against nginx serving a 1 KiB file,
# through each translator and without one
#
# Usage, as root from the top directory after `make`:
#
#   test/bench-rr.sh          full table on stdout and in $BENCH_RR_OUT
#   test/bench-rr.sh --quick  one run of 2 s per measurement, 1 and 32
#                             connections; TAP output, asserts only that
#                             every measurement produced a request rate
#                             above 0; writes no file unless BENCH_RR_OUT
#                             is set (under 90 s on 2 vCPUs)
#
# Installs wrk and nginx (nginx-light where the archive has it) if they are
# missing; no nginx system service is used or started (the installation
# runs with a policy-rc.d that forbids it, unless one exists already).
# Every nginx here is our own: `daemon off`, a private configuration,
# PID file and logs in the work directory, worker_processes auto,
# access_log off, a 1 KiB file; started by us, stopped by PID.
#
# Topology: bench-lib.sh's H and R joined by a veth (RTT 0, no delay line),
# as bench.sh's iperf3 runs at RTT 0.  The translators run in H as the test
# user (bench-lib.sh's tool_run and lib.sh's pasta_bg: --config-net).
# Cases, each at every connection count of BENCH_RR_CONNS:
#   outbound  wrk in the tool's namespace -> nginx in R on 198.51.100.1
#             (host: wrk in H, across the veth)
#   spliced   nginx in the tool's namespace, forwarded with -t PORT; wrk in
#             H -> 127.0.0.1:PORT (host: nginx in H, wrk in H over lo)
#   hostaddr  the same, wrk in H -> H's own address 203.0.113.1:PORT, which
#             pasta sends through the tap (host: nginx in H, wrk in H to
#             that address)
# Tools (BENCH_RR_TOOLS): host (no translator: the reference), ours
# (./pasta, measured from a copy), debian-pasta (/usr/bin/pasta),
# trixie-pasta (Debian 13's, test/trixie-pasta).  In the tool's namespace
# nginx runs as root in the initial user namespace, joined to that network
# namespace only (nsenter -n), exactly as in H and R.
# Every measurement is `wrk -t T -c N -d SECS --latency` (T = 2, or 1 for
# one connection: wrk wants at least one connection per thread), bounded
# by timeout(1); the translator and nginx are started afresh for each
# inbound measurement.  Order: for each run, each case, each connection
# count, each tool, so the tools of one row are measured side by side.
# Reported: median requests/s over the runs and its ratio to the host's
# median in this same invocation; medians of wrk's p50 and p99 latencies
# (wrk corrects them for coordinated omission: a stall of S adds samples
# from S down to the mean interval, so p99 shows stalls more than a plain
# percentile would); socket errors and non-2xx responses wrk counted.
#
# Environment (defaults in brackets; --quick changes the ones marked *):
#   BENCH_RR_SECS*    wrk duration, s [10]; --quick: 2
#   BENCH_RR_RUNS*    runs per measurement, median [3]; --quick: 1
#   BENCH_RR_CONNS*   connection counts ["1 32 128"]; --quick: "1 32"
#   BENCH_RR_CASES    ["outbound spliced hostaddr"]
#   BENCH_RR_TOOLS    ["host ours ours-bypass debian-pasta trixie-pasta"];
#                     --quick: "host ours debian-pasta"
#   BENCH_RR_OUT*     Markdown report [doc/benchmarks-rr.md at the top
#                     level]; --quick: none unless set
#   BENCH_RR_PORT_OUT nginx's port in R [8080]
#   BENCH_RR_PORT_IN  forwarded port (-t), nginx's port in H and in the
#                     translator's namespace [18080]
#   BENCH_RR_LISTEN6  1: nginx in H and in the translator's namespace listens
#                     on [::]:PORT too, as Debian's default site does [1];
#                     0: on 0.0.0.0:PORT only (when this was written, our
#                     pasta failed the spliced case so: it splices H's
#                     127.0.0.1 clients of an unbound -t port, one
#                     dual-stack socket, to the namespace's ::1)
#   PASTA             our binary [./pasta]; DEBIAN_PASTA [/usr/bin/pasta]
#   BENCH_LOCK        lock file: one bench at a time [/tmp/pasta-bench.lock]
#   BENCH_LOCK_WAIT   seconds to wait for it before giving up [5400]
#   KEEP_WORK=1       keep the work directory (every wrk output, nginx log)
#
# Exit status: 0 if every measurement of host and ours produced a request
# rate (--quick: the number of failed TAP lines).

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

bench_args "$@"

if [ $QUICK = 1 ]; then
	BENCH_RR_SECS=${BENCH_RR_SECS:-2}
	BENCH_RR_RUNS=${BENCH_RR_RUNS:-1}
	BENCH_RR_CONNS=${BENCH_RR_CONNS:-1 32}
	BENCH_RR_TOOLS=${BENCH_RR_TOOLS:-host ours debian-pasta}
	OUT=${BENCH_RR_OUT:-}
else
	OUT=${BENCH_RR_OUT:-$TOPDIR/doc/benchmarks-rr.md}
fi
SECS=${BENCH_RR_SECS:-10}
RUNS=${BENCH_RR_RUNS:-3}
CONNS=${BENCH_RR_CONNS:-1 32 128}
CASES=${BENCH_RR_CASES:-outbound spliced hostaddr}
TOOLS=${BENCH_RR_TOOLS:-host ours ours-bypass debian-pasta trixie-pasta}
PORT_OUT=${BENCH_RR_PORT_OUT:-8080}
PORT_IN=${BENCH_RR_PORT_IN:-18080}
LISTEN6=${BENCH_RR_LISTEN6:-1}
LISTEN_IN=$PORT_IN
[ "$LISTEN6" = 1 ] && LISTEN_IN="$PORT_IN [::]:$PORT_IN"

WRK_MARGIN=15		# s beyond -d before wrk is killed
FILE=1k.bin		# the 1 KiB file nginx serves
POLICY_RC=/usr/sbin/policy-rc.d
POLICY_RC_OURS=0	# 1: we wrote $POLICY_RC for the installation
NGINX_MASTERS=()	# nginx master PIDs still running, see nginx_stop
IN_NGINX=		# the inbound nginx (in H or in T_HOLD's namespace)

# --- packages ------------------------------------------------------------------------

# apt_has PKG - the archive has a candidate for PKG
apt_has() {
	local c
	c=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	[ -n "$c" ] && [ "$c" != "(none)" ]
}

# install_missing - wrk and nginx from Debian's archive, if not installed;
# nginx's system service must not start: a policy-rc.d forbids it for the
# installation if there is none (removed afterwards, and on exit)
install_missing() {
	local want=() rc
	command -v wrk >/dev/null || want+=(wrk)
	command -v nginx >/dev/null || want+=(nginx)
	[ ${#want[@]} = 0 ] && return 0
	command -v apt-get >/dev/null || die "missing ${want[*]}, and no apt-get"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt_has wrk || ! { apt_has nginx-light || apt_has nginx; }; then
		timeout 300 apt-get update -qq >/dev/null 2>&1 ||
			die "apt-get update failed"
	fi
	# nginx-light where there is one (Debian 12: nginx and a module)
	if [ "${want[*]: -1}" = nginx ] && apt_has nginx-light; then
		want[${#want[@]}-1]=nginx-light
	fi
	say "installing ${want[*]}"
	if [ ! -e "$POLICY_RC" ]; then
		printf '#!/bin/sh\n# test/bench-rr.sh: no service starts while it installs\nexit 101\n' \
			>"$POLICY_RC" && chmod 0755 "$POLICY_RC" && POLICY_RC_OURS=1
	fi
	timeout 600 apt-get install -y -qq --no-install-recommends "${want[@]}" \
		>"$WORK/apt.log" 2>&1
	rc=$?
	policy_rc_remove
	[ $rc = 0 ] || { tail -n 5 "$WORK/apt.log" >&2; die "apt-get install ${want[*]} failed"; }
	if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
		die "wrk or nginx still missing after installing ${want[*]}"
	fi
}

policy_rc_remove() {
	if [ "$POLICY_RC_OURS" = 1 ]; then
		rm -f "$POLICY_RC"
		POLICY_RC_OURS=0
	fi
}

# --- processes -----------------------------------------------------------------------

# nginx_conf DIR LISTEN... - DIR/nginx.conf: our own nginx, serving $WWW,
# one listen directive for each LISTEN
nginx_conf() {
	local d=$1 l listen=''
	shift
	for l in "$@"; do
		listen="$listen
		listen $l;"
	done
	mkdir -p "$d/tmp" || return 1
	cat >"$d/nginx.conf" <<EOF
# test/bench-rr.sh: a private nginx, started by the script and stopped by PID
daemon off;
master_process on;
worker_processes auto;
pid $d/nginx.pid;
error_log $d/error.log warn;
events {
	worker_connections 1024;
}
http {
	access_log off;
	default_type application/octet-stream;
	keepalive_requests 1000;
	keepalive_timeout 65s;
	client_body_temp_path $d/tmp/body;
	proxy_temp_path $d/tmp/proxy;
	fastcgi_temp_path $d/tmp/fastcgi;
	uwsgi_temp_path $d/tmp/uwsgi;
	scgi_temp_path $d/tmp/scgi;
	server {${listen}
		root $WWW;
	}
}
EOF
}

# nginx_start NAME LISTEN PORT NSPREFIX... - our nginx in the namespace that
# NSPREFIX enters (ip netns exec NS, or nsenter -t PID -n), listening on
# LISTEN (words: one listen directive each); waits (bounded) for its PID
# file and its listening socket.  Sets NGINX_PID (the master)
nginx_start() {
	local name=$1 listen=$2 port=$3 d=$WORK/nginx-$1
	shift 3
	NGINX_PID=
	# shellcheck disable=SC2086  # LISTEN: words on purpose
	nginx_conf "$d" $listen || return 1
	"$@" nginx -p "$d" -e "$d/error.log" -c "$d/nginx.conf" \
		>"$d/stdout" 2>&1 </dev/null &
	NGINX_PID=$!
	NGINX_MASTERS+=("$NGINX_PID")
	if ! _poll 10 test -s "$d/nginx.pid" ||
	   ! _poll 10 ns_listening "$port" "$@"; then
		echo "nginx $name did not start:" >>"$WORK/$name.err"
		cat "$d/error.log" "$d/stdout" >>"$WORK/$name.err" 2>/dev/null
		return 1
	fi
}

# nginx_stop PID - the master by PID (TERM: fast shutdown, bounded), then
# any of its workers still alive, by the PIDs they had
nginx_stop() {
	local pid=$1 kids i w
	kids=$(ps -o pid= --ppid "$pid" 2>/dev/null)
	stop_child "$pid"
	for w in $kids; do
		kill -0 "$w" 2>/dev/null || continue
		kill -TERM "$w" 2>/dev/null
		wait_gone "$w" 2 || kill -KILL "$w" 2>/dev/null
	done
	for i in "${!NGINX_MASTERS[@]}"; do
		[ "${NGINX_MASTERS[$i]}" = "$pid" ] && unset "NGINX_MASTERS[$i]"
	done
	NGINX_MASTERS=("${NGINX_MASTERS[@]}")
}

# inbound_start TOOL NAME - nginx on PORT_IN in TOOL's namespace, the
# translator forwarding H's PORT_IN to it (-t); waits until H listens there
inbound_start() {
	local tool=$1 name=$2 rc
	T_PID='' T_HOLD='' IN_NGINX=''
	if [ "$tool" = host ]; then
		nginx_start "$name" "$LISTEN_IN" "$PORT_IN" ip netns exec "$NS_H"
		rc=$?
		IN_NGINX=$NGINX_PID
		return $rc
	fi
	# The command only holds the namespace; nginx joins it from here
	bench_t_start "$tool" "$name" "$PORT_IN" $((SECS + WRK_MARGIN + 50)) ||
		return 1
	nginx_start "$name" "$LISTEN_IN" "$PORT_IN" nsenter -t "$T_HOLD" -n --
	rc=$?
	IN_NGINX=$NGINX_PID
	[ $rc = 0 ] || return 1
	bench_t_forwarded "$tool" "$name" "$PORT_IN"
}

# inbound_stop - inbound_start's nginx, then the translator; bounded
inbound_stop() {
	[ -n "$IN_NGINX" ] && nginx_stop "$IN_NGINX"
	IN_NGINX=
	bench_t_stop "$PORT_IN"
}

# shellcheck disable=SC2317  # the EXIT trap
rr_cleanup() {
	local rc=$? m
	{
		policy_rc_remove
		for m in "${NGINX_MASTERS[@]}"; do
			nginx_stop "$m"
		done
		[ -n "$T_PID" ] && inbound_stop
	} 2>/dev/null
	(exit "$rc")
	_cleanup
}

# --- measurements --------------------------------------------------------------------

# wrk_parse FILE - "req/s p50_us p99_us requests errors non2xx" from wrk's
# output (errors: connect,read,write,timeout socket errors); "-" for what
# is missing
wrk_parse() {
	awk '
	function us(v) {
		if (v ~ /us$/) return v + 0
		if (v ~ /ms$/) return v * 1000
		if (v ~ /s$/) return v * 1000000
		if (v ~ /m$/) return v * 60000000
		if (v ~ /h$/) return v * 3600000000
		return v + 0
	}
	BEGIN { rps = p50 = p99 = req = "-"; err = "0,0,0,0"; non2xx = 0 }
	$1 == "50%" { p50 = us($2) }
	$1 == "99%" { p99 = us($2) }
	/ requests in / { req = $1 }
	/^ *Socket errors:/ { gsub(",", ""); err = $4 "," $6 "," $8 "," $10 }
	/^ *Non-2xx or 3xx responses:/ { non2xx = $NF }
	/^Requests\/sec:/ { rps = $2 }
	END { print rps, p50, p99, req, err, non2xx }' "$1" 2>/dev/null
}

# measure CASE TOOL CONNS RUN - one wrk run; a line of $RESULTS
measure() {
	local kase=$1 tool=$2 conns=$3 run=$4 name url rc status note=''
	local threads=2 rps p50 p99 req err non2xx wrk
	name=$kase-$tool-c$conns-$run
	[ "$conns" -lt 2 ] && threads=$conns
	wrk=(timeout -k 5 $((SECS + WRK_MARGIN)) wrk -t "$threads" -c "$conns"
	     -d "${SECS}s" --latency)
	: >"$WORK/$name.err"
	case $kase in
	outbound)
		url=http://$SRV_ADDR:$PORT_OUT/$FILE
		tool_run "$tool" "$name" $((SECS + WRK_MARGIN + 10)) -- \
			"${wrk[@]}" "$url"
		rc=$?
		;;
	spliced|hostaddr)
		url=http://127.0.0.1:$PORT_IN/$FILE
		[ "$kase" = hostaddr ] && url=http://$H_ADDR:$PORT_IN/$FILE
		if inbound_start "$tool" "$name"; then
			as_user_h $((SECS + WRK_MARGIN + 10)) "${wrk[@]}" "$url" \
				>"$WORK/$name.out" 2>>"$WORK/$name.err" </dev/null
			rc=$?
		else
			rc=125
			: >"$WORK/$name.out"
			note="set-up failed: $(grep -v '^ *$' "$WORK/$name.err" |
				tail -n 1 | cut -c1-80)"
		fi
		inbound_stop
		;;
	esac

	read -r rps p50 p99 req err non2xx < <(wrk_parse "$WORK/$name.out")
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		status=stall note="killed after $((SECS + WRK_MARGIN)) s"
	elif [ "$rc" != 0 ] || [ "$rps" = - ] ||
	     ! awk -v r="$rps" 'BEGIN { exit !(r > 0) }'; then
		status=fail
	elif [ "$non2xx" != 0 ]; then
		status=fail note="$non2xx of $req responses not 2xx or 3xx"
	else
		status=ok
	fi
	if [ "$status" = fail ] && [ "$rc" = 0 ] && [ -z "$note" ]; then
		note="no request completed"
	elif [ "$status" = fail ]; then
		[ -n "$note" ] || note="exit $rc: $(cat "$WORK/$name.out" \
			"$WORK/$name.err" 2>/dev/null | grep -v '^ *$' |
			tail -n 1 | cut -c1-80)"
	fi
	[ "$status" = ok ] || rps=0
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kase" \
		"$conns" "$tool" "$run" "$status" "$rps" "$p50" "$p99" "$req" \
		"$err" "$non2xx" "${note//$'\t'/ }" >>"$RESULTS"
	LAST_STATUS=$status LAST_RPS=$rps LAST_NAME=$name
	LAST_DESC="$(printf '%-8s %3s conn %-12s run %s: %9s req/s, p50 %s us, p99 %s us, socket errors c,r,w,t %s, non-2xx %s%s' \
		"$kase" "$conns" "$tool" "$run" "$rps" "$p50" "$p99" "$err" \
		"$non2xx" "${note:+ ($note)}")"
}

# --- report --------------------------------------------------------------------------

# facts - the machine and the tools, key<TAB>value
facts() {
	bench_facts_machine "$TOOLS"
	printf 'version wrk\t%s\n' "$(wrk -v 2>&1 | head -n 1 | cut -d' ' -f1-2)"
	printf 'version nginx\t%s\n' "$(nginx -v 2>&1 | head -n 1)"
	printf 'secs\t%s\n' "$SECS"
	printf 'runs\t%s\n' "$RUNS"
	printf 'conns\t%s\n' "$CONNS"
	printf 'listen R\t%s\n' "$SRV_ADDR:$PORT_OUT"
	printf 'listen inbound\t%s\n' "$LISTEN_IN"
	bench_facts_run
}

# report RESULTS FACTS NGINX_CONF - the Markdown report on stdout
report() {
	"$PY" - "$@" "$TOOLS" "$CASES" "$CONNS" <<'EOF'
import statistics, sys

results, facts_path, conf_path, tools, cases, conns = sys.argv[1:7]
tools, cases, conns = tools.split(), cases.split(), conns.split()
facts = {}
for line in open(facts_path):
    k, _, v = line.rstrip("\n").partition("\t")
    facts[k] = v
rows = {}
for line in open(results):
    f = line.rstrip("\n").split("\t")
    rows.setdefault((f[0], f[1], f[2]), []).append(f[3:])

CASE = {
    "outbound": "wrk in the tool's namespace to nginx in R (198.51.100.1)",
    "spliced": "nginx in the tool's namespace, its port forwarded with `-t`; "
               "wrk in H to 127.0.0.1:PORT (the translators splice it "
               "socket to socket)",
    "hostaddr": "the same, wrk in H to H's own address 203.0.113.1:PORT "
                "(through the tap)",
}
CASE_SHORT = {"outbound": "outbound", "spliced": "inbound, 127.0.0.1",
              "hostaddr": "inbound, H's address"}

def num(v):
    try:
        return float(v)
    except ValueError:
        return None

def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None

def ms(us):
    if us is None:
        return "-"
    v = us / 1000
    if v < 1:
        return "%.3f" % v
    if v < 10:
        return "%.2f" % v
    if v < 100:
        return "%.1f" % v
    return "%.0f" % v

def stats(key):
    r = rows.get(key, [])
    ok = [x for x in r if x[1] == "ok"]
    return (med([num(x[2]) for x in ok]), med([num(x[3]) for x in ok]),
            med([num(x[4]) for x in ok]), len(ok), len(r))

print("## Request rates: wrk against nginx, 1 KiB file\n")
print("Command: `%s`  " % facts.get("command", "?"))
print("Date: %s; machine: %s CPUs (nproc), %s, kernel %s, %s; "
      "%s s of wrk per measurement, %s run(s), medians.\n" % (
          facts.get("date"), facts.get("nproc"), facts.get("cpu"),
          facts.get("kernel"), facts.get("os"), facts.get("secs"),
          facts.get("runs")))
print("`wrk -t 2 -c N -d %ss --latency` (`-t 1` for one connection) against "
      "our own nginx (worker_processes auto, access_log off, keep-alive with "
      "nginx's default 1000 requests per connection; in H and in the "
      "translator's namespace listening on %s, see below) "
      "serving a 1 KiB file; "
      "H and R joined by a veth, no delay line (test/bench-lib.sh). "
      "req/s: median over the runs; x host: that median over the host's "
      "median for the same case and connections, in this same invocation; "
      "p50 / p99: medians of wrk's latency percentiles, in ms (wrk "
      "corrects them for coordinated omission: one stall of S ms adds "
      "samples from S down to the mean interval between requests, so p99 "
      "shows stalls more than a plain percentile would). "
      "host is the reference with no translator: wrk in H to nginx in R "
      "(outbound), wrk and nginx both in H (inbound, to 127.0.0.1 or to "
      "203.0.113.1). In a translator's namespace, nginx runs as root "
      "joined to that network namespace alone (nsenter -n), the "
      "translator forwards the port with `-t`, and the translator and "
      "nginx are started afresh for each inbound measurement "
      "(`test/bench-rr.sh`).\n" % (
          facts.get("secs"),
          "IPv4 and IPv6" if len(facts.get("listen inbound", "").split()) > 1
          else "IPv4 only"))
for c in cases:
    print("- **%s**: %s" % (CASE_SHORT.get(c, c), CASE.get(c, c)))
print()

hdr = ["case", "conns"]
align = ["---", "--:"]
for t in tools:
    if t == "host":
        hdr += ["host req/s", "host p50 / p99"]
        align += ["--:", "--:"]
    else:
        hdr += ["%s req/s" % t, "x host", "%s p50 / p99" % t]
        align += ["--:", "--:", "--:"]
print("| " + " | ".join(hdr) + " |")
print("|" + "|".join(align) + "|")
for c in cases:
    for n in conns:
        host = stats((c, n, "host"))[0]
        cells = [CASE_SHORT.get(c, c), n]
        for t in tools:
            rps, p50, p99, nok, nall = stats((c, n, t))
            cell = "%.0f" % rps if rps is not None else "failed"
            if nall and nok < nall:
                cell += " (%d/%d ok)" % (nok, nall)
            cells.append(cell)
            if t != "host":
                cells.append("%.2f" % (rps / host)
                             if rps is not None and host else "-")
            cells.append("%s / %s" % (ms(p50), ms(p99)))
        print("| " + " | ".join(cells) + " |")
print()

notes = []
for c in cases:
    for n in conns:
        for t in tools:
            for x in rows.get((c, n, t), []):
                run, status, rps, p50, p99, req, err, non2xx, note = x
                bits = []
                if status != "ok":
                    bits.append("%s%s" % (status, ": " + note if note else ""))
                e = [int(v) for v in err.split(",")] if err != "-" else []
                if sum(e):
                    bits.append("socket errors: %s (%s requests)" % (", ".join(
                        "%s %d" % (k, v) for k, v in zip(
                            ("connect", "read", "write", "timeout"), e) if v),
                        req))
                if non2xx not in ("0", "-"):
                    bits.append("%s non-2xx/3xx responses" % non2xx)
                if bits:
                    notes.append("- %s, %s connections, %s, run %s: %s" % (
                        CASE_SHORT.get(c, c), n, t, run, "; ".join(bits)))
print("Failures and errors wrk reported:\n")
print("\n".join(notes) if notes else "- none")
print()

print("Every run, req/s:\n")
print("| case | conns | tool | " + " | ".join(
    "run %d" % (i + 1) for i in range(int(facts.get("runs", "1")))) + " |")
print("|---|--:|---|" + "--:|" * int(facts.get("runs", "1")))
for c in cases:
    for n in conns:
        for t in tools:
            r = rows.get((c, n, t), [])
            print("| %s | %s | %s | %s |" % (CASE_SHORT.get(c, c), n, t, " | ".join(
                ("%.0f" % float(x[2])) if x[1] == "ok" else x[1] for x in r)))
print()

print("Versions and conditions:\n")
for k, v in facts.items():
    if k.startswith("version ") or k in ("ours binary", "duration",
                                         "load average at start / end",
                                         "CPU steal time during the run"):
        print("- %s: %s" % (k, v))
print()
print("nginx configuration (LISTEN: `%s` in R; `%s` in H and in the "
      "translator's namespace, one `listen` each; WORK: the run's work "
      "directory):\n" % (facts.get("listen R"),
                          "`, `".join(facts.get("listen inbound", "").split())))
print("```nginx")
print(open(conf_path).read().rstrip())
print("```")
EOF
}

# --- main ----------------------------------------------------------------------------

bench_need ip nsenter setpriv timeout flock ss awk
bench_words BENCH_RR_TOOLS "$TOOLS" host ours ours-bypass ours-ref debian-pasta \
	trixie-pasta
bench_words BENCH_RR_CASES "$CASES" outbound spliced hostaddr
for n in $CONNS; do
	[ "$n" -ge 1 ] 2>/dev/null || die "BENCH_RR_CONNS: positive numbers, not $n"
done

bench_begin rr_cleanup -rr
install_missing

bench_tools_present

bench_ours_copy

WWW=$WORK/www
{ mkdir -m 0755 "$WWW" && head -c 1024 /dev/urandom >"$WWW/$FILE" &&
	chmod 0644 "$WWW/$FILE"; } || die "cannot write $WWW/$FILE"

bench_plan "$CASES" "$CONNS"

setup_ok=0
if bench_topo_create 0 &&
   nginx_start r "$SRV_ADDR:$PORT_OUT" "$PORT_OUT" ip netns exec "$NS_R"; then
	setup_ok=1
	R_NGINX=$NGINX_PID
fi
bench_setup_done $setup_ok "topology (veth) and nginx in R on $SRV_ADDR:$PORT_OUT"

while read -r -u 3 run kase conns tool; do
	measure "$kase" "$tool" "$conns" "$run"
	bench_tally "$tool" "$kase, $tool, $conns connection(s)" "$LAST_RPS req/s"
done 3< <(bench_rounds "$CASES" "$CONNS")

nginx_stop "$R_NGINX"
facts >"$WORK/facts"
# The configuration as written, with the run's own values named
sed -e "s|$WORK|WORK|g" -e "s|listen .*;|listen LISTEN;|" \
	"$WORK/nginx-r/nginx.conf" >"$WORK/nginx.conf.doc"
report "$RESULTS" "$WORK/facts" "$WORK/nginx.conf.doc" >"$WORK/report.md"
bench_publish $FAILED
