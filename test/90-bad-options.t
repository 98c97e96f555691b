#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Bad command lines: an unknown option, a malformed MTU and an out-of-range
# port each make pasta exit non-zero with a message naming the option (or
# quoting the bad value), without starting anything: no process of the test
# user is left, nothing listens in H.  --version and --help exit 0.

. "$(dirname "$0")/lib.sh"
lib_init
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
need_pasta
plan 12

topo_create; ok $? "topology created" || done_testing

# check_bad DESC REGEX ARGS... - REGEX (ERE, case-insensitive) must match
check_bad() {
	local desc=$1 re=$2 rc msg; shift 2
	as_user_h 10 "$PASTA" "$@" -- true >"$WORK/bad.out" 2>&1 </dev/null
	rc=$?
	msg=$(head -c 400 "$WORK/bad.out")
	[ $rc != 0 ] && [ $rc != 124 ] && [ $rc != 137 ]
	ok $? "$desc: pasta $* exits non-zero" || diag "exit status $rc"
	printf '%s' "$msg" | grep -Eqi -- "$re"
	ok $? "pasta $* names the option in its message" || diag "message: '$msg'"
	local left listen
	left=$(our_procs)
	listen=$(in_h ss -Htuln)
	[ -z "$left" ] && [ -z "$listen" ]
	ok $? "pasta $* starts nothing" ||
		diag "processes: $left" "listening in H: $listen"
	diag "message: $(head -n 1 "$WORK/bad.out")"
}

check_bad "unknown option" 'no-such-option' --no-such-option
check_bad "malformed MTU" '(-m|mtu|abc)' -m abc
check_bad "port out of range" '(-t|tcp|99999)' -t 99999

for opt in --version --help; do
	as_user_h 10 "$PASTA" "$opt" >"$WORK/v.out" 2>&1 </dev/null
	rc=$?
	[ $rc = 0 ] && [ -s "$WORK/v.out" ]
	ok $? "pasta $opt exits 0 and prints something" ||
		{ diag "exit status $rc"; diag_file "$WORK/v.out" 5; }
done
done_testing
