// SPDX-License-Identifier: GPL-2.0-or-later
/* dhcpv6.c - DHCPv6 server: one guest, one address
 *
 * Theory of operation: as dhcp.c does for IPv4, we hand the guest the one
 * global address we copied from the host (ip_net()), with infinite preferred
 * and valid lifetimes, and keep no state: there is no pool, so whatever
 * client DUID and IAID ask get that address, and the configuration is the
 * binding. udp.c hands us each datagram the guest sends from port 546 to
 * port 547, at All_DHCP_Relay_Agents_and_Servers (ff02::1:2) or at our
 * link-local address, trimmed to the UDP length. A client unicasts only to
 * a server that sent it the Server Unicast option (RFC 8415, 21.12), which
 * we never send; if one does anyway, it is answered as if it had used
 * multicast: we are the only server on the link.
 *
 * Parse, decide, emit. dhcpv6_parse() takes the message type and
 * transaction ID (RFC 8415, 8) and walks the options through the pkt_view
 * cursor: every (code, length) pair must fit in what is left, and the
 * options we read must have their exact length, or a length within the
 * bounds RFC 8415 gives (a DUID is 3 to 130 bytes, 11.1), and appear once,
 * except IA_NA. The options inside an IA_NA, and inside each of its IA
 * Address options, are walked with the same cursor, bounded by their
 * parent. The options of a message that is not one a client sends to a
 * server (those of servers and relays, relay messages having another
 * layout, and unknown types) are not walked: it gets no reply, and is no
 * drop, as dhcp.c treats a DHCPOFFER from the guest. dhcpv6_check() then
 * applies the rules of RFC 8415, 16 on which messages a server discards: a
 * missing Client Identifier, a Server Identifier where none belongs or
 * missing where one must be, an IA in an Information-request. A message
 * that fails either step is dropped as DROP_DHCP6_MALFORMED and gets no
 * reply; one that names another server is none of our business, and is
 * ignored without counting a drop, like a DHCPREQUEST that selects another
 * server in dhcp.c.
 *
 * dhcpv6_decide() maps the message onto a reply (RFC 8415, 18.3): Solicit
 * gets an Advertise with Preference 255, so that the client need not wait
 * for other servers (18.2.1), or at once a Reply with Rapid Commit (21.14)
 * if the client asked for it; Request, Renew and Rebind get a Reply with
 * the address; Confirm gets Success if every address in it is that one,
 * NotOnLink otherwise, and no reply if it lists no address (18.3.3);
 * Release and Decline get Success: there is nothing to free, and no other
 * address to offer; Information-request gets the configuration only.
 *
 * dhcpv6_msg_fill() builds the message: Client Identifier (echoed byte for
 * byte), Server Identifier (a DUID-LL of our MAC address, 11.4), then as
 * decided Preference, Rapid Commit and a Status Code, then one IA_NA for
 * each IA_NA of the client, its IAID echoed: the first holds the address, any
 * further one gets NoAddrsAvail, as we have one address only. In a Reply
 * to Request, Renew or Rebind, addresses the client listed that are not
 * that one (say, from an earlier run with another address) go back with
 * lifetimes 0, so that the client stops using them (18.3.4). T1 and T2 are
 * infinite (0xffffffff, 7.7): the address never changes while we run and
 * its lifetimes never run out, so a Renew could only be told what the
 * client knows, which is also why dhcp.c's lease is infinite. The price is
 * that a guest which outlives us and meets a new instance with another
 * address learns it only when it solicits again (reboot, link change). In
 * replies to Solicit, Request, Renew and Rebind follows the Client FQDN
 * option (RFC 4704) if the client sent one: we do no DNS updates, so N is
 * set and S clear, O set if the client had asked us to update (S), and the
 * name is the client's own, as we have no host name to give. Last come the
 * configuration options, and only those the client lists in its Option
 * Request option: that is where a client names the options it wants (RFC
 * 8415, 21.7; 18.2 has it send one in every message we answer with
 * configuration), and a client that leaves one out may have its reasons
 * (its own DNS setup, say), so we don't push it. They are name servers
 * (option 23) and the domain search list (option 24, uncompressed wire
 * format, RFC 8415, 10). These go last so that, if the reply would not fit
 * in the link's MTU (at least the IPv6 minimum, RFC 8200, 5), they are
 * left out whole; everything before them always fits (see
 * DHCPV6_ESSENTIAL_MAX).
 *
 * Not supported: IA_TA and IA_PD (neither answered: there is only the one
 * address, and no prefix to delegate), relay agents, Reconfigure,
 * authentication, and the user and vendor class options (ignored).
 *
 * Name servers and the search list are those of dhcp.c (-D, -S, or the
 * host's /etc/resolv.conf), honouring --no-dhcp-dns and --no-dhcp-search
 * too. A name server on the host's loopback (::1) is offered as the
 * gateway address, which the IP layer maps to the host, if that is a
 * global address and --no-map-gw is not given; link-local name servers of
 * the host are left out, as their scope is the host's link, not the
 * guest's.
 */

#include <arpa/inet.h>
#include <netinet/udp.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dhcpv6.h"
#include "dns.h"
#include "inany.h"
#include "ip.h"
#include "log.h"
#include "passt.h"
#include "resolv.h"
#include "udp.h"

