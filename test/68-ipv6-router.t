#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 68-ipv6-router.t - the IPv6 address and router pasta gives its namespace:
#   1. Podman's "IPv6 address assignment" case: -a 2001:db8::1, outside H's
#      prefix (2001:db8:1::/64): the namespace has 2001:db8::1/64 (H's
#      prefix length) and its default route through H's gateway
#      2001:db8:1::2, on-link; a 1 MiB download from [2001:db8:2::1] in R,
#      which sees it come from H's address;
#   2. without --config-net, the namespace takes pasta's router
#      advertisement: a SLAAC address in 2001:db8:1::/64 and a default
#      route through H's own link-local address on veth0 (as upstream's,
#      not a made-up fe80::1).

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "PASTA_DIRECT=1: no namespace of pasta's"
plan 11

PORT=8000	# httpd.py in R
OFF_ADDR6=2001:db8::1	# Podman's -a, outside H's 2001:db8:1::/64
want=$(docs_random f.bin 1M)

# out NAME TAG - the lines tagged TAG in what the command of run NAME printed
out() { sed -n "s/^$2 //p" "$WORK/$1.out"; }

topo_create; ok $? "topology created" || done_testing
use_family 6
H_LL=$(ll6_of "$NS_H" veth0)
ok "$([ -n "$H_LL" ]; echo $?)" "H's link-local address on veth0: ${H_LL:-none}"
serve_fam "$PORT" "$DOCS"

# --- 1. -a outside H's prefix ------------------------------------------------
# shellcheck disable=SC2016
pasta_run offprefix 60 -a "$OFF_ADDR6" -- sh -c '
	ip -6 -o addr show scope global | sed "s/^/addr /"
	ip -6 route show default | sed "s/^/route /"
	curl -6 -sS --fail --connect-timeout 10 --max-time 30 -o "$2" "$1/f.bin"
	curl -6 -sS --max-time 10 "$1/peer" | sed "s/^/peer /"
' sh "$SRV_URL:$PORT" "$WORK/u/offprefix.bin"
ok $? "pasta -a $OFF_ADDR6: the command ran and exited 0" ||
	diag_file "$WORK/offprefix.err"
is "$(out offprefix addr | awk '{ print $2, $4 }')" "veth0 $OFF_ADDR6/64" \
	"-a $OFF_ADDR6: the namespace's only global address, with H's prefix length"
r=$(out offprefix route)
diag "route: $r"
[[ "$r" == "default via $R_ADDR6 dev veth0 "*onlink* ]]
ok $? "-a $OFF_ADDR6: default route via H's gateway $R_ADDR6, on-link"
is "$(sha "$WORK/u/offprefix.bin" 2>/dev/null)" "$want" \
	"-a $OFF_ADDR6: 1 MiB from [$SRV_ADDR6]:$PORT in R, sha256"
is "$(out offprefix peer)" "$H_ADDR6" "-a $OFF_ADDR6: R sees it from H's address"

# --- 2. the router of pasta's RA -----------------------------------------------
# No --config-net: the namespace's own kernel configures the link
_user_prefix
# shellcheck disable=SC2016,SC2086
timeout -k 5 60 "${_UP[@]}" "$PASTA" ${PASTA_OPTS:-} -- sh -c '
	ip link set veth0 up
	i=0
	while [ $i -lt 100 ] && [ -z "$(ip -6 route show default)" ]; do
		sleep 0.1; i=$((i + 1))
	done
	ip -6 route show default | sed "s/^/route /"
	ip -6 -o addr show scope global | sed "s/^/addr /"
	' >"$WORK/ra.out" 2>"$WORK/ra.err" </dev/null
ok $? "pasta without --config-net: the command ran and exited 0" ||
	diag_file "$WORK/ra.err"
r=$(out ra route)
diag "route from the RA: $r"
[[ "$r" == "default via $H_LL dev veth0 proto ra "* ]]
ok $? "RA: the namespace's default route is via H's link-local address $H_LL" ||
	diag_file "$WORK/ra.err"
out ra addr | awk '{ print $4 }' | grep -Eq '^2001:db8:1:(0)?:[0-9a-f:]*/64$'
ok $? "RA: a SLAAC address in 2001:db8:1::/64 ($(out ra addr | awk '{ print $4 }'))"

done_testing
