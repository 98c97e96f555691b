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
 * expire without traffic (flow_timer()): after UDP_IDLE_TIMEOUT_MS once
 * answered, sooner if the side the first datagram went to never sent one
 * back (flow_dgram_seen()): for the guest's flows the peer, for inbound ones
 * the guest, for spliced ones the loopback side they go to. An inbound flow
 * idle for UDP_EVICT_IDLE_MS may make room for a new one (flow_evict()).
 * A query to --dns-forward goes to the host's resolver resolv.c picks; its
 * flow notes which, so that resolv.c learns whether it answers, ends with the
 * answer to its last query (its socket with it: a resolver in the guest
 * uses a new port for every query), and ends once resolv.c moves to another
 * resolver (udp_dns_moved()).
 */

#include <errno.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "flow.h"
#include "flow_table.h"
#include "fwd.h"
#include "icmp_err.h"
#include "ip.h"
#include "log.h"
#include "passt.h"
#include "pasta.h"
#include "resolv.h"
#include "splice.h"
#include "link.h"
#include "udp.h"

#define UDP_BATCH		32
#define UDP_MAX_PAYLOAD		(65535 - 8)
#define UDP_EVICT_IDLE_MS	1000	/* see udp_flow_evictable() */

static uint8_t udp_frame[FRAME_BUF_SIZE] __attribute__((aligned(8)));
static uint64_t udp_dns_closed;		/* see udp_dns_answered() */

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
	struct link_frame frame;

	uh->source = htons(sport);
	uh->dest = htons(dport);
	uh->len = htons(l4_len);
	frame = ip_frame(c, buf, src, dst, IPPROTO_UDP, l4_len);
	link_send(c, &frame, 1);
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
}

/**
 * udp_src_cmsg() - ask for a datagram's source address, where we know it
 * @mh:		message: its control buffer set, or emptied
 * @cbuf:	control buffer, room for one IPV6_PKTINFO
 * @src:	source address, unspecified or multicast to let the kernel
 *		choose
 */
static void udp_src_cmsg(struct msghdr *mh, char *cbuf,
			 const union inany_addr *src)
{
	const struct in_addr *v4 = inany_v4(src);
	struct cmsghdr *cm = (struct cmsghdr *)cbuf;

	mh->msg_control = NULL;
	mh->msg_controllen = 0;
	if (!inany_is_set(src) || inany_is_multicast(src))
		return;
	mh->msg_control = cbuf;
	if (v4) {
		struct in_pktinfo pi = { .ipi_spec_dst = *v4 };

		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		mh->msg_controllen = CMSG_SPACE(sizeof(pi));
	} else {
		struct in6_pktinfo pi = { .ipi6_addr = src->a6 };

		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
		mh->msg_controllen = CMSG_SPACE(sizeof(pi));
	}
}

/**
 * udp_to_sender() - send a datagram back to whoever wrote to a forwarded port
 * @uf:		flow, started by a datagram to a forwarded port
 * @buf:	payload
 * @len:	its length
 *
 * The datagram leaves through that port's socket, from the address and
 * port the sender used (a client of 127.0.0.2 hears from 127.0.0.2). If the
 * port is no longer forwarded ("auto" released it), or now forwards
 * elsewhere, the flow has nowhere to answer and ends.
 */
static void udp_to_sender(struct udp_flow *uf, const void *buf, size_t len)
{
	const struct fwd_listener *l = fwd_listener_at(uf->listen_idx);
	char cbuf[CMSG_SPACE(sizeof(struct in6_pktinfo))]
		__attribute__((aligned(__alignof__(struct cmsghdr))));
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_name = &uf->peer,
			     .msg_namelen = uf->peer_len,
			     .msg_iov = &iov, .msg_iovlen = 1 };

	if (l->fd != uf->listen_fd || l->to != uf->f.key.gport ||
	    (inany_is_set(&l->taddr) &&
	     !inany_equals(&l->taddr, &uf->f.key.gaddr))) {
		flow_close((union flow *)uf - flowtab);
		return;
	}
	udp_src_cmsg(&mh, cbuf, &uf->local);
	if (sendmsg(uf->listen_fd, &mh, MSG_DONTWAIT) < 0)
		debug("UDP: sendmsg to sender: %s", strerror(errno));
}

