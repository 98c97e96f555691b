// SPDX-License-Identifier: GPL-2.0-or-later
/* ip.c - the IP layer: check what the guest sends, build what it receives
 *
 * Theory of operation: the input layer (input.c) hands us the payload of
 * each Ethernet frame of type IPv4 or IPv6. Each packet is checked once,
 * completely, through the pkt_view cursor (ip4_parse(), ip6_parse(), then
 * ip_l4_policy()), then trusted by the L4 handlers, which see one
 * family-neutral struct l3_info (addresses as union inany_addr) and a view of
 * exactly the L4 payload: no L4 code exists twice for the two families. The
 * checks send nothing and call nothing above: they return a drop reason.
 *
 * IPv4: IHL against total length against frame length, header checksum;
 * a fragment's place in its datagram is noted for frag.c. IPv6 (RFC 8200): the payload length must fit in the
 * frame (the rest is Ethernet padding, trimmed); a payload length of zero is
 * a jumbogram (RFC 2675), which no link of ours carries; extension headers
 * are walked with the same cursor: hop-by-hop options only right after the
 * header (4.1), routing headers only with no segments left (we are the final
 * destination, and forward nothing on the guest's behalf, 4.4), destination
 * options skipped, at most IP6_EXT_MAX of them; a fragment header ends the
 * walk: what follows is the fragment's part of the datagram (frag.c puts
 * them together: a guest fragments what is larger than a path MTU it
 * learnt from an ICMP error). Every drop is counted by reason (pkt_drop()).
 *
 * Addresses: the guest's gateway (IPv4 and IPv6, and our link-local address)
 * stands for the host itself: ip_gw_to_host() maps it to the host's loopback
 * unless --no-map-gw. Inbound, a client on the host's loopback, or one using
 * the guest's own address, appears to come from the gateway
 * (ip_inbound_peer()). We remember the source addresses the guest uses
 * (ip_seen()): inbound connections go to the address it last used, which in
 * passt mode may be one it made itself by SLAAC.
 *
 * What we give the guest, per family (ip_net()): its address, prefix length
 * and gateway, our link-local address, what stands for the host's loopback,
 * and whether the family is served at all. conf() sets it at start
 * (c->net, read-only from then on), and as the host's addresses and routes
 * change, follow.c changes our copy, only through ip_net_update() and
 * ip_family_wake().
 *
 * Output: ip_frame() writes the Ethernet and IP headers of a frame whose L4
 * message is in place at FRAME_L4_OFF of the caller's buffer, and the L4
 * checksum, left partial where the link completes it (link_caps()), and
 * fills the frame descriptor for the link: so no layer below parses it.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <netinet/ip.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <string.h>
#include <unistd.h>

#include "checksum.h"
#include "dhcp.h"
#include "dhcpv6.h"
#include "flow.h"
#include "ip.h"
#include "link.h"
#include "log.h"
#include "passt.h"
#include "resolv.h"

#define IP6_EXT_MAX		8	/* extension headers we walk, at most */
#define IP_TTL_OURS		64
#define IP6_ROUTING_SEGS_OFF	3	/* Segments Left, RFC 8200, 4.4 */

static_assert(FRAME_L4_OFF % 8 == 0, "L4 headers are 8-byte aligned");
static_assert((FRAME_L4_OFF - sizeof(struct iphdr)) % 4 == 0,
	      "IPv4 headers are 4-byte aligned");

/* The guest's own addresses as it uses them (ip_guest_seen()), which may
 * differ from the ones we gave it: passt's guest may make one by SLAAC, or
 * keep an old lease. Inbound flows go there, and they pass for the guest's.
 * Owner: ip.c; learnt at run time only.
 */
static struct {
	struct in_addr addr4;
	struct in6_addr addr6;
	struct in6_addr addr6_ll;
} ip_guest;

/* What we give the guest now: conf()'s, then what follow.c sets as the
 * host's addresses and routes change. Owner: ip.c.
 */
static struct guest_net ip_net_now;

/**
 * ip_net_init() - start from what conf() gave the guest
 * @c:		execution context, configured
 */
void ip_net_init(const struct ctx *c)
{
	ip_net_now = c->net;
}

/**
 * ip_net() - what we give the guest now
 *
 * Return: its addresses, prefix lengths and gateways, our link-local
 *	   address, what stands for the host's loopback, its families
 */
const struct guest_net *ip_net(void)
{
	return &ip_net_now;
}

/**
 * ip_net_fam() - the guest's configuration of a family, now
 * @family:	AF_INET or AF_INET6
 * @g:		set
 */
void ip_net_fam(int family, struct guest_fam *g)
{
	const struct guest_net *n = &ip_net_now;

	if (family == AF_INET) {
		inany_from_v4(&g->addr, n->addr4);
		g->prefix = n->prefix4;
		inany_from_v4(&g->gw, n->gw4);
		return;
	}
	g->addr.a6 = n->addr6;
	g->prefix = n->prefix6;
	g->gw.a6 = n->gw6;
}

/**
 * ip_net_update() - give the guest a new configuration of a family
 * @c:		execution context: which of -a, -n, -g were given
 * @family:	AF_INET or AF_INET6
 * @g:		new configuration, taken as far as those options leave open
 *
 * Where the gateway stands for the host's loopback by default, the new
 * gateway does.
 */
