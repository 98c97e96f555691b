#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# upload: POST $PT_upmib MiB of random data to http://$PT_srv:$PT_port/up.bin;
# test/httpd.py answers with the sha256 of what it stored
. /tests/lib.sh

# busybox wget takes the --post-file body for a C string, up to the first
# NUL byte: random bytes, with 0 turned into 1
head -c $((${PT_upmib:-4} * 1048576)) /dev/urandom | tr '\000' '\001' >/tmp/up
pt_fact upload_bytes "$(wc -c </tmp/up)"
sha=$(pt_sha /tmp/up)
pt_fact upload_sha "$sha"
t0=$(pt_ms)
if timeout 30 wget -q -O /tmp/up.resp --post-file=/tmp/up \
	   --header "Content-Type: application/octet-stream" \
	   "http://$PT_srv:$PT_port/up.bin"; then
	pt_fact upload_ms $(($(pt_ms) - t0))
	got=$(tr -d '\r\n' </tmp/up.resp)
	if [ "$got" = "$sha" ]; then
		pt_result ok upload
	else
		pt_result fail upload "server has sha256 '$got', sent $sha"
	fi
else
	pt_result fail upload "wget exit status $?"
fi
rm -f /tmp/up /tmp/up.resp
