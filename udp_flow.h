/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UDP_FLOW_H
#define UDP_FLOW_H

#include <stdbool.h>
#include <netinet/in.h>
#include <stdint.h>

#include "flow.h"
#include "inany.h"

/**
 * struct udp_flow - one UDP flow between the guest and a host peer
 * @f:		common flow header
 * @sock:	connected socket (outbound), or the forwarded port's socket
 * @inbound:	started by a datagram to a forwarded port: @sock is shared,
 *		replies go out with sendto() to the peer
 * @host_port:	forwarded host port (inbound only)
 * @peer:	the sender's real address and port (inbound only): the key
 *		may show the gateway instead
 * @peer_len:	length of @peer
 * @dgrams_from_tap:	datagrams from the guest
 * @dgrams_to_tap:	datagrams to the guest
 */
struct udp_flow {
	struct flow_common f;
	int sock;
	bool inbound;
	uint16_t host_port;
	union sockaddr_inany peer;
	socklen_t peer_len;
	uint64_t dgrams_from_tap;
	uint64_t dgrams_to_tap;
};

#endif /* UDP_FLOW_H */
