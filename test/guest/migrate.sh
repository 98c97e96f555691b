#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/guest/migrate.sh - what the migration tests (76, 77, 78) share: a
# source QEMU and an incoming one on two passt sockets, the guest's
# transfers (test/guest/tests/migrate.sh), R's connection to its echo
# server through a -t port, QMP, and the checks of how it all ended.
# Sourced after lib.sh and qemu.sh; wants QEMU, and the source's address
# as R sees it in H_ADDR. The guest's UDP flow goes to a logging echo
# server in R on UDP_PORT; R half-closes a connection to the guest's
# HALF_PORT (forwarded with ECHO_PORT), which answers once the guest moved.

HTTP_PORT=8080		# R's server: the guest's transfers
ECHO_PORT=8090		# the guest's echo server, forwarded with -t
HALF_PORT=8091		# its half-closed connection's server, forwarded too
UDP_PORT=5514		# R's logging UDP echo server
DL_MIB=16
UP_MIB=8
RATE=$((1024 * 1024))	# 16 s each way: past the move, even a slow one

qmp() { "$PY" "$TESTDIR/qmp.py" "$@"; }

# _mig_qemu NAME SOCK EXTRA... - the guest's QEMU on passt's SOCK, its QMP
# on $WORK/NAME.qmp; PID in QEMU_PID
_mig_qemu() {
	local name=$1 sock=$2
	shift 2
	qemu_vu_argv "$sock" pt.test=migrate pt.srv="$SRV_ADDR" \
		pt.port="$HTTP_PORT" pt.file=dl.bin pt.upmib="$UP_MIB" \
		pt.rate="$RATE" pt.mwait=150 pt.gport="$ECHO_PORT" \
		pt.hport="$HALF_PORT" pt.uport="$UDP_PORT"
	qemu_bg_cmd "$name" 240 "${QEMU_ARGV[@]}" \
		-qmp "unix:$WORK/$name.qmp,server=on,wait=off" "$@"
}

# mig_start SRC_SOCK DST_SOCK - both QEMUs (SRC_PID, DST_PID); one test:
# the guest booted on the source and started its transfers; then one
# more: R's connection to its echo server works
mig_start() {
	_bg_ns "$NS_R" udpecho "$PY" "$TESTDIR/udpecho.py" --bind "$SRV_ADDR" \
		--port "$UDP_PORT" --log "$WORK/udp.log"
	_mig_qemu src "$1"
	SRC_PID=$QEMU_PID
	_mig_qemu dst "$2" -incoming "unix:$WORK/mig.sock"
	DST_PID=$QEMU_PID
	_poll 180 _mig_guest_ready &&
		grep -qa "^PT-READY migrate" "$WORK/src.console"
	ok $? "guest booted on the source, got its lease, started transfers" || {
		diag_file "$WORK/src.console" 30
		diag_file "$WORK/src.qemu.err" 10
		stop "no guest"
	}
	# Through the -t port: one line before the move, one after (once
	# the host's word is there), each echoed within 20 s
	bg_r echo "$PY" "$TESTDIR/echoline.py" "$H_ADDR" "$ECHO_PORT" \
		"$WORK/srv/migrated" "$WORK/echo.out"
	_poll 20 grep -qs "^before" "$WORK/echo.out"
	is "$(cat "$WORK/echo.out" 2>/dev/null)" "before ok" \
		"R's connection to the guest's echo server (-t) works" ||
		diag_file "$WORK/echo.log"
	bg_r halfopen "$PY" "$TESTDIR/halfopen.py" "$H_ADDR" "$HALF_PORT" \
		"$WORK/halfopen.out"
	# The return path: the source hears how loading went on the target,
	# and resumes the guest if it failed (libvirt asks for it too)
	for q in src dst; do
		qmp "$WORK/$q.qmp" migrate-set-capabilities \
			'{"capabilities": [{"capability": "return-path", "state": true}]}' \
			>>"$WORK/migrate.out" 2>&1
	done
}

_mig_guest_ready() {
	grep -qa "^PT-READY migrate" "$WORK/src.console" ||
		! kill -0 "$SRC_PID" 2>/dev/null
}

# migration NAME KEY - KEY of QEMU's query-migrate: status ("completed",
# "failed", ...), downtime, total-time (ms)
migration() {
	qmp "$WORK/$1.qmp" query-migrate 2>/dev/null |
		"$PY" -c "import json, sys; print(json.load(sys.stdin).get('$2', ''))"
}

