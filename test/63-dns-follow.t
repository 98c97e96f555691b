#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# --dns-forward follows the host's resolv.conf (resolv.c): two resolvers
# in R, A (198.51.100.1, answers example.test with 192.0.2.1) and B
# (198.51.100.2, answers 192.0.2.2), and a dead one (198.51.100.3, a
# blackhole route in R: no answer, no error). The test runs in a mount
# namespace of its own, with an overlay on /etc: the machine's
# resolv.conf is never touched, and files are renamed over ours as tools
# do. A client in pasta's namespace asks from one socket, so one flow,
# retrying every 0.5 s as a resolver would. Checked:
#  - a regular file, replaced by rename: the next query reaches B, and
#    how long after the rename it is answered;
#  - a symbolic link into another directory, whose target is replaced
#    there, naming the dead resolver first: the query is answered by B
#    once the dead one is skipped, and the next at once;
#  - a file bind-mounted over resolv.conf, rewritten in place: followed;
#  - --no-follow-host: the change is not followed.
# And a --dns-forward flow ends with its answer: pasta's descriptors are
# back to where they were before the first query as soon as it is answered.

if [ -z "${DNS_FOLLOW_MNTNS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP must run as root"; exit 0; }
	DNS_FOLLOW_MNTNS=1 exec unshare -m --propagation private \
		/bin/bash "$0" "$@"
fi

. "$(dirname "$0")/lib.sh"
lib_init
need_pasta
[ "$PASTA_DIRECT" = 1 ] && skip_all "needs pasta itself (PASTA_DIRECT=1)"

A=198.51.100.1 B=198.51.100.2 DEAD=198.51.100.3
OV=$WORK/ov RUN=$WORK/run D=$WORK/u/q
mkdir -p "$OV/up" "$OV/work" "$RUN"
chmod 0755 "$RUN"
mount -t overlay overlay \
	-o "lowerdir=/etc,upperdir=$OV/up,workdir=$OV/work" /etc ||
	skip_all "no overlay on /etc in a mount namespace of our own"
plan 16

topo_create &&
	ip -n "$NS_R" addr add "$B/32" dev lo &&
	ip -n "$NS_R" route add blackhole "$DEAD/32"
ok $? "topology created, B on R's loopback, $DEAD a blackhole" ||
	done_testing

bg_r dnsd_a "$PY" "$TESTDIR/podman/dnsd.py" --bind "$A" --name example.test \
	--a 192.0.2.1 --aaaa 2001:db8::1 --pidfile "$WORK/dnsd_a.pid"
bg_r dnsd_b "$PY" "$TESTDIR/podman/dnsd.py" --bind "$B" --name example.test \
	--a 192.0.2.2 --aaaa 2001:db8::2 --pidfile "$WORK/dnsd_b.pid"
wait_file "$WORK/dnsd_a.pid" 10 && wait_file "$WORK/dnsd_b.pid" 10
ok $? "resolvers A and B in R" || done_testing

# client.py DIR: for each DIR/qN that appears (N from 1), one A query for
# example.test to 169.254.1.1, sent again every 0.5 s for as many seconds
# as qN says; writes DIR/rN: "ANSWER SECONDS" (ANSWER "timeout" if none)
cat >"$WORK/u/client.py" <<'EOF'
import os, socket, struct, sys, time
d = sys.argv[1]
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 0))
open(d + "/ready.tmp", "w").write("1\n")
os.rename(d + "/ready.tmp", d + "/ready")
n, end = 1, time.time() + 110
while time.time() < end and not os.path.exists(d + "/done"):
    q = "%s/q%d" % (d, n)
    if not os.path.exists(q):
        time.sleep(0.01)
        continue
    bound = float(open(q).read() or "1")
    msg = struct.pack("!HHHHHH", n, 0x0100, 1, 0, 0, 0)
    msg += b"\x07example\x04test\x00" + struct.pack("!HH", 1, 1)
    t0, ans = time.time(), "timeout"
    while ans == "timeout" and time.time() - t0 < bound:
        s.sendto(msg, ("169.254.1.1", 53))
        s.settimeout(0.5)
        try:
            while True:
                r = s.recv(512)
                if struct.unpack("!H", r[:2])[0] == n:
                    ans = socket.inet_ntoa(r[-4:])
                    break
        except socket.timeout:
            pass
    open(q + ".tmp", "w").write("%s %.3f\n" % (ans, time.time() - t0))
    os.rename(q + ".tmp", "%s/r%d" % (d, n))
    n += 1
EOF

# resolv FILE NS... - write a resolv.conf naming NS... beside FILE, then
# rename it over FILE, as tools do
resolv() {
	local f=$1 ns; shift
	for ns in "$@"; do
		echo "nameserver $ns"
	done >"$f.new"
	echo "search $#.example" >>"$f.new"
	chmod 0644 "$f.new"
	mv -f "$f.new" "$f"
}

