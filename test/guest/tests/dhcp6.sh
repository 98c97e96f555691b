#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# dhcp6: get an address by DHCPv6: dhclient -6 -1 (one try of at most 15 s,
# see /etc/dhclient.conf), whose script, /etc/dhclient.script, adds the
# address and name servers; wait (at most 5 s) for the address to pass
# duplicate address detection; report it as installed on eth0, and the name
# servers (option 23) and search list (option 24) the client got
. /tests/lib.sh

# dhclient binds its socket to eth0's link-local address: DAD must be over
ll_ready() {
	pt_addrs6 link | grep -v tentative | grep -q .
}
pt_wait 5 ll_ready || pt_info "link-local address still tentative"

rm -f /tmp/dhcp6.env
t0=$(pt_ms)
timeout 25 dhclient -6 -1 -v -cf /etc/dhclient.conf -sf /etc/dhclient.script \
	-lf /tmp/dhclient6.leases -pf /run/dhclient6.pid eth0 \
	>/tmp/dhclient6.log 2>&1
rc=$?
if [ $rc != 0 ] || [ ! -s /tmp/dhcp6.env ]; then
	sed 's/^/PT-INFO dhclient: /' /tmp/dhclient6.log | tail -n 15
	pt_result fail dhcp6 "dhclient exit status $rc"
	exit 0
fi
pt_fact dhcp6_ms $(($(pt_ms) - t0))
# What the script got: the address, its prefix length, name servers and
# search list (comma-separated)
lease6_addr= lease6_plen= lease6_dns= lease6_search=
. /tmp/dhcp6.env

# installed - "ADDR/PLEN FLAGS" of the leased address on eth0
installed() {
	pt_addrs6 global | awk -v a="$lease6_addr" 'index($1, a "/") == 1'
}
settled() {
	installed | grep -q . && ! installed | grep -q tentative
}
pt_wait 5 settled
pt_fact dhcp6_addr "$(installed | awk '{ print $1 }')"
pt_fact dhcp6_dns "$lease6_dns"
pt_fact dhcp6_search "$lease6_search"
if ! installed | grep -q .; then
	pt_result fail dhcp6 "$lease6_addr/$lease6_plen not on eth0"
elif installed | grep -q 'tentative\|dadfailed'; then
	pt_result fail dhcp6 "$(installed)"
else
	pt_result ok dhcp6
fi
