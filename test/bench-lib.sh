# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2016  # single quotes: for the inner shell
# shellcheck disable=SC2034  # INNER and DL_STATS are for bench.sh
#
# test/bench-lib.sh - topology and tool runners for test/bench.sh
#
# Sourced after test/lib.sh (whose namespaces, test user, work directory,
# cleanup and TAP helpers it uses).  Topology, per RTT:
#
#   client namespace            H = pt-h-$$                 R = pt-r-$$
#   (made by the tool, or H     LINK 203.0.113.1/24 <-----> LINK 203.0.113.2/24
#    itself for "host")              2001:db8:1::1/64            2001:db8:1::2/64
#                               default via 203.0.113.2     lo 198.51.100.1/32
#                               default via 2001:db8:1::2      2001:db8:2::1/128
#
# LINK is a veth pair for RTT 0, otherwise test/delayline (dlH in H, dlR in
# R, one-way delay RTT/2, rate cap BENCH_RATE_MBIT, MTU 1500), which carries
# Ethernet frames of any protocol: the addresses, routes and the wait until
# H reaches the server both ways are lib.sh's (_topo_addrs).  The
# translators and the host-direct client all run in H, as $TEST_USER; the
# servers (iperf3, httpd.py) run in R on 198.51.100.1 (and 2001:db8:2::1),
# which is not the gateway.
#
# Tools (tool_run TOOL ...):
#   host         CMD runs directly in H as $TEST_USER, no translator
#   ours         $PASTA --config-net -P PIDFILE -- CMD, as $TEST_USER in H
#   ours-bypass  $PASTA --bypass --config-net ...: the command's TCP
#                connect() calls handed over to the host (issue 27)
#   ours-ref     $REF_PASTA, ours built from another commit (no default),
#                the same way: a before/after comparison in one run
#   debian-pasta $DEBIAN_PASTA (/usr/bin/pasta), the same way
#   trixie-pasta $TRIXIE_PASTA (test/trixie-pasta: Debian 13's pasta from
#                the Podman test rootfs, a newer upstream), the same way
#   slirp4netns  `unshare -rn` holds a user + network namespace, slirp4netns
#                --configure --mtu=65520 --disable-host-loopback
#                --cidr 192.0.2.0/24 serves it (tap0), CMD runs in it through
#                nsenter -U -n (as root of that user namespace)
#
# Functions:
#   bench_topo_create RTT_MS  build H and R joined by the link above; sets
#                             DL_PID/DL_LOG when the delay line runs
#   bench_topo_destroy        stop everything in H and R, delete them
#   stop_child PID            stop a background child, drop it from _PIDS
#   bench_sysctls CC          congestion control, tcp_rmem and tcp_wmem
#                             ($BENCH_RMEM, $BENCH_WMEM) in H and R
#   tool_ok TOOL              0 if TOOL's program is installed
#   tool_run TOOL NAME SECS -- CMD...
#                             run CMD in TOOL's client namespace, bounded
#                             by SECS; output in $WORK/NAME.out/.err; the
#                             translator's PID is written to
#                             $WORK/u/NAME.tpid (not for host); returns
#                             CMD's status (124/137: timed out)
#   snmp_retrans NS           TcpRetransSegs in H or R so far
#   dl_counters               "qdrop lossdrop late" of the delay line so
#                             far, both directions summed (0 0 0 if none)
#   bench_workdir NAME        the run's own $WORK (/tmp/pasta-benchNAME.*)
#                             and namespace names (pb-h-$$, pb-r-$$)
#   bench_ours_copy           measure a copy of $PASTA (PASTA, OURS_ID)
#   bench_tools_present       TOOLS without those not installed (kept in
#                             --quick, where they fail visibly); needs say
#
# One run of a bench script (BENCH_NAME: its file name; OUT, the report's
# file, as the script sets it):
#   bench_args ARGS...        the script's command line (QUICK: 1 for
#                             --quick), and what the caller set for the
#                             record: BENCH_ENV, BENCH_ARGS
#   bench_need CMD...         root (or skip, with --quick), and CMD... and
#                             $PY installed, or die
#   bench_words NAME LIST WORD...
#                             every word of LIST is one of WORD..., or die
#                             naming NAME (the variable LIST came from)
#   die MSG                   the script's fatal error ("Bail out!" first
#                             with --quick), exits 1
#   bench_begin CLEANUP SUFFIX
#                             wait for the lock (BENCH_LOCK: one bench at
#                             a time), lib_init, traps (EXIT runs CLEANUP),
#                             bench_workdir SUFFIX, START
#   bench_conditions_mark     load average and steal time from now on, for
#                             bench_facts_run
#   bench_facts_machine TOOLS key<TAB>value: date, CPUs, kernel, OS, the
#                             versions of the tools of TOOLS installed,
#                             our binary
#   bench_facts_run           key<TAB>value: the command, the duration, the
#                             load average and steal time since the mark
#   bench_plan CASES XS       before the set-up: N_MEAS, the measurements
#                             of one run (each case, X and tool), the TAP
#                             plan with --quick, bench_conditions_mark, an
#                             empty RESULTS file, FAILED=0
#   bench_setup_done OK DESC  after the set-up (OK: 1 if it worked): its
#                             TAP line with --quick (and the measurements
#                             not run if it failed), or die if it failed;
#                             $WORK/r.err tells why
#   bench_rounds CASES XS     "RUN CASE X TOOL" lines: for each run (RUNS),
#                             case, X (connection count, measurement...)
#                             and tool (TOOLS, in_turn), so that the tools
#                             of one row are measured side by side
#   in_turn LIST RUN          LIST's words from the RUN-th on, wrapping
#                             round: the order of the tools in run RUN
#   bench_tally TOOL WHAT VALUE
#                             after a measurement that set LAST_STATUS,
#                             LAST_DESC and LAST_NAME: its TAP line with
#                             --quick ("WHAT: VALUE" if ok, else its status,
#                             LAST_DESC and the tails of its .err files),
#                             else LAST_DESC as progress; FAILED=1 if it
#                             failed for one of ours (not tool_is_peer)
#   bench_publish STATUS      $WORK/report.md to $OUT (if set) and stdout
#                             (TAP comments with --quick, done_testing);
#                             exits STATUS (--quick: the failed tests)
#
# An inbound translator (ours or debian-pasta) forwarding a port of H to a
# server of the caller's in its namespace, which only a `sleep` holds:
#   bench_t_start TOOL NAME PORT SECS
#                             TOOL as $TEST_USER in H with -t PORT, its
#                             command sleeping SECS; waits (bounded) for
#                             that holder: T_PID (the translator's
#                             timeout(1)), T_HOLD (the holder: nsenter -t
#                             $T_HOLD -n joins the namespace); failures are
#                             told in $WORK/NAME.err
#   bench_t_forwarded TOOL NAME PORT
#                             wait (bounded) until H listens on PORT
#   bench_t_stop PORT         the holder, the translator (bounded), our
#                             leftovers; waits until PORT is free in H
#   ns_listening PORT NSPREFIX...
#                             a TCP listener on PORT in the namespace that
#                             NSPREFIX (ip netns exec NS, nsenter ...) enters

