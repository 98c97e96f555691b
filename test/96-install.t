#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# make install and the manual pages: `make install DESTDIR=$tmp PREFIX=/usr`
# puts passt, the pasta link beside it, pesto and the three pages where they
# belong, and make uninstall takes them away again; the pages render without
# a warning (man -l, else groff, else mandoc -T lint); every option --help
# lists, long and short, in either mode, has an entry in doc/passt.1, and
# every option of pesto --help one in doc/pesto.1, so that the pages can't
# fall behind the code. Needs no root and no namespace.

. "$(dirname "$0")/lib.sh"
plan 25

tmp=$(mktemp -d /tmp/pastatest-install.XXXXXX) || { not_run 23 "mktemp"; done_testing; }
trap 'rm -rf "$tmp"' EXIT
bindir=$tmp/usr/bin
mandir=$tmp/usr/share/man
page=$TOPDIR/doc/passt.1
pesto_page=$TOPDIR/doc/pesto.1

# Our make, without what a calling make or the environment would pass down
submake() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u PREFIX -u BINDIR \
	    -u MANDIR -u DESTDIR make -C "$TOPDIR" --no-print-directory "$@"
}

submake install DESTDIR="$tmp" PREFIX=/usr >"$tmp/install.log" 2>&1
ok $? "make install DESTDIR=\$tmp PREFIX=/usr" || diag_file "$tmp/install.log"

[ -f "$bindir/passt" ] && [ ! -L "$bindir/passt" ] && [ -x "$bindir/passt" ] &&
	cmp -s "$bindir/passt" "$TOPDIR/passt"
ok $? "usr/bin/passt: the executable we built"

is "$(readlink "$bindir/pasta")" passt "usr/bin/pasta: a symbolic link to passt, in the same directory"

is "$("$bindir/pasta" --version 2>&1)" "pasta $("$bindir/passt" --version 2>&1 | cut -d' ' -f2)" \
	"the installed pasta runs in pasta mode (--version)"

cmp -s "$mandir/man1/passt.1" "$page" && cmp -s "$mandir/man1/pasta.1" "$TOPDIR/doc/pasta.1"
ok $? "usr/share/man/man1/passt.1 and pasta.1 installed"

is "$(cat "$mandir/man1/pasta.1")" ".so man1/passt.1" "pasta.1 is passt.1's page"

[ -f "$bindir/pesto" ] && [ ! -L "$bindir/pesto" ] &&
	[ "$(stat -c %a "$bindir/pesto")" = 755 ] &&
	cmp -s "$bindir/pesto" "$TOPDIR/pesto"
ok $? "usr/bin/pesto: the executable we built, mode 755"

is "$("$bindir/pesto" --version 2>&1)" "pesto $("$bindir/passt" --version 2>&1 | cut -d' ' -f2)" \
	"the installed pesto runs (--version)"

cmp -s "$mandir/man1/pesto.1" "$pesto_page"
ok $? "usr/share/man/man1/pesto.1 installed"

[ -f "$bindir/passt-repair" ] && [ "$(stat -c %a "$bindir/passt-repair")" = 755 ] &&
	cmp -s "$bindir/passt-repair" "$TOPDIR/passt-repair" &&
	cmp -s "$mandir/man1/passt-repair.1" "$TOPDIR/doc/passt-repair.1"
ok $? "usr/bin/passt-repair (mode 755) and its page installed"

# The default prefix, as make would act (dry run)
submake -n install DESTDIR="$tmp/default" >"$tmp/default.log" 2>&1 &&
	grep -q "$tmp/default/usr/local/bin/passt" "$tmp/default.log" &&
	grep -q "$tmp/default/usr/local/bin/pesto" "$tmp/default.log" &&
	grep -q "$tmp/default/usr/local/share/man/man1" "$tmp/default.log"
ok $? "PREFIX defaults to /usr/local" || diag_file "$tmp/default.log"

# render FILE - the page as text on stdout, the formatter's warnings on
# stderr; run in $mandir, where the .so of pasta.1 finds our passt.1 (man -l
# would otherwise take the passt.1 of an installed package)
if command -v man >/dev/null && man -l "$page" >/dev/null 2>&1; then
	renderer="man -l"
	render() { MANWIDTH=80 man --warnings=w -l "$1"; }
elif command -v groff >/dev/null; then
	renderer="groff -man -Tutf8"
	render() { groff -man -Tutf8 -ww "$1" | sed 's/.\x08//g'; }
elif command -v mandoc >/dev/null; then
	renderer="mandoc -T lint"
	render() {
		# .so itself is a mandoc warning ("fragile"): not ours to fix
		mandoc -T lint -W warning "$1" 2>&1 | grep -v 'WARNING: .so is fragile' >&2
		mandoc -T utf8 "$1" | sed 's/.\x08//g'
	}
else
	renderer=
fi

if [ -z "$renderer" ]; then
	not_run 7 "render the pages (no man, groff nor mandoc: test/setup.sh installs man-db)"
