# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/lib.sh - shared harness for the pasta integration tests and demo
#
# Sourced by every test/*.t (run as root, e.g. `prove -v test/*.t`) and by
# test/demo.sh.  Nothing here touches the machine's own network: all traffic
# stays between two namespaces created per run.
#
# Topology (namespace names carry the sourcing shell's PID, $$):
#
#   pasta's namespace          H = pt-h-$$                  R = pt-r-$$
#   (user + net ns,            veth0 203.0.113.1/24  <--->  veth0 203.0.113.2/24
#    created by ./pasta              2001:db8:1::1/64             2001:db8:1::2/64
#    run as $TEST_USER in H)   default via 203.0.113.2      lo    198.51.100.1/32
#                              default via 2001:db8:1::2          2001:db8:2::1/128
#                              lo 127.0.0.1, ::1            (the "remote" server)
#
# With --config-net, pasta copies H's addresses (203.0.113.1/24,
# 2001:db8:1::1/64) and gateways (203.0.113.2, 2001:db8:1::2) into its
# namespace; the gateway address there stands for H's loopback (127.0.0.1,
# ::1), as upstream does.  The remote server is 198.51.100.1 and
# 2001:db8:2::1, so it is never the gateway.  IPv6 addresses are added
# with nodad: usable at once.
#
# Environment knobs:
#   PASTA=path        binary under test (default: ./pasta at the top level)
#   PASTA_OPTS="..."  extra options for every pasta run (e.g. "-d", or
#                     "--pcap /tmp/x.pcap"); word-split
#   PASTA_DIRECT=1    debug mode: run "through pasta" commands directly in H
#                     as $TEST_USER, without pasta, to prove the harness and
#                     the tools work; GW then is 127.0.0.1 (IPv6: ::1)
#   FAMILIES="4 6"    the IP versions the per-family tests run, in order
#                     (e.g. FAMILIES=4 for the IPv4 halves alone)
#   KEEP_WORK=1       keep the work directory ($WORK) after the run
#
# Variables: TOPDIR, TESTDIR, PY, TEST_USER, NS_H, NS_R, H_ADDR, R_ADDR,
#   SRV_ADDR, H_ADDR6, R_ADDR6, SRV_ADDR6, GW4 and GW6 (the address that
#   reaches H's loopback from pasta's namespace, per family), GW (= GW4
#   until use_family), FAMILIES, NFAM (how many), WORK (per-run directory
#   writable by $TEST_USER), DOCS ($WORK/srv, for the servers' files),
#   BG_PID.
#   Set by use_family 4|6 (IPv4 values until the first call):
#     FAM       4 or 6            FAMNAME  IPv4 or IPv6
#     IPV       -4 or -6 (a flag for curl, ping, ip, iperf3)
#     SRV H R GW  the server's, H's, R's and the gateway address
#     SRV_URL H_URL GW_URL   "http://" and the address as a URL host:
#               http://198.51.100.1, http://[2001:db8:2::1]
#     LO        H's loopback (127.0.0.1, ::1); ANY the wildcard (0.0.0.0, ::)
#     PLEN      H's prefix length (24, 64)
#
# Functions:
#   lib_init                 checks root and FAMILIES, creates $TEST_USER
#                            if missing, chmods /dev/net/tun, makes $WORK,
#                            sets the trap
#   need_pasta               skip the whole file unless $PASTA is executable
#                            (or PASTA_DIRECT=1)
#   topo_create/topo_destroy build / delete H and R (both families)
#   topo_far MTU             a far server F behind R (NS_F, F_ADDR,
#                            F_ADDR6; R-F: 192.0.2.0/24, 2001:db8:3::/64,
#                            link MTU MTU), R forwarding; F reached from H
#   use_family 4|6           set the per-family variables above
#   url_host ADDR            ADDR as a URL host: [ADDR] if it has a colon
#   in_h CMD... / in_r CMD...  run CMD as root in H / R
#   as_user_h SECS CMD...    run CMD as $TEST_USER in H (no pasta), bounded
#   pasta_run NAME SECS [OPTS...] -- CMD...
#                            run CMD through pasta (--config-net OPTS) as
#                            $TEST_USER in H, bounded by SECS; stdout goes
#                            to $WORK/NAME.out, stderr (pasta's and CMD's)
#                            to $WORK/NAME.err; returns CMD's exit status
#                            (124/137: timed out)
#   pasta_bg NAME SECS [OPTS...] -- CMD...
#                            the same in the background; PID in BG_PID,
#                            killed (with its process group) by cleanup
#   bg_h NAME CMD... / bg_r NAME CMD...
#                            start CMD as root in H / R in the background,
#                            output to $WORK/NAME.log, PID in BG_PID and
#                            recorded for cleanup
#   start_httpd NS ADDR PORT DIR NAME
#                            bg httpd.py in NS (H or R), wait for its pidfile
#   start_udpecho NS ADDR PORT NAME
#                            bg udpecho.py server in NS, wait for its pidfile
#   serve_fam PORT DIR [TAG] httpd.py in R on $SRV:PORT for DIR, as one test
#                            ("$FAMNAME: server listening ..."); output in
#                            $WORK/httpd$FAM$TAG.log; returns its status
#   wait_tcp NS PORT [SECS [ADDR]]
#                            poll until something listens on TCP PORT in NS
#                            (bound to ADDR, if given)
#   wait_udp NS PORT [SECS [ADDR]]  same for a bound UDP port
#   wait_file FILE [SECS]    poll until FILE exists and is not empty
#   wait_gone PID [SECS]     poll until process PID no longer exists
#   ll6_of NS LINK           the IPv6 link-local address of LINK in NS, once
#                            duplicate address detection is done (at most
#                            5 s); nothing if there is none
#   kill_pid PID             TERM, bounded wait, KILL (one recorded PID)
#   our_procs                list live processes of $TEST_USER from this run
#                            (marked by PASTATEST_RUN=$RUN_ID in their env)
#   make_random FILE MIB     FILE with MIB MiB from /dev/urandom
#   now_ms                   the wall clock in ms (intervals of seconds)
#   size FILE                its size in bytes, 0 if it doesn't exist
#   grows FILE               FILE gets bigger within 5 s (a transfer runs)
#   docs_random NAME SIZE    $DOCS/NAME with SIZE (head -c: 16K, 64M)
#                            random bytes; prints its sha256
#   sha FILE                 sha256 hex of FILE
#   mbps JSONFILE            Mbit/s received, from iperf3 -J output (or n/a)
#   finish_ns_server PID DIR NAME
#                            tell ns-server.sh in DIR to finish (DIR/done),
#                            wait (bounded) for pasta PID, test its exit
#                            status 0 (one test; $WORK/NAME.err on failure)
#   TAP: plan N, skip_all REASON, ok RC DESC (RC 0 passes),
#        is GOT WANT DESC, skip DESC REASON (one test, skipped),
#        not_run N DESC (N failing tests: what could not run after a
#        failed set-up), diag MSG..., diag_file FILE [LINES],
#        done_testing (exits with the number of failures)

