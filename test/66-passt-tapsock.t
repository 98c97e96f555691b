#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# passt mode with a namespace's own stack as the guest, no QEMU: first
# test/tapsock.py against a scripted passt (test/fakepasst.py): frames split
# across reads and batched in one, one over the MTU dropped and counted, a
# frame from the tap, a bad length prefix. Then the real thing: passt runs
# as root in H, and test/tapsock.py, in a third namespace G, relays between
# passt's socket and a tap device there. G's kernel and tools then are the
# guest: busybox udhcpc gets H's address (203.0.113.1/24) and gateway
# (203.0.113.2) from passt's DHCP; a 16 MiB download from R and a 16 MiB
# upload to it, sha256 checked; the kernel takes passt's router
# advertisement: a SLAAC address in 2001:db8:1::/64, a default route through
# passt's link-local address, which is H's own on veth0 (as upstream's), and
# a 16 MiB download from [2001:db8:2::1]. The rates
# through the relay, and its CPU time, are comments. Then tapsock ends on
# SIGTERM, its frame counts equal to passt's (SIGUSR1), and a second one,
# on the same passt, ends by itself when passt goes, both with status 0;
# one that can't connect fails, naming the socket.
#
# Knobs: PASST=path (default: passt beside $PASTA), PASST_OPTS="..." (extra
# options, e.g. -d; the log is $WORK/passt.log), TAPSOCK_SIZE=16M (of each
# transfer, as head -c takes it), KEEP_WORK=1.

# shellcheck source=test/lib.sh
. "$(dirname "$0")/lib.sh"
# shellcheck source=test/tapguest.sh
. "$TESTDIR/tapguest.sh"
lib_init
g_need
plan 22

SOCK=$WORK/passt.sock
PORT=8080
SIZE=${TAPSOCK_SIZE:-16M}	# of each transfer (head -c)

# tapsock_exit NAME DESC - wait (bounded) for tapsock TS_PID to end, test
# status 0 and its summary line: no frame dropped
tapsock_exit() {
	local rc none="0 longer than the MTU from passt, 0 from the tap, 0 tap"
	if wait_gone "$TS_PID" 10; then
		wait "$TS_PID"
		rc=$?
	else
		rc="still running after 10 s"
	fi
	is "$rc" 0 "$2" || diag_file "$WORK/$1.log"
	grep -q "dropped: $none write errors" "$WORK/$1.log"
	ok $? "$1: no frame dropped (summary line)" || diag_file "$WORK/$1.log"
}

# has FUNC - FUNC prints something
# shellcheck disable=SC2317  # called through _poll
has() { [ -n "$("$1")" ]; }

# rate BYTES_PER_S - as Mbit/s
rate() { awk -v b="$1" 'BEGIN { printf "%.0f", b * 8 / 1e6 }'; }

# fetch FAMNAME URL - download URL/dl.bin in G, compare its sha256 (after
# the transfer: sha256sum's some 3 Gbit/s here would bound the rate)
fetch() {
	local fam=$1 url=$2 speed
	speed=$(in_g timeout -k 5 60 curl -sS --fail --connect-timeout 10 \
		-o "$WORK/dl$fam.bin" -w '%{speed_download}' "$url/dl.bin" \
		2>"$WORK/curl$fam.err")
	is "$(sha "$WORK/dl$fam.bin" 2>/dev/null)" "$WANT" \
		"$fam: $SIZE download from R in G, sha256 matches" ||
		diag_file "$WORK/curl$fam.err"
	diag "$fam: through the relay, passt to the tap: $(rate "${speed:-0}") Mbit/s"
	rm -f "$WORK/dl$fam.bin"
}

topo_create; ok $? "topology created" || stop "topology"
# passt's link-local address, with H's gateway a global one: H's own
PASST_LL6=$(ll6_of "$NS_H" veth0)
# shellcheck disable=SC2119  # no extra sysctls
g_create || stop "namespace $NS_G"

# --- the relay alone, against a scripted passt --------------------------------

n=0
while read -r rc desc; do
	ok "$rc" "$desc"
	n=$((n + 1))
done < <(in_g timeout -k 5 40 "$PY" "$TESTDIR/fakepasst.py" \
	"$WORK/fake.sock" tapf 2>"$WORK/fakepasst.err")
if [ "$n" -lt 3 ]; then
	diag_file "$WORK/fakepasst.err"
	not_run $((3 - n)) "fakepasst.py"
fi

# --- passt, and tapsock.py in G -----------------------------------------------

WANT=$(docs_random dl.bin "$SIZE") || stop "test file"
UP=$WORK/up.bin
head -c "$SIZE" /dev/urandom >"$UP"
start_httpd "$NS_R" :: "$PORT" "$DOCS" httpd || stop "httpd.py in R"

# shellcheck disable=SC2086
bg_h passt "$PASST" -f -s "$SOCK" ${PASST_OPTS:-}
PASST_PID=$BG_PID
_poll 10 test -S "$SOCK"; ok $? "passt listens on $SOCK" ||
	{ diag_file "$WORK/passt.log"; stop "passt"; }

