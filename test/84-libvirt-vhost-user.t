#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 84-libvirt-vhost-user.t - libvirt starts a domain on our passt over
# vhost-user, as libvirt 11.1+ does for <interface type='vhostuser'> with
# <backend type='passt'/>: Debian unstable's libvirt and QEMU
# (test/sid-root.sh, run by test/sid-chroot), in session mode
# (qemu:///session) as the unprivileged $TEST_USER, in H's namespace, with
# ./passt first in the daemon's PATH. The domain boots the test guest
# (test/guest) under TCG with its memory a shared memfd
# (<memoryBacking><access mode='shared'/>), and a port forwarded by
# <portForward>. The guest gets its lease by DHCP and an address by SLAAC,
# downloads from R over HTTP (sha256), and serves R on the forwarded port;
# libvirt's own passt command line is logged, and it is ours that ran
# (<backend logFile=...>: our --log-file names the binary).
# Skipped if that root can't be built (no network).

. "$(dirname "$0")/lib.sh"
. "$TESTDIR/guest/qemu.sh"

PASST=${PASST:-$(dirname "$PASTA")/passt}
HTTP_PORT=8080		# test/httpd.py in R
GUEST_PORT=8090		# busybox httpd in the guest, <portForward>
QUIT_PORT=8091		# the guest waits for a word here when the host is done
DL_MIB=4
GUEST_MIB=2
SID=$TESTDIR/sid-chroot

lib_init
[ -x "$PASST" ] || skip_all "$PASST not built"
root=$("$TESTDIR/sid-root.sh" 2>"$WORK/sid-root.err") ||
	skip_all "no Debian unstable root: $(tail -n 1 "$WORK/sid-root.err")"
[ -x "$root/usr/bin/virsh" ] || skip_all "no libvirt in $root"
plan 10

guest_image
topo_create || stop "topology"
mkdir -p "$WORK/srv"
make_random "$WORK/srv/dl.bin" "$DL_MIB"
start_httpd "$NS_R" "$SRV_ADDR" "$HTTP_PORT" "$WORK/srv" httpd || stop "httpd.py"

# The session's home, runtime and configuration: the user's own
LV=$WORK/u/lv
mkdir -p "$LV/run" "$LV/config" "$LV/cache" "$LV/bin"
chmod 700 "$LV/run"
ln -s "$PASST" "$LV/bin/passt"
chown -R "$TEST_USER:" "$LV"

# lv CMD... - a command of the root, as $TEST_USER in H, with the session's
# environment: the daemon virsh starts inherits it, PATH above all (that
# daemon, QEMU and passt stay in H: the clean-up ends them there)
lv() {
	ip netns exec "$NS_H" timeout -k 5 60 "$SID" --user "$TEST_USER" \
		env HOME="$LV" XDG_RUNTIME_DIR="$LV/run" \
		XDG_CONFIG_HOME="$LV/config" XDG_CACHE_HOME="$LV/cache" \
		PATH="$LV/bin:/usr/bin:/usr/sbin:/bin:/sbin" "$@"
}

cat >"$LV/dom.xml" <<XML
<domain type='qemu'>
  <name>pt-vu</name>
  <memory unit='MiB'>256</memory>
  <memoryBacking><source type='memfd'/><access mode='shared'/></memoryBacking>
  <vcpu>1</vcpu>
  <os>
    <type arch='x86_64' machine='pc'>hvm</type>
    <kernel>$KERNEL</kernel>
    <initrd>$INITRD</initrd>
    <cmdline>console=ttyS0 quiet panic=-1 pt.test=lease,slaac,download,server pt.srv=$SRV_ADDR pt.port=$HTTP_PORT pt.file=dl.bin pt.gmib=$GUEST_MIB pt.gport=$GUEST_PORT pt.qport=$QUIT_PORT pt.wait=40</cmdline>
  </os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <on_reboot>destroy</on_reboot>
  <on_crash>destroy</on_crash>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <interface type='vhostuser'>
      <backend type='passt' logFile='$LV/passt.log'/>
      <model type='virtio'/>
      <portForward proto='tcp'>
        <range start='$GUEST_PORT'/>
        <range start='$QUIT_PORT'/>
      </portForward>
    </interface>
    <serial type='file'><source path='$LV/console.log'/><target port='0'/></serial>
    <memballoon model='none'/>
  </devices>
</domain>
XML
chown "$TEST_USER:" "$LV/dom.xml"

lv virsh -q -c qemu:///session create "$LV/dom.xml" >"$WORK/create.log" 2>&1
ok $? "libvirt (session) created the domain with a vhost-user passt interface" || {
	diag_file "$WORK/create.log"
	diag_file "$LV/cache/libvirt/qemu/log/pt-vu.log" 20
	stop "no domain"
}

# running - the domain is still there
running() {
	lv virsh -q -c qemu:///session domstate pt-vu 2>/dev/null | grep -q running
}
# server_ready - the guest's server is up, or the domain is gone
server_ready() {
	grep -qa "^PT-READY server" "$LV/console.log" 2>/dev/null || ! running
}
rc=1
if _poll 180 server_ready && grep -qa "^PT-READY server" "$LV/console.log"; then
	in_r timeout 30 curl -sS -o "$WORK/g.bin" \
		"http://$H_ADDR:$GUEST_PORT/g.bin" 2>"$WORK/curl.err"
	rc=$?
	in_r timeout 5 bash -c "echo quit >/dev/tcp/$H_ADDR/$QUIT_PORT" \
		2>>"$WORK/curl.err"
fi
_gone_domain() { ! running; }
_poll 90 _gone_domain
ok $? "the guest ran its tests and powered off: the domain is gone" ||
	lv virsh -q -c qemu:///session destroy pt-vu >/dev/null 2>&1
OUT=$WORK/console.out
tr -d '\r' <"$LV/console.log" >"$OUT" 2>/dev/null

is "$(result dhcp "$OUT")" ok "guest got a lease by DHCP" ||
	diag_file "$OUT" 30
is "$(result slaac "$OUT")" ok "IPv6: guest formed an address by SLAAC, has a default route"
is "$(result download "$OUT")" ok "guest downloaded $DL_MIB MiB over HTTP"
is_set "$(fact download_sha "$OUT")" "$(sha "$WORK/srv/dl.bin")" \
	"the download's sha256 matches"
is "$rc:$(fact guest_sha "$OUT")" "0:$(sha "$WORK/g.bin" 2>/dev/null)" \
	"R fetched $GUEST_MIB MiB from the guest through <portForward> ($GUEST_PORT)" ||
	diag_file "$WORK/curl.err"

# What libvirt ran: its log of the domain names the passt command line
cmd=$(grep -a -m1 -- "--vhost-user" "$LV/cache/libvirt/qemu/log/pt-vu-"*passt*.log \
	"$LV/cache/libvirt/qemu/log/pt-vu.log" 2>/dev/null | head -n 1)
diag "libvirt's passt: ${cmd:-(not logged)}"
grep -qa "vhost-user" "$LV/cache/libvirt/qemu/log/pt-vu.log" 2>/dev/null
ok $? "QEMU was started with a vhost-user netdev (libvirt's log of the domain)" ||
	diag_file "$LV/cache/libvirt/qemu/log/pt-vu.log" 20
is "$(sed -n '1s/^passt [^:]*: \([^ ]*\) .*/\1/p' "$LV/passt.log" 2>/dev/null)" \
	"$(readlink -f "$PASST")" "the passt libvirt ran is ours (its logFile)" ||
	diag_file "$LV/passt.log" 5
done_testing