void ip_net_update(const struct ctx *c, int family, const struct guest_fam *g)
{
	struct guest_net *n = &ip_net_now;

	if (family == AF_INET) {
		if (!c->addr4_set)
			n->addr4 = *inany_v4(&g->addr);
		if (!c->prefix4_set)
			n->prefix4 = g->prefix;
		if (!c->gw4_set)
			n->gw4 = *inany_v4(&g->gw);
		if (c->map_host_lo_is_gw[INANY_V4])
			inany_from_v4(&n->map_host_lo[INANY_V4], n->gw4);
		return;
	}
	if (!c->addr6_set) {
		n->addr6 = g->addr.a6;
		n->prefix6 = g->prefix;
	}
	if (!c->gw6_set)
		n->gw6 = g->gw.a6;
	if (c->map_host_lo_is_gw[INANY_V6])
		n->map_host_lo[INANY_V6].a6 = n->gw6;
}

/**
 * ip_family_wake() - serve a family that waited for the host to have it
 * @family:	AF_INET or AF_INET6
 */
void ip_family_wake(int family)
{
	if (family == AF_INET)
		ip_net_now.ip4_off = ip_net_now.ip4_wait = false;
	else
		ip_net_now.ip6_off = ip_net_now.ip6_wait = false;
}

/**
 * ip_family_on() - is this family served?
 * @family:	AF_INET or AF_INET6
 *
 * Return: false if -4/-6 or the host turned it off
 */
bool ip_family_on(int family)
{
	return family == AF_INET ? !ip_net_now.ip4_off : !ip_net_now.ip6_off;
}

/**
 * ip_guest_seen() - the guest uses this address of its own
 * @a:		source address of a checked packet from the guest, or one it
 *		takes now (a DHCP lease, an address it probes for, ours)
 */
void ip_guest_seen(const union inany_addr *a)
{
	const struct in_addr *v4 = inany_v4(a);

	if (inany_is_unspecified(a) || inany_is_multicast(a) ||
	    inany_is_loopback(a))
		return;
	if (v4)
		ip_guest.addr4 = *v4;
	else if (inany_is_linklocal6(a))
		ip_guest.addr6_ll = a->a6;
	else
		ip_guest.addr6 = a->a6;
}

/**
 * ip_guest_addrs() - the guest's own addresses as it uses them, for
 *		      migration
 * @addr4:	IPv4, set (0 if none seen)
 * @addr6:	global IPv6, set (unspecified if none seen)
 * @addr6_ll:	link-local IPv6, set (the same)
 */
void ip_guest_addrs(struct in_addr *addr4, struct in6_addr *addr6,
		    struct in6_addr *addr6_ll)
{
	*addr4 = ip_guest.addr4;
	*addr6 = ip_guest.addr6;
	*addr6_ll = ip_guest.addr6_ll;
}

/**
 * ip_guest_assign() - we gave the guest this address: it uses it from now
 * @a:		IPv4 or global IPv6 address, unspecified if none
 *
 * For pasta's namespace, whose addresses we set: what it used before in
 * that family is forgotten.
 */
void ip_guest_assign(const union inany_addr *a)
{
	const struct in_addr *v4 = inany_v4(a);

	if (v4)
		ip_guest.addr4 = *v4;
	else
		ip_guest.addr6 = a->a6;
}

/**
 * ip_guest_uses() - is this one of the guest's own addresses as it uses them?
 * @a:		address
 *
 * Return: true if the guest last sent from it (or took it): not counting
 *	   the addresses we gave it
 */
bool ip_guest_uses(const union inany_addr *a)
{
	const struct in_addr *v4 = inany_v4(a);

	if (inany_is_unspecified(a))
		return false;
	if (v4)
		return v4->s_addr == ip_guest.addr4.s_addr;
	return IN6_ARE_ADDR_EQUAL(&a->a6, &ip_guest.addr6) ||
	       IN6_ARE_ADDR_EQUAL(&a->a6, &ip_guest.addr6_ll);
}

/**
 * ip_is_ndp() - is this ICMPv6 neighbour discovery, which --no-icmp spares?
 * @l3:		addresses and protocol
 * @l4:		the ICMPv6 message
 *
 * Return: true for NDP message types
 */
bool ip_is_ndp(const struct l3_info *l3, struct pkt_view l4)
{
	const uint8_t *type = pkt_pull(&l4, 1);

	return l3->proto == IPPROTO_ICMPV6 && type &&
	       *type >= ND_ROUTER_SOLICIT && *type <= ND_REDIRECT;
}

/**
 * ip_link_service() - is this for a service we answer on the link ourselves?
 * @l3:		addresses and protocol
 * @l4:		the L4 header and payload
 *
 * Return: true for NDP, for DHCP from the client's port to the server's at
 *	   255.255.255.255, and for DHCPv6 likewise at ff02::1:2
 */
static bool ip_link_service(const struct l3_info *l3, struct pkt_view l4)
{
	const struct udphdr *uh;

	if (ip_is_ndp(l3, l4))
		return true;
	if (l3->proto != IPPROTO_UDP || !(uh = pkt_pull(&l4, sizeof(*uh))))
		return false;
	if (inany_is_v4(&l3->dst))
		return ntohs(uh->source) == DHCP_CLIENT_PORT &&
		       ntohs(uh->dest) == DHCP_SERVER_PORT &&
		       inany_equals4(&l3->dst,
				     (struct in_addr){ htonl(INADDR_BROADCAST) });
	return ntohs(uh->source) == DHCPV6_CLIENT_PORT &&
	       ntohs(uh->dest) == DHCPV6_SERVER_PORT &&
	       inany_equals6(&l3->dst, &dhcpv6_all_servers);
}

