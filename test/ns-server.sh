#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/ns-server.sh - run a server as pasta's COMMAND, for forwarding tests
#
# Usage: ns-server.sh DIR SECS SERVER [ARGS...]
#
# Starts SERVER ARGS... in the background (SERVER must write DIR/server.pid
# once it is ready, e.g. httpd.py/udpecho.py --pidfile DIR/server.pid),
# waits for that pidfile (at most 10 s), then creates DIR/ready.  It then
# waits until DIR/done appears (at most SECS seconds), stops the server by
# its PID and exits 0; it exits 1 if the server never became ready and 2 if
# DIR/done never appeared.

dir=$1 secs=$2
shift 2

"$@" &
srv=$!

i=0
while [ ! -s "$dir/server.pid" ]; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 $srv 2>/dev/null; then
		echo "ns-server: server not ready" >&2
		kill $srv 2>/dev/null
		exit 1
	fi
	sleep 0.1
done
echo ready >"$dir/ready.tmp" && mv "$dir/ready.tmp" "$dir/ready"

rc=2
i=0
while [ $i -lt $((secs * 10)) ]; do
	if [ -e "$dir/done" ]; then
		rc=0
		break
	fi
	i=$((i + 1))
	sleep 0.1
done

kill $srv 2>/dev/null
wait $srv 2>/dev/null
exit $rc
