#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# download6: download.sh over IPv6, from [$PT_srv6]:$PT_port; reported as
# download6, download6_sha...
# shellcheck disable=SC2034	# read by the script sourced below
pt_host="[$PT_srv6]"
pt_tag=6
. /tests/download.sh
