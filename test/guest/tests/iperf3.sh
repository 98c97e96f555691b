#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# iperf3: -t $PT_secs to $PT_srv, then the reverse direction (-R)
# (iperf3_6.sh sets $pt_host, the server, and $pt_tag, a suffix for the
# names reported)
. /tests/lib.sh

for dir in up down; do
	r=
	[ $dir = down ] && r=-R
	n=iperf3_$dir${pt_tag:-}
	# shellcheck disable=SC2086
	if timeout 20 iperf3 -c "${pt_host:-$PT_srv}" -t "${PT_secs:-3}" -f m $r \
		   --connect-timeout 5000 >/tmp/iperf3.out 2>&1; then
		pt_fact "${n}_mbps" \
			"$(awk '/receiver/ { print $7; exit }' /tmp/iperf3.out)"
		pt_result ok "$n"
	else
		pt_result fail "$n" \
			"$(tail -n 2 /tmp/iperf3.out | tr '\n' ' ')"
	fi
done
rm -f /tmp/iperf3.out
