#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# One family only: pasta -6 (--ipv6-only) gives a namespace with no IPv4
# address and no IPv4 route, and IPv6 works (curl from the server
# 2001:db8:2::1); pasta -4 (--ipv4-only) gives one with no global IPv6
# address and no IPv6 default route, and IPv4 works (198.51.100.1).  Loopback
# (127.0.0.1, ::1) and the kernel's own link-local IPv6 address and route
# do not count.  FAMILIES picks the modes: "6" runs pasta -6 alone.  With
# PASTA_DIRECT=1 there is no namespace of pasta's to look at: only the
# transfers run.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
plan $((4 + 4 * NFAM))

PORT=8000
want=$(docs_random f.bin 1M)

# ns_out NAME - what the command in pasta's namespace wrote to $D/NAME
ns_out() {
	cat "$D/$1" 2>/dev/null || echo "(no $1: the command did not run)"
}

topo_create; ok $? "topology created" || done_testing

for fam in $FAMILIES; do
	use_family "$fam"
	# The other family, and what would show a route of it
	case $FAM in
	4)	other=6 routes="ip -6 route show default" ;;
	6)	other=4 routes="ip -4 route show" ;;
	esac
	what="pasta -$FAM: no IPv$other"
	serve_fam "$PORT" "$DOCS" ||
		{ not_run 3 "pasta -$FAM, IPv$FAM only"; continue; }

	D=$WORK/u/only$FAM; mkdir -m 0777 "$D"
	pasta_run "only$FAM" 60 "-$FAM" -- sh -c '
		d=$1 other=$2 routes=$3 ipv=$4 url=$5
		ip -o "-$other" addr show scope global >"$d/addr" 2>&1
		$routes >"$d/route" 2>&1
		{ ip addr show; ip route show; ip -6 route show; } >"$d/all" 2>&1
		curl "$ipv" -sS --fail --connect-timeout 10 --max-time 30 \
			-o "$d/f.bin" "$url"
	' only "$D" "$other" "$routes" "$IPV" "$SRV_URL:$PORT/f.bin"
	rc=$?

	if [ "$PASTA_DIRECT" = 1 ]; then
		skip "$what address" "PASTA_DIRECT=1: H has both families"
		skip "$what route" "PASTA_DIRECT=1: H has both families"
	else
		is "$(ns_out addr)" "" \
			"$what address (ip -o -$other addr show scope global)" ||
			diag_file "$D/all" 40
		is "$(ns_out route)" "" "$what route ($routes)" ||
			diag_file "$D/all" 40
	fi
	is "$(sha "$D/f.bin" 2>/dev/null)" "$want" \
		"pasta -$FAM: 1 MiB from $SRV_URL:$PORT/ over IPv$FAM, sha256 matches" ||
		{ diag "exit status $rc"; diag_file "$WORK/only$FAM.err"; }
done

# A host whose kernel has no IPv6 (test/no_ipv6: socket(AF_INET6) fails):
# pasta turns IPv6 off by itself, as upstream; -6 has nothing to run on
if [ "$PASTA_DIRECT" = 1 ] || [ ! -x "$TOPDIR/test/no_ipv6" ]; then
	not_run 3 "no IPv6 on the host (PASTA_DIRECT=1, or no test/no_ipv6)"
	done_testing
fi
use_family 4
serve_fam "$PORT" "$DOCS"
D=$WORK/u/no6; mkdir -m 0777 "$D"
printf '#!/bin/sh\nexec %s %s "$@"\n' "$TOPDIR/test/no_ipv6" "$PASTA" \
	>"$WORK/no6-pasta"
chmod 755 "$WORK/no6-pasta"
PASTA=$WORK/no6-pasta pasta_run no6 60 -- sh -c '
	ip -o -6 addr show scope global >"$1/addr" 2>&1
	curl -sS --fail --max-time 30 -o "$1/f.bin" "$2"' - "$D" "$SRV_URL:$PORT/f.bin"
[ -z "$(cat "$D/addr" 2>/dev/null)" ] && [ -e "$D/addr" ] &&
	[ "$(sha "$D/f.bin" 2>/dev/null)" = "$want" ] &&
	grep -q "IPv6 not supported, disabling" "$WORK/no6.err"
ok $? "no IPv6 on the host: pasta says so, turns it off (no IPv6 address in the namespace), IPv4 works" ||
	diag_file "$WORK/no6.err"
out=$(as_user_h 20 "$TOPDIR/test/no_ipv6" "$PASTA" -6 -f -- true 2>&1)
rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "IPv6 not available but --ipv6-only given"
ok $? "no IPv6 on the host: pasta -6 exits 1 with upstream's message (exit $rc)" || diag "$out"
done_testing