#define DHCPV6_HDR_LEN		4	/* msg-type, transaction-id: RFC 8415, 8 */
#define DHCPV6_XID_LEN		3
#define OPT6_HDR_LEN		4	/* option-code, option-len: 21.1 */
#define DUID_MIN_LEN		3	/* type code and 1 to 128 bytes: 11.1 */
#define DUID_MAX_LEN		130
#define DUID_TYPE_LL		3	/* 11.4 */
#define DUID_HW_ETHER		1	/* ARP hardware type, RFC 826 */
#define DUID_LL_LEN		(2 + 2 + ETH_ADDR_LEN)
#define IA_NA_FIXED_LEN		12	/* IAID, T1, T2: 21.4 */
#define IAADDR_FIXED_LEN	24	/* address, lifetimes: 21.6 */
#define DHCPV6_INFINITY		0xffffffff	/* 7.7 */
#define DHCPV6_PREF_MAX		255	/* 21.8: choose this server at once */
#define DHCPV6_IA_MAX		4	/* IA_NAs of a message we answer */
#define DHCPV6_STALE_MAX	4	/* other addresses per IA_NA returned */
#define FQDN_FLAG_S		0x01	/* RFC 4704, 4.1: server updates AAAA */
#define FQDN_FLAG_O		0x02	/* server overrode the client's S */
#define FQDN_FLAG_N		0x04	/* server does no update at all */
#define DHCPV6_DGRAM_MIN	1280	/* RFC 8200, 5: every IPv6 link takes it */
#define DHCPV6_DGRAM_MAX	1500	/* our cap, as in dhcp.c */
#define DHCPV6_IP_UDP_LEN	(40 + 8)

/* Message types (RFC 8415, 7.3) */
enum dhcpv6_type {
	SOLICIT = 1,
	ADVERTISE,
	REQUEST,
	CONFIRM,
	RENEW,
	REBIND,
	REPLY,
	RELEASE,
	DECLINE,
	RECONFIGURE,
	INFORMATION_REQUEST,
	RELAY_FORW,
	RELAY_REPL,
	DHCPV6_TYPE_MAX,
};

static const char *const dhcpv6_type_names[DHCPV6_TYPE_MAX] = {
	"(none)", "SOLICIT", "ADVERTISE", "REQUEST", "CONFIRM", "RENEW",
	"REBIND", "REPLY", "RELEASE", "DECLINE", "RECONFIGURE",
	"INFORMATION-REQUEST", "RELAY-FORW", "RELAY-REPL",
};

/* Option codes (RFC 8415, 21, unless noted) */
enum dhcpv6_opt {
	OPT6_CLIENTID		= 1,
	OPT6_SERVERID		= 2,
	OPT6_IA_NA		= 3,
	OPT6_IA_TA		= 4,
	OPT6_IAADDR		= 5,
	OPT6_ORO		= 6,
	OPT6_PREFERENCE		= 7,
	OPT6_STATUS_CODE	= 13,
	OPT6_RAPID_COMMIT	= 14,
	OPT6_DNS_SERVERS	= 23,	/* RFC 3646 */
	OPT6_DOMAIN_LIST	= 24,	/* RFC 3646 */
	OPT6_IA_PD		= 25,
	OPT6_CLIENT_FQDN	= 39,	/* RFC 4704 */
};

/* dhcpv6_opt_read(): one bit each for the options that may appear once */
static_assert(OPT6_CLIENT_FQDN < 64, "seen bits fit in a uint64_t");

/* Status codes (RFC 8415, 21.13) */
enum dhcpv6_status {
	STATUS_SUCCESS		= 0,
	STATUS_NOADDRSAVAIL	= 2,
	STATUS_NOTONLINK	= 4,
	STATUS_NONE		= 0xffff,	/* ours: no Status Code option */
};

/* All_DHCP_Relay_Agents_and_Servers, RFC 8415, 7.1 */
const struct in6_addr dhcpv6_all_servers = {
	.s6_addr = { 0xff, 0x02, [13] = 1, [15] = 2 },
};

/**
 * struct dhcpv6_ia - an IA_NA of the client, as far as we answer it
 * @iaid:	IAID, network order: echoed, never interpreted
 * @stale:	addresses listed in it other than ours
 * @stale_n:	number of @stale, at most DHCPV6_STALE_MAX kept
 */
struct dhcpv6_ia {
	uint32_t iaid;
	struct in6_addr stale[DHCPV6_STALE_MAX];
	int stale_n;
};

/**
 * struct dhcpv6_req - what we use of a parsed message, copied out
 * @type:		message type
 * @xid:		transaction ID
 * @client_id:		client DUID, option 1
 * @client_id_len:	its length, 0 if absent
 * @server_id:		option 2 present
 * @server_id_ours:	... and it holds our DUID
 * @ia:			the first DHCPV6_IA_MAX IA_NAs
 * @ia_n:		number of @ia
 * @ia_na_n:		IA_NAs in the message, those past @ia included
 * @ia_other:		IA_TA or IA_PD present
 * @addr_n:		IA Address options in all IA_NAs
 * @addr_ours_n:	those holding the guest's (ip_net()->addr6)
 * @oro_dns:		the Option Request option lists name servers
 * @oro_search:		... and the domain search list
 * @rapid_commit:	Rapid Commit option present
 * @fqdn:		Client FQDN option present
 * @fqdn_flags:		its flags
 * @fqdn_name:		its domain name, wire format, maybe partial
 * @fqdn_len:		length of @fqdn_name
 * @seen:		options that may appear once seen, by code
 */
