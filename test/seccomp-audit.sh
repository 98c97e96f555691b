#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/seccomp-audit.sh - derive the seccomp list again from a test run
#
# Runs the integration tests (all, or those named) against test/seclog/pasta,
# the release build whose filter lets a call outside the list run and has
# the kernel log it (SECCOMP_RET_LOG, isolation.c), then prints each call
# so logged, by name, with how often. Run as root by make seccomp-audit;
# the kernel log must be readable (dmesg). The kernel rate-limits these
# lines (printk): a call that shows up rarely among many may be missed,
# one that shows up at all is missing from the list.
#
# Usage: test/seccomp-audit.sh [TEST.t...]

set -u
cd "$(dirname "$0")/.."

UNISTD=/usr/include/x86_64-linux-gnu/asm/unistd_64.h
[ -r "$UNISTD" ] || UNISTD=/usr/include/asm-generic/unistd.h
marker="seccomp-audit: start $$ $RANDOM"

dmesg >/dev/null || { echo "seccomp-audit: can't read the kernel log" >&2; exit 1; }
echo "$marker" >/dev/kmsg || exit 1
[ $# -gt 0 ] || set -- test/*.t
PASTA=$PWD/test/seclog/pasta prove "$@"
rc=$?

# Lines after our marker: seccomp's audit records (type 1326) of the log
# action (code 0x7ffc0000) from our binary
calls=$(dmesg | sed -n "/$marker/,\$p" |
	grep 'type=1326' | grep 'code=0x7ffc0000' |
	grep -E 'comm="(passt|pasta)"' |
	sed -n 's/.* syscall=\([0-9]*\) .*/\1/p' | sort -n | uniq -c)
echo "seccomp-audit: system calls outside the list, made by the daemon:"
if [ -z "$calls" ]; then
	echo "  none"
else
	while read -r count nr; do
		name=$(sed -n "s/^#define __NR_\([a-z0-9_]*\)[[:space:]]\+$nr\$/\1/p" \
			"$UNISTD" | head -1)
		echo "  ${name:-?} ($nr): $count"
	done <<<"$calls"
fi
dmesg | sed -n "/$marker/,\$p" | grep -c 'callbacks suppressed\|printk limit' |
	sed 's/^/seccomp-audit: kernel log lines suppressed by its rate limit: /'
[ -z "$calls" ] && exit "$rc"
exit 1
