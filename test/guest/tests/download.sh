#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# download: GET http://$PT_srv:$PT_port/$PT_file, report its sha256 and time
. /tests/lib.sh

t0=$(pt_ms)
if timeout 30 wget -q -O /tmp/dl "http://$PT_srv:$PT_port/$PT_file"; then
	pt_fact download_ms $(($(pt_ms) - t0))
	pt_fact download_bytes "$(wc -c </tmp/dl)"
	pt_fact download_sha "$(pt_sha /tmp/dl)"
	pt_result ok download
else
	pt_result fail download "wget exit status $?"
fi
rm -f /tmp/dl
