// SPDX-License-Identifier: GPL-2.0-or-later
/* dhcp.c - DHCP server: one guest, one lease
 *
 * Theory of operation: passt hands its guest the address, prefix length and
 * gateway it copied from the host (ip_net(): addr4, prefix4, gw4), so there
 * is exactly one lease, no pool and no state: whoever asks on the link gets
 * that address, for an infinite lease time (RFC 2131, 3.3), and DECLINE and
 * RELEASE need no answer. udp.c hands us each datagram the guest sends from
 * port 68 to port 67, trimmed to the UDP length.
 *
 * Parse, decide, emit. dhcp_parse() checks the fixed BOOTP header (RFC 2131,
 * 2: op, htype 1, hlen 6, magic cookie) and walks the options through the
 * pkt_view cursor: every (code, length) pair must fit in what is left, the
 * options we read must have their exact length and appear once (a repeated
 * one would be a concatenation, RFC 3396, of the wrong length), pad (0) is
 * skipped and end (255) stops the walk; options we don't use are skipped
 * whole. A message that fails any check is dropped as DROP_DHCP_MALFORMED
 * and gets no reply. dhcp_decide() maps the request onto a reply following
 * the client states of RFC 2131, 4.3.2: DISCOVER gets an OFFER, or at once
 * an ACK with Rapid Commit (RFC 4039); REQUEST gets an ACK, or a NAK if it
 * asks for another address (SELECTING and INIT-REBOOT name it in option 50,
 * RENEWING and REBINDING in ciaddr), and no reply if it selects another
 * server; INFORM gets an ACK with configuration but no lease (4.3.5).
 * dhcp_reply() builds the frame: message type, server identifier (the
 * gateway address, also the source address), then for a lease the lease
 * time, and the configuration: subnet mask, router, interface MTU, name
 * servers and domain search list (RFC 3397), within the size the client
 * accepts (option 57, or else the 576-byte datagram every client must take,
 * RFC 2131, 2), dropping whole options from the end of that list if needed.
 * Replies go to the guest's MAC address; the IP destination is the
 * broadcast address unless the client has an address (ciaddr) and didn't
 * set the broadcast flag (RFC 2131, 4.1).
 *
 * Not supported: option overload (52), whose extra options in 'sname' and
 * 'file' we ignore, relay agents (giaddr is echoed, nothing more), and
 * plain BOOTP (no message type), which is dropped as malformed.
 *
 * Name servers and the search list come from -D and -S, or else from
 * /etc/resolv.conf, followed as it changes (resolv.c). A name server on the
 * host's loopback is offered as the gateway address, which udp.c maps to
 * 127.0.0.1: that works for 127.0.0.1 only, so other loopback addresses
 * (127.0.0.53, systemd-resolved) are left out.
 */

#include <arpa/inet.h>
#include <netinet/udp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dhcp.h"
#include "dns.h"
#include "ip.h"
#include "log.h"
#include "passt.h"
#include "resolv.h"
#include "udp.h"

#define BOOTREQUEST		1
#define BOOTREPLY		2
#define BOOTP_HTYPE_ETHER	1
#define BOOTP_FLAG_BROADCAST	0x8000
#define BOOTP_MIN_LEN		300	/* RFC 1542, 2.1: some clients need it */
#define DHCP_MAGIC		0x63825363	/* RFC 2131, 3 */
#define DHCP_LEASE_INFINITE	0xffffffff	/* RFC 2131, 3.3 */
#define DHCP_DGRAM_MIN		576	/* RFC 2131, 2: every client takes it */
#define DHCP_DGRAM_MAX		1500	/* our cap, whatever option 57 says */
#define DHCP_IP_UDP_LEN		(20 + 8)
#define DHCP_MSG_MAX		(DHCP_DGRAM_MAX - DHCP_IP_UDP_LEN)
#define DHCP_OPT_LEN_MAX	255

/* dhcp_msg_fill(): the smallest reply still has room for all we must send */
static_assert(MTU_MIN >= DHCP_DGRAM_MIN, "a reply must fit in 576 bytes");

