/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ICMP_FLOW_H
#define ICMP_FLOW_H

#include <stdint.h>

#include "flow.h"
#include "icmp_err.h"

/**
 * struct icmp_flow - an echo (ping) session of the guest on a ping socket
 * @f:		common flow header, gport is the guest's echo identifier
 * @sock:	ping socket (SOCK_DGRAM, IPPROTO_ICMP), connected to the peer
 * @sent_as:	what of the guest's IP header the socket mirrors now
 */
struct icmp_flow {
	struct flow_common f;
	int sock;
	struct icmp_err_mirror sent_as;
};

#endif /* ICMP_FLOW_H */