/**
 * udp_flow_new() - allocate and register a flow
 * @c:		execution context
 * @key:	flow key
 * @s:		our own socket, created, not connected yet (outbound, spliced),
 *		or -1 (inbound with the guest)
 * @dst:	where @s connects to
 * @dl:		length of @dst
 *
 * Return: flow, or NULL on failure (logged; @s is closed)
 */
static struct udp_flow *udp_flow_new(struct ctx *c, const struct flow_key *key,
				     int s, const union sockaddr_inany *dst,
				     socklen_t dl)
{
	/* Started by a sender on the host's side (it may be spoofed), or by
	 * the guest
	 */
	enum flow_budget b = s < 0 || key->spliced ? FLOW_BUDGET_UDP_IN :
						     FLOW_BUDGET_UDP_OUT;
	int idx = flow_alloc(c, b);
	char str[FLOW_STRLEN];
	struct udp_flow *uf;

	if (idx < 0) {
		pkt_drop(DROP_FLOW_TABLE_FULL);
		err_ratelimit("UDP: no room for flows like %s, dropping it",
			      flow_str(key, str, sizeof(str)));
		if (s >= 0)
			close(s);
		return NULL;
	}
	uf = &flowtab[idx].udp;
	uf->f.type = FLOW_UDP;
	uf->f.key = *key;
	uf->f.active_at = c->now;
	uf->sock = s;
	uf->listen_fd = -1;
	uf->dns_up = -1;
	uf->sent_as = ICMP_ERR_MIRROR_INIT;

	if (s >= 0 && dst) {
		if (connect(s, &dst->sa, dl)) {
			err_ratelimit("UDP: connect for %s: %s",
				      flow_str(key, str, sizeof(str)),
				      strerror(errno));
			flow_close(idx);
			return NULL;
		}
		epoll_ref_add(c, s, EPOLL_TYPE_UDP, idx, EPOLLIN);
	}
	flow_hash_insert(idx);
	return uf;
}

/**
 * udp_flow_adopt() - an outbound flow on a socket migration brought here,
 *		      frozen until the guest runs here (udp_flow_resume())
 * @c:		execution context
 * @key:	flow key, not in the table
 * @s:		the flow's socket, connected to its peer; closed on failure
 *
 * Return: flow index, -1 if the table is full
 */
int udp_flow_adopt(struct ctx *c, const struct flow_key *key, int s)
{
	struct udp_flow *uf = udp_flow_new(c, key, s, NULL, 0);

	if (!uf)
		return -1;
	uf->f.frozen = true;
	uf->dns_up = ip_dns_up(c, &key->paddr, key->pport);
	uf->dns_gen = resolv_up_gen();
	return FLOW_IDX_OF(uf);
}

/**
 * udp_flow_resume() - put a frozen flow to work: brought here, or given
 *		       back by a move that failed
 * @c:		execution context
 * @idx:	flow index
 */
static void udp_flow_resume(struct ctx *c, int idx)
{
	flow_dgram_resume(c, idx, EPOLL_TYPE_UDP);
}

/**
 * udp_outbound_flow() - a flow for a datagram from the guest to a peer
 * @c:		execution context
 * @key:	flow key
 *
 * Return: flow, NULL on failure (logged)
 */
static struct udp_flow *udp_outbound_flow(struct ctx *c,
					  const struct flow_key *key)
{
	union sockaddr_inany sa;
	char str[FLOW_STRLEN];
	struct udp_flow *uf;
	socklen_t sl;
	int s;

	s = ip_flow_sock(c, SOCK_DGRAM, IPPROTO_UDP, &key->paddr, key->pport,
			 key->gport, &sa, &sl);
	if (s < 0) {
		err_ratelimit("UDP: socket for %s: %s",
			      flow_str(key, str, sizeof(str)), strerror(-s));
		return NULL;
	}
	icmp_err_watch(s, key);
	uf = udp_flow_new(c, key, s, &sa, sl);
	if (uf) {
		uf->dns_up = ip_dns_up(c, &key->paddr, key->pport);
		uf->dns_gen = resolv_up_gen();
	}
	return uf;
}

