#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/bridge-ns.sh - a rootless bridge network in pasta's namespace, laid
# out the way Podman 6 does it: a bridge, br0, at 192.0.2.1/24 and
# 2001:db8:88::1/64 with forwarding on, and a container behind it (a
# network namespace of its own, made by unshare) whose eth0 is 192.0.2.2
# and 2001:db8:88::2, running httpd.py (files from DIR/ctr) and udpecho.py
# on port 8080. pasta's namespace itself serves DIR/ns on that port too, so
# a client can tell which one a rule reached. Run as pasta's COMMAND.
#
# Usage: bridge-ns.sh DIR SECS PY
#
# Creates DIR/ready once every server listens, then waits until DIR/done
# appears (at most SECS seconds) and stops everything it started, by PID.
# Exit status: 0, 1 if the set-up failed (DIR/setup.log tells), 2 if
# DIR/done never appeared.
#
# The container is this script again, as bridge-ns.sh --child DIR SECS PY
# under unshare --net: it says it is in its namespace (DIR/child.in), waits
# for eth0 to be moved there, sets it up and runs the servers.

tdir=$(dirname "$0")

# wait_for TENTHS CMD... - until CMD succeeds, at most TENTHS tenths of a s
wait_for() {
	n=$1
	shift
	while ! "$@" 2>/dev/null; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}

# until_done DIR SECS - until DIR/done appears; 0 if it did
until_done() {
	wait_for $(($2 * 10)) test -e "$1/done"
}

if [ "$1" = --child ]; then
	dir=$2 secs=$3 py=$4
	echo "$$" >"$dir/child.in"
	wait_for 100 ip link show eth0 >/dev/null || exit 1
	ip link set lo up &&
	ip addr add 192.0.2.2/24 dev eth0 &&
	ip addr add 2001:db8:88::2/64 dev eth0 nodad &&
	ip link set eth0 up &&
	ip route add default via 192.0.2.1 &&
	ip -6 route add default via 2001:db8:88::1 || exit 1
	"$py" "$tdir/httpd.py" --bind :: --port 8080 --dir "$dir/ctr" \
		--pidfile "$dir/httpd.pid" &
	h=$!
	"$py" "$tdir/udpecho.py" --bind :: --port 8080 \
		--pidfile "$dir/udpecho.pid" &
	u=$!
	rc=0
	until_done "$dir" "$secs" || rc=2
	kill $h $u 2>/dev/null
	wait
	exit $rc
fi

dir=$1 secs=$2 py=$3
exec 3>"$dir/setup.log"
{
	ip link add br0 type bridge &&
	ip addr add 192.0.2.1/24 dev br0 &&
	ip addr add 2001:db8:88::1/64 dev br0 nodad &&
	ip link set br0 up &&
	sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
} 2>&3 || exit 1

unshare --net "$0" --child "$dir" "$secs" "$py" 2>&3 &
child=$!
"$py" "$tdir/httpd.py" --bind :: --port 8080 --dir "$dir/ns" \
	--pidfile "$dir/ns-httpd.pid" &
ours=$!
if ! wait_for 100 test -s "$dir/child.in" ||
   ! ip link add ctr0 type veth peer name eth0 netns "$child" 2>&3 ||
   ! ip link set ctr0 master br0 2>&3 || ! ip link set ctr0 up 2>&3 ||
   ! wait_for 100 test -s "$dir/httpd.pid" ||
   ! wait_for 100 test -s "$dir/udpecho.pid" ||
   ! wait_for 100 test -s "$dir/ns-httpd.pid"; then
	echo "bridge-ns: the container or a server didn't start" >&3
	kill "$child" "$ours" 2>/dev/null
	wait
	exit 1
fi
echo ready >"$dir/ready.tmp" && mv "$dir/ready.tmp" "$dir/ready"
wait "$child"
rc=$?
kill "$ours" 2>/dev/null
wait
exit $rc
