#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# migrate: the host moves this guest to another QEMU while it waits here,
# asking http://$PT_srv:$PT_port/migrated every 0.2 s (each try bounded to
# 3 s: a connection the move cuts doesn't hold it) until the host puts
# that file there, at most $PT_mwait s; then downloads $PT_file through the
# new QEMU's passt and reports its sha256.
. /tests/lib.sh

echo "PT-READY migrate"
n=$((${PT_mwait:-120} * 5))
while [ "$n" -gt 0 ]; do
	timeout 3 wget -q -O /tmp/m "http://$PT_srv:$PT_port/migrated" \
		2>/dev/null && break
	sleep 0.2
	n=$((n - 1))
done
if [ "$n" -eq 0 ]; then
	pt_result fail migrate "never heard the host's word"
	exit 0
fi
pt_fact migrate_word "$(cat /tmp/m)"
pt_result ok migrate
. /tests/download.sh