/**
 * ip_is_broadcast() - 255.255.255.255, or the broadcast of the guest's subnet
 * @a:		address
 *
 * Return: true if it is either
 */
static bool ip_is_broadcast(const union inany_addr *a)
{
	const struct in_addr *v4 = inany_v4(a);
	int prefix = ip_net_now.prefix4;
	uint32_t host_bits;

	if (!v4)
		return false;
	if (v4->s_addr == htonl(INADDR_BROADCAST))
		return true;
	if (prefix <= 0 || prefix >= 31)
		return false;
	host_bits = ~0U >> prefix;
	return (ntohl(v4->s_addr) & host_bits) == host_bits &&
	       (ntohl(v4->s_addr) & ~host_bits) ==
	       (ntohl(ip_net_now.addr4.s_addr) & ~host_bits);
}

/**
 * ip_addr_policy() - may the guest send this packet out at all?
 * @l3:		addresses and protocol
 * @l4:		the L4 header and payload
 *
 * One policy for both families: no loopback source or destination (the
 * host's loopback is reached only through the address that stands for it),
 * no unspecified, multicast or broadcast source, no unspecified
 * destination, no multicast or broadcast destination, no port 0. The
 * exceptions are the link services we answer ourselves: a DHCP or DHCPv6
 * client, or a host doing NDP, may send from the unspecified address to a
 * broadcast or multicast one.
 *
 * Return: 0 if it may, or the drop reason
 */
static int ip_addr_policy(const struct l3_info *l3, struct pkt_view l4)
{
	bool group_dst = inany_is_multicast(&l3->dst) ||
			 ip_is_broadcast(&l3->dst);
	bool ours = group_dst && ip_link_service(l3, l4);
	const uint16_t *ports;

	if (inany_is_loopback(&l3->src) || inany_is_multicast(&l3->src) ||
	    ip_is_broadcast(&l3->src) ||
	    (inany_is_unspecified(&l3->src) && !ours))
		return DROP_SRC_ADDR;
	if (inany_is_loopback(&l3->dst) || inany_is_unspecified(&l3->dst))
		return DROP_DST_ADDR;
	if (group_dst && !ours)
		return DROP_MULTICAST_DST;
	if ((l3->proto == IPPROTO_TCP || l3->proto == IPPROTO_UDP) &&
	    (ports = pkt_pull(&l4, 2 * sizeof(*ports))) &&
	    (!ports[0] || !ports[1]))
		return DROP_PORT_ZERO;
	return 0;
}

/**
 * ip_l4_policy() - may this checked packet go to its L4 handler?
 * @c:		execution context
 * @l3:		addresses and protocol
 * @l4:		exactly the L4 header and payload
 *
 * Return: 0 if it may, or the drop reason: its protocol is turned off
 *	   (--no-tcp, --no-udp, --no-icmp, which spares NDP), or the address
 *	   policy refuses it
 */
int ip_l4_policy(const struct ctx *c, const struct l3_info *l3,
		 struct pkt_view l4)
{
	if ((l3->proto == IPPROTO_TCP && c->no_tcp) ||
	    (l3->proto == IPPROTO_UDP && c->no_udp) ||
	    ((l3->proto == IPPROTO_ICMP || l3->proto == IPPROTO_ICMPV6) &&
	     c->no_icmp && !ip_is_ndp(l3, l4)))
		return DROP_L4_DISABLED;
	return ip_addr_policy(l3, l4);
}

/**
 * ip_payload_split() - an IP packet's payload: in the view, and past it
 * @v:		view from the payload on, advanced past it
 * @len:	payload length, as the IP header says
 * @tail_len:	bytes of the frame past @v; set: those in the payload (the
 *		rest is Ethernet padding, trimmed)
 * @l4:		what @v has of the payload, set
 *
 * Return: true on success, false if the frame is shorter than @len
 */
static bool ip_payload_split(struct pkt_view *v, size_t len,
			     size_t *tail_len, struct pkt_view *l4)
{
	size_t in_tail = len > v->len ? len - v->len : 0;

	if (in_tail > *tail_len)
		return false;
	*tail_len = in_tail;
	return pkt_sub(v, len - in_tail, l4);
}

/**
 * ip4_parse() - check an IPv4 packet completely
 * @v:		view from the start of the IPv4 header to the end of the frame,
 *		or of its first part (the headers)
 * @tail_len:	bytes of the frame past @v; set: those in the packet
 * @l3:		addresses, protocol and TTL, set
 * @l4:		exactly the L4 header and payload (its first part), set
 *
 * Return: 0 on success, or the drop reason
 */
int ip4_parse(struct pkt_view v, size_t *tail_len, struct l3_info *l3,
	      struct pkt_view *l4)
{
	const struct iphdr *ih = pkt_pull(&v, sizeof(*ih));
	size_t hlen, tot;

