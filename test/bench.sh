#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/bench.sh - throughput of the translators over an emulated WAN: what
# `make bench` and `make bench-quick` run (issue 3)
#
# Usage, as root from the top directory after `make` and
# `make test/delayline`:
#
#   test/bench.sh            full table: doc/benchmarks.md, doc/bench-*.png
#   test/bench.sh --quick    one RTT, one run, short transfers, one IPv6
#                            upload for host and ours; TAP output, asserts
#                            only that every tool produced a number and
#                            every transfer completed; writes no doc
#
# For each RTT in BENCH_RTTS, H and R (see bench-lib.sh) are joined by a
# veth (RTT 0) or by test/delayline (RTT/2 each way, 1 Gbit/s cap).  For each
# congestion control in BENCH_CCS (set in H, R and the client namespace),
# and each tool in BENCH_TOOLS (host = no translator, the reference):
#   - iperf3 upload and download (-R), BENCH_SECS s, BENCH_RUNS runs, to
#     198.51.100.1 in R: receiver's Mbit/s; retransmitted segments in the
#     client namespace (guest to translator), in the sending namespace
#     beyond the translator (H for upload, R for download), and the delay
#     line's drops; the translator's CPU time per GB and peak RSS;
#   - curl: a BENCH_CURL_MB MB GET and PUT against test/httpd.py in R,
#     BENCH_CURL_RUNS runs, -m BENCH_CURL_TIMEOUT (a timeout counts as that
#     many seconds and is flagged);
# for each RTT in BENCH_IPV6_RTTS and CC in BENCH_IPV6_CCS, in the same
# rounds (each round: every tool over IPv4, each run starting one tool
# further on (in_turn), then every tool of
# BENCH_IPV6_TOOLS over IPv6), iperf3 over IPv6 to 2001:db8:2::1 in R, the
# host's own IPv6 the baseline, reported side by side with the same tool's
# IPv4 figure of this run (doc/benchmarks.md, "IPv6"; where the main table
# does not run at that RTT and CC, ours is measured over IPv4 there too);
# slirp4netns gets --enable-ipv6 for these (its namespace configures IPv6
# by SLAAC: bench-inner.sh -6 waits for that, bounded, before measuring;
# with the defaults, the IPv6 rows add about 10 minutes to the full run);
# then, at BENCH_SERIES_RTT, BENCH_SERIES_RUNS consecutive iperf3 uploads
# and downloads per tool with BENCH_SERIES_CC, each printed.  Runs are
# sequential; nothing runs in parallel with a measurement.  Everything is
# bounded in time; a transfer that hangs is killed and recorded as "stall"
# (iperf3: 15 s past its duration; curl: its own -m timeout, "timeout").
#
# Environment (defaults in brackets; --quick changes the ones marked *):
#   BENCH_RTTS*       RTTs in ms ["0 10 50 170"]; --quick: 10
#   BENCH_CCS*        congestion controls ["cubic bbr"]; --quick: cubic
#   BENCH_TOOLS       ["host ours ours-bypass debian-pasta slirp4netns"]
#   BENCH_SECS*       iperf3 duration [10]; --quick: 3
#   BENCH_RUNS*       iperf3 runs per row [3]; --quick: 1
#   BENCH_CURL_RUNS*  curl runs per row [BENCH_RUNS]
#   BENCH_CURL_MB     size of the HTTP transfers, MB of 10^6 bytes [10]
#   BENCH_CURL_TIMEOUT  curl -m, seconds [30]
#   BENCH_SERIES_RTT* RTT of the consecutive-runs series [80]; empty: none;
#                     --quick: none
#   BENCH_IPV6_RTTS*  RTTs of the IPv6 rows ["0 50"]; empty: none;
#                     --quick: the first of BENCH_RTTS
#   BENCH_IPV6_CCS*   their congestion controls [cubic]; --quick: the
#                     first of BENCH_CCS
#   BENCH_IPV6_TOOLS* [BENCH_TOOLS]; --quick: "host ours"
#   BENCH_IPV6_DIRS*  ["upload download"]; --quick: upload
#   BENCH_IPV6_RUNS   iperf3 runs per IPv6 row [BENCH_RUNS]
#   BENCH_SERIES_RUNS [10]   BENCH_SERIES_CC [cubic]
#   BENCH_SERIES_SECS [BENCH_SECS]
#   BENCH_STALL_SKIP  after this many consecutive stalls (iperf3 killed,
#                     curl timed out) of one tool in one kind of transfer at
#                     one RTT and CC, its remaining runs there are recorded
#                     as skipped, counted as 0 Mbit/s or as the timeout,
#                     not run [2]; 0: always run
#   BENCH_RATE_MBIT   delay line rate cap [1000]
#   BENCH_DL_OPTS     extra delay line options, e.g. "--queue-bytes N"
#   BENCH_RMEM, BENCH_WMEM  tcp_rmem / tcp_wmem for every namespace
#                     [those of a fresh namespace: the kernel's defaults]
#   BENCH_DOC*        write doc/benchmarks.md and the plots [1]; --quick: 0
#   BENCH_DOCDIR      where [doc/ at the top level]
#   PASTA             our binary [./pasta]; DEBIAN_PASTA [/usr/bin/pasta];
#   SLIRP             [slirp4netns]; DELAYLINE [test/delayline]
#   BENCH_LOCK        lock file: one bench at a time [/tmp/pasta-bench.lock]
#   BENCH_LOCK_WAIT   seconds to wait for it before giving up [5400]
#   KEEP_WORK=1       keep the work directory (every log, JSON, result)

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/bench-lib.sh
. "$(dirname "$0")/bench-lib.sh"

