// SPDX-License-Identifier: GPL-2.0-or-later
/* icmp_err.c - ICMP errors for the guest's datagrams and echo requests
 *
 * Theory of operation: a flow's host socket (UDP, ping) with IP_RECVERR
 * or IPV6_RECVERR has the errors ICMP brings back about what it sent
 * queued, with the datagram or echo request it sent. The guest gets the
 * same error, type and code (and MTU, or pointer), quoting its own packet
 * as it sent it: the flow's addresses and ports (the echo identifier the
 * guest chose, not the socket's), the payload the kernel kept. It comes
 * from the address the guest sent to when that is who answered (a closed
 * port: the guest's connected socket gets ECONNREFUSED), else from the
 * router that did (time exceeded, no route, too big); at most
 * ICMP_ERR_PER_S a second in all. Only flows that exist ever get one,
 * and only to the guest's own address and port.
 *
 * The guest's TTL (hop limit) goes out with its packets
 * (icmp_err_ttl_set()), so that traceroute's probes expire where they
 * should, and the routers' time exceeded comes back here: UDP datagrams,
 * echo requests, and a TCP SYN with a TTL below the default (traceroute
 * -T), until its connection is up (icmp_err_unwatch()).
 */

#include <errno.h>
#include <string.h>
#include <netinet/icmp6.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <linux/errqueue.h>
#include <linux/ipv6.h>

#include "checksum.h"
#include "flow.h"
#include "icmp_err.h"
#include "ip.h"
#include "link.h"
#include "log.h"
#include "passt.h"

#define ICMP_ERR_PER_S		100	/* errors to the guest, at most */
#define ICMP_ERR_HDR_LEN	8	/* type, code, checksum, 4 more bytes */
/* What an error quotes of the packet, at most (RFC 1812, 4.3.2.3: the
 * error in 576 bytes; RFC 4443, 2.4: in the minimum MTU, 1280), beyond
 * its IP header and 8 bytes of L4 header
 */
#define ICMP_ERR4_MAX		(576 - 2 * sizeof(struct iphdr) - 16)
#define ICMP_ERR6_MAX		(1280 - 2 * sizeof(struct ipv6hdr) - 16)

static uint8_t icmp_err_frame[FRAME_BUF_SIZE] __attribute__((aligned(8)));

/**
 * icmp_err_ipopt() - set an IP option of a flow's socket, in its family
 * @s:		socket
 * @key:	flow key
 * @opt4:	option, IPv4 (SOL_IP)
 * @opt6:	the same, IPv6 (SOL_IPV6)
 * @v:		value
 *
 * Return: 0 on success, -1 on failure (logged)
 */
static int icmp_err_ipopt(int s, const struct flow_key *key, int opt4,
			  int opt6, int v)
{
	bool v4 = inany_is_v4(&key->gaddr);

	if (setsockopt(s, v4 ? SOL_IP : SOL_IPV6, v4 ? opt4 : opt6, &v,
		       sizeof(v))) {
		debug("IP option %i to %i: %s", v4 ? opt4 : opt6, v,
		      strerror(errno));
		return -1;
	}
	return 0;
}

/**
 * icmp_err_watch() - have the kernel queue a flow socket's ICMP errors
 * @s:		socket, UDP or ping, of the flow's family
 * @key:	flow key
 */
void icmp_err_watch(int s, const struct flow_key *key)
{
	icmp_err_ipopt(s, key, IP_RECVERR, IPV6_RECVERR, 1);
}

/**
 * icmp_err_unwatch() - back to a socket's defaults: no error queue, the
 *			host's TTL
 * @s:		socket
 * @key:	flow key
 *
 * For a TCP connection whose SYN carried the guest's low TTL: once
 * connected, its segments must get there, and an ICMP error is no longer
 * the guest's business.
 */
void icmp_err_unwatch(int s, const struct flow_key *key)
{
	icmp_err_ipopt(s, key, IP_RECVERR, IPV6_RECVERR, 0);
	icmp_err_ipopt(s, key, IP_TTL, IPV6_UNICAST_HOPS, -1);
}

/**
 * icmp_err_ttl_set() - send with the guest's TTL (hop limit) from now on
 * @s:		flow's socket
 * @key:	flow key
 * @now:	TTL the socket sends with now
 * @ttl:	TTL or hop limit of the guest's packet
 *
 * One setsockopt() when it changes, none while it's the same.
 *
 * Return: TTL the socket sends with from now on
 */
