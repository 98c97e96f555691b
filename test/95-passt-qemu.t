#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 95-passt-qemu.t - passt mode end to end, with a real QEMU guest
#
# The guest (test/guest: Debian's kernel, busybox, iperf3; see
# doc/passt-guest.md) boots under TCG with its virtio-net NIC on passt's
# UNIX socket, both running as root in H. It gets its configuration by DHCP
# from passt (H's address and gateway, -D/-S name server and search list,
# MTU 65520), then, from the guest: an HTTP download and upload with sha256
# checks against test/httpd.py in R, iperf3 -t 3 both ways against R, and a
# busybox httpd in the guest fetched from R through a port passt forwards
# (-t). Over IPv6, the same first guest gets an address by SLAAC from
# passt's router advertisements (prefix of H's 2001:db8:1::/64, default
# route through passt's link-local address) and H's own address by DHCPv6
# (dhclient -6, with the -D name server and -S search list), downloads from
# [2001:db8:2::1] in R, runs iperf3 both ways to it, and R fetches the
# guest's file through [2001:db8:1::1]:8090 as well. Then a second QEMU
# attaches to the same passt after the first quit, and passt -1 exits by
# itself once its guest is gone.
#
# Knobs: PASST=path (default: passt beside $PASTA: ./passt, as make check
# runs it, or test/san/passt with PASTA=test/san/pasta), PASST_OPTS="..."
# (extra options; -f -d are always given, the logs are
# $WORK/passt*.log), PASST_LINK=vhost-user (passt --vhost-user, QEMU's
# -netdev vhost-user: test/87-vhost-user.t runs this file so), QEMU=binary,
# KEEP_WORK=1 (keeps consoles and logs). Timings are printed as comments.

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/guest/qemu.sh
. "$TESTDIR/guest/qemu.sh"

PASST=${PASST:-$(dirname "$PASTA")/passt}
QEMU=${QEMU:-qemu-system-x86_64}
HTTP_PORT=8080		# test/httpd.py in R
GUEST_PORT=8090		# busybox httpd in the guest, forwarded with -t
QUIT_PORT=8091		# the guest waits for a word here when the host is done
DL_MIB=8
UP_MIB=4
GUEST_MIB=4
DNS=192.0.2.53
DNS6=2001:db8::53
SEARCH=example.com

lib_init
[ -x "$PASST" ] || skip_all "$PASST not built"
command -v "$QEMU" >/dev/null || skip_all "$QEMU missing (apt-get install qemu-system-x86)"
command -v iperf3 >/dev/null || skip_all "iperf3 missing"
plan 42

# --- guest image, topology, servers in R ----------------------------------------

guest_image

topo_create || stop "topology"
# passt's link-local address, source of its RAs: H's own on veth0 when H's
# gateway is a global address, as here (conf.c, conf_ll6())
PASST_LL6=$(ll6_of "$NS_H" veth0)
mkdir -p "$WORK/srv"
make_random "$WORK/srv/dl.bin" "$DL_MIB"
start_httpd "$NS_R" "$SRV_ADDR" "$HTTP_PORT" "$WORK/srv" httpd || stop "httpd.py"
start_httpd "$NS_R" "$SRV_ADDR6" "$HTTP_PORT" "$WORK/srv" httpd6 || stop "httpd.py (IPv6)"
bg_r iperf3 iperf3 -s -B "$SRV_ADDR"
wait_tcp "$NS_R" 5201 10 "$SRV_ADDR" || stop "iperf3 server"
bg_r iperf3-6 iperf3 -s -B "$SRV_ADDR6"
wait_tcp "$NS_R" 5201 10 "$SRV_ADDR6" || stop "iperf3 server (IPv6)"

# --- helpers ----------------------------------------------------------------------

# passt_start NAME SOCK [OPTS...] - passt in H in the foreground (debug log
# in $WORK/NAME.log), PID in PASST_PID; returns non-zero unless the socket
# shows up within 10 s
passt_start() {
	local name=$1 sock=$2
	shift 2
	# shellcheck disable=SC2086
	[ "${PASST_LINK:-stream}" = vhost-user ] && set -- --vhost-user "$@"
	bg_h "$name" "$PASST" -f -d -s "$sock" -P "$WORK/u/$name.pid" \
		-D "$DNS" -D "$DNS6" -S "$SEARCH" ${PASST_OPTS:-} "$@"
	PASST_PID=$BG_PID
	_poll 10 test -S "$sock"
}

# same_net6 ADDR/PLEN ADDR/PLEN - both in the same prefix, of the same length
same_net6() {
	"$PY" - "$1" "$2" <<'EOF' 2>/dev/null
import ipaddress, sys
a, b = (ipaddress.IPv6Interface(x) for x in sys.argv[1:3])
sys.exit(0 if a.network == b.network else 1)
EOF
}

show_boot() {
	diag_file "$WORK/$1.console" 40
	diag_file "$WORK/$1.qemu.err" 10
	diag_file "$WORK/passt.log" 40
}

