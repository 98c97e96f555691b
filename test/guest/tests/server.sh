#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# server: serve $PT_gmib MiB of random data as /g.bin with busybox httpd on
# port $PT_gport (IPv4 and IPv6), reached from outside through a port passt
# forwards; then wait (at most $PT_wait s) for the host to connect to
# $PT_qport when done, and report the clients httpd saw fetch /g.bin (its
# -vv log), by family: guest_peer4, guest_peer6
. /tests/lib.sh

mkdir -p /www
head -c $((${PT_gmib:-4} * 1048576)) /dev/urandom >/www/g.bin
pt_fact guest_sha "$(pt_sha /www/g.bin)"
httpd -f -vv -p "${PT_gport:-8090}" -h /www 2>/tmp/httpd.log &
httpd_pid=$!
i=0
while ! netstat -ltn 2>/dev/null | grep -q ":${PT_gport:-8090} " &&
      [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo "PT-READY server"
timeout "${PT_wait:-40}" nc -l -p "${PT_qport:-8091}" </dev/null >/tmp/quit 2>&1
if grep -q quit /tmp/quit; then
	pt_result ok server
else
	pt_result fail server "no word from the host on port ${PT_qport:-8091}"
fi
kill "$httpd_pid"
# "[ADDR]:PORT: url:/g.bin", IPv4 clients as ::ffff:A.B.C.D
peers=$(sed -n 's|^\[\(.*\)\]:[0-9]*: url:/g\.bin.*|\1|p' /tmp/httpd.log)
pt_fact guest_peer4 "$(echo "$peers" | sed -n 's/^::ffff:\([0-9.]*\)$/\1/p' | tail -n 1)"
pt_fact guest_peer6 "$(echo "$peers" | grep -v '^::ffff:[0-9.]*$' | tail -n 1)"
rm -f /www/g.bin /tmp/quit /tmp/httpd.log
