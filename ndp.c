// SPDX-License-Identifier: GPL-2.0-or-later
/* ndp.c - Neighbour Discovery with the guest: we are its router, and every
 * neighbour it has
 *
 * Theory of operation: as with ARP (arp.c), every address but the guest's
 * own is behind us. A Neighbour Solicitation for any other target gets a
 * Neighbour Advertisement with our MAC address in a Target Link-Layer
 * Address option, flagged Router, Solicited and Override (RFC 4861, 7.2.4),
 * sent from the target address to the soliciting one. Solicitations for the
 * guest's own addresses (configured, or last seen as its sources) and
 * duplicate address detection probes (source ::, RFC 4862, 5.4.2) get
 * nothing: each address the guest tries must look free to it. A probe's
 * target is the guest's from then on, for inbound flows: a new SLAAC
 * address after the prefix changed (follow.c) is known before the guest
 * sends anything from it.
 *
 * We are also the guest's only router, unless --no-ra. Router Advertisements
 * go from our link-local address to all nodes (ff02::1) with: current hop
 * limit 64, the M and O flags if our DHCPv6 server is on, a router lifetime
 * of NDP_LIFETIME_S, our MAC (Source Link-Layer Address), the MTU if it is
 * at least IPv6's 1280 bytes, the prefix of the guest's global address
 * (on-link, autonomous only if 64 bits long, as SLAAC over Ethernet needs,
 * RFC 4862, 5.5.3; infinite lifetimes), and the name servers and search list
 * (RDNSS and DNSSL, RFC 8106), all within the MTU: search domains that don't
 * fit are left out.
 *
 * Timing (RFC 4861, 6.2.4 and 6.2.6): one deadline, ndp_ra.next, for the
 * next multicast RA, solicited or not. ndp_timer() sends the RA when due and
 * sets the next one a random interval later, uniform between
 * MinRtrAdvInterval and MaxRtrAdvInterval but at most
 * MAX_INITIAL_RTR_ADVERT_INTERVAL until MAX_INITIAL_RTR_ADVERTISEMENTS have
 * gone out. The schedule starts when the guest's link comes up (the tap is
 * connected: in passt mode each new guest starts it again), one such initial
 * interval later: a guest solicits as its interface comes up (6.3.7), and a
 * pasta tap still down refuses frames anyway. A valid Router Solicitation
 * moves the deadline earlier, to a random delay of up to MAX_RA_DELAY_TIME,
 * and then at least MIN_DELAY_BETWEEN_RAS after the previous RA.
 *
 * Input checks come first and are complete, for all five types (RFC 4861,
 * 6.1 and 7.1, 8.1): hop limit 255 (nothing from beyond the link can have
 * it), the ICMPv6 checksum (the guest's kernel computes it in full for NDP,
 * offload or not), code 0, the fixed part, then options: each of a non-zero
 * length and ending within the message, nothing after the last one; then
 * the rules of each type (no source link-layer address option from ::, a
 * DAD probe only to a solicited-node address, no multicast target...).
 * Anything failing them is dropped and counted. Valid Router and Neighbour
 * Advertisements and Redirects from the guest need nothing from us.
 */

#include <arpa/inet.h>
#include <netinet/icmp6.h>
#include <string.h>

#include "checksum.h"
#include "dns.h"
#include "ip.h"
#include "log.h"
#include "ndp.h"
#include "passt.h"
#include "link.h"
#include "resolv.h"
#include "util.h"

#define NDP_IPV6_MIN_MTU	1280	/* RFC 8200, 5 */
#define NDP_CUR_HOP_LIMIT	64
/* Router, RDNSS and DNSSL lifetime: the most RFC 4861, 6.2.1 allows for a
 * router, and well over the 3 * MaxRtrAdvInterval RFC 8106, 5.1 asks for
 * name servers: we are the only router, there as long as the link is.
 */
