# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/podman/lib.sh - a real rootless Podman 5 in namespace H, its
# containers networked by the pasta under test (test/97-podman.t)
#
# Sourced after test/lib.sh (whose topology, TAP and cleanup it uses):
#
#   . "$(dirname "$0")/lib.sh"; . "$TESTDIR/podman/lib.sh"
#   lib_init; pod_build; pod_need; topo_create; pod_init
#
# Layout: Podman 5.4 and its helpers come from a cached Debian 13 tree
# (test/podman/rootfs.sh, $PODMAN_ROOTFS).  pod_init starts a holder
# process (holder.sh) in H's network namespace (nsenter --net, not `ip
# netns exec`, which remounts /sys without the cgroup hierarchies) and in
# a private mount namespace, where an overlay of that tree (fresh upper
# layer per run) is its root (pivot_root).  Every podman call enters that
# mount namespace and H's network namespace as root (nsenter --target),
# then becomes the tree's rootless user $POD_USER with a clean
# environment and XDG_RUNTIME_DIR=/tmp/xdgrun, bounded by timeout(1).
# Podman's containers.conf there (written by rootfs.sh) puts
# $POD_PASTA_DIR first in helper_binaries_dir: a read-only bind of
# $WORK/pod/pastabin, holding a copy of $PODMAN_PASTA named "pasta" (and
# pasta.avx2 when one lies beside it, for upstream's binary).  So
# `--network pasta` runs the pasta under test in H, and the container's
# traffic goes from H's sockets to R.  The tree's /etc/resolv.conf names
# the DNS responder pod_init starts in R (dnsd.py on 198.51.100.1 and
# 2001:db8:2::1, answering $POD_DNS_NAME): no query leaves the machine.
#
# Environment knobs:
#   PODMAN_PASTA=path   the pasta Podman runs (default: $PASTA, i.e. our
#                       ./pasta or make check's test/san/pasta); upstream's:
#                       PODMAN_PASTA=$PODMAN_ROOTFS/usr/bin/pasta
#   PODMAN_ROOTFS=dir   the cached tree (default
#                       /var/cache/pasta-test/trixie-rootfs)
#   PODMAN_NO_BUILD=1   do not run rootfs.sh (use the tree as it is)
#   PODMAN_PASTA_OPTIONS="..."  word-split into containers.conf's
#                       pasta_options (Podman puts them first on every
#                       pasta command line), e.g. upstream's debug log:
#                       "--debug --log-file /srv/share/pasta.log" (the
#                       last pasta's, in $WORK/pod/share: KEEP_WORK=1)
#
# Variables: POD_DIR ($WORK/pod), POD_HOLDER (holder's PID), POD_IMAGE
#   (the busybox image's name), POD_UPSTREAM (1 when PODMAN_PASTA is the
#   tree's own pasta), POD_SHARE ($WORK/pod/share, seen at /srv/share by
#   Podman: bind it into containers with -v /srv/share/...:...),
#   POD_DNS_NAME (the name dnsd.py answers), POD_VERSIONS.
#   Set before pod_init: POD_DNS_MORE (more names dnsd.py answers, with
#   the same addresses; space-separated), POD_LAYER (a directory that
#   holder.sh stacks read-only on the tree, e.g. bats-layer.sh's).
#
# Functions:
#   pod_build             run rootfs.sh (quick when the tree is up to
#                         date); one test; output in $WORK/rootfs.log
#   pod_need              skip_all unless $PODMAN_PASTA is executable (or
#                         in the tree, which pod_build may yet build)
#   pod_init              pastabin, resolver in R, holder, podman info,
#                         image import; one test; sets the cleanup trap
#   pod_exec SECS CMD...  CMD as $POD_USER in the tree (H's netns), bounded
#   pod_as_root SECS CMD... CMD as root in the tree (H's netns), bounded
#   pod SECS ARGS...      podman ARGS (pod_exec)
#   pod_run NAME SECS ARGS...
#                         `podman --log-level=debug ARGS` with stdout in
#                         $WORK/NAME.out, stderr in $WORK/NAME.err; the
#                         pasta command lines Podman logged go to
#                         $WORK/NAME.pasta and are shown as diag lines;
#                         returns podman's status
#   pod_pasta_args NAME   the pasta command lines of $WORK/NAME.err
#   pasta_pids            PIDs of the pasta processes in H (any owner)
#   pasta_cmdlines        "PID argv..." of each, from /proc (as ps shows)
#   pasta_exited PID      PID has exited (gone, or a zombie not yet reaped)
#   pod_err NAME          diag: the lines of $WORK/NAME.err that are not
#                         Podman's own debug/info log (pasta's error text)
#   ok_todo RC DESC [REASON]
#                         like ok, with "# TODO REASON" when REASON is
#                         non-empty: a failure does not count (prove stays
#                         green) and a pass shows as a bonus
#   is_todo GOT WANT DESC [REASON]   the same for is

