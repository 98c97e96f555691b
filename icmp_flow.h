/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ICMP_FLOW_H
#define ICMP_FLOW_H

#include <stdint.h>

#include "flow.h"

/**
 * struct icmp_flow - an echo (ping) session of the guest on a ping socket
 * @f:		common flow header, gport is the guest's echo identifier
 * @sock:	ping socket (SOCK_DGRAM, IPPROTO_ICMP), connected to the peer
 */
struct icmp_flow {
	struct flow_common f;
	int sock;
};

#endif /* ICMP_FLOW_H */
