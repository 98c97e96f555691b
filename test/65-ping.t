#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# ping from pasta's namespace: echo requests go out through the host's
# unprivileged ping sockets (net.ipv4.ping_group_range, set for H by
# topo_create) and the replies come back with the guest's identifier.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan 3

topo_create; ok $? "topology created" || done_testing

pasta_run ping 30 -- ping -c 3 -i 0.2 -W 5 "$SRV_ADDR"
ok $? "3 echo replies from $SRV_ADDR" || diag_file "$WORK/ping.out"

pasta_run pinggw 30 -- ping -c 2 -i 0.2 -W 5 "$GW"
ok $? "echo replies from the gateway address (H's loopback)" ||
	diag_file "$WORK/pinggw.out"
done_testing
