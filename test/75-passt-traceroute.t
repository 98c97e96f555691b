#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 75-passt-traceroute.t - test/74's traces, from a QEMU guest on passt
#
# The guest (test/guest, with Debian's traceroute and tracepath in its
# image) on passt's UNIX socket in H, F behind R (topo_far: R-F link MTU
# 1280). From the guest, both families (IPv6 once SLAAC is done):
# traceroute -n -U, -I and -T list R's address (the guest's gateway), then
# F; tracepath -n finds the path MTU, 1280, F 2 hops away. The same ICMP
# errors, TTL and DF mirroring as in pasta mode, over passt's link.
#
# Knobs: PASST=path (default: passt beside $PASTA), PASST_LINK=vhost-user
# (the guest's rings on passt --vhost-user instead), QEMU=binary.

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/guest/qemu.sh
. "$TESTDIR/guest/qemu.sh"

PASST=${PASST:-$(dirname "$PASTA")/passt}

lib_init
[ -x "$PASST" ] || skip_all "$PASST not built"
command -v "$QEMU" >/dev/null ||
	skip_all "$QEMU missing (apt-get install qemu-system-x86)"
[ -x /usr/bin/traceroute.db ] && [ -x /usr/bin/tracepath ] ||
	skip_all "no traceroute.db or tracepath (apt-get install traceroute iputils-tracepath)"
plan $((4 + 4 * 2))

guest_image

topo_create && topo_far 1280 >/dev/null 2>&1
ok $? "topology: F ($F_ADDR, $F_ADDR6) behind R" || stop "topology"

SOCK="$WORK/u/passt.sock"
link_opt=()
[ "${PASST_LINK:-stream}" = vhost-user ] && link_opt=(--vhost-user)
bg_h passt "$PASST" "${link_opt[@]}" -f -d -s "$SOCK" -P "$WORK/u/passt.pid"
_poll 10 test -S "$SOCK"
ok $? "passt is listening on its socket" || {
	diag_file "$WORK/passt.log"
	stop "passt did not start"
}

qemu_bg trace 240 "$SOCK" pt.test=slaac,trace pt.far="$F_ADDR" \
	pt.far6="$F_ADDR6"
qemu_wait trace
ok $? "the guest ran its traces and powered off" || {
	diag_file "$WORK/trace.console" 40
	diag_file "$WORK/trace.qemu.err" 10
	diag_file "$WORK/passt.log" 40
}
OUT="$WORK/trace.out"

for fam in 4 6; do
	use_family "$fam"
	far=$F_ADDR
	[ "$fam" = 6 ] && far=$F_ADDR6
	for how in U I T; do
		is_set "$(fact "trace_$how$fam" "$OUT")" "$R $far" \
			"$FAMNAME: traceroute -$how from the guest lists R ($R), then F ($far)"
	done
	is_set "$(fact "tracepath$fam" "$OUT")" "pmtu 1280 hops 2 back 1 " \
		"$FAMNAME: tracepath from the guest finds the path MTU (1280), F 2 hops away"
done
grep -a "^PT-INFO" "$OUT" | head -n 20 | while read -r line; do
	diag "$line"
done
done_testing
