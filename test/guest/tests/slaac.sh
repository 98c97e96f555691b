#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# slaac: wait (at most $PT_rawait s) for what passt's router advertisements
# give the kernel: an address it forms itself from the advertised prefix
# (SLAAC, RFC 4862; not a /128, which is how DHCPv6 addresses are added)
# with duplicate address detection over, and a default route through the
# router, link-local; report both, and the IPv6 MTU of eth0. Then, given
# $PT_srv6, ping it from that address (slaac_ping): the replies must come
# back to an address passt did not hand out itself
. /tests/lib.sh

slaac_addr() {
	pt_addrs6 global |
		awk '$1 !~ /\/128$/ && !/tentative|dadfailed/ { print $1; exit }'
}
router() {
	ip -6 route show default | awk '$2 == "via" { print $3; exit }'
}
ready() {
	[ -n "$(slaac_addr)" ] && [ -n "$(router)" ]
}

t0=$(pt_ms)
pt_wait "${PT_rawait:-15}" ready
ms=$(($(pt_ms) - t0))
pt_fact slaac_addr "$(slaac_addr)"
pt_fact gw6 "$(router)"
pt_fact gw6_dev "$(ip -6 route show default | awk '$4 == "dev" { print $5; exit }')"
pt_fact mtu6 "$(cat /proc/sys/net/ipv6/conf/eth0/mtu)"
if ready; then
	pt_fact slaac_ms "$ms"
	pt_result ok slaac
else
	pt_addrs6 | sed 's/^/PT-INFO addr6 /'
	ip -6 route | sed 's/^/PT-INFO route6 /'
	pt_result fail slaac "no SLAAC address or default route after ${PT_rawait:-15} s"
	exit 0
fi

[ -n "${PT_srv6:-}" ] || exit 0
a=$(slaac_addr)
if ping6 -c 1 -W 5 -I "${a%/*}" "$PT_srv6" >/tmp/ping6.out 2>&1; then
	pt_result ok slaac_ping
else
	pt_result fail slaac_ping "$(tail -n 2 /tmp/ping6.out | tr '\n' ' ')"
fi
rm -f /tmp/ping6.out