# start NAME [OPTS...] - pasta with --dns-forward, client.py in it
start() {
	local name=$1; shift
	rm -rf "$D"; mkdir -m 0777 "$D"
	N=0
	pasta_bg "$name" 60 --dns-forward 169.254.1.1 -P "$D/pasta.pid" "$@" \
		-- "$PY" "$WORK/u/client.py" "$D"
	PASTA_PID=$BG_PID
	wait_file "$D/ready" 15 && wait_file "$D/pasta.pid" 5 ||
		diag_file "$WORK/$name.err"
}

# fds - pasta's open descriptors
fds() { ls "/proc/$(cat "$D/pasta.pid")/fd" | wc -l; }

# query SECS - one query, bounded by SECS; sets R to "ANSWER SECONDS"
# (not in a subshell: N counts the queries)
query() {
	N=$((N + 1))
	echo "$1" >"$D/q$N.w"; mv "$D/q$N.w" "$D/q$N"
	R=
	wait_file "$D/r$N" $(( ${1%.*} + 5 )) && R=$(cat "$D/r$N")
}

# query_until WANT SECS - queries until one is answered with WANT, for at
# most SECS from now (a query may be on its way before we see the change);
# sets R to the last answer and the seconds since the call
query_until() {
	local t0
	t0=$(date +%s.%N)
	while :; do
		query "$2"
		[ "${R% *}" = "$1" ] && break
		awk -v a="$t0" -v b="$(date +%s.%N)" -v s="$2" \
			'BEGIN { exit !(b - a < s) }' || break
	done
	R="${R% *} $(awk -v a="$t0" -v b="$(date +%s.%N)" \
			'BEGIN { printf "%.3f", b - a }')"
}

stop() {
	touch "$D/done"
	wait_gone "$PASTA_PID" 15 || kill_pid "$PASTA_PID"
}

# 1. A regular file, replaced by rename
resolv /etc/resolv.conf "$A"
start file
fds0=$(fds)
query 2
fds1=$(fds)
is "${R% *}" 192.0.2.1 "file: the query reaches A" || diag_file "$WORK/file.err"
[ "$fds1" -le "$fds0" ]
ok $? "the query's flow ended with its answer: $fds1 descriptors, $fds0 before it" ||
	diag_file "$WORK/file.err"
resolv /etc/resolv.conf "$B"
query_until 192.0.2.2 2
is "${R% *}" 192.0.2.2 "file renamed over: the next query reaches B" ||
	diag_file "$WORK/file.err"
diag "answered by B ${R#* } s after the rename"
[ "${R% *}" = 192.0.2.2 ] && awk -v t="${R#* }" 'BEGIN { exit !(t < 2) }'
ok $? "... within 2 s"
stop
grep -q "changed: name servers $B (were $A)" "$WORK/file.err"
ok $? "the change is logged once, old and new" || diag_file "$WORK/file.err"

# 2. A link into another directory; the dead resolver first, then B
ln -sfn "$RUN/resolv.conf" /etc/resolv.conf
resolv "$RUN/resolv.conf" "$A"
start link
query 2
is "${R% *}" 192.0.2.1 "link: the query reaches A" || diag_file "$WORK/link.err"
resolv "$RUN/resolv.conf" "$DEAD" "$B"
query_until 192.0.2.2 8
is "${R% *}" 192.0.2.2 "link target renamed over, $DEAD first: B answers once it's skipped" ||
	diag_file "$WORK/link.err"
diag "answered by B ${R#* } s after the change (the client retried)"
query 2
is "${R% *}" 192.0.2.2 "the next query goes to B" || diag_file "$WORK/link.err"
awk -v t="${R#* }" 'BEGIN { exit !(t < 0.5) }'
ok $? "... at once (${R#* } s): $DEAD stays skipped"
stop
grep -q "resolver $DEAD didn't answer in 2 s: queries go to $B" \
	"$WORK/link.err"
ok $? "the failed resolver is logged" || diag_file "$WORK/link.err"

# 3. A file mounted over it (as a container gets its own), rewritten in place
rm -f /etc/resolv.conf
resolv /etc/resolv.conf "$A"
resolv "$RUN/bound.conf" "$A"
mount --bind "$RUN/bound.conf" /etc/resolv.conf
start bind
query 2
is "${R% *}" 192.0.2.1 "bind mount: the query reaches A" ||
	diag_file "$WORK/bind.err"
printf 'nameserver %s\n' "$B" >"$RUN/bound.conf"	# same inode
query_until 192.0.2.2 2
is "${R% *}" 192.0.2.2 "bind-mounted file rewritten in place: the next query reaches B" ||
	diag_file "$WORK/bind.err"
diag "answered by B ${R#* } s after the write"
stop
umount /etc/resolv.conf

# 4. --no-follow-host: read at start-up only
rm -f /etc/resolv.conf
resolv /etc/resolv.conf "$A"
start nofollow --no-follow-host
query 2
is "${R% *}" 192.0.2.1 "--no-follow-host: the query reaches A" ||
	diag_file "$WORK/nofollow.err"
resolv /etc/resolv.conf "$B"
# Nothing to wait for: a change is followed within 0.12 s (above), so give
# it four times that to show up, which it must not
sleep 0.5
query 2
is "${R% *}" 192.0.2.1 "--no-follow-host: still A after the change" ||
	diag_file "$WORK/nofollow.err"
stop

umount /etc
done_testing