/* Message types, option 53 (RFC 2132, 9.6) */
enum dhcp_type {
	DHCPDISCOVER = 1,
	DHCPOFFER,
	DHCPREQUEST,
	DHCPDECLINE,
	DHCPACK,
	DHCPNAK,
	DHCPRELEASE,
	DHCPINFORM,
	DHCP_TYPE_MAX,
};

static const char *const dhcp_type_names[DHCP_TYPE_MAX] = {
	"(none)", "DISCOVER", "OFFER", "REQUEST", "DECLINE", "ACK", "NAK",
	"RELEASE", "INFORM",
};

#define DHCP_FQDN_E		0x04	/* RFC 4702, 2.1: name in wire format */
#define DHCP_FQDN_N		0x08	/* server does no DNS update */

/* Option codes (RFC 2132 unless noted) */
enum dhcp_opt {
	OPT_PAD			= 0,
	OPT_SUBNET_MASK		= 1,
	OPT_ROUTER		= 3,
	OPT_DNS			= 6,
	OPT_HOSTNAME		= 12,
	OPT_MTU			= 26,
	OPT_REQ_ADDR		= 50,
	OPT_LEASE_TIME		= 51,
	OPT_OVERLOAD		= 52,
	OPT_MSG_TYPE		= 53,
	OPT_SERVER_ID		= 54,
	OPT_MAX_SIZE		= 57,
	OPT_RAPID_COMMIT	= 80,	/* RFC 4039 */
	OPT_CLIENT_FQDN		= 81,	/* RFC 4702 */
	OPT_SEARCH		= 119,	/* RFC 3397 */
	OPT_END			= 255,
};

/**
 * struct bootp - fixed part of a BOOTP/DHCP message (RFC 2131, 2), cookie
 * included: every field is naturally aligned, no padding
 */
struct bootp {
	uint8_t op;
	uint8_t htype;
	uint8_t hlen;
	uint8_t hops;
	uint32_t xid;
	uint16_t secs;
	uint16_t flags;
	struct in_addr ciaddr;
	struct in_addr yiaddr;
	struct in_addr siaddr;
	struct in_addr giaddr;
	uint8_t chaddr[16];
	uint8_t sname[64];
	uint8_t file[128];
	uint32_t magic;
};
static_assert(sizeof(struct bootp) == 240, "BOOTP header is 236 + 4 bytes");

/**
 * struct dhcp_req - what we use of a parsed request, copied out of the frame
 * @h:			fixed header
 * @type:		message type (option 53)
 * @req_addr:		requested address (option 50), 0 if absent
 * @server_id:		server identifier (option 54), 0 if absent
 * @max_size:		maximum message size (option 57), 0 if absent
 * @rapid_commit:	Rapid Commit (option 80) present
 */
struct dhcp_req {
	struct bootp h;
	uint8_t type;
	struct in_addr req_addr;
	struct in_addr server_id;
	uint16_t max_size;
	bool rapid_commit;
};

/**
 * struct dhcp_reply_desc - what to answer
 * @type:		DHCPOFFER, DHCPACK or DHCPNAK; 0: no reply
 * @lease:		yiaddr and lease time
 * @config:		subnet mask, router, MTU, name servers, search list
 * @rapid_commit:	echo option 80 (ACK to a DISCOVER)
 */
struct dhcp_reply_desc {
	uint8_t type;
	bool lease;
	bool config;
	bool rapid_commit;
};

/**
 * struct dhcp_out - write cursor over the options of a reply
 * @p:		start of the options
 * @len:	bytes written
 * @max:	room for options, the end option included
 */
struct dhcp_out {
	uint8_t *p;
	size_t len;
	size_t max;
};

static uint8_t dhcp_frame[FRAME_L4_OFF + DHCP_DGRAM_MAX]
	__attribute__((aligned(8)));

/* Guest MAC address that last got a lease, to log each new guest once */
static uint8_t dhcp_leased_mac[ETH_ADDR_LEN];
static bool dhcp_leased;

/**
 * dhcp_pull_u8() - take one byte from a view
 * @v:		view
 * @b:		byte, set on success
 *
 * Return: true on success, false if the view is empty
 */
