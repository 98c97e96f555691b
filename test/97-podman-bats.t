#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Podman's own pasta tests, test/system/505-networking-pasta.bats of the
# Podman in the cached Debian 13 tree (5.4.2), run by Debian's bats as the
# tree's rootless user against the pasta under test, in namespace H of
# test/lib.sh's topology (the same Podman set-up as 97-podman.t: see
# test/podman/lib.sh).  One TAP line per bats case, with its name.
#
#   prove -v test/97-podman-bats.t                  # our pasta ($PASTA)
#   PODMAN_PASTA=/var/cache/pasta-test/trixie-rootfs/usr/bin/pasta \
#       prove -v test/97-podman-bats.t              # upstream's, reference
#   BATS_FILTER='IPv6 address' prove -v test/97-podman-bats.t
#                                                   # the cases matching an ERE
#
# What it needs besides 97-podman.t's tree: test/podman/bats-layer.sh's
# layer (Debian's bats and jq, and a stand-in for Podman's test image) and
# Podman's test/system files in $PODMAN_BATS_SRC (from Debian's source
# package, or put there by hand: test/podman/README.md).  Skipped when the
# tree, the layer or those files cannot be had.  Podman's helpers.bash is
# replaced by test/podman/bats-helpers.bash; nothing else is changed.
#
# H has what the file wants of a host: IPv4 and IPv6 addresses on veth0
# and default routes (to R); lo.  The resolver (dnsd.py in R) also answers
# l.root-servers.net, the name the DNS cases look up.  Each case runs as a
# bats run of its own (test/podman/bats-run.sh), bounded by CASE_SECS (90
# s); each podman call by PODMAN_TIMEOUT (60 s), the whole run by
# BATS_SECS (600 s).
#
# With our pasta, the cases it does not pass yet are TAP TODO tests (see
# TODO below): prove stays green and lists them under "TODO passed" once
# they pass; PODMAN_TODO=0 makes them count.

. "$(dirname "$0")/lib.sh"
. "$TESTDIR/podman/lib.sh"
lib_init
pod_need

BATS_FILE=505-networking-pasta.bats
BATS_SECS=${BATS_SECS:-600}
CASE_SECS=${CASE_SECS:-90}
TESTIMAGE=localhost/pastatest-testimage:latest
PODMAN_BATS_LAYER=${PODMAN_BATS_LAYER:-$(dirname "$PODMAN_ROOTFS")/podman-bats-layer}
export PODMAN_BATS_LAYER

# Cases our pasta fails for a known reason (not with upstream's)
declare -A TODO=(
)

# --- the tree, the layer, Podman's files: or skip ----------------------------
if [ "${PODMAN_NO_BUILD:-0}" != 1 ] &&
   ! timeout -k 10 1500 "$POD_HERE/rootfs.sh" >"$WORK/rootfs.log" 2>&1; then
	skip_all "the Podman tree could not be built ($(tail -n 1 "$WORK/rootfs.log"))"
fi
[ -f "$PODMAN_ROOTFS/.pasta-test-stamp" ] || skip_all "no Podman tree at $PODMAN_ROOTFS"
timeout -k 10 900 "$POD_HERE/bats-layer.sh" >"$WORK/layer.log" 2>&1
case $? in
0) ;;
3) skip_all "no $BATS_FILE: $(tail -n 1 "$WORK/layer.log")" ;;
*) skip_all "the bats layer could not be built ($(tail -n 1 "$WORK/layer.log"))" ;;
esac
SRC=$(sed -n 's/^bats-layer.sh: Podman.s system tests: //p' "$WORK/layer.log")
[ -f "$SRC/$BATS_FILE" ] || skip_all "no $BATS_FILE in '$SRC'"
sed 's/^/# /' "$WORK/layer.log"
(cd "$SRC" && sha256sum "$BATS_FILE" helpers.network.bash) | sed 's/^/# Podman file: /'

topo_create; ok $? "topology created" || done_testing
# shellcheck disable=SC2034  # read by pod_init (test/podman/lib.sh)
POD_LAYER=$PODMAN_BATS_LAYER/root
# shellcheck disable=SC2034
POD_DNS_MORE=l.root-servers.net
pod_init || done_testing
pod 60 import --change 'CMD ["/bin/sh"]' /opt/pasta-test/testimage.tar \
	"$TESTIMAGE" >"$WORK/testimage.out" 2>&1
ok $? "test image $TESTIMAGE imported" || { diag_file "$WORK/testimage.out"; done_testing; }

# The run directory: Podman's two files, our helpers.bash, the driver and
# the list of cases (BATS_FILTER: those whose names match that ERE)
B=$POD_SHARE/bats
mkdir -p "$B"
cp "$SRC/$BATS_FILE" "$SRC/helpers.network.bash" "$B/"
cp "$POD_HERE/bats-helpers.bash" "$B/helpers.bash"
cp "$POD_HERE/bats-run.sh" "$B/"
sed -n 's/^@test "\(.*\)" {$/\1/p' "$B/$BATS_FILE" |
	grep -E -- "${BATS_FILTER:-.}" >"$B/cases"
chmod -R a+rX "$B"
NCASES=$(wc -l <"$B/cases")
diag "$NCASES cases of $BATS_FILE, each bounded by $CASE_SECS s"

# relay - bats' TAP on stdin as our TAP lines (renumbered; a case's TODO
# mark added), its comments as they are; counts the cases in BATS_SEEN
relay() {
	local line rest name reason
	BATS_SEEN=0
	while IFS= read -r line; do
		case $line in
		1..*) ;;
		"ok "*|"not ok "*)
			BATS_SEEN=$((BATS_SEEN + 1))
			rest=${line#ok }; rest=${rest#not ok }
			name=${rest#* }
			if [[ "$name" == *" # skip"* ]]; then
				skip "${name%% # skip*}" "${name#* # skip}"
				continue
			fi
			reason=
			if [ "$POD_UPSTREAM" = 0 ] && [ "${PODMAN_TODO:-1}" != 0 ]; then
				reason=${TODO[${name% in [0-9]*ms}]:-}
			fi
			case $line in
			ok*) ok_todo 0 "$name" "$reason" ;;
			*) ok_todo 1 "$name" "$reason" ;;
			esac
			;;
		"#"*) echo "$line" ;;
		*) echo "# $line" ;;
		esac
	done
}

t0=$SECONDS
relay < <(pod_exec "$BATS_SECS" env PODMAN_TEST_IMAGE_FQN="$TESTIMAGE" \
	PODMAN_TIMEOUT=60 TMPDIR=/tmp /srv/share/bats/bats-run.sh \
	"/srv/share/bats/$BATS_FILE" /srv/share/bats/cases "$CASE_SECS" 2>&1)
is "$BATS_SEEN" "$NCASES" "a result for each case of $BATS_FILE, in $((SECONDS - t0)) s"

pod 30 ps -a --format '{{.Names}}' >"$WORK/ps.out" 2>&1
is "$(tr '\n' ' ' <"$WORK/ps.out")" "" "no container left"

echo "1..$_TAP_N"	# the plan at the end: bats' count is known only now
done_testing