# shellcheck disable=SC2034  # variables are used by the files sourcing this
TESTDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOPDIR=$(cd "$TESTDIR/.." && pwd)
PASTA=${PASTA:-$TOPDIR/pasta}
PASTA_DIRECT=${PASTA_DIRECT:-0}
PY=/usr/bin/python3
TEST_USER=${TEST_USER:-pastatest}

NS_H=pt-h-$$
NS_R=pt-r-$$
H_ADDR=203.0.113.1
R_ADDR=203.0.113.2
SRV_ADDR=198.51.100.1
H_ADDR6=2001:db8:1::1
R_ADDR6=2001:db8:1::2
SRV_ADDR6=2001:db8:2::1
if [ "$PASTA_DIRECT" = 1 ]; then
	GW4=127.0.0.1
	GW6=::1
else
	GW4=$R_ADDR
	GW6=$R_ADDR6
fi
GW=$GW4
FAMILIES=${FAMILIES:-4 6}
read -ra _fams <<<"$FAMILIES"
NFAM=${#_fams[@]}

USER_PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
RUN_ID=pastatest-$$-$RANDOM	# environment marker, see our_procs()
WORK=
BG_PID=
_PIDS=()	# background processes, killed by PID
_PGIDS=()	# background `timeout` leaders, killed by process group
_NETNS=()	# namespaces we created
_TAP_N=0
_TAP_FAIL=0
_TAP_PLANNED=

# --- TAP -------------------------------------------------------------------

plan() {
	_TAP_PLANNED=$1
	echo "1..$1"
}

skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

diag() {
	local line
	printf '%s\n' "$*" | while IFS= read -r line; do
		echo "# $line"
	done
}

# diag_file FILE [LINES] - show the last LINES (default 30) lines of FILE
diag_file() {
	[ -s "$1" ] || { diag "($1: empty)"; return 0; }
	diag "--- tail of $(basename "$1"):"
	tail -n "${2:-30}" "$1" | sed 's/^/#   /'
}

ok() {
	local rc=$1; shift
	_TAP_N=$((_TAP_N + 1))
	if [ "$rc" = 0 ]; then
		echo "ok $_TAP_N - $*"
		return 0
	fi
	echo "not ok $_TAP_N - $*"
	_TAP_FAIL=$((_TAP_FAIL + 1))
	return 1
}

is() {
	local got=$1 want=$2; shift 2
	if [ "$got" = "$want" ]; then
		ok 0 "$@"
		return 0
	fi
	ok 1 "$@"
	diag "  got:  '$got'" "  want: '$want'"
	return 1
}

# skip DESC REASON - one test that does not apply here
skip() {
	_TAP_N=$((_TAP_N + 1))
	echo "ok $_TAP_N - $1 # SKIP $2"
}

# not_run N DESC - N failing tests that a failed set-up left without a run
not_run() {
	local i
	for ((i = 0; i < $1; i++)); do
		ok 1 "$2 (not run)"
	done
}

done_testing() {
	if [ -n "$_TAP_PLANNED" ] && [ "$_TAP_N" != "$_TAP_PLANNED" ]; then
		diag "planned $_TAP_PLANNED tests but ran $_TAP_N"
		[ "$_TAP_FAIL" = 0 ] && _TAP_FAIL=1
	fi
	[ "$_TAP_FAIL" -gt 254 ] && _TAP_FAIL=254
	exit "$_TAP_FAIL"
}

# --- setup and cleanup -------------------------------------------------------

lib_init() {
	if [ "$(id -u)" != 0 ]; then
		skip_all "must run as root (creates network namespaces)"
	fi
	local f
	for f in "${_fams[@]}"; do
		case $f in 4|6) ;; *) skip_all "FAMILIES='$FAMILIES': 4 and/or 6" ;; esac
	done
	if ! id -u "$TEST_USER" >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /bin/sh "$TEST_USER" ||
			skip_all "cannot create user $TEST_USER"
	fi
	if [ -c /dev/net/tun ]; then
		chmod 0666 /dev/net/tun
	fi
	WORK=$(mktemp -d /tmp/pastatest.$$.XXXXXX) || skip_all "mktemp failed"
	chmod 0755 "$WORK"
	mkdir -m 0777 "$WORK/u"		# writable by $TEST_USER
	chown "$TEST_USER:" "$WORK/u"
	DOCS=$WORK/srv
	trap _cleanup EXIT
	trap 'exit 130' INT TERM HUP
}