DEBIAN_PASTA=${DEBIAN_PASTA:-/usr/bin/pasta}
REF_PASTA=${REF_PASTA:-}
TRIXIE_PASTA=${TRIXIE_PASTA:-$TESTDIR/trixie-pasta}
# shellcheck source=test/podman/config.sh
. "$TESTDIR/podman/config.sh"	# PODMAN_ROOTFS, where trixie-pasta is
SLIRP=${SLIRP:-slirp4netns}
BENCH_RATE_MBIT=${BENCH_RATE_MBIT:-1000}
DL=${DELAYLINE:-$TESTDIR/delayline}
INNER=$TESTDIR/bench-inner.sh
DL_PID=
DL_LOG=
DL_STATS=
BENCH_NAME=$(basename "$0")
BENCH_LOCK=${BENCH_LOCK:-/tmp/pasta-bench.lock}
BENCH_LOCK_WAIT=${BENCH_LOCK_WAIT:-5400}
T_PID=			# the inbound translator (pasta_bg's timeout), if any
T_HOLD=			# its namespace's holder process (sleep)

# --- topology ------------------------------------------------------------------

# _dl_start RTT_MS - the delay line between H and R, addresses, routes
_dl_start() {
	local rtt=$1 chrt=() pidf=$WORK/dl.pid

	ip netns add "$NS_H" || return 1
	_NETNS+=("$NS_H")
	ip netns add "$NS_R" || return 1
	_NETNS+=("$NS_R")
	ip -n "$NS_H" link set lo up && ip -n "$NS_R" link set lo up || return 1

	# Real-time priority keeps the load under test from delaying frames
	# (its spinning is capped, see delayline.c), as delayline-check.sh
	chrt -f 10 true 2>/dev/null && chrt=(chrt -f 10)
	DL_LOG=$WORK/dl-$rtt.log
	DL_STATS=$WORK/dl-$rtt.stats
	rm -f "$pidf"
	# shellcheck disable=SC2086  # BENCH_DL_OPTS: extra words on purpose
	"${chrt[@]}" "$DL" -f --ns-a "/run/netns/$NS_H" --if-a dlH \
		--ns-b "/run/netns/$NS_R" --if-b dlR \
		--delay-us $((rtt * 500)) --rate-mbit "$BENCH_RATE_MBIT" \
		${BENCH_DL_OPTS:-} --pidfile "$pidf" --stats "$DL_STATS" \
		2>"$DL_LOG" </dev/null &
	DL_PID=$!
	_PIDS+=("$DL_PID")
	if ! _poll 10 test -s "$pidf"; then
		echo "# delay line did not start:" >&2
		sed 's/^/#   /' "$DL_LOG" >&2
		return 1
	fi

	_topo_addrs dlH dlR mtu 1500
}

