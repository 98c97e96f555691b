#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# migrate: the host moves this guest to another QEMU while it transfers.
# A download of $PT_file from http://$PT_srv:$PT_port paced to $PT_rate
# bytes/s, and an upload of $PT_upmib MiB read by the server at half that,
# both started before "PT-READY migrate"; their results (sha256 of the
# download, the server's of the upload) once both end. Then it asks for
# http://$PT_srv:$PT_port/migrated every 0.2 s (each try bounded to 3 s)
# until the host puts that file there, at most $PT_mwait s, and downloads
# $PT_file again, unpaced, on a new connection. With $PT_gport, an echo
# server (busybox nc -e cat) listens there first, for one connection the
# host keeps open across the move. With $PT_hport and $PT_uport, a
# half-closed connection and a UDP flow (below); an echo session always.
. /tests/lib.sh

[ -n "${PT_gport:-}" ] && nc -l -p "$PT_gport" -e cat </dev/null >/dev/null 2>&1 &
# With $PT_hport, a server for a connection the host half-closes at once:
# it answers "done" once $PT_hsleep s passed (across the move), then closes
if [ -n "${PT_hport:-}" ]; then
	printf '#!/bin/sh\ncat >/dev/null\nsleep %s\necho done\n' \
		"${PT_hsleep:-12}" >/tmp/halfopen
	chmod +x /tmp/halfopen
	nc -l -p "$PT_hport" -e /tmp/halfopen </dev/null >/dev/null 2>&1 &
fi
# An echo session across the move: 40 pings, 0.5 s apart
ping -c 40 -i 0.5 -W 2 "$PT_srv" >/tmp/ping.out 2>&1 &
ping_pid=$!
# With $PT_uport, a UDP flow too: syslogd sends what logger gives it to
# $PT_srv:$PT_uport from one socket, one port, every 0.5 s for 20 s
if [ -n "${PT_uport:-}" ]; then
	syslogd -n -S -R "$PT_srv:$PT_uport" >/dev/null 2>&1 &
	(i=0; while [ $i -lt 40 ]; do
		logger -t pt "udp $i"; sleep 0.5; i=$((i + 1))
	done) >/dev/null 2>&1 &
	udp_loop=$!
fi

url="http://$PT_srv:$PT_port"
rate=${PT_rate:-2097152}
head -c $((${PT_upmib:-4} * 1048576)) /dev/urandom | tr '\000' '\001' >/tmp/up
up_sha=$(pt_sha /tmp/up)
timeout 90 wget -q -O /tmp/paced "$url/$PT_file?rate=$rate" \
	>/tmp/paced.err 2>&1 &
dl=$!
timeout 90 wget -q -O /tmp/up.resp --post-file=/tmp/up \
	--header "Content-Type: application/octet-stream" \
	"$url/up.bin?rate=$((rate / 2))" >/tmp/up.err 2>&1 &
up=$!
sleep 0.5
echo "PT-READY migrate"
if wait "$dl"; then
	pt_fact paced_sha "$(pt_sha /tmp/paced)"
	pt_result ok paced_download
else
	pt_result fail paced_download "wget: $(tr '\n' ' ' </tmp/paced.err)"
fi
if wait "$up" && [ "$(tr -d '\r\n' </tmp/up.resp)" = "$up_sha" ]; then
	pt_result ok paced_upload
else
	pt_result fail paced_upload "server has '$(tr -d '\r\n' </tmp/up.resp)'" \
		"sent $up_sha; $(tr '\n' ' ' </tmp/up.err)"
fi
rm -f /tmp/paced /tmp/up /tmp/up.resp

n=$((${PT_mwait:-120} * 5))
while [ "$n" -gt 0 ]; do
	timeout 3 wget -q -O /tmp/m "$url/migrated" 2>/dev/null && break
	sleep 0.2
	n=$((n - 1))
done
if [ "$n" -eq 0 ]; then
	pt_result fail migrate "never heard the host's word"
	exit 0
fi
pt_result ok migrate
[ -n "${udp_loop:-}" ] && wait "$udp_loop"
wait "$ping_pid"
pt_fact ping_last_seq "$(sed -n 's/.*seq=\([0-9]*\).*/\1/p' /tmp/ping.out | tail -n 1)"
. /tests/download.sh
