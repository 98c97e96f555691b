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
#   debian-pasta $DEBIAN_PASTA (/usr/bin/pasta), the same way
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

DEBIAN_PASTA=${DEBIAN_PASTA:-/usr/bin/pasta}
SLIRP=${SLIRP:-slirp4netns}
BENCH_RATE_MBIT=${BENCH_RATE_MBIT:-1000}
DL=${DELAYLINE:-$TESTDIR/delayline}
INNER=$TESTDIR/bench-inner.sh
DL_PID=
DL_LOG=
DL_STATS=

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
	ours)		[ -x "$PASTA" ] ;;
	debian-pasta)	[ -x "$DEBIAN_PASTA" ] ;;
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
	debian-pasta)	echo "$("$DEBIAN_PASTA" --version 2>&1 | head -n 1)" \
			     "(package passt $(dpkg-query -W -f '${Version}' passt 2>/dev/null))" ;;
	slirp4netns)	"$SLIRP" --version 2>&1 | tr '\n' ' ' | sed 's/ *$//' ;;
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
	ours|debian-pasta)
		local bin=$PASTA
		[ "$tool" = debian-pasta ] && bin=$DEBIAN_PASTA
		rm -f "$WORK/u/$name.tpid"
		PASTA=$bin PASTA_DIRECT=0 pasta_run "$name" "$secs" \
			-P "$WORK/u/$name.tpid" -- "$@"
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