/**
 * udp_dns_moved() - does a --dns-forward flow go to a resolver we left?
 * @c:		execution context
 * @uf:		flow
 *
 * resolv.conf changed, or the flow's resolver didn't answer in time: the
 * guest's next query, if it comes from the same port, gets a new flow to
 * the resolver we use now.
 *
 * Return: true if it does
 */
static bool udp_dns_moved(const struct ctx *c, const struct udp_flow *uf)
{
	return uf->dns_up >= 0 && (uf->dns_gen != resolv_up_gen() ||
				   uf->dns_up != resolv_up_pick(c));
}

/**
 * udp_to_peer() - send the guest's datagram on its outbound flow's socket
 * @c:		execution context
 * @uf:		flow
 * @l3:		the datagram's hop limit, and whether it may be fragmented
 * @data:	payload
 */
static void udp_to_peer(struct ctx *c, struct udp_flow *uf,
			const struct l3_info *l3, struct pkt_view data)
{
	if (icmp_err_send(c, uf->sock, &uf->f.key, &uf->sent_as, l3, data)) {
		debug("UDP: send: %s", strerror(errno));
	} else if (uf->dns_up >= 0) {
		resolv_up_sent(c, uf->dns_up);
		uf->dns_queries++;
	}
}

/**
 * udp_tap_input() - relay a UDP datagram from the guest
 * @c:		execution context
 * @l3:		addresses, checked
 * @sport:	source port
 * @dport:	destination port
 * @data:	the payload, trimmed to the UDP length (input.c)
 */