#define NDP_LIFETIME_S		9000
#define NDP_INFINITE		0xffffffff	/* RFC 4861, 4.6.2 */
#define NDP_SLAAC_PREFIX_LEN	64		/* RFC 4862, 5.5.3 */
#define NDP_OPT_RDNSS		25		/* RFC 8106, 5.1 */
#define NDP_OPT_DNSSL		31		/* RFC 8106, 5.2 */
#define NDP_OPT_UNIT		8		/* unit of option lengths */
#define NDP_OPT_LEN_MAX		(255 * NDP_OPT_UNIT)
#define NDP_NA_LEN		(sizeof(struct nd_neighbor_advert) + \
				 NDP_OPT_UNIT)
/* Our largest RA: header, link-layer address, MTU, prefix and a withdrawn
 * one, three name servers and the longest DNSSL option
 */
#define NDP_RA_MAX		(16 + 8 + 8 + 32 * 2 + 8 + 16 * DNS6_MAX + \
				 NDP_OPT_LEN_MAX)
/* A prefix the host lost is withdrawn in the RAs sent this long after */
#define NDP_WITHDRAW_MS		(NDP_MAX_INITIAL_RTR_ADVERTISEMENTS * \
				 NDP_MAX_INITIAL_RTR_ADVERT_INTERVAL_MS)

static_assert(NDP_NA_LEN == 32, "NA with one link-layer address option");

/* ff02::1, all nodes on the link (RFC 4291, 2.7.1) */
static const struct in6_addr ndp_all_nodes = {
	.s6_addr = { 0xff, 0x02, [15] = 0x01 },
};

/**
 * struct ndp_ra_sched - when our next multicast Router Advertisement is due
 * @up:		the guest's link is up, and we advertise on it
 * @sent:	RAs sent since it came up, counted up to
 *		MAX_INITIAL_RTR_ADVERTISEMENTS
 * @last:	when the last one was sent (ms), valid if @sent
 * @next:	when the next one is due (ms)
 */
static struct ndp_ra_sched {
	bool up;
	unsigned int sent;
	int64_t last;
	int64_t next;
} ndp_ra;

/**
 * struct ndp_withdrawn - the guest's previous prefix, see ndp_prefix_changed()
 * @addr:	an address in it, unspecified if none
 * @len:	its length
 * @until:	advertised with zero lifetimes until then (ms)
 */
static struct ndp_withdrawn {
	struct in6_addr addr;
	int len;
	int64_t until;
} ndp_withdrawn;

/**
 * union ndp_fixed - the fixed part of a message, copied out of the frame
 * @ih:		ICMPv6 header, common to all
 * @rs:		Router Solicitation (RFC 4861, 4.1)
 * @ra:		Router Advertisement (4.2)
 * @ns:		Neighbour Solicitation (4.3)
 * @na:		Neighbour Advertisement (4.4)
 * @rd:		Redirect (4.5)
 */
union ndp_fixed {
	struct icmp6_hdr ih;
	struct nd_router_solicit rs;
	struct nd_router_advert ra;
	struct nd_neighbor_solicit ns;
	struct nd_neighbor_advert na;
	struct nd_redirect rd;
};

/**
 * struct ndp_out - a message being built, options appended whole
 * @p:		start of the ICMPv6 message
 * @len:	bytes written
 * @size:	bytes we may write (buffer and MTU), a multiple of 8
 */
struct ndp_out {
	uint8_t *p;
	size_t len;
	size_t size;
};

/**
 * ndp_fixed_len() - length of the fixed part of a message type
 * @type:	ICMPv6 type
 *
 * Return: length, 0 if @type is not one of NDP's
 */
static size_t ndp_fixed_len(uint8_t type)
{
	switch (type) {
	case ND_ROUTER_SOLICIT:
		return sizeof(struct nd_router_solicit);
	case ND_ROUTER_ADVERT:
		return sizeof(struct nd_router_advert);
	case ND_NEIGHBOR_SOLICIT:
		return sizeof(struct nd_neighbor_solicit);
	case ND_NEIGHBOR_ADVERT:
		return sizeof(struct nd_neighbor_advert);
	case ND_REDIRECT:
		return sizeof(struct nd_redirect);
	}
	return 0;
}

