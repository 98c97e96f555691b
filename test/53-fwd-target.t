#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Target-address forwarding rules, -t/-u ADDR/PORTS:TADDR/TPORTS: a
# rootless bridge network in pasta's namespace the way Podman 6 lays one
# out (test/bridge-ns.sh: br0, a container behind it at 192.0.2.2 and
# 2001:db8:88::2), and a client in R reaching the container's server
# through H's forwarded port. The server sees R's own address, for TCP and
# UDP, both families; rules come from the command line and from pesto
# (ours and upstream's), change their target in place, and go away. A rule
# without a target still reaches pasta's namespace itself, even after the
# container's answers went through the tap. Then the same layout on
# upstream's pasta, with our pesto.

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"
pesto_init
plan 18

CTR4=192.0.2.2
CTR6=2001:db8:88::2
P4=9090		# -t/-u 0.0.0.0/P4:CTR4/8080, on the command line
P6=9096		# [::]/P6:[CTR6]/8080, through pesto
PU=9092		# 0.0.0.0/PU:CTR4/8080, through upstream's pesto
PN=9094		# PN:8080, no target: pasta's namespace itself

topo_create; ok $? "topology created" || done_testing

# start_bridge NAME PASTA [OPTS...] - pasta with -c $S/ctl.sock running
# bridge-ns.sh; sets S, SPID_PASTA
start_bridge() {
	local name=$1 bin=$2
	shift 2
	S=$WORK/u/$name
	mkdir -m 0777 "$S" "$S/ns" "$S/ctr"
	echo namespace >"$S/ns/who.txt"
	echo container >"$S/ctr/who.txt"
	PASTA=$bin pasta_bg "$name" 300 -P "$S/pasta.pid" -c "$S/ctl.sock" \
		-T none -U none "$@" -- "$TESTDIR/bridge-ns.sh" "$S" 290 "$PY"
	SPID_PASTA=$BG_PID
	wait_file "$S/ready" 20 && wait_file "$S/pasta.pid" 5
}

# get ADDR PORT PATH - what R gets from http://ADDR:PORT/PATH, "" if nothing
get() {
	in_r curl -sS -g --max-time 5 "http://$(url_host "$1"):$2/$3" \
		2>/dev/null
}

# udp_peer ADDR PORT - the address the UDP server behind ADDR:PORT sees
# for R, "" if no answer
udp_peer() {
	in_r timeout 10 "$PY" - "$1" "$2" <<'EOF' 2>/dev/null
import socket, sys
s = socket.socket(socket.AF_INET6 if ':' in sys.argv[1] else socket.AF_INET,
                  socket.SOCK_DGRAM)
s.settimeout(1)
for _ in range(3):
    s.sendto(b'peer?', (sys.argv[1], int(sys.argv[2])))
    try:
        print(s.recv(100).decode())
        break
    except OSError:
        pass
EOF
}

# reaches_ctr ADDR PORT R_SRC WHAT - R's client at ADDR:PORT reaches the
# container, which sees R_SRC, for TCP and UDP; WHAT names the check
reaches_ctr() {
	local who peer upeer
	who=$(get "$1" "$2" who.txt)
	peer=$(get "$1" "$2" peer)
	upeer=$(udp_peer "$1" "$2")
	[ "$who" = container ] && [ "$peer" = "$3" ] && [ "$upeer" = "$3" ]
	ok $? "$4: R reaches the container, which sees R's own address $3 (TCP: '$peer', UDP: '$upeer')" ||
		{ diag "who.txt: '$who'"; diag_file "$S/setup.log"; }
}

# --- our pasta ------------------------------------------------------------
out=$(as_user_h 10 "$PASTA" -f -t "$P4:$CTR4/8080" -- true 2>&1)
rc=$?
[ $rc != 0 ] && echo "$out" | grep -q "Dual stack forward to IPv4 address $CTR4 unsupported" &&
	echo "$out" | grep -q "Did you mean 0.0.0.0/... instead?"
ok $? "a dual-stack rule with an IPv4 target: refused in upstream's words (exit $rc)" || diag "$out"

start_bridge ours "$PASTA" -t "0.0.0.0/$P4:$CTR4/8080" \
	-u "0.0.0.0/$P4:$CTR4/8080" -t "$PN:8080"
ok $? "our pasta with a bridge and a container in its namespace" ||
	{ diag_file "$WORK/ours.err"; diag_file "$S/setup.log"; done_testing; }
OURS=$S

reaches_ctr "$H_ADDR" "$P4" "$R_ADDR" "IPv4, -t/-u 0.0.0.0/$P4:$CTR4/8080 on the command line"