	if (!ih || ih->version != 4 || ih->ihl < 5)
		return DROP_IP4_MALFORMED;
	hlen = ih->ihl * 4;
	tot = ntohs(ih->tot_len);
	/* Total length covers the header and fits in the frame; anything
	 * past it is Ethernet padding and is trimmed.
	 */
	if (tot < hlen || !pkt_pull(&v, hlen - sizeof(*ih)))
		return DROP_IP4_MALFORMED;
	if (csum(ih, hlen, 0))
		return DROP_IP4_CSUM;
	if (!ip_payload_split(&v, tot - hlen, tail_len, l4))
		return DROP_IP4_MALFORMED;
	if (ip_net_now.ip4_off)
		return DROP_IP_FAMILY_OFF;

	inany_from_v4(&l3->src, (struct in_addr){ ih->saddr });
	inany_from_v4(&l3->dst, (struct in_addr){ ih->daddr });
	l3->proto = ih->protocol;
	l3->hop_limit = ih->ttl;
	l3->df = !!(ntohs(ih->frag_off) & IP_DF);
	l3->frag_more = !!(ntohs(ih->frag_off) & IP_MF);
	l3->frag_off = (ntohs(ih->frag_off) & IP_OFFMASK) * 8;
	l3->frag = l3->frag_more || l3->frag_off;
	l3->frag_id = ntohs(ih->id);
	return 0;
}

/**
 * ip6_frag_hdr() - take a fragment header: where the part that follows goes
 * @v:		view from the fragment header, advanced past it
 * @l3:		fragment fields, protocol of the datagram, set
 *
 * Return: 0 on success, or the drop reason
 */
static int ip6_frag_hdr(struct pkt_view *v, struct l3_info *l3)
{
	const uint8_t *h = pkt_pull(v, 8);
	uint32_t id;

	if (!h)
		return DROP_IP6_EXTHDR;
	/* Next Header, reserved, offset in 8-octet units << 3 | M, ident */
	l3->proto = h[0];
	l3->frag = true;
	l3->frag_off = ((h[2] << 8) | h[3]) & ~7U;
	l3->frag_more = h[3] & 1;
	memcpy(&id, h + 4, sizeof(id));
	l3->frag_id = ntohl(id);
	return 0;
}

/**
 * ip6_ext_skip() - walk the extension headers to the upper-layer header, or
 *		    to the fragmentable part of a fragment
 * @v:		view from the first header after the IPv6 header, advanced
 * @l3:		protocol: Next Header of the IPv6 header, then of the last
 *		one walked; fragment fields
 *
 * Return: 0 on success, or the drop reason
 */
static int ip6_ext_skip(struct pkt_view *v, struct l3_info *l3)
{
	uint8_t *proto = &l3->proto;
	unsigned int n;

	for (n = 0; n <= IP6_EXT_MAX; n++) {
		const uint8_t *h, *rest;

		switch (*proto) {
		case IPPROTO_HOPOPTS:
			if (n)
				return DROP_IP6_EXTHDR;
			break;
		case IPPROTO_ROUTING:
		case IPPROTO_DSTOPTS:
			break;
		case IPPROTO_FRAGMENT:
			return ip6_frag_hdr(v, l3);
		default:
			return 0;
		}
		/* Next Header, Hdr Ext Len in 8-octet units past the first */
		h = pkt_pull(v, 2);
		if (!h || !(rest = pkt_pull(v, h[1] * 8 + 6)))
			return DROP_IP6_EXTHDR;
		if (*proto == IPPROTO_ROUTING && rest[IP6_ROUTING_SEGS_OFF - 2])
			return DROP_IP6_EXTHDR;
		*proto = h[0];
	}
	return DROP_IP6_EXTHDR;
}

/**
 * ip6_parse() - check an IPv6 packet completely
 * @v:		view from the start of the IPv6 header to the end of the frame,
 *		or of its first part (the headers)
 * @tail_len:	bytes of the frame past @v; set: those in the packet
 * @l3:		addresses, protocol and hop limit, set
 * @l4:		exactly the L4 header and payload (its first part), set
 *
 * Return: 0 on success, or the drop reason
 */
int ip6_parse(struct pkt_view v, size_t *tail_len, struct l3_info *l3,
	      struct pkt_view *l4)
{
	const struct ipv6hdr *ip6h = pkt_pull(&v, sizeof(*ip6h));
	int ret;

	if (!ip6h || ip6h->version != 6)
		return DROP_IP6_MALFORMED;
	if (!ip6h->payload_len)
		return DROP_IP6_JUMBO;
	if (!ip_payload_split(&v, ntohs(ip6h->payload_len), tail_len, l4))
		return DROP_IP6_MALFORMED;
	l3->proto = ip6h->nexthdr;
	l3->frag = l3->frag_more = false;
	l3->frag_off = 0;
	l3->frag_id = 0;
	ret = ip6_ext_skip(l4, l3);
	if (ret)
		return ret;
	memcpy(&l3->src.a6, &ip6h->saddr, sizeof(l3->src.a6));
	memcpy(&l3->dst.a6, &ip6h->daddr, sizeof(l3->dst.a6));
	/* IPv4-mapped addresses never appear on the wire (RFC 4291, 2.5.5.2):
	 * they would pass for IPv4 here
	 */
	if (inany_is_multicast(&l3->src) || inany_is_v4(&l3->src) ||
	    inany_is_v4(&l3->dst))
		return DROP_IP6_ADDR;
	if (ip_net_now.ip6_off)
		return DROP_IP_FAMILY_OFF;
	l3->hop_limit = ip6h->hop_limit;
	l3->df = true;
	return 0;
}

