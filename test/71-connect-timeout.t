#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A host peer that never answers the handshake: the guest's connection is
# reset after our own timeout (10 s), not held for the kernel's ~127 s of
# SYN retries (R drops what is not its own, silently: no forwarding).

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
plan 2

topo_create; ok $? "topology created" || done_testing
pasta_run ct 60 -- sh -c '
	t0=$(date +%s%N)
	curl -sS --max-time 40 http://198.51.100.99:8080/ >/dev/null 2>&1
	echo rc=$? ms=$(( ($(date +%s%N) - t0) / 1000000 ))'
out=$(cat "$WORK/ct.out")
rc=$(echo "$out" | sed -n 's/^rc=\([0-9]*\) .*/\1/p')
ms=$(echo "$out" | sed -n 's/.*ms=//p')
[ "$rc" = 7 ] && [ "${ms:-0}" -ge 9000 ] && [ "${ms:-0}" -le 15000 ]
ok $? "connect to a silent peer: refused after ${ms:-?} ms (curl exit ${rc:-?})" ||
	{ diag "$out"; diag_file "$WORK/ct.err"; }
done_testing