static bool dhcp_pull_u8(struct pkt_view *v, uint8_t *b)
{
	const uint8_t *p = pkt_pull(v, 1);

	if (!p)
		return false;
	*b = *p;
	return true;
}

/**
 * dhcp_opt_copy() - copy out an option value of an exact length
 * @val:	option value
 * @dst:	destination
 * @len:	the only valid length
 *
 * Return: true if the value has length @len
 */
static bool dhcp_opt_copy(struct pkt_view val, void *dst, size_t len)
{
	if (val.len != len)
		return false;
	if (len)
		memcpy(dst, val.data, len);
	return true;
}

/**
 * dhcp_opt_read() - check and copy out one option, if we use it
 * @r:		request being parsed
 * @code:	option code
 * @val:	option value, as long as its declared length
 * @seen:	options we use already seen, by code
 *
 * Return: false if the option is one we use and its length is wrong, or it
 *	   is repeated: that would be a concatenation (RFC 3396), too long
 */
static bool dhcp_opt_read(struct dhcp_req *r, uint8_t code,
			  struct pkt_view val, bool *seen)
{
	uint16_t size;

	switch (code) {
	case OPT_MSG_TYPE:
	case OPT_REQ_ADDR:
	case OPT_SERVER_ID:
	case OPT_MAX_SIZE:
	case OPT_RAPID_COMMIT:
		if (seen[code])
			return false;
		seen[code] = true;
		break;
	case OPT_OVERLOAD:
		debug("DHCP: option overload not supported, ignored");
		return true;
	default:
		return true;
	}

	switch (code) {
	case OPT_MSG_TYPE:
		return dhcp_opt_copy(val, &r->type, 1);
	case OPT_REQ_ADDR:
		return dhcp_opt_copy(val, &r->req_addr, 4);
	case OPT_SERVER_ID:
		return dhcp_opt_copy(val, &r->server_id, 4);
	case OPT_MAX_SIZE:
		if (!dhcp_opt_copy(val, &size, 2))
			return false;
		r->max_size = ntohs(size);
		return true;
	default: /* OPT_RAPID_COMMIT */
		r->rapid_commit = true;
		return dhcp_opt_copy(val, NULL, 0);
	}
}

/**
 * dhcp_opts_parse() - walk the options after the magic cookie
 * @v:		view of the options, to the end of the UDP payload
 * @r:		request, options we use are filled in
 *
 * Each round takes at least one byte: the walk ends with the view. A
 * missing end option is tolerated, as long as the last option fits.
 *
 * Return: true if the options are well-formed
 */
static bool dhcp_opts_parse(struct pkt_view v, struct dhcp_req *r)
{
	bool seen[256] = { false };
	uint8_t code, len;
	struct pkt_view val;

	while (dhcp_pull_u8(&v, &code)) {
		if (code == OPT_PAD)
			continue;
		if (code == OPT_END)
			return true;
		if (!dhcp_pull_u8(&v, &len) || !pkt_sub(&v, len, &val))
			return false;
		if (!dhcp_opt_read(r, code, val, seen))
			return false;
	}
	return true;
}

/**
 * dhcp_parse() - check a BOOTP message and copy out what we use
 * @v:		view of the UDP payload
 * @r:		request, filled in
 *
 * Return: true if it is a well-formed DHCP request from an Ethernet client
 */
static bool dhcp_parse(struct pkt_view v, struct dhcp_req *r)
{
	const void *h = pkt_pull(&v, sizeof(r->h));

	memset(r, 0, sizeof(*r));
	if (!h)
		return false;
	memcpy(&r->h, h, sizeof(r->h));

	if (r->h.op != BOOTREQUEST || r->h.htype != BOOTP_HTYPE_ETHER ||
	    r->h.hlen != ETH_ADDR_LEN || ntohl(r->h.magic) != DHCP_MAGIC)
		return false;
	if (!dhcp_opts_parse(v, r))
		return false;
	return r->type != 0;	/* plain BOOTP: not served */
}

/**
 * dhcp_decide() - choose the reply to a request (RFC 2131, 4.3)
 * @r:		parsed request
 *
 * Return: reply descriptor, type 0 if there's nothing to send
 */