/**
 * ip_eth_dst() - destination MAC address for a packet to the guest
 * @dst:	destination address
 * @mac:	MAC address, set
 *
 * IPv6 multicast maps onto 33:33 and the low 32 bits (RFC 2464, 7).
 */
static void ip_eth_dst(const union inany_addr *dst, uint8_t *mac)
{
	if (!inany_is_v4(dst) && inany_is_multicast(dst)) {
		mac[0] = mac[1] = 0x33;
		memcpy(mac + 2, &dst->a6.s6_addr[12], 4);
		return;
	}
	memcpy(mac, link_guest_mac(), ETH_ADDR_LEN);
}

/**
 * ip6_hop_limit() - hop limit of an IPv6 packet to the guest
 * @buf:	frame buffer, L4 message at FRAME_L4_OFF
 * @proto:	L4 protocol
 *
 * Return: 255 for NDP, which needs it (RFC 4861, 6.1.2 and 7.1.1), else
 *	   our usual value
 */
static uint8_t ip6_hop_limit(const uint8_t *buf, uint8_t proto)
{
	uint8_t type = buf[FRAME_L4_OFF];

	if (proto == IPPROTO_ICMPV6 && type >= ND_ROUTER_SOLICIT &&
	    type <= ND_REDIRECT)
		return IP6_HOP_LIMIT_NDP;
	return IP_TTL_OURS;
}

/**
 * ip_l4_pseudo() - pseudo-header sum of an L4 message to the guest
 * @src:	source address
 * @dst:	destination address
 * @proto:	IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP or IPPROTO_ICMPV6
 * @l4_len:	L4 header and payload length
 *
 * Return: unfolded sum, 0 for ICMP (which has none)
 */
static uint32_t ip_l4_pseudo(const union inany_addr *src,
			     const union inany_addr *dst, uint8_t proto,
			     size_t l4_len)
{
	const struct in_addr *s4 = inany_v4(src), *d4 = inany_v4(dst);

	if (s4 && d4)
		return proto == IPPROTO_ICMP ? 0 :
		       csum_pseudo4(*s4, *d4, proto, l4_len);
	return csum_pseudo6(&src->a6, &dst->a6, proto, l4_len);
}

/**
 * ip_l4_csum_set() - write the L4 checksum of a frame to the guest
 * @f:		frame descriptor, @csum_off set if the sum is left partial
 * @l4:		L4 header and payload
 * @l4_len:	their length
 * @src:	source address
 * @dst:	destination address
 * @proto:	IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP or IPPROTO_ICMPV6
 *
 * TCP and UDP sums are left partial, the pseudo-header's alone, where the
 * link completes them (checksum offload), and always in a frame the link
 * cuts into segments: it sums each one.
 */
static void ip_l4_csum_set(struct link_frame *f, uint8_t *l4, size_t l4_len,
			   const union inany_addr *src,
			   const union inany_addr *dst, uint8_t proto)
{
	uint32_t pseudo = ip_l4_pseudo(src, dst, proto, l4_len);
	bool stream = proto == IPPROTO_TCP || proto == IPPROTO_UDP;
	uint16_t off, sum;

	if (proto == IPPROTO_TCP)
		off = offsetof(struct tcphdr, check);
	else if (proto == IPPROTO_UDP)
		off = offsetof(struct udphdr, check);
	else
		off = offsetof(struct icmp6_hdr, icmp6_cksum);	/* ICMP's too */

	memset(l4 + off, 0, sizeof(sum));
	if (stream && (f->gso_size || link_caps()->csum)) {
		sum = (uint16_t)~csum_fold(pseudo);
		f->csum_off = off;
	} else {
		sum = csum(l4, l4_len, pseudo);
		if (proto == IPPROTO_UDP && !sum)
			sum = 0xffff;	/* RFC 768: zero means no checksum */
	}
	memcpy(l4 + off, &sum, sizeof(sum));
}

/**
 * ip_frame_gso() - write Ethernet and IP headers and the L4 checksum of a
 *		    frame to the guest, maybe one the link cuts into segments
 * @c:		execution context
 * @buf:	frame buffer, L4 message in place at FRAME_L4_OFF
 * @src:	source address
 * @dst:	destination address, of the same family
 * @proto:	L4 protocol
 * @l4_len:	L4 header and payload length
 * @gso_size:	TCP: the segment size, if the payload is larger (only where
 *		link_caps() says the link cuts frames), else 0
 *
 * Return: the frame and where its parts are, for link_send()
 */
