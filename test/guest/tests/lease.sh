#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# lease: report the configuration udhcpc applied, for the host to compare
. /tests/lib.sh

pt_fact addr "$(ip -4 -o addr show dev eth0 | awk '{ print $4; exit }')"
pt_fact gw "$(ip -4 route show default | awk '{ print $3; exit }')"
pt_fact mtu "$(cat /sys/class/net/eth0/mtu)"
pt_fact dns "$(awk '$1 == "nameserver" { printf "%s%s", s, $2; s = "," }' /etc/resolv.conf)"
pt_fact search "$(awk '$1 == "search" { $1 = ""; sub(/^ /, ""); gsub(/ /, ","); print }' /etc/resolv.conf)"
pt_result ok lease
