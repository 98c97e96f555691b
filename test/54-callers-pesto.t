#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The callers of 2026 that change forwarding at run time, with their
# command lines as they build them, pasta and pesto run as an ordinary
# user in H, the container's namespace held by a process of that user
# (unshare --user --map-root-user --net, as rootlesskit and Podman make
# one), its server on port 80 or 8080:
#
# 1. rootlesskit 3.1, --net=pasta --port-driver=pesto (pkg/network/pasta,
#    pkg/port/pasta/pesto.go): pasta --stderr --ns-ifname=tap0 --mtu=65520
#    --config-net --address=10.0.2.100 --netmask=24 --gateway=10.0.2.2
#    --dns-forward=10.0.2.3 --no-map-gw --ipv4-only --tcp-ports=none
#    --udp-ports=none -c SOCK CHILD_PID;
#    then `pesto --version`, `pesto -A --tcp-ports=0.0.0.0/8080:80 SOCK`,
#    `-A --udp-ports=...`, and `-D` with the same spec when the port goes.
#    The server sees the client's real address (what the driver is for).
#    With the namespaces named by /proc/PID/ns/ paths instead, pasta
#    exits once that process does.
# 2. Podman 6's rootless network namespace (rootless_port_forwarder =
#    "pasta"), bind-mounted on a file in Podman's mount namespace: pasta
#    run inside Podman's user and mount namespaces with Podman 5's
#    rootless-netns line plus --pid FILE -c DIR/pasta.sock, and per
#    container `pesto --add -t 0.0.0.0/8080 -t [::]/8080 SOCK` (a range as
#    ADDR/FIRST-LAST, -u alike), `pesto --delete` with the same specs on
#    teardown, a second container's ports added while the first one's
#    carry a transfer; pasta exits when Podman removes the namespace.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
pesto_init
plan 19

topo_create; ok $? "topology created" || done_testing