need_pasta() {
	[ "$PASTA_DIRECT" = 1 ] && return 0
	[ -x "$PASTA" ] || skip_all "$PASTA not built (set PASTA_DIRECT=1 to check the harness alone)"
}

# kill_pid PID - TERM, wait up to 3 s, then KILL; reap if it is our child
kill_pid() {
	local pid=$1
	kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
	kill -TERM "$pid" 2>/dev/null
	wait_gone "$pid" 3 || kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

_cleanup() {
	local rc=$? pid ns
	{
		for pid in "${_PGIDS[@]}"; do
			kill -TERM -- "-$pid" 2>/dev/null
		done
		for pid in "${_PIDS[@]}" "${_PGIDS[@]}"; do
			kill_pid "$pid"
		done
		for pid in "${_PGIDS[@]}"; do
			kill -KILL -- "-$pid" 2>/dev/null
		done
		# Anything still running inside our own namespaces, by PID.
		for ns in "${_NETNS[@]}"; do
			for pid in $(ip netns pids "$ns" 2>/dev/null); do
				kill -KILL "$pid" 2>/dev/null
			done
		done
	} 2>/dev/null
	topo_destroy
	if [ -n "$WORK" ] && [ -d "$WORK" ]; then
		if [ "${KEEP_WORK:-0}" = 1 ]; then
			echo "# work directory kept: $WORK"
		else
			rm -rf "$WORK"
		fi
	fi
	exit "$rc"
}

# use_family 4|6 - the per-family variables (see the header)
use_family() {
	case $1 in
	4)	FAM=4 FAMNAME=IPv4 IPV=-4 SRV=$SRV_ADDR H=$H_ADDR R=$R_ADDR
		GW=$GW4 LO=127.0.0.1 ANY=0.0.0.0 PLEN=24 ;;
	6)	FAM=6 FAMNAME=IPv6 IPV=-6 SRV=$SRV_ADDR6 H=$H_ADDR6 R=$R_ADDR6
		GW=$GW6 LO=::1 ANY=:: PLEN=64 ;;
	*)	echo "use_family: 4 or 6, not '$1'" >&2; return 1 ;;
	esac
	SRV_URL=http://$(url_host "$SRV")
	H_URL=http://$(url_host "$H")
	GW_URL=http://$(url_host "$GW")
}

