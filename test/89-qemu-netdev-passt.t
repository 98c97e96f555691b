#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 89-qemu-netdev-passt.t - QEMU 10.1+'s own -netdev passt starting our
# passt, for real: Debian unstable's QEMU 11 (test/sid-root.sh, run by
# test/qemu11), -netdev passt with path=./passt, on the stream socket and
# with vhost-user (QEMU then runs passt --vhost-user --quiet --tcp-ports
# A,B --pid FILE --fd 3, the guest's memory a shared memfd). Each time the
# guest gets its lease, downloads a file from R (sha256), R reaches its
# server through a -t port QEMU asked for (tcp-ports, in -netdev's JSON
# form: its key=value form has no lists), and passt exits once QEMU is
# gone. Skipped if the root can't be built (no network).

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/guest/qemu.sh
. "$TESTDIR/guest/qemu.sh"

PASST=${PASST:-$(dirname "$PASTA")/passt}
HTTP_PORT=8080
GUEST_PORT=8090
QUIT_PORT=8091

lib_init
[ -x "$PASST" ] || skip_all "$PASST not built"
"$TESTDIR/sid-root.sh" >/dev/null 2>"$WORK/sid-root.err" ||
	skip_all "no Debian unstable root: $(tail -n 1 "$WORK/sid-root.err")"
QEMU=$TESTDIR/qemu11
plan 13

guest_image
topo_create || stop "topology"
mkdir -p "$WORK/srv"
make_random "$WORK/srv/dl.bin" 4
start_httpd "$NS_R" "$SRV_ADDR" "$HTTP_PORT" "$WORK/srv" httpd || stop "httpd.py"
PASST_ABS=$(cd "$(dirname "$PASST")" && pwd)/$(basename "$PASST")

# netdev_passt NAME OPTS - the guest on -netdev passt, OPTS more JSON
# members; checks 6 things
netdev_passt() {
	local name=$1 opts=$2 out pid

	# JSON: the list of ports has no -netdev key=value form
	qemu_argv "{\"type\":\"passt\",\"id\":\"n0\",\"path\":\"$PASST_ABS\",\"tcp-ports\":[{\"str\":\"$GUEST_PORT\"},{\"str\":\"$QUIT_PORT\"}]$opts}" \
		pt.test=lease,download,server pt.srv="$SRV_ADDR" \
		pt.port="$HTTP_PORT" pt.file=dl.bin pt.gmib=1 \
		pt.gport="$GUEST_PORT" pt.qport="$QUIT_PORT" pt.wait=40
	qemu_bg_cmd "$name" 180 "${QEMU_ARGV[@]}"
	_poll 60 grep -qa "^PT-READY server" "$WORK/$name.console"
	pid=$(in_h ss -Htlnp "sport = :$GUEST_PORT" |
	      sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -n 1)
	in_r timeout 30 curl -sS -o "$WORK/$name.g.bin" \
		"http://$H_ADDR:$GUEST_PORT/g.bin" 2>/dev/null
	ok $? "$name: R fetches the guest's file through passt's -t $GUEST_PORT (tcp-ports)"
	in_r timeout 5 bash -c "echo quit >/dev/tcp/$H_ADDR/$QUIT_PORT" 2>/dev/null
	qemu_wait "$name"
	ok $? "$name: QEMU started passt, the guest ran its tests and powered off" ||
		{ diag_file "$WORK/$name.console" 20; diag_file "$WORK/$name.qemu.err" 10; }
	out=$WORK/$name.out
	is "$(fact addr "$out")" "$H_ADDR/24" "$name: the guest's lease, H's address"
	is "$(fact download_sha "$out")" "$(sha "$WORK/srv/dl.bin")" \
		"$name: a 4 MiB download from R, sha256 intact"
	is_set "$(fact guest_sha "$out")" "$(sha "$WORK/$name.g.bin" 2>/dev/null)" \
		"$name: the guest's file as R got it, sha256 intact"
	[ -n "$pid" ] && wait_gone "$pid" 10
	ok $? "$name: passt (PID ${pid:-?}) gone once QEMU quit"
}

netdev_passt stream ""
QEMU_LINK_ARGS=(-object memory-backend-memfd,id=mem,size=256M,share=on
		-numa node,memdev=mem)
netdev_passt vhost ',"vhost-user":true'
done_testing
