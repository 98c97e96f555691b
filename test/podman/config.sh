# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/podman/config.sh - settings shared by rootfs.sh (which bakes them
# into the cached root file system) and lib.sh (which relies on them).
# Changing anything here changes rootfs.sh's stamp: the tree is rebuilt.
# shellcheck disable=SC2034  # used by the files sourcing this

# Where the tree is cached (outside the git tree)
PODMAN_ROOTFS=${PODMAN_ROOTFS:-/var/cache/pasta-test/trixie-rootfs}

POD_SUITE=trixie
# Podman 5 and what it needs rootless on these hosts; libasan8/libubsan1
# run the ASan/UBSan build of our pasta (test/san/pasta, `make check`);
# socat (copied into the image) is the UDP echo server in a container
PODMAN_PACKAGES="podman passt runc uidmap catatonit iproute2 rootlesskit"
PODMAN_PACKAGES="$PODMAN_PACKAGES curl busybox procps socat libasan8 libubsan1"

# The rootless user inside the tree
POD_USER=podtest
POD_UID=1500

# helper_binaries_dir's first entry: the directory holding the pasta under
# test, bind-mounted read-only from the host at run time
POD_PASTA_DIR=/opt/pasta-test/bin
# The busybox image, as a tar for `podman import`
POD_IMAGE_TAR=/opt/pasta-test/busybox-image.tar
