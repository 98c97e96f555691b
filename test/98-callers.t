#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 98-callers.t - passt started exactly as its callers start it, with a
# real QEMU guest (test/guest, see doc/passt-guest.md) carrying transfers
#
# 1. libvirt (src/qemu/qemu_passt.c, qemuPasstBuildCommand): passt run as
#    root in H with the full line libvirt builds for an <interface
#    type='user'><backend type='passt' logFile=... hostname=... fqdn=...>
#    with <source dev=...>, <mtu>, <ip address= prefix=> and two
#    <portForward>s (one bound to an address and a device, one translated
#    range):
#      passt --one-off --socket DIR/NAME.socket --pid FILE --mtu 65520
#        --interface veth0 --log-file F --hostname H --fqdn F
#        --address 203.0.113.1 --netmask 24 --mac-addr M
#        --tcp-ports 203.0.113.1%veth0/8090 --tcp-ports 18090-18091:8090-8091
#    libvirt waits for that process to exit (0) and then expects the socket
#    and the PID file: the parent must exit only once both are there and
#    the ports are bound. Then QEMU attaches to the socket (-netdev stream,
#    as libvirt configures it); the guest gets the address given by DHCP,
#    downloads a file from R (sha256), and R fetches the guest's file
#    through both forwards (sha256) and tells it to stop through the
#    translated one. Once QEMU quits, passt (--one-off) exits by itself.
#
# 2. QEMU 10.1's -netdev passt (net/passt.c): the long line QEMU builds
#    from its netdev options, "--quiet ... --pid TMPFILE --fd 3", with one
#    end of a socketpair as fd 3 (test/guest/passt_fd.py does that part:
#    Debian 12's QEMU 7.2 has no -netdev passt), QEMU on the other end as
#    -netdev stream,addr.type=fd (the socket address type QEMU 10.1 uses
#    for it too). The guest gets its lease (address, gateway, MTU, DNS,
#    search list as given), downloads a file (sha256), R reaches the
#    guest through --tcp-ports a,b; passt printed nothing (--quiet) and
#    exits once QEMU is gone.
#
# Knobs: PASST=path (default: passt beside $PASTA: ./passt, as make check
# runs it, or test/san/passt with PASTA=test/san/pasta), QEMU=binary,
# KEEP_WORK=1 (keeps the consoles, passt's log and outputs in $WORK).
# Timings are comments.

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/guest/qemu.sh
. "$TESTDIR/guest/qemu.sh"

PASST=${PASST:-$(dirname "$PASTA")/passt}
HTTP_PORT=8080		# test/httpd.py in R
GUEST_PORT=8090		# busybox httpd in the guest
QUIT_PORT=8091		# the guest waits for a word here when the host is done
XLAT_PORT=18090		# libvirt's translated range: 18090-18091 -> 8090-8091
XLAT_QUIT=18091
DL_MIB=4
GUEST_MIB=2
DNS=192.0.2.53
SEARCH="a.example b.example"
MAC_LV=9a:55:9a:55:9a:01	# --mac-addr: passt's, not the guest's
MAC_QEMU=9a:55:9a:55:9a:02

lib_init
[ -x "$PASST" ] || skip_all "$PASST not built"
command -v "$QEMU" >/dev/null || skip_all "$QEMU missing (apt-get install qemu-system-x86)"
plan 40

# --- guest image, topology, server in R ---------------------------------------

guest_image

topo_create || stop "topology"
mkdir -p "$WORK/srv"
make_random "$WORK/srv/dl.bin" "$DL_MIB"
start_httpd "$NS_R" "$SRV_ADDR" "$HTTP_PORT" "$WORK/srv" httpd || stop "httpd.py"
ok 0 "topology, server in R on $SRV_ADDR:$HTTP_PORT"
DL_SHA=$(sha "$WORK/srv/dl.bin")

# --- helpers --------------------------------------------------------------------

# show - a command line, quoted, as a comment
show() {
	diag "$(printf '%q ' "$@")"
}

# server_ready NAME - the guest's server is up, or the guest is gone
server_ready() {
	grep -qa "^PT-READY server" "$WORK/$1.console" ||
		! kill -0 "$QEMU_PID" 2>/dev/null
}

# fetch_from_r NAME URL - curl URL in R into $WORK/NAME.bin (errors in
# $WORK/NAME.err), bounded
fetch_from_r() {
	in_r timeout 30 curl -sS -o "$WORK/$1.bin" "$2" 2>"$WORK/$1.err"
}

# tcp_listeners PORT - H's TCP listeners on PORT, "ADDR:PORT" (ss's
# "Local Address:Port"), one a line
tcp_listeners() {
	in_h ss -Htln "sport = :$1" 2>/dev/null | awk '{ print $4 }'
}

