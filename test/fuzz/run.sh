#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/fuzz/run.sh - run each libFuzzer target for a while, from the seeds
#
# Usage, as root: test/fuzz/run.sh SECS TARGET...
#
# The targets run side by side, each SECS seconds (-max_total_time) in a
# network namespace of its own with nothing in it (unshare -n): the frames
# it makes up open real sockets, which must reach nothing. The corpus starts from test/fuzz/
# seeds.py's seeds, in a temporary directory. TAP output, one line per
# target: not ok if it found a crash (its input and log are kept and named).

set -u
secs=$1; shift
dir=$(dirname "$0")
work=$(mktemp -d /tmp/pasta-fuzz.XXXXXX) || exit 1
python3 "$dir/seeds.py" "$work/seeds" || exit 1

# All targets side by side (each bounded by SECS), reported in order
echo "1..$#"
pids=()
for t in "$@"; do
	name=$(basename "$t")
	corpus=$work/${name#fuzz_}
	cp -r "$work/seeds/${name#fuzz_}" "$corpus"
	(cd "$work" && exec timeout -k 10 $((secs + 60)) unshare -n \
		"$OLDPWD/$t" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$work/$name-" "$corpus" \
		>"$work/$name.log" 2>&1) &
	pids+=($!)
done
n=0 failed=0
for t in "$@"; do
	name=$(basename "$t")
	corpus=$work/${name#fuzz_}
	if wait "${pids[$n]}"; then
		execs=$(sed -n 's/^stat::number_of_executed_units: *//p' \
			"$work/$name.log")
		echo "ok $((n + 1)) - $name: ${execs:-?} inputs in $secs s, no crash"
		rm -rf "$corpus" "$work/$name.log"
	else
		echo "not ok $((n + 1)) - $name: crash, see $work/$name.log and" \
		     "$work/$name-crash-* (reproduce: $t FILE)"
		tail -40 "$work/$name.log" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
	n=$((n + 1))
done
[ $failed = 0 ] && rm -rf "$work"
exit $failed