bench_args "$@"

if [ $QUICK = 1 ]; then
	BENCH_RTTS=${BENCH_RTTS:-10}
	BENCH_CCS=${BENCH_CCS:-cubic}
	BENCH_SECS=${BENCH_SECS:-3}
	BENCH_RUNS=${BENCH_RUNS:-1}
	BENCH_SERIES_RTT=${BENCH_SERIES_RTT-}
	BENCH_DOC=${BENCH_DOC:-0}
	read -r _first _ <<<"${BENCH_RTTS}"
	BENCH_IPV6_RTTS=${BENCH_IPV6_RTTS-$_first}
	read -r _first _ <<<"${BENCH_CCS}"
	BENCH_IPV6_CCS=${BENCH_IPV6_CCS:-$_first}
	BENCH_IPV6_TOOLS=${BENCH_IPV6_TOOLS:-host ours}
	BENCH_IPV6_DIRS=${BENCH_IPV6_DIRS:-upload}
fi
BENCH_RTTS=${BENCH_RTTS:-0 10 50 170}
BENCH_CCS=${BENCH_CCS:-cubic bbr}
BENCH_TOOLS=${BENCH_TOOLS:-host ours ours-bypass debian-pasta slirp4netns}
BENCH_SECS=${BENCH_SECS:-10}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_CURL_RUNS=${BENCH_CURL_RUNS:-$BENCH_RUNS}
BENCH_CURL_MB=${BENCH_CURL_MB:-10}
BENCH_CURL_TIMEOUT=${BENCH_CURL_TIMEOUT:-30}
BENCH_SERIES_RTT=${BENCH_SERIES_RTT-80}
BENCH_SERIES_RUNS=${BENCH_SERIES_RUNS:-10}
BENCH_SERIES_CC=${BENCH_SERIES_CC:-cubic}
BENCH_SERIES_SECS=${BENCH_SERIES_SECS:-$BENCH_SECS}
BENCH_STALL_SKIP=${BENCH_STALL_SKIP:-2}
BENCH_IPV6_RTTS=${BENCH_IPV6_RTTS-0 50}
BENCH_IPV6_CCS=${BENCH_IPV6_CCS:-cubic}
BENCH_IPV6_TOOLS=${BENCH_IPV6_TOOLS:-$BENCH_TOOLS}
BENCH_IPV6_DIRS=${BENCH_IPV6_DIRS:-upload download}
BENCH_IPV6_RUNS=${BENCH_IPV6_RUNS:-$BENCH_RUNS}
BENCH_DOC=${BENCH_DOC:-1}
BENCH_DOCDIR=${BENCH_DOCDIR:-$TOPDIR/doc}

IPERF_PORT=5201
IPERF_MARGIN=15		# s beyond -t before an iperf3 run counts as stalled
IPV6_WAIT=8		# s bench-inner.sh waits for IPv6 (SLAAC), in the margin;
			# bench-report.py's IPV6_METHOD says so