url_host() {
	case $1 in
	*:*)	echo "[$1]" ;;
	*)	echo "$1" ;;
	esac
}

# _topo_addrs LINK_H LINK_R [LINK OPTIONS...] - addresses of both families
# on the link between H and R (which exists), the server's on R's lo, the
# links up, H's default routes; then wait (bounded) until H reaches the
# server both ways
_topo_addrs() {
	local lh=$1 lr=$2
	shift 2
	ip -n "$NS_H" addr add "$H_ADDR/24" dev "$lh" &&
	ip -n "$NS_R" addr add "$R_ADDR/24" dev "$lr" &&
	ip -n "$NS_R" addr add "$SRV_ADDR/32" dev lo &&
	ip -n "$NS_H" addr add "$H_ADDR6/64" dev "$lh" nodad &&
	ip -n "$NS_R" addr add "$R_ADDR6/64" dev "$lr" nodad &&
	ip -n "$NS_R" addr add "$SRV_ADDR6/128" dev lo nodad &&
	ip -n "$NS_H" link set "$lh" "$@" up &&
	ip -n "$NS_R" link set "$lr" "$@" up &&
	ip -n "$NS_H" route add default via "$R_ADDR" dev "$lh" &&
	ip -n "$NS_H" -6 route add default via "$R_ADDR6" dev "$lh" ||
		return 1

	# Unprivileged ICMP echo sockets (both families) for whoever runs in H
	ip netns exec "$NS_H" sysctl -qw net.ipv4.ping_group_range="0 2147483647"

	local end=$((SECONDS + 15))
	while [ $SECONDS -lt $end ]; do
		_reaches_srv && return 0
		sleep 0.1
	done
	echo "# topology: $SRV_ADDR or $SRV_ADDR6 unreachable from H" >&2
	return 1
}

