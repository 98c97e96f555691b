// SPDX-License-Identifier: GPL-2.0-or-later
/* udp.c - UDP flows between the guest and host sockets
 *
 * Theory of operation: a datagram from the guest to a peer finds or creates a
 * flow with its own socket, bound to the guest's source port where the host
 * has it free (peers may answer to that port alone), connected to the peer
 * (the gateway address means the host's loopback), so replies from that peer come back on it and go to
 * the guest from the address it wrote to. A datagram to a forwarded port (-u)
 * arrives on the port's shared socket; it creates an inbound flow keyed by
 * the sender, and the guest's replies leave through the same shared socket
 * with sendto(), so the sender sees them come from the port it used. Flows
 * expire after UDP_IDLE_TIMEOUT_MS without traffic either way (flow_timer()).
 */

#include <errno.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "dhcp.h"
#include "dhcpv6.h"
#include "flow.h"
#include "flow_table.h"
#include "fwd.h"
#include "ip.h"
#include "log.h"
#include "passt.h"
#include "tap.h"
#include "udp.h"

#define UDP_BATCH		32
#define UDP_MAX_PAYLOAD		(65535 - 8)

static uint8_t udp_frame[FRAME_BUF_SIZE] __attribute__((aligned(8)));

/**
 * udp_tap_send() - send a datagram to the guest
 * @c:		execution context
 * @buf:	frame buffer, payload already after the UDP header at
 *		FRAME_L4_OFF
 * @src:	source address
 * @sport:	source port
 * @dst:	destination address, of the same family
 * @dport:	destination port
 * @len:	payload length
 */
void udp_tap_send(struct ctx *c, uint8_t *buf, const union inany_addr *src,
		  uint16_t sport, const union inany_addr *dst, uint16_t dport,
		  size_t len)
{
	size_t l4_len = sizeof(struct udphdr) + len;
	struct udphdr *uh = (struct udphdr *)(buf + FRAME_L4_OFF);
	struct iovec frame = ip_frame(c, buf, src, dst, IPPROTO_UDP, l4_len);

	uh->source = htons(sport);
	uh->dest = htons(dport);
	uh->len = htons(l4_len);
	uh->check = 0;
	uh->check = ip_l4_csum(c, uh, l4_len, src, dst, IPPROTO_UDP);
	tap_send_frames(c, &frame, 1);
}

/**
 * udp_to_tap() - send a datagram to the guest from the flow's peer
 * @c:		execution context
 * @uf:		flow
 * @len:	payload length, payload already in udp_frame
 */
static void udp_to_tap(struct ctx *c, struct udp_flow *uf, size_t len)
{
	udp_tap_send(c, udp_frame, &uf->f.key.paddr, uf->f.key.pport,
		     &uf->f.key.gaddr, uf->f.key.gport, len);
	uf->dgrams_to_tap++;
	uf->f.active_at = c->now;
}

/**
 * udp_flow_new() - allocate and register a flow
 * @c:		execution context
 * @key:	flow key
 * @s:		socket, -1 to create and connect one (outbound)
 *
 * Return: flow, or NULL on failure (logged)
 */
static struct udp_flow *udp_flow_new(struct ctx *c, const struct flow_key *key,
				     int s)
{
	char str[FLOW_STRLEN];
	struct udp_flow *uf;
	int idx = flow_alloc();

	if (idx < 0) {
		pkt_drop(DROP_FLOW_TABLE_FULL);
		err_ratelimit("UDP: flow table full, dropping %s",
			      flow_str(key, str, sizeof(str)));
		return NULL;
	}
	uf = &flowtab[idx].udp;
	uf->f.type = FLOW_UDP;
	uf->f.key = *key;
	uf->f.active_at = c->now;
	uf->sock = s;
	uf->inbound = s >= 0;

	if (!uf->inbound) {
		union sockaddr_inany sa;
		socklen_t sl;

		s = ip_flow_sock(c, SOCK_DGRAM, IPPROTO_UDP, &key->paddr,
				 key->pport, key->gport, &sa, &sl);
		if (s < 0 || connect(s, &sa.sa, sl)) {
			err_ratelimit("UDP: socket for %s: %s",
				      flow_str(key, str, sizeof(str)),
				      strerror(s < 0 ? -s : errno));
			if (s >= 0)
				close(s);
			uf->sock = -1;
			flow_close(idx);
			return NULL;
		}
		uf->sock = s;
		epoll_ref_add(c, s, EPOLL_TYPE_UDP, idx, EPOLLIN);
	}
	flow_hash_insert(idx);
	return uf;
}