struct dhcpv6_req {
	uint8_t type;
	uint8_t xid[DHCPV6_XID_LEN];
	uint8_t client_id[DUID_MAX_LEN];
	size_t client_id_len;
	bool server_id;
	bool server_id_ours;
	struct dhcpv6_ia ia[DHCPV6_IA_MAX];
	int ia_n;
	int ia_na_n;
	bool ia_other;
	int addr_n;
	int addr_ours_n;
	bool oro_dns;
	bool oro_search;
	bool rapid_commit;
	bool fqdn;
	uint8_t fqdn_flags;
	uint8_t fqdn_name[DNS_WIRE_NAME_MAX];
	size_t fqdn_len;
	uint64_t seen;
};

/* What dhcpv6_check() makes of a well-formed message */
enum dhcpv6_verdict {
	DHCPV6_SERVE,		/* ours to answer */
	DHCPV6_NOT_OURS,	/* for another server, or not for a server */
	DHCPV6_INVALID,		/* RFC 8415, 16 says discard: a drop */
};

/**
 * struct dhcpv6_reply_desc - what to answer
 * @type:		ADVERTISE or REPLY; 0: no reply
 * @status:		top-level Status Code, STATUS_NONE for none
 * @lease:		IA_NAs (and the Client FQDN option, if sent)
 * @stale:		return other addresses with lifetimes 0
 * @config:		name servers, search list, as requested
 * @preference:		Preference 255 (Advertise only)
 * @rapid_commit:	echo Rapid Commit (Reply to a Solicit)
 */
struct dhcpv6_reply_desc {
	uint8_t type;
	uint16_t status;
	bool lease;
	bool stale;
	bool config;
	bool preference;
	bool rapid_commit;
};

/**
 * struct dhcpv6_out - write cursor over the options of a reply
 * @p:		start of the options
 * @len:	bytes written
 * @max:	room for options
 */
struct dhcpv6_out {
	uint8_t *p;
	size_t len;
	size_t max;
};

/* Longest status message we send, see dhcpv6_status_put() */
#define STATUS_MSG_MAX		32

/* The options of a reply that are never left out, at their longest:
 * Client and Server Identifier, Preference, Rapid Commit, Status Code,
 * the IA_NAs (holding an address or a Status Code, and stale addresses),
 * Client FQDN. They must fit in the smallest datagram we send.
 */
#define IAADDR_OPT_LEN		(OPT6_HDR_LEN + IAADDR_FIXED_LEN)
#define STATUS_OPT_MAX		(OPT6_HDR_LEN + 2 + STATUS_MSG_MAX)
#define IA_NA_OPT_MAX		(OPT6_HDR_LEN + IA_NA_FIXED_LEN +	\
				 MAX(IAADDR_OPT_LEN, STATUS_OPT_MAX) +	\
				 DHCPV6_STALE_MAX * IAADDR_OPT_LEN)
#define DHCPV6_ESSENTIAL_MAX	(OPT6_HDR_LEN + DUID_MAX_LEN +		\
				 OPT6_HDR_LEN + DUID_LL_LEN +		\
				 OPT6_HDR_LEN + 1 + OPT6_HDR_LEN +	\
				 STATUS_OPT_MAX +			\
				 DHCPV6_IA_MAX * IA_NA_OPT_MAX +	\
				 OPT6_HDR_LEN + 1 + DNS_WIRE_NAME_MAX)
static_assert(DHCPV6_HDR_LEN + DHCPV6_ESSENTIAL_MAX <=
	      DHCPV6_DGRAM_MIN - DHCPV6_IP_UDP_LEN,
	      "identifiers, IAs and FQDN always fit in a reply");

static uint8_t dhcpv6_frame[FRAME_BUF_SIZE] __attribute__((aligned(8)));

/* DUID of the client that last got an address, to log each new one once */
static uint8_t dhcpv6_leased_duid[DUID_MAX_LEN];
static size_t dhcpv6_leased_len;

/**
 * dhcpv6_type_str() - name of a message type, for logs
 * @type:	message type
 *
 * Return: name, "unknown" if out of range
 */
static const char *dhcpv6_type_str(uint8_t type)
{
	return type < DHCPV6_TYPE_MAX ? dhcpv6_type_names[type] : "unknown";
}

/**
 * dhcpv6_type_served() - is this a message a client sends to a server?
 * @type:	message type
 *
 * Return: true for the types we answer, or check and ignore
 */
static bool dhcpv6_type_served(uint8_t type)
{
	switch (type) {
	case SOLICIT:
	case REQUEST:
	case CONFIRM:
	case RENEW:
	case REBIND:
	case RELEASE:
	case DECLINE:
	case INFORMATION_REQUEST:
		return true;
	default:
		return false;
	}
}

/**
 * dhcpv6_duid() - our DUID: DUID-LL of our MAC address (RFC 8415, 11.4)
 * @c:		execution context
 * @duid:	output, DUID_LL_LEN bytes
 *
 * A DUID-LL, not a DUID-LLT: with no time in it, it stays the same across
 * restarts without our storing it anywhere.
 */
