#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# 87-vhost-user.t - passt --vhost-user end to end: test/95-passt-qemu.t's
# guest and checks (DHCP, SLAAC, DHCPv6, downloads, uploads and iperf3
# both ways and both families, a server behind -t, a second QEMU on the
# same passt, passt -1), with QEMU handing passt the guest's memory and
# virtio rings (-netdev vhost-user) instead of a stream socket

PASST_LINK=vhost-user exec "$(dirname "$0")/95-passt-qemu.t" "$@"
