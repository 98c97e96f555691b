#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 78-passt-migrate-hosts.t - live migration between two hosts: TCP
# connections rebuilt by TCP_REPAIR
#
# As test/76, but the target passt runs in another network namespace, H2,
# with the same addresses as H (two hosts, the guest's address moves with
# it, as KubeVirt's sticky pod addresses): the target can't take the
# source's sockets, it rebuilds them from their kernel state in the
# stream, each end through its own passt-repair (run as root, on
# --repair-path's default). R reaches the address on H, then on H2: while
# QEMU migrates, R's packets to it are dropped (a blackhole route: the
# network switching over), after it they go to H2.
#
# Checked: both passt instances took a helper, the source dumped its
# sockets, the target rebuilt them (no handover: another namespace), a
# paced 16 MiB download and 8 MiB upload finish sha256-intact on the
# target with no reset, R's connection through the source's -t port to
# the guest's echo server goes on, so does one R half-closed, the guest's
# UDP flow keeps its host port, the target listens on the -t ports
# itself, the guest downloads again on a new connection.
#
# Helpers: ours at the source, upstream's at the target where it is
# cached (test/upstream: the two speak one protocol), else ours.
# Knobs: PASST=path, PASST_OPTS="...", REPAIR_SRC=cmd, REPAIR_DST=cmd,
# KEEP_WORK=1.

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/guest/qemu.sh
. "$TESTDIR/guest/qemu.sh"
# shellcheck source=test/guest/migrate.sh
. "$TESTDIR/guest/migrate.sh"

PASST=${PASST:-$(dirname "$PASTA")/passt}
NS_H2=pt-h2-$$

lib_init
[ -x "$PASST" ] || skip_all "$PASST not built"
[ -x "$TOPDIR/passt-repair" ] || skip_all "passt-repair not built"
if ! "$TESTDIR/sid-root.sh" >/dev/null 2>"$WORK/sid-root.err"; then
	skip_all "no Debian unstable root: $(tail -n 1 "$WORK/sid-root.err")"
fi
QEMU=$TESTDIR/qemu11
REPAIR_SRC=${REPAIR_SRC:-$TOPDIR/passt-repair}
if [ -z "${REPAIR_DST:-}" ]; then
	REPAIR_DST=$TOPDIR/passt-repair
	"$TESTDIR/upstream" passt-repair 2>/dev/null
	[ $? -ne 127 ] && REPAIR_DST="$TESTDIR/upstream passt-repair"
fi
plan 23

guest_image
topo_create || stop "topology"
# H2: the second host, H's addresses, on a second link of R's with R's
ip netns add "$NS_H2" && _NETNS+=("$NS_H2") &&
	ip -n "$NS_R" link add veth9 type veth peer name veth0 netns "$NS_H2" &&
	ip -n "$NS_H2" link set lo up &&
	ip -n "$NS_H2" addr add "$H_ADDR/24" dev veth0 &&
	ip -n "$NS_H2" addr add "$H_ADDR6/64" dev veth0 nodad &&
	ip -n "$NS_R" addr add "$R_ADDR/24" dev veth9 &&
	ip -n "$NS_R" addr add "$R_ADDR6/64" dev veth9 nodad &&
	ip -n "$NS_H2" link set veth0 up && ip -n "$NS_R" link set veth9 up &&
	ip -n "$NS_H2" route add default via "$R_ADDR" dev veth0 &&
	ip -n "$NS_H2" -6 route add default via "$R_ADDR6" dev veth0 &&
	ip netns exec "$NS_H2" sysctl -qw net.ipv4.ping_group_range="0 2147483647"
ok $? "second host H2, H's addresses, linked to R" || stop "H2"
in_h2() { ip netns exec "$NS_H2" "$@"; }

mkdir -p "$WORK/srv"
make_random "$WORK/srv/dl.bin" "$DL_MIB"
start_httpd "$NS_R" "$SRV_ADDR" "$HTTP_PORT" "$WORK/srv" httpd || stop "httpd.py"

# passt_vu NS NAME SOCK HELPER OPTS... - passt --vhost-user in NS, debug log
# in $WORK/NAME.log, PID in PASST_PID; its helper on the repair socket
passt_vu() {
	local ns=$1 name=$2 sock=$3 helper=$4
	shift 4
	# shellcheck disable=SC2086
	_bg_ns "$ns" "$name" "$PASST" -f -d --vhost-user -s "$sock" \
		-P "$WORK/u/$name.pid" ${PASST_OPTS:-} "$@"
	PASST_PID=$BG_PID
	_poll 10 test -S "$sock.repair" || return 1
	# shellcheck disable=SC2086
	_bg_ns "$ns" "$name-repair" timeout 240 $helper "$sock.repair"
	_poll 10 grep -q "helper connected\|Accepted TCP_REPAIR helper" \
		"$WORK/$name.log"
}
passt_vu "$NS_H" src "$WORK/u/src.sock" "$REPAIR_SRC" -t "$ECHO_PORT-$HALF_PORT" &&
	passt_vu "$NS_H2" dst "$WORK/u/dst.sock" "$REPAIR_DST" -t "$ECHO_PORT-$HALF_PORT"
ok $? "passt on H and on H2, each with its passt-repair" || {
	diag_file "$WORK/src.log" 5
	diag_file "$WORK/dst.log" 5
	diag_file "$WORK/dst-repair.log" 5
	stop "passt"
}

mig_start "$WORK/u/src.sock" "$WORK/u/dst.sock"
sleep 3
# The network switches over: R's packets for the address go nowhere while
# the guest moves, then to H2
ip -n "$NS_R" route add blackhole "$H_ADDR/32" &&
	ip -n "$NS_R" -6 route add blackhole "$H_ADDR6/128"
mig_run completed
ip -n "$NS_R" route replace "$H_ADDR/32" dev veth9 &&
	ip -n "$NS_R" -6 route replace "$H_ADDR6/128" dev veth9
grep -q "repair mode set on 4 sockets" "$WORK/src.log" &&
	grep -q "state saved" "$WORK/src.log"
ok $? "source passt wrote its state, sockets dumped in repair mode" ||
	diag "$(grep -a "migration\|repair" "$WORK/src.log" | tail -n 5)"
grep -q "source not on this host" "$WORK/dst.log" &&
	! grep -q "sockets came from the source" "$WORK/dst.log"
ok $? "target couldn't take the source's sockets (another namespace)"
rebuilt=$(grep -c "socket rebuilt (TCP_REPAIR)" "$WORK/dst.log")
ok $((rebuilt < 4)) "target rebuilt the connections by TCP_REPAIR ($rebuilt)" ||
	diag "$(grep -a "migration\|repair" "$WORK/dst.log" | tail -n 8)"
grep -q "no socket for it here, reset" "$WORK/dst.log"
ok $((!$?)) "no connection reset" ||
	diag "$(grep -a "reset" "$WORK/dst.log" | tail -n 5)"
in_h2 ss -Hltn "sport = :$ECHO_PORT" | grep -q LISTEN
ok $? "target passt listens on the forwarded port on H2"
mig_wait_guest dst
mig_results dst "across hosts"
mig_udp_results "across hosts"
grep -q "front-end gone" "$WORK/src.log"
ok $? "source passt saw its QEMU go"

done_testing