static void dhcpv6_duid(const struct ctx *c, uint8_t *duid)
{
	uint16_t type = htons(DUID_TYPE_LL), hw = htons(DUID_HW_ETHER);

	memcpy(duid, &type, sizeof(type));
	memcpy(duid + 2, &hw, sizeof(hw));
	memcpy(duid + 4, c->mac_ours, ETH_ADDR_LEN);
}

/**
 * dhcpv6_pull_u8() - take one byte from a view
 * @v:		view
 * @b:		byte, set on success
 *
 * Return: true on success, false if the view is empty
 */
static bool dhcpv6_pull_u8(struct pkt_view *v, uint8_t *b)
{
	const uint8_t *p = pkt_pull(v, 1);

	if (!p)
		return false;
	*b = *p;
	return true;
}

/**
 * dhcpv6_opt_next() - take the next option from a list of options
 * @v:		view of the list, advanced past the option
 * @code:	option code, set on success
 * @val:	option value, as long as its declared length, set on success
 *
 * Return: true on success, false if the header or the value don't fit
 */
static bool dhcpv6_opt_next(struct pkt_view *v, uint16_t *code,
			    struct pkt_view *val)
{
	const void *p = pkt_pull(v, OPT6_HDR_LEN);
	uint16_t h[2];

	if (!p)
		return false;
	memcpy(h, p, sizeof(h));
	*code = ntohs(h[0]);
	return pkt_sub(v, ntohs(h[1]), val);
}

/**
 * dhcpv6_opts_wellformed() - check a list of options we don't read
 * @v:		view of the list
 *
 * Return: true if every option fits
 */
static bool dhcpv6_opts_wellformed(struct pkt_view v)
{
	struct pkt_view val;
	uint16_t code;

	while (v.len) {
		if (!dhcpv6_opt_next(&v, &code, &val))
			return false;
	}
	return true;
}

/**
 * dhcpv6_iaaddr_read() - check and count an IA Address option of an IA_NA
 * @r:		request being parsed
 * @ia:		IA_NA holding it, NULL if past DHCPV6_IA_MAX
 * @val:	option value
 *
 * The lifetimes a client may suggest are ignored.
 *
 * Return: false if malformed
 */
static bool dhcpv6_iaaddr_read(struct dhcpv6_req *r,
			       struct dhcpv6_ia *ia, struct pkt_view val)
{
	const void *p = pkt_pull(&val, IAADDR_FIXED_LEN);
	struct in6_addr a;

	if (!p || !dhcpv6_opts_wellformed(val))
		return false;
	memcpy(&a, p, sizeof(a));

	r->addr_n++;
	if (IN6_ARE_ADDR_EQUAL(&a, &ip_net()->addr6))
		r->addr_ours_n++;
	else if (ia && ia->stale_n < DHCPV6_STALE_MAX)
		ia->stale[ia->stale_n++] = a;
	return true;
}

/**
 * dhcpv6_ia_na_read() - check an IA_NA option, keep its IAID, addresses
 * @r:		request being parsed
 * @val:	option value
 *
 * T1 and T2, which a client may suggest, are ignored. The options inside are
 * walked within the IA_NA's own view, so none can reach past its end.
 *
 * Return: false if malformed
 */
static bool dhcpv6_ia_na_read(struct dhcpv6_req *r, struct pkt_view val)
{
	const void *p = pkt_pull(&val, IA_NA_FIXED_LEN);
	struct dhcpv6_ia *ia = NULL;
	struct pkt_view sub;
	uint16_t code;

	if (!p)
		return false;
	r->ia_na_n++;
	if (r->ia_n < DHCPV6_IA_MAX) {
		ia = &r->ia[r->ia_n++];
		memcpy(&ia->iaid, p, sizeof(ia->iaid));
	}

	while (val.len) {
		if (!dhcpv6_opt_next(&val, &code, &sub))
			return false;
		if (code == OPT6_IAADDR && !dhcpv6_iaaddr_read(r, ia, sub))
			return false;
	}
	return true;
}

/**
 * dhcpv6_oro_read() - check the Option Request option, note what we serve
 * @r:		request being parsed
 * @val:	option value: a list of 16-bit option codes
 *
 * Return: false if malformed
 */
static bool dhcpv6_oro_read(struct dhcpv6_req *r, struct pkt_view val)
{
	const void *p;
	uint16_t code;

	if (val.len % sizeof(code))
		return false;
	while ((p = pkt_pull(&val, sizeof(code)))) {
		memcpy(&code, p, sizeof(code));
		if (ntohs(code) == OPT6_DNS_SERVERS)
			r->oro_dns = true;
		else if (ntohs(code) == OPT6_DOMAIN_LIST)
			r->oro_search = true;
	}
	return true;
}

/**
 * dhcpv6_fqdn_read() - check and copy out the Client FQDN option
 * @r:		request being parsed
 * @val:	option value: flags, then a domain name (RFC 4704, 4.1)
 *
 * Return: false if malformed
 */