static const struct in6_addr dhcpv6_servers = {
	.s6_addr = { 0xff, 0x02, [13] = 1, [15] = 2 },	/* ff02::1:2 */
};

/**
 * udp_dhcp_input() - hand DHCP and DHCPv6 requests to their servers
 * @c:		execution context
 * @l3:		addresses
 * @uh:		UDP header
 * @v:		payload, trimmed to the UDP length
 *
 * Return: true if the datagram was for one of them
 */
static bool udp_dhcp_input(struct ctx *c, const struct l3_info *l3,
			   const struct udphdr *uh, struct pkt_view v)
{
	/* DHCP from the guest, broadcast or to us, is ours to answer */
	if (!c->no_dhcp &&
	    ntohs(uh->dest) == DHCP_SERVER_PORT &&
	    ntohs(uh->source) == DHCP_CLIENT_PORT &&
	    (inany_equals4(&l3->dst, (struct in_addr){ htonl(INADDR_BROADCAST) }) ||
	     inany_equals4(&l3->dst, c->gw4))) {
		dhcp_input(c, v);
		return true;
	}
	/* DHCPv6, to all servers on the link or to us (RFC 8415, 7.1) */
	if (!c->no_dhcpv6 && ntohs(uh->dest) == DHCPV6_SERVER_PORT &&
	    ntohs(uh->source) == DHCPV6_CLIENT_PORT &&
	    (inany_equals6(&l3->dst, &dhcpv6_servers) ||
	     inany_equals6(&l3->dst, &c->ll6_ours))) {
		dhcpv6_input(c, l3, v);
		return true;
	}
	return false;
}

/**
 * udp_tap_input() - handle a UDP datagram from the guest
 * @c:		execution context
 * @l3:		addresses, checked
 * @l4:		view of the IP payload
 */
void udp_tap_input(struct ctx *c, const struct l3_info *l3,
		   struct pkt_view l4)
{
	struct flow_key key = { .proto = IPPROTO_UDP };
	const struct udphdr *uh = pkt_pull(&l4, sizeof(*uh));
	struct udp_flow *uf;
	ssize_t n;
	int idx;

	if (!uh || ntohs(uh->len) < sizeof(*uh) ||
	    ntohs(uh->len) - sizeof(*uh) > l4.len) {
		pkt_drop(DROP_UDP_MALFORMED);
		return;
	}
	l4.len = ntohs(uh->len) - sizeof(*uh);	/* trim to UDP length */

	if (udp_dhcp_input(c, l3, uh, l4))
		return;
	if (inany_is_multicast(&l3->dst)) {
		pkt_drop(DROP_MULTICAST_DST);
		return;
	}

	key.gaddr = l3->src;
	key.paddr = l3->dst;
	key.gport = ntohs(uh->source);
	key.pport = ntohs(uh->dest);
	if (!key.pport || !key.gport) {
		pkt_drop(DROP_UDP_MALFORMED);
		return;
	}

	idx = flow_lookup(&key);
	uf = idx >= 0 ? &flowtab[idx].udp : udp_flow_new(c, &key, -1);
	if (!uf)
		return;

	if (uf->inbound) {
		n = sendto(uf->sock, l4.data, l4.len, MSG_DONTWAIT,
			   &uf->peer.sa, uf->peer_len);
	} else {
		n = send(uf->sock, l4.data, l4.len, MSG_DONTWAIT);
	}
	if (n < 0)
		debug("UDP: send: %s", strerror(errno));
	uf->dgrams_from_tap++;
	uf->f.active_at = c->now;
}

/**
 * udp_payload_max() - largest datagram the guest's MTU takes for a flow
 * @c:		execution context
 * @uf:		flow
 *
 * Return: MTU less the IP and UDP headers of the flow's family
 */
static size_t udp_payload_max(const struct ctx *c, const struct udp_flow *uf)
{
	size_t ip_hlen = inany_is_v4(&uf->f.key.gaddr) ?
			 sizeof(struct iphdr) : sizeof(struct ipv6hdr);

	return MIN((size_t)UDP_MAX_PAYLOAD,
		   c->mtu - ip_hlen - sizeof(struct udphdr));
}