/**
 * ndp_csum_ok() - verify the ICMPv6 checksum (RFC 4443, 2.3)
 * @l3:		addresses of the packet
 * @v:		the whole ICMPv6 message
 *
 * Return: true if the sum over pseudo-header and message is all ones
 */
static bool ndp_csum_ok(const struct l3_info *l3, struct pkt_view v)
{
	const void *msg;
	uint32_t pseudo;
	size_t len = v.len;

	if (len > UINT16_MAX || !(msg = pkt_pull(&v, len)))
		return false;
	pseudo = csum_pseudo6(&l3->src.a6, &l3->dst.a6, IPPROTO_ICMPV6, len);
	return csum(msg, len, pseudo) == 0;
}

/**
 * ndp_opts_ok() - check the options after the fixed part (RFC 4861, 4.6)
 * @v:		view of the options, to the end of the message
 * @slla:	set if there is a Source Link-Layer Address option
 *
 * Return: true if every option has a non-zero length and ends in @v
 */
static bool ndp_opts_ok(struct pkt_view v, bool *slla)
{
	*slla = false;
	while (v.len) {
		const uint8_t *hdr = pkt_pull(&v, 2);	/* type, length */

		if (!hdr || !hdr[1] || !pkt_pull(&v, hdr[1] * NDP_OPT_UNIT - 2))
			return false;
		if (hdr[0] == ND_OPT_SOURCE_LINKADDR)
			*slla = true;
	}
	return true;
}

/**
 * ndp_is_solicited_node() - is this a solicited-node multicast address?
 * @a:		address
 *
 * Return: true for ff02::1:ff00:0/104 (RFC 4291, 2.7.1)
 */
static bool ndp_is_solicited_node(const struct in6_addr *a)
{
	static const uint8_t prefix[13] = { 0xff, 0x02, [11] = 0x01,
					    [12] = 0xff };

	return !memcmp(a->s6_addr, prefix, sizeof(prefix));
}

/**
 * ndp_type_ok() - the rules of each message type (RFC 4861, 6.1, 7.1, 8.1)
 * @l3:		addresses of the packet
 * @f:		fixed part of the message
 * @slla:	a Source Link-Layer Address option is present
 *
 * Return: true if the message is valid for its type
 */
static bool ndp_type_ok(const struct l3_info *l3, const union ndp_fixed *f,
			bool slla)
{
	bool unspec = IN6_IS_ADDR_UNSPECIFIED(&l3->src.a6);

	switch (f->ih.icmp6_type) {
	case ND_ROUTER_SOLICIT:
		return !(unspec && slla);
	case ND_ROUTER_ADVERT:
		return IN6_IS_ADDR_LINKLOCAL(&l3->src.a6);
	case ND_NEIGHBOR_SOLICIT:
		if (IN6_IS_ADDR_MULTICAST(&f->ns.nd_ns_target))
			return false;
		return !unspec ||
		       (ndp_is_solicited_node(&l3->dst.a6) && !slla);
	case ND_NEIGHBOR_ADVERT:
		if (IN6_IS_ADDR_MULTICAST(&f->na.nd_na_target))
			return false;
		return !IN6_IS_ADDR_MULTICAST(&l3->dst.a6) ||
		       !(f->na.nd_na_flags_reserved & ND_NA_FLAG_SOLICITED);
	case ND_REDIRECT:
		return IN6_IS_ADDR_LINKLOCAL(&l3->src.a6) &&
		       !IN6_IS_ADDR_MULTICAST(&f->rd.nd_rd_dst) &&
		       (IN6_IS_ADDR_LINKLOCAL(&f->rd.nd_rd_target) ||
			IN6_ARE_ADDR_EQUAL(&f->rd.nd_rd_target,
					   &f->rd.nd_rd_dst));
	}
	return false;
}

/**
 * ndp_parse() - check a message completely, and copy out its fixed part
 * @l3:		addresses and hop limit of the packet
 * @v:		the ICMPv6 message, trimmed to the IPv6 payload length
 * @f:		fixed part, set on success
 *
 * Return: true if the message is valid (see the theory of operation)
 */