static bool dhcpv6_fqdn_read(struct dhcpv6_req *r, struct pkt_view val)
{
	if (!dhcpv6_pull_u8(&val, &r->fqdn_flags) || !dns_name_check(val))
		return false;
	if (val.len)
		memcpy(r->fqdn_name, val.data, val.len);
	r->fqdn_len = val.len;
	r->fqdn = true;
	return true;
}

/**
 * dhcpv6_duid_read() - check the value of a Client or Server Identifier
 * @val:	option value
 * @dst:	copy of the DUID, NULL if not needed
 * @len:	its length, set if @dst is given
 *
 * Return: false if it's too short or too long to be a DUID (RFC 8415, 11.1)
 */
static bool dhcpv6_duid_read(struct pkt_view val, uint8_t *dst, size_t *len)
{
	if (val.len < DUID_MIN_LEN || val.len > DUID_MAX_LEN)
		return false;
	if (dst) {
		memcpy(dst, val.data, val.len);
		*len = val.len;
	}
	return true;
}

/**
 * dhcpv6_opt_read() - check and copy out one top-level option, if we use it
 * @c:		execution context
 * @r:		request being parsed
 * @code:	option code
 * @val:	option value, as long as its declared length
 *
 * Return: false if the option is one we use and its length or content is
 *	   wrong, or it may appear once and is repeated
 */
static bool dhcpv6_opt_read(const struct ctx *c, struct dhcpv6_req *r,
			    uint16_t code, struct pkt_view val)
{
	uint8_t duid[DUID_LL_LEN];

	switch (code) {
	case OPT6_CLIENTID:
	case OPT6_SERVERID:
	case OPT6_ORO:
	case OPT6_RAPID_COMMIT:
	case OPT6_CLIENT_FQDN:
		if (r->seen & (1ULL << code))
			return false;
		r->seen |= 1ULL << code;
		break;
	case OPT6_IA_NA:
		return dhcpv6_ia_na_read(r, val);
	case OPT6_IA_TA:
	case OPT6_IA_PD:
		r->ia_other = true;
		return true;
	default:
		return true;
	}

	switch (code) {
	case OPT6_CLIENTID:
		return dhcpv6_duid_read(val, r->client_id, &r->client_id_len);
	case OPT6_SERVERID:
		dhcpv6_duid(c, duid);
		r->server_id = true;
		r->server_id_ours = val.len == sizeof(duid) &&
				    !memcmp(val.data, duid, sizeof(duid));
		return dhcpv6_duid_read(val, NULL, NULL);
	case OPT6_ORO:
		return dhcpv6_oro_read(r, val);
	case OPT6_RAPID_COMMIT:
		r->rapid_commit = true;
		return !val.len;
	default: /* OPT6_CLIENT_FQDN */
		return dhcpv6_fqdn_read(r, val);
	}
}

/**
 * dhcpv6_parse() - check a DHCPv6 message and copy out what we use
 * @c:		execution context
 * @v:		view of the UDP payload
 * @r:		request, filled in
 *
 * Return: true if well-formed; the options of a message that isn't one a
 *	   client sends to a server are not looked at
 */
static bool dhcpv6_parse(const struct ctx *c, struct pkt_view v,
			 struct dhcpv6_req *r)
{
	struct pkt_view val;
	uint16_t code;

	memset(r, 0, sizeof(*r));
	if (!dhcpv6_pull_u8(&v, &r->type) ||
	    !pkt_sub(&v, DHCPV6_XID_LEN, &val))
		return false;
	memcpy(r->xid, val.data, DHCPV6_XID_LEN);

	if (!dhcpv6_type_served(r->type))
		return true;	/* dhcpv6_check() ignores it */

	while (v.len) {
		if (!dhcpv6_opt_next(&v, &code, &val) ||
		    !dhcpv6_opt_read(c, r, code, val))
			return false;
	}
	return true;
}

/**
 * dhcpv6_check() - which messages a server discards (RFC 8415, 16)
 * @r:		parsed request
 *
 * Return: DHCPV6_SERVE, DHCPV6_NOT_OURS (for another server, or from a
 *	   server or a relay) or DHCPV6_INVALID
 */
static enum dhcpv6_verdict dhcpv6_check(const struct dhcpv6_req *r)
{
	switch (r->type) {
	case SOLICIT:
	case CONFIRM:
	case REBIND:
		/* To any server: no Server Identifier (16.2, 16.5, 16.7) */
		if (!r->client_id_len || r->server_id)
			return DHCPV6_INVALID;
		return DHCPV6_SERVE;
	case REQUEST:
	case RENEW:
	case RELEASE:
	case DECLINE:
		/* To the server it names (16.4, 16.6, 16.8, 16.9) */
		if (!r->client_id_len || !r->server_id)
			return DHCPV6_INVALID;
		return r->server_id_ours ? DHCPV6_SERVE : DHCPV6_NOT_OURS;
	case INFORMATION_REQUEST:
		/* No IA of any kind, Client Identifier optional (16.12) */
		if (r->ia_na_n || r->ia_other)
			return DHCPV6_INVALID;
		if (r->server_id && !r->server_id_ours)
			return DHCPV6_NOT_OURS;
		return DHCPV6_SERVE;
	default:
		return DHCPV6_NOT_OURS;
	}
}

/**
 * dhcpv6_decide() - choose the reply to a message (RFC 8415, 18.3)
 * @r:		parsed request, accepted by dhcpv6_check()
 *
 * Return: reply descriptor, type 0 if there's nothing to send
 */