static struct dhcp_reply_desc dhcp_decide(const struct dhcp_req *r)
{
	const struct guest_net *net = ip_net();
	struct dhcp_reply_desc d = { 0 };
	struct in_addr want;

	switch (r->type) {
	case DHCPDISCOVER:
		d.type = r->rapid_commit ? DHCPACK : DHCPOFFER;
		d.rapid_commit = r->rapid_commit;
		d.lease = d.config = true;
		break;
	case DHCPREQUEST:
		/* SELECTING: the client took another server's offer */
		if (r->server_id.s_addr &&
		    r->server_id.s_addr != net->gw4.s_addr)
			break;
		/* SELECTING, INIT-REBOOT: option 50; RENEWING, REBINDING:
		 * ciaddr. Neither: nothing we can ACK.
		 */
		want = r->req_addr.s_addr ? r->req_addr : r->h.ciaddr;
		d.type = want.s_addr == net->addr4.s_addr ? DHCPACK : DHCPNAK;
		d.lease = d.config = d.type == DHCPACK;
		break;
	case DHCPINFORM:
		d.type = DHCPACK;
		d.config = true;
		break;
	default:
		/* DECLINE, RELEASE: no other address to offer, nothing to
		 * free; OFFER, ACK, NAK are not for a server to answer
		 */
		break;
	}
	return d;
}

/**
 * dhcp_opt_put() - append an option, in pieces of 255 bytes (RFC 3396)
 * @o:		output cursor
 * @code:	option code
 * @val:	value
 * @len:	value length
 *
 * Return: true if it fit with room left for the end option, false (and
 *	   nothing written) otherwise
 */
static bool dhcp_opt_put(struct dhcp_out *o, uint8_t code, const void *val,
			 size_t len)
{
	size_t pieces = len ? (len + DHCP_OPT_LEN_MAX - 1) / DHCP_OPT_LEN_MAX
			    : 1;
	const uint8_t *src = val;
	size_t off = 0;

	if (o->len + len + 2 * pieces + 1 > o->max) {
		debug("DHCP: no room for option %u (%zu bytes)", code, len);
		return false;
	}
	while (pieces--) {
		size_t n = MIN(len - off, (size_t)DHCP_OPT_LEN_MAX);

		o->p[o->len++] = code;
		o->p[o->len++] = n;
		memcpy(o->p + o->len, src + off, n);
		o->len += n;
		off += n;
	}
	return true;
}

/**
 * dhcp_dns_offer() - the IPv4 name servers DHCP hands out
 * @c:		execution context
 * @dns:	DNS4_MAX addresses, set
 *
 * Return: how many
 */
int dhcp_dns_offer(const struct ctx *c, struct in_addr *dns)
{
	const struct guest_net *net = ip_net();
	const struct dns_offer *offer = resolv_offer();
	int i, n = 0;

	for (i = 0; !c->no_dhcp_dns && i < offer->dns4_n && i < DNS4_MAX;
	     i++) {
		if (!resolv_dns_usable(net, offer->dns4[i]))
			continue;
		if (ntohl(offer->dns4[i].s_addr) == INADDR_LOOPBACK)
			/* what stands for the host's loopback (ip.c) */
			dns[n++] = *inany_v4(&net->map_host_lo[INANY_V4]);
		else
			dns[n++] = offer->dns4[i];
	}
	return n;
}

/**
 * dhcp_fqdn_put() - append the Client FQDN option with --fqdn's name
 * @o:		option cursor
 * @fqdn:	the name, checked by conf()
 *
 * RFC 4702, 3.1: flags E (wire format) and N (we update no DNS records),
 * both RCODEs 255 as a server sets them, then the name.
 */
static void dhcp_fqdn_put(struct dhcp_out *o, const char *fqdn)
{
	uint8_t v[3 + DNS_WIRE_NAME_MAX] = { DHCP_FQDN_E | DHCP_FQDN_N,
					     255, 255 };
	size_t len = dns_name_encode(fqdn, v + 3, sizeof(v) - 3);

	if (len && 3 + len <= DHCP_OPT_LEN_MAX)
		dhcp_opt_put(o, OPT_CLIENT_FQDN, v, 3 + len);
}