static bool ndp_parse(const struct l3_info *l3, struct pkt_view v,
		      union ndp_fixed *f)
{
	struct pkt_view peek = v;
	const uint8_t *type = pkt_pull(&peek, 1);
	size_t fixed = type ? ndp_fixed_len(*type) : 0;
	const void *hdr;
	bool slla;

	if (!fixed || l3->hop_limit != IP6_HOP_LIMIT_NDP ||
	    !ndp_csum_ok(l3, v) || !(hdr = pkt_pull(&v, fixed)))
		return false;
	memcpy(f, hdr, fixed);
	return f->ih.icmp6_code == 0 && ndp_opts_ok(v, &slla) &&
	       ndp_type_ok(l3, f, slla);
}

/**
 * ndp_stand_in() - do we answer for this target?
 * @l3:		addresses of the solicitation
 * @target:	target address
 *
 * Return: true for any unicast address but the guest's own
 */
static bool ndp_stand_in(const struct l3_info *l3,
			 const struct in6_addr *target)
{
	if (IN6_IS_ADDR_UNSPECIFIED(target) || IN6_IS_ADDR_LOOPBACK(target) ||
	    IN6_IS_ADDR_V4MAPPED(target))
		return false;
	return !IN6_ARE_ADDR_EQUAL(target, &l3->src.a6) &&
	       !IN6_ARE_ADDR_EQUAL(target, &ip_net()->addr6) &&
	       !ip_guest_uses(&(union inany_addr){ .a6 = *target });
}

/**
 * ndp_na_send() - advertise our MAC address for a target (RFC 4861, 7.2.4)
 * @c:		execution context
 * @target:	target of the solicitation, also our source address
 * @dst:	source of the solicitation
 */
static void ndp_na_send(struct ctx *c, const struct in6_addr *target,
			const union inany_addr *dst)
{
	uint8_t buf[FRAME_L4_OFF + NDP_NA_LEN] __attribute__((aligned(8)));
	struct nd_neighbor_advert *na;
	union inany_addr src = { .a6 = *target };
	struct link_frame frame;
	uint8_t *tlla;

	na = (struct nd_neighbor_advert *)(buf + FRAME_L4_OFF);
	tlla = (uint8_t *)(na + 1);
	memset(na, 0, NDP_NA_LEN);
	na->nd_na_type = ND_NEIGHBOR_ADVERT;
	na->nd_na_flags_reserved = ND_NA_FLAG_ROUTER | ND_NA_FLAG_SOLICITED |
				   ND_NA_FLAG_OVERRIDE;
	na->nd_na_target = *target;
	tlla[0] = ND_OPT_TARGET_LINKADDR;
	tlla[1] = 1;
	memcpy(tlla + 2, c->mac_ours, ETH_ADDR_LEN);

	frame = ip_frame(c, buf, &src, dst, IPPROTO_ICMPV6, NDP_NA_LEN);
	link_send(c, &frame, 1);
}

/**
 * ndp_rand_ms() - a random time
 * @lo:		shortest, ms
 * @hi:		longest, ms
 *
 * Return: uniform between @lo and @hi, inclusive
 */
static int64_t ndp_rand_ms(int64_t lo, int64_t hi)
{
	return lo + (int64_t)(random_u64() % (uint64_t)(hi - lo + 1));
}

/**
 * ndp_ra_interval() - time from one multicast RA to the next
 *
 * Return: ms, uniform between MinRtrAdvInterval and MaxRtrAdvInterval, at
 *	   most MAX_INITIAL_RTR_ADVERT_INTERVAL for the first few (6.2.4)
 */
static int64_t ndp_ra_interval(void)
{
	int64_t t = ndp_rand_ms(NDP_MIN_RTR_ADV_INTERVAL_MS,
				NDP_MAX_RTR_ADV_INTERVAL_MS);

	if (ndp_ra.sent < NDP_MAX_INITIAL_RTR_ADVERTISEMENTS)
		t = MIN(t, NDP_MAX_INITIAL_RTR_ADVERT_INTERVAL_MS);
	return t;
}