bench_topo_create() {
	local rtt=$1
	DL_PID='' DL_LOG='' DL_STATS=''
	if [ "$rtt" = 0 ]; then
		topo_create || return 1
	else
		_dl_start "$rtt" || return 1
	fi
	# Stock values unless told otherwise: a fresh namespace's own
	[ -n "${BENCH_RMEM:-}" ] ||
		BENCH_RMEM=$(in_h cat /proc/sys/net/ipv4/tcp_rmem | tr '\t' ' ')
	[ -n "${BENCH_WMEM:-}" ] ||
		BENCH_WMEM=$(in_h cat /proc/sys/net/ipv4/tcp_wmem | tr '\t' ' ')
	return 0
}

# bench_topo_destroy - the servers and the delay line by PID (reaped, so
# their PIDs leave _PIDS), anything else left in H and R, the namespaces
bench_topo_destroy() {
	local ns pid
	{
		for pid in "${_PIDS[@]}"; do
			[ "$pid" = "$DL_PID" ] || kill_pid "$pid"
		done
		for ns in "${_NETNS[@]}"; do
			for pid in $(ip netns pids "$ns" 2>/dev/null); do
				[ "$pid" = "$DL_PID" ] || kill -KILL "$pid"
			done
		done
		# SIGTERM: the delay line writes $DL_STATS on the way out
		[ -n "$DL_PID" ] && kill_pid "$DL_PID"
	} 2>/dev/null
	DL_PID=
	_PIDS=()
	topo_destroy
}

# stop_child PID - kill_pid, and forget PID: once reaped it may be reused
stop_child() {
	local i
	{ kill_pid "$1"; } 2>/dev/null
	for i in "${!_PIDS[@]}"; do
		[ "${_PIDS[$i]}" = "$1" ] && unset "_PIDS[$i]"
	done
	_PIDS=("${_PIDS[@]}")
}

