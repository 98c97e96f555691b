#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/prove-exec.sh FILE - how test/check.sh's prove runs one test file, by
# the interpreter its #! line names, as prove itself would: "san:FILE" is
# FILE again, against the ASan/UBSan build (test/san/pasta)
case $1 in
san:*)	PASTA=$PWD/test/san/pasta
	export PASTA
	set -- "${1#san:}" ;;
esac
read -r interp <"$1"
case $interp in
'#!'*)	exec ${interp#??} "$1" ;;
*)	exec "$1" ;;
esac