struct link_frame ip_frame_gso(const struct ctx *c, uint8_t *buf,
			       const union inany_addr *src,
			       const union inany_addr *dst, uint8_t proto,
			       size_t l4_len, size_t gso_size)
{
	const struct in_addr *s4 = inany_v4(src), *d4 = inany_v4(dst);
	size_t l3_len = s4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	uint8_t *l3 = buf + FRAME_L4_OFF - l3_len, *l4 = buf + FRAME_L4_OFF;
	struct ethhdr *eh = (struct ethhdr *)(l3 - ETH_HLEN);
	struct link_frame f = {
		.iov = { eh, ETH_HLEN + l3_len + l4_len },
		.l4_off = (uint16_t)(ETH_HLEN + l3_len),
		.gso_size = (uint16_t)gso_size,
	};

	assert(!s4 == !d4);
	ip_eth_dst(dst, eh->h_dest);
	memcpy(eh->h_source, c->mac_ours, ETH_ADDR_LEN);

	if (s4) {
		struct iphdr *ih = (struct iphdr *)l3;

		eh->h_proto = htons(ETH_P_IP);
		*ih = (struct iphdr){
			.version = 4, .ihl = 5,
			.tot_len = htons(sizeof(*ih) + l4_len),
			.frag_off = htons(IP_DF), .ttl = IP_TTL_OURS,
			.protocol = proto,
			.saddr = s4->s_addr, .daddr = d4->s_addr,
		};
		ih->check = csum(ih, sizeof(*ih), 0);
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)l3;

		eh->h_proto = htons(ETH_P_IPV6);
		memset(ip6h, 0, sizeof(*ip6h));
		ip6h->version = 6;
		ip6h->payload_len = htons(l4_len);
		ip6h->nexthdr = proto;
		ip6h->hop_limit = ip6_hop_limit(buf, proto);
		memcpy(&ip6h->saddr, &src->a6, sizeof(ip6h->saddr));
		memcpy(&ip6h->daddr, &dst->a6, sizeof(ip6h->daddr));
	}
	if (gso_size)
		f.hdr_len = f.l4_off + ((const struct tcphdr *)l4)->doff * 4;
	ip_l4_csum_set(&f, l4, l4_len, src, dst, proto);
	return f;
}

/**
 * ip_frame() - write Ethernet and IP headers and the L4 checksum of a frame
 *		to the guest
 * @c:		execution context
 * @buf:	frame buffer, L4 message in place at FRAME_L4_OFF
 * @src:	source address
 * @dst:	destination address, of the same family
 * @proto:	L4 protocol
 * @l4_len:	L4 header and payload length
 *
 * Return: the frame and where its parts are, for link_send()
 */
struct link_frame ip_frame(const struct ctx *c, uint8_t *buf,
			   const union inany_addr *src,
			   const union inany_addr *dst, uint8_t proto,
			   size_t l4_len)
{
	return ip_frame_gso(c, buf, src, dst, proto, l4_len, 0);
}

/**
 * ip_dns_up() - the host's resolver a guest's destination stands for
 * @c:		execution context
 * @a:		destination the guest used
 * @port:	destination port
 *
 * Return: index in the upstream list (resolv.c) for a DNS query to
 *	   --dns-forward, else -1
 */
int ip_dns_up(const struct ctx *c, const union inany_addr *a, uint16_t port)
{
	if (port != DNS_PORT || !inany_equals(a, &c->dns_match[inany_idx(a)]))
		return -1;
	return resolv_up_pick(c);
}

/**
 * ip_is_host_lo() - does a destination of the guest stand for host loopback?
 * @c:		execution context
 * @a:		destination
 *
 * The address of --map-host-loopback, by default the gateway; and then our
 * link-local address too, the guest's router in RAs and NDP (conf_ll6()),
 * which is the host as much as the gateway is. Where the gateway isn't the
 * host's loopback (--no-map-gw, another --map-host-loopback), our
 * link-local address goes to that address on the host's template interface,
 * as upstream's: the host itself, as it's the host's own.
 *
 * Return: true if @a goes to the host's loopback
 */
static bool ip_is_host_lo(const struct ctx *c, const union inany_addr *a)
{
	int i = inany_idx(a);

	return inany_equals(a, &ip_net_now.map_host_lo[i]) ||
	       (i == INANY_V6 && c->map_host_lo_is_gw[INANY_V6] &&
		inany_equals6(a, &ip_net_now.ll6_ours));
}

/**
 * ip_map_to_host() - where on the host a destination of the guest is
 * @c:		execution context
 * @a:		destination the guest used, changed if mapped
 * @port:	destination port
 *
 * The address of --map-host-loopback (by default the gateway, unless
 * --no-map-gw) stands for the host's loopback (ip_is_host_lo());
 * --map-guest-addr stands for the host's own address, which the guest
 * shadows; DNS queries to --dns-forward go to --dns-host, or the host's
 * first resolver that answers (resolv.c).
 */
static void ip_map_to_host(const struct ctx *c, union inany_addr *a,
			   uint16_t port)
{
	int i = inany_idx(a), up = ip_dns_up(c, a, port);

	if (up >= 0) {
		*a = *resolv_up_addr(up);
	} else if (inany_equals(a, &c->map_guest[i])) {
		ip_guest_addr(inany_family(a), a);
	} else if (ip_is_host_lo(c, a)) {
		if (i == INANY_V4)
			inany_from_v4(a,
				      (struct in_addr){ htonl(INADDR_LOOPBACK) });
		else
			a->a6 = in6addr_loopback;
	}
}

/**
 * ip_sock_outbound() - bind a flow's host socket as -o and --outbound-if ask
 * @c:		execution context
 * @s:		socket, not yet connected
 * @family:	AF_INET or AF_INET6
 * @sport:	source port to keep if the host has it free, 0 for any
 *
 * Return: 0 on success, -errno on failure
 */