static struct dhcpv6_reply_desc dhcpv6_decide(const struct dhcpv6_req *r)
{
	struct dhcpv6_reply_desc d = { .status = STATUS_NONE };

	switch (r->type) {
	case SOLICIT:
		d.type = r->rapid_commit ? REPLY : ADVERTISE;
		d.rapid_commit = r->rapid_commit;
		d.preference = !r->rapid_commit;
		d.lease = d.config = true;
		break;
	case REQUEST:
	case RENEW:
	case REBIND:
		d.type = REPLY;
		d.lease = d.stale = d.config = true;
		break;
	case CONFIRM:
		/* 18.3.3: nothing to confirm, or nothing to judge it by */
		if (!r->addr_n || IN6_IS_ADDR_UNSPECIFIED(&ip_net()->addr6))
			break;
		d.type = REPLY;
		d.status = r->addr_ours_n == r->addr_n ? STATUS_SUCCESS
						       : STATUS_NOTONLINK;
		break;
	case RELEASE:
	case DECLINE:
		/* 18.3.7, 18.3.8: nothing to free, no other address */
		d.type = REPLY;
		d.status = STATUS_SUCCESS;
		break;
	case INFORMATION_REQUEST:
		d.type = REPLY;
		d.config = true;
		break;
	}
	return d;
}

/**
 * dhcpv6_opt_put() - append an option
 * @o:		output cursor
 * @code:	option code
 * @val:	value, may be NULL if @len is 0
 * @len:	value length
 *
 * Return: offset of the option in the options, for dhcpv6_opt_close(), or
 *	   -1 (nothing written) if it doesn't fit
 */
static ssize_t dhcpv6_opt_put(struct dhcpv6_out *o, uint16_t code,
			      const void *val, size_t len)
{
	uint16_t h[2] = { htons(code), htons(len) };
	size_t at = o->len;

	if (len > UINT16_MAX || o->len + OPT6_HDR_LEN + len > o->max) {
		debug("DHCPv6: no room for option %u (%zu bytes)", code, len);
		return -1;
	}
	memcpy(o->p + at, h, sizeof(h));
	if (len)
		memcpy(o->p + at + OPT6_HDR_LEN, val, len);
	o->len += OPT6_HDR_LEN + len;
	return at;
}

/**
 * dhcpv6_opt_close() - extend an option over the options appended after it
 * @o:		output cursor
 * @at:		offset of the option, from dhcpv6_opt_put()
 */
static void dhcpv6_opt_close(struct dhcpv6_out *o, size_t at)
{
	uint16_t len = htons(o->len - at - OPT6_HDR_LEN);

	memcpy(o->p + at + 2, &len, sizeof(len));
}

/**
 * dhcpv6_status_put() - append a Status Code option (RFC 8415, 21.13)
 * @o:		output cursor
 * @status:	status code
 */
static void dhcpv6_status_put(struct dhcpv6_out *o, uint16_t status)
{
	const char *msg = status == STATUS_SUCCESS ? "success" :
			  status == STATUS_NOTONLINK ? "not on link" :
						       "no address available";
	uint8_t v[2 + STATUS_MSG_MAX];
	uint16_t code = htons(status);
	size_t len = strlen(msg);

	memcpy(v, &code, sizeof(code));
	memcpy(v + 2, msg, len);		/* UTF-8, no terminator */
	dhcpv6_opt_put(o, OPT6_STATUS_CODE, v, 2 + len);
}

/**
 * dhcpv6_iaaddr_put() - append an IA Address option (RFC 8415, 21.6)
 * @o:		output cursor
 * @a:		address
 * @lifetime:	preferred and valid lifetime, seconds
 */
static void dhcpv6_iaaddr_put(struct dhcpv6_out *o, const struct in6_addr *a,
			      uint32_t lifetime)
{
	uint32_t l = htonl(lifetime);
	uint8_t v[IAADDR_FIXED_LEN];

	memcpy(v, a, sizeof(*a));
	memcpy(v + 16, &l, sizeof(l));
	memcpy(v + 20, &l, sizeof(l));
	dhcpv6_opt_put(o, OPT6_IAADDR, v, sizeof(v));
}

/**
 * dhcpv6_ia_put() - append an IA_NA option for one of the client's
 * @o:		output cursor
 * @ia:		the client's IA_NA
 * @give:	it gets the guest's address; otherwise NoAddrsAvail
 * @stale:	return the other addresses it listed, lifetimes 0
 */
static void dhcpv6_ia_put(struct dhcpv6_out *o,
			  const struct dhcpv6_ia *ia, bool give, bool stale)
{
	uint32_t t = htonl(give ? DHCPV6_INFINITY : 0);
	uint8_t fixed[IA_NA_FIXED_LEN];
	ssize_t at;
	int i;

	memcpy(fixed, &ia->iaid, sizeof(ia->iaid));
	memcpy(fixed + 4, &t, sizeof(t));		/* T1 */
	memcpy(fixed + 8, &t, sizeof(t));		/* T2 */
	at = dhcpv6_opt_put(o, OPT6_IA_NA, fixed, sizeof(fixed));
	if (at < 0)
		return;

	if (give)
		dhcpv6_iaaddr_put(o, &ip_net()->addr6, DHCPV6_INFINITY);
	else
		dhcpv6_status_put(o, STATUS_NOADDRSAVAIL);
	for (i = 0; stale && i < ia->stale_n; i++)
		dhcpv6_iaaddr_put(o, &ia->stale[i], 0);
	dhcpv6_opt_close(o, at);
}