_mig_done() {
	case "$(migration src status)" in
	completed|failed|cancelled) return 0 ;;
	esac
	return 1
}

# mig_run WANT - migrate, wait for the end; one test: it ended WANT
# ("completed", "failed"); QEMU's times as a comment
mig_run() {
	local state
	qmp "$WORK/src.qmp" migrate "{\"uri\": \"unix:$WORK/mig.sock\"}" \
		>>"$WORK/migrate.out" 2>&1
	_poll 60 _mig_done
	state=$(migration src status)
	is "$state" "$1" "QEMU's migration $1" || {
		diag_file "$WORK/migrate.out"
		diag_file "$WORK/src.qemu.err" 10
		diag_file "$WORK/dst.qemu.err" 10
	}
	[ "$state" = completed ] &&
		diag "QEMU: downtime $(migration src downtime) ms," \
		     "total $(migration src total-time) ms"
}

# mig_wait_guest NAME - the host's word given, wait for the guest on
# NAME's QEMU to finish its transfers, then quit it (and the other)
mig_wait_guest() {
	echo done >"$WORK/srv/migrated"
	_poll 150 _mig_guest_done "$1"
	qmp "$WORK/src.qmp" quit >/dev/null 2>&1
	qmp "$WORK/dst.qmp" quit >/dev/null 2>&1
	QEMU_PID=$SRC_PID
	[ "$1" = dst ] && QEMU_PID=$DST_PID
	qemu_wait "$1"
}

# (the console's lines end in CR LF)
_mig_guest_done() {
	grep -qaE "^PT-RESULT (ok|fail) download( |$(printf '\r')|$)" \
		"$WORK/$1.console"
}

# mig_udp_results WHERE - one test: the guest's UDP flow went on from one
# host port, its last datagram came
mig_udp_results() {
	local ports
	_poll 20 grep -qs "udp 39" "$WORK/udp.log"
	ports=$(cut -d' ' -f1 "$WORK/udp.log" 2>/dev/null | sort -u | tr '\n' ' ')
	[ "$(echo $ports | wc -w)" = 1 ] && grep -qs "udp 39" "$WORK/udp.log"
	ok $? "the guest's UDP flow went on $1, one host port ($ports)" || {
		diag "$(wc -l <"$WORK/udp.log") datagrams, ports: $ports"
		diag_file "$WORK/udp.log" 5
	}
}

# mig_results NAME WHERE - ten tests: the guest on NAME's QEMU finished
# both transfers intact, heard the host's word, R's echo connection went
# on, R's half-closed one got its answer, the guest's pings too, NAME's
# passt resumed all 6 flows, a new download intact; WHERE says where, for
# the names
mig_results() {
	local out=$WORK/$1.out
	is "$(result paced_download "$out")" ok \
		"paced download ($DL_MIB MiB) went on $2" || diag_file "$out" 10
	is "$(fact paced_sha "$out")" "$(sha "$WORK/srv/dl.bin")" \
		"paced download: sha256 matches"
	is "$(result paced_upload "$out")" ok \
		"paced upload ($UP_MIB MiB): the server has its sha256"
	is "$(result migrate "$out")" ok "guest on the $1 heard the host's word" ||
		diag_file "$out" 20
	_poll 20 grep -qs "^after" "$WORK/echo.out"
	is "$(sed -n 's/^after //p' "$WORK/echo.out")" ok \
		"R's connection to the guest's echo server went on $2" ||
		diag_file "$WORK/echo.log"
	_poll 60 test -s "$WORK/halfopen.out"
	is "$(cat "$WORK/halfopen.out" 2>/dev/null)" ok \
		"R's half-closed connection got the guest's answer $2" ||
		diag_file "$WORK/halfopen.log"
	[ "$(fact ping_last_seq "$out")" -ge 30 ] 2>/dev/null
	ok $? "the guest's pings got answers after the move (last: $(fact ping_last_seq "$out"))"
	grep -q "the guest runs here, 6 flows resumed" "$WORK/$1.log"
	ok $? "passt on the $1 resumed 6 flows: 4 connections, UDP, echo" ||
		diag "$(grep -a "flows resumed" "$WORK/$1.log")"
	is "$(result download "$out")" ok \
		"guest downloaded $DL_MIB MiB again, new connection"
	is "$(fact download_sha "$out")" "$(sha "$WORK/srv/dl.bin")" \
		"download: sha256 matches"
}