_reaches_srv() {
	in_h ping -4 -c1 -W1 -q "$SRV_ADDR" >/dev/null 2>&1 &&
	in_h ping -6 -c1 -W1 -q "$SRV_ADDR6" >/dev/null 2>&1
}

topo_create() {
	local ns
	# One of these names left by a killed run had our PID: it is stale
	for ns in "$NS_H" "$NS_R"; do
		[ -e "/run/netns/$ns" ] && ip netns del "$ns"
	done
	ip netns add "$NS_H" || return 1
	_NETNS+=("$NS_H")
	ip netns add "$NS_R" || return 1
	_NETNS+=("$NS_R")

	ip -n "$NS_H" link add veth0 type veth peer name veth0 netns "$NS_R" &&
	ip -n "$NS_H" link set lo up &&
	ip -n "$NS_R" link set lo up || return 1
	_topo_addrs veth0 veth0
}

NS_F=pt-f-$$
F_ADDR=192.0.2.2
F_ADDR6=2001:db8:3::2

topo_far() {
	ip netns add "$NS_F" || return 1
	_NETNS+=("$NS_F")
	ip -n "$NS_R" link add veth1 type veth peer name veth0 netns "$NS_F" &&
	ip -n "$NS_F" link set lo up &&
	ip -n "$NS_R" addr add 192.0.2.1/24 dev veth1 &&
	ip -n "$NS_R" addr add 2001:db8:3::1/64 dev veth1 nodad &&
	ip -n "$NS_F" addr add "$F_ADDR/24" dev veth0 &&
	ip -n "$NS_F" addr add "$F_ADDR6/64" dev veth0 nodad &&
	ip -n "$NS_R" link set veth1 mtu "$1" up &&
	ip -n "$NS_F" link set veth0 mtu "$1" up &&
	ip -n "$NS_F" route add default via 192.0.2.1 &&
	ip -n "$NS_F" -6 route add default via 2001:db8:3::1 &&
	ip netns exec "$NS_R" sysctl -qw net.ipv4.ip_forward=1 &&
	ip netns exec "$NS_R" sysctl -qw net.ipv6.conf.all.forwarding=1 &&
	_poll 10 in_h ping -c1 -W1 -q "$F_ADDR" >/dev/null &&
	_poll 10 in_h ping -6 -c1 -W1 -q "$F_ADDR6" >/dev/null
}

topo_destroy() {
	local ns
	for ns in "${_NETNS[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	_NETNS=()
}

# --- running things ----------------------------------------------------------

in_h() { ip netns exec "$NS_H" "$@"; }
in_r() { ip netns exec "$NS_R" "$@"; }

# _user_prefix - the argv prefix that becomes $TEST_USER in H, clean env
_user_prefix() {
	_UP=(ip netns exec "$NS_H"
	     setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --
	     env -i PATH="$USER_PATH" HOME="$WORK/u" LANG=C.UTF-8
	     PASTATEST_RUN="$RUN_ID")
}

# as_user_h SECS CMD... - CMD as $TEST_USER in H, no pasta
as_user_h() {
	local secs=$1; shift
	_user_prefix
	timeout -k 5 "$secs" "${_UP[@]}" "$@"
}

# _pasta_argv NAME SECS [OPTS...] -- CMD... - build _ARGV for pasta_run/bg
_pasta_argv() {
	local secs=$2 opts=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != "--" ]; do
		opts+=("$1"); shift
	done
	[ "$1" = "--" ] && shift
	_user_prefix
	if [ "$PASTA_DIRECT" = 1 ]; then
		_ARGV=(timeout -k 5 "$secs" "${_UP[@]}" "$@")
	else
		# shellcheck disable=SC2206
		_ARGV=(timeout -k 5 "$secs" "${_UP[@]}" "$PASTA" --config-net
		       ${PASTA_OPTS:-} "${opts[@]}" -- "$@")
	fi
}