declare -A STALLS	# consecutive stalls per kind/tool/dir, see skipped()
HTTP_PORT=8080
RESULTS=
ALLOWED_CC_ORIG=

# --- output ------------------------------------------------------------------------

# say MSG... - progress: TAP comments in --quick mode, stderr otherwise
die() {
	echo "bench.sh: $*" >&2
	exit 1
}

# in_list WORD LIST - WORD is one of the words of LIST
in_list() {
	local x
	for x in $2; do
		[ "$x" = "$1" ] && return 0
	done
	return 1
}

# union LIST1 LIST2 - the words of LIST1, then those of LIST2 not in LIST1
union() {
	local out=() x
	for x in $1 $2; do
		in_list "$x" "${out[*]}" || out+=("$x")
	done
	echo "${out[*]}"
}

# --- set-up ------------------------------------------------------------------------

# cc_prepare - every CC in BENCH_CCS (and BENCH_SERIES_CC, BENCH_IPV6_CCS)
# available and allowed in non-initial namespaces; the allowed list is
# restored on exit
cc_prepare() {
	local cc avail allowed want
	ALLOWED_CC_ORIG=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
	want=$BENCH_CCS
	[ -n "$BENCH_SERIES_RTT" ] && want="$want $BENCH_SERIES_CC"
	[ -n "$BENCH_IPV6_RTTS" ] && want="$want $BENCH_IPV6_CCS"
	allowed=$ALLOWED_CC_ORIG
	for cc in $want; do
		avail=$(sysctl -n net.ipv4.tcp_available_congestion_control)
		if ! grep -qw "$cc" <<<"$avail"; then
			modprobe "tcp_$cc" 2>/dev/null
			avail=$(sysctl -n net.ipv4.tcp_available_congestion_control)
			grep -qw "$cc" <<<"$avail" ||
				die "congestion control $cc not available ($avail)"
		fi
		grep -qw "$cc" <<<"$allowed" || allowed="$allowed $cc"
	done
	if [ "$allowed" != "$ALLOWED_CC_ORIG" ]; then
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed" ||
			die "cannot allow congestion controls: $allowed"
	fi
}

bench_cleanup() {
	local rc=$?
	if [ -n "$ALLOWED_CC_ORIG" ]; then
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$ALLOWED_CC_ORIG"
	fi
	# lib.sh's _cleanup exits with the status it finds in $?
	(exit $rc)
	_cleanup
}

# facts - the machine and the tools, key<TAB>value, for the report
facts() {
	bench_facts_machine "$(union "$BENCH_TOOLS" "$TOOLS6")"
	printf 'version iperf3\t%s\n' "$(iperf3 --version 2>&1 | head -n 1)"
	printf 'version curl\t%s\n' "$(curl --version 2>&1 | head -n 1 | cut -d' ' -f1-2)"
	printf 'tcp_rmem\t%s\n' "$BENCH_RMEM"
	printf 'tcp_wmem\t%s\n' "$BENCH_WMEM"
	printf 'core.rmem_max/wmem_max\t%s / %s\n' \
		"$(sysctl -n net.core.rmem_max)" "$(sysctl -n net.core.wmem_max)"
	printf 'rate_mbit\t%s\n' "$BENCH_RATE_MBIT"
	printf 'secs\t%s\n' "$BENCH_SECS"
	printf 'runs\t%s\n' "$BENCH_RUNS"
	printf 'curl_runs\t%s\n' "$BENCH_CURL_RUNS"
	printf 'curl_mb\t%s\n' "$BENCH_CURL_MB"
	printf 'curl_timeout\t%s\n' "$BENCH_CURL_TIMEOUT"
	printf 'rtts\t%s\n' "$BENCH_RTTS"
	printf 'ccs\t%s\n' "$BENCH_CCS"
	printf 'tools\t%s\n' "$BENCH_TOOLS"
	printf 'ipv6\t%s\n' "${TOOLS6:+iperf3 at RTT $BENCH_IPV6_RTTS ms, $BENCH_IPV6_CCS, $BENCH_IPV6_DIRS, $BENCH_IPV6_RUNS run(s)}"
	printf 'ipv6_tools\t%s\n' "$(union "" "$TOOLS6")"
	printf 'series_secs\t%s\n' "$BENCH_SERIES_SECS"
	printf 'series\t%s\n' "${BENCH_SERIES_RTT:+$BENCH_SERIES_RUNS runs of $BENCH_SERIES_SECS s at $BENCH_SERIES_RTT ms, $BENCH_SERIES_CC}"
	printf 'dl_opts\t%s\n' "${BENCH_DL_OPTS:-}"
	printf 'clk_tck\t%s\n' "$(getconf CLK_TCK)"
	bench_facts_run
}

