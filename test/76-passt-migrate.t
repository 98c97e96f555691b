#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 76-passt-migrate.t - live migration of a QEMU guest on passt --vhost-user
#
# Debian unstable's QEMU (11.x, test/sid-root.sh; Debian 12's 7.2 is too
# old for a back-end's state in the stream) runs the source guest on one
# passt and an incoming QEMU on another, both in H (one host, one network
# namespace). The guest gets its lease from the source's passt, starts a
# paced 16 MiB download from R and a paced 8 MiB upload to it
# (test/guest/tests/migrate.sh); 3 s later QMP migrates it. Checked: QEMU
# took our device state and dirty page log (it refuses to migrate
# otherwise), both passt instances transferred the state and the target
# took the source's sockets (handed over: same host), both transfers end
# with sha256 intact on the target, no reset; then the guest downloads
# again on a new connection, and the target's QEMU had the guest announced
# (SEND_RARP). Downtime and total time, as QEMU reports them, are printed
# as comments.
#
# The source runs with --migrate-exit: once its QEMU quits, it exits.
#
# MIGRATE_FAIL=1 (test/77-passt-migrate-fail.t): the target passt runs
# with -6 and refuses a state whose connections are IPv4; QEMU fails the
# migration, and the guest must go on on the source as if nothing had
# happened: both transfers intact there, then the second download.
#
# Knobs: PASST=path, PASST_OPTS="..." (extra options of both),
# PASST_REPAIR=path (a passt-repair run as root for each passt's repair
# socket, for a passt that migrates by TCP_REPAIR: upstream's), KEEP_WORK=1.

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/guest/qemu.sh
. "$TESTDIR/guest/qemu.sh"

PASST=${PASST:-$(dirname "$PASTA")/passt}
HTTP_PORT=8080
ECHO_PORT=8090		# the guest's echo server, forwarded with -t
DL_MIB=16
UP_MIB=8
MIGRATE_FAIL=${MIGRATE_FAIL:-0}
RATE=$((2 * 1024 * 1024))	# the download's 8 s, the upload's

lib_init
[ -x "$PASST" ] || skip_all "$PASST not built"
if ! "$TESTDIR/sid-root.sh" >/dev/null 2>"$WORK/sid-root.err"; then
	skip_all "no Debian unstable root: $(tail -n 1 "$WORK/sid-root.err")"
fi
QEMU=$TESTDIR/qemu11
[ "$MIGRATE_FAIL" = 1 ] && plan 17 || plan 18

guest_image
topo_create || stop "topology"
mkdir -p "$WORK/srv"
make_random "$WORK/srv/dl.bin" "$DL_MIB"
start_httpd "$NS_R" "$SRV_ADDR" "$HTTP_PORT" "$WORK/srv" httpd || stop "httpd.py"

# passt_vu NAME SOCK OPTS... - passt --vhost-user in H, debug log in
# $WORK/NAME.log, PID in PASST_PID
passt_vu() {
	local name=$1 sock=$2
	shift 2
	# shellcheck disable=SC2086
	bg_h "$name" "$PASST" -f -d --vhost-user -s "$sock" \
		-P "$WORK/u/$name.pid" ${PASST_OPTS:-} "$@"
	PASST_PID=$BG_PID
	_poll 10 test -S "$sock" || return 1
	[ -z "${PASST_REPAIR:-}" ] ||
		bg_h "$name-repair" "$PASST_REPAIR" "$sock.repair"
}
DST_OPTS=()
[ "$MIGRATE_FAIL" = 1 ] && DST_OPTS=(-6)
# The source forwards the guest's echo port; the target can't bind it
# while the source holds it (one namespace), but the connection R makes
# through it moves with the guest
passt_vu src "$WORK/u/src.sock" --migrate-exit -t "$ECHO_PORT" &&
	SRC_PASST=$PASST_PID &&
	passt_vu dst "$WORK/u/dst.sock" "${DST_OPTS[@]}"
ok $? "two passt instances listen (source and target)" || stop "passt"

# qemu_vu NAME SOCK EXTRA... - the guest's QEMU on passt's SOCK, its
# monitor on $WORK/NAME.mon; PID in QEMU_PID
qemu_vu() {
	local name=$1 sock=$2
	shift 2
	qemu_vu_argv "$sock" pt.test=migrate pt.srv="$SRV_ADDR" \
		pt.port="$HTTP_PORT" pt.file=dl.bin pt.upmib="$UP_MIB" \
		pt.rate="$RATE" pt.mwait=150 pt.gport="$ECHO_PORT"
	qemu_bg_cmd "$name" 240 "${QEMU_ARGV[@]}" \
		-qmp "unix:$WORK/$name.qmp,server=on,wait=off" "$@"
}
qmp() { "$PY" "$TESTDIR/qmp.py" "$@"; }

qemu_vu src "$WORK/u/src.sock"
SRC_PID=$QEMU_PID
qemu_vu dst "$WORK/u/dst.sock" -incoming "unix:$WORK/mig.sock"
DST_PID=$QEMU_PID

guest_ready() {
	grep -qa "^PT-READY migrate" "$WORK/src.console" ||
		! kill -0 "$SRC_PID" 2>/dev/null
}
_poll 180 guest_ready && grep -qa "^PT-READY migrate" "$WORK/src.console"
ok $? "guest booted on the source, got its lease, started transfers" || {
	diag_file "$WORK/src.console" 30
	diag_file "$WORK/src.qemu.err" 10
	stop "no guest"
}