# exited PID - PID is gone, or a zombie (the daemon's parent is init, which
# may reap orphans late; a zombie holds no socket)
exited() {
	local st
	st=$(sed 's/^.*) \([A-Za-z]\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 0
	case $st in Z|X|x|"") return 0 ;; esac
	return 1
}

# exit_time PID SECS - wait (bounded) for PID to exit; prints how long it
# took (in seconds); fails if it did not
exit_time() {
	local t0 rc
	t0=$(date +%s.%N)
	_poll "$2" exited "$1"
	rc=$?
	awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }"
	return $rc
}

# kv KEY FILE - the value of KEY=... in FILE
kv() {
	sed -n "s/^$1=//p" "$2" 2>/dev/null | tail -n 1
}

# guest_tests NAME OUT - the checks both guests share: lease, download
guest_tests() {
	local out=$2
	is "$(result dhcp "$out")" ok "$1: guest got a lease by DHCP"
	is "$(fact addr "$out")" "$H_ADDR/24" "$1: guest address is the --address given, /24"
	is "$(fact mtu "$out")" 65520 "$1: guest MTU is --mtu 65520"
	is "$(result download "$out")" ok "$1: guest downloaded $DL_MIB MiB from R"
	is "$(fact download_sha "$out")" "$DL_SHA" "$1: download sha256 matches"
	diag "$1: download $(fact download_ms "$out") ms"
}

# from_r_to_guest NAME PORT QPORT [XPORT] - once the guest's server is up,
# R fetches its file through H's PORT (curl's status in FETCH_RC, the file
# in $WORK/NAME-g.bin) and XPORT (XLAT_RC, $WORK/NAME-x.bin), then tells
# the guest to stop through QPORT
from_r_to_guest() {
	local name=$1 port=$2 qport=$3
	if _poll 180 server_ready "$name" &&
	   grep -qa "^PT-READY server" "$WORK/$name.console"; then
		fetch_from_r "$name-g" "http://$H_ADDR:$port/g.bin"
		FETCH_RC=$?
		if [ -n "${4:-}" ]; then
			fetch_from_r "$name-x" "http://$H_ADDR:$4/g.bin"
			XLAT_RC=$?
		fi
		in_r timeout 5 bash -c "echo quit >/dev/tcp/$H_ADDR/$qport" \
			2>>"$WORK/$name-g.err"
	else
		FETCH_RC=1 XLAT_RC=1
		echo "guest server never ready" >"$WORK/$name-g.err"
		cp "$WORK/$name-g.err" "$WORK/$name-x.err"
	fi
}

# --- 1. libvirt -------------------------------------------------------------------

# libvirt's passtStateDir (/run/libvirt/qemu/passt) and its names:
# SHORTNAME-ALIAS.socket, SHORTNAME-ALIAS-passt.pid. libvirt starts passt
# as the domain's user (qemuSecurityCommandRun()), not as root: so do we
LVDIR=$WORK/libvirt
mkdir -p "$LVDIR"
chown "$TEST_USER:" "$LVDIR"
LV_SOCK=$LVDIR/1-pt-guest-net0.socket
LV_PIDF=$LVDIR/1-pt-guest-net0-passt.pid
LV_LOG=$LVDIR/passt.log
LV_ARGV=("$PASST" --one-off --socket "$LV_SOCK" --pid "$LV_PIDF"
	--mtu 65520 --interface veth0 --log-file "$LV_LOG"
	--hostname pt-guest --fqdn pt-guest.example.org
	--address "$H_ADDR" --netmask 24 --mac-addr "$MAC_LV"
	--tcp-ports "$H_ADDR%veth0/$GUEST_PORT"
	--tcp-ports "$XLAT_PORT-$XLAT_QUIT:$GUEST_PORT-$QUIT_PORT")
diag "libvirt's passt command line:"
show "${LV_ARGV[@]}"

# As libvirt: run it, wait for it to exit (ip netns exec and setpriv exec
# passt: $! is passt's own PID), then look
ip netns exec "$NS_H" setpriv --reuid "$TEST_USER" --regid "$TEST_USER" \
	--init-groups "${LV_ARGV[@]}" \
	>"$WORK/libvirt.out" 2>"$WORK/libvirt.err" </dev/null &
parent=$!
if wait_gone "$parent" 20; then
	wait "$parent"
	rc=$?
else
	rc="still running after 20 s"
	_PIDS+=("$parent")
fi
# Right as the parent is gone: socket listening, PID file, ports bound
sock_now=$(in_h ss -Hxl 2>/dev/null | grep -cF " $LV_SOCK ")
pid=$(tr -d ' \n' <"$LV_PIDF" 2>/dev/null)
l_bound=$(tcp_listeners "$GUEST_PORT" | tr '\n' ' ')
l_xlat=$(tcp_listeners "$XLAT_PORT" | wc -l)$(tcp_listeners "$XLAT_QUIT" | wc -l)

