#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# trace: traceroute -n with UDP probes (-U), echo requests (-I) and TCP SYNs
# (-T, to port 80 of the far server, closed), then tracepath -n, to $PT_far
# and, where given, $PT_far6 (run slaac first: the IPv6 traces need an
# address); reports the hops that answered, space-separated, as
# trace_U4, trace_I4, trace_T4 (trace_U6...), and tracepath's summary
# ("pmtu 1280 hops 2 back 1") as tracepath4, tracepath6
. /tests/lib.sh

if [ ! -x /usr/bin/traceroute.db ] || [ ! -x /usr/bin/tracepath ]; then
	pt_result fail trace "no traceroute.db or tracepath in the image (apt-get install traceroute iputils-tracepath, rebuild)"
	exit 0
fi

# trace_fam FAM FAR - the traces of one family
trace_fam() {
	for how in U I T; do
		hops=$(timeout 30 /usr/bin/traceroute.db -"$1" -n -"$how" -q 1 \
			-w 2 -m 4 "$2" 2>/tmp/trace.err |
			awk 'NR > 1 && $2 != "*" { printf "%s%s", sep, $2; sep = " " }')
		pt_fact "trace_$how$1" "$hops"
		[ -n "$hops" ] || pt_info "traceroute -$how: $(tr '\n' ' ' </tmp/trace.err)"
	done
	pt_fact "tracepath$1" "$(timeout 30 /usr/bin/tracepath -"$1" -n -m 4 "$2" |
		sed -n 's/^ *Resume: //p')"
}

trace_fam 4 "$PT_far"
[ -n "${PT_far6:-}" ] && trace_fam 6 "$PT_far6"
pt_result ok trace