# --- first guest: everything ---------------------------------------------------------

SOCK="$WORK/u/passt.sock"
passt_start passt "$SOCK" -t "$GUEST_PORT,$QUIT_PORT"
ok $? "passt is listening on its socket" || {
	diag_file "$WORK/passt.log"
	stop "passt did not start"
}

t0=$(date +%s.%N)
qemu_bg boot1 240 "$SOCK" \
	pt.test=lease,download,upload,iperf3,slaac,dhcp6,download6,iperf3_6,server \
	pt.srv="$SRV_ADDR" pt.srv6="$SRV_ADDR6" pt.port="$HTTP_PORT" pt.file=dl.bin \
	pt.upmib="$UP_MIB" pt.secs=3 pt.gmib="$GUEST_MIB" \
	pt.gport="$GUEST_PORT" pt.qport="$QUIT_PORT" pt.wait=40

# The guest's server: wait for it, fetch from R through passt's -t port, on
# H's IPv4 address, then on its IPv6 one
# server_ready - the guest's server is up, or the guest is gone: stop waiting
server_ready() {
	grep -qa "^PT-READY server" "$WORK/boot1.console" ||
		! kill -0 "$QEMU_PID" 2>/dev/null
}
if _poll 180 server_ready &&
   grep -qa "^PT-READY server" "$WORK/boot1.console"; then
	in_r timeout 30 curl -sS -o "$WORK/g.bin" \
		"http://$H_ADDR:$GUEST_PORT/g.bin" 2>"$WORK/curl.err"
	rc=$?
	in_r timeout 30 curl -sS -g -o "$WORK/g6.bin" \
		"http://[$H_ADDR6]:$GUEST_PORT/g.bin" 2>"$WORK/curl6.err"
	rc6=$?
	in_r timeout 5 bash -c "echo quit >/dev/tcp/$H_ADDR/$QUIT_PORT" \
		2>>"$WORK/curl.err"
else
	rc=1 rc6=1
	echo "guest server never ready" | tee "$WORK/curl6.err" >"$WORK/curl.err"
fi
qemu_wait boot1
ok $? "first guest ran its tests and powered off" || show_boot boot1
t1=$(date +%s.%N)
OUT="$WORK/boot1.out"
diag "first guest: $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s in all;" \
     "init at uptime $(uptime_of BOOT "$OUT") s, done at $(uptime_of DONE "$OUT") s"
lease=$(grep -a '^PT-LEASE ' "$OUT")
[ -n "$lease" ] && diag "$lease"
info=$(grep -a '^PT-INFO' "$OUT")
[ -n "$info" ] && diag "$info"

is "$(result dhcp "$OUT")" ok "guest got a lease by DHCP"
is "$(fact addr "$OUT")" "$H_ADDR/24" "guest address is H's, /24"
is "$(fact gw "$OUT")" "$R_ADDR" "guest gateway is H's"
is "$(fact mtu "$OUT")" 65520 "guest MTU is 65520 (DHCP option 26)"
is "$(fact dns "$OUT")" "$DNS" "guest name server from -D (option 6)"
is "$(fact search "$OUT")" "$SEARCH" "guest search list from -S (option 119)"

# IPv6: SLAAC from passt's router advertisements, then DHCPv6
is "$(result slaac "$OUT")" ok "IPv6: guest formed an address by SLAAC, has a default route"
slaac=$(fact slaac_addr "$OUT")
diag "SLAAC address $slaac (after $(fact slaac_ms "$OUT") ms of waiting)," \
     "default route via $(fact gw6 "$OUT") dev $(fact gw6_dev "$OUT")," \
     "IPv6 MTU $(fact mtu6 "$OUT")"
desc="IPv6: SLAAC address in the /64 of H's $H_ADDR6, not H's own"
if [ -n "$slaac" ] && [ "${slaac%/*}" != "$H_ADDR6" ] &&
   same_net6 "$slaac" "$H_ADDR6/64"; then
	ok 0 "$desc"
else
	ok 1 "$desc"
	diag "  got: '$slaac'"
fi
is "$(fact gw6 "$OUT")" "$PASST_LL6" "IPv6: default route via passt's link-local $PASST_LL6 (RA)"
# passt_diag - what passt saw, for a failure: its counters and the lines
# of its debug log about drops, NDP and the guest's socket
passt_diag() {
	kill -USR1 "$PASST_PID" 2>/dev/null && sleep 0.3
	diag "$(grep -aE 'drop|NDP|ndp|DHCPv6|guest|tap:|flows:' \
		"$WORK/passt.log" | tail -n 30)"
}
is "$(result slaac_ping "$OUT")" ok "IPv6: guest pings [$SRV_ADDR6] from its SLAAC address" ||
	passt_diag