# bench_sysctls CC - the same TCP settings in H and R
bench_sysctls() {
	local ns
	for ns in "$NS_H" "$NS_R"; do
		ip netns exec "$ns" sysctl -qw \
			net.ipv4.tcp_congestion_control="$1" \
			net.ipv4.tcp_rmem="$BENCH_RMEM" \
			net.ipv4.tcp_wmem="$BENCH_WMEM" || return 1
	done
}

# --- counters --------------------------------------------------------------------

snmp_retrans() {
	ip netns exec "$1" awk '/^Tcp:/ { if (!c) { for (i = 1; i <= NF; i++)
			if ($i == "RetransSegs") c = i } else print $c }' \
		/proc/net/snmp
}

# _dl_sum FIELD - FIELD of the last dump, both directions
_dl_sum() {
	grep -E "^delayline: (a->b|b->a) " "$DL_LOG" | tail -n 2 |
		sed -n "s/.* $1=\([0-9]*\).*/\1/p" |
		awk '{ s += $1 } END { print s + 0 }'
}

dl_counters() {
	local n i
	if [ -z "$DL_PID" ] || ! kill -0 "$DL_PID" 2>/dev/null; then
		echo "0 0 0"
		return
	fi
	n=$(grep -c "^delayline: timing" "$DL_LOG")
	kill -USR1 "$DL_PID"
	for i in $(seq 40); do
		[ "$(grep -c "^delayline: timing" "$DL_LOG")" -gt "$n" ] && break
		sleep 0.05
	done
	echo "$(_dl_sum qdrop) $(_dl_sum lossdrop) $(_dl_sum late)"
}

# --- tools -----------------------------------------------------------------------

tool_ok() {
	case $1 in
	host)		return 0 ;;
	ours|ours-bypass)	[ -x "$PASTA" ] ;;
	ours-ref)	[ -n "$REF_PASTA" ] && [ -x "$REF_PASTA" ] ;;
	debian-pasta)	[ -x "$DEBIAN_PASTA" ] ;;
	trixie-pasta)	"$TRIXIE_PASTA" --help >/dev/null 2>&1 ;;
	slirp4netns)	command -v "$SLIRP" >/dev/null &&
			command -v unshare >/dev/null &&
			command -v nsenter >/dev/null ;;
	*)		return 1 ;;
	esac
}

tool_version() {
	case $1 in
	host)		uname -r ;;
	ours)		"$PASTA" --version 2>&1 | head -n 1 ;;
	ours-bypass)	echo "$("$PASTA" --version 2>&1 | head -n 1) --bypass" ;;
	ours-ref)	echo "$("$REF_PASTA" --version 2>&1 | head -n 1) ($REF_PASTA)" ;;
	debian-pasta)	echo "$("$DEBIAN_PASTA" --version 2>&1 | head -n 1)" \
			     "(package passt $(dpkg-query -W -f '${Version}' passt 2>/dev/null))" ;;
	trixie-pasta)	echo "pasta (Debian 13's package passt" \
			     "$(dpkg-query --admindir="$PODMAN_ROOTFS/var/lib/dpkg" \
				-W -f '${Version}' passt 2>/dev/null), test/trixie-pasta)" ;;
	slirp4netns)	"$SLIRP" --version 2>&1 | tr '\n' ' ' | sed 's/ *$//' ;;
	esac
}

# tool_bin TOOL - the binary of a pasta-like TOOL
tool_bin() {
	case $1 in
	ours-ref)	echo "$REF_PASTA" ;;
	debian-pasta)	echo "$DEBIAN_PASTA" ;;
	trixie-pasta)	echo "$TRIXIE_PASTA" ;;
	*)		echo "$PASTA" ;;
	esac
}

# tool_opts TOOL - the options a pasta-like TOOL adds to every command line
tool_opts() {
	[ "$1" = ours-bypass ] && echo --bypass
	return 0
}