is "$rc" 0 "libvirt: passt's parent exits 0" || {
	diag_file "$WORK/libvirt.err"
	diag_file "$LV_LOG"
}
is "$sock_now" 1 "libvirt: the socket listens when the parent exits" ||
	in_h ss -Hxl | sed 's/^/#   /'
desc="libvirt: the PID file names the running passt, not the parent"
if [[ "$pid" =~ ^[0-9]+$ ]] && [ "$pid" != "$parent" ] &&
   [ "$(readlink -f "/proc/$pid/exe" 2>/dev/null)" = "$(readlink -f "$PASST")" ]; then
	ok 0 "$desc"
	_PIDS+=("$pid")
else
	ok 1 "$desc"
	diag "  PID file: '$(cat "$LV_PIDF" 2>/dev/null)', parent $parent"
	[[ "$pid" =~ ^[0-9]+$ ]] && _PIDS+=("$pid")
fi
desc="libvirt: --log-file written, naming the socket"
if [ -s "$LV_LOG" ] && grep -qF "$LV_SOCK" "$LV_LOG"; then
	ok 0 "$desc"
else
	ok 1 "$desc"
	diag_file "$LV_LOG"
fi
is "$l_bound" "$H_ADDR%veth0:$GUEST_PORT " \
	"libvirt: $H_ADDR%veth0/$GUEST_PORT listens on that address and device only"
is "$l_xlat" 11 "libvirt: the translated range listens on $XLAT_PORT-$XLAT_QUIT"
is "$(cat "$WORK/libvirt.out" "$WORK/libvirt.err")" "" \
	"libvirt: nothing on passt's standard output or error (--log-file)"

t0=$(date +%s.%N)
qemu_bg lv 240 "$LV_SOCK" pt.test=lease,download,server \
	pt.srv="$SRV_ADDR" pt.port="$HTTP_PORT" pt.file=dl.bin \
	pt.gmib="$GUEST_MIB" pt.gport="$GUEST_PORT" pt.qport="$QUIT_PORT" \
	pt.wait=40
from_r_to_guest lv "$GUEST_PORT" "$XLAT_QUIT" "$XLAT_PORT"
qemu_wait lv
ok $? "libvirt: guest ran its tests and powered off" || {
	diag_file "$WORK/lv.console" 40
	diag_file "$WORK/lv.qemu.err" 10
	diag_file "$LV_LOG"
}
OUT=$WORK/lv.out
diag "libvirt guest: $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s"
lease=$(grep -a '^PT-LEASE ' "$OUT")
[ -n "$lease" ] && diag "$lease"
guest_tests libvirt "$OUT"
ok "$FETCH_RC" "libvirt: R fetched the guest's file through $H_ADDR%veth0/$GUEST_PORT" ||
	diag_file "$WORK/lv-g.err"
is_set "$(sha "$WORK/lv-g.bin" 2>/dev/null)" "$(fact guest_sha "$OUT")" "libvirt: guest's file: sha256 matches"
ok "$XLAT_RC" "libvirt: R fetched it through $XLAT_PORT (translated to $GUEST_PORT)" ||
	diag_file "$WORK/lv-x.err"
is_set "$(sha "$WORK/lv-x.bin" 2>/dev/null)" "$(fact guest_sha "$OUT")" \
	"libvirt: through $XLAT_PORT: sha256 matches"
is "$(result server "$OUT")" ok "libvirt: guest got R's word through $XLAT_QUIT (to $QUIT_PORT)"

desc="libvirt: passt --one-off exits by itself once QEMU quit"
if [[ "$pid" =~ ^[0-9]+$ ]] && secs=$(exit_time "$pid" 10); then
	ok 0 "$desc"
	diag "passt gone ${secs} s after QEMU's exit was seen"
else
	ok 1 "$desc"
	diag_file "$LV_LOG"
fi
[ -e "$LV_SOCK" ]
ok $((!$?)) "libvirt: passt removed its socket"

# --- 2. QEMU 10.1 -netdev passt, --fd 3 -------------------------------------------

# What QEMU builds from -netdev passt,id=n0,mtu=65520,address=...,
# netmask=255.255.255.0,mac=...,gateway=...,interface=veth0,outbound=...,
# outbound-if4=veth0,outbound-if6=veth0,dns=...,fqdn=...,
# map-host-loopback=...,ndp=off,dhcpv6=off,ra=off,freebind=on,
# and the lists search, tcp-ports [8090, 8091], udp-ports [5353, 5354] (in
# -netdev's JSON form: QEMU 11 joins a list's items with commas, as
# test/89 sees it do) (passt_fd.py adds --pid TMPFILE --fd 3)
# shellcheck disable=SC2054  # commas within the port lists
FD_ARGV=("$PASST" --quiet --mtu 65520 --address "$H_ADDR"
	--netmask 255.255.255.0 --mac-addr "$MAC_QEMU" --gateway "$R_ADDR"
	--interface veth0 --outbound "$H_ADDR" --outbound-if4 veth0
	--outbound-if6 veth0 --dns "$DNS" --fqdn pt-guest.example.org
	--map-host-loopback "$R_ADDR" --no-ndp --no-dhcpv6 --no-ra --freebind
	--search "$SEARCH" --tcp-ports "$GUEST_PORT,$QUIT_PORT"
	--udp-ports 5353,5354)
