/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef UDP_FLOW_H
#define UDP_FLOW_H

#include <stdbool.h>
#include <netinet/in.h>
#include <stdint.h>

#include "flow.h"
#include "icmp_err.h"
#include "inany.h"

/**
 * struct udp_flow - one UDP flow: the guest and a host peer, or, spliced,
 *		     two loopback peers on either side of pasta
 * @f:		common flow header
 * @sock:	our own socket, connected: to the peer (outbound), or, spliced,
 *		to the other side's loopback; -1 for an inbound flow with the
 *		guest
 * @listen_fd:	the forwarded port's socket the flow started on, -1 for an
 *		outbound one: replies leave through it with sendto() to @peer,
 *		so that the sender sees them come from the port it used
 * @listen_idx:	its listener index (it may close while the flow lives)
 * @peer:	the sender's real address and port (not outbound): the key
 *		may show the gateway instead
 * @peer_len:	length of @peer
 * @local:	the address @peer sent to, where replies come from;
 *		unspecified if unknown (and for outbound flows)
 * @dns_up:	a query to --dns-forward: the host's resolver it goes to,
 *		index in resolv.c's upstream list; -1 for any other flow
 * @dns_gen:	resolv_up_gen() then: the index means nothing in another list
 * @sent_as:	what of the guest's IP header the socket mirrors now
 * @dns_queries: queries sent to the resolver, not answered yet: the flow
 *		ends with the answer to the last one (a stub resolver may
 *		send A and AAAA queries from the same port at once)
 */
struct udp_flow {
	struct flow_common f;
	int sock;
	int listen_fd;
	uint32_t listen_idx;
	union sockaddr_inany peer;
	socklen_t peer_len;
	union inany_addr local;
	int dns_up;
	uint32_t dns_gen;
	uint32_t dns_queries;
	struct icmp_err_mirror sent_as;
};

#endif /* UDP_FLOW_H */