void udp_tap_input(struct ctx *c, const struct l3_info *l3, uint16_t sport,
		   uint16_t dport, struct pkt_view data)
{
	struct flow_key key = { .proto = IPPROTO_UDP };
	struct udp_flow *uf;
	int idx;

	key.gaddr = l3->src;
	key.paddr = l3->dst;
	key.gport = sport;
	key.pport = dport;

	idx = flow_lookup(&key);
	if (idx >= 0 && udp_dns_moved(c, &flowtab[idx].udp)) {
		flow_close(idx);
		idx = -1;
	}
	uf = idx >= 0 ? &flowtab[idx].udp : udp_outbound_flow(c, &key);
	if (!uf)
		return;
	if (uf->listen_fd >= 0)
		udp_to_sender(uf, data.data, data.len);
	else
		udp_to_peer(c, uf, l3, data);
	/* The guest answers an inbound flow */
	flow_dgram_seen(&uf->f, c->now, uf->listen_fd >= 0);
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
 * struct udp_rx - a datagram on a forwarded port: who sent it, and to what
 * @sa:		sender
 * @sl:		length of @sa
 * @dst:	the address it was sent to (IP_PKTINFO), unspecified if the
 *		socket didn't say
 */
struct udp_rx {
	union sockaddr_inany sa;
	socklen_t sl;
	union inany_addr dst;
};

/**
 * udp_listener_set() - note the forwarded port's socket a flow came in on
 * @uf:		flow
 * @lidx:	listener index
 * @rx:		the datagram that came: sender, and the address it used
 */
static void udp_listener_set(struct udp_flow *uf, uint32_t lidx,
			     const struct udp_rx *rx)
{
	uf->listen_fd = fwd_listener_at(lidx)->fd;
	uf->listen_idx = lidx;
	uf->peer = rx->sa;
	uf->peer_len = rx->sl;
	uf->local = rx->dst;
}

/**
 * udp_inbound_flow() - the flow with the guest of a datagram to a -u port
 * @c:		execution context
 * @lidx:	the forwarded port's listener index
 * @rx:		the datagram's sender and destination
 *
 * A multicast destination is kept (mDNS, as upstream): the guest's
 * responder sees a query to its group, not to its address.
 *
 * Return: flow, found or new, NULL if the guest can't have it
 */
static struct udp_flow *udp_inbound_flow(struct ctx *c, uint32_t lidx,
					 const struct udp_rx *rx)
{
	const struct fwd_listener *l = fwd_listener_at(lidx);
	struct flow_key key = { .proto = IPPROTO_UDP };
	struct udp_flow *uf;
	int idx;

	if (inany_from_sockaddr(&key.paddr, &key.pport, &rx->sa))
		return NULL;
	if (inany_is_multicast(&rx->dst) &&
	    inany_family(&rx->dst) == inany_family(&key.paddr) &&
	    ip_family_on(inany_family(&rx->dst)))
		key.gaddr = rx->dst;
	else if (!fwd_guest_dest(l, inany_family(&key.paddr), &key.gaddr))
		return NULL;
	key.gport = l->to;
	ip_inbound_peer(c, &key.paddr);
	idx = flow_lookup(&key);
	uf = idx >= 0 ? &flowtab[idx].udp : udp_flow_new(c, &key, -1, NULL, 0);
	if (uf)
		udp_listener_set(uf, lidx, rx);
	return uf;
}

/**
 * udp_spliced_flow() - the spliced flow of a datagram to a -u or -U port
 * @c:		execution context
 * @lidx:	the forwarded port's listener index
 * @rx:		the datagram's sender and destination
 * @from:	FLOW_SPLICED_FROM_HOST (-u) or FLOW_SPLICED_FROM_NS (-U)
 * @to:		address on the other side
 *
 * Return: flow, found or new, NULL on failure (logged)
 */
static struct udp_flow *udp_spliced_flow(struct ctx *c, uint32_t lidx,
					 const struct udp_rx *rx,
					 enum flow_spliced from,
					 const union inany_addr *to)
{
	struct flow_key key = { .proto = IPPROTO_UDP, .spliced = from };
	union sockaddr_inany dst;
	struct udp_flow *uf;
	int idx, family, s;

	if (inany_from_sockaddr(&key.paddr, &key.pport, &rx->sa))
		return NULL;
	key.gaddr = *to;
	key.gport = fwd_listener_at(lidx)->to;
	idx = flow_lookup(&key);
	if (idx >= 0)
		return &flowtab[idx].udp;

	family = inany_family(to);
	if (from == FLOW_SPLICED_FROM_NS)
		s = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	else
		s = pasta_ns_socket(c, family, SOCK_DGRAM);
	if (s < 0) {
		err_ratelimit("UDP: no socket to splice to port %u",
			      key.gport);
		return NULL;
	}
	uf = udp_flow_new(c, &key, s, &dst,
			  sockaddr_from_inany(&dst, &key.gaddr, key.gport, 0));
	if (uf)
		udp_listener_set(uf, lidx, rx);
	return uf;
}

/**
 * udp_listen_recv() - read a datagram on a forwarded port, and where to
 * @fd:		the port's socket (IP_PKTINFO, IPV6_RECVPKTINFO on)
 * @buf:	payload, UDP_MAX_PAYLOAD bytes
 * @rx:		sender and destination, set
 *
 * Return: payload length, -1 if none is left
 */
static ssize_t udp_listen_recv(int fd, uint8_t *buf, struct udp_rx *rx)
{
	char cbuf[CMSG_SPACE(sizeof(struct in_pktinfo)) +
		  CMSG_SPACE(sizeof(struct in6_pktinfo))];
	struct iovec iov = { buf, UDP_MAX_PAYLOAD };
	struct msghdr mh = { .msg_name = &rx->sa, .msg_namelen = sizeof(rx->sa),
			     .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	ssize_t n;

	n = recvmsg(fd, &mh, MSG_DONTWAIT);
	if (n < 0)
		return -1;
	rx->sl = mh.msg_namelen;
	memset(&rx->dst, 0, sizeof(rx->dst));
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == IPPROTO_IP &&
		    cm->cmsg_type == IP_PKTINFO) {
			const struct in_pktinfo *pi = (void *)CMSG_DATA(cm);

			inany_from_v4(&rx->dst, pi->ipi_addr);
		} else if (cm->cmsg_level == IPPROTO_IPV6 &&
			   cm->cmsg_type == IPV6_PKTINFO) {
			const struct in6_pktinfo *pi = (void *)CMSG_DATA(cm);

			rx->dst.a6 = pi->ipi6_addr;
		}
	}
	return n;
}