/**
 * ndp_ra_up() - follow the guest's link: start or stop advertising
 * @c:		execution context
 *
 * We need a link-local source address: hosts drop other RAs (6.1.2).
 *
 * Return: true if we advertise now
 */
static bool ndp_ra_up(const struct ctx *c)
{
	const struct guest_net *net = ip_net();

	if (c->fd_tap < 0 || c->no_ndp || c->no_ra || net->ip6_off ||
	    !IN6_IS_ADDR_LINKLOCAL(&net->ll6_ours)) {
		ndp_ra.up = false;
		return false;
	}
	if (!ndp_ra.up) {
		ndp_ra = (struct ndp_ra_sched){ .up = true };
		ndp_ra.next = c->now + ndp_ra_interval();
	}
	return true;
}

/**
 * ndp_ra_solicited() - move the next RA earlier for a solicitation (6.2.6)
 * @c:		execution context
 */
static void ndp_ra_solicited(const struct ctx *c)
{
	int64_t delay, due;

	if (!ndp_ra_up(c))
		return;
	delay = ndp_rand_ms(0, NDP_MAX_RA_DELAY_TIME_MS);
	due = c->now + delay;
	if (ndp_ra.sent && c->now - ndp_ra.last < NDP_MIN_DELAY_BETWEEN_RAS_MS)
		due = ndp_ra.last + NDP_MIN_DELAY_BETWEEN_RAS_MS + delay;
	ndp_ra.next = MIN(ndp_ra.next, due);
}

/**
 * ndp_opt_put() - append a zeroed option with its type and length
 * @o:		message being built
 * @type:	option type
 * @len:	option length in bytes, a multiple of 8
 *
 * Return: the option, NULL if it doesn't fit (message unchanged)
 */
static uint8_t *ndp_opt_put(struct ndp_out *o, uint8_t type, size_t len)
{
	uint8_t *opt = o->p + o->len;

	assert(len && len % NDP_OPT_UNIT == 0 && len <= NDP_OPT_LEN_MAX);
	if (o->size - o->len < len)
		return NULL;
	memset(opt, 0, len);
	opt[0] = type;
	opt[1] = len / NDP_OPT_UNIT;
	o->len += len;
	return opt;
}

/**
 * ndp_opt_put_dns() - append an RDNSS or DNSSL option (RFC 8106, 5)
 * @o:		message being built
 * @type:	NDP_OPT_RDNSS or NDP_OPT_DNSSL
 * @data:	addresses, or names in DNS wire format
 * @len:	length of @data, padded with zeroes to 8-byte units
 */
static void ndp_opt_put_dns(struct ndp_out *o, uint8_t type, const void *data,
			    size_t len)
{
	uint32_t lifetime = htonl(NDP_LIFETIME_S);
	uint8_t *opt = ndp_opt_put(o, type, ROUND_UP(8 + len, NDP_OPT_UNIT));

	if (!opt)
		return;
	memcpy(opt + 4, &lifetime, sizeof(lifetime));	/* after reserved */
	memcpy(opt + 8, data, len);
}

/**
 * ndp_prefix_put() - a Prefix Information option
 * @o:		message being built
 * @addr:	an address in the prefix
 * @len:	prefix length
 * @lifetime:	valid and preferred lifetime (s): NDP_INFINITE, or 0 to
 *		withdraw it
 *
 * None for an unspecified or link-local address, or an invalid length
 */