/**
 * udp_inbound_flow() - the flow of a datagram to a forwarded port
 * @c:		execution context
 * @l:		the forwarded port's socket
 * @sa:		sender
 * @sl:		length of @sa
 *
 * Return: flow, found or new, NULL if the guest can't have it
 */
static struct udp_flow *udp_inbound_flow(struct ctx *c,
					 const struct fwd_listener *l,
					 const union sockaddr_inany *sa,
					 socklen_t sl)
{
	struct flow_key key = { .proto = IPPROTO_UDP };
	struct udp_flow *uf;
	int idx;

	if (inany_from_sockaddr(&key.paddr, &key.pport, sa) ||
	    !ip_guest_addr(c, inany_family(&key.paddr), &key.gaddr))
		return NULL;
	key.gport = l->to;
	ip_inbound_peer(c, &key.paddr);
	idx = flow_lookup(&key);
	uf = idx >= 0 ? &flowtab[idx].udp : udp_flow_new(c, &key, l->fd);
	if (!uf)
		return NULL;
	uf->host_port = l->port;
	uf->peer = *sa;
	uf->peer_len = sl;
	return uf;
}

/**
 * udp_recv_to_tap() - read datagrams from a socket and send them to the guest
 * @c:		execution context
 * @s:		socket
 * @uf:		flow, or NULL for a forwarded port's socket: found by sender
 * @l:		forwarded port's socket, if @uf is NULL
 */
static void udp_recv_to_tap(struct ctx *c, int s, struct udp_flow *uf,
			    const struct fwd_listener *l)
{
	uint8_t *payload = udp_frame + FRAME_L4_OFF + sizeof(struct udphdr);
	size_t max = MIN((size_t)UDP_MAX_PAYLOAD,
			 (size_t)c->mtu - sizeof(struct iphdr) -
			 sizeof(struct udphdr));
	bool shared = !uf;
	int i;

	for (i = 0; i < UDP_BATCH; i++) {
		union sockaddr_inany sa;
		socklen_t sl = sizeof(sa);
		ssize_t n;

		n = recvfrom(s, payload, max, MSG_DONTWAIT | MSG_TRUNC,
			     &sa.sa, &sl);
		if (n < 0)
			return;
		if (shared && !(uf = udp_inbound_flow(c, l, &sa, sl)))
			continue;
		if ((size_t)n > udp_payload_max(c, uf))
			continue;	/* larger than the guest's MTU */
		udp_to_tap(c, uf, n);
	}
}

/**
 * udp_sock_handler() - datagrams on an outbound flow's socket
 * @c:		execution context
 * @ref:	epoll reference
 * @events:	epoll events
 */
void udp_sock_handler(struct ctx *c, union epoll_ref ref, uint32_t events)
{
	struct udp_flow *uf = &flowtab[ref.index].udp;

	if (uf->f.type != FLOW_UDP || uf->f.closing || uf->sock != ref.fd)
		return;
	if (events & EPOLLERR) {
		int err;
		socklen_t sl = sizeof(err);

		/* ICMP errors surface here: log and keep the flow */
		getsockopt(ref.fd, SOL_SOCKET, SO_ERROR, &err, &sl);
		debug("UDP: socket error: %s", strerror(err));
	}
	if (events & EPOLLIN)
		udp_recv_to_tap(c, ref.fd, uf, NULL);
}

/**
 * udp_listen_handler() - datagrams on a forwarded port's socket
 * @c:		execution context
 * @ref:	epoll reference, index is the forwarded port's listener
 * @events:	epoll events
 */
void udp_listen_handler(struct ctx *c, union epoll_ref ref, uint32_t events)
{
	const struct fwd_listener *l = fwd_listener_at(ref.index);

	if ((events & EPOLLIN) && l->fd == ref.fd)
		udp_recv_to_tap(c, ref.fd, NULL, l);
}

/**
 * udp_flow_free() - release a closed flow's socket, unless shared
 * @c:		execution context
 * @idx:	flow index
 */
void udp_flow_free(struct ctx *c, int idx)
{
	struct udp_flow *uf = &flowtab[idx].udp;

	if (!uf->inbound && uf->sock >= 0) {
		epoll_ref_del(c, uf->sock);
		close(uf->sock);
	}
}

/**
 * udp_init() - bind forwarded ports
 * @c:		execution context
 */
void udp_init(struct ctx *c)
{
	fwd_listen(c, c->fwd_udp, SOCK_DGRAM, EPOLL_TYPE_UDP_LISTEN);
}