/**
 * dhcpv6_fqdn_put() - append our Client FQDN option (RFC 4704, 4.1)
 * @c:		execution context
 * @o:		output cursor
 * @r:		request, with the client's option
 *
 * We do no DNS update: N set, S clear, O set if the client asked for S.
 * The name is --fqdn's if given, the client's own otherwise.
 */
static void dhcpv6_fqdn_put(const struct ctx *c, struct dhcpv6_out *o,
			    const struct dhcpv6_req *r)
{
	uint8_t v[1 + DNS_WIRE_NAME_MAX];
	size_t len = 0;

	v[0] = FQDN_FLAG_N;
	if (r->fqdn_flags & FQDN_FLAG_S)
		v[0] |= FQDN_FLAG_O;
	if (c->fqdn[0])
		len = dns_name_encode(c->fqdn, v + 1, sizeof(v) - 1);
	if (!len) {
		memcpy(v + 1, r->fqdn_name, r->fqdn_len);
		len = r->fqdn_len;
	}
	dhcpv6_opt_put(o, OPT6_CLIENT_FQDN, v, 1 + len);
}

/**
 * dhcpv6_addr_global() - could the guest reach this address of the host's?
 * @a:		address
 *
 * Return: false for unspecified, loopback, multicast, link-local (whose
 *	   scope is the host's link) and IPv4-mapped addresses
 */
static bool dhcpv6_addr_global(const struct in6_addr *a)
{
	return !IN6_IS_ADDR_UNSPECIFIED(a) && !IN6_IS_ADDR_LOOPBACK(a) &&
	       !IN6_IS_ADDR_MULTICAST(a) && !IN6_IS_ADDR_LINKLOCAL(a) &&
	       !IN6_IS_ADDR_V4MAPPED(a);
}

/**
 * dhcpv6_dns_usable() - the address to offer for a name server of the host
 * @a:		name server address
 * @use:	address to offer, set if usable
 *
 * Return: true if the guest can reach the name server, through @use
 */
static bool dhcpv6_dns_usable(const struct in6_addr *a, struct in6_addr *use)
{
	const struct guest_net *net = ip_net();

	if (IN6_IS_ADDR_LOOPBACK(a)) {
		/* the gateway address stands for the host's loopback */
		if (!inany_is_set(&net->map_host_lo[INANY_V6]) ||
		    !dhcpv6_addr_global(&net->map_host_lo[INANY_V6].a6))
			return false;
		*use = net->map_host_lo[INANY_V6].a6;
		return true;
	}
	if (!dhcpv6_addr_global(a))
		return false;
	*use = *a;
	return true;
}

/**
 * dhcpv6_opts_config() - append the configuration options the client asked
 * @c:		execution context
 * @r:		request, with its Option Request option
 * @o:		output cursor
 *
 * Last in a reply: either is left out whole if it doesn't fit.
 */
static void dhcpv6_opts_config(const struct ctx *c, const struct dhcpv6_req *r,
			       struct dhcpv6_out *o)
{
	const struct dns_offer *offer = resolv_offer();
	uint8_t search[DNS_SEARCH_MAX * (DNS_NAME_MAX + 2)];
	struct in6_addr dns[DNS6_MAX];
	int i, n = 0;
	size_t len;

	for (i = 0; r->oro_dns && !c->no_dhcp_dns && i < offer->dns6_n &&
		    i < DNS6_MAX; i++) {
		if (dhcpv6_dns_usable(&offer->dns6[i], &dns[n]))
			n++;
	}
	if (n)
		dhcpv6_opt_put(o, OPT6_DNS_SERVERS, dns, n * sizeof(dns[0]));

	if (r->oro_search && !c->no_dhcp_search && offer->search_n) {
		len = dns_search_encode(offer, search, sizeof(search));
		if (len)
			dhcpv6_opt_put(o, OPT6_DOMAIN_LIST, search, len);
	}
}

/**
 * dhcpv6_msg_fill() - write the reply message
 * @c:		execution context
 * @r:		request
 * @d:		reply descriptor
 * @msg:	where the message starts, after the UDP header
 *
 * Return: message length
 */
