#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Unit tests of the command line (test/unit_conf.c, built with ASan/UBSan):
# each option form, values good and bad, each mode's own options, in a
# network namespace of our own whose host configuration conf() reads: one
# link with 192.0.2.1/24 and 2001:db8::1/64, default routes through
# 192.0.2.254 and 2001:db8::254 (a dummy interface, else a veth pair)
bin="$(dirname "$0")/unit_conf"
if [ ! -x "$bin" ]; then
	echo "1..0 # SKIP $bin not built (make test/unit_conf)"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (unshare -n, ip link add)"
	exit 0
fi
if ! command -v unshare >/dev/null || ! command -v ip >/dev/null; then
	echo "1..0 # SKIP needs unshare (util-linux) and ip (iproute2)"
	exit 0
fi
exec unshare -n /bin/bash -c '
	bin=$1
	{
		ip link set lo up &&
		if ip link add uc0 type dummy 2>/dev/null; then
			:
		else
			ip link add uc0 type veth peer name uc1 &&
			ip link set uc1 up
		fi &&
		ip link set uc0 up &&
		ip addr add 192.0.2.1/24 dev uc0 &&
		ip -6 addr add 2001:db8::1/64 dev uc0 nodad &&
		ip route add default via 192.0.2.254 dev uc0 &&
		ip -6 route add default via 2001:db8::254 dev uc0
	} >&2 || { echo "Bail out! network namespace setup failed"; exit 1; }
	exec "$bin"
' unit-conf "$bin"