int ip_sock_outbound(const struct ctx *c, int s, int family, uint16_t sport)
{
	int i = family == AF_INET ? INANY_V4 : INANY_V6;
	const union inany_addr *out = &c->outbound[i];
	const char *ifname = c->outbound_if[i];
	union inany_addr any = { .a6 = in6addr_any };
	union sockaddr_inany sa;
	socklen_t sl;

	if (ifname[0] && setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, ifname,
				    strlen(ifname)))
		return -errno;
	if (!inany_is_set(out) && !sport)
		return 0;
	if (inany_is_set(out))
		any = *out;
	else if (family == AF_INET)
		inany_from_v4(&any, (struct in_addr){ htonl(INADDR_ANY) });
	sl = sockaddr_from_inany(&sa, &any, sport, c->host_ifi);
	if (!bind(s, &sa.sa, sl))
		return 0;
	if (!sport)
		return -errno;
	/* The port is taken, or privileged: any other will do */
	if (!inany_is_set(out))
		return 0;
	sl = sockaddr_from_inany(&sa, &any, 0, c->host_ifi);
	return bind(s, &sa.sa, sl) ? -errno : 0;
}

/**
 * ip_peer_sockaddr() - where a guest's flow goes on the host
 * @c:		execution context
 * @paddr:	destination address the guest used
 * @port:	destination port
 * @sa:		socket address, set
 *
 * Some addresses stand for the host (ip_map_to_host()); any other IPv6
 * link-local address is a neighbour on the host's own interface.
 *
 * Return: length of @sa
 */
static socklen_t ip_peer_sockaddr(const struct ctx *c,
				  const union inany_addr *paddr, uint16_t port,
				  union sockaddr_inany *sa)
{
	union inany_addr a = *paddr;

	ip_map_to_host(c, &a, port);
	return sockaddr_from_inany(sa, &a, port, c->host_ifi);
}

/**
 * ip_flow_sock() - a host socket for a guest's flow, and where it goes
 * @c:		execution context
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @proto:	IPPROTO_TCP, IPPROTO_UDP, or for ping sockets IPPROTO_ICMP or
 *		IPPROTO_ICMPV6
 * @paddr:	destination the guest used
 * @port:	destination port (0 for ping)
 * @sport:	source port to keep where the host has it free (UDP: peers
 *		may expect replies from it), 0 for any
 * @sa:		socket address to connect to, set
 * @sl:		its length, set
 *
 * The socket is of the family of where the flow goes on the host, bound
 * as -o and --outbound-if ask, not connected yet. Out of descriptors, the
 * oldest half-open TCP connection makes room (flow_fd_reclaim()).
 *
 * Return: socket, or -errno
 */
int ip_flow_sock(struct ctx *c, int type, int proto,
		 const union inany_addr *paddr, uint16_t port, uint16_t sport,
		 union sockaddr_inany *sa, socklen_t *sl)
{
	int flags = type | SOCK_NONBLOCK | SOCK_CLOEXEC, s, ret;

	*sl = ip_peer_sockaddr(c, paddr, port, sa);
	s = socket(sa->sa.sa_family, flags, proto);
	if (s < 0 && flow_fd_reclaim(c, errno))
		s = socket(sa->sa.sa_family, flags, proto);
	if (s < 0)
		return -errno;
	ret = ip_sock_outbound(c, s, sa->sa.sa_family, sport);
	if (ret) {
		close(s);
		return ret;
	}
	return s;
}

/**
 * ip_is_guest() - is this one of the guest's own addresses?
 * @a:		address
 *
 * Return: true if it is
 */
static bool ip_is_guest(const union inany_addr *a)
{
	if (inany_is_v4(a))
		return inany_equals4(a, ip_net_now.addr4) ||
		       inany_equals4(a, ip_guest.addr4);
	return inany_equals6(a, &ip_net_now.addr6) ||
	       inany_equals6(a, &ip_guest.addr6);
}

/**
 * ip_dst_direct() - would a guest's TCP or UDP flow reach this destination
 *		     on the host as it is?
 * @c:		execution context
 * @a:		destination the guest uses
 * @port:	destination port
 *
 * Not if the address policy refuses it (ip_addr_policy()), not if it is one
 * of the guest's own addresses or the namespace's loopback, not if it
 * stands for something else on the host (ip_map_to_host()), and not an
 * IPv6 link-local address, which needs the guest's interface.
 *
 * Return: true if it would
 */
bool ip_dst_direct(const struct ctx *c, const union inany_addr *a,
		   uint16_t port)
{
	union inany_addr mapped = *a;

	if (!port || inany_is_loopback(a) || inany_is_unspecified(a) ||
	    inany_is_multicast(a) || ip_is_broadcast(a) ||
	    inany_is_linklocal6(a) || ip_is_guest(a))
		return false;
	ip_map_to_host(c, &mapped, port);
	return inany_equals(&mapped, a);
}

/**
 * ip_inbound_peer() - the source the guest sees for a host-side client
 * @c:		execution context
 * @peer:	client's address, changed if the guest could not reply to it:
 *		the host's loopback appears as --map-host-loopback, the
 *		guest's own address as --map-guest-addr, else either as the
 *		gateway
 */
void ip_inbound_peer(const struct ctx *c, union inany_addr *peer)
{
	const struct guest_net *n = &ip_net_now;
	int i = inany_idx(peer);

	if (inany_is_loopback(peer) && inany_is_set(&n->map_host_lo[i]))
		*peer = n->map_host_lo[i];
	else if (ip_is_guest(peer) && inany_is_set(&c->map_guest[i]))
		*peer = c->map_guest[i];
	else if (!inany_is_loopback(peer) && !ip_is_guest(peer))
		return;
	else if (i == INANY_V4)
		inany_from_v4(peer, n->gw4);
	else
		peer->a6 = IN6_IS_ADDR_UNSPECIFIED(&n->gw6) ? n->ll6_ours :
							      n->gw6;
}