else
	(cd "$mandir" && render man1/passt.1) >"$tmp/passt.txt" 2>"$tmp/passt.err"
	[ ! -s "$tmp/passt.err" ] && grep -q "pasta" "$tmp/passt.txt"
	ok $? "$renderer: passt.1 renders without warnings" || diag_file "$tmp/passt.err"

	(cd "$mandir" && render man1/pasta.1) >"$tmp/pasta.txt" 2>"$tmp/pasta.err"
	[ ! -s "$tmp/pasta.err" ]
	ok $? "$renderer: pasta.1 renders without warnings" || diag_file "$tmp/pasta.err"

	cmp -s "$tmp/passt.txt" "$tmp/pasta.txt"
	ok $? "pasta.1 renders as our passt.1"

	missing=
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS "PORT FORWARDING" ADDRESSES \
		 IPv6 "EXIT STATUS" SIGNALS EXAMPLES "SEE ALSO"; do
		grep -qx "$s" "$tmp/passt.txt" || missing="$missing '$s'"
	done
	is "$missing" "" "the page has its sections"

	(cd "$mandir" && render man1/pesto.1) >"$tmp/pesto.txt" 2>"$tmp/pesto.err"
	[ ! -s "$tmp/pesto.err" ] && grep -q "pesto" "$tmp/pesto.txt"
	ok $? "$renderer: pesto.1 renders without warnings" || diag_file "$tmp/pesto.err"

	missing=
	for s in NAME SYNOPSIS DESCRIPTION OPTIONS SPEC "EXIT STATUS" EXAMPLES \
		 NOTES "SEE ALSO"; do
		grep -qx "$s" "$tmp/pesto.txt" || missing="$missing '$s'"
	done
	is "$missing" "" "pesto.1 has its sections"

	(cd "$mandir" && render man1/passt-repair.1) >"$tmp/repair.txt" \
		2>"$tmp/repair.err"
	[ ! -s "$tmp/repair.err" ] && grep -q "passt-repair" "$tmp/repair.txt"
	ok $? "$renderer: passt-repair.1 renders without warnings" ||
		diag_file "$tmp/repair.err"
fi

# The option entries of the page: the line after each .TP, with escapes
# taken out (\- is -, fonts, \& \% \c)
sed -e '/^\.\\"/d' "$page" |
	awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' |
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\[&%c]//g' >"$tmp/entries"
[ -s "$tmp/entries" ]
ok $? "doc/passt.1 has option entries"

# check_opts MODE - every option MODE --help lists has an entry
check_opts() {
	local mode=$1 o long short n miss=
	"$bindir/$mode" --help >"$tmp/$mode.help" 2>&1
	long=$(grep -oE -- '--[a-z0-9][a-z0-9-]*' "$tmp/$mode.help" | sort -u)
	short=$(grep -oE -- '(^|[ ,])-[A-Za-z0-9]\b' "$tmp/$mode.help" |
		tr -d ' ,' | sort -u)
	n=$(echo "$long" | wc -w)
	[ "$n" -gt 40 ]
	ok $? "$mode --help lists $n long options" || diag_file "$tmp/$mode.help"
	for o in $long $short; do
		grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|\$)" "$tmp/entries" ||
			miss="$miss $o"
	done
	is "$miss" "" "every option of $mode --help has an entry in doc/passt.1"
}
check_opts pasta
check_opts passt

# The same for pesto and its page (a dozen options, not forty)
sed -e '/^\.\\"/d' "$pesto_page" |
	awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' |
	sed -e 's/\\-/-/g' -e 's/\\f[BIRP]//g' -e 's/\\[&%c]//g' >"$tmp/pesto.entries"
"$bindir/pesto" --help >"$tmp/pesto.help" 2>&1
miss=
for o in $(grep -oE -- '--[a-z0-9][a-z0-9-]*' "$tmp/pesto.help" | sort -u) \
	 $(grep -oE -- '(^|[ ,])-[A-Za-z0-9]\b' "$tmp/pesto.help" | tr -d ' ,' | sort -u); do
	grep -qE -- "(^|[^A-Za-z0-9-])$o([^A-Za-z0-9-]|\$)" "$tmp/pesto.entries" ||
		miss="$miss $o"
done
[ "$(grep -c -- '--' "$tmp/pesto.help")" -ge 10 ] && [ -z "$miss" ]
ok $? "every option of pesto --help has an entry in doc/pesto.1" ||
	diag "missing:$miss" "$(cat "$tmp/pesto.help")"

submake uninstall DESTDIR="$tmp" PREFIX=/usr >"$tmp/uninstall.log" 2>&1 &&
	[ -z "$(find "$tmp/usr" -type f -o -type l)" ]
ok $? "make uninstall removes them" || { diag_file "$tmp/uninstall.log"; diag "$(find "$tmp/usr")"; }

done_testing