# An inbound connection to the guest's echo server, from R, through the -t
# port: one line before the move, one after (once the host's word is
# there), each echoed within 20 s (test/echoline.py)
bg_r echo "$PY" "$TESTDIR/echoline.py" "$H_ADDR" "$ECHO_PORT" \
	"$WORK/srv/migrated" "$WORK/echo.out"
_poll 20 grep -q "^before" "$WORK/echo.out"
is "$(cat "$WORK/echo.out" 2>/dev/null)" "before ok" \
	"R's connection to the guest's echo server (-t) works" ||
	diag_file "$WORK/echo.log"

# migration NAME KEY - KEY of QEMU's query-migrate: status ("completed",
# "failed", ...), downtime, total-time (ms)
migration() {
	qmp "$WORK/$1.qmp" query-migrate 2>/dev/null |
		"$PY" -c "import json, sys; print(json.load(sys.stdin).get('$2', ''))"
}
mig_done() {
	case "$(migration src status)" in
	completed|failed|cancelled) return 0 ;;
	esac
	return 1
}
# The return path: the source hears how loading went on the target, and
# resumes the guest if it failed (libvirt asks for it too)
for q in src dst; do
	qmp "$WORK/$q.qmp" migrate-set-capabilities \
		'{"capabilities": [{"capability": "return-path", "state": true}]}' \
		>>"$WORK/migrate.out" 2>&1
done
sleep 3
qmp "$WORK/src.qmp" migrate "{\"uri\": \"unix:$WORK/mig.sock\"}" \
	>>"$WORK/migrate.out" 2>&1
_poll 60 mig_done
state=$(migration src status)
want=completed
[ "$MIGRATE_FAIL" = 1 ] && want=failed
is "$state" "$want" "QEMU's migration $want" || {
	diag_file "$WORK/migrate.out"
	diag_file "$WORK/src.qemu.err" 10
	diag_file "$WORK/dst.qemu.err" 10
}
[ "$state" = completed ] &&
	diag "QEMU: downtime $(migration src downtime) ms," \
	     "total $(migration src total-time) ms"
grep -q "state saved" "$WORK/src.log"
ok $? "source passt wrote its state into QEMU's stream" ||
	diag "$(grep -a migration "$WORK/src.log" | tail -n 5)"
grep -q "sockets came from the source" "$WORK/dst.log"
ok $? "target took the source's sockets (same host: handed over)" ||
	diag "$(grep -a migration "$WORK/dst.log" | tail -n 5)"

if [ "$MIGRATE_FAIL" = 1 ]; then
	grep -q "state not loaded" "$WORK/dst.log"
	ok $? "target passt refused the state (-6: IPv4 connections)" ||
		diag "$(grep -a migration "$WORK/dst.log" | tail -n 5)"
	GUEST=src
	GUEST_PID=$SRC_PID
	_poll 10 grep -q "connections resumed" "$WORK/src.log"
	ok $? "source passt resumed its connections" ||
		diag "$(grep -a migration "$WORK/src.log" | tail -n 5)"
else
	grep -q "state loaded" "$WORK/dst.log"
	ok $? "target passt read it" ||
		diag "$(grep -a migration "$WORK/dst.log" | tail -n 5)"
	# The source QEMU has nothing left to do; the guest runs on the
	# target, and the source passt exits (--migrate-exit)
	qmp "$WORK/src.qmp" quit >/dev/null 2>&1
	wait_gone "$SRC_PASST" 10
	ok $? "source passt exited once its QEMU quit (--migrate-exit)"
	GUEST=dst
	GUEST_PID=$DST_PID
fi
echo done >"$WORK/srv/migrated"

QEMU_PID=$GUEST_PID
# (the console's lines end in CR LF)
guest_done() {
	grep -qaE "^PT-RESULT (ok|fail) download( |$(printf '\r')|$)" \
		"$WORK/$GUEST.console"
}
_poll 150 guest_done
qmp "$WORK/$GUEST.qmp" quit >/dev/null 2>&1
[ "$MIGRATE_FAIL" = 1 ] && qmp "$WORK/dst.qmp" quit >/dev/null 2>&1
qemu_wait "$GUEST"
OUT=$WORK/$GUEST.out
is "$(result paced_download "$OUT")" ok \
	"paced download ($DL_MIB MiB) went on across the migration" ||
	diag_file "$OUT" 10
is "$(fact paced_sha "$OUT")" "$(sha "$WORK/srv/dl.bin")" \
	"paced download: sha256 matches"
is "$(result paced_upload "$OUT")" ok \
	"paced upload ($UP_MIB MiB): the server has its sha256"
is "$(result migrate "$OUT")" ok "guest on the $GUEST heard the host's word" ||
	diag_file "$OUT" 20
_poll 20 grep -q "^after" "$WORK/echo.out"
is "$(sed -n 's/^after //p' "$WORK/echo.out")" ok \
	"R's connection to the guest's echo server went on across the move" ||
	diag_file "$WORK/echo.log"
is "$(result download "$OUT")" ok "guest downloaded $DL_MIB MiB again, new connection"
is "$(fact download_sha "$OUT")" "$(sha "$WORK/srv/dl.bin")" "download: sha256 matches"
grep -q "front-end gone" "$WORK/src.log"
ok $? "source passt saw its QEMU go"
if [ "$MIGRATE_FAIL" != 1 ]; then
	grep -q "fails to broadcast" "$WORK/dst.qemu.err"
	ok $((!$?)) "target QEMU had the guest announced (SEND_RARP)" ||
		diag_file "$WORK/dst.qemu.err" 5
fi

done_testing
