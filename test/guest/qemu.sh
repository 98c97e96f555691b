# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/guest/qemu.sh - boot the test guest under QEMU, read its console
#
# Sourced, after test/lib.sh, by the tests that run a QEMU guest on passt
# (test/95-passt-qemu.t, test/98-callers.t). Needs $QEMU (the binary),
# $KERNEL and $INITRD (from test/guest/build.sh), $NS_H and $WORK. The
# guest and the console lines it prints: test/guest/init, doc/passt-guest.md.
#
# Functions:
#   stop MSG                  give up on this file (not the whole run)
#   is_set GOT WANT DESC      is(), but an empty GOT never matches
#   guest_image               build or reuse the guest's kernel and
#                             initramfs, as one test; sets KERNEL, INITRD
#   qemu_argv NETDEV ARGS...  QEMU_ARGV: QEMU booting the guest under TCG,
#                             its virtio-net NIC on -netdev NETDEV (whose
#                             id must be n0), ARGS (pt.KEY=VALUE) appended
#                             to the kernel command line
#   qemu_bg_cmd NAME SECS CMD...
#                             CMD (QEMU_ARGV, or something that execs it)
#                             as root in H in the background, bounded by
#                             SECS; serial console in $WORK/NAME.console,
#                             stderr in $WORK/NAME.qemu.err; PID (of
#                             timeout(1)) in QEMU_PID, killed by cleanup
#   qemu_vu_argv SOCK ARGS... QEMU_ARGV for the guest's rings handed to
#                             passt over vhost-user on SOCK (its memory a
#                             shared memfd, -netdev vhost-user)
#   qemu_bg NAME SECS SOCK ARGS...
#                             the guest attached to passt's UNIX socket SOCK
#                             (-netdev stream, as libvirt does), or with
#                             PASST_LINK=vhost-user, its rings handed to
#                             passt over vhost-user on SOCK (its memory a
#                             shared memfd, -netdev vhost-user)
#   qemu_wait NAME            wait for the guest to power off; its console,
#                             without CRs, in $WORK/NAME.out; returns QEMU's
#                             exit status
#   result NAME OUT           "ok", "fail DETAIL" or "missing" for
#                             PT-RESULT NAME in the console output OUT
#   fact KEY OUT              the value of PT-FACT KEY=... in OUT
#   uptime_of BOOT|DONE OUT   guest uptime at PT-BOOT or PT-DONE

QEMU=${QEMU:-qemu-system-x86_64}
BIOS=()
[ -f /usr/share/qemu/qboot.rom ] && BIOS=(-bios /usr/share/qemu/qboot.rom)

# QEMU_LINK_ARGS: options before -netdev (vhost-user: shared memory, the
# socket); QEMU_NIC_OPTS: the NIC's own beyond netdev and romfile
QEMU_LINK_ARGS=()
QEMU_NIC_OPTS=

qemu_argv() {
	local netdev=$1
	shift
	# shellcheck disable=SC2054  # commas within QEMU's option values
	QEMU_ARGV=("$QEMU" -accel tcg
		"${BIOS[@]}" -m 256 -nographic -nodefaults -serial stdio
		-monitor none -no-reboot
		-kernel "$KERNEL" -initrd "$INITRD"
		-append "console=ttyS0 quiet panic=-1 $*"
		"${QEMU_LINK_ARGS[@]}" -netdev "$netdev"
		-device "virtio-net-pci,netdev=n0,romfile=$QEMU_NIC_OPTS")
}

qemu_bg_cmd() {
	local name=$1 secs=$2
	shift 2
	ip netns exec "$NS_H" timeout -k 5 "$secs" "$@" \
		</dev/null >"$WORK/$name.console" 2>"$WORK/$name.qemu.err" &
	QEMU_PID=$!
	_PGIDS+=("$QEMU_PID")
}

qemu_vu_argv() {
	local sock=$1
	shift
	QEMU_LINK_ARGS=(-object memory-backend-memfd,id=mem,size=256M,share=on
			-numa node,memdev=mem
			-chardev "socket,id=c0,path=$sock")
	# Debian 12's QEMU 7.2 crashes under TCG on a vhost-user NIC with
	# MSI-X: vectors=0 (legacy interrupts) avoids it
	QEMU_NIC_OPTS=
	"$QEMU" --version 2>/dev/null | grep -q "version 7\." &&
		QEMU_NIC_OPTS=,vectors=0
	qemu_argv vhost-user,id=n0,chardev=c0 "$@"
}

qemu_bg() {
	local name=$1 secs=$2 sock=$3
	shift 3
	if [ "${PASST_LINK:-stream}" = vhost-user ]; then
		qemu_vu_argv "$sock" "$@"
	else
		qemu_argv "stream,id=n0,server=off,addr.type=unix,addr.path=$sock" "$@"
	fi
	qemu_bg_cmd "$name" "$secs" "${QEMU_ARGV[@]}"
}

qemu_wait() {
	local rc
	wait "$QEMU_PID"
	rc=$?
	tr -d '\r' <"$WORK/$1.console" >"$WORK/$1.out"
	return $rc
}

result() {
	local r
	r=$(tr -d '\r' <"$2" | sed -n "s/^PT-RESULT \(ok\|fail\) $1\( \|$\)/\1 /p" | tail -n1)
	r=${r% }
	echo "${r:-missing}"
}

fact() {
	tr -d '\r' <"$2" | sed -n "s/^PT-FACT $1=//p" | tail -n1
}

uptime_of() {
	tr -d '\r' <"$2" | sed -n "s/^PT-$1 uptime=//p" | tail -n1
}

# stop MSG - give up on this file (not the whole run): the plan is not met
stop() {
	diag "stopping: $*"
	done_testing
}

# guest_image - build (or reuse) the guest image, as one test
guest_image() {
	local t0 img

	t0=$(date +%s)
	if img=$("$TESTDIR/guest/build.sh" 2>"$WORK/build.log"); then
		ok 0 "guest kernel and initramfs built ($(($(date +%s) - t0)) s)"
	else
		ok 1 "guest kernel and initramfs built"
		diag_file "$WORK/build.log"
		stop "no guest image"
	fi
	KERNEL=$(echo "$img" | tail -n 2 | head -n 1)
	INITRD=$(echo "$img" | tail -n 1)
}

# is_set GOT WANT DESC - is(), but an empty GOT never matches
is_set() {
	if [ -z "$1" ]; then
		ok 1 "$3"
		diag "  got nothing, want: '$2'"
		return 1
	fi
	is "$@"
}