# tool_is_peer TOOL - TOOL is another project's: its failures are reported,
# not ours to fail on
tool_is_peer() {
	case $1 in
	debian-pasta|trixie-pasta|slirp4netns)	return 0 ;;
	*)					return 1 ;;
	esac
}

# _kill_leftovers - anything of $TEST_USER from this run still alive (a
# translator that left its command behind, a holder process), by PID
_kill_leftovers() {
	local pid rest
	while read -r pid rest; do
		[ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
	done < <(our_procs)
}

# _slirp_run NAME SECS CMD... - see the header
_slirp_run() {
	local name=$1 secs=$2 nspidf hold spid rc
	shift 2
	nspidf=$WORK/u/$name.nspid
	rm -f "$nspidf" "$WORK/u/$name.tpid" "$WORK/$name.ready"
	_user_prefix

	# The namespace holder: its PID names the namespaces
	"${_UP[@]}" unshare -rn sh -c 'echo $$ >"$1"; exec sleep "$2"' sh \
		"$nspidf" $((secs + 20)) >"$WORK/$name.hold" 2>&1 </dev/null &
	hold=$!
	_PIDS+=("$hold")
	if ! _poll 5 test -s "$nspidf"; then
		echo "unshare -rn did not start" >>"$WORK/$name.err"
		stop_child "$hold"
		return 125
	fi

	# slirp4netns as $TEST_USER in H; it writes "1" to fd 3 when tap0 is
	# configured
	"${_UP[@]}" sh -c 'echo $$ >"$1"; shift; exec "$@"' sh \
		"$WORK/u/$name.tpid" "$SLIRP" --configure --mtu=65520 \
		--disable-host-loopback --cidr 192.0.2.0/24 --ready-fd 3 \
		"$(cat "$nspidf")" tap0 \
		>"$WORK/$name.slirp" 2>&1 3>"$WORK/$name.ready" </dev/null &
	spid=$!
	_PIDS+=("$spid")
	if ! _poll 10 test -s "$WORK/$name.ready"; then
		echo "slirp4netns not ready:" >>"$WORK/$name.err"
		cat "$WORK/$name.slirp" >>"$WORK/$name.err"
		stop_child "$spid"
		stop_child "$hold"
		return 125
	fi

	# Root of the user namespace: its owner's UID maps to 0 there, and
	# unshare -r denied setgroups, so the credentials stay as they are
	timeout -k 5 "$secs" "${_UP[@]}" nsenter -t "$(cat "$nspidf")" -U -n \
		--preserve-credentials "$@" \
		>"$WORK/$name.out" 2>>"$WORK/$name.err" </dev/null
	rc=$?
	stop_child "$spid"
	stop_child "$hold"
	cat "$WORK/$name.slirp" >>"$WORK/$name.err"
	return $rc
}

tool_run() {
	local tool=$1 name=$2 secs=$3 rc
	shift 3
	[ "$1" = "--" ] && shift
	: >"$WORK/$name.err"
	case $tool in
	host)
		as_user_h "$secs" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" \
			</dev/null
		rc=$?
		;;
	ours|ours-bypass|ours-ref|debian-pasta|trixie-pasta)
		local bin
		bin=$(tool_bin "$tool")
		rm -f "$WORK/u/$name.tpid"
		# shellcheck disable=SC2046  # tool_opts: words
		PASTA=$bin PASTA_DIRECT=0 pasta_run "$name" "$secs" \
			$(tool_opts "$tool") -P "$WORK/u/$name.tpid" -- "$@"
		rc=$?
		;;
	slirp4netns)
		_slirp_run "$name" "$secs" "$@"
		rc=$?
		;;
	*)
		echo "tool_run: unknown tool $tool" >&2
		return 125
		;;
	esac
	_kill_leftovers
	return $rc
}