# --- measurements ------------------------------------------------------------------

# _inner_args TOOL NAME - bench-inner.sh's options for TOOL (the host's
# namespace is H, already set up by bench_sysctls)
_inner_args() {
	INNER_ARGS=(-r "$WORK/u/$2.res")
	[ "$1" = host ] ||
		INNER_ARGS+=(-p "$WORK/u/$2.tpid" -c "$CUR_CC" -m "$BENCH_RMEM"
			     -w "$BENCH_WMEM")
}

# _res NAME KEY - a value from bench-inner.sh's result file
_res() {
	sed -n "s/^$2=//p" "$WORK/u/$1.res" 2>/dev/null
}

# record KIND TOOL DIR RUN STATUS VALUE BYTES NAME H0 H1 R0 R1 DL0 DL1 ZERO NOTE
# - one line of $RESULTS (the columns are bench-report.py's)
record() {
	local kind=$1 tool=$2 dir=$3 run=$4 status=$5 value=$6 bytes=$7 name=$8
	local h0=$9 h1=${10} r0=${11} r1=${12} dl0=${13} dl1=${14} zero=${15}
	local note=${16} q0 l0 t0 q1 l1 t1
	read -r q0 l0 t0 <<<"$dl0"
	read -r q1 l1 t1 <<<"$dl1"
	printf '%s\t' "$kind" "$tool" "$CUR_CC" "$CUR_RTT" "$dir" "$run" \
		"$status" "$value" "$bytes" "$(_res "$name" cpu_ticks)" \
		"$(_res "$name" hwm_kb)" "$(_res "$name" retrans)" \
		"$((h1 - h0))" "$((r1 - r0))" "$((q1 - q0))" "$((l1 - l0))" \
		"$((t1 - t0))" "$zero" "$(_res "$name" cc)" >>"$RESULTS"
	note=${note//$'\t'/ }
	printf '%s\n' "${note:--}" >>"$RESULTS"
}

# skipped KIND TOOL DIR RUN VALUE - if this tool stalled BENCH_STALL_SKIP
# times in a row in this kind of transfer (same RTT and CC), record the run
# as skipped (VALUE: 0 Mbit/s, or the curl timeout) instead of waiting for
# another stall; returns 1 if the run should go ahead
skipped() {
	local key=$1/$2/$3 n
	n=${STALLS[$key]:-0}
	[ "$BENCH_STALL_SKIP" -gt 0 ] && [ "$n" -ge "$BENCH_STALL_SKIP" ] ||
		return 1
	record "$1" "$2" "$3" "$4" skip "$5" 0 none 0 0 0 0 "0 0 0" "0 0 0" 0 \
		"not run: stalled $n times in a row before"
	say "$(printf '%-6s %3s ms %-12s %-8s %-6s %2s: skipped, stalled %d times before' \
	       "$CUR_CC" "$CUR_RTT" "$2" "$3" "$1" "$4" "$n")"
	LAST_STATUS=skip LAST_VALUE=$5 LAST_NAME=none
	return 0
}

# stalled KIND TOOL DIR STATUS - count consecutive stalls
stalled() {
	case $4 in
	stall|timeout) STALLS[$1/$2/$3]=$(( ${STALLS[$1/$2/$3]:-0} + 1 )) ;;
	*) STALLS[$1/$2/$3]=0 ;;
	esac
}

# kind_label KIND - how a kind of iperf3 run is named in progress and TAP
kind_label() {
	case $1 in
	iperf6)	echo "iperf3 IPv6" ;;
	iperf4)	echo "iperf3 IPv4" ;;
	*)	echo "iperf3" ;;
	esac
}