static void ndp_prefix_put(struct ndp_out *o, const struct in6_addr *addr,
			   int len, uint32_t lifetime)
{
	struct nd_opt_prefix_info *pi;
	int i, bits;

	if (IN6_IS_ADDR_UNSPECIFIED(addr) || IN6_IS_ADDR_LINKLOCAL(addr) ||
	    len < 1 || len > 128)
		return;
	pi = (struct nd_opt_prefix_info *)
	     ndp_opt_put(o, ND_OPT_PREFIX_INFORMATION, sizeof(*pi));
	if (!pi)
		return;
	pi->nd_opt_pi_prefix_len = len;
	pi->nd_opt_pi_flags_reserved = ND_OPT_PI_FLAG_ONLINK;
	if (len == NDP_SLAAC_PREFIX_LEN)
		pi->nd_opt_pi_flags_reserved |= ND_OPT_PI_FLAG_AUTO;
	pi->nd_opt_pi_valid_time = htonl(lifetime);
	pi->nd_opt_pi_preferred_time = htonl(lifetime);
	/* Bits past the prefix length are zero (4.6.2) */
	for (i = 0; i < 16; i++) {
		bits = MIN(MAX(len - i * 8, 0), 8);
		pi->nd_opt_pi_prefix.s6_addr[i] = addr->s6_addr[i] &
						  (uint8_t)(0xff00 >> bits);
	}
}

/**
 * ndp_same_prefix() - do two addresses share a prefix?
 * @a:		address
 * @b:		address
 * @len:	prefix length, 0 to 128
 *
 * Return: true if their first @len bits are the same
 */
static bool ndp_same_prefix(const struct in6_addr *a, const struct in6_addr *b,
			    int len)
{
	int i, bits;

	for (i = 0; i < 16; i++) {
		bits = MIN(MAX(len - i * 8, 0), 8);
		if ((a->s6_addr[i] ^ b->s6_addr[i]) & (uint8_t)(0xff00 >> bits))
			return false;
	}
	return true;
}

/**
 * ndp_prefix_fill() - the guest's prefix, and the one it had, if recent
 * @c:		execution context
 * @o:		message being built
 *
 * The previous prefix goes with zero lifetimes: deprecated at once, and
 * removed as soon as the guest allows (RFC 9096; RFC 4862, 5.5.3 e keeps
 * it two hours, unused for new connections)
 */
static void ndp_prefix_fill(const struct ctx *c, struct ndp_out *o)
{
	const struct guest_net *net = ip_net();

	ndp_prefix_put(o, &net->addr6, net->prefix6, NDP_INFINITE);
	if (c->now < ndp_withdrawn.until)
		ndp_prefix_put(o, &ndp_withdrawn.addr, ndp_withdrawn.len, 0);
}

/**
 * ndp_dns_usable() - the address the guest can reach a name server at
 * @a:		name server of the host
 * @use:	address to advertise, set on success
 *
 * The host's loopback is offered as the gateway, which ip_gw_to_host() maps
 * back; link-local servers are on a link of the host, not the guest's.
 *
 * Return: false if the guest can't reach it
 */
static bool ndp_dns_usable(const struct in6_addr *a, struct in6_addr *use)
{
	const struct guest_net *net = ip_net();

	if (IN6_IS_ADDR_LOOPBACK(a)) {
		if (!inany_is_set(&net->map_host_lo[INANY_V6]))
			return false;
		*use = net->map_host_lo[INANY_V6].a6;
		return true;
	}
	if (IN6_IS_ADDR_UNSPECIFIED(a) || IN6_IS_ADDR_MULTICAST(a) ||
	    IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_V4MAPPED(a))
		return false;
	*use = *a;
	return true;
}

/**
 * ndp_dns_offer() - the IPv6 name servers router advertisements hand out
 * @c:		execution context
 * @dns:	DNS6_MAX addresses, set
 *
 * Return: how many
 */
int ndp_dns_offer(const struct ctx *c, struct in6_addr *dns)
{
	const struct dns_offer *offer = resolv_offer();
	int i, n = 0;

	for (i = 0; !c->no_dhcp_dns && i < offer->dns6_n && i < DNS6_MAX;
	     i++) {
		if (ndp_dns_usable(&offer->dns6[i], &dns[n]))
			n++;
	}
	return n;
}

/**
 * ndp_rdnss_fill() - the RDNSS option, if there are name servers to give
 * @c:		execution context
 * @o:		message being built
 */
