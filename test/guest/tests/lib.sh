# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/guest/tests/lib.sh - helpers for the guest's init and tests
# (busybox sh; sourced). Line formats: see test/guest/init.

# pt_result ok|fail NAME [DETAIL...]
pt_result() {
	echo "PT-RESULT $*"
}

# pt_fact KEY VALUE - something the host compares
pt_fact() {
	echo "PT-FACT $1=$2"
}

# pt_info MESSAGE... - a line for whoever reads the console
pt_info() {
	echo "PT-INFO $*"
}

# pt_uptime - seconds since boot, with hundredths
pt_uptime() {
	cut -d' ' -f1 /proc/uptime
}

# pt_ms - milliseconds since boot
pt_ms() {
	awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime
}

# pt_sha FILE - sha256 in hex
pt_sha() {
	sha256sum "$1" | cut -d' ' -f1
}

# pt_wait SECS CMD... - run CMD every 0.1 s until it succeeds, at most SECS
# (whole) seconds; returns CMD's last status
pt_wait() {
	_n=$(($1 * 10))
	shift
	while [ "$_n" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		_n=$((_n - 1))
	done
	"$@"
}

# pt_addrs6 [SCOPE] - "ADDR/PLEN FLAGS..." of each IPv6 address on eth0
# (of SCOPE: global, link), flags as ip shows them (tentative, dadfailed...)
pt_addrs6() {
	ip -6 -o addr show dev eth0 ${1:+scope "$1"} |
		awk '$3 == "inet6" { a = $4; f = ""
			for (i = 5; i <= NF && $i != "\\"; i++) f = f " " $i
			print a f }'
}