pasta_run() {
	local name=$1
	_pasta_argv "$@"
	"${_ARGV[@]}" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null
}

pasta_bg() {
	local name=$1
	_pasta_argv "$@"
	"${_ARGV[@]}" >"$WORK/$name.out" 2>"$WORK/$name.err" </dev/null &
	BG_PID=$!
	_PGIDS+=("$BG_PID")	# timeout(1) leads its own process group
}

# finish_ns_server PID DIR NAME - see the header
finish_ns_server() {
	local pid=$1 dir=$2 name=$3 rc
	touch "$dir/done"
	if wait_gone "$pid" 15; then
		wait "$pid"
		rc=$?
	else
		rc="still running 15 s after the command was told to finish"
	fi
	is "$rc" 0 "pasta exits 0 after the command finishes" ||
		diag_file "$WORK/$name.err"
}

_bg_ns() {
	local ns=$1 name=$2; shift 2
	ip netns exec "$ns" "$@" >"$WORK/$name.log" 2>&1 </dev/null &
	BG_PID=$!
	_PIDS+=("$BG_PID")
}
bg_h() { _bg_ns "$NS_H" "$@"; }
bg_r() { _bg_ns "$NS_R" "$@"; }

# start_httpd NS ADDR PORT DIR NAME - returns non-zero if it does not start
start_httpd() {
	local ns=$1 addr=$2 port=$3 dir=$4 name=$5
	_bg_ns "$ns" "$name" "$PY" "$TESTDIR/httpd.py" --bind "$addr" \
		--port "$port" --dir "$dir" --pidfile "$WORK/$name.pid"
	wait_file "$WORK/$name.pid" 10 || { diag_file "$WORK/$name.log"; return 1; }
}

serve_fam() {
	start_httpd "$NS_R" "$SRV" "$1" "$2" "httpd$FAM${3:-}"
	ok $? "$FAMNAME: server listening on $(url_host "$SRV"):$1 in R"
}

# start_udpecho NS ADDR PORT NAME
start_udpecho() {
	local ns=$1 addr=$2 port=$3 name=$4
	_bg_ns "$ns" "$name" "$PY" "$TESTDIR/udpecho.py" --bind "$addr" \
		--port "$port" --pidfile "$WORK/$name.pid"
	wait_file "$WORK/$name.pid" 10 || { diag_file "$WORK/$name.log"; return 1; }
}

# our_procs - "PID command" of every live process of $TEST_USER started by
# this run: they all carry PASTATEST_RUN=$RUN_ID in their environment, so
# concurrent runs (other files, other people) do not count.
our_procs() {
	local pid
	for pid in $(pgrep -u "$TEST_USER"); do
		tr '\0' '\n' 2>/dev/null <"/proc/$pid/environ" |
			grep -qx "PASTATEST_RUN=$RUN_ID" || continue
		echo "$pid $(tr '\0\n\t' '   ' 2>/dev/null <"/proc/$pid/cmdline" | cut -c1-120)"
	done
}

# --- bounded waits -----------------------------------------------------------

# _poll SECS CMD... - run CMD every 0.1 s until it succeeds, at most SECS
_poll() {
	local n=$(( ${1%.*} * 10 )) i; shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.1
	done
	"$@"
}