POD_HERE=$TESTDIR/podman
# shellcheck source=test/podman/config.sh
. "$POD_HERE/config.sh"

PODMAN_PASTA=${PODMAN_PASTA:-$PASTA}
POD_IMAGE=localhost/pastatest-busybox
POD_DNS_NAME=server.pasta.test
POD_DIR=
POD_SHARE=
POD_HOLDER=
POD_VERSIONS=
POD_UPSTREAM=0
POD_DNS_MORE=${POD_DNS_MORE:-}
POD_LAYER=${POD_LAYER:-}
case $(readlink -m "$PODMAN_PASTA") in
"$(readlink -m "$PODMAN_ROOTFS")"/*) POD_UPSTREAM=1 ;;
esac

pod_build() {
	if [ "${PODMAN_NO_BUILD:-0}" = 1 ]; then
		[ -f "$PODMAN_ROOTFS/.pasta-test-stamp" ]
		ok $? "Podman tree $PODMAN_ROOTFS present (PODMAN_NO_BUILD=1)"
		return
	fi
	local t=$SECONDS rc
	PODMAN_ROOTFS=$PODMAN_ROOTFS timeout -k 10 1500 \
		"$POD_HERE/rootfs.sh" >"$WORK/rootfs.log" 2>&1
	rc=$?
	grep '^rootfs.sh:' "$WORK/rootfs.log" | sed 's/^/# /'
	ok $rc "Podman tree $PODMAN_ROOTFS ready ($((SECONDS - t)) s)" ||
		diag_file "$WORK/rootfs.log" 20
}

pod_need() {
	# the tree's own pasta may be there only after pod_build
	[ "$POD_UPSTREAM" = 1 ] || [ -x "$PODMAN_PASTA" ] ||
		skip_all "PODMAN_PASTA=$PODMAN_PASTA is not an executable"
}

_pod_env() {
	_PE=(setpriv --reuid="$POD_UID" --regid="$POD_UID" --init-groups --
	     env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin
	     HOME="/home/$POD_USER" USER="$POD_USER" LOGNAME="$POD_USER"
	     XDG_RUNTIME_DIR=/tmp/xdgrun LANG=C.UTF-8
	     PODMAN_IGNORE_CGROUPSV1_WARNING=1)
}

pod_exec() {
	local secs=$1; shift
	_pod_env
	timeout -k 5 "$secs" nsenter --target "$POD_HOLDER" --mount --net \
		--root --wd -- "${_PE[@]}" "$@"
}

pod_as_root() {
	local secs=$1; shift
	timeout -k 5 "$secs" nsenter --target "$POD_HOLDER" --mount --net \
		--root --wd -- "$@"
}

pod() {
	local secs=$1; shift
	pod_exec "$secs" podman "$@"
}

pod_pasta_args() {
	# logrus text format: ... msg="pasta arguments: --config-net ..."
	sed -n 's/.*pasta arguments: \(.*\)$/\1/p' "$WORK/$1.err" 2>/dev/null |
		sed 's/"$//; s/\\"/"/g'
}

pod_run() {
	local name=$1 secs=$2 rc line
	shift 2
	pod "$secs" --log-level=debug "$@" >"$WORK/$name.out" \
		2>"$WORK/$name.err" </dev/null
	rc=$?
	pod_pasta_args "$name" >"$WORK/$name.pasta"
	while IFS= read -r line; do
		diag "pasta command line ($name): $line"
	done <"$WORK/$name.pasta"
	[ -s "$WORK/$name.pasta" ] || diag "($name: no pasta command line in Podman's log)"
	return $rc
}

# pod_err NAME - what is left of stderr without Podman's log lines
pod_err() {
	grep -v -E '^time="[^"]*" level=(debug|info|trace)' "$WORK/$1.err" |
		head -n "${2:-15}" | sed 's/^/#   /'
}

pasta_pids() {
	local pid a0
	for pid in $(ip netns pids "$NS_H" 2>/dev/null); do
		a0=$(tr '\0' '\n' 2>/dev/null <"/proc/$pid/cmdline" | head -n1)
		case ${a0##*/} in
		pasta|pasta.avx2) echo "$pid" ;;
		esac
	done
}

