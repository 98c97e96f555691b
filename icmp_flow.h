/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef ICMP_FLOW_H
#define ICMP_FLOW_H

#include <stdint.h>

#include "flow.h"

/**
 * struct icmp_flow - an echo (ping) session of the guest on a ping socket
 * @f:		common flow header, gport is the guest's echo identifier
 * @sock:	ping socket (SOCK_DGRAM, IPPROTO_ICMP), connected to the peer
 * @ttl:	TTL (hop limit) it sends with: the guest's last one
 *		(icmp_err_ttl_set())
 */
struct icmp_flow {
	struct flow_common f;
	int sock;
	uint8_t ttl;
};

#endif /* ICMP_FLOW_H */