/**
 * dhcp_opts_config() - append the configuration options
 * @c:		execution context
 * @o:		output cursor
 *
 * In order of importance: the ones at the end are left out first when the
 * reply would be too big for the client.
 */
static void dhcp_opts_config(const struct ctx *c, struct dhcp_out *o)
{
	const struct guest_net *net = ip_net();
	const struct dns_offer *offer = resolv_offer();
	uint8_t search[DNS_SEARCH_MAX * (DNS_NAME_MAX + 2)];
	struct in_addr dns[DNS4_MAX];
	uint32_t mask = net->prefix4 ? ~0U << (32 - net->prefix4) : 0;
	uint16_t mtu = htons(c->mtu);
	size_t len;
	int n;

	mask = htonl(mask);
	dhcp_opt_put(o, OPT_SUBNET_MASK, &mask, sizeof(mask));
	dhcp_opt_put(o, OPT_ROUTER, &net->gw4, sizeof(net->gw4));
	if (!c->mtu_no_assign)
		dhcp_opt_put(o, OPT_MTU, &mtu, sizeof(mtu));

	n = dhcp_dns_offer(c, dns);
	if (n)
		dhcp_opt_put(o, OPT_DNS, dns, n * sizeof(dns[0]));

	if (!c->no_dhcp_search && offer->search_n) {
		len = dns_search_encode(offer, search, sizeof(search));
		if (len)
			dhcp_opt_put(o, OPT_SEARCH, search, len);
	}
	if (c->hostname[0])	/* -H: a name is not NUL-terminated, RFC 2132 */
		dhcp_opt_put(o, OPT_HOSTNAME, c->hostname,
			     MIN(strlen(c->hostname), DHCP_OPT_LEN_MAX));
	if (c->fqdn[0])
		dhcp_fqdn_put(o, c->fqdn);
}

/**
 * dhcp_msg_fill() - write the BOOTP reply: fixed header and options
 * @c:		execution context
 * @r:		request
 * @d:		reply descriptor
 * @msg:	where the message starts, DHCP_MSG_MAX bytes, 4-byte aligned
 *
 * Return: message length
 */
static size_t dhcp_msg_fill(const struct ctx *c, const struct dhcp_req *r,
			    const struct dhcp_reply_desc *d, uint8_t *msg)
{
	const struct guest_net *net = ip_net();
	size_t dgram = r->max_size > DHCP_DGRAM_MIN ? r->max_size
						     : DHCP_DGRAM_MIN;
	struct bootp *h = (struct bootp *)msg;
	uint32_t lease = htonl(DHCP_LEASE_INFINITE);
	struct dhcp_out o = { .p = msg + sizeof(*h) };

	dgram = MIN(dgram, MIN((size_t)c->mtu, (size_t)DHCP_DGRAM_MAX));
	o.max = dgram - DHCP_IP_UDP_LEN - sizeof(*h);

	memset(msg, 0, DHCP_MSG_MAX);
	h->op = BOOTREPLY;
	h->htype = BOOTP_HTYPE_ETHER;
	h->hlen = ETH_ADDR_LEN;
	h->xid = r->h.xid;
	h->flags = r->h.flags;
	h->giaddr = r->h.giaddr;
	memcpy(h->chaddr, r->h.chaddr, sizeof(h->chaddr));
	h->magic = htonl(DHCP_MAGIC);
	if (d->type != DHCPNAK)
		h->ciaddr = r->h.ciaddr;
	if (d->lease)
		h->yiaddr = net->addr4;

	dhcp_opt_put(&o, OPT_MSG_TYPE, &d->type, 1);
	dhcp_opt_put(&o, OPT_SERVER_ID, &net->gw4, sizeof(net->gw4));
	if (d->rapid_commit)
		dhcp_opt_put(&o, OPT_RAPID_COMMIT, "", 0);
	if (d->lease)
		dhcp_opt_put(&o, OPT_LEASE_TIME, &lease, sizeof(lease));
	if (d->config)
		dhcp_opts_config(c, &o);
	o.p[o.len++] = OPT_END;		/* always room: see dhcp_opt_put() */

	return MAX(sizeof(*h) + o.len, (size_t)BOOTP_MIN_LEN);
}

