#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/podman/bats-run.sh - run each case of a bats file on its own,
# bounded in time (97-podman-bats.t runs it as Podman's user in the tree)
#
# Usage: bats-run.sh FILE CASES SECS
#
# CASES holds case names, one a line; each runs as `bats --tap --timing
# --filter '^NAME$' FILE` under timeout(1) with SECS.  bats' output goes
# through as it is; for a case that ran out of time, a line "not ok 1 NAME
# # timed out after SECS s" follows, and every container is removed (its
# teardown did not run).  Not bats' own BATS_TEST_TIMEOUT: its watchdog is
# a background job of the case's shell, which a bare `wait` in the case
# (505-networking-pasta.bats has one) then waits for.

file=$1 cases=$2 secs=$3
while IFS= read -r name; do
	# shellcheck disable=SC2016  # a sed expression, not the shell's
	re=$(printf '%s' "$name" | sed 's/[][\\.*^$()+?{}|]/\\&/g')
	timeout -k 5 "$secs" bats --tap --timing --filter "^$re\$" "$file" 2>&1
	case $? in
	124|137)
		echo "not ok 1 $name # timed out after $secs s"
		timeout 30 podman rm -a -f -t 0 >/dev/null 2>&1
		;;
	esac
done <"$cases"