# bench_workdir NAME - the run's own work directory and namespace names:
# other runs on the machine clean up after themselves by lib.sh's names,
# and must not catch ours
bench_workdir() {
	rm -rf "$WORK"
	WORK=$(mktemp -d "/tmp/pasta-bench$1.$$.XXXXXX") || die "mktemp failed"
	chmod 0755 "$WORK"
	{ mkdir -m 0777 "$WORK/u" && chown "$TEST_USER:" "$WORK/u"; } ||
		die "$WORK/u"
	NS_H=pb-h-$$
	NS_R=pb-r-$$
}

# bench_ours_copy - our binary may be rebuilt in the tree while we run:
# measure a copy, under the name that selects pasta mode; OURS_ID says
# which it was, for the report
bench_ours_copy() {
	local src

	OURS_ID=
	[ -x "$PASTA" ] || return 0
	src=$(readlink -f "$PASTA")
	{ mkdir -m 0755 "$WORK/bin" && cp "$src" "$WORK/bin/pasta" &&
		chmod 0755 "$WORK/bin/pasta"; } || die "cannot copy $src"
	OURS_ID="$src, sha256 $(sha256sum "$src" | cut -c1-12), built $(date -u \
		-r "$src" '+%Y-%m-%d %H:%M UTC'), tree at commit $(git -C "$TOPDIR" \
		rev-parse --short HEAD 2>/dev/null) (uncommitted changes not shown)"
	PASTA=$WORK/bin/pasta
}

