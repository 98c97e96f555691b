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