in_g timeout -k 5 20 "$PY" "$TESTDIR/tapsock.py" --sock "$WORK/none.sock" \
	--tap tapx >"$WORK/nosock.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q "cannot connect to $WORK/none.sock" "$WORK/nosock.out"
ok $? "tapsock.py without a socket at --sock: status 1, naming it" ||
	{ diag "exit status $rc"; diag_file "$WORK/nosock.out"; }

tapsock_start tapsock; ok $? "tapsock.py relays between passt and $TAP in G" ||
	{ diag_file "$WORK/tapsock.log"; stop "tapsock.py"; }

# --- IPv4: DHCP, download, upload ---------------------------------------------

g_dhcp udhcpc
ok $? "udhcpc in G gets a lease from passt" || diag_file "$WORK/udhcpc.log"
diag "$(grep '^lease:' "$WORK/udhcpc.log")"

got=$(in_g ip -4 -br addr show dev "$TAP" | awk '{ print $3 }')
is "$got" "$H_ADDR/24" "G's $TAP has H's address, $H_ADDR/24"
got=$(in_g ip -4 route show default | awk '{ print $1, $2, $3, $4, $5 }')
is "$got" "default via $R_ADDR dev $TAP" "G's default route: via $R_ADDR"

fetch IPv4 "http://$SRV_ADDR:$PORT"

out=$(in_g timeout -k 5 60 curl -sS --fail --connect-timeout 10 -T "$UP" \
	-w '\n%{speed_upload}' "http://$SRV_ADDR:$PORT/up.bin" \
	2>"$WORK/curlup.err")
reply=$(head -1 <<<"$out")
is "$reply $(sha "$DOCS/up.bin" 2>/dev/null)" "$(sha "$UP") $(sha "$UP")" \
	"IPv4: $SIZE upload from G to R: sha256 returned and stored match" ||
	diag_file "$WORK/curlup.err"
diag "IPv4: through the relay, the tap to passt: $(
	rate "$(tail -1 <<<"$out")") Mbit/s (httpd.py hashing, storing)"

# --- IPv6: SLAAC from passt's RA, download ------------------------------------

# slaac - G's global address in 2001:db8:1::/64, past duplicate address
# detection
slaac() {
	in_g ip -6 addr show dev "$TAP" scope global -tentative |
		awk '$1 == "inet6" && $2 ~ /^2001:db8:1:/ { print $2; exit }'
}
_poll 10 has slaac
ok $? "IPv6: G's kernel takes passt's RA: a SLAAC address, $(slaac)" ||
	{ in_g ip -6 addr show dev "$TAP" | sed 's/^/# /'; }
# route6 - G's IPv6 default route: "via ADDR dev DEV proto PROTO"
route6() {
	in_g ip -6 route show default |
		awk '{ print $2, $3, $4, $5, $6, $7; exit }'
}
_poll 10 has route6
is "$(route6)" "via $PASST_LL6 dev $TAP proto ra" \
	"IPv6: G's default route, from the RA: via $PASST_LL6"

fetch IPv6 "http://[$SRV_ADDR6]:$PORT"

# --- the ends -----------------------------------------------------------------

kill -TERM "$TS_PID"
tapsock_exit tapsock "tapsock.py exits 0 on SIGTERM"
in_g ip link show "$TAP" >/dev/null 2>&1
ok $((!$?)) "its tap is gone with it"
# "tapsock: SIGTERM: to the tap N frames (BYTES bytes), from the tap N
# frames (BYTES bytes); ..., SECS s CPU"
diag "tapsock.py's own cost: $(awk '/^tapsock: SIGTERM/ {
	gsub(/[(,;]/, " ")
	printf "%.0f MiB in %s s of CPU", ($8 + $15) / 1048576, $(NF - 2)
}' "$WORK/tapsock.log")"

# Once passt has seen the guest go, its counters (SIGUSR1) against tapsock's
# summary: every frame passt sent was written to the tap, every frame read
# from the tap reached passt
_poll 10 grep -q "guest disconnected" "$WORK/passt.log"
kill -USR1 "$PASST_PID"
_poll 5 grep -q "tap: frames in" "$WORK/passt.log"
got=$(sed -n 's/.*tap: frames in \([0-9]*\) .* out \([0-9]*\),.*/\1 \2/p' \
	"$WORK/passt.log")
want=$(sed -n 's/.*to the tap \([0-9]*\).*from the tap \([0-9]*\).*/\2 \1/p' \
	"$WORK/tapsock.log")
is "$got" "$want" \
	"frames in and out: passt's counters are tapsock's ($want)" ||
	diag_file "$WORK/passt.log" 5

tapsock_start tapsock2; ok $? "a second tapsock.py relays on the same passt" ||
	diag_file "$WORK/tapsock2.log"
kill_pid "$PASST_PID"
tapsock_exit tapsock2 "tapsock.py exits 0 when passt closes the socket"
done_testing
