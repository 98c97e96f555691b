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
#   heavy:  the QEMU guests under TCG and the unit tests
#   wait1:  keepalive, lifetimes, a zero window, a connect timeout, port
#           scans, the descriptor limit: timers that run in real time;
#           then iperf3 and many connections (CPU-bound, but short)
#   wait2:  passt's socket with its 60 s pause, and the sanitizer pass;
#           then the load test and short ones that mostly wait
#   rest:   short transfers, following the host, Podman, options
#   ALONE:  62 measures a download's rate against itself during SYN floods
#
# Within a lane, files run in the order of their names. The lanes are
# balanced by the wall time of each file in a CI run (prove --timer): each
# about 5 minutes on two CPUs.
#
# Environment: PROVE_JOBS (default: one per lane), PROVE_OPTS (extra prove
# options, word-split).

set -eu
cd "$(dirname "$0")/.."

LANE_HEAVY="00 05 06 19 75 76 84 87 88 89 91 92 93 94 95 96 99"
LANE_WAIT1="14 30 40 41 45 46 53 54 57 58 69 71 72"
LANE_WAIT2="12 15 42 47 52 59 61 63 67 68 74 86 san:10 san:12 san:14 san:17 san:66 san:86"
LANE_REST="10 11 13 16 17 18 20 48 50 51 55 56 60 64 65 66 70 73 77 78 79 80 85 90 97 98"
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
