#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# iperf3: -t $PT_secs to $PT_srv, then the reverse direction (-R)
. /tests/lib.sh

for dir in up down; do
	r=
	[ $dir = down ] && r=-R
	# shellcheck disable=SC2086
	if timeout 20 iperf3 -c "$PT_srv" -t "${PT_secs:-3}" -f m $r \
		   --connect-timeout 5000 >/tmp/iperf3.out 2>&1; then
		pt_fact "iperf3_${dir}_mbps" \
			"$(awk '/receiver/ { print $7; exit }' /tmp/iperf3.out)"
		pt_result ok "iperf3_$dir"
	else
		pt_result fail "iperf3_$dir" \
			"$(tail -n 2 /tmp/iperf3.out | tr '\n' ' ')"
	fi
done
rm -f /tmp/iperf3.out