# measure_iperf KIND TOOL DIR RUN SECS - one iperf3 run; prints the value.
# KIND iperf6 runs over IPv6 (to $SRV_ADDR6), every other one over IPv4
# (iperf: the main table, iperf4: the IPv4 reference of the IPv6 rows,
# series: the consecutive runs)
measure_iperf() {
	local kind=$1 tool=$2 dir=$3 run=$4 secs=$5 name flag='' rc
	local h0 h1 r0 r1 dl0 dl1 srv status mbps bytes zero note='' json
	local addr=$SRV_ADDR fam=() slirp=$SLIRP
	name=$kind-$tool-$CUR_CC-$CUR_RTT-$dir-$run
	json=$WORK/u/$name.json
	skipped "$kind" "$tool" "$dir" "$run" 0 && return
	[ "$dir" = download ] && flag=-R
	if [ "$kind" = iperf6 ]; then
		addr=$SRV_ADDR6 fam=(-6) slirp=${SLIRP6:-$SLIRP}
	fi

	bg_r "$name-srv" iperf3 -s -1 -B "$addr" -p "$IPERF_PORT"
	srv=$BG_PID
	wait_tcp "$NS_R" "$IPERF_PORT" 10 "$addr" ||
		note="iperf3 server did not start"

	_inner_args "$tool" "$name"
	[ "$kind" = iperf6 ] && INNER_ARGS+=(-6 "$IPV6_WAIT")
	h0=$(snmp_retrans "$NS_H"); r0=$(snmp_retrans "$NS_R"); dl0=$(dl_counters)
	SLIRP=$slirp tool_run "$tool" "$name" $((secs + IPERF_MARGIN)) -- \
		sh "$INNER" "${INNER_ARGS[@]}" \
		-o "$json" -- iperf3 "${fam[@]}" -c "$addr" -p "$IPERF_PORT" \
		-t "$secs" $flag -J --connect-timeout 5000
	rc=$?
	h1=$(snmp_retrans "$NS_H"); r1=$(snmp_retrans "$NS_R"); dl1=$(dl_counters)
	stop_child "$srv"

	read -r mbps bytes zero < <("$PY" "$TESTDIR/bench-report.py" iperf "$json")
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		status=stall
		note="killed after $((secs + IPERF_MARGIN)) s"
	elif [ "$rc" != 0 ] || [ "$mbps" = - ]; then
		status=fail
		note="exit $rc: $("$PY" "$TESTDIR/bench-report.py" iperf-error "$json" \
			"$WORK/$name.err" | tr '\t\n' '  ' | cut -c1-100)"
	else
		status=ok
	fi
	[ "$status" = ok ] || { mbps=0; bytes=0; }
	record "$kind" "$tool" "$dir" "$run" "$status" "$mbps" "$bytes" "$name" \
		"$h0" "$h1" "$r0" "$r1" "$dl0" "$dl1" "${zero:-0}" "$note"
	say "$(printf '%-6s %3s ms %-12s %-8s %s %2s: %7s Mbit/s %s' \
	       "$CUR_CC" "$CUR_RTT" "$tool" "$dir" "$(kind_label "$kind")" \
	       "$run" "$mbps" \
	       "$status${note:+ ($note)}")" \
	    "retr guest $(_res "$name" retrans) H $((h1 - h0)) R $((r1 - r0))"
	stalled "$kind" "$tool" "$dir" "$status"
	LAST_STATUS=$status LAST_VALUE="$mbps Mbit/s" LAST_NAME=$name
}