static size_t dhcpv6_msg_fill(const struct ctx *c, const struct dhcpv6_req *r,
			      const struct dhcpv6_reply_desc *d, uint8_t *msg)
{
	size_t dgram = MIN(MAX((size_t)c->mtu, (size_t)DHCPV6_DGRAM_MIN),
			   (size_t)DHCPV6_DGRAM_MAX);
	struct dhcpv6_out o = { .p = msg + DHCPV6_HDR_LEN,
				.max = dgram - DHCPV6_IP_UDP_LEN -
				       DHCPV6_HDR_LEN };
	bool have = !IN6_IS_ADDR_UNSPECIFIED(&ip_net()->addr6);
	uint8_t duid[DUID_LL_LEN], pref = DHCPV6_PREF_MAX;
	int i;

	msg[0] = d->type;
	memcpy(msg + 1, r->xid, sizeof(r->xid));

	if (r->client_id_len)
		dhcpv6_opt_put(&o, OPT6_CLIENTID, r->client_id,
			       r->client_id_len);
	dhcpv6_duid(c, duid);
	dhcpv6_opt_put(&o, OPT6_SERVERID, duid, sizeof(duid));
	if (d->preference)
		dhcpv6_opt_put(&o, OPT6_PREFERENCE, &pref, sizeof(pref));
	if (d->rapid_commit)
		dhcpv6_opt_put(&o, OPT6_RAPID_COMMIT, NULL, 0);
	if (d->status != STATUS_NONE)
		dhcpv6_status_put(&o, d->status);
	for (i = 0; d->lease && i < r->ia_n; i++)
		dhcpv6_ia_put(&o, &r->ia[i], !i && have, d->stale);
	if (d->lease && r->fqdn)
		dhcpv6_fqdn_put(c, &o, r);
	if (d->config)
		dhcpv6_opts_config(c, r, &o);

	return DHCPV6_HDR_LEN + o.len;
}

/**
 * dhcpv6_xid() - transaction ID as a number, for logs
 * @r:		request
 *
 * Return: transaction ID
 */
static unsigned int dhcpv6_xid(const struct dhcpv6_req *r)
{
	return r->xid[0] << 16 | r->xid[1] << 8 | r->xid[2];
}

/**
 * dhcpv6_log() - debug line per reply, info once per client that gets the
 * address
 * @l3:		addresses of the request
 * @r:		request
 * @d:		reply descriptor
 */
static void dhcpv6_log(const struct l3_info *l3, const struct dhcpv6_req *r,
		       const struct dhcpv6_reply_desc *d)
{
	const struct guest_net *net = ip_net();
	bool leased = d->type == REPLY && d->lease && r->ia_n &&
		      !IN6_IS_ADDR_UNSPECIFIED(&net->addr6);
	char from[INANY_STRLEN], addr[INET6_ADDRSTRLEN];

	inany_ntop(&l3->src, from, sizeof(from));
	inet_ntop(AF_INET6, &net->addr6, addr, sizeof(addr));
	debug("DHCPv6: %s from %s, xid %#08x, %d IA_NA: %s %s",
	      dhcpv6_type_str(r->type), from, dhcpv6_xid(r), r->ia_na_n,
	      dhcpv6_type_str(d->type), leased ? addr : "-");

	if (r->type == RELEASE || r->type == DECLINE)
		dhcpv6_leased_len = 0;	/* log the next lease again */
	if (!leased || (dhcpv6_leased_len == r->client_id_len &&
			!memcmp(dhcpv6_leased_duid, r->client_id,
				r->client_id_len)))
		return;
	memcpy(dhcpv6_leased_duid, r->client_id, r->client_id_len);
	dhcpv6_leased_len = r->client_id_len;
	info("DHCPv6: guest %s has address %s", from, addr);
}

/**
 * dhcpv6_src_ok() - can we answer this source address?
 * @src:	source address of the request
 *
 * Return: true for an IPv6 unicast address (a client's is link-local, but
 *	   need not be checked here)
 */
static bool dhcpv6_src_ok(const union inany_addr *src)
{
	return !inany_is_v4(src) && !inany_is_multicast(src) &&
	       !inany_is_unspecified(src);
}

/**
 * dhcpv6_input() - handle a DHCPv6 message from the guest
 * @c:		execution context
 * @l3:		addresses of the datagram: the reply goes to its source
 * @v:		view of the UDP payload, trimmed to the UDP length
 */
void dhcpv6_input(struct ctx *c, const struct l3_info *l3, struct pkt_view v)
{
	uint8_t *msg = dhcpv6_frame + FRAME_L4_OFF + sizeof(struct udphdr);
	union inany_addr ours = { .a6 = ip_net()->ll6_ours };
	struct dhcpv6_reply_desc d;
	struct dhcpv6_req r;
	size_t len;

	if (!dhcpv6_src_ok(&l3->src) || !dhcpv6_parse(c, v, &r)) {
		pkt_drop(DROP_DHCP6_MALFORMED);
		return;
	}
	switch (dhcpv6_check(&r)) {
	case DHCPV6_INVALID:
		debug("DHCPv6: invalid %s, xid %#08x, dropped",
		      dhcpv6_type_str(r.type), dhcpv6_xid(&r));
		pkt_drop(DROP_DHCP6_MALFORMED);
		return;
	case DHCPV6_NOT_OURS:
		debug("DHCPv6: %s, xid %#08x: not for us",
		      dhcpv6_type_str(r.type), dhcpv6_xid(&r));
		return;
	case DHCPV6_SERVE:
		break;
	}

	d = dhcpv6_decide(&r);
	if (!d.type) {
		debug("DHCPv6: %s, xid %#08x: no reply",
		      dhcpv6_type_str(r.type), dhcpv6_xid(&r));
		return;
	}
	len = dhcpv6_msg_fill(c, &r, &d, msg);
	dhcpv6_log(l3, &r, &d);
	udp_tap_send(c, dhcpv6_frame, &ours, DHCPV6_SERVER_PORT, &l3->src,
		     DHCPV6_CLIENT_PORT, len);
}