# holder rootlesskit|podman NAME ARGS... - namespaces of $TEST_USER's held
# by httpd.py ARGS (files from $WORK/u/NAME, who.txt says NAME), as
# rootlesskit's child has them (a user and a network namespace), or as
# Podman makes its rootless network namespace (a user and a mount
# namespace, where a network namespace is bind-mounted on
# $WORK/u/NAME/netns, which httpd.py runs in); sets HOLDER to its PID
holder() {
	local how=$1 name=$2 d=$WORK/u/$2 ns
	shift 2
	mkdir -m 0777 "$d"
	echo "$name" >"$d/who.txt"
	if [ "$how" = podman ]; then
		ns=(unshare --user --map-root-user --mount sh -c
		    'd=$1; shift; touch "$d/netns" &&
		     unshare --net="$d/netns" true &&
		     exec nsenter --net="$d/netns" "$@"' - "$d")
	else
		ns=(unshare --user --map-root-user --net)
	fi
	_user_prefix
	timeout -k 5 200 "${_UP[@]}" "${ns[@]}" \
		"$PY" "$TESTDIR/httpd.py" --dir "$d" --pidfile "$d/holder.pid" \
		"$@" >"$WORK/$name.holder.log" 2>&1 </dev/null &
	_PGIDS+=("$!")
	wait_file "$d/holder.pid" 10 && HOLDER=$(cat "$d/holder.pid")
}

# in_podman CMD... - CMD as $TEST_USER in H, in Podman's user and mount
# namespaces (those of $HOLDER), as Podman runs pasta
in_podman() {
	_user_prefix
	timeout -k 5 20 "${_UP[@]}" nsenter --user --mount -t "$HOLDER" \
		--preserve-credentials "$@"
}

# get ADDR PORT PATH - what R gets from http://ADDR:PORT/PATH, "" if nothing
get() {
	in_r curl -sS -g --max-time 5 "http://$(url_host "$1"):$2/$3" \
		2>/dev/null
}

# --- 1. rootlesskit 3.1 -----------------------------------------------------
holder rootlesskit rk --bind 0.0.0.0 --port 80
ok $? "rootlesskit's child: a user and network namespace, a server on port 80" ||
	{ diag_file "$WORK/rk.holder.log"; done_testing; }
RK=$WORK/u/rk
as_user_h 20 "$PASTA" --stderr --ns-ifname=tap0 --mtu=65520 --config-net \
	--address=10.0.2.100 --netmask=24 --gateway=10.0.2.2 \
	--dns-forward=10.0.2.3 --no-map-gw --ipv4-only --tcp-ports=none \
	--udp-ports=none -c "$RK/pasta.sock" "$HOLDER" >"$WORK/rk.out" 2>&1
rc=$?
[ $rc = 0 ] && [ -S "$RK/pasta.sock" ]
ok $? "rootlesskit's pasta line with -c: exit 0, the socket is there" ||
	diag_file "$WORK/rk.out"
RK_PASTA=$(pgrep -u "$TEST_USER" -f -- "-c $RK/pasta.sock" | head -1)
[ -n "$RK_PASTA" ] && _PIDS+=("$RK_PASTA")

pesto_as ours --version >"$WORK/v.out" 2>&1
ok $? "pesto --version: exit 0 ($(head -1 "$WORK/v.out"))"

pesto_as ours -A --tcp-ports=0.0.0.0/8080:80 "$RK/pasta.sock" >"$WORK/rka.out" 2>&1 &&
	[ "$(get "$H_ADDR" 8080 who.txt)" = rk ] &&
	[ "$(get "$H_ADDR" 8080 peer)" = "$R_ADDR" ]
ok $? "pesto -A --tcp-ports=0.0.0.0/8080:80: R reaches the child's port 80, which sees R's own address" ||
	{ diag_file "$WORK/rka.out"; diag_file "$WORK/rk.out"; }

pesto_as ours -A --udp-ports=0.0.0.0/8053:53 "$RK/pasta.sock" >"$WORK/rku.out" 2>&1
out=$(pesto_as ours "$RK/pasta.sock" 2>&1)
echo "$out" | grep -q "UDP \[0.0.0.0\]:8053  =>  53 "
ok $? "pesto -A --udp-ports=0.0.0.0/8053:53: shown" || diag "$out"

pesto_as ours -D --tcp-ports=0.0.0.0/8080:80 "$RK/pasta.sock" >"$WORK/rkd.out" 2>&1 &&
	pesto_as ours -D --udp-ports=0.0.0.0/8053:53 "$RK/pasta.sock" >>"$WORK/rkd.out" 2>&1 &&
	[ -z "$(get "$H_ADDR" 8080 who.txt)" ] &&
	[ -z "$(pesto_as ours "$RK/pasta.sock" | grep -E '8080|8053')" ]
ok $? "pesto -D with the same specs: both rules gone, the port refuses" ||
	diag_file "$WORK/rkd.out"

if [ -n "$UP_ROOT" ]; then
	pesto_as upstream -A --tcp-ports=0.0.0.0/8080:80 "$RK/pasta.sock" >"$WORK/rkup.out" 2>&1 &&
		[ "$(get "$H_ADDR" 8080 who.txt)" = rk ] &&
		pesto_as upstream -D --tcp-ports=0.0.0.0/8080:80 "$RK/pasta.sock" >>"$WORK/rkup.out" 2>&1
	ok $? "the same through upstream's pesto" || diag_file "$WORK/rkup.out"
else
	not_run 1 "upstream's pesto"
fi
kill_pid "$(cat "$RK/holder.pid")"
[ -z "$RK_PASTA" ] || wait_gone "$RK_PASTA" 5
ok $? "pasta exits once rootlesskit's child is gone"

# rootlesskit --detach-netns, or a user, names the namespaces by path:
# /proc/PID/ns/net goes with its process (upstream: the same)
holder rootlesskit rk2 --bind 0.0.0.0 --port 80
as_user_h 20 "$PASTA" --config-net --quiet -t 18098:80 \
	"--userns=/proc/$HOLDER/ns/user" "--netns=/proc/$HOLDER/ns/net" \
	-P "$WORK/u/rk2/pasta.pid" >"$WORK/rk2.out" 2>&1 &&
	[ "$(get "$H_ADDR" 18098 who.txt)" = rk2 ]
ok $? "pasta --userns=/proc/PID/ns/user --netns=/proc/PID/ns/net: R reaches the namespace" ||
	diag_file "$WORK/rk2.out"
RK2_PASTA=$(cat "$WORK/u/rk2/pasta.pid" 2>/dev/null)
[ -n "$RK2_PASTA" ] && _PIDS+=("$RK2_PASTA")
kill_pid "$HOLDER"
[ -n "$RK2_PASTA" ] && wait_gone "$RK2_PASTA" 5
ok $? "... and exits once that process is gone"

# --- 2. Podman 6's rootless network namespace -------------------------------
holder podman pod --bind :: --port 8080
ok $? "Podman's rootless network namespace, bind-mounted in its mount namespace, a server on 8080" ||
	{ diag_file "$WORK/pod.holder.log"; done_testing; }
POD=$WORK/u/pod
in_podman "$PASTA" --config-net --pid "$POD/pasta.pid" -c "$POD/pasta.sock" \
	--dns-forward 169.254.1.1 -t none -u none -T none -U none --no-map-gw \
	--quiet --netns "$POD/netns" --map-guest-addr 169.254.1.2 \
	>"$WORK/pod.out" 2>&1 </dev/null
rc=$?
[ $rc = 0 ] && wait_file "$POD/pasta.pid" 5 && [ -S "$POD/pasta.sock" ]
ok $? "Podman 6's rootless-netns pasta line, in its user namespace: exit 0, PID file and socket" ||
	diag_file "$WORK/pod.out"
POD_PASTA=$(cat "$POD/pasta.pid" 2>/dev/null)
[ -n "$POD_PASTA" ] && _PIDS+=("$POD_PASTA")

pesto_as ours --add -t 0.0.0.0/8080 -t "[::]/8080" "$POD/pasta.sock" >"$WORK/pa.out" 2>&1 &&
	[ "$(get "$H_ADDR" 8080 who.txt)" = pod ] &&
	[ "$(get "$H_ADDR6" 8080 who.txt)" = pod ]
ok $? "pesto --add -t 0.0.0.0/8080 -t [::]/8080: R reaches the container, both families" ||
	diag_file "$WORK/pa.out"

# A transfer through the first container's port while a second one's
# ports come and go
docs_random big.bin 32M >/dev/null
cp "$DOCS/big.bin" "$POD/big.bin"
in_r curl -sS --max-time 60 --limit-rate 8M -o "$WORK/dl.bin" \
	"http://$H_ADDR:8080/big.bin" &
dl=$!
pesto_as ours --add -t 0.0.0.0/9000-9002 -t "[::]/9000-9002" \
	-u 0.0.0.0/9000-9002 -u "[::]/9000-9002" "$POD/pasta.sock" >"$WORK/pr.out" 2>&1
rc=$?
out=$(pesto_as ours "$POD/pasta.sock" 2>&1)
[ $rc = 0 ] && echo "$out" | grep -q "TCP \[::\]:9000-9002  =>  9000-9002 " &&
	echo "$out" | grep -q "UDP \[0.0.0.0\]:9000-9002  =>  9000-9002 "
ok $? "a second container's ranges, ADDR/FIRST-LAST, TCP and UDP, both families" || diag "$out"
pesto_as ours --delete -t 0.0.0.0/9000-9002 -t "[::]/9000-9002" \
	-u 0.0.0.0/9000-9002 -u "[::]/9000-9002" "$POD/pasta.sock" >"$WORK/prd.out" 2>&1 &&
	! pesto_as ours "$POD/pasta.sock" | grep -q 9000
ok $? "pesto --delete with the same specs: the range is gone" || diag_file "$WORK/prd.out"
wait "$dl"
rc=$?
[ $rc = 0 ] && cmp -s "$WORK/dl.bin" "$DOCS/big.bin"
ok $? "meanwhile a 32 MiB download from the first container is intact (curl $rc)"

pesto_as ours --delete -t 0.0.0.0/8080 -t "[::]/8080" "$POD/pasta.sock" >"$WORK/pd.out" 2>&1 &&
	[ -z "$(get "$H_ADDR" 8080 who.txt)" ] && [ -z "$(get "$H_ADDR6" 8080 who.txt)" ]
ok $? "pesto --delete on teardown: the port refuses, both families" || diag_file "$WORK/pd.out"
in_podman sh -c 'umount -l "$1" && rm "$1"' - "$POD/netns"
[ -n "$POD_PASTA" ] && wait_gone "$POD_PASTA" 5
ok $? "pasta exits once Podman unmounts (MNT_DETACH) and removes the namespace's file"
kill_pid "$HOLDER"
done_testing