/**
 * ip_guest_addr() - the guest's address of a family, for inbound flows
 * @family:	AF_INET or AF_INET6
 * @a:		address, set on success
 *
 * Return: false if the family is off or the guest has no address in it
 */
bool ip_guest_addr(int family, union inany_addr *a)
{
	if (!ip_family_on(family))
		return false;
	if (family == AF_INET) {
		inany_from_v4(a, ip_guest.addr4.s_addr ? ip_guest.addr4 :
							 ip_net_now.addr4);
		return !inany_is_unspecified(a);
	}
	if (!IN6_IS_ADDR_UNSPECIFIED(&ip_guest.addr6))
		a->a6 = ip_guest.addr6;
	else if (!IN6_IS_ADDR_UNSPECIFIED(&ip_net_now.addr6))
		a->a6 = ip_net_now.addr6;
	else
		a->a6 = ip_guest.addr6_ll;
	return !IN6_IS_ADDR_UNSPECIFIED(&a->a6);
}

/**
 * ip_sock_bind_device() - bind a socket to a device, and learn its index
 * @s:		socket
 * @ifname:	device name
 * @ifi:	its index, set on success (a link-local address's scope)
 *
 * The socket tells the index, in whichever namespace it is, where
 * if_nametoindex() would need an ioctl() the sandbox refuses (auto ports
 * bind after it closed).
 *
 * Return: 0 on success, -1 with errno set on failure
 */
static int ip_sock_bind_device(int s, const char *ifname, unsigned int *ifi)
{
	socklen_t sl = sizeof(int);
	int index;

	if (setsockopt(s, SOL_SOCKET, SO_BINDTODEVICE, ifname,
		       strlen(ifname)) ||
	    getsockopt(s, SOL_SOCKET, SO_BINDTOIFINDEX, &index, &sl))
		return -1;
	*ifi = (unsigned int)index;
	return 0;
}

/**
 * ip_sock_bind() - a socket bound to a port for a forwarding rule
 * @c:		execution context
 * @type:	SOCK_STREAM or SOCK_DGRAM
 * @addr:	address to bind to, NULL for every address
 * @ifname:	device to bind to, empty for none
 * @port:	port, host order
 *
 * Without an address, one dual-stack IPv6 socket serves both families:
 * IPv4 peers show up as IPv4-mapped addresses, which is our form of IPv4
 * anyway, and a family the host gets later (follow.c) is served at once.
 * With -6 it takes IPv6 only; with -4, or if the kernel has no IPv6, it is
 * an IPv4 socket. With an address, the socket is of its family only.
 *
 * Return: socket, or -errno
 */
int ip_sock_bind(const struct ctx *c, int type, const union inany_addr *addr,
		 const char *ifname, uint16_t port)
{
	int s, one = 1, ret = 0;
	/* A family off until the host has it gets its listeners now */
	int v6only = (ip_net_now.ip4_off && !ip_net_now.ip4_wait) || addr;
	union inany_addr any = { .a6 = in6addr_any };
	unsigned int scope = c->host_ifi;
	union sockaddr_inany sa;
	socklen_t sl;

	if (addr)
		any = *addr;
	else if (ip_net_now.ip6_off && !ip_net_now.ip6_wait)
		inany_from_v4(&any, (struct in_addr){ htonl(INADDR_ANY) });
	s = socket(inany_family(&any), type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0 && errno == EAFNOSUPPORT && !addr && !inany_is_v4(&any)) {
		/* No IPv6 on this host */
		inany_from_v4(&any, (struct in_addr){ htonl(INADDR_ANY) });
		s = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	}
	if (s < 0)
		return -errno;

	if (type == SOCK_STREAM)
		setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (c->freebind)
		setsockopt(s, SOL_IP, IP_FREEBIND, &one, sizeof(one));
	if ((!inany_is_v4(&any) &&
	     setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &v6only,
			sizeof(v6only))) ||
	    (ifname[0] && ip_sock_bind_device(s, ifname, &scope)))
		ret = -errno;
	sl = sockaddr_from_inany(&sa, &any, port, scope);
	if (!ret && bind(s, &sa.sa, sl))
		ret = -errno;
	if (ret) {
		close(s);
		return ret;
	}
	return s;
}

/**
 * ip_flow_key_check() - could the guest have this flow? A migration's
 *			 state says it had, elsewhere
 * @key:	flow key, as loaded
 *
 * Return: NULL if it could, else what is wrong with it
 */
const char *ip_flow_key_check(const struct flow_key *key)
{
	union inany_addr guest;

	bool echo = key->proto == IPPROTO_ICMP || key->proto == IPPROTO_ICMPV6;

	if ((!echo && (!key->gport || !key->pport)) ||
	    !inany_v4(&key->gaddr) != !inany_v4(&key->paddr) ||
	    inany_is_unspecified(&key->paddr) ||
	    inany_is_multicast(&key->paddr))
		return "addresses";
	if (!ip_family_on(inany_family(&key->gaddr)))
		return "a family off here";
	if (!ip_guest_uses(&key->gaddr) &&
	    !(ip_guest_addr(inany_family(&key->gaddr), &guest) &&
	      inany_equals(&guest, &key->gaddr)))
		return "not the guest's address";
	if (flow_lookup(key) >= 0)
		return "a flow we have";
	return NULL;
}