uint8_t icmp_err_ttl_set(int s, const struct flow_key *key, uint8_t now,
			 uint8_t ttl)
{
	if (ttl == now || !ttl ||
	    icmp_err_ipopt(s, key, IP_TTL, IPV6_UNICAST_HOPS, ttl))
		return now;
	return ttl;
}

/**
 * icmp_err_quote() - the guest's packet as it sent it, after an ICMP header
 * @key:	flow key
 * @l4:		ICMP message: the header, then the quote, with the L4 header
 *		(ping) or the payload (UDP) the kernel gave back in place
 * @len:	length of what the kernel gave back, as it was sent
 * @quoted:	bytes of it the quote keeps
 * @seq:	TCP: the sequence number of the guest's segment
 *
 * Return: ICMP message length
 */
static size_t icmp_err_quote(const struct flow_key *key, uint8_t *l4,
			     size_t len, size_t quoted, uint32_t seq)
{
	const struct in_addr *g4 = inany_v4(&key->gaddr);
	size_t l3_len = g4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	uint8_t *q4 = l4 + ICMP_ERR_HDR_LEN + l3_len;
	size_t l4_len = len;

	if (key->proto == IPPROTO_UDP) {
		struct udphdr uh = {
			.source = htons(key->gport), .dest = htons(key->pport),
			.len = htons(sizeof(uh) + len),
		};

		memcpy(q4, &uh, sizeof(uh));
		l4_len += sizeof(uh);
		quoted += sizeof(uh);
	} else if (key->proto == IPPROTO_TCP) {
		/* The host's SYN given back: the guest's ports and sequence */
		uint16_t ports[2] = { htons(key->gport), htons(key->pport) };

		seq = htonl(seq);
		memcpy(q4, ports, sizeof(ports));
		memcpy(q4 + offsetof(struct tcphdr, seq), &seq, sizeof(seq));
	} else {
		uint16_t id = htons(key->gport);	/* not the socket's */

		memcpy(q4 + offsetof(struct icmphdr, un.echo.id), &id,
		       sizeof(id));
	}
	if (g4) {
		struct iphdr ih = {
			.version = 4, .ihl = 5, .ttl = IPDEFTTL,
			.tot_len = htons(sizeof(ih) + l4_len),
			.frag_off = htons(IP_DF), .protocol = key->proto,
			.saddr = g4->s_addr,
			.daddr = inany_v4(&key->paddr)->s_addr,
		};

		ih.check = csum(&ih, sizeof(ih), 0);
		memcpy(l4 + ICMP_ERR_HDR_LEN, &ih, sizeof(ih));
	} else {
		struct ipv6hdr ip6h = {
			.version = 6, .payload_len = htons(l4_len),
			.nexthdr = key->proto, .hop_limit = IPDEFTTL,
			.saddr = key->gaddr.a6, .daddr = key->paddr.a6,
		};

		memcpy(l4 + ICMP_ERR_HDR_LEN, &ip6h, sizeof(ip6h));
	}
	return ICMP_ERR_HDR_LEN + l3_len + quoted;
}

/**
 * icmp_err_src() - where the guest's error comes from
 * @s:		flow's socket
 * @key:	flow key
 * @from:	who sent the error (SO_EE_OFFENDER)
 * @src:	set: the address the guest sent to if that's who answered,
 *		else the one that did
 *
 * Return: 0 on success, -1 if @from is of no use
 */
static int icmp_err_src(int s, const struct flow_key *key,
			const union sockaddr_inany *from,
			union inany_addr *src)
{
	union sockaddr_inany peer;
	socklen_t pl = sizeof(peer);
	union inany_addr dst;
	uint16_t port;

	if (inany_from_sockaddr(src, &port, from) ||
	    inany_is_v4(src) != inany_is_v4(&key->gaddr))
		return -1;
	if (!getpeername(s, &peer.sa, &pl) &&
	    !inany_from_sockaddr(&dst, &port, &peer) &&
	    inany_equals(&dst, src))
		*src = key->paddr;	/* the destination, as the guest knows it */
	return 0;
}

/**
 * icmp_err_allowed() - may another error go to the guest this second?
 * @c:		execution context
 *
 * Return: true if so
 */
static bool icmp_err_allowed(const struct ctx *c)
{
	static unsigned int sent;
	static int64_t sec;

	if (c->now / 1000 != sec) {
		sec = c->now / 1000;
		sent = 0;
	}
	return ++sent <= ICMP_ERR_PER_S;
}