/**
 * udp_splice_dst() - should a datagram be spliced, and where to
 * @c:		execution context
 * @l:		its port's listener
 * @from_ns:	a -U port's, in the namespace
 * @rx:		its sender and destination
 * @to:		the address on the other side, set if spliced
 *
 * Return: true for a -U port's (to the loopback address the sender used,
 *	   kept on the host), and for a -u port's as splice_inbound() says
 *	   unless the port has a target address
 */
static bool udp_splice_dst(const struct ctx *c, const struct fwd_listener *l,
			   bool from_ns, const struct udp_rx *rx,
			   union inany_addr *to)
{
	union inany_addr client;
	uint16_t port;

	if (inany_from_sockaddr(&client, &port, &rx->sa))
		return false;
	if (!from_ns)
		return !inany_is_set(&l->taddr) &&
		       splice_inbound(c, &client, &rx->dst, to);
	*to = rx->dst;
	if (!inany_is_loopback(to))
		inany_loopback(to, inany_family(&client));
	return true;
}

/**
 * udp_listen_handler() - datagrams on a forwarded port's socket
 * @c:		execution context
 * @ref:	epoll reference, index is the forwarded port's listener
 * @events:	epoll events
 *
 * A -U port's datagrams are all spliced to the host; a -u port's are
 * spliced into the namespace as splice_inbound() says (pasta, a port
 * without a target address), and go to the guest otherwise.
 */
void udp_listen_handler(struct ctx *c, union epoll_ref ref, uint32_t events)
{
	uint8_t *payload = udp_frame + FRAME_L4_OFF + sizeof(struct udphdr);
	const struct fwd_listener *l = fwd_listener_at(ref.index);
	bool from_ns = ref.type == EPOLL_TYPE_UDP_NS_LISTEN;
	int i;

	if (!(events & EPOLLIN))
		return;
	for (i = 0; i < UDP_BATCH && l->fd == ref.fd; i++) {
		union inany_addr to;
		struct udp_flow *uf;
		struct udp_rx rx;
		ssize_t n;

		n = udp_listen_recv(ref.fd, payload, &rx);
		if (n < 0)
			return;
		if (!udp_splice_dst(c, l, from_ns, &rx, &to)) {
			uf = udp_inbound_flow(c, ref.index, &rx);
			if (!uf)
				continue;
			if ((size_t)n <= udp_payload_max(c, uf))
				udp_to_tap(c, uf, n);
			flow_dgram_seen(&uf->f, c->now, false);
			continue;
		}
		uf = udp_spliced_flow(c, ref.index, &rx, from_ns ?
				      FLOW_SPLICED_FROM_NS :
				      FLOW_SPLICED_FROM_HOST, &to);
		if (!uf)
			continue;
		if (send(uf->sock, payload, n, MSG_DONTWAIT) < 0)
			debug("UDP: splice send: %s", strerror(errno));
		flow_dgram_seen(&uf->f, c->now, false);
	}
}

/**
 * udp_dns_answered() - end a --dns-forward flow with its last answer
 * @uf:		flow, a datagram from its peer just relayed
 */
static void udp_dns_answered(struct udp_flow *uf)
{
	if (uf->dns_up < 0 || !uf->dns_queries || --uf->dns_queries)
		return;
	flow_close((union flow *)uf - flowtab);
	udp_dns_closed++;
}

