#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/bench-inner.sh - run one benchmark transfer inside the client's
# network namespace and record what only that namespace can see
#
# Usage: bench-inner.sh -r RESULT [-p TPIDFILE] [-c CC] [-m RMEM] [-w WMEM]
#                       [-6 SECS] [-o STDOUT] -- CMD [ARG]...
#
# Runs where test/bench-lib.sh's tool_run puts it: in the namespace a
# translator made (as root of its user namespace), or directly in H for the
# "host" tool.  In order:
#   1. -c/-m/-w: set this namespace's net.ipv4.tcp_congestion_control,
#      tcp_rmem, tcp_wmem (per network namespace; root of the namespace's
#      own user namespace may write them);
#   2. -6: wait, at most SECS, until this namespace has a global IPv6
#      address past duplicate address detection and an IPv6 default route
#      (at once for H and pasta, which copies H's; slirp4netns --enable-ipv6
#      leaves them to SLAAC from its router advertisements, a few seconds);
#      not there by then: a set-up error;
#   3. read TcpRetransSegs (/proc/net/snmp, what `nstat -az` reads) and, if
#      -p names a file with the translator's PID, its utime+stime
#      (/proc/PID/stat, clock ticks);
#   4. run CMD with stdout to STDOUT (default /dev/null);
#   5. read both again, and the translator's peak RSS (VmHWM) while it is
#      still alive, and write RESULT as key=value lines.
# The TCP counters and the net.ipv4.tcp_* settings cover TCP over IPv6 too.
# Exits with CMD's status (or 125 if the namespace could not be set up).

result='' tpidf='' cc='' rmem='' wmem='' out=/dev/null v6wait=''
while getopts r:p:c:m:w:o:6: opt; do
	case $opt in
	r) result=$OPTARG ;;
	p) tpidf=$OPTARG ;;
	c) cc=$OPTARG ;;
	m) rmem=$OPTARG ;;
	w) wmem=$OPTARG ;;
	o) out=$OPTARG ;;
	6) v6wait=$OPTARG ;;
	*) echo "bench-inner: bad option" >&2; exit 125 ;;
	esac
done
shift $((OPTIND - 1))
if [ -z "$result" ] || [ $# -eq 0 ]; then
	echo "bench-inner: usage" >&2
	exit 125
fi

setup_err=
[ -n "$cc" ] && { sysctl -qw net.ipv4.tcp_congestion_control="$cc" ||
	setup_err="$setup_err cc"; }
[ -n "$rmem" ] && { sysctl -qw net.ipv4.tcp_rmem="$rmem" ||
	setup_err="$setup_err rmem"; }
[ -n "$wmem" ] && { sysctl -qw net.ipv4.tcp_wmem="$wmem" ||
	setup_err="$setup_err wmem"; }

retrans() {
	awk '/^Tcp:/ { if (!c) { for (i = 1; i <= NF; i++)
				     if ($i == "RetransSegs") c = i }
		       else print $c }' /proc/net/snmp
}

# The translator writes its PID file around the time it starts CMD: wait
# for it, briefly
tpid=
if [ -n "$tpidf" ]; then
	i=0
	while [ ! -s "$tpidf" ] && [ $i -lt 40 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	tpid=$(cat "$tpidf" 2>/dev/null)
	[ -r "/proc/$tpid/stat" ] || tpid=
fi

# IPv6 usable: a global address that is not tentative, and a default route
ipv6_wait_ms=
if [ -n "$v6wait" ] && [ -z "$setup_err" ]; then
	i=0
	until [ -n "$(ip -6 -o addr show scope global -tentative 2>/dev/null)" ] &&
	      [ -n "$(ip -6 route show default 2>/dev/null)" ]; do
		if [ $i -ge $((v6wait * 10)) ]; then
			echo "bench-inner: no global IPv6 address and default" \
			     "route after $v6wait s" >&2
			setup_err="$setup_err ipv6"
			break
		fi
		sleep 0.1
		i=$((i + 1))
	done
	ipv6_wait_ms=$((i * 100))
fi

# utime + stime: fields 14 and 15, counted after the ")" ending comm
cpu() {
	[ -n "$tpid" ] || return 0
	sed 's/.*) //' "/proc/$tpid/stat" 2>/dev/null |
		awk '{ print $12 + $13 }'
}
hwm() {
	[ -n "$tpid" ] || return 0
	awk '/^VmHWM:/ { print $2 }' "/proc/$tpid/status" 2>/dev/null
}

if [ -n "$setup_err" ]; then
	rc=125
	r0='' r1='' c0='' c1=''
else
	r0=$(retrans)
	c0=$(cpu)
	"$@" >"$out"
	rc=$?
	c1=$(cpu)
	r1=$(retrans)
fi

{
	echo "rc=$rc"
	echo "setup_err=$setup_err"
	echo "cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control)"
	echo "rmem=$(tr '\t' ' ' </proc/sys/net/ipv4/tcp_rmem)"
	echo "wmem=$(tr '\t' ' ' </proc/sys/net/ipv4/tcp_wmem)"
	echo "tpid=$tpid"
	echo "ipv6_wait_ms=$ipv6_wait_ms"
	echo "retrans=$([ -n "$r1" ] && [ -n "$r0" ] && echo $((r1 - r0)))"
	echo "cpu_ticks=$([ -n "$c1" ] && [ -n "$c0" ] && echo $((c1 - c0)))"
	echo "hwm_kb=$(hwm)"
} >"$result.tmp" && mv "$result.tmp" "$result"
exit $rc
