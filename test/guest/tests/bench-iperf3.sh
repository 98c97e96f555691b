#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench-iperf3: for test/bench-passt.sh - $PT_runs rounds of iperf3 -t
# $PT_secs to $PT_srv, upload then download (-R) in each round; per run the
# receiver's byte count and rate, from iperf3 -J (end.sum_received);
# $PT_streams parallel streams (iperf3 -P) if given.
#
# Console lines (besides the usual PT-RESULT):
#   PT-BENCH start DIR N          then $PT_gap s idle, then the transfer
#   PT-BENCH result DIR N mbps=M bytes=B secs=S retr=R stalled_s=Z irqs=I
#     (R: the sender's retransmitted segments; Z: 1 s intervals under
#     1 Mbit/s; I: the guest's virtio interrupts during the transfer)
#   PT-BENCH fail DIR N DETAIL
#   PT-BENCH end DIR N            then $PT_gap s idle
# The idle seconds around each transfer let the host read passt's CPU time
# (it polls the console) without counting a transfer's start or end twice.
. /tests/lib.sh

runs=${PT_runs:-3}
secs=${PT_secs:-10}
gap=${PT_gap:-1}
fails=0

# virtio_irqs - interrupts of the virtio devices so far, all CPUs
virtio_irqs() {
	awk '/virtio/ { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i }
	     END { print s + 0 }' /proc/interrupts
}

i=1
while [ "$i" -le "$runs" ]; do
	for dir in up down; do
		r=
		[ $dir = down ] && r=-R
		echo "PT-BENCH start $dir $i"
		sleep "$gap"
		irq0=$(virtio_irqs)
		# shellcheck disable=SC2086
		timeout $((secs + 20)) iperf3 -c "$PT_srv" -t "$secs" $r -J \
			${PT_streams:+-P "$PT_streams"} \
			--connect-timeout 5000 >/tmp/bench.json 2>/tmp/bench.err
		rc=$?
		irqs=$(($(virtio_irqs) - irq0))
		# end.sum_received: "seconds", "bytes", "bits_per_second";
		# end.sum_sent: "retransmits" (the sender's, wherever it is);
		# intervals[].sum: seconds under 1 Mbit/s count as stalled
		res=$(awk '/"sum":/ { i = 1 }
			   i && /"bits_per_second"/ { if ($2 + 0 < 1e6) z++; i = 0 }
			   /"sum_sent"/ { t = 1 }
			   t && /"retransmits"/ { r = $2 + 0; t = 0 }
			   /"sum_received"/ { f = 1; next }
			   f && /"seconds"/ { s = $2 + 0 }
			   f && /"bytes"/ { b = $2 + 0 }
			   f && /"bits_per_second"/ {
				printf "mbps=%.1f bytes=%.0f secs=%.2f retr=%s stalled_s=%d\n",
				       $2 / 1e6, b, s, r == "" ? "?" : r, z
				exit
			   }' /tmp/bench.json 2>/dev/null)
		if [ $rc = 0 ] && [ -n "$res" ]; then
			echo "PT-BENCH result $dir $i $res irqs=$irqs"
		else
			err=$(grep -o '"error":.*' /tmp/bench.json 2>/dev/null | head -n 1)
			echo "PT-BENCH fail $dir $i exit status $rc ${err:-$(tail -n 1 /tmp/bench.err 2>/dev/null)}"
			fails=$((fails + 1))
		fi
		echo "PT-BENCH end $dir $i"
		sleep "$gap"
	done
	i=$((i + 1))
done
rm -f /tmp/bench.json /tmp/bench.err
if [ $fails = 0 ]; then
	pt_result ok bench-iperf3
else
	pt_result fail bench-iperf3 "$fails of $((runs * 2)) transfers failed"
fi
