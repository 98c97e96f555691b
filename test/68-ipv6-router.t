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
#      not a made-up fe80::1);
#   3. that router address, [LL%veth0], reaches H from the namespace: a TCP
#      connection to httpd.py on H's [::] (which sees it from ::1: like the
#      gateway, the router address stands for H's loopback) and 20 UDP
#      datagrams echoed by udpecho.py on H's [::]; the same with
#      --config-net, where the router address is what pasta's NDP answers;
#      with --no-map-gw, httpd.py sees it from H's link-local address, the
#      router address being H's own (as with upstream's).
# Connection times are comments.

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "PASTA_DIRECT=1: no namespace of pasta's"
plan 21

PORT=8000	# httpd.py in R
H_PORT=8090	# httpd.py on H's [::]
UDP_PORT=7070	# udpecho.py on H's [::]
OFF_ADDR6=2001:db8::1	# Podman's -a, outside H's 2001:db8:1::/64
want=$(docs_random f.bin 1M)

# out NAME TAG - the lines tagged TAG in what the command of run NAME printed
out() { sed -n "s/^$2 //p" "$WORK/$1.out"; }

# router_checks NAME PEER WHAT - what the command of router_cmd printed: TCP
# (httpd.py saw it from PEER, H's WHAT) and UDP to the router address
# reached H
router_checks() {
	local name=$1 peer=$2 what=$3 gw
	gw=$(out "$name" gw)
	is "$(out "$name" peer)" "$peer" \
		"$name: TCP to [$gw%veth0]:$H_PORT reaches H, from H's $what (connected in $(out "$name" tcptime) s)" ||
		diag_file "$WORK/$name.err"
	is "$(out "$name" udp)" "20/20 datagrams echoed" \
		"$name: 20 UDP datagrams to [$gw%veth0]:$UDP_PORT reach H and back" ||
		diag_file "$WORK/$name.err"
}

# The commands' part that checks the router address $1 (through veth0)
# shellcheck disable=SC2016  # for the namespace's shell
router_cmd='
	gw=$1
	echo "gw $gw"
	curl -6 -g -sS --max-time 5 -w "tcptime %{time_connect}\n" \
		"http://[$gw%25veth0]:'$H_PORT'/peer" | sed "s/^[0-9a-f:.]*$/peer &/"
	'"$PY $TESTDIR/udpecho.py"' --client --to "$gw%veth0" \
		--port '$UDP_PORT' --count 20 --max-size 1400 --timeout 15 |
		sed "s/^/udp /"'

topo_create; ok $? "topology created" || done_testing
use_family 6
H_LL=$(ll6_of "$NS_H" veth0)
ok "$([ -n "$H_LL" ]; echo $?)" "H's link-local address on veth0: ${H_LL:-none}"
serve_fam "$PORT" "$DOCS"
start_httpd "$NS_H" :: "$H_PORT" "$DOCS" httpdH
ok $? "httpd.py listening on [::]:$H_PORT in H"
start_udpecho "$NS_H" :: "$UDP_PORT" udpH
ok $? "udpecho.py bound to [::]:$UDP_PORT in H"

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

# --- 2. and 3. the router of pasta's RA ---------------------------------------
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
	gw=$(ip -6 route show default | awk "{ print \$3; exit }")
	set -- "$gw"
	'"$router_cmd" >"$WORK/ra.out" 2>"$WORK/ra.err" </dev/null
ok $? "pasta without --config-net: the command ran and exited 0" ||
	diag_file "$WORK/ra.err"
r=$(out ra route)
diag "route from the RA: $r"
[[ "$r" == "default via $H_LL dev veth0 proto ra "* ]]
ok $? "RA: the namespace's default route is via H's link-local address $H_LL" ||
	diag_file "$WORK/ra.err"
out ra addr | awk '{ print $4 }' | grep -Eq '^2001:db8:1:(0)?:[0-9a-f:]*/64$'
ok $? "RA: a SLAAC address in 2001:db8:1::/64 ($(out ra addr | awk '{ print $4 }'))"
router_checks ra ::1 loopback

# With --config-net: the route is H's (via $R_ADDR6), the router address
# the one pasta's NDP and DHCPv6 name
pasta_run confnet 60 -- sh -c "$router_cmd" sh "$H_LL"
ok $? "pasta --config-net: the command ran and exited 0" ||
	diag_file "$WORK/confnet.err"
router_checks confnet ::1 loopback

# --no-map-gw: the gateway is R, and the router address H's own, not H's
# loopback
pasta_run nomap 60 --no-map-gw -- sh -c "$router_cmd" sh "$H_LL"
ok $? "pasta --config-net --no-map-gw: the command ran and exited 0" ||
	diag_file "$WORK/nomap.err"
router_checks nomap "$H_LL" "link-local address"

done_testing
