#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 76-passt-migrate.t - live migration of a QEMU guest on passt --vhost-user
#
# Debian unstable's QEMU (11.x, test/sid-root.sh; Debian 12's 7.2 is too
# old for a back-end's state in the stream) runs the source guest on one
# passt and an incoming QEMU on another, both in H (one host, one network
# namespace). The guest gets its lease from the source's passt, starts a
# paced 16 MiB download from R and a paced 8 MiB upload to it (16 s each)
# (test/guest/tests/migrate.sh); 3 s later QMP migrates it. Checked: QEMU
# took our device state and dirty page log (it refuses to migrate
# otherwise), both passt instances transferred the state and the target
# took the source's sockets (handed over: same host), both transfers end
# with sha256 intact on the target, no reset; R's connection through the
# source's -t port to the guest's echo server goes on, and so does one R
# half-closed (the guest answers after the move); the guest's UDP flow
# keeps one host port throughout; then the guest downloads again on a new
# connection, and the target's QEMU had the guest announced (SEND_RARP).
# Downtime and total time, as QEMU reports them, are printed as comments.
# test/guest/migrate.sh has the parts test/78 shares.
#
# The source runs with --migrate-exit: once its QEMU quits, it exits. The
# target has the same -t ports, which it binds once the source is gone,
# and one more that pesto added to the source at run time (-c).
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
# shellcheck source=test/guest/migrate.sh
. "$TESTDIR/guest/migrate.sh"

PASST=${PASST:-$(dirname "$PASTA")/passt}
MIGRATE_FAIL=${MIGRATE_FAIL:-0}

lib_init
[ -x "$PASST" ] || skip_all "$PASST not built"
if ! "$TESTDIR/sid-root.sh" >/dev/null 2>"$WORK/sid-root.err"; then
	skip_all "no Debian unstable root: $(tail -n 1 "$WORK/sid-root.err")"
fi
QEMU=$TESTDIR/qemu11
[ "$MIGRATE_FAIL" = 1 ] && plan 22 || plan 24

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
# Both forward the guest's echo port, as a VM manager configures them; in
# one namespace the target can't bind it while the source holds it: it
# starts anyway, and binds it once the source is gone. The connection R
# makes through it moves with the guest
passt_vu src "$WORK/u/src.sock" --migrate-exit -t "$ECHO_PORT-$HALF_PORT" \
	-c "$WORK/u/src.ctl" &&
	SRC_PASST=$PASST_PID &&
	passt_vu dst "$WORK/u/dst.sock" -t "$ECHO_PORT-$HALF_PORT" "${DST_OPTS[@]}"
ok $? "two passt instances listen (source and target)" || stop "passt"

mig_start "$WORK/u/src.sock" "$WORK/u/dst.sock"
# A rule added to the source at run time (Podman 6's way): the target
# takes the source's rules with the guest
ADDED_PORT=8093
"$TOPDIR/pesto" --add -t "$ADDED_PORT" "$WORK/u/src.ctl" >"$WORK/pesto.out" 2>&1 &&
	_poll 5 eval 'in_h ss -Hltn "sport = :$ADDED_PORT" | grep -q LISTEN'
ok $? "pesto added -t $ADDED_PORT to the source passt (-c)" ||
	diag_file "$WORK/pesto.out"
sleep 3
want=completed
[ "$MIGRATE_FAIL" = 1 ] && want=failed
mig_run "$want"
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
	_poll 10 grep -q "the guest runs here" "$WORK/src.log"
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
	listens() {
		in_h ss -Hltn "sport = :$ECHO_PORT" | grep -q LISTEN &&
			in_h ss -Hltn "sport = :$ADDED_PORT" | grep -q LISTEN
	}
	_poll 5 listens
	ok $? "target passt took the ports the source held, the added one too" ||
		diag "$(grep -a "Port\|Inbound\|forwarding" "$WORK/dst.log" | tail -n 4)"
	GUEST=dst
fi
mig_wait_guest "$GUEST"
mig_results "$GUEST" "across the migration"
mig_udp_results "across the migration"
grep -q "front-end gone" "$WORK/src.log"
ok $? "source passt saw its QEMU go"
if [ "$MIGRATE_FAIL" != 1 ]; then
	grep -q "fails to broadcast" "$WORK/dst.qemu.err"
	ok $((!$?)) "target QEMU had the guest announced (SEND_RARP)" ||
		diag_file "$WORK/dst.qemu.err" 5
fi

done_testing
