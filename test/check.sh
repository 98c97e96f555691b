#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/check.sh - what `make check` runs: every test/*.t against the release
# binaries (./pasta, ./passt), then the tests named in SAN_TESTS again against
# the ASan/UBSan build (test/san/pasta), in one prove run whose files go in
# lanes side by side.
#
# Usage, as root from the top directory, after make all and the test binaries:
#   test/check.sh [SAN_TEST...]
#
# Each lane runs its files one after the other (prove --rules seq=...); the
# lanes run at the same time (prove -j). Most files wait far more than they
# compute (timers, pauses, a guest's boot), and each one builds its own
# namespaces, so they don't meet. A file in no lane, and every file in the
# ALONE list, runs after all lanes are done, one at a time: a new test is
# safe there until it is given a lane.
#
#   heavy:  the CPU-bound ones (QEMU guests under TCG) and the unit tests
#   wait1:  keepalive, lifetimes, a zero window, a connect timeout, port
#           scans, the descriptor limit: timers that run in real time;
#           iperf3, the callers' command lines, passt following the host
#   wait2:  passt's socket with its 60 s pause, and the sanitizer pass;
#           many connections, the load test, short files that mostly wait
#   rest:   short transfers, following the host, Podman, options
#   ALONE:  62 measures a download's rate against itself during SYN floods
#
# Within a lane, files run in the order of their names. Each lane holds
# about 5 minutes of files (their times in a CI run, prove --timer): the
# machine has CPU to spare while most of them wait.
#
# Environment: PROVE_JOBS (default: one per lane), PROVE_OPTS (extra prove
# options, word-split).

set -eu
cd "$(dirname "$0")/.."

LANE_HEAVY="00 05 06 58 19 91 92 93 94 95 87 88 89 75 76 84 96 99"
LANE_WAIT1="72 69 46 71 41 14 57 53 54 30 98 67 13 san:81"
LANE_WAIT2="12 san:12 san:10 san:14 san:17 san:66 86 san:86 40 42 15 52 59 61 63 68 47 60 65 81"
LANE_REST="45 73 74 77 78 79 17 97 64 66 56 51 20 10 55 16 70 11 48 50 85 80 90 18"
ALONE="62"

# rule LANE... - a prove --rules glob for these numbers ("san:NN" for the
# sanitizer pass of test NN)
rule() {
	local n globs=()

	for n in "$@"; do
		case " $ALONE " in *" $n "*) continue ;; esac
		case $n in
		san:*)	globs+=("san:test/${n#san:}-*.t") ;;
		*)	globs+=("test/$n-*.t") ;;
		esac
	done
	local IFS=,
	echo "seq={${globs[*]}}"
}

san=()
for t in "$@"; do
	san+=("san:$t")
done

# shellcheck disable=SC2086
exec prove -v --timer -j "${PROVE_JOBS:-4}" --exec test/prove-exec.sh \
	--rules="$(rule $LANE_HEAVY)" --rules="$(rule $LANE_WAIT1)" \
	--rules="$(rule $LANE_WAIT2)" --rules="$(rule $LANE_REST)" \
	${PROVE_OPTS:-} test/*.t "${san[@]}"