diag "QEMU's passt command line (then --pid TMPFILE --fd 3):"
show "${FD_ARGV[@]}"

STATUS=$WORK/fd.status
t0=$(date +%s.%N)
qemu_argv "stream,id=n0,server=off,addr.type=fd,addr.str=@FD@" \
	pt.test=lease,download,server \
	pt.srv="$SRV_ADDR" pt.port="$HTTP_PORT" pt.file=dl.bin \
	pt.gmib="$GUEST_MIB" pt.gport="$GUEST_PORT" pt.qport="$QUIT_PORT" \
	pt.wait=40
qemu_bg_cmd fd 240 "$PY" "$TESTDIR/guest/passt_fd.py" --status "$STATUS" \
	--out "$WORK/fd.passt.out" --err "$WORK/fd.passt.err" \
	--tmpdir "$WORK" --wait 20 -- "${FD_ARGV[@]}" -- "${QEMU_ARGV[@]}"

# passt_fd.py writes the status before it execs QEMU, or exits
status_ready() {
	[ -s "$STATUS" ] || ! kill -0 "$QEMU_PID" 2>/dev/null
}
_poll 30 status_ready
[ -s "$STATUS" ] || diag "no $STATUS"
fd_pid=$(kv pid "$STATUS")
[[ "$fd_pid" =~ ^[0-9]+$ ]] && _PIDS+=("$fd_pid")
is "$(kv passt_rc "$STATUS")" 0 "QEMU: passt's parent exits 0" || {
	diag_file "$STATUS"
	diag_file "$WORK/fd.passt.err"
	diag_file "$WORK/fd.qemu.err"
}
desc="QEMU: the PID file names the running passt, not the parent"
if [ "$(kv alive "$STATUS")" = 1 ] && [ "$(kv pid_not_parent "$STATUS")" = 1 ]; then
	ok 0 "$desc"
else
	ok 1 "$desc"
	diag_file "$STATUS"
fi
fwd=$(tcp_listeners "$GUEST_PORT" | wc -l)$(tcp_listeners "$QUIT_PORT" | wc -l)
fwd=$fwd$(in_h ss -Hunl "sport = :5353" | wc -l)$(in_h ss -Hunl "sport = :5354" | wc -l)
is "$fwd" 1111 "QEMU: --tcp-ports $GUEST_PORT,$QUIT_PORT and --udp-ports 5353,5354 bound in H"

from_r_to_guest fd "$GUEST_PORT" "$QUIT_PORT"
qemu_wait fd
ok $? "QEMU: guest ran its tests and powered off" || {
	diag_file "$WORK/fd.console" 40
	diag_file "$WORK/fd.qemu.err" 10
}
OUT=$WORK/fd.out
diag "QEMU guest: $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s"
lease=$(grep -a '^PT-LEASE ' "$OUT")
[ -n "$lease" ] && diag "$lease"
guest_tests QEMU "$OUT"
is "$(fact gw "$OUT")" "$R_ADDR" "QEMU: guest gateway is the --gateway given"
is "$(fact dns "$OUT")" "$DNS" "QEMU: guest name server is the --dns given"
is "$(fact search "$OUT")" "${SEARCH// /,}" "QEMU: guest search list is --search \"$SEARCH\""
ok "$FETCH_RC" "QEMU: R fetched the guest's file through --tcp-ports $GUEST_PORT" ||
	diag_file "$WORK/fd-g.err"
is_set "$(sha "$WORK/fd-g.bin" 2>/dev/null)" "$(fact guest_sha "$OUT")" \
	"QEMU: guest's file: sha256 matches"
is "$(result server "$OUT")" ok "QEMU: guest got R's word through $QUIT_PORT"
is "$(cat "$WORK/fd.passt.out")" "" "QEMU: --quiet: nothing on passt's standard output"
is "$(cat "$WORK/fd.passt.err")" "" "QEMU: --quiet: nothing on passt's standard error"
desc="QEMU: passt exits by itself once QEMU's end of the socket is closed"
if [[ "$fd_pid" =~ ^[0-9]+$ ]] && secs=$(exit_time "$fd_pid" 10); then
	ok 0 "$desc"
	diag "passt gone ${secs} s after QEMU's exit was seen"
else
	ok 1 "$desc"
fi

done_testing
