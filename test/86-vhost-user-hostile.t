#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 86-vhost-user-hostile.t - passt --vhost-user against a hostile front-end
# (test/vu_hostile.py, which speaks the protocol as QEMU would, on a memfd
# of its own): requests that make no sense are refused with reply-ack and
# the session goes on; chains that loop, point outside guest memory, use
# indirect descriptors or absurd addresses are given back unused and
# counted; a wake-up that reads a ring empty asks for the next kick (event
# indices); an available index that runs away stops that ring alone; an
# absurd message size drops the front-end, and the next one is served.
# passt keeps running throughout (the release binary, under its seccomp
# filter; test/check.sh runs this again under ASan/UBSan).

. "$(dirname "$0")/lib.sh"
lib_init
PASST=${PASST:-$(dirname "$PASTA")/passt}
[ -x "$PASST" ] || skip_all "$PASST not built"
plan 21

topo_create; ok $? "topology created" || done_testing
SOCK=$WORK/u/vu.sock
bg_h passt "$PASST" -f -d --vhost-user -s "$SOCK"
PID=$BG_PID
_poll 10 test -S "$SOCK"
ok $? "passt --vhost-user listening" || { diag_file "$WORK/passt.log"; done_testing; }

in_h timeout 60 "$PY" "$TESTDIR/vu_hostile.py" "$SOCK" >"$WORK/hostile.out" 2>&1
while read -r res name detail; do
	case $res in
	ok|fail) ok "$([ "$res" = ok ] && echo 0 || echo 1)" "$name${detail:+: $detail}" ;;
	*) diag "$res $name $detail" ;;
	esac
done <"$WORK/hostile.out"

kill -USR1 "$PID" 2>/dev/null
_poll 5 grep -q "chains refused" "$WORK/passt.log"
refused=$(sed -n 's/.*chains refused \([0-9]*\).*/\1/p' "$WORK/passt.log" | tail -n 1)
[ "${refused:-0}" -ge 4 ]
ok $? "passt counted the chains it refused: ${refused:-none}"
kill -0 "$PID" 2>/dev/null
ok $? "passt still running" || diag_file "$WORK/passt.log"
done_testing