/**
 * udp_sock_handler() - datagrams on a flow's own socket
 * @c:		execution context
 * @ref:	epoll reference
 * @events:	epoll events
 *
 * The peer's answers go to the guest, or, spliced, to the sender on the
 * other side.
 */
void udp_sock_handler(struct ctx *c, union epoll_ref ref, uint32_t events)
{
	uint8_t *payload = udp_frame + FRAME_L4_OFF + sizeof(struct udphdr);
	struct udp_flow *uf = &flowtab[ref.index].udp;
	int i;

	if (uf->f.type != FLOW_UDP || uf->f.closing || uf->sock != ref.fd)
		return;
	if (events & EPOLLERR) {
		int err;
		socklen_t sl = sizeof(err);

		/* ICMP errors surface here: the guest's own, if it sent the
		 * datagram; else log them. The flow stays either way.
		 */
		for (i = 0; !uf->f.key.spliced && i < ICMP_ERR_BATCH &&
			    !icmp_err_to_tap(c, uf->sock, &uf->f.key, 0); i++)
			;
		if (!getsockopt(ref.fd, SOL_SOCKET, SO_ERROR, &err, &sl) &&
		    err)
			debug("UDP: socket error: %s", strerror(err));
	}
	for (i = 0; (events & EPOLLIN) && i < UDP_BATCH && !uf->f.closing;
	     i++) {
		ssize_t n = recv(ref.fd, payload, UDP_MAX_PAYLOAD,
				 MSG_DONTWAIT);

		if (n < 0)
			return;
		if (uf->dns_up >= 0 && uf->dns_gen == resolv_up_gen())
			resolv_up_answered(uf->dns_up);
		if (uf->f.key.spliced)
			udp_to_sender(uf, payload, n);
		else if ((size_t)n <= udp_payload_max(c, uf))
			udp_to_tap(c, uf, n);
		flow_dgram_seen(&uf->f, c->now, true);
		udp_dns_answered(uf);
	}
}

/**
 * udp_flow_free() - release a closed flow's own socket
 * @c:		execution context
 * @idx:	flow index
 */
static void udp_flow_free(struct ctx *c, int idx)
{
	struct udp_flow *uf = &flowtab[idx].udp;

	if (uf->sock >= 0) {
		epoll_ref_del(c, uf->sock);
		close(uf->sock);
	}
}

/**
 * udp_flow_evictable() - an inbound flow may make room once idle a while
 * @idx:	flow index, of the inbound budget (the only UDP one that evicts)
 * @now:	current time (ms)
 *
 * Its sender may be spoofed: a flood of them must not lock out flows that
 * exchange datagrams, which get a second chance.
 *
 * Return: FLOW_EVICT_LATER if active in the last UDP_EVICT_IDLE_MS,
 *	   FLOW_EVICT_NOW otherwise
 */
static enum flow_evict_verdict udp_flow_evictable(int idx, int64_t now)
{
	return now - flowtab[idx].f.active_at < UDP_EVICT_IDLE_MS ?
	       FLOW_EVICT_LATER : FLOW_EVICT_NOW;
}

/**
 * udp_flow_sock() - a flow's own socket
 * @idx:	flow index
 *
 * Return: socket, -1 for an inbound flow with the guest: its replies leave
 *	   through the forwarded port's shared socket
 */
static int udp_flow_sock(int idx)
{
	return flowtab[idx].udp.sock;
}

static const struct flow_type_ops udp_flow_ops = {
	.free		= udp_flow_free,
	.evictable	= udp_flow_evictable,
	.sock		= udp_flow_sock,
	.resume		= udp_flow_resume,
	.idle_ms	= UDP_IDLE_TIMEOUT_MS,
};

/**
 * udp_stats() - log UDP's counters (SIGUSR1)
 */
void udp_stats(void)
{
	info("UDP: --dns-forward flows ended on their answer: %llu",
	     (unsigned long long)udp_dns_closed);
}

/**
 * udp_init() - register UDP flows with the table
 */
void udp_init(void)
{
	flow_type_register(FLOW_UDP, &udp_flow_ops);
}