/**
 * icmp_err_quoted_at() - where the packet an error quotes goes, in our frame
 * @key:	flow key
 *
 * Return: the place, after the ICMP header, the IP header and, for UDP,
 *	   the UDP header (rebuilt from the flow: the kernel keeps none)
 */
static uint8_t *icmp_err_quoted_at(const struct flow_key *key)
{
	size_t l3_len = inany_is_v4(&key->gaddr) ? sizeof(struct iphdr) :
						   sizeof(struct ipv6hdr);

	return icmp_err_frame + FRAME_L4_OFF + ICMP_ERR_HDR_LEN + l3_len +
	       (key->proto == IPPROTO_UDP ? sizeof(struct udphdr) : 0);
}

/**
 * icmp_err_reply() - send the guest an ICMP error about its packet
 * @c:		execution context
 * @key:	flow key
 * @src:	where the error comes from, as the guest sees it
 * @ee:		type, code and MTU (or pointer) of the error
 * @len:	length of the guest's packet (UDP: payload), in place at
 *		icmp_err_quoted_at() as far as there is room
 * @seq:	TCP: the sequence number of the guest's segment
 */
static void icmp_err_reply(struct ctx *c, const struct flow_key *key,
			   const union inany_addr *src,
			   const struct sock_extended_err *ee, size_t len,
			   uint32_t seq)
{
	bool v4 = inany_is_v4(&key->gaddr);
	uint8_t *l4 = icmp_err_frame + FRAME_L4_OFF;
	struct link_frame frame;
	size_t n;

	if (!icmp_err_allowed(c))
		return;
	memset(l4, 0, ICMP_ERR_HDR_LEN);
	l4[0] = ee->ee_type;
	l4[1] = ee->ee_code;
	if (v4 && ee->ee_type == ICMP_DEST_UNREACH &&
	    ee->ee_code == ICMP_FRAG_NEEDED) {
		uint16_t mtu = htons(ee->ee_info);

		memcpy(l4 + 6, &mtu, sizeof(mtu));
	} else if (!v4 && (ee->ee_type == ICMP6_PACKET_TOO_BIG ||
			   ee->ee_type == ICMP6_PARAM_PROB)) {
		uint32_t info = htonl(ee->ee_info);

		memcpy(l4 + 4, &info, sizeof(info));
	}
	n = icmp_err_quote(key, l4, len, MIN(len, v4 ? ICMP_ERR4_MAX :
						      ICMP_ERR6_MAX), seq);
	frame = ip_frame(c, icmp_err_frame, src, &key->gaddr,
			 v4 ? IPPROTO_ICMP : IPPROTO_ICMPV6, n);
	link_send(c, &frame, 1);
}

/**
 * icmp_err_to_tap() - an ICMP error for the guest's packet: the guest's too
 * @c:		execution context
 * @s:		flow's socket, icmp_err_watch() called on it
 * @key:	flow key: UDP, an echo flow (ICMP, ICMPv6), or TCP
 * @seq:	TCP: the sequence number of the guest's segment (its SYN's)
 *
 * Errors of our own kernel (SO_EE_ORIGIN_LOCAL: too big for the path MTU
 * it knows) were the guest's at once, from icmp_err_send(): dropped here.
 *
 * Return: 0 if one was read, -1 if the queue is empty
 */
