# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash disable=SC2034  # variables for the sourcing file
#
# test/tapguest.sh - G, a third namespace whose kernel and tools are passt's
# guest through test/tapsock.py (a tap device relayed to passt's socket).
# Sourced after lib.sh by 66-passt-tapsock.t and 67-passt-follow.t.
#
# Variables: NS_G (pt-g-$$), TAP (tap0, the tap in G), SCRIPT (udhcpc's
#   script, from g_create), SOCK (passt's socket: the caller sets it)
# Functions:
#   g_need                   skip the whole file without passt (PASST, by
#                            default beside $PASTA), busybox or curl
#   stop WHAT                a set-up step failed: the rest can't run
#   in_g CMD... / bg_g NAME CMD...   as in_h / bg_h, in G
#   g_create [SYSCTL=VALUE...]  G with lo up, taking router advertisements
#                            and making SLAAC addresses (set before the tap
#                            exists, so that it inherits them), and the
#                            extra sysctls; returns non-zero on failure
#   tapsock_start NAME       tapsock.py in G on $SOCK, PID in TS_PID;
#                            non-zero unless it relays within 10 s
#   g_dhcp NAME              flush G's IPv4 address, a fresh udhcpc on $TAP:
#                            lease or not within 30 s, output in
#                            $WORK/NAME.log ("lease: ip=... router=...")

NS_G=pt-g-$$
TAP=tap0

g_need() {
	PASST=${PASST:-$(dirname "$PASTA")/passt}
	[ -x "$PASST" ] || skip_all "no passt binary at $PASST"
	command -v busybox >/dev/null || skip_all "busybox missing (udhcpc)"
	command -v curl >/dev/null || skip_all "curl missing"
}

stop() {
	diag "set-up failed: $1"
	not_run $((_TAP_PLANNED - _TAP_N)) "after: $1"
	done_testing
}

in_g() { ip netns exec "$NS_G" "$@"; }
bg_g() { _bg_ns "$NS_G" "$@"; }

g_create() {
	ip netns add "$NS_G" || return 1
	_NETNS+=("$NS_G")
	in_g ip link set lo up &&
	in_g sysctl -qw net.ipv6.conf.default.accept_ra=2 \
		net.ipv6.conf.default.autoconf=1 "$@" || return 1

	# udhcpc's lease onto the interface; not test/guest/udhcpc.script,
	# which writes /etc/resolv.conf and /dev/console: the machine's, here
	SCRIPT=$WORK/udhcpc.sh
	cat >"$SCRIPT" <<'EOF'
#!/bin/sh
case "$1" in
deconfig)
	ip -4 addr flush dev "$interface"
	ip link set "$interface" up
	;;
bound|renew)
	ip -4 addr flush dev "$interface"
	ip addr add "$ip/$mask" dev "$interface"
	for r in $router; do
		ip route replace default via "$r" dev "$interface"
		break
	done
	echo "lease: ip=$ip mask=$mask router=$router mtu=$mtu dns=$dns"
	;;
esac
exit 0
EOF
	chmod +x "$SCRIPT"
}

tapsock_start() {
	rm -f "$WORK/$1.pid"
	bg_g "$1" "$PY" "$TESTDIR/tapsock.py" --sock "$SOCK" --tap "$TAP" \
		--pidfile "$WORK/$1.pid"
	TS_PID=$BG_PID
	wait_file "$WORK/$1.pid" 10
}

g_dhcp() {
	in_g ip -4 addr flush dev "$TAP"
	in_g timeout -k 5 30 busybox udhcpc -i "$TAP" -n -q -t 5 -s "$SCRIPT" \
		>"$WORK/$1.log" 2>&1
}