# measure_curl TOOL DIR RUN - one HTTP transfer of BENCH_CURL_MB MB
measure_curl() {
	local tool=$1 dir=$2 run=$3 name url out rc code t size status note=
	local h0 h1 r0 r1 dl0 dl1 want=200 args=()
	name=curl-$tool-$CUR_CC-$CUR_RTT-$dir-$run
	skipped curl "$tool" "$dir" "$run" "$BENCH_CURL_TIMEOUT.0" && return
	url=http://$SRV_ADDR:$HTTP_PORT
	if [ "$dir" = download ]; then
		args=(-o /dev/null "$url/file")
	else
		args=(-o /dev/null -T "$WORK/upload.bin" "$url/up-$name")
		want=201
	fi
	_inner_args "$tool" "$name"
	out=$WORK/u/$name.w
	h0=$(snmp_retrans "$NS_H"); r0=$(snmp_retrans "$NS_R"); dl0=$(dl_counters)
	tool_run "$tool" "$name" $((BENCH_CURL_TIMEOUT + 20)) -- sh "$INNER" \
		"${INNER_ARGS[@]}" -o "$out" -- curl -sS -m "$BENCH_CURL_TIMEOUT" \
		-w '%{http_code} %{time_total} %{size_download} %{size_upload}\n' \
		"${args[@]}"
	rc=$?
	h1=$(snmp_retrans "$NS_H"); r1=$(snmp_retrans "$NS_R"); dl1=$(dl_counters)
	rm -f "$HTTP_DIR/up-$name"
	read -r code t _ _ <"$out" 2>/dev/null

	if [ "$rc" = 28 ]; then
		status=timeout t=$BENCH_CURL_TIMEOUT.0
		note="timed out after ${BENCH_CURL_TIMEOUT} s"
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		status=stall t=$BENCH_CURL_TIMEOUT.0
		note="killed after $((BENCH_CURL_TIMEOUT + 20)) s"
	elif [ "$rc" != 0 ] || [ "$code" != "$want" ]; then
		status=fail t=${t:-0}
		note="exit $rc, HTTP ${code:-none}: $(grep -v '^$' "$WORK/$name.err" |
			tail -n 1 | cut -c1-80)"
	else
		status=ok
	fi
	size=$((BENCH_CURL_MB * 1000000))
	record curl "$tool" "$dir" "$run" "$status" "$t" "$size" "$name" \
		"$h0" "$h1" "$r0" "$r1" "$dl0" "$dl1" 0 "$note"
	say "$(printf '%-6s %3s ms %-12s %-8s curl   %2s: %7s s %s' \
	       "$CUR_CC" "$CUR_RTT" "$tool" "$dir" "$run" "$t" \
	       "$status${note:+ ($note)}")"
	stalled curl "$tool" "$dir" "$status"
	LAST_STATUS=$status LAST_VALUE="$t s" LAST_NAME=$name
}

# --- TAP for --quick -----------------------------------------------------------------

# check KIND TOOL DIR - one TAP line for the last measurement
check() {
	if [ $QUICK = 1 ]; then
		if [ "$LAST_STATUS" = ok ]; then
			ok 0 "$1 $3 through $2 at $CUR_RTT ms: $LAST_VALUE"
		else
			ok 1 "$1 $3 through $2 at $CUR_RTT ms: $LAST_STATUS"
			diag_file "$WORK/$LAST_NAME.err" 10
		fi
	fi
}

# --- the runs --------------------------------------------------------------------------

# topology RTT [6] - fresh H and R for this RTT, servers in R; 6: the
# IPv6 RTT is measured too
topology() {
	local rtt=$1 v6=${2:-}
	bench_topo_destroy
	if ! bench_topo_create "$rtt"; then
		[ $QUICK = 1 ] && ok 1 "topology at $rtt ms"
		return 1
	fi
	if ! start_httpd "$NS_R" "$SRV_ADDR" "$HTTP_PORT" "$HTTP_DIR" "httpd-$rtt"
	then
		[ $QUICK = 1 ] && ok 1 "topology at $rtt ms: httpd"
		return 1
	fi
	[ $QUICK = 1 ] && ok 0 "topology at $rtt ms (delay line and servers up)"
	local p
	p=$(in_h ping -c 5 -i 0.2 -q "$SRV_ADDR" 2>/dev/null | sed -n 's|^rtt [^=]*= [^/]*/\([^/]*\)/.*|\1|p')
	printf 'measured RTT %s ms\t%s ms (ping H to server)\n' "$rtt" "${p:-?}" >>"$WORK/facts"
	say "topology at $rtt ms up, ping H -> $SRV_ADDR: ${p:-?} ms"
	[ -n "$v6" ] || return 0
	p=$(in_h ping -6 -c 5 -i 0.2 -q "$SRV_ADDR6" 2>/dev/null | sed -n 's|^rtt [^=]*= [^/]*/\([^/]*\)/.*|\1|p')
	printf 'measured RTT %s ms, IPv6\t%s ms (ping H to server)\n' "$rtt" "${p:-?}" >>"$WORK/facts"
	say "ping H -> $SRV_ADDR6: ${p:-?} ms"
}