int icmp_err_to_tap(struct ctx *c, int s, const struct flow_key *key,
		    uint32_t seq)
{
	bool v4 = inany_is_v4(&key->gaddr);
	uint8_t *quoted = icmp_err_quoted_at(key);
	char cbuf[CMSG_SPACE(sizeof(struct sock_extended_err) +
			     sizeof(struct sockaddr_in6))];
	struct iovec iov = { quoted, icmp_err_frame + sizeof(icmp_err_frame) -
				     quoted };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	union sockaddr_inany from = { .sa.sa_family = AF_UNSPEC };
	struct sock_extended_err ee;
	union inany_addr src;
	struct cmsghdr *cm;
	ssize_t n;

	n = recvmsg(s, &mh, MSG_ERRQUEUE | MSG_DONTWAIT);
	if (n < 0)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (!cm || cm->cmsg_len < CMSG_LEN(sizeof(ee)) ||
	    !((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
	      (cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR)))
		return 0;
	memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
	memcpy(&from, CMSG_DATA(cm) + sizeof(ee),
	       MIN(sizeof(from), cm->cmsg_len - CMSG_LEN(sizeof(ee))));
	if (ee.ee_origin != (v4 ? SO_EE_ORIGIN_ICMP : SO_EE_ORIGIN_ICMP6) ||
	    (key->proto != IPPROTO_UDP && (size_t)n < ICMP_ERR_HDR_LEN) ||
	    icmp_err_src(s, key, &from, &src))
		return 0;

	icmp_err_reply(c, key, &src, &ee, n, seq);
	return 0;
}

/**
 * icmp_err_too_big() - the guest's packet is larger than the host's path
 *			MTU, and it said not to fragment it: tell it so
 * @c:		execution context
 * @s:		flow's socket, connected
 * @key:	flow key: UDP or an echo flow
 * @msg:	the guest's packet (UDP: payload)
 *
 * As a router would (fragmentation needed, packet too big, with the MTU):
 * we are the guest's first hop, its gateway's address is ours.
 */
static void icmp_err_too_big(struct ctx *c, int s, const struct flow_key *key,
			     struct pkt_view msg)
{
	const struct guest_net *net = ip_net();
	bool v4 = inany_is_v4(&key->gaddr);
	struct sock_extended_err ee = {
		.ee_type = v4 ? ICMP_DEST_UNREACH : ICMP6_PACKET_TOO_BIG,
		.ee_code = v4 ? ICMP_FRAG_NEEDED : 0,
	};
	uint8_t *quoted = icmp_err_quoted_at(key);
	socklen_t sl = sizeof(int);
	union inany_addr src;
	int mtu;

	if (v4 ? getsockopt(s, SOL_IP, IP_MTU, &mtu, &sl) :
		 getsockopt(s, SOL_IPV6, IPV6_MTU, &mtu, &sl)) {
		debug("IP_MTU: %s", strerror(errno));
		return;
	}
	ee.ee_info = mtu;
	if (v4)
		inany_from_v4(&src, net->gw4);
	else
		src.a6 = net->gw6;
	memcpy(quoted, msg.data, MIN(msg.len, v4 ? ICMP_ERR4_MAX :
						   ICMP_ERR6_MAX));
	icmp_err_reply(c, key, &src, &ee, msg.len, 0);
}

/**
 * icmp_err_send() - send the guest's datagram or echo request on its flow's
 *		     socket as the guest sent it: TTL, and fragment or not
 * @c:		execution context
 * @s:		flow's socket, connected, icmp_err_watch() called on it
 * @key:	flow key: UDP or an echo flow
 * @now:	how @s sends now, updated
 * @l3:		the guest's hop limit, and whether it may be fragmented
 * @msg:	what to send (UDP: payload; echo: header and data)
 *
 * A packet the guest won't have fragmented (IPv4 with DF; IPv6, where no
 * router fragments) goes with path MTU discovery on (IP_PMTUDISC_DO):
 * larger than the host's path MTU, it fails here, and the guest learns
 * that MTU, as a router on the way would have told it, where the host's
 * kernel used to fragment it silently (tracepath, a QUIC stack probing the
 * path). Without DF, IPv4 routers may fragment it, and the host as well
 * (IP_PMTUDISC_DONT); IPv6 the guest fragmented (reassembled by us): the
 * host fragments it to the path MTU it knows (IPV6_PMTUDISC_WANT).
 *
 * Return: 0 on success, -errno on failure
 */
int icmp_err_send(struct ctx *c, int s, const struct flow_key *key,
		  struct icmp_err_mirror *now, const struct l3_info *l3,
		  struct pkt_view msg)
{
	bool v4 = inany_is_v4(&key->gaddr);
	int pmtud = l3->df ? IP_PMTUDISC_DO :
			     v4 ? IP_PMTUDISC_DONT : IPV6_PMTUDISC_WANT;
	int err;

	now->ttl = icmp_err_ttl_set(s, key, now->ttl, l3->hop_limit);
	if (pmtud != now->pmtud &&
	    !icmp_err_ipopt(s, key, IP_MTU_DISCOVER, IPV6_MTU_DISCOVER, pmtud))
		now->pmtud = pmtud;
	if (send(s, msg.data, msg.len, MSG_DONTWAIT) >= 0)
		return 0;
	err = errno;
	if (err == EMSGSIZE)
		icmp_err_too_big(c, s, key, msg);
	return -err;
}