# _listening NS t|u PORT [ADDR] - a TCP listener or bound UDP socket on PORT
_listening() {
	local filter="sport = :$3"
	[ -n "${4:-}" ] && filter="src $(url_host "$4"):$3"
	[ -n "$(ip netns exec "$1" ss -Hn"$2"l "$filter" 2>/dev/null)" ]
}
wait_tcp() { _poll "${3:-10}" _listening "$1" t "$2" "${4:-}"; }
wait_udp() { _poll "${3:-10}" _listening "$1" u "$2" "${4:-}"; }
wait_file() { _poll "${2:-10}" test -s "$1"; }
_gone() { ! kill -0 "$1" 2>/dev/null; }
wait_gone() { _poll "${2:-10}" _gone "$1"; }
_ll6_ready() {
	ip -n "$1" -6 -o addr show dev "$2" scope link | grep -q . &&
	! ip -n "$1" -6 -o addr show dev "$2" scope link tentative | grep -q .
}
ll6_of() {
	_poll 5 _ll6_ready "$1" "$2" &&
	ip -n "$1" -6 -o addr show dev "$2" scope link |
		awk '{ sub("/.*", "", $4); print $4; exit }'
}

# --- the control socket -------------------------------------------------------

# pesto_init - our pesto (PESTO), and upstream's pasta and pesto where they
# can be had (test/sid-passt.sh): sets UP_ROOT ("" without them, said in a
# diag), UPSTREAM, and UP_PASTA, a pasta that runs upstream's binary
pesto_init() {
	PESTO=${PESTO:-$TOPDIR/pesto}
	[ -x "$PESTO" ] || skip_all "no pesto binary at $PESTO (make pesto)"
	UP_ROOT=$("$TESTDIR/sid-passt.sh" 2>"$WORK/sid.err") || UP_ROOT=
	UPSTREAM=$TESTDIR/upstream
	[ -n "$UP_ROOT" ] ||
		diag "upstream's binaries unavailable: $(tail -1 "$WORK/sid.err")"
	mkdir -p "$WORK/up"
	printf '#!/bin/sh\nexec %s pasta "$@"\n' "$UPSTREAM" >"$WORK/up/pasta"
	chmod 755 "$WORK/up" "$WORK/up/pasta"
	UP_PASTA=$WORK/up/pasta
}

# pesto_as ours|upstream ARGS... - our pesto or upstream's, as $TEST_USER
# in H
pesto_as() {
	local which=$1
	shift
	if [ "$which" = ours ]; then
		as_user_h 20 "$PESTO" "$@"
	else
		as_user_h 20 "$UPSTREAM" pesto "$@"
	fi
}

# --- data ----------------------------------------------------------------------

# quick_arg [ARG] - a benchmark's command line: QUICK=1 for --quick, else 0
quick_arg() {
	QUICK=0
	case ${1:-} in
	--quick) QUICK=1 ;;
	"") ;;
	*) echo "Usage: $0 [--quick]" >&2; exit 2 ;;
	esac
}
# say MSG - a benchmark's progress: a TAP comment with --quick, else on
# stderr with the minutes and seconds since $START
say() {
	local t=$(( $(date +%s) - ${START:-$(date +%s)} ))
	if [ "${QUICK:-0}" = 1 ]; then
		diag "$*"
	else
		printf '# [%2d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*" >&2
	fi
}
make_random() { head -c "$(($2 * 1024 * 1024))" /dev/urandom >"$1"; }
now_ms() { echo $(($(date +%s%N) / 1000000)); }
size() { stat -c %s "$1" 2>/dev/null || echo 0; }
_bigger() { [ "$(size "$1")" -gt "$2" ]; }
grows() { _poll 5 _bigger "$1" "$(size "$1")"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
docs_random() {
	mkdir -p "$DOCS" && head -c "$2" /dev/urandom >"$DOCS/$1" && sha "$DOCS/$1"
}

# mbps JSONFILE - Mbit/s received, from iperf3 -J output
mbps() {
	"$PY" - "$1" <<'EOF'
import json, sys
try:
    with open(sys.argv[1]) as f:
        j = json.load(f)
    print("%.0f" % (j["end"]["sum_received"]["bits_per_second"] / 1e6))
except Exception as e:
    print("n/a")
    sys.exit(1)
EOF
}

use_family 4