lease6=$(grep -a '^PT-LEASE6' "$OUT" | tail -n 1)
[ -n "$lease6" ] && diag "$lease6"
is "$(result dhcp6 "$OUT")" ok "IPv6: guest got an address by DHCPv6 (dhclient -6)"
is "$(fact dhcp6_addr "$OUT")" "$H_ADDR6/128" "IPv6: DHCPv6 address is H's, /128 (IA_NA)"
is "$(fact dhcp6_dns "$OUT")" "$DNS6" "IPv6: name server from -D (DHCPv6 option 23)"
is "$(fact dhcp6_search "$OUT")" "$SEARCH" "IPv6: search list from -S (DHCPv6 option 24)"

is "$(result download "$OUT")" ok "guest downloaded $DL_MIB MiB over HTTP"
is "$(fact download_sha "$OUT")" "$(sha "$WORK/srv/dl.bin")" "download: sha256 matches"
diag "download: $(fact download_ms "$OUT") ms"
is "$(result upload "$OUT")" ok "guest uploaded $UP_MIB MiB, server's sha256 matches"
is_set "$(fact upload_sha "$OUT")" "$(sha "$WORK/srv/up.bin" 2>/dev/null)" \
	"upload: file stored in R has the guest's sha256"
diag "upload: $(fact upload_ms "$OUT") ms"
is "$(result iperf3_up "$OUT")" ok "iperf3 -t 3 from the guest"
is "$(result iperf3_down "$OUT")" ok "iperf3 -t 3 -R to the guest" || passt_diag
diag "iperf3 (TCG guest): up $(fact iperf3_up_mbps "$OUT") Mbit/s," \
     "down $(fact iperf3_down_mbps "$OUT") Mbit/s"

is "$(result download6 "$OUT")" ok "IPv6: guest downloaded $DL_MIB MiB from [$SRV_ADDR6]"
is "$(fact download6_sha "$OUT")" "$(sha "$WORK/srv/dl.bin")" "IPv6: download sha256 matches"
diag "IPv6 download: $(fact download6_ms "$OUT") ms"
is "$(result iperf3_up6 "$OUT")" ok "IPv6: iperf3 -t 3 from the guest"
is "$(result iperf3_down6 "$OUT")" ok "IPv6: iperf3 -t 3 -R to the guest"
diag "IPv6 iperf3 (TCG guest): up $(fact iperf3_up6_mbps "$OUT") Mbit/s," \
     "down $(fact iperf3_down6_mbps "$OUT") Mbit/s"

ok "$rc" "R fetched the guest's file through passt -t $GUEST_PORT" ||
	diag_file "$WORK/curl.err"
is_set "$(fact guest_sha "$OUT")" "$(sha "$WORK/g.bin" 2>/dev/null)" \
	"guest's file: sha256 matches"
is "$(result server "$OUT")" ok "guest got the host's word on port $QUIT_PORT"
ok "$rc6" "IPv6: R fetched the guest's file through [$H_ADDR6]:$GUEST_PORT" ||
	diag_file "$WORK/curl6.err"
is_set "$(fact guest_sha "$OUT")" "$(sha "$WORK/g6.bin" 2>/dev/null)" \
	"IPv6: guest's file: sha256 matches"
diag "the guest's httpd saw clients $(fact guest_peer4 "$OUT") (IPv4)" \
     "and $(fact guest_peer6 "$OUT") (IPv6)"
is "$(fact guest_peer6 "$OUT")" "$R_ADDR6" "IPv6: the guest's httpd saw R's address as the client's"

# --- second guest on the same passt ------------------------------------------------------

kill -0 "$PASST_PID" 2>/dev/null
ok $? "passt (without -1) still runs after its guest left"

qemu_bg boot2 90 "$SOCK" pt.test=download pt.dhcp=broadcast \
	pt.srv="$SRV_ADDR" pt.port="$HTTP_PORT" pt.file=dl.bin
qemu_wait boot2
ok $? "second guest attached to the same passt, powered off" || show_boot boot2
OUT="$WORK/boot2.out"
is "$(result dhcp "$OUT")" ok "second guest got a lease (broadcast replies)"
is "$(fact download_sha "$OUT")" "$(sha "$WORK/srv/dl.bin")" \
	"second guest: download sha256 matches"

kill -TERM "$PASST_PID" 2>/dev/null
wait_gone "$PASST_PID" 5
ok $? "passt exits on SIGTERM"
wait "$PASST_PID" 2>/dev/null

# --- -1: passt quits with its guest ---------------------------------------------------------

SOCK1="$WORK/u/passt1.sock"
passt_start passt1 "$SOCK1" -1
ok $? "passt -1 is listening" || diag_file "$WORK/passt1.log"

qemu_bg boot3 90 "$SOCK1" pt.test=lease
qemu_wait boot3
ok $? "guest of passt -1 booted and powered off" || show_boot boot3
is "$(fact addr "$WORK/boot3.out")" "$H_ADDR/24" "guest of passt -1 got its lease"
if wait_gone "$PASST_PID" 10; then
	wait "$PASST_PID"
	is "$?" 0 "passt -1 exited with status 0 once QEMU quit"
else
	ok 1 "passt -1 exited once QEMU quit"
	diag_file "$WORK/passt1.log"
fi

done_testing
