#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# download: GET http://$PT_srv:$PT_port/$PT_file, report its sha256 and time
# (download6.sh sets $pt_host, the URL's host, and $pt_tag, a suffix for
# the names reported)
. /tests/lib.sh

n=download${pt_tag:-}
t0=$(pt_ms)
if timeout 30 wget -q -O /tmp/dl "http://${pt_host:-$PT_srv}:$PT_port/$PT_file"; then
	pt_fact "${n}_ms" $(($(pt_ms) - t0))
	pt_fact "${n}_bytes" "$(wc -c </tmp/dl)"
	pt_fact "${n}_sha" "$(pt_sha /tmp/dl)"
	pt_result ok "$n"
else
	pt_result fail "$n" "wget exit status $?"
fi
rm -f /tmp/dl