static void ndp_rdnss_fill(const struct ctx *c, struct ndp_out *o)
{
	struct in6_addr dns[DNS6_MAX];
	int n = ndp_dns_offer(c, dns);

	if (n)
		ndp_opt_put_dns(o, NDP_OPT_RDNSS, dns, n * sizeof(dns[0]));
}

/**
 * ndp_dnssl_fill() - the DNSSL option: the search domains that fit
 * @c:		execution context
 * @o:		message being built
 */
static void ndp_dnssl_fill(const struct ctx *c, struct ndp_out *o)
{
	const struct dns_offer *offer = resolv_offer();
	uint8_t names[NDP_OPT_LEN_MAX - 8];
	size_t room = MIN(o->size - o->len, NDP_OPT_LEN_MAX), len = 0, n;
	int i;

	if (c->no_dhcp_search || room <= 8)
		return;
	room -= 8;	/* type, length, reserved, lifetime */
	for (i = 0; i < offer->search_n && i < DNS_SEARCH_MAX; i++) {
		n = dns_name_encode(offer->search[i], names + len, room - len);
		if (!n)
			debug("NDP: search domain '%s' left out",
			      offer->search[i]);
		len += n;
	}
	if (len)
		ndp_opt_put_dns(o, NDP_OPT_DNSSL, names, len);
}

/**
 * ndp_ra_build() - a Router Advertisement with all its options (4.2)
 * @c:		execution context
 * @msg:	where the ICMPv6 message goes
 * @size:	room for it, a multiple of 8
 *
 * Return: message length
 */
static size_t ndp_ra_build(const struct ctx *c, uint8_t *msg, size_t size)
{
	struct nd_router_advert *ra = (struct nd_router_advert *)msg;
	struct ndp_out o = { msg, sizeof(*ra), size };
	struct nd_opt_mtu *mtu;
	uint8_t *slla;

	assert(size >= NDP_IPV6_MIN_MTU - sizeof(struct ipv6hdr));
	memset(ra, 0, sizeof(*ra));
	ra->nd_ra_type = ND_ROUTER_ADVERT;
	ra->nd_ra_curhoplimit = NDP_CUR_HOP_LIMIT;
	if (!c->no_dhcpv6)
		ra->nd_ra_flags_reserved = ND_RA_FLAG_MANAGED |
					   ND_RA_FLAG_OTHER;
	ra->nd_ra_router_lifetime = htons(NDP_LIFETIME_S);

	/* These two always fit: @size is at least 1280 - 40 bytes */
	slla = ndp_opt_put(&o, ND_OPT_SOURCE_LINKADDR, NDP_OPT_UNIT);
	memcpy(slla + 2, c->mac_ours, ETH_ADDR_LEN);
	if (c->mtu >= NDP_IPV6_MIN_MTU && !c->mtu_no_assign) {
		mtu = (struct nd_opt_mtu *)ndp_opt_put(&o, ND_OPT_MTU,
						       sizeof(*mtu));
		mtu->nd_opt_mtu_mtu = htonl(c->mtu);
	}
	ndp_prefix_fill(c, &o);
	ndp_rdnss_fill(c, &o);
	ndp_dnssl_fill(c, &o);
	return o.len;
}

/**
 * ndp_ra_send() - send a Router Advertisement to all nodes
 * @c:		execution context
 */
static void ndp_ra_send(struct ctx *c)
{
	static uint8_t buf[FRAME_L4_OFF + NDP_RA_MAX]
		__attribute__((aligned(8)));
	union inany_addr src = { .a6 = ip_net()->ll6_ours };
	union inany_addr dst = { .a6 = ndp_all_nodes };
	uint8_t *msg = buf + FRAME_L4_OFF;
	struct link_frame frame;
	size_t size, len;

	size = MAX(c->mtu, NDP_IPV6_MIN_MTU) - sizeof(struct ipv6hdr);
	size = MIN(size, NDP_RA_MAX) / NDP_OPT_UNIT * NDP_OPT_UNIT;
	len = ndp_ra_build(c, msg, size);

	frame = ip_frame(c, buf, &src, &dst, IPPROTO_ICMPV6, len);
	link_send(c, &frame, 1);
}