# bench_tools_present - TOOLS without those not installed (said so), but
# in --quick, where a missing one fails visibly
bench_tools_present() {
	local t tools=

	for t in $TOOLS; do
		if tool_ok "$t" || [ "$QUICK" = 1 ]; then
			tools="$tools $t"
		else
			say "tool $t not installed: left out"
		fi
	done
	TOOLS=${tools# }
}

# --- inbound translator ----------------------------------------------------------

# _forget_pgid PID - drop PID from lib.sh's _PGIDS once it is reaped
_forget_pgid() {
	local i
	for i in "${!_PGIDS[@]}"; do
		[ "${_PGIDS[$i]}" = "$1" ] && unset "_PGIDS[$i]"
	done
	_PGIDS=("${_PGIDS[@]}")
}

# _holder TPIDFILE - the translator's child in another network namespace
# than the translator's own (its command, which holds the namespace): PID
# in T_HOLD.  By parent and namespace, as seen from here: Debian's pasta
# runs its command in a PID namespace of its own, where it is PID 1
# shellcheck disable=SC2317  # called through _poll
_holder() {
	local tpid kid
	tpid=$(cat "$1" 2>/dev/null)
	[ -n "$tpid" ] || return 1
	for kid in $(ps -o pid= --ppid "$tpid" 2>/dev/null); do
		if [ "$(readlink "/proc/$kid/ns/net")" != \
		     "$(readlink "/proc/$tpid/ns/net")" ]; then
			T_HOLD=$kid
			return 0
		fi
	done
	return 1
}

bench_t_start() {
	local tool=$1 name=$2 port=$3 secs=$4 bin
	T_PID='' T_HOLD=''
	bin=$(tool_bin "$tool")
	rm -f "$WORK/u/$name.tpid"
	# The translator's output: $WORK/NAME-t.out and .err
	# shellcheck disable=SC2046  # tool_opts: words
	PASTA=$bin PASTA_DIRECT=0 pasta_bg "$name-t" $((secs + 10)) \
		$(tool_opts "$tool") -P "$WORK/u/$name.tpid" -t "$port" -- \
		sleep "$secs"
	T_PID=$BG_PID
	if ! _poll 10 _holder "$WORK/u/$name.tpid"; then
		echo "$tool: no PID file, or its command did not start" >>"$WORK/$name.err"
		cat "$WORK/$name-t.err" >>"$WORK/$name.err" 2>/dev/null
		return 1
	fi
}

bench_t_forwarded() {
	wait_tcp "$NS_H" "$3" 10 && return 0
	echo "$1: port $3 not forwarded in H" >>"$WORK/$2.err"
	return 1
}

bench_t_stop() {
	# KILL: the holder is only sleep, and PID 1 of its own PID namespace
	# under Debian's pasta, where it would ignore TERM
	[ -n "$T_HOLD" ] && kill -KILL "$T_HOLD" 2>/dev/null
	if [ -n "$T_PID" ]; then
		if ! wait_gone "$T_PID" 5; then
			kill -TERM -- "-$T_PID" 2>/dev/null
			wait_gone "$T_PID" 3 || kill -KILL -- "-$T_PID" 2>/dev/null
		fi
		wait "$T_PID" 2>/dev/null
		_forget_pgid "$T_PID"
	fi
	_kill_leftovers
	T_PID='' T_HOLD=''
	# The next server binds the same port in H
	_poll 5 _free_h "$1"
}

# shellcheck disable=SC2317  # called through _poll
_free_h() { ! _listening "$NS_H" t "$1"; }

# shellcheck disable=SC2317  # called through _poll
ns_listening() {
	local port=$1
	shift
	[ -n "$("$@" ss -Htln "sport = :$port" 2>/dev/null)" ]
}

# --- one run of a bench script -----------------------------------------------------

bench_args() {
	# Before the script's defaults fill the rest (they are not exported)
	BENCH_ENV=$(env | grep -E '^(BENCH_[A-Z0-9_]*|PASTA|REF_PASTA|DEBIAN_PASTA|TRIXIE_PASTA|SLIRP|DELAYLINE|TCPRR)=' |
		    sort | sed "s/=\(.*\)/='\1'/" | tr '\n' ' ')
	BENCH_ARGS="$*"
	quick_arg "$@"
}

bench_need() {
	local t
	if [ "$(id -u)" != 0 ]; then
		[ "$QUICK" = 1 ] && skip_all "must run as root"
		die "must run as root"
	fi
	for t in "$@"; do
		command -v "$t" >/dev/null || die "$t not installed"
	done
	[ -x "$PY" ] || die "$PY not installed"
}

bench_words() {
	local name=$1 list=$2 w x allowed
	shift 2
	allowed=$1
	if [ $# -gt 1 ]; then
		allowed="${*:1:$#-1}"
		allowed="${allowed// /, } and/or ${!#}"
	fi
	for w in $list; do
		for x in "$@"; do
			[ "$w" = "$x" ] && continue 2
		done
		die "$name: $allowed, not $w"
	done
}

die() {
	if [ "${QUICK:-0}" = 1 ]; then
		echo "Bail out! $BENCH_NAME: $*"
	fi
	echo "$BENCH_NAME: $*" >&2
	exit 1
}

bench_begin() {
	local sig

	# One bench at a time on this machine: two would measure each other
	exec 9>>"$BENCH_LOCK"
	if ! flock -n 9; then
		echo "# $BENCH_NAME: waiting for another bench run to finish ($BENCH_LOCK)" >&2
		flock -w "$BENCH_LOCK_WAIT" 9 ||
			die "another bench run holds $BENCH_LOCK since $BENCH_LOCK_WAIT s"
	fi

	lib_init >/dev/null
	# shellcheck disable=SC2064  # the names now
	trap "$1" EXIT
	for sig in INT TERM HUP; do
		# shellcheck disable=SC2064  # $sig now
		trap "echo '$BENCH_NAME: stopped by SIG$sig' >&2; exit 130" "$sig"
	done
	bench_workdir "$2"
	START=$(date +%s)
}

bench_conditions_mark() {
	LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
	STEAL0=$(awk '/^cpu / { print $9 }' /proc/stat)
}

bench_facts_machine() {
	local t
	printf 'date\t%s\n' "$(date -u '+%Y-%m-%d %H:%M UTC')"
	printf 'nproc\t%s\n' "$(nproc)"
	printf 'cpu\t%s\n' "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
	printf 'kernel\t%s\n' "$(uname -r)"
	printf 'os\t%s\n' "$(. /etc/os-release 2>/dev/null; echo "${PRETTY_NAME:-?}")"
	for t in $1; do
		[ "$t" = host ] && continue
		tool_ok "$t" && printf 'version %s\t%s\n' "$t" "$(tool_version "$t")"
	done
	[ -n "$OURS_ID" ] && printf 'ours binary\t%s\n' "$OURS_ID"
	return 0
}

bench_facts_run() {
	local cmd
	if [ -n "${MAKELEVEL:-}" ]; then
		cmd="${BENCH_ENV}make bench"
		[ "$QUICK" = 1 ] && cmd="${BENCH_ENV}make bench-quick"
	else
		cmd="${BENCH_ENV}test/$BENCH_NAME${BENCH_ARGS:+ $BENCH_ARGS}"
	fi
	printf 'command\t%s\n' "$cmd"
	printf 'duration\t%s s\n' $(( $(date +%s) - START ))
	printf 'load average at start / end\t%s / %s\n' "$LOAD0" \
		"$(cut -d' ' -f1-3 /proc/loadavg)"
	printf 'CPU steal time during the run\t%s s\n' "$(awk -v s0="$STEAL0" \
		-v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%.1f", ($9 - s0) / hz }' \
		/proc/stat)"
}

bench_plan() {
	N_MEAS=$(( $(wc -w <<<"$1") * $(wc -w <<<"$2") * $(wc -w <<<"$TOOLS") ))
	[ "$QUICK" = 1 ] && plan $((1 + N_MEAS * RUNS))
	bench_conditions_mark
	RESULTS=$WORK/results.tsv
	: >"$RESULTS"
	FAILED=0
}

bench_setup_done() {
	if [ "$QUICK" = 1 ] && ! ok $((1 - $1)) "$2"; then
		diag_file "$WORK/r.err"
		not_run $((N_MEAS * RUNS)) "measurements"
		done_testing
	fi
	if [ "$1" != 1 ]; then
		cat "$WORK/r.err" >&2 2>/dev/null
		die "set-up failed: $2"
	fi
	say "$2: up; tools: $TOOLS; $RUNS run(s)"
}

# A tool measured always right after the same other one inherits what that
# one leaves behind: at 0 ms, the run right after the host's own download
# came out 6-16% below the same binary run third (2026-12-05). Each run
# starts one tool further on, so every tool follows every other in turn
in_turn() {
	local -a w
	local i n

	read -r -a w <<<"$1"
	n=${#w[@]}
	for ((i = 0; i < n; i++)); do
		echo "${w[(i + $2 - 1) % n]}"
	done
}

bench_rounds() {
	local run kase x tool
	for run in $(seq "$RUNS"); do
		for kase in $1; do
			for x in $2; do
				for tool in $(in_turn "$TOOLS" "$run"); do
					echo "$run $kase $x $tool"
				done
			done
		done
	done
}

bench_tally() {
	local tool=$1 what=$2 value=$3
	if [ "$QUICK" = 1 ]; then
		if [ "$LAST_STATUS" = ok ]; then
			ok 0 "$what: $value"
		else
			ok 1 "$what: $LAST_STATUS"
			diag "$LAST_DESC"
			diag_file "$WORK/$LAST_NAME.err" 10
			[ -e "$WORK/$LAST_NAME-t.err" ] &&
				diag_file "$WORK/$LAST_NAME-t.err" 10
		fi
	else
		say "$LAST_DESC"
	fi
	if [ "$LAST_STATUS" != ok ] && ! tool_is_peer "$tool"; then
		FAILED=1
	fi
	return 0
}

bench_publish() {
	if [ -n "$OUT" ]; then
		{ mkdir -p "$(dirname "$OUT")" && cp "$WORK/report.md" "$OUT"; } ||
			say "cannot write $OUT"
	fi
	if [ "$QUICK" = 1 ]; then
		sed 's/^/# /' "$WORK/report.md"
		done_testing
	fi
	cat "$WORK/report.md"
	exit "$1"
}
