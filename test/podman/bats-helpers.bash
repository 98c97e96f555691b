# -*- bash -*-
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/podman/bats-helpers.bash - what Podman's system-test bats files
# expect of their helpers.bash, for 97-podman-bats.t: that test copies this
# file beside Podman's own 505-networking-pasta.bats and helpers.network.bash
# as "helpers.bash" (which `load helpers` reads).
#
# Written for this tree from the helpers' documented interface, not
# Podman's file: only what those two files call, with the same meaning:
#
#   run_podman [STATUS] ARGS...  podman ARGS bounded by $PODMAN_TIMEOUT,
#                 through bats' `run` (stdout and stderr in $output and
#                 $lines, exit code in $status); fails the test unless the
#                 exit code is STATUS (default 0; '?' takes any)
#   is ACTUAL EXPECT [MSG]       ACTUAL equals EXPECT, or matches it as an
#                 expr(1) regular expression anchored at the start
#   assert A OP B [MSG]          OP: = == != =~ !~ -eq -ne -gt -ge -lt -le
#   die MSG                      fail the test with MSG
#   basic_setup / basic_teardown PODMAN_TMPDIR per test; afterwards every
#                 container and pod is removed, and the directory
#   safename      a name unique to this test (containers, pods, networks)
#   skip_if_not_rootless, skip_if_remote, is_rootless, is_remote,
#   _add_label_if_missing
#
# Environment, as Podman's helpers read it:
#   PODMAN (default podman), _PODMAN_TEST_OPTS (options for every podman
#   call), PODMAN_TEST_IMAGE_FQN (the test image: $IMAGE), PODMAN_TIMEOUT
#   (seconds per podman call, default 60)

# IMAGE is for the bats files; output and status are set by bats' run
# shellcheck disable=SC2034,SC2154
PODMAN=${PODMAN:-podman}
PODMAN_TIMEOUT=${PODMAN_TIMEOUT:-60}
IMAGE=${PODMAN_TEST_IMAGE_FQN:-localhost/pastatest-testimage:latest}

die() {
	echo "#/vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv" >&2
	echo "#| FAIL: $*" >&2
	echo "#\\^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^" >&2
	false
}

is_rootless() {
	[ "$(id -u)" -ne 0 ]
}

is_remote() {
	false
}

skip_if_not_rootless() {
	is_rootless || skip "${1:-not applicable as root}"
}

skip_if_remote() {
	! is_remote || skip "${1:-not applicable with podman-remote}"
}

# _add_label_if_missing MSG LABEL - MSG, prefixed with "LABEL: " unless it
# names LABEL already
_add_label_if_missing() {
	local msg=$1 label=$2
	if [ -z "$msg" ]; then
		return
	elif [[ "$msg" =~ $label ]]; then
		echo "$msg"
	else
		echo "$label: $msg"
	fi
}

safename() {
	local r
	r=$(tr -dc a-z0-9 </dev/urandom | head -c 8)
	echo "t${BATS_SUITE_TEST_NUMBER:-0}-$r"
}

run_podman() {
	local want=0
	case ${1:-} in
	'?'|[0-9]|[0-9][0-9]|[0-9][0-9][0-9]) want=$1; shift ;;
	esac
	echo "\$ $PODMAN ${_PODMAN_TEST_OPTS:-} $*"
	# shellcheck disable=SC2086  # the options are word-split on purpose
	run timeout --foreground -v --kill=10 "$PODMAN_TIMEOUT" \
		$PODMAN ${_PODMAN_TEST_OPTS:-} "$@" 3>/dev/null
	[ -n "$output" ] && echo "$output"
	[ "$status" -ne 0 ] && echo "[ rc=$status ]"
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		die "timed out after $PODMAN_TIMEOUT s: podman $*"
	elif [ "$want" != '?' ] && [ "$status" -ne "$want" ]; then
		die "exit code is $status; expected $want"
	fi
}

is() {
	local actual=$1 expect=$2 what=${3:-"podman output"}
	if [ "$actual" = "$expect" ]; then
		return 0
	fi
	if [ -n "$expect" ] && expr "$actual" : "$expect" >/dev/null; then
		return 0
	fi
	die "$what: expected '$expect', got '$actual'"
}

assert() {
	local a=$1 op=$2 b=$3 msg=${4:-"assert $1 $2 $3"} r=1
	case $op in
	=|==) [ "$a" = "$b" ] && r=0 ;;
	!=) [ "$a" != "$b" ] && r=0 ;;
	=~) [[ "$a" =~ $b ]] && r=0 ;;
	!~) [[ "$a" =~ $b ]] || r=0 ;;
	-eq|-ne|-gt|-ge|-lt|-le) test "$a" "$op" "$b" && r=0 ;;
	*) die "assert: unknown operator '$op'"; return ;;
	esac
	[ "$r" = 0 ] && return 0
	die "$msg: '$a' $op '$b' does not hold"
}

basic_setup() {
	PODMAN_TMPDIR=$(mktemp -d "${BATS_TMPDIR:-/tmp}/podman_bats.XXXXXX")
	export PODMAN_TMPDIR
}

basic_teardown() {
	"$PODMAN" pod rm -a -f -t 0 >/dev/null 2>&1
	"$PODMAN" rm -a -f -t 0 >/dev/null 2>&1
	[ -n "${PODMAN_TMPDIR:-}" ] && rm -rf "$PODMAN_TMPDIR"
	return 0
}

teardown() {
	basic_teardown
}
