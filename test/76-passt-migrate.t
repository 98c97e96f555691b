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
# Knobs: PASST=path, PASST_OPTS="..." (extra options of both), KEEP_WORK=1.

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/guest/qemu.sh
. "$TESTDIR/guest/qemu.sh"

PASST=${PASST:-$(dirname "$PASTA")/passt}
HTTP_PORT=8080
DL_MIB=16
UP_MIB=8
RATE=$((2 * 1024 * 1024))	# the download's 8 s, the upload's

lib_init
[ -x "$PASST" ] || skip_all "$PASST not built"
if ! "$TESTDIR/sid-root.sh" >/dev/null 2>"$WORK/sid-root.err"; then
	skip_all "no Debian unstable root: $(tail -n 1 "$WORK/sid-root.err")"
fi
QEMU=$TESTDIR/qemu11
plan 15

guest_image
topo_create || stop "topology"
mkdir -p "$WORK/srv"
make_random "$WORK/srv/dl.bin" "$DL_MIB"
start_httpd "$NS_R" "$SRV_ADDR" "$HTTP_PORT" "$WORK/srv" httpd || stop "httpd.py"

# passt_vu NAME SOCK - passt --vhost-user in H, debug log in $WORK/NAME.log
passt_vu() {
	# shellcheck disable=SC2086
	bg_h "$1" "$PASST" -f -d --vhost-user -s "$2" -P "$WORK/u/$1.pid" \
		${PASST_OPTS:-}
	_poll 10 test -S "$2"
}
passt_vu src "$WORK/u/src.sock" && passt_vu dst "$WORK/u/dst.sock"
ok $? "two passt instances listen (source and target)" || stop "passt"

# qemu_vu NAME SOCK EXTRA... - the guest's QEMU on passt's SOCK, its
# monitor on $WORK/NAME.mon; PID in QEMU_PID
qemu_vu() {
	local name=$1 sock=$2
	shift 2
	qemu_vu_argv "$sock" pt.test=migrate pt.srv="$SRV_ADDR" \
		pt.port="$HTTP_PORT" pt.file=dl.bin pt.upmib="$UP_MIB" \
		pt.rate="$RATE" pt.mwait=150
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
sleep 3
qmp "$WORK/src.qmp" migrate "{\"uri\": \"unix:$WORK/mig.sock\"}" \
	>"$WORK/migrate.out" 2>&1
_poll 60 mig_done
state=$(migration src status)
is "$state" completed "QEMU migrated the guest" || {
	diag_file "$WORK/migrate.out"
	diag_file "$WORK/src.qemu.err" 10
	diag_file "$WORK/dst.qemu.err" 10
}
diag "QEMU: downtime $(migration src downtime) ms," \
     "total $(migration src total-time) ms"
grep -q "state saved" "$WORK/src.log"
ok $? "source passt wrote its state into QEMU's stream" ||
	diag "$(grep -a migration "$WORK/src.log" | tail -n 5)"
grep -q "state loaded" "$WORK/dst.log"
ok $? "target passt read it" ||
	diag "$(grep -a migration "$WORK/dst.log" | tail -n 5)"
grep -q "sockets came from the source" "$WORK/dst.log"
ok $? "target took the source's sockets (same host: handed over)" ||
	diag "$(grep -a migration "$WORK/dst.log" | tail -n 5)"

# The source QEMU has nothing left to do; the guest runs on the target
qmp "$WORK/src.qmp" quit >/dev/null 2>&1
echo done >"$WORK/srv/migrated"

QEMU_PID=$DST_PID
dst_done() { grep -qa "^PT-RESULT .* download " "$WORK/dst.console" ||
	     grep -qa "^PT-RESULT .* download$" "$WORK/dst.console"; }
_poll 150 dst_done
qmp "$WORK/dst.qmp" quit >/dev/null 2>&1
qemu_wait dst
OUT=$WORK/dst.out
is "$(result paced_download "$OUT")" ok \
	"paced download ($DL_MIB MiB) went on across the migration" ||
	diag_file "$OUT" 10
is "$(fact paced_sha "$OUT")" "$(sha "$WORK/srv/dl.bin")" \
	"paced download: sha256 matches"
is "$(result paced_upload "$OUT")" ok \
	"paced upload ($UP_MIB MiB): the server has its sha256"
is "$(result migrate "$OUT")" ok "guest on the target heard the host's word" ||
	diag_file "$OUT" 20
is "$(result download "$OUT")" ok "guest downloaded $DL_MIB MiB through the target's passt"
is "$(fact download_sha "$OUT")" "$(sha "$WORK/srv/dl.bin")" "download: sha256 matches"
grep -q "front-end gone" "$WORK/src.log"
ok $? "source passt saw its QEMU go"
grep -q "fails to broadcast" "$WORK/dst.qemu.err"
ok $((!$?)) "target QEMU had the guest announced (SEND_RARP)" ||
	diag_file "$WORK/dst.qemu.err" 5

done_testing