# pasta_exited PID - PID is gone or a zombie (this machine's init reaps
# orphans late, and a zombie holds no socket)
pasta_exited() {
	local st
	st=$(sed 's/^.*) \([A-Za-z]\).*/\1/' "/proc/$1/stat" 2>/dev/null) || return 0
	case $st in Z|X|x|"") return 0 ;; esac
	return 1
}

pasta_cmdlines() {
	local pid
	for pid in $(pasta_pids); do
		echo "$pid $(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline")"
	done
}

ok_todo() {
	local rc=$1 desc=$2 reason=${3:-}
	[ -z "$reason" ] && { ok "$rc" "$desc"; return; }
	_TAP_N=$((_TAP_N + 1))
	if [ "$rc" = 0 ]; then
		echo "ok $_TAP_N - $desc # TODO $reason"
		return 0
	fi
	echo "not ok $_TAP_N - $desc # TODO $reason"
	return 1
}

is_todo() {
	local got=$1 want=$2 desc=$3 reason=${4:-}
	if [ "$got" = "$want" ]; then
		ok_todo 0 "$desc" "$reason"
		return 0
	fi
	ok_todo 1 "$desc" "$reason"
	diag "  got:  '$got'" "  want: '$want'"
	return 1
}

# --- set-up and clean-up -----------------------------------------------------

_pod_start_dns() {
	local n names=(--name "$POD_DNS_NAME")
	for n in $POD_DNS_MORE; do
		names+=(--name "$n")
	done
	bg_r dnsd "$PY" "$POD_HERE/dnsd.py" --bind "$SRV_ADDR" \
		--bind "$SRV_ADDR6" "${names[@]}" --a "$SRV_ADDR" \
		--aaaa "$SRV_ADDR6" --pidfile "$WORK/dnsd.pid"
	wait_file "$WORK/dnsd.pid" 10 || { diag_file "$WORK/dnsd.log"; return 1; }
}

