/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef IP_H
#define IP_H

#include <netinet/in.h>	/* before linux/ipv6.h: glibc's in6_addr */
#include <linux/if_ether.h>
#include <linux/ipv6.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "inany.h"
#include "link.h"
#include "pkt.h"

struct ctx;
struct guest_net;
struct flow_key;

/*
 * Frame buffer layout for everything we build: the L4 header always starts
 * at FRAME_L4_OFF, 8-byte aligned, whatever the family; the IPv6 header
 * (40 bytes) or the IPv4 header (20 bytes) ends right before it, and the
 * Ethernet header before that. ip_frame() returns where the frame starts.
 * Our frames have no IP options or extension headers.
 */
#define FRAME_PAD		2
#define FRAME_L4_OFF		(FRAME_PAD + ETH_HLEN + 40)
#define FRAME_BUF_SIZE		(FRAME_L4_OFF + 65536)

#define DNS_PORT		53

/* Hop limit of the NDP messages we send and accept (RFC 4861, 6.1.2, 7.1.1) */
#define IP6_HOP_LIMIT_NDP	255

/**
 * struct l3_info - what the L4 handlers learn of a checked IP packet
 * @src:	source address
 * @dst:	destination address
 * @proto:	L4 protocol (IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ICMP,
 *		IPPROTO_ICMPV6)
 * @hop_limit:	IPv4 TTL or IPv6 hop limit
 * @df:		no one may fragment it on the way: IPv4 with DF; IPv6 unless
 *		the guest fragmented it (no router fragments IPv6)
 * @frag:	a fragment (IPv4: MF or an offset; IPv6: a fragment header),
 *		the L4 view its part of the datagram: for frag_add()
 * @frag_more:	more fragments follow it
 * @frag_off:	where its part goes in the datagram, bytes
 * @frag_id:	the datagram's identification
 */
struct l3_info {
	union inany_addr src;
	union inany_addr dst;
	uint8_t proto;
	uint8_t hop_limit;
	bool df;
	bool frag;
	bool frag_more;
	uint16_t frag_off;
	uint32_t frag_id;
};

/**
 * struct guest_fam - the guest's configuration in one family
 * @addr:	address, unspecified for none (IPv6: link-local only)
 * @prefix:	its prefix length
 * @gw:		default gateway
 */
struct guest_fam {
	union inany_addr addr;
	int prefix;
	union inany_addr gw;
};

void ip_net_init(const struct ctx *c);
const struct guest_net *ip_net(void);
void ip_net_fam(int family, struct guest_fam *g);
void ip_net_update(const struct ctx *c, int family, const struct guest_fam *g);
void ip_family_wake(int family);
bool ip_family_on(int family);
int ip4_parse(struct pkt_view v, size_t *tail_len, struct l3_info *l3,
	      struct pkt_view *l4);
int ip6_parse(struct pkt_view v, size_t *tail_len, struct l3_info *l3,
	      struct pkt_view *l4);
int ip_l4_policy(const struct ctx *c, const struct l3_info *l3,
		 struct pkt_view l4);
bool ip_is_ndp(const struct l3_info *l3, struct pkt_view l4);
void ip_guest_seen(const union inany_addr *a);
void ip_guest_addrs(struct in_addr *addr4, struct in6_addr *addr6,
		    struct in6_addr *addr6_ll);
void ip_guest_assign(const union inany_addr *a);
bool ip_guest_uses(const union inany_addr *a);
struct link_frame ip_frame_gso(const struct ctx *c, uint8_t *buf,
			       const union inany_addr *src,
			       const union inany_addr *dst, uint8_t proto,
			       size_t l4_len, size_t gso_size);
struct link_frame ip_frame(const struct ctx *c, uint8_t *buf,
			   const union inany_addr *src,
			   const union inany_addr *dst, uint8_t proto,
			   size_t l4_len);
int ip_flow_sock(struct ctx *c, int type, int proto,
		 const union inany_addr *paddr, uint16_t port, uint16_t sport,
		 union sockaddr_inany *sa, socklen_t *sl);
int ip_sock_outbound(const struct ctx *c, int s, int family, uint16_t sport);
bool ip_dst_direct(const struct ctx *c, const union inany_addr *a,
		   uint16_t port);
void ip_inbound_peer(const struct ctx *c, union inany_addr *peer);
int ip_dns_up(const struct ctx *c, const union inany_addr *a, uint16_t port);
bool ip_guest_addr(int family, union inany_addr *a);
const char *ip_flow_key_check(const struct flow_key *key);
int ip_sock_bind(const struct ctx *c, int type, const union inany_addr *addr,
		 const char *ifname, uint16_t port);

#endif /* IP_H */