/**
 * ndp_dad_seen() - the guest checks that an address is free: it takes it
 * @target:	the address (a valid probe's target is unicast, 7.1.1)
 *
 * Its new address in a new prefix (follow.c) is known from here, before
 * it sends anything from it: inbound flows reach it. Only a link-local
 * address, or one in the prefix we advertise, and never ours.
 */
static void ndp_dad_seen(const struct in6_addr *target)
{
	const struct guest_net *net = ip_net();

	if (IN6_ARE_ADDR_EQUAL(target, &net->gw6) ||
	    IN6_ARE_ADDR_EQUAL(target, &net->ll6_ours))
		return;
	if (IN6_IS_ADDR_LINKLOCAL(target) ||
	    (!IN6_IS_ADDR_UNSPECIFIED(&net->addr6) &&
	     ndp_same_prefix(target, &net->addr6, net->prefix6)))
		ip_guest_seen(&(union inany_addr){ .a6 = *target });
}

/**
 * ndp_input() - handle an NDP message from the guest
 * @c:		execution context
 * @l3:		addresses and hop limit of the packet
 * @v:		the ICMPv6 message (types 133 to 137), to the end of the
 *		IPv6 payload
 */
void ndp_input(struct ctx *c, const struct l3_info *l3, struct pkt_view v)
{
	union ndp_fixed f;

	if (!ndp_parse(l3, v, &f)) {
		pkt_drop(DROP_NDP_MALFORMED);
		return;
	}

	switch (f.ih.icmp6_type) {
	case ND_NEIGHBOR_SOLICIT:
		/* No answer to duplicate address detection: the address is
		 * the guest's to take, and inbound flows go there
		 */
		if (IN6_IS_ADDR_UNSPECIFIED(&l3->src.a6))
			ndp_dad_seen(&f.ns.nd_ns_target);
		else if (ndp_stand_in(l3, &f.ns.nd_ns_target))
			ndp_na_send(c, &f.ns.nd_ns_target, &l3->src);
		break;
	case ND_ROUTER_SOLICIT:
		ndp_ra_solicited(c);	/* ndp_timer() sends it */
		break;
	default:
		break;
	}
}

/**
 * ndp_timer() - send the Router Advertisement that is due, if any
 * @c:		execution context, with c->now set
 *
 * Return: when the next one is due (ms), INT64_MAX if none is
 */
int64_t ndp_timer(struct ctx *c)
{
	if (!ndp_ra_up(c))
		return INT64_MAX;
	if (c->now >= ndp_ra.next) {
		ndp_ra_send(c);
		if (ndp_ra.sent < NDP_MAX_INITIAL_RTR_ADVERTISEMENTS)
			ndp_ra.sent++;
		ndp_ra.last = c->now;
		ndp_ra.next = c->now + ndp_ra_interval();
	}
	return ndp_ra.next;
}

/**
 * ndp_prefix_changed() - the guest's address changed: tell it now
 * @c:		execution context, with the new address
 * @old:	its previous address
 * @old_len:	that one's prefix length
 *
 * The next RAs (an initial burst, starting at once, or as soon as the last
 * one allows: 6.2.4 and 6.2.6) announce the new prefix and withdraw the
 * old one, if it differs.
 */
void ndp_prefix_changed(struct ctx *c, const struct in6_addr *old, int old_len)
{
	const struct guest_net *net = ip_net();

	if (old_len != net->prefix6 ||
	    !ndp_same_prefix(old, &net->addr6, old_len)) {
		ndp_withdrawn = (struct ndp_withdrawn){
			.addr = *old, .len = old_len,
			.until = c->now + NDP_WITHDRAW_MS,
		};
	}
	if (!ndp_ra_up(c))
		return;
	ndp_ra.next = c->now;
	if (ndp_ra.sent)
		ndp_ra.next = MAX(c->now,
				  ndp_ra.last + NDP_MIN_DELAY_BETWEEN_RAS_MS);
	ndp_ra.sent = 0;
}