# _combo RTT CC - what runs at this RTT and CC: C_MAIN=1 the main table
# (every tool over IPv4, iperf3 and curl), C_V6=1 the IPv6 rows, C_REF4=1
# ours over IPv4 as their reference where the main table does not run it
_combo() {
	C_MAIN=0 C_V6=0 C_REF4=0
	in_list "$1" "$BENCH_RTTS" && in_list "$2" "$BENCH_CCS" && C_MAIN=1
	[ -n "$TOOLS6" ] && in_list "$1" "$BENCH_IPV6_RTTS" &&
		in_list "$2" "$BENCH_IPV6_CCS" && C_V6=1
	if [ $C_V6 = 1 ] && in_list ours "$TOOLS6" &&
	   ! { [ $C_MAIN = 1 ] && in_list ours "$TOOLS"; }; then
		C_REF4=1
	fi
	return 0
}

# _iperf KIND TOOL DIR RUN - one iperf3 run and its TAP line; with
# COUNTING=1 only count it (the plan of --quick)
_iperf() {
	if [ "$COUNTING" = 1 ]; then
		N_PLAN=$((N_PLAN + 1))
		return
	fi
	measure_iperf "$1" "$2" "$3" "$4" "$BENCH_SECS"
	check "$(kind_label "$1")" "$2" "$3"
}

_curl() {
	if [ "$COUNTING" = 1 ]; then
		N_PLAN=$((N_PLAN + 1))
		return
	fi
	measure_curl "$1" "$2" "$3"
	check curl "$1" "$2"
}

# main_table - the main table and the IPv6 rows; with COUNTING=1, count
# the TAP lines it would print instead
main_table() {
	local rtt cc run dir tool runs v6
	for rtt in $(union "$BENCH_RTTS" "$BENCH_IPV6_RTTS"); do
		CUR_RTT=$rtt
		runs=0 v6=
		for cc in $ALL_CCS; do
			_combo "$rtt" "$cc"
			[ $C_MAIN = 1 ] || [ $C_V6 = 1 ] && runs=1
			[ $C_V6 = 1 ] && v6=6
		done
		[ $runs = 1 ] || continue
		if [ "$COUNTING" = 1 ]; then
			N_PLAN=$((N_PLAN + 1))
		else
			topology "$rtt" $v6 ||
				{ say "topology at $rtt ms failed"; continue; }
		fi
		for cc in $ALL_CCS; do
			_combo "$rtt" "$cc"
			[ $C_MAIN = 1 ] || [ $C_V6 = 1 ] || continue
			CUR_CC=$cc
			if [ "$COUNTING" != 1 ]; then
				bench_sysctls "$cc" ||
					{ say "sysctls for $cc failed"; continue; }
			fi
			STALLS=()
			runs=0
			[ $C_MAIN = 1 ] && runs=$BENCH_RUNS
			[ $C_V6 = 1 ] && [ "$BENCH_IPV6_RUNS" -gt "$runs" ] &&
				runs=$BENCH_IPV6_RUNS
			for run in $(seq "$runs"); do
				for dir in upload download; do
					if [ $C_MAIN = 1 ] && [ "$run" -le "$BENCH_RUNS" ]; then
						for tool in $(in_turn "$TOOLS" "$run"); do
							_iperf iperf "$tool" "$dir" "$run"
						done
					fi
					if [ $C_V6 != 1 ] || [ "$run" -gt "$BENCH_IPV6_RUNS" ] ||
					   ! in_list "$dir" "$BENCH_IPV6_DIRS"; then
						continue
					fi
					[ $C_REF4 = 1 ] && _iperf iperf4 ours "$dir" "$run"
					for tool in $TOOLS6; do
						_iperf iperf6 "$tool" "$dir" "$run"
					done
				done
			done
			[ $C_MAIN = 1 ] || continue
			for run in $(seq "$BENCH_CURL_RUNS"); do
				for dir in download upload; do
					for tool in $(in_turn "$TOOLS" "$run"); do
						_curl "$tool" "$dir" "$run"
					done
				done
			done
		done
	done
}

series() {
	local tool dir run
	[ -n "$BENCH_SERIES_RTT" ] || return 0
	CUR_RTT=$BENCH_SERIES_RTT CUR_CC=$BENCH_SERIES_CC
	topology "$CUR_RTT" || { say "topology at $CUR_RTT ms failed"; return; }
	bench_sysctls "$CUR_CC" || { say "sysctls for $CUR_CC failed"; return; }
	STALLS=()
	for tool in $TOOLS; do
		for dir in upload download; do
			for run in $(seq "$BENCH_SERIES_RUNS"); do
				measure_iperf series "$tool" "$dir" "$run" \
					"$BENCH_SERIES_SECS"
			done
		done
	done
}

