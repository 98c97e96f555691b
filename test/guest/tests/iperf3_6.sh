#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# iperf3_6: iperf3.sh over IPv6, to $PT_srv6; reported as iperf3_up6,
# iperf3_down6, iperf3_up6_mbps...
# shellcheck disable=SC2034	# read by the script sourced below
pt_host=$PT_srv6
pt_tag=6
. /tests/iperf3.sh