/**
 * dhcp_mac_str() - format a MAC address
 * @mac:	address
 * @buf:	output, at least 18 bytes
 *
 * Return: @buf
 */
static const char *dhcp_mac_str(const uint8_t *mac, char *buf)
{
	snprintf(buf, 18, "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
	return buf;
}

/**
 * dhcp_log() - debug line per reply, info once per guest that gets a lease
 * @r:		request
 * @d:		reply descriptor
 * @dst:	IP destination of the reply
 */
static void dhcp_log(const struct dhcp_req *r,
		     const struct dhcp_reply_desc *d, struct in_addr dst)
{
	const struct guest_net *net = ip_net();
	char mac[18], addr[INET_ADDRSTRLEN], to[INET_ADDRSTRLEN];
	char gw[INET_ADDRSTRLEN];

	dhcp_mac_str(r->h.chaddr, mac);
	inet_ntop(AF_INET, &net->addr4, addr, sizeof(addr));
	inet_ntop(AF_INET, &dst, to, sizeof(to));
	debug("DHCP: %s from %s, xid %#x: %s %s to %s",
	      dhcp_type_names[r->type], mac, ntohl(r->h.xid),
	      dhcp_type_names[d->type], d->lease ? addr : "-", to);

	if (d->type != DHCPACK || !d->lease ||
	    (dhcp_leased && !memcmp(dhcp_leased_mac, r->h.chaddr,
				    ETH_ADDR_LEN)))
		return;
	memcpy(dhcp_leased_mac, r->h.chaddr, ETH_ADDR_LEN);
	dhcp_leased = true;
	inet_ntop(AF_INET, &net->gw4, gw, sizeof(gw));
	info("DHCP: guest %s has address %s/%d, gateway %s", mac, addr,
	     net->prefix4, gw);
}

/**
 * dhcp_reply() - build and send a reply to the guest
 * @c:		execution context
 * @r:		request
 * @d:		reply descriptor
 */
static void dhcp_reply(struct ctx *c, const struct dhcp_req *r,
		       const struct dhcp_reply_desc *d)
{
	uint8_t *msg = dhcp_frame + FRAME_L4_OFF + sizeof(struct udphdr);
	struct in_addr dst = { htonl(INADDR_BROADCAST) };
	union inany_addr src4, dst4;
	size_t len;

	/* RFC 2131, 4.1: unicast only to a client that has its address */
	if (!(ntohs(r->h.flags) & BOOTP_FLAG_BROADCAST) &&
	    r->h.ciaddr.s_addr && d->type != DHCPNAK)
		dst = r->h.ciaddr;

	len = dhcp_msg_fill(c, r, d, msg);
	dhcp_log(r, d, dst);
	inany_from_v4(&src4, ip_net()->gw4);
	inany_from_v4(&dst4, dst);
	udp_tap_send(c, dhcp_frame, &src4, DHCP_SERVER_PORT, &dst4,
		     DHCP_CLIENT_PORT, len);
}

/**
 * dhcp_input() - handle a DHCP message from the guest
 * @c:		execution context
 * @v:		view of the UDP payload, trimmed to the UDP length
 */
void dhcp_input(struct ctx *c, struct pkt_view v)
{
	const struct guest_net *net = ip_net();
	struct dhcp_reply_desc d;
	struct dhcp_req r;

	if (!dhcp_parse(v, &r)) {
		pkt_drop(DROP_DHCP_MALFORMED);
		return;
	}

	d = dhcp_decide(&r);
	if (!d.type || !net->addr4.s_addr) {
		debug("DHCP: %s, xid %#x: no reply",
		      r.type < DHCP_TYPE_MAX ? dhcp_type_names[r.type]
					     : "unknown type",
		      ntohl(r.h.xid));
		return;
	}
	dhcp_reply(c, &r, &d);
	/* The guest takes the address now: inbound flows go there, even
	 * before it sends anything from it (a new one, after follow.c)
	 */
	if (d.type == DHCPACK && d.lease) {
		union inany_addr a;

		inany_from_v4(&a, net->addr4);
		ip_guest_seen(&a);
	}
}