# --- main ------------------------------------------------------------------------------

[ "$(id -u)" = 0 ] || { [ $QUICK = 1 ] && skip_all "must run as root"; die "must run as root"; }
for t in ip iperf3 curl nsenter unshare setpriv timeout flock; do
	command -v "$t" >/dev/null || die "$t not installed"
done
[ -x "$PY" ] || die "$PY not installed"
[ -x "$DL" ] || die "$DL not built (make test/delayline)"

bench_begin bench_cleanup ""

bench_ours_copy
cc_prepare

# usable_tools LIST WHAT - set TOOLS_OUT to the tools of LIST that are
# installed (with --quick, all of them: a missing one fails visibly below);
# the others are said to be left out of WHAT
usable_tools() {
	local t
	TOOLS_OUT=
	for t in $1; do
		if tool_ok "$t" || [ $QUICK = 1 ]; then
			TOOLS_OUT="$TOOLS_OUT $t"
		else
			say "tool $t not installed: left out of $2"
		fi
	done
}

usable_tools "$BENCH_TOOLS" "the runs"
TOOLS=$TOOLS_OUT

# IPv6: every tool here does it, slirp4netns through a wrapper that adds
# --enable-ipv6 (same PID: it execs)
for d in $BENCH_IPV6_DIRS; do
	in_list "$d" "upload download" ||
		die "BENCH_IPV6_DIRS: upload and/or download, not $d"
done
TOOLS6=
if [ -n "$BENCH_IPV6_RTTS" ]; then
	usable_tools "$BENCH_IPV6_TOOLS" "the IPv6 rows"
	TOOLS6=$TOOLS_OUT
fi
SLIRP6=
if in_list slirp4netns "$TOOLS6" && tool_ok slirp4netns; then
	[ -d "$WORK/bin" ] || mkdir -m 0755 "$WORK/bin" || die "$WORK/bin"
	if ! printf '#!/bin/sh\n# slirp4netns with IPv6, for bench.sh\nexec '"'"'%s'"'"' --enable-ipv6 "$@"\n' \
		"$(command -v "$SLIRP")" >"$WORK/bin/slirp4netns-ipv6" ||
	   ! chmod 0755 "$WORK/bin/slirp4netns-ipv6"; then
		die "cannot write $WORK/bin/slirp4netns-ipv6"
	fi
	SLIRP6=$WORK/bin/slirp4netns-ipv6
fi
ALL_CCS=$BENCH_CCS
[ -n "$TOOLS6" ] && ALL_CCS=$(union "$BENCH_CCS" "$BENCH_IPV6_CCS")

START=$(date +%s)
bench_conditions_mark
RESULTS=$WORK/results.tsv
: >"$RESULTS"
HTTP_DIR=$WORK/www
mkdir -p "$HTTP_DIR"
head -c $((BENCH_CURL_MB * 1000000)) /dev/urandom >"$HTTP_DIR/file"
cp "$HTTP_DIR/file" "$WORK/upload.bin"
chmod 0644 "$HTTP_DIR/file" "$WORK/upload.bin"

if [ $QUICK = 1 ]; then
	N_PLAN=0
	COUNTING=1 main_table
	plan "$N_PLAN"
fi

main_table
series
bench_topo_destroy

# Facts only now that bench_topo_create has settled BENCH_RMEM/WMEM
facts >>"$WORK/facts"

report_args=("$RESULTS" "$WORK/facts")
if [ "$BENCH_DOC" = 1 ]; then
	mkdir -p "$BENCH_DOCDIR"
	report_args+=(--md "$BENCH_DOCDIR/benchmarks.md" --plots "$BENCH_DOCDIR")
fi
if [ $QUICK = 1 ]; then
	"$PY" "$TESTDIR/bench-report.py" report "${report_args[@]}" | sed 's/^/# /'
	echo "# $((_TAP_N - _TAP_FAIL)) passed, $_TAP_FAIL failed"
	done_testing
fi
"$PY" "$TESTDIR/bench-report.py" report "${report_args[@]}"