[ "$(get "$H_ADDR" "$PN" who.txt)" = namespace ] &&
	[ "$(get "$H_ADDR6" "$PN" who.txt)" = namespace ]
ok $? "a rule without a target still reaches pasta's namespace itself, after the container's answers"

pesto_as ours -A -t "[::]/$P6:[$CTR6]/8080" -u "[::]/$P6:[$CTR6]/8080" \
	"$OURS/ctl.sock" >"$WORK/add6.out" 2>&1
ok $? "pesto -A -t/-u [::]/$P6:[$CTR6]/8080" || diag_file "$WORK/add6.out"
reaches_ctr "$H_ADDR6" "$P6" "$R_ADDR6" "IPv6, added through pesto"

out=$(pesto_as ours "$OURS/ctl.sock" 2>&1)
echo "$out" | grep -q "TCP \[0.0.0.0\]:$P4  =>  $CTR4:8080 " &&
	echo "$out" | grep -q "UDP \[::\]:$P6  =>  $CTR6:8080 "
ok $? "pesto --show lists the target addresses in upstream's layout" || diag "$out"

if [ -n "$UP_ROOT" ]; then
	pesto_as upstream -A -t "0.0.0.0/$PU:$CTR4/8080" -u "0.0.0.0/$PU:$CTR4/8080" \
		"$OURS/ctl.sock" >"$WORK/addu.out" 2>&1
	ok $? "upstream's pesto adds a target rule to our pasta" || diag_file "$WORK/addu.out"
	reaches_ctr "$H_ADDR" "$PU" "$R_ADDR" "IPv4, added through upstream's pesto"
else
	not_run 2 "upstream's pesto"
fi

pesto_as ours -D -u "[::]/$P6:[$CTR6]/8080" "$OURS/ctl.sock" >"$WORK/del.out" 2>&1 &&
	[ -z "$(udp_peer "$H_ADDR6" "$P6")" ] &&
	[ "$(get "$H_ADDR6" "$P6" who.txt)" = container ]
ok $? "pesto -D: the UDP target rule is gone, the TCP one stays" ||
	diag_file "$WORK/del.out"

# Replace the whole HOST table: P4 now goes to the namespace itself, the
# same listener kept, its target changed in place
pesto_as ours -t "0.0.0.0/$P4:8080" -t "$PN:8080" "$OURS/ctl.sock" >"$WORK/re.out" 2>&1 &&
	[ "$(get "$H_ADDR" "$P4" who.txt)" = namespace ] &&
	[ -z "$(get "$H_ADDR6" "$P6" who.txt)" ]
ok $? "a new HOST table without targets: port $P4 now reaches the namespace itself, $P6 is gone" ||
	diag_file "$WORK/re.out"

pesto_as ours -A -t "0.0.0.0/$((P4 + 1)):$CTR4/8080" "$OURS/ctl.sock" >/dev/null 2>&1
out=$(in_h curl -sS --max-time 5 "http://127.0.0.1:$((P4 + 1))/who.txt" 2>&1)
is "$out" container "a client on H's loopback reaches the target too, through the tap"
grep -q "Forwarding rule added (HOST): TCP \[::\]:$P6  =>  $CTR6:8080 " "$WORK/ours.err"
ok $? "pasta logs the rule added, with its target"
finish_ns_server "$SPID_PASTA" "$OURS" ours

# --- upstream's pasta, our pesto --------------------------------------------
if [ -n "$UP_ROOT" ]; then
	start_bridge upstream "$UP_PASTA" -t none -u none
	ok $? "upstream's pasta with the bridge" ||
		{ diag_file "$WORK/upstream.err"; diag_file "$S/setup.log"; }
	pesto_as ours -A -t "0.0.0.0/$P4:$CTR4/8080" -u "0.0.0.0/$P4:$CTR4/8080" \
		"$S/ctl.sock" >"$WORK/upadd.out" 2>&1
	ok $? "our pesto adds a target rule to upstream's pasta" || diag_file "$WORK/upadd.out"
	reaches_ctr "$H_ADDR" "$P4" "$R_ADDR" "upstream's pasta, IPv4"
	pesto_as ours -A -t "$PN:8080" "$S/ctl.sock" >/dev/null 2>&1
	diag "upstream's pasta, a rule without a target after the container's answers reaches: '$(get "$H_ADDR" "$PN" who.txt)'"
	touch "$S/done"
	wait_gone "$SPID_PASTA" 15
else
	not_run 3 "upstream's pasta"
fi
done_testing
