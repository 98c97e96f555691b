#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ping from pasta's namespace, IPv4 and IPv6: echo requests go out through
# the host's unprivileged ping sockets (net.ipv4.ping_group_range, set for
# H by topo_create, covers ICMPv6 too) and the replies come back with the
# guest's identifier; the same to the gateway address.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((1 + 2 * NFAM))

topo_create; ok $? "topology created" || done_testing

for fam in $FAMILIES; do
	use_family "$fam"
	pasta_run "ping$FAM" 30 -- ping "$IPV" -c 3 -i 0.2 -W 5 "$SRV"
	ok $? "$FAMNAME: 3 echo replies from $SRV" || diag_file "$WORK/ping$FAM.out"

	pasta_run "pinggw$FAM" 30 -- ping "$IPV" -c 2 -i 0.2 -W 5 "$GW"
	ok $? "$FAMNAME: echo replies from the gateway address $GW (H's loopback)" ||
		diag_file "$WORK/pinggw$FAM.out"
done
done_testing
