#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# test/podman/holder.sh - the process that holds the mount namespace in
# which Podman runs (started by lib.sh's pod_init, as root, through
# `nsenter --net=/run/netns/H unshare --mount --propagation private`).
#
# Usage: holder.sh ROOTFS PODDIR UID SECS [LAYER]
#
# In its new mount namespace (private: nothing here is seen by the host,
# and every mount goes away with the namespace's last process) it builds
# the root Podman sees, then pivot_roots into it (chroot would not do:
# clone(CLONE_NEWUSER) fails inside a chroot):
#
#   /              overlay: ROOTFS (the cached tree, read-only lower
#                  layer), LAYER on top of it if given (read-only too:
#                  bats-layer.sh's additions) + PODDIR/upper (this run's
#                  changes)
#   /proc          a new proc
#   /sys           a new sysfs (H's network devices), with the host's
#                  /sys/fs/cgroup bound recursively (runc needs it)
#   /dev           the host's /dev (recursive bind: /dev/net/tun),
#                  /dev/shm a new tmpfs
#   /tmp, /run     new tmpfs; /tmp/xdgrun is the user's XDG_RUNTIME_DIR
#   /etc/resolv.conf   PODDIR/resolv.conf (the resolver in R)
#   $POD_PASTA_DIR PODDIR/pastabin, read-only: the pasta under test
#   /srv/share     PODDIR/share (files for the containers, and the
#                  holder's PID file, .holder.pid, once all is ready)
#   ~/.local/share/containers   PODDIR/storage (image store, per run)
#
# Then it sleeps (at most SECS) until it is killed; `nsenter --target PID
# --mount` puts a command into that root.

set -eu
ROOTFS=$1 PODDIR=$2 UID_=$3 SECS=$4 LOWER=$1
[ -n "${5:-}" ] && LOWER=$5:$ROOTFS
# shellcheck source=test/podman/config.sh
. "$(dirname "$0")/config.sh"

R=$PODDIR/root
mount -t overlay overlay \
	-o "lowerdir=$LOWER,upperdir=$PODDIR/upper,workdir=$PODDIR/work" "$R"
mount -t proc proc "$R/proc"
mount -t sysfs sysfs "$R/sys"
mount --rbind /sys/fs/cgroup "$R/sys/fs/cgroup"
mount --rbind /dev "$R/dev"
mount -t tmpfs -o mode=1777 tmpfs "$R/dev/shm"
mount -t tmpfs -o mode=1777 tmpfs "$R/tmp"
mount -t tmpfs -o mode=0755 tmpfs "$R/run"
mount --bind "$PODDIR/pastabin" "$R$POD_PASTA_DIR"
mount -o remount,bind,ro "$R$POD_PASTA_DIR"
mount --bind "$PODDIR/share" "$R/srv/share"
mount --bind "$PODDIR/storage" "$R/home/$POD_USER/.local/share/containers"
cat "$PODDIR/resolv.conf" >"$R/etc/resolv.conf"
install -d -m 0700 -o "$UID_" -g "$UID_" "$R/tmp/xdgrun"

mkdir -p "$R/.oldroot"
cd "$R"
pivot_root . .oldroot
cd /
umount -l /.oldroot
rmdir /.oldroot

echo $$ >/srv/share/.holder.pid.tmp
mv /srv/share/.holder.pid.tmp /srv/share/.holder.pid
exec sleep "$SECS"