_pod_setup() {
	local d=$POD_DIR
	mkdir -p "$d/upper" "$d/work" "$d/root" "$d/share" "$d/pastabin" \
		"$d/storage" || return 1
	chmod 0755 "$d" "$d/share" "$d/pastabin"
	chown "$POD_UID:$POD_UID" "$d/storage" && chmod 0700 "$d/storage"
	# A copy named "pasta" whatever the original is called (ours is a
	# symlink to passt); upstream's re-executes itself as NAME.avx2 when
	# the CPU has AVX2 and that file exists next to /proc/self/exe
	cp -L "$PODMAN_PASTA" "$d/pastabin/pasta" || return 1
	[ -e "$PODMAN_PASTA.avx2" ] &&
		cp -L "$PODMAN_PASTA.avx2" "$d/pastabin/pasta.avx2"
	chmod 0755 "$d/pastabin"/*
	printf 'nameserver %s\nnameserver %s\n' "$SRV_ADDR" "$SRV_ADDR6" \
		>"$d/resolv.conf"

	_pod_start_dns || { diag "DNS responder did not start in R"; return 1; }

	# Extra pasta options: a copy of containers.conf in the overlay's
	# upper layer (with its directories' owners and modes) shadows the
	# tree's
	if [ -n "${PODMAN_PASTA_OPTIONS:-}" ]; then
		local conf=home/$POD_USER/.config/containers/containers.conf w list=
		(cd "$PODMAN_ROOTFS" && cp -a --parents "$conf" "$d/upper/") ||
			return 1
		for w in $PODMAN_PASTA_OPTIONS; do
			list="$list${list:+, }\"$w\""
		done
		sed -i "/^\[network\]/a pasta_options = [$list]" "$d/upper/$conf"
		chmod 0777 "$d/share"	# for log files
		diag "containers.conf: pasta_options = [$list]"
	fi

	nsenter --net="/run/netns/$NS_H" -- unshare --mount \
		--propagation private -- "$POD_HERE/holder.sh" \
		"$PODMAN_ROOTFS" "$d" "$POD_UID" 3600 ${POD_LAYER:+"$POD_LAYER"} \
		>"$WORK/holder.log" 2>&1 </dev/null &
	_PIDS+=("$!")		# unshare execs the holder: the same PID
	if ! wait_file "$POD_SHARE/.holder.pid" 15; then
		diag "holder did not start"; diag_file "$WORK/holder.log"
		return 1
	fi
	POD_HOLDER=$(cat "$POD_SHARE/.holder.pid")

	pod 60 info --format '{{.Host.NetworkBackend}} {{.Host.OCIRuntime.Name}} {{.Host.CgroupManager}} {{.Store.GraphDriverName}} {{.Host.RootlessNetworkCmd}}' \
		>"$WORK/podinfo.out" 2>"$WORK/podinfo.err" ||
		{ diag "podman info failed"; diag_file "$WORK/podinfo.err"; return 1; }
	POD_VERSIONS="$(cat "$PODMAN_ROOTFS/.pasta-test-versions" 2>/dev/null)"
	diag "$POD_VERSIONS; podman info: $(cat "$WORK/podinfo.out")"
	diag "pasta under test: $PODMAN_PASTA ($(
		if [ "$POD_UPSTREAM" = 1 ]; then echo "the tree's own, upstream"
		else echo "ours"; fi))"

	pod 60 import --change 'CMD ["/bin/sh"]' "$POD_IMAGE_TAR" "$POD_IMAGE" \
		>"$WORK/import.out" 2>"$WORK/import.err" ||
		{ diag "podman import failed"; diag_file "$WORK/import.err"; return 1; }
}

pod_init() {
	local t=$SECONDS
	POD_DIR=$WORK/pod
	POD_SHARE=$POD_DIR/share
	# shellcheck disable=SC2154  # _pod_rc is set by the trap itself
	trap '_pod_rc=$?; _pod_cleanup; (exit $_pod_rc); _cleanup' EXIT
	_pod_setup
	ok $? "rootless Podman ready in H, image $POD_IMAGE imported ($((SECONDS - t)) s)"
}

_pod_cleanup() {
	local pid f
	{
		if [ -n "$POD_HOLDER" ] && kill -0 "$POD_HOLDER"; then
			pod 30 rm -af -t 0 >/dev/null
			# The pause process (catatonit) pins the user and mount
			# namespaces of rootless podman: end it by its PID file
			f=/proc/$POD_HOLDER/root/tmp/xdgrun/libpod/tmp/pause.pid
			pid=$(cat "$f")
			[ -n "$pid" ] && kill_pid "$pid"
			# The holder: its mount namespace (the overlay and every
			# bind) goes with it
			kill_pid "$POD_HOLDER"
		fi
		# Anything left in H (conmon, pasta) is killed by PID by
		# test/lib.sh's _cleanup, before it deletes H and R.
	} 2>/dev/null
	POD_HOLDER=
}
